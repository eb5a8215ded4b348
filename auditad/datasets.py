"""Loaders for user benchmarks, anomaly-labelled datasets and the bundled examples.

A *benchmark* is one labelled pool of samples seen through one or more
representations (pixels, PCA, an embedding model, ...).  Embeddings come from
``.npy`` / ``.npz`` files (ADBench stores ``X`` and ``y`` in one ``.npz``),
MATLAB ``.mat`` files (ODDS stores ``X`` and ``y``) or CSV / Parquet tables
with named embedding columns; labels from ``.npy`` / ``.npz`` / ``.mat``, CSV or
Parquet (a named column).  Files are always read with ``allow_pickle=False``;
a malformed file (truncated archive, corrupted header, MATLAB v7.3) and a
missing label are named errors, never a silent wrong number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import numpy as np

from ._io import check_disk_embeddings, is_mapped_array, read_npy_shards
from ._validation import check_embeddings, check_labels, check_same_length
from .errors import InvalidInputError
from .inputfiles import array_file, existing_file, read_table, row_list, table_embeddings

__all__ = [
    "Benchmark",
    "AnomalyDataset",
    "load_embeddings",
    "load_labels",
    "load_benchmark",
    "load_representations",
    "load_example",
    "load_anomaly_dataset",
    "load_anomaly_example",
]

_TABLE_SUFFIXES = (".csv", ".tsv", ".txt", ".parquet", ".pq")


@dataclass(frozen=True)
class Benchmark:
    """A labelled pool seen through one or more representations.

    Attributes
    ----------
    name : str
        Display name.
    y : ndarray of shape (n,)
        Semantic class labels.
    representations : dict of str -> ndarray of shape (n, d)
        Embeddings per representation (all with the same n).
    sources : dict of str -> str
        Where each input came from (file paths, or a description).

    See Also
    --------
    - [`load_benchmark`][auditad.datasets.load_benchmark]: from files.
    - [`load_example`][auditad.datasets.load_example]: the bundled digits.
    - [`load_anomaly_dataset`][auditad.datasets.load_anomaly_dataset]: anomaly-labelled data (y = 1 anomaly).

    References
    ----------
    S. Han, X. Hu, H. Huang, M. Jiang, Y. Zhao, "ADBench: Anomaly Detection Benchmark",
    NeurIPS 2022 (the ``.npz`` layout with arrays ``X`` and ``y``).
    """

    name: str
    y: np.ndarray
    representations: dict
    sources: dict = field(default_factory=dict)

    def __post_init__(self):
        if not self.representations:
            raise InvalidInputError("representations must hold at least one embedding array")
        y = check_labels(self.y, name="y", min_classes=2)
        reps = {}
        for key, X in self.representations.items():
            X = (check_disk_embeddings if is_mapped_array(X) else check_embeddings)(X, name=f"representation {key!r}")
            check_same_length(X, y, names=(f"representation {key!r}", "labels"))
            reps[str(key)] = X
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "representations", reps)

    @property
    def X(self) -> np.ndarray:
        """The first representation."""
        return next(iter(self.representations.values()))

    @property
    def n(self) -> int:
        return int(self.y.shape[0])

    @property
    def classes(self) -> np.ndarray:
        return np.unique(self.y)


def load_embeddings(
    path, *, key: str | None = None, name: str = "embeddings", columns=None, prefix: str | None = None, exclude=()
) -> np.ndarray:
    """Read an (n, d) float array from ``.npy``, ``.npz``, ``.mat``, CSV or Parquet.

    Parameters
    ----------
    path : str or Path
        ``.npy`` file; ``.npz`` archive (ADBench); MATLAB ``.mat`` file up to
        version 7.2 (ODDS); or a CSV / Parquet table.
    key : str, optional
        Array name inside an ``.npz`` or ``.mat`` (default: its only array, else ``"X"``).
    name : str
        Parameter name used in error messages.
    columns : sequence of str, optional
        Embedding columns of a table, in order.
    prefix : str, optional
        Embedding columns of a table: those whose name starts with ``prefix``
        (e.g. ``"f"`` for ``f0, f1, ...``), in table order.  Without ``columns``
        and ``prefix`` every numeric column of the table is used, except those in ``exclude``.
    exclude : sequence of str, optional
        Columns never taken by default (e.g. the label column when labels and embeddings
        share one table).

    Notes
    -----
    A leading column with an empty header (read by pandas as ``Unnamed: 0``) is the row index
    that ``DataFrame.to_csv()`` writes by default; it is dropped with a
    [`SkippedItemWarning`][auditad.errors.SkippedItemWarning], never used as a feature. Without
    ``columns`` and ``prefix``, a leading column that is a row index by its name (``index``, ``id``,
    ``sample_id``: ``to_csv()`` of a named index) or by its values (the positions 0..n-1 or 1..n, or
    distinct integers) is left out the same way
    (see `auditad.inputfiles.index_column_reason`); naming the columns overrides it.

    See Also
    --------
    - [`load_benchmark`][auditad.datasets.load_benchmark]: class-labelled benchmarks.
    - [`load_anomaly_dataset`][auditad.datasets.load_anomaly_dataset]: anomaly-labelled files.
    - [`load_example`][auditad.datasets.load_example], [`load_anomaly_example`][auditad.datasets.load_anomaly_example]:
      the bundled digits.

    References
    ----------
    1. S. Han, X. Hu, H. Huang, M. Jiang, Y. Zhao, "ADBench: Anomaly Detection Benchmark",
       NeurIPS 2022 (the ``.npz`` layout with arrays ``X`` and ``y``).
    2. S. Rayana, "ODDS Library", Stony Brook University, 2016 (the ``.mat`` layout).
    3. E. Alpaydin, C. Kaynak, "Optical Recognition of Handwritten Digits", UCI Machine Learning
       Repository, 1998 (the digits shipped with scikit-learn).

    Examples
    --------
    >>> X = load_embeddings("table.csv", prefix="emb_")  # doctest: +SKIP
    """
    if Path(path).is_dir() and columns is None and prefix is None:  # a folder of .npy shards
        return check_disk_embeddings(read_npy_shards(path, name=name), name=f"{name} ({Path(path).name}/)")
    return _embeddings_and_carried_labels(path, key=key, name=name, columns=columns, prefix=prefix, exclude=exclude)[0]


def _embeddings_and_carried_labels(path, *, key, name, columns, prefix, exclude, label_column=None):
    """`load_embeddings`, and the labels a CSV/Parquet table carries in ``label_column`` (read with the
    embeddings, from the same table), else None (no such column, missing values, or not a table)."""
    if Path(path).is_dir() and columns is None and prefix is None:  # a folder of .npy shards
        return load_embeddings(path, key=key, name=name), None
    path = existing_file(path, name)
    carried = None
    if path.suffix.lower() in _TABLE_SUFFIXES:
        frame = read_table(path, name=name)
        arr = table_embeddings(frame, path, columns=columns, prefix=prefix, name=name, exclude=exclude)
        carried = _carried_labels(frame, path, label_column)
    else:
        if columns is not None or prefix is not None:
            raise InvalidInputError(
                f"{name}: columns= and prefix= apply to CSV/Parquet tables, not to {path.suffix!r} file {str(path)!r}"
            )
        arr = array_file(path, name=name, key=key, default_keys=("X", "embeddings"), mapped=True)
    where = f"{name} ({path.name})"
    arr = (
        check_disk_embeddings(arr, name=where)
        if is_mapped_array(arr)
        else check_embeddings(arr, name=where, dtype=None)
    )
    return arr, carried


def _carried_labels(frame, path: Path, column: str | None):
    """The labels of a table's ``column`` (None: no such column, missing values, or not a CSV/Parquet file)."""
    if column is None or column not in frame.columns or path.suffix.lower() not in (".csv", ".tsv", ".parquet", ".pq"):
        return None
    values = frame[column]
    if values.isna().to_numpy().any():
        return None
    try:
        return check_labels(values.to_numpy(), name=f"embeddings ({path.name})")
    except InvalidInputError:
        return None


