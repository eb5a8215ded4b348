"""The computation of each statistic section of the audit report, with the audit's settings.

``run_<section>(ctx)`` calls the computing packages (`auditad.leakage`, `auditad.protocol`,
`auditad.duplicates`, `auditad.nulls`, `auditad.landscapes`, `auditad.selection`) and returns their result
objects; the orchestrator ([`auditad.audit.runner`][auditad.audit.runner]) stores them in
``ctx.results[section id]`` through `run_section`, in the order of
[`REGISTRY`][auditad.report.sections.REGISTRY]. The report's sections (`auditad.report.sections`) only turn
these result objects into key numbers, tables, figures and readings.
"""

from __future__ import annotations

import functools
import warnings
from typing import Mapping

import numpy as np

from ..errors import AuditadWarning, InvalidInputError
from ..report.sections.landscapes import TARGETS
from ..report.sections.protocol import semi_supervised

__all__ = ["RUNS", "run_section", "detectors_from_settings", "protocol_tasks", "benchmark_ratio", "null_at"]

# --------------------------------------------------------------------------- leakage
#: Label columns whose leakage is reported next to the class leakage.
OTHER_COLUMNS = ("domain", "attribute")


def run_leakage(ctx) -> dict:
    """Leakage of every representation, and of the ``domain`` / ``attribute`` columns.

    Returns ``{"representations": {rep: LeakageResult}, "columns": {col: {rep: LeakageResult} or None}}``.
    """
    from ..leakage import leakage

    s, bench = ctx.settings, ctx.inputs.benchmark
    # the neighbour lists are kept for the duplicates section (near duplicates without a second search)
    per_rep = {
        rep: leakage(
            X,
            bench.y,
            k=s["leakage_k"],
            metric=s["metric"],
            backend=s["backend"],
            project_dim=s["project_dim"],
            random_state=s["seed"],
            executor=ctx.executor,
            keep_neighbors=True,
            self_lists=_shared_self_lists(ctx, rep, X),
        )
        for rep, X in bench.representations.items()
    }
    cols = {}
    for col in OTHER_COLUMNS:
        if col not in ctx.inputs.columns:
            continue
        values = ctx.inputs.columns[col]
        if np.unique(values).size < 2:
            cols[col] = None
            warnings.warn(f"column {col!r} has a single value; its leakage is not defined", AuditadWarning)
            continue
        cols[col] = {
            rep: leakage(
                X,
                values,
                k=s["leakage_k"][0],
                metric=s["metric"],
                backend=s["backend"],
                random_state=s["seed"],
                project_dim=s["project_dim"],
                self_lists=_shared_self_lists(ctx, rep, X),
            )
            for rep, X in bench.representations.items()
        }
    return {"representations": per_rep, "columns": cols}


def _shared_self_lists(ctx, rep, X):
    """``self_lists`` for the leakage of ``rep``: the lists of one approximate index over every row that the
    protocol stage reads again (`auditad.protocol.execution_stage.IndexCache`, kept in ``ctx.shared``), built at
    the graph degree the protocol's neighbour detectors need; None (the leakage builds its own index) with several
    representations (each index would be evicted by the next before the protocol reads it), or rows whose
    magnitude the protocol rescales."""
    from ..protocol.execution_stage import IndexCache
    from ..protocol.neighbor_lists import magnitude_exponent, prepare_rows

    s = ctx.settings
    if len(ctx.inputs.benchmark.representations) != 1:
        return None
    cache = ctx.shared.setdefault("index_cache", IndexCache())

    def self_lists(k):
        if magnitude_exponent(X) != 0:
            return None
        Xp = prepare_rows(X, s["metric"])
        degree = max(k, _protocol_index_degree(s))
        provider = cache.provider(
            (rep, s["metric"]),
            Xp,
            s["seed"],
            s["project_dim"],
            degree=degree,
            n_jobs=s["n_jobs"],
            executor=ctx.executor,
        )
        return provider(k).self_lists(Xp, k)

    return self_lists


def _protocol_index_degree(settings) -> int:
    """The graph degree the protocol's passes ask of an index over every row: each row's list must hold the
    ``2 k`` nearest pool rows of the neighbour detectors' largest ``k``
    (`auditad.protocol.shared.shared_degree` at the training fraction); 0 without them."""
    from ..protocol import resolve_detectors
    from ..protocol.detectors import NeighbourDetector
    from ..protocol.shared import shared_degree

    specs, knn_k = detectors_from_settings(settings)
    needed = [d.n_needed for d in resolve_detectors(specs, k=knn_k) if isinstance(d, NeighbourDetector)]
    return shared_degree(2 * max(needed), settings["train_fraction"]) if needed else 0


