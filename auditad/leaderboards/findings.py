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
* ``correction`` ("holm"): multiplicity correction of the per-cell inversion
  tests (Holm over all tested (dataset, method) pairs of a metric, or "none");
* ``majority`` (0.5): share of methods below ½ above which a dataset's label
  direction is suspect;
* ``max_seed_range`` (0.1): largest acceptable max − min of a (dataset, method)
  over its seeds.

Formulas.  With known counts, AUROC is compared with its null distribution
under random scores (Mann–Whitney; normal approximation)

\[
\sigma_0 = \sqrt{\frac{n_+ + n_- + 1}{12\,n_+ n_-}},\qquad
p_< = \Phi\Big(\frac{A - \tfrac12}{\sigma_0}\Big),
\]

inverted when the (Holm-adjusted) \(p_< \le \alpha\), near chance when
\(|A - \tfrac12| \le z_{1-\alpha/2}\,\sigma_0\).  Without counts a method
is inverted when it is below ½ on every seed (two or more), or more than one
reported std below ½; near chance when \(|A - \tfrac12|\) is at most the
reported std or the std over its seeds.  Metrics with a prevalence-dependent
chance level are compared with \(E[m]\) and reported chance-adjusted,
\((m - E[m])/(1 - E[m])\) (Campos et al. 2016).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._json import json_safe
from .cells import is_auroc
from .schema import metric_info

__all__ = ["CHECKS", "STATUSES", "CORRECTIONS", "Finding", "FindingItem", "run_checks", "ranking_findings"]

#: Status of a finding, best first.
STATUSES = ("pass", "warn", "fail")
#: Multiplicity corrections of the per-cell inversion tests.
CORRECTIONS = ("holm", "none")

#: Every check: id → (status when it finds something, what it looks for).
CHECKS = {
    "failed_runs": ("fail", "failed runs stored as scores: a method at exactly 0 on every dataset (a zero column), "
                            "a (dataset, seed) at exactly 0 for every method (a zero row), an isolated exact 0 of "
                            "AUROC/AP/AUPR"),
    "missing_runs": ("warn", "cells without a value (blank, NaN, '/'): runs never finished, or never run"),
    "single_run": ("warn", "values from a single run: a std of exactly 0, or one seed where the table has several"),
    "no_spread": ("warn", "neither a std nor seeds: noise cannot be told from differences"),
    "inverted": ("fail", "methods below ½ AUROC on a dataset: significantly at the known counts, on every seed, "
                         "or more than one std below ½ (warn only when a single untested value is below ½)"),
    "label_direction": ("fail", "datasets on which most methods are below ½ AUROC: suspect the label direction"),
    "near_chance": ("warn", "methods within noise of chance: |AUROC − ½| at most the std, the seeds' std, or the "
                            "null's half-width z·σ₀ at the known counts"),
    "seed_variance": ("warn", "(dataset, method) pairs whose values spread over more than max_seed_range across seeds"),
    "rank_flips": ("warn", "the best method of a dataset, or the order of the leaderboard, changes between seeds"),
    "below_chance_level": ("warn", "values below the metric's chance level at the known prevalence (AP: exact E[AP]; "
                                   "AUPR and precision@n: π)"),
    "ranking_significance": ("warn", "the Iman–Davenport (Friedman) test does not reject that all methods rank "
                                     "alike: the order of the leaderboard is not supported"),
    "ranking_size": ("warn", "too few datasets for the ranking tests (N ≤ 10: coarse χ² approximation; N ≤ 5: no "
                             "Wilcoxon test can reach p < 0.05)"),
    "tied_with_best": ("warn", "methods not significantly worse than the best (Wilcoxon signed-rank, Holm over the "
                               "comparisons with the best)"),
    "ranking_coverage": ("warn", "datasets or methods left out of the ranking because of missing or failed cells"),
}


@dataclass(frozen=True)
class FindingItem:
    """One named thing behind a finding: a method, a dataset, a seed (any may be None), a value and a detail.

    See Also
    --------
    - [`Finding`][auditad.leaderboards.Finding]

    References
    ----------
    J. Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", JMLR 7, 2006.
    G. O. Campos et al., "On the evaluation of unsupervised outlier detection", Data Mining and Knowledge
    Discovery 30(4), 2016.
    """

    method: str | None = None
    dataset: str | None = None
    seed: object = None
    value: float = math.nan
    detail: str = ""

    def label(self) -> str:
        """``"LODA on Lymphography, seed 3"`` (the parts that are given)."""
        text = "" if self.method is None else str(self.method)
        if self.dataset is not None:
            text = f"{text} on {self.dataset}" if text else str(self.dataset)
        if self.seed is not None:
            text = f"{text}, seed {self.seed}" if text else f"seed {self.seed}"
        return text or "(whole table)"

    def to_dict(self) -> dict:
        """JSON-safe dict."""
        return json_safe({"method": self.method, "dataset": self.dataset, "seed": self.seed, "value": self.value,
                          "detail": self.detail}, other=str)


