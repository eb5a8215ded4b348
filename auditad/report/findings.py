"""The findings block: what is wrong with the benchmark, for which detector, on the first screen.

Built from the audit's ``summary.json`` and its stored gate results
([`GateResult`][auditad.gates.checks.GateResult], evaluated once by the pipeline), never from a new computation:
one row per representation with its headline numbers, and a list of findings like a test report
(each check, its status, the number, the threshold, and the named classes and detectors behind it,
with one sentence on what it means and what to do next). Deepchecks attaches conditions to checks and
lists the failed ones first; the same order is used here: fail, warn, info, then pass.

The findings are the shared [`Finding`][auditad.findings.Finding] records of declared
[`Check`][auditad.findings.Check]s (the gates' titles and meanings come from
[`auditad.gates.defaults`][auditad.gates.defaults]); `finding_rows` words them for the page.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from .. import _format
from ..findings import Check, Finding, FindingItem, Status, sort_findings
from ..gates.checks import GateResult
from ..gates.defaults import GATE_CHECKS, NEAR_RANDOM_CHECK, ONE_TASK_CHECKS

__all__ = [
    "Finding",
    "findings",
    "finding_rows",
    "representation_rows",
    "MAX_NAMED",
    "INVERTED_CHECK",
    "NOISE_CHECK",
    "NEAR_RANDOM_CHECK",
    "DUPLICATES_CHECK",
]

#: Classes named in one finding before "and N more".
MAX_NAMED = 6

#: A detector that ranks held-out classes significantly below the normals (after Holm over the classes).
INVERTED_CHECK = Check(
    "significantly_inverted_classes",
    Status.WARN,
    "significantly inverted classes",
    "The detector ranks these held-out classes below the normals, significantly after Holm's "
    "correction over the classes: its AUROC averaged over classes mixes opposite behaviours. Report "
    "this detector per class, or check the class definitions and the score direction.",
    threshold=0,
)
#: Classes below ½ but not significantly so.
NOISE_CHECK = Check(
    "classes_below_half_within_noise",
    Status.INFO,
    "classes below ½ within noise",
    "Below ½ but not significantly so after Holm's correction over the classes (the intervals shown are per "
    "class, uncorrected): what would tell follows the variance source that dominates their "
    "intervals (test samples, or detector seeds and splits).",
    threshold=0,
)
#: Classes whose draws (detector seeds, splits) fall on both sides of ½ with at least one significant on its own.
SEED_SENSITIVE_CHECK = Check(
    "seed_sensitive_classes",
    Status.WARN,
    "seed-sensitive classes",
    "The draws of these classes (detector seeds, splits) fall on both sides of ½ and at least one of them is "
    "significant on its own: one draw would make a claim the others contradict. Read them as undecided; more "
    "seeds and splits would tell.",
    threshold=0,
)
#: Exact duplicates in the data: a warning when some sit in groups with different labels, else information.
DUPLICATES_CHECK = Check(
    "exact_duplicates",
    Status.WARN,
    "exact duplicates",
    "Copies split across training and test rows give kNN and LOF a distance of 0 (an AUROC inflated by "
    "leakage); identical rows with different labels cap every detector. The duplicates section lists them "
    "(data/duplicates_groups.csv) and the AUROC without the copies.",
    threshold=0,
)
_CLASS_CHECKS = {
    INVERTED_CHECK.id: INVERTED_CHECK,
    NOISE_CHECK.id: NOISE_CHECK,
    SEED_SENSITIVE_CHECK.id: SEED_SENSITIVE_CHECK,
    NEAR_RANDOM_CHECK.id: NEAR_RANDOM_CHECK,
}


def _class_text(row: Mapping) -> str:
    lo, hi = row.get("ci_low"), row.get("ci_high")
    est = row.get("estimate")  # the decision's estimate (combined over draws when there are several)
    text = f"class {row['class']}: {_format.stat(est if est is not None else row.get('auroc'))}"
    if lo is not None and hi is not None:
        text += f" [{_format.stat(lo)}, {_format.stat(hi)}]"
    return text


def _named(rows: list) -> str:
    shown = "; ".join(_class_text(r) for r in rows[:MAX_NAMED])
    return shown + (f" and {len(rows) - MAX_NAMED} more" if len(rows) > MAX_NAMED else "")


def _class_items(rows: list) -> tuple:
    return tuple(
        FindingItem(
            str(r["class"]),
            value=r["auroc"] if r.get("auroc") is not None else float("nan"),
            detail=_class_text(r),
            evidence={"ci_low": r.get("ci_low"), "ci_high": r.get("ci_high"), "detector": r.get("detector")},
        )
        for r in rows
    )


def representation_rows(summary: Mapping) -> list[dict]:
    """One row per representation: leakage, and the protocol's per-detector average and worst detector."""
    prot = summary.get("protocol") or {}
    leak = (summary.get("leakage") or {}).get("representations") or {}
    reps = prot.get("representations") or {}
    names = list(reps) or list(leak) or list((summary.get("dataset") or {}).get("representations") or [])
    rows = []
    for rep in names:
        p = reps.get(rep) if isinstance(reps.get(rep), Mapping) else {}
        mean, worst = p.get("mean") or {}, p.get("worst") or {}
        lk = leak.get(rep) or {}
        rows.append(
            {
                "representation": rep,
                "L_k": _format.stat(lk.get("L_k") if isinstance(lk, Mapping) else None),
                "mean_auc": _format.stat(mean.get("mean_auc")),
                "rho_inv": _format.stat(mean.get("rho_inv")),
                "rho_inv_worst": _worst_text(worst, "rho_inv"),
                "rho_dir": _format.stat(mean.get("rho_dir")),
                "rho_dir_worst": _worst_text(worst, "rho_dir"),
                "n_inv_sig": _format.count(_sig_count(p)),
            }
        )
    return rows


