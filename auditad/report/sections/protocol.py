"""Report section: the class-split protocol ([`auditad.protocol.audit_protocol`][auditad.protocol.audit_protocol])."""

from __future__ import annotations

from typing import Mapping

from .._slug import unique_slug
from ..._format import count, name_list, percent as pct, real, stat as fmt
from ...plotting.protocol import MAX_HEATMAP_CLASSES
from . import FigureSpec, Section, TableSpec, info

ID = "protocol"
REFERENCES = (("testing-the-test", "§2"), ("delong", ""))
#: Rows of the lowest-AUROC table shown when the heatmap gives way to the AUROC profile.
LOWEST_CLASSES = 20


def applicable(ctx) -> str | None:
    """None: the section runs for class labels (class-split protocol) and anomaly labels (semi-supervised)."""
    return None


def semi_supervised(ctx) -> bool:
    """Whether the benchmark has anomaly labels only: the detectors run in the standard semi-supervised setting."""
    return getattr(ctx.inputs, "kind", "classes") == "anomaly"


def build(ctx) -> Section:
    """The protocol section from ``ctx.results["protocol"]`` (not applicable without semantic classes)."""
    reason = applicable(ctx)
    if reason is not None:
        return Section(
            ID,
            info(ID).title,
            status="not_applicable",
            reason=reason,
            summary={"status": "not_applicable", "reason": reason},
        )
    name = ctx.name
    res = ctx.results[ID]
    out = res.to_dict()
    out["test_normals_subsampled"] = res.test_normals_subsampled
    out["setting"] = "semi_supervised" if semi_supervised(ctx) else "class_split"
    if semi_supervised(ctx):
        _one_task_summary(out, res)
    else:
        out["inverted_detectors"] = {
            "status": "not_applicable",
            "reason": "class-split protocol: inversions are counted per held-out class (protocol.worst.rho_inv_sig)",
        }
    import pandas as pd

    from ...protocol import MEAN

    rows = (
        one_task_rows(out)
        if semi_supervised(ctx)
        else [
            summary_row(rep, det, s)
            for rep, summ in res.summaries.items()
            for det, s in (*summ.detectors.items(), (MEAN, summ.ensemble))
        ]
    )
    tables = [
        TableSpec(
            "protocol_summary",
            (
                f"{name}: normals vs labelled anomalies (semi-supervised), per representation and detector"
                if semi_supervised(ctx)
                else f"{name}: class-split protocol ({res.protocol}, epsilon = {res.epsilon:g}) per representation "
                "and detector"
            ),
            pd.DataFrame(rows),
            ID,
        )
    ]
    wide = pd.DataFrame([{k: row[k] for k in ("class", "n_pos", "n_neg")} for row in res.per_class()])
    if semi_supervised(ctx):  # one task: the held-out group is the labelled anomalies, not a class
        wide = wide.drop(columns="class").rename(columns={"n_pos": "n_anomalies", "n_neg": "n_normals"})
        wide.insert(0, "task", ONE_TASK)
    for rep in res.representation_names:
        for det in (*res.detector_names, MEAN):
            wide[f"{rep}/{det}"] = res.aurocs(rep, det)
    tables.append(
        TableSpec(
            "protocol_auroc",
            f"{name}: AUROC(c) per held-out class, representation/detector",
            wide,
            ID,
            compact=wide.shape[0] <= 40,
        )
    )
    tables.append(
        TableSpec(
            "protocol_per_class",
            f"{name}: per-class protocol results (long form)",
            res.to_frame("per_class"),
            ID,
            compact=False,
        )
    )
    if len(res.classes) > MAX_HEATMAP_CLASSES:
        tables.append(
            TableSpec(
                "protocol_lowest_classes",
                f"{name}: the {LOWEST_CLASSES} held-out classes of lowest "
                f"detector-mean AUROC(c) per representation (all {count(len(res.classes))} classes: "
                "the per-class CSV)",
                lowest_classes(res, LOWEST_CLASSES),
                ID,
            )
        )
    figures = []
    taken: set = set()
    for rep in res.representation_names:
        slug = unique_slug(rep, taken)
        figures.append(_per_class_figure(name, rep, slug, res))
        if res.leakage_k is None:  # the semi-supervised setting: one task, no per-class leakage
            continue

        def scatter(rep=rep):
            from ...plotting import leakage_vs_auroc_figure

            return leakage_vs_auroc_figure(res, representations=[rep])

        figures.append(
            FigureSpec(
                f"leakage_vs_auroc_{slug}",
                f"{name}, {rep}: per-class leakage L_k(c) against the ensemble (detector-mean) AUROC(c)",
                scatter,
                ID,
            )
        )
    title = info(ID).title
    if semi_supervised(ctx):  # one task: no class split, no direction to compare
        title = "Normals vs labelled anomalies: each detector's AUROC (semi-supervised: fitted on normals only)"
    return Section(ID, title, summary=out, tables=tuple(tables), figures=tuple(figures), references=REFERENCES)


