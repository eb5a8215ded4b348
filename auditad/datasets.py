"""Loaders for user benchmarks and the bundled example benchmark.

A *benchmark* is one labelled pool of samples seen through one or more
representations (pixels, PCA, an embedding model, ...).  Embeddings come from
``.npy`` / ``.npz`` files, labels from ``.npy``, CSV or Parquet (a named
column).  Files are always read with ``allow_pickle=False``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import numpy as np

from ._validation import check_embeddings, check_input_file, check_labels, check_same_length
from .errors import InvalidInputError

__all__ = ["Benchmark", "load_embeddings", "load_labels", "load_benchmark", "load_example"]


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
            X = check_embeddings(X, name=f"representation {key!r}")
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


def load_embeddings(path, *, key: str | None = None, name: str = "embeddings") -> np.ndarray:
    """Read an (n, d) float array from a ``.npy`` or ``.npz`` file.

    Parameters
    ----------
    path : str or Path
        ``.npy`` file, or ``.npz`` archive.
    key : str, optional
        Array name inside an ``.npz`` (default: its only array, else ``"X"``).
    name : str
        Parameter name used in error messages.
    """
    path = _existing_file(path, name)
    arr = _np_load(path, name=name, key=key, default_keys=("X", "embeddings"))
    return check_embeddings(arr, name=f"{name} ({path.name})", dtype=None)


def load_labels(path, *, column: str | None = None, key: str | None = None, name: str = "labels") -> np.ndarray:
    """Read 1-D labels from ``.npy``/``.npz``, ``.csv`` or ``.parquet``.

    For CSV and Parquet, ``column`` names the column (default: ``"label"``,
    or the only column of a one-column file).
    """
    path = _existing_file(path, name)
    suffix = path.suffix.lower()
    if suffix in (".npy", ".npz"):
        arr = _np_load(path, name=name, key=key, default_keys=("y", "labels", "label"))
    elif suffix in (".csv", ".tsv", ".txt", ".parquet", ".pq"):
        import pandas as pd

        try:
            if suffix in (".parquet", ".pq"):
                try:
                    frame = pd.read_parquet(path)
                except ImportError:
                    raise InvalidInputError(
                        f"{name}: reading Parquet needs pyarrow; install it with pip install 'auditad[parquet]'"
                    ) from None
            else:
                frame = pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",")
        except pd.errors.EmptyDataError:
            raise InvalidInputError(f"{name} file {str(path)!r} is empty") from None
        except (ValueError, OSError) as exc:
            raise InvalidInputError(f"{name} file {str(path)!r} could not be read: {exc}") from None
        if column is None:
            if "label" in frame.columns:
                column = "label"
            elif frame.shape[1] == 1:
                column = frame.columns[0]
            else:
                raise InvalidInputError(
                    f"{name} file {str(path)!r} has several columns {list(map(str, frame.columns))}; "
                    "name one with label_column / --label-column")
        if column not in frame.columns:
            raise InvalidInputError(
                f"{name} file {str(path)!r} has no column {column!r}; columns are {list(map(str, frame.columns))}")
        if frame.shape[0] == 0:
            raise InvalidInputError(f"{name} file {str(path)!r} has no rows")
        arr = frame[column].to_numpy()
        if arr.dtype == object:
            arr = np.asarray([str(v) for v in arr])
    else:
        raise InvalidInputError(f"{name}: unsupported file type {path.suffix!r} for {str(path)!r} "
                                "(use .npy, .npz, .csv or .parquet)")
    return check_labels(arr, name=f"{name} ({path.name})")


def load_benchmark(embeddings, labels, *, embeddings_key: str | None = None, label_column: str | None = None,
                   name: str | None = None) -> Benchmark:
    """Load a benchmark from embedding file(s) and a labels file.

    Parameters
    ----------
    embeddings : path, or mapping of representation name -> path
        One representation, or several of the same samples.
    labels : path
        ``.npy``, ``.csv`` or ``.parquet`` (see :func:`load_labels`).
    embeddings_key : str, optional
        Array name inside ``.npz`` files.
    label_column : str, optional
        Column of a CSV/Parquet labels file.
    name : str, optional
        Display name (default: the labels file's stem).
    """
    if isinstance(embeddings, Mapping):
        paths = {str(k): v for k, v in embeddings.items()}
    else:
        paths = {Path(embeddings).stem: embeddings}
    reps = {rep: load_embeddings(p, key=embeddings_key, name="embeddings") for rep, p in paths.items()}
    y = load_labels(labels, column=label_column)
    for rep, X in reps.items():
        check_same_length(X, y, names=(f"embeddings {rep!r} ({X.shape[0]} rows)", f"labels ({y.shape[0]} rows)"))
    sources = {f"embeddings:{rep}": str(p) for rep, p in paths.items()}
    sources["labels"] = str(labels)
    return Benchmark(name=name or Path(labels).stem, y=y, representations=reps, sources=sources)


def load_example(*, n_components: int = 16) -> Benchmark:
    """The bundled example benchmark: scikit-learn's handwritten digits.

    1797 images of 8×8 pixels in 10 classes (the digits 0–9), shipped with
    scikit-learn, so nothing is downloaded. Two representations:
    ``"pixels"`` (64 raw grey levels 0–16) and ``"pca16"`` (the first
    ``n_components`` principal components of the pixels, a deterministic
    full SVD).

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
    return Benchmark(name="digits", y=digits.target.astype(np.int64),
                     representations={"pixels": X, f"pca{n_components}": pca},
                     sources={"data": "sklearn.datasets.load_digits (UCI ML hand-written digits, 1797 × 64)"})


# ----------------------------------------------------------------------------- internals
def _existing_file(path, name) -> Path:
    path = Path(path)
    if not path.exists():
        raise InvalidInputError(f"{name} file {str(path)!r} does not exist")
    if path.is_dir():
        raise InvalidInputError(f"{name} path {str(path)!r} is a directory, expected a file")
    if path.stat().st_size == 0:
        raise InvalidInputError(f"{name} file {str(path)!r} is empty")
    return path


def _np_load(path: Path, *, name: str, key, default_keys) -> np.ndarray:
    suffix = path.suffix.lower()
    if suffix not in (".npy", ".npz"):
        raise InvalidInputError(f"{name}: unsupported file type {path.suffix!r} for {str(path)!r} (use .npy or .npz)")
    check_input_file(path, name=name)  # corrupted/truncated/pickled headers: a named error before np.load
    try:
        obj = np.load(path, allow_pickle=False)
    except ValueError as exc:
        if "allow_pickle" in str(exc) or "Object arrays" in str(exc):
            raise InvalidInputError(
                f"{name} file {str(path)!r} holds an object (pickled) array, which auditad never loads; "
                "save a numeric array instead") from None
        raise InvalidInputError(f"{name} file {str(path)!r} could not be read: {exc}") from None
    except (OSError, EOFError) as exc:
        raise InvalidInputError(f"{name} file {str(path)!r} could not be read: {exc}") from None
    if isinstance(obj, np.lib.npyio.NpzFile):
        with obj:
            keys = list(obj.files)
            if key is not None:
                if key not in keys:
                    raise InvalidInputError(f"{name} archive {str(path)!r} has no array {key!r}; it has {keys}")
                chosen = key
            elif len(keys) == 1:
                chosen = keys[0]
            else:
                chosen = next((kk for kk in default_keys if kk in keys), None)
                if chosen is None:
                    raise InvalidInputError(
                        f"{name} archive {str(path)!r} has several arrays {keys}; name one with the key option")
            try:
                return obj[chosen]
            except ValueError:
                raise InvalidInputError(
                    f"{name} array {chosen!r} in {str(path)!r} is an object (pickled) array, which auditad never loads"
                ) from None
    return obj
