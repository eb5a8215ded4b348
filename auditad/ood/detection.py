r"""What a detector sees per OOD set: AUROC, AUPR-in, AUPR-out and FPR@95TPR with intervals and nulls.

OOD rows are the positives and scores are *higher = more OOD*. AUPR-out is the average precision with the
OOD rows positive; AUPR-in the average precision with the held-out ID rows positive and the scores negated;
FPR@95TPR the share of OOD rows accepted as ID at the threshold that accepts 95 % of the ID rows
(the definitions of OpenOOD v1.5). The AUROC interval is DeLong's
([`auroc_ci`][auditad.metrics.auroc_ci]); the intervals of the other three are percentile bootstraps
that resample the ID and the OOD rows separately. The random null at the counts is the 95 % quantile of
the AUROC of a random ranking (normal, with the exact Mann–Whitney mean and standard deviation of
[`auroc_null_moments`][auditad.nulls.auroc_null_moments]) and the
expected average precision of a random ranking for AUPR-in and AUPR-out.

References
----------
J. Yang, P. Wang, D. Zou, et al., "OpenOOD v1.5: Enhanced Benchmark for Out-of-Distribution
Detection", arXiv:2306.09301, 2023 (the metrics). E. R. DeLong, D. M. DeLong, D. L. Clarke-Pearson,
"Comparing the areas under two or more correlated receiver operating characteristic curves",
Biometrics 44, 1988.
"""

from __future__ import annotations

from .._format import FrameDisplay, scalar_frame

import math
from dataclasses import dataclass

import numpy as np

from ..metrics import auroc_ci, average_precision
from ..nulls import auroc_null_moments, expected_average_precision

__all__ = ["DetectionResult", "fpr_at_tpr", "detection_metrics", "aupr_pair", "rank_correlation", "TPR_LEVEL"]

#: The ID acceptance rate of FPR@TPR (95 %).
TPR_LEVEL = 0.95


def fpr_at_tpr(id_scores, ood_scores, *, tpr: float = TPR_LEVEL) -> float:
    """Share of OOD rows scored at or below the score that accepts ``tpr`` of the ID rows.

    The threshold is the smallest ID score t with at least ``ceil(tpr * n_id)`` ID scores ``<= t``.

    Examples
    --------
    >>> fpr_at_tpr(np.arange(100.0), np.array([10.0, 94.0, 95.0, 200.0]))
    0.5
    """
    s = np.sort(np.asarray(id_scores, dtype=np.float64))
    t = s[max(0, math.ceil(tpr * s.size) - 1)]
    return float(np.mean(np.asarray(ood_scores) <= t))


@dataclass(frozen=True)
class DetectionResult(FrameDisplay):
    """One detector on one OOD set (ID held-out rows vs OOD rows).

    Attributes
    ----------
    detector, ood_set : str
    auroc, auroc_low, auroc_high : float
        AUROC (OOD positive) and its DeLong interval.
    auroc_null95 : float
        95 % quantile of the AUROC of a random ranking at these counts (normal approximation with the
        exact mean and standard deviation).
    aupr_in, aupr_in_low, aupr_in_high, aupr_in_null : float
        AUPR with the ID rows positive, its bootstrap interval and the random ranking's expectation.
    aupr_out, aupr_out_low, aupr_out_high, aupr_out_null : float
        The same with the OOD rows positive.
    fpr95, fpr95_low, fpr95_high : float
        FPR@95TPR and its bootstrap interval (a random ranking gives 0.95).
    n_id, n_ood : int

    See Also
    --------
    - [`detection_metrics`][auditad.ood.detection.detection_metrics]: computes it.
    """

    detector: str
    ood_set: str
    auroc: float
    auroc_low: float
    auroc_high: float
    auroc_null95: float
    aupr_in: float
    aupr_in_low: float
    aupr_in_high: float
    aupr_in_null: float
    aupr_out: float
    aupr_out_low: float
    aupr_out_high: float
    aupr_out_null: float
    fpr95: float
    fpr95_low: float
    fpr95_high: float
    n_id: int
    n_ood: int

    def to_frame(self):
        """One-row table of the scalar fields of `to_dict` (snake_case columns)."""
        return scalar_frame(self.to_dict())

    def to_dict(self) -> dict:
        """JSON-safe dict."""
        from .._json import json_safe

        return json_safe(dict(self.__dict__))


