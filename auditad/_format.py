r"""One number-format policy for every output of auditad: HTML, Markdown, LaTeX and the command line.

Numbers are stored at full precision and rounded only here, by the kind of
quantity they are:

============  ==============================================  =====================
kind          rule                                            examples
============  ==============================================  =====================
``stat``      statistics on [0, 1] or [-1, 1] (AUROC, AP,     ``0.983``, ``-0.650``
              F1, L_k, chance, ρ rates, Spearman): 3 decimals
``p``         p-values: 2 significant digits; below 1e-300    ``0.018``, ``0.50``,
              (or 0, the floor of double precision) shown     ``1.7e-04``,
              as ``< 1e-300``; never 0                        ``< 1e-300``
``pp``        regret (an AUC difference) in percentage        ``0.73 pp``
              points, 2 decimals
``count``     integers with a narrow no-break space every     ``12 345``
              three digits (``\,`` in LaTeX)
``percent``   shares as percentages, 1 decimal                ``35.7%``
``real``      any other real (variances, ratios, kurtosis):   ``1.234``, ``2.5e-06``
              3 significant digits
============  ==============================================  =====================

Missing values (None, NaN, ±inf) are ``–`` (``--`` in LaTeX, which typesets as
an en dash). Within one table column one rule holds for every cell
(`format_column`): a p-value or ``real`` column with any value that
needs scientific notation is written in scientific notation throughout, so
``1.7e-04`` never stands next to ``0.018``.
"""

from __future__ import annotations

import math
import re
from typing import Iterable, Sequence

__all__ = [
    "FrameDisplay",
    "scalar_frame",
    "DASH",
    "TARGETS",
    "KINDS",
    "P_FLOOR",
    "missing",
    "stat",
    "pvalue",
    "pp",
    "count",
    "percent",
    "real",
    "number",
    "variance",
    "format_value",
    "column_kind",
    "format_column",
    "bound_cell",
    "format_frame",
    "jinja_filters",
    "name_list",
    "html_table",
    "html_block",
    "svg_bars",
    "svg_histogram",
    "text_table",
]

DASH = "\u2013"
#: Output targets: "html" (also Markdown and plain text) and "tex".
TARGETS = ("html", "md", "tex", "text")
KINDS = ("stat", "p", "pp", "count", "percent", "real", "variance", "text")
#: Display floor of a p-value: below it the page says "< 1e-16" (double precision cannot tell smaller p-values
#: from 0 in 1 - p, and no reading changes below it); the exact value stays in the JSON/CSV (log10 where kept).
P_FLOOR = 1e-16
_NNBSP = "\u202f"  # narrow no-break space: the SI thousands separator


def _check_target(target: str) -> None:
    if target not in TARGETS:
        from .errors import InvalidInputError

        raise InvalidInputError(f"target must be one of {list(TARGETS)}, got {target!r}")


def _as_float(value):
    """``float`` of a number (numpy scalars included); None for a missing or non-finite one."""
    if value is None or isinstance(value, bool):
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def missing(target: str = "html") -> str:
    """The mark of a missing value: ``–`` (``--`` in LaTeX)."""
    _check_target(target)
    return "--" if target == "tex" else DASH


def stat(value, *, target: str = "html", digits: int = 3) -> str:
    """A statistic on [0, 1] (or [-1, 1]): fixed ``digits`` decimals (``0.983``)."""
    _check_target(target)
    x = _as_float(value)
    if x is None:
        return missing(target)
    text = f"{x:.{digits}f}"
    return "0." + "0" * digits if text == "-0." + "0" * digits else text


def _sig_fixed(x: float, sig: int) -> str:
    decimals = max(0, sig - 1 - math.floor(math.log10(abs(x))))
    return f"{x:.{decimals}f}"


def _sci(x: float, sig: int, target: str) -> str:
    text = f"{x:.{sig - 1}e}"
    if target == "tex":
        mant, exp = text.split("e")
        return f"${mant} \\times 10^{{{int(exp)}}}$"
    return text


def pvalue(p, *, target: str = "html", scientific: bool | None = None) -> str:
    """A p-value with 2 significant digits; ``< 1e-16`` below the floor (0 included); never ``0``.

    ``scientific=None`` chooses per value (fixed from 0.001 up); `format_column`
    passes one choice for a whole column.
    """
    _check_target(target)
    x = _as_float(p)
    if x is None:
        return missing(target)
    if x < P_FLOOR:
        return "$< 10^{-16}$" if target == "tex" else "< 1e-16"
    if scientific is None:
        scientific = x < 1e-3
    return _sci(x, 2, target) if scientific else _sig_fixed(x, 2)


