"""AUROC with a DeLong confidence interval: `auroc_ci` and `AurocCIResult`.

Re-exported by [`auditad.metrics`][auditad.metrics] (import them from there). The variance is DeLong's,
computed with the fast mid-rank algorithm of Sun & Xu (2014).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, fields

import numpy as np

from ._binary import labels_scores as _labels_scores
from .._json import json_safe
from .._validation import check_float, renamed_parameter
from ..errors import UndefinedValueWarning

__all__ = ["auroc_ci", "AurocCIResult", "mann_whitney_log10_p", "newcombe_interval", "P_MIN"]


def _midrank(x: np.ndarray) -> np.ndarray:
    """Mid-ranks (1-based, ties get the mean rank) along axis 0 of a 1-D or 2-D array."""
    from scipy.stats import rankdata

    return rankdata(x, method="average", axis=0)


@dataclass(frozen=True)
class AurocCIResult:
    """AUROC with its DeLong confidence interval (see [`auroc_ci`][auditad.metrics.auroc_ci]).

    Attributes
    ----------
    auroc : float
        AUROC, ties counted ½.
    ci_low, ci_high : float
        Confidence interval: DeLong's ``auroc ± z·se`` clipped to [0, 1], or Newcombe's score interval
        where DeLong's collapses (see ``method``); nan for constant scores.
    p_value : float
        Two-sided p-value of the Mann–Whitney test of AUROC = ½ (never 0: a p-value below the smallest
        positive double is given as that double; the exact value is ``log10_p_value``).
    n_pos, n_neg : int
        Number of positives (anomalies) and negatives.
    method : str
        The interval: ``"delong"``, or ``"newcombe"`` when the DeLong variance is 0 or AUROC is 0 or 1.
    confidence_level : float
        Confidence level of the interval (``level`` is its former name, a read-only alias).
    se : float
        DeLong standard error of the AUROC.
    log10_p_value : float
        log10 of the p-value, computed in log space (exact far below the float range).

    See Also
    --------
    - [`auroc_ci`][auditad.metrics.auroc_ci]: computes it.
    - [`auroc`][auditad.metrics.auroc]: the AUROC alone.

    References
    ----------
    E. R. DeLong, D. M. DeLong, D. L. Clarke-Pearson, "Comparing the areas under two or more
    correlated receiver operating characteristic curves: a nonparametric approach",
    Biometrics 44(3), 1988.
    """

    auroc: float
    ci_low: float
    ci_high: float
    p_value: float
    n_pos: int
    n_neg: int
    method: str = "delong"
    confidence_level: float = 0.95
    se: float = float("nan")
    log10_p_value: float = float("nan")

    @property
    def level(self) -> float:
        """Former name of `confidence_level` (read-only)."""
        return self.confidence_level

    def to_dict(self) -> dict:
        """JSON-safe dict (nan -> None)."""
        return {f.name: json_safe(getattr(self, f.name)) for f in fields(self)}

    def to_frame(self):
        """One-row tidy `pandas.DataFrame`."""
        import pandas as pd

        return pd.DataFrame([{f.name: getattr(self, f.name) for f in fields(self)}])


def _delong_components(pos_scores: np.ndarray, neg_scores: np.ndarray):
    """Fast DeLong (Sun & Xu 2014): AUROC and the structural components V10, V01.

    With ``T_z`` the mid-ranks in the pooled sample and ``T_x`` (``T_y``) the
    mid-ranks inside the positives (negatives):
    ``V10_i = (T_z(x_i) - T_x(x_i)) / n_-`` and ``V01_j = 1 - (T_z(y_j) - T_y(y_j)) / n_+``.
    """
    m, n = pos_scores.size, neg_scores.size
    tz = _midrank(np.concatenate([pos_scores, neg_scores]))
    tx = _midrank(pos_scores)
    ty = _midrank(neg_scores)
    auc = (tz[:m].sum() - m * (m + 1) / 2.0) / (m * n)
    v10 = (tz[:m] - tx) / n
    v01 = 1.0 - (tz[m:] - ty) / m
    return float(auc), v10, v01


@renamed_parameter("level", "confidence_level")
def auroc_ci(y_true, scores, *, confidence_level: float = 0.95, pos_label=None) -> AurocCIResult:
    r"""AUROC with a DeLong confidence interval and a two-sided test of AUROC = ½.

    The variance is DeLong's (DeLong, DeLong & Clarke-Pearson 1988), computed
    with the fast mid-rank algorithm of Sun & Xu (2014):

    \[
    V_{10}(x_i) = \frac{T_z(x_i) - T_x(x_i)}{n_-},\qquad
    V_{01}(y_j) = 1 - \frac{T_z(y_j) - T_y(y_j)}{n_+},
    \]

    \[
    \widehat{\mathrm{Var}}(\mathrm{AUROC}) = \frac{s^2(V_{10})}{n_+} + \frac{s^2(V_{01})}{n_-},
    \]

    with \(T_z\) the mid-ranks in the pooled sample, \(T_x, T_y\) the
    mid-ranks inside the positives and the negatives and \(s^2\) the sample
    variance (ddof 1; 0 for a class of one sample). The interval is
    \(\mathrm{AUROC} \pm z_{(1+\text{confidence\_level})/2}\,\mathrm{se}\) clipped to
    [0, 1].

    DeLong's variance is 0 at perfect separation (AUROC 0 or 1), where its interval
    would collapse to the point and claim a certainty the data do not give. There
    (AUROC 0 or 1, or a DeLong variance of 0) the interval is Newcombe's score-type
    interval (``method="newcombe"``; Newcombe 2006, Method 5): the set of θ with
    \((\mathrm{AUROC}-\theta)^2 \le z^2 V(\theta)\), where
    \(V(\theta) = \theta(1-\theta)\,[1 + (N^*-1)\frac{1-\theta}{2-\theta}
    + (N^*-1)\frac{\theta}{1+\theta}] / (n_+ n_-)\) is the Hanley–McNeil variance at
    θ with both sample sizes replaced by \(N^* = (n_+ + n_-)/2\). It is never of
    zero width for finite samples.

    The p-value is the two-sided Mann–Whitney test of AUROC = ½ (the rank-sum test:
    \(U = \mathrm{AUROC}\,n_+ n_-\), normal approximation with tie and continuity
    corrections, as ``scipy.stats.mannwhitneyu(method="asymptotic")``). Unlike a
    z-test with DeLong's standard error it has a known null distribution and stays
    valid at perfect separation; it is computed in log space (``log10_p_value``)
    and is never 0.

    Conventions: constant scores give AUROC 0.5, p-value 1.0, a nan interval and
    an [`UndefinedValueWarning`][auditad.errors.UndefinedValueWarning] (no ranking information).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels, 1 = anomaly. Both classes are required.
    scores : array-like of shape (n,)
        Anomaly scores (higher = more anomalous).
    confidence_level : float, default 0.95
        Confidence level in (0, 1). Its former name ``level`` is still accepted, with a `DeprecationWarning`.

    Returns
    -------
    AurocCIResult

    References
    ----------
    E. R. DeLong, D. M. DeLong, D. L. Clarke-Pearson, "Comparing the areas under two or more
    correlated receiver operating characteristic curves: a nonparametric approach", Biometrics 44 (1988).
    X. Sun, W. Xu, "Fast implementation of DeLong's algorithm for comparing the areas under correlated
    receiver operating characteristic curves", IEEE Signal Processing Letters 21 (2014).
    R. G. Newcombe, "Confidence intervals for an effect size measure based on the Mann–Whitney
    statistic. Part 2: Asymptotic methods and evaluation", Statistics in Medicine 25(4), 559–573 (2006).
    H. B. Mann, D. R. Whitney, "On a test of whether one of two random variables is stochastically
    larger than the other", Annals of Mathematical Statistics 18(1), 50–60 (1947).

    See Also
    --------
    - [`auroc`][auditad.metrics.auroc]
    - [`auditad.nulls.auroc_null`][auditad.nulls.auroc_null]

    Examples
    --------
    >>> r = auroc_ci([0, 0, 0, 1, 1, 1], [0.1, 0.3, 0.5, 0.4, 0.6, 0.9])
    >>> round(r.auroc, 4), r.method
    (0.8889, 'delong')
    """
    from scipy.stats import norm

    y, s = _labels_scores(y_true, scores, ndim=1, pos_label=pos_label, default="greater")
    level = check_float(confidence_level, name="confidence_level", low=0.0, high=1.0, low_open=True, high_open=True)
    pos = s[y == 1]
    neg = s[y == 0]
    m, n = pos.size, neg.size
    if np.all(s == s[0]):
        warnings.warn(
            "auroc_ci: the scores are constant; AUROC is 0.5 by the ties-count-½ convention "
            "and the DeLong interval is undefined (nan)",
            UndefinedValueWarning,
            stacklevel=3,  # this function, the keyword-renaming wrapper, the caller
        )
        return AurocCIResult(
            auroc=0.5,
            ci_low=float("nan"),
            ci_high=float("nan"),
            p_value=1.0,
            n_pos=m,
            n_neg=n,
            method="delong",
            confidence_level=level,
            se=float("nan"),
            log10_p_value=0.0,
        )
    auc, v10, v01 = _delong_components(pos, neg)
    var10 = float(np.var(v10, ddof=1)) if m > 1 else 0.0
    var01 = float(np.var(v01, ddof=1)) if n > 1 else 0.0
    var = max(var10 / m + var01 / n, 0.0)
    se = math.sqrt(var)
    z = float(norm.ppf(0.5 + level / 2.0))
    if se > 0.0 and 0.0 < auc < 1.0:
        lo, hi, method = auc - z * se, auc + z * se, "delong"
    else:
        (lo, hi), method = newcombe_interval(auc, m, n, z), "newcombe"
    log10_p = mann_whitney_log10_p(auc, m, n, s)
    p = max(10.0**log10_p, P_MIN)
    return AurocCIResult(
        auroc=auc,
        ci_low=float(min(max(lo, 0.0), 1.0)),
        ci_high=float(min(max(hi, 0.0), 1.0)),
        p_value=min(p, 1.0),
        n_pos=m,
        n_neg=n,
        method=method,
        confidence_level=level,
        se=se,
        log10_p_value=min(log10_p, 0.0),
    )


#: Smallest p-value stored as a float (the smallest positive normal double); below it, ``log10_p_value`` is exact.
P_MIN = float(np.finfo(np.float64).tiny)


def mann_whitney_log10_p(auc: float, n_pos: int, n_neg: int, pooled_scores=None) -> float:
    r"""log10 of the two-sided Mann–Whitney p-value of AUROC = ½ (normal approximation, log space).

    \(U = \mathrm{AUROC}\,n_+ n_-\), \(\mu = n_+ n_-/2\),
    \(\sigma^2 = \frac{n_+ n_-}{12}\big[(N+1) - \frac{\sum_t (t^3 - t)}{N(N-1)}\big]\) (``t`` the sizes of
    the groups of tied scores among the ``N`` pooled scores; no tie correction without ``pooled_scores``),
    \(z = (|U - \mu| - \tfrac12)/\sigma\) and \(p = \min(1, 2\,\Phi(-z))\), as
    ``scipy.stats.mannwhitneyu(..., method="asymptotic")``. 0.0 (p = 1) when σ = 0 (all scores tied).

    Examples
    --------
    >>> round(mann_whitney_log10_p(1.0, 50, 50), 2)
    -17.15
    """
    from scipy.stats import norm

    m, n = int(n_pos), int(n_neg)
    N = m + n
    ties = 0.0
    if pooled_scores is not None:
        _, counts = np.unique(np.asarray(pooled_scores), return_counts=True)
        t = counts.astype(np.float64)
        ties = float(np.sum(t**3 - t))
    var = m * n / 12.0 * ((N + 1) - (ties / (N * (N - 1)) if N > 1 else 0.0))
    if not var > 0.0:
        return 0.0
    u = auc * m * n
    zv = (abs(u - m * n / 2.0) - 0.5) / math.sqrt(var)
    if zv <= 0.0:
        return 0.0
    return float(min((norm.logsf(zv) + math.log(2.0)) / math.log(10.0), 0.0))


def newcombe_interval(auc: float, n_pos: int, n_neg: int, z: float) -> tuple[float, float]:
    r"""Newcombe's score-type interval for the AUROC (Method 5 of Newcombe 2006), never of zero width.

    The set of θ in [0, 1] with \((\mathrm{AUROC} - \theta)^2 \le z^2 V(\theta)\), with the
    Hanley–McNeil variance at θ and both sample sizes replaced by \(N^* = (n_+ + n_-)/2\):
    \(V(\theta) = \theta(1-\theta)[1 + (N^*-1)\frac{1-\theta}{2-\theta} + (N^*-1)\frac{\theta}{1+\theta}]/(n_+ n_-)\).

    Examples
    --------
    >>> lo, hi = newcombe_interval(1.0, 20, 20, 1.959964)
    >>> round(lo, 4), hi
    (0.8987, 1.0)
    """
    from scipy.optimize import brentq

    m, n = int(n_pos), int(n_neg)
    nstar = (m + n) / 2.0

    def half_width(theta: float) -> float:
        v = (
            theta
            * (1.0 - theta)
            * (1.0 + (nstar - 1.0) * (1.0 - theta) / (2.0 - theta) + (nstar - 1.0) * theta / (1.0 + theta))
            / (m * n)
        )
        return z * math.sqrt(max(v, 0.0))

    a = min(max(float(auc), 0.0), 1.0)
    lo = 0.0
    if a > 0.0:
        f = lambda t: (a - t) - half_width(t)  # noqa: E731  (> 0 at 0, < 0 just below a)
        b = a
        while f(b) >= 0.0 and b > 0.0:
            b = b - max(1e-12, 1e-9 * b) if b == a else b / 2.0
        lo = brentq(f, 0.0, b, xtol=1e-14) if f(b) < 0.0 else 0.0
    hi = 1.0
    if a < 1.0:
        g = lambda t: (t - a) - half_width(t)  # noqa: E731  (< 0 just above a, > 0 at 1)
        b = a
        while g(b) >= 0.0 and b < 1.0:
            b = b + max(1e-12, 1e-9 * (1.0 - b)) if b == a else b + (1.0 - b) / 2.0
        hi = brentq(g, b, 1.0, xtol=1e-14) if g(b) < 0.0 else 1.0
    return float(lo), float(hi)
