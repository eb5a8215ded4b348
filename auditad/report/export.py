r"""Export of audit results for CI and papers: JUnit XML, Markdown, LaTeX tables, a LaTeX appendix.

* [`write_junit`][auditad.report.export.write_junit] — gate results as JUnit XML (one ``<testsuite>`` per benchmark, one
  ``<testcase>`` per gate), valid against the Jenkins/Surefire ``junit-10.xsd`` schema that
  GitLab, GitHub test reporters and Jenkins read.  A failed *fail*-level gate is a testcase
  with ``<failure>``; a failed *warn*-level gate is a **passing** testcase whose
  ``<system-out>`` starts with ``WARNING:`` (JUnit has no "warning" outcome, and a
  warning must not turn a CI job red).  Every testcase's ``<system-out>`` holds the
  compared value.
* [`write_markdown_summary`][auditad.report.export.write_markdown_summary] — one Markdown page for CI job summaries.
* [`frame_to_latex`][auditad.report.export.frame_to_latex] /
[`frame_to_markdown`][auditad.report.export.frame_to_markdown] / [`write_table`][auditad.report.export.write_table] — a
table as
  booktabs LaTeX, a pipe table (no ``tabulate`` dependency) and CSV.
* [`write_appendix`][auditad.report.export.write_appendix] — a folder with ``appendix.tex`` (one ``\section`` and one
  ``\subsection`` per benchmark) that ``\input``\ s the LaTeX tables and includes the PDF
  figures of an ``auditad audit``, ``auditad ood`` or ``auditad timeseries`` output folder (the latter two
  with their stored findings); needs only ``booktabs`` and ``graphicx``.

Nothing here prints, and every file is written to a temporary name first and renamed
(a folder is built in a temporary sibling and moved into place), so an interrupted run
leaves no half-written output.
"""

from __future__ import annotations

import math
import re
import shutil
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from .._progress import check_stop
from .._io import check_regular_input, discard_output_dir, prepare_output_dir, replace_dir_atomic, write_text_atomic
from ..errors import InvalidInputError
from ._slug import unique_slug
from ..gates.checks import GateResult, evaluate_gates, gate_value_text, load_summary, summary_rules, verdict
from .tables import frame_to_latex, frame_to_markdown, latex_escape, md_escape, md_table as _md_table, write_table

__all__ = [
    "latex_escape",
    "md_escape",
    "frame_to_latex",
    "frame_to_markdown",
    "write_table",
    "write_junit",
    "markdown_summary",
    "write_markdown_summary",
    "write_appendix",
    "AppendixResult",
]


# --------------------------------------------------------------------------- gate results: counts
def _condition(rule) -> str:
    """``"<= 0.5"``: the rule's expression without its path."""
    return rule.expression[len(rule.path) :].strip()


def _counts(results: Sequence[GateResult]) -> dict:
    return {
        "tests": len(results),
        "passed": sum(r.passed for r in results),
        "warnings": sum((not r.passed) and r.level == "warn" for r in results),
        "failures": sum((not r.passed) and r.level == "fail" for r in results),
    }


def _tally(c: dict) -> str:
    """``"3 gates: 1 passed, 1 warning, 1 failed"``."""
    return (
        f"{c['tests']} gate{'s' * (c['tests'] != 1)}: {c['passed']} passed, "
        f"{c['warnings']} warning{'s' * (c['warnings'] != 1)}, {c['failures']} failed"
    )


def _check_results(results_by_benchmark) -> dict[str, list[GateResult]]:
    if not isinstance(results_by_benchmark, Mapping):
        raise InvalidInputError(
            "results_by_benchmark must be a dict {benchmark name: list of GateResult}, "
            f"got {type(results_by_benchmark).__name__}"
        )
    out = {}
    for name, results in results_by_benchmark.items():
        results = list(results)
        bad = [r for r in results if not isinstance(r, GateResult)]
        if bad:
            raise InvalidInputError(f"results of benchmark {name!r} must be GateResult objects, got {bad[0]!r}")
        out[str(name)] = results
    return out


def _fmt_value(value, threshold=None) -> str:
    if value is None:
        return "null"
    if math.isnan(value):
        return "NaN"
    return gate_value_text(value, threshold)


# --------------------------------------------------------------------------- JUnit
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_text(text: str) -> str:
    """Drop the characters that XML 1.0 cannot hold at all (ElementTree escapes the rest)."""
    return _XML_INVALID.sub("", str(text))


