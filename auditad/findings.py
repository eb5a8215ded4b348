"""One vocabulary for what every audit concludes: `Status`, `Check`, `Finding`, `FindingItem`, `verdict`.

Every kind of audit (the embedding audit's report, published results and leaderboards, time-series and
OOD audits) states its conclusions as `Finding` records: a declared `Check` (id, the status it gives when
it finds something, a title, what it means, its threshold), the status reached, the number compared to the
threshold, one sentence, and the named items behind it with their evidence. A sentence, a table cell, a
gate and ``summary.json`` all read the same record; none of them decides again. The pattern is Deepchecks'
condition-next-to-check: the threshold, the title and the meaning are declared together, once.

Examples
--------
>>> check = Check("inverted", Status.FAIL, "inverted classes", "Classes ranked below the normals.", threshold=0)
>>> f = check.finding(2, sentence="2 of 10 classes are significantly inverted.",
...                   items=[FindingItem("cat", value=0.31), FindingItem("dog", value=0.40)])
>>> f.status, f.number, [it.name for it in f.items]
(<Status.FAIL: 'fail'>, 2.0, ['cat', 'dog'])
>>> verdict([f, check.finding(0, sentence="none")])
<Status.FAIL: 'fail'>
>>> Status.WARN < Status.FAIL, Status.worst(["pass", "info"])
(True, <Status.INFO: 'info'>)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Callable, Iterable, Mapping


def json_safe(value, *, other=None):
    """`auditad._json.json_safe`, imported when a record is serialised (importing numpy at import time would
    load it for ``auditad --version``)."""
    from ._json import json_safe as convert

    return convert(value, other=other)


__all__ = [
    "Status",
    "Check",
    "Finding",
    "FindingItem",
    "verdict",
    "sort_findings",
    "verdict_text",
    "status_of",
    "SIGNIFICANCE",
    "SIGNIFICANTLY_INVERTED",
    "BELOW_UNTESTED",
    "BELOW_WITHIN_NOISE",
    "NEAR_RANDOM",
    "ABOVE_HALF",
    "NOT_EVALUATED",
    "SEED_SENSITIVE",
]

#: How one class of one detector (or published method) reads: AUROC < ½ beyond noise, after Holm's correction.
SIGNIFICANTLY_INVERTED = "significantly inverted"
#: Below ½ − ε with neither counts nor a spread to test it (published tables only).
BELOW_UNTESTED = "below 1/2, untested"
#: Below ½, but not significantly.
BELOW_WITHIN_NOISE = "below 1/2 within noise"
#: |AUROC − ½| ≤ ε.
NEAR_RANDOM = "near random"
#: Above ½ (and not near random).
ABOVE_HALF = "above 1/2"
#: No AUROC (a class without samples).
NOT_EVALUATED = "not evaluated"
#: Draws of a class (detector seeds, splits) on both sides of ½, one of them significant on its own: no direction
#: is claimed (the protocol audit's confirmatory draws; a published table has one value and never reads so).
SEED_SENSITIVE = "seed-sensitive"
#: The readings of a class, most serious first: one set for the protocol audit and published tables.
SIGNIFICANCE = (SIGNIFICANTLY_INVERTED, BELOW_UNTESTED, BELOW_WITHIN_NOISE, NEAR_RANDOM, ABOVE_HALF, NOT_EVALUATED)

_RANK = {"pass": 0, "info": 1, "warn": 2, "fail": 3}
#: How a status fails a gate: ``info`` informs and never fails one (the gates' former 0/1/2 scale).
_SEVERITY = {"pass": 0, "info": 0, "warn": 1, "fail": 2}


class Status(str, Enum):
    """Outcome of a check, ordered ``pass < info < warn < fail``.

    String-valued (``Status.PASS == "pass"``), so JSON files, templates and f-strings see the plain
    words. ``info`` is a finding that informs without failing anything (it never fails a gate).

    See Also
    --------
    - [`verdict`][auditad.findings.verdict]: the worst status of several findings.
    - [`Finding`][auditad.findings.Finding]: the record that carries a status.

    Examples
    --------
    >>> Status("warn") == "warn", f"{Status.FAIL}", Status.PASS.rank, max(Status.WARN, Status.INFO)
    (True, 'fail', 0, <Status.WARN: 'warn'>)
    """

    PASS = "pass"
    INFO = "info"
    WARN = "warn"
    FAIL = "fail"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    def __hash__(self) -> int:
        return hash(self.value)

    @property
    def rank(self) -> int:
        """0 for ``pass``, 1 for ``info``, 2 for ``warn``, 3 for ``fail``."""
        return _RANK[self.value]

    @property
    def severity(self) -> int:
        """How it fails a gate: 0 for ``pass`` and ``info``, 1 for ``warn``, 2 for ``fail``.

        The scale of the former ``GateStatus.severity``, kept for its callers; `rank` orders all four.
        """
        return _SEVERITY[self.value]

    def _other_rank(self, other) -> int:
        return Status(other).rank

    def __lt__(self, other) -> bool:
        return self.rank < self._other_rank(other)

    def __le__(self, other) -> bool:
        return self.rank <= self._other_rank(other)

    def __gt__(self, other) -> bool:
        return self.rank > self._other_rank(other)

    def __ge__(self, other) -> bool:
        return self.rank >= self._other_rank(other)

    @classmethod
    def worst(cls, statuses: Iterable) -> "Status":
        """The worst of ``statuses`` (``pass`` when there are none)."""
        return max((cls(s) for s in statuses), default=cls.PASS, key=lambda s: s.rank)


@dataclass(frozen=True)
class FindingItem:
    """One named thing behind a finding (a class, a detector, a method on a dataset, a series, an OOD set).

    Attributes
    ----------
    name : str
        What a reader sees, e.g. ``"LODA on Lymphography, seed 3"`` or ``"class cat (iforest)"``.
    value : float
        The item's statistic (``nan`` when it has none).
    detail : str
        A short phrase with the evidence, e.g. ``"AUROC 0.31 [0.25, 0.38], Holm p = 1e-6"``.
    evidence : Mapping
        The numbers and keys behind it (JSON-safe), e.g. ``{"method": "LODA", "dataset": "x", "p": 1e-6}``.

    See Also
    --------
    - [`Finding`][auditad.findings.Finding]
    """

    name: str
    value: float = math.nan
    detail: str = ""
    evidence: Mapping = field(default_factory=dict)

    def to_dict(self) -> dict:
        """JSON-safe dict."""
        return json_safe(
            {"name": self.name, "value": self.value, "detail": self.detail, "evidence": dict(self.evidence)},
            other=str,
        )


@dataclass(frozen=True)
class Finding:
    """The result of one check: status, the number, the threshold, a sentence and the items behind it.

    Attributes
    ----------
    check : str
        Id of the declared `Check`.
    status : Status
    title : str
        Short heading, e.g. ``"significantly inverted classes"``.
    sentence : str
        One sentence: what was found, what it means, what to do.
    number : float
        What the threshold is compared to (a count of items, a rate, a p-value).
    threshold : float
    rule : str
        The comparison that passes, e.g. ``"number <= 0"``.
    items : tuple of FindingItem
        The named items behind it, worst first.
    subject : str
        What was measured (a representation, a metric, a dataset), or ``""``.
    evidence : Mapping
        The numbers behind the finding as a whole (JSON-safe), e.g. ``{"n_classes": 10}``; the pages
        word the number and the threshold from them.

    See Also
    --------
    - [`Check.finding`][auditad.findings.Check.finding]: builds a finding from a declared check.
    - [`verdict`][auditad.findings.verdict]
    """

    check: str
    status: Status
    title: str
    sentence: str
    number: float = math.nan
    threshold: float = math.nan
    rule: str = ""
    items: tuple = ()
    subject: str = ""
    evidence: Mapping = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "status", Status(self.status))
        object.__setattr__(self, "items", tuple(self.items))

    def text(self, *, max_items: int = 8) -> str:
        """Plain text: a status line, then up to ``max_items`` items."""
        head = f"{self.status.value.upper():4} {self.check}" + (f" [{self.subject}]" if self.subject else "")
        lines = [f"{head}: {self.sentence}"]
        for it in self.items[:max_items]:
            lines.append(f"     - {it.name}" + (f": {it.detail}" if it.detail else ""))
        if len(self.items) > max_items:
            lines.append(f"     ... {len(self.items) - max_items} more")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """JSON-safe dict with the items (and ``evidence`` when there is any)."""
        out = {
            "check": self.check,
            "status": self.status.value,
            "title": self.title,
            "sentence": self.sentence,
            "number": self.number,
            "threshold": self.threshold,
            "rule": self.rule,
            "subject": self.subject,
            "items": [it.to_dict() for it in self.items],
        }
        if self.evidence:
            out["evidence"] = dict(self.evidence)
        return json_safe(out, other=str)


@dataclass(frozen=True)
class Check:
    """A check declared once: its id, the status it gives when it finds something, title, meaning, threshold.

    A finding passes when ``number <= threshold`` (the default ``rule``); otherwise it takes ``status``.
    ``meaning_of``, when given, words the meaning of one finding from its evidence (it returns None to keep
    the declared ``meaning``); [`meaning_for`][auditad.findings.Check.meaning_for] applies it.

    See Also
    --------
    - [`Finding`][auditad.findings.Finding]: what `finding` returns.

    Examples
    --------
    >>> slow = Check("slow", Status.WARN, "slow", "Too slow.", threshold=1.0,
    ...              meaning_of=lambda f: f"Too slow by {f.number - f.threshold:g} s." if f.number > 2 else None)
    >>> slow.meaning_for(slow.finding(3.5, sentence="")), slow.meaning_for(slow.finding(1.5, sentence=""))
    ('Too slow by 2.5 s.', 'Too slow.')
    """

    id: str
    status: Status
    title: str
    meaning: str
    threshold: float = 0.0
    rule: str = "number <= threshold"
    meaning_of: Callable[[Finding], str | None] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "status", Status(self.status))

    def meaning_for(self, finding: Finding) -> str:
        """What ``finding`` (a finding of this check) means: ``meaning_of(finding)``, else the declared meaning."""
        worded = self.meaning_of(finding) if self.meaning_of is not None else None
        return self.meaning if worded is None else worded

    def finding(
        self,
        number,
        *,
        sentence: str,
        items: Iterable = (),
        subject: str = "",
        status=None,
        threshold=None,
        evidence: Mapping | None = None,
    ) -> Finding:
        """A `Finding` of this check: ``number`` above the threshold gives the check's status, else ``pass``.

        ``status`` overrides the decision (e.g. ``info`` for a check that could not be run);
        ``threshold`` overrides the declared one (a user's setting); ``evidence`` is stored on the finding.
        """
        threshold = self.threshold if threshold is None else float(threshold)
        number = float(number)
        if status is None:
            status = self.status if (math.isfinite(number) and number > threshold) else Status.PASS
        return Finding(
            check=self.id,
            status=Status(status),
            title=self.title,
            sentence=sentence,
            number=number,
            threshold=float(threshold),
            rule=self.rule,
            items=tuple(items),
            subject=subject,
            evidence=dict(evidence or {}),
        )


def status_of(record) -> Status:
    """The `Status` of a finding, a gate result, a dict with a ``"status"`` key, or a status itself.

    Examples
    --------
    >>> status_of({"status": "warn"}), status_of("fail")
    (<Status.WARN: 'warn'>, <Status.FAIL: 'fail'>)
    """
    if isinstance(record, Mapping):
        return Status(record["status"])
    return Status(getattr(record, "status", record))


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Findings worst first (``fail``, ``warn``, ``info``, ``pass``); the order among equals is kept.

    The one place the status order sorts anything: records, dicts with a ``"status"`` key, or statuses.
    """
    return sorted(findings, key=lambda f: -status_of(f).rank)


def verdict(findings: Iterable) -> Status:
    """The worst status among ``findings`` (records or dicts with a ``status``, or statuses); ``pass`` when empty.

    See Also
    --------
    - [`Status.worst`][auditad.findings.Status.worst]
    """
    return Status.worst(status_of(f) for f in findings)


def _plural(n: int, word: str) -> str:
    return f"{word}{'' if n == 1 else 's'}"


def _gates_sentence(gates: list, gate_text) -> str:
    if not gates:
        return "No gate was set."
    n = len(gates)
    bad = [g for g in gates if not g["passed"]]
    if not bad:
        return f"All {n} {_plural(n, 'gate')} passed."
    return f"{len(bad)} of {n} {_plural(n, 'gate')} did not pass: " + "; ".join(gate_text(g) for g in bad) + "."


def _counted(bad: list) -> str:
    n_fail = sum(status_of(f) is Status.FAIL for f in bad)
    n_warn = len(bad) - n_fail
    parts = [f"{n_fail} {_plural(n_fail, 'check')} failed" if n_fail else ""]
    if n_warn:
        parts.append(f"{n_warn} warned" if n_fail else f"{n_warn} {_plural(n_warn, 'check')} warned")
    return " and ".join(p for p in parts if p)


def verdict_text(
    gates: Iterable[Mapping],
    findings: Iterable | None = None,
    *,
    default_gates: bool = False,
    gate_text=None,
    finding_text=None,
    max_shown: int = 3,
) -> str:
    """One sentence on a verdict: the gates that did not pass, or, when the checks are the gates, the findings.

    The one wording of every verdict (the audit report, per-class result tables, leaderboards).

    Parameters
    ----------
    gates : iterable of Mapping
        Evaluated gates as dicts with ``passed`` and ``message`` (``GateResult.to_dict()``).
    findings : iterable of Finding or Mapping, optional
        The checks behind the gates. None: only the gates are worded. Otherwise, when no gate was given
        (or ``default_gates``: the gates are the checks' own), the sentence names the findings that
        failed or warned, worst first.
    default_gates : bool, default False
        Whether ``gates`` are the default gates derived from the findings.
    gate_text, finding_text : callable, optional
        How one gate (default: its message) and one finding (default: its title or check) are named.
    max_shown : int, default 3
        Findings named before "N more below".

    Returns
    -------
    str

    See Also
    --------
    - [`verdict`][auditad.findings.verdict]: the status the sentence explains.

    Examples
    --------
    >>> verdict_text([{"passed": True, "message": "ok"}, {"passed": False, "message": "L_k = 0.8 > 0.5"}])
    '1 of 2 gates did not pass: L_k = 0.8 > 0.5.'
    >>> verdict_text([], [{"status": "warn", "check": "inverted"}])
    '1 check warned (no gate was given, so the checks are the gates): inverted.'
    """
    gates = list(gates)
    gate_text = gate_text or (lambda g: g["message"])
    if findings is None:
        return _gates_sentence(gates, gate_text)
    findings = list(findings)
    bad = sort_findings(f for f in findings if status_of(f) in (Status.FAIL, Status.WARN))
    if gates and not default_gates:
        return _gates_sentence(gates, gate_text) + (f" The checks (not gated): {_counted(bad)}." if bad else "")
    if not bad:
        n = len(findings)
        return f"Every check passed ({n} {_plural(n, 'check')}; no gate was given, so the checks are the gates)."
    if finding_text is None:

        def finding_text(f):
            return f.get("title") or f["check"] if isinstance(f, Mapping) else f.title or f.check

    counted = _counted(bad)
    shown = "; ".join(finding_text(f) for f in bad[:max_shown])
    more = f"; {len(bad) - max_shown} more below" if len(bad) > max_shown else ""
    return f"{counted[0].upper()}{counted[1:]} (no gate was given, so the checks are the gates): {shown}{more}."
