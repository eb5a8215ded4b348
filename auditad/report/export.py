"""Export of audit results for CI and papers: JUnit XML, Markdown, LaTeX tables, a LaTeX appendix.

* :func:`write_junit` — gate results as JUnit XML (one ``<testsuite>`` per benchmark, one
  ``<testcase>`` per gate), valid against the Jenkins/Surefire ``junit-10.xsd`` schema that
  GitLab, GitHub test reporters and Jenkins read.  A failed *fail*-level gate is a testcase
  with ``<failure>``; a failed *warn*-level gate is a **passing** testcase whose
  ``<system-out>`` starts with ``WARNING:`` (JUnit has no "warning" outcome, and a
  warning must not turn a CI job red).  Every testcase's ``<system-out>`` holds the
  compared value.
* :func:`write_markdown_summary` — one Markdown page for CI job summaries.
* :func:`frame_to_latex` / :func:`frame_to_markdown` / :func:`write_table` — a table as
  booktabs LaTeX, a pipe table (no ``tabulate`` dependency) and CSV.
* :func:`write_appendix` — a folder with ``appendix.tex`` (one ``\\section`` and one
  ``\\subsection`` per benchmark) that ``\\input``\\ s the LaTeX tables and includes the PDF
  figures of an ``auditad audit`` output folder; needs only ``booktabs`` and ``graphicx``.

Nothing here prints, and every file is written to a temporary name first and renamed
(a folder is built in a temporary sibling and moved into place), so an interrupted run
leaves no half-written output.
"""

from __future__ import annotations

import math
import numbers
import re
import shutil
import unicodedata
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

from .._io import discard_output_dir, prepare_output_dir, replace_dir_atomic, write_text_atomic
from ..errors import InvalidInputError
from ._slug import unique_slug
from .checks import GateResult, evaluate_gates, gate_value_text, load_summary, summary_rules, verdict

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
    return rule.expression[len(rule.path):].strip()


def _counts(results: Sequence[GateResult]) -> dict:
    return {
        "tests": len(results),
        "passed": sum(r.passed for r in results),
        "warnings": sum((not r.passed) and r.level == "warn" for r in results),
        "failures": sum((not r.passed) and r.level == "fail" for r in results),
    }


def _tally(c: dict) -> str:
    """``"3 gates: 1 passed, 1 warning, 1 failed"``."""
    return (f"{c['tests']} gate{'s' * (c['tests'] != 1)}: {c['passed']} passed, "
            f"{c['warnings']} warning{'s' * (c['warnings'] != 1)}, {c['failures']} failed")


def _check_results(results_by_benchmark) -> dict[str, list[GateResult]]:
    if not isinstance(results_by_benchmark, Mapping):
        raise InvalidInputError("results_by_benchmark must be a dict {benchmark name: list of GateResult}, "
                                f"got {type(results_by_benchmark).__name__}")
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


def write_junit(results_by_benchmark: Mapping[str, Sequence[GateResult]], path, *,
                name: str = "auditad gates") -> Path:
    """Write gate results as a JUnit XML file.

    Structure (Jenkins/Surefire ``junit-10.xsd``)::

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
    write_appendix : the LaTeX appendix.
    auditad.report.checks.run_gates : the gates.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
    2. R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
       of Anomaly Detection".
    3. K. Wilkinghoff, Z.-H. Tan, "Can We Predict Anomaly Detection Performance from
       Embedding-Space Geometry?".

    Examples
    --------
    >>> from auditad.report.checks import evaluate_gates
    >>> res = evaluate_gates({"leakage": {"L_k": 0.7}}, ["leakage.L_k <= 0.5"])
    >>> write_junit({"cifar10": res}, "gates.xml")  # doctest: +SKIP
    """
    data = _check_results(results_by_benchmark)
    totals = _counts([r for results in data.values() for r in results])
    root = ET.Element("testsuites", {"name": _xml_text(name), "tests": str(totals["tests"]),
                                     "failures": str(totals["failures"]), "errors": "0", "time": "0"})
    for bench, results in data.items():
        c = _counts(results)
        suite = ET.SubElement(root, "testsuite", {
            "name": _xml_text(bench), "tests": str(c["tests"]), "failures": str(c["failures"]),
            "errors": "0", "skipped": "0", "time": "0"})
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", {"name": "verdict", "value": verdict(results)})
        ET.SubElement(props, "property", {"name": "warnings", "value": str(c["warnings"])})
        for r in results:
            case = ET.SubElement(suite, "testcase", {"classname": _xml_text(f"auditad.gates.{bench}"),
                                                     "name": _xml_text(r.rule.text), "time": "0"})
            detail = (f"{r.message}\nvalue: {_fmt_value(r.value, r.rule.threshold)}\n"
                      f"condition: {r.rule.expression}\nlevel: {r.level}\nstatus: {r.status}")
            if not r.passed and r.level == "fail":
                failure = ET.SubElement(case, "failure", {"type": "GateFailure", "message": _xml_text(r.message)})
                failure.text = _xml_text(detail)
            out = ET.SubElement(case, "system-out")
            prefix = "WARNING: warn-level gate did not pass (reported, not failed)\n" \
                if (not r.passed and r.level == "warn") else ""
            out.text = _xml_text(prefix + detail)
    ET.indent(root)
    text = '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
    return write_text_atomic(path, text)