def write_junit(results_by_benchmark: Mapping[str, Sequence[GateResult]], path, *, name: str = "auditad gates") -> Path:
    """Write gate results as a JUnit XML file.

    Structure (Jenkins/Surefire ``junit-10.xsd``):

        <testsuites name="auditad gates" tests="3" failures="1" errors="0" time="0">
          <testsuite name="BENCHMARK" tests="3" failures="1" errors="0" skipped="0" time="0">
            <properties><property name="verdict" value="fail"/></properties>
            <testcase classname="auditad.gates.BENCHMARK" name="fail: leakage.L_k <= 0.5" time="0">
              <failure type="GateFailure" message="leakage.L_k = 0.71 (required <= 0.5): violated">...</failure>
              <system-out>...</system-out>
            </testcase>
            ...

    A failed warn-level gate is a passing testcase whose ``<system-out>`` starts with
    ``WARNING:``; ``failures`` counts failed fail-level gates only.  No timestamps or host
    names are written, so the same results give the same file.

    Parameters
    ----------
    results_by_benchmark : dict
        ``{benchmark name: [GateResult, ...]}``, in the order to report.
    path : str or Path
        Output file (written atomically).
    name : str
        Name of the ``<testsuites>`` root.

    Returns
    -------
    Path
        ``path``.

    See Also
    --------
    - [`write_appendix`][auditad.report.export.write_appendix]: the LaTeX appendix.
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: the gates.


    Examples
    --------
    >>> from auditad.gates.checks import evaluate_gates
    >>> res = evaluate_gates({"leakage": {"L_k": 0.7}}, ["leakage.L_k <= 0.5"])
    >>> write_junit({"cifar10": res}, "gates.xml")  # doctest: +SKIP
    """
    data = _check_results(results_by_benchmark)
    totals = _counts([r for results in data.values() for r in results])
    root = ET.Element(
        "testsuites",
        {
            "name": _xml_text(name),
            "tests": str(totals["tests"]),
            "failures": str(totals["failures"]),
            "errors": "0",
            "time": "0",
        },
    )
    for bench, results in data.items():
        c = _counts(results)
        suite = ET.SubElement(
            root,
            "testsuite",
            {
                "name": _xml_text(bench),
                "tests": str(c["tests"]),
                "failures": str(c["failures"]),
                "errors": "0",
                "skipped": "0",
                "time": "0",
            },
        )
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", {"name": "verdict", "value": verdict(results)})
        ET.SubElement(props, "property", {"name": "warnings", "value": str(c["warnings"])})
        for r in results:
            case = ET.SubElement(
                suite,
                "testcase",
                {"classname": _xml_text(f"auditad.gates.{bench}"), "name": _xml_text(r.rule.text), "time": "0"},
            )
            detail = (
                f"{r.message}\nvalue: {_fmt_value(r.value, r.rule.threshold)}\n"
                f"condition: {r.rule.expression}\nlevel: {r.level}\nstatus: {r.status}"
            )
            if not r.passed and r.level == "fail":
                failure = ET.SubElement(case, "failure", {"type": "GateFailure", "message": _xml_text(r.message)})
                failure.text = _xml_text(detail)
            out = ET.SubElement(case, "system-out")
            prefix = (
                "WARNING: warn-level gate did not pass (reported, not failed)\n"
                if (not r.passed and r.level == "warn")
                else ""
            )
            out.text = _xml_text(prefix + detail)
    ET.indent(root)
    text = '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
    check_stop()  # a safe point of the command line's signal handling (nothing happens in a library call)
    return write_text_atomic(path, text)


