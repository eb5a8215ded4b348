"""The chance-level checks of a leaderboard audit: values below or within noise of what random scores reach.

`inverted_check` (AUROC below ½ beyond noise), `label_direction_check` (most methods of a dataset
below ½), `near_chance_check` (AUROC within noise of ½) and `below_chance_level_check` (AP, AUPR,
precision@n below their chance level at the known prevalence); each gives one
[`Finding`][auditad.leaderboards.Finding] of a metric from the per-(dataset, method) view of
`auditad.leaderboards.findings.run_checks`.
"""

from __future__ import annotations

import math

import numpy as np

from .finding_records import FindingItem, fmt_value, make_finding, plural

__all__ = ["inverted_check", "label_direction_check", "near_chance_check", "below_chance_level_check"]


def inverted_check(pairs, metric, *, alpha, correction):
    """The ``inverted`` check: AUROCs below ½ beyond noise (at the known counts, on every seed, or by one std).

    See Also
    --------
    - [`auditad.leaderboards.audit_leaderboard`][auditad.leaderboards.audit_leaderboard]: reports it.
    """
    from scipy.stats import norm

    from .ranking import holm_adjust

    if not len(pairs):
        return make_finding("inverted", metric, [], message="no usable value")
    counted = pairs["null_sd"].notna().to_numpy()
    mean = pairs["mean"].to_numpy()
    p_less = np.full(len(pairs), np.nan)
    p_less[counted] = norm.cdf((mean[counted] - 0.5) / pairs["null_sd"].to_numpy()[counted])
    p_adj = p_less.copy()
    if counted.any() and correction == "holm":
        p_adj[counted] = holm_adjust(p_less[counted])
    flagged, untested = [], []
    below = np.flatnonzero(mean < 0.5)
    for i, p in zip(below, pairs.iloc[below].itertuples(index=False)):
        if counted[i]:
            if p_adj[i] <= alpha:
                flagged.append(
                    FindingItem(
                        method=p.method,
                        dataset=p.dataset,
                        value=p.mean,
                        detail=(
                            f"AUROC {fmt_value(p.mean)} at n₊ = {int(p.n_pos)}, n₋ = {int(p.n_neg)}: p< = {p_less[i]:.2g}"
                            + (f", Holm {p_adj[i]:.2g}" if correction == "holm" else "")
                        ),
                    )
                )
        elif p.n_seeds >= 2:
            if max(p.values) < 0.5:
                seeds = ", ".join(f"{v:.3f}" for v in p.values)
                flagged.append(
                    FindingItem(
                        method=p.method,
                        dataset=p.dataset,
                        value=p.mean,
                        detail=f"below ½ on all {p.n_seeds} seeds: {seeds}",
                    )
                )
        elif math.isfinite(p.std) and p.std > 0:
            if p.mean + p.std < 0.5:
                flagged.append(
                    FindingItem(
                        method=p.method,
                        dataset=p.dataset,
                        value=p.mean,
                        detail=f"{fmt_value(p.mean)} ± {fmt_value(p.std)}: more than one std below ½",
                    )
                )
        else:
            untested.append(
                FindingItem(
                    method=p.method,
                    dataset=p.dataset,
                    value=p.mean,
                    detail=f"{fmt_value(p.mean)} (a single value; not tested)",
                )
            )
    flagged.sort(key=lambda it: it.value)
    untested.sort(key=lambda it: it.value)
    n_tested = int(counted.sum())
    if flagged:
        status = "fail"
        how = f"Holm over {n_tested} tests" if correction == "holm" else "uncorrected"
        msg = (
            f"{len(flagged)} (method, dataset) pair(s) score below chance beyond noise"
            + (f" (one-sided test at the known counts, {how}, α = {alpha:g})" if n_tested else "")
            + ": the scores rank normals above anomalies there; check the score sign or the labels before ranking"
            + (f" ({len(untested)} more single value(s) below ½ are listed after them, untested)" if untested else "")
        )
    elif untested:
        status = "warn"
        msg = (
            f"{len(untested)} single value(s) are below ½ with no std, seeds or counts to test them: they may be "
            "inverted or noise"
        )
    else:
        status = "pass"
        msg = "no method is below chance beyond noise" + (
            f" ({n_tested} tested at the known counts)" if n_tested else ""
        )
    return make_finding(
        "inverted",
        metric,
        flagged + untested,
        number=len(flagged) + len(untested),
        status=status,
        message=msg,
        threshold=0.0,
    )


