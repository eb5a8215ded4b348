"""Report section: random-baseline nulls at each held-out class's test counts ([`auditad.nulls`][auditad.nulls])."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping


from ..._format import count, name_list, percent as pct, stat as fmt
from . import FigureSpec, Section, TableSpec, info

ID = "nulls"
REFERENCES = (("hermary", "§IV"), ("mann-whitney", ""))


#: Fields of a MetricNull that describe an observed score (left out where no score is placed on the null).
NO_OBSERVED = ("observed", "p_value", "p_method", "log10_p", "p_upper_bound")


def _null_stats(nr) -> dict:
    return {
        m.metric: {k: v for k, v in m.to_dict().items() if not k.startswith("hist_") and k not in NO_OBSERVED}
        for m in nr.nulls
    }


def _share_key(shares: dict) -> float:
    value = shares.get("share_above_q95")
    return float(value) if value is not None and value == value else float("inf")


def build(ctx) -> Section:
    """The nulls section from ``ctx.results["nulls"]``."""
    import pandas as pd

    from ...nulls import observed_shares

    name = ctx.name
    r = ctx.results[ID]
    reps = list(ctx.inputs.benchmark.representations)
    rows = _class_rows(r, reps)
    primaries = {cn.label: cn.null for cn in r["classes"]}
    shares = {rep: observed_shares(r["classes"], rep).to_dict() for rep in reps}
    # the headline: the representation with the fewest classes above the null's 95 % quantile (ties: name)
    head = min(reps, key=lambda rep: (_share_key(shares[rep]), str(rep)))
    out = {
        "representation": head,
        "metrics": ["auroc", *r["others"]],
        "prediction": next(iter(primaries.values())).prediction if primaries else None,
        **shares[head],
        "representations": shares,
        "per_class": rows.per_class,
        "anomaly_split": None,
    }
    tables = []
    split = r["anomaly_split"]
    if split is not None:
        out["anomaly_split"] = {
            "n_pos": split.n_pos,
            "n_neg": split.n_neg,
            "ratio": split.ratio,
            "nulls": _null_stats(split),
        }
        tables.append(
            TableSpec(
                "nulls_anomaly_split",
                f"{name}: random baselines at the anomaly column's counts "
                f"({split.n_pos} anomalies, {split.n_neg} normals)",
                split.to_frame().drop(columns=list(NO_OBSERVED)),
                ID,
            )
        )
    frame = pd.DataFrame(rows.table)
    if rows.table:
        tables.append(
            TableSpec(
                "nulls",
                f"{name}: random-baseline means at each held-out class's test counts, "
                "per representation the detector of lowest AUROC(c) (every detector: data/nulls_observed.csv) "
                "and its two-sided p-value of AUROC = \u00bd, the one of the protocol tables (the audit's "
                "per-class decision)",
                frame,
                ID,
                compact=frame.shape[0] <= 40,
                bounds=rows.bounds,
            )
        )
    if rows.observed:
        tables.append(
            TableSpec(
                "nulls_observed",
                f"{name}: every detector's AUROC(c) on the null of its class, with its p-value",
                pd.DataFrame(rows.observed),
                ID,
                compact=False,
            )
        )
    figures = []
    if primaries:
        tables.append(
            TableSpec(
                "nulls_per_class_all_metrics",
                f"{name}: null distributions per class (all statistics)",
                pd.DataFrame(rows.long),
                ID,
                compact=False,
            )
        )
        figures.append(_null_figure(name, r["classes"], reps[0], len(primaries)))
    title = (
        info(ID).title
        if getattr(ctx.inputs, "kind", "classes") != "anomaly"
        else "Random baselines at this benchmark's counts (normals vs labelled anomalies)"
    )
    return Section(ID, title, summary=out, tables=tuple(tables), figures=tuple(figures), references=REFERENCES)


@dataclass
class _ClassRows:
    """The per-class rows of the nulls section: summary entries, page table, CSVs and p-value bounds."""

    per_class: list = field(default_factory=list)
    table: list = field(default_factory=list)
    long: list = field(default_factory=list)
    bounds: dict = field(default_factory=dict)
    observed: list = field(default_factory=list)


def _class_rows(r: Mapping, reps: list) -> _ClassRows:
    """One entry per held-out class in each of the section's row lists."""
    out = _ClassRows()
    shared: dict = {}  # one null per distinct pair of counts: its statistics and rows are built once
    for cn in r["classes"]:
        if id(cn.null) not in shared:
            shared[id(cn.null)] = (_null_stats(cn.null), cn.null.to_frame().to_dict("records"))
        stats, rows = shared[id(cn.null)]
        obs_by_rep: dict = {rep: {} for rep in reps}
        for (rep, det), o in cn.observed.items():
            obs_by_rep[rep][det] = o.to_dict()
        out.per_class.append(
            {
                "class": cn.label,
                "n_pos": cn.n_pos,
                "n_neg": cn.n_neg,
                "ratio": cn.null.ratio,
                "q": cn.null.q if r["others"] else None,
                "nulls": {metric: dict(v) for metric, v in stats.items()},
                "observed": obs_by_rep,
            }
        )
        row = {"class": cn.label, "n_pos": cn.n_pos, "n_neg": cn.n_neg}
        for m in cn.null.nulls:
            row[f"{m.metric} mean"] = m.mean
            if m.metric == "auroc":
                row["auroc q99"] = m.q99
        full = {**row, "ratio": cn.null.ratio}
        methods = {}
        for rep in reps:  # the page shows the detector of lowest AUROC(c); every detector is in the CSV
            low = cn.lowest(rep)
            row[f"lowest AUROC {rep}"] = low[1].auroc if low else None
            row[f"detector {rep}"] = low[0] if low else None
            row[f"p {rep}"] = low[1].p_value if low else None
            out.bounds.setdefault(f"p {rep}", []).append(low[1].p_upper_bound if low else False)
            methods[rep] = low[1].p_method if low else ""
        for (rep, det), o in cn.observed.items():
            full[f"AUROC {rep}/{det}"] = obs_by_rep[rep][det]["auroc"]
            full[f"p {rep}/{det}"] = obs_by_rep[rep][det]["p_value"]
            full[f"p method {rep}/{det}"] = o.p_method or None
        full["p method (lowest)"] = _methods(methods)
        out.table.append(row)
        out.observed.append(full)
        out.long.extend({**row, "class": cn.label} for row in rows)
    return out


