"""The duplicates of a benchmark against its class-split tasks: the overlap per task and AUROC without the copies.

The protocol audit ([`audit_protocol`][auditad.protocol.audit_protocol]) trains and tests on a split plan;
a test row with an identical training row is at distance 0 from it. These functions take the audit's
[`ProtocolResult`][auditad.protocol.ProtocolResult] and the [`DuplicatesResult`][auditad.duplicates.DuplicatesResult]
of the same rows and give, per task, the test rows copied in training (`task_overlap`, one
[`DuplicatesResult.overlap`][auditad.duplicates.DuplicatesResult.overlap] per task as in
[`overlap_by_task`][auditad.duplicates.overlap_by_task]), their summary (`overlap_summary`), the protocol run
again without those rows (`audit_without_copies`) and the change of every AUROC(c) (`delta_frame`).

References
----------
G. O. Campos et al., "On the evaluation of unsupervised outlier detection: measures, datasets, and an
empirical study", Data Mining and Knowledge Discovery 30, 2016.
"""

from __future__ import annotations

import warnings
from typing import Mapping

import numpy as np

from ..errors import AuditadWarning

__all__ = ["reproduce_plan", "task_overlap", "overlap_summary", "audit_without_copies", "delta_frame"]

#: Columns of `task_overlap`.
TASK_OVERLAP_COLUMNS = (
    "class",
    "repeat",
    "n_train",
    "n_test",
    "n_exact",
    "n_exact_anomalies",
    "exact_share",
    "n_near",
    "near_share",
)


def reproduce_plan(proto, *, labels, protocol: str, contamination, keep, random_state):
    """``(plan, None)``: the split plan of the protocol audit ``proto``; ``(None, reason)`` when it cannot be had.

    The audit's own plan when it kept one (and excluded no test copies); otherwise the plan drawn again from
    its settings with the same seed, accepted only when every task has the audit's counts. ``keep``: the
    classes the audit kept (``ProtocolResult.subset``), or None.

    See Also
    --------
    - [`class_split_plan`][auditad.protocol.class_split_plan]: draws a plan.
    - `task_overlap`: the overlap of each task of the plan.
    """
    from ..protocol import SplitPlan, class_split_plan

    st = proto.settings
    if st.get("split") == "user":
        return None, "the protocol ran on a user split, which this section cannot reproduce"
    # the protocol's own plan when it drew one here without excluding test copies (at K = 1 000 a plan is ~15 s)
    reuse = proto.plan is not None and "excluded_test_copies" not in st
    plan = (
        proto.plan
        if reuse
        else class_split_plan(
            labels,
            protocol=protocol,
            train_fraction=st["train_fraction"],
            contamination=contamination,
            max_test_normals=st["max_test_normals"] or 0,
            repeats=st["repeats"],
            random_state=random_state,
        )
    )
    if keep is not None:  # the tasks the protocol audit kept
        kept = [t for t in plan.tasks if plan.classes[t.c].item() in keep]
        plan = SplitPlan(
            plan.protocol, plan.classes, plan.repeat_seeds, tuple(kept), plan.skipped, plan.short_anomalies
        )
    return (
        (plan, None)
        if _same_counts(plan, proto)
        else (None, "the protocol's tasks could not be reproduced from its settings")
    )


def _same_counts(plan, proto) -> bool:
    """Whether every task of ``plan`` has the audit's numbers of test anomalies and normals."""
    pos = {c.item(): i for i, c in enumerate(proto.classes)}
    n_pos, n_neg = np.zeros_like(proto.n_pos), np.zeros_like(proto.n_neg)
    for t in plan.tasks:
        i = pos.get(plan.classes[t.c].item())
        if i is None:
            return False
        n_pos[i, t.repeat] = int(t.y_test.sum())
        n_neg[i, t.repeat] = t.y_test.size - n_pos[i, t.repeat]
    return bool(np.array_equal(n_pos, proto.n_pos) and np.array_equal(n_neg, proto.n_neg))