@dataclass(frozen=True)
class Finding:
    """The result of one check on one metric.

    Attributes
    ----------
    check : str
        Id from `CHECKS`.
    status : {"pass", "warn", "fail"}
    metric : str or None
    number : float
        What the threshold is compared to (usually the number of items; a
        p-value for ``ranking_significance``, N for ``ranking_size``).
    threshold : float
    rule : str
        The comparison that passes, e.g. ``"number <= 0"``.
    items : tuple of FindingItem
        The named methods, datasets and seeds behind it, worst first.
    message : str
        One sentence: what it means and what to do.

    References
    ----------
    J. Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", JMLR 7, 2006.
    G. O. Campos et al., "On the evaluation of unsupervised outlier detection: measures, datasets,
    and an empirical study", Data Mining and Knowledge Discovery 30(4), 2016.

    See Also
    --------
    - [`auditad.leaderboards.audit_leaderboard`][auditad.leaderboards.audit_leaderboard]: produces the findings.
    """

    check: str
    status: str
    metric: str | None
    number: float
    threshold: float
    rule: str
    items: tuple = ()
    message: str = ""

    def text(self, *, max_items: int = 8) -> str:
        """The finding as plain text: a status line, then up to ``max_items`` items."""
        head = f"{self.status.upper():4} {self.check}" + (f" [{self.metric}]" if self.metric else "") + \
               f": {self.message}"
        lines = [head]
        for it in self.items[:max_items]:
            lines.append(f"     - {it.label()}" + (f": {it.detail}" if it.detail else ""))
        if len(self.items) > max_items:
            lines.append(f"     ... {len(self.items) - max_items} more")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """JSON-safe dict with the items."""
        return json_safe({"check": self.check, "status": self.status, "metric": self.metric, "number": self.number,
                          "threshold": self.threshold, "rule": self.rule, "message": self.message,
                          "items": [it.to_dict() for it in self.items]})


def _finding(check, metric, items, *, number=None, threshold=0.0, message, status=None, rule="number <= 0"):
    items = tuple(items)
    number = float(len(items) if number is None else number)
    if status is None:
        status = CHECKS[check][0] if number > threshold else "pass"
    return Finding(check=check, status=status, metric=metric, number=number, threshold=float(threshold), rule=rule,
                   items=items, message=message)


def _fmt(x: float) -> str:
    return "nan" if not math.isfinite(x) else f"{x:.3f}"


def _seed_label(s):
    return None if s == "" else s


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# --------------------------------------------------------------------------- per-(dataset, method) view
def _pairs(cells):
    """One row per (dataset, method) of usable values: mean, seed values, seed std, reported std, counts."""
    import pandas as pd

    use = cells[cells["usable"]]
    columns = ["dataset", "method", "mean", "n_seeds", "values", "seeds", "sd_seeds", "vmin", "vmax", "std",
               "n_pos", "n_neg", "null_sd", "chance"]
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
    seeds = np.array([_seed_label(k) for k in use["seed_key"].to_numpy()], dtype=object)[order]

    def col(name):
        return use[name].to_numpy()[first]

    return pd.DataFrame({
        "dataset": col("dataset"), "method": col("method"), "mean": mean, "n_seeds": cnt,
        "values": np.split(v, starts[1:]), "seeds": np.split(seeds, starts[1:]), "sd_seeds": sd,
        "vmin": np.minimum.reduceat(v, starts), "vmax": np.maximum.reduceat(v, starts), "std": std,
        "n_pos": col("n_pos").astype(np.float64), "n_neg": col("n_neg").astype(np.float64),
        "null_sd": col("null_sd").astype(np.float64), "chance": col("chance").astype(np.float64),
    }, columns=columns)


