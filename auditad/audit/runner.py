"""Assemble an audit: run the report's sections in order, evaluate the gates, write the report folder.

The data flows one way: `BenchmarkInputs`
(arrays in memory, from `load_inputs` or
`example_inputs`) goes through every section of
`auditad.report.sections.REGISTRY`: each section's computation (`auditad.audit.sections`) calls the
computing modules, the report section's ``build`` turns the result objects into a
`Section` (key numbers, tables, figures). `audit_benchmark` only orders them, collects their parts
into the JSON-safe ``summary`` (``docs/report.md``), evaluates the gates on it once
([`auditad.gates.checks`][auditad.gates.checks]) and only then has the readings written, which state the
gates' results. `run_audit` renders the HTML (`auditad.report.render`) and writes everything into a
temporary folder that is renamed into place only when all of it succeeded. An audit, once built, is
never changed: a timestamp gives a new object (``dataclasses.replace``).

Nothing here computes a statistic or reads an input file.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Mapping

from .._json import json_safe
from .._progress import Cleanup, check_stop
from ..errors import AuditadWarning, InvalidInputError
from ..report._slug import key as _key
from .bounded import bound_summary
from .sections import run_section
from .loader import DEMO_SETTINGS, BenchmarkInputs, describe_dataset, example_inputs, load_inputs
from ..report.sections import REGISTRY, STAT_SECTIONS, Context, FigureSpec, TableSpec, section_module, section_reading

__all__ = [
    "SCHEMA_VERSION",
    "STAT_SECTIONS",
    "DEMO_SETTINGS",
    "BenchmarkInputs",
    "BenchmarkAudit",
    "AuditRun",
    "TableSpec",
    "FigureSpec",
    "load_inputs",
    "example_inputs",
    "audit_benchmark",
    "run_audit",
]

#: Version of the summary.json layout (``auditad/schemas/summary.schema.json``).
SCHEMA_VERSION = "1.0"

_MARKER = ".auditad-report"


# --------------------------------------------------------------------------- data classes
@dataclass(frozen=True)
class BenchmarkAudit:
    """Everything computed for one benchmark.

    Attributes
    ----------
    name : str
    summary : dict
        JSON-safe content of ``summary.json``, gates and verdict included.
    tables : tuple of TableSpec
    figures : tuple of FigureSpec
    results : dict
        The result objects by section id, for programmatic use: ``leakage`` (``{"representations":
        {rep: LeakageResult}, "columns": ...}``), ``protocol`` (ProtocolResult), ``nulls``
        (``{"classes": [ClassNulls], ...}``), ``landscapes`` (landscape, difference, regions, minimal TPR,
        coverage), ``selection`` (SelectionResult).
    gate_results : tuple of GateResult
        The gates, evaluated once on ``summary``; ``summary["gates"]``, the readings and the findings state them.
    elapsed_seconds : float
    sections : tuple of Section
        Every section in report order, readings written.
    summary_files : dict of str -> DataFrame
        Per-class lists moved out of ``summary`` (more than
        `MAX_INLINE_CLASSES` classes): relative CSV path -> table.

    See Also
    --------
    - `run_audit`: the full audit of several benchmarks.
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: gates on written summaries.
    - [`auditad.report.export.write_appendix`][auditad.report.export.write_appendix]: the LaTeX appendix.
    """

    name: str
    summary: dict
    tables: tuple
    figures: tuple
    results: dict = field(repr=False)
    gate_results: tuple = ()
    elapsed_seconds: float = float("nan")
    sections: tuple = ()
    summary_files: dict = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class AuditRun:
    """Outcome of `run_audit`.

    Attributes
    ----------
    out : Path
        The output folder.
    audits : tuple of BenchmarkAudit
    exit_code : int
        0 when every gate at or above ``fail_on`` passed, 1 otherwise.
    verdict : str
        Worst verdict over the benchmarks (``pass``, ``warn``, ``fail``).
    elapsed_seconds : float

    See Also
    --------
    - `run_audit`: the full audit of several benchmarks.
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: gates on written summaries.
    - [`auditad.report.export.write_appendix`][auditad.report.export.write_appendix]: the LaTeX appendix.
    """

    out: Path
    audits: tuple
    exit_code: int
    verdict: str
    elapsed_seconds: float

    @property
    def index(self) -> Path:
        """``out/index.html``."""
        return self.out / "index.html"

    def _repr_html_(self) -> str:
        """Notebook display: one row per benchmark with its verdict, then the first benchmark's report.html
        in an isolated frame (``<iframe srcdoc=... sandbox>``: no script of the report runs, nothing reaches
        the notebook)."""
        from markupsafe import Markup

        from .._format import html_block, html_table

        rows = []
        for a in self.audits:
            s = a.summary
            prot = (s.get("protocol") or {}).get("mean") or {}
            rows.append(
                {
                    "benchmark": a.name,
                    "verdict": str(s.get("verdict", "")).upper(),
                    "n": s["dataset"]["n"],
                    "classes": None if _one_task(s) else s["dataset"]["n_classes"],
                    "L_k": s["leakage"]["L_k"],
                    "rho_dir": prot.get("rho_dir"),
                    "rho_inv": prot.get("rho_inv"),
                    "mean_auc": prot.get("mean_auc"),
                    "gates passed": f"{sum(r.passed for r in a.gate_results)}/{len(a.gate_results)}",
                }
            )
        frame = Markup("")
        if self.audits:
            report = self.out / self.audits[0].name / "report.html"
            try:
                text = report.read_text(encoding="utf-8")
            except OSError:
                text = None
            if text is not None:
                frame = Markup(
                    '<iframe srcdoc="{}" sandbox="" title="{}" style="width: 100%; height: 640px; '
                    'border: 1px solid #999"></iframe>'
                ).format(text, f"auditad report: {report}")
        return html_block(
            f"auditad audit: {self.verdict.upper()} ({len(self.audits)} benchmark(s), exit code {self.exit_code})",
            html_table(rows, kinds={"verdict": "text", "gates passed": "text"}),
            frame,
            note=f"Reports in {self.out}; index: {self.index}",
        )

    def summary_table(self) -> str:
        """A plain-text table (one line per benchmark) for the terminal."""
        from .._format import stat, text_table

        def fmt3(v) -> str:
            return stat(v, target="text").replace("\u2013", "-")

        head = ("benchmark", "n", "classes", "reps", "L_k", "rho_dir", "rho_inv", "mean_auc", "gates", "verdict")
        rows = []
        for a in self.audits:
            s = a.summary
            prot = (s.get("protocol") or {}).get("mean") or {}
            passed = sum(1 for r in a.gate_results if r.passed)
            rows.append(
                (
                    a.name,
                    str(s["dataset"]["n"]),
                    "-" if _one_task(s) else str(s["dataset"]["n_classes"]),
                    str(len(s["dataset"]["representations"])),
                    fmt3(s["leakage"]["L_k"]),
                    fmt3(prot.get("rho_dir")),
                    fmt3(prot.get("rho_inv")),
                    fmt3(prot.get("mean_auc")),
                    f"{passed}/{len(a.gate_results)}",
                    s["verdict"].upper(),
                )
            )
        return text_table(rows, header=head, align="l" + "r" * (len(head) - 2) + "l")


def _one_task(summary: Mapping) -> bool:
    """Whether an audit summary is of anomaly-labelled data (one task: no semantic classes)."""
    return (summary.get("protocol") or {}).get("setting") == "semi_supervised"


# --------------------------------------------------------------------------- the audit of one benchmark
def audit_benchmark(inputs: BenchmarkInputs, *, progress: bool = False, executor=None) -> BenchmarkAudit:
    """Run every applicable section of the report on one benchmark and evaluate its gates.

    Sections (`REGISTRY`): leakage (every representation; also of the
    ``domain`` and ``attribute`` columns), the class-split protocol, the random-baseline nulls at each
    held-out class's test counts, metric landscapes at the benchmark's anomaly ratio, and anomaly-free model
    selection when ``inputs.selection`` is set. The gates (``inputs.gates``, else the default gates when the
    setting ``default_gates`` is true) are evaluated once on the collected summary, before the readings are
    written: the readings state the default gates' results instead of comparing a number with a threshold again.

    Parameters
    ----------
    inputs : BenchmarkInputs
    progress : bool
        Progress bars on stderr.
    executor : executor, optional
        An open executor (`auditad.execution.open_executor`): the leakage's exact kNN query blocks
        and the protocol's (representation, repeat) neighbour passes and (representation, task, detector)
        fits run on it. The result is the same, bit for bit, as without it.

    Returns
    -------
    BenchmarkAudit
        Complete: ``summary["gates"]``, ``summary["verdict"]``, ``gate_results`` and every section's reading.

    Raises
    ------
    InvalidInputError
        A gate given for a section or statistic that is not applicable, or on a path that does not exist.

    See Also
    --------
    - `run_audit`: the full audit of several benchmarks.
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: gates on written summaries.
    - [`auditad.report.export.write_appendix`][auditad.report.export.write_appendix]: the LaTeX appendix.
    """
    rules, default = _effective_gates(inputs)
    return _audit_with_rules(inputs, rules, default=default, progress=progress, executor=executor)


def _audit_with_rules(
    inputs: BenchmarkInputs, rules: tuple, *, default: bool, progress: bool, executor
) -> BenchmarkAudit:
    """`audit_benchmark` with the gate rules already chosen (``default``: they are the default gates)."""
    from .._progress import Progress
    from ..gates.checks import evaluate_gates
    from ..gates.defaults import DEFAULT_RULES, reading_conditions

    t0 = time.perf_counter()
    ctx = Context(inputs, progress=progress, executor=executor)
    modules = [section_module(info.id) for info in REGISTRY if info.statistics]
    reasons = [getattr(mod, "applicable", lambda _ctx: None)(ctx) for mod in modules]
    sections = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", AuditadWarning)
        with Progress(sum(r is None for r in reasons), f"audit {inputs.name}", enabled=progress) as bar:
            for mod, reason in zip(modules, reasons):
                check_stop()  # a safe point between sections (and inside them, at every progress step)
                if reason is None:
                    ctx.results[mod.ID] = run_section(mod.ID, ctx)
                    bar.update()
                sections.append(mod.build(ctx))
    notes = list(inputs.notes)  # reading the inputs (a row-index column left out, ...), then the sections
    for w in caught:
        if issubclass(w.category, AuditadWarning):
            text = f"{w.category.__name__}: {w.message}"
            if text not in notes:
                notes.append(text)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    repro = section_module("reproducibility").build(ctx)
    tables = tuple(t for sec in sections for t in sec.tables)
    figures = tuple(f for sec in sections for f in sec.figures)
    summary = {
        "schema_version": SCHEMA_VERSION,
        "benchmark": inputs.name,
        "dataset": describe_dataset(inputs),
        **repro.summary,
        **{sec.id: sec.summary for sec in sections},
        "warnings": notes,
        "captions": {t.name: t.caption for t in tables if t.compact} | {f.name: f.caption for f in figures},
        "gates": [],
        "verdict": "pass",
    }  # the last two keep their place; the gates section fills them
    summary, files = bound_summary(json_safe(summary, other=str))

    # the gates, once: the benchmark's rules and the default gates' conditions that the readings state
    skipped = {sec.id: sec.reason for sec in sections if sec.status == "not_applicable"}
    rules = _applicable_gates(rules, summary, skipped, name=inputs.name, default=default)
    stated = _applicable_gates(tuple(DEFAULT_RULES.values()), summary, skipped, name=inputs.name, default=True)
    try:
        evaluated = evaluate_gates(summary, rules + stated)
    except InvalidInputError as exc:
        raise InvalidInputError(f"benchmark {inputs.name!r}: {exc}") from None
    gate_results = tuple(evaluated[: len(rules)])
    conditions = reading_conditions(evaluated[len(rules) :])

    kind = getattr(inputs, "kind", "classes")
    sections = [
        replace(sec, reading=section_reading(sec.id, sec.summary, conditions=conditions, kind=kind))
        if sec.status == "ok"
        else sec
        for sec in sections
    ]
    gate_section = section_module("gates").build(Context(inputs, gate_results=gate_results))
    summary = {**summary, **json_safe(gate_section.summary, other=str)}
    return BenchmarkAudit(
        name=inputs.name,
        summary=summary,
        tables=tables,
        figures=figures,
        results=ctx.results,
        gate_results=gate_results,
        elapsed_seconds=time.perf_counter() - t0,
        sections=tuple(sections) + (gate_section, repro),
        summary_files=files,
    )


# --------------------------------------------------------------------------- the whole run
def _check_gate_paths(rules, where: str) -> None:
    for rule in rules:
        head = rule.path.split(".", 1)[0]
        if head not in STAT_SECTIONS:
            raise InvalidInputError(
                f"{where}: unknown gate metric {rule.path!r}: a path starts with one of {list(STAT_SECTIONS)}"
            )


def _effective_gates(inputs: BenchmarkInputs) -> tuple[tuple, bool]:
    """The gate rules of a benchmark and whether they are the default gates.

    Its own (config and ``--gate``) when it has any, else the default gates when the setting ``default_gates``
    is true, else none.
    """
    from ..gates.defaults import DEFAULT_RULES

    if inputs.gates:
        return tuple(inputs.gates), False
    if inputs.settings.get("default_gates", True):
        return tuple(DEFAULT_RULES.values()), True
    return (), False


def _applicable_gates(rules, summary: dict, skipped: dict, *, name: str, default: bool) -> tuple:
    """The rules whose section ran; the default gates of a section that is not applicable are left out.

    ``skipped`` maps the id of a section that is not applicable to the reason. A statistic inside a section can
    be not applicable too (e.g. ``duplicates.train_test_overlap`` of a benchmark without a class-split
    protocol): its value is ``{"status": "not_applicable", "reason": ...}`` and it is treated like a section
    that did not run.

    Raises
    ------
    InvalidInputError
        A rule given by the user addresses a section (or statistic) that is not applicable (the message
        says why).
    """
    out = []
    for rule in rules:
        head = rule.path.split(".", 1)[0]
        node, what = summary, f"the {head} section"
        reason = skipped.get(head)
        for part in rule.path.split("."):  # a not-applicable statistic on the path
            node = node.get(part) if isinstance(node, dict) else None
            if reason is None and isinstance(node, dict) and node.get("status") == "not_applicable":
                reason, what = node.get("reason"), f"{rule.path!r}"
        if reason is None:
            out.append(rule)
        elif not default:
            raise InvalidInputError(
                f"benchmark {name!r}: gate {rule.text!r} addresses {what}, which is not applicable: {reason}"
            )
    return tuple(out)


def check_out_folder(out: Path, sources=()) -> None:
    """Refuse to replace a folder that is not an earlier auditad report, or one holding the inputs.

    Raises
    ------
    InvalidInputError
        ``out`` is a non-empty folder without the report marker, or contains one of ``sources``.
    """
    if out.exists() and out.is_dir() and any(out.iterdir()) and not (out / _MARKER).is_file():
        raise InvalidInputError(
            f"out={str(out)!r} is a non-empty folder that is not an auditad report; "
            "choose a new or empty folder (it would be replaced)"
        )
    o = out.resolve()
    for p in sources:
        p = Path(p).resolve()
        if o == p or o in p.parents:
            raise InvalidInputError(f"out={str(out)!r} contains the input {str(p)!r}; choose another folder")


def run_audit(
    inputs_list,
    out,
    *,
    fail_on: str = "fail",
    timestamp: bool = False,
    progress: bool = False,
    junit=None,
    markdown=None,
    sources=(),
    on_benchmark: Callable | None = None,
    scheduler=None,
) -> AuditRun:
    """Audit every benchmark, evaluate the gates and write the report folder atomically.

    Parameters
    ----------
    inputs_list : sequence of BenchmarkInputs
    out : str or Path
        Output folder; created, or replaced if it holds an earlier auditad report.
    fail_on : {"fail", "warn"}
        Which failed gates make the exit code 1.
    timestamp : bool
        Record the UTC time and run times (the report then differs between runs).
    progress : bool
        Progress bars on stderr.
    junit, markdown : path, optional
        Also write the gate results as JUnit XML / a Markdown CI summary
        ([`auditad.report.export.write_junit`][auditad.report.export.write_junit],
        [`write_markdown_summary`][auditad.report.export.write_markdown_summary]).
    sources : sequence of Path
        Input files that the output folder must not contain.
    on_benchmark : callable, optional
        Called with each finished `BenchmarkAudit` (e.g. to print progress).
    scheduler : str, SchedulerSpec, open executor or None
        Where the work runs (`auditad.execution.parse_scheduler`): ``None`` / ``"serial"`` (this
        process), ``"local"`` / ``"local:N"`` (a Dask ``LocalCluster`` with N worker processes, started and
        closed here), a Dask scheduler address such as ``"tcp://host:8786"``, or an executor already opened
        with `open_executor` (left open). Benchmarks are audited one after the
        other; inside each, the work of `audit_benchmark` runs on the executor. The output files are
        the same bytes for every scheduler; the scheduler is not recorded in them.

    Returns
    -------
    AuditRun

    Raises
    ------
    InvalidInputError
        Bad output folder, an unknown gate metric, a malformed ``scheduler`` or an address that
        cannot be reached. Nothing is written then.
    auditad.execution.ExecutionError
        A task failed on the cluster (a worker raised, died or was lost): the output folder keeps its
        earlier report (or does not exist); no partial report is written.

    See Also
    --------
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: gates on written summaries.
    - [`auditad.report.export.write_appendix`][auditad.report.export.write_appendix]: the LaTeX appendix.
    """
    from .._validation import check_choice

    t0 = time.perf_counter()
    fail_on = check_choice(fail_on, ("fail", "warn"), name="fail_on")
    for flag, path in (("junit", junit), ("markdown", markdown)):
        if path is not None:
            path = Path(path)
            parent = path.parent if str(path.parent) else Path(".")
            if path.is_dir() or not parent.is_dir():
                raise InvalidInputError(
                    f"{flag}={str(path)!r}: "
                    + ("is a folder, expected a file name" if path.is_dir() else "its folder does not exist")
                )
    inputs_list = list(inputs_list)
    if not inputs_list:
        raise InvalidInputError("nothing to audit: no benchmark given")
    if not callable(getattr(scheduler, "map_ordered", None)):
        from ..execution import parse_scheduler

        scheduler = parse_scheduler(scheduler)  # a malformed value fails before any work
    gates = {}
    for inp in inputs_list:  # chosen and checked once, before any work
        gates[inp.name] = _effective_gates(inp)
        _check_gate_paths(gates[inp.name][0], f"benchmark {inp.name!r}")
    out_path = Path(out)
    check_out_folder(out_path, list(sources))
    with _executor(scheduler) as executor:  # an unreachable scheduler fails here, before anything is written
        return _write_audit_run(
            inputs_list,
            out_path,
            gates,
            executor,
            fail_on=fail_on,
            timestamp=timestamp,
            progress=progress,
            junit=junit,
            markdown=markdown,
            on_benchmark=on_benchmark,
            t0=t0,
        )


def _executor(scheduler):
    """A context manager giving the executor of ``scheduler`` (an already-open executor is passed through)."""
    import contextlib

    from ..execution import open_executor

    if callable(getattr(scheduler, "map_ordered", None)):
        return contextlib.nullcontext(scheduler)
    return open_executor(scheduler)


def _write_audit_run(
    inputs_list, out_path, gates, executor, *, fail_on, timestamp, progress, junit, markdown, on_benchmark, t0
) -> AuditRun:
    from .._io import discard_output_dir, prepare_output_dir, replace_dir_atomic
    from ..gates.checks import exit_code, verdict

    out_path, tmp = prepare_output_dir(out_path)
    discard = Cleanup(lambda: discard_output_dir(tmp), forced=lambda: _forget_output(tmp, out_path))
    with discard.registered():  # a forced exit (a second signal) removes the temporary folder and the lock
        try:
            audits = _write_all(inputs_list, tmp, gates, executor, timestamp, progress, on_benchmark)
        except BaseException:
            discard()
            raise
    try:
        replace_dir_atomic(tmp, out_path)  # no safe point inside: the old report or the new one, whole
    except BaseException:
        discard()
        raise
    by_bench = {a.name: list(a.gate_results) for a in audits}
    if junit is not None or markdown is not None:
        from ..report import export

        if junit is not None:
            export.write_junit(by_bench, junit)
        if markdown is not None:
            export.write_markdown_summary(by_bench, markdown)
    every = [g for a in audits for g in a.gate_results]
    return AuditRun(
        out=out_path,
        audits=tuple(audits),
        exit_code=exit_code(every, fail_on=fail_on),
        verdict=verdict(every),
        elapsed_seconds=time.perf_counter() - t0,
    )


def _write_all(inputs_list, tmp: Path, gates, executor, timestamp, progress, on_benchmark) -> list:
    """Audit every benchmark and write its files into the temporary folder ``tmp``, then the index and the
    marker; the audits, in order."""
    from .._io import write_text_atomic
    from ..report.render import render_index

    audits = []
    for inp in inputs_list:
        check_stop()
        rules, default = gates[inp.name]
        audit = _audit_with_rules(inp, rules, default=default, progress=progress, executor=executor)
        if timestamp:
            from datetime import datetime, timezone

            run = {
                "timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                "elapsed_seconds": audit.elapsed_seconds,
            }
            audit = replace(audit, summary={**audit.summary, "run": run})
        _write_benchmark(audit, tmp / audit.name, progress=progress, executor=executor)
        audits.append(audit)
        if on_benchmark is not None:
            on_benchmark(audit)
    write = _checked(write_text_atomic)
    write(tmp / "index.html", render_index(audits, timestamp=timestamp))
    write(tmp / _MARKER, "Written by 'auditad audit'; the next run into this folder replaces it.\n")
    return audits


def _forget_output(tmp: Path, out: Path) -> None:
    """The forced exit's clean-up of an unfinished report: remove the temporary folder and the lock file,
    taking no lock of this process (the interrupted code may hold one); the kernel drops the lock itself."""
    import contextlib
    import shutil

    from .._io import OutputLock

    shutil.rmtree(tmp, ignore_errors=True)
    with contextlib.suppress(OSError):
        Path(OutputLock(out).path).unlink()


def _checked(write: Callable) -> Callable:
    """``write`` between two safe points of the stop requests (`check_stop`)."""

    def run(*args, **kwargs):
        check_stop()
        written = write(*args, **kwargs)
        check_stop()
        return written

    return run


def _write_benchmark(audit: BenchmarkAudit, folder: Path, *, progress: bool = False, executor=None) -> None:
    """Write summary.json, tables, figures and report.html of one benchmark into ``folder``.

    With a Dask ``executor`` the figures are drawn on its workers (the same bytes: the renderer fixes
    every style and metadata entry); the files are written here.
    """
    import json

    from ..execution import distributed
    from .. import _io
    from .._progress import Progress
    from ..report.render import figure_files, render_report

    write_bytes_atomic, write_text_atomic = _checked(_io.write_bytes_atomic), _checked(_io.write_text_atomic)

    (folder / "tables").mkdir(parents=True)
    (folder / "figures").mkdir()
    files = audit.summary_files
    write_text_atomic(
        folder / "summary.json", json.dumps(audit.summary, indent=2, allow_nan=False, ensure_ascii=False) + "\n"
    )
    if any(not t.compact for t in audit.tables) or files:
        (folder / "data").mkdir()
    from ..report.tables import frame_to_csv  # spreadsheet-safe text cells (CSV injection)

    for rel, frame in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(folder / rel, frame_to_csv(frame))
    _write_tables(audit.tables, folder)
    svgs = {}
    remote = distributed(executor)
    drawn = iter(executor.map_ordered(figure_files, list(audit.figures)) if remote else ())
    with Progress(len(audit.figures), f"figures {audit.name}", enabled=progress) as bar:
        for spec in audit.figures:
            svg, pdf = next(drawn) if remote else figure_files(spec)
            write_bytes_atomic(folder / "figures" / f"{spec.name}.svg", svg)
            write_bytes_atomic(folder / "figures" / f"{spec.name}.pdf", pdf)
            svgs[spec.name] = svg
            bar.update()
    write_text_atomic(folder / "report.html", render_report(audit, svgs))


def _write_tables(tables, folder: Path) -> None:
    from .._io import write_text_atomic
    from ..report.export import write_table
    from ..report.tables import frame_to_csv

    write_table, write_text_atomic = _checked(write_table), _checked(write_text_atomic)
    for t in tables:
        if t.compact:
            write_table(t.frame, folder / "tables" / t.name, caption=t.caption, label=f"tab:{_key(t.name)}")
        else:
            write_text_atomic(folder / "data" / f"{t.name}.csv", frame_to_csv(t.frame))