def pp(value, *, target: str = "html", unit: bool = True) -> str:
    """An AUC difference (e.g. regret) in percentage points, 2 decimals: ``0.0073`` -> ``0.73 pp``."""
    _check_target(target)
    x = _as_float(value)
    if x is None:
        return missing(target)
    text = f"{100 * x:.2f}"
    if text == "-0.00":
        text = "0.00"
    return text + ((r"\,pp" if target == "tex" else f"{_NNBSP}pp") if unit else "")


def count(value, *, target: str = "html") -> str:
    """An integer with a narrow no-break space between thousands (``\\,`` in LaTeX)."""
    _check_target(target)
    x = _as_float(value)
    if x is None:
        return missing(target)
    if x != int(x):
        return real(x, target=target)
    text = f"{int(x):,}"
    return text.replace(",", r"\," if target == "tex" else _NNBSP)


def name_list(names: Sequence, *, limit: int = 10) -> str:
    """``"a, b, c"``; beyond ``limit`` names the first ``limit`` and ``"… and N more"`` (a reading stays short at any K).

    >>> name_list(["a", "b", "c"])
    'a, b, c'
    >>> name_list([str(i) for i in range(12)], limit=3)
    '0, 1, 2 and 9 more'
    """
    names = [str(n) for n in names]
    if len(names) <= limit:
        return ", ".join(names)
    return f"{', '.join(names[:limit])} and {count(len(names) - limit)} more"


def percent(value, *, target: str = "html", digits: int = 1) -> str:
    """A share as a percentage: ``0.357`` -> ``35.7%`` (``35.7\\%`` in LaTeX)."""
    _check_target(target)
    x = _as_float(value)
    if x is None:
        return missing(target)
    return f"{100 * x:.{digits}f}" + (r"\%" if target == "tex" else "%")


def real(value, *, target: str = "html", sig: int = 3, scientific: bool | None = None) -> str:
    """Any other real: ``sig`` significant digits, scientific below 1e-3 or from 1e5 (or as told)."""
    _check_target(target)
    x = _as_float(value)
    if x is None:
        return missing(target)
    if x == 0:
        return "0"
    if scientific is None:
        scientific = not (1e-3 <= abs(x) < 1e5)
    if scientific:
        return _sci(x, sig, target)
    if abs(x) >= 10 ** (sig - 1):
        return count(round(x), target=target)
    return _sig_fixed(x, sig)


def number(value, digits: int = 3, *, target: str = "html") -> str:
    """Drop-in display of any value: bools yes/no, ints as counts, floats with ``digits`` decimals.

    Floats too small for ``digits`` decimals (``0 < |x| < 10**-digits``) and
    from 1e5 up go to 3-significant-digit scientific notation; strings pass
    through; missing values are ``–``.
    """
    if value is None:
        return missing(target)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        try:
            value = value.item()
        except (TypeError, ValueError):
            pass
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return count(value, target=target)
    if isinstance(value, float):
        if not math.isfinite(value):
            return missing(target)
        if (value != 0 and abs(value) < 10 ** (-digits)) or abs(value) >= 1e5:
            return _sci(value, 3, target)
        return stat(value, digits=digits, target=target)
    return str(value)


def variance(value, *, target: str = "html") -> str:
    """A variance of AUROCs (σ²_AUC): always fixed with 4 decimals, so a column reads one way (``0.0031``)."""
    _check_target(target)
    x = _as_float(value)
    if x is None:
        return missing(target)
    return f"{x:.4f}"


def format_value(value, kind: str, *, target: str = "html") -> str:
    """Format one value as the given ``kind`` (see the module docstring)."""
    _check_target(target)
    if kind == "stat":
        return stat(value, target=target)
    if kind == "p":
        return pvalue(value, target=target)
    if kind == "pp":
        return pp(value, target=target)
    if kind == "count":
        return count(value, target=target)
    if kind == "percent":
        return percent(value, target=target)
    if kind == "real":
        return real(value, target=target)
    if kind == "variance":
        return variance(value, target=target)
    if kind == "text":
        if _is_int(value):
            return str(value)
        return number(value, target=target)
    from .errors import InvalidInputError

    raise InvalidInputError(f"kind must be one of {list(KINDS)}, got {kind!r}")