# --------------------------------------------------------------------------- the checks
def _failed_runs(cells, metric):
    failed = cells[cells["failed"]]
    items = []
    n_datasets = cells["dataset"].nunique()
    for m, g in failed[failed["failure"] == "zero column"].groupby("method", sort=False):
        nd = g["dataset"].nunique()
        items.append(FindingItem(method=m, value=0.0, detail=f"exactly 0 on all {nd} of its datasets with a value"
                                 + (f" ({n_datasets} in the table)" if nd != n_datasets else "")))
    for (d, s), g in failed[failed["failure"] == "zero row"].groupby(["dataset", "seed_key"], sort=False):
        items.append(FindingItem(dataset=d, seed=_seed_label(s), value=0.0,
                                 detail=f"every method ({g.shape[0]}) exactly 0"))
    for _, r in failed[failed["failure"] == "exact zero"].iterrows():
        items.append(FindingItem(method=r["method"], dataset=r["dataset"], seed=_seed_label(r["seed_key"]), value=0.0,
                                 detail="exactly 0: a failed run, or a ranking inverted without one exception"))
    n_col = sum(1 for it in items if it.dataset is None)
    n = int(failed.shape[0])
    if n:
        cols = f" ({_plural(n_col, 'method')} at exactly 0 everywhere)" if n_col else ""
        msg = (f"{n} value(s) are failed runs stored as scores{cols}: "
               "they are not scores; report them as failed and leave them out of averages and ranks (the ranking "
               "here treats them as missing)")
    else:
        msg = "no value is an exact 0 of a failed run"
    return _finding("failed_runs", metric, items, number=n, message=msg)


def _names(names, limit: int = 6) -> str:
    names = [str(n) for n in names]
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _missing_runs(cells, metric):
    miss = cells[cells["value"].isna()]
    n = int(miss.shape[0])
    if not n:
        return _finding("missing_runs", metric, [], number=0, message="every cell has a value")
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
        items.append(FindingItem(dataset=d, seed=_seed_label(s), detail=f"no value for any of the {g.shape[0]} methods "
                                                                         "on this seed: the run never finished"))
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
            items.append(FindingItem(dataset=d, seed=_seed_label(s), detail=(
                f"{g.shape[0]} of {total} methods without a value: {_names(g['method'])}")))
            continue
        for _, r in g.iterrows():
            items.append(FindingItem(method=r["method"], dataset=d, seed=_seed_label(s),
                                     detail=f"{written.get(r['missing'], r['missing'])} cell"))
    if not_run:
        items.append(FindingItem(detail=f"{_plural(len(not_run), 'dataset')} without any value (not run): "
                                        f"{_names(not_run)}", value=float(len(not_run))))
    msg = (f"{n} cell(s) have no value: say whether these runs failed or were never run; the ranking leaves such "
           "datasets out (complete case)")
    return _finding("missing_runs", metric, items, number=n, message=msg)


def _single_run(cells, pairs, metric):
    items = []
    zero_std = cells[cells["usable"] & (cells["std"] == 0.0)]
    for r in zero_std.itertuples(index=False):
        items.append(FindingItem(method=r.method, dataset=r.dataset, seed=_seed_label(r.seed_key), value=float(r.value),
                                 detail=f"{_fmt(r.value)} ± 0: one run (or identical runs) where the others report "
                                        "a spread"))
    seeds_per_dataset = cells.groupby("dataset", sort=False)["seed_key"].nunique()
    if (seeds_per_dataset > 1).any() and len(pairs):
        total = pairs["dataset"].map(seeds_per_dataset).to_numpy()
        for p, t in zip(pairs[(pairs["n_seeds"] == 1).to_numpy() & (total > 1)].itertuples(index=False),
                        total[(pairs["n_seeds"] == 1).to_numpy() & (total > 1)]):
            items.append(FindingItem(method=p.method, dataset=p.dataset, seed=p.seeds[0], value=p.mean,
                                     detail=f"one seed of {int(t)}"))
    n_methods = len({it.method for it in items})
    msg = (f"{len(items)} value(s) of {_plural(n_methods, 'method')} come from a single run: their spread is unknown, "
           "so a difference to them is not evidence; rerun or mark them" if items else
           "every value with a spread comes from several runs")
    return _finding("single_run", metric, items, message=msg)


def _no_spread(cells, metric):
    has_std = bool(np.isfinite(cells["std"].to_numpy()).any())
    has_seeds = bool((cells.groupby("dataset")["seed_key"].nunique() > 1).any())
    if has_std or has_seeds:
        return None
    n = int(cells["usable"].sum())
    return _finding("no_spread", metric, [], number=n,
                    message=f"the table gives neither a std nor seeds for its {n} values: how much of any difference "
                            "is run-to-run noise cannot be told; publish the runs or mean ± std")


