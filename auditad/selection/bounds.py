r"""AUC lower bounds, NPD, domain decomposition of score moments, local intrinsic dimension.

From K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection Performance
from Embedding-Space Geometry?" (Sec. 3 and App. A.1).

With inlier scores \(z_{in}\), outlier scores \(z_{out}\) and
\(\mu_\Delta = E[z_{out}] - E[z_{in}]\):

* Cantelli bound for independent scores (Eq. 1):
  \(\mathrm{AUC} \ge \mu_\Delta^2 / (\mathrm{Var}(z_{out}) + \mathrm{Var}(z_{in}) + \mu_\Delta^2)\);
* dependence-robust bound (App. A.1):
  \(\mathrm{AUC} \ge \mu_\Delta^2 / ((\sigma_{out} + \sigma_{in})^2 + \mu_\Delta^2)\);
* NPD of AutoUAD (Dai & Fan 2025):
  \(\mu_\Delta^2 / (2(\mathrm{Var}_{out} + \mathrm{Var}_{in}) + \varepsilon)\), which with
  ε = 0 ranks candidates exactly like the bound (bound = 2·NPD/(1 + 2·NPD)).

The bounds are statements for \(\mu_\Delta > 0\); they depend on
\(\mu_\Delta^2\) only, so every result also reports the sign of
\(\mu_\Delta\). Moments are population moments (ddof = 0): with them the
empirical AUC of two finite samples (ties ½) is always at least the bound
when \(\mu_\Delta > 0\), because the empirical AUC is
\(P(\Delta > 0) + \tfrac12 P(\Delta = 0)\) under the product of the two
empirical distributions, to which Cantelli's inequality applies.
Conventions: \(\mu_\Delta = 0\) gives bound 0 and NPD 0 (also when both
variances are 0); \(\mu_\Delta \ne 0\) with zero variances gives bound 1
and NPD ∞ (ε = 0).

The local intrinsic dimension ([`local_intrinsic_dimension`][auditad.selection.bounds.local_intrinsic_dimension],
[`LIDResult`][auditad.selection.bounds.LIDResult]) is defined in `auditad.selection.intrinsic_dimension`
and importable from here.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Mapping

import numpy as np

from .._format import FrameDisplay
from .._validation import check_float, check_scores
from ..errors import InvalidInputError
from .._json import json_safe
from ..metrics import auroc
from .intrinsic_dimension import LIDResult, local_intrinsic_dimension

__all__ = [
    "bound_from_moments",
    "npd_from_moments",
    "auc_bound",
    "AUCBoundResult",
    "domain_moments",
    "DomainMomentsResult",
    "local_intrinsic_dimension",
    "LIDResult",
]


def _as_dict(obj) -> dict:
    return {
        f.name: json_safe(
            getattr(obj, f.name).to_dict() if hasattr(getattr(obj, f.name), "to_dict") else getattr(obj, f.name)
        )
        for f in fields(obj)
    }


# --------------------------------------------------------------------------- bounds from moments
def _moment_arrays(mu_delta, var_in, var_out):
    mu = np.asarray(mu_delta, dtype=np.float64)
    vi = np.asarray(var_in, dtype=np.float64)
    vo = np.asarray(var_out, dtype=np.float64)
    for name, v in (("mu_delta", mu), ("var_in", vi), ("var_out", vo)):
        if not np.all(np.isfinite(v)):
            raise InvalidInputError(f"{name} must be finite, got {v.tolist()}")
    for name, v in (("var_in", vi), ("var_out", vo)):
        if np.any(v < 0):
            raise InvalidInputError(f"{name} must be >= 0, got {v.tolist()}")
    return mu, vi, vo


def _scalar(x):
    return float(x) if np.ndim(x) == 0 else x


#: moments are computed in rescaled units when the largest |value| leaves [2**-400, 2**400]:
#: squares of larger values overflow float64 (|z| > 1.3e154), squares of smaller ones lose precision
_SAFE_EXPONENT = 400


def _pow2_scale(magnitude):
    """A power of two close to ``magnitude`` (array-like, >= 0) where it is outside the safe range, else 1.

    Dividing by a power of two is exact in floating point, so moments and bounds
    computed on rescaled values equal the unscaled ones bit for bit in the safe
    range and stay finite and accurate outside it.
    """
    m = np.asarray(magnitude, dtype=np.float64)
    _, e = np.frexp(m)
    outside = (m > 0) & np.isfinite(m) & (np.abs(e) > _SAFE_EXPONENT)
    return np.where(outside, np.ldexp(1.0, e), 1.0)


def bound_from_moments(mu_delta, var_in, var_out, *, robust: bool = False):
    r"""Cantelli lower bound on the AUC from score moments (Eq. 1 and App. A.1 of the selection paper).

    \[
    B = \frac{\mu_\Delta^2}{\mathrm{Var}(z_{out}) + \mathrm{Var}(z_{in}) + \mu_\Delta^2},\qquad
    B_{\text{robust}} = \frac{\mu_\Delta^2}{(\sigma_{out} + \sigma_{in})^2 + \mu_\Delta^2}
    \]

    Array arguments broadcast. ``mu_delta = 0`` gives 0. The bound is scale
    invariant; moments whose squares would over- or underflow float64 are
    rescaled by a power of two first (exactly).

    Parameters
    ----------
    mu_delta : float or array-like
        \(\mu_\Delta = E[z_{out}] - E[z_{in}]\) (finite).
    var_in, var_out : float or array-like
        Population variances of the inlier and outlier scores (finite, >= 0).
    robust : bool, default False
        The dependence-robust form (App. A.1).

    Returns
    -------
    float or ndarray
        In [0, 1].

    Raises
    ------
    auditad.errors.InvalidInputError
        A non-finite argument (named), or a negative variance.

    See Also
    --------
    - [`auc_bound`][auditad.selection.bounds.auc_bound]: the bound of two score samples.
    - [`npd_from_moments`][auditad.selection.bounds.npd_from_moments]: ranks like the bound.

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Eq. 1 and App. A.1.
    2. Cantelli's inequality: for a random variable X with mean μ and
       variance σ², \(P(X - \mu \le -t) \le \sigma^2/(\sigma^2 + t^2)\) for t > 0.

    Examples
    --------
    >>> bound_from_moments(1.0, 0.5, 0.5), round(bound_from_moments(1.0, 0.5, 0.5, robust=True), 6)
    (0.5, 0.333333)
    """
    mu, vi, vo = _moment_arrays(mu_delta, var_in, var_out)
    # the bound is scale invariant: rescale by a power of two when mu² or the variances would over/underflow
    scale = _pow2_scale(np.maximum(np.abs(mu), np.sqrt(np.maximum(vi, vo))))
    mu, vi, vo = mu / scale, vi / scale / scale, vo / scale / scale
    mu2 = mu * mu
    # (σ_in + σ_out)² written as a sum of non-negative terms: never below vi + vo after rounding
    spread = vi + vo + 2.0 * np.sqrt(vi * vo) if robust else vi + vo
    den = spread + mu2
    out = np.divide(mu2, den, out=np.zeros(np.broadcast(mu2, den).shape), where=mu2 > 0)
    return _scalar(out)


def npd_from_moments(mu_delta, var_in, var_out, *, eps: float = 0.0):
    r"""Normalised performance discrepancy (NPD) of AutoUAD.

    \[
    \mathrm{NPD} = \frac{\mu_\Delta^2}{2(\mathrm{Var}_{out} + \mathrm{Var}_{in}) + \varepsilon}
    \]

    With ε = 0, Eq. 1's bound is \(2\,\mathrm{NPD}/(1 + 2\,\mathrm{NPD})\), an
    increasing function, so both rank candidates identically. ``mu_delta = 0``
    gives 0; ``mu_delta != 0`` with zero variances and ε = 0 gives ∞.

    Parameters
    ----------
    mu_delta : float or array-like
        \(\mu_\Delta\) (finite).
    var_in, var_out : float or array-like
        Population variances (finite, >= 0).
    eps : float, default 0
        ε (>= 0).

    Returns
    -------
    float or ndarray

    Raises
    ------
    auditad.errors.InvalidInputError
        A non-finite argument, a negative variance or ε.

    See Also
    --------
    - [`bound_from_moments`][auditad.selection.bounds.bound_from_moments]
    - [`auc_bound`][auditad.selection.bounds.auc_bound]

    References
    ----------
    1. W. Dai and J. Fan, "AutoUAD: Hyper-parameter Optimization for
       Unsupervised Anomaly Detection", ICLR 2025.
    2. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 3 (NPD and the bound induce the same ranking).

    Examples
    --------
    >>> npd_from_moments(1.0, 0.5, 0.5)
    0.5
    """
    mu, vi, vo = _moment_arrays(mu_delta, var_in, var_out)
    eps = check_float(eps, name="eps", low=0.0)
    # NPD(mu, vi, vo, eps) = NPD(mu/s, vi/s², vo/s², eps/s²): rescale by a power of two when squares would overflow
    scale = _pow2_scale(np.maximum(np.abs(mu), np.sqrt(np.maximum(vi, vo))))
    mu, vi, vo, eps = mu / scale, vi / scale / scale, vo / scale / scale, eps / scale / scale
    mu2 = mu * mu
    den = 2.0 * (vi + vo) + eps
    shape = np.broadcast(mu2, den).shape
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(mu2 > 0, np.where(den > 0, mu2 / np.where(den > 0, den, 1.0), np.inf), 0.0)
    return _scalar(np.broadcast_to(out, shape).astype(np.float64))


# --------------------------------------------------------------------------- domain decomposition
@dataclass(frozen=True)
class DomainMomentsResult(FrameDisplay):
    r"""Mixture moments of scores over domains (see [`domain_moments`][auditad.selection.bounds.domain_moments]).

    \[
    \bar E = \sum_g w_g E_g,\qquad
    \mathrm{Var} = \sum_g w_g \mathrm{Var}_g + \sum_g w_g (E_g - \bar E)^2
    \]

    Attributes
    ----------
    domains : tuple of str
    weights, counts, means, variances : ndarray
        Per domain: mixture weight, number of scores, mean and population variance.
    mean : float
        \(\sum_g w_g E_g\).
    variance : float
        \(\sum_g w_g \mathrm{Var}_g + \sum_g w_g (E_g - \bar E)^2\); for two
        domains with source weight λ the second term is
        \(\lambda(1-\lambda)(E_S - E_T)^2\) (Eq. 4).
    within, between : float
        The two terms of ``variance``.
    lam : float or None
        Source weight when two domains were weighted by λ.
    weighting : str
        ``"empirical"`` (n_g/n), ``"lambda"`` or ``"given"``.

    See Also
    --------
    - [`domain_moments`][auditad.selection.bounds.domain_moments]
    - [`auc_bound`][auditad.selection.bounds.auc_bound]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Eqs. 4–6.

    Examples
    --------
    >>> r = domain_moments([0.0, 2.0, 4.0], ["s", "s", "t"])
    >>> r.to_frame()["mean"].tolist(), r.variance
    ([1.0, 4.0], 2.6666666666666665)
    """

    domains: tuple
    weights: np.ndarray
    counts: np.ndarray
    means: np.ndarray
    variances: np.ndarray
    mean: float
    variance: float
    within: float
    between: float
    lam: float | None
    weighting: str

    def to_frame(self):
        """One row per domain (a `pandas.DataFrame`)."""
        import pandas as pd

        return pd.DataFrame(
            {
                "domain": list(self.domains),
                "weight": self.weights,
                "count": self.counts,
                "mean": self.means,
                "variance": self.variances,
            }
        )

    def to_dict(self) -> dict:
        return {f.name: json_safe(getattr(self, f.name)) for f in fields(self)}


def _domain_weights(domains_in: np.ndarray, lam, source):
    """Resolve the weighting to (domains, weights, lam, kind)."""
    values, counts = np.unique(domains_in, return_counts=True)
    if isinstance(lam, str):
        if lam != "empirical":
            raise InvalidInputError(f"lam must be 'empirical', a number in [0, 1] or a mapping, got {lam!r}")
        return values, counts / counts.sum(), None, "empirical"
    if isinstance(lam, Mapping):
        doms = np.array(sorted(str(k) for k in lam))
        w = np.array([check_float(lam[k], name=f"lam[{k!r}]", low=0.0) for k in sorted(lam, key=str)])
        if not np.isclose(w.sum(), 1.0):
            raise InvalidInputError(f"the domain weights in lam must sum to 1, got {w.sum()}")
        return doms, w, None, "given"
    lam = check_float(lam, name="lam", low=0.0, high=1.0)
    if values.size != 2:
        raise InvalidInputError(f"a numeric lam needs exactly two domains, got {values.tolist()}")
    if source is None:
        source = values[np.argmax(counts)]
    source = str(source)
    if source not in values:
        raise InvalidInputError(f"source {source!r} is not one of the domains {values.tolist()}")
    target = values[values != source][0]
    return np.array([source, target]), np.array([lam, 1.0 - lam]), lam, "lambda"


def _weighted_moments(z, dom, domains, weights, *, name):
    counts = np.array([np.count_nonzero(dom == g) for g in domains])
    missing = [str(g) for g, c, w in zip(domains, counts, weights) if c == 0 and w > 0]
    if missing:
        raise InvalidInputError(f"{name} has no score in domain(s) {missing} that carry a positive weight")
    means = np.array([z[dom == g].mean() if c else np.nan for g, c in zip(domains, counts)])
    vars_ = np.array([z[dom == g].var() if c else np.nan for g, c in zip(domains, counts)])
    used = weights > 0
    mean = float(np.sum(weights[used] * means[used]))
    within = float(np.sum(weights[used] * vars_[used]))
    between = float(np.sum(weights[used] * (means[used] - mean) ** 2))
    return counts, means, vars_, mean, within, between


def domain_moments(z, domains, *, lam="empirical", source=None) -> DomainMomentsResult:
    r"""Mean and variance of scores as a mixture of domains (Eqs. 4–5 of the selection paper).

    \[
    \mathrm{Var}(z) = \lambda\,\mathrm{Var}_S(z) + (1-\lambda)\,\mathrm{Var}_T(z)
    + \lambda(1-\lambda)\,(E_S[z] - E_T[z])^2
    \]

    generalised to G domains as \(\sum_g w_g \mathrm{Var}_g + \sum_g w_g (E_g - \bar E)^2\).

    Parameters
    ----------
    z : array-like of shape (n,)
    domains : array-like of shape (n,)
        Domain label of each score.
    lam : "empirical", float in [0, 1] or mapping
        ``"empirical"``: w_g = n_g / n (then ``variance`` is exactly the pooled
        population variance); a float: the source weight λ of exactly two
        domains; a mapping: explicit weights per domain (summing to 1).
    source : str, optional
        Source domain for a float λ (default: the most frequent domain).

    Returns
    -------
    DomainMomentsResult

    Raises
    ------
    auditad.errors.InvalidInputError
        Non-finite scores, domains of another length, an invalid ``lam``
        (a float outside [0, 1] or with other than two domains, weights not
        summing to 1), an unknown ``source``, a weighted domain without scores.

    See Also
    --------
    - [`auc_bound`][auditad.selection.bounds.auc_bound]: uses these moments with ``lam``.

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Eqs. 4–6.

    Examples
    --------
    >>> r = domain_moments([0.0, 0.0, 2.0, 2.0], ["s", "s", "t", "t"], lam=0.5)
    >>> r.mean, r.variance, r.between
    (1.0, 1.0, 1.0)
    """
    zz = check_scores(z, name="z")
    dom = np.asarray(domains).astype(str)
    if dom.ndim != 1 or dom.size != zz.size:
        raise InvalidInputError(f"domains must be 1-D with {zz.size} entries, got shape {dom.shape}")
    doms, w, lam_val, kind = _domain_weights(dom, lam, source)
    scale = _score_scale(zz)
    counts, means, vars_, mean, within, between = _weighted_moments(zz / scale, dom, doms, w, name="z")
    res = DomainMomentsResult(
        domains=tuple(str(d) for d in doms),
        weights=w,
        counts=counts,
        means=means,
        variances=vars_,
        mean=mean,
        variance=within + between,
        within=within,
        between=between,
        lam=lam_val,
        weighting=kind,
    )
    return _unscale_domain(res, scale)


def _score_scale(*samples) -> float:
    """Power-of-two scale of score samples whose squares would over- or underflow (1.0 in the safe range)."""
    top = max((float(np.max(np.abs(z))) for z in samples if z.size), default=0.0)
    return float(_pow2_scale(top))


def _unscale_domain(res: "DomainMomentsResult | None", scale: float):
    """Moments computed on ``z / scale`` back in the units of ``z`` (a variance beyond float64 becomes inf)."""
    if res is None or scale == 1.0:
        return res
    from dataclasses import replace

    with np.errstate(over="ignore"):
        return replace(
            res,
            means=res.means * scale,
            variances=res.variances * scale * scale,
            mean=res.mean * scale,
            variance=res.variance * scale * scale,
            within=res.within * scale * scale,
            between=res.between * scale * scale,
        )


# --------------------------------------------------------------------------- AUC bound of two samples
@dataclass(frozen=True)
class AUCBoundResult(FrameDisplay):
    r"""The AUC bounds of an inlier and an outlier score sample (see `auc_bound`).

    \[
    B = \frac{\mu_\Delta^2}{\mathrm{Var}(z_{out}) + \mathrm{Var}(z_{in}) + \mu_\Delta^2}
    \]

    Attributes
    ----------
    mu_delta, mean_in, mean_out, var_in, var_out : float
        Moments (population; domain-weighted when a weighting was given), in
        the units of the scores (a variance beyond the float64 range, for
        scores above about 1e154, is inf; the bounds are still exact).
    bound : float
        Eq. 1 (independent scores).
    robust_bound : float
        App. A.1 (any dependence); always ``<= bound``.
    npd : float
        AutoUAD's NPD with ``npd_eps``.
    mu_delta_sign : int
        Sign of \(\mu_\Delta\) (+1, 0, −1); the bounds hold for +1.
    empirical_auc : float
        AUROC of outliers vs inliers (ties ½), unweighted.
    n_in, n_out : int
    weighting : str
        ``"pooled"`` or the domain weighting used.
    lam : float or None
    domain_in, domain_out : DomainMomentsResult or None

    See Also
    --------
    - [`auc_bound`][auditad.selection.bounds.auc_bound]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Eq. 1 and App. A.1.

    Examples
    --------
    >>> r = auc_bound([0.0, 2.0], [3.0, 5.0])
    >>> r.to_frame()[["mu_delta", "var_in", "var_out"]].iloc[0].tolist()
    [3.0, 1.0, 1.0]
    """

    mu_delta: float
    mean_in: float
    mean_out: float
    var_in: float
    var_out: float
    bound: float
    robust_bound: float
    npd: float
    mu_delta_sign: int
    empirical_auc: float
    n_in: int
    n_out: int
    weighting: str = "pooled"
    lam: float | None = None
    domain_in: DomainMomentsResult | None = None
    domain_out: DomainMomentsResult | None = None

    def to_dict(self) -> dict:
        """JSON-safe dict (nan/inf -> None), with the domain results nested."""
        return _as_dict(self)

    def to_frame(self):
        """One-row tidy frame of the scalar fields."""
        import pandas as pd

        return pd.DataFrame(
            [{f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("domain_in", "domain_out")}]
        )


def auc_bound(
    z_in, z_out, *, domain_in=None, domain_out=None, lam=None, source=None, npd_eps: float = 0.0
) -> AUCBoundResult:
    r"""AUC lower bounds (Eq. 1, App. A.1), NPD and empirical AUC of two score samples.

    \[
    \mathrm{AUC} \ge \frac{\mu_\Delta^2}{\mathrm{Var}(z_{out}) + \mathrm{Var}(z_{in}) + \mu_\Delta^2}
    \ge \frac{\mu_\Delta^2}{(\sigma_{out} + \sigma_{in})^2 + \mu_\Delta^2}\qquad(\mu_\Delta > 0)
    \]

    With ``lam`` and domain labels the moments follow Eqs. 4–6: the variances
    are domain mixtures and
    \(\mu_\Delta = \sum_g w_g (E_g[z_{out}] - E_g[z_{in}])\) (Eq. 6). When
    only ``domain_in`` is given the outlier moments are pooled and
    \(\mu_\Delta = E[z_{out}] - \sum_g w_g E_g[z_{in}]\).

    Parameters
    ----------
    z_in, z_out : array-like of shape (n_in,), (n_out,)
        Inlier and outlier (or pseudo-outlier) scores, higher = more anomalous.
    domain_in, domain_out : array-like, optional
        Domain labels of the scores.
    lam : None, "empirical", float or mapping
        None: pooled moments. Otherwise the domain weighting of
        [`domain_moments`][auditad.selection.bounds.domain_moments].
    source : str, optional
        Source domain for a float ``lam``.
    npd_eps : float, default 0
        ε of NPD.

    Returns
    -------
    AUCBoundResult

    Raises
    ------
    auditad.errors.InvalidInputError
        Empty or non-finite scores, ``domain_out`` without ``domain_in``,
        ``lam`` without ``domain_in``, domain labels of the wrong length, an
        invalid weighting.

    Notes
    -----
    With population moments the empirical AUC (ties ½) of two finite samples
    is at least the bound whenever \(\mu_\Delta > 0\). Scores beyond
    about 1e120 (or below 1e-120) in magnitude are divided by a power of two
    before the moments are taken: the bounds are scale invariant and the
    division is exact, so nothing overflows.

    See Also
    --------
    - [`bound_from_moments`][auditad.selection.bounds.bound_from_moments]
    - [`npd_from_moments`][auditad.selection.bounds.npd_from_moments]
    - [`domain_moments`][auditad.selection.bounds.domain_moments]
    - [`auditad.selection.estimate_candidate`][auditad.selection.estimate_candidate]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Eq. 1, Eqs. 4–6 and App. A.1.
    2. Cantelli's inequality: for a random variable X with mean μ and
       variance σ², \(P(X - \mu \le -t) \le \sigma^2/(\sigma^2 + t^2)\) for t > 0.
    3. W. Dai and J. Fan, "AutoUAD: Hyper-parameter Optimization for
       Unsupervised Anomaly Detection", ICLR 2025.

    Examples
    --------
    >>> r = auc_bound([0.0, 1.0], [2.0, 3.0])
    >>> r.mu_delta, round(r.bound, 4), r.empirical_auc
    (2.0, 0.8889, 1.0)
    """
    zi_raw = check_scores(z_in, name="z_in")
    zo_raw = check_scores(z_out, name="z_out")
    if zi_raw.size == 0 or zo_raw.size == 0:
        raise InvalidInputError(f"z_in and z_out must not be empty, got sizes {zi_raw.size} and {zo_raw.size}")
    # the bounds are scale invariant: scores beyond about 1e120 (or below 1e-120) in magnitude are
    # divided by a power of two so that their squares neither overflow nor lose precision
    scale = _score_scale(zi_raw, zo_raw)
    zi, zo = zi_raw / scale, zo_raw / scale
    dm_in = dm_out = None
    lam_val = None
    weighting = "pooled"
    if lam is None:
        if domain_out is not None and domain_in is None:
            raise InvalidInputError("domain_out without domain_in: give domain_in (and lam) too")
        mean_in, var_in = float(zi.mean()), float(zi.var())
        mean_out, var_out = float(zo.mean()), float(zo.var())
    else:
        if domain_in is None:
            raise InvalidInputError(f"lam={lam!r} needs domain_in (the domain of each inlier score)")
        dm_in = domain_moments(zi, domain_in, lam=lam, source=source)
        weights = dict(zip(dm_in.domains, dm_in.weights.tolist()))
        mean_in, var_in = dm_in.mean, dm_in.variance
        lam_val, weighting = dm_in.lam, dm_in.weighting
        if domain_out is not None:
            dom_out = np.asarray(domain_out).astype(str)
            if dom_out.ndim != 1 or dom_out.size != zo.size:
                raise InvalidInputError(f"domain_out must be 1-D with {zo.size} entries, got shape {dom_out.shape}")
            doms = np.array(dm_in.domains)
            w = np.array([weights[d] for d in dm_in.domains])
            counts, means, vars_, m, within, between = _weighted_moments(zo, dom_out, doms, w, name="z_out")
            dm_out = DomainMomentsResult(
                domains=dm_in.domains,
                weights=w,
                counts=counts,
                means=means,
                variances=vars_,
                mean=m,
                variance=within + between,
                within=within,
                between=between,
                lam=dm_in.lam,
                weighting=dm_in.weighting,
            )
            mean_out, var_out = dm_out.mean, dm_out.variance
        else:
            mean_out, var_out = float(zo.mean()), float(zo.var())
    mu = mean_out - mean_in
    labels = np.concatenate([np.zeros(zi.size, dtype=np.int8), np.ones(zo.size, dtype=np.int8)])
    emp = float(auroc(labels, np.concatenate([zi_raw, zo_raw])))
    npd_eps = check_float(npd_eps, name="npd_eps", low=0.0)
    bound = bound_from_moments(mu, var_in, var_out)
    robust = bound_from_moments(mu, var_in, var_out, robust=True)
    eps_scaled = npd_eps / scale / scale
    # eps beyond float64 in rescaled units (tiny scores): mu²/eps underflows, NPD is 0 to double precision
    npd = npd_from_moments(mu, var_in, var_out, eps=eps_scaled) if np.isfinite(eps_scaled) else 0.0
    # back to the units of the scores (Python floats: an overflow gives inf, not an error)
    return AUCBoundResult(
        mu_delta=mu * scale,
        mean_in=mean_in * scale,
        mean_out=mean_out * scale,
        var_in=var_in * scale * scale,
        var_out=var_out * scale * scale,
        bound=bound,
        robust_bound=robust,
        npd=npd,
        mu_delta_sign=int(np.sign(mu)),
        empirical_auc=emp,
        n_in=int(zi.size),
        n_out=int(zo.size),
        weighting=weighting,
        lam=lam_val,
        domain_in=_unscale_domain(dm_in, scale),
        domain_out=_unscale_domain(dm_out, scale),
    )
