"""One number-format policy for every output of auditad: HTML, Markdown, LaTeX and the command line.

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
              three digits (``\\,`` in LaTeX)
``percent``   shares as percentages, 1 decimal                ``35.7%``
``real``      any other real (variances, ratios, kurtosis):   ``1.234``, ``2.5e-06``
              3 significant digits
============  ==============================================  =====================

Missing values (None, NaN, ±inf) are ``–`` (``--`` in LaTeX, which typesets as
an en dash). Within one table column one rule holds for every cell
(:func:`format_column`): a p-value or ``real`` column with any value that
needs scientific notation is written in scientific notation throughout, so
``1.7e-04`` never stands next to ``0.018``.
"""

from __future__ import annotations

import math
import re
from typing import Iterable, Sequence

__all__ = ["DASH", "TARGETS", "KINDS", "P_FLOOR", "missing", "stat", "pvalue", "pp", "count", "percent", "real",
           "number", "format_value", "column_kind", "format_column", "bound_cell", "format_frame", "jinja_filters",
           "name_list"]

DASH = "\u2013"
#: Output targets: "html" (also Markdown and plain text) and "tex".
TARGETS = ("html", "md", "tex", "text")
KINDS = ("stat", "p", "pp", "count", "percent", "real", "text")
#: p-values below this are shown as "< 1e-300" (0 means "below the smallest double", not "impossible").
P_FLOOR = 1e-300
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
    """A p-value with 2 significant digits; ``< 1e-300`` below the floor (0 included); never ``0``.

    ``scientific=None`` chooses per value (fixed from 0.001 up); :func:`format_column`
    passes one choice for a whole column.
    """
    _check_target(target)
    x = _as_float(p)
    if x is None:
        return missing(target)
    if x < P_FLOOR:
        return "$< 10^{-300}$" if target == "tex" else "< 1e-300"
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
    if kind == "text":
        if _is_int(value):
            return str(value)
        return number(value, target=target)
    from .errors import InvalidInputError

    raise InvalidInputError(f"kind must be one of {list(KINDS)}, got {kind!r}")


_LABEL_NAME = re.compile(r"^(class|label|task|candidate|representation|detector|metric|region|group|split|"
                         r"estimator|selector|family|embedding|scoring|pooling|pool|column|seed|role)$", re.I)
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
    numeric = [v for v in vals if v is not None and not isinstance(v, (str, bytes, bool))
               and _as_float(v) is not None]
    non_numeric = [v for v in vals if v is not None and (isinstance(v, (str, bytes, bool)) or
                                                         (_as_float(v) is None and not _is_nan(v)))]
    if non_numeric or _LABEL_NAME.search(name):
        return "text"
    if _P_NAME.search(name):
        return "p"
    if _PP_NAME.search(name):
        return "pp"
    if _COUNT_NAME.search(name) and all(float(v) == int(float(v)) for v in numeric):
        return "count"
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
    """Format a whole column with one rule (the kind from :func:`column_kind` unless given).

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
    """The display of a p-value that is an upper bound: ``≤ 3.1e-05``; ``< 1e-300`` at or below the floor."""
    _check_target(target)
    x = _as_float(value)
    if x is None:
        return text
    if x <= P_FLOOR:
        return pvalue(0.0, target=target)
    return (r"$\le$ " if target == "tex" else "\u2264 ") + text


def format_frame(frame, *, target: str = "html", kinds: dict | None = None,
                 bounds: dict | None = None) -> tuple[list[str], list[str], list[list[str]]]:
    """Format a pandas DataFrame column by column.

    ``bounds`` maps a column name to one bool per row: True marks a value that is
    an upper bound (shown as ``≤ value``, see :func:`bound_cell`).

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
    """The filters of the report templates: ``num`` (as :func:`number`), ``stat``, ``pval``, ``pp``, ``count``, ``pct``."""
    return {"num": number, "stat": stat, "pval": pvalue, "pp": pp, "count": count,
            "pct": lambda v, digits=1: percent(v, digits=digits)}
