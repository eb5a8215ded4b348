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
from .segments import check_series_labels, check_series_scores, segments

__all__ = ["CARDINALITIES", "range_precision_recall", "best_range_f1"]

#: Cardinality factors of the range-based metrics.
CARDINALITIES = ("one", "reciprocal")


def _coverage(a: np.ndarray, b: np.ndarray, cardinality: str):
    """For every range of ``a``: (covered fraction by ``b``, the number of ``b`` ranges it overlaps)."""
    st, en = segments(a)
    both = np.concatenate(([0], np.cumsum(a & b)))
    covered = (both[en] - both[st]) / (en - st)
    if cardinality == "one":
        return covered, None
    starts_b = b & np.concatenate(([1], 1 - b[:-1])).astype(b.dtype)
    cs = np.concatenate(([0], np.cumsum(starts_b & a)))
    n_over = cs[en] - cs[st] + ((b[st] == 1) & (starts_b[st] == 0))
    return covered, n_over


def _gamma(n_over):
    return 1.0 if n_over is None else np.where(n_over > 1, 1.0 / np.maximum(n_over, 1), 1.0)


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
    cov_r, over_r = _coverage(y, pred, cardinality)
    recall = float(np.mean(alpha * (cov_r > 0) + (1 - alpha) * _gamma(over_r) * cov_r))
    if not pred.any():
        return 0.0, recall
    cov_p, over_p = _coverage(pred, y, cardinality)
    return float(np.mean(_gamma(over_p) * cov_p)), recall


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
    qs = np.unique(np.quantile(s, 1.0 - np.arange(1, n_thresholds + 1) / n_thresholds, method="lower"))[::-1]
    best, where = 0.0, float("inf")
    for t in qs:
        p, r = range_precision_recall(y, (s >= t).astype(np.int8), alpha=alpha, cardinality=cardinality)
        f = 0.0 if p + r == 0 else 2 * p * r / (p + r)
        if f > best:
            best, where = f, float(t)
    return best, where
