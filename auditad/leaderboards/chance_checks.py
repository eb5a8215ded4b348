r"""The chance-level checks of a leaderboard audit: every claim about chance is a test decision.

[`cell_tests`][auditad.leaderboards.cell_tests] tests every (method, dataset) AUROC cell
against random scoring, on the strongest evidence the table gives:

``counts`` (the class counts n₊, n₋ of the scores' test set are known)
    Each seed's AUROC is compared with the Mann–Whitney null
    \(\sigma_0 = \sqrt{(n_+ + n_- + 1)/(12\,n_+ n_-)}\) and the S seeds are combined
    by Stouffer's method (the S runs score independent splits):
    \(z = \sum_s z_s / \sqrt S = (\bar A - \tfrac12)\sqrt S / \sigma_0\).
``seeds`` (no counts, S ≥ 2 seeds with a spread)
    One-sample t-test of the seed values against ½, S − 1 degrees of freedom.  Weaker: it
    measures run-to-run noise, not the noise of random scoring at the test counts.
``std`` (no counts, one value with a reported std)
    \(z = (A - \tfrac12) / \mathrm{std}\), the std taken as that of one run (the number of runs
    behind a reported mean ± std is not known).  Weaker, as ``seeds``.
``none``
    A single value without counts, seeds or std: untested.

One-sided p-values \(p_<\) (below ½), \(p_>\) (above ½) and the two-sided
\(p = 2\min(p_<, p_>)\) are adjusted over *all tested cells of the metric*
(Holm 1979, default; Benjamini–Hochberg 1995 with ``correction="bh"``).  Then

* **inverted**: adjusted \(p_< \le \alpha\);
* **below ½, untested** (a category of its own, never counted as inverted): a single
  value below ½ that no test can judge;
* **near chance**: the cell's two-sided p > α, unadjusted (the cell cannot be told from
  random scoring even before the correction, which would only add cells);
* **label direction**: on a dataset, more than ``majority`` of the methods are inverted
  *and* a one-sided sign test of the inverted cells against the cells significantly above ½
  rejects at α (\(P(\mathrm{Bin}(B + A, \tfrac12) \ge B)\)).

`below_chance_level_check` compares AP, AUPR and precision@n with their chance level at the
known prevalence.
"""

from __future__ import annotations

import numpy as np

from ..metrics.multiple_testing import bh_adjust  # one implementation; re-exported here
from .finding_records import CHECKS, CORRECTIONS, FindingItem, fmt_value, make_finding, plural

__all__ = [
    "CELL_CORRECTIONS",
    "EXTRA_CHECKS",
    "cell_tests",
    "inverted_check",
    "untested_check",
    "label_direction_check",
    "near_chance_check",
    "below_chance_level_check",
]

#: Multiplicity corrections over the cells of a table: Holm (family-wise error), Benjamini–Hochberg
#: (false discovery rate) or none.
CELL_CORRECTIONS = CORRECTIONS
#: Checks of this module (declared with the others in `finding_records.CHECKS`).
EXTRA_CHECKS = {"below_half_untested": CHECKS["below_half_untested"]}
_BASIS_TEXT = {
    "counts": "at the test counts",
    "seeds": "seed-level t-test (weaker: counts unknown)",
    "std": "against the reported std (weaker: counts unknown)",
}
_CORRECTION_NAME = {"holm": "Holm", "bh": "Benjamini–Hochberg", "none": "uncorrected"}


def _adjust(p: np.ndarray, tested: np.ndarray, correction: str) -> np.ndarray:
    from ..metrics.multiple_testing import holm_adjust

    out = np.full(p.size, np.nan)
    if not tested.any():
        return out
    if correction == "holm":
        out[tested] = holm_adjust(p[tested])
    elif correction == "bh":
        out[tested] = bh_adjust(p[tested])
    else:
        out[tested] = p[tested]
    return out