_LABEL_NAME = re.compile(
    r"^(class|label|task|candidate|representation|detector|metric|region|group|split|"
    r"estimator|selector|family|embedding|scoring|pooling|pool|column|seed|role)$",
    re.I,
)
_P_NAME = re.compile(r"(^p$|^p[ _]|p_value|pvalue|^p\(|_p$)", re.I)
_COUNT_NAME = re.compile(r"(^n$|^n_|^k$|^count|_count$|^runs$|^repeats$|^samples$|^classes$|^size$)", re.I)
_PP_NAME = re.compile(r"regret", re.I)
_REAL_NAME = re.compile(r"(sigma2|var|std|kurtosis|ratio_to_chance|mu_delta|inlier_mean|elapsed|seconds|lid)", re.I)


def column_kind(name: str, values: Iterable = ()) -> str:
    """The kind of a table column, from its name and, when the name does not say, from its values.

    p-value names (``p``, ``p_value``, ``p pixels``) -> ``p``; ``regret`` ->
    ``pp``; ``n``, ``n_pos``, ``k``, ``count`` -> ``count``; variances, ratios,
    kurtosis -> ``real``; other numeric columns -> ``stat`` when every value
    lies in [-1, 1], else ``real``; non-numeric -> ``text``.
    """
    name = str(name)
    vals = list(values)
    numeric = [v for v in vals if v is not None and not isinstance(v, (str, bytes, bool)) and _as_float(v) is not None]
    non_numeric = [
        v
        for v in vals
        if v is not None and (isinstance(v, (str, bytes, bool)) or (_as_float(v) is None and not _is_nan(v)))
    ]
    if non_numeric or _LABEL_NAME.search(name):
        return "text"
    if _P_NAME.search(name):
        return "p"
    if _PP_NAME.search(name):
        return "pp"
    if _COUNT_NAME.search(name) and all(float(v) == int(float(v)) for v in numeric):
        return "count"
    if re.search(r"sigma2", name, re.I):
        return "variance"
    if _REAL_NAME.search(name):
        return "real"
    if numeric and all(_is_int(v) for v in vals if v is not None and not _is_nan(v)):
        return "count"
    if all(-1.0 <= float(v) <= 1.0 for v in numeric):
        return "stat"
    return "real"


def _is_nan(v) -> bool:
    try:
        return math.isnan(float(v))
    except (TypeError, ValueError):
        return False


def _is_int(v) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return True
    try:
        import numpy as np

        return isinstance(v, np.integer)
    except ImportError:  # pragma: no cover
        return False


def format_column(values: Sequence, kind: str | None = None, *, name: str = "", target: str = "html") -> list[str]:
    """Format a whole column with one rule (the kind from `column_kind` unless given).

    For ``p`` and ``real`` columns, scientific notation is used for every cell
    as soon as one finite, non-zero value needs it (p < 1e-3; a real outside
    [1e-3, 1e5)), otherwise for none.
    """
    _check_target(target)
    values = list(values)
    kind = kind or column_kind(name, values)
    finite = [x for x in (_as_float(v) for v in values) if x is not None]
    if kind == "p":
        sci = any(P_FLOOR <= x < 1e-3 for x in finite)
        return [pvalue(v, target=target, scientific=sci) for v in values]
    if kind == "real":
        sci = any(x != 0 and not (1e-3 <= abs(x) < 1e5) for x in finite)
        return [real(v, target=target, scientific=sci) for v in values]
    return [format_value(v, kind, target=target) for v in values]


def bound_cell(text: str, value, *, target: str = "html") -> str:
    """The display of a p-value that is an upper bound: ``≤ 3.1e-05``; ``< 1e-16`` at or below the floor."""
    _check_target(target)
    x = _as_float(value)
    if x is None:
        return text
    if x <= P_FLOOR:
        return pvalue(0.0, target=target)
    return (r"$\le$ " if target == "tex" else "\u2264 ") + text