# --------------------------------------------------------------------------- protocol
def detectors_from_settings(settings: Mapping) -> tuple[list, int]:
    """The ``detectors=`` and ``k=`` arguments of `audit_protocol` from the settings: specs, never detector objects.

    Every detector is built in one place, by `audit_protocol` (through
    [`resolve_detectors`][auditad.protocol.resolve_detectors]): a built-in detector is passed by name, or with its
    ``detector_params`` as a [`make_detector`][auditad.protocol.make_detector] mapping; the kNN detector's ``k`` is
    `audit_protocol`'s ``k=`` (recorded in the result's settings); ``"pyod:NAME"`` and a named detector table
    (``detector_params[name]["detector"]``) are passed as specs (parsed, never evaluated).
    """
    import inspect

    from ..protocol import audit_protocol

    params = settings["detector_params"]
    out = []
    for name in settings["detectors"]:
        p = params.get(name) or {}
        if "detector" in p:  # a named detector table
            out.append({**p, "name": name})
        elif name != "knn" and p:
            out.append({"detector": name, **p})
        else:
            out.append(name)
    knn = params.get("knn") or {}  # without a k of its own: audit_protocol's default, not a copy of it
    return out, int(knn.get("k", inspect.signature(audit_protocol).parameters["k"].default))


def run_protocol(ctx):
    """[`ProtocolResult`][auditad.protocol.ProtocolResult] of every representation."""
    from ..protocol import audit_protocol

    s, bench = ctx.settings, ctx.inputs.benchmark
    if semi_supervised(ctx):
        # the standard semi-supervised setting: fit on a split of the normals, score the held-out normals and
        # every anomaly. The one-class protocol on {normal, anomaly} gives that task as the class "normal".
        import numpy as np

        labels = np.where(np.asarray(bench.y) == 1, "anomaly", "normal")
        ctx.shared.pop("index_cache", None)  # (an index over the rows is of no use to the one-class task)
        return audit_protocol(
            bench.representations,
            labels,
            protocol="one_class",
            contamination=None,
            confirm_repeats=s["confirm_repeats"],
            leakage_k=0,
            classes=["normal"],  # only that task runs (the splits and seeds are drawn as for both classes)
            **_protocol_settings(ctx),
        )
    leak = ctx.results.get("leakage")
    cache = ctx.shared.pop("index_cache", None)  # (freed when the protocol is done with it)
    return audit_protocol(
        bench.representations,
        bench.y,
        protocol=s["protocol"],
        contamination=s["contamination"],
        confirm_repeats=s["confirm_repeats"],
        leakage_k=s["leakage_k"][0],
        leakage_results=leak["representations"] if leak else None,
        index_cache=cache,
        **_protocol_settings(ctx),
    )


def _protocol_settings(ctx) -> dict:
    """The `audit_protocol` arguments that every protocol run of the audit takes from its settings."""
    s = ctx.settings
    dets, knn_k = detectors_from_settings(s)
    return {
        "detectors": dets,
        "k": knn_k,
        "epsilon": s["epsilon"],
        "train_fraction": s["train_fraction"],
        "repeats": s["repeats"],
        "max_test_normals": s["max_test_normals"],
        "confidence_level": s["confidence_level"],
        "backend": s["backend"],
        "project_dim": s["project_dim"],
        "n_jobs": s["n_jobs"],
        "progress": ctx.progress,
        "random_state": s["seed"],
        "executor": ctx.executor,
    }


