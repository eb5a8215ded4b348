r"""Range-based precision and recall (Tatbul et al., NeurIPS 2018) with positional bias and cardinality factor.

For real ranges \(R_1..R_{N_r}\) and predicted ranges \(P_1..P_{N_p}\) (maximal runs of 1):

\[ \text{Recall}_T = \frac{1}{N_r}\sum_i \Big[\alpha\,[|R_i \cap P| > 0] + (1-\alpha)\, \gamma(R_i)\,\frac{|R_i \cap P|}{|R_i|}\Big], \qquad \text{Precision}_T = \frac{1}{N_p}\sum_j \gamma(P_j)\,\frac{|P_j \cap R|}{|P_j|}, \]

with \(\gamma = 1\) (cardinality ``"one"``) or \(1/x\) where \(x\) is the number of ranges of
the other side that the range overlaps (``"reciprocal"``, when \(x > 1\)). With a positional bias
\(\delta(i, L)\) of position \(i = 1..L\) in a range of length \(L\) -- flat 1, front \(L - i + 1\), back
\(i\), middle \(\min(i, L - i + 1)\) -- the overlap share \(|R \cap P| / |R|\) becomes
\(\sum_{i \in R \cap P} \delta(i, L) / \sum_{i=1}^{L} \delta(i, L)\). Each is one weighted count per range,
\(O(n)\) for a prediction.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_choice, check_float, check_int
from ..errors import InvalidInputError
from .structure import check_series_labels, check_series_scores, segments

__all__ = ["CARDINALITIES", "BIASES", "range_precision_recall", "best_range_f1"]

#: Cardinality factors of the range-based metrics.
CARDINALITIES = ("one", "reciprocal")

#: Positional biases of the range-based overlap reward (Tatbul et al. 2018).
BIASES = ("flat", "front", "back", "middle")


def _overlaps(s_a, e_a, s_b, e_b) -> np.ndarray:
    """For every range [s_a, e_a) the number of the sorted disjoint ranges [s_b, e_b) it overlaps."""
    return np.searchsorted(s_b, e_a, side="left") - np.searchsorted(e_b, s_a, side="right")


def _gamma(n_over, cardinality):
    return 1.0 if cardinality == "one" else np.where(n_over > 1, 1.0 / np.maximum(n_over, 1), 1.0)


def _delta(pos, length, bias):
    """Positional bias of 1-based position ``pos`` in a range of ``length``."""
    if bias == "flat":
        return np.ones(pos.size)
    if bias == "front":
        return (length - pos + 1).astype(np.float64)
    if bias == "back":
        return pos.astype(np.float64)
    return np.where(pos <= length / 2, pos, length - pos + 1).astype(np.float64)


def _cover(starts, ends, other, bias):
    """Per range [starts, ends): the bias-weighted share of its points where ``other`` is set."""
    if bias == "flat":
        inter = np.zeros(other.size + 1, dtype=np.int64)
        np.cumsum(other, out=inter[1:])
        return (inter[ends] - inter[starts]) / (ends - starts)
    lengths = ends - starts
    seg = np.repeat(np.arange(starts.size), lengths)
    idx = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths) + np.repeat(starts, lengths)
    w = _delta(idx - starts[seg] + 1, lengths[seg], bias)
    num = np.bincount(seg, weights=w * other[idx], minlength=starts.size)
    return num / np.bincount(seg, weights=w, minlength=starts.size)


def range_precision_recall(
    y, pred, *, alpha: float = 0.0, cardinality: str = "one", bias: str = "flat", precision_bias: str = "flat"
) -> tuple[float, float]:
    """Range-based ``(precision, recall)`` of a 0/1 prediction (Tatbul et al. 2018).

    Parameters
    ----------
    y, pred : array-like of 0/1, shape (n,)
        Labels and predictions; precision is 0 when nothing is predicted.
    alpha : float, default 0
        Weight of the existence reward in the recall.
    cardinality : {"one", "reciprocal"}
    bias : {"flat", "front", "back", "middle"}, default "flat"
        Positional bias of the recall's overlap reward.
    precision_bias : {"flat", "front", "back", "middle"}, default "flat"
        Positional bias of the precision.

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
    bias = check_choice(bias, BIASES, name="bias")
    precision_bias = check_choice(precision_bias, BIASES, name="precision_bias")
    return _precision_recall(y, pred, alpha, cardinality, bias=bias, precision_bias=precision_bias)


def _precision_recall(y, pred, alpha, cardinality, y_ranges=None, *, bias="flat", precision_bias="flat"):
    """Range-based (precision, recall) of 0/1 (or bool) arrays; ``y_ranges``: the label segments, if known."""
    sy, ey = segments(y) if y_ranges is None else y_ranges
    sp, ep = segments(pred)
    yb, pb = np.asarray(y, dtype=bool), np.asarray(pred, dtype=bool)
    hit = np.zeros(y.size + 1, dtype=np.int64)
    np.cumsum(yb & pb, out=hit[1:])
    exists = (hit[ey] - hit[sy]) > 0
    cov_r = _cover(sy, ey, pb, bias)
    g_r = _gamma(_overlaps(sy, ey, sp, ep), cardinality) if sp.size else 1.0
    recall = float(np.mean(alpha * exists + (1 - alpha) * g_r * cov_r))
    if sp.size == 0:
        return 0.0, recall
    cov_p = _cover(sp, ep, yb, precision_bias)
    return float(np.mean(_gamma(_overlaps(sp, ep, sy, ey), cardinality) * cov_p)), recall


def best_range_f1(
    y,
    scores,
    *,
    n_thresholds: int = 100,
    alpha: float = 0.0,
    cardinality: str = "one",
    bias: str = "flat",
    precision_bias: str = "flat",
) -> tuple:
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
    bias = check_choice(bias, BIASES, name="bias")
    precision_bias = check_choice(precision_bias, BIASES, name="precision_bias")
    n_thresholds = check_int(n_thresholds, name="n_thresholds", low=1)
    y_ranges = segments(y)
    yb = y.astype(bool)
    qs = np.unique(np.quantile(s, 1.0 - np.arange(1, n_thresholds + 1) / n_thresholds, method="lower"))[::-1]
    best, where = 0.0, float("inf")
    for t in qs:
        p, r = _precision_recall(yb, s >= t, alpha, cardinality, y_ranges, bias=bias, precision_bias=precision_bias)
        f = 0.0 if p + r == 0 else 2 * p * r / (p + r)
        if f > best:
            best, where = f, float(t)
    return best, where