# --------------------------------------------------------------------------- Markdown
def markdown_summary(results_by_benchmark: Mapping[str, Sequence[GateResult]], *, title: str = "auditad gates") -> str:
    """Markdown text of `write_markdown_summary` (returned, not written).

    See Also
    --------
    - [`write_appendix`][auditad.report.export.write_appendix]: the LaTeX appendix.
    - [`write_junit`][auditad.report.export.write_junit],
      [`write_markdown_summary`][auditad.report.export.write_markdown_summary]: gate results for CI.
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: the gates.
    """
    data = _check_results(results_by_benchmark)
    every = [r for results in data.values() for r in results]
    c = _counts(every)
    overall = verdict(every)
    lines = [
        f"## {md_escape(title)}",
        "",
        f"Overall verdict: **{overall}** ({len(data)} benchmark{'s' * (len(data) != 1)}, {_tally(c)})",
        "",
    ]
    lines += _md_table(
        ["benchmark", "verdict", "gates", "passed", "warnings", "failed"],
        [[md_escape(b), verdict(rs), *(str(v) for v in _counts(rs).values())] for b, rs in data.items()],
        ["l", "l", "r", "r", "r", "r"],
    )
    rows = []
    for b, rs in data.items():
        for r in rs:
            rows.append(
                [
                    md_escape(b),
                    md_escape(r.rule.path),
                    r.level,
                    _fmt_value(r.value, r.rule.threshold),
                    md_escape(_condition(r.rule)),
                    {"pass": "pass", "warn": "WARN", "fail": "FAIL"}[r.status],
                ]
            )
    if rows:
        lines += [
            "",
            *_md_table(
                ["benchmark", "metric", "level", "value", "threshold", "status"], rows, ["l", "l", "l", "r", "l", "l"]
            ),
        ]
    notes = [f"- {md_escape(b)}: {md_escape(r.message)}" for b, rs in data.items() for r in rs if not r.passed]
    if notes:
        lines += ["", "Gates that did not pass:", "", *notes]
    return "\n".join(lines) + "\n"


def write_markdown_summary(
    results_by_benchmark: Mapping[str, Sequence[GateResult]], path, *, title: str = "auditad gates"
) -> Path:
    """Write a Markdown summary of gate results for CI job pages.

    The page has the overall verdict, one row per benchmark (verdict and counts), one row
    per gate (benchmark, metric, level, value, threshold, status ``pass``/``WARN``/``FAIL``)
    and the messages of the gates that did not pass.  Plain text, no emoji; every cell is
    Markdown-escaped.  The file is replaced, not appended to: for GitHub Actions write
    it elsewhere and ``cat`` it into ``$GITHUB_STEP_SUMMARY``.

    Returns
    -------
    Path
        ``path``.

    See Also
    --------
    - [`write_appendix`][auditad.report.export.write_appendix]: the LaTeX appendix.
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: the gates.
    """
    text = markdown_summary(results_by_benchmark, title=title)
    check_stop()  # a safe point of the command line's signal handling (nothing happens in a library call)
    return write_text_atomic(path, text)


# --------------------------------------------------------------------------- appendix
@dataclass(frozen=True)
class AppendixResult:
    """What [`write_appendix`][auditad.report.export.write_appendix] wrote.

    Attributes
    ----------
    path : Path
        ``OUT/appendix.tex``.
    benchmarks : tuple of str
        Benchmark names, in the order of the subsections.
    tables : tuple of str
        LaTeX tables written (paths relative to OUT).
    figures : tuple of str
        PDF figures copied (paths relative to OUT).

    See Also
    --------
    - [`write_appendix`][auditad.report.export.write_appendix]: the LaTeX appendix.
    - [`write_junit`][auditad.report.export.write_junit],
      [`write_markdown_summary`][auditad.report.export.write_markdown_summary]: gate results for CI.
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: the gates.
    """

    path: Path
    benchmarks: tuple[str, ...]
    tables: tuple[str, ...]
    figures: tuple[str, ...]

    def to_dict(self) -> dict:
        """JSON-safe dict."""
        return {
            "path": str(self.path),
            "benchmarks": list(self.benchmarks),
            "tables": list(self.tables),
            "figures": list(self.figures),
        }


def _slug(text: str, taken: set) -> str:
    return unique_slug(text, taken, style="label")


def _human(stem: str) -> str:
    return re.sub(r"[_\-]+", " ", stem).strip() or stem


def _caption(captions: Mapping, stem: str, benchmark: str) -> str:
    """The summary's caption of a table/figure (``captions[stem]``) or its file name, led by the benchmark."""
    text = captions.get(stem)
    text = str(text) if text else _human(stem)
    return text if benchmark in text else f"{benchmark}: {text}"


def _find_benchmarks(audit_dir: Path) -> list[Path]:
    if not audit_dir.exists():
        raise InvalidInputError(f"audit folder {str(audit_dir)!r} does not exist")
    if not audit_dir.is_dir():
        raise InvalidInputError(f"audit folder {str(audit_dir)!r} is not a folder")
    if (audit_dir / "summary.json").is_file():
        return [audit_dir]
    found = sorted(d for d in audit_dir.iterdir() if d.is_dir() and (d / "summary.json").is_file())
    if not found:
        raise InvalidInputError(
            f"no benchmark in audit folder {str(audit_dir)!r}: expected "
            "DIR/<benchmark>/summary.json or DIR/summary.json (the output of 'auditad audit', 'auditad ood' or "
            "'auditad timeseries')"
        )
    return found


