"""The records of a leaderboard audit: the declared checks, the `Finding` and `FindingItem` they give.

`CHECKS` declares every check once (id → status when it finds something, what it looks for);
`make_finding` builds a `Finding` of a check; the small text helpers (`fmt_value`, `seed_label`,
`plural`, `name_list`) word the details of its items.  The checks themselves live in
`auditad.leaderboards.findings` and `auditad.leaderboards.chance_checks`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import _format
from .. import findings as _findings
from .._json import json_safe
from ..findings import Check, Status

__all__ = [
    "CHECKS",
    "DECLARED_CHECKS",
    "STATUSES",
    "CORRECTIONS",
    "Finding",
    "FindingItem",
    "make_finding",
    "fmt_value",
    "seed_label",
    "plural",
    "name_list",
]

#: Statuses a leaderboard finding takes, best first (the order is [`Status`][auditad.findings.Status]'s).
STATUSES = tuple(s.value for s in Status if s is not Status.INFO)
#: Multiplicity corrections of the per-cell inversion tests.
CORRECTIONS = ("holm", "bh", "none")

#: Every check: id → (status when it finds something, what it looks for).
CHECKS = {
    "failed_runs": (
        "fail",
        "failed runs stored as scores: a method at exactly 0 on every dataset (a zero column), "
        "a (dataset, seed) at exactly 0 for every method (a zero row), an isolated exact 0 of "
        "AUROC/AP/AUPR",
    ),
    "missing_runs": ("warn", "cells without a value (blank, NaN, '/'): runs never finished, or never run"),
    "single_run": ("warn", "values from a single run: a std of exactly 0, or one seed where the table has several"),
    "no_spread": ("warn", "neither a std nor seeds: noise cannot be told from differences"),
    "inverted": (
        "fail",
        "methods significantly below ½ AUROC on a dataset: a test per (method, dataset) cell at the "
        "benchmark's counts (seeds combined), else on the seeds or the reported std, corrected over all "
        "tested cells (Holm by default)",
    ),
    "below_half_untested": (
        "warn",
        "single AUROC values below ½ with no counts, seeds or std to test them: neither inverted nor noise "
        "can be told (never counted as inverted)",
    ),
    "label_direction": (
        "fail",
        "datasets on which most methods are significantly below ½ AUROC and a sign test against those "
        "significantly above rejects: suspect the label direction",
    ),
    "near_chance": (
        "warn",
        "methods within noise of chance: the cell's two-sided test does not reject AUROC = ½ (before correction)",
    ),
    "seed_variance": ("warn", "(dataset, method) pairs whose values spread over more than max_seed_range across seeds"),
    "rank_flips": ("warn", "the best method of a dataset, or the order of the leaderboard, changes between seeds"),
    "below_chance_level": (
        "warn",
        "values below the metric's chance level at the known prevalence (AP: exact E[AP]; AUPR and precision@n: π)",
    ),
    "ranking_significance": (
        "warn",
        "the Iman–Davenport (Friedman) test does not reject that all methods rank alike, or too few "
        "independent datasets to test (columns of one ID set, e.g. OpenOOD near/far, count as one): the "
        "order of the leaderboard is not supported",
    ),
    "ranking_size": (
        "warn",
        "too few datasets for the ranking tests (N ≤ 10: coarse χ² approximation; N ≤ 5: no "
        "Wilcoxon test can reach p < 0.05)",
    ),
    "tied_with_best": (
        "warn",
        "methods not significantly worse than the best (Wilcoxon signed-rank, Holm over the comparisons with the best)",
    ),
    "ranking_coverage": (
        "warn",
        "datasets or methods left out of the ranking because of missing or failed cells (every one counted)",
    ),
}

#: `CHECKS` as declared [`Check`][auditad.findings.Check] records (id, status, title, meaning), read once.
DECLARED_CHECKS: dict[str, Check] = {cid: Check(cid, st, cid, meaning) for cid, (st, meaning) in CHECKS.items()}


@dataclass(frozen=True, init=False)
class FindingItem(_findings.FindingItem):
    """One named thing behind a finding: a method, a dataset, a seed (any may be None), a value and a detail.

    The shared [`auditad.findings.FindingItem`][auditad.findings.FindingItem], with ``name`` its label
    (``"LODA on Lymphography, seed 3"``) and ``evidence`` its method, dataset and seed; ``to_dict`` keeps
    the leaderboard's keys.

    See Also
    --------
    - [`Finding`][auditad.leaderboards.Finding]

    References
    ----------
    J. Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", JMLR 7, 2006.
    G. O. Campos et al., "On the evaluation of unsupervised outlier detection", Data Mining and Knowledge
    Discovery 30(4), 2016.

    Examples
    --------
    >>> it = FindingItem(method="LODA", dataset="Lymphography", seed=3, value=0.0)
    >>> it.name, it.label(), it.evidence["seed"]
    ('LODA on Lymphography, seed 3', 'LODA on Lymphography, seed 3', 3)
    """

    method: str | None = None
    dataset: str | None = None
    seed: object = None

    def __init__(self, method=None, dataset=None, seed=None, value: float = math.nan, detail: str = ""):
        for key, v in (("method", method), ("dataset", dataset), ("seed", seed), ("value", value), ("detail", detail)):
            object.__setattr__(self, key, v)
        object.__setattr__(self, "name", self.label())
        object.__setattr__(self, "evidence", {"method": method, "dataset": dataset, "seed": seed})

    def label(self) -> str:
        """``"LODA on Lymphography, seed 3"`` (the parts that are given)."""
        text = "" if self.method is None else str(self.method)
        if self.dataset is not None:
            text = f"{text} on {self.dataset}" if text else str(self.dataset)
        if self.seed is not None:
            text = f"{text}, seed {self.seed}" if text else f"seed {self.seed}"
        return text or "(whole table)"

    def to_dict(self) -> dict:
        """JSON-safe dict: method, dataset, seed, value, detail."""
        return json_safe(
            {
                "method": self.method,
                "dataset": self.dataset,
                "seed": self.seed,
                "value": self.value,
                "detail": self.detail,
            },
            other=str,
        )


@dataclass(frozen=True, init=False)
class Finding(_findings.Finding):
    """The result of one check on one metric.

    The shared [`auditad.findings.Finding`][auditad.findings.Finding] (``title`` the check id, ``sentence``
    the message, ``subject`` the metric), built with the leaderboard's positional order
    ``(check, status, metric, number, threshold, rule, items, message)``.

    Attributes
    ----------
    check : str
        Id from `CHECKS`.
    status : Status
        ``pass``, ``warn`` or ``fail`` ([`Status`][auditad.findings.Status]).
    metric : str or None
    number : float
        What the threshold is compared to (usually the number of items; a
        p-value for ``ranking_significance``, N for ``ranking_size``).
    threshold : float
    rule : str
        The comparison that passes, e.g. ``"number <= 0"``.
    items : tuple of FindingItem
        The named methods, datasets and seeds behind it, worst first.
    message : str
        One sentence: what it means and what to do (the shared record's ``sentence``).

    References
    ----------
    J. Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", JMLR 7, 2006.
    G. O. Campos et al., "On the evaluation of unsupervised outlier detection: measures, datasets,
    and an empirical study", Data Mining and Knowledge Discovery 30(4), 2016.

    See Also
    --------
    - [`auditad.leaderboards.audit_leaderboard`][auditad.leaderboards.audit_leaderboard]: produces the findings.

    Examples
    --------
    >>> f = Finding("inverted", "fail", "auroc", 1.0, 0.0, "number <= 0", (FindingItem(method="m"),), "m is below.")
    >>> f.status, f.message == f.sentence, f.subject
    (<Status.FAIL: 'fail'>, True, 'auroc')
    """

    metric: str | None = None

    def __init__(self, check, status, metric, number, threshold, rule, items=(), message: str = ""):
        super().__init__(
            check=check,
            status=status,
            title=check,
            sentence=message,
            number=number,
            threshold=threshold,
            rule=rule,
            items=items,
            subject=metric or "",
        )
        object.__setattr__(self, "metric", metric)

    @property
    def message(self) -> str:
        """The sentence: what it means and what to do."""
        return self.sentence

    def text(self, *, max_items: int = 8) -> str:
        """The finding as plain text: a status line, then up to ``max_items`` items."""
        head = (
            f"{self.status.upper():4} {self.check}" + (f" [{self.metric}]" if self.metric else "") + f": {self.message}"
        )
        lines = [head]
        for it in self.items[:max_items]:
            lines.append(f"     - {it.label()}" + (f": {it.detail}" if it.detail else ""))
        if len(self.items) > max_items:
            lines.append(f"     ... {len(self.items) - max_items} more")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """JSON-safe dict with the items."""
        return json_safe(
            {
                "check": self.check,
                "status": self.status.value,
                "metric": self.metric,
                "number": self.number,
                "threshold": self.threshold,
                "rule": self.rule,
                "message": self.message,
                "items": [it.to_dict() for it in self.items],
            }
        )


def make_finding(check, metric, items, *, number=None, threshold=0.0, message, status=None, rule="number <= 0"):
    """A `Finding` of ``check``: ``number`` (default: the number of items) above ``threshold`` gives the check's status.

    See Also
    --------
    - [`Finding`][auditad.leaderboards.Finding]: the record built.
    """
    items = tuple(items)
    number = float(len(items) if number is None else number)
    if status is None:
        status = CHECKS[check][0] if number > threshold else "pass"
    return Finding(
        check=check,
        status=status,
        metric=metric,
        number=number,
        threshold=float(threshold),
        rule=rule,
        items=items,
        message=message,
    )


def fmt_value(x: float) -> str:
    """A value with three decimals, ``"nan"`` when not finite.

    See Also
    --------
    - [`FindingItem`][auditad.leaderboards.FindingItem]: whose details show the values.
    """
    return "nan" if not math.isfinite(x) else f"{x:.3f}"


def seed_label(s):
    """The seed of a seed key: None for the key ``""`` of a table without seeds.

    See Also
    --------
    - [`FindingItem`][auditad.leaderboards.FindingItem]: whose ``seed`` it fills.
    """
    return None if s == "" else s


def plural(n: int, word: str) -> str:
    """``"1 method"``, ``"3 methods"``.

    See Also
    --------
    - ``name_list``: the names themselves.
    """
    return f"{n} {word}{'' if n == 1 else 's'}"


def name_list(names, limit: int = 6) -> str:
    """Up to ``limit`` names joined by commas, then ``"and N more"``: `auditad._format.name_list` at the
    leaderboard's default of 6 names.

    See Also
    --------
    - ``plural``: a count of them.
    """
    return _format.name_list(names, limit=limit)