def _inverted(pairs, metric, *, alpha, correction):
    from scipy.stats import norm

    from .ranking import holm_adjust

    if not len(pairs):
        return _finding("inverted", metric, [], message="no usable value")
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
                flagged.append(FindingItem(method=p.method, dataset=p.dataset, value=p.mean, detail=(
                    f"AUROC {_fmt(p.mean)} at n₊ = {int(p.n_pos)}, n₋ = {int(p.n_neg)}: p< = {p_less[i]:.2g}"
                    + (f", Holm {p_adj[i]:.2g}" if correction == "holm" else ""))))
        elif p.n_seeds >= 2:
            if max(p.values) < 0.5:
                seeds = ", ".join(f"{v:.3f}" for v in p.values)
                flagged.append(FindingItem(method=p.method, dataset=p.dataset, value=p.mean,
                                           detail=f"below ½ on all {p.n_seeds} seeds: {seeds}"))
        elif math.isfinite(p.std) and p.std > 0:
            if p.mean + p.std < 0.5:
                flagged.append(FindingItem(method=p.method, dataset=p.dataset, value=p.mean,
                                           detail=f"{_fmt(p.mean)} ± {_fmt(p.std)}: more than one std below ½"))
        else:
            untested.append(FindingItem(method=p.method, dataset=p.dataset, value=p.mean,
                                        detail=f"{_fmt(p.mean)} (a single value; not tested)"))
    flagged.sort(key=lambda it: it.value)
    untested.sort(key=lambda it: it.value)
    n_tested = int(counted.sum())
    if flagged:
        status = "fail"
        how = f"Holm over {n_tested} tests" if correction == "holm" else "uncorrected"
        msg = (f"{len(flagged)} (method, dataset) pair(s) score below chance beyond noise"
               + (f" (one-sided test at the known counts, {how}, α = {alpha:g})" if n_tested else "") +
               ": the scores rank normals above anomalies there; check the score sign or the labels before ranking"
               + (f" ({len(untested)} more single value(s) below ½ are listed after them, untested)" if untested
                  else ""))
    elif untested:
        status = "warn"
        msg = (f"{len(untested)} single value(s) are below ½ with no std, seeds or counts to test them: they may be "
               "inverted or noise")
    else:
        status = "pass"
        msg = "no method is below chance beyond noise" + (f" ({n_tested} tested at the known counts)" if n_tested
                                                          else "")
    return _finding("inverted", metric, flagged + untested, number=len(flagged) + len(untested), status=status,
                    message=msg, threshold=0.0)


def _label_direction(pairs, metric, *, majority):
    items = []
    if len(pairs):
        for d, g in pairs.groupby("dataset", sort=False):
            k = g.shape[0]
            below = int((g["mean"] < 0.5).sum())
            if k >= 3 and below / k > majority:
                items.append(FindingItem(dataset=d, value=below / k, detail=(
                    f"{below} of {k} methods below ½ (median AUROC {float(g['mean'].median()):.3f})")))
    items.sort(key=lambda it: -it.value)
    msg = (f"on {_plural(len(items), 'dataset')} most methods are below ½: the anomaly label (or the score "
           "direction) is likely reversed there; its AUROCs and ranks are meaningless until checked" if items else
           f"no dataset has more than {majority:.0%} of its methods below ½")
    return _finding("label_direction", metric, items, message=msg)


