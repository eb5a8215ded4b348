r"""Range-AUC and the volume under the surface, VUS-ROC and VUS-PR (Paparrizos et al., PVLDB 2022).

The labels are widened by a buffer of \(\lfloor w/2 \rfloor\) points on each side of every segment, with weight
\(\sqrt{1 - d/w}\) at distance \(d\) (capped at 1 where buffers meet). At a threshold \(t\), with
\(B_w(t)\) the buffer weight of the normal points scored \(\ge t\), \(TP_P(t)\) the anomalous points
scored \(\ge t\), \(P\) the anomalous points and \(E_w(t)\) the share of widened (merged) ranges holding a
point scored \(\ge t\):

\[ TP = TP_P + B_w,\quad \tilde P = P + B_w/2,\quad TPR = \min\!\Big(\frac{TP}{\tilde P}, 1\Big) E_w,\quad
FPR = \frac{\#\{s_i \ge t\} - TP}{n - \tilde P},\quad \text{Prec} = \frac{TP}{\#\{s_i \ge t\}}. \]

Range-AUC-ROC and range-AUC-PR are the areas under these curves over ``n_thresholds`` thresholds (the score
quantiles of the reference code) at one buffer \(w\); VUS-ROC and VUS-PR their means over
\(w = 0, 1, \dots, \ell\). This follows TSB-AD's ``RangeAUC_volume_opt`` exactly; it costs one sort,
\(O(P + \ell\,N_{seg})\) per window and \(O(n_{thr})\) per window and threshold, instead of \(O(n)\)
per window and threshold.

References
----------
1. J. Paparrizos, P. Boniol, T. Palpanas, R. S. Tsay, A. Elmore, M. J. Franklin, "Volume Under the Surface: A New
   Accuracy Evaluation Measure for Time-Series Anomaly Detection", PVLDB 15(11), 2022.
2. Q. Liu, J. Paparrizos, "The Elephant in the Room: Towards A Reliable Time-Series Anomaly Detection Benchmark",
   NeurIPS 2024 Datasets and Benchmarks (TSB-AD).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._format import FrameDisplay
from .._json import json_safe
from .._validation import check_int
from .structure import check_series_labels, check_series_scores, segments

__all__ = ["VUSResult", "vus"]


@dataclass(frozen=True)
class VUSResult(FrameDisplay):
    """Range-AUC at every buffer width and their means (VUS).

    Attributes
    ----------
    windows : ndarray
        Buffer widths \\(0..\\ell\\).
    auc_roc, auc_pr : ndarray
        Range-AUC-ROC and range-AUC-PR at every width.
    vus_roc, vus_pr : float
        Means over the widths.
    range_auc_roc, range_auc_pr : float
        At the largest width \\(\\ell\\).

    See Also
    --------
    - [`vus`][auditad.timeseries.vus]
    """

    windows: np.ndarray
    auc_roc: np.ndarray
    auc_pr: np.ndarray

    @property
    def vus_roc(self) -> float:
        """Mean range-AUC-ROC over the widths."""
        return float(np.mean(self.auc_roc))

    @property
    def vus_pr(self) -> float:
        """Mean range-AUC-PR over the widths."""
        return float(np.mean(self.auc_pr))

    @property
    def range_auc_roc(self) -> float:
        """Range-AUC-ROC at the largest width."""
        return float(self.auc_roc[-1])

    @property
    def range_auc_pr(self) -> float:
        """Range-AUC-PR at the largest width."""
        return float(self.auc_pr[-1])

    def to_dict(self) -> dict:
        """JSON-safe dict of the four numbers and the largest width."""
        return json_safe(
            {
                "window": int(self.windows[-1]),
                "vus_roc": self.vus_roc,
                "vus_pr": self.vus_pr,
                "range_auc_roc": self.range_auc_roc,
                "range_auc_pr": self.range_auc_pr,
            }
        )

    def to_frame(self):
        """One row per buffer width: ``window``, ``auc_roc``, ``auc_pr`` (their means are VUS-ROC and VUS-PR)."""
        import pandas as pd

        return pd.DataFrame({"window": self.windows.astype(int), "auc_roc": self.auc_roc, "auc_pr": self.auc_pr})


def _at_least(sorted_asc: np.ndarray, thr: np.ndarray) -> np.ndarray:
    """For every threshold, how many of the ascending values are >= it."""
    return sorted_asc.size - np.searchsorted(sorted_asc, thr, side="left")


class _Buffer:
    """The normal points within \\(\\ell/2\\) of a segment, sorted by score, with their distances to each segment."""

    def __init__(self, y, s, st, en, half):
        n = y.size
        d = np.arange(1, half + 1)
        after = (en - 1)[:, None] + d[None, :]
        before = st[:, None] - d[None, :]
        pts = np.concatenate((after.ravel(), before.ravel()))
        dist = np.concatenate((np.broadcast_to(d, after.shape).ravel(), np.broadcast_to(d, before.shape).ravel()))
        keep = (pts >= 0) & (pts < n)
        pts, dist = pts[keep], dist[keep]
        keep = y[pts] == 0
        pts, dist = pts[keep], dist[keep]
        uniq, inv = np.unique(pts, return_inverse=True)
        order = np.argsort(s[uniq], kind="stable")
        rank = np.empty(uniq.size, dtype=np.int64)
        rank[order] = np.arange(uniq.size)
        self.scores = s[uniq][order]  # ascending
        self.slot, self.dist, self.size = rank[inv], dist, uniq.size

    def weight_at_least(self, w: int, thr: np.ndarray) -> np.ndarray:
        """\\(B_w(t)\\): the buffer weight of the normal points scored >= every threshold."""
        if w == 0 or self.size == 0:
            return np.zeros(thr.size)
        near = self.dist <= w // 2
        wts = np.bincount(self.slot[near], weights=np.sqrt(1.0 - self.dist[near] / w), minlength=self.size)
        csum = np.concatenate(([0.0], np.cumsum(np.minimum(wts, 1.0))))
        return csum[-1] - csum[np.searchsorted(self.scores, thr, side="left")]


def _merged_ranges(st, en, half, n):
    """Inclusive ``(starts, ends)`` of the segments widened by ``half`` on each side, merged where they meet."""
    last = en - 1
    brk = np.flatnonzero(last[:-1] + half < st[1:] - half)
    starts = np.concatenate(([max(st[0] - half, 0)], st[brk + 1] - half))
    ends = np.concatenate((last[brk] + half, [min(last[-1] + half, n - 1)]))
    return starts, ends


def _existence(s_pad, starts, ends, thr) -> np.ndarray:
    """Share of the ranges holding a point scored >= every threshold."""
    idx = np.empty(2 * starts.size, dtype=np.int64)
    idx[0::2], idx[1::2] = starts, ends + 1
    peak = np.maximum.reduceat(s_pad, idx)[0::2]
    return _at_least(np.sort(peak), thr) / starts.size


def _areas(tpr, fpr, prec) -> tuple[float, float]:
    """ROC area (trapezoids, from (0, 0) to (1, 1)) and PR area (steps) of the reference code."""
    tpr = np.concatenate(([0.0], tpr, [1.0]))
    fpr = np.concatenate(([0.0], fpr, [1.0]))
    auc = float(np.dot(np.diff(fpr), (tpr[1:] + tpr[:-1]) / 2))
    ap = float(np.dot(tpr[1:-1] - tpr[:-2], prec))
    return auc, ap


def vus(y, scores, *, window: int = 100, n_thresholds: int = 250) -> VUSResult:
    r"""Range-AUC-ROC/PR at every buffer width \(0..\ell\) and their means VUS-ROC, VUS-PR.

    Parameters
    ----------
    y : array-like of 0/1, shape (n,)
    scores : array-like of float, shape (n,)
        Higher = more anomalous.
    window : int, default 100
        The largest buffer width \(\ell\) (TSB-AD's ``slidingWindow``; the range-AUC is taken at it).
    n_thresholds : int, default 250
        Thresholds: the scores at ranks ``linspace(0, n - 1, n_thresholds)`` of the descending sort.

    Returns
    -------
    VUSResult

    See Also
    --------
    - [`threshold_curve`][auditad.timeseries.threshold_curve]: the point-wise and point-adjusted counts.
    - [`auditad.metrics.average_precision`][auditad.metrics.average_precision]: the point-wise AUC-PR.

    References
    ----------
    1. J. Paparrizos, P. Boniol, T. Palpanas, R. S. Tsay, A. Elmore, M. J. Franklin, "Volume Under the Surface: A
       New Accuracy Evaluation Measure for Time-Series Anomaly Detection", PVLDB 15(11), 2022.

    Examples
    --------
    >>> y = np.zeros(200, dtype=int); y[50:60] = 1
    >>> s = np.zeros(200); s[48:62] = 1.0
    >>> r = vus(y, s, window=10, n_thresholds=20)
    >>> round(r.vus_roc, 3) > 0.9
    True
    """
    y = check_series_labels(y, name="y")
    s = check_series_scores(scores, y.size, name="scores")
    window = check_int(window, name="window", low=0)
    n_thresholds = check_int(n_thresholds, name="n_thresholds", low=2)
    n, n_pos = y.size, int(y.sum())
    asc = np.sort(s)
    thr = asc[::-1][np.linspace(0, n - 1, n_thresholds).astype(int)]
    n_pred = _at_least(asc, thr).astype(np.float64)
    tp_point = _at_least(np.sort(s[y == 1]), thr).astype(np.float64)
    st, en = segments(y)
    buffer = _Buffer(y, s, st, en, window // 2)
    s_pad = np.concatenate((s, [-np.inf]))
    windows = np.arange(window + 1)
    roc, pr = np.empty(windows.size), np.empty(windows.size)
    for w in windows:
        b = buffer.weight_at_least(int(w), thr)
        starts, ends = _merged_ranges(st, en, int(w) // 2, n)
        tp = tp_point + b
        p_new = n_pos + b / 2
        tpr = np.minimum(tp / p_new, 1.0) * _existence(s_pad, starts, ends, thr)
        roc[w], pr[w] = _areas(tpr, (n_pred - tp) / (n - p_new), tp / n_pred)
    return VUSResult(windows=windows, auc_roc=roc, auc_pr=pr)