def task_overlap(dup, plan):
    """Per task of ``plan``: test rows with an exact (and a near) copy among the task's training rows.

    One row per task: ``class``, ``repeat``, ``n_train``, ``n_test``, ``n_exact``, ``n_exact_anomalies``
    (anomalies with an identical training row: a row labelled with two classes), ``exact_share``,
    ``n_near``, ``near_share`` (missing when near duplicates were not computed).

    See Also
    --------
    - [`overlap_by_task`][auditad.duplicates.overlap_by_task]: the same per task, as result objects.
    - `overlap_summary`: the largest and mean shares.
    """
    import pandas as pd

    copies = dup.n_groups > 0 or bool(dup.n_near_pairs)
    rows = []
    for t in plan.tasks:
        m = int(t.test_idx.size)
        row = {
            "class": plan.classes[t.c].item(),
            "repeat": t.repeat,
            "n_train": t.n_train,
            "n_test": m,
            "n_exact": 0,
            "n_exact_anomalies": 0,
            "exact_share": 0.0,
            "n_near": None if dup.near_pairs is None else 0,
            "near_share": None if dup.near_pairs is None else 0.0,
        }
        if copies:  # without any copy in the whole set every task's overlap is 0: no per-task pass
            ov = dup.overlap(t.train_idx, t.test_idx, y_test=t.y_test)
            row.update(
                n_exact=ov.n_exact,
                n_exact_anomalies=int(ov.exact_copy[t.y_test == 1].sum()),
                exact_share=ov.exact_share,
                n_near=ov.n_near,
                near_share=ov.near_share,
            )
        rows.append(row)
    return pd.DataFrame(rows, columns=list(TASK_OVERLAP_COLUMNS))


def overlap_summary(frame) -> dict:
    """The largest and mean exact shares of a `task_overlap` frame, where the largest is, and the counts.

    See Also
    --------
    - `task_overlap`: the frame.
    """
    exact = frame["exact_share"].to_numpy(dtype=float)
    i = int(np.argmax(exact)) if exact.size else 0
    near = frame["near_share"]
    return {
        "n_tasks": int(len(frame)),
        "tasks_with_exact_copies": int((frame["n_exact"] > 0).sum()),
        "exact_share_max": float(exact.max()) if exact.size else 0.0,
        "exact_share_max_where": (
            {"class": frame["class"].iloc[i], "repeat": int(frame["repeat"].iloc[i])}
            if exact.size and exact[i] > 0
            else None
        ),
        "exact_share_mean": float(frame["n_exact"].sum() / max(int(frame["n_test"].sum()), 1)),
        "n_exact": int(frame["n_exact"].sum()),
        "n_exact_anomalies": int(frame["n_exact_anomalies"].sum()),
        "near_share_max": None if near.isna().all() else float(near.max()),
    }


def audit_without_copies(rep: str, X, labels, dup, *, keep=None, **protocol_args):
    """[`audit_protocol`][auditad.protocol.audit_protocol] of one representation on the same tasks, minus the test rows
    that have an identical training row (``dup.value_ids``); its warnings are re-issued, naming the run.

    ``protocol_args`` are the audit's own arguments (protocol, detectors, k, epsilon, ..., random_state);
    ``keep``: the classes it kept, or None.

    See Also
    --------
    - `delta_frame`: AUROC(c) without the copies minus AUROC(c).
    """
    from ..protocol import audit_protocol

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # (only the kept classes' tasks run: the others would be thrown away)
        res = audit_protocol(
            {rep: X}, labels, leakage_k=0, exclude_test_copies=dup.value_ids, classes=keep, **protocol_args
        )
    for w in caught:
        if issubclass(w.category, AuditadWarning):
            warnings.warn(
                f"duplicates ({rep}, AUROC without the test rows copied in training): {w.message}",
                w.category,
                stacklevel=2,
            )
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return res


def delta_frame(proto, dedup: Mapping, overlap: Mapping):
    """ΔAUROC(c) = AUROC(c) without the copied test rows − AUROC(c), per representation, detector and class.

    ``dedup``: representation -> `audit_without_copies` result; ``overlap``: representation -> `task_overlap`.

    See Also
    --------
    - `audit_without_copies`: the run without the copies.
    """
    import pandas as pd

    rows = []
    for rep, res in dedup.items():
        excluded = overlap[rep].groupby("class", sort=False)["n_exact"].sum()
        for det in proto.detector_names:
            before, after = proto.aurocs(rep, det), res.aurocs(rep, det)
            for c_i, c in enumerate(proto.classes):
                label = c.item()
                rows.append(
                    {
                        "representation": rep,
                        "detector": det,
                        "class": label,
                        "n_excluded": int(excluded.get(label, 0)),
                        "n_pos": int(res.n_pos[c_i].sum()),
                        "n_neg": int(res.n_neg[c_i].sum()),
                        "auroc": float(before[c_i]),
                        "auroc_without_copies": float(after[c_i]),
                        "delta_auroc": float(after[c_i] - before[c_i]),
                    }
                )
    return pd.DataFrame(
        rows,
        columns=[
            "representation",
            "detector",
            "class",
            "n_excluded",
            "n_pos",
            "n_neg",
            "auroc",
            "auroc_without_copies",
            "delta_auroc",
        ],
    )