def _gate_frame(results: Sequence[GateResult]):
    import pandas as pd

    return pd.DataFrame(
        {
            "metric": [r.rule.path for r in results],
            "condition": [_condition(r.rule) for r in results],
            "level": [r.level for r in results],
            "value": [float("nan") if r.value is None else r.value for r in results],
            "status": [r.status for r in results],
        }
    )


#: Columns of a per-class table read as text whatever they hold (a class named ``007`` or ``NA`` stays so).
_TEXT_COLUMNS = ("representation", "detector", "class", "significance", "dominant_source", "interval_covers")


def _summary_tables(bench: Path):
    """A reader of the per-class CSV files a bounded ``summary.json`` names (``data/summary/*.csv``)."""

    def read(rel: str):
        import pandas as pd

        path = (bench / rel).resolve()
        if not path.is_relative_to(bench.resolve()):
            raise InvalidInputError(f"summary {str(bench / 'summary.json')!r} names {rel!r}, outside its folder")
        if not path.is_file():
            raise InvalidInputError(
                f"summary {str(bench / 'summary.json')!r} keeps its per-class rows in {rel!r}, which is missing; "
                "copy the whole audit folder"
            )
        check_regular_input(path, what="per-class table", max_bytes=256 * 1024 * 1024)
        header = pd.read_csv(path, nrows=0).columns
        try:
            return pd.read_csv(
                path,
                dtype={c: str for c in _TEXT_COLUMNS if c in header},
                keep_default_na=False,
                na_values=[""],
            )
        except (pd.errors.ParserError, UnicodeDecodeError) as exc:
            raise InvalidInputError(f"per-class table {str(path)!r} is not a readable CSV file: {exc}") from None

    return read


def _findings_latex(summary: Mapping, results, tables=None) -> list[str]:
    """The findings of one benchmark as LaTeX: worst first, each with its status, title, number, sentence and
    meaning (the words of the report's findings block)."""
    from .findings import finding_rows, findings

    rows = finding_rows(findings(summary, results, tables=tables))
    if not rows:
        return []
    lines = [r"\paragraph{Findings.}", r"\begin{itemize}"]
    for r in rows:
        head = f"{r['check']}: {r['number']}" + (f" (threshold {r['threshold']})" if r.get("threshold") else "")
        text = " ".join(t for t in (r.get("subject"), r.get("meaning")) if t)
        lines.append(
            f"  \\item{{}} \\textbf{{{latex_escape(r['status'].upper())}}} {latex_escape(head)}. {latex_escape(text)}"
        )
    return lines + [r"\end{itemize}", ""]


_APPENDIX_HEADER = r"""% Evaluation-protocol appendix written by auditad {version} ('auditad appendix').
% Use it in the body of a LaTeX document:  \input{{{folder}/appendix.tex}}
% The preamble needs:  \usepackage{{booktabs}}  (table rules)  and  \usepackage{{graphicx}}  (figures).
% Tables and figures are found under \AuditadDir (default below: the document is compiled in the folder
% that contains "{folder}").  To compile from elsewhere define it before the \input, e.g.
% \newcommand{{\AuditadDir}}{{}} when the document sits inside "{folder}", or {{path/to/{folder}/}}.
"""


#: ``summary.json`` kinds whose findings, verdict and gate results are stored (written by ``auditad ood`` and
#: ``auditad timeseries``): the appendix renders them as stored, nothing is evaluated again.
STORED_KINDS = {"ood": "OOD benchmark audit", "timeseries": "time-series evaluation audit"}
#: Most rows of a table of a stored-kind summary set in the appendix; a longer one (a per-sample table) is named,
#: not typeset (it stays a CSV file of the audit folder).
MAX_APPENDIX_ROWS = 200
#: Items named per finding in the appendix.
MAX_FINDING_ITEMS = 6


def _number_text(value) -> str:
    from .._format import real

    if isinstance(value, (int, float)) and not isinstance(value, bool) and float(value).is_integer():
        return str(int(value))
    return real(value, target="tex")


