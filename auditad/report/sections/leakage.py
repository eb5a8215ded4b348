"""Report section: neighbourhood class leakage L_k ([`auditad.leakage.leakage`][auditad.leakage.leakage])."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from ..._format import name_list, percent as pct, real, stat as fmt
from . import FigureSpec, Section, TableSpec, info

ID = "leakage"
REFERENCES = (("testing-the-test", "section on neighbourhood class leakage"),)


def max_leakage(per_rep: Mapping) -> float:
    """Largest L_k over the representations (``leakage.max_L_k``, a gate path)."""
    return max(r.L_k for r in per_rep.values())


def build(ctx) -> Section:
    """The leakage section from ``ctx.results["leakage"]``."""
    import pandas as pd

    name = ctx.name
    per_rep = ctx.results[ID]["representations"]
    col_res = ctx.results[ID]["columns"]
    # the headline is the largest L_k (ties: first name in sorted order), never the first representation given
    first = min(per_rep, key=lambda rep: (-per_rep[rep].L_k if np.isfinite(per_rep[rep].L_k) else np.inf, str(rep)))
    main = per_rep[first]
    main_dict = main.to_dict()
    out = {
        key: main_dict[key] for key in ("k", "L_k", "chance", "ratio_to_chance", "by_k", "metric", "backend", "recall")
    }
    out["representation"] = first
    out["representations"] = {rep: r.to_dict() for rep, r in per_rep.items()}
    out["max_L_k"] = max_leakage(per_rep)
    cols = {}
    for col, res in col_res.items():
        if res is None:
            cols[col] = None
            continue
        r0 = res[first]
        cols[col] = {
            "k": r0.k,
            "L_k": r0.L_k,
            "chance": r0.chance,
            "ratio_to_chance": r0.ratio_to_chance,
            "n_values": int(r0.classes.size),
            "representations": {
                rep: {"L_k": r.L_k, "chance": r.chance, "ratio_to_chance": r.ratio_to_chance} for rep, r in res.items()
            },
        }
    out["columns"] = cols

    tables = []
    frame = pd.concat([r.to_frame().assign(representation=rep) for rep, r in per_rep.items()], ignore_index=True)
    frame = frame[["representation", "k", "leakage", "chance", "ratio_to_chance"]]
    tables.append(
        TableSpec(
            "leakage",
            f"{name}: neighbourhood class leakage L_k per representation and k "
            "(chance = L_k of randomly drawn neighbours)",
            frame,
            ID,
        )
    )
    wide = None
    for rep, r in per_rep.items():
        f = pd.DataFrame(
            {
                "class": [c.item() for c in r.classes],
                "n": r.class_sizes.astype(int),
                "chance": r.chance_per_class,
                f"L_k(c) {rep}": r.per_class_leakage,
            }
        )
        wide = f if wide is None else wide.merge(f[["class", f"L_k(c) {rep}"]], on="class")
    tables.append(
        TableSpec(
            "leakage_per_class",
            f"{name}: per-class leakage L_k(c) at k = {main.k}",
            wide,
            ID,
            compact=wide.shape[0] <= 40,
        )
    )
    tables.append(
        TableSpec(
            "leakage_per_class_all_k",
            f"{name}: per-class leakage at every k",
            pd.concat(
                [r.per_class_frame().assign(representation=rep) for rep, r in per_rep.items()], ignore_index=True
            ),
            ID,
            compact=False,
        )
    )
    if any(v is not None for v in cols.values()):
        rows = [
            {
                "column": col,
                "representation": rep,
                "k": v["k"],
                "leakage": rv["L_k"],
                "chance": rv["chance"],
                "ratio_to_chance": rv["ratio_to_chance"],
            }
            for col, v in cols.items()
            if v is not None
            for rep, rv in v["representations"].items()
        ]
        tables.append(
            TableSpec(
                "leakage_columns",
                f"{name}: leakage of the other label columns (share of neighbours with another value)",
                pd.DataFrame(rows),
                ID,
            )
        )

    def figure():
        from ...plotting import leakage_curves_figure

        return leakage_curves_figure(per_rep)

    figures = [
        FigureSpec(
            "leakage_vs_k", f"{name}: leakage L_k against k per representation; dotted: chance level", figure, ID
        )
    ]
    title = (
        info(ID).title
        if getattr(ctx.inputs, "kind", "classes") != "anomaly"
        else "Neighbourhood leakage between normals and labelled anomalies"
    )
    return Section(ID, title, summary=out, tables=tuple(tables), figures=tuple(figures), references=REFERENCES)


def _most_mixed(per: list) -> str:
    """The sentence about the per-class values: the most mixed class, or what is true when they are all equal."""
    values = [p["leakage"] for p in per if p["leakage"] is not None]
    if not values:
        return ""
    if max(values) == min(values):
        if max(values) == 0:
            return "No class has a neighbour from another class: L_k(c) = 0 for every class."
        return f"Every class has the same L_k(c) = {fmt(values[0])}."
    worst = max(per, key=lambda p: -1.0 if p["leakage"] is None else p["leakage"])
    tied = [p for p in per if p["leakage"] == worst["leakage"]]
    if len(tied) > 1:
        names = name_list([p["class"] for p in tied])
        return f"The most mixed classes are {names} (L_k(c) = {fmt(worst['leakage'])} each)."
    return (
        f"The most mixed class is {worst['class']} (L_k(c) = {fmt(worst['leakage'])}, chance {fmt(worst['chance'])})."
    )


def _recall(lk: Mapping) -> str:
    """The sentence about the approximate kNN backend's measured recall (empty for exact search)."""
    recalls = {rep: v.get("recall") for rep, v in lk["representations"].items() if v.get("recall") is not None}
    if not recalls:
        return ""
    shown = (
        ", ".join(f"{rep} {fmt(v)}" for rep, v in recalls.items())
        if len(recalls) > 1
        else fmt(next(iter(recalls.values())))
    )
    exact = all(v >= 1.0 for v in recalls.values())
    return (
        f" The neighbours were found by approximate search (backend {lk['backend']!r}); its measured recall "
        f"against exact search on a sample of queries is {shown}"
        + (
            ": every sampled query found its exact neighbours."
            if exact
            else ", so L_k may differ slightly from the exact value."
        )
    )