def _null_figure(name: str, classes, rep: str, n_classes: int) -> FigureSpec:
    """The AUROC nulls of (at most `MAX_NULL_PANELS`) classes, each with its lowest detector AUROC(c) in ``rep``."""
    lowest = [(cn, cn.lowest(rep)) for cn in classes]
    chosen = lowest
    if len(lowest) > MAX_NULL_PANELS:  # the classes closest to (or below) chance, in class order
        keep = sorted(range(len(lowest)), key=lambda i: lowest[i][1][1].auroc if lowest[i][1] else -1.0)
        keep = set(keep[:MAX_NULL_PANELS])
        chosen = [x for i, x in enumerate(lowest) if i in keep]
    shown = [
        (
            f"{cn.label} ({low[0]})" if low else cn.label,
            replace(
                cn.null,
                nulls=(
                    replace(
                        cn.null["auroc"],
                        observed=low[1].auroc,
                        p_value=low[1].p_value,
                        log10_p=low[1].log10_p_value,
                        p_method=low[1].p_method,
                        p_upper_bound=low[1].p_upper_bound,
                    ),
                ),
            )
            if low
            else cn.null,
        )
        for cn, low in chosen
    ]

    def figure():
        from ...plotting import nulls_figure

        return nulls_figure(dict(shown), metric="auroc", max_panels=len(shown))

    which = (
        f"the {len(shown)} of {n_classes} classes whose lowest detector AUROC(c) is closest to "
        "chance (all classes: the nulls table)"
        if n_classes > len(shown)
        else "every class"
    )
    return FigureSpec(
        "nulls_auroc",
        f"{name}, {rep}: exact/Monte Carlo null of AUROC at each "
        f"held-out class's test counts, with the lowest detector AUROC(c) of the class "
        f"(detector in brackets); {which}",
        figure,
        ID,
    )


#: Largest number of classes drawn in the null figure (beyond it: those closest to chance, said in the caption).
MAX_NULL_PANELS = 15

#: Short names of the p-value methods (`auditad.nulls.MetricNull.p_method`) for the nulls table.
P_METHODS = {
    "exact": "exact",
    "exact_tail": "exact tail",
    "normal": "normal",
    "normal_tie_corrected": "normal (ties)",
    "chernoff_bound": "Chernoff",
    "monte_carlo": "Monte Carlo",
    "exact_bound": "exact bound",
}