#: The class-split rates: undefined for one evaluation task (normals vs labelled anomalies).
CLASS_SPLIT_RATES = ("sigma2_auc", "std_auc", "range_auc", "rho_rnd", "rho_inv", "rho_dir", "rho_inv_sig", "rho_nonsig")


def _one_task_summary(out: dict, res) -> None:
    """The protocol summary of anomaly-labelled data (one task): the class-split rates are not applicable (null
    in the averages, a stated reason in the worst-pair block), and ``inverted_detectors`` counts the
    (representation, detector) pairs that score the labelled anomalies significantly below the normals."""
    why = {
        "status": "not_applicable",
        "reason": "one evaluation task (normals vs labelled anomalies): no class-split rate",
    }
    parts = [out, *out["representations"].values()]
    for worst in (part["worst"] for part in parts):
        for key in CLASS_SPLIT_RATES:
            worst.update({k: None for k in worst if k.startswith(key + "_")})
            worst.update({key: dict(why)} if key in worst else {})
    averages = [part.get(k) for part in parts for k in ("mean", "ensemble")]
    averages += [d for part in parts[1:] for d in (part.get("detectors") or {}).values()]
    for avg in (a for a in averages if isinstance(a, dict)):
        avg.update({key: None for key in (*CLASS_SPLIT_RATES, "n_inv_sig") if key in avg})
    out["inverted_detectors"] = sum(
        1
        for rep in res.representation_names
        for det in res.detector_names
        if "significantly inverted" in set(map(str, res.significance(rep, det)["category"]))
    )


#: The name of the one evaluation task of anomaly-labelled data.
ONE_TASK = "normals vs labelled anomalies"


def one_task_rows(summary: Mapping) -> list[dict]:
    """The summary table of anomaly-labelled data: one row per (representation, detector) with its AUROC, interval,
    two-sided test against ½ and decision (the stored per-task decision of the protocol ``summary``)."""
    keys = ("auroc", "ci_low", "ci_high", "p_value", "p_method", "significance")
    return [
        {
            "representation": row["representation"],
            "detector": row["detector"],
            "task": ONE_TASK,
            "n_anomalies": row["n_pos"],
            "n_normals": row["n_neg"],
            **{k: row.get(k) for k in keys},
        }
        for part in summary["representations"].values()
        for row in part["per_class"]
    ]


def summary_row(representation: str, detector: str, s) -> dict:
    """One row of the summary table: the statistics the page shows of a
    [`DetectorSummary`][auditad.protocol.DetectorSummary]."""
    return {
        "representation": representation,
        "detector": detector,
        "mean_auc": s.mean_auc,
        "sigma2_auc": s.sigma2_auc,
        "range_auc": s.range_auc,
        "rho_rnd": s.rho_rnd,
        "rho_inv": s.rho_inv,
        "rho_inv_sig": s.rho_inv_sig,
        "rho_dir": s.rho_dir,
        "rho_nonsig": s.rho_nonsig,
        "spearman_leakage_auroc": s.spearman_leakage_auroc,
    }


def semi_supervised_reading(p: Mapping) -> str:
    """Reading of the detectors on anomaly-labelled data: each detector's AUROC with its interval and test."""
    st = p.get("settings") or {}
    text = (
        "The benchmark has anomaly labels, no semantic classes, so the detectors run in the standard "
        f"semi-supervised setting: each is fitted on {pct(st.get('train_fraction'), digits=0)} of the normals "
        "and scores the held-out normals and every anomaly"
        + (f", over {count(st.get('repeats'))} random splits" if (st.get("repeats") or 1) > 1 else "")
        + ". "
    )
    parts = []
    for rep, r in p["representations"].items():
        rows = [row for row in r["per_class"] if row["detector"] != "ensemble"]
        for row in rows:
            if row["auroc"] is None:
                continue
            ci = f" [{fmt(row['ci_low'])}, {fmt(row['ci_high'])}]" if row.get("ci_low") is not None else ""
            parts.append(f"{row['detector']} on {rep} {fmt(row['auroc'])}{ci} ({row.get('significance')})")
    if parts:
        text += "AUROC per detector: " + "; ".join(parts) + ". "
        first = next(iter(p["representations"].values()))["per_class"][0]
        text += (
            f"They were measured on {count(first['n_pos'])} anomalies and {count(first['n_neg'])} held-out "
            "normals; the random-baseline section places each on its null at these counts."
        )
    return text.strip()


