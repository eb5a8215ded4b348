"""AUROC with a DeLong confidence interval: :func:`auroc_ci` and :class:`AurocCIResult`.

Re-exported by :mod:`auditad.metrics` (import them from there). The variance is DeLong's,
computed with the fast mid-rank algorithm of Sun & Xu (2014).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, fields

import numpy as np

from ._binary import labels_scores as _labels_scores
from .._json import json_safe
from .._validation import check_float
from ..errors import UndefinedValueWarning

__all__ = ["auroc_ci", "AurocCIResult"]


def _midrank(x: np.ndarray) -> np.ndarray:
    """Mid-ranks (1-based, ties get the mean rank) along axis 0 of a 1-D or 2-D array."""
    from scipy.stats import rankdata

    return rankdata(x, method="average", axis=0)


@dataclass(frozen=True)
class AurocCIResult:
    """AUROC with its DeLong confidence interval (see :func:`auroc_ci`).

    Attributes
    ----------
    auroc : float
        AUROC, ties counted ½.
    ci_low, ci_high : float
        Confidence interval ``auroc ± z·se`` clipped to [0, 1] (nan for constant scores).
    p_value : float
        Two-sided p-value of the normal test of AUROC = ½.
    n_pos, n_neg : int
        Number of positives (anomalies) and negatives.
    method : str
        ``"delong"``.
    level : float
        Confidence level of the interval.
    se : float
        DeLong standard error of the AUROC.

    See Also
    --------
    auroc_ci : computes it.
    auroc : the AUROC alone.

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
    level: float = 0.95
    se: float = float("nan")

    def to_dict(self) -> dict:
        """JSON-safe dict (nan -> None)."""
        return {f.name: json_safe(getattr(self, f.name)) for f in fields(self)}

    def to_frame(self):
        """One-row tidy :class:`pandas.DataFrame`."""
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


def auroc_ci(y_true, scores, *, level: float = 0.95, pos_label=None) -> AurocCIResult:
    r"""AUROC with a DeLong confidence interval and a two-sided test of AUROC = ½.

    The variance is DeLong's (DeLong, DeLong & Clarke-Pearson 1988), computed
    with the fast mid-rank algorithm of Sun & Xu (2014):

    .. math::

        V_{10}(x_i) = \frac{T_z(x_i) - T_x(x_i)}{n_-},\qquad
        V_{01}(y_j) = 1 - \frac{T_z(y_j) - T_y(y_j)}{n_+},

        \widehat{\mathrm{Var}}(\mathrm{AUROC}) = \frac{s^2(V_{10})}{n_+} + \frac{s^2(V_{01})}{n_-},

    with :math:`T_z` the mid-ranks in the pooled sample, :math:`T_x, T_y` the
    mid-ranks inside the positives and the negatives and :math:`s^2` the sample
    variance (ddof 1; 0 for a class of one sample). The interval is
    :math:`\mathrm{AUROC} \pm z_{(1+\text{level})/2}\,\mathrm{se}` clipped to
    [0, 1]; the p-value is :math:`2\,\Phi(-|\mathrm{AUROC}-\tfrac12|/\mathrm{se})`.

    Conventions: constant scores give AUROC 0.5, p-value 1.0, a nan interval and
    an :class:`~auditad.errors.UndefinedValueWarning` (no ranking information).
    When the DeLong variance is 0 with non-constant scores (e.g. perfect
    separation) the interval collapses to the point and the p-value is 0.0
    (or 1.0 if AUROC is exactly ½).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels, 1 = anomaly. Both classes are required.
    scores : array-like of shape (n,)
        Anomaly scores (higher = more anomalous).
    level : float, default 0.95
        Confidence level in (0, 1).

    Returns
    -------
    AurocCIResult

    References
    ----------
    E. R. DeLong, D. M. DeLong, D. L. Clarke-Pearson, "Comparing the areas under two or more
    correlated receiver operating characteristic curves: a nonparametric approach", Biometrics 44 (1988).
    X. Sun, W. Xu, "Fast implementation of DeLong's algorithm for comparing the areas under correlated
    receiver operating characteristic curves", IEEE Signal Processing Letters 21 (2014).

    See Also
    --------
    auroc, auditad.nulls.auroc_null

    Examples
    --------
    >>> r = auroc_ci([0, 0, 0, 1, 1, 1], [0.1, 0.3, 0.5, 0.4, 0.6, 0.9])
    >>> round(r.auroc, 4), r.method
    (0.8889, 'delong')
    """
    from scipy.stats import norm

    y, s = _labels_scores(y_true, scores, ndim=1, pos_label=pos_label, default="greater")
    level = check_float(level, name="level", low=0.0, high=1.0, low_open=True, high_open=True)
    pos = s[y == 1]
    neg = s[y == 0]
    m, n = pos.size, neg.size
    if np.all(s == s[0]):
        warnings.warn(
            "auroc_ci: the scores are constant; AUROC is 0.5 by the ties-count-½ convention "
            "and the DeLong interval is undefined (nan)",
            UndefinedValueWarning,
            stacklevel=2,
        )
        return AurocCIResult(auroc=0.5, ci_low=float("nan"), ci_high=float("nan"), p_value=1.0,
                             n_pos=m, n_neg=n, method="delong", level=level, se=float("nan"))
    auc, v10, v01 = _delong_components(pos, neg)
    var10 = float(np.var(v10, ddof=1)) if m > 1 else 0.0
    var01 = float(np.var(v01, ddof=1)) if n > 1 else 0.0
    var = max(var10 / m + var01 / n, 0.0)
    se = math.sqrt(var)
    if se > 0.0:
        z = norm.ppf(0.5 + level / 2.0)
        lo, hi = auc - z * se, auc + z * se
        p = float(2.0 * norm.sf(abs(auc - 0.5) / se))
    else:
        lo = hi = auc
        p = 1.0 if auc == 0.5 else 0.0
    return AurocCIResult(auroc=auc, ci_low=float(min(max(lo, 0.0), 1.0)), ci_high=float(min(max(hi, 0.0), 1.0)),
                         p_value=min(p, 1.0), n_pos=m, n_neg=n, method="delong", level=level, se=se)