def _stored_findings_latex(stored) -> list[str]:
    """The findings stored in a summary (``Finding.to_dict`` records), worst first, as LaTeX: status, title,
    number and threshold, the sentence, the first items."""
    from ..findings import sort_findings

    rows = [f for f in stored or () if isinstance(f, Mapping) and "status" in f]
    if not rows:
        return ["No finding was recorded.", ""]
    lines = [r"\paragraph{Findings.}", r"\begingroup\sloppy", r"\begin{itemize}"]  # long names: no overfull line
    for f in sort_findings(rows):
        head = f"{f.get('title') or f.get('check')}: {_number_text(f.get('number'))}"
        if f.get("threshold") is not None:
            head += f" (threshold {float(f['threshold']):g})"
        text = " ".join(str(t) for t in (f.get("subject") and f"[{f['subject']}]", f.get("sentence")) if t)
        items = [str(it.get("name")) for it in f.get("items") or () if isinstance(it, Mapping)]
        if items:
            more = f" and {len(items) - MAX_FINDING_ITEMS} more" if len(items) > MAX_FINDING_ITEMS else ""
            text += f" Items: {'; '.join(items[:MAX_FINDING_ITEMS])}{more}."
        status = str(f["status"]).upper()
        lines.append(f"  \\item{{}} \\textbf{{{latex_escape(status)}}} {latex_escape(head)}. {latex_escape(text)}")
    return lines + [r"\end{itemize}", r"\endgroup", ""]


def _stored_gates(summary: Mapping, name: str) -> list[GateResult]:
    try:
        return [GateResult.from_dict(g) for g in summary.get("gates") or () if isinstance(g, Mapping)]
    except InvalidInputError as exc:
        raise InvalidInputError(f"benchmark {name!r}: {exc}") from None


def _stored_head(summary: Mapping, name: str) -> tuple[list[str], list]:
    """Verdict line and findings of an ``ood`` / ``timeseries`` summary, and its gate table entry (as stored)."""
    kind = STORED_KINDS[summary["kind"]]
    results = _stored_gates(summary, name)
    stored = [f for f in summary.get("findings") or () if isinstance(f, Mapping)]
    by = {st: sum(1 for f in stored if f.get("status") == st) for st in ("fail", "warn", "info", "pass")}
    counts = ", ".join(f"{n} {st}" for st, n in by.items() if n)
    text = f"{len(stored)} finding{'s' * (len(stored) != 1)}" + (f": {counts}" if counts else "")
    if results:
        text += f"; {_tally(_counts(results))}"
    line = (
        f"{kind[0].upper() + kind[1:]}. Verdict: \\textbf{{{latex_escape(str(summary.get('verdict', 'unknown')))}}} "
        f"({latex_escape(text)})."
    )
    reason = summary.get("verdict_reason")
    body = [line + (f" {latex_escape(str(reason))}" if reason and summary.get("verdict") != "pass" else ""), ""]
    body += _stored_findings_latex(stored)
    entries = [("gates", _gate_frame(results), f"{name}: gates")] if results else []
    return body, entries


def _audit_head(summary: Mapping, bench: Path, name: str) -> tuple[list[str], list]:
    """Gate verdict (gates evaluated on the summary) and findings of an ``auditad audit`` summary."""
    try:
        results = evaluate_gates(summary, summary_rules(summary, source=str(bench / "summary.json")))
    except InvalidInputError as exc:
        raise InvalidInputError(f"benchmark {name!r}: {exc}") from None
    if results:
        body = [f"Gate verdict: \\textbf{{{verdict(results)}}} ({_tally(_counts(results))})."]
    else:
        body = ["No gates were set for this benchmark."]
    body += ["", *_findings_latex(summary, results, _summary_tables(bench))]
    entries = [("gates", _gate_frame(results), f"{name}: gates")] if results else []
    return body, entries


