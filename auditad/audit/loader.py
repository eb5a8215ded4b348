"""Load an audit's inputs: the arrays of a configured benchmark, or the bundled example.

Embeddings in ``.npy`` files, uncompressed ``.npz`` members and folders of ``.npy`` shards are memory-mapped
(`auditad.datasets.load_embeddings`); the other formats are read into memory.

`load_inputs` reads the files of a `BenchmarkConfig`;
`example_inputs` builds the inputs of ``auditad demo``. Both return a
`BenchmarkInputs`, the only thing `auditad.audit.runner.audit_benchmark`
reads (it loads no file itself).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InvalidInputError

__all__ = [
    "BenchmarkInputs",
    "load_inputs",
    "example_inputs",
    "describe_dataset",
    "benchmark_kind",
    "anomaly_label_note",
    "check_labels_travel",
    "DEMO_SETTINGS",
    "demo_settings_text",
]


@dataclass(frozen=True)
class BenchmarkInputs:
    """One benchmark's data in memory plus where it came from.

    Attributes
    ----------
    name : str
    benchmark : auditad.datasets.Benchmark
        Labels and representations.
    columns : dict of str -> ndarray
        Optional ``domain``, ``attribute`` (labels) and ``anomaly`` (0/1) columns.
    selection : auditad.selection.SelectionBenchmark or None
        Model-selection benchmark (from a manifest, or the demo's digits tasks).
    settings : dict
        Effective audit settings.
    gates : tuple of GateRule
    inputs : tuple of dict
        ``role``, ``path`` (as written in the config) and ``sha256`` of every input.
    config_text, config_name, config_sha256 : str, str or None, str
        The configuration shown in the reproducibility block.
    config_origin : str
        ``"file"`` (a TOML file), ``"flags"`` (command-line flags) or ``"demo"``.
    command_line : tuple of str
        Command-line flags that changed a configuration file's settings or added gates (``--gate RULE``),
        shown with the configuration.
    kind : str
        ``"classes"`` (semantic classes), ``"anomaly"`` (anomaly labels only: ``benchmark.y`` is the
        0/1 anomaly flag) or ``"both"`` (see `benchmark_kind`).
    notes : tuple of str
        Notes on reading the inputs (a row-index column left out, ...), ``"SkippedItemWarning: ..."``;
        the audit lists them with its own warnings.

    See Also
    --------
    - `run_audit`: the full audit of several benchmarks.
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: gates on written summaries.
    - [`auditad.report.export.write_appendix`][auditad.report.export.write_appendix]: the LaTeX appendix.
    """

    name: str
    benchmark: Any
    columns: dict
    selection: Any
    settings: dict
    gates: tuple
    inputs: tuple
    config_text: str
    config_name: str | None
    config_sha256: str
    config_origin: str = "file"
    command_line: tuple = ()
    kind: str = "classes"
    notes: tuple = ()


def _sha256_file(path: Path) -> str:
    """SHA-256 of a file's bytes; of a folder of ``.npy`` shards, of each shard's name, a NUL byte and its bytes,
    in name order (hidden files left out, as the loader leaves them out)."""
    h = hashlib.sha256()
    folder = Path(path).is_dir()
    files = sorted(p for p in Path(path).iterdir() if not p.name.startswith(".")) if folder else [path]
    for file in files:
        if folder:
            h.update(Path(file).name.encode("utf-8") + b"\0")
        with open(file, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def _sha256_array(arr: np.ndarray) -> str:
    arr = np.ascontiguousarray(arr)
    h = hashlib.sha256(f"{arr.dtype.str}{arr.shape}".encode())
    if arr.dtype.kind in "US":
        h.update("\x00".join(map(str, arr.tolist())).encode("utf-8"))
    else:
        h.update(arr.tobytes())
    return h.hexdigest()


# --------------------------------------------------------------------------- loading
def _read_column(path: Path, column: str | None, *, name: str) -> np.ndarray:
    from ..datasets import load_labels

    suffix = path.suffix.lower()
    if suffix == ".npz":
        return load_labels(path, key=column, name=name)
    if suffix == ".npy":
        if column is not None and name != "labels":
            raise InvalidInputError(
                f"columns.{name} = {column!r} needs a CSV, Parquet or .npz labels file; "
                f"{str(path)!r} is a single .npy array"
            )
        return load_labels(path, name=name)
    return load_labels(path, column=column, name=name)


def load_inputs(bench_cfg, config) -> BenchmarkInputs:
    """Read the arrays of one configured benchmark (labels, optional columns, embeddings, manifest).

    Parameters
    ----------
    bench_cfg : auditad.audit.config.BenchmarkConfig
    config : auditad.audit.config.AuditConfig

    Raises
    ------
    InvalidInputError
        Unreadable files, mismatched lengths, fewer than two classes, a non-binary anomaly column.

    Notes
    -----
    The warnings of reading (`auditad.errors.AuditadWarning`: a row-index column left out of a
    table, ...) are kept in ``notes`` of the result, not raised; the audit lists them in its report.

    See Also
    --------
    - `run_audit`: the full audit of several benchmarks.
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: gates on written summaries.
    - [`auditad.report.export.write_appendix`][auditad.report.export.write_appendix]: the LaTeX appendix.
    """
    import warnings

    from ..errors import AuditadWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", AuditadWarning)
        inputs = _load_inputs(bench_cfg, config)
    notes = []
    for w in caught:
        if not issubclass(w.category, AuditadWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        elif (text := f"{w.category.__name__}: {w.message}") not in notes:
            notes.append(text)
    return replace(inputs, notes=tuple(notes))


def _load_inputs(bench_cfg, config) -> BenchmarkInputs:
    from .._validation import check_binary_labels, check_same_length
    from ..datasets import Benchmark, load_representations_and_labels

    where = f"benchmark {bench_cfg.name!r}"
    cols = bench_cfg.columns
    try:
        try:
            y = _read_column(bench_cfg.labels, cols.get("label"), name="labels")
        except InvalidInputError:
            if "anomaly" not in cols or "label" in cols:
                raise
            y = None  # no class label column: an anomaly-labelled benchmark
        columns = {}
        for col in ("domain", "attribute", "anomaly"):
            if col in cols:
                arr = _read_column(bench_cfg.labels, cols[col], name=col)
                if y is not None:
                    check_same_length(arr, y, names=(f"column {col!r}", "labels"))
                if col == "anomaly":
                    arr = check_binary_labels(arr, name=f"column {cols[col]!r} (anomaly)")
                columns[col] = arr
        kind = benchmark_kind(
            y, columns.get("anomaly"), label_column=cols.get("label"), anomaly_column=cols.get("anomaly")
        )
        if kind == "anomaly":
            y = columns["anomaly"]
        for col, arr in columns.items():
            check_same_length(arr, y, names=(f"column {col!r}", "labels"))
        reps, carried = load_representations_and_labels(
            bench_cfg.embeddings,
            key=bench_cfg.embeddings_key,
            embedding_columns=bench_cfg.embedding_columns,
            embedding_prefix=bench_cfg.embedding_prefix,
            labels=bench_cfg.labels,
            label_columns=[cols.get("label", "label"), *cols.values()],
            carried_label_column=cols.get("label") or "label",
        )
        for rep, X in reps.items():
            check_same_length(X, y, names=(f"embeddings {rep!r} ({X.shape[0]} rows)", f"labels ({y.shape[0]} rows)"))
        if kind != "anomaly":
            for rep, path in bench_cfg.embeddings.items():
                if carried.get(rep) is None and Path(path).suffix.lower() in _LABELLED_TABLES:
                    continue  # a table read once above, without a usable label column: nothing to compare
                check_labels_travel(
                    path,
                    y,
                    labels_path=bench_cfg.labels,
                    label_column=cols.get("label"),
                    rep=rep,
                    own_labels=carried.get(rep),
                )
        bench = Benchmark(
            name=bench_cfg.name, y=y, representations=reps, sources={k: v for k, v in bench_cfg.display_paths.items()}
        )
        selection = None
        if bench_cfg.manifest is not None:
            from ..manifest import load_manifest

            selection = load_manifest(bench_cfg.manifest)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where}: {exc}") from None
    files = [("labels", bench_cfg.labels, bench_cfg.display_paths["labels"])]
    files += [
        (f"embeddings:{rep}", p, bench_cfg.display_paths[f"embeddings:{rep}"])
        for rep, p in bench_cfg.embeddings.items()
    ]
    if bench_cfg.manifest is not None:
        files.append(("manifest", bench_cfg.manifest, bench_cfg.display_paths["manifest"]))
    inputs = tuple({"role": role, "path": shown, "sha256": _sha256_file(p)} for role, p, shown in files)
    return BenchmarkInputs(
        name=bench_cfg.name,
        benchmark=bench,
        columns=columns,
        selection=selection,
        settings=dict(bench_cfg.settings),
        gates=tuple(bench_cfg.gates),
        inputs=inputs,
        config_text=config.text,
        config_name=config.source.name if config.source else None,
        config_sha256=config.sha256,
        config_origin="file" if config.source else "flags",
        command_line=tuple(config.command_line),
        kind=kind,
    )


#: Embeddings tables whose label column travels with the rows (read with the embeddings).
_LABELLED_TABLES = (".csv", ".tsv", ".parquet", ".pq")


def _own_labels(path: Path, label_column: str | None):
    """The label array an embeddings file carries itself (an ``.npz`` key or a table column), else None."""
    from ..datasets import load_labels

    suffix = path.suffix.lower()
    if suffix == ".npz":
        key = label_column or "y"
        with np.load(path, allow_pickle=False) as archive:
            if key not in archive.files:
                return None
        return load_labels(path, key=key, name="embeddings")
    if suffix in _LABELLED_TABLES:
        column = label_column or "label"
        if suffix in (".parquet", ".pq"):
            import pyarrow.parquet as pq

            names = pq.read_schema(path).names
        else:
            import pandas as pd

            names = list(pd.read_csv(path, nrows=0, sep="\t" if suffix == ".tsv" else ",").columns)
        if column not in names:
            return None
        return load_labels(path, column=column, name="embeddings")
    return None


def check_labels_travel(
    embeddings_path, y, *, labels_path, label_column=None, rep: str = "embeddings", own_labels=None
) -> None:
    """Refuse an embeddings file whose own labels disagree with the labels audited.

    An ADBench ``.npz`` (arrays ``X`` and ``y``) or a table with the label column carries its rows'
    labels. When the audited labels come from another file, a different row order (ADBench's
    20news files store BERT and RoBERTa rows in different orders) would silently pair rows with
    another row's label; this compares the two arrays and raises naming both files, the number of
    differing rows and the first one. Files without their own labels, and the labels file itself,
    are not checked. ``own_labels``: the labels the file carries when its loader already read them (a
    table's label column, [`load_representations_and_labels`][auditad.datasets.load_representations_and_labels]);
    the file is then not read again.

    Raises
    ------
    InvalidInputError
        The arrays differ.

    See Also
    --------
    - [`load_inputs`][auditad.audit.loader.load_inputs]: where every embeddings file is checked.

    Examples
    --------
    >>> import numpy as np, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> np.savez(d / "a.npz", X=np.zeros((3, 2)), y=np.array([0, 1, 0]))
    >>> np.savez(d / "b.npz", X=np.zeros((3, 2)), y=np.array([1, 0, 0]))
    >>> check_labels_travel(d / "b.npz", np.array([0, 1, 0]), labels_path=d / "a.npz", rep="b")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    auditad.errors.InvalidInputError: embeddings 'b' (...) carry their own labels, which differ ... on 2 of 3 rows (first: row 0, 1 vs 0): ...
    """
    embeddings_path, labels_path = Path(embeddings_path), Path(labels_path)
    try:
        if embeddings_path.resolve() == labels_path.resolve():
            return
    except OSError:
        return
    own = own_labels
    if own is None:
        try:
            own = _own_labels(embeddings_path, label_column)
        except InvalidInputError:
            return  # unreadable as labels (not a label column after all): nothing to compare
    if own is None or own.shape != np.shape(y):
        return
    mine, theirs = np.asarray(own), np.asarray(y)
    if mine.dtype.kind in "iufb" and theirs.dtype.kind in "iufb":
        differ = mine.astype(np.float64) != theirs.astype(np.float64)
    else:
        differ = mine.astype(str) != theirs.astype(str)
    if not differ.any():
        return
    first = int(np.flatnonzero(differ)[0])
    raise InvalidInputError(
        f"embeddings {rep!r} ({str(embeddings_path)!r}) carry their own labels, which differ from the labels "
        f"({str(labels_path)!r}) on {int(differ.sum())} of {differ.size} rows (first: row {first}, "
        f"{mine[first]} vs {theirs[first]}): the rows are not in the same order; give --labels the embeddings "
        "file itself, or align the rows"
    )


def benchmark_kind(y, anomaly, *, label_column=None, anomaly_column=None) -> str:
    """``"classes"`` (semantic classes), ``"anomaly"`` (anomaly labels only) or ``"both"``.

    A benchmark is anomaly-labelled only when it has an anomaly column and either no class label
    column at all, or a class label that *is* the anomaly column (no ``label`` column named, or the same
    column, and equal 0/1 values; e.g. an ADBench ``.npz`` whose ``y`` is read both ways).
    """
    if anomaly is None:
        return "classes"
    if y is None:
        return "anomaly"
    y = np.asarray(y)
    same = label_column is None or label_column == anomaly_column
    if same and y.dtype.kind in "biu" and y.shape == anomaly.shape and np.array_equal(y.astype(np.int64), anomaly):
        return "anomaly"
    return "both"


def anomaly_label_note(inputs: BenchmarkInputs) -> str | None:
    """A note when semantic class labels look like anomaly labels, else None.

    The labels of a ``"classes"`` benchmark whose values are exactly {0, 1} (integers or floats) with 1 the minority
    (share < ½) look like an ADBench/ODDS anomaly flag (1 = anomaly). Their meaning is not changed
    (they stay two semantic classes); the note suggests naming them as the anomaly column.
    """
    if inputs.kind != "classes" or "anomaly" in inputs.columns:
        return None
    y = np.asarray(inputs.benchmark.y)
    if y.dtype.kind not in "biuf" or set(np.unique(y).tolist()) != {0, 1}:
        return None
    share = float(np.mean(y == 1))
    if share >= 0.5:
        return None
    return (
        f"benchmark {inputs.name!r}: the labels are 0/1 with {share:.1%} ones; they are audited as two semantic "
        "classes. If 1 marks an anomaly (ADBench/ODDS style), give them as the anomaly column (--anomaly-column, "
        "or columns.anomaly in the config): the class-split protocol is then not applicable and pi is the "
        "true anomaly share"
    )


#: Settings of ``auditad demo``: the defaults with lighter Isolation Forest, null Monte Carlo and bootstrap.
DEMO_SETTINGS = {
    "detector_params": {"iforest": {"n_estimators": 50}},
    "null_runs": 1000,
    "selection_n_boot": 500,
}


def demo_settings_text() -> str:
    """How `DEMO_SETTINGS` differ from the audit defaults, in words (``auditad demo --help``).

    The demo runs lighter settings than ``auditad audit``; that is why the two give slightly
    different numbers on the same data.

    See Also
    --------
    - `example_inputs`: the demo's inputs.

    References
    ----------
    F. T. Liu, K. M. Ting, Z.-H. Zhou, "Isolation Forest", ICDM 2008 (the number of trees).

    Examples
    --------
    >>> for part in demo_settings_text().split(", "):
    ...     print(part)
    50 Isolation-Forest trees instead of 100
    1000 Monte Carlo null runs instead of 2000
    500 bootstrap replicates instead of 1000
    """
    import inspect

    from ..protocol.detectors import IsolationForestDetector
    from .settings import DEFAULT_SETTINGS

    trees = inspect.signature(IsolationForestDetector).parameters["n_estimators"].default
    parts = []
    for key, value in DEMO_SETTINGS.items():
        if key == "detector_params":
            for det, name, v in ((det, name, v) for det, params in value.items() for name, v in params.items()):
                if (det, name) == ("iforest", "n_estimators"):
                    parts.append(f"{v} Isolation-Forest trees instead of {trees}")
                else:  # pragma: no cover - only the trees are lighter today
                    parts.append(f"{det} {name} = {v}")
        else:
            what = {"null_runs": "Monte Carlo null runs", "selection_n_boot": "bootstrap replicates"}.get(key, key)
            parts.append(f"{value} {what} instead of {DEFAULT_SETTINGS[key]}")
    return ", ".join(parts)


def example_inputs(*, seed: int = 0, selection: bool = True, gates=()) -> BenchmarkInputs:
    """The bundled example (`auditad.datasets.load_example`: digits as pixels and pca16) as audit inputs.

    With ``selection=True`` the model-selection section runs on
    [`auditad.synthetic.digits_benchmark`][auditad.synthetic.digits_benchmark] (one task per digit: normal =
    that digit, anomalies = the others; candidates = pixels / l2 / PCA
    embeddings × kNN / LDN scoring).

    See Also
    --------
    - `run_audit`: the full audit of several benchmarks.
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: gates on written summaries.
    - [`auditad.report.export.write_appendix`][auditad.report.export.write_appendix]: the LaTeX appendix.
    """
    from ..datasets import load_example
    from .config import CONFIG_VERSION, settings_to_toml, validate_settings

    settings = validate_settings({**DEMO_SETTINGS, "seed": int(seed)}, where="demo settings")
    bench = load_example()
    sel = None
    if selection:
        from ..synthetic import digits_benchmark

        sel = digits_benchmark(random_state=int(seed))
    inputs = [{"role": "labels", "path": "sklearn.datasets.load_digits (target)", "sha256": _sha256_array(bench.y)}]
    inputs += [
        {"role": f"embeddings:{rep}", "path": f"auditad.datasets.load_example ({rep})", "sha256": _sha256_array(X)}
        for rep, X in bench.representations.items()
    ]
    if sel is not None:
        inputs.append(
            {
                "role": "selection",
                "path": f"auditad.synthetic.digits_benchmark(random_state={int(seed)})",
                "sha256": None,
            }
        )
    text = (
        "# auditad demo: the bundled example benchmark (no files), with these settings\n"
        f"version = {CONFIG_VERSION}\n"
        + ("gates = [" + ", ".join(f'"{g.text}"' for g in gates) + "]\n" if gates else "")
        + "\n"
        + settings_to_toml(settings)
    )
    return BenchmarkInputs(
        name=bench.name,
        benchmark=bench,
        columns={},
        selection=sel,
        settings=settings,
        gates=tuple(gates),
        inputs=tuple(inputs),
        config_text=text,
        config_name=None,
        config_sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        config_origin="demo",
    )


def describe_dataset(inputs: BenchmarkInputs) -> dict:
    """The ``dataset`` part of ``summary.json``: sizes, classes, representations and columns of the inputs."""
    bench = inputs.benchmark
    classes, sizes = np.unique(bench.y, return_counts=True)
    return {
        "kind": inputs.kind,
        "n": bench.n,
        "n_classes": int(classes.size),
        "classes": [c.item() for c in classes],
        "class_sizes": [int(v) for v in sizes],
        "representations": {rep: {"dim": int(X.shape[1])} for rep, X in bench.representations.items()},
        "columns": sorted(inputs.columns),
        "anomaly_ratio": (float(np.mean(inputs.columns["anomaly"])) if "anomaly" in inputs.columns else None),
    }
