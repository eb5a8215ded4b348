"""Report section: random-baseline nulls at each held-out class's test counts (:mod:`auditad.nulls`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from .._numbers import fmt, pct
from . import FigureSpec, Section, TableSpec, info

ID = "nulls"
REFERENCES = (("hermary", "§IV"), ("mann-whitney", ""))


@dataclass(frozen=True)
class ClassNulls:
    """The nulls of one held-out class.

    Attributes
    ----------
    label : class label
    n_pos, n_neg : int
        Test counts.
    by_rep : dict of representation -> (observed AUROC or nan, NullResult of AUROC with that observation)
    rest : NullResult or None
        The other metrics' nulls (classes with equal counts share one object).
    """

    label: object
    n_pos: int
    n_neg: int
    by_rep: dict
    rest: object

    @property
    def primary(self):
        """The AUROC null of the first representation."""
        return next(iter(self.by_rep.values()))[1]


#: Fields of a MetricNull that describe an observed score (left out where no score is placed on the null).
NO_OBSERVED = ("observed", "p_value", "p_method", "log10_p", "p_upper_bound")

def auroc_null_with_observed(n_pos: int, n_neg: int, observed: float, settings: Mapping, rng):
    """The AUROC null at (n_pos, n_neg) with the observed AUROC placed on it (its p-value and quantiles).

    Derivation kept in one place until ``NullResult.p_value(x)`` is available: then one null per class and
    ``p_value`` per representation.
    """
    from ...nulls import null_distribution

    obs = {"auroc": observed} if math.isfinite(observed) else None
    return null_distribution(n_pos, n_neg, metrics=("auroc",), method=settings["null_method"],
                             runs=settings["null_runs"], observed=obs, random_state=rng)


def run(ctx) -> dict:
    """Nulls per held-out class (and at the anomaly column's counts when there is one).

    Returns ``{"classes": [ClassNulls], "others": metric names, "anomaly_split": NullResult or None}``.
    """
    from ...nulls import null_distribution

    s = ctx.settings
    res = ctx.results.get("protocol")
    rows = [r for r in res.per_class_rows if r["detector"] == "mean"] if res is not None else []
    reps = list(ctx.inputs.benchmark.representations)
    observed = {rep: {r["class"]: r["auroc"] for r in rows if r["representation"] == rep} for rep in reps}
    counts = {r["class"]: (r["n_pos"], r["n_neg"]) for r in rows if r["representation"] == reps[0]}
    rng = np.random.default_rng([int(s["seed"]), 3])
    others = tuple(m for m in s["null_metrics"] if m != "auroc")  # the AUROC null is always computed
    cache: dict = {}  # (n_pos, n_neg) -> nulls of the other metrics (classes of equal size share them)
    classes = []
    for c in ([cc.item() for cc in res.classes] if res is not None else []):
        n_pos, n_neg = counts[c]
        if n_pos < 1 or n_neg < 1:
            continue
        if (n_pos, n_neg) not in cache:
            cache[(n_pos, n_neg)] = null_distribution(
                n_pos, n_neg, metrics=others, q=s["null_q"], method=s["null_method"], runs=s["null_runs"],
                random_state=rng) if others else None
        by_rep = {}
        for rep in reps:
            a = observed[rep].get(c, float("nan"))
            by_rep[rep] = (a, auroc_null_with_observed(n_pos, n_neg, a, s, rng))
        classes.append(ClassNulls(c, int(n_pos), int(n_neg), by_rep, cache[(n_pos, n_neg)]))
    split = None
    if "anomaly" in ctx.inputs.columns:
        a = ctx.inputs.columns["anomaly"]
        n_pos, n_neg = int(a.sum()), int(a.size - a.sum())
        split = null_distribution(n_pos, n_neg, metrics=("auroc",) + others, q=s["null_q"],
                                  method=s["null_method"], runs=s["null_runs"], random_state=rng)
    return {"classes": classes, "others": others, "anomaly_split": split}


def observed_shares(per_class: list, rep: str) -> dict:
    """Share of classes whose observed AUROC(c) exceeds the 95 % / 99 % quantile of its null, and the largest p."""
    obs = [pc["observed"][rep] for pc in per_class if pc["observed"][rep]["auroc"] is not None]
    if not obs:
        return {"n_observed": 0, "share_above_q95": None, "share_above_q99": None, "max_p_value": None}
    return {"n_observed": len(obs), "share_above_q95": float(np.mean([o["above_q95"] for o in obs])),
            "share_above_q99": float(np.mean([o["above_q99"] for o in obs])),
            "max_p_value": float(max(o["p_value"] for o in obs))}


def _null_stats(nr) -> dict:
    return {m.metric: {k: v for k, v in m.to_dict().items() if not k.startswith("hist_")
                       and k not in NO_OBSERVED} for m in nr.nulls}


def build(ctx) -> Section:
    """The nulls section from ``ctx.results["nulls"]``."""
    import pandas as pd

    name = ctx.name
    r = ctx.results[ID]
    reps = list(ctx.inputs.benchmark.representations)
    per_class, table_rows, long = [], [], []
    for cn in r["classes"]:
        obs_by_rep = {}
        for rep, (a, nr) in cn.by_rep.items():
            an = nr["auroc"]
            ok = math.isfinite(a)
            obs_by_rep[rep] = {"auroc": a if ok else None, "p_value": an.p_value if ok else None,
                               "above_q95": bool(a > an.q95) if ok else None,
                               "above_q99": bool(a > an.q99) if ok else None}
        primary, rest = cn.primary, cn.rest
        metric_nulls = list(primary.nulls) + (list(rest.nulls) if rest is not None else [])
        per_class.append({"class": cn.label, "n_pos": cn.n_pos, "n_neg": cn.n_neg, "ratio": primary.ratio,
                          "q": rest.q if rest is not None else None,
                          "nulls": {m.metric: {k: v for k, v in m.to_dict().items() if not k.startswith("hist_")
                                               and k not in NO_OBSERVED} for m in metric_nulls},
                          "observed": obs_by_rep})
        row = {"class": cn.label, "n_pos": cn.n_pos, "n_neg": cn.n_neg, "ratio": primary.ratio}
        for m in metric_nulls:
            row[f"{m.metric} mean"] = m.mean
            if m.metric == "auroc":
                row["auroc q99"] = m.q99
        for rep in reps:
            row[f"AUROC {rep}"] = obs_by_rep[rep]["auroc"]
            row[f"p {rep}"] = obs_by_rep[rep]["p_value"]
        table_rows.append(row)
        long.append(primary.to_frame().assign(**{"class": cn.label}))
        if rest is not None:
            long.append(rest.to_frame().assign(**{"class": cn.label}))
    primaries = {cn.label: cn.primary for cn in r["classes"]}
    out = {"representation": reps[0], "metrics": ["auroc", *r["others"]],
           "prediction": next(iter(primaries.values())).prediction if primaries else None,
           **observed_shares(per_class, reps[0]),
           "representations": {rep: observed_shares(per_class, rep) for rep in reps},
           "per_class": per_class, "anomaly_split": None}
    tables = []
    split = r["anomaly_split"]
    if split is not None:
        out["anomaly_split"] = {"n_pos": split.n_pos, "n_neg": split.n_neg, "ratio": split.ratio,
                                "nulls": _null_stats(split)}
        tables.append(TableSpec("nulls_anomaly_split", f"{name}: random baselines at the anomaly column's counts "
                                f"({split.n_pos} anomalies, {split.n_neg} normals)",
                                split.to_frame().drop(columns=list(NO_OBSERVED)), ID))
    frame = pd.DataFrame(table_rows)
    if table_rows:
        tables.append(TableSpec("nulls", f"{name}: random-baseline means at each held-out class's test counts, "
                                "observed detector-mean AUROC(c) and its p-value P(AUROC_null >= observed)",
                                frame, ID, compact=frame.shape[0] <= 40))
    figures = []
    if primaries:
        tables.append(TableSpec("nulls_per_class_all_metrics", f"{name}: null distributions per class "
                                "(all statistics)", pd.concat(long, ignore_index=True), ID, compact=False))
        shown = list(primaries.items())[:12]

        def figure():
            from matplotlib.figure import Figure

            from ...plotting import plot_null

            ncol = min(4, len(shown))
            nrow = -(-len(shown) // ncol)
            fig = Figure(figsize=(2.6 * ncol, 2.2 * nrow), layout="constrained")
            axes = fig.subplots(nrow, ncol, squeeze=False).ravel()
            for i, (c, nr) in enumerate(shown):
                ax = plot_null(nr, metric="auroc", ax=axes[i])
                ax.set_title(f"class {c} (n+ = {nr.n_pos}, n- = {nr.n_neg})", fontsize=8)
                ax.set_ylabel("")
                if i:
                    ax.get_legend().remove()
                else:
                    ax.legend(fontsize=6, loc="upper left")
            for ax in axes[len(shown):]:
                ax.set_visible(False)
            return fig

        more = f" (first {len(shown)} of {len(primaries)} classes)" if len(primaries) > len(shown) else ""
        figures.append(FigureSpec("nulls_auroc", f"{name}, {reps[0]}: exact/Monte Carlo null of AUROC at each "
                                  f"held-out class's test counts with the observed detector-mean AUROC(c){more}",
                                  figure, ID))
    return Section(ID, info(ID).title, summary=out, tables=tuple(tables), figures=tuple(figures),
                   reading=reading(out), references=REFERENCES)


def reading(n: Mapping) -> str:
    """Plain-language reading of the nulls part of a summary."""
    pcs = n["per_class"]
    split = n.get("anomaly_split")
    split_text = _split_reading(split) if split else ""
    if isinstance(pcs, Mapping):  # moved to a CSV file (more classes than summary.json keeps inline)
        return (f"The nulls of the {pcs['n_rows']} held-out classes are in {pcs['csv']}. " + split_text).strip()
    if not pcs:
        return split_text or "No class-split task could be evaluated, so no null was computed."
    npos = [pc["n_pos"] for pc in pcs]
    nneg = [pc["n_neg"] for pc in pcs]
    ratios = [pc["ratio"] for pc in pcs]

    def span(lo, hi, show=str):
        return show(lo) if show(lo) == show(hi) else f"{show(lo)}–{show(hi)}"

    first = pcs[0]["nulls"]
    text = (f"Each held-out class gives a test set of {span(min(npos), max(npos))} anomalies and "
            f"{span(min(nneg), max(nneg))} normals (anomaly share {span(min(ratios), max(ratios), pct)}). At these "
            f"counts a detector that scores at random gets AUROC ½ ± {fmt(first['auroc']['std'])} (99 % quantile "
            f"{fmt(first['auroc']['q99'])})")
    if "ap" in first:
        text += f", AP ≈ {fmt(first['ap']['mean'])} (the anomaly share, not 0)"
    if "f1" in first:
        q = pcs[0].get("q")
        how = "coin-flip predictions" if q in (None, 0.5) else f"random predictions flagging {pct(q)} of the samples"
        text += f" and F1 ≈ {fmt(first['f1']['mean'])} with {how}"
    text += ". "
    k = n["n_observed"]
    if k:
        above = round(n["share_above_q99"] * k)
        text += (f"{above} of {k} observed AUROC(c) ({n['representation']}, mean over detectors) exceed the 99 % "
                 "quantile of their null")
        weak = [str(pc["class"]) for pc in pcs if pc["observed"][n["representation"]]["above_q95"] is False]
        if weak:
            text += (f"; class{'es' if len(weak) > 1 else ''} {', '.join(weak)} cannot be told apart from a random "
                     "detector at the 5 % level.")
        else:
            text += "; every class is clearly above the random baseline."
    return (text + (" " + split_text if split_text else "")).strip()


def _split_reading(split: Mapping) -> str:
    """The sentence about the null at the anomaly labels' own counts."""
    nl = split["nulls"]
    text = (f"At the anomaly labels' own counts ({split['n_pos']} anomalies, {split['n_neg']} normals, anomaly share "
            f"{pct(split['ratio'])}) a detector that scores at random gets AUROC ½ ± {fmt(nl['auroc']['std'])} (99 % "
            f"quantile {fmt(nl['auroc']['q99'])})")
    if "ap" in nl:
        text += f" and AP ≈ {fmt(nl['ap']['mean'])}"
    return text + "."
