r"""Time-series anomaly-detection metrics over every threshold: point-wise, point-adjusted, PA%K, event-wise.

One sort of the scores gives every metric at every threshold. A labelled segment of length \(L\)
counts, under PA%K, as wholly detected once more than \(K\,L/100\) of its points reach the threshold;
its \(m\)-th highest score (\(m = \lfloor K L / 100 \rfloor + 1\)) is the threshold at which
that happens. Each anomalous point then carries a weight -- 1 above rank \(m\) in its segment,
\(L - m + 1\) at rank \(m\), 0 below -- and the true positives at threshold \(t\) are the sum of
the weights of the points scored \(\ge t\). \(K = 0\) is point adjustment (Xu et al.),
\(m > L\) (``K = 100``) point-wise counting.

References
----------
1. H. Xu et al., "Unsupervised Anomaly Detection via Variational Auto-Encoder for Seasonal KPIs in Web
   Applications", WWW 2018 (point adjustment).
2. S. Kim, K. Choi, H.-S. Choi, B. Lee, S. Yoon, "Towards a Rigorous Evaluation of Time-Series Anomaly
   Detection", AAAI 2022 (PA%K).
3. A. Garg, W. Zhang, J. Samaran, R. Savitha, C.-S. Foo, "An Evaluation of Anomaly Detection and Diagnosis in
   Multivariate Time Series", IEEE TNNLS 2022 (event-wise recall, composite F1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._json import json_safe
from ..errors import InvalidInputError
from .structure import check_series_labels, check_series_scores, segments

__all__ = [
    "CURVE_METRICS",
    "PA_K_GRID",
    "pak_from_counts",
    "ThresholdCurve",
    "threshold_curve",
    "segment_ids",
    "k_area",
    "adjusted_weights",
    "pa_k_area",
    "best_f1_of",
    "f1_counts",
]

#: The default K grid of PA%K (percent): 0, 10, ..., 100.
PA_K_GRID = tuple(float(k) for k in range(0, 101, 10))

#: The metrics computed at every threshold by `threshold_curve`: point-wise F1, point-adjusted F1, composite F1.
CURVE_METRICS = ("f1", "pa_f1", "composite_f1")


def segment_ids(y) -> tuple[np.ndarray, np.ndarray]:
    """``(ids, lengths)``: the segment index of every anomalous point (in series order) and each segment's length.

    See Also
    --------
    - [`segments`][auditad.timeseries.segments]

    Examples
    --------
    >>> ids, lengths = segment_ids([1, 1, 0, 1])
    >>> ids.tolist(), lengths.tolist()
    ([0, 0, 1], [2, 1])
    """
    st, en = segments(y)
    lengths = en - st
    return np.repeat(np.arange(lengths.size), lengths), lengths


def _ranks(ids: np.ndarray, s_anom: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Rank (1 = highest score) of every anomalous point within its segment; ties by position."""
    order = np.lexsort((-s_anom, ids))
    offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    ranks = np.empty(ids.size, dtype=np.int64)
    ranks[order] = np.arange(ids.size) - offsets[ids[order]] + 1
    return ranks


def adjusted_weights(ranks: np.ndarray, ids: np.ndarray, lengths: np.ndarray, k: float) -> np.ndarray:
    r"""True-positive weight of every anomalous point under PA%K (``k`` in percent; 0 is point adjustment).

    A segment of length \(L\) is adjusted when more than \(kL/100\) of its points are detected, i.e.
    at its \(m\)-th highest score, \(m = \lfloor kL/100 \rfloor + 1\). The weights are 1 for ranks
    below \(m\), \(L - m + 1\) at rank \(m\), 0 after; ``k = 100`` gives weight 1 everywhere.

    See Also
    --------
    - [`threshold_curve`][auditad.timeseries.threshold_curve]

    References
    ----------
    1. S. Kim et al., "Towards a Rigorous Evaluation of Time-Series Anomaly Detection", AAAI 2022.

    Examples
    --------
    >>> ids = np.array([0, 0, 0]); lengths = np.array([3])
    >>> adjusted_weights(np.array([2, 1, 3]), ids, lengths, 0).tolist()
    [0, 3, 0]
    """
    m = np.floor(k * lengths / 100.0).astype(np.int64) + 1
    mi, li = m[ids], lengths[ids]
    return np.where(ranks < mi, 1, np.where(ranks == mi, li - mi + 1, 0))