def reading(lk: Mapping, *, kind: str = "classes", conditions: Mapping | None = None) -> str:
    """Plain-language reading of the leakage part of a summary (``kind`` of the benchmark's labels).

    ``conditions["leakage"]``, the result of the default gate on L_k, decides the sentence about the
    threshold (left out when it was not evaluated).
    """
    L, chance, k, rep = lk["L_k"], lk["chance"], lk["k"], lk["representation"]
    ratio = lk["ratio_to_chance"]
    gate = (conditions or {}).get("leakage")
    if kind == "anomaly":
        return (
            f"The benchmark has anomaly labels only, so the leakage is measured between normals and anomalies. "
            f"In the {rep} representation, on average {pct(L)} of each sample's {k} nearest neighbours carry the "
            f"other label (L_k = {fmt(L)}); neighbours drawn at random would give {pct(chance)}, so L_k is "
            f"{real(ratio)} times the chance level. The lower this ratio, the more the anomalies sit apart "
            "from the normals in this representation; near 1 they are mixed with the normals and a "
            "distance-based detector has little to go on."
        )
    if L == 0:
        text = (
            f"In the {rep} representation, none of the {k} nearest neighbours of any sample carries another "
            f"class label (L_k = 0), against {pct(chance)} for neighbours drawn at random. "
        )
    else:
        text = (
            f"In the {rep} representation, on average {pct(L)} of each sample's {k} nearest neighbours carry "
            f"another class label (L_k = {fmt(L)}); neighbours drawn at random would give {pct(chance)}, so L_k "
            f"is {real(ratio)} times the chance level (1 would mean the geometry does not separate the classes "
            "at all). "
        )
    if gate is not None and gate.passed:
        text += (
            f"L_k is at most {gate.rule.threshold:g}, the threshold of the default gate: the classes occupy "
            "separated regions, as for Fashion-MNIST (L_k ≈ 0.24) in \u201cTesting the Test\u201d, so a "
            "class-split protocol on this representation probes semantic novelty and the per-class AUROCs below can be read that way. "
        )
    elif gate is not None:
        text += (
            f"L_k is above {gate.rule.threshold:g}, the threshold of the default gate: the classes overlap, as "
            "for CIFAR-10 or Imagenette (L_k > 0.76 in \u201cTesting the Test\u201d), where the score "
            "direction of detectors flipped between held-out classes; per-class AUROCs on this representation say more about "
            "overlapping neighbours than about novelty detection. "
        )
    reps = lk["representations"]
    if len(reps) > 1:
        text += "Across representations: " + ", ".join(f"{r} {fmt(v['L_k'])}" for r, v in reps.items()) + ". "
    per = reps[rep]["per_class"]
    if isinstance(per, list) and per:
        text += _most_mixed(per)
    text += _recall(lk)
    for col, v in (lk.get("columns") or {}).items():
        if v:
            text += f" The {col} column mixes with L_k = {fmt(v['L_k'])} (chance {fmt(v['chance'])}): " + (
                "its values are well separated in the embedding."
                if v["ratio_to_chance"] is not None and v["ratio_to_chance"] < 0.5
                else "its values are hard to tell apart in the embedding."
            )
    return text.strip()
