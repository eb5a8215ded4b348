r"""Random-baseline (null) distributions of evaluation metrics (Hermary et al. §IV).

For a test set of ``n_pos`` anomalies and ``n_neg`` normals, the null of a
metric is its distribution under predictions that carry no information:

* threshold-free metrics (``auroc``, ``ap``, ``aupr_trap``): i.i.d. continuous
  random scores, i.e. a uniformly random ranking of the n samples;
* thresholded metrics (``f1``, ``mcc``, ``mcc_scaled``): i.i.d. random binary
  predictions with positive rate ``q`` -- ``"coin"`` (q = ½, Hermary et al.'s
  choice), ``"prior"`` (q = π = n_pos / n) or a number in [0, 1]. Then
  TP ~ Binomial(n_pos, q) and FP ~ Binomial(n_neg, q) independently.

Each metric null is computed by the most exact method available and the result
says which one: ``"exact"`` (the full distribution: Mann–Whitney U for AUROC,
enumeration of all rankings for AP/AUPR when there are few, enumeration of the
binomial (TP, FP) grid for F1/MCC), ``"analytic"`` (AUROC for large n: exact
mean ½ and variance \((n+1)/(12 n_+ n_-)\), normal shape), or
``"monte_carlo"`` (seeded, vectorised, chunked simulation).

An observed AUROC is placed on its null by [`place_observed`][auditad.nulls.place_observed]; the
per-class AUROCs of a class-split audit on the nulls of their own test counts by
[`place_protocol_aurocs`][auditad.nulls.place_protocol_aurocs].
"""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np

from ..metrics import _mann_whitney as _mw
from . import _kernels
from ._results import (  # noqa: F401  (re-exported: the result types and limits belong to this module)
    EXACT_AUROC_WORK,
    EXACT_AUROC_WORK_MAX,
    EXACT_GRID,
    EXACT_RANKINGS,
    NORMAL_P_MIN,
    P_FLOOR,
    MetricNull,
    NullResult,
    NullSweepResult,
    HIST_BINS as _HIST_BINS,
    TOL as _TOL,
    with_observed as _place,
    format_p_value,
)
from .observed import (
    ClassNullResult,
    ObservedResult,
    ObservedSharesResult,
    class_test_counts,
    observed_shares,
    place_observed,
    place_protocol_aurocs,
)
from .._rng import check_random_state, spawn
from .._validation import check_choice, check_float, check_int, describe
from ..errors import InvalidInputError
from ..metrics import METRIC_NAMES, check_metric_names

__all__ = [
    "null_distribution",
    "null_sweep",
    "auroc_null",
    "format_p_value",
    "expected_average_precision",
    "auroc_null_moments",
    "mann_whitney_pmf",
    "class_counts",
    "MetricNull",
    "NullResult",
    "NullSweepResult",
    "PAPER_SWEEP_RATIOS",
    "ObservedResult",
    "ClassNullResult",
    "ObservedSharesResult",
    "place_observed",
    "class_test_counts",
    "place_protocol_aurocs",
    "observed_shares",
]

THRESHOLD_FREE = ("auroc", "ap", "aupr_trap")
THRESHOLDED = ("f1", "mcc", "mcc_scaled")

#: Anomaly ratios (positive share) of the sweep of Hermary et al. Figure 1: 99:1 ... 1:99 (positive:negative).
PAPER_SWEEP_RATIOS = (0.99, 0.95, 0.90, 0.80, 0.70, 0.60, 0.50, 0.40, 0.30, 0.20, 0.10, 0.05, 0.01)


