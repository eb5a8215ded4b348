"""Report section: exact and near duplicates, conflicting labels, the train/test overlap of the class-split
tasks and what that overlap does to AUROC(c)
([`auditad.duplicates.find_duplicates`][auditad.duplicates.find_duplicates])."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from ..._format import count, percent as pct, stat as fmt
from . import Section, TableSpec, info

ID = "duplicates"
REFERENCES = (
    (
        "northcutt-cleanlab",
        "cleanlab, the library of this work: its near_duplicate check flags rows closer "
        "than 0.13 times the median nearest-neighbour distance",
    ),
    ("campos-2016", "the benchmark collection, published with and without its duplicates"),
)
#: data/duplicates_groups.csv: at most this many groups per representation (conflicting groups first, then the
#: largest), each with at most EXAMPLE_ROWS of its row indices (``size`` gives the whole group).
EXAMPLE_GROUPS = 50
EXAMPLE_ROWS = 20


def _not_applicable(reason: str) -> dict:
    return {"status": "not_applicable", "reason": reason}


# --------------------------------------------------------------------------- build
def _largest_known(values: Mapping):
    """The largest of the non-null values (None when every value is null)."""
    vals = [v for v in values.values() if v is not None]
    return max(vals) if vals else None


def _normal_anomaly_groups(ctx, dup) -> tuple:
    """(groups, rows) holding both a normal and an anomaly: by the anomaly labels, the anomaly column, or (class
    labels only) by the classes: a group of two classes is mixed in the tasks holding out one of them."""
    kind = getattr(ctx.inputs, "kind", "classes")
    if kind == "both" and "anomaly" in ctx.inputs.columns:
        flags = dup.group_conflicts(ctx.inputs.columns["anomaly"])
        return int(flags.sum()), int(dup.group_sizes[flags].sum())
    if kind == "anomaly" and dup.n_mixed_groups is not None:
        return dup.n_mixed_groups, dup.n_mixed_rows
    return dup.n_conflicting_groups, dup.n_conflicting_rows


def build(ctx) -> Section:
    """The duplicates section from ``ctx.results["duplicates"]``."""
    import pandas as pd

    from ...duplicates.tasks import overlap_summary

    name, r = ctx.name, ctx.results[ID]
    dups = r["representations"]
    proto = ctx.results.get("protocol")
    reps = {}
    for rep, d in dups.items():
        item = d.to_dict(max_groups=10, max_rows=EXAMPLE_ROWS)
        item["n_mixed_groups"], item["n_mixed_rows"] = _normal_anomaly_groups(ctx, d)
        item["near_reason"] = r["near_reasons"].get(rep)
        if r["overlap"] is None:
            item["overlap"] = _not_applicable(r["plan_reason"])
        else:
            item["overlap"] = overlap_summary(r["overlap"][rep])
        reps[rep] = item
    out = {"kind": getattr(ctx.inputs, "kind", "classes"), "n": int(next(iter(dups.values())).n_samples)}
    for key, src in (
        ("distinct", "n_distinct"),
        ("groups", "n_groups"),
        ("rows_in_groups", "n_rows_in_groups"),
        ("extra_copies", "n_extra_copies"),
        ("largest_group", "largest_group"),
        ("conflicting_groups", "n_conflicting_groups"),
        ("conflicting_rows", "n_conflicting_rows"),
        ("mixed_groups", "n_mixed_groups"),
        ("mixed_rows", "n_mixed_rows"),
    ):
        out[key] = _largest_known({rep: v[src] for rep, v in reps.items()})
    ceilings = [v["auroc_ceiling"] for v in reps.values() if v["auroc_ceiling"] is not None]
    out["auroc_ceiling"] = min(ceilings) if ceilings and out["kind"] == "anomaly" else None
    near = {rep: v["near"] for rep, v in reps.items()}
    out["near_thresholds"] = {rep: (n["threshold"] if n else None) for rep, n in near.items()}
    for key in ("pairs", "rows", "conflicting_rows"):
        out[f"near_{key}"] = _largest_known({rep: (n[f"n_{key}"] if n else None) for rep, n in near.items()})

    tables = [
        TableSpec(
            "duplicates",
            f"{name}: exact duplicates, conflicting labels and near duplicates per representation",
            _counts_frame(dups, reps),
            ID,
        )
    ]
    if r["overlap"] is None:
        out["train_test_overlap"] = _not_applicable(r["plan_reason"])
        out["train_test_overlap_where"] = None
        out["train_test_overlap_mean"] = None
        out["max_abs_delta_auroc"] = _not_applicable(r["plan_reason"])
        out["max_abs_delta_auroc_where"] = None
    else:
        shares = {rep: v["overlap"]["exact_share_max"] for rep, v in reps.items()}
        worst = max(shares, key=lambda rep: shares[rep])
        out["train_test_overlap"] = shares[worst]
        where = reps[worst]["overlap"]["exact_share_max_where"]
        out["train_test_overlap_where"] = None if where is None else {"representation": worst, **where}
        out["train_test_overlap_mean"] = _largest_known(
            {rep: v["overlap"]["exact_share_mean"] for rep, v in reps.items()}
        )
        frame = pd.concat([f.assign(representation=rep) for rep, f in r["overlap"].items()], ignore_index=True)
        frame = frame[["representation", *[c for c in frame.columns if c != "representation"]]]
        tables.append(
            TableSpec(
                "duplicates_overlap",
                f"{name}: test rows of each class-split task with an identical "
                "(exact) or a near copy among the task's training rows",
                frame,
                ID,
                compact=len(frame) <= 40,
            )
        )
        _add_auroc_changes(out, reps, r, proto, tables, name)
    if reps and isinstance(next(iter(reps.values()))["per_class"], list) and dups[next(iter(dups))].labels is not None:
        per_class = pd.concat(
            [d.to_frame().iloc[1:].drop(columns="scope").assign(representation=rep) for rep, d in dups.items()],
            ignore_index=True,
        )
        per_class = per_class[["representation", *[c for c in per_class.columns if c != "representation"]]]
        tables.append(
            TableSpec(
                "duplicates_per_class",
                f"{name}: duplicates per class (rows with an exact copy "
                "whatever its label; extra copies among the class's rows)",
                per_class,
                ID,
                compact=len(per_class) <= 40,
            )
        )
    tables.append(
        TableSpec(
            "duplicates_groups",
            f"{name}: example exact-duplicate groups (conflicting groups first, "
            f"then the largest; at most {EXAMPLE_ROWS} row indices per group)",
            groups_frame(dups),
            ID,
            compact=False,
        )
    )
    out["representations"] = reps
    return Section(ID, info(ID).title, summary=out, tables=tuple(tables), references=REFERENCES)


def _add_auroc_changes(out: dict, reps: dict, r: Mapping, proto, tables: list, name: str) -> None:
    """ΔAUROC of the representations with train/test copies: the summary keys and the table."""
    from ...duplicates.tasks import delta_frame

    frame = delta_frame(proto, r["dedup"], r["overlap"])
    for rep, item in reps.items():
        if rep in r["dedup_errors"]:
            item["delta_auroc"] = {
                "status": "failed",
                "reason": r["dedup_errors"][rep],
                "max_abs": None,
                "detectors": {},
            }
        elif rep not in r["dedup"]:  # no test row has an identical training row: the AUROCs cannot change
            item["delta_auroc"] = {
                "status": "no_overlap",
                "reason": None,
                "max_abs": 0.0,
                "detectors": {det: {"max_abs": 0.0, "mean": 0.0} for det in proto.detector_names},
            }
        else:
            f = frame[frame["representation"] == rep]
            dets = {}
            for det, g in f.groupby("detector", sort=False):
                d = g["delta_auroc"].abs()
                dets[det] = {
                    "max_abs": None if d.isna().all() else float(d.max()),
                    "mean": None if d.isna().all() else float(g["delta_auroc"].mean()),
                }
            mx = f["delta_auroc"].abs()
            item["delta_auroc"] = {
                "status": "computed",
                "reason": None,
                "max_abs": None if mx.isna().all() else float(mx.max()),
                "detectors": dets,
            }
    values = {rep: v["delta_auroc"]["max_abs"] for rep, v in reps.items()}
    out["max_abs_delta_auroc"] = _largest_known(values)
    out["max_abs_delta_auroc_where"] = None
    if len(frame) and out["max_abs_delta_auroc"]:
        i = frame["delta_auroc"].abs().idxmax()
        out["max_abs_delta_auroc_where"] = {k: frame.at[i, k] for k in ("representation", "detector", "class")}
        out["max_abs_delta_auroc_where"]["delta_auroc"] = float(frame.at[i, "delta_auroc"])
    if len(frame):
        tables.append(
            TableSpec(
                "duplicates_delta_auroc",
                f"{name}: AUROC(c) with and without the test rows that "
                "have an identical row among the task's training rows",
                frame,
                ID,
                compact=len(frame) <= 40,
            )
        )


def _counts_frame(dups: Mapping, reps: Mapping):
    import pandas as pd

    rows = []
    for rep, d in dups.items():
        v = reps[rep]
        near = v["near"] or {}
        rows.append(
            {
                "representation": rep,
                "n": d.n_samples,
                "distinct": d.n_distinct,
                "rows_in_groups": d.n_rows_in_groups,
                "extra_copies": d.n_extra_copies,
                "groups": d.n_groups,
                "largest_group": d.largest_group,
                "conflicting_groups": d.n_conflicting_groups,
                "conflicting_rows": d.n_conflicting_rows,
                "mixed_rows": v["n_mixed_rows"],
                "near_threshold": near.get("threshold"),
                "near_pairs": near.get("n_pairs"),
                "near_rows": near.get("n_rows"),
                "near_conflicting_rows": near.get("n_conflicting_rows"),
            }
        )
    return pd.DataFrame(rows)


def groups_frame(dups: Mapping):
    """Example groups of every representation: conflicting groups first, then the largest (row indices)."""
    import pandas as pd

    frames = []
    for rep, d in dups.items():
        order = np.argsort(-d.group_sizes, kind="stable")
        if d.group_conflicting is not None:
            order = order[np.argsort(~d.group_conflicting[order], kind="stable")]
        for g in order[:EXAMPLE_GROUPS]:
            rows = d.group(int(g))[:EXAMPLE_ROWS]
            part = {"representation": rep, "group": int(g), "size": int(d.group_sizes[g]), "row": rows}
            if d.labels is not None:
                part["label"] = [v.item() if hasattr(v, "item") else v for v in d.labels[rows]]
                part["conflicting"] = bool(d.group_conflicting[g])
            frames.append(pd.DataFrame(part))
    columns = ["representation", "group", "size", "row", "label", "conflicting"]
    if not frames:
        return pd.DataFrame(columns=columns)
    return pd.concat(frames, ignore_index=True)


# --------------------------------------------------------------------------- reading
def reading(p: Mapping, *, conditions: Mapping | None = None) -> str:
    """Plain-language reading of the duplicates part of a summary.

    ``conditions["duplicates"]`` and ``conditions["overlap"]``, the results of the default gates on the
    conflicting rows and the train/test overlap, give the sentences about their thresholds (left out when
    not evaluated).
    """
    conflicts, overlap = (conditions or {}).get("duplicates"), (conditions or {}).get("overlap")
    n, reps = p["n"], p["representations"]
    several = len(reps) > 1
    where = " in at least one representation" if several else ""
    if not p["rows_in_groups"]:
        text = f"No two of the {count(n)} rows are identical" + (" in any representation. " if several else ". ")
    else:
        text = (
            f"{count(p['rows_in_groups'])} of the {count(n)} rows ({pct(p['rows_in_groups'] / n)}) have an "
            f"identical copy{where}: {count(p['groups'])} group{'' if p['groups'] == 1 else 's'}, "
            f"{count(p['extra_copies'])} rows beyond the "
            f"first of each group, the largest with {count(p['largest_group'])} rows. "
        )
        if p["conflicting_rows"]:
            groups = "group" if p["conflicting_groups"] == 1 else "groups"
            allows = f" (the default gate allows {conflicts.rule.threshold:g})" if conflicts is not None else ""
            text += (
                f"{count(p['conflicting_rows'])} rows in {count(p['conflicting_groups'])} {groups} carry "
                f"different labels{allows}: every detector gives identical rows the "
                "same score, so such rows are ties between a normal and an anomaly that no detector can order"
            )
            text += (
                f"; no detector can exceed an AUROC of {fmt(p['auroc_ceiling'], digits=4)} on the whole set. "
                if p["auroc_ceiling"] is not None
                else ". "
            )
        else:
            text += "Every group carries one label. "
    if p["near_pairs"] is not None:
        taus = [t for t in p["near_thresholds"].values() if t is not None]
        text += (
            f"Near duplicates (closer than τ = 0.13 × the median nearest-neighbour distance"
            + (f", τ = {fmt(taus[0], digits=4)}" if len(taus) == 1 else "")
            + "): "
            + (
                f"{count(p['near_pairs'])} pairs of distinct rows, {count(p['near_conflicting_rows'])} rows in "
                "near groups with different labels. "
                if p["near_pairs"]
                else "none. "
            )
        )
    ov = p["train_test_overlap"]
    if isinstance(ov, Mapping):
        return (text + f"Train/test overlap: not applicable ({ov['reason']}).").strip()
    semi = p["kind"] == "anomaly"
    if ov == 0:
        text += (
            "No test row of the semi-supervised task has an identical row among its training normals"
            if semi
            else "No test row of any class-split task has an identical row among that task's training rows"
        ) + ", so no AUROC was earned by memory of the training set."
        return text.strip()
    w = p["train_test_overlap_where"]
    rep = f", {w['representation']}" if several else ""
    if semi:
        text += (
            f"In the semi-supervised task (detectors fitted on a split of the normals), {pct(ov)} of the test "
            f"rows{rep and ' (' + rep[2:] + ')'} have an identical row among the training normals; "
        )
    else:
        text += (
            f"In the class-split tasks, up to {pct(ov)} of a task's test rows (class {w['class']}{rep}) have "
            f"an identical row among its training rows (over all tasks {pct(p['train_test_overlap_mean'])}); "
        )
    if overlap is not None:
        limit = pct(overlap.rule.threshold, digits=0)
        text += (
            f"within the {limit} of the default gate. "
            if overlap.passed
            else f"above the {limit} of the default gate. "
        )
    text += (
        "A distance-based detector scores such a test row as perfectly normal: a copied normal is an easy "
        "normal, a copied anomaly (a row that also carries a normal label) a missed one. "
    )
    d = p["max_abs_delta_auroc"]
    if d is None:
        text += "AUROC(c) without these rows could not be computed."
    else:
        wd = p["max_abs_delta_auroc_where"]
        text += (
            f"Leaving them out of the test sets changes AUROC(c) by at most {fmt(d)}"
            + (f" (detector {wd['detector']}, class {wd['class']}: {fmt(wd['delta_auroc'])})" if wd else "")
            + "; the per-detector changes are in the ΔAUROC table."
        )
    return text.strip()