def _near_chance(pairs, metric, *, alpha):
    from scipy.stats import norm

    z = float(norm.ppf(1.0 - alpha / 2.0))
    items = []
    if not len(pairs):
        return _finding("near_chance", metric, items, message="no usable value")
    gap = np.abs(pairs["mean"].to_numpy(dtype=np.float64) - 0.5)
    null_sd, sd, std = (pairs[c].to_numpy(dtype=np.float64) for c in ("null_sd", "sd_seeds", "std"))
    seeded = (pairs["n_seeds"].to_numpy() >= 2) & np.isfinite(sd)
    with np.errstate(invalid="ignore"):
        hit = np.where(np.isfinite(null_sd), gap <= z * null_sd,
                       np.where(seeded, gap <= sd, np.isfinite(std) & (std > 0) & (gap <= std)))
    for p in pairs[hit].itertuples(index=False):
        gap = abs(p.mean - 0.5)
        if math.isfinite(p.null_sd):
            if gap <= z * p.null_sd:
                items.append(FindingItem(method=p.method, dataset=p.dataset, value=p.mean, detail=(
                    f"{_fmt(p.mean)} within ½ ± {z * p.null_sd:.3f}, the null's {1 - alpha:.0%} interval at "
                    f"n₊ = {int(p.n_pos)}, n₋ = {int(p.n_neg)}")))
        elif p.n_seeds >= 2 and math.isfinite(p.sd_seeds):
            if gap <= p.sd_seeds:
                items.append(FindingItem(method=p.method, dataset=p.dataset, value=p.mean,
                                         detail=f"mean {_fmt(p.mean)} within one seed std ({p.sd_seeds:.3f}) of ½"))
        elif math.isfinite(p.std) and p.std > 0:
            if gap <= p.std:
                items.append(FindingItem(method=p.method, dataset=p.dataset, value=p.mean,
                                         detail=f"{_fmt(p.mean)} ± {_fmt(p.std)}: ½ lies within one std"))
    items.sort(key=lambda it: abs(it.value - 0.5))
    msg = (f"{len(items)} (method, dataset) pair(s) are indistinguishable from random scoring: do not count them as "
           "wins or losses" if items else "no method is within noise of chance")
    return _finding("near_chance", metric, items, message=msg)


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
        items.append(FindingItem(method=p.method, dataset=p.dataset, value=rng,
                                 detail=f"seeds {seeds}: {vals} (range {rng:.3f})"))
    items.sort(key=lambda it: -it.value)
    msg = (f"{len(items)} (dataset, method) pair(s) move by more than {max_seed_range:g} between seeds: a difference "
           "smaller than that between methods is within run-to-run noise; report the spread" if items else
           f"no (dataset, method) moves by more than {max_seed_range:g} between seeds")
    return _finding("seed_variance", metric, items, message=msg, threshold=0.0)


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
        if any(not (a & b) for i, a in enumerate(sets) for b in sets[i + 1:]):
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
            items.append(FindingItem(detail=f"rank 1 by seed: {text}; {flips} of {k * (k - 1) // 2} method pairs "
                                            f"change order between seeds (average ranks over {len(common)} datasets)",
                                     value=float(flips)))
    msg = (f"the winner changes between seeds on {_plural(n_data, 'dataset')}"
           + ("; the leaderboard order itself changes between seeds" if len(items) > n_data else "")
           + ": a ranking from one seed is not reproducible; rank on the seed means and report the spread"
           if items else "the best method of every dataset and the leaderboard order agree across seeds")
    return _finding("rank_flips", metric, items, number=len(items), message=msg)


def _below_chance_level(pairs, metric):
    items = []
    chance = pairs["chance"].to_numpy(dtype=np.float64)
    with np.errstate(invalid="ignore"):
        hit = np.isfinite(chance) & (pairs["mean"].to_numpy(dtype=np.float64) < chance)
    for p in pairs[hit].itertuples(index=False):
        adj = (p.mean - p.chance) / (1.0 - p.chance)
        items.append(FindingItem(method=p.method, dataset=p.dataset, value=adj, detail=(
            f"{metric} {_fmt(p.mean)} < chance {p.chance:.4f} at n₊ = {int(p.n_pos)}, n₋ = {int(p.n_neg)} "
            f"(chance-adjusted {adj:.3f})")))
    items.sort(key=lambda it: it.value)
    msg = (f"{len(items)} value(s) are below what random scores reach at their prevalence: compare methods on the "
           "chance-adjusted (m − E[m])/(1 − E[m]) of Campos et al., not on the raw value" if items else
           f"every {metric} value is above its chance level at the known prevalence")
    return _finding("below_chance_level", metric, items, message=msg)


def run_checks(cells, *, alpha: float = 0.05, correction: str = "holm", majority: float = 0.5,
               max_seed_range: float = 0.1):
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
    findings, skipped = [], []
    for metric, g in cells.groupby("metric", sort=False):
        spec = metric_info(metric)
        pairs = _pairs(g)
        findings.append(_failed_runs(g, metric))
        findings.append(_missing_runs(g, metric))
        f = _no_spread(g, metric)
        if f is not None:
            findings.append(f)
            skipped.append(("single_run", metric, "no std and no seeds: the number of runs behind a value is not "
                                                  "stated (see no_spread)"))
        else:
            findings.append(_single_run(g, pairs, metric))
        if is_auroc(metric):
            findings.append(_inverted(pairs, metric, alpha=alpha, correction=correction))
            findings.append(_label_direction(pairs, metric, majority=majority))
            findings.append(_near_chance(pairs, metric, alpha=alpha))
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
                findings.append(_below_chance_level(pairs, metric))
            else:
                skipped.append(("below_chance_level", metric, "the class counts (prevalence) are unknown; pass "
                                                              "counts= to read_leaderboard"))
    return findings, skipped