@dataclass(frozen=True)
class ThresholdCurve:
    """Counts at every distinct threshold (predicted anomalous: score ``>= threshold``), highest first.

    Attributes
    ----------
    thresholds : ndarray
        Distinct scores, descending.
    tp : ndarray
        Point-wise true positives.
    fp : ndarray
        False positives (normal points at or above the threshold).
    tp_pa : ndarray
        True positives after point adjustment.
    detected : ndarray
        Segments with at least one point at or above the threshold.
    n_pos, n_neg, n_segments : int

    See Also
    --------
    - [`threshold_curve`][auditad.timeseries.threshold_curve]
    """

    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    tp_pa: np.ndarray
    detected: np.ndarray
    n_pos: int
    n_neg: int
    n_segments: int

    def f1(self, which: str = "f1") -> np.ndarray:
        """F1 at every threshold: ``"f1"`` point-wise, ``"pa_f1"`` point-adjusted, ``"composite_f1"``."""
        if which == "f1":
            return f1_counts(self.tp, self.fp, self.n_pos)
        if which == "pa_f1":
            return f1_counts(self.tp_pa, self.fp, self.n_pos)
        if which == "composite_f1":
            prec = np.divide(self.tp, self.tp + self.fp, out=np.zeros(self.tp.size), where=(self.tp + self.fp) > 0)
            rec = self.detected / self.n_segments
            den = prec + rec
            return np.divide(2 * prec * rec, den, out=np.zeros(den.size), where=den > 0)
        raise InvalidInputError(f"which must be one of {CURVE_METRICS}, got {which!r}")

    def best(self, which: str = "f1") -> tuple[float, float]:
        """``(best F1, its threshold)``; predicting nothing (F1 0, threshold +inf) when no threshold is better."""
        return best_f1_of(self.f1(which), self.thresholds)

    def to_frame(self):
        """One row per threshold with the counts and the three F1."""
        import pandas as pd

        return pd.DataFrame(
            {
                "threshold": self.thresholds,
                "tp": self.tp,
                "fp": self.fp,
                "tp_pa": self.tp_pa,
                "detected_segments": self.detected,
                **{m: self.f1(m) for m in CURVE_METRICS},
            }
        )

    def to_dict(self) -> dict:
        """JSON-safe dict of the best F1 of each metric and its threshold."""
        out = {"n_pos": self.n_pos, "n_neg": self.n_neg, "n_segments": self.n_segments}
        for m in CURVE_METRICS:
            out[m], out[f"{m}_threshold"] = self.best(m)
        return json_safe(out)


def f1_counts(tp, fp, n_pos) -> np.ndarray:
    r"""F1 from counts, \(2TP / (TP + FP + P)\) (0 when nothing is predicted and ``n_pos`` is 0).

    See Also
    --------
    - [`ThresholdCurve.f1`][auditad.timeseries.ThresholdCurve.f1]

    Examples
    --------
    >>> f1_counts(np.array([2]), np.array([2]), 4).tolist()
    [0.5]
    """
    tp = np.asarray(tp, dtype=np.float64)
    den = tp + np.asarray(fp, dtype=np.float64) + n_pos
    return np.divide(2 * tp, den, out=np.zeros(np.shape(tp)), where=den > 0)


def best_f1_of(f1: np.ndarray, thresholds: np.ndarray) -> tuple[float, float]:
    """``(max F1, threshold)``, the highest threshold among ties; ``(0.0, inf)`` when every F1 is 0.

    See Also
    --------
    - [`ThresholdCurve.best`][auditad.timeseries.ThresholdCurve.best]

    Examples
    --------
    >>> best_f1_of(np.array([0.2, 0.5, 0.5]), np.array([3.0, 2.0, 1.0]))
    (0.5, 2.0)
    """
    if f1.size == 0 or not (f1 > 0).any():
        return 0.0, float("inf")
    i = int(np.argmax(f1))
    return float(f1[i]), float(thresholds[i])


class _Sorted:
    """The scores sorted once (descending) with the anomalous points' segment ranks, reused by every K."""

    def __init__(self, y, scores):
        self.y = y
        self.order = np.argsort(-scores, kind="stable")
        self.s_sorted = scores[self.order]
        self.ids, self.lengths = segment_ids(y)
        anom = np.flatnonzero(y == 1)
        self.anom = anom
        self.ranks = _ranks(self.ids, scores[anom], self.lengths)
        self.last = np.flatnonzero(np.concatenate((self.s_sorted[1:] != self.s_sorted[:-1], [True])))
        self.fp = np.cumsum(y[self.order] == 0)[self.last]

    def tp_of(self, k: float) -> np.ndarray:
        """True positives at every threshold under PA%K (``k`` percent; 100 = point-wise)."""
        w = np.zeros(self.y.size, dtype=np.int64)
        w[self.anom] = adjusted_weights(self.ranks, self.ids, self.lengths, k)
        return np.cumsum(w[self.order])[self.last]

    def detected(self) -> np.ndarray:
        w = np.zeros(self.y.size, dtype=np.int64)
        w[self.anom] = self.ranks == 1
        return np.cumsum(w[self.order])[self.last]


