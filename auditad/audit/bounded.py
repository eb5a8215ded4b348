"""Keep ``summary.json`` bounded: per-class tables of benchmarks with many classes go to CSV files.

Up to `MAX_INLINE_CLASSES` classes every per-class table is inline. Above it,
each of `PER_CLASS_PATHS` is written to ``data/summary/<path>.csv`` and replaced
in the summary by ``{"csv": "data/summary/<path>.csv", "n_rows": n}``, so the
summary's size grows with the number of representations and detectors, not with
the number of classes (``docs/report.md``). The neighbour-confusion matrix is
written in long form, nonzero cells only (``row``, ``column``: positions in the
``classes`` list; ``value``).
"""

from __future__ import annotations

import copy
import json
from typing import Mapping

from ..report._slug import unique_slug

__all__ = ["MAX_INLINE_CLASSES", "PER_CLASS_PATHS", "bound_summary"]

#: Largest number of classes whose per-class tables stay inside summary.json.
MAX_INLINE_CLASSES = 200

#: Per-class lists of a summary (``*``: every key of that mapping).
PER_CLASS_PATHS = (
    "dataset.classes",
    "dataset.class_sizes",
    "leakage.representations.*.classes",
    "leakage.representations.*.per_class",
    "leakage.representations.*.confusion",
    "protocol.classes",
    "protocol.representations.*.per_class",
    "protocol.representations.*.leakage.per_class",
    "nulls.per_class",
    "duplicates.representations.*.per_class",
)


def _expand(node, parts: list, prefix: list):
    """Yield (path segments, parent mapping, key) for every match of ``parts`` under ``node``."""
    if not isinstance(node, Mapping) or not parts:
        return
    head, rest = parts[0], parts[1:]
    keys = list(node) if head == "*" else ([head] if head in node else [])
    for k in keys:
        if rest:
            yield from _expand(node[k], rest, prefix + [str(k)])
        else:
            yield prefix + [str(k)], node, k


def _frame(value):
    import pandas as pd

    if value and all(isinstance(v, list) for v in value):  # a matrix: nonzero cells in long form
        rows = [(i, j, x) for i, row in enumerate(value) for j, x in enumerate(row) if x]
        return pd.DataFrame(rows, columns=["row", "column", "value"])
    if value and all(isinstance(v, Mapping) for v in value):
        flat = pd.json_normalize(value, sep=".")
        for col in flat.columns:
            if flat[col].map(lambda x: isinstance(x, (list, dict))).any():
                flat[col] = flat[col].map(lambda x: json.dumps(x) if isinstance(x, (list, dict)) else x)
        return flat
    return pd.DataFrame({"value": value})


def bound_summary(summary: Mapping, *, max_classes: int | None = None) -> tuple[dict, dict]:
    """A copy of ``summary`` with the per-class lists moved out when there are more than ``max_classes`` classes.

    Parameters
    ----------
    summary : mapping
    max_classes : int, optional
        Default `MAX_INLINE_CLASSES`.

    Returns
    -------
    summary : dict
        Unchanged (a copy) up to ``max_classes`` classes.
    files : dict of str -> pandas.DataFrame
        Relative CSV path -> table to write next to summary.json.
    """
    if max_classes is None:
        max_classes = MAX_INLINE_CLASSES
    out = copy.deepcopy(dict(summary))
    files: dict = {}
    if out.get("dataset", {}).get("n_classes", 0) <= max_classes:
        return out, files
    taken: set = set()
    for pattern in PER_CLASS_PATHS:
        for segments, parent, key in list(_expand(out, pattern.split("."), [])):
            value = parent[key]
            if not isinstance(value, list):
                continue
            rel = f"data/summary/{unique_slug('.'.join(segments), taken)}.csv"
            files[rel] = _frame(value)
            parent[key] = {"csv": rel, "n_rows": len(value)}
    return out, files
