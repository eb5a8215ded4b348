r"""The checks of a leaderboard audit: each gives one `Finding` (pass / warn / fail) with named items.

Every check is declared once in `CHECKS` (id → what it looks for).  A
finding carries the check id, its status, a number compared to a threshold,
the items behind it (method, dataset, seed, value, detail) and one sentence of
meaning and what to do.  Checks that cannot run on a table (no counts, no
seeds) are not reported as passed: `run_checks` returns them as skipped
with the reason.

Thresholds (keyword arguments of [`auditad.leaderboards.audit_leaderboard`][auditad.leaderboards.audit_leaderboard]):

* ``alpha`` (0.05): level of the significance tests (inversion at known counts,
  near-chance interval, ranking tests);
* ``correction`` ("holm"): multiplicity correction of the per-cell tests against
  random scoring, over all tested (dataset, method) cells of a metric (Holm;
  "bh" for Benjamini–Hochberg; or "none");
* ``majority`` (0.5): share of the methods of a dataset that must be
  *significantly* below ½ (with a sign test against those significantly above)
  before its label direction is called reversed;
* ``max_seed_range`` (0.1): largest acceptable max − min of a (dataset, method)
  over its seeds;
* ``min_datasets`` (5): fewest independent datasets on which a ranking's
  significance is claimed.

Formulas.  The AUROC cells are tested as
[`auditad.leaderboards.cell_tests`][auditad.leaderboards.cell_tests]
describes: with known counts against the Mann–Whitney null of random scores,
the seeds combined by Stouffer's method,

\[
\sigma_0 = \sqrt{\frac{n_+ + n_- + 1}{12\,n_+ n_-}},\qquad
z = \frac{(\bar A - \tfrac12)\sqrt S}{\sigma_0},
\]

without counts by a (weaker) t-test over the seeds or against a reported std;
a single value without any of these is untested and reported on its own.
Metrics with a prevalence-dependent chance level are compared with \(E[m]\)
and reported chance-adjusted, \((m - E[m])/(1 - E[m])\) (Campos et al. 2016).
"""

from __future__ import annotations

import math

import numpy as np

from .cells import is_auroc
from .chance_checks import (
    below_chance_level_check,
    cell_tests,
    inverted_check,
    label_direction_check,
    near_chance_check,
    untested_check,
)
from .finding_records import (
    CHECKS,
    CORRECTIONS,
    STATUSES,
    Finding,
    FindingItem,
    fmt_value,
    make_finding,
    name_list,
    plural,
    seed_label,
)
from .schema import metric_info

__all__ = ["CHECKS", "STATUSES", "CORRECTIONS", "Finding", "FindingItem", "run_checks", "ranking_findings"]


# --------------------------------------------------------------------------- per-(dataset, method) view
def _pairs(cells):
    """One row per (dataset, method) of usable values: mean, seed values, seed std, reported std, counts."""
    import pandas as pd

    use = cells[cells["usable"]]
    columns = [
        "dataset",
        "method",
        "mean",
        "n_seeds",
        "values",
        "seeds",
        "sd_seeds",
        "vmin",
        "vmax",
        "std",
        "n_pos",
        "n_neg",
        "null_sd",
        "chance",
    ]
    if use.shape[0] == 0:
        return pd.DataFrame(columns=columns)
    codes = use.groupby(["dataset", "method"], sort=False).ngroup().to_numpy()
    order = np.argsort(codes, kind="stable")
    starts = np.r_[0, np.flatnonzero(np.diff(codes[order])) + 1]
    v = use["value"].to_numpy(dtype=np.float64)[order]
    cnt = np.diff(np.r_[starts, v.size])
    mean = np.add.reduceat(v, starts) / cnt
    dev = v - np.repeat(mean, cnt)
    ss = np.add.reduceat(dev * dev, starts)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.where(cnt > 1, np.sqrt(ss / np.maximum(cnt - 1, 1)), np.nan)
    st = use["std"].to_numpy(dtype=np.float64)[order]
    fin = np.isfinite(st)
    n_st = np.add.reduceat(fin.astype(np.int64), starts)
    with np.errstate(invalid="ignore", divide="ignore"):
        std = np.where(n_st > 0, np.add.reduceat(np.where(fin, st, 0.0), starts) / np.maximum(n_st, 1), np.nan)
    first = order[starts]
    seeds = np.array([seed_label(k) for k in use["seed_key"].to_numpy()], dtype=object)[order]

    def col(name):
        return use[name].to_numpy()[first]

    return pd.DataFrame(
        {
            "dataset": col("dataset"),
            "method": col("method"),
            "mean": mean,
            "n_seeds": cnt,
            "values": np.split(v, starts[1:]),
            "seeds": np.split(seeds, starts[1:]),
            "sd_seeds": sd,
            "vmin": np.minimum.reduceat(v, starts),
            "vmax": np.maximum.reduceat(v, starts),
            "std": std,
            "n_pos": col("n_pos").astype(np.float64),
            "n_neg": col("n_neg").astype(np.float64),
            "null_sd": col("null_sd").astype(np.float64),
            "chance": col("chance").astype(np.float64),
        },
        columns=columns,
    )


