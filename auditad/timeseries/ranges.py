r"""Range-based precision and recall (Tatbul et al., NeurIPS 2018) with a flat positional bias.

For real ranges \(R_1..R_{N_r}\) and predicted ranges \(P_1..P_{N_p}\) (maximal runs of 1):

\[ \text{Recall}_T = \frac{1}{N_r}\sum_i \Big[\alpha\,[|R_i \cap P| > 0] + (1-\alpha)\, \gamma(R_i)\,\frac{|R_i \cap P|}{|R_i|}\Big], \qquad \text{Precision}_T = \frac{1}{N_p}\sum_j \gamma(P_j)\,\frac{|P_j \cap R|}{|P_j|}, \]

with \(\gamma = 1\) (cardinality ``"one"``) or \(1/x\) where \(x\) is the number of ranges of
the other side that the range overlaps (``"reciprocal"``, when \(x > 1\)).
"""

from __future__ import annotations

import numpy as np

from .._validation import check_choice, check_float
from ..errors import InvalidInputError
from .structure import check_series_labels, check_series_scores, segments

__all__ = ["CARDINALITIES", "range_precision_recall", "best_range_f1"]

#: Cardinality factors of the range-based metrics.
CARDINALITIES = ("one", "reciprocal")


def _overlaps(s_a, e_a, s_b, e_b) -> np.ndarray:
    """For every range [s_a, e_a) the number of the sorted disjoint ranges [s_b, e_b) it overlaps."""
    return np.searchsorted(s_b, e_a, side="left") - np.searchsorted(e_b, s_a, side="right")


def _gamma(n_over, cardinality):
    return 1.0 if cardinality == "one" else np.where(n_over > 1, 1.0 / np.maximum(n_over, 1), 1.0)


def range_precision_recall(y, pred, *, alpha: float = 0.0, cardinality: str = "one") -> tuple[float, float]:
    """Range-based ``(precision, recall)`` of a 0/1 prediction (flat bias; Tatbul et al. 2018).

    Parameters
    ----------
    y, pred : array-like of 0/1, shape (n,)
        Labels and predictions; precision is 0 when nothing is predicted.
    alpha : float, default 0
        Weight of the existence reward in the recall.
    cardinality : {"one", "reciprocal"}

    See Also
    --------
    - [`best_range_f1`][auditad.timeseries.best_range_f1]: over thresholds of a score.

    References
    ----------
    1. N. Tatbul, T. J. Lee, S. Zdonik, M. Alam, J. Gottschlich, "Precision and Recall for Time Series",
       NeurIPS 2018.

    Examples
    --------
    >>> range_precision_recall([0, 1, 1, 1, 1, 0, 0, 1], [0, 1, 1, 0, 0, 0, 1, 1])
    (0.75, 0.75)
    """
    y = check_series_labels(y, name="y").astype(np.int64)
    pred = np.asarray(pred)
    if pred.shape != y.shape or not np.isin(pred, (0, 1)).all():
        raise InvalidInputError(f"pred must be a 0/1 array of the labels' shape {y.shape}")
    pred = pred.astype(np.int64)
    alpha = check_float(alpha, name="alpha", low=0.0, high=1.0)
    cardinality = check_choice(cardinality, CARDINALITIES, name="cardinality")
    return _precision_recall(y, pred, alpha, cardinality)


def _precision_recall(y, pred, alpha, cardinality, y_ranges=None):
    """Range-based (precision, recall) of 0/1 (or bool) arrays; ``y_ranges``: the label segments, if known."""
    sy, ey = segments(y) if y_ranges is None else y_ranges
    sp, ep = segments(pred)
    inter = np.zeros(y.size + 1, dtype=np.int64)
    np.cumsum(np.logical_and(y, pred), out=inter[1:])
    cov_r = (inter[ey] - inter[sy]) / (ey - sy)
    g_r = _gamma(_overlaps(sy, ey, sp, ep), cardinality) if sp.size else 1.0
    recall = float(np.mean(alpha * (cov_r > 0) + (1 - alpha) * g_r * cov_r))
    if sp.size == 0:
        return 0.0, recall
    cov_p = (inter[ep] - inter[sp]) / (ep - sp)
    return float(np.mean(_gamma(_overlaps(sp, ep, sy, ey), cardinality) * cov_p)), recall


def best_range_f1(y, scores, *, n_thresholds: int = 100, alpha: float = 0.0, cardinality: str = "one") -> tuple:
    r"""Best range-based F1 over the score quantiles ``1 - j / n_thresholds`` (j = 1..n), and its threshold.

    The range-based metrics are not monotone in the threshold, so the best of a grid of thresholds is taken;
    each costs \(O(n)\).

    See Also
    --------
    - [`range_precision_recall`][auditad.timeseries.range_precision_recall]

    References
    ----------
    1. N. Tatbul et al., "Precision and Recall for Time Series", NeurIPS 2018.

    Examples
    --------
    >>> best_range_f1([0, 1, 1, 0], [0.0, 0.9, 0.8, 0.1], n_thresholds=4)
    (1.0, 0.8)
    """
    y = check_series_labels(y, name="y")
    s = check_series_scores(scores, y.size, name="scores")
    alpha = check_float(alpha, name="alpha", low=0.0, high=1.0)
    cardinality = check_choice(cardinality, CARDINALITIES, name="cardinality")
    y_ranges = segments(y)
    yb = y.astype(bool)
    qs = np.unique(np.quantile(s, 1.0 - np.arange(1, n_thresholds + 1) / n_thresholds, method="lower"))[::-1]
    best, where = 0.0, float("inf")
    for t in qs:
        p, r = _precision_recall(yb, s >= t, alpha, cardinality, y_ranges)
        f = 0.0 if p + r == 0 else 2 * p * r / (p + r)
        if f > best:
            best, where = f, float(t)
    return best, where