def threshold_curve(y, scores) -> ThresholdCurve:
    r"""Point-wise and point-adjusted counts, and detected segments, at every distinct threshold.

    Point adjustment (Xu et al. 2018) predicts a whole labelled segment anomalous as soon as one of its points
    reaches the threshold:

    \[ TP_{PA}(t) = \sum_j L_j\,[\max_{i \in S_j} s_i \ge t], \qquad FP(t) = \#\{i : y_i = 0, s_i \ge t\}, \qquad F1 = \frac{2TP}{TP + FP + P}. \]

    The composite F1 (Garg et al. 2022) combines the point-wise precision with the event-wise recall (share
    of segments with a detected point). \(O(n \log n)\): one sort.

    Parameters
    ----------
    y : array-like of 0/1, shape (n,)
    scores : array-like of float, shape (n,)
        Higher = more anomalous.

    Returns
    -------
    ThresholdCurve

    See Also
    --------
    - [`pa_k_area`][auditad.timeseries.pa_k_area]: PA%K over K.
    - [`auditad.metrics.best_f1`][auditad.metrics.best_f1]: point-wise best F1 of a non-temporal benchmark.

    References
    ----------
    1. H. Xu et al., "Unsupervised Anomaly Detection via Variational Auto-Encoder for Seasonal KPIs in Web
       Applications", WWW 2018.
    2. A. Garg et al., "An Evaluation of Anomaly Detection and Diagnosis in Multivariate Time Series", IEEE
       TNNLS 2022.

    Examples
    --------
    >>> c = threshold_curve([0, 1, 1, 1, 0], [0.1, 0.9, 0.2, 0.3, 0.4])
    >>> c.best("pa_f1"), round(c.best("f1")[0], 4)
    ((1.0, 0.9), 0.8571)
    """
    y = check_series_labels(y, name="y")
    s = check_series_scores(scores, y.size, name="scores")
    st = _Sorted(y, s)
    return ThresholdCurve(
        thresholds=st.s_sorted[st.last],
        tp=st.tp_of(100.0),
        fp=st.fp,
        tp_pa=st.tp_of(0.0),
        detected=st.detected(),
        n_pos=int(y.sum()),
        n_neg=int(y.size - y.sum()),
        n_segments=int(st.lengths.size),
    )


def pa_k_area(y, scores, *, ks=None) -> tuple[np.ndarray, np.ndarray, float]:
    r"""Best-threshold F1 under PA%K for every K, and the area under that curve (Kim et al. 2022).

    \[ \text{PA\%K area} = \frac{1}{100}\int_0^{100} F1^*_{PA\%K}\,dK \quad\text{(trapezoids)} \]

    ``K = 0`` is point adjustment, ``K = 100`` point-wise counting; each K takes its own best threshold.

    Parameters
    ----------
    y, scores : array-like, shape (n,)
    ks : array-like of float, optional
        The K grid in percent (default `PA_K_GRID`: 0, 10, ..., 100).

    Returns
    -------
    (ks, best F1 per K, area)

    See Also
    --------
    - [`threshold_curve`][auditad.timeseries.threshold_curve]

    References
    ----------
    1. S. Kim, K. Choi, H.-S. Choi, B. Lee, S. Yoon, "Towards a Rigorous Evaluation of Time-Series Anomaly
       Detection", AAAI 2022.

    Examples
    --------
    >>> ks, f1, area = pa_k_area([0, 1, 1, 1, 1, 0], [0, 1, 0, 0, 0, 0], ks=[0, 50, 100])
    >>> f1.round(3).tolist(), round(area, 3)
    ([1.0, 0.8, 0.8], 0.85)
    """
    y = check_series_labels(y, name="y")
    s = check_series_scores(scores, y.size, name="scores")
    ks = np.asarray(PA_K_GRID if ks is None else ks, dtype=np.float64)
    if ks.ndim != 1 or ks.size == 0 or not np.isfinite(ks).all() or ((ks < 0) | (ks > 100)).any():
        raise InvalidInputError(f"ks must be a non-empty 1-D grid within [0, 100], got {ks!r}")
    st = _Sorted(y, s)
    n_pos = int(y.sum())
    f1 = np.array([best_f1_of(f1_counts(st.tp_of(k), st.fp, n_pos), st.s_sorted[st.last])[0] for k in ks])
    return ks, f1, k_area(ks, f1)


def k_area(ks: np.ndarray, f1: np.ndarray) -> float:
    """Trapezoid area under F1 over K in [0, 100], divided by 100 (the single value for a one-point grid)."""
    if ks.size == 1:
        return float(f1[0])
    return float(np.sum((f1[1:] + f1[:-1]) * np.diff(ks)) / 2.0 / (ks[-1] - ks[0]))


def pak_from_counts(detected_points: np.ndarray, lengths: np.ndarray, fp: int, ks) -> np.ndarray:
    r"""F1 under PA%K of one fixed prediction, from the detected points per segment, for every K of ``ks``.

    \[ TP_K = \sum_j \begin{cases} L_j & C_j > K L_j / 100 \\ C_j & \text{otherwise} \end{cases} \]

    See Also
    --------
    - [`pa_k_area`][auditad.timeseries.pa_k_area]: the same over every threshold of a score.

    Examples
    --------
    >>> pak_from_counts(np.array([1, 0]), np.array([2, 2]), 0, [0, 100]).round(3).tolist()
    [0.667, 0.4]
    """
    ks = np.asarray(ks, dtype=np.float64)
    c = np.asarray(detected_points)
    n_pos = int(np.sum(lengths))
    tp = np.array([np.where(c > k * lengths / 100.0, lengths, c).sum() for k in ks])
    return f1_counts(tp, np.full(ks.size, fp), n_pos)
