r"""Readers of published leaderboard files: one tidy long table, whatever the layout.

A leaderboard file is read cell by cell with the `csv` module (never by
``pandas.read_csv``, which renames a duplicate column ``X`` to ``X.1`` and an
empty header to ``Unnamed: 1``, inventing methods), and every cell becomes one
row of a long table with the columns of `TABLE_COLUMNS`:

``dataset, method, seed, metric, value, std, n_pos, n_neg, missing, row, column``

plus the metadata columns of the format (``labelled_ratio`` for ADBench;
``n_samples, n_dimensions, outlier_percent`` for PyOD; ``training,
postprocessor, outlier_data, architecture, description`` for OpenOOD; the
configuration columns of anomalib).  Values are stored as fractions: a metric
whose cells carry ``%`` or exceed 1 is read as percentages and divided by 100,
and the result says so (`Leaderboard.scales`, `Leaderboard.notes`).

Formats (`FORMATS`, tried in this order by ``format=None``):

``adbench``
    ``<metric>_*.csv`` of ADBench (Han et al., NeurIPS 2022): an unnamed index
    column ``"('dataset', labelled ratio, seed)"`` and one column per detector.
``pyod``
    PyOD's benchmark tables (``roc.csv``, ``prc.csv``, ``time.csv``): ``Data,
    #Samples, # Dimensions, Outlier Perc`` then one column per detector; the
    class counts follow from ``#Samples`` and ``Outlier Perc``.
``openood``
    OpenOOD's ``results/*.csv``: ``Training, Postprocessor, Near-OOD_AUROC,
    Far-OOD_AUROC, ID_Accuracy, Outlier_Data, Arch, Additional_Description`` with
    ``"mean ± std"`` cells and ``/`` for a missing value.
``anomalib``
    anomalib's benchmark ``results.csv``: one row per run with ``seed``, the
    model (``model.class_path`` or ``model_name``), the category
    (``data.init_args.category`` or ``category``) and ``image_*`` / ``pixel_*``
    metric columns.
``long``
    One row per (dataset, method[, seed]) with a ``value`` (and ``metric``)
    column or one column per metric, optional ``seed``, ``std``, ``n_pos``, ``n_neg``.
``wide``
    One row per dataset (first column, or a column named ``dataset``), one
    column per method, optional ``seed``, ``n_pos``, ``n_neg`` columns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._json import json_safe
from .._validation import check_choice, check_float, describe
from ..errors import InvalidInputError
from .formats import FORMATS, MATCHERS, READERS
from .rawtable import CellColumns, RawTable
from .schema import METRICS, MISSING_MARKERS, TABLE_COLUMNS, MetricSpec, canonical_metric, metric_info

#: The share of a data set PyOD's benchmark scores (``benchmark.py``: ``train_test_split(test_size=0.4)``).
PYOD_TEST_FRACTION = 0.4

__all__ = [
    "PYOD_TEST_FRACTION",
    "FORMATS",
    "METRICS",
    "TABLE_COLUMNS",
    "MISSING_MARKERS",
    "MetricSpec",
    "Leaderboard",
    "UnknownFormatError",
    "read_leaderboard",
    "combine_leaderboards",
    "canonical_metric",
    "metric_info",
]


# --------------------------------------------------------------------------- the result
class UnknownFormatError(InvalidInputError):
    """A file of none of the leaderboard formats; ``reasons`` maps each format tried to what it missed.

    Attributes
    ----------
    reasons : dict of str to str
        Format name -> why the file is not of that format, in the order tried.
    """

    def __init__(self, message: str, reasons=None):
        super().__init__(message)
        self.reasons = dict(reasons or {})


@dataclass(frozen=True, eq=False)
class Leaderboard:
    """A leaderboard file as one tidy long table (see [`read_leaderboard`][auditad.leaderboards.read_leaderboard]).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per cell: the columns of `TABLE_COLUMNS` then the
        metadata columns.  ``value`` and ``std`` are fractions for bounded
        metrics; ``value`` is NaN for a missing cell and ``missing`` says how it
        was written (``"blank"``, ``"nan"`` or ``"marker"`` for ``/``, ``-``,
        ``n/a``, ...; ``""`` for a value); ``seed`` is None when the file gives
        none; ``n_pos`` / ``n_neg`` are NaN when the counts are unknown;
        ``row`` is the 1-based data row of the file and ``column`` its header.
    format : str
        One of `FORMATS` (``"combined"`` for [`combine_leaderboards`][auditad.leaderboards.combine_leaderboards]).
    source : str or None
        The file read.
    scales : tuple of (metric, scale)
        ``"fraction"``, ``"percent"`` (divided by 100 on reading) or ``"as read"``.
    notes : tuple of str
        Everything the reader decided: header quirks, dropped empty blocks,
        the scale of each metric, where the counts come from.
    metadata_columns : tuple of str

    See Also
    --------
    - [`read_leaderboard`][auditad.leaderboards.read_leaderboard]: builds it.
    - [`auditad.leaderboards.audit_leaderboard`][auditad.leaderboards.audit_leaderboard]: audits it.

    References
    ----------
    S. Han, X. Hu, H. Huang, M. Jiang, Y. Zhao, "ADBench: Anomaly Detection Benchmark", NeurIPS 2022
    (Datasets and Benchmarks).  J. Zhang et al., "OpenOOD v1.5: Enhanced Benchmark for Out-of-Distribution
    Detection", arXiv:2306.09301, 2023.
    """

    table: object
    format: str
    source: str | None = None
    scales: tuple = ()
    notes: tuple = ()
    metadata_columns: tuple = ()

    def _unique(self, column: str) -> tuple:
        return tuple(dict.fromkeys(self.table[column].tolist()))

    @property
    def metrics(self) -> tuple:
        """Metric names in order of first appearance."""
        return self._unique("metric")

    @property
    def datasets(self) -> tuple:
        """Dataset names in order of first appearance."""
        return self._unique("dataset")

    @property
    def methods(self) -> tuple:
        """Method names in order of first appearance."""
        return self._unique("method")

    @property
    def seeds(self) -> tuple:
        """The seeds of the table (empty when it gives none)."""
        return tuple(s for s in self._unique("seed") if s is not None)

    @property
    def has_counts(self) -> bool:
        """Whether any cell knows its class counts n₊ and n₋."""
        return bool(self.table["n_pos"].notna().any())

    def to_frame(self):
        """The tidy table (a copy)."""
        return self.table.copy()

    def to_dict(self) -> dict:
        """JSON-safe dict: format, source, scales, notes and the table as records."""
        records = self.table.astype(object).where(self.table.notna(), None).to_dict(orient="records")
        return json_safe(
            {
                "format": self.format,
                "source": self.source,
                "scales": dict(self.scales),
                "notes": list(self.notes),
                "metadata_columns": list(self.metadata_columns),
                "n_cells": int(self.table.shape[0]),
                "cells": records,
            }
        )


# --------------------------------------------------------------------------- finishing
def _scale(df, pct_sign, percent, notes: list, where) -> tuple:
    scales = []
    for metric in dict.fromkeys(df["metric"].tolist()):
        spec = metric_info(metric)
        mask = (df["metric"] == metric).to_numpy()
        vals = df["value"].to_numpy()[mask]
        finite = vals[np.isfinite(vals)]
        if not spec.bounded:
            scales.append((metric, "as read"))
            notes.append(f"{metric}: values kept as read (not a bounded score)")
            if finite.size and finite.min() < 0 and spec.name == "time":
                i = int(np.flatnonzero(mask & (df["value"].to_numpy() < 0))[0])
                raise InvalidInputError(f"{where(i)} holds a negative time {vals[vals < 0][0]!r}")
            continue
        if finite.size and finite.min() < 0:
            i = int(np.flatnonzero(mask & (df["value"].to_numpy() < 0))[0])
            raise InvalidInputError(f"{where(i)}: {metric} must not be negative, got {df['value'].iloc[i]!r}")
        top = float(finite.max()) if finite.size else 0.0
        signed = bool(pct_sign[mask].any())
        if percent is None:
            is_pct = signed or top > 1.0
        else:
            is_pct = percent
            if not percent and top > 1.0:
                i = int(np.flatnonzero(mask & (df["value"].to_numpy() > 1.0))[0])
                raise InvalidInputError(f"{where(i)}: {metric} = {df['value'].iloc[i]!r} exceeds 1 with percent=False")
        if is_pct:
            if top > 100.0:
                i = int(np.flatnonzero(mask & (df["value"].to_numpy() > 100.0))[0])
                raise InvalidInputError(f"{where(i)}: {metric} = {df['value'].iloc[i]!r} exceeds 100 (percent)")
            df.loc[mask, "value"] = df.loc[mask, "value"] / 100.0
            df.loc[mask, "std"] = df.loc[mask, "std"] / 100.0
            why = "percent=True" if percent else "cells carry '%'" if signed else f"the largest value {top:g} > 1"
            notes.append(f"{metric}: values read as percentages ({why}) and divided by 100")
            scales.append((metric, "percent"))
        else:
            why = "percent=False" if percent is False else "every value lies in [0, 1]"
            notes.append(f"{metric}: values read as fractions ({why})")
            scales.append((metric, "fraction"))
    stds = df["std"].to_numpy()
    if (stds < 0).any():
        i = int(np.flatnonzero(stds < 0)[0])
        raise InvalidInputError(f"{where(i)}: a standard deviation must not be negative")
    return tuple(scales)


def _finish(cells: CellColumns, fmt: str, source: str, notes: list, *, percent, counts, test_fraction) -> Leaderboard:
    import pandas as pd

    data = {c: cells.cols[c] for c in TABLE_COLUMNS}
    df = pd.DataFrame(
        {
            "dataset": pd.Series(data["dataset"], dtype=object),
            "method": pd.Series(data["method"], dtype=object),
            "seed": pd.Series(data["seed"], dtype=object),
            "metric": pd.Series(data["metric"], dtype=object),
            "value": np.asarray(data["value"], dtype=np.float64),
            "std": np.asarray(data["std"], dtype=np.float64),
            "n_pos": np.asarray(data["n_pos"], dtype=np.float64),
            "n_neg": np.asarray(data["n_neg"], dtype=np.float64),
            "missing": pd.Series(data["missing"], dtype=object),
            "row": np.asarray(data["row"], dtype=np.int64),
            "column": pd.Series(data["column"], dtype=object),
        }
    )
    for k, lst in cells.meta.items():
        df[k] = pd.Series(lst, dtype=object)
    if df.shape[0] == 0:
        raise InvalidInputError(f"{source!r}: no cell was read")

    def where(i):
        return f"{source!r}: data row {int(df['row'].iloc[i])}, column {df['column'].iloc[i]!r}"

    scales = _scale(df, np.asarray(cells.cols["_pct"], dtype=bool), percent, notes, where)
    seed_key = df["seed"].map(lambda s: "" if s is None else repr(s))
    key = df["dataset"] + "\u0000" + df["method"] + "\u0000" + seed_key + "\u0000" + df["metric"]
    dup = key.duplicated(keep=False).to_numpy()
    if dup.any():
        first = int(np.flatnonzero(dup)[0])
        other = int(np.flatnonzero(dup & (key == key.iloc[first]).to_numpy())[1])
        seed = df["seed"].iloc[first]
        raise InvalidInputError(
            f"{source!r}: two cells for dataset {df['dataset'].iloc[first]!r}, method "
            f"{df['method'].iloc[first]!r}{'' if seed is None else f', seed {seed!r}'}, metric "
            f"{df['metric'].iloc[first]!r}: data rows {int(df['row'].iloc[first])} and "
            f"{int(df['row'].iloc[other])}"
        )
    if fmt == "adbench":
        if test_fraction is not None:
            raise InvalidInputError(
                "test_fraction= does not apply to an ADBench file: its counts are already those of ADBench's "
                "30 % test split (pass counts= to give others)"
            )
        _adbench_counts(df, notes)
    if counts is not None:
        _apply_counts(df, counts, notes)
    if test_fraction is None and fmt == "pyod":
        test_fraction = PYOD_TEST_FRACTION
        notes.append(
            f"class counts scaled to PyOD's test split (test_fraction={PYOD_TEST_FRACTION:g}: its benchmark.py "
            "scores train_test_split(test_size=0.4)); pass test_fraction=1 for the whole data set's counts"
        )
    elif test_fraction is not None:
        f = check_float(test_fraction, name="test_fraction", low=0.0, high=1.0, low_open=True)
        notes.append(f"class counts scaled by test_fraction={f:g} (expected test counts of a split of that size)")
    if test_fraction is not None:
        f = check_float(test_fraction, name="test_fraction", low=0.0, high=1.0, low_open=True)
        if not df["n_pos"].notna().any():
            raise InvalidInputError("test_fraction= scales the class counts, but the table has none (pass counts=)")
        have = df["n_pos"].notna()
        df.loc[have, "n_pos"] = np.maximum(1.0, np.round(df.loc[have, "n_pos"] * f))
        df.loc[have, "n_neg"] = np.maximum(1.0, np.round(df.loc[have, "n_neg"] * f))
    meta = tuple(cells.meta)
    return Leaderboard(table=df, format=fmt, source=source, scales=scales, notes=tuple(notes), metadata_columns=meta)


def _adbench_counts(df, notes: list) -> None:
    """Fill the test counts of the ADBench data sets the dataset table knows; name the others."""
    from .adbench_counts import adbench_test_counts

    known, unknown, how_seen = 0, [], set()
    for name in dict.fromkeys(df["dataset"].tolist()):
        found = adbench_test_counts(name)
        if found is None:
            unknown.append(name)
            continue
        n_pos, n_neg, how = found
        mask = (df["dataset"] == name).to_numpy()
        df.loc[mask, "n_pos"] = float(n_pos)
        df.loc[mask, "n_neg"] = float(n_neg)
        known += 1
        how_seen.add(how)
    if known:
        notes.append(
            f"class counts of {known} data set(s) from the ADBench dataset table and ADBench's split (30 % test, "
            "stratified; over 10 000 points subsampled to 10 000"
            + (
                "; under 1 000 points resampled with replacement to 1 000: effective counts of distinct points"
                if "effective" in how_seen
                else ""
            )
            + ")"
        )
    if unknown:
        notes.append(
            f"{len(unknown)} data set(s) not in the ADBench dataset table ({', '.join(unknown[:6])}"
            + (" ..." if len(unknown) > 6 else "")
            + "): no counts, their cells are tested on the seeds only (a weaker test)"
        )


def _apply_counts(df, counts, notes: list) -> None:
    if not hasattr(counts, "items"):
        raise InvalidInputError(f"counts must map dataset names to (n_pos, n_neg), got {describe(counts)}")
    names = set(df["dataset"].tolist())
    unknown = [k for k in counts if k not in names]
    if unknown:
        raise InvalidInputError(
            f"counts names dataset(s) {unknown[:5]} that the table does not have "
            f"(datasets: {sorted(names)[:8]}{' ...' if len(names) > 8 else ''})"
        )
    replaced = []
    for name, pair in counts.items():
        try:
            n_pos, n_neg = pair
        except (TypeError, ValueError):
            raise InvalidInputError(f"counts[{name!r}] must be a pair (n_pos, n_neg), got {describe(pair)}") from None
        for what, v in (("n_pos", n_pos), ("n_neg", n_neg)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise InvalidInputError(f"counts[{name!r}]: {what} must be a whole number >= 1, got {describe(v)}")
        mask = (df["dataset"] == name).to_numpy()
        if df.loc[mask, "n_pos"].notna().any():
            replaced.append(name)
        df.loc[mask, "n_pos"] = float(n_pos)
        df.loc[mask, "n_neg"] = float(n_neg)
    notes.append(
        f"class counts given for {len(counts)} dataset(s) by counts="
        + (f" (replacing the file's counts for {replaced})" if replaced else "")
    )


# --------------------------------------------------------------------------- public readers
def read_leaderboard(
    path,
    *,
    format: str | None = None,
    metric: str | None = None,
    dataset: str | None = None,
    percent: bool | None = None,
    counts=None,
    test_fraction: float | None = None,
) -> Leaderboard:
    r"""Read a published leaderboard file into one tidy long table.

    Every cell becomes one row (dataset, method, seed, metric, value, std,
    n₊, n₋, metadata); see `TABLE_COLUMNS` and the module documentation
    for the formats.  Values of bounded metrics are stored as fractions:

    \[
    v = \begin{cases} c / 100 & \text{if the metric's cells carry a percent sign or } \max c > 1
    \ (\text{percent}),\\ c & \text{otherwise (fraction).}\end{cases}
    \]

    The decision is made per metric and stated in `Leaderboard.notes`.
    Cells that are empty, ``nan``, ``/``, ``-`` or ``n/a`` are missing values
    (``value`` NaN, ``missing`` says which); any other text that is not a
    number or ``mean ± std`` is an error naming its row and column -- it is
    never read as 0.

    Parameters
    ----------
    path : str or Path
        A ``.csv`` (or ``.tsv``) file.
    format : {"adbench", "pyod", "openood", "anomalib", "long", "wide"}, optional
        Force a format; by default the first of `FORMATS` that matches.
    metric : str, optional
        The metric of the values when the file does not say it (ADBench and PyOD
        take it from the file name, ``AUCROC_…`` / ``roc.csv``; wide and long
        tables default to AUROC with a note).
    dataset : str, optional
        OpenOOD only: the in-distribution benchmark (default: the file name's
        stem, e.g. ``cifar10``); datasets are named ``<dataset>/Near-OOD``,
        ``<dataset>/Far-OOD`` and ``<dataset>/ID``.
    percent : bool, optional
        Force percentages (True) or fractions (False) instead of detecting them.
    counts : mapping, optional
        ``{dataset: (n_pos, n_neg)}``: the test counts of datasets whose file
        does not give them (they replace the format's own).  ADBench files get
        theirs from the public dataset table and ADBench's 30 % test split
        ([`adbench_test_counts`][auditad.leaderboards.adbench_test_counts]).
    test_fraction : float, optional
        Scale the class counts to a test split of this share of the data.
        Default: `PYOD_TEST_FRACTION` (0.4) for a PyOD file, whose ``#Samples``
        are whole data sets while its benchmark scores a 40 % test split
        (stated in the notes; ``test_fraction=1`` keeps the whole counts);
        no scaling for the other formats.

    Returns
    -------
    Leaderboard

    Raises
    ------
    InvalidInputError
        A missing or empty file; a file of none of the formats (the message names
        each format tried and what it missed); two columns with the same name or
        an unnamed column with values; a cell that is not a number (named by row
        and column); duplicate (dataset, method, seed, metric) cells; values
        outside [0, 1] (or [0, 100]).

    References
    ----------
    S. Han, X. Hu, H. Huang, M. Jiang, Y. Zhao, "ADBench: Anomaly Detection Benchmark", NeurIPS 2022
    (Datasets and Benchmarks).  Y. Zhao, Z. Nasrullah, Z. Li, "PyOD: A Python Toolbox for Scalable
    Outlier Detection", JMLR 20(96), 2019.  J. Zhang et al., "OpenOOD v1.5: Enhanced Benchmark for
    Out-of-Distribution Detection", arXiv:2306.09301, 2023.  S. Akcay et al., "Anomalib: A Deep
    Learning Library for Anomaly Detection", ICIP 2022.

    See Also
    --------
    - [`combine_leaderboards`][auditad.leaderboards.combine_leaderboards]: several files (e.g. OpenOOD's cifar10 and
      cifar100) as one table.
    - [`auditad.leaderboards.audit_leaderboard`][auditad.leaderboards.audit_leaderboard]: the audit of the table.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "roc.csv").write_text(
    ...     "Data,#Samples,# Dimensions,Outlier Perc,IForest,LOF\n"
    ...     "pima,768,8,34.8958,0.6806,0.6271\n"
    ...     "wbc,378,30,5.5556,0.9310,0.9349\n")
    >>> board = read_leaderboard(folder / "roc.csv")
    >>> board.format, board.metrics, board.methods
    ('pyod', ('auroc',), ('IForest', 'LOF'))
    >>> board.table[["dataset", "method", "value", "n_pos", "n_neg"]].head(2)
      dataset   method   value  n_pos  n_neg
    0    pima  IForest  0.6806  107.0  200.0
    1    pima      LOF  0.6271  107.0  200.0
    """
    path = Path(path)
    if not path.exists():
        raise InvalidInputError(f"leaderboard file {str(path)!r} does not exist")
    if path.is_dir():
        raise InvalidInputError(f"leaderboard path {str(path)!r} is a directory, expected a CSV file")
    if path.suffix.lower() not in (".csv", ".tsv", ".txt"):
        raise InvalidInputError(f"leaderboard: unsupported file type {path.suffix!r} for {str(path)!r} (use .csv)")
    if path.stat().st_size == 0:
        raise InvalidInputError(f"leaderboard file {str(path)!r} is empty")
    if format is not None:
        check_choice(format, FORMATS, name="format")
    if percent is not None and not isinstance(percent, bool):
        raise InvalidInputError(f"percent must be None, True or False, got {describe(percent)}")
    if dataset is not None and (not isinstance(dataset, str) or not dataset.strip()):
        raise InvalidInputError(f"dataset must be a non-empty string, got {describe(dataset)}")
    if metric is not None and (not isinstance(metric, str) or not metric.strip()):
        raise InvalidInputError(f"metric must be a non-empty string, got {describe(metric)}")
    raw = RawTable(path)
    if format is None:
        reasons = {}
        for name in FORMATS:
            reason = MATCHERS[name](raw)
            if reason is None:
                format = name
                break
            reasons[name] = reason
        else:
            tried = "; ".join(f"{k}: {v}" for k, v in reasons.items())
            raise UnknownFormatError(
                f"{str(path)!r} is a leaderboard of none of the known formats; tried {tried}", reasons
            )
    else:
        reason = MATCHERS[format](raw)
        if reason is not None:
            raise InvalidInputError(f"{str(path)!r} is not a {format} leaderboard: {reason}")
    if dataset is not None and format != "openood":
        raise InvalidInputError(f"dataset= applies to the openood format only (this file reads as {format})")
    notes = list(raw.notes)
    opt = {"metric": metric, "dataset": dataset}
    cells = READERS[format](raw, opt, notes)
    if raw.short and format != "openood":
        notes.append(
            f"data row(s) {', '.join(str(i + 1) for i in sorted(raw.short))} have fewer fields than the "
            f"header ({len(raw.header)}): the missing trailing cells are read as blank"
        )
    return _finish(cells, format, str(path), notes, percent=percent, counts=counts, test_fraction=test_fraction)


def combine_leaderboards(boards) -> Leaderboard:
    r"""One leaderboard from several (e.g. OpenOOD's ``cifar10.csv`` and ``cifar100.csv``).

    The tables are concatenated; a (dataset, method, seed, metric) cell present
    in two of them is an error.  Notes keep the file they came from.

    Parameters
    ----------
    boards : sequence of Leaderboard

    Returns
    -------
    Leaderboard
        ``format`` is the common format, or ``"combined"`` when they differ.

    See Also
    --------
    - [`read_leaderboard`][auditad.leaderboards.read_leaderboard]

    References
    ----------
    S. Han, X. Hu, H. Huang, M. Jiang, Y. Zhao, "ADBench: Anomaly Detection Benchmark", NeurIPS 2022
    (Datasets and Benchmarks).  J. Zhang et al., "OpenOOD v1.5: Enhanced Benchmark for Out-of-Distribution
    Detection", arXiv:2306.09301, 2023.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("cifar10", "cifar100"):
    ...     _ = (folder / f"{name}.csv").write_text(
    ...         "Training,Postprocessor,Near-OOD_AUROC,Far-OOD_AUROC\n"
    ...         "CrossEntropy,MSP,88.03 ± 0.25,90.73 ± 0.43\n"
    ...         "CrossEntropy,ODIN,82.87 ± 1.85,87.96 ± 0.61\n")
    >>> both = combine_leaderboards([read_leaderboard(folder / f"{n}.csv") for n in ("cifar10", "cifar100")])
    >>> both.datasets
    ('cifar10/Near-OOD', 'cifar10/Far-OOD', 'cifar100/Near-OOD', 'cifar100/Far-OOD')
    """
    import pandas as pd

    boards = list(boards)
    if not boards or not all(isinstance(b, Leaderboard) for b in boards):
        raise InvalidInputError("boards must be a non-empty sequence of Leaderboard objects")
    table = pd.concat([b.table for b in boards], ignore_index=True)
    seed_key = table["seed"].map(lambda s: "" if s is None or (isinstance(s, float) and math.isnan(s)) else repr(s))
    table["seed"] = table["seed"].astype(object).where(seed_key != "", None)
    key = table["dataset"] + "\u0000" + table["method"] + "\u0000" + seed_key + "\u0000" + table["metric"]
    dup = key.duplicated()
    if dup.any():
        i = int(np.flatnonzero(dup.to_numpy())[0])
        raise InvalidInputError(
            f"two leaderboards give dataset {table['dataset'].iloc[i]!r}, method "
            f"{table['method'].iloc[i]!r}, metric {table['metric'].iloc[i]!r}"
        )
    formats = {b.format for b in boards}
    scales: dict = {}
    for b in boards:
        for m, s in b.scales:
            scales.setdefault(m, s)
            if scales[m] != s:
                scales[m] = "mixed"
    notes = tuple(f"{b.source}: {n}" for b in boards for n in b.notes)
    meta = tuple(dict.fromkeys(c for b in boards for c in b.metadata_columns))
    return Leaderboard(
        table=table,
        format=formats.pop() if len(formats) == 1 else "combined",
        source=" + ".join(str(b.source) for b in boards),
        scales=tuple(scales.items()),
        notes=notes,
        metadata_columns=meta,
    )