# --------------------------------------------------------------------------- Markdown
_MD_ESCAPED = re.compile(r"([\\`*_{}\[\]<>#|~!])")


def md_escape(text) -> str:
    """Backslash-escape Markdown punctuation (GFM) and flatten newlines, so a cell renders as plain text."""
    return _MD_ESCAPED.sub(r"\\\1", " ".join(str(text).split()))


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]], align: Sequence[str]) -> list[str]:
    rule = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def markdown_summary(results_by_benchmark: Mapping[str, Sequence[GateResult]], *,
                     title: str = "auditad gates") -> str:
    """Markdown text of :func:`write_markdown_summary` (returned, not written).

    See Also
    --------
    write_appendix : the LaTeX appendix.
    write_junit, write_markdown_summary : gate results for CI.
    auditad.report.checks.run_gates : the gates.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
    2. R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
       of Anomaly Detection".
    3. K. Wilkinghoff, Z.-H. Tan, "Can We Predict Anomaly Detection Performance from
       Embedding-Space Geometry?".
    """
    data = _check_results(results_by_benchmark)
    every = [r for results in data.values() for r in results]
    c = _counts(every)
    overall = verdict(every)
    lines = [f"## {md_escape(title)}", "",
             f"Overall verdict: **{overall}** ({len(data)} benchmark{'s' * (len(data) != 1)}, {_tally(c)})", ""]
    lines += _md_table(["benchmark", "verdict", "gates", "passed", "warnings", "failed"],
                       [[md_escape(b), verdict(rs), *(str(v) for v in _counts(rs).values())]
                        for b, rs in data.items()], ["l", "l", "r", "r", "r", "r"])
    rows = []
    for b, rs in data.items():
        for r in rs:
            rows.append([md_escape(b), md_escape(r.rule.path), r.level, _fmt_value(r.value, r.rule.threshold),
                         md_escape(_condition(r.rule)),
                         {"pass": "pass", "warn": "WARN", "fail": "FAIL"}[r.status]])
    if rows:
        lines += ["", *_md_table(["benchmark", "metric", "level", "value", "threshold", "status"], rows,
                                 ["l", "l", "l", "r", "l", "l"])]
    notes = [f"- {md_escape(b)}: {md_escape(r.message)}" for b, rs in data.items() for r in rs if not r.passed]
    if notes:
        lines += ["", "Gates that did not pass:", "", *notes]
    return "\n".join(lines) + "\n"


