"""Tables for papers and CI pages: a DataFrame as booktabs LaTeX, a Markdown pipe table and CSV.

* [`latex_escape`][auditad.report.export.latex_escape] / [`md_escape`][auditad.report.export.md_escape] — text made safe
for LaTeX and Markdown;
* [`frame_to_latex`][auditad.report.export.frame_to_latex] /
[`frame_to_markdown`][auditad.report.export.frame_to_markdown] / [`write_table`][auditad.report.export.write_table] — a
table as
  booktabs LaTeX, a pipe table (no ``tabulate`` dependency) and CSV.

Re-exported by [`auditad.report.export`][auditad.report.export] (import the public names from there), which also
writes gate results (JUnit XML, Markdown) and the LaTeX appendix.
"""

from __future__ import annotations

import math
import numbers
import re
import unicodedata
from pathlib import Path
from typing import Callable, Sequence

from .._io import write_text_atomic
from ..errors import InvalidInputError
from .headers import LATEX_HEADERS
from .headers import header as header_label

__all__ = [
    "latex_escape",
    "md_escape",
    "md_table",
    "frame_to_latex",
    "latex_header",
    "frame_to_markdown",
    "csv_escape",
    "frame_to_csv",
    "write_table",
]


# --------------------------------------------------------------------------- CSV
_CSV_FORMULA = ("=", "+", "-", "@", "\t", "\r")
_CSV_NUMBER = re.compile(r"^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$")


def csv_escape(text):
    """A text cell made inert for spreadsheets: ``=cmd`` -> ``'=cmd`` (OWASP, "CSV Injection").

    A cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is read as a formula by
    Excel, LibreOffice and Google Sheets; a leading ``'`` makes it text. Numbers written as text
    (``-0.5``), a lone ``-`` and everything that is not a string are returned unchanged.

    References
    ----------
    OWASP Foundation, "CSV Injection", https://owasp.org/www-community/attacks/CSV_Injection.

    See Also
    --------
    frame_to_csv : a DataFrame as CSV with every text cell escaped.

    Examples
    --------
    >>> csv_escape("=cmd|' /C calc'!A0"), csv_escape("-0.5"), csv_escape("IForest"), csv_escape(0.5)
    ("'=cmd|' /C calc'!A0", '-0.5', 'IForest', 0.5)
    """
    if isinstance(text, str) and len(text) > 1 and text.startswith(_CSV_FORMULA) and not _CSV_NUMBER.match(text):
        return "'" + text
    return text


def frame_to_csv(frame, *, index: bool = False) -> str:
    """``frame.to_csv`` with every text cell (and column name) passed through `csv_escape`.

    References
    ----------
    OWASP Foundation, "CSV Injection", https://owasp.org/www-community/attacks/CSV_Injection.

    See Also
    --------
    write_table : CSV, Markdown and LaTeX of one table (its CSV is written by this function).

    Examples
    --------
    >>> import pandas as pd
    >>> print(frame_to_csv(pd.DataFrame({"method": ["=cmd", "LOF"], "auroc": [0.5, 0.7]})), end="")
    method,auroc
    '=cmd,0.5
    LOF,0.7
    """
    from pandas.api.types import is_numeric_dtype

    data = frame.copy()
    for col in data.columns:
        if not is_numeric_dtype(data[col].dtype):
            data[col] = data[col].map(csv_escape)
    data.columns = [csv_escape(c) for c in data.columns]
    if index and not is_numeric_dtype(data.index.dtype):
        data.index = data.index.map(csv_escape)
    return data.to_csv(index=index)


# --------------------------------------------------------------------------- Markdown
_MD_ESCAPED = re.compile(r"([\\`*_{}\[\]<>#|~!])")


def md_escape(text) -> str:
    """Backslash-escape Markdown punctuation (GFM) and flatten newlines, so a cell renders as plain text."""
    return _MD_ESCAPED.sub(r"\\\1", " ".join(str(text).split()))


def md_table(header: Sequence[str], rows: Sequence[Sequence[str]], align: Sequence[str]) -> list[str]:
    """Lines of a GFM pipe table; ``align`` holds ``"r"`` (right-aligned) or ``"l"`` per column; cells as given."""
    rule = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