# --------------------------------------------------------------------------- input helpers
def class_counts(n_pos=None, n_neg=None, *, ratio=None, n=None) -> tuple[int, int]:
    """Resolve (n_pos, n_neg) from the counts or from an anomaly ratio and a total n.

    With ``ratio`` and ``n``: ``n_pos = round(ratio * n)`` clipped to [1, n - 1].

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (Table I: anomaly ratios of common benchmarks).

    See Also
    --------
    - [`null_distribution`][auditad.nulls.null_distribution]

    Examples
    --------
    >>> class_counts(ratio=0.0019, n=10_000)
    (19, 9981)
    """
    if n_pos is not None or n_neg is not None:
        if ratio is not None or n is not None:
            raise InvalidInputError("give either n_pos and n_neg, or ratio and n, not both")
        if n_pos is None or n_neg is None:
            raise InvalidInputError(f"both n_pos and n_neg are needed, got n_pos={n_pos!r}, n_neg={n_neg!r}")
        return check_int(n_pos, name="n_pos", low=1), check_int(n_neg, name="n_neg", low=1)
    if ratio is None or n is None:
        raise InvalidInputError("give n_pos and n_neg, or ratio and n")
    ratio = check_float(ratio, name="ratio", low=0.0, high=1.0, low_open=True, high_open=True)
    n = check_int(n, name="n", low=2)
    n_pos = min(max(int(round(ratio * n)), 1), n - 1)
    return n_pos, n - n_pos


def _resolve_q(q, n_pos: int, n_neg: int) -> tuple[str, float]:
    if isinstance(q, str):
        check_choice(q, ("coin", "prior"), name="q")
        return q, (0.5 if q == "coin" else n_pos / (n_pos + n_neg))
    return "fixed", check_float(q, name="q", low=0.0, high=1.0)


def _resolve_metrics(metrics, observed) -> tuple[tuple, dict]:
    metrics = list(check_metric_names(metrics))
    obs = {}
    if observed is not None:
        if not isinstance(observed, Mapping):
            raise InvalidInputError(f"observed must be a mapping metric -> value, got {describe(observed)}")
        for key, value in observed.items():
            check_choice(key, METRIC_NAMES, name="observed metric")
            low = -1.0 if key == "mcc" else 0.0
            obs[key] = check_float(value, name=f"observed[{key!r}]", low=low, high=1.0)
            if key not in metrics:
                metrics.append(key)
    ordered = tuple(m for m in METRIC_NAMES if m in metrics)
    return ordered, obs


# --------------------------------------------------------------------------- summaries
def _histogram(values: np.ndarray, weights: np.ndarray, cdf_values: np.ndarray, cdf: np.ndarray):
    lo = float(cdf_values[min(np.searchsorted(cdf, 1e-4 - _TOL), cdf.size - 1)])
    hi = float(cdf_values[min(np.searchsorted(cdf, 1 - 1e-4 - _TOL), cdf.size - 1)])
    if hi - lo < 1e-9:
        lo, hi = lo - 0.01, hi + 0.01
    edges = np.linspace(lo, hi, _HIST_BINS + 1)
    prob, _ = np.histogram(values, bins=edges, weights=weights)
    return edges, prob


