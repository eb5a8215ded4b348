r"""The per-class decision of a class-split audit: one estimate, one interval, one test, one status per class.

Every place that shows whether a detector's AUROC(c) differs from ½ (the protocol tables, the nulls section, the
findings, the per-class CSV and ``summary.json``, the gate ``rho_inv_sig``) reads the record built here,
[`decide_classes`][auditad.protocol.decision.decide_classes], so that no two of them can disagree.

**Variance sources.** A per-class AUROC varies with the test samples drawn (the interval of one draw,
[`auroc_ci`][auditad.metrics.auroc_ci], covers only this), with the detector's random seed and with the split
of the normals into training and test rows. With one draw only the first is measured. With several draws
(``repeats``, or the confirmatory repeats of a candidate claim) the draws are combined by Rubin's rules: with
\(\hat A_s\) the AUROC of draw s (s = 1..S), \(W_s\) the within-draw variance (from the half-width of its interval,
\(W_s = ((\mathrm{hi}_s - \mathrm{lo}_s) / 2z)^2\)),

\[
\bar A = \frac1S\sum_s \hat A_s,\quad \bar W = \frac1S\sum_s W_s,\quad
B = \frac{1}{S-1}\sum_s (\hat A_s - \bar A)^2,\quad T = \bar W + \Big(1 + \frac1S\Big) B,
\]

and \((\bar A - \tfrac12)/\sqrt T\) is referred to a t distribution with Rubin's
\(\nu = (S-1)\big(1 + \bar W / ((1 + 1/S) B)\big)^2\) degrees of freedom (the normal when \(B = 0\)): the
interval is \(\bar A \pm t_\nu \sqrt T\) and the two-sided p-value that of this t statistic. \(\bar W\) is not
divided by S: draws that share their test rows (a fixed split) share that noise. The source that dominates
(\(\bar W\) against \((1 + 1/S)B\)) says what would settle an undecided class: more test samples, or more
seeds and splits. A one-draw class of a detector whose other classes were re-run gets the mean between-draw
variance of those classes added to its within-draw variance (``p_method`` ``"pooled"``: Satterthwaite degrees of
freedom, never a p below its draw's own), so that one draw does not make a claim the seeds would not support.

**Status** (one of `STATUSES`: the readings of [`SIGNIFICANCE`][auditad.findings.SIGNIFICANCE] a measured
class can have, and *seed-sensitive*), with α = 1 − confidence level and Holm's
correction over the evaluated classes of one (representation, detector):

* *seed-sensitive*: at least two draws, some below ½ and some above, and at least one of them significant on its
  own (p ≤ α): one draw would have made a claim the others contradict;
* *significantly inverted*: \(\bar A < ½\) and Holm p ≤ α;
* *near random*: \(|\bar A - ½| \le ε\); *below 1/2 within noise*; *above 1/2*; *not evaluated*.

``distinguishable`` (from a random detector) is Holm p ≤ α (two-sided) and not seed-sensitive.

References
----------
1. D. B. Rubin, "Multiple Imputation for Nonresponse in Surveys", Wiley (1987), §3.1 (the combining rules).
2. S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian Journal of Statistics 6(2),
   65–70 (1979).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from ..findings import (
    ABOVE_HALF,
    BELOW_WITHIN_NOISE,
    NEAR_RANDOM,
    NOT_EVALUATED,
    SEED_SENSITIVE,
    SIGNIFICANTLY_INVERTED,
)

__all__ = [
    "STATUSES",
    "SEED_SENSITIVE",
    "SOURCES_ONE_DRAW",
    "SOURCES_DRAWS",
    "SOURCES_POOLED",
    "decide_classes",
    "combine_draws",
    "Confirmation",
    "confirmation_candidates",
    "pooled_candidates",
    "CONFIRM_SHARE",
    "CONFIRM_FLOOR",
    "confirm_budget",
]

#: The statuses of a class: the readings of [`SIGNIFICANCE`][auditad.findings.SIGNIFICANCE] a measured class can
#: have (in that order), then `SEED_SENSITIVE`.
STATUSES = (SIGNIFICANTLY_INVERTED, BELOW_WITHIN_NOISE, NEAR_RANDOM, ABOVE_HALF, NOT_EVALUATED, SEED_SENSITIVE)
#: The confirmatory draws of one (representation, detector) cost at most about this share of the detector's own
#: tasks (see [`confirm_budget`][auditad.protocol.decision.confirm_budget]) ...
CONFIRM_SHARE = 0.1
#: ... or re-run at least this many triples (a benchmark of few classes re-runs every claim).
CONFIRM_FLOOR = 10
#: What the interval of one draw covers.
SOURCES_ONE_DRAW = "test samples (one draw of the split and the detector seed)"
#: What the combined interval of several draws covers.
SOURCES_DRAWS = "test samples, detector seeds and splits"
#: What the interval of a one-draw class covers when other classes of its detector were re-run.
SOURCES_POOLED = "test samples of one draw; detector seeds and splits pooled from the re-run classes"


def combine_draws(auroc, ci_low, ci_high, *, confidence_level: float = 0.95) -> dict:
    r"""Rubin's combination of S draws of each class's AUROC (arrays of shape (K, S); nan = no draw).

    Returns a dict of arrays of shape (K,): ``estimate``, ``ci_low``, ``ci_high``, ``log10_p_value``,
    ``within_var`` (\(\bar W\)), ``between_var`` (\((1 + 1/S)B\)), ``n_draws``. Classes with fewer than two
    finite draws get nan (the caller keeps their single-draw numbers).

    See Also
    --------
    - [`decide_classes`][auditad.protocol.decision.decide_classes]: the decision built on it.

    References
    ----------
    D. B. Rubin, "Multiple Imputation for Nonresponse in Surveys", Wiley (1987), §3.1.

    Examples
    --------
    >>> c = combine_draws(np.array([[0.40, 0.45, 0.42]]), np.array([[0.35, 0.40, 0.37]]),
    ...                   np.array([[0.45, 0.50, 0.47]]))
    >>> round(float(c["estimate"][0]), 4), int(c["n_draws"][0])
    (0.4233, 3)
    """
    from scipy.stats import norm, t

    a = np.asarray(auroc, dtype=np.float64)
    K = a.shape[0]
    z = float(norm.ppf(0.5 + confidence_level / 2.0))
    out = {k: np.full(K, np.nan) for k in ("estimate", "ci_low", "ci_high", "log10_p_value", "within_var")}
    out["between_var"] = np.full(K, np.nan)
    ok = np.isfinite(a)
    out["n_draws"] = ok.sum(axis=1)
    for c in np.flatnonzero(out["n_draws"] >= 2):
        draws = a[c, ok[c]]
        S = draws.size
        w = ((np.asarray(ci_high)[c, ok[c]] - np.asarray(ci_low)[c, ok[c]]) / (2.0 * z)) ** 2
        mean, W = float(draws.mean()), float(np.nanmean(w))
        B = (1.0 + 1.0 / S) * float(draws.var(ddof=1))
        T = W + B
        df = math.inf if B <= 0.0 else (S - 1) * (1.0 + W / B) ** 2
        se = math.sqrt(T) if T > 0 else 0.0
        q = float(norm.ppf(0.5 + confidence_level / 2.0) if math.isinf(df) else t.ppf(0.5 + confidence_level / 2.0, df))
        stat = abs(mean - 0.5) / se if se > 0 else (math.inf if mean != 0.5 else 0.0)
        logsf = float(norm.logsf(stat) if math.isinf(df) else t.logsf(stat, df))
        out["estimate"][c] = mean
        out["ci_low"][c] = max(mean - q * se, 0.0)
        out["ci_high"][c] = min(mean + q * se, 1.0)
        out["log10_p_value"][c] = min((logsf + math.log(2.0)) / math.log(10.0), 0.0)
        out["within_var"][c], out["between_var"][c] = W, B
    return out


def decide_classes(auroc, ci_low, ci_high, p_value, log10_p_value, *, confidence_level: float, epsilon: float) -> dict:
    """The decision of every class of one (representation, detector) from its draws (arrays of shape (K, S)).

    Returns a dict of arrays over the classes: ``estimate``, ``ci_low``, ``ci_high``, ``p_value``,
    ``log10_p_value``, ``p_method`` (``"mann_whitney"`` for one draw, ``"rubin"`` for combined draws), ``p_holm``,
    ``log10_p_holm_bound``, ``category`` (the status), ``distinguishable``, ``n_draws``, ``draw_min``,
    ``draw_max``, ``within_var``, ``between_var``, ``dominant`` (``"test samples"`` or ``"seeds and splits"``),
    ``sources`` (what the interval covers), and the scalar ``alpha``.

    See Also
    --------
    - [`combine_draws`][auditad.protocol.decision.combine_draws]: the combination of several draws.
    - [`ProtocolResult.significance`][auditad.protocol.ProtocolResult.significance]: the caller.

    References
    ----------
    1. D. B. Rubin, "Multiple Imputation for Nonresponse in Surveys", Wiley (1987), §3.1.
    2. S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian Journal of
       Statistics 6(2), 65–70 (1979).

    Examples
    --------
    >>> a = np.array([[0.42, 0.70, 0.81], [0.10, 0.12, 0.11]])
    >>> d = decide_classes(a, a - 0.04, a + 0.04, np.array([[1e-4, 1e-6, 1e-9], [1e-9] * 3]), None,
    ...                    confidence_level=0.95, epsilon=0.05)
    >>> list(d["category"])
    ['seed-sensitive', 'significantly inverted']
    """
    from scipy.stats import norm

    from .rates import holm_adjust

    a = np.asarray(auroc, dtype=np.float64)
    lo, hi, p = (np.asarray(v, dtype=np.float64) for v in (ci_low, ci_high, p_value))
    with np.errstate(divide="ignore"):
        lp = np.log10(p) if log10_p_value is None else np.asarray(log10_p_value, dtype=np.float64)
    alpha = 1.0 - confidence_level
    K = a.shape[0]
    comb = combine_draws(a, lo, hi, confidence_level=confidence_level)
    n = comb["n_draws"]
    multi = n >= 2
    first = np.argmax(np.isfinite(a), axis=1)  # the single finite draw of a one-draw class
    pick = lambda m: m[np.arange(K), first]  # noqa: E731
    z = float(norm.ppf(0.5 + confidence_level / 2.0))
    single_w = ((pick(hi) - pick(lo)) / (2.0 * z)) ** 2
    est = np.where(multi, comb["estimate"], np.where(n == 1, pick(a), np.nan))
    d = {
        "estimate": est,
        "ci_low": np.where(multi, comb["ci_low"], np.where(n == 1, pick(lo), np.nan)),
        "ci_high": np.where(multi, comb["ci_high"], np.where(n == 1, pick(hi), np.nan)),
        "log10_p_value": np.where(multi, comb["log10_p_value"], np.where(n == 1, pick(lp), np.nan)),
        "within_var": np.where(multi, comb["within_var"], np.where(n == 1, single_w, np.nan)),
        "between_var": comb["between_var"],
        "n_draws": n,
        "p_method": np.where(multi, "rubin", np.where(n == 1, "mann_whitney", "")).astype(object),
    }
    d["p_value"] = np.where(
        multi, np.maximum(10.0 ** d["log10_p_value"], float(np.finfo(float).tiny)), np.where(n == 1, pick(p), np.nan)
    )
    pooled = _pool_between(a, multi, n == 1, single_w, est, pick(p), pick(lp), d, confidence_level)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # classes without any draw
        d["draw_min"], d["draw_max"] = np.nanmin(a, axis=1), np.nanmax(a, axis=1)
        some_sig = np.nanmin(np.where(np.isfinite(a), p, np.nan), axis=1) <= alpha
    d["p_holm"] = holm_adjust(d["p_value"])
    n_tested = max(int(np.isfinite(d["p_value"]).sum()), 1)
    d["log10_p_holm_bound"] = np.where(
        np.isfinite(d["log10_p_value"]), np.minimum(0.0, d["log10_p_value"] + math.log10(n_tested)), np.nan
    )
    straddle = multi & (d["draw_min"] < 0.5) & (d["draw_max"] > 0.5) & some_sig
    sig = np.isfinite(d["p_holm"]) & (d["p_holm"] <= alpha)
    cat = np.full(K, ABOVE_HALF, dtype=object)
    cat[est < 0.5] = BELOW_WITHIN_NOISE
    cat[np.abs(est - 0.5) <= epsilon] = NEAR_RANDOM
    cat[(est < 0.5) & sig] = SIGNIFICANTLY_INVERTED
    cat[straddle] = SEED_SENSITIVE
    cat[~np.isfinite(est)] = NOT_EVALUATED
    d["category"] = cat
    d["distinguishable"] = sig & ~straddle & np.isfinite(est)
    d["dominant"] = np.where(
        (multi | pooled) & (d["between_var"] > d["within_var"]),
        "seeds and splits",
        np.where(n >= 1, "test samples", ""),
    ).astype(object)
    d["sources"] = np.where(
        multi, SOURCES_DRAWS, np.where(pooled, SOURCES_POOLED, np.where(n == 1, SOURCES_ONE_DRAW, ""))
    ).astype(object)
    d["alpha"] = alpha
    return d


def pooled_candidates(result, eligible, *, done=None, repeats: int = 5) -> np.ndarray:
    """Boolean ``(R, D, K)``: the one-draw classes to re-run once the between-draw variance is known.

    After the first confirmatory draws, a class that was not re-run has its one-draw interval widened by the
    between-draw variance of the re-run classes of the same detector (``p_method`` ``"pooled"``, see
    [`decide_classes`][auditad.protocol.decision.decide_classes]). Where the widened interval of a class told apart
    from a random detector reaches the near-random band (low end ≤ ½ + ε), its claim straddles a threshold once
    seeds and splits are accounted for: it is re-run too, the nearest the threshold first (largest pooled p),
    within what [`confirm_budget`][auditad.protocol.decision.confirm_budget] leaves after the triples ``done``
    (boolean ``(R, D, K)``, default none). A class that one draw reads at 0.67 [0.64, 0.71] but other seeds at
    0.44–0.51 is caught this way. Only the ``eligible`` detectors (those whose AUROC(c) varies from draw to draw)
    are considered.

    See Also
    --------
    - [`confirmation_candidates`][auditad.protocol.decision.confirmation_candidates]: the first candidates.

    Examples
    --------
    >>> from auditad.protocol import audit_protocol
    >>> X = np.random.default_rng(0).normal(size=(120, 3)); y = np.repeat([0, 1, 2], 40)
    >>> res = audit_protocol(X, y, detectors=["knn"], leakage_k=0, random_state=0)
    >>> pooled_candidates(res, [True]).any()  # no class was re-run: nothing is pooled
    np.False_
    """
    out = np.zeros(_shape(result), dtype=bool)
    done = out.copy() if done is None else np.asarray(done, dtype=bool)
    for r, d, dec in _eligible_decisions(result, eligible):
        with np.errstate(invalid="ignore"):
            near = np.flatnonzero(
                (dec["p_method"] == "pooled")
                & dec["distinguishable"]
                & (dec["estimate"] > 0.5)
                & (dec["ci_low"] <= 0.5 + result.epsilon)
                & ~done[r, d]
            )
        left = confirm_budget(int(np.isfinite(dec["estimate"]).sum()), repeats) - int(done[r, d].sum())
        lp = np.asarray(dec["log10_p_value"], dtype=np.float64)[near]
        out[r, d, near[np.argsort(-lp, kind="stable")][: max(left, 0)]] = True
    return out


def _pool_between(a, multi, single, single_w, est, p1, lp1, d: dict, confidence_level: float) -> np.ndarray:
    r"""Widen the one-draw classes by the between-draw variance of the re-run classes of the same detector.

    When some classes have several draws (the confirmatory draws of the candidates) and others one, the one-draw
    interval covers the test samples only, yet the re-run classes measured how much a new seed and split move
    this detector's AUROC(c). With \(\hat B\) the mean of their draws' sample variances (\(\nu_B = \sum_c
    (S_c - 1)\) degrees of freedom), a one-draw class gets \(T = W + \hat B\), the interval
    \(\hat A \pm t_\nu \sqrt T\) and the two-sided p of \((\hat A - \tfrac12)/\sqrt T\) with Satterthwaite's
    \(\nu = T^2 / (\hat B^2 / \nu_B)\), and never a p smaller than its draw's Mann–Whitney p. ``d`` is updated in
    place (``p_method`` ``"pooled"``); returns the mask of the widened classes.
    """
    from scipy.stats import t

    widened = single & np.isfinite(est) & multi.any()
    if not widened.any():
        return widened
    S = np.isfinite(a[multi]).sum(axis=1)
    var = np.nanvar(a[multi], axis=1, ddof=1)
    B, df_b = float(np.mean(var)), float(np.sum(S - 1))
    if not B > 0.0:
        return np.zeros_like(widened)
    T = single_w[widened] + B
    df = T**2 / (B**2 / df_b)
    q = t.ppf(0.5 + confidence_level / 2.0, df)
    e = est[widened]
    with np.errstate(divide="ignore"):
        logsf = t.logsf(np.abs(e - 0.5) / np.sqrt(T), df)
    lp = np.minimum((logsf + math.log(2.0)) / math.log(10.0), 0.0)
    lp = np.maximum(lp, np.asarray(lp1, dtype=np.float64)[widened])  # never below the draw's own p
    d["ci_low"][widened] = np.maximum(e - q * np.sqrt(T), 0.0)
    d["ci_high"][widened] = np.minimum(e + q * np.sqrt(T), 1.0)
    d["log10_p_value"][widened] = lp
    d["p_value"][widened] = np.maximum(10.0**lp, np.asarray(p1, dtype=np.float64)[widened])
    d["between_var"][widened] = B
    d["p_method"][widened] = "pooled"
    return widened


@dataclass(frozen=True, eq=False)
class Confirmation:
    """The confirmatory draws of the candidate claims of a one-draw class-split audit.

    Arrays of shape ``(R, D, K, n_repeats)`` like those of [`ProtocolResult`][auditad.protocol.ProtocolResult]
    (representation, detector, class, confirmatory draw): nan outside the candidates. Each draw has a new split of
    the normals and new detector seeds; [`decide_classes`][auditad.protocol.decision.decide_classes] combines them
    with the audit's own draw.

    Attributes
    ----------
    auroc, ci_low, ci_high, p_value, log10_p_value : ndarray of shape (R, D, K, n_repeats)
    n_repeats : int
        Confirmatory draws per candidate.
    n_candidates : int
        (representation, detector, class) triples that were re-run.

    See Also
    --------
    - [`confirmation_candidates`][auditad.protocol.decision.confirmation_candidates]: which triples are re-run.
    """

    auroc: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    p_value: np.ndarray
    log10_p_value: np.ndarray
    n_repeats: int
    n_candidates: int

    def take(self, idx) -> "Confirmation":
        """The draws of the classes ``idx`` (in that order)."""
        cut = {k: getattr(self, k)[:, :, idx] for k in ("auroc", "ci_low", "ci_high", "p_value", "log10_p_value")}
        n = int(np.isfinite(cut["auroc"]).any(axis=3).sum())
        return Confirmation(**cut, n_repeats=self.n_repeats, n_candidates=n)

    def to_dict(self) -> dict:
        """``{"repeats", "candidates"}`` (the draws themselves are in the per-class rows' combination)."""
        return {"repeats": int(self.n_repeats), "candidates": int(self.n_candidates)}


def confirm_budget(n_evaluated: int, repeats: int) -> int:
    """Triples of one (representation, detector) re-run at most: ``max(CONFIRM_FLOOR, ceil(CONFIRM_SHARE ·
    n_evaluated / repeats))``, so that their draws cost at most about `CONFIRM_SHARE` of the detector's own tasks
    (or `CONFIRM_FLOOR` triples on a benchmark of few classes).

    Examples
    --------
    >>> confirm_budget(15, 5), confirm_budget(1000, 5)
    (10, 20)
    """
    return max(CONFIRM_FLOOR, math.ceil(CONFIRM_SHARE * int(n_evaluated) / max(int(repeats), 1)))


def confirmation_candidates(result, eligible, *, repeats: int = 5) -> np.ndarray:
    """Boolean ``(R, D, K)``: the (representation, detector, class) triples whose one-draw decision is a candidate
    claim, for the detectors marked ``eligible`` (a sequence of D booleans: those whose AUROC(c) varies from draw
    to draw), when each candidate is re-run on ``repeats`` draws.

    At most [`confirm_budget`][auditad.protocol.decision.confirm_budget] triples per (representation, detector)
    are re-run, in this order:

    * **the claims** a one-draw decision makes near a threshold, the nearest first (largest p): *significantly
      inverted* (counted by the gate ``rho_inv_sig`` and named by the findings), and *distinguishable* from a
      random detector while its interval reaches the near-random band (low end ≤ ½ + ε). A class whose whole
      interval lies above ½ + ε is not a candidate: its claim is not near any threshold of the decision.
    * then, with what the budget leaves, **undecided classes on the inverted side** (*below 1/2 within noise*: the
      estimate below ½ − ε, not significant), the most nearly significant first (smallest p). They make no claim;
      re-running them lets a real inversion that one draw left undecided be found.

    A claim left out by the budget is not taken on one draw: once some classes of its detector have several
    draws, its interval is widened by their between-draw variance (``p_method`` ``"pooled"``, see
    [`decide_classes`][auditad.protocol.decision.decide_classes]), so a claim stands only where it survives
    the seeds and splits measured on the classes nearest the threshold. The cost of the confirmatory draws is
    thus bounded by the budget, not by the number of claims or classes: a benchmark with a thousand claims
    pays a tenth of its protocol stage, not five times it.

    See Also
    --------
    - [`Confirmation`][auditad.protocol.decision.Confirmation]: the draws of these triples.
    - [`pooled_candidates`][auditad.protocol.decision.pooled_candidates]: the later rounds, within the same budget.

    Examples
    --------
    >>> from auditad.protocol import audit_protocol
    >>> X = np.random.default_rng(0).normal(size=(120, 3)); y = np.repeat([0, 1, 2], 40)
    >>> res = audit_protocol(X, y, detectors=["knn"], leakage_k=0, random_state=0)
    >>> confirmation_candidates(res, [True]).shape
    (1, 1, 3)
    """
    out = np.zeros(_shape(result), dtype=bool)
    for r, d, dec in _eligible_decisions(result, eligible):
        cat, est = dec["category"], dec["estimate"]
        lp = np.asarray(dec["log10_p_value"], dtype=np.float64)
        with np.errstate(invalid="ignore"):
            near_band = dec["distinguishable"] & (est > 0.5) & (dec["ci_low"] <= 0.5 + result.epsilon)
        claims = np.flatnonzero((cat == SIGNIFICANTLY_INVERTED) | near_band)
        weak = np.flatnonzero(cat == BELOW_WITHIN_NOISE)
        budget = confirm_budget(int(np.isfinite(est).sum()), repeats)
        picked = claims[np.argsort(-lp[claims], kind="stable")][:budget]  # the nearest the threshold first
        left = budget - picked.size
        out[r, d, picked] = True
        out[r, d, weak[np.argsort(lp[weak], kind="stable")][:left]] = True
    return out


def _shape(result) -> tuple:
    """``(R, D, K)`` of a protocol result."""
    return len(result.representation_names), len(result.detector_names), result.classes.size


def _eligible_decisions(result, eligible):
    """``(r, d, decision)`` for every representation and every ``eligible`` detector of ``result``."""
    R, D, _ = _shape(result)
    for r, d in ((r, d) for r in range(R) for d in range(D) if eligible[d]):
        yield r, d, result.significance(result.representation_names[r], result.detector_names[d])
