"""Input checks and small helpers shared by the modules of `auditad.duplicates`."""

from __future__ import annotations


import numpy as np

from .._validation import check_embeddings, check_float, check_labels, check_split, describe
from ..errors import InvalidInputError

__all__ = [
    "check_rows",
    "check_class_labels",
    "check_near_threshold",
    "check_neighbor_lists",
    "check_row_index",
    "resolve_anomaly",
    "check_split_column",
    "records_frame",
    "python_scalar",
    "rows_for_search",
    "isin_labels",
]


def check_rows(X, name: str) -> np.ndarray:
    """``X`` as a finite 2-D numeric array in its own dtype (native byte order)."""
    try:
        raw = np.asarray(X)
        keep = raw.dtype if raw.dtype.kind in "biu" else None
    except Exception:
        keep = None
    arr = check_embeddings(X, name=name, dtype=keep)
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return arr


def check_class_labels(y, name: str) -> np.ndarray:
    """Labels as in `check_labels`, bytes refused (they are not JSON)."""
    try:
        raw = np.asarray(y)
    except Exception:
        return check_labels(y, name=name, min_classes=1)  # raises the library's message
    has_bytes = raw.dtype == object and any(isinstance(v, (bytes, bytearray)) for v in raw.ravel().tolist())
    if raw.dtype.kind == "S" or has_bytes:
        raise InvalidInputError(
            f"{name} holds bytes labels ({describe(raw)}); decode them to str first, e.g. {name}.astype(str)"
        )
    return check_labels(y, name=name, min_classes=1)


def check_near_threshold(value):
    """(tau, rule): rule "auto", "given" or "none"."""
    if value is None:
        return None, "none"
    if isinstance(value, str):
        if value != "auto":
            raise InvalidInputError(f"near_threshold must be 'auto', a number > 0 or None, got {value!r}")
        return None, "auto"
    tau = check_float(value, name="near_threshold", low=0.0, low_open=True)
    return tau, "given"


def check_neighbor_lists(neighbors, n_rows: int, n_ref: int, name: str):
    """(indices int64 (n_rows, k), distances float64, metric or None) of given neighbour lists."""
    if hasattr(neighbors, "indices") and hasattr(neighbors, "distances"):
        idx, dist, metric = neighbors.indices, neighbors.distances, getattr(neighbors, "metric", None)
    elif isinstance(neighbors, (tuple, list)) and len(neighbors) == 2:
        (idx, dist), metric = neighbors, None
    else:
        raise InvalidInputError(
            f"{name} must be a NeighborsResult or a pair (indices, distances), got {describe(neighbors)}"
        )
    idx, dist = np.asarray(idx), np.asarray(dist)
    if idx.dtype.kind not in "iu":
        raise InvalidInputError(f"{name} indices must be integers, got dtype {idx.dtype}")
    if dist.dtype.kind not in "iuf":
        raise InvalidInputError(f"{name} distances must be numbers, got dtype {dist.dtype}")
    if idx.ndim != 2 or idx.shape != dist.shape or idx.shape[1] < 1:
        raise InvalidInputError(
            f"{name} indices and distances must be 2-D arrays of the same shape (n, k), "
            f"got {idx.shape} and {dist.shape}"
        )
    if idx.shape[0] != n_rows:
        raise InvalidInputError(f"{name} must hold one neighbour list per row ({n_rows}), got {idx.shape[0]}")
    if idx.size and (idx.min() < 0 or idx.max() >= n_ref):
        raise InvalidInputError(
            f"{name} indices must lie in [0, {n_ref}), got values from {int(idx.min())} to {int(idx.max())}"
        )
    dist = dist.astype(np.float64)
    if not np.all(np.isfinite(dist)) or (dist.size and dist.min() < 0):
        raise InvalidInputError(f"{name} distances must be finite and >= 0")
    return idx.astype(np.int64), dist, metric


