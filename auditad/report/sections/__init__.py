"""The sections of the audit report: one module per section, each ``build(ctx) -> Section``.

Every statistic section (`leakage`, `protocol`, `duplicates`, `nulls`,
`landscapes`, `selection`) computes nothing: its computation, ``run_<section>(ctx)`` in
`auditad.audit.sections`, calls the computing modules and returns their result object(s), stored by the
orchestrator in ``ctx.results[section id]``. A section module has:

* ``build(ctx)`` turns the result objects into a `Section`: the
  JSON-safe key numbers of ``summary.json``, tables, figures (built on
  demand) and the references;
* ``reading(part, ...)`` writes the plain-language reading of its part of the summary
  (`section_reading` calls it). A section with reading thresholds states the results of the
  default gates' conditions (``conditions=``), evaluated once with the gates; it never
  compares a number with a threshold itself.

The orchestrator builds the statistic sections, evaluates the gates on the collected
summary, then writes the readings; `gates` and `reproducibility` are built after the gates were
evaluated. `REGISTRY` lists every section once (id, title, reading
thresholds); `auditad.audit.runner` runs them in this order,
`auditad.report.render` lays them out, `STAT_SECTIONS` tells the
gates which summary paths hold statistics.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

from ...gates.defaults import THRESHOLDS

__all__ = [
    "Reference",
    "REFERENCES",
    "Section",
    "SectionInfo",
    "REGISTRY",
    "STAT_SECTIONS",
    "Context",
    "TableSpec",
    "FigureSpec",
    "section_module",
    "section_reading",
    "bibliography",
    "threshold",
]


# --------------------------------------------------------------------------- references
@dataclass(frozen=True)
class Reference:
    """A bibliographic reference (authors, title, venue or identifier)."""

    key: str
    authors: str
    title: str
    venue: str

    def text(self) -> str:
        """One line: ``Authors. "Title". Venue.`` (without authors when the source does not name them)."""
        head = f"{self.authors}. " if self.authors else ""
        return f"{head}\u201c{self.title}\u201d. {self.venue}."

    def to_dict(self) -> dict:
        return {"key": self.key, "authors": self.authors, "title": self.title, "venue": self.venue}


#: Every work a section cites, by key.
REFERENCES: dict[str, Reference] = {
    r.key: r
    for r in (
        Reference(
            "testing-the-test",
            "",
            "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection",
            "Preprint",
        ),
        Reference(
            "hermary",
            "R. Hermary, N. Mejri, D. Aouada",
            "An Insight on Evaluation Metrics Under the Imbalanced Case of Anomaly Detection",
            "Preprint",
        ),
        Reference(
            "wilkinghoff-tan",
            "K. Wilkinghoff, Z.-H. Tan",
            "Can We Predict Anomaly Detection Performance from Embedding-Space Geometry?",
            "Preprint",
        ),
        Reference(
            "delong",
            "E. R. DeLong, D. M. DeLong, D. L. Clarke-Pearson",
            "Comparing the areas under two or more correlated receiver operating characteristic curves: "
            "a nonparametric approach",
            "Biometrics 44(3), 837\u2013845, 1988",
        ),
        Reference(
            "mann-whitney",
            "H. B. Mann, D. R. Whitney",
            "On a test of whether one of two random variables is stochastically larger than the other",
            "Annals of Mathematical Statistics 18(1), 50\u201360, 1947",
        ),
        Reference(
            "northcutt-cleanlab",
            "C. G. Northcutt, L. Jiang, I. L. Chuang",
            "Confident Learning: Estimating Uncertainty in Dataset Labels",
            "Journal of Artificial Intelligence Research 70, 1373\u20131411, 2021",
        ),
        Reference(
            "campos-2016",
            "G. O. Campos, A. Zimek, J. Sander, R. J. G. B. Campello, B. Micenkov\u00e1, "
            "E. Schubert, I. Assent, M. E. Houle",
            "On the evaluation of unsupervised outlier detection: measures, datasets, and an empirical study",
            "Data Mining and Knowledge Discovery 30(4), 891\u2013927, 2016",
        ),
    )
}


# --------------------------------------------------------------------------- report parts
@dataclass(frozen=True)
class TableSpec:
    """A table of the report: written to ``tables/`` (compact, also in the appendix) or ``data/`` (full).

    ``bounds`` maps a column name to one bool per row marking the values that are upper bounds
    (displayed as ``≤ value``; the CSV keeps the number).
    """

    name: str
    caption: str
    frame: Any
    section: str
    compact: bool = True
    bounds: Any = None


@dataclass(frozen=True)
class FigureSpec:
    """A figure of the report, built on demand (inside the figure style of `auditad.plotting.style`)."""

    name: str
    caption: str
    build: Callable[[], Any]
    section: str


@dataclass(frozen=True)
class Section:
    """One section of the report, built from result objects.

    Attributes
    ----------
    id, title : str
    status : str
        ``"ok"`` or ``"not_applicable"`` (then ``reason`` says why).
    summary : dict or None
        The section's part of ``summary.json`` (JSON-safe key numbers; None when not applicable).
    tables : tuple of TableSpec
    figures : tuple of FigureSpec
    reading : str
        Plain-language reading (text, escaped by the templates); empty until the orchestrator wrote it
        (`section_reading`) after the gates were evaluated.
    references : tuple of (str, str)
        (key of `REFERENCES`, where in that work: section, equation or table; may be empty).
    reason : str or None
    """

    id: str
    title: str
    status: str = "ok"
    summary: Any = None
    tables: tuple = ()
    figures: tuple = ()
    reading: str = ""
    references: tuple = ()
    reason: str | None = None


@dataclass(frozen=True)
class SectionInfo:
    """Registry entry of a section: id, titles, module and reading thresholds."""

    id: str
    title: str
    short: str
    module: str
    statistics: bool = True
    thresholds: tuple = ()


REGISTRY: tuple[SectionInfo, ...] = (
    SectionInfo("leakage", "Neighbourhood class leakage", "Leakage", "leakage", thresholds=(THRESHOLDS["leakage"],)),
    SectionInfo(
        "protocol",
        "Class-split protocol: per-class AUROC and direction instability",
        "Protocol",
        "protocol",
        thresholds=(THRESHOLDS["protocol"], THRESHOLDS["inversion"]),
    ),
    SectionInfo(
        "duplicates",
        "Duplicates, conflicting labels and train/test overlap",
        "Duplicates",
        "duplicates",
        thresholds=(THRESHOLDS["duplicates"], THRESHOLDS["overlap"]),
    ),
    SectionInfo("nulls", "Random baselines at this benchmark's class counts", "Random baselines", "nulls"),
    SectionInfo("landscapes", "Metric landscapes at this benchmark's anomaly ratio", "Landscapes", "landscapes"),
    SectionInfo("selection", "Anomaly-free model selection", "Model selection", "selection"),
    SectionInfo("gates", "Gates", "Gates", "gates", statistics=False),
    SectionInfo("reproducibility", "Reproducibility", "Reproducibility", "reproducibility", statistics=False),
)

_BY_ID = {s.id: s for s in REGISTRY}

#: Top-level summary keys that hold statistics (a gate path starts with one of them).
STAT_SECTIONS: tuple[str, ...] = ("dataset",) + tuple(s.id for s in REGISTRY if s.statistics)


def info(section_id: str) -> SectionInfo:
    """The registry entry of a section."""
    return _BY_ID[section_id]


def threshold(section_id: str) -> float:
    """The reading threshold of a section (= the threshold of its default gate)."""
    return _BY_ID[section_id].thresholds[0][2]


def section_module(section_id: str):
    """The module that builds a section."""
    return importlib.import_module(f".{_BY_ID[section_id].module}", __name__)


def section_reading(section_id: str, part, *, conditions=None, kind: str = "classes") -> str:
    """The plain-language reading of one statistic section's part of the summary.

    Parameters
    ----------
    section_id : str
    part : dict
        The section's summary (`Section.summary`).
    conditions : dict of str -> GateResult, optional
        The default gates' results by threshold name
        ([`reading_conditions`][auditad.gates.defaults.reading_conditions]), for the sections that have
        reading thresholds; a reading states them and leaves out what was not evaluated.
    kind : str
        The benchmark's label kind (``"classes"``, ``"anomaly"``, ``"both"``), read by the leakage section.
    """
    kw: dict = {}
    if _BY_ID[section_id].thresholds:
        kw["conditions"] = dict(conditions or {})
    if section_id == "leakage":
        kw["kind"] = kind
    return section_module(section_id).reading(part, **kw)


@dataclass
class Context:
    """What a section is built from: the inputs, the settings, and the result objects computed so far.

    Attributes
    ----------
    inputs : auditad.audit.runner.BenchmarkInputs
    results : dict
        Result objects by section id (filled by the orchestrator from each section's computation,
        `auditad.audit.sections.run_section`).
    progress : bool
    gate_results : tuple
        Filled before the gates section is built.
    executor : executor or None
        Where the protocol tasks and kNN query blocks run (`auditad.execution.open_executor`);
        never changes a number.
    shared : dict
        What the statistics stages hand on to later ones beside their results (``"index_cache"``: the
        approximate index over every row that the leakage builds and the protocol reads,
        `auditad.audit.sections.run_leakage`); never changes a number.
    """

    inputs: Any
    results: dict = field(default_factory=dict)
    progress: bool = False
    gate_results: tuple = ()
    executor: Any = None
    shared: dict = field(default_factory=dict)

    @property
    def settings(self) -> dict:
        return self.inputs.settings

    @property
    def name(self) -> str:
        return self.inputs.name


def bibliography(sections) -> list[dict]:
    """The references cited by ``sections``, each once, numbered in order of first citation.

    Each entry: ``number``, ``key``, ``authors``, ``title``, ``venue``, ``text`` and ``cited`` (section id ->
    where in the work, e.g. ``"§2"``).
    """
    order: list[str] = []
    cited: dict = {}
    for sec in sections:
        for key, where in sec.references:
            if key not in order:
                order.append(key)
            cited.setdefault(key, {})[sec.id] = where
    return [
        {"number": i + 1, **REFERENCES[key].to_dict(), "text": REFERENCES[key].text(), "cited": cited[key]}
        for i, key in enumerate(order)
    ]
