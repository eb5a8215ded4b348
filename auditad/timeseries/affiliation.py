r"""Affiliation precision and recall (Huet, Navarro, Rossi, KDD 2022), in closed form over all events at once.

Point \(i\) is the interval \([i, i+1)\). The series \([0, n)\) is split into one *affiliation zone*
\(E_j\) per labelled event \(J_j\) (the boundaries halfway between consecutive events). Within \(E_j\), with
\(X\) uniform on \(E_j\):

\[ \text{Prec}_j = \frac{1}{|P \cap E_j|}\int_{P \cap E_j} \Pr\big[d(X, J_j) \ge d(x, J_j)\big]\,dx, \qquad
\text{Rec}_j = \frac{1}{|J_j|}\int_{J_j} \Pr\big[d(X, y) \ge d(y, P \cap E_j)\big]\,dy, \]

affiliation precision is the mean of \(\text{Prec}_j\) over the zones that hold a prediction, recall the mean
of \(\text{Rec}_j\) over all events (0 where a zone holds none). Both survival functions are piecewise linear in
the position, so each integral is a sum of closed-form pieces \(\int \max(0, x - c)\,dx\); \(O(N_P + N_J)\) per
prediction, vectorised.

References
----------
1. A. Huet, J. M. Navarro, D. Rossi, "Local Evaluation of Time Series Anomaly Detection Algorithms", KDD 2022.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._format import FrameDisplay, scalar_frame
from .._json import json_safe
from .._validation import check_int
from ..errors import InvalidInputError
from .structure import check_series_labels, check_series_scores, segments

__all__ = ["AffiliationResult", "affiliation_precision_recall", "best_affiliation_f1"]


@dataclass(frozen=True)
class AffiliationResult(FrameDisplay):
    """Affiliation precision, recall and F1 of one prediction.

    Attributes
    ----------
    precision : float
        nan when nothing is predicted.
    recall : float
    individual_precision, individual_recall : ndarray
        Per labelled event (precision nan in a zone without prediction).

    See Also
    --------
    - [`affiliation_precision_recall`][auditad.timeseries.affiliation_precision_recall]
    """

    precision: float
    recall: float
    individual_precision: np.ndarray
    individual_recall: np.ndarray

    @property
    def f1(self) -> float:
        """Harmonic mean (0 when precision is undefined or both are 0)."""
        p, r = self.precision, self.recall
        return 0.0 if not np.isfinite(p) or p + r == 0 else 2 * p * r / (p + r)

    def to_dict(self) -> dict:
        """JSON-safe dict of precision, recall and F1."""
        return json_safe({"precision": self.precision, "recall": self.recall, "f1": self.f1})

    def to_frame(self):
        """One row: ``precision``, ``recall``, ``f1``."""
        return scalar_frame(self.to_dict())


def _ramp_up(c, a, b):
    """\\(\\int_a^b \\max(0, x - c)\\,dx\\) (elementwise, a <= b)."""
    return (np.maximum(b - c, 0.0) ** 2 - np.maximum(a - c, 0.0) ** 2) / 2


def _ramp_down(c, a, b):
    """\\(\\int_a^b \\max(0, c - x)\\,dx\\) (elementwise, a <= b)."""
    return (np.maximum(c - a, 0.0) ** 2 - np.maximum(c - b, 0.0) ** 2) / 2


def _zones(starts, stops, lo, hi):
    """Affiliation zones of sorted disjoint intervals within [lo, hi]: halfway between neighbours."""
    mids = (stops[:-1] + starts[1:]) / 2
    return np.concatenate(([lo], mids)), np.concatenate((mids, [hi]))


def _pieces(ps, pe, zl, zr):
    """The predicted intervals cut at the zone boundaries: (zone, start, stop) of every non-empty piece."""
    first = np.searchsorted(zr, ps, side="left")  # first zone whose right end reaches the start
    last = np.searchsorted(zl, pe, side="right") - 1
    count = last - first + 1
    k = np.repeat(np.arange(ps.size), count)
    zone = np.repeat(first, count) + (np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count))
    a = np.maximum(ps[k], zl[zone])
    b = np.minimum(pe[k], zr[zone])
    keep = a < b
    return zone[keep], a[keep], b[keep]


def _precision_integral(a, b, j1, j2, e1, e2):
    r"""\(\int_a^b \Pr[d(X, J) \ge d(x, J)]\,dx\) for X uniform on E = [e1, e2], J = [j1, j2]."""
    la, lb = a, np.minimum(b, j1)  # left of J
    left = np.where(la < lb, _ramp_up(e1, la, lb) + _ramp_up(j1 + j2 - e2, la, lb), 0.0)
    ra, rb = np.maximum(a, j2), b  # right of J
    right = np.where(ra < rb, _ramp_down(j1 + j2 - e1, ra, rb) + _ramp_down(e2, ra, rb), 0.0)
    inside = np.maximum(np.minimum(b, j2) - np.maximum(a, j1), 0.0)
    return inside + (left + right) / (e2 - e1)


def _recall_integral(u, v, i1, i2, e1, e2):
    r"""\(\int_u^v \Pr[d(X, y) \ge d(y, I)]\,dy\) for X uniform on E = [e1, e2], I = [i1, i2]."""
    la, lb = u, np.minimum(v, i1)  # left of I
    left = np.where(la < lb, 2 * _ramp_up((i1 + e1) / 2, la, lb) + np.maximum(e2 - i1, 0.0) * (lb - la), 0.0)
    ra, rb = np.maximum(u, i2), v
    right = np.where(ra < rb, np.maximum(i2 - e1, 0.0) * (rb - ra) + 2 * _ramp_down((e2 + i2) / 2, ra, rb), 0.0)
    inside = np.maximum(np.minimum(v, i2) - np.maximum(u, i1), 0.0)
    return inside + (left + right) / (e2 - e1)


def _affiliation(n, js, je, pred) -> AffiliationResult:
    """Affiliation of a boolean prediction against label events [js, je) (half-open, float)."""
    ps, pe = (x.astype(np.float64) for x in segments(pred))
    zl, zr = _zones(js, je, 0.0, float(n))
    n_ev = js.size
    if ps.size == 0:
        return AffiliationResult(float("nan"), 0.0, np.full(n_ev, np.nan), np.zeros(n_ev))
    zone, a, b = _pieces(ps, pe, zl, zr)
    e1, e2 = zl[zone], zr[zone]
    num = np.bincount(zone, weights=_precision_integral(a, b, js[zone], je[zone], e1, e2), minlength=n_ev)
    den = np.bincount(zone, weights=b - a, minlength=n_ev)
    prec = np.divide(num, den, out=np.full(n_ev, np.nan), where=den > 0)
    # recall: each event split by the zones of the pieces within its own zone (halfway between pieces)
    same_prev = np.concatenate(([False], zone[1:] == zone[:-1]))
    same_next = np.concatenate((zone[:-1] == zone[1:], [False]))
    lo = np.where(same_prev, (np.roll(b, 1) + a) / 2, e1)
    hi = np.where(same_next, (b + np.roll(a, -1)) / 2, e2)
    u, v = np.maximum(js[zone], lo), np.minimum(je[zone], hi)
    part = np.where(u < v, _recall_integral(u, np.maximum(u, v), a, b, e1, e2), 0.0)
    rec = np.bincount(zone, weights=part, minlength=n_ev) / (je - js)
    p = float(np.nanmean(prec)) if np.isfinite(prec).any() else float("nan")
    return AffiliationResult(p, float(rec.mean()), prec, rec)


def affiliation_precision_recall(y, pred) -> AffiliationResult:
    r"""Affiliation precision and recall of a 0/1 prediction (Huet et al. 2022).

    Parameters
    ----------
    y, pred : array-like of 0/1, shape (n,)
        Labels and predictions; point \(i\) covers \([i, i+1)\), the series \([0, n)\).

    Returns
    -------
    AffiliationResult

    See Also
    --------
    - [`best_affiliation_f1`][auditad.timeseries.best_affiliation_f1]: over thresholds of a score.
    - [`range_precision_recall`][auditad.timeseries.range_precision_recall]

    References
    ----------
    1. A. Huet, J. M. Navarro, D. Rossi, "Local Evaluation of Time Series Anomaly Detection Algorithms", KDD 2022.

    Examples
    --------
    >>> r = affiliation_precision_recall([0, 0, 1, 1, 0, 0], [0, 0, 1, 1, 0, 0])
    >>> r.precision, r.recall
    (1.0, 1.0)
    """
    y = check_series_labels(y, name="y")
    pred = np.asarray(pred)
    if pred.shape != y.shape or not np.isin(pred, (0, 1)).all():
        raise InvalidInputError(f"pred must be a 0/1 array of the labels' shape {y.shape}")
    js, je = (x.astype(np.float64) for x in segments(y))
    return _affiliation(y.size, js, je, pred.astype(bool))


def best_affiliation_f1(y, scores, *, n_thresholds: int = 100) -> tuple[float, float]:
    """Best affiliation F1 over ``n_thresholds`` thresholds evenly spaced from the lowest to the highest score
    (predicted: score ``>`` threshold, as in TSB-AD), and that threshold.

    See Also
    --------
    - [`affiliation_precision_recall`][auditad.timeseries.affiliation_precision_recall]

    References
    ----------
    1. A. Huet, J. M. Navarro, D. Rossi, "Local Evaluation of Time Series Anomaly Detection Algorithms", KDD 2022.

    Examples
    --------
    >>> best_affiliation_f1([0, 0, 1, 1, 0, 0], [0.0, 0.1, 0.9, 0.8, 0.1, 0.0], n_thresholds=10)[0]
    1.0
    """
    y = check_series_labels(y, name="y")
    s = check_series_scores(scores, y.size, name="scores")
    n_thresholds = check_int(n_thresholds, name="n_thresholds", low=1)
    js, je = (x.astype(np.float64) for x in segments(y))
    best, where = 0.0, float("inf")
    for t in np.linspace(s.min(), s.max(), n_thresholds):
        f = _affiliation(y.size, js, je, s > t).f1
        if f > best:
            best, where = f, float(t)
    return best, where
