"""AUROC with a small-sample-valid confidence interval and an exact test: `auroc_ci` and `AurocCIResult`.

Re-exported by [`auditad.metrics`][auditad.metrics] (import them from there). The interval is the hull of the
logit-transformed DeLong interval and Newcombe's score interval; the test is the two-sided Mann–Whitney test,
exact when the counts allow it.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, fields

import numpy as np

from . import _mann_whitney as _mw
from ._binary import labels_scores as _labels_scores
from .._format import FrameDisplay
from .._json import json_safe
from .._validation import check_float, renamed_parameter
from ..errors import UndefinedValueWarning

__all__ = [
    "auroc_ci",
    "AurocCIResult",
    "mann_whitney_log10_p",
    "mann_whitney_test",
    "newcombe_interval",
    "logit_delong_interval",
    "P_MIN",
]


def _midrank(x: np.ndarray) -> np.ndarray:
    """Mid-ranks (1-based, ties get the mean rank) along axis 0 of a 1-D or 2-D array."""
    from scipy.stats import rankdata

    return rankdata(x, method="average", axis=0)


@dataclass(frozen=True)
class AurocCIResult(FrameDisplay):
    """AUROC with its confidence interval and the test of AUROC = ½ (see [`auroc_ci`][auditad.metrics.auroc_ci]).

    Attributes
    ----------
    auroc : float
        AUROC, ties counted ½.
    ci_low, ci_high : float
        Confidence interval: the hull of the logit-DeLong and Newcombe intervals (see ``method``); nan for
        constant scores.
    p_value : float
        Two-sided p-value of the Mann–Whitney test of AUROC = ½ (never 0: a p-value below the smallest
        positive double is given as that double; the exact value is ``log10_p_value``).
    n_pos, n_neg : int
        Number of positives (anomalies) and negatives.
    method : str
        The interval: ``"logit_delong|newcombe"`` (their hull), or ``"newcombe"`` when the DeLong variance is 0
        or AUROC is 0 or 1.
    confidence_level : float
        Confidence level of the interval (``level`` is its former name, a read-only alias).
    se : float
        DeLong standard error of the AUROC.
    log10_p_value : float
        log10 of the p-value, computed in log space (exact far below the float range).
    p_method : str
        How the p-value was computed: ``"exact"``, ``"exact_conditional"`` (ties) or ``"normal"``.

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
    method: str = "logit_delong|newcombe"
    confidence_level: float = 0.95
    se: float = float("nan")
    log10_p_value: float = float("nan")
    p_method: str = "normal"

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
    r"""AUROC with a confidence interval that keeps its coverage at small counts, and a two-sided test of AUROC = ½.

    **Interval.** The hull (union) of two published intervals, each right where the other fails:

    * the logit-transformed DeLong interval (Pepe 2003, §5.2; Qin & Hotilovac 2008):
      \(\operatorname{expit}\big(\operatorname{logit}\hat A \pm z\,\mathrm{se}/(\hat A(1-\hat A))\big)\), with
      DeLong's variance (DeLong, DeLong & Clarke-Pearson 1988) computed by the mid-rank algorithm of Sun & Xu
      (2014),

      \[
      V_{10}(x_i) = \frac{T_z(x_i) - T_x(x_i)}{n_-},\quad
      V_{01}(y_j) = 1 - \frac{T_z(y_j) - T_y(y_j)}{n_+},\quad
      \widehat{\mathrm{Var}} = \frac{s^2(V_{10})}{n_+} + \frac{s^2(V_{01})}{n_-}
      \]

      (\(T_z\) pooled mid-ranks, \(T_x, T_y\) mid-ranks inside each class, \(s^2\) with ddof 1). Its variance is
      the data's own, so it is valid for any score distribution at large counts; at a few anomalies it is too
      narrow (coverage 0.89 at 5 anomalies, 50 normals, AUROC 0.95) and at AUROC 0 or 1 it is empty;
    * Newcombe's score-type interval (Newcombe 2006, Method 5, the one he recommends): the θ with
      \((\hat A-\theta)^2 \le z^2 V(\theta)\), \(V(\theta)\) the Hanley–McNeil variance at θ with both sample
      sizes replaced by \(N^* = (n_+ + n_-)/2\). Right at small counts and never of zero width, but its variance
      is a model's, too narrow when the two classes' scores differ in spread.

    Measured coverage of the nominal 95 % interval (binormal scores, ≥ 2 000 replicates per cell,
    ``benchmarks/bench_coverage.py``): ≥ 0.95 at (5, 50, AUROC 0.95 and 0.80), (20, 200, 0.80), (50, 50, 0.90),
    and ≥ 0.94 when the anomalies' scores are three times as spread as the normals'. The interval is never of
    zero width for finite samples. ``method`` is ``"logit_delong|newcombe"`` (or ``"newcombe"`` where DeLong's
    variance is 0: AUROC 0 or 1).

    **Test.** The two-sided Mann–Whitney test of AUROC = ½ (\(U = \hat A\,n_+ n_-\)), exact when the counts
    allow it (no ties: the exact null of ``scipy.stats.mannwhitneyu(method="exact")``, computed for the tail
    beyond the observed U, so extreme tails stay exact at any size; ties: the exact permutation distribution
    conditional on the ties), and otherwise the normal approximation with tie and continuity corrections
    (``method="asymptotic"``). ``p_method`` says which. The p-value is computed in log space
    (``log10_p_value``) and is never 0.

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
    M. S. Pepe, "The Statistical Evaluation of Medical Tests for Classification and Prediction", Oxford
    University Press (2003), §5.2.
    G. Qin, L. Hotilovac, "Comparison of non-parametric confidence intervals for the area under the ROC curve
    of a continuous-scale diagnostic test", Statistical Methods in Medical Research 17(2), 207–221 (2008).
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
    >>> r = auroc_ci([0, 0, 0, 1, 1, 1], [1, 2, 3, 4, 5, 6])
    >>> r.auroc, round(r.p_value, 3), r.p_method  # scipy.stats.mannwhitneyu(method="exact"): 0.1
    (1.0, 0.1, 'exact')
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
            "and the interval is undefined (nan)",
            UndefinedValueWarning,
            stacklevel=3,  # this function, the keyword-renaming wrapper, the caller
        )
        nan = float("nan")
        return AurocCIResult(0.5, nan, nan, 1.0, m, n, "newcombe", level, nan, 0.0, "exact")
    auc, v10, v01 = _delong_components(pos, neg)
    var10 = float(np.var(v10, ddof=1)) if m > 1 else 0.0
    var01 = float(np.var(v01, ddof=1)) if n > 1 else 0.0
    se = math.sqrt(max(var10 / m + var01 / n, 0.0))
    z = float(norm.ppf(0.5 + level / 2.0))
    lo, hi = newcombe_interval(auc, m, n, z)
    method = "newcombe"
    if se > 0.0 and 0.0 < auc < 1.0:
        llo, lhi = logit_delong_interval(auc, se, z)
        lo, hi, method = min(lo, llo), max(hi, lhi), "logit_delong|newcombe"
    log10_p, p_method = mann_whitney_test(pos, neg)
    return AurocCIResult(
        auroc=auc,
        ci_low=float(min(max(lo, 0.0), 1.0)),
        ci_high=float(min(max(hi, 0.0), 1.0)),
        p_value=min(max(10.0**log10_p, P_MIN), 1.0),
        n_pos=m,
        n_neg=n,
        method=method,
        confidence_level=level,
        se=se,
        log10_p_value=min(log10_p, 0.0),
        p_method=p_method,
    )


#: Smallest p-value stored as a float (the smallest positive normal double); below it, ``log10_p_value`` is exact.
P_MIN = float(np.finfo(np.float64).tiny)


def logit_delong_interval(auc: float, se: float, z: float) -> tuple[float, float]:
    r"""The logit-transformed Wald interval \(\operatorname{expit}(\operatorname{logit}\hat A \pm z\,\mathrm{se}/(\hat A(1-\hat A)))\).

    For 0 < AUROC < 1 (the delta method on the logit scale; Pepe 2003, §5.2).

    Examples
    --------
    >>> lo, hi = logit_delong_interval(0.9, 0.05, 1.959964)
    >>> round(lo, 4), round(hi, 4)
    (0.7518, 0.9639)
    """
    centre = math.log(auc / (1.0 - auc))
    half = z * se / (auc * (1.0 - auc))
    return 1.0 / (1.0 + math.exp(-(centre - half))), 1.0 / (1.0 + math.exp(-(centre + half)))


def mann_whitney_test(pos_scores: np.ndarray, neg_scores: np.ndarray) -> tuple[float, str]:
    """``(log10 p, p_method)`` of the two-sided Mann–Whitney test of AUROC = ½ (see [`auroc_ci`][auditad.metrics.auroc_ci]).

    ``p_method``: ``"exact"`` (no ties, the tail beyond the observed U within `_mann_whitney.P_EXACT_WORK`),
    ``"exact_conditional"`` (ties, the permutation distribution within the same budget) or ``"normal"``.

    Examples
    --------
    >>> import numpy as np
    >>> lp, how = mann_whitney_test(np.array([4.0, 5, 6]), np.array([1.0, 2, 3]))
    >>> round(10**lp, 3), how
    (0.1, 'exact')
    """
    m, n = pos_scores.size, neg_scores.size
    pooled = np.concatenate([pos_scores, neg_scores])
    _, sizes = np.unique(pooled, return_counts=True)
    tz = _midrank(pooled)
    u = float(tz[:m].sum() - m * (m + 1) / 2.0)
    if sizes.size == pooled.size:
        u_hi = int(round(max(u, m * n - u)))
        if _mw.work(m, n, m * n - u_hi) <= _mw.P_EXACT_WORK:
            _, log10_tail = _mw.upper_tail(m, n, u_hi)
            return min(log10_tail + math.log10(2.0), 0.0), "exact"
    elif _mw.tied_work(sizes, min(m, n)) <= _mw.P_EXACT_WORK and math.comb(m + n, min(m, n)) < 1e300:
        return math.log10(_mw.tied_two_sided(pos_scores, neg_scores)), "exact_conditional"
    return mann_whitney_log10_p(u / (m * n), m, n, pooled), "normal"


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