def _per_class_figure(name: str, rep: str, slug: str, res) -> FigureSpec:
    """The class x detector heatmap up to MAX_HEATMAP_CLASSES classes, the AUROC profile above."""
    if len(res.classes) <= MAX_HEATMAP_CLASSES:

        def heat():
            from ...plotting import protocol_heatmap_figure

            return protocol_heatmap_figure(res, representations=[rep])

        return FigureSpec(
            f"protocol_heatmap_{slug}",
            f"{name}, {rep}: AUROC per held-out class and detector "
            f"(dashed frame: near random, |AUROC - 0.5| <= {res.epsilon:g})",
            heat,
            ID,
        )

    def profile():
        from ...plotting import protocol_profile_figure

        return protocol_profile_figure(res, representations=[rep])

    return FigureSpec(
        f"protocol_profile_{slug}",
        f"{name}, {rep}: AUROC(c) of the {count(len(res.classes))} "
        "held-out classes sorted per detector (where a curve crosses 0.5: the share of inverted "
        f"classes; grey band: near random, |AUROC - 0.5| <= {res.epsilon:g})",
        profile,
        ID,
    )


def lowest_classes(res, n: int):
    """Table of the ``n`` classes of lowest detector-mean AUROC(c) in each representation (ties by class order)."""
    import numpy as np
    import pandas as pd

    from ...protocol import MEAN

    rows = []
    per = res.per_class()
    for rep in res.representation_names:
        mean = np.asarray(res.aurocs(rep, MEAN), dtype=float)
        order = np.lexsort((np.arange(mean.size), np.where(np.isfinite(mean), mean, np.inf)))[:n]
        for rank, i in enumerate(order, 1):
            row = {
                "representation": rep,
                "rank": rank,
                "class": per[i]["class"],
                "n_pos": per[i]["n_pos"],
                "n_neg": per[i]["n_neg"],
            }
            row.update({det: res.aurocs(rep, det)[i] for det in (*res.detector_names, MEAN)})
            rows.append(row)
    return pd.DataFrame(rows)


def _least_stable(dets: Mapping) -> str:
    """The sentence about the detectors' ρ_dir: the least stable one, or what is true when they are all equal."""
    values = {d: v["rho_dir"] for d, v in dets.items() if v["rho_dir"] is not None}
    if len(dets) < 2 or not values:
        return ""
    hi, lo = max(values.values()), min(values.values())
    if hi == lo:
        if hi == 0:
            return "No detector's score direction flips between classes (ρ_dir = 0 for each). "
        return f"Every detector has the same ρ_dir = {fmt(hi)}. "
    worst = [d for d, v in values.items() if v == hi]
    if len(worst) > 1:
        return f"Per detector, the least stable are {', '.join(worst)} (ρ_dir = {fmt(hi)} each). "
    return f"Per detector, the least stable is {worst[0]} (ρ_dir = {fmt(hi)}). "


