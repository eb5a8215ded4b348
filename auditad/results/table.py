"""Reading and checking per-class AUROC tables for [`auditad.results`][auditad.results] (long and wide layouts).

Every defect of a table is an [`InvalidInputError`][auditad.errors.InvalidInputError] that
names the column and the 1-based data row(s).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import InvalidInputError

__all__ = ["KEY_COLUMNS", "METHOD_COLUMNS", "read_results_table", "to_long", "check_table"]

#: Columns that describe a row rather than name a method (the remaining columns of a wide table are methods).
KEY_COLUMNS = ("benchmark", "representation", "class", "n_pos", "n_neg", "epsilon", "std")
METHOD_COLUMNS = ("method", "detector")


def read_results_table(path):
    """Read a results table from CSV (``.csv``, ``.tsv``, ``.txt``) or Parquet (``.parquet``, ``.pq``).

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    InvalidInputError
        A missing, empty or unreadable file, a device or FIFO, a file larger than
        ``MAX_TABLE_BYTES``, an unsupported suffix, an empty column name or two
        columns of one name.

    See Also
    --------
    - [`auditad.results.audit_results`][auditad.results.audit_results]: audits the frame read here.
    """
    import pandas as pd

    path = Path(path)
    if not path.exists():
        raise InvalidInputError(f"table file {str(path)!r} does not exist")
    if path.is_dir():
        raise InvalidInputError(f"table path {str(path)!r} is a directory, expected a CSV or Parquet file")
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".tsv", ".txt", ".parquet", ".pq"):
        raise InvalidInputError(
            f"table: unsupported file type {path.suffix!r} for {str(path)!r} (use .csv or .parquet)"
        )
    from .._io import check_regular_input

    if check_regular_input(path, what="table file", max_bytes=MAX_TABLE_BYTES).st_size == 0:  # no FIFO, no device
        raise InvalidInputError(f"table file {str(path)!r} is empty")
    try:
        if suffix in (".parquet", ".pq"):
            frame = _read_parquet(path)
            header = [str(c) for c in frame.columns]
        else:
            sep = "\t" if suffix == ".tsv" else ","
            frame = pd.read_csv(path, sep=sep, skipinitialspace=True)
            header = _csv_header(path, sep)  # as written: pandas renames duplicates ('m.1') and blanks ('Unnamed: 1')
    except pd.errors.EmptyDataError:
        raise InvalidInputError(f"table file {str(path)!r} is empty") from None
    except (ValueError, OSError, pd.errors.ParserError) as exc:
        raise InvalidInputError(f"table file {str(path)!r} could not be read: {exc}") from None
    _check_header(header, path)
    return frame


#: Largest results table read (checked before reading).
MAX_TABLE_BYTES = 512 * 1024 * 1024


def _read_parquet(path: Path):
    """A Parquet file as a DataFrame; whatever a damaged file makes pyarrow or pandas raise is a named error."""
    import pandas as pd

    try:
        frame = pd.read_parquet(path)
        for j in range(frame.shape[1]):  # pyarrow-backed text is decoded lazily: decode (and fail) here
            if not pd.api.types.is_numeric_dtype(frame.dtypes.iloc[j]):
                frame.iloc[:, j].to_numpy()
    except ImportError:
        from ..inputfiles import install_hint

        raise InvalidInputError(
            f"reading Parquet needs pyarrow; install it with {install_hint('pyarrow', 'parquet')}"
        ) from None
    except Exception as exc:  # noqa: BLE001  (ArrowInvalid, ArrowException, KeyError/TypeError of damaged metadata)
        raise InvalidInputError(
            f"table file {str(path)!r} could not be read as Parquet: {type(exc).__name__}: "
            f"{' '.join(str(exc).split())[:200]}"
        ) from None
    return frame


def _csv_header(path: Path, sep: str) -> list | None:
    """The first row of a CSV/TSV as written (None when the csv module cannot read it; pandas did)."""
    import csv

    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            return next(csv.reader(fh, delimiter=sep, skipinitialspace=True), [])
    except (csv.Error, UnicodeDecodeError, OSError):
        return None


def _check_header(header, path: Path) -> None:
    """Refuse an empty column name or two columns of one name: each would silently become a method."""
    if header is None:
        return
    seen: dict[str, int] = {}
    for i, raw in enumerate(header, start=1):
        name = str(raw).strip()
        if not name:
            raise InvalidInputError(
                f"table file {str(path)!r}: column {i} has an empty header; name every column "
                "(a method column is named after its method)"
            )
        if name in seen:
            raise InvalidInputError(
                f"table file {str(path)!r} has two columns named {name!r} (columns {seen[name]} "
                f"and {i}); give each method its own column name"
            )
        seen[name] = i


def _rows(mask) -> str:
    """1-based data-row numbers of a boolean mask, shortened."""
    idx = [int(i) + 1 for i in np.flatnonzero(np.asarray(mask))]
    shown = ", ".join(map(str, idx[:10]))
    return shown + (f", ... ({len(idx)} rows)" if len(idx) > 10 else "")


def _normalise_columns(frame):
    cols = {}
    for c in frame.columns:
        key = str(c).strip()
        low = key.lower()
        name = low if low in KEY_COLUMNS + METHOD_COLUMNS + ("auroc",) else key
        if name in cols.values():
            raise InvalidInputError(
                f"frame has two columns named {name!r} (column names are matched without "
                "case for method, detector, class, auroc, benchmark, representation, n_pos, "
                "n_neg, epsilon)"
            )
        cols[c] = name
    return frame.rename(columns=cols)


def to_long(frame, layout: str):
    """(long frame with columns benchmark, representation, method, class, auroc[, n_pos, n_neg, epsilon], layout)."""
    import pandas as pd

    frame = _normalise_columns(frame)
    methods = [c for c in METHOD_COLUMNS if c in frame.columns]
    if len(methods) > 1:
        raise InvalidInputError("frame has both a 'method' and a 'detector' column; keep one")
    if layout == "auto":
        layout = "long" if ("auroc" in frame.columns or methods) else "wide"
    if "class" not in frame.columns:
        raise InvalidInputError(f"frame has no 'class' column; columns are {list(map(str, frame.columns))}")
    if layout == "long":
        missing = [c for c in ("method", "auroc") if c not in frame.columns and not (c == "method" and methods)]
        if missing:
            raise InvalidInputError(
                f"a long table needs the columns method (or detector), class and auroc; "
                f"missing {missing}; columns are {list(map(str, frame.columns))}"
            )
        long = frame.rename(columns={methods[0]: "method"}) if methods else frame
        extra = [c for c in long.columns if c not in KEY_COLUMNS + ("method", "auroc")]
        if extra:
            raise InvalidInputError(
                f"unknown column(s) {extra} in a long table (expected method/detector, class, "
                "auroc and optionally benchmark, representation, n_pos, n_neg, epsilon)"
            )
        long = long.assign(_row=np.arange(long.shape[0]))
    else:
        if methods or "auroc" in frame.columns:
            raise InvalidInputError(
                "a wide table has one column per method and no 'method'/'detector'/'auroc' "
                "column; use layout='long' for a table with those columns"
            )
        value_cols = [c for c in frame.columns if c not in KEY_COLUMNS]
        if not value_cols:
            raise InvalidInputError("a wide table needs at least one method column besides 'class'")
        ids = [c for c in KEY_COLUMNS if c in frame.columns]
        frame = frame.assign(_row=np.arange(frame.shape[0]))
        long = frame.melt(id_vars=ids + ["_row"], value_vars=value_cols, var_name="method", value_name="auroc")
        long["method"] = long["method"].astype(str)
        empty = long["auroc"].isna().to_numpy()
        if empty.any():  # an empty cell of a wide table: the paper reports no value for that class
            long = long.loc[~empty]
            if long.shape[0] == 0:
                raise InvalidInputError("the wide table has no AUROC value (every method cell is empty)")
    for col in ("benchmark", "representation"):
        if col not in long.columns:
            long[col] = pd.NA
    return long.reset_index(drop=True), layout


def _text_column(long, col: str, default, *, fill: bool = False) -> list:
    vals = long[col]
    missing = vals.isna().to_numpy()
    if (missing.all() or fill) and default is not None:
        return [default if m else str(v).strip() for v, m in zip(vals, missing)]
    if missing.any():
        rows = long["_row"].to_numpy()
        raise InvalidInputError(
            f"column {col!r} is empty in data row(s) {_rows(np.isin(np.arange(rows.max() + 1), rows[missing]))}"
        )
    return [str(v).strip() for v in vals]


def _mean_std(text):
    """(mean, std) of a ``"61.7 ± 1.1"`` cell (also ``+/-``, ``+-``, ``"61.7 (1.1)"``), else (None, None)."""
    import math

    from ..leaderboards.rawtable import parse_cell

    if not isinstance(text, str):
        return None, None
    try:
        value, spread, kind, _ = parse_cell(text)
    except ValueError:
        return None, None
    if kind or math.isnan(spread):
        return None, None
    return value, spread


def _count_columns(long, rows: np.ndarray) -> dict:
    """``n_pos`` and ``n_neg`` (NaN where not given), whole positive numbers given together."""
    import pandas as pd

    cols = {}
    for name in ("n_pos", "n_neg"):
        if name in long.columns:
            v = pd.to_numeric(long[name], errors="coerce").to_numpy(dtype=np.float64)
            bad = long[name].notna().to_numpy() & (np.isnan(v) | (v <= 0) | (v != np.round(v)) | np.isinf(v))
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise InvalidInputError(
                    f"{name} must be a positive whole number, got {long[name].iloc[i]!r} in data row {rows[i] + 1}"
                )
            cols[name] = v
        else:
            cols[name] = np.full(long.shape[0], np.nan)
    one = np.isnan(cols["n_pos"]) != np.isnan(cols["n_neg"])
    if one.any():
        i = int(np.flatnonzero(one)[0])
        raise InvalidInputError(f"n_pos and n_neg must be given together; data row {rows[i] + 1} has only one")
    return cols


def _epsilon_column(long, rows: np.ndarray, epsilon: float) -> np.ndarray:
    """The per-row near-random half-width: the ``epsilon`` column where given, else the argument."""
    import pandas as pd

    if "epsilon" not in long.columns:
        return np.full(long.shape[0], float(epsilon))
    v = pd.to_numeric(long["epsilon"], errors="coerce").to_numpy(dtype=np.float64)
    v = np.where(long["epsilon"].isna().to_numpy(), epsilon, v)
    bad = np.isnan(v) | (v < 0) | (v >= 0.5)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidInputError(
            f"epsilon must lie in [0, 0.5), got {long['epsilon'].iloc[i]!r} in data row {rows[i] + 1}"
        )
    return v


def check_table(long, *, percent: bool, epsilon: float, benchmark):
    """Validated plain columns of a long table (named errors for every defect)."""
    import pandas as pd

    if long.shape[0] == 0:
        raise InvalidInputError("frame has no rows")
    rows = long["_row"].to_numpy()
    raw = long["auroc"]  # a boolean is no AUROC (pandas would read True/False as 1.0/0.0)
    is_bool = (
        raw.map(lambda v: isinstance(v, (bool, np.bool_))).to_numpy(dtype=bool)
        if raw.dtype == object
        else np.full(raw.shape, pd.api.types.is_bool_dtype(raw.dtype))
    )
    if is_bool.any():
        i = int(np.flatnonzero(is_bool)[0])
        raise InvalidInputError(
            f"auroc must be a number; data row {rows[i] + 1} holds the boolean "
            f"{bool(raw.iloc[i])!r} for method {long['method'].iloc[i]!r}"
        )
    auroc = pd.to_numeric(long["auroc"], errors="coerce").to_numpy(dtype=np.float64, copy=True)
    bad_text = long["auroc"].notna().to_numpy() & np.isnan(auroc)
    std = np.full(auroc.shape, np.nan)
    for i in np.flatnonzero(bad_text):  # "61.7 ± 1.1": the mean and the std over runs
        value, spread = _mean_std(long["auroc"].iloc[i])
        if value is not None:
            auroc[i], std[i], bad_text[i] = value, spread, False
    if "std" in long.columns:
        given = pd.to_numeric(long["std"], errors="coerce").to_numpy(dtype=np.float64)
        bad = long["std"].notna().to_numpy() & (np.isnan(given) | (given < 0) | np.isinf(given))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InvalidInputError(f"std must be a number >= 0, got {long['std'].iloc[i]} in data row {rows[i] + 1}")
        both = np.isfinite(std) & np.isfinite(given)
        if both.any():
            i = int(np.flatnonzero(both)[0])
            raise InvalidInputError(
                f"data row {rows[i] + 1} gives a std twice: in the cell "
                f"{long['auroc'].iloc[i]!r} and in the 'std' column"
            )
        std = np.where(np.isfinite(given), given, std)
    if bad_text.any():
        i = int(np.flatnonzero(bad_text)[0])
        raise InvalidInputError(
            f"auroc must be a number; data row {rows[i] + 1} holds {long['auroc'].iloc[i]!r} "
            f"for method {long['method'].iloc[i]!r} (a value with '±' or '%' must be split or "
            f"stripped; rows {_rows(np.isin(np.arange(rows.max() + 1), rows[bad_text]))})"
        )
    if np.isnan(auroc).any():
        i = int(np.flatnonzero(np.isnan(auroc))[0])
        raise InvalidInputError(
            f"auroc is missing (empty or NaN) for method {long['method'].iloc[i]!r} in data "
            f"row(s) {_rows(np.isin(np.arange(rows.max() + 1), rows[np.isnan(auroc)]))}"
        )
    if np.isinf(auroc).any():
        raise InvalidInputError(
            f"auroc is infinite in data row(s) {_rows(np.isin(np.arange(rows.max() + 1), rows[np.isinf(auroc)]))}"
        )
    high = 100.0 if percent else 1.0
    out = (auroc < 0.0) | (auroc > high)
    if out.any():
        i = int(np.flatnonzero(out)[0])
        hint = "; the values look like percentages: pass percent=True" if not percent and auroc.max() <= 100.0 else ""
        raise InvalidInputError(
            f"auroc must lie in [0, {high:g}]{' (percent)' if percent else ''}, got "
            f"{auroc[i]!r} in data row {rows[i] + 1} (method {long['method'].iloc[i]!r}){hint}"
        )
    if percent:
        auroc = auroc / 100.0
        std = std / 100.0
    elif np.isfinite(std).any() and np.nanmax(std) > 0.5:
        i = int(np.nanargmax(std))
        raise InvalidInputError(
            f"std must lie in [0, 0.5] for AUROCs in [0, 1], got {std[i]:g} in data row "
            f"{rows[i] + 1}; a std in percent needs percent=True"
        )
    cols = {
        "auroc": auroc,
        "std": std,
        "_row": rows,
        "benchmark": _text_column(long, "benchmark", benchmark or "results"),
        "representation": _text_column(long, "representation", "", fill=True),
        "method": _text_column(long, "method", None),
        "class": _text_column(long, "class", None),
    }
    cols.update(_count_columns(long, rows))
    cols["epsilon"] = _epsilon_column(long, rows, epsilon)
    key = list(zip(cols["benchmark"], cols["representation"], cols["method"], cols["class"]))
    seen: dict = {}
    for i, k in enumerate(key):
        if k in seen:
            what = (
                f"method {k[2]!r}, class {k[3]!r}"
                + (f", benchmark {k[0]!r}" if k[0] != "results" else "")
                + (f", representation {k[1]!r}" if k[1] else "")
            )
            raise InvalidInputError(f"duplicate row for {what}: data rows {rows[seen[k]] + 1} and {rows[i] + 1}")
        seen[k] = i
    return cols