# --------------------------------------------------------------------------- duplicates
def run_duplicates(ctx) -> dict:
    """Duplicates of every representation, the overlap of the protocol's tasks and AUROC(c) without it.

    Returns a dict: ``representations`` (rep -> DuplicatesResult), ``near_reasons`` (rep -> why near
    duplicates were not computed), ``plan`` (the protocol's [`SplitPlan`][auditad.protocol.SplitPlan], or None),
    ``plan_reason``, ``overlap`` (rep -> per-task DataFrame, or None), ``dedup`` (rep -> ProtocolResult of
    the tasks without the test rows that have an identical training row; only for representations with
    such rows) and ``dedup_errors`` (rep -> why that run failed).
    """
    from ..duplicates import find_duplicates
    from ..duplicates.tasks import reproduce_plan, task_overlap

    s, bench = ctx.settings, ctx.inputs.benchmark
    leak = (ctx.results.get("leakage") or {}).get("representations") or {}
    dups, near_reasons = {}, {}
    for rep, X in bench.representations.items():
        common = dict(metric=s["metric"], backend=s["backend"], random_state=s["seed"])
        neighbors = getattr(leak.get(rep), "neighbors", None)  # the leakage pass's lists: no second search
        try:
            dups[rep] = find_duplicates(X, bench.y, neighbors=neighbors, **common)
        except InvalidInputError as exc:  # "auto" undefined: e.g. every listed neighbour is an exact copy
            near_reasons[rep] = str(exc)
            dups[rep] = find_duplicates(X, bench.y, near_threshold=None, **common)
    out = {
        "representations": dups,
        "near_reasons": near_reasons,
        "plan": None,
        "plan_reason": None,
        "overlap": None,
        "dedup": {},
        "dedup_errors": {},
    }
    proto = ctx.results.get("protocol")
    if proto is None:
        out["plan_reason"] = "the protocol section did not run: there are no training and test rows to compare"
        return out
    how = protocol_tasks(ctx)
    out["plan"], out["plan_reason"] = reproduce_plan(
        proto,
        labels=how["labels"],
        protocol=how["protocol"],
        contamination=how["contamination"],
        keep=how["keep"],
        random_state=ctx.settings["seed"],
    )
    if out["plan"] is None:
        return out
    out["overlap"] = {rep: task_overlap(d, out["plan"]) for rep, d in dups.items()}
    for rep, frame in out["overlap"].items():
        if frame["n_exact"].sum() > 0:  # only then: AUROC(c) without the copies (no cost otherwise)
            try:
                out["dedup"][rep] = _audit_without_copies(ctx, rep, dups[rep])
            except InvalidInputError as exc:
                out["dedup_errors"][rep] = str(exc)
    return out


def protocol_tasks(ctx) -> dict:
    """The labels and arguments of the protocol section's [`audit_protocol`][auditad.protocol.audit_protocol] run.

    Class labels: the configured class-split protocol. Anomaly labels only: the semi-supervised task, i.e. the
    one-class protocol on the labels {normal, anomaly} restricted to the class "normal" (``keep``).
    """
    s, y = ctx.settings, ctx.inputs.benchmark.y
    if semi_supervised(ctx):
        return {
            "labels": np.where(np.asarray(y) == 1, "anomaly", "normal"),
            "protocol": "one_class",
            "contamination": None,
            "keep": ["normal"],
        }
    return {"labels": y, "protocol": s["protocol"], "contamination": s["contamination"], "keep": None}


def _audit_without_copies(ctx, rep, dup):
    """`audit_without_copies` with the protocol section's arguments (wiring only)."""
    from ..duplicates.tasks import audit_without_copies

    how = protocol_tasks(ctx)
    return audit_without_copies(
        rep,
        ctx.inputs.benchmark.representations[rep],
        how["labels"],
        dup,
        keep=how["keep"],
        protocol=how["protocol"],
        contamination=how["contamination"],
        **_protocol_settings(ctx),
    )


# --------------------------------------------------------------------------- nulls
def run_nulls(ctx) -> dict:
    """Nulls per held-out class (and at the anomaly column's counts when there is one).

    Each distinct (n_pos, n_neg) gets one [`null_distribution`][auditad.nulls.null_distribution] of AUROC and the other
    metrics, drawn from its own random stream (spawned from the audit's seed in order of first appearance),
    so the nulls are independent tasks: on a Dask executor they run on its workers, otherwise on ``n_jobs``
    threads, with the same numbers either way. The observed AUROC(c) of every (representation, detector) pair is placed on its null by
    [`place_protocol_aurocs`][auditad.nulls.place_protocol_aurocs].

    Returns ``{"classes": [ClassNullResult], "others": metric names, "anomaly_split": NullResult or None}``.
    """
    from ..execution import distributed, map_in_threads, resolve_n_jobs
    from ..nulls import class_test_counts, place_protocol_aurocs
    from .._rng import spawn

    s = ctx.settings
    res = ctx.results.get("protocol")
    rng = np.random.default_rng([int(s["seed"]), 3])
    others = tuple(m for m in s["null_metrics"] if m != "auroc")  # the AUROC null is always computed
    counted = class_test_counts(res) if res is not None else []
    split_counts = None
    if "anomaly" in ctx.inputs.columns:
        a = ctx.inputs.columns["anomaly"]
        split_counts = (int(a.sum()), int(a.size - a.sum()))
    pairs = list(
        dict.fromkeys([(n_pos, n_neg) for _, _, n_pos, n_neg in counted] + ([split_counts] if split_counts else []))
    )  # classes of equal size share one
    items = list(zip(pairs, spawn(rng, len(pairs))))
    shared = dict(metrics=("auroc",) + others, q=s["null_q"], method=s["null_method"], runs=s["null_runs"])
    if distributed(ctx.executor):
        computed = ctx.executor.map_ordered(null_at, items, **shared)
    else:  # each null has its own stream: on threads, the same numbers in the same order
        computed = map_in_threads(functools.partial(null_at, **shared), items, resolve_n_jobs(s["n_jobs"]))
    cache = dict(zip(pairs, computed))
    classes = place_protocol_aurocs(res, cache) if counted else []
    split = cache[split_counts] if split_counts else None
    return {"classes": classes, "others": others, "anomaly_split": split}