def load_labels(path, *, column: str | None = None, key: str | None = None, name: str = "labels") -> np.ndarray:
    """Read 1-D labels from ``.npy`` / ``.npz`` / ``.mat``, ``.csv`` or ``.parquet``.

    For CSV and Parquet, ``column`` names the column (default: ``"label"``,
    or the only column of a one-column file).  A missing label -- an empty CSV
    cell, a blank line of a one-column CSV, a null Parquet value, NaN in a float
    array, a cell reading NA, NaN, None or null -- is an [`InvalidInputError`][auditad.errors.InvalidInputError]
    that lists the data rows (1-based; for CSV also the line numbers), never a
    class named "nan".
    An (n, 1) array (as ODDS stores ``y``) is read as 1-D.

    See Also
    --------
    - [`load_benchmark`][auditad.datasets.load_benchmark]: class-labelled benchmarks.
    - [`load_anomaly_dataset`][auditad.datasets.load_anomaly_dataset]: anomaly-labelled files.
    - [`load_example`][auditad.datasets.load_example], [`load_anomaly_example`][auditad.datasets.load_anomaly_example]:
      the bundled digits.

    References
    ----------
    1. S. Han, X. Hu, H. Huang, M. Jiang, Y. Zhao, "ADBench: Anomaly Detection Benchmark",
       NeurIPS 2022 (the ``.npz`` layout with arrays ``X`` and ``y``).
    2. S. Rayana, "ODDS Library", Stony Brook University, 2016 (the ``.mat`` layout).
    3. E. Alpaydin, C. Kaynak, "Optical Recognition of Handwritten Digits", UCI Machine Learning
       Repository, 1998 (the digits shipped with scikit-learn).
    """
    path = existing_file(path, name)
    suffix = path.suffix.lower()
    if suffix in (".npy", ".npz", ".mat"):
        arr = array_file(path, name=name, key=key, default_keys=("y", "labels", "label"))
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = arr[:, 0]
        if arr.dtype.kind == "f" and arr.ndim == 1 and np.isnan(arr).any():
            raise InvalidInputError(
                f"{name} file {str(path)!r} has missing labels (NaN) at row(s) {row_list(np.isnan(arr))}"
            )
    elif suffix in _TABLE_SUFFIXES:
        frame = read_table(path, name=name, blank_lines=True)
        if column is None:
            if "label" in frame.columns:
                column = "label"
            elif frame.shape[1] == 1:
                column = frame.columns[0]
            else:
                raise InvalidInputError(
                    f"{name} file {str(path)!r} has several columns {list(map(str, frame.columns))}; "
                    "name one with label_column / --label-column"
                )
        if column not in frame.columns:
            raise InvalidInputError(
                f"{name} file {str(path)!r} has no column {column!r}; columns are {list(map(str, frame.columns))}"
            )
        if frame.shape[0] == 0:
            raise InvalidInputError(f"{name} file {str(path)!r} has no rows")
        values = frame[column]
        missing = values.isna().to_numpy()
        if missing.any():
            lines = (
                ""
                if suffix in (".parquet", ".pq")
                else f" (file lines {row_list(missing, offset=2)}, the header being line 1)"
            )
            if suffix not in (".parquet", ".pq"):  # say what the cells read: 'None', 'NA', 'null' are pandas' markers
                import pandas as pd

                raw = pd.read_csv(
                    path,
                    sep="\t" if suffix == ".tsv" else ",",
                    dtype=str,
                    keep_default_na=False,
                    skip_blank_lines=False,
                )[column].to_numpy()[missing]
                lines += f"; the cells read {sorted(set(raw.tolist()))[:5]} (pandas' missing-value markers)"
            raise InvalidInputError(
                f"{name} file {str(path)!r}: column {str(column)!r} has {int(missing.sum())} "
                f"missing label(s) (empty cells, blank lines or NA/NaN/None markers) at data "
                f"row(s) {row_list(missing)}{lines}; every sample needs a label"
            )
        arr = values.to_numpy()  # an object column: check_labels keeps strings and integers, refuses the rest
    else:
        raise InvalidInputError(
            f"{name}: unsupported file type {path.suffix!r} for {str(path)!r} (use .npy, .npz, .mat, .csv or .parquet)"
        )
    return check_labels(arr, name=f"{name} ({path.name})")