def cell_tests(pairs, *, correction: str = "holm"):
    r"""The test of every (method, dataset) AUROC cell against random scoring (see the module documentation).

    Parameters
    ----------
    pairs : pandas.DataFrame
        The per-(dataset, method) view of `auditad.leaderboards.findings.run_checks` (mean, n_seeds,
        sd_seeds, std, null_sd).
    correction : {"holm", "bh", "none"}, default "holm"
        Adjustment over all tested cells.

    Returns
    -------
    pandas.DataFrame
        Aligned with ``pairs``: ``basis`` (``"counts"``, ``"seeds"``, ``"std"`` or ``"none"``),
        ``statistic`` (z or t), ``p_less``, ``p_greater``, ``p_two`` and their adjusted
        ``p_less_adj``, ``p_greater_adj``, ``p_two_adj`` (NaN when untested).

    References
    ----------
    H. B. Mann, D. R. Whitney, "On a test of whether one of two random variables is stochastically
    larger than the other", Annals of Mathematical Statistics 18, 50–60, 1947.
    S. A. Stouffer et al., "The American Soldier, Vol. 1: Adjustment during Army Life", Princeton
    University Press, 1949 (combining z-scores).
    S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian Journal of
    Statistics 6(2), 65–70, 1979.

    See Also
    --------
    - [`auditad.leaderboards.audit_leaderboard`][auditad.leaderboards.audit_leaderboard]: reports the decisions.
    """
    import pandas as pd
    from scipy.stats import norm, t as t_dist

    n = len(pairs)
    mean = pairs["mean"].to_numpy(dtype=np.float64)
    seeds = pairs["n_seeds"].to_numpy(dtype=np.float64)
    null_sd = pairs["null_sd"].to_numpy(dtype=np.float64)
    sd = pairs["sd_seeds"].to_numpy(dtype=np.float64)
    std = pairs["std"].to_numpy(dtype=np.float64)
    basis = np.full(n, "none", dtype=object)
    stat = np.full(n, np.nan)
    p_less = np.full(n, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        by_counts = np.isfinite(null_sd) & (null_sd > 0)
        by_seeds = ~by_counts & (seeds >= 2) & np.isfinite(sd) & (sd > 0)
        by_std = ~by_counts & ~by_seeds & (seeds == 1) & np.isfinite(std) & (std > 0)
        stat[by_counts] = (mean[by_counts] - 0.5) * np.sqrt(seeds[by_counts]) / null_sd[by_counts]
        stat[by_seeds] = (mean[by_seeds] - 0.5) * np.sqrt(seeds[by_seeds]) / sd[by_seeds]
        stat[by_std] = (mean[by_std] - 0.5) / std[by_std]
    normal = by_counts | by_std
    p_less[normal] = norm.cdf(stat[normal])
    p_less[by_seeds] = t_dist.cdf(stat[by_seeds], seeds[by_seeds] - 1)
    p_greater = 1.0 - p_less
    p_greater[normal] = norm.sf(stat[normal])
    p_greater[by_seeds] = t_dist.sf(stat[by_seeds], seeds[by_seeds] - 1)
    p_two = np.minimum(1.0, 2.0 * np.minimum(p_less, p_greater))
    basis[by_counts], basis[by_seeds], basis[by_std] = "counts", "seeds", "std"
    tested = by_counts | by_seeds | by_std
    return pd.DataFrame(
        {
            "basis": basis,
            "statistic": stat,
            "p_less": p_less,
            "p_greater": p_greater,
            "p_two": p_two,
            "p_less_adj": _adjust(p_less, tested, correction),
            "p_greater_adj": _adjust(p_greater, tested, correction),
            "p_two_adj": _adjust(p_two, tested, correction),
        },
        index=pairs.index,
    )


def _evidence(p, t, which: str, correction: str) -> str:
    """``AUROC 0.034 (3 seeds) at n₊ = 4, n₋ = 95: z = -8.1, p< = 1e-16, Holm 3e-14``."""
    seeds = f" ({int(p.n_seeds)} seeds)" if p.n_seeds > 1 else ""
    where = f"at n₊ = {int(p.n_pos)}, n₋ = {int(p.n_neg)}" if t.basis == "counts" else _BASIS_TEXT[t.basis]
    letter = "t" if t.basis == "seeds" else "z"
    raw, adj = getattr(t, which), getattr(t, which + "_adj")
    sign = {"p_less": "p<", "p_greater": "p>", "p_two": "p"}[which]
    tail = f", {_CORRECTION_NAME[correction]} {adj:.2g}" if correction != "none" else ""
    return f"AUROC {fmt_value(p.mean)}{seeds} {where}: {letter} = {t.statistic:.2f}, {sign} = {raw:.2g}{tail}"


def _family(tests, correction: str) -> str:
    n_tested = int((tests["basis"] != "none").sum())
    weak = int(tests["basis"].isin(["seeds", "std"]).sum())
    how = _CORRECTION_NAME[correction] + (f" over {n_tested} tested cells" if correction != "none" else "")
    return how + (f"; {weak} of them without counts, on the weaker seed-level test" if weak else "")


def inverted_check(pairs, tests, metric, *, alpha, correction):
    """The ``inverted`` check: cells whose adjusted one-sided p (AUROC below ½) is at most ``alpha``.

    See Also
    --------
    - [`cell_tests`][auditad.leaderboards.cell_tests]: the tests.
    - [`auditad.leaderboards.audit_leaderboard`][auditad.leaderboards.audit_leaderboard]: reports it.
    """
    if not len(pairs):
        return make_finding("inverted", metric, [], message="no usable value")
    hit = (tests["p_less_adj"].to_numpy() <= alpha) & (pairs["mean"].to_numpy() < 0.5)
    items = [
        FindingItem(method=p.method, dataset=p.dataset, value=p.mean, detail=_evidence(p, t, "p_less", correction))
        for p, t in zip(pairs[hit].itertuples(index=False), tests[hit].itertuples(index=False))
    ]
    items.sort(key=lambda it: it.value)
    family = _family(tests, correction)
    msg = (
        f"{len(items)} (method, dataset) cell(s) score below chance beyond noise (one-sided test, {family}, "
        f"α = {alpha:g}): the scores rank normals above anomalies there; check the score sign or the labels "
        "before ranking"
        if items
        else f"no cell is below chance beyond noise (one-sided test, {family}, α = {alpha:g})"
    )
    return make_finding("inverted", metric, items, message=msg)


def untested_check(pairs, tests, metric):
    """The ``below_half_untested`` check: single values below ½ that no test can judge (not counted as inverted).

    Returns None when every value below ½ was tested.

    See Also
    --------
    - `inverted_check`: the tested ones.
    """
    if not len(pairs):
        return None
    hit = (tests["basis"].to_numpy() == "none") & (pairs["mean"].to_numpy() < 0.5)
    if not hit.any():
        return None
    items = [
        FindingItem(
            method=p.method,
            dataset=p.dataset,
            value=p.mean,
            detail=f"{fmt_value(p.mean)}: a single value without counts, seeds or std (untested)",
        )
        for p in pairs[hit].itertuples(index=False)
    ]
    items.sort(key=lambda it: it.value)
    msg = (
        f"{len(items)} single value(s) are below ½ with no counts, seeds or std to test them: they are not "
        "counted as inverted; give the test counts (counts=) to test them"
    )
    return make_finding(
        "below_half_untested", metric, items, message=msg, status=EXTRA_CHECKS["below_half_untested"][0]
    )


def label_direction_check(pairs, tests, metric, *, alpha, majority):
    """The ``label_direction`` check: datasets on which most methods are *significantly* below ½ (sign test).

    See Also
    --------
    - [`cell_tests`][auditad.leaderboards.cell_tests]: the per-cell decisions it counts.
    - [`auditad.leaderboards.audit_leaderboard`][auditad.leaderboards.audit_leaderboard]: reports it.

    References
    ----------
    W. J. Dixon, A. M. Mood, "The statistical sign test", JASA 41(236), 557–566, 1946.
    """
    from scipy.stats import binom

    items = []
    if len(pairs):
        below = (tests["p_less_adj"].to_numpy() <= alpha) & (pairs["mean"].to_numpy() < 0.5)
        above = (tests["p_greater_adj"].to_numpy() <= alpha) & (pairs["mean"].to_numpy() > 0.5)
        frame = pairs.assign(_below=below, _above=above)
        for d, g in frame.groupby("dataset", sort=False):
            k, b, a = g.shape[0], int(g["_below"].sum()), int(g["_above"].sum())
            if k < 3 or b == 0:
                continue
            p_sign = float(binom.sf(b - 1, a + b, 0.5))
            if b / k > majority and p_sign <= alpha:
                items.append(
                    FindingItem(
                        dataset=d,
                        value=b / k,
                        detail=(
                            f"{b} of {k} methods significantly below ½, {a} significantly above (sign test "
                            f"p = {p_sign:.2g}); median AUROC {float(g['mean'].median()):.3f}"
                        ),
                    )
                )
    items.sort(key=lambda it: -it.value)
    msg = (
        f"on {plural(len(items), 'dataset')} more than {majority:.0%} of the methods are significantly below ½ "
        f"(sign test against those significantly above, α = {alpha:g}): the anomaly label (or the score "
        "direction) is likely reversed there; its AUROCs and ranks are meaningless until checked"
        if items
        else f"no dataset has more than {majority:.0%} of its methods significantly below ½"
    )
    return make_finding("label_direction", metric, items, message=msg)


def near_chance_check(pairs, tests, metric, *, alpha, correction):
    """The ``near_chance`` check: tested cells whose two-sided p exceeds ``alpha`` (not told from random scoring).

    See Also
    --------
    - [`cell_tests`][auditad.leaderboards.cell_tests]: the tests.
    - [`auditad.leaderboards.audit_leaderboard`][auditad.leaderboards.audit_leaderboard]: reports it.
    """
    if not len(pairs):
        return make_finding("near_chance", metric, [], message="no usable value")
    hit = (tests["basis"].to_numpy() != "none") & (tests["p_two"].to_numpy() > alpha)
    items = [
        FindingItem(method=p.method, dataset=p.dataset, value=p.mean, detail=_evidence(p, t, "p_two", correction))
        for p, t in zip(pairs[hit].itertuples(index=False), tests[hit].itertuples(index=False))
    ]
    items.sort(key=lambda it: abs(it.value - 0.5))
    msg = (
        f"{len(items)} (method, dataset) cell(s) cannot be told from random scoring (two-sided p > {alpha:g} "
        "before any correction): do not count them as wins or losses"
        if items
        else "every tested cell differs from random scoring (two-sided p ≤ α)"
    )
    return make_finding("near_chance", metric, items, message=msg)


def below_chance_level_check(pairs, metric):
    """The ``below_chance_level`` check: values below the metric's chance level at the known prevalence.

    See Also
    --------
    - [`auditad.leaderboards.audit_leaderboard`][auditad.leaderboards.audit_leaderboard]: reports it.

    References
    ----------
    G. O. Campos et al., "On the evaluation of unsupervised outlier detection: measures, datasets, and an
    empirical study", Data Mining and Knowledge Discovery 30(4), 891–927, 2016 (§2.3).
    """
    items = []
    chance = pairs["chance"].to_numpy(dtype=np.float64)
    with np.errstate(invalid="ignore"):
        hit = np.isfinite(chance) & (pairs["mean"].to_numpy(dtype=np.float64) < chance)
    for p in pairs[hit].itertuples(index=False):
        prevalence = p.n_pos / (p.n_pos + p.n_neg)
        campos = (p.mean - prevalence) / (1.0 - prevalence)
        exact = (p.mean - p.chance) / (1.0 - p.chance)
        items.append(
            FindingItem(
                method=p.method,
                dataset=p.dataset,
                value=exact,
                detail=(
                    f"{metric} {fmt_value(p.mean)} < chance {p.chance:.4f} at n₊ = {int(p.n_pos)}, n₋ = {int(p.n_neg)} "
                    f"(adjusted {campos:.3f} with Campos's E = π; {exact:.3f} with the exact E)"
                ),
            )
        )
    items.sort(key=lambda it: it.value)
    msg = (
        f"{len(items)} value(s) are below what random scores reach at their prevalence: compare methods on the "
        "chance-adjusted (m − E[m])/(1 − E[m]) of Campos et al., not on the raw value"
        if items
        else f"every {metric} value is above its chance level at the known prevalence"
    )
    return make_finding("below_chance_level", metric, items, message=msg)
