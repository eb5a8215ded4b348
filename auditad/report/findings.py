"""The findings block: what is wrong with the benchmark, for which detector, on the first screen.

Built from the audit's ``summary.json`` and its stored gate results
([`GateResult`][auditad.gates.checks.GateResult], evaluated once by the pipeline), never from a new computation:
one row per representation with its headline numbers, and a list of findings like a test report
(each check, its status, the number, the threshold, and the named classes and detectors behind it,
with one sentence on what it means and what to do next). Deepchecks attaches conditions to checks and
lists the failed ones first; the same order is used here: fail, warn, then pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping

from .. import _format
from ..gates.checks import GateResult

__all__ = ["Finding", "findings", "representation_rows", "MAX_NAMED"]

#: Classes named in one finding before "and N more".
MAX_NAMED = 6
_ORDER = {"fail": 0, "warn": 1, "info": 2, "pass": 3}


@dataclass(frozen=True)
class Finding:
    """One finding: a check, its status, the number, the threshold, who is behind it and what it means."""

    check: str
    status: str
    number: str
    threshold: str
    subject: str
    meaning: str
    items: tuple = field(default=())

    def to_dict(self) -> dict:
        """JSON-safe dict."""
        return {
            "check": self.check,
            "status": self.status,
            "number": self.number,
            "threshold": self.threshold,
            "subject": self.subject,
            "meaning": self.meaning,
            "items": list(self.items),
        }

    def text(self) -> str:
        """One line of plain text (the CLI and Markdown summaries)."""
        head = f"[{self.status.upper()}] {self.check}: {self.number}"
        if self.threshold:
            head += f" (threshold {self.threshold})"
        return f"{head}. {self.subject} {self.meaning}".strip()


def _fmt_class(row: Mapping) -> str:
    lo, hi = row.get("ci_low"), row.get("ci_high")
    est = row.get("estimate")  # the decision's estimate (combined over draws when there are several)
    text = f"class {row['class']}: {_format.stat(est if est is not None else row.get('auroc'))}"
    if lo is not None and hi is not None:
        text += f" [{_format.stat(lo)}, {_format.stat(hi)}]"
    return text


def _named(rows: list) -> str:
    shown = "; ".join(_fmt_class(r) for r in rows[:MAX_NAMED])
    return shown + (f" and {len(rows) - MAX_NAMED} more" if len(rows) > MAX_NAMED else "")


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


def findings(summary: Mapping, gate_results: Iterable[GateResult] | None = None) -> list[Finding]:
    """The findings of one audit summary, fail first, then warn, info and pass.

    ``gate_results`` are the audit's evaluated gates; None reads the results stored in ``summary["gates"]``
    (``GateResult.from_dict``). Either way nothing is evaluated again.
    """
    if gate_results is None:
        gate_results = [GateResult.from_dict(g) for g in summary.get("gates") or ()]
    out: list[Finding] = [_gate_finding(r) for r in gate_results]
    out.extend(_duplicates_findings(summary.get("duplicates")))
    prot = summary.get("protocol") or {}
    eps = prot.get("epsilon")
    for rep, p in (prot.get("representations") or {}).items():
        if not isinstance(p, Mapping):
            continue
        rows = p.get("per_class") if isinstance(p.get("per_class"), list) else []
        for det, dsum in (p.get("detectors") or {}).items():
            mine = [r for r in rows if r.get("detector") == det]
            sig = sorted(
                (r for r in mine if r.get("significance") == "significantly inverted"),
                key=lambda r: r.get("auroc") if r.get("auroc") is not None else 1.0,
            )
            noise = sorted(
                (r for r in mine if r.get("significance") == "below 1/2 within noise"),
                key=lambda r: r.get("auroc") if r.get("auroc") is not None else 1.0,
            )
            near = [r for r in mine if r.get("significance") == "near random"]
            sensitive = [r for r in mine if r.get("significance") == "seed-sensitive"]
            n = len([r for r in mine if r.get("auroc") is not None]) or dsum.get("n_classes") or 0
            if sig:
                out.append(
                    Finding(
                        "significantly inverted classes",
                        "warn",
                        f"{len(sig)} of {n} classes ({_format.percent(len(sig) / n if n else None, digits=0)})",
                        "0",
                        f"{det} on {rep} inverts {_named(sig)}.",
                        "The detector ranks these held-out classes below the normals, significantly after Holm's "
                        "correction over the classes: its AUROC averaged over classes mixes opposite behaviours. Report "
                        "this detector per class, or check the class definitions and the score direction.",
                        tuple(str(r["class"]) for r in sig),
                    )
                )
            if noise:
                out.append(
                    Finding(
                        "classes below ½ within noise",
                        "info",
                        f"{len(noise)} of {n} classes",
                        "",
                        f"{det} on {rep}: {_named(noise)}.",
                        _noise_advice(noise),
                        tuple(str(r["class"]) for r in noise),
                    )
                )
            if sensitive:
                out.append(
                    Finding(
                        "seed-sensitive classes",
                        "warn",
                        f"{len(sensitive)} of {n} classes",
                        "",
                        f"{det} on {rep}: {_named(sensitive)}.",
                        "The draws of these classes (detector seeds, splits) fall on both sides of ½ and at least "
                        "one of them is significant on its own: one draw would make a claim the others contradict. "
                        "Read them as undecided; more seeds and splits would tell.",
                        tuple(str(r["class"]) for r in sensitive),
                    )
                )
            if near and n and len(near) / n > 0.2:
                out.append(
                    Finding(
                        "near-random classes",
                        "info",
                        f"{len(near)} of {n} classes",
                        f"|AUROC − ½| ≤ ε = {eps:g}" if eps is not None else "",
                        f"{det} on {rep}: {_named(near)}.",
                        "The detector cannot tell these held-out classes from the normals.",
                        tuple(str(r["class"]) for r in near),
                    )
                )
    out.sort(key=lambda f: _ORDER.get(f.status, 9))
    return out


def _noise_advice(rows) -> str:
    """What would settle classes below ½ within noise: the variance source that dominates their intervals."""
    draws = [r for r in rows if r.get("dominant_source") == "seeds and splits"]
    if not draws:
        return "Below ½ but not significantly so at these counts: more test samples would tell."
    if len(draws) == len(rows):
        return "Below ½ but not significantly so: their spread comes from seeds and splits, so more seeds/splits would tell."
    return (
        "Below ½ but not significantly so: more seeds/splits would tell for "
        + ", ".join(str(r["class"]) for r in draws)
        + " (their spread comes from seeds and splits), more test samples for the others."
    )


def _duplicates_findings(dup) -> list[Finding]:
    """Exact duplicates are named on the first screen whenever there are any (the gates cover conflicts and
    overlap; this says how many copies there are at all)."""
    if not isinstance(dup, Mapping) or not dup.get("rows_in_groups"):
        return []
    conflicting = dup.get("conflicting_rows") or 0
    return [
        Finding(
            "exact duplicates",
            "warn" if conflicting else "info",
            f"{_format.count(dup['rows_in_groups'])} rows in {_format.count(dup.get('groups'))} groups "
            f"({_format.count(dup.get('extra_copies'))} extra copies)",
            "",
            f"The largest group holds {_format.count(dup.get('largest_group'))} identical rows"
            + (f"; {_format.count(conflicting)} rows sit in groups with different labels." if conflicting else "."),
            "Copies split across training and test rows give kNN and LOF a distance of 0 (an AUROC inflated by "
            "leakage); identical rows with different labels cap every detector. The duplicates section lists them "
            "(data/duplicates_groups.csv) and the AUROC without the copies.",
        )
    ]


_GATE_MEANING = {
    "leakage.L_k": (
        "class leakage",
        "The semantic classes overlap in the representation space: a class held out as "
        "anomalies looks like the normals, so a low AUROC may be the benchmark's, not the detector's.",
    ),
    "protocol.worst.rho_dir": (
        "direction instability",
        "A detector's score direction flips between held-out "
        "classes (as on CIFAR-10 and Imagenette in \u201cTesting the Test\u201d): an AUROC "
        "averaged over classes hides opposite behaviours. Read the per-class table.",
    ),
    "protocol.worst.rho_inv_sig": (
        "significant inversions",
        "At least one detector ranks a held-out class "
        "significantly below the normals (Holm-corrected). See the classes named below.",
    ),
    "duplicates.conflicting_rows": (
        "conflicting labels",
        "Identical samples carry different labels (two classes, or "
        "normal and anomaly): no detector can rank them apart, so every AUROC is capped. "
        "Remove or relabel them (data/duplicates_groups.csv lists them).",
    ),
    "duplicates.train_test_overlap": (
        "train/test overlap",
        "Test samples have an exact copy among the training "
        "rows of their task: kNN and LOF give them distance 0, an AUROC inflated by "
        "leakage, not by detection. De-duplicate before splitting; the duplicates "
        "section shows the AUROC without the copies.",
    ),
    "protocol.mean.rho_dir": (
        "direction instability (average over detectors)",
        "The average of the per-detector direction-instability rates.",
    ),
}


def _gate_finding(r: GateResult) -> Finding:
    rule = r.rule
    check, meaning = _GATE_MEANING.get(rule.path, (rule.path, ""))
    value = r.finite_value
    number = _format.stat(value) if value is not None else _format.missing()
    status = r.status.value
    subject = f"Gate {rule.expression}: {r.message}." if status != "pass" else f"Gate {rule.expression}."
    return Finding(check, status, number, f"{rule.op} {rule.threshold}", subject, meaning if status != "pass" else "")