def ranking_findings(result, *, size_threshold: int = 10):
    """The findings of a `RankingResult`: significance, size, ties with the best, coverage.

    See Also
    --------
    - [`auditad.leaderboards.rank_methods`][auditad.leaderboards.rank_methods]

    References
    ----------
    J. Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", JMLR 7, 1–30, 2006
    (the χ² approximation needs N > 10, k > 5; comparisons with a control by Wilcoxon and Holm).
    """
    fr, metric, alpha = result.friedman, result.metric, result.alpha
    out = []
    p = fr.iman_davenport_p_value
    if math.isnan(p) or p > alpha:
        msg = (f"the ranks of the {result.n_methods} methods over {result.n_datasets} datasets do not differ "
               f"significantly (Iman–Davenport p = {p:.2g}, Friedman χ² = {fr.statistic:.2f}, "
               f"p = {fr.p_value:.2g}): "
               "the leaderboard order is not supported by the data")
        status = "warn"
    else:
        msg = (f"the ranks differ (Iman–Davenport F = {fr.iman_davenport:.3g}, p = {p:.2g}; Friedman χ² = "
               f"{fr.statistic:.2f}, p = {fr.p_value:.2g}); Nemenyi CD = {result.critical_difference:.3f} ranks")
        status = "pass"
    out.append(Finding("ranking_significance", status, metric, float(p), alpha, "p <= threshold", (), msg))
    n = result.n_datasets
    if n <= size_threshold:
        min_p = 2.0 / 2 ** n
        msg = (f"N = {n} datasets: the Friedman χ² approximation is coarse (Demšar: N > 10, k > 5)"
               + (f", and no Wilcoxon test over {n} datasets can reach p < {alpha:g} (smallest p = {min_p:.3g})"
                  if min_p > alpha else "")
               + "; add datasets before reading the order")
        out.append(Finding("ranking_size", "warn", metric, float(n), float(size_threshold), "number > threshold",
                           (), msg))
    else:
        out.append(Finding("ranking_size", "pass", metric, float(n), float(size_threshold), "number > threshold",
                           (), f"N = {n} datasets, k = {result.n_methods} methods"))
    ranks = dict(zip(result.methods, result.average_ranks))
    pw = result.pairwise
    ctrl = pw[pw["method_a"] == result.best]
    from .ranking import holm_adjust

    p_ctrl = dict(zip(ctrl["method_b"], holm_adjust(ctrl["p_value"].to_numpy()) if len(ctrl) else []))
    items = [FindingItem(method=m, value=float(ranks[m]),
                         detail=f"average rank {ranks[m]:.2f} vs {ranks[result.best]:.2f}; Wilcoxon vs "
                                f"{result.best}: Holm p = {p_ctrl[m]:.2g}") for m in result.tied_with_best[1:]]
    msg = (f"{len(items)} method(s) are not significantly worse than the best, {result.best} (Wilcoxon signed-rank, "
           f"Holm over {len(ctrl)} comparisons, α = {alpha:g}); {len(result.within_cd_of_best()) - 1} lie within the "
           "Nemenyi CD of it: the top of the leaderboard is shared" if items else
           f"{result.best} is significantly better than every other method (Wilcoxon–Holm)")
    out.append(_finding("tied_with_best", metric, items, message=msg))
    not_run = [d for d, r in result.dropped_datasets if r.endswith("(not run)")]
    items = [FindingItem(dataset=d, detail=r) for d, r in result.dropped_datasets if d not in not_run] + \
            [FindingItem(method=m, detail=r) for m, r in result.dropped_methods]
    if not_run:
        items.append(FindingItem(detail=f"{_plural(len(not_run), 'dataset')} without any usable value (not run): "
                                        f"{_names(not_run)}"))
    msg = (f"the ranking uses {n} datasets and {result.n_methods} methods; {len(result.dropped_datasets)} dataset(s) "
           f"and {len(result.dropped_methods)} method(s) were left out ({result.missing.replace('_', ' ')}, complete "
           "case): a method missing on a hard dataset is not penalised" if items else
           f"every dataset and method of the table enters the ranking (N = {n}, k = {result.n_methods})")
    out.append(_finding("ranking_coverage", metric, items, message=msg))
    return out