def _worst_text(worst: Mapping, key: str) -> str:
    value = worst.get(key)
    det = worst.get(f"{key}_detector")
    return f"{_format.stat(value)} ({det})" if det else _format.stat(value)


def _sig_count(rep_summary: Mapping) -> int:
    rows = rep_summary.get("per_class")
    if not isinstance(rows, list):  # moved to a CSV file at many classes: the count of the summary rows
        return int(round(sum((d or {}).get("n_inv_sig") or 0 for d in (rep_summary.get("detectors") or {}).values())))
    return sum(1 for r in rows if r.get("significance") == "significantly inverted")


def _by_auroc(rows: Iterable) -> list:
    def key(r):
        est = r.get("estimate") if r.get("estimate") is not None else r.get("auroc")
        return est if est is not None else 1.0

    return sorted(rows, key=key)


def _detector_findings(det: str, rep: str, rows: list, n: int, eps) -> list[Finding]:
    """The per-class findings of one detector on one representation (its rows of the per-class table)."""
    sig = _by_auroc(r for r in rows if r.get("significance") == "significantly inverted")
    noise = _by_auroc(r for r in rows if r.get("significance") == "below 1/2 within noise")
    near = [r for r in rows if r.get("significance") == "near random"]
    sensitive = [r for r in rows if r.get("significance") == "seed-sensitive"]
    where = f"{det} on {rep}"
    evidence = {"n_classes": n, "epsilon": eps}
    out = []
    if sig:
        sentence = f"{where} inverts {_named(sig)}."
        out.append(
            INVERTED_CHECK.finding(
                len(sig), sentence=sentence, items=_class_items(sig), subject=where, evidence=evidence
            )
        )
    if noise:
        sentence = f"{where}: {_named(noise)}. {_noise_advice(noise)}"
        out.append(
            NOISE_CHECK.finding(
                len(noise), sentence=sentence, items=_class_items(noise), subject=where, evidence=evidence
            )
        )
    if sensitive:
        out.append(
            SEED_SENSITIVE_CHECK.finding(
                len(sensitive),
                sentence=f"{where}: {_named(sensitive)}.",
                items=_class_items(sensitive),
                subject=where,
                evidence=evidence,
            )
        )
    if near and n:
        found = NEAR_RANDOM_CHECK.finding(
            len(near) / n,
            sentence=f"{where}: {_named(near)}.{_distinguishable_text(near)}",
            items=_class_items(near),
            subject=where,
            evidence=evidence,
        )
        out.extend([found] if found.status is not Status.PASS else [])
    return out