def null_at(item, *, metrics, q, method, runs):
    """The null of ``item = ((n_pos, n_neg), generator)`` (one task of `run_nulls`)."""
    from ..nulls import null_distribution

    (n_pos, n_neg), rng = item
    return null_distribution(n_pos, n_neg, metrics=metrics, q=q, method=method, runs=runs, random_state=rng)


# --------------------------------------------------------------------------- landscapes
def benchmark_ratio(ctx) -> tuple[float, str]:
    """The benchmark's anomaly ratio π and where it comes from.

    The share of anomalies of the ``anomaly`` column when there is one; else the mean anomaly share of the
    class-split test sets (the test counts of the nulls); else 1 / number of classes.
    """
    if "anomaly" in ctx.inputs.columns:
        return float(np.mean(ctx.inputs.columns["anomaly"])), "share of anomalies in the anomaly column"
    classes = ctx.results.get("nulls", {}).get("classes", [])
    if classes:
        return (float(np.mean([cn.null.ratio for cn in classes])), "mean anomaly share of the class-split test sets")
    return (
        float(np.clip(1.0 / ctx.inputs.benchmark.classes.size, 1e-6, 1 - 1e-6)),
        "1 / number of classes (no class-split task could be evaluated)",
    )


def run_landscapes(ctx) -> dict:
    """Landscape, difference to the reference ratio, regions, minimal TPR and coverage."""
    from ..landscapes import (
        PAPER_RATIOS,
        landscape,
        landscape_coverage,
        landscape_difference,
        landscape_regions,
        minimal_tpr,
    )

    s = ctx.settings
    ratio, source = benchmark_ratio(ctx)
    label = f"{100 * ratio:.3g}%"
    ref = float(s["landscape_reference"])
    ratio_map = {label: ratio}
    for extra in s["landscape_ratios"]:
        name = extra if isinstance(extra, str) else f"{100 * extra:.3g}%"
        if name not in ratio_map:
            ratio_map[name] = PAPER_RATIOS[extra] if isinstance(extra, str) else float(extra)
    ref_label = f"{100 * ref:.3g}%"
    if ref_label in ratio_map:
        ref_label = f"reference {ref_label}"
    ratio_map[ref_label] = ref
    land = landscape(ratio_map, metrics=tuple(s["landscape_metrics"]), resolution=s["landscape_resolution"])
    return {
        "ratio": ratio,
        "source": source,
        "label": label,
        "reference": ref,
        "reference_label": ref_label,
        "landscape": land,
        "difference": landscape_difference(land, reference=ref),
        "regions": landscape_regions(land),
        "minimal_tpr": minimal_tpr(land, scores=TARGETS),
        "coverage": landscape_coverage(land),
    }


# --------------------------------------------------------------------------- selection
def run_selection(ctx):
    """[`SelectionResult`][auditad.selection.SelectionResult] of the benchmark's selection tasks."""
    from ..execution import resolve_n_jobs
    from ..selection import run_selection

    s = ctx.settings
    return run_selection(
        ctx.inputs.selection,
        estimators=s["selection_estimators"] or None,
        probes=s["selection_probes"] or None,
        pool_by=s["selection_pool_by"],
        n_boot=s["selection_n_boot"],
        n_jobs=resolve_n_jobs(s["n_jobs"]),
        progress=ctx.progress,
        random_state=s["seed"],
    )


#: The computation of each statistic section, by section id.
RUNS = {
    "leakage": run_leakage,
    "protocol": run_protocol,
    "duplicates": run_duplicates,
    "nulls": run_nulls,
    "landscapes": run_landscapes,
    "selection": run_selection,
}


def run_section(section_id: str, ctx):
    """The result objects of one statistic section (``ctx.results`` holds those of the sections before it).

    See Also
    --------
    - [`auditad.audit.runner.audit_benchmark`][auditad.audit.runner.audit_benchmark]: runs every section.
    """
    return RUNS[section_id](ctx)