# --------------------------------------------------------------------------- the checks
def _failed_runs(cells, metric):
    failed = cells[cells["failed"]]
    items = []
    n_datasets = cells["dataset"].nunique()
    for m, g in failed[failed["failure"] == "zero column"].groupby("method", sort=False):
        nd = g["dataset"].nunique()
        items.append(
            FindingItem(
                method=m,
                value=0.0,
                detail=f"exactly 0 on all {nd} of its datasets with a value"
                + (f" ({n_datasets} in the table)" if nd != n_datasets else ""),
            )
        )
    for (d, s), g in failed[failed["failure"] == "zero row"].groupby(["dataset", "seed_key"], sort=False):
        items.append(
            FindingItem(dataset=d, seed=seed_label(s), value=0.0, detail=f"every method ({g.shape[0]}) exactly 0")
        )
    for _, r in failed[failed["failure"] == "exact zero"].iterrows():
        items.append(
            FindingItem(
                method=r["method"],
                dataset=r["dataset"],
                seed=seed_label(r["seed_key"]),
                value=0.0,
                detail="exactly 0: a failed run, or a ranking inverted without one exception",
            )
        )
    n_col = sum(1 for it in items if it.dataset is None)
    n = int(failed.shape[0])
    if n:
        cols = f" ({plural(n_col, 'method')} at exactly 0 everywhere)" if n_col else ""
        msg = (
            f"{n} value(s) are failed runs stored as scores{cols}: "
            "they are not scores; report them as failed and leave them out of averages and ranks (the ranking "
            "here treats them as missing)"
        )
    else:
        msg = "no value is an exact 0 of a failed run"
    return make_finding("failed_runs", metric, items, number=n, message=msg)


def _missing_runs(cells, metric):
    miss = cells[cells["value"].isna()]
    n = int(miss.shape[0])
    if not n:
        return make_finding("missing_runs", metric, [], number=0, message="every cell has a value")
    items = []
    has_value = cells["value"].notna()
    ds_any = has_value.groupby(cells["dataset"]).any()
    row_any = has_value.groupby([cells["dataset"], cells["seed_key"]]).any()
    pair_any = has_value.groupby([cells["dataset"], cells["method"]]).any()
    written = {"blank": "blank", "nan": "'nan'", "marker": "a missing-value marker"}
    not_run = [d for d in dict.fromkeys(miss["dataset"]) if not ds_any[d]]
    skip = set(not_run)
    rows_done = set()
    for (d, s), g in miss.groupby(["dataset", "seed_key"], sort=False):
        if d in skip or s == "" or row_any[(d, s)]:
            continue
        items.append(
            FindingItem(
                dataset=d,
                seed=seed_label(s),
                detail=f"no value for any of the {g.shape[0]} methods on this seed: the run never finished",
            )
        )
        rows_done.add((d, s))
    whole_pairs = set()
    for (d, m), g in miss.groupby(["dataset", "method"], sort=False):
        if d in skip:
            continue
        if not pair_any[(d, m)] and g["seed_key"].nunique() > 1:
            items.append(FindingItem(method=m, dataset=d, detail=f"no value on any of its {g.shape[0]} seeds"))
            whole_pairs.add((d, m))
    rest = miss[~miss["dataset"].isin(skip)]
    for (d, s), g in rest.groupby(["dataset", "seed_key"], sort=False):
        if (d, s) in rows_done:
            continue
        g = g[[(d, m) not in whole_pairs for m in g["method"]]]
        if g.shape[0] >= 3:
            total = int((cells["dataset"] == d).to_numpy()[(cells["seed_key"] == s).to_numpy()].sum())
            items.append(
                FindingItem(
                    dataset=d,
                    seed=seed_label(s),
                    detail=(f"{g.shape[0]} of {total} methods without a value: {name_list(g['method'])}"),
                )
            )
            continue
        for _, r in g.iterrows():
            items.append(
                FindingItem(
                    method=r["method"],
                    dataset=d,
                    seed=seed_label(s),
                    detail=f"{written.get(r['missing'], r['missing'])} cell",
                )
            )
    if not_run:
        items.append(
            FindingItem(
                detail=f"{plural(len(not_run), 'dataset')} without any value (not run): {name_list(not_run)}",
                value=float(len(not_run)),
            )
        )
    msg = (
        f"{n} cell(s) have no value: say whether these runs failed or were never run; the ranking leaves such "
        "datasets out (complete case)"
    )
    return make_finding("missing_runs", metric, items, number=n, message=msg)