def write_markdown_summary(results_by_benchmark: Mapping[str, Sequence[GateResult]], path, *,
                           title: str = "auditad gates") -> Path:
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
    write_appendix : the LaTeX appendix.
    auditad.report.checks.run_gates : the gates.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
    2. R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
       of Anomaly Detection".
    3. K. Wilkinghoff, Z.-H. Tan, "Can We Predict Anomaly Detection Performance from
       Embedding-Space Geometry?".
    """
    return write_text_atomic(path, markdown_summary(results_by_benchmark, title=title))


# --------------------------------------------------------------------------- LaTeX
_LATEX_CHARS = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", "\n": " ", "\r": " ", "\t": " ",
}
_UNICODE = {
    "\u00b1": r"$\pm$", "\u00d7": r"$\times$", "\u2212": r"$-$", "\u2013": "--", "\u2014": "---",
    "\u2026": r"\dots{}", "\u2264": r"$\leq$", "\u2265": r"$\geq$", "\u2260": r"$\neq$", "\u2248": r"$\approx$",
    "\u221e": r"$\infty$", "\u2192": r"$\rightarrow$", "\u00b0": r"$^{\circ}$", "\u00b5": r"$\mu$",
    "\u2018": "`", "\u2019": "'", "\u201c": "``", "\u201d": "''", "\u00a0": "~", "\u00b7": r"$\cdot$",
    "\u221a": r"$\surd$", "\u2208": r"$\in$", "\u03b5": r"$\varepsilon$", "\u03d5": r"$\phi$",
    "\u00df": r"\ss{}", "\u00e6": r"\ae{}", "\u00c6": r"\AE{}", "\u00f8": r"\o{}", "\u00d8": r"\O{}",
    "\u0153": r"\oe{}", "\u0152": r"\OE{}", "\u0142": r"\l{}", "\u0141": r"\L{}", "\u00e5": r"\aa{}",
    "\u00c5": r"\AA{}",
}
_GREEK_CAPITALS = {"Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Upsilon", "Phi", "Psi", "Omega"}
_ACCENTS = {"\u0301": "'", "\u0300": "`", "\u0302": "^", "\u0308": '"', "\u0303": "~", "\u0304": "=",
            "\u0327": "c", "\u030c": "v", "\u030a": "r", "\u0306": "u", "\u030b": "H", "\u0328": "k"}


def _latex_char(ch: str) -> str:
    if ch in _LATEX_CHARS:
        return _LATEX_CHARS[ch]
    if ord(ch) < 128:
        return ch if ch.isprintable() else " "
    if ch in _UNICODE:
        return _UNICODE[ch]
    name = unicodedata.name(ch, "")
    m = re.fullmatch(r"GREEK (SMALL|CAPITAL) LETTER (\w+)", name)
    if m:
        letter = m.group(2).lower().replace("lamda", "lambda")
        if m.group(1) == "SMALL":
            return "o" if letter == "omicron" else f"$\\{letter}$"
        cap = letter.capitalize()
        return f"$\\{cap}$" if cap in _GREEK_CAPITALS else unicodedata.normalize("NFKD", ch)
    decomposition = unicodedata.decomposition(ch)
    if decomposition.startswith(("<super>", "<sub>")):
        base = chr(int(decomposition.split()[1], 16))
        if base.isascii() and base.isalnum():
            return f"$^{{{base}}}$" if decomposition.startswith("<super>") else f"$_{{{base}}}$"
    nfd = unicodedata.normalize("NFD", ch)
    if len(nfd) >= 2 and nfd[0].isascii() and nfd[0].isalpha() and all(c in _ACCENTS for c in nfd[1:]):
        out = nfd[0].replace("i", r"\i{}") if nfd[1] not in ("\u0327", "\u0328") else nfd[0]
        for mark in nfd[1:]:
            out = f"\\{_ACCENTS[mark]}{{{out}}}"
        return out
    folded = unicodedata.normalize("NFKD", ch)
    if folded.isascii() and folded.isprintable():
        return "".join(_latex_char(c) for c in folded)
    return f"[U+{ord(ch):04X}]"


def latex_escape(text) -> str:
    """Escape text for a LaTeX document compiled by pdflatex with the default encodings.

    The ten special characters ``\\ & % $ # _ { } ~ ^`` are escaped, ``< > |`` become
    ``\\textless{}``, ``\\textgreater{}``, ``\\textbar{}`` (which OT1 fonts would otherwise
    print as other glyphs), newlines become spaces, accented Latin letters become accent
    commands, Greek letters and common symbols math-mode commands; any other non-ASCII
    character is written as ``[U+hhhh]`` (its hexadecimal code point) rather than breaking the compilation.

    See Also
    --------
    write_appendix : the LaTeX appendix.
    write_junit, write_markdown_summary : gate results for CI.
    auditad.report.checks.run_gates : the gates.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
    2. R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
       of Anomaly Detection".
    3. K. Wilkinghoff, Z.-H. Tan, "Can We Predict Anomaly Detection Performance from
       Embedding-Space Geometry?".

    Examples
    --------
    >>> latex_escape("50% of a_b & <script>")
    '50\\\\% of a\\\\_b \\\\& \\\\textless{}script\\\\textgreater{}'
    """
    return "".join(_latex_char(ch) for ch in unicodedata.normalize("NFC", str(text)))


_LABEL = re.compile(r"^[A-Za-z0-9:._\-]+$")
_EXPONENT = re.compile(r"^(-?)(\d+(?:\.\d*)?)[eE]([+-]?)0*(\d+)$")


def _number_formatter(float_format) -> Callable[[float], tuple[str, bool]]:
    """Return f(x) -> (text, is_latex): format strings give LaTeX-ready numbers, callables give raw text."""
    if float_format is None:
        return lambda x: (f"{x:.4g}", True)
    if callable(float_format):
        return lambda x: (str(float_format(x)), False)
    if isinstance(float_format, str):
        if "{" in float_format:
            def fmt(x):
                return float_format.format(x)
        elif "%" in float_format:
            def fmt(x):
                return float_format % x
        else:
            def fmt(x):
                return format(x, float_format)
        try:
            fmt(1.5)
        except (ValueError, TypeError, IndexError, KeyError):
            raise InvalidInputError(f"float_format must be a format such as '{{:.3f}}', '%.3f', '.3f' or a "
                                    f"callable, got {float_format!r}") from None
        return lambda x: (fmt(x), True)
    raise InvalidInputError(f"float_format must be a format string or a callable, got {float_format!r}")


def _is_missing(value) -> bool:
    if value is None:
        return True
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):
        return math.isnan(float(value))
    try:
        import pandas as pd

        return bool(pd.isna(value)) if not isinstance(value, (str, bytes)) else False
    except (TypeError, ValueError):
        return False


def _latex_number(text: str) -> str:
    """``1.2e-05`` -> ``$1.2\\times10^{-5}$``; ``-0.5`` -> ``$-$0.5`` (a minus sign, not a hyphen)."""
    m = _EXPONENT.match(text.strip())
    if m:
        sign, mant, esign, exp = m.groups()
        return f"${'-' if sign else ''}{mant}\\times10^{{{'-' if esign == '-' else ''}{exp}}}$"
    if text.startswith("-") and text[1:2].isdigit():
        return "$-$" + latex_escape(text[1:])
    return latex_escape(text)


def _latex_cell(value, number) -> str:
    if _is_missing(value):
        return "--"
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return "yes" if value else "no"
    if isinstance(value, numbers.Integral):
        return _latex_number(str(int(value)))
    if isinstance(value, numbers.Real):
        x = float(value)
        if math.isinf(x):
            return r"$\infty$" if x > 0 else r"$-\infty$"
        text, is_number = number(x)
        return _latex_number(text) if is_number else latex_escape(text)
    return latex_escape(value)


def _header_text(col) -> str:
    return " ".join(str(c) for c in col) if isinstance(col, tuple) else str(col)


def _columns(frame, index: bool):
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise InvalidInputError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    if index:
        names = [n if n is not None else "" for n in frame.index.names]
        frame = frame.reset_index(names=[f"__index_{i}" for i in range(len(names))])
        headers = names + [_header_text(c) for c in frame.columns[len(names):]]
    else:
        headers = [_header_text(c) for c in frame.columns]
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
               for c in frame.columns]
    return frame, headers, numeric


def frame_to_latex(frame, *, caption: str | None = None, label: str | None = None,
                   float_format=None, index: bool = False, max_rows: int | None = 40,
                   position: str = "htbp") -> str:
    r"""Render a DataFrame as a booktabs LaTeX table (``\toprule``, ``\midrule``, ``\bottomrule``).

    Parameters
    ----------
    frame : pandas.DataFrame
    caption : str, optional
        Plain text (escaped).  Without a caption the table has no number and ``label`` is not allowed.
    label : str, optional
        ``\label`` of the table, letters, digits and ``: . _ -`` only.
    float_format : str, callable or None
        None (default): the number format policy of :mod:`auditad._format`, column by column
        (statistics with 3 decimals, p-values with 2 significant digits, regret in pp, counts with
        thin spaces; ``< 1e-300`` below the floor).  Otherwise a number format: ``"{:.3f}"``, ``"%.3f"``, ``".3f"`` (numbers in exponent notation become
        :math:`m\times10^{e}`, a leading minus a real minus sign) or a callable returning text
        (escaped as text).  Integers are written in full; NaN/None as ``--``; infinities as
        :math:`\pm\infty`.
    index : bool
        Include the index as leading columns.
    max_rows : int or None
        Longer tables are split into several ``table`` floats of at most this many rows
        (caption "... (continued)"), because a float cannot break across pages; None never splits.
    position : str
        Float placement.

    Returns
    -------
    str
        One or more ``table`` environments.  Numeric columns are right-aligned, the rest left.
        A table wider than the text is scaled down to ``\linewidth`` (``\resizebox`` of graphicx);
        narrower tables keep their size.  Cells and headers are escaped with :func:`latex_escape`.

    See Also
    --------
    write_appendix : the LaTeX appendix.
    write_junit, write_markdown_summary : gate results for CI.
    auditad.report.checks.run_gates : the gates.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
    2. R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
       of Anomaly Detection".
    3. K. Wilkinghoff, Z.-H. Tan, "Can We Predict Anomaly Detection Performance from
       Embedding-Space Geometry?".

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a_b": [0.5, None]})
    >>> print(frame_to_latex(frame, caption="50% & more"))  # doctest: +NORMALIZE_WHITESPACE
    \begin{table}[htbp]
      \centering
      \caption{50\% \& more}
      \resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%
      \begin{tabular}{@{}r@{}}
        \toprule
        a\_b \\
        \midrule
        0.500 \\
        -- \\
        \bottomrule
      \end{tabular}}
    \end{table}
    """
    if label is not None and (not isinstance(label, str) or not _LABEL.match(label)):
        raise InvalidInputError(f"label must contain only letters, digits and ': . _ -', got {label!r}")
    if label is not None and caption is None:
        raise InvalidInputError("label needs a caption (a table without caption has no number to refer to)")
    if max_rows is not None and (isinstance(max_rows, bool) or not isinstance(max_rows, int) or max_rows < 1):
        raise InvalidInputError(f"max_rows must be a positive integer or None, got {max_rows!r}")
    if not isinstance(position, str) or not re.fullmatch(r"[htbpH!]*", position):
        raise InvalidInputError(f"position must be made of h, t, b, p, H, !, got {position!r}")
    number = _number_formatter(float_format)
    data, headers, numeric = _columns(frame, index)
    if not headers:
        raise InvalidInputError("frame has no columns to write")
    spec = "@{}" + "".join("r" if n else "l" for n in numeric) + "@{}"
    if float_format is None:
        body = [" & ".join(row) + r" \\" for row in _policy_cells(data, "tex")]
    else:
        body = [" & ".join(_latex_cell(v, number) for v in row) + r" \\"
                for row in data.itertuples(index=False, name=None)]
    chunks = [body] if max_rows is None or len(body) <= max_rows else \
        [body[i:i + max_rows] for i in range(0, len(body), max_rows)]
    out = []
    for i, rows in enumerate(chunks):
        lines = [f"\\begin{{table}}[{position}]" if position else r"\begin{table}", r"  \centering"]
        if caption is not None:
            text = latex_escape(caption) + (" (continued)" if i else "")
            lines.append(f"  \\caption{{{text}}}" + (f"\\label{{{label}}}" if label and i == 0 else ""))
        lines += [r"  \resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%",
                  f"  \\begin{{tabular}}{{{spec}}}", r"    \toprule",
                  "    " + " & ".join(latex_escape(h) for h in headers) + r" \\", r"    \midrule",
                  *("    " + r for r in rows), r"    \bottomrule", r"  \end{tabular}}", r"\end{table}"]
        out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


def _policy_cells(data, target: str) -> list[list[str]]:
    """Cells of ``data`` formatted by :func:`auditad._format.format_frame` and escaped for ``target``."""
    from .._format import format_frame

    _, kinds, rows = format_frame(data, target=target)
    out = []
    for rec, cells in zip(data.itertuples(index=False, name=None), rows):
        line = []
        for value, kind, cell in zip(rec, kinds, cells):
            if isinstance(value, (str, bytes)) or kind == "text":
                cell = latex_escape(cell) if target == "tex" else md_escape(cell)
            elif target == "tex" and cell.startswith("-") and cell[1:2].isdigit():
                cell = "$-$" + cell[1:]
            line.append(cell)
        out.append(line)
    return out


def _md_cell(value, number) -> str:
    if _is_missing(value):
        return "--"
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return "yes" if value else "no"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        x = float(value)
        return ("inf" if x > 0 else "-inf") if math.isinf(x) else md_escape(number(x)[0])
    return md_escape(value)


def frame_to_markdown(frame, *, float_format=None, index: bool = False) -> str:
    """Render a DataFrame as a GitHub-flavoured Markdown pipe table.

    Written here because ``DataFrame.to_markdown`` needs the optional ``tabulate`` package.
    Numeric columns are right-aligned; cells are Markdown-escaped.  With ``float_format=None``
    (default) numbers follow :mod:`auditad._format` (NaN/None is ``–``); with a format, NaN/None is ``--``.

    See Also
    --------
    write_appendix : the LaTeX appendix.
    write_junit, write_markdown_summary : gate results for CI.
    auditad.report.checks.run_gates : the gates.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
    2. R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
       of Anomaly Detection".
    3. K. Wilkinghoff, Z.-H. Tan, "Can We Predict Anomaly Detection Performance from
       Embedding-Space Geometry?".

    Examples
    --------
    >>> import pandas as pd
    >>> print(frame_to_markdown(pd.DataFrame({"x": [1, 2], "auroc": [0.5, float("nan")]})), end="")
    | x | auroc |
    | ---: | ---: |
    | 1 | 0.500 |
    | 2 | – |
    """
    number = _number_formatter(float_format)
    data, headers, numeric = _columns(frame, index)
    if not headers:
        raise InvalidInputError("frame has no columns to write")
    if float_format is None:
        rows = _policy_cells(data, "md")
    else:
        rows = [[_md_cell(v, number) for v in row] for row in data.itertuples(index=False, name=None)]
    return "\n".join(_md_table([md_escape(h) for h in headers], rows, ["r" if n else "l" for n in numeric])) + "\n"


def write_table(frame, path_without_suffix, *, caption: str | None = None, label: str | None = None,
                float_format=None) -> list[Path]:
    """Write ``frame`` as ``<path>.csv`` (full precision), ``<path>.md`` and ``<path>.tex``.

    The suffixes are appended to ``path_without_suffix`` (so names with dots keep them);
    each file is written atomically.  ``caption``/``label`` go to the LaTeX table.

    Returns
    -------
    list of Path
        The three files: csv, md, tex.

    See Also
    --------
    write_appendix : the LaTeX appendix.
    write_junit, write_markdown_summary : gate results for CI.
    auditad.report.checks.run_gates : the gates.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
    2. R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
       of Anomaly Detection".
    3. K. Wilkinghoff, Z.-H. Tan, "Can We Predict Anomaly Detection Performance from
       Embedding-Space Geometry?".
    """
    base = str(path_without_suffix)
    tex = frame_to_latex(frame, caption=caption, label=label, float_format=float_format)
    md = frame_to_markdown(frame, float_format=float_format)
    return [write_text_atomic(base + ".csv", frame.to_csv(index=False)),
            write_text_atomic(base + ".md", md),
            write_text_atomic(base + ".tex", tex)]


# --------------------------------------------------------------------------- appendix
@dataclass(frozen=True)
class AppendixResult:
    """What :func:`write_appendix` wrote.

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
    write_appendix : the LaTeX appendix.
    write_junit, write_markdown_summary : gate results for CI.
    auditad.report.checks.run_gates : the gates.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
    2. R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
       of Anomaly Detection".
    3. K. Wilkinghoff, Z.-H. Tan, "Can We Predict Anomaly Detection Performance from
       Embedding-Space Geometry?".
    """

    path: Path
    benchmarks: tuple[str, ...]
    tables: tuple[str, ...]
    figures: tuple[str, ...]

    def to_dict(self) -> dict:
        """JSON-safe dict."""
        return {"path": str(self.path), "benchmarks": list(self.benchmarks), "tables": list(self.tables),
                "figures": list(self.figures)}


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
        raise InvalidInputError(f"no benchmark in audit folder {str(audit_dir)!r}: expected "
                                "DIR/<benchmark>/summary.json (the output of 'auditad audit')")
    return found


def _gate_frame(results: Sequence[GateResult]):
    import pandas as pd

    return pd.DataFrame({
        "metric": [r.rule.path for r in results],
        "condition": [_condition(r.rule) for r in results],
        "level": [r.level for r in results],
        "value": [float("nan") if r.value is None else r.value for r in results],
        "status": [r.status for r in results],
    })


_APPENDIX_HEADER = r"""% Evaluation-protocol appendix written by auditad {version} ('auditad appendix').
% Use it in the body of a LaTeX document:  \input{{{folder}/appendix.tex}}
% The preamble needs:  \usepackage{{booktabs}}  (table rules)  and  \usepackage{{graphicx}}  (figures).
% Tables and figures are found under \AuditadDir (default below: the document is compiled in the folder
% that contains "{folder}").  To compile from elsewhere define it before the \input, e.g.
% \newcommand{{\AuditadDir}}{{}} when the document sits inside "{folder}", or {{path/to/{folder}/}}.
"""


def write_appendix(audit_dir, out_dir, *, title: str = "Evaluation-protocol audit",
                   float_format=None) -> AppendixResult:
    r"""Build a LaTeX appendix from an ``auditad audit`` output folder.

    Reads ``AUDIT/<benchmark>/summary.json``, ``tables/*.csv`` and ``figures/*.pdf``, and
    writes into ``OUT``:

    * ``appendix.tex`` — ``\section{title}`` and, per benchmark, ``\subsection{name}`` with
      the gate verdict, the table of gates (re-evaluated on the summary), every table
      (``\input``) and every figure (``\includegraphics``), then ``\clearpage``;
    * ``tables/<benchmark>/<name>.tex`` (+ ``.csv`` and ``.md``), booktabs tables;
    * ``figures/<benchmark>/<name>.pdf``, copies of the PDF figures.

    Only ``booktabs`` and ``graphicx`` are needed (stated in the comment header of
    ``appendix.tex``).  The folder is built in a temporary sibling and renamed into place
    (replacing an older ``OUT``), so a failure leaves ``OUT`` untouched.  A table or figure
    caption is the summary's ``captions[<file stem>]`` (as ``auditad audit`` records them) or
    the file name, led by the benchmark name.

    Parameters
    ----------
    audit_dir : str or Path
        Folder with ``<benchmark>/summary.json`` sub-folders, or a single benchmark folder.
    out_dir : str or Path
        Folder to create (or replace).
    title : str
        Section title.
    float_format : str or callable
        Number format of the LaTeX tables (see :func:`frame_to_latex`).

    Returns
    -------
    AppendixResult

    See Also
    --------
    write_junit, write_markdown_summary : gate results for CI.
    auditad.report.checks.run_gates : the gates.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
    2. R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
       of Anomaly Detection".
    3. K. Wilkinghoff, Z.-H. Tan, "Can We Predict Anomaly Detection Performance from
       Embedding-Space Geometry?".
    """
    import pandas as pd

    from .. import __version__

    audit_dir, out_dir = Path(audit_dir), Path(out_dir)
    benches = _find_benchmarks(audit_dir)
    out_abs, audit_abs = out_dir.resolve(), audit_dir.resolve()
    if out_abs == audit_abs or out_abs in audit_abs.parents or any(out_abs == b.resolve() for b in benches):
        raise InvalidInputError(f"out_dir={str(out_dir)!r} would replace the audit folder {str(audit_dir)!r}; "
                                "choose another folder")
    out, tmp = prepare_output_dir(out_dir)
    try:
        # default \AuditadDir: "<OUT name>/" when that name is safe in a TeX file name, else empty
        folder = out.name if re.fullmatch(r"[A-Za-z0-9._\-]+", out.name) else ""
        lines = [_APPENDIX_HEADER.format(version=__version__, folder=folder or "OUT"),
                 f"\\providecommand{{\\AuditadDir}}{{{folder + '/' if folder else ''}}}", ""]
        lines += [f"\\section{{{latex_escape(title)}}}\\label{{sec:auditad}}", ""]
        names, tables, figures, taken = [], [], [], set()
        body = []
        for bench in benches:
            summary = load_summary(bench / "summary.json")
            name = str(summary.get("benchmark") or bench.name)
            slug = _slug(bench.name, taken)
            names.append(name)
            captions = summary.get("captions") if isinstance(summary.get("captions"), Mapping) else {}
            try:
                results = evaluate_gates(summary, summary_rules(summary, source=str(bench / "summary.json")))
            except InvalidInputError as exc:
                raise InvalidInputError(f"benchmark {name!r}: {exc}") from None
            body += [f"\\subsection{{{latex_escape(name)}}}\\label{{sec:auditad-{slug}}}"]
            c = _counts(results)
            if results:
                body.append(f"Gate verdict: \\textbf{{{verdict(results)}}} ({_tally(c)}).")
            else:
                body.append("No gates were set for this benchmark.")
            body.append("")
            table_dir, fig_dir = tmp / "tables" / slug, tmp / "figures" / slug
            table_dir.mkdir(parents=True)
            stems: set = set()
            entries = []
            if results:
                entries.append(("gates", _gate_frame(results), f"{name}: gates"))
                stems.add("gates")
            for csv in sorted((bench / "tables").glob("*.csv")):
                try:
                    frame = pd.read_csv(csv)
                except pd.errors.EmptyDataError:
                    continue
                except (pd.errors.ParserError, UnicodeDecodeError) as exc:
                    raise InvalidInputError(f"table {str(csv)!r} is not a readable CSV file: {exc}") from None
                stem = _slug(csv.stem, stems)
                caption = _caption(captions, csv.stem, name)
                entries.append((stem, frame, caption))
            for stem, frame, caption in entries:
                if frame.shape[1] == 0:
                    continue
                write_table(frame, table_dir / stem, caption=caption, label=f"tab:auditad-{slug}-{stem}",
                            float_format=float_format)
                rel = f"tables/{slug}/{stem}.tex"
                tables.append(rel)
                body.append(f"\\input{{\\AuditadDir {rel}}}")
            pdfs = sorted((bench / "figures").glob("*.pdf"))
            if pdfs:
                fig_dir.mkdir(parents=True)
            fig_stems: set = set()
            for pdf in pdfs:
                stem = _slug(pdf.stem, fig_stems)
                shutil.copyfile(pdf, fig_dir / f"{stem}.pdf")
                rel = f"figures/{slug}/{stem}.pdf"
                figures.append(rel)
                caption = _caption(captions, pdf.stem, name)
                body += [r"\begin{figure}[htbp]", r"  \centering",
                         f"  \\includegraphics[width=\\linewidth,height=0.42\\textheight,keepaspectratio]"
                         f"{{\\AuditadDir {rel}}}",
                         f"  \\caption{{{latex_escape(caption)}}}\\label{{fig:auditad-{slug}-{stem}}}",
                         r"\end{figure}"]
            body += [r"\clearpage", ""]
        intro = (f"This appendix reports the evaluation-protocol audit of {len(names)} "
                 f"benchmark{'s' * (len(names) != 1)}: {', '.join(latex_escape(n) for n in names)}.")
        lines += [intro, "", *body]
        write_text_atomic(tmp / "appendix.tex", "\n".join(lines).rstrip() + "\n")
        replace_dir_atomic(tmp, out)
    except BaseException:
        discard_output_dir(tmp)
        raise
    return AppendixResult(out / "appendix.tex", tuple(names), tuple(tables), tuple(figures))
