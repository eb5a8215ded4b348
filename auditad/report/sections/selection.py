"""Report section: anomaly-free model selection (`auditad.selection.run_selection`)."""

from __future__ import annotations

from typing import Mapping

from .._slug import key
from ..._format import pp, stat as fmt
from . import FigureSpec, Section, TableSpec, info

ID = "selection"
REFERENCES = (("wilkinghoff-tan", "Eq. 1 and Sec. 5.3"),)


def applicable(ctx) -> str | None:
    """None when the section runs, else the reason why not."""
    return None if ctx.inputs.selection is not None else "no model-selection manifest was given"


def build(ctx) -> Section:
    """The selection section from ``ctx.results["selection"]`` (not applicable without selection tasks)."""
    reason = applicable(ctx)
    if reason is not None:
        return Section(ID, info(ID).title, status="not_applicable", reason=reason)
    import pandas as pd

    name = ctx.name
    res = ctx.results[ID]
    full = res.to_dict()
    summaries = res.selector_summaries()
    by_selector = {
        key(sm.label): {
            "label": sm.label,
            "name": sm.name,
            "kind": sm.kind,
            "probe": sm.probe,
            "rho_rank": sm.rho_rank,
            "a_pair": sm.a_pair,
            "regret": sm.regret,
            "n_units": sm.n_units,
        }
        for sm in summaries
    }
    top = res.best()
    best = top.label if top is not None else None
    out = {
        "benchmark": res.benchmark,
        "n_tasks": res.config["n_tasks"],
        "n_candidates": res.config["n_candidates"],
        "n_units": res.config["n_units"],
        "estimators": list(res.config["estimators"]),
        "probes": list(res.config["probes"]),
        "pool_by": res.config["pool_by"],
        "n_boot": res.config["n_boot"],
        "best": None
        if top is None
        else {
            "key": key(top.label),
            "label": top.label,
            "name": top.name,
            "regret": top.regret,
            "rho_rank": top.rho_rank,
            "a_pair": top.a_pair,
        },
        "by_selector": by_selector,
        "summary": full["summary"],
        "bootstrap": full["bootstrap"],
        "candidates": full["candidates"],
        "units": full["units"],
        "skipped": full["skipped"],
    }
    frame = pd.DataFrame(
        [
            {
                "selector": sm.name,
                "rho_rank": sm.rho_rank,
                "a_pair": sm.a_pair,
                "regret": sm.regret,
                "n_units": sm.n_units,
            }
            for sm in summaries
        ]
    )
    tables = [
        TableSpec(
            "selection",
            f"{name}: anomaly-free model selection over {res.config['n_tasks']} tasks x "
            f"{res.config['n_candidates']} candidates: mean Spearman rho_rank, pairwise accuracy A_pair "
            "and regret (best minus selected AUC, in percentage points)",
            frame,
            ID,
        ),
        TableSpec(
            "selection_candidates",
            f"{name}: true AUC and bound per task and candidate",
            res.candidates_frame(),
            ID,
            compact=False,
        ),
        TableSpec("selection_units", f"{name}: selection per task and selector", res.units_frame(), ID, compact=False),
        TableSpec(
            "selection_estimates", f"{name}: estimator values per task and candidate", res.to_frame(), ID, compact=False
        ),
    ]
    if res.bootstrap:
        tables.append(
            TableSpec(
                "selection_bootstrap",
                f"{name}: paired bootstrap of differences in selected AUC",
                res.bootstrap_frame(),
                ID,
                compact=False,
            )
        )

    def figure():
        from ...plotting import selection_figure

        return selection_figure(res, estimator=best)

    figures = [
        FigureSpec(
            "selection",
            f"{name}: {top.name if top else 'estimator'} against the true AUC "
            "per candidate (left) and the Eq. 1 bound of the true test scores against the empirical AUC "
            "(right)",
            figure,
            ID,
        )
    ]
    return Section(ID, info(ID).title, summary=out, tables=tuple(tables), figures=tuple(figures), references=REFERENCES)


def reading(sel: Mapping) -> str:
    """Plain-language reading of the selection part of a summary."""
    by = sel["by_selector"]
    rnd = by.get("random")
    best = sel["best"]
    text = (
        f"Anomaly-free model selection was judged over {sel['n_tasks']} tasks × {sel['n_candidates']} "
        "candidates, against the true test AUC. "
    )
    if rnd:
        text += (
            f"Picking a candidate at random costs {pp(rnd['regret'])} of AUC on average against the best one "
            "(the oracle; pp = percentage points). "
        )
    if best:
        text += (
            f"The best estimator, {best['name']}, ranks candidates with Spearman ρ = {fmt(best['rho_rank'], digits=2)} "
            f"and pairwise accuracy {fmt(best['a_pair'], digits=2)}, and loses {pp(best['regret'])}. "
        )
    iv = by.get("inlier_variance")
    if iv:
        text += f"The inlier variance alone loses {pp(iv['regret'])}. "
    text += (
        "For reference, Wilkinghoff and Tan report on DCASE 2022–25 a random-selection regret of about 7.9\u202f"
        "pp, 5.5\u202fpp for the inlier variance and 3.8\u202fpp for Diverse Pseudo AUC."
    )
    return text