def _single_run(cells, pairs, metric):
    items = []
    zero_std = cells[cells["usable"] & (cells["std"] == 0.0)]
    for r in zero_std.itertuples(index=False):
        items.append(
            FindingItem(
                method=r.method,
                dataset=r.dataset,
                seed=seed_label(r.seed_key),
                value=float(r.value),
                detail=f"{fmt_value(r.value)} ± 0: one run (or identical runs) where the others report a spread",
            )
        )
    seeds_per_dataset = cells.groupby("dataset", sort=False)["seed_key"].nunique()
    if (seeds_per_dataset > 1).any() and len(pairs):
        total = pairs["dataset"].map(seeds_per_dataset).to_numpy()
        for p, t in zip(
            pairs[(pairs["n_seeds"] == 1).to_numpy() & (total > 1)].itertuples(index=False),
            total[(pairs["n_seeds"] == 1).to_numpy() & (total > 1)],
        ):
            items.append(
                FindingItem(
                    method=p.method, dataset=p.dataset, seed=p.seeds[0], value=p.mean, detail=f"one seed of {int(t)}"
                )
            )
    n_methods = len({it.method for it in items})
    msg = (
        f"{len(items)} value(s) of {plural(n_methods, 'method')} come from a single run: their spread is unknown, "
        "so a difference to them is not evidence; rerun or mark them"
        if items
        else "every value with a spread comes from several runs"
    )
    return make_finding("single_run", metric, items, message=msg)


def _no_spread(cells, metric):
    has_std = bool(np.isfinite(cells["std"].to_numpy()).any())
    has_seeds = bool((cells.groupby("dataset")["seed_key"].nunique() > 1).any())
    if has_std or has_seeds:
        return None
    n = int(cells["usable"].sum())
    return make_finding(
        "no_spread",
        metric,
        [],
        number=n,
        message=f"the table gives neither a std nor seeds for its {n} values: how much of any difference "
        "is run-to-run noise cannot be told; publish the runs or mean ± std",
    )


def _seed_variance(pairs, metric, *, max_seed_range):
    if not len(pairs) or (pairs["n_seeds"] < 2).all():
        return None
    items = []
    spread = (pairs["vmax"] - pairs["vmin"]).to_numpy(dtype=np.float64)
    hit = (pairs["n_seeds"].to_numpy() >= 2) & (spread > max_seed_range)
    for p in pairs[hit].itertuples(index=False):
        rng = p.vmax - p.vmin
        vals = ", ".join(f"{v:.3f}" for v in p.values)
        seeds = ", ".join(str(x) for x in p.seeds)
        items.append(
            FindingItem(
                method=p.method, dataset=p.dataset, value=rng, detail=f"seeds {seeds}: {vals} (range {rng:.3f})"
            )
        )
    items.sort(key=lambda it: -it.value)
    msg = (
        f"{len(items)} (dataset, method) pair(s) move by more than {max_seed_range:g} between seeds: a difference "
        "smaller than that between methods is within run-to-run noise; report the spread"
        if items
        else f"no (dataset, method) moves by more than {max_seed_range:g} between seeds"
    )
    return make_finding("seed_variance", metric, items, message=msg, threshold=0.0)