def _read_tables(bench: Path, captions: Mapping, name: str, max_rows) -> tuple[list, list[str]]:
    """``(stem, frame, caption)`` of every ``tables/*.csv``, and the names of those left out.

    With ``max_rows`` (a stored-kind summary) a table is left out when it is longer, or when the summary has
    captions and none for it (a machine-readable table the command did not caption for papers)."""
    import pandas as pd

    entries, skipped = [], []
    for csv in sorted((bench / "tables").glob("*.csv")):
        check_regular_input(csv, what="table file", max_bytes=256 * 1024 * 1024)  # no FIFO or device
        try:
            frame = pd.read_csv(csv)
        except pd.errors.EmptyDataError:
            continue
        except (pd.errors.ParserError, UnicodeDecodeError) as exc:
            raise InvalidInputError(f"table {str(csv)!r} is not a readable CSV file: {exc}") from None
        if max_rows is not None and (len(frame) > max_rows or (captions and csv.stem not in captions)):
            skipped.append(f"tables/{csv.name} ({len(frame)} rows)")
            continue
        entries.append((csv.stem, frame, _caption(captions, csv.stem, name)))
    if max_rows is not None and captions:  # the order the command lists its captions in
        rank = {stem: i for i, stem in enumerate(captions)}
        entries.sort(key=lambda e: rank.get(e[0], len(rank)))
    return entries, skipped


def _tables_and_figures(bench, tmp, slug, name, captions, entries, float_format):
    """Write the tables and copy the figures of one benchmark; ``(body lines, tables, figures)``."""
    body, tables, figures = [], [], []
    table_dir, fig_dir = tmp / "tables" / slug, tmp / "figures" / slug
    table_dir.mkdir(parents=True)
    stems: set = set()
    for stem, frame, caption in entries:
        check_stop()
        if frame.shape[1] == 0:
            continue
        stem = _slug(stem, stems)
        write_table(
            frame,
            table_dir / stem,
            caption=caption,
            label=f"tab:auditad-{slug}-{stem}",
            float_format=float_format,
            human_headers=True,
        )
        rel = f"tables/{slug}/{stem}.tex"
        tables.append(rel)
        body.append(f"\\input{{\\AuditadDir {rel}}}")
    pdfs = sorted((bench / "figures").glob("*.pdf"))
    if pdfs:
        fig_dir.mkdir(parents=True)
    fig_stems: set = set()
    for pdf in pdfs:
        check_stop()
        check_regular_input(pdf, what="figure file")  # a FIFO would block the copy
        stem = _slug(pdf.stem, fig_stems)
        shutil.copyfile(pdf, fig_dir / f"{stem}.pdf")
        rel = f"figures/{slug}/{stem}.pdf"
        figures.append(rel)
        body += [
            r"\begin{figure}[htbp]",
            r"  \centering",
            f"  \\includegraphics[width=\\linewidth,height=0.42\\textheight,keepaspectratio]{{\\AuditadDir {rel}}}",
            f"  \\caption{{{latex_escape(_caption(captions, pdf.stem, name))}}}\\label{{fig:auditad-{slug}-{stem}}}",
            r"\end{figure}",
        ]
    return body, tables, figures


def _benchmark_block(bench: Path, slug: str, tmp: Path, float_format):
    """``(name, body lines, tables, figures)`` of one benchmark folder."""
    summary = load_summary(bench / "summary.json")
    kind = summary.get("kind")
    if kind not in (None, "audit") and kind not in STORED_KINDS:
        raise InvalidInputError(
            f"summary {str(bench / 'summary.json')!r} is of kind {kind!r}; the appendix reads the outputs of "
            f"'auditad audit', {', '.join(repr('auditad ' + k) for k in STORED_KINDS)}"
        )
    name = str(summary.get("benchmark") or bench.name)
    captions = summary.get("captions") if isinstance(summary.get("captions"), Mapping) else {}
    stored = kind in STORED_KINDS
    head, entries = _stored_head(summary, name) if stored else _audit_head(summary, bench, name)
    more, skipped = _read_tables(bench, captions, name, MAX_APPENDIX_ROWS if stored else None)
    body = [f"\\subsection{{{latex_escape(name)}}}\\label{{sec:auditad-{slug}}}", *head]
    if skipped:
        body += [
            "{\\sloppy Tables of the audit folder not typeset here (per-row or machine-readable; see the CSV "
            f"files): {latex_escape(', '.join(skipped))}.\\par}}",
            "",
        ]
    lines, tables, figures = _tables_and_figures(bench, tmp, slug, name, captions, entries + more, float_format)
    return name, body + lines + [r"\clearpage", ""], tables, figures