def _records(frame) -> list[dict]:
    """The rows of a per-class table as the summary holds them inline: missing cells are None."""
    return frame.astype(object).where(frame.notna(), None).to_dict("records")


def _per_class_rows(rep_summary: Mapping, tables) -> list:
    """The per-class rows of one representation: inline, or the CSV table the summary names (many classes)."""
    rows = rep_summary.get("per_class")
    if isinstance(rows, list):
        return rows
    if tables is None or not isinstance(rows, Mapping) or not isinstance(rows.get("csv"), str):
        return []
    frame = tables(rows["csv"]) if callable(tables) else tables.get(rows["csv"])
    return [] if frame is None else _records(frame)


def _distinguishable_text(near: list) -> str:
    """The near-random classes that differ from a random detector: the stored ``distinguishable`` decision (Holm
    p ≤ α), a bool inline or in memory, its text read from a CSV file."""
    dist = [r for r in near if str(r.get("distinguishable")) == "True"]
    if not dist:
        return ""
    return (
        f" Of these, {len(dist)} differ from a random detector (Holm-corrected), by less than ε: "
        f"{', '.join(str(r['class']) for r in dist[:MAX_NAMED])}"
        + (f" and {len(dist) - MAX_NAMED} more." if len(dist) > MAX_NAMED else ".")
    )


def findings(summary: Mapping, gate_results: Iterable[GateResult] | None = None, *, tables=None) -> list[Finding]:
    """The findings of one audit summary, fail first, then warn, info and pass.

    ``gate_results`` are the audit's evaluated gates; None reads the results stored in ``summary["gates"]``
    (``GateResult.from_dict``). Either way nothing is evaluated again.

    Parameters
    ----------
    summary : mapping
        The audit's ``summary.json``.
    gate_results : iterable of GateResult, optional
    tables : mapping of str -> DataFrame, or callable, optional
        Above [`MAX_INLINE_CLASSES`][auditad.audit.bounded.MAX_INLINE_CLASSES] classes the summary names a CSV
        file (``{"csv": "data/summary/....csv", "n_rows": n}``) instead of holding the per-class rows; ``tables``
        gives that table by its relative path (the audit's ``summary_files``, or a function reading the audit
        folder), so the findings name the classes. Without it such a summary gives only the gates' counts.

    Returns
    -------
    list of Finding
        The shared [`Finding`][auditad.findings.Finding] records; `finding_rows` words them for the page.
    """
    if gate_results is None:
        gate_results = [GateResult.from_dict(g) for g in summary.get("gates") or ()]
    dup = summary.get("duplicates") if isinstance(summary.get("duplicates"), Mapping) else {}
    one_task = (summary.get("protocol") or {}).get("setting") == "semi_supervised"
    out: list[Finding] = [_gate_finding(r, dup, one_task=one_task) for r in gate_results]
    out.extend(_duplicates_findings(summary.get("duplicates")))
    prot = summary.get("protocol") or {}
    for rep, p in (prot.get("representations") or {}).items():
        if not isinstance(p, Mapping):
            continue
        rows = _per_class_rows(p, tables)
        for det, dsum in (p.get("detectors") or {}).items():
            mine = [r for r in rows if r.get("detector") == det]
            n = len([r for r in mine if r.get("auroc") is not None]) or dsum.get("n_classes") or 0
            out.extend(_detector_findings(det, rep, mine, n, prot.get("epsilon")))
    return sort_findings(out)


def _noise_advice(rows) -> str:
    """What would settle classes below ½ within noise: the variance source that dominates their intervals."""
    draws = [r for r in rows if r.get("dominant_source") == "seeds and splits"]
    if not draws:
        return "At these counts more test samples would tell."
    if len(draws) == len(rows):
        return "Their spread comes from seeds and splits, so more seeds/splits would tell."
    return (
        "More seeds/splits would tell for "
        + ", ".join(str(r["class"]) for r in draws)
        + " (their spread comes from seeds and splits), more test samples for the others."
    )