# --------------------------------------------------------------------------- LaTeX
_LATEX_CHARS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    "\n": " ",
    "\r": " ",
    "\t": " ",
}
_UNICODE = {
    "\u00b1": r"$\pm$",
    "\u00d7": r"$\times$",
    "\u2212": r"$-$",
    "\u2013": "--",
    "\u2014": "---",
    "\u2026": r"\dots{}",
    "\u2264": r"$\leq$",
    "\u2265": r"$\geq$",
    "\u2260": r"$\neq$",
    "\u2248": r"$\approx$",
    "\u221e": r"$\infty$",
    "\u2192": r"$\rightarrow$",
    "\u00b0": r"$^{\circ}$",
    "\u00b5": r"$\mu$",
    "\u2018": "`",
    "\u2019": "'",
    "\u201c": "``",
    "\u201d": "''",
    "\u00a0": "~",
    "\u00b7": r"$\cdot$",
    "\u221a": r"$\surd$",
    "\u2208": r"$\in$",
    "\u03b5": r"$\varepsilon$",
    "\u00bd": r"$\frac{1}{2}$",
    "\u00bc": r"$\frac{1}{4}$",
    "\u00be": r"$\frac{3}{4}$",
    "\u2044": "/",
    "\u03d5": r"$\phi$",
    "\u00df": r"\ss{}",
    "\u00e6": r"\ae{}",
    "\u00c6": r"\AE{}",
    "\u00f8": r"\o{}",
    "\u00d8": r"\O{}",
    "\u0153": r"\oe{}",
    "\u0152": r"\OE{}",
    "\u0142": r"\l{}",
    "\u0141": r"\L{}",
    "\u00e5": r"\aa{}",
    "\u00c5": r"\AA{}",
}
_GREEK_CAPITALS = {"Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Upsilon", "Phi", "Psi", "Omega"}
_ACCENTS = {
    "\u0301": "'",
    "\u0300": "`",
    "\u0302": "^",
    "\u0308": '"',
    "\u0303": "~",
    "\u0304": "=",
    "\u0327": "c",
    "\u030c": "v",
    "\u030a": "r",
    "\u0306": "u",
    "\u030b": "H",
    "\u0328": "k",
}


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
    r"""Escape text for a LaTeX document compiled by pdflatex with the default encodings.

    The ten special characters ``\ & % $ # _ { } ~ ^`` are escaped, ``< > |`` become
    ``\textless{}``, ``\textgreater{}``, ``\textbar{}`` (which OT1 fonts would otherwise
    print as other glyphs), newlines become spaces, accented Latin letters become accent
    commands, Greek letters and common symbols math-mode commands; any other non-ASCII
    character is written as ``[U+hhhh]`` (its hexadecimal code point) rather than breaking the compilation.

    See Also
    --------
    - [`write_appendix`][auditad.report.export.write_appendix]: the LaTeX appendix.
    - [`write_junit`][auditad.report.export.write_junit],
      [`write_markdown_summary`][auditad.report.export.write_markdown_summary]: gate results for CI.
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: the gates.


    Examples
    --------
    >>> latex_escape("50% of a_b & <script>")
    '50\\% of a\\_b \\& \\textless{}script\\textgreater{}'
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
            raise InvalidInputError(
                f"float_format must be a format such as '{{:.3f}}', '%.3f', '.3f' or a callable, got {float_format!r}"
            ) from None
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
        headers = names + [_header_text(c) for c in frame.columns[len(names) :]]
    else:
        headers = [_header_text(c) for c in frame.columns]
    numeric = [
        pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]) for c in frame.columns
    ]
    return frame, headers, numeric


def frame_to_latex(
    frame,
    *,
    caption: str | None = None,
    label: str | None = None,
    float_format=None,
    index: bool = False,
    max_rows: int | None = 40,
    position: str = "htbp",
    human_headers: bool = False,
    width_pt: float | None = 345.0,
) -> str:
    r"""Render a DataFrame as a booktabs LaTeX table (``\toprule``, ``\midrule``, ``\bottomrule``).

    Parameters
    ----------
    frame : pandas.DataFrame
    caption : str, optional
        Plain text (escaped).  Without a caption the table has no number and ``label`` is not allowed.
    label : str, optional
        ``\label`` of the table, letters, digits and ``: . _ -`` only.
    float_format : str, callable or None
        None (default): the number format policy of `auditad._format`, column by column
        (statistics with 3 decimals, p-values with 2 significant digits, regret in pp, counts with
        thin spaces; ``< 1e-300`` below the floor).  Otherwise a number format: ``"{:.3f}"``, ``"%.3f"``, ``".3f"`` (numbers in exponent notation become
        \(m\times10^{e}\), a leading minus a real minus sign) or a callable returning text
        (escaped as text).  Integers are written in full; NaN/None as ``--``; infinities as
        \(\pm\infty\).
    index : bool
        Include the index as leading columns.
    max_rows : int or None
        Longer tables are split into several ``table`` floats of at most this many rows
        (caption "... (continued)"), because a float cannot break across pages; None never splits.
    position : str
        Float placement.
    human_headers : bool
        Column headers as the HTML report shows them (``$\rho_{\mathrm{inv}}$``, "mean AUROC")
        instead of the code names (``rho_inv``, ``mean_auc``) that the CSV keeps.
    width_pt : float or None
        Text width to fit, in points (345 pt: LaTeX's article class).  A table estimated wider is set in
        ``\footnotesize`` (8 pt) and, if still wider, split by columns into parts that each repeat the
        leading text columns (caption "... (part i of n)").  Nothing is ever scaled down: every table
        stays readable.  None: never split.

    Returns
    -------
    str
        One or more ``table`` environments.  Numeric columns are right-aligned, the rest left.
        Cells and headers are escaped with [`latex_escape`][auditad.report.export.latex_escape].

    See Also
    --------
    - [`write_appendix`][auditad.report.export.write_appendix]: the LaTeX appendix.
    - [`write_junit`][auditad.report.export.write_junit],
      [`write_markdown_summary`][auditad.report.export.write_markdown_summary]: gate results for CI.
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: the gates.


    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a_b": [0.5, None]})
    >>> print(frame_to_latex(frame, caption="50% & more"))  # doctest: +NORMALIZE_WHITESPACE
    \begin{table}[htbp]
      \centering
      \caption{50\% \& more}
      \begin{tabular}{@{}r@{}}
        \toprule
        a\_b \\
        \midrule
        0.500 \\
        -- \\
        \bottomrule
      \end{tabular}
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
    if float_format is None:
        cells = _policy_cells(data, "tex")
    else:
        cells = [[_latex_cell(v, number) for v in row] for row in data.itertuples(index=False, name=None)]
    header_texts = [header_label(h) if human_headers else h for h in headers]
    tex_headers = [latex_header(h) if human_headers else latex_escape(h) for h in headers]
    groups, small = _column_groups(header_texts, cells, numeric, width_pt)
    row_chunks = (
        [cells]
        if max_rows is None or len(cells) <= max_rows
        else [cells[i : i + max_rows] for i in range(0, len(cells), max_rows)]
    )
    out = []
    for g, cols in enumerate(groups):
        spec = "@{}" + "".join("r" if numeric[j] else "l" for j in cols) + "@{}"
        for i, rows in enumerate(row_chunks):
            lines = [f"\\begin{{table}}[{position}]" if position else r"\begin{table}", r"  \centering"]
            if small:
                lines.append(r"  \footnotesize")
            if caption is not None:
                text = latex_escape(caption)
                if len(groups) > 1:
                    text += f" (part {g + 1} of {len(groups)})"
                text += " (continued)" if i else ""
                first = label and i == 0 and g == 0
                lines.append(f"  \\caption{{{text}}}" + (f"\\label{{{label}}}" if first else ""))
            lines += [
                f"  \\begin{{tabular}}{{{spec}}}",
                r"    \toprule",
                "    " + " & ".join(tex_headers[j] for j in cols) + r" \\",
                r"    \midrule",
                *("    " + " & ".join(row[j] for j in cols) + r" \\" for row in rows),
                r"    \bottomrule",
                r"  \end{tabular}",
                r"\end{table}",
            ]
            out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


#: Estimated width of one character of a table cell, in points, at 10 pt and at 8 pt (Computer Modern).
_CHAR_PT = {False: 5.0, True: 4.4}
#: Space between two columns (2 x \tabcolsep), in points.
_COLSEP_PT = 12.0


def _column_groups(headers: list, cells: list, numeric: list, width_pt) -> tuple[list[list[int]], bool]:
    """Columns of each part of a table that fits ``width_pt``, and whether it is set in 8 pt.

    Widths are estimated from the longest text of each column (header or cell, LaTeX markup stripped).
    The leading text columns (the row's names) are repeated in every part.
    """
    n = len(headers)
    if width_pt is None:
        return [list(range(n))], False
    longest = [max([len(_visible(str(headers[j])))] + [len(_visible(row[j])) for row in cells]) for j in range(n)]

    def width(cols, small):
        return sum(longest[j] * _CHAR_PT[small] + _COLSEP_PT for j in cols)

    every = list(range(n))
    if width(every, False) <= width_pt:
        return [every], False
    if width(every, True) <= width_pt:
        return [every], True
    keys = []
    for j in range(n):
        if numeric[j] or len(keys) >= 3:
            break
        keys.append(j)
    if len(keys) == n:
        return [every], True
    groups, current = [], list(keys)
    for j in range(len(keys), n):
        if len(current) > len(keys) and width(current + [j], True) > width_pt:
            groups.append(current)
            current = list(keys)
        current.append(j)
    groups.append(current)
    return groups, True


def _visible(text: str) -> str:
    """The characters of a LaTeX cell that take room on the page (commands and braces dropped)."""
    text = re.sub(r"\\[A-Za-z]+", "x", text)
    return re.sub(r"[{}$^_\\]", "", text)


def latex_header(name) -> str:
    """The LaTeX header of a column named ``name``: the page header, with math where the page has symbols.

    Examples
    --------
    >>> print(latex_header("rho_inv"), "|", latex_header("mean_auc"))
    $\\rho_{\\mathrm{inv}}$ | mean AUROC
    """
    text = str(name)
    if text in LATEX_HEADERS:
        return LATEX_HEADERS[text]
    return latex_escape(header_label(text))


def _policy_cells(data, target: str) -> list[list[str]]:
    """Cells of ``data`` formatted by `auditad._format.format_frame` and escaped for ``target``."""
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
    (default) numbers follow `auditad._format` (NaN/None is ``–``); with a format, NaN/None is ``--``.

    See Also
    --------
    - [`write_appendix`][auditad.report.export.write_appendix]: the LaTeX appendix.
    - [`write_junit`][auditad.report.export.write_junit],
      [`write_markdown_summary`][auditad.report.export.write_markdown_summary]: gate results for CI.
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: the gates.


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
    return "\n".join(md_table([md_escape(h) for h in headers], rows, ["r" if n else "l" for n in numeric])) + "\n"


def write_table(
    frame,
    path_without_suffix,
    *,
    caption: str | None = None,
    label: str | None = None,
    float_format=None,
    human_headers: bool = False,
) -> list[Path]:
    """Write ``frame`` as ``<path>.csv`` (full precision), ``<path>.md`` and ``<path>.tex``.

    The suffixes are appended to ``path_without_suffix`` (so names with dots keep them);
    each file is written atomically.  ``caption``/``label`` go to the LaTeX table.

    Returns
    -------
    list of Path
        The three files: csv, md, tex.

    See Also
    --------
    - [`write_appendix`][auditad.report.export.write_appendix]: the LaTeX appendix.
    - [`write_junit`][auditad.report.export.write_junit],
      [`write_markdown_summary`][auditad.report.export.write_markdown_summary]: gate results for CI.
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: the gates.
    """
    base = str(path_without_suffix)
    tex = frame_to_latex(frame, caption=caption, label=label, float_format=float_format, human_headers=human_headers)
    md = frame_to_markdown(frame, float_format=float_format)
    return [
        write_text_atomic(base + ".csv", frame_to_csv(frame)),
        write_text_atomic(base + ".md", md),
        write_text_atomic(base + ".tex", tex),
    ]