def _rank_flips(cells, metric, *, higher_is_better):
    from .ranking import average_ranks

    use = cells[cells["usable"]]
    if use.empty or use["seed_key"].nunique() < 2:
        return None
    items = []
    sign = 1.0 if higher_is_better else -1.0
    for d, g in use.groupby("dataset", sort=False):
        winners = {}
        for s, gs in g.groupby("seed_key", sort=False):
            if gs.shape[0] < 2:
                continue
            v = sign * gs["value"].to_numpy()
            winners[s] = tuple(gs["method"].to_numpy()[v == v.max()])
        if len(winners) < 2:
            continue
        sets = [set(w) for w in winners.values()]
        if any(not (a & b) for i, a in enumerate(sets) for b in sets[i + 1 :]):
            text = "; ".join(f"{', '.join(w)} (seed {s})" for s, w in winners.items())
            items.append(FindingItem(dataset=d, detail=f"best: {text}"))
    n_data = len(items)
    # the leaderboard order seed by seed, on the datasets and methods complete on every seed
    wide = use.pivot_table(index=["seed_key", "dataset"], columns="method", values="value", aggfunc="first")
    seeds = list(dict.fromkeys(use["seed_key"]))
    complete_methods = [m for m in wide.columns if wide[m].notna().all()]
    per_seed = {}
    if len(complete_methods) >= 2:
        w = wide[complete_methods]
        common = None
        for s in seeds:
            ds = set(w.loc[s].index) if s in w.index.get_level_values(0) else set()
            common = ds if common is None else common & ds
        common = [d for d in dict.fromkeys(use["dataset"]) if d in (common or set())]
        if len(common) >= 2:
            for s in seeds:
                X = w.loc[s].reindex(common).to_numpy(dtype=np.float64)
                per_seed[s] = average_ranks(X, higher_is_better=higher_is_better).mean(axis=0)
    if len(per_seed) >= 2:
        k = len(complete_methods)
        R = np.stack(list(per_seed.values()))
        a, b = np.triu_indices(k, 1)
        sg = np.sign(R[:, a] - R[:, b])
        flips = int(np.sum((sg > 0).any(axis=0) & (sg < 0).any(axis=0)))
        tops = {s: complete_methods[int(np.argmin(r))] for s, r in per_seed.items()}
        if flips or len(set(tops.values())) > 1:
            text = "; ".join(f"{m} (seed {s})" for s, m in tops.items())
            items.append(
                FindingItem(
                    detail=f"rank 1 by seed: {text}; {flips} of {k * (k - 1) // 2} method pairs "
                    f"change order between seeds (average ranks over {len(common)} datasets)",
                    value=float(flips),
                )
            )
    msg = (
        f"the winner changes between seeds on {plural(n_data, 'dataset')}"
        + ("; the leaderboard order itself changes between seeds" if len(items) > n_data else "")
        + ": a ranking from one seed is not reproducible; rank on the seed means and report the spread"
        if items
        else "the best method of every dataset and the leaderboard order agree across seeds"
    )
    return make_finding("rank_flips", metric, items, number=len(items), message=msg)