def _duplicates_findings(dup) -> list[Finding]:
    """Exact duplicates are named on the first screen whenever there are any (the gates cover conflicts and
    overlap; this says how many copies there are at all)."""
    if not isinstance(dup, Mapping) or not dup.get("rows_in_groups"):
        return []
    conflicting = dup.get("conflicting_rows") or 0
    sentence = f"The largest group holds {_format.count(dup.get('largest_group'))} identical rows" + (
        f"; {_format.count(conflicting)} rows sit in groups with different labels." if conflicting else "."
    )
    evidence = {k: dup.get(k) for k in ("rows_in_groups", "groups", "extra_copies", "largest_group")}
    status = Status.WARN if conflicting else Status.INFO
    return [DUPLICATES_CHECK.finding(dup["rows_in_groups"], sentence=sentence, status=status, evidence=evidence)]


def _declared_check(path: str, one_task: bool = False) -> Check | None:
    """The declared check of a gate's summary path, in the wording of anomaly-labelled data when ``one_task``."""
    return (ONE_TASK_CHECKS.get(path) if one_task else None) or GATE_CHECKS.get(path)


def _gate_finding(r: GateResult, duplicates: Mapping | None = None, *, one_task: bool = False) -> Finding:
    rule = r.rule
    declared = _declared_check(rule.path, one_task) or Check(rule.path, Status.WARN, rule.path, "")
    value = r.finite_value
    sentence = f"Gate {rule.expression}: {r.message}." if r.status is not Status.PASS else f"Gate {rule.expression}."
    evidence = {"op": rule.op, "threshold": rule.threshold, "value": value, "one_task": one_task}
    if rule.path == "duplicates.train_test_overlap" and duplicates:
        delta = duplicates.get("max_abs_delta_auroc")
        evidence["max_abs_delta_auroc"] = delta if isinstance(delta, (int, float)) else None
    return declared.finding(
        value if value is not None else float("nan"),
        sentence=sentence,
        status=r.status,
        threshold=rule.threshold,
        evidence=evidence,
    )


def _number_text(f: Finding) -> str:
    ev = f.evidence
    if f.check in _CLASS_CHECKS:
        n = ev["n_classes"]
        text = f"{len(f.items)} of {n} classes"
        if f.check == INVERTED_CHECK.id:
            text += f" ({_format.percent(len(f.items) / n if n else None, digits=0)})"
        return text
    if f.check == DUPLICATES_CHECK.id:
        return (
            f"{_format.count(ev['rows_in_groups'])} rows in {_format.count(ev.get('groups'))} groups "
            f"({_format.count(ev.get('extra_copies'))} extra copies)"
        )
    return _format.stat(ev["value"]) if ev.get("value") is not None else _format.missing()


def _threshold_text(f: Finding) -> str:
    if f.check == INVERTED_CHECK.id:
        return "0"
    if f.check == NEAR_RANDOM_CHECK.id:
        eps = f.evidence.get("epsilon")
        return f"|AUROC − ½| ≤ ε = {eps:g}" if eps is not None else ""
    if f.check in _CLASS_CHECKS or f.check == DUPLICATES_CHECK.id:
        return ""
    return f"{f.evidence['op']} {f.evidence['threshold']}"


def _meaning(f: Finding) -> str:
    declared = _CLASS_CHECKS.get(f.check) or (DUPLICATES_CHECK if f.check == DUPLICATES_CHECK.id else None)
    if declared is not None:
        return declared.meaning_for(f)
    gate = _declared_check(f.check, bool(f.evidence.get("one_task")))
    return gate.meaning_for(f) if gate is not None and f.status is not Status.PASS else ""


def finding_rows(found: Iterable[Finding]) -> list[dict]:
    """The findings as the page words them: status, title, number and threshold texts, sentence, meaning.

    See Also
    --------
    - [`findings`][auditad.report.findings.findings]: the records.
    """
    return [
        {
            "status": f.status.value,
            "check": f.title,
            "number": _number_text(f),
            "threshold": _threshold_text(f),
            "subject": f.sentence,
            "meaning": _meaning(f),
            "items": [it.name for it in f.items],
        }
        for f in found
    ]
