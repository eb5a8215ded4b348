"""Report section: anomaly-free model selection (:func:`auditad.selection.run_selection`)."""

from __future__ import annotations

import os
from typing import Mapping

import numpy as np

from .._slug import key
from .._numbers import fmt
from . import FigureSpec, Section, TableSpec, info

ID = "selection"
REFERENCES = (("wilkinghoff-tan", "Eq. 1 and Sec. 5.3"),)


def applicable(ctx) -> str | None:
    """None when the section runs, else the reason why not."""
    return None if ctx.inputs.selection is not None else "no model-selection manifest was given"


def run(ctx):
    """:class:`~auditad.selection.SelectionResult` of the benchmark's selection tasks."""
    from ...selection import run_selection

    s = ctx.settings
    n_jobs = s["n_jobs"]
    if n_jobs < 1:
        n_jobs = max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return run_selection(ctx.inputs.selection, estimators=s["selection_estimators"] or None,
                         probes=s["selection_probes"] or None, pool_by=s["selection_pool_by"],
                         n_boot=s["selection_n_boot"], n_jobs=n_jobs, progress=ctx.progress, random_state=s["seed"])


def best_selector(res, summary) -> str | None:
    """The estimator with the smallest finite regret (ties: the first in ``res.config["estimators"]``), or None.

    Derivation kept in one place until ``SelectionResult.best()`` is available.
    """
    estimators = [lab for lab in res.config["estimators"] if lab in summary.index]
    finite = [lab for lab in estimators if np.isfinite(summary.loc[lab, "regret"])]
    return min(finite, key=lambda lab: (summary.loc[lab, "regret"], estimators.index(lab))) if finite else None


def build(ctx) -> Section:
    """The selection section from ``ctx.results["selection"]`` (not applicable without selection tasks)."""
    from ...selection import pretty_label

    reason = applicable(ctx)
    if reason is not None:
        return Section(ID, info(ID).title, status="not_applicable", reason=reason)
    name = ctx.name
    res = ctx.results[ID]
    full = res.to_dict()
    summary = res.summary_frame()
    by_selector = {}
    for label, row in summary.iterrows():
        by_selector[key(label)] = {"label": label, "name": pretty_label(label), "kind": row["kind"],
                                   "probe": row["probe"], "rho_rank": row["rho_rank"], "a_pair": row["a_pair"],
                                   "regret": row["regret"], "n_units": int(row["n_units"])}
    best = best_selector(res, summary)
    out = {"benchmark": res.benchmark, "n_tasks": res.config["n_tasks"], "n_candidates": res.config["n_candidates"],
           "n_units": res.config["n_units"], "estimators": list(res.config["estimators"]),
           "probes": list(res.config["probes"]), "pool_by": res.config["pool_by"],
           "n_boot": res.config["n_boot"],
           "best": None if best is None else {"key": key(best), "label": best, "name": pretty_label(best),
                                              "regret": summary.loc[best, "regret"],
                                              "rho_rank": summary.loc[best, "rho_rank"],
                                              "a_pair": summary.loc[best, "a_pair"]},
           "by_selector": by_selector,
           "summary": full["summary"], "bootstrap": full["bootstrap"], "candidates": full["candidates"],
           "units": full["units"], "skipped": full["skipped"]}
    frame = summary.reset_index()
    frame.insert(1, "name", [pretty_label(lab) for lab in frame["estimator"]])
    frame = frame[["name", "rho_rank", "a_pair", "regret", "n_units"]].rename(columns={"name": "selector"})
    tables = [TableSpec("selection", f"{name}: anomaly-free model selection over {res.config['n_tasks']} tasks x "
                        f"{res.config['n_candidates']} candidates: mean Spearman rho_rank, pairwise accuracy A_pair "
                        "and regret (AUC, best minus selected)", frame, ID),
              TableSpec("selection_candidates", f"{name}: true AUC and bound per task and candidate",
                        res.candidates_frame(), ID, compact=False),
              TableSpec("selection_units", f"{name}: selection per task and selector", res.units_frame(), ID,
                        compact=False),
              TableSpec("selection_estimates", f"{name}: estimator values per task and candidate", res.to_frame(),
                        ID, compact=False)]
    if res.bootstrap:
        tables.append(TableSpec("selection_bootstrap", f"{name}: paired bootstrap of differences in selected AUC",
                                res.bootstrap_frame(), ID, compact=False))

    def figure():
        from matplotlib.figure import Figure

        from ...plotting import plot_bound_vs_auc, plot_estimator_vs_auc

        fig = Figure(figsize=(9.0, 3.8), layout="constrained")
        left, right = fig.subplots(1, 2)
        plot_estimator_vs_auc(res, estimator=best, ax=left)
        plot_bound_vs_auc(res, ax=right)
        return fig

    figures = [FigureSpec("selection", f"{name}: {pretty_label(best) if best else 'estimator'} against the true AUC "
                          "per candidate (left) and the Eq. 1 bound of the true test scores against the empirical AUC "
                          "(right)", figure, ID)]
    return Section(ID, info(ID).title, summary=out, tables=tuple(tables), figures=tuple(figures),
                   reading=reading(out), references=REFERENCES)


def reading(sel: Mapping) -> str:
    """Plain-language reading of the selection part of a summary."""
    by = sel["by_selector"]
    rnd = by.get("random")
    best = sel["best"]
    text = (f"Anomaly-free model selection was judged over {sel['n_tasks']} tasks × {sel['n_candidates']} "
            "candidates, against the true test AUC. ")
    if rnd:
        text += (f"Picking a candidate at random costs {fmt(100 * rnd['regret'], 2)} AUC points on average against the "
                 "best one (the oracle). ")
    if best:
        text += (f"The best estimator, {best['name']}, ranks candidates with Spearman ρ = {fmt(best['rho_rank'], 2)} "
                 f"and pairwise accuracy {fmt(best['a_pair'], 2)}, and loses {fmt(100 * best['regret'], 2)} points. ")
    iv = by.get("inlier_variance")
    if iv:
        text += f"The inlier variance alone loses {fmt(100 * iv['regret'], 2)} points. "
    text += ("For reference, Wilkinghoff and Tan report on DCASE 2022–25 a random-selection regret of about 7.9 "
             "points, 5.5 for the inlier variance and 3.8 for Diverse Pseudo AUC.")
    return text