def reading(p: Mapping, *, conditions: Mapping | None = None) -> str:
    """Plain-language reading of the protocol part of a summary.

    ``conditions["protocol"]``, the result of the default gate on the worst ρ_dir, decides the sentence
    about the threshold (left out when it was not evaluated). Anomaly-labelled data (``setting``
    ``"semi_supervised"``) get `semi_supervised_reading`.
    """
    if p.get("setting") == "semi_supervised":
        return semi_supervised_reading(p)
    m, w = p["mean"], p.get("worst") or {}
    K = m["n_classes"]
    reps = p["representation_names"]
    rep = reps[0]
    eps = p["epsilon"]
    kind = (
        "held out as anomalies (K−1 vs 1)"
        if p["protocol"] == "leave_one_class_out"
        else "taken as the normal class (1 vs K−1)"
    )
    text = (
        f"Each of the {count(K)} classes was {kind} in turn, for each detector and representation. The rates "
        "are computed per (representation, detector) pair and averaged over the detectors, as in “Testing "
        "the Test”. "
    )
    for name in reps:
        a = p["representations"][name].get("mean") or (m if name == rep else None)
        if not a:
            continue
        text += (
            f"In {name}, averaged over the detectors: AUROC {fmt(a['mean_auc'])}, σ²_AUC = "
            f"{real(a['sigma2_auc'])}, {pct(a['rho_inv'], digits=0)} of the (class, detector) pairs inverted "
            f"(AUROC < ½; {pct(a.get('rho_inv_sig'), digits=0)} significantly, Holm-corrected), "
            f"{pct(a['rho_rnd'], digits=0)} near random (|AUROC − ½| ≤ ε = {eps:g}), ρ_dir = {fmt(a.get('rho_dir'))}. "
        )
    if p.get("test_normals_subsampled"):
        text += (
            f"The test normals were subsampled to at most {count(p['settings'].get('max_test_normals'))} per "
            "task (max_test_normals), so these AUROCs are estimated on that subsample. "
        )
    recall = {r: v for r, v in ((p.get("settings") or {}).get("neighbour_recall") or {}).items() if v is not None}
    if recall:
        shown = fmt(min(recall.values())) if len(recall) == 1 else ", ".join(f"{r} {fmt(v)}" for r, v in recall.items())
        text += (
            f"The kNN and LOF neighbours were found by approximate search; measured against exact search on "
            f"{count(p['settings'].get('neighbour_recall_queries'))} sampled rows per pass, their recall was "
            f"{shown} (lowest over the repeats). "
        )
    rho = w.get("rho_dir", m.get("rho_dir"))
    gate = (conditions or {}).get("protocol")
    if rho is None:
        text += "The rates are undefined (no class could be evaluated). "
    elif rho == 0:
        text += (
            "Every detector keeps the same score direction for every class, so an AUROC averaged over the "
            "classes does not mix opposite behaviours. "
        )
    elif gate is not None and gate.passed:
        text += (
            f"The largest ρ_dir of a detector is at most {gate.rule.threshold:g}, the threshold of the default "
            "gate: a few classes behave unlike the rest; check the heatmap before averaging AUROC over classes. "
        )
    elif gate is not None:
        text += (
            f"The largest ρ_dir of a detector is above {gate.rule.threshold:g}, the threshold of the default "
            "gate: its score direction flips between held-out classes, as on CIFAR-10 and Imagenette in \u201cTesting the Test\u201d (ρ_dir up "
            "to 63 %): an AUROC averaged over classes hides opposite behaviours. "
        )
    text += _least_stable(p["representations"][rep]["detectors"])
    if w.get("rho_dir_where") and len(reps) > 1:
        text += (
            f"Over every representation, the least stable pair is {w['rho_dir_where']} (ρ_dir = {fmt(w['rho_dir'])}). "
        )
    text += _spearman(p, rep)
    text += _interval_sources(p)
    return text.strip()


def _interval_sources(p: Mapping) -> str:
    """What the per-class intervals and tests cover (the variance sources), read from the stored decision."""
    rows = [
        (rep, row)
        for rep, r in p["representations"].items()
        if isinstance(r.get("per_class"), list)
        for row in r["per_class"]
        if row.get("interval_covers")
    ]
    if not rows:
        return ""
    combined = [f"{row['class']} ({row['detector']} on {rep})" for rep, row in rows if row.get("p_method") == "rubin"]
    pooled = sum(1 for _, row in rows if row.get("p_method") == "pooled")
    single = len(rows) - len(combined) - pooled
    text = ""
    if single:
        text += (
            f" The per-class intervals and tests of {count(single)} (class, detector) pairs cover the test samples "
            "of one draw (one split, one detector seed)"
        )
        text += "; " if combined or pooled else ". "
    if pooled:
        text += (
            ("t" if single else " T")
            + f"hose of {count(pooled)} pairs cover the test samples of one draw and the between-draw variance "
            "(detector seeds and splits) measured on the re-run classes of the same detector"
        )
        text += "; " if combined else ". "
    if combined:
        shown = name_list(combined[:10]) + (f" and {count(len(combined) - 10)} more" if len(combined) > 10 else "")
        text += (
            ("t" if single or pooled else " T")
            + f"hose of {shown} combine several draws by Rubin's rules and cover test samples, detector seeds and "
            "splits. "
        )
    sensitive = sum(1 for _, row in rows if row.get("significance") == "seed-sensitive")
    if sensitive:
        text += f"{count(sensitive)} (class, detector) pairs are seed-sensitive: their draws fall on both sides of ½. "
    return " " + text.strip()


def _spearman(p: Mapping, rep: str) -> str:
    """The sentence about the Spearman correlation of L_k(c) and the detector-mean AUROC(c), or why it is not stated."""
    leak = p["representations"][rep].get("leakage")
    if not leak:
        return ""
    sp = leak["spearman"].get("ensemble") or leak["spearman"].get("mean")
    rho = sp["statistic"]
    if rho is None:
        return (
            f"The Spearman correlation between a class's leakage L_k(c) and its AUROC(c) is not stated: "
            f"{sp['reason'] or 'it is undefined'}."
        )
    return (
        f"The Spearman correlation between a class's leakage L_k(c) and its AUROC(c) is {fmt(rho, digits=2)} "
        f"over {sp['n_pairs']} classes"
        + (
            ": classes that mix more with the others are harder to detect."
            if rho < -0.3
            else ": leakage and AUROC are positively related across classes."
            if rho > 0.3
            else ": leakage explains little of the class-to-class variation."
        )
    )