def load_benchmark(
    embeddings,
    labels,
    *,
    embeddings_key: str | None = None,
    label_column: str | None = None,
    name: str | None = None,
    embedding_columns=None,
    embedding_prefix: str | None = None,
) -> Benchmark:
    """Load a benchmark from embedding file(s) and a labels file.

    Parameters
    ----------
    embeddings : path, or mapping of representation name -> path
        One representation, or several of the same samples.
    labels : path
        ``.npy``, ``.csv`` or ``.parquet`` (see [`load_labels`][auditad.datasets.load_labels]).
    embeddings_key : str, optional
        Array name inside ``.npz`` files.
    label_column : str, optional
        Column of a CSV/Parquet labels file.
    name : str, optional
        Display name (default: the labels file's stem).
    embedding_columns : sequence of str, optional
        Embedding columns of CSV/Parquet embedding files (see [`load_embeddings`][auditad.datasets.load_embeddings]).
    embedding_prefix : str, optional
        Embedding columns of CSV/Parquet embedding files: those starting with this prefix.
        Without either, every numeric column is used -- except the label column when the
        labels come from the same table.

    See Also
    --------
    - [`load_embeddings`][auditad.datasets.load_embeddings], [`load_labels`][auditad.datasets.load_labels]: the single
      loaders.
    - [`load_anomaly_dataset`][auditad.datasets.load_anomaly_dataset]: anomaly-labelled files (ADBench, ODDS).
    - [`Benchmark`][auditad.datasets.Benchmark]: the result.

    References
    ----------
    1. S. Han, X. Hu, H. Huang, M. Jiang, Y. Zhao, "ADBench: Anomaly Detection Benchmark",
       NeurIPS 2022 (the ``.npz`` layout with arrays ``X`` and ``y``).
    2. S. Rayana, "ODDS Library", Stony Brook University, 2016 (the ``.mat`` layout).
    """
    if isinstance(embeddings, Mapping):
        paths = {str(k): v for k, v in embeddings.items()}
    else:
        paths = {Path(embeddings).stem: embeddings}
    reps = load_representations(
        paths,
        key=embeddings_key,
        embedding_columns=embedding_columns,
        embedding_prefix=embedding_prefix,
        labels=labels,
        label_columns=[label_column or "label"],
    )
    y = load_labels(labels, column=label_column)
    for rep, X in reps.items():
        check_same_length(X, y, names=(f"embeddings {rep!r} ({X.shape[0]} rows)", f"labels ({y.shape[0]} rows)"))
    sources = {f"embeddings:{rep}": str(p) for rep, p in paths.items()}
    sources["labels"] = str(labels)
    return Benchmark(name=name or Path(labels).stem, y=y, representations=reps, sources=sources)