def _methods(by_rep: Mapping) -> str | None:
    """One cell naming how the p-values of a row were computed (per representation when they differ)."""
    named = {rep: P_METHODS.get(m, m) for rep, m in by_rep.items() if m}
    if not named:
        return None
    if len(set(named.values())) == 1:
        return next(iter(named.values()))
    return " / ".join(named.get(rep, "\u2013") for rep in by_rep)


def reading(n: Mapping) -> str:
    """Plain-language reading of the nulls part of a summary."""
    pcs = n["per_class"]
    split = n.get("anomaly_split")
    split_text = _split_reading(split) if split else ""
    if isinstance(pcs, Mapping):  # moved to a CSV file (more classes than summary.json keeps inline)
        return (f"The nulls of the {count(pcs['n_rows'])} held-out classes are in {pcs['csv']}. " + split_text).strip()
    if not pcs:
        return split_text or "No class-split task could be evaluated, so no null was computed."
    npos = [pc["n_pos"] for pc in pcs]
    nneg = [pc["n_neg"] for pc in pcs]
    ratios = [pc["ratio"] for pc in pcs]

    def span(lo, hi, show=str):
        return show(lo) if show(lo) == show(hi) else f"{show(lo)}–{show(hi)}"

    first = pcs[0]["nulls"]
    sds = [pc["nulls"]["auroc"]["std"] for pc in pcs]
    q99s = [pc["nulls"]["auroc"]["q99"] for pc in pcs]
    text = (
        f"Each held-out class gives a test set of {span(min(npos), max(npos))} anomalies and "
        f"{span(min(nneg), max(nneg))} normals (anomaly share {span(min(ratios), max(ratios), pct)}). At these "
        f"counts a detector that scores at random gets AUROC ½ ± {span(min(sds), max(sds), fmt)} (99 % quantile "
        f"{span(min(q99s), max(q99s), fmt)}, over the {count(len(pcs))} classes)"
    )
    if "ap" in first:
        aps = [pc["nulls"]["ap"]["mean"] for pc in pcs]
        text += f", AP ≈ {span(min(aps), max(aps), fmt)} (the anomaly share, not 0)"
    if "f1" in first:
        q = pcs[0].get("q")
        f1s = [pc["nulls"]["f1"]["mean"] for pc in pcs]
        how = "coin-flip predictions" if q in (None, 0.5) else f"random predictions flagging {pct(q)} of the samples"
        text += f" and F1 ≈ {span(min(f1s), max(f1s), fmt)} with {how}"
    text += ". "
    k = n["n_observed"]
    if k:
        above = round(n["share_above_q99"] * k)
        text += (
            f"{count(above)} of {count(k)} observed (class, detector) AUROCs in {n['representation']} exceed the "
            "99 % quantile of their null"
        )
        text += _decided_reading(pcs, n["representation"])
    return (text + (" " + split_text if split_text else "")).strip()


def _decided_reading(pcs: list, rep: str) -> str:
    """The clause naming the (class, detector) pairs the per-class decision cannot tell from a random detector
    (two-sided, Holm-corrected) and the seed-sensitive ones; it reads the stored decision, never a test of its own."""
    pairs = [
        (pc["class"], det, o) for pc in pcs for det, o in pc["observed"][rep].items() if o.get("auroc") is not None
    ]
    sensitive = [f"{c} ({det})" for c, det, o in pairs if o.get("status") == "seed-sensitive"]
    weak = [
        f"{c} ({det})"
        for c, det, o in pairs
        if o.get("distinguishable") is False and o.get("status") != "seed-sensitive"
    ]
    text = ""
    if weak:
        text += (
            f"; {name_list(weak)} cannot be told apart from a random detector (two-sided test, Holm-corrected, "
            "as in the protocol table)"
        )
    if sensitive:
        text += f"; {name_list(sensitive)} are seed-sensitive (their draws fall on both sides of ½)"
    if not weak and not sensitive:
        text += "; every (class, detector) AUROC differs from a random detector's (two-sided, Holm-corrected)"
    return text + "."


def _split_reading(split: Mapping) -> str:
    """The sentence about the null at the anomaly labels' own counts."""
    nl = split["nulls"]
    text = (
        f"At the anomaly labels' own counts ({split['n_pos']} anomalies, {split['n_neg']} normals, anomaly share "
        f"{pct(split['ratio'])}) a detector that scores at random gets AUROC ½ ± {fmt(nl['auroc']['std'])} (99 % "
        f"quantile {fmt(nl['auroc']['q99'])})"
    )
    if "ap" in nl:
        text += f" and AP ≈ {fmt(nl['ap']['mean'])}"
    return text + "."