def check_row_index(idx, n: int, name: str) -> np.ndarray:
    """Row indices (int64, order kept) from an index array or a boolean mask of length n."""
    arr = np.asarray(idx)
    if arr.ndim != 1:
        raise InvalidInputError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.dtype.kind == "b":
        if arr.size != n:
            raise InvalidInputError(f"{name} as a boolean mask must have one entry per row ({n}), got {arr.size}")
        return np.flatnonzero(arr).astype(np.int64)
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise InvalidInputError(f"{name} must hold integer row indices or be a boolean mask, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if arr.min() < 0 or arr.max() >= n:
        raise InvalidInputError(
            f"{name} must hold row indices in [0, {n}), got values from {int(arr.min())} to {int(arr.max())}"
        )
    if np.unique(arr).size != arr.size:
        raise InvalidInputError(f"{name} holds repeated row indices")
    return arr


def resolve_anomaly(labels, anomaly):
    """Tuple of anomaly label values, or None."""
    if labels is None:
        if anomaly is not None:
            raise InvalidInputError(f"anomaly={anomaly!r} needs the labels y")
        return None
    present = {python_scalar(v) for v in np.unique(labels).tolist()}
    if anomaly is None:
        if labels.dtype.kind in "biu" and present <= {0, 1}:
            return (python_scalar(labels.dtype.type(1)),)
        return None
    values = list(anomaly) if isinstance(anomaly, (list, tuple, np.ndarray, set, frozenset)) else [anomaly]
    if not values:
        raise InvalidInputError("anomaly is empty: give one label value or several")
    values = [python_scalar(v) for v in values]
    missing = [v for v in values if v not in present]
    if missing:
        raise InvalidInputError(
            f"anomaly label(s) {describe(missing)} do not occur in y; y holds {describe(sorted(present, key=str))}"
        )
    return tuple(dict.fromkeys(values))


def check_split_column(split, *, train="train", test="test", name: str = "split") -> np.ndarray:
    """Check a user's train/test column and return it as a boolean array (True = train).

    The package's one split parser (``auditad._validation.check_split``): every entry must equal ``train`` or ``test`` (strings without case, so
    ``"Train"`` is a train row; with the default spellings booleans and 0/1 too); missing values are
    refused.  Both values must occur.

    Parameters
    ----------
    split : array-like of shape (n,)
        The column.
    train, test : scalar
        The two allowed values.
    name : str
        Parameter name used in messages.

    Returns
    -------
    ndarray of shape (n,), bool

    Raises
    ------
    InvalidInputError
        Another value (the message lists them with their counts), a missing value, an empty
        or not 1-D column, or only one of the two values.

    See Also
    --------
    - `DuplicatesResult.overlap`: overlap of the split it defines.

    Examples
    --------
    >>> check_split_column(["train", "test", "train"]).tolist()
    [True, False, True]
    >>> check_split_column([1, 0, 0], train=1, test=0).tolist()
    [True, False, False]
    """
    return check_split(split, train=train, test=test, name=name)


# --------------------------------------------------------------------------- small helpers
def records_frame(rows: list, label_column: str):
    """DataFrame of ``rows`` whose ``label_column`` keeps the labels as they are (object dtype, None for "all")."""
    import pandas as pd

    frame = pd.DataFrame(rows)
    frame[label_column] = pd.Series([r[label_column] for r in rows], dtype=object)
    return frame


def python_scalar(value):
    """numpy scalar -> Python scalar."""
    return value.item() if hasattr(value, "item") else value


def rows_for_search(A: np.ndarray) -> np.ndarray:
    """Rows for the neighbour search: half precision widened to float32 (exact), the rest unchanged."""
    return A.astype(np.float32) if A.dtype.kind == "f" and A.dtype.itemsize < 4 else A


def isin_labels(labels: np.ndarray, values: tuple) -> np.ndarray:
    mask = np.zeros(labels.shape[0], dtype=bool)
    for v in values:
        mask |= labels == v
    return mask