def label_direction_check(pairs, metric, *, majority):
    """The ``label_direction`` check: datasets on which more than ``majority`` of the methods are below ½ AUROC.

    See Also
    --------
    - [`auditad.leaderboards.audit_leaderboard`][auditad.leaderboards.audit_leaderboard]: reports it.
    """
    items = []
    if len(pairs):
        for d, g in pairs.groupby("dataset", sort=False):
            k = g.shape[0]
            below = int((g["mean"] < 0.5).sum())
            if k >= 3 and below / k > majority:
                items.append(
                    FindingItem(
                        dataset=d,
                        value=below / k,
                        detail=(f"{below} of {k} methods below ½ (median AUROC {float(g['mean'].median()):.3f})"),
                    )
                )
    items.sort(key=lambda it: -it.value)
    msg = (
        f"on {plural(len(items), 'dataset')} most methods are below ½: the anomaly label (or the score "
        "direction) is likely reversed there; its AUROCs and ranks are meaningless until checked"
        if items
        else f"no dataset has more than {majority:.0%} of its methods below ½"
    )
    return make_finding("label_direction", metric, items, message=msg)


def near_chance_check(pairs, metric, *, alpha):
    """The ``near_chance`` check: AUROCs within noise of ½ (the null's interval, the seeds' std or the std).

    See Also
    --------
    - [`auditad.leaderboards.audit_leaderboard`][auditad.leaderboards.audit_leaderboard]: reports it.
    """
    from scipy.stats import norm

    z = float(norm.ppf(1.0 - alpha / 2.0))
    items = []
    if not len(pairs):
        return make_finding("near_chance", metric, items, message="no usable value")
    gap = np.abs(pairs["mean"].to_numpy(dtype=np.float64) - 0.5)
    null_sd, sd, std = (pairs[c].to_numpy(dtype=np.float64) for c in ("null_sd", "sd_seeds", "std"))
    seeded = (pairs["n_seeds"].to_numpy() >= 2) & np.isfinite(sd)
    with np.errstate(invalid="ignore"):
        hit = np.where(
            np.isfinite(null_sd),
            gap <= z * null_sd,
            np.where(seeded, gap <= sd, np.isfinite(std) & (std > 0) & (gap <= std)),
        )
    for p in pairs[hit].itertuples(index=False):
        gap = abs(p.mean - 0.5)
        if math.isfinite(p.null_sd):
            if gap <= z * p.null_sd:
                items.append(
                    FindingItem(
                        method=p.method,
                        dataset=p.dataset,
                        value=p.mean,
                        detail=(
                            f"{fmt_value(p.mean)} within ½ ± {z * p.null_sd:.3f}, the null's {1 - alpha:.0%} interval at "
                            f"n₊ = {int(p.n_pos)}, n₋ = {int(p.n_neg)}"
                        ),
                    )
                )
        elif p.n_seeds >= 2 and math.isfinite(p.sd_seeds):
            if gap <= p.sd_seeds:
                items.append(
                    FindingItem(
                        method=p.method,
                        dataset=p.dataset,
                        value=p.mean,
                        detail=f"mean {fmt_value(p.mean)} within one seed std ({p.sd_seeds:.3f}) of ½",
                    )
                )
        elif math.isfinite(p.std) and p.std > 0:
            if gap <= p.std:
                items.append(
                    FindingItem(
                        method=p.method,
                        dataset=p.dataset,
                        value=p.mean,
                        detail=f"{fmt_value(p.mean)} ± {fmt_value(p.std)}: ½ lies within one std",
                    )
                )
    items.sort(key=lambda it: abs(it.value - 0.5))
    msg = (
        f"{len(items)} (method, dataset) pair(s) are indistinguishable from random scoring: do not count them as "
        "wins or losses"
        if items
        else "no method is within noise of chance"
    )
    return make_finding("near_chance", metric, items, message=msg)


def below_chance_level_check(pairs, metric):
    """The ``below_chance_level`` check: values below the metric's chance level at the known prevalence.

    See Also
    --------
    - [`auditad.leaderboards.audit_leaderboard`][auditad.leaderboards.audit_leaderboard]: reports it.
    """
    items = []
    chance = pairs["chance"].to_numpy(dtype=np.float64)
    with np.errstate(invalid="ignore"):
        hit = np.isfinite(chance) & (pairs["mean"].to_numpy(dtype=np.float64) < chance)
    for p in pairs[hit].itertuples(index=False):
        adj = (p.mean - p.chance) / (1.0 - p.chance)
        items.append(
            FindingItem(
                method=p.method,
                dataset=p.dataset,
                value=adj,
                detail=(
                    f"{metric} {fmt_value(p.mean)} < chance {p.chance:.4f} at n₊ = {int(p.n_pos)}, n₋ = {int(p.n_neg)} "
                    f"(chance-adjusted {adj:.3f})"
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