def _summarize(metric, values, weights, *, method, runs, observed, q):
    """Summary of a discrete distribution (exact support + pmf, or Monte Carlo samples with weights 1/R)."""
    values = np.asarray(values, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    weights = weights / weights.sum()
    # weighted sums by numpy's pairwise summation, not a BLAS dot product: a multi-threaded BLAS splits
    # long dot products by its thread count, and a null must have the same bits wherever it is computed
    mean = float(np.sum(values * weights))
    var = float(np.sum((values - mean) ** 2 * weights))
    above = values > mean + _TOL * max(1.0, abs(mean))
    w_above = weights[above].sum()
    mpd = float(np.sum((values[above] - mean) * weights[above]) / w_above) if w_above > 0 else 0.0
    order = np.argsort(values, kind="stable")
    sv, sw = values[order], weights[order]
    cdf = np.cumsum(sw)
    quant = [float(sv[min(np.searchsorted(cdf, level - _TOL), sv.size - 1)]) for level in (0.95, 0.99)]
    edges, prob = _histogram(values, weights, sv, cdf)
    null = MetricNull(
        metric=metric,
        method=method,
        runs=int(runs),
        mean=mean,
        std=math.sqrt(max(var, 0.0)),
        mean_positive_deviation=mpd,
        q95=quant[0],
        q99=quant[1],
        observed=float("nan"),
        p_value=float("nan"),
        q=q,
        hist_edges=edges,
        hist_prob=prob,
        values=sv,
        probabilities=sw,
    )
    return _place(null, observed)


# --------------------------------------------------------------------------- AUROC: exact and analytic
def auroc_null_moments(n_pos: int, n_neg: int, *, tie_term: float = 0.0) -> tuple[float, float]:
    r"""Exact mean and standard deviation of AUROC under random scores.

    \[
    E[\mathrm{AUROC}] = \tfrac12,\qquad
    \mathrm{Var}[\mathrm{AUROC}] = \frac{1}{12\,n_+ n_-}\Big(n + 1 - \frac{\sum_g (t_g^3 - t_g)}{n(n-1)}\Big),
    \]

    with \(n = n_+ + n_-\) and \(t_g\) the sizes of the groups of tied
    scores (``tie_term`` = \(\sum_g (t_g^3 - t_g)\); 0 without ties, giving
    \((n+1)/(12 n_+ n_-)\)), the permutation variance of Mann–Whitney U
    divided by \((n_+ n_-)^2\).

    Parameters
    ----------
    n_pos, n_neg : int
        Numbers of anomalies and normals (>= 1 each).
    tie_term : float, default 0
        \(\sum_g (t_g^3 - t_g)\) over the tie groups of the pooled scores.

    Returns
    -------
    tuple of float
        (mean, standard deviation).

    References
    ----------
    H. B. Mann, D. R. Whitney, "On a test of whether one of two random variables is
    stochastically larger than the other", Annals of Mathematical Statistics 18 (1947).
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (random-baseline analysis, §IV).

    See Also
    --------
    - [`null_distribution`][auditad.nulls.null_distribution]
    - [`auroc_null`][auditad.nulls.auroc_null]
    - [`mann_whitney_pmf`][auditad.nulls.mann_whitney_pmf]

    Examples
    --------
    >>> auroc_null_moments(1, 99)
    (0.5, 0.29157646512850627)
    """
    n_pos = check_int(n_pos, name="n_pos", low=1)
    n_neg = check_int(n_neg, name="n_neg", low=1)
    tie_term = check_float(tie_term, name="tie_term", low=0.0)
    n = n_pos + n_neg
    corr = tie_term / (n * (n - 1)) if n > 1 else 0.0
    return 0.5, math.sqrt(max(n + 1 - corr, 0.0) / (12.0 * n_pos * n_neg))


def mann_whitney_pmf(n_pos: int, n_neg: int) -> np.ndarray:
    r"""Exact null distribution of the Mann–Whitney U statistic (no ties).

    ``pmf[u] = P(U = u)`` for ``u = 0 .. n_pos·n_neg``, where U counts the
    (positive, negative) pairs ranked correctly, so AUROC = U / (n_pos n_neg).
    The counts of the \(\binom{n}{n_+}\) equally likely rankings are the
    coefficients of the Gaussian binomial coefficient, built with the q-Pascal
    rule (additions of non-negative numbers only, so every cell has a relative
    error of a few ulps; the usual product recursion subtracts and loses all
    accuracy beyond ~200 × 200):

    \[
    \binom{k+j}{k}_q = \binom{k+j-1}{k}_q + q^{j}\binom{k-1+j}{k-1}_q .
    \]

    Cost \(O(n_+^2 n_-^2 / 4)\) additions (0.1–0.3 s at 160 × 160): for large
    counts [`null_distribution`][auditad.nulls.null_distribution] switches to the normal approximation.
    Cells below ~1e-308 underflow to 0. Sizes whose cost exceeds ``EXACT_AUROC_WORK_MAX`` are
    refused (checked before anything is allocated).

    Parameters
    ----------
    n_pos, n_neg : int
        Class counts (>= 1 each).

    Returns
    -------
    numpy.ndarray of shape (n_pos * n_neg + 1,)

    References
    ----------
    H. B. Mann, D. R. Whitney, "On a test of whether one of two random variables is
    stochastically larger than the other", Annals of Mathematical Statistics 18 (1947).
    G. E. Andrews, "The Theory of Partitions", Addison-Wesley (1976), ch. 3.

    See Also
    --------
    - [`null_distribution`][auditad.nulls.null_distribution]
    - [`auroc_null_moments`][auditad.nulls.auroc_null_moments]

    Examples
    --------
    >>> mann_whitney_pmf(2, 2).tolist()  # 6 rankings: U = 0, 1, 2, 2, 3, 4
    [0.16666666666666666, 0.16666666666666666, 0.3333333333333333, 0.16666666666666666, 0.16666666666666666]
    """
    m = check_int(n_pos, name="n_pos", low=1)
    n = check_int(n_neg, name="n_neg", low=1)
    cost = _mw.work(m, n, m * n // 2)  # checked before allocating anything
    if cost > EXACT_AUROC_WORK_MAX:
        raise InvalidInputError(
            f"the exact Mann-Whitney pmf at n_pos={m}, n_neg={n} needs {cost:.2e} additions "
            f"(limit {EXACT_AUROC_WORK_MAX:.0e}); use null_distribution(method='auto') for the "
            "normal approximation"
        )
    return _mw.pmf(m, n)


def _auroc_exact(n_pos, n_neg, observed):
    pmf = mann_whitney_pmf(n_pos, n_neg)
    values = np.arange(pmf.size) / (n_pos * n_neg)
    null = _summarize("auroc", values, pmf, method="exact", runs=0, observed=None, q=float("nan"))
    return _place(null, observed, n_pos, n_neg, 0.0)


def _auroc_analytic(n_pos, n_neg, observed, tie_term=0.0):
    from scipy.stats import norm

    mean, sd = auroc_null_moments(n_pos, n_neg, tie_term=tie_term)
    mn = n_pos * n_neg
    sd_u = sd * mn
    z95, z99 = norm.ppf(0.95), norm.ppf(0.99)
    step = 0.5 if tie_term > 0 else 1.0
    # quantiles of U rounded up to the lattice of U (continuity correction: U >= u  <=>  Z >= (u - 0.5 - mn/2)/sd_u)
    q95 = min(math.ceil((mn / 2 + z95 * sd_u + 0.5) / step - 1e-9) * step, mn) / mn
    q99 = min(math.ceil((mn / 2 + z99 * sd_u + 0.5) / step - 1e-9) * step, mn) / mn
    lo = max(0.5 - 4 * sd, 0.0) if sd > 0 else 0.49
    hi = min(0.5 + 4 * sd, 1.0) if sd > 0 else 0.51
    edges = np.linspace(lo, hi, _HIST_BINS + 1)
    prob = (
        np.diff(norm.cdf((edges - 0.5) / sd))
        if sd > 0
        else np.r_[np.zeros(_HIST_BINS // 2), 1.0, np.zeros(_HIST_BINS - _HIST_BINS // 2 - 1)]
    )
    null = MetricNull(
        metric="auroc",
        method="analytic",
        runs=0,
        mean=mean,
        std=sd,
        mean_positive_deviation=sd * math.sqrt(2.0 / math.pi),
        q95=q95,
        q99=q99,
        observed=float("nan"),
        p_value=float("nan"),
        q=float("nan"),
        hist_edges=edges,
        hist_prob=prob,
    )
    return _place(null, observed, n_pos, n_neg, tie_term)


def expected_average_precision(n_pos: int, n_neg: int) -> float:
    r"""Exact mean of AP under a uniformly random ranking.

    \[
    E[\mathrm{AP}] = \frac{1}{n}\Big[H_n + \frac{n_+ - 1}{n - 1}\,(n - H_n)\Big],
    \]

    with \(n = n_+ + n_-\) and \(H_n\) the n-th harmonic number (from
    \(E[\mathrm{AP}] = \frac{1}{n_+}\sum_j P(\text{positive at } j)\,E[tp(j)/j \mid \text{positive at } j]\)).
    It tends to π = n_+/n as n grows (Hermary et al. §IV: "the AUPR baseline varies
    approximately linearly with the anomaly proportion").

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§IV).

    See Also
    --------
    - [`null_distribution`][auditad.nulls.null_distribution]
    - [`auditad.metrics.average_precision`][auditad.metrics.average_precision]

    Examples
    --------
    >>> round(expected_average_precision(50, 9950), 5)
    0.00587
    """
    n_pos = check_int(n_pos, name="n_pos", low=1)
    n_neg = check_int(n_neg, name="n_neg", low=1)
    n = n_pos + n_neg
    h = float(np.sum(1.0 / np.arange(1, n + 1)))
    return (h + (n_pos - 1) / (n - 1) * (n - h)) / n


# --------------------------------------------------------------------------- public API
def null_distribution(
    n_pos=None,
    n_neg=None,
    *,
    ratio=None,
    n=None,
    metrics=METRIC_NAMES,
    q="coin",
    method: str = "auto",
    runs: int = 10_000,
    observed: Mapping[str, float] | None = None,
    ties=None,
    random_state=None,
) -> NullResult:
    r"""Distribution of each metric under random predictions at (n_pos, n_neg) (Hermary et al. §IV).

    Threshold-free metrics use a uniformly random ranking (i.i.d. continuous
    scores); F1 and MCC use random binary predictions with positive rate q, so
    \(TP \sim \mathrm{Bin}(n_+, q)\), \(FP \sim \mathrm{Bin}(n_-, q)\),
    \(F_1 = 2TP/(TP + FP + n_+)\). For large n the coin null of F1 tends to

    \[
    F_1 \to \frac{2\pi q}{q + \pi} \overset{q=1/2}{=} \frac{\pi}{\pi + 1/2}
    \]

    (0.664 at π = 0.99: the ≈0.66–0.70 F1 baseline of Hermary et al. Figure 1).
    Reported per metric: mean, std, mean positive deviation
    \(E[S-\bar S \mid S > \bar S]\), 95 %/99 % quantiles and, for an observed
    score, \(p = P(S \ge s_{obs})\) (Monte Carlo: \((b+1)/(R+1)\)).

    Methods (``method="auto"`` picks the first that applies; the result says which):

    * AUROC: ``exact`` Mann–Whitney distribution ([`mann_whitney_pmf`][auditad.nulls.mann_whitney_pmf]) when
      \(n_+ n_- \min(n_+, n_-) \le 3\cdot10^7\), else ``analytic`` (exact mean
      and variance, normal quantiles and p-value with continuity correction);
    * AP, AUPR-trapezoid: ``exact`` enumeration of all \(\binom{n}{n_+}\)
      rankings when there are at most 20 000, else ``monte_carlo``;
    * F1, MCC: ``exact`` enumeration of the binomial (TP, FP) grid (tails of mass
      < 1e-16 dropped) when it has at most 4·10⁶ cells, else ``monte_carlo``.

    ``method="monte_carlo"`` forces simulation for every metric;
    ``method="exact"`` raises if a requested metric has no feasible exact method.

    Parameters
    ----------
    n_pos, n_neg : int, optional
        Numbers of anomalies (positives) and normals, each >= 1.
    ratio, n : float and int, optional
        Alternative to the counts: anomaly ratio in (0, 1) and total size
        (``n_pos = round(ratio n)`` clipped to [1, n − 1]).
    metrics : sequence of str, default all
        Any of ``auroc``, ``ap``, ``aupr_trap``, ``f1``, ``mcc``, ``mcc_scaled``.
    q : "coin", "prior" or float, default "coin"
        Positive rate of the random binary predictions: ½, π, or the number.
    method : {"auto", "exact", "monte_carlo"}, default "auto"
    runs : int, default 10000
        Monte Carlo runs (used only by metrics computed by simulation).
    observed : mapping metric -> float, optional
        Observed scores to place on their nulls (a metric named here is added to ``metrics``).
    random_state : None, int or numpy.random.Generator
        Seed of the Monte Carlo runs.

    Returns
    -------
    NullResult

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (random baselines, §IV, Figure 1).
    H. B. Mann, D. R. Whitney, "On a test of whether one of two random variables is
    stochastically larger than the other", Annals of Mathematical Statistics 18 (1947).
    H. Chernoff, "A measure of asymptotic efficiency for tests of a hypothesis based on the sum
    of observations", Annals of Mathematical Statistics 23 (1952) (the p-value bound).

    See Also
    --------
    - [`auroc_null`][auditad.nulls.auroc_null]
    - [`null_sweep`][auditad.nulls.null_sweep]
    - [`mann_whitney_pmf`][auditad.nulls.mann_whitney_pmf]
    - [`NullResult.p_value`][auditad.nulls.NullResult.p_value]

    Examples
    --------
    >>> r = null_distribution(5, 15, observed={"auroc": 0.9}, metrics=["auroc", "f1"])
    >>> r["auroc"].method, round(r["auroc"].std, 4), round(r["auroc"].p_value, 4)
    ('exact', 0.1528, 0.0027)
    """
    n_pos, n_neg = class_counts(n_pos, n_neg, ratio=ratio, n=n)
    metrics, obs = _resolve_metrics(metrics, observed)
    check_choice(method, ("auto", "exact", "monte_carlo"), name="method")
    runs = check_int(runs, name="runs", low=1)
    prediction, q_value = _resolve_q(q, n_pos, n_neg)
    rng_free, rng_thr = spawn(check_random_state(random_state), 2)
    total = n_pos + n_neg
    tie_term = _tie_term(ties, total)
    if tie_term > 0 and method == "monte_carlo":
        raise InvalidInputError(
            "ties= is used by the normal approximation of the AUROC null only; "
            "method='monte_carlo' simulates untied scores (use method='auto')"
        )
    out: dict[str, MetricNull] = {}

    if "auroc" in metrics:
        cost = _mw.work(n_pos, n_neg, n_pos * n_neg // 2)
        exact_ok = tie_term == 0 and cost <= EXACT_AUROC_WORK
        if method == "exact" and (tie_term > 0 or cost > EXACT_AUROC_WORK_MAX or _mw.log_comb(total, n_pos) > 690):
            raise InvalidInputError(
                f"method='exact': the exact AUROC null needs untied scores and at most {EXACT_AUROC_WORK_MAX:.0e} "
                f"additions with counts below 1e300, got n_pos={n_pos}, n_neg={n_neg} ({cost:.2e} additions"
                f"{', ties' if tie_term > 0 else ''}); use method='auto' (normal approximation) or 'monte_carlo'"
            )
        if method == "exact" or (method == "auto" and exact_ok):
            out["auroc"] = _auroc_exact(n_pos, n_neg, obs.get("auroc"))
        elif method == "auto":
            out["auroc"] = _auroc_analytic(n_pos, n_neg, obs.get("auroc"), tie_term)

    free = [m for m in THRESHOLD_FREE if m in metrics and m not in out]
    if free:
        n_rankings = math.comb(total, n_pos)
        exact_ok = n_rankings <= EXACT_RANKINGS
        if method == "exact" and not exact_ok and any(m != "auroc" for m in free):
            raise InvalidInputError(
                f"method='exact': AP / AUPR nulls are exact only when C(n, n_pos) <= {EXACT_RANKINGS} rankings, "
                f"got n_pos={n_pos}, n_neg={n_neg}; use method='auto' or 'monte_carlo'"
            )
        if method != "monte_carlo" and exact_ok:
            vals = _kernels.exact_rankings(n_pos, n_neg)
            weights = np.full(n_rankings, 1.0 / n_rankings)
            for m in free:
                out[m] = _summarize(m, vals[m], weights, method="exact", runs=0, observed=obs.get(m), q=float("nan"))
        else:
            vals = _kernels.mc_rankings(n_pos, n_neg, runs, rng_free)
            weights = np.full(runs, 1.0 / runs)
            for m in free:
                out[m] = _summarize(
                    m, vals[m], weights, method="monte_carlo", runs=runs, observed=obs.get(m), q=float("nan")
                )

    thr = [m for m in THRESHOLDED if m in metrics]
    if thr:
        exact_ok = _kernels.thresholded_grid_size(n_pos, n_neg, q_value) <= EXACT_GRID
        if method == "exact" and not exact_ok:
            raise InvalidInputError(
                f"method='exact': the F1/MCC enumeration is limited to {EXACT_GRID} (TP, FP) cells, got "
                f"n_pos={n_pos}, n_neg={n_neg}, q={q_value}; use method='auto' or 'monte_carlo'"
            )
        if method != "monte_carlo" and exact_ok:
            vals, weights = _kernels.exact_thresholded(n_pos, n_neg, q_value)
            for m in thr:
                out[m] = _summarize(m, vals[m], weights, method="exact", runs=0, observed=obs.get(m), q=q_value)
        else:
            vals = _kernels.mc_thresholded(n_pos, n_neg, q_value, runs, rng_thr)
            weights = np.full(runs, 1.0 / runs)
            for m in thr:
                out[m] = _summarize(
                    m, vals[m], weights, method="monte_carlo", runs=runs, observed=obs.get(m), q=q_value
                )

    return NullResult(
        n_pos=n_pos,
        n_neg=n_neg,
        ratio=n_pos / total,
        prediction=prediction,
        q=q_value,
        nulls=tuple(out[m] for m in metrics),
        tie_term=tie_term,
    )


def _tie_term(ties, total: int) -> float:
    r"""\(\sum_g (t_g^3 - t_g)\) from the sizes of the tie groups (None: no ties)."""
    if ties is None:
        return 0.0
    arr = np.asarray(ties)
    if arr.ndim != 1 or arr.dtype.kind not in "iu" or np.any(arr < 1):
        raise InvalidInputError(f"ties must be a 1-D sequence of tie-group sizes (integers >= 1), got {describe(ties)}")
    if int(arr.sum()) > total:
        raise InvalidInputError(f"ties: the tie groups hold {int(arr.sum())} scores, more than n = {total}")
    t = arr.astype(np.float64)
    return float(np.sum(t**3 - t))


def auroc_null(y_true, scores, *, method: str = "auto", runs: int = 10_000, random_state=None) -> NullResult:
    r"""The AUROC of a score vector placed on its random-ranking null, with scipy's tie correction.

    Without ties this is [`null_distribution`][auditad.nulls.null_distribution] at the vector's class counts
    with the observed AUROC. With tied scores the Mann–Whitney statistic takes
    half-integer values and its permutation variance shrinks; the null is then
    the normal approximation with the tie-corrected variance

    \[
    \mathrm{Var}(U) = \frac{n_+ n_-}{12}\Big(n + 1 - \frac{\sum_g (t_g^3 - t_g)}{n(n-1)}\Big),\qquad
    p = 1 - \Phi\Big(\frac{U - n_+ n_-/2 - \tfrac12}{\sqrt{\mathrm{Var}(U)}}\Big),
    \]

    the convention of ``scipy.stats.mannwhitneyu(pos, neg, alternative="greater",
    method="asymptotic", use_continuity=True)`` (continuity correction ½ on the
    U scale; ``p_method`` = ``"normal_tie_corrected"``).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels (1 = anomaly; see [`auditad.metrics.auroc`][auditad.metrics.auroc] for the accepted label forms).
    scores : array-like of shape (n,)
        Anomaly scores, higher = more anomalous.
    method, runs, random_state
        As in [`null_distribution`][auditad.nulls.null_distribution] (ties are only supported by ``"auto"``).

    Returns
    -------
    NullResult
        With ``observed`` set to the AUROC; ``tie_term`` records \(\sum_g (t_g^3 - t_g)\).

    References
    ----------
    H. B. Mann, D. R. Whitney, "On a test of whether one of two random variables is
    stochastically larger than the other", Annals of Mathematical Statistics 18 (1947).
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (random baselines, §IV).

    See Also
    --------
    - [`null_distribution`][auditad.nulls.null_distribution]
    - [`auroc_null_moments`][auditad.nulls.auroc_null_moments]
    - [`auditad.metrics.auroc_ci`][auditad.metrics.auroc_ci]

    Examples
    --------
    >>> r = auroc_null([1, 1, 1, 0], [1, 2, 3, 2])  # x = [1, 2, 3] vs y = [2]: one tie
    >>> r["auroc"].observed, round(r["auroc"].p_value, 4), r["auroc"].p_method
    (0.5, 0.6813, 'normal_tie_corrected')
    """
    from ..metrics import auroc, binary_targets

    y, _ = binary_targets(y_true, name="y_true", default="greater")
    s = np.asarray(scores, dtype=np.float64)
    value = auroc(y, s)
    _, counts = np.unique(s, return_counts=True)
    counts = counts[counts > 1]
    n_pos = int(y.sum())
    return null_distribution(
        n_pos,
        int(y.size - n_pos),
        metrics=("auroc",),
        method=method,
        runs=runs,
        observed={"auroc": value},
        ties=counts if counts.size else None,
        random_state=random_state,
    )


def null_sweep(
    ratios=PAPER_SWEEP_RATIOS,
    *,
    n: int = 100,
    metrics=METRIC_NAMES,
    q="coin",
    method: str = "auto",
    runs: int = 10_000,
    random_state=None,
) -> NullSweepResult:
    r"""Nulls of every metric over a range of anomaly ratios at a fixed test-set size (Hermary et al. Figure 1).

    For each ratio π, [`null_distribution`][auditad.nulls.null_distribution] at ``n_pos = round(π n)``; the
    sweep shows how the random baseline of AP/AUPR and F1 moves with π while
    AUROC and MCC stay centred on ½ (scaled MCC), and how large a favourable
    random run can be (mean positive deviation).

    The paper "An Insight on Evaluation Metrics Under the Imbalanced Case of Anomaly Detection" (Hermary et al.) does
    not state its n; its AUROC mean positive deviation of about
    0.25 at the extreme ratios is what n = 100 gives (at 99:1 AUROC is uniform
    on {0, 1/99, …, 1}), hence the default. Its 100 runs per ratio are
    reproduced with ``method="monte_carlo", runs=100``.

    Parameters
    ----------
    ratios : sequence of float, default PAPER_SWEEP_RATIOS
        Anomaly ratios in (0, 1) (99:1 … 1:99 positive:negative).
    n : int, default 100
        Test-set size.
    metrics, q, method, runs, random_state
        As in [`null_distribution`][auditad.nulls.null_distribution]; each ratio gets its own child random generator.

    Returns
    -------
    NullSweepResult

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§IV, Figure 1).

    See Also
    --------
    - [`null_distribution`][auditad.nulls.null_distribution]

    Examples
    --------
    >>> s = null_sweep([0.99, 0.5], n=200, metrics=["f1"])
    >>> [round(r["f1"].mean, 3) for r in s.results]
    [0.664, 0.499]
    """
    from .._validation import check_probability_array

    arr = check_probability_array(ratios, name="ratios", open_interval=True)
    if arr.ndim != 1:
        raise InvalidInputError(f"ratios must be a 1-D sequence, got shape {arr.shape}")
    n = check_int(n, name="n", low=2)
    children = spawn(check_random_state(random_state), arr.size)
    results = tuple(
        null_distribution(ratio=float(r), n=n, metrics=metrics, q=q, method=method, runs=runs, random_state=g)
        for r, g in zip(arr, children)
    )
    return NullSweepResult(ratios=arr, n=n, prediction=results[0].prediction if results else str(q), results=results)