def load_representations(
    paths: Mapping,
    *,
    key: str | None = None,
    embedding_columns=None,
    embedding_prefix: str | None = None,
    labels=None,
    label_columns=("label",),
) -> dict:
    """The embedding arrays of one benchmark: ``{representation: (n, d) array}``, every file read alike.

    Parameters
    ----------
    paths : mapping of str -> path
        Representation name -> embeddings file (see [`load_embeddings`][auditad.datasets.load_embeddings]).
    key : str, optional
        Array name inside ``.npz`` / ``.mat`` files.
    embedding_columns : sequence of str, optional
        Embedding columns of CSV/Parquet files (``columns=`` of [`load_embeddings`][auditad.datasets.load_embeddings]).
    embedding_prefix : str, optional
        Embedding columns of CSV/Parquet files: those whose name starts with it.
    labels : path, optional
        The labels file.  When an embeddings file *is* the labels table, its ``label_columns``
        are never taken as features by default (a class label used as a coordinate would make
        the classes separable by construction).
    label_columns : sequence of str
        The label (and domain, attribute, anomaly) columns of the labels table.

    Raises
    ------
    InvalidInputError
        As [`load_embeddings`][auditad.datasets.load_embeddings]; errors about the columns name ``embedding_columns=``
        and
        ``embedding_prefix=`` with their value.

    See Also
    --------
    - [`load_embeddings`][auditad.datasets.load_embeddings]: one file.
    - [`load_benchmark`][auditad.datasets.load_benchmark]: embeddings and labels.

    References
    ----------
    W. McKinney, "Data Structures for Statistical Computing in Python", SciPy 2010 (pandas, whose
    ``DataFrame.to_csv()`` writes the row index as an unnamed first column).
    """
    return load_representations_and_labels(
        paths,
        key=key,
        embedding_columns=embedding_columns,
        embedding_prefix=embedding_prefix,
        labels=labels,
        label_columns=label_columns,
    )[0]