def run_checks(
    cells, *, alpha: float = 0.05, correction: str = "holm", majority: float = 0.5, max_seed_range: float = 0.1
):
    """All cell-level checks of `CHECKS` on an annotated table, metric by metric.

    Parameters
    ----------
    cells : pandas.DataFrame
        From [`auditad.leaderboards.cells.annotate_cells`][auditad.leaderboards.annotate_cells].
    alpha, correction, majority, max_seed_range
        See the module documentation.

    Returns
    -------
    findings : list of Finding
    skipped : list of (check, metric, reason)
    tests : pandas.DataFrame
        One row per AUROC (dataset, method) cell: basis, statistic, p-values (raw and adjusted), decision
        (see [`cell_tests`][auditad.leaderboards.cell_tests]).

    References
    ----------
    G. O. Campos et al., "On the evaluation of unsupervised outlier detection: measures, datasets, and an
    empirical study", Data Mining and Knowledge Discovery 30(4), 891–927, 2016.
    H. B. Mann, D. R. Whitney, Annals of Mathematical Statistics 18, 1947.
    S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian Journal of
    Statistics 6(2), 1979.

    See Also
    --------
    - [`auditad.leaderboards.audit_leaderboard`][auditad.leaderboards.audit_leaderboard]: the entry point.
    """
    findings, skipped, tables = [], [], []
    for metric, g in cells.groupby("metric", sort=False):
        spec = metric_info(metric)
        pairs = _pairs(g)
        findings.append(_failed_runs(g, metric))
        findings.append(_missing_runs(g, metric))
        f = _no_spread(g, metric)
        if f is not None:
            findings.append(f)
            skipped.append(
                (
                    "single_run",
                    metric,
                    "no std and no seeds: the number of runs behind a value is not stated (see no_spread)",
                )
            )
        else:
            findings.append(_single_run(g, pairs, metric))
        if is_auroc(metric):
            tests = cell_tests(pairs, correction=correction)
            findings.append(inverted_check(pairs, tests, metric, alpha=alpha, correction=correction))
            f = untested_check(pairs, tests, metric)
            if f is not None:
                findings.append(f)
            findings.append(label_direction_check(pairs, tests, metric, alpha=alpha, majority=majority))
            findings.append(near_chance_check(pairs, tests, metric, alpha=alpha, correction=correction))
            tables.append(_test_table(pairs, tests, metric, alpha))
        f = _seed_variance(pairs, metric, max_seed_range=max_seed_range)
        if f is None:
            skipped.append(("seed_variance", metric, "no (dataset, method) has two seeds"))
        else:
            findings.append(f)
        f = _rank_flips(g, metric, higher_is_better=spec.higher_is_better)
        if f is None:
            skipped.append(("rank_flips", metric, "the table has fewer than two seeds"))
        else:
            findings.append(f)
        if spec.chance in ("average_precision", "prevalence"):
            if len(pairs) and pairs["chance"].notna().any():
                findings.append(below_chance_level_check(pairs, metric))
            else:
                skipped.append(
                    (
                        "below_chance_level",
                        metric,
                        "the class counts (prevalence) are unknown; pass counts= to read_leaderboard",
                    )
                )
    return findings, skipped, _concat(tables)


def _test_table(pairs, tests, metric, alpha):
    """One row per tested (dataset, method) AUROC cell: the evidence and the decision."""
    out = pairs[["dataset", "method", "mean", "n_seeds", "n_pos", "n_neg"]].copy()
    out.insert(0, "metric", metric)
    for c in tests.columns:
        out[c] = tests[c].to_numpy()
    below = (out["p_less_adj"] <= alpha) & (out["mean"] < 0.5)
    near = (out["basis"] != "none") & (out["p_two"] > alpha)
    untested = (out["basis"] == "none") & (out["mean"] < 0.5)
    out["decision"] = np.where(
        below, "inverted", np.where(near, "near chance", np.where(untested, "below ½, untested", ""))
    )
    return out.reset_index(drop=True)


def _concat(tables):
    import pandas as pd

    return pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()


def _significance(result, min_datasets: int):
    """The ``ranking_significance`` finding: a pass only on enough independent datasets and p <= alpha."""
    fr, metric, alpha = result.significance, result.metric, result.alpha
    p, n, n_ind = fr.iman_davenport_p_value, result.n_datasets, result.n_independent
    on = (
        f"over {n} datasets"
        if not result.blocks
        else f"over {n} columns from {n_ind} independent block(s) ({', '.join(b for b, _ in result.blocks)})"
    )
    tests = f"Iman–Davenport p = {p:.2g}, Friedman χ² = {fr.statistic:.2f}, p = {fr.p_value:.2g}" + (
        " on the block means" if result.block_friedman is not None else ""
    )
    if n_ind < min_datasets:
        msg = (
            f"too few datasets to rank: k = {result.n_methods} methods {on}, fewer than {min_datasets} "
            "independent datasets"
            + (" (the columns of one block share their in-distribution data)" if result.blocks else "")
            + ": the Friedman and Iman–Davenport tests do not apply here, whatever their p"
            + (f" (here {tests})" if math.isfinite(p) else "")
            + "; the order of the leaderboard is not tested"
        )
        # threshold 0: no p can pass a gate on a ranking that was not tested
        return Finding("ranking_significance", "warn", metric, float(p), 0.0, "p <= threshold", (), msg)
    if math.isnan(p) or p > alpha:
        msg = (
            f"the ranks of the {result.n_methods} methods {on} do not differ significantly ({tests}): "
            "the leaderboard order is not supported by the data"
        )
        return Finding("ranking_significance", "warn", metric, float(p), alpha, "p <= threshold", (), msg)
    msg = (
        f"the ranks of the {result.n_methods} methods {on} differ ({tests}); Nemenyi CD = "
        f"{result.critical_difference:.3f} ranks"
    )
    return Finding("ranking_significance", "pass", metric, float(p), alpha, "p <= threshold", (), msg)