def write_appendix(
    audit_dir, out_dir, *, title: str = "Evaluation-protocol audit", float_format=None
) -> AppendixResult:
    r"""Build a LaTeX appendix from an ``auditad audit``, ``auditad ood`` or ``auditad timeseries`` output folder.

    Reads ``AUDIT/<benchmark>/summary.json``, ``tables/*.csv`` and ``figures/*.pdf``, and
    writes into ``OUT``:

    * ``appendix.tex`` — ``\section{title}`` and, per benchmark, ``\subsection{name}`` with
      the verdict, the findings, the table of gates, every table (``\input``) and every figure
      (``\includegraphics``), then ``\clearpage``;
    * ``tables/<benchmark>/<name>.tex`` (+ ``.csv`` and ``.md``), booktabs tables;
    * ``figures/<benchmark>/<name>.pdf``, copies of the PDF figures.

    An ``auditad audit`` summary has its gates evaluated again on the summary (the stored rules).
    A summary with ``"kind": "ood"`` or ``"timeseries"`` is rendered as stored: its verdict, its
    ``findings`` (``Finding.to_dict`` records, worst first) and its evaluated ``gates``; nothing is
    computed again. Its tables longer than ``MAX_APPENDIX_ROWS`` rows (the per-sample tables), and those
    without a caption when the summary has ``captions``, are named, not typeset.

    Only ``booktabs`` and ``graphicx`` are needed (stated in the comment header of
    ``appendix.tex``).  Wide tables are split by columns (never scaled below 8 pt).  The folder is
    built in a temporary sibling and renamed into place (replacing an older ``OUT``), so a failure
    leaves ``OUT`` untouched.  A table or figure caption is the summary's ``captions[<file stem>]``
    (as the commands record them) or the file name, led by the benchmark name.

    Parameters
    ----------
    audit_dir : str or Path
        Folder with ``<benchmark>/summary.json`` sub-folders, or a single benchmark folder.
    out_dir : str or Path
        Folder to create (or replace).
    title : str
        Section title.
    float_format : str or callable
        Number format of the LaTeX tables (see [`frame_to_latex`][auditad.report.export.frame_to_latex]).

    Returns
    -------
    AppendixResult

    See Also
    --------
    - [`write_junit`][auditad.report.export.write_junit],
      [`write_markdown_summary`][auditad.report.export.write_markdown_summary]: gate results for CI.
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: the gates.
    - [`auditad.report.ood.write_ood_report`][auditad.report.ood.write_ood_report]: an OOD audit's folder.

    Examples
    --------
    >>> write_appendix("ood_out", "appendix")  # doctest: +SKIP
    """
    from .. import __version__

    audit_dir, out_dir = Path(audit_dir), Path(out_dir)
    benches = _find_benchmarks(audit_dir)
    out_abs, audit_abs = out_dir.resolve(), audit_dir.resolve()
    if out_abs == audit_abs or out_abs in audit_abs.parents or any(out_abs == b.resolve() for b in benches):
        raise InvalidInputError(
            f"out_dir={str(out_dir)!r} would replace the audit folder {str(audit_dir)!r}; choose another folder"
        )
    out, tmp = prepare_output_dir(out_dir)
    try:
        # default \AuditadDir: "<OUT name>/" when that name is safe in a TeX file name, else empty
        folder = out.name if re.fullmatch(r"[A-Za-z0-9._\-]+", out.name) else ""
        lines = [
            _APPENDIX_HEADER.format(version=__version__, folder=folder or "OUT"),
            f"\\providecommand{{\\AuditadDir}}{{{folder + '/' if folder else ''}}}",
            "",
        ]
        lines += [f"\\section{{{latex_escape(title)}}}\\label{{sec:auditad}}", ""]
        names, tables, figures, taken, body = [], [], [], set(), []
        for bench in benches:
            check_stop()  # safe points of the command line's signal handling: between benchmarks and files
            name, block, t, f = _benchmark_block(bench, _slug(bench.name, taken), tmp, float_format)
            names.append(name)
            body += block
            tables += t
            figures += f
        intro = (
            f"This appendix reports the evaluation-protocol audit of {len(names)} "
            f"benchmark{'s' * (len(names) != 1)}: {', '.join(latex_escape(n) for n in names)}."
        )
        lines += [intro, "", *body]
        check_stop()
        write_text_atomic(tmp / "appendix.tex", "\n".join(lines).rstrip() + "\n")
        check_stop()
        replace_dir_atomic(tmp, out)  # no safe point inside: the old folder or the new one, whole
    except BaseException:
        discard_output_dir(tmp)
        raise
    return AppendixResult(out / "appendix.tex", tuple(names), tuple(tables), tuple(figures))
