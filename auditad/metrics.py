"""Evaluation metrics of anomaly detectors: from scores and from an operating point.

Scores follow one convention everywhere: **higher = more anomalous**, and the
anomaly label 1 is the positive class (SPEC §3, seed 003).

From scores (vectorised: a 2-D ``(n, m)`` array holds ``m`` score columns):

* :func:`auroc` -- area under the ROC curve, ties count ½ (Mann–Whitney U / (n_pos·n_neg));
* :func:`auroc_ci` -- AUROC with a DeLong confidence interval and a test of AUROC = ½;
* :func:`average_precision` -- step-wise AP (scikit-learn's ``average_precision_score``);
* :func:`aupr_trapezoid` -- trapezoid area under the PR curve that starts at
  (recall 0, precision 1) (scikit-learn's ``auc(recall, precision)``);
* :func:`f1_at_threshold`, :func:`mcc_at_threshold` -- at a threshold, with
  "predicted positive = score >= threshold";
* :func:`best_f1` -- the largest F1 over all thresholds;
* :func:`scaled_mcc` -- (MCC + 1) / 2.

From an operating point (TPR, TNR) at anomaly ratio π: :func:`operating_point_metrics`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from ._validation import check_binary_labels, check_float, check_same_length, check_scores
from .errors import InvalidInputError, UndefinedValueWarning

__all__ = [
    "auroc",
    "auroc_ci",
    "AurocCIResult",
]


# --------------------------------------------------------------------------- helpers
def _json_value(value: Any) -> Any:
    """Turn numpy scalars/arrays and nan into JSON-safe plain Python values."""
    if isinstance(value, np.ndarray):
        return [_json_value(v) for v in value.tolist()]
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return None if not math.isfinite(value) else value
    return value


def _labels_scores(y_true, scores, *, ndim=(1, 2)):
    """Validate binary labels and finite scores of matching length."""
    y = check_binary_labels(y_true, name="y_true")
    s = check_scores(scores, name="scores", ndim=ndim)
    check_same_length(y, s, names=("y_true", "scores"))
    return y, s


def _midrank(x: np.ndarray) -> np.ndarray:
    """Mid-ranks (1-based, ties get the mean rank) along axis 0 of a 1-D or 2-D array."""
    from scipy.stats import rankdata

    return rankdata(x, method="average", axis=0)


# --------------------------------------------------------------------------- AUROC
def auroc(y_true, scores):
    r"""Area under the ROC curve, ties counted ½.

    .. math::

        \mathrm{AUROC} = \frac{1}{n_+ n_-}\sum_{i:\,y_i=1}\sum_{j:\,y_j=0}
        \Big(\mathbb 1[s_i > s_j] + \tfrac12\,\mathbb 1[s_i = s_j]\Big)
        = \frac{R_+ - n_+(n_+ + 1)/2}{n_+ n_-},

    where :math:`R_+` is the sum of the mid-ranks of the positives among all
    scores (Mann–Whitney U divided by :math:`n_+ n_-`; SPEC §3, seed 003).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels, 1 = anomaly (positive). Both classes are required.
    scores : array-like of shape (n,) or (n, m)
        Anomaly scores (higher = more anomalous); a 2-D array holds ``m``
        score columns that are evaluated at once.

    Returns
    -------
    float or numpy.ndarray of shape (m,)
        A float for 1-D scores, one AUROC per column for 2-D scores. Constant
        scores give exactly 0.5.

    Examples
    --------
    >>> auroc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> auroc([0, 1, 1], [[0.0, 1.0], [1.0, 1.0], [2.0, 0.0]]).tolist()
    [1.0, 0.25]
    """
    y, s = _labels_scores(y_true, scores)
    pos = y == 1
    n_pos = int(pos.sum())
    n_neg = y.size - n_pos
    ranks = _midrank(s)
    rank_sum = ranks[pos].sum(axis=0)
    value = (rank_sum - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg)
    if s.ndim == 1:
        return float(value)
    return np.asarray(value, dtype=np.float64)


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
        return {f.name: _json_value(getattr(self, f.name)) for f in fields(self)}

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


def auroc_ci(y_true, scores, *, level: float = 0.95) -> AurocCIResult:
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

    Examples
    --------
    >>> r = auroc_ci([0, 0, 0, 1, 1, 1], [0.1, 0.3, 0.5, 0.4, 0.6, 0.9])
    >>> round(r.auroc, 4), r.method
    (0.8889, 'delong')
    """
    from scipy.stats import norm

    y, s = _labels_scores(y_true, scores, ndim=1)
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