def ranking_findings(result, *, size_threshold: int = 10, min_datasets: int = 5):
    """The findings of a `RankingResult`: significance, size, ties with the best, coverage.

    The ranking is declared significant only when the Iman–Davenport p is at most α *and* there are at
    least ``min_datasets`` independent datasets (blocks of dependent columns count once; see
    `RankingResult.n_independent`); below that the tests do not apply and the finding says so.

    See Also
    --------
    - [`auditad.leaderboards.rank_methods`][auditad.leaderboards.rank_methods]

    References
    ----------
    J. Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", JMLR 7, 1–30, 2006
    (the χ² approximation needs N > 10, k > 5; comparisons with a control by Wilcoxon and Holm).
    """
    metric, alpha = result.metric, result.alpha
    out = [_significance(result, min_datasets)]
    n = result.n_datasets
    if n <= size_threshold:
        min_p = 2.0 / 2**n
        msg = (
            f"N = {n} datasets: the Friedman χ² approximation is coarse (Demšar: N > 10, k > 5)"
            + (
                f", and no Wilcoxon test over {n} datasets can reach p < {alpha:g} (smallest p = {min_p:.3g})"
                if min_p > alpha
                else ""
            )
            + "; add datasets before reading the order"
        )
        out.append(
            Finding("ranking_size", "warn", metric, float(n), float(size_threshold), "number > threshold", (), msg)
        )
    else:
        out.append(
            Finding(
                "ranking_size",
                "pass",
                metric,
                float(n),
                float(size_threshold),
                "number > threshold",
                (),
                f"N = {n} datasets, k = {result.n_methods} methods",
            )
        )
    ranks = dict(zip(result.methods, result.average_ranks))
    pw = result.pairwise
    ctrl = pw[pw["method_a"] == result.best]
    from .ranking import holm_adjust

    p_ctrl = dict(zip(ctrl["method_b"], holm_adjust(ctrl["p_value"].to_numpy()) if len(ctrl) else []))
    items = [
        FindingItem(
            method=m,
            value=float(ranks[m]),
            detail=f"average rank {ranks[m]:.2f} vs {ranks[result.best]:.2f}; Wilcoxon vs "
            f"{result.best}: Holm p = {p_ctrl[m]:.2g}",
        )
        for m in result.tied_with_best[1:]
    ]
    msg = (
        f"{len(items)} method(s) are not significantly worse than the best, {result.best} (Wilcoxon signed-rank, "
        f"Holm over {len(ctrl)} comparisons, α = {alpha:g}); {len(result.within_cd_of_best()) - 1} lie within the "
        "Nemenyi CD of it: the top of the leaderboard is shared"
        if items
        else f"{result.best} is significantly better than every other method (Wilcoxon–Holm)"
    )
    out.append(make_finding("tied_with_best", metric, items, message=msg))
    items = [FindingItem(dataset=d, detail=r) for d, r in result.dropped_datasets] + [
        FindingItem(method=m, detail=r) for m, r in result.dropped_methods
    ]
    n_d, n_m = len(result.dropped_datasets), len(result.dropped_methods)
    msg = (
        f"the ranking uses {n} datasets and {result.n_methods} methods; {plural(n_d, 'dataset')} and "
        f"{plural(n_m, 'method')} were left out ({result.missing.replace('_', ' ')}, complete case), each named: "
        "a method missing on a hard dataset is not penalised"
        if items
        else f"every dataset and method of the table enters the ranking (N = {n}, k = {result.n_methods})"
    )
    out.append(make_finding("ranking_coverage", metric, items, message=msg))
    return out
