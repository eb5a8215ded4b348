"""Which table ``auditad results FILE`` was given: a per-class AUROC table or one of the leaderboard formats.

A file is a *per-class* table (`auditad.results.audit_results`) when it has a ``class`` column and
only the columns of that layout (long: ``method``/``detector``, ``class``, ``auroc`` and the optional
key columns; wide: ``class`` and one column per method, none named like a leaderboard's ``seed``,
``dataset``, ``metric`` or ``value``).  Otherwise the leaderboard formats are tried in the order of
[`FORMATS`][auditad.leaderboards.FORMATS] (ADBench, PyOD, OpenOOD, anomalib, long, wide).  A file
of none of them is an error naming each format tried and what it missed.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InvalidInputError

__all__ = ["PER_CLASS", "RESULTS_FORMATS", "per_class_mismatch", "read_results_file"]

PER_CLASS = "per-class"
#: The formats ``auditad results`` reads, in the order they are tried (``--format`` forces one).
RESULTS_FORMATS = (PER_CLASS, "adbench", "pyod", "openood", "anomalib", "long", "wide")
#: Column names that make a table a leaderboard rather than a per-class table.
_LEADERBOARD_COLUMNS = (
    "seed",
    "run",
    "trial",
    "dataset",
    "data",
    "metric",
    "value",
    "score",
    "category",
    "task",
    "model",
    "algorithm",
    "sd",
    "stdev",
)


def _header(path: Path) -> list:
    """The column names of a CSV/TSV (first line) or Parquet file, stripped."""
    import csv

    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        import pandas as pd

        try:
            return [str(c).strip() for c in pd.read_parquet(path).columns]
        except Exception as exc:  # noqa: BLE001  (a damaged file: pyarrow's errors, KeyError of broken metadata)
            raise InvalidInputError(
                f"table file {str(path)!r} could not be read as Parquet: "
                f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"
            ) from None
    with open(path, newline="", encoding="utf-8-sig") as fh:
        row = next(csv.reader(fh, delimiter="\t" if suffix == ".tsv" else ","), [])
    return [c.strip() for c in row]


def per_class_mismatch(path) -> str | None:
    """None when ``path`` has the columns of a per-class AUROC table, else what it misses.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text("class,OC-SVM,KDE\\nairplane,61.6,61.2\\n")
    >>> per_class_mismatch(p) is None
    True
    >>> _ = p.write_text("Data,#Samples,# Dimensions,Outlier Perc,IForest\\npima,768,8,34.9,0.68\\n")
    >>> per_class_mismatch(p)
    "no 'class' column (columns: Data, #Samples, # Dimensions, Outlier Perc, IForest)"
    """
    from .table import KEY_COLUMNS, METHOD_COLUMNS

    path = Path(path)
    try:
        header = _header(path)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return f"the header could not be read ({exc})"
    low = [h.lower() for h in header]
    shown = ", ".join(header[:8]) + (" ..." if len(header) > 8 else "")
    if "class" not in low:
        return f"no 'class' column (columns: {shown})"
    lb = sorted({h for h, lw in zip(header, low) if lw in _LEADERBOARD_COLUMNS})
    if lb:
        return f"column(s) {lb} belong to a leaderboard, not to a per-class table"
    if any(lw in METHOD_COLUMNS + ("auroc",) for lw in low):
        extra = [h for h, lw in zip(header, low) if lw not in KEY_COLUMNS + METHOD_COLUMNS + ("auroc",)]
        if extra:
            return f"a long per-class table has no column(s) {extra}"
        return None
    if len(header) < 2:
        return "no method column besides 'class'"
    return None


def read_results_file(
    path,
    *,
    format: str | None = None,
    percent: bool = False,
    metric: str | None = None,
    test_fraction: float | None = None,
):
    """``(format, table)``: the per-class frame (format ``"per-class"``) or a `Leaderboard`.

    Parameters
    ----------
    path : str or Path
    format : str, optional
        One of `RESULTS_FORMATS`; by default the first that matches.
    percent : bool, default False
        Per-class tables: the values are percentages (required for them); leaderboards: force
        percentages (without it, each metric's scale is detected and stated in the notes).
    metric, test_fraction
        Passed to [`read_leaderboard`][auditad.leaderboards.read_leaderboard].

    Raises
    ------
    InvalidInputError
        A missing file, an unknown format, or a file of none of the formats (the message names each
        format tried and what it missed).
    """
    from .._validation import check_choice
    from ..leaderboards import read_leaderboard
    from ..leaderboards.readers import UnknownFormatError
    from .table import read_results_table

    path = Path(path)
    if format is not None:
        format = check_choice(format, RESULTS_FORMATS, name="format")
    if not path.exists():
        raise InvalidInputError(f"table file {str(path)!r} does not exist")
    if path.is_dir():
        raise InvalidInputError(f"table path {str(path)!r} is a directory, expected a CSV or Parquet file")
    options = {"percent": True if percent else None, "metric": metric, "test_fraction": test_fraction}
    if format == PER_CLASS:
        return PER_CLASS, read_results_table(path)
    if format is not None:
        return format, read_leaderboard(path, format=format, **options)
    from .._io import check_regular_input

    if check_regular_input(path, what="table file").st_size == 0:  # a FIFO or /dev/stdin is refused by name
        raise InvalidInputError(f"table file {str(path)!r} is empty")
    reason = per_class_mismatch(path)
    if reason is None:
        return PER_CLASS, read_results_table(path)
    if path.suffix.lower() in (".parquet", ".pq"):
        raise InvalidInputError(
            f"{str(path)!r} is not a per-class table ({reason}); leaderboards are read from CSV files only"
        )
    try:
        board = read_leaderboard(path, **options)
    except UnknownFormatError as exc:
        tried = "; ".join(f"{k}: {v}" for k, v in {PER_CLASS: reason, **exc.reasons}.items())
        raise InvalidInputError(
            f"{str(path)!r} is a table of none of the formats 'auditad results' reads; tried {tried}"
        ) from None
    return board.format, board