def load_representations_and_labels(
    paths: Mapping,
    *,
    key: str | None = None,
    embedding_columns=None,
    embedding_prefix: str | None = None,
    labels=None,
    label_columns=("label",),
    carried_label_column: str | None = None,
) -> tuple[dict, dict]:
    """`load_representations`, and the labels each CSV/Parquet embeddings table carries in ``carried_label_column``.

    Each table is read once: its embeddings and that column come from the same read. The second dict maps
    each representation to those labels, or None (no such column, a missing value, or not a table).

    See Also
    --------
    - [`load_representations`][auditad.datasets.load_representations]: the embeddings alone.
    - `auditad.audit.loader.check_labels_travel`: compares them with the audited labels.
    """

    def resolve(p) -> Path:
        try:
            return Path(p).resolve()
        except (OSError, RuntimeError):
            return Path(p)

    shared = resolve(labels) if labels is not None else None
    exclude = tuple(str(c) for c in label_columns if c is not None)
    out, carried = {}, {}
    for rep, path in paths.items():
        try:
            out[str(rep)], carried[str(rep)] = _embeddings_and_carried_labels(
                path,
                key=key,
                name=f"embeddings {str(rep)!r}",
                columns=embedding_columns,
                prefix=embedding_prefix,
                exclude=exclude if resolve(path) == shared else (),
                label_column=carried_label_column,
            )
        except InvalidInputError as exc:
            text = str(exc)
            for old, new in (("columns=", "embedding_columns="), ("prefix=", "embedding_prefix=")):
                text = re.sub(rf"(?<![\w.])({old})", new, text)
            raise InvalidInputError(text) from None
    return out, carried


def load_example(*, n_components: int = 16) -> Benchmark:
    """The bundled example benchmark: scikit-learn's handwritten digits.

    1797 images of 8×8 pixels in 10 classes (the digits 0–9), shipped with
    scikit-learn, so nothing is downloaded. Two representations:
    ``"pixels"`` (64 raw grey levels 0–16) and ``"pca16"`` (the first
    ``n_components`` principal components of the pixels, a deterministic
    full SVD).

    See Also
    --------
    - [`load_anomaly_example`][auditad.datasets.load_anomaly_example]: the anomaly-labelled example from the same
      digits.
    - [`auditad.synthetic.digits_benchmark`][auditad.synthetic.digits_benchmark]: the digits as a model-selection
      benchmark.

    References
    ----------
    E. Alpaydin, C. Kaynak, "Optical Recognition of Handwritten Digits", UCI Machine Learning
    Repository, 1998 (the digits shipped with scikit-learn).

    Examples
    --------
    >>> bench = load_example()
    >>> bench.n, sorted(bench.representations)
    (1797, ['pca16', 'pixels'])
    """
    from sklearn.datasets import load_digits

    digits = load_digits()
    X = digits.data.astype(np.float64)
    Xc = X - X.mean(axis=0)
    _, _, vt = np.linalg.svd(Xc, full_matrices=False)
    # fix the sign of each component for reproducibility across LAPACK builds
    signs = np.sign(vt[np.arange(vt.shape[0]), np.argmax(np.abs(vt), axis=1)])
    vt = vt * signs[:, None]
    pca = Xc @ vt[:n_components].T
    return Benchmark(
        name="digits",
        y=digits.target.astype(np.int64),
        representations={"pixels": X, f"pca{n_components}": pca},
        sources={"data": "sklearn.datasets.load_digits (UCI ML hand-written digits, 1797 × 64)"},
    )


