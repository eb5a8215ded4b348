"""The null distribution of each metric at given class counts: [`null_distribution`][auditad.nulls.null_distribution],
[`auroc_null`][auditad.nulls.auroc_null] (from labels and scores) and the input resolution they share."""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np

from .._rng import check_random_state, spawn
from .._validation import check_choice, check_float, check_int, describe
from ..errors import InvalidInputError
from ..metrics import METRIC_NAMES, check_metric_names
from ..metrics import _mann_whitney as _mw
from . import _kernels
from ._results import (
    EXACT_AUROC_WORK,
    EXACT_AUROC_WORK_MAX,
    EXACT_GRID,
    EXACT_RANKINGS,
    MetricNull,
    NullResult,
)
from .closed_form import exact_auroc_null, normal_auroc_null
from ._summary import summarize_distribution


THRESHOLD_FREE = ("auroc", "ap", "aupr_trap")
THRESHOLDED = ("f1", "mcc", "mcc_scaled")


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
            out["auroc"] = exact_auroc_null(n_pos, n_neg, obs.get("auroc"))
        elif method == "auto":
            out["auroc"] = normal_auroc_null(n_pos, n_neg, obs.get("auroc"), tie_term)

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
                out[m] = summarize_distribution(
                    m, vals[m], weights, method="exact", runs=0, observed=obs.get(m), q=float("nan")
                )
        else:
            vals = _kernels.mc_rankings(n_pos, n_neg, runs, rng_free)
            weights = np.full(runs, 1.0 / runs)
            for m in free:
                out[m] = summarize_distribution(
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
                out[m] = summarize_distribution(
                    m, vals[m], weights, method="exact", runs=0, observed=obs.get(m), q=q_value
                )
        else:
            vals = _kernels.mc_thresholded(n_pos, n_neg, q_value, runs, rng_thr)
            weights = np.full(runs, 1.0 / runs)
            for m in thr:
                out[m] = summarize_distribution(
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
