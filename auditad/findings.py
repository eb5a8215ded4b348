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
from typing import Iterable, Mapping

from ._json import json_safe

__all__ = ["Status", "Check", "Finding", "FindingItem", "verdict", "sort_findings"]

_RANK = {"pass": 0, "info": 1, "warn": 2, "fail": 3}


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
        """JSON-safe dict with the items."""
        return json_safe(
            {
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
        )


@dataclass(frozen=True)
class Check:
    """A check declared once: its id, the status it gives when it finds something, title, meaning, threshold.

    A finding passes when ``number <= threshold`` (the default ``rule``); otherwise it takes ``status``.

    See Also
    --------
    - [`Finding`][auditad.findings.Finding]: what `finding` returns.
    """

    id: str
    status: Status
    title: str
    meaning: str
    threshold: float = 0.0
    rule: str = "number <= threshold"

    def __post_init__(self):
        object.__setattr__(self, "status", Status(self.status))

    def finding(
        self, number, *, sentence: str, items: Iterable = (), subject: str = "", status=None, threshold=None
    ) -> Finding:
        """A `Finding` of this check: ``number`` above the threshold gives the check's status, else ``pass``.

        ``status`` overrides the decision (e.g. ``info`` for a check that could not be run);
        ``threshold`` overrides the declared one (a user's setting).
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
        )


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Findings worst first (``fail``, ``warn``, ``info``, ``pass``); the order among equals is kept."""
    return sorted(findings, key=lambda f: -Status(f.status).rank)


def verdict(findings: Iterable) -> Status:
    """The worst status among ``findings`` (records with a ``status``, or statuses); ``pass`` when empty.

    See Also
    --------
    - [`Status.worst`][auditad.findings.Status.worst]
    """
    return Status.worst(getattr(f, "status", f) for f in findings)