# ----------------------------------------------------------------------------- anomaly-labelled datasets
@dataclass(frozen=True)
class AnomalyDataset:
    """An anomaly-labelled dataset (ADBench / ODDS style): samples X and labels y with 1 = anomaly.

    Attributes
    ----------
    name : str
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,), int64
        0 = normal, 1 = anomaly.
    sources : dict of str -> str

    See Also
    --------
    - [`load_benchmark`][auditad.datasets.load_benchmark]: class-labelled benchmarks.
    - [`load_anomaly_dataset`][auditad.datasets.load_anomaly_dataset]: anomaly-labelled files.
    - [`load_example`][auditad.datasets.load_example], [`load_anomaly_example`][auditad.datasets.load_anomaly_example]:
      the bundled digits.

    References
    ----------
    1. S. Han, X. Hu, H. Huang, M. Jiang, Y. Zhao, "ADBench: Anomaly Detection Benchmark",
       NeurIPS 2022 (the ``.npz`` layout with arrays ``X`` and ``y``).
    2. S. Rayana, "ODDS Library", Stony Brook University, 2016 (the ``.mat`` layout).
    3. E. Alpaydin, C. Kaynak, "Optical Recognition of Handwritten Digits", UCI Machine Learning
       Repository, 1998 (the digits shipped with scikit-learn).
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    sources: dict = field(default_factory=dict)

    def __post_init__(self):
        X = check_embeddings(self.X, name="X")
        y = _binary_labels(self.y, name="y")
        check_same_length(X, y, names=("X", "y"))
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)

    @property
    def n(self) -> int:
        return int(self.y.shape[0])

    @property
    def n_anomalies(self) -> int:
        return int(self.y.sum())

    @property
    def anomaly_ratio(self) -> float:
        """π = n_anomalies / n."""
        return self.n_anomalies / self.n


def _binary_labels(y, *, name: str) -> np.ndarray:
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1 or arr.size == 0:
        raise InvalidInputError(f"{name} must be a non-empty 1-D array of 0/1 anomaly labels, got shape {arr.shape}")
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iuf":
        raise InvalidInputError(f"{name} must hold 0 (normal) and 1 (anomaly), got dtype {arr.dtype}")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise InvalidInputError(f"{name} has missing labels (NaN) at row(s) {row_list(np.isnan(arr))}")
    values = np.unique(arr)
    if not set(values.tolist()) <= {0, 1}:
        raise InvalidInputError(
            f"{name} must hold 0 (normal) and 1 (anomaly) only, got the values "
            f"{values[:10].tolist()}; for semantic class labels use load_benchmark"
        )
    if values.size < 2:
        raise InvalidInputError(f"{name} must contain both normals (0) and anomalies (1), got only {values.tolist()}")
    return arr.astype(np.int64)


def load_anomaly_dataset(
    path,
    *,
    x_key: str | None = None,
    y_key: str | None = None,
    label_column: str | None = None,
    columns=None,
    prefix: str | None = None,
    name: str | None = None,
) -> AnomalyDataset:
    """Load an anomaly-labelled dataset: ADBench ``.npz``, ODDS ``.mat`` or a CSV / Parquet table.

    Parameters
    ----------
    path : str or Path
        ``.npz`` (arrays ``X`` and ``y``, as ADBench ships them), ``.mat``
        (``X`` and ``y``, as ODDS ships them; MATLAB up to v7.2), or a table
        with an anomaly column and embedding columns.
    x_key, y_key : str, optional
        Array names inside ``.npz`` / ``.mat`` (default ``"X"`` and ``"y"``).
    label_column : str, optional
        Anomaly column of a table (default: the first of ``y``, ``label``, ``anomaly``, ``is_anomaly``).
    columns, prefix : optional
        Embedding columns of a table (see [`load_embeddings`][auditad.datasets.load_embeddings]); default: every
        other numeric column but a leading row-index column.
    name : str, optional
        Display name (default: the file's stem).

    Returns
    -------
    AnomalyDataset

    Raises
    ------
    InvalidInputError
        A malformed file, labels other than 0/1 or missing, X and y of different lengths.

    References
    ----------
    S. Han, X. Hu, H. Huang, M. Jiang, Y. Zhao, "ADBench: Anomaly Detection
    Benchmark", NeurIPS 2022 Datasets and Benchmarks (the ``.npz`` layout);
    S. Rayana, "ODDS Library", Stony Brook University, 2016 (the ``.mat`` layout).

    See Also
    --------
    - [`load_anomaly_example`][auditad.datasets.load_anomaly_example]: a bundled example made from scikit-learn's
      digits.
    """
    path = existing_file(path, "dataset")
    suffix = path.suffix.lower()
    if suffix in _TABLE_SUFFIXES:
        frame = read_table(path, name="dataset", blank_lines=True)
        cols = [str(c) for c in frame.columns]
        frame = frame.set_axis(cols, axis=1)
        if label_column is None:
            label_column = next((c for c in ("y", "label", "anomaly", "is_anomaly") if c in cols), None)
            if label_column is None:
                raise InvalidInputError(
                    f"dataset file {str(path)!r} has no anomaly column y, label, anomaly or "
                    f"is_anomaly; name it with label_column=; columns are {cols}"
                )
        if label_column not in cols:
            raise InvalidInputError(f"dataset file {str(path)!r} has no column {label_column!r}; columns are {cols}")
        missing = frame[label_column].isna().to_numpy()
        if missing.any():
            raise InvalidInputError(
                f"dataset file {str(path)!r}: column {label_column!r} has missing anomaly "
                f"labels at data row(s) {row_list(missing)}"
            )
        y = frame[label_column].to_numpy()
        X = table_embeddings(frame, path, columns=columns, prefix=prefix, name="dataset", exclude=(label_column,))
    else:
        if columns is not None or prefix is not None or label_column is not None:
            raise InvalidInputError(
                "columns=, prefix= and label_column= apply to CSV/Parquet tables; use x_key= "
                f"and y_key= for {path.suffix!r} files"
            )
        X = array_file(path, name="dataset", key=x_key or "X", default_keys=("X",))
        y = array_file(path, name="dataset", key=y_key or "y", default_keys=("y",))
    X = check_embeddings(X, name=f"X ({path.name})")
    y = _binary_labels(y, name=f"y ({path.name})")
    check_same_length(X, y, names=(f"X ({X.shape[0]} rows)", f"y ({y.shape[0]} rows)"))
    return AnomalyDataset(name=name or path.stem, X=X, y=y, sources={"data": str(path)})


def load_anomaly_example(*, per_class: int = 1) -> AnomalyDataset:
    """A tiny anomaly-labelled example from scikit-learn's digits (no download).

    Normals are the 178 images of the digit 0; anomalies are the first
    ``per_class`` images (in dataset order) of each digit 1–9, so the default
    has 9 anomalies among 187 samples (π = 4.8 %), 64 pixel features with
    grey levels 0–16.  Deterministic.

    Parameters
    ----------
    per_class : int, default 1
        Anomalies taken from each other digit (1 to 20).

    Returns
    -------
    AnomalyDataset

    See Also
    --------
    - [`load_benchmark`][auditad.datasets.load_benchmark]: class-labelled benchmarks.
    - [`load_anomaly_dataset`][auditad.datasets.load_anomaly_dataset]: anomaly-labelled files.

    References
    ----------
    E. Alpaydin and C. Kaynak, "Optical Recognition of Handwritten Digits", UCI
    Machine Learning Repository, 1998 (shipped with scikit-learn as ``load_digits``).

    Examples
    --------
    >>> d = load_anomaly_example()
    >>> d.n, d.n_anomalies, round(d.anomaly_ratio, 4)
    (187, 9, 0.0481)
    """
    from sklearn.datasets import load_digits

    from ._validation import check_int

    per_class = check_int(per_class, name="per_class", low=1, high=20)
    digits = load_digits()
    X, t = digits.data.astype(np.float64), digits.target
    normal = np.flatnonzero(t == 0)
    anomalies = np.concatenate([np.flatnonzero(t == d)[:per_class] for d in range(1, 10)])
    idx = np.concatenate([normal, np.sort(anomalies)])
    y = np.concatenate([np.zeros(normal.size, dtype=np.int64), np.ones(anomalies.size, dtype=np.int64)])
    return AnomalyDataset(
        name="digits-0-vs-rest",
        X=X[idx],
        y=y,
        sources={
            "data": f"sklearn.datasets.load_digits: digit 0 normal, the first {per_class} "
            "image(s) of each digit 1-9 anomalous"
        },
    )