def format_frame(
    frame, *, target: str = "html", kinds: dict | None = None, bounds: dict | None = None
) -> tuple[list[str], list[str], list[list[str]]]:
    """Format a pandas DataFrame column by column.

    ``bounds`` maps a column name to one bool per row: True marks a value that is
    an upper bound (shown as ``≤ value``, see `bound_cell`).

    Returns
    -------
    columns : list of str
    kinds : list of str
        The kind of each column (``text`` for non-numeric ones).
    rows : list of list of str
    """
    kinds = kinds or {}
    cols = [str(c) for c in frame.columns]
    out_kinds, out_cols = [], []
    for c, name in zip(frame.columns, cols):
        values = [v.item() if hasattr(v, "item") else v for v in frame[c].tolist()]
        kind = kinds.get(name) or column_kind(name, values)
        out_kinds.append(kind)
        cells = format_column(values, kind, name=name, target=target)
        if bounds and name in bounds:
            cells = [bound_cell(t, v, target=target) if b else t for t, v, b in zip(cells, values, bounds[name])]
        out_cols.append(cells)
    rows = [list(r) for r in zip(*out_cols)] if out_cols else []
    return cols, out_kinds, rows


def jinja_filters() -> dict:
    """The filters of the report templates: ``num`` (as `number`), ``stat``, ``pval``, ``pp``, ``count``, ``pct``."""
    return {
        "num": number,
        "stat": stat,
        "pval": pvalue,
        "pp": pp,
        "count": count,
        "pct": lambda v, digits=1: percent(v, digits=digits),
    }


# --------------------------------------------------------------------------- notebook display (_repr_html_)
#: Inline style of the notebook displays: small, readable on light and dark themes, no external resource.
_REPR_STYLE = "font-family: system-ui, sans-serif; font-size: 13px; line-height: 1.35; max-width: 60em"
_NUMERIC_KINDS = ("stat", "p", "pp", "count", "percent", "real", "variance")


def _plain(value):
    return value.item() if hasattr(value, "item") and not isinstance(value, (str, bytes)) else value


def html_table(rows, *, columns=None, caption=None, kinds: dict | None = None, max_rows: int = 40):
    """A compact HTML table for a notebook display: every cell formatted by its column's kind and escaped.

    Parameters
    ----------
    rows : sequence of dict or of sequences
        The rows; dicts give the column names unless ``columns`` does.
    columns : sequence of str, optional
        Column names (required for sequence rows).
    caption : str, optional
    kinds : dict, optional
        ``{column: kind}`` overriding `column_kind`.
    max_rows : int
        Rows shown; a last line says how many were left out.

    Returns
    -------
    markupsafe.Markup
        The ``<table>``; labels such as a class named ``<script>`` appear as text.

    Examples
    --------
    >>> table = str(html_table([{"class": "<b>", "auroc": 0.51234}]))
    >>> "&lt;b&gt;" in table and "<b>" not in table, "0.512" in table
    (True, True)
    """
    from markupsafe import Markup

    rows = list(rows)
    if columns is None:
        columns = list(rows[0]) if rows and isinstance(rows[0], dict) else []
    columns = [str(c) for c in columns]
    body = [
        [_plain(r.get(c)) for c in columns] if isinstance(r, dict) else [_plain(v) for v in r] for r in rows[:max_rows]
    ]
    kinds = dict(kinds or {})
    col_values = [[row[j] for row in body] for j in range(len(columns))]
    col_kinds = [kinds.get(c) or column_kind(c, vals) for c, vals in zip(columns, col_values)]
    cells = [format_column(vals, kind, name=c) for c, vals, kind in zip(columns, col_values, col_kinds)]
    cell = Markup('<td style="padding: 0.1em 0.6em; text-align: {}">{}</td>')
    head = Markup("").join(
        Markup('<th style="padding: 0.1em 0.6em; text-align: {}; border-bottom: 1px solid">{}</th>').format(
            "right" if k in _NUMERIC_KINDS else "left", c
        )
        for c, k in zip(columns, col_kinds)
    )
    lines = [Markup("<tr>{}</tr>").format(head)]
    for i in range(len(body)):
        lines.append(
            Markup("<tr>{}</tr>").format(
                Markup("").join(
                    cell.format("right" if k in _NUMERIC_KINDS else "left", cells[j][i])
                    for j, k in enumerate(col_kinds)
                )
            )
        )
    if len(rows) > max_rows:
        lines.append(
            Markup('<tr><td colspan="{}" style="padding: 0.1em 0.6em">… {} more rows</td></tr>').format(
                len(columns), len(rows) - max_rows
            )
        )
    cap = (
        Markup('<caption style="text-align: left; font-weight: bold">{}</caption>').format(caption)
        if caption
        else Markup("")
    )
    return Markup('<table style="border-collapse: collapse; margin: 0.3em 0">{}{}</table>').format(
        cap, Markup("").join(lines)
    )


