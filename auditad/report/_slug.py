"""Names derived from labels: gate-path keys, file names and LaTeX labels (one place for all of them)."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["key", "unique_slug"]


def key(label) -> str:
    """A gate-path-safe key: letters, digits, '_' and '-' (``pseudo_auc[diverse]`` -> ``pseudo_auc_diverse``)."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", str(label)).strip("_") or "item"


def unique_slug(label, taken: set, *, style: str = "file") -> str:
    """A name for ``label`` not yet in ``taken`` (which it is added to); repeats get ``_2``, ``_3``, ...

    ``style="file"`` keeps case, letters, digits, '.', '_' and '-' (figure file names); ``style="label"``
    folds to lower-case ASCII words joined by '-' (LaTeX labels and appendix file names).
    """
    if style == "label":
        folded = unicodedata.normalize("NFKD", str(label)).encode("ascii", "ignore").decode()
        base, sep = re.sub(r"[^A-Za-z0-9]+", "-", folded).strip("-").lower() or "item", "-"
    else:
        base, sep = re.sub(r"[^A-Za-z0-9._-]+", "_", str(label)).strip("_.") or "rep", "_"
    slug, i = base, 2
    while slug in taken:
        slug, i = f"{base}{sep}{i}", i + 1
    taken.add(slug)
    return slug
