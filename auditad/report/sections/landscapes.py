"""Report section: metric landscapes at the benchmark's anomaly ratio ([`auditad.landscapes`][auditad.landscapes])."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from ..._format import percent as pct, stat as fmt
from . import FigureSpec, Section, TableSpec, info

ID = "landscapes"
REFERENCES = (("hermary", "§V–VI"),)
#: Scores whose minimal TPR is computed (0.05, 0.10, ..., 1.00).
TARGETS = np.round(np.arange(1, 21) * 0.05, 10)


def build(ctx) -> Section:
    """The landscapes section from ``ctx.results["landscapes"]``."""
    import pandas as pd

    name = ctx.name
    r = ctx.results[ID]
    land, diff, reg, mt, cov = r["landscape"], r["difference"], r["regions"], r["minimal_tpr"], r["coverage"]
    ratio, label, ref = r["ratio"], r["label"], r["reference"]
    r0, rr = land.ratio_index(label), land.ratio_index(r["reference_label"])
    at_ratio = _at_ratio(land, diff, reg, mt, r0, rr)
    out = {
        "ratio": ratio,
        "ratio_source": r["source"],
        "label": label,
        "reference": ref,
        "metrics": list(land.metrics),
        "resolution": int(land.tpr.size),
        "ratios": [{"label": lab, "ratio": float(v)} for lab, v in zip(land.labels, land.ratios)],
        "at_ratio": at_ratio,
    }

    rows = [
        {
            "metric": m,
            "region": g,
            "mean": reg.mean[r0, m_i, q],
            "excess_kurtosis": reg.excess_kurtosis[r0, m_i, q],
            "mean at reference": reg.mean[rr, m_i, q],
        }
        for m_i, m in enumerate(land.metrics)
        for q, g in enumerate(reg.regions)
    ]
    tables = [
        TableSpec(
            "landscape_regions",
            f"{name}: metric landscapes at the anomaly share π = {pct(ratio)} in the regions "
            f"R1-R5 (Hermary, Mejri and Aouada), with the mean at the reference ratio {ref:g}",
            pd.DataFrame(rows),
            ID,
        )
    ]
    rows = [
        {
            "metric": m,
            "score": sc,
            "min_tpr": mt.min_tpr[r0, m_i, i],
            "tnr_needed": mt.tnr_needed[r0, m_i, i],
            "min_tpr at reference": mt.min_tpr[rr, m_i, i],
        }
        for m_i, m in enumerate(land.metrics)
        for i, sc in enumerate(TARGETS)
        if not (round(sc * 100) % 10 or sc < 0.5 or sc > 0.95)
    ]  # the compact table shows 0.5, 0.6, ..., 0.9
    tables.append(
        TableSpec(
            "landscape_minimal_tpr",
            f"{name}: minimal TPR to reach a score (and the TNR it then "
            f"needs) at the anomaly share π = {pct(ratio)} and at the reference ratio {ref:g}",
            pd.DataFrame(rows),
            ID,
        )
    )
    tables.append(
        TableSpec(
            "landscape_minimal_tpr_all",
            f"{name}: minimal TPR, every ratio and target",
            mt.to_frame(),
            ID,
            compact=False,
        )
    )
    tables.append(
        TableSpec("landscape_regions_all", f"{name}: region statistics, every ratio", reg.to_frame(), ID, compact=False)
    )
    tables.append(
        TableSpec(
            "landscape_coverage",
            f"{name}: share of the landscape area per score bin",
            cov.to_frame(),
            ID,
            compact=False,
        )
    )
    figures = _figures(name, land, diff, mt, ratio, label, ref)
    return Section(ID, info(ID).title, summary=out, tables=tuple(tables), figures=tuple(figures), references=REFERENCES)


def _at_ratio(land, diff, reg, mt, r0: int, rr: int) -> dict:
    """Per metric, the landscape's figures at the benchmark's ratio (index ``r0``) and at the reference (``rr``)."""
    at_ratio = {}
    nothing, everything = land.at(0.0, 1.0), land.at(1.0, 0.0)  # (ratios, metrics): flag nothing / everything
    for m_i, m in enumerate(land.metrics):
        at_ratio[m] = {
            "flag_nothing": float(nothing[r0, m_i]),
            "flag_nothing_at_reference": float(nothing[rr, m_i]),
            "flag_everything": float(everything[r0, m_i]),
            "mean_difference": float(diff.mean_difference[r0, m_i]),
            "max_increase": float(diff.max_increase[r0, m_i]),
            "max_decrease": float(diff.max_decrease[r0, m_i]),
            "regions": {
                g: {
                    "mean": float(reg.mean[r0, m_i, q]),
                    "excess_kurtosis": float(reg.excess_kurtosis[r0, m_i, q]),
                    "mean_at_reference": float(reg.mean[rr, m_i, q]),
                }
                for q, g in enumerate(reg.regions)
            },
            "minimal_tpr": [
                {
                    "score": float(sc),
                    "min_tpr": float(mt.min_tpr[r0, m_i, i]),
                    "tnr_needed": float(mt.tnr_needed[r0, m_i, i]),
                    "min_tpr_at_reference": float(mt.min_tpr[rr, m_i, i]),
                }
                for i, sc in enumerate(TARGETS)
            ],
        }
    return at_ratio


def _figures(name: str, land, diff, mt, ratio: float, label: str, ref: float) -> list:
    """The landscapes, their differences to the reference ratio (metrics that depend on it) and the minimal TPR."""
    varying = [m for m in land.metrics if m != "auroc"]  # AUROC does not depend on the ratio: its map is 0

    def build_land():
        from ...plotting import landscapes_figure

        return landscapes_figure(land, ratio=label)

    def build_diff():
        from ...plotting import landscape_differences_figure

        return landscape_differences_figure(diff, ratio=label, metrics=varying)

    def build_mt():
        from ...plotting import minimal_tpr_figure

        return minimal_tpr_figure(mt)

    figures = [
        FigureSpec(
            "landscapes",
            f"{name}: metric landscapes over TPR x TNR at the benchmark's anomaly ratio "
            f"{100 * ratio:.3g}% (white boxes on AUROC: regions R1-R5)",
            build_land,
            ID,
        )
    ]
    if varying:
        figures.append(
            FigureSpec(
                "landscape_differences",
                f"{name}: landscape at {100 * ratio:.3g}% minus the "
                f"landscape at the reference ratio {ref:g} (AUROC is left out: it does not depend "
                "on the ratio)",
                build_diff,
                ID,
            )
        )
    figures.append(
        FigureSpec(
            "minimal_tpr",
            f"{name}: minimal TPR (solid) and the TNR it then needs (dashed) to reach each score, per ratio",
            build_mt,
            ID,
        )
    )
    return figures


def reading(ls: Mapping) -> str:
    """Plain-language reading of the landscapes part of a summary."""
    pi, ref = ls["ratio"], ls["reference"]
    text = (
        f"This benchmark's anomaly ratio is π = {pct(pi)} ({ls['ratio_source']}). The landscapes show what "
        "each metric gives every operating point (TPR, TNR) at this ratio. "
    )
    at = ls["at_ratio"]
    if "aupr_trap" in at:
        a = at["aupr_trap"]
        text += (
            f"A detector that flags nothing (TPR 0, TNR 1) already gets a trapezoid AUPR of "
            f"{fmt(a['flag_nothing'])} here ({fmt(a['flag_nothing_at_reference'])} at π = {ref:g}), and around "
            f"a random detector (region R5) AUPR averages {fmt(a['regions']['R5']['mean'])} "
            f"({fmt(a['regions']['R5']['mean_at_reference'])} at π = {ref:g}). "
        )
    for m, label in (("f1", "F1"), ("aupr_trap", "AUPR"), ("mcc_scaled", "scaled MCC")):
        row = next((r for r in at.get(m, {}).get("minimal_tpr", []) if abs(r["score"] - 0.8) < 1e-9), None)
        if (
            row
            and row["min_tpr"] is not None
            and row["min_tpr_at_reference"] is not None
            and abs(row["min_tpr"] - row["min_tpr_at_reference"]) >= 0.01
        ):
            text += (
                f"Reaching {label} = 0.8 needs TPR ≥ {fmt(row['min_tpr'], digits=2)} here against "
                f"{fmt(row['min_tpr_at_reference'], digits=2)} at π = {ref:g}. "
            )
            break
    text += (
        "AUROC does not depend on π; AUPR, F1 and MCC do, so their values on this benchmark cannot be compared "
        "with values on benchmarks at other ratios."
    )
    return text
