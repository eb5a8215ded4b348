"""Binary targets, sample weights and weighted ROC / PR curves in scikit-learn's conventions.

Shared by [`auditad.metrics`][auditad.metrics] (which re-exports [`binary_targets`][auditad.metrics.binary_targets]),
`auditad.metrics._delong` and
[`auditad.nulls`][auditad.nulls]. The weighted curves follow ``sklearn.metrics.roc_curve`` /
``precision_recall_curve``: one point per distinct score, zero-weight samples dropped.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_same_length, check_scores, describe
from ..errors import InvalidInputError


def as_scalar_or_array(value: np.ndarray, ndim: int):
    return float(value[0]) if ndim == 1 else np.asarray(value, dtype=np.float64)


def binary_targets(y_true, *, pos_label=None, name: str = "y_true", default: str = "one") -> tuple[np.ndarray, Any]:
    """Binary labels in scikit-learn's conventions, as int8 {0, 1} (1 = the positive class = anomaly).

    ``y_true`` may be of shape (n,) or (n, 1) and hold any two distinct labels:
    numbers, booleans or strings. The positive label is ``pos_label`` when given
    (it must be one of the two labels). Otherwise, for labels in {0, 1},
    {-1, 1} or {False, True} it is 1 (True); for two strings it is the larger
    one when ``default="greater"`` (``roc_auc_score``'s rule); any other pair
    (two numbers such as {0, 2}, which may be class ids, or strings with
    ``default="one"``, ``average_precision_score``'s rule) is an error naming
    ``pos_label``. A single class, empty labels and bytes are errors (auditad
    does not return nan for them, nor guesses an encoding).

    Parameters
    ----------
    y_true : array-like of shape (n,) or (n, 1)
    pos_label : int, float, bool or str, optional
    name : str, default "y_true"
        Parameter name used in error messages.
    default : {"one", "greater"}, default "one"

    Returns
    -------
    tuple
        (labels as int8 0/1 array of shape (n,), the positive label used).

    References
    ----------
    F. Pedregosa et al., "Scikit-learn: Machine Learning in Python", JMLR 12 (2011)
    (the label conventions of ``sklearn.metrics``).

    See Also
    --------
    - [`auroc`][auditad.metrics.auroc]
    - [`average_precision`][auditad.metrics.average_precision]

    Examples
    --------
    >>> binary_targets([-1, 1, 1])[0].tolist()
    [0, 1, 1]
    >>> binary_targets(["cat", "dog", "cat"], pos_label="cat")
    (array([1, 0, 1], dtype=int8), 'cat')
    """
    arr = np.asarray(y_true)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise InvalidInputError(f"{name} must be of shape (n,) or (n, 1), got shape {arr.shape}")
    if arr.size == 0:
        raise InvalidInputError(f"{name} is empty; both anomalies (positives) and normals are needed")
    if arr.dtype.kind == "S" or (arr.dtype == object and any(isinstance(v, (bytes, bytearray)) for v in arr.tolist())):
        raise InvalidInputError(
            f"{name} holds bytes ({describe(arr.tolist())}), not class labels; decode them "
            f"first, e.g. {name}.astype(str)"
        )
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise InvalidInputError(f"{name} contains NaN")
    if arr.dtype.kind not in "biufUSO":
        raise InvalidInputError(f"{name} must hold class labels (numbers, booleans or strings), got dtype {arr.dtype}")
    try:
        labels = np.unique(arr)
    except TypeError:
        raise InvalidInputError(f"{name} mixes label types that cannot be compared: {describe(arr.tolist())}") from None
    if labels.size == 1:
        raise InvalidInputError(
            f"{name} contains a single class ({describe(labels.tolist())}); both anomalies (positives) and normals "
            "are needed (scikit-learn returns nan with a warning here; auditad refuses)"
        )
    if labels.size > 2:
        raise InvalidInputError(
            f"{name} must be binary (exactly two classes), got {labels.size}: {describe(labels.tolist())}"
        )
    if pos_label is None:
        numeric = arr.dtype.kind in "biuf"
        if numeric and (set(labels.tolist()) <= {0, 1} or set(labels.tolist()) <= {-1, 1}):
            pos_label = labels.tolist()[1]
        elif default == "greater" and not numeric:  # numbers such as {0, 2} may be class ids: no silent guess
            pos_label = labels.tolist()[1]
        else:
            raise InvalidInputError(
                f"{name} has labels {describe(labels.tolist())}: give pos_label (one of them) to say which is the "
                "anomaly (positive) class"
            )
    same_kind = isinstance(pos_label, str) == isinstance(labels.tolist()[0], str)
    if not same_kind or not any(lab == pos_label for lab in labels.tolist()):
        raise InvalidInputError(f"pos_label={pos_label!r} is not a valid label. It should be one of {labels}")
    return (arr == pos_label).astype(np.int8), pos_label


def labels_scores(y_true, scores, *, ndim=(1, 2), pos_label=None, default="one"):
    """Validate binary labels and finite scores of matching length."""
    y, _ = binary_targets(y_true, pos_label=pos_label, name="y_true", default=default)
    s = check_scores(scores, name="scores", ndim=ndim)
    check_same_length(y, s, names=("y_true", "scores"))
    return y, s


def check_weights(sample_weight, n: int):
    """None, or finite non-negative float weights of length n (not all zero)."""
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight)
    if w.dtype.kind not in "biuf" or w.ndim != 1:
        raise InvalidInputError(f"sample_weight must be a 1-D numeric array, got {describe(sample_weight)}")
    w = w.astype(np.float64)
    if w.size != n:
        raise InvalidInputError(f"sample_weight has {w.size} values but y_true has {n}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise InvalidInputError("sample_weight must be finite and non-negative")
    return w


def _weighted_curve(y: np.ndarray, s: np.ndarray, w: np.ndarray):
    """Cumulative positive / negative weight at each distinct threshold, decreasing (zero weights dropped)."""
    keep = w != 0
    y, s, w = y[keep], s[keep], w[keep]
    order = np.argsort(-s, kind="mergesort")
    s, y, w = s[order], y[order], w[order]
    last = np.r_[s[1:] != s[:-1], True]
    tps = np.cumsum(w * y)[last]
    fps = np.cumsum(w * (1 - y))[last]
    if tps.size == 0 or tps[-1] <= 0 or fps[-1] <= 0:
        raise InvalidInputError("sample_weight leaves no weight on one of the two classes")
    return tps, fps


def _weighted_stats(y, s, w) -> dict:
    """Weighted AUROC, AP and trapezoid AUPR of one score column (scikit-learn's curves)."""
    tps, fps = _weighted_curve(y, s, w)
    tpr = np.r_[0.0, tps / tps[-1]]
    fpr = np.r_[0.0, fps / fps[-1]]
    prec = tps / (tps + fps)
    rec_diff = np.diff(tpr)
    prev = np.r_[1.0, prec[:-1]]
    return {
        "auroc": float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2.0)),
        "fpr": fpr,
        "tpr": tpr,
        "ap": float(np.sum(rec_diff * prec)),
        "aupr_trap": float(np.sum(rec_diff * (prec + prev) / 2.0)),
    }


def weighted_columns(y, s, w, key):
    cols = s[:, None] if s.ndim == 1 else s
    out = np.array([_weighted_stats(y, cols[:, j], w)[key] for j in range(cols.shape[1])])
    return as_scalar_or_array(out, s.ndim)


def mcclish(y, s, w, max_fpr: float) -> float:
    """McClish-standardised partial AUC up to ``max_fpr`` of one column (scikit-learn's formula)."""
    st = _weighted_stats(y, s, w)
    fpr, tpr = st["fpr"], st["tpr"]
    stop = int(np.searchsorted(fpr, max_fpr, "right"))
    x = np.append(fpr[:stop], max_fpr)
    t = np.append(tpr[:stop], np.interp(max_fpr, fpr[stop - 1 : stop + 1], tpr[stop - 1 : stop + 1]))
    partial = float(np.sum(np.diff(x) * (t[1:] + t[:-1]) / 2.0))
    min_area = 0.5 * max_fpr**2
    return 0.5 * (1.0 + (partial - min_area) / (max_fpr - min_area))