def html_block(title, *parts, note=None):
    """The notebook display of one result: a bold title, its parts (tables, figures) and an optional note.

    Parameters
    ----------
    title : str
        Escaped.
    *parts : markupsafe.Markup
        From `html_table`, `svg_bars`, `svg_histogram` (text is escaped).
    note : str, optional
        A closing sentence (escaped).

    Returns
    -------
    str
        What ``_repr_html_`` returns.
    """
    from markupsafe import Markup

    body = Markup("").join(p if isinstance(p, Markup) else Markup("<p>{}</p>").format(p) for p in parts if p)
    foot = Markup('<p style="margin: 0.3em 0; opacity: 0.75">{}</p>').format(note) if note else Markup("")
    return str(
        Markup(
            '<div class="auditad-result" style="{}"><div style="font-weight: bold; margin-bottom: 0.2em">'
            "{}</div>{}{}</div>"
        ).format(_REPR_STYLE, title, body, foot)
    )


def _svg_number(x: float) -> str:
    return f"{x:.1f}"


def svg_bars(labels, values, *, title: str, reference=None, vmax=None, max_bars: int = 25, width: int = 360):
    """Horizontal bars as inline SVG (one per label, the value written at its end), for a notebook display.

    Parameters
    ----------
    labels : sequence
        Bar labels (escaped).
    values : sequence of float
        Bar lengths; a missing value draws no bar and reads "–".
    title : str
        The figure's accessible name (``<title>``).
    reference : float, optional
        A dashed vertical line (e.g. a chance level).
    vmax : float, optional
        The value of a full-width bar (default: the largest value, at least ``reference``).
    max_bars : int
        Bars drawn; the rest are left out (the table lists them all).

    Returns
    -------
    markupsafe.Markup
    """
    from markupsafe import Markup

    labels = [str(_plain(v)) for v in labels][:max_bars]
    vals = [_as_float(v) for v in values][:max_bars]
    finite = [v for v in vals if v is not None] + ([float(reference)] if reference is not None else [])
    top = float(vmax) if vmax is not None else max([abs(v) for v in finite] + [1e-12])
    left, bar_h, right = 90, 14, 50
    inner = width - left - right
    height = bar_h * len(labels) + 8
    parts = []
    for i, (lab, v) in enumerate(zip(labels, vals)):
        y = 4 + i * bar_h
        short = lab if len(lab) <= 14 else lab[:13] + "…"
        parts.append(
            Markup('<text x="{}" y="{}" text-anchor="end" font-size="11">{}</text>').format(
                left - 4, _svg_number(y + bar_h - 3), short
            )
        )
        w = 0.0 if v is None or top <= 0 else max(0.0, min(1.0, v / top)) * inner
        parts.append(
            Markup('<rect x="{}" y="{}" width="{}" height="{}" fill="#4c72b0"><title>{}: {}</title></rect>').format(
                left, _svg_number(y + 1), _svg_number(w), bar_h - 3, lab, stat(v)
            )
        )
        parts.append(
            Markup('<text x="{}" y="{}" font-size="11">{}</text>').format(
                _svg_number(left + w + 3), _svg_number(y + bar_h - 3), stat(v)
            )
        )
    if reference is not None and top > 0:
        x = left + min(1.0, float(reference) / top) * inner
        parts.append(
            Markup('<line x1="{0}" x2="{0}" y1="0" y2="{1}" stroke="#c44e52" stroke-dasharray="3,2"/>').format(
                _svg_number(x), height
            )
        )
    return Markup(
        '<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{}" height="{}" viewBox="0 0 {} {}">'
        "<title>{}</title>{}</svg>"
    ).format(width, height, width, height, title, Markup("").join(parts))