def _ap_sorted(s_sorted: np.ndarray, pos: np.ndarray, n_pos: int) -> np.ndarray:
    """Average precision of every row of scores sorted by decreasing rank (``pos``: the positives, same layout).

    A positive takes the precision at the end of its group of tied scores (scikit-learn's step-wise AP).
    """
    c, n = s_sorted.shape
    tp = np.cumsum(pos, axis=1, dtype=np.float64)
    prec = tp / np.arange(1, n + 1, dtype=np.float64)
    boundary = np.ones((c, n), dtype=bool)
    boundary[:, :-1] = s_sorted[:, 1:] != s_sorted[:, :-1]
    if not boundary.all():  # ties: the precision at the last position of each tie group
        nxt = np.minimum.accumulate(np.where(boundary, np.arange(n), n)[:, ::-1], axis=1)[:, ::-1]
        prec = np.take_along_axis(prec, nxt, axis=1)
    return np.where(pos, prec, 0.0).sum(axis=1) / n_pos


def aupr_pair(id_scores: np.ndarray, ood_scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """AUPR-in and AUPR-out of every column of two score matrices, from one sort per column.

    Parameters
    ----------
    id_scores, ood_scores : ndarray of shape (n, b), (m, b)
        Scores (higher = more OOD) of the ID and OOD rows; column j is one ranking.

    Returns
    -------
    (ndarray, ndarray) of shape (b,)
        AUPR-in (ID positive, scores negated) and AUPR-out (OOD positive), each the step-wise average
        precision of scikit-learn's ``average_precision_score``.

    See Also
    --------
    - [`detection_metrics`][auditad.ood.detection.detection_metrics]: its bootstrap intervals use it.
    - [`auditad.metrics.average_precision`][auditad.metrics.average_precision]: one ranking at a time.

    References
    ----------
    J. Yang, P. Wang, D. Zou, et al., "OpenOOD v1.5: Enhanced Benchmark for Out-of-Distribution
    Detection", arXiv:2306.09301, 2023 (AUPR-in and AUPR-out).

    Examples
    --------
    >>> ap_in, ap_out = aupr_pair(np.array([[0.1], [0.4]]), np.array([[0.35], [0.8]]))
    >>> round(float(ap_in[0]), 4), round(float(ap_out[0]), 4)
    (0.8333, 0.8333)
    """
    n, m = id_scores.shape[0], ood_scores.shape[0]
    block = np.concatenate([id_scores, ood_scores], axis=0).T  # (b, n + m)
    order = np.argsort(-block, axis=1, kind="stable")
    s_sorted = np.take_along_axis(block, order, axis=1)
    is_ood = order >= n
    ap_out = _ap_sorted(s_sorted, is_ood, m)
    ap_in = _ap_sorted(s_sorted[:, ::-1], ~is_ood[:, ::-1], n)  # ascending scores = decreasing ID-ness
    return ap_in, ap_out


def _bootstrap(id_s, ood_s, rng, n_boot, level):
    """Percentile intervals of (AUPR-in, AUPR-out, FPR@95TPR): ID and OOD rows resampled separately.

    The resamples are columns of one array, scored in chunks: one sort per resample gives both AUPRs.
    """
    n, m = id_s.size, ood_s.size
    chunk = max(1, min(n_boot, 2_000_000 // (n + m)))
    vals = []
    for start in range(0, n_boot, chunk):
        b = min(chunk, n_boot - start)
        A = id_s[rng.integers(0, n, (n, b))]
        O = ood_s[rng.integers(0, m, (m, b))]
        t = np.sort(A, axis=0)[max(0, math.ceil(TPR_LEVEL * n) - 1)]
        fpr = (O <= t).mean(axis=0)
        ap_in, ap_out = aupr_pair(A, O)
        vals.append(np.stack([ap_in, ap_out, fpr], axis=1))
    q = [(1 - level) / 2, 1 - (1 - level) / 2]
    return np.quantile(np.concatenate(vals, axis=0), q, axis=0)


def detection_metrics(
    id_scores, ood_scores, *, detector="", ood_set="", confidence_level=0.95, n_boot=200, random_state=None
) -> DetectionResult:
    """AUROC, AUPR-in, AUPR-out and FPR@95TPR of ID vs OOD scores, with intervals and random nulls.

    Parameters
    ----------
    id_scores, ood_scores : array-like
        Scores (higher = more OOD) of the held-out ID rows and of the OOD rows.
    detector, ood_set : str
        Names recorded in the result.
    confidence_level : float
    n_boot : int
        Bootstrap resamples of the AUPR and FPR intervals.
    random_state : None, int or Generator

    Returns
    -------
    DetectionResult

    See Also
    --------
    - [`auroc_ci`][auditad.metrics.auroc_ci]: the AUROC interval.
    - [`fpr_at_tpr`][auditad.ood.detection.fpr_at_tpr]

    References
    ----------
    J. Yang, P. Wang, D. Zou, et al., "OpenOOD v1.5: Enhanced Benchmark for Out-of-Distribution
    Detection", arXiv:2306.09301, 2023.

    Examples
    --------
    >>> r = detection_metrics(np.arange(50.0), np.arange(25.0, 75.0), random_state=0)
    >>> r.auroc, r.fpr95
    (0.875, 0.46)
    """
    from scipy.stats import norm

    from .._rng import check_random_state

    id_s = np.asarray(id_scores, dtype=np.float64)
    ood_s = np.asarray(ood_scores, dtype=np.float64)
    y = np.r_[np.zeros(id_s.size), np.ones(ood_s.size)]
    s = np.r_[id_s, ood_s]
    ci = auroc_ci(y, s, confidence_level=confidence_level)
    rng = check_random_state(random_state)
    (ain_lo, aout_lo, f_lo), (ain_hi, aout_hi, f_hi) = _bootstrap(id_s, ood_s, rng, n_boot, confidence_level)
    mean, sd = auroc_null_moments(ood_s.size, id_s.size)
    return DetectionResult(
        detector=str(detector),
        ood_set=str(ood_set),
        auroc=float(ci.auroc),
        auroc_low=float(ci.ci_low),
        auroc_high=float(ci.ci_high),
        auroc_null95=float(mean + norm.ppf(0.95) * sd),
        aupr_in=float(average_precision(1 - y, -s)),
        aupr_in_low=float(ain_lo),
        aupr_in_high=float(ain_hi),
        aupr_in_null=float(expected_average_precision(id_s.size, ood_s.size)),
        aupr_out=float(average_precision(y, s)),
        aupr_out_low=float(aout_lo),
        aupr_out_high=float(aout_hi),
        aupr_out_null=float(expected_average_precision(ood_s.size, id_s.size)),
        fpr95=fpr_at_tpr(id_s, ood_s),
        fpr95_low=float(f_lo),
        fpr95_high=float(f_hi),
        n_id=int(id_s.size),
        n_ood=int(ood_s.size),
    )


def rank_correlation(x, y, *, confidence_level=0.95) -> dict:
    r"""Spearman's \(\rho\) of two sequences with a Fisher-z interval (Fieller, Hartley & Pearson 1957).

    \[
    z = \operatorname{artanh}\rho \pm z_{1-\alpha/2}\sqrt{1.06/(n-3)}
    \]

    The interval needs n > 3 (nan otherwise); ``rho`` is nan when a sequence is constant.

    References
    ----------
    E. C. Fieller, H. O. Hartley, E. S. Pearson, "Tests for rank correlation coefficients. I",
    Biometrika 44, 1957.

    Examples
    --------
    >>> round(rank_correlation([1, 2, 3, 4, 5], [5, 4, 3, 2, 1])["rho"], 6)
    -1.0
    """
    from scipy.stats import norm, spearmanr

    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = x.size
    if n < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return {"rho": float("nan"), "low": float("nan"), "high": float("nan"), "n": int(n)}
    rho = float(spearmanr(x, y).statistic)
    if n <= 3:
        return {"rho": rho, "low": float("nan"), "high": float("nan"), "n": int(n)}
    z = float(norm.ppf(0.5 + confidence_level / 2))
    half = z * math.sqrt(1.06 / (n - 3))
    c = math.atanh(max(-0.999999, min(0.999999, rho)))
    return {"rho": rho, "low": math.tanh(c - half), "high": math.tanh(c + half), "n": int(n)}
