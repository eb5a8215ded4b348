"""Instability statistics of a vector of per-class AUROCs, and the leakage–AUROC rank correlation.

[`instability_rates`][auditad.protocol.instability_rates] turns K per-class AUROC values into the dispersion
σ²_AUC and the three rates of the class-split audit (near random, inverted,
direction instability); [`spearman_correlation`][auditad.protocol.spearman_correlation] is Spearman's rank
correlation with the number of distinct values on each side, refusing to
state a correlation that rests on fewer than three distinct values.

References
----------
1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly
   Detection", §2 (instability metrics).
2. C. Spearman, "The proof and measurement of association between two
   things", The American Journal of Psychology 15(1), 72–101, 1904.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from .._format import FrameDisplay, scalar_frame
from .._json import json_safe
from .._validation import check_float, describe
from ..errors import InvalidInputError, UndefinedValueWarning
from ..metrics.multiple_testing import holm_adjust  # one implementation (NaN skipped); re-exported here

__all__ = [
    "InstabilityResult",
    "instability_rates",
    "check_epsilon",
    "holm_adjust",
    "SpearmanResult",
    "spearman_correlation",
    "DegenerateCorrelationWarning",
    "MIN_DISTINCT",
    "EPSILON_TOL",
]

#: absolute tolerance of the ε band: |AUROC − ½| ≤ ε + EPSILON_TOL counts as near random, so that
#: e.g. AUROC = 0.55 with ε = 0.05 is near random although 0.55 − 0.5 > 0.05 in binary floating point.
EPSILON_TOL = 1e-12

#: fewest distinct values on each side for which `spearman_correlation` states a correlation.
MIN_DISTINCT = 3


def json_value(value):
    """Plain JSON-safe Python values (nan/inf -> None, numpy scalars -> Python, other objects -> repr)."""
    return json_safe(value, other=repr)


class DegenerateCorrelationWarning(UndefinedValueWarning):
    """A rank correlation was not stated because a side has fewer than three distinct values.

    See Also
    --------
    - [`audit_protocol`][auditad.protocol.audit_protocol]: the class-split protocol audit.
    - [`make_detector`][auditad.protocol.make_detector]: detectors from names.
    - [`instability_rates`][auditad.protocol.instability_rates]: the rates of one set of AUROCs.
    """


# --------------------------------------------------------------------------- instability rates
@dataclass(frozen=True)
class InstabilityResult(FrameDisplay):
    """Dispersion and instability rates of one vector of per-class AUROCs (see `instability_rates`).

    Attributes
    ----------
    aurocs : ndarray of shape (K_all,)
        The AUROC values as given (nan entries were left out of every statistic).
    classes : ndarray of shape (K_all,)
        Class labels of the entries (``0..K_all-1`` when none were given).
    epsilon : float
        Half-width ε of the near-random band.
    n_classes : int
        K, the number of finite AUROC values used.
    directions : ndarray of shape (K_all,), int8
        d(c) in {−1, 0, +1} (0 also for nan entries).
    near_random, inverted : ndarray of shape (K_all,), bool
        ``|AUROC(c) − ½| ≤ ε`` and ``AUROC(c) < ½``.
    rho_rnd, rho_inv, rho_dir : float
        Near-random rate ρ_rnd(ε), inversion rate ρ_inv, direction instability ρ_dir(ε).
    n_up, n_down, n_near : int
        #{d(c) = +1}, #{d(c) = −1}, #{d(c) = 0} over the finite entries.
    mean_auc, sigma2_auc, std_auc, min_auc, max_auc, range_auc : float
        Mean, population variance σ²_AUC (ddof = 0), its square root, minimum,
        maximum and range (max − min) of the finite AUROCs.

    See Also
    --------
    - [`instability_rates`][auditad.protocol.instability_rates]: computes it.
    - [`auditad.protocol.ProtocolResult.rates`][auditad.protocol.ProtocolResult.rates]: the result of one
      (representation, detector) of an audit.

    References
    ----------
    "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
    """

    aurocs: np.ndarray
    classes: np.ndarray
    epsilon: float
    n_classes: int
    directions: np.ndarray
    near_random: np.ndarray
    inverted: np.ndarray
    rho_rnd: float
    rho_inv: float
    rho_dir: float
    n_up: int
    n_down: int
    n_near: int
    mean_auc: float
    sigma2_auc: float
    std_auc: float
    min_auc: float
    max_auc: float
    range_auc: float

    def stats(self) -> dict:
        """The scalar statistics as a plain dict (full precision)."""
        return {
            "epsilon": self.epsilon,
            "n_classes": self.n_classes,
            "rho_rnd": self.rho_rnd,
            "rho_inv": self.rho_inv,
            "rho_dir": self.rho_dir,
            "n_up": self.n_up,
            "n_down": self.n_down,
            "n_near": self.n_near,
            "mean_auc": self.mean_auc,
            "sigma2_auc": self.sigma2_auc,
            "std_auc": self.std_auc,
            "min_auc": self.min_auc,
            "max_auc": self.max_auc,
            "range_auc": self.range_auc,
        }

    def to_frame(self):
        """Tidy per-class table: class, auroc, direction, near_random, inverted."""
        import pandas as pd

        return pd.DataFrame(
            {
                "class": self.classes,
                "auroc": self.aurocs,
                "direction": self.directions.astype(int),
                "near_random": self.near_random,
                "inverted": self.inverted,
            }
        )

    def to_dict(self) -> dict:
        """JSON-safe dict: the scalar statistics plus a ``per_class`` list."""
        out = json_value(self.stats())
        out["per_class"] = [
            {
                "class": json_value(c),
                "auroc": json_value(a),
                "direction": int(d),
                "near_random": bool(r),
                "inverted": bool(i),
            }
            for c, a, d, r, i in zip(
                self.classes.tolist(), self.aurocs, self.directions, self.near_random, self.inverted
            )
        ]
        return out


def check_epsilon(epsilon) -> float:
    """ε as a float in [0, ½), else [`InvalidInputError`][auditad.errors.InvalidInputError] naming ``epsilon``.

    See Also
    --------
    - [`audit_protocol`][auditad.protocol.audit_protocol]: the class-split protocol audit.
    - [`make_detector`][auditad.protocol.make_detector]: detectors from names.
    - [`instability_rates`][auditad.protocol.instability_rates]: the rates of one set of AUROCs.
    """
    return check_float(epsilon, name="epsilon", low=0.0, high=0.5, high_open=True)


def instability_rates(aurocs, *, epsilon: float = 0.05, classes=None) -> InstabilityResult:
    r"""Dispersion, near-random, inversion and direction-instability rates of per-class AUROCs.

    With K finite values AUROC(c):

    \[
    d(c) = \begin{cases} 0 & |\mathrm{AUROC}(c)-\tfrac12| \le \varepsilon\\
    \operatorname{sign}(\mathrm{AUROC}(c)-\tfrac12) & \text{otherwise}\end{cases}
    \]

    \[
    \rho_{rnd}(\varepsilon) = \frac1K\sum_c \mathbb 1\big[|\mathrm{AUROC}(c)-\tfrac12|\le\varepsilon\big],
    \qquad
    \rho_{inv} = \frac1K\sum_c \mathbb 1\big[\mathrm{AUROC}(c) < \tfrac12\big],
    \]

    \[
    \rho_{dir}(\varepsilon) = 1 - \frac1K\max\big(\#\{c: d(c)=+1\},\ \#\{c: d(c)=-1\}\big),
    \]

    \[
    \sigma^2_{AUC} = \frac1K\sum_c \big(\mathrm{AUROC}(c) - \overline{\mathrm{AUROC}}\big)^2 .
    \]

    ρ_inv has no ε band. Near-random classes count for neither direction, so
    ρ_dir can exceed ½ (it is 1 when every class is near random). The band is
    closed: ``|AUROC − ½| ≤ ε`` (with a 1e-12 tolerance for binary rounding, so
    0.55 and 0.45 are both near random at ε = 0.05).

    Parameters
    ----------
    aurocs : array-like of shape (K,)
        Per-class AUROC values in [0, 1]. nan entries (skipped classes) are left
        out of every statistic with an [`UndefinedValueWarning`][auditad.errors.UndefinedValueWarning].
    epsilon : float, default 0.05
        Half-width of the near-random band, in [0, ½).
    classes : array-like of shape (K,), optional
        Class labels of the entries, for the tables.

    Returns
    -------
    InstabilityResult

    See Also
    --------
    - [`auditad.protocol.audit_protocol`][auditad.protocol.audit_protocol]: runs the class-split protocol and applies
      this to every detector.
    - [`spearman_correlation`][auditad.protocol.spearman_correlation]: the leakage–AUROC rank correlation reported next
      to the rates.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly
       Detection", §2 (dispersion of AUROC, near-random, inversion and
       direction-instability rates).

    Examples
    --------
    >>> r = instability_rates([0.9, 0.3, 0.52, 0.48, 0.7], epsilon=0.05)
    >>> round(r.rho_inv, 3), round(r.rho_rnd, 3), round(r.rho_dir, 3)
    (0.4, 0.4, 0.6)
    """
    epsilon = check_epsilon(epsilon)
    arr = np.asarray(aurocs)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise InvalidInputError(f"aurocs must be numeric, got dtype {arr.dtype} ({describe(aurocs)})")
    arr = arr.astype(np.float64).reshape(-1) if arr.ndim == 0 else arr.astype(np.float64)
    if arr.ndim != 1:
        raise InvalidInputError(f"aurocs must be 1-D, got shape {arr.shape}")
    if arr.size == 0:
        raise InvalidInputError("aurocs is empty: at least one AUROC value is needed")
    if np.isinf(arr).any():
        raise InvalidInputError("aurocs contains infinite values")
    finite = ~np.isnan(arr)
    if not finite.any():
        raise InvalidInputError("aurocs contains only nan: the rates are undefined")
    if np.any((arr[finite] < 0.0) | (arr[finite] > 1.0)):
        bad = arr[finite][(arr[finite] < 0.0) | (arr[finite] > 1.0)][0]
        raise InvalidInputError(f"aurocs must lie in [0, 1], got {bad!r}")
    if classes is None:
        cls = np.arange(arr.size)
    else:
        cls = np.asarray(classes)
        if cls.shape != arr.shape:
            raise InvalidInputError(f"classes must have the same shape as aurocs, got {cls.shape} and {arr.shape}")
    if not finite.all():
        warnings.warn(
            f"instability_rates: {int((~finite).sum())} of {arr.size} AUROC values are nan "
            f"(classes {describe(cls[~finite].tolist())}) and were left out; K = {int(finite.sum())}",
            UndefinedValueWarning,
            stacklevel=2,
        )
    dev = arr - 0.5
    near = finite & (np.abs(dev) <= epsilon + EPSILON_TOL)
    inverted = finite & (arr < 0.5)
    directions = np.zeros(arr.size, dtype=np.int8)
    directions[finite & ~near & (dev > 0)] = 1
    directions[finite & ~near & (dev < 0)] = -1
    K = int(finite.sum())
    vals = arr[finite]
    n_up, n_down = int((directions == 1).sum()), int((directions == -1).sum())
    return InstabilityResult(
        aurocs=arr,
        classes=cls,
        epsilon=epsilon,
        n_classes=K,
        directions=directions,
        near_random=near,
        inverted=inverted,
        rho_rnd=int(near.sum()) / K,
        rho_inv=int(inverted.sum()) / K,
        rho_dir=(K - max(n_up, n_down)) / K,
        n_up=n_up,
        n_down=n_down,
        n_near=int(near.sum()),
        mean_auc=float(vals.mean()),
        sigma2_auc=float(np.var(vals, ddof=0)),
        std_auc=float(np.std(vals, ddof=0)),
        min_auc=float(vals.min()),
        max_auc=float(vals.max()),
        range_auc=float(vals.max() - vals.min()),
    )


# --------------------------------------------------------------------------- Spearman
@dataclass(frozen=True)
class SpearmanResult(FrameDisplay):
    """Spearman rank correlation with the evidence it rests on (see `spearman_correlation`).

    Attributes
    ----------
    statistic : float
        ρ_s, or nan when it is not stated (see ``reason``).
    n_pairs : int
        Pairs with both values finite.
    n_distinct_x, n_distinct_y : int
        Distinct values among those pairs on each side.
    reason : str or None
        Why ``statistic`` is nan (None when it is stated).

    See Also
    --------
    - [`spearman_correlation`][auditad.protocol.spearman_correlation]: computes it.
    """

    statistic: float
    n_pairs: int
    n_distinct_x: int
    n_distinct_y: int
    reason: str | None

    def to_dict(self) -> dict:
        """JSON-safe dict (nan -> None)."""
        return json_value(
            {
                "statistic": self.statistic,
                "n_pairs": self.n_pairs,
                "n_distinct_x": self.n_distinct_x,
                "n_distinct_y": self.n_distinct_y,
                "reason": self.reason,
            }
        )

    def to_frame(self):
        """One-row frame: statistic, n_pairs, n_distinct_x, n_distinct_y, reason."""
        return scalar_frame(self.to_dict())


def spearman_correlation(x, y, *, names=("x", "y"), warn: bool = True) -> SpearmanResult:
    r"""Spearman's rank correlation over the finite pairs, stated only when both sides vary enough.

    \[
    \rho_s = \operatorname{corr}\big(\operatorname{rank}(x), \operatorname{rank}(y)\big)
    \]

    with mid-ranks for ties (the same value as `scipy.stats.spearmanr`).
    With fewer than three distinct values on either side one or two items
    decide the sign (e.g. 14 tied values and one other give ρ_s = ±1), so the
    correlation is returned as nan with a ``reason`` and a
    [`DegenerateCorrelationWarning`][auditad.protocol.DegenerateCorrelationWarning].

    Parameters
    ----------
    x, y : array-like of shape (K,)
        Paired values, e.g. the per-class leakage L_k(c) and AUROC(c). Pairs
        with a nan on either side are left out.
    names : tuple of two str, default ("x", "y")
        Names of the sides in the ``reason``.
    warn : bool, default True
        Issue the warning when the correlation is not stated.

    Returns
    -------
    SpearmanResult

    See Also
    --------
    - `scipy.stats.spearmanr`: the statistic itself.
    - [`instability_rates`][auditad.protocol.instability_rates]: the per-class rates it is reported next to.

    References
    ----------
    1. C. Spearman, "The proof and measurement of association between two
       things", The American Journal of Psychology 15(1), 72–101, 1904.
    2. "Testing the Test: Score-Direction Instability in Class-Split Anomaly
       Detection", §3 (leakage against per-class AUROC).

    Examples
    --------
    >>> r = spearman_correlation([0.1, 0.2, 0.3, 0.4], [0.9, 0.8, 0.6, 0.7])
    >>> round(r.statistic, 3), r.n_distinct_x, r.reason is None
    (-0.8, 4, True)
    >>> spearman_correlation([0.1, 0.1, 0.1, 0.2], [0.9, 0.8, 0.6, 0.7], warn=False).reason
    'x has 2 distinct value(s) among 4 pairs; a rank correlation needs at least 3 on each side'
    """
    a = np.asarray(x, dtype=np.float64).reshape(-1)
    b = np.asarray(y, dtype=np.float64).reshape(-1)
    if a.shape != b.shape:
        raise InvalidInputError(f"{names[0]} and {names[1]} must have the same length, got {a.size} and {b.size}")
    ok = np.isfinite(a) & np.isfinite(b)
    a, b = a[ok], b[ok]
    n = int(a.size)
    nx, ny = int(np.unique(a).size), int(np.unique(b).size)
    reason = None
    if n < MIN_DISTINCT:
        reason = f"only {n} finite pair(s); a rank correlation needs at least {MIN_DISTINCT}"
    else:
        few = [(nm, cnt) for nm, cnt in zip(names, (nx, ny)) if cnt < MIN_DISTINCT]
        if few:
            reason = " and ".join(f"{nm} has {cnt} distinct value(s)" for nm, cnt in few) + (
                f" among {n} pairs; a rank correlation needs at least {MIN_DISTINCT} on each side"
            )
    if reason is not None:
        if warn:
            warnings.warn(f"spearman_correlation: not stated: {reason}", DegenerateCorrelationWarning, stacklevel=2)
        return SpearmanResult(float("nan"), n, nx, ny, reason)
    from scipy.stats import spearmanr

    return SpearmanResult(float(spearmanr(a, b).statistic), n, nx, ny, None)