def svg_histogram(edges, heights, *, title: str, marker=None, width: int = 360, height: int = 110):
    """A histogram as inline SVG (bars over ``edges``), with an optional vertical marker (an observed value).

    Parameters
    ----------
    edges : sequence of float
        Bin edges (one more than ``heights``).
    heights : sequence of float
        Bar heights (probability mass per bin).
    title : str
        The figure's accessible name (escaped).
    marker : float, optional
        Drawn as a red line, clipped to the axis.

    Returns
    -------
    markupsafe.Markup
    """
    from markupsafe import Markup

    edges = [float(e) for e in edges]
    heights = [_as_float(h) or 0.0 for h in heights]
    if len(edges) < 2 or not heights:
        return Markup("")
    lo, hi = edges[0], edges[-1]
    obs = _as_float(marker)
    if obs is not None:
        lo, hi = min(lo, obs), max(hi, obs)
    span = (hi - lo) or 1.0
    top = max(heights) or 1.0
    pad, axis = 6, 16
    plot_w, plot_h = width - 2 * pad, height - axis - pad

    def x(v):
        return pad + (v - lo) / span * plot_w

    bars = [
        Markup('<rect x="{}" y="{}" width="{}" height="{}" fill="#8c8c8c"/>').format(
            _svg_number(x(a)),
            _svg_number(pad + plot_h * (1 - h / top)),
            _svg_number(max(x(b) - x(a), 0.5)),
            _svg_number(plot_h * h / top),
        )
        for a, b, h in zip(edges[:-1], edges[1:], heights)
    ]
    ticks = [
        Markup('<text x="{}" y="{}" font-size="10" text-anchor="{}">{}</text>').format(
            _svg_number(x(v)), height - 3, anchor, number(v)
        )
        for v, anchor in ((lo, "start"), (hi, "end"))
    ]
    if obs is not None:
        bars.append(
            Markup(
                '<line x1="{0}" x2="{0}" y1="{1}" y2="{2}" stroke="#c44e52" stroke-width="2">'
                "<title>observed {3}</title></line>"
            ).format(_svg_number(x(obs)), pad, pad + plot_h, number(obs))
        )
    return Markup(
        '<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{}" height="{}" viewBox="0 0 {} {}">'
        "<title>{}</title>{}{}</svg>"
    ).format(width, height, width, height, title, Markup("").join(bars), Markup("").join(ticks))


# --------------------------------------------------------------------------- plain-text tables (command line)
def text_table(rows, *, header=None, align: str = "l", sep: str = "  ", widths=None, indent: str = "") -> str:
    """Rows of cells as a fixed-width plain-text table: one line per row, trailing spaces removed.

    Parameters
    ----------
    rows : iterable of sequences
        The cells (converted with ``str``), already formatted.
    header : sequence, optional
        A first row.
    align : str
        One letter per column, ``"l"`` (left) or ``"r"`` (right); a shorter string repeats its last letter.
    sep : str
        Between two columns.
    widths : sequence of int, optional
        Smallest width of each column (a column is as wide as its widest cell).
    indent : str
        Before every line.

    Returns
    -------
    str

    See Also
    --------
    - [`format_column`][auditad._format.format_column]: one rule per column for the numbers in the cells.

    Examples
    --------
    >>> print(text_table([["knn", "0.912"], ["iforest", "0.5"]], header=["detector", "auroc"], align="lr"))
    detector  auroc
    knn       0.912
    iforest     0.5
    """
    table = ([list(map(str, header))] if header is not None else []) + [list(map(str, r)) for r in rows]
    if not table:
        return ""
    n = max(len(r) for r in table)
    spec = (align + align[-1] * n)[:n]
    width = [
        max([len(r[i]) for r in table if i < len(r)] + [int(widths[i]) if widths and i < len(widths) else 0])
        for i in range(n)
    ]
    return "\n".join(
        (indent + sep.join(c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(r, width, spec))).rstrip()
        for r in table
    )


def scalar_frame(record: dict):
    """A one-row DataFrame of the scalar (number, string, bool, None) values of a flat ``to_dict`` record.

    Examples
    --------
    >>> scalar_frame({"auroc": 0.9, "name": "far", "items": [1, 2]}).columns.tolist()
    ['auroc', 'name']
    """
    import pandas as pd

    row = {k: v for k, v in record.items() if v is None or isinstance(v, (int, float, str, bool))}
    return pd.DataFrame([row])


class FrameDisplay:
    """Mixin of a result class: the notebook display (``_repr_html_``) of its ``to_frame()`` table.

    For results without a display of their own; labels are escaped by `html_table`.

    Examples
    --------
    >>> import pandas as pd
    >>> class R(FrameDisplay):
    ...     def to_frame(self):
    ...         return pd.DataFrame({"class": ["<b>"], "auroc": [0.5]})
    >>> html = R()._repr_html_()
    >>> "&lt;b&gt;" in html and "<table" in html
    True
    """

    def _repr_html_(self) -> str:
        """Notebook display: the class name and the ``to_frame()`` rows (at most 40)."""
        frame = self.to_frame()
        table = html_table(
            [tuple(row) for row in frame.itertuples(index=False)], columns=[str(c) for c in frame.columns]
        )
        return html_block(type(self).__name__, table)
