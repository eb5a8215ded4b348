"""Reading and checking per-class AUROC tables for :mod:`auditad.results` (long and wide layouts).

Every defect of a table is an :class:`~auditad.errors.InvalidInputError` that
names the column and the 1-based data row(s).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import InvalidInputError

__all__ = ["KEY_COLUMNS", "METHOD_COLUMNS", "read_results_table", "to_long", "check_table"]

#: Columns that describe a row rather than name a method (the remaining columns of a wide table are methods).
KEY_COLUMNS = ("benchmark", "representation", "class", "n_pos", "n_neg", "epsilon")
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
        A missing, empty or unreadable file, or an unsupported suffix.

    See Also
    --------
    auditad.results.audit_results : audits the frame read here.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
    2. J. A. Hanley, B. J. McNeil, "The meaning and use of the area under a receiver operating
       characteristic (ROC) curve", Radiology 143(1), 1982.
    3. R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
       of Anomaly Detection".
    """
    import pandas as pd

    path = Path(path)
    if not path.exists():
        raise InvalidInputError(f"table file {str(path)!r} does not exist")
    if path.is_dir():
        raise InvalidInputError(f"table path {str(path)!r} is a directory, expected a CSV or Parquet file")
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".tsv", ".txt", ".parquet", ".pq"):
        raise InvalidInputError(f"table: unsupported file type {path.suffix!r} for {str(path)!r} "
                                "(use .csv or .parquet)")
    if path.stat().st_size == 0:
        raise InvalidInputError(f"table file {str(path)!r} is empty")
    try:
        if suffix in (".parquet", ".pq"):
            return pd.read_parquet(path)
        return pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",", skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise InvalidInputError(f"table file {str(path)!r} is empty") from None
    except (ValueError, OSError, pd.errors.ParserError) as exc:
        raise InvalidInputError(f"table file {str(path)!r} could not be read: {exc}") from None


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
            raise InvalidInputError(f"frame has two columns named {name!r} (column names are matched without "
                                    "case for method, detector, class, auroc, benchmark, representation, n_pos, "
                                    "n_neg, epsilon)")
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
            raise InvalidInputError(f"a long table needs the columns method (or detector), class and auroc; "
                                    f"missing {missing}; columns are {list(map(str, frame.columns))}")
        long = frame.rename(columns={methods[0]: "method"}) if methods else frame
        extra = [c for c in long.columns if c not in KEY_COLUMNS + ("method", "auroc")]
        if extra:
            raise InvalidInputError(f"unknown column(s) {extra} in a long table (expected method/detector, class, "
                                    "auroc and optionally benchmark, representation, n_pos, n_neg, epsilon)")
        long = long.assign(_row=np.arange(long.shape[0]))
    else:
        if methods or "auroc" in frame.columns:
            raise InvalidInputError("a wide table has one column per method and no 'method'/'detector'/'auroc' "
                                    "column; use layout='long' for a table with those columns")
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
        raise InvalidInputError(f"column {col!r} is empty in data row(s) "
                                f"{_rows(np.isin(np.arange(rows.max() + 1), rows[missing]))}")
    return [str(v).strip() for v in vals]


def check_table(long, *, percent: bool, epsilon: float, benchmark):
    """Validated plain columns of a long table (named errors for every defect)."""
    import pandas as pd

    if long.shape[0] == 0:
        raise InvalidInputError("frame has no rows")
    rows = long["_row"].to_numpy()
    auroc = pd.to_numeric(long["auroc"], errors="coerce").to_numpy(dtype=np.float64)
    bad_text = long["auroc"].notna().to_numpy() & np.isnan(auroc)
    if bad_text.any():
        i = int(np.flatnonzero(bad_text)[0])
        raise InvalidInputError(f"auroc must be a number; data row {rows[i] + 1} holds {long['auroc'].iloc[i]!r} "
                                f"for method {long['method'].iloc[i]!r} (a value with '±' or '%' must be split or "
                                f"stripped; rows {_rows(np.isin(np.arange(rows.max() + 1), rows[bad_text]))})")
    if np.isnan(auroc).any():
        i = int(np.flatnonzero(np.isnan(auroc))[0])
        raise InvalidInputError(f"auroc is missing (empty or NaN) for method {long['method'].iloc[i]!r} in data "
                                f"row(s) {_rows(np.isin(np.arange(rows.max() + 1), rows[np.isnan(auroc)]))}")
    if np.isinf(auroc).any():
        raise InvalidInputError(f"auroc is infinite in data row(s) "
                                f"{_rows(np.isin(np.arange(rows.max() + 1), rows[np.isinf(auroc)]))}")
    high = 100.0 if percent else 1.0
    out = (auroc < 0.0) | (auroc > high)
    if out.any():
        i = int(np.flatnonzero(out)[0])
        hint = ("; the values look like percentages: pass percent=True" if not percent and auroc.max() <= 100.0
                else "")
        raise InvalidInputError(f"auroc must lie in [0, {high:g}]{' (percent)' if percent else ''}, got "
                                f"{auroc[i]!r} in data row {rows[i] + 1} (method {long['method'].iloc[i]!r}){hint}")
    if percent:
        auroc = auroc / 100.0
    cols = {"auroc": auroc, "_row": rows,
            "benchmark": _text_column(long, "benchmark", benchmark or "results"),
            "representation": _text_column(long, "representation", "", fill=True),
            "method": _text_column(long, "method", None),
            "class": _text_column(long, "class", None)}
    for name in ("n_pos", "n_neg"):
        if name in long.columns:
            v = pd.to_numeric(long[name], errors="coerce").to_numpy(dtype=np.float64)
            bad = long[name].notna().to_numpy() & (np.isnan(v) | (v <= 0) | (v != np.round(v)) | np.isinf(v))
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise InvalidInputError(f"{name} must be a positive whole number, got {long[name].iloc[i]!r} in "
                                        f"data row {rows[i] + 1}")
            cols[name] = v
        else:
            cols[name] = np.full(long.shape[0], np.nan)
    one = np.isnan(cols["n_pos"]) != np.isnan(cols["n_neg"])
    if one.any():
        i = int(np.flatnonzero(one)[0])
        raise InvalidInputError(f"n_pos and n_neg must be given together; data row {rows[i] + 1} has only one")
    if "epsilon" in long.columns:
        v = pd.to_numeric(long["epsilon"], errors="coerce").to_numpy(dtype=np.float64)
        v = np.where(long["epsilon"].isna().to_numpy(), epsilon, v)
        bad = np.isnan(v) | (v < 0) | (v >= 0.5)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InvalidInputError(f"epsilon must lie in [0, 0.5), got {long['epsilon'].iloc[i]!r} in data row "
                                    f"{rows[i] + 1}")
        cols["epsilon"] = v
    else:
        cols["epsilon"] = np.full(long.shape[0], float(epsilon))
    key = list(zip(cols["benchmark"], cols["representation"], cols["method"], cols["class"]))
    seen: dict = {}
    for i, k in enumerate(key):
        if k in seen:
            what = f"method {k[2]!r}, class {k[3]!r}" + (f", benchmark {k[0]!r}" if k[0] != "results" else "") + \
                   (f", representation {k[1]!r}" if k[1] else "")
            raise InvalidInputError(f"duplicate row for {what}: data rows {rows[seen[k]] + 1} and {rows[i] + 1}")
        seen[k] = i
    return cols
