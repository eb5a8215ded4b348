"""All input checks of auditad.

Every check raises [`InvalidInputError`][auditad.errors.InvalidInputError] with a message
that names the parameter and shows the offending value, so a user never sees a
bare numpy traceback for a mistake of theirs.
"""

from __future__ import annotations

import numbers
import os
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from .errors import InvalidInputError

__all__ = [
    "check_embeddings",
    "check_labels",
    "check_same_length",
    "check_k",
    "check_off_or_int",
    "check_int",
    "check_float",
    "check_probability",
    "check_choice",
    "check_binary_labels",
    "check_scores",
    "check_probability_array",
    "describe",
    "check_input_file",
    "check_input_files",
    "declared_bytes_limit",
    "check_output_file",
    "check_figure_path",
    "reading_inputs",
    "renamed_parameter",
    "check_split",
]


def describe(value: Any, limit: int = 60) -> str:
    """Short printable form of ``value`` for error messages."""
    if isinstance(value, np.ndarray):
        return f"array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_embeddings(
    X,
    *,
    name: str = "X",
    ndim: int = 2,
    min_samples: int = 1,
    dtype=np.float64,
    max_abs: float | None = None,
    block_rows: int | None = None,
) -> np.ndarray:
    """Return ``X`` as a finite float array with ``ndim`` dimensions.

    Rejects object/pickled arrays, strings, the wrong number of dimensions,
    empty arrays, NaN or infinite entries (the message gives the first bad
    row), and, given ``max_abs`` (e.g. `MAX_EMBEDDING_ABS`), values beyond it in
    magnitude (their squared distances would overflow in a detector).  ``dtype`` float32 input is kept as float32 when ``dtype`` is None.
    The finiteness check runs ``block_rows`` rows at a time (default: 64 MB blocks), never on a temporary of
    the data's size, so a memory-mapped array is checked as it is read.
    """
    try:
        arr = np.asarray(X)
    except Exception as exc:  # ragged lists and the like
        raise InvalidInputError(f"{name} could not be read as an array: {exc}") from None
    if arr.dtype == object or arr.dtype.kind in "OUSVM":
        raise InvalidInputError(
            f"{name} must be a numeric array, got dtype {arr.dtype} ({describe(X)}); "
            "object/pickled or string arrays are not accepted"
        )
    if arr.dtype.kind not in "biuf":
        raise InvalidInputError(f"{name} must be a real numeric array, got dtype {arr.dtype}")
    if arr.ndim != ndim:
        hint = " (reshape a single feature with X.reshape(-1, 1))" if arr.ndim == 1 and ndim == 2 else ""
        raise InvalidInputError(f"{name} must be {ndim}-D, got a {arr.ndim}-D array of shape {arr.shape}{hint}")
    if arr.shape[0] < min_samples:
        raise InvalidInputError(f"{name} must have at least {min_samples} sample(s), got shape {arr.shape}")
    if arr.size == 0:
        raise InvalidInputError(f"{name} is empty: shape {arr.shape}")
    if dtype is not None:
        arr = arr.astype(dtype, copy=False)
    elif arr.dtype.kind != "f":
        arr = arr.astype(np.float64)
    step = block_rows or (max(1, (64 << 20) // max(1, arr.itemsize * int(np.prod(arr.shape[1:])))) if arr.ndim else 1)
    for a in range(0, max(arr.shape[0] if arr.ndim else 1, 1), step):  # in blocks: no temporary of the data's size
        block = arr[a : a + step] if arr.ndim else arr
        if not np.all(np.isfinite(block)):
            bad = np.argwhere(~np.isfinite(block))[0]
            kind = "NaN" if np.isnan(block[tuple(bad)]) else "inf"
            bad[0] += a if arr.ndim else 0
            raise InvalidInputError(
                f"{name} contains non-finite values ({kind} at index {tuple(int(b) for b in bad)}); "
                f"{int(_count_non_finite(arr, step))} entries are NaN or infinite"
            )
    if max_abs is not None:
        big = max(abs(float(arr.max())), abs(float(arr.min())))
        if big > max_abs:
            raise InvalidInputError(
                f"{name} holds values up to {big:.3g} in magnitude: squared distances between "
                f"them overflow float64 (at most {max_abs:.0e} accepted); rescale the embeddings"
            )
    return arr


def _count_non_finite(arr: np.ndarray, step: int) -> int:
    """NaN and infinite entries of ``arr``, counted ``step`` rows at a time."""
    if arr.ndim == 0:
        return int(not np.isfinite(arr))
    return sum(int(np.count_nonzero(~np.isfinite(arr[a : a + step]))) for a in range(0, arr.shape[0], step))


#: Largest magnitude of an embedding value the detectors accept (``check_embeddings(max_abs=...)``): squared
#: distances over 10**6 dimensions stay finite below it. The exact kNN engine (leakage, scoring) certifies its
#: neighbours at any finite magnitude and applies no such limit.
MAX_EMBEDDING_ABS = 1e150


def check_labels(y, *, name: str = "y", min_classes: int = 1) -> np.ndarray:
    """Return 1-D labels; rejects object arrays that are not plain strings/integers, NaN, floats beyond
    2**53 (no exact integer), and too few classes."""
    try:
        arr = np.asarray(y)
    except Exception as exc:
        raise InvalidInputError(f"{name} could not be read as an array: {exc}") from None
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise InvalidInputError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.size == 0:
        raise InvalidInputError(f"{name} is empty")
    if arr.dtype == object:
        bad = next(
            (
                (i, v)
                for i, v in enumerate(arr.tolist())
                if not isinstance(v, (str, numbers.Integral)) or isinstance(v, bool)
            ),
            None,
        )
        if bad is not None:  # a list-valued Parquet cell, bytes, a float among strings, ...
            raise InvalidInputError(
                f"{name} must hold integers or strings, got {type(bad[1]).__name__} "
                f"{describe(bad[1], 40)} at index {bad[0]}"
            )
        arr = arr.astype(str)
    if arr.dtype.kind == "f":
        if np.isnan(arr).any():
            raise InvalidInputError(f"{name} contains NaN at index {int(np.flatnonzero(np.isnan(arr))[0])}")
        huge = np.abs(arr) > 2.0**53  # beyond 2**53 a float is no exact integer: classes would merge or wrap
        if huge.any():
            i = int(np.flatnonzero(huge)[0])
            raise InvalidInputError(
                f"{name} holds {float(arr[i])!r} at index {i}: a class label is a string or "
                "an integer of at most 2**53 in magnitude"
            )
        if np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
    if arr.dtype.kind not in "biuUS":
        raise InvalidInputError(f"{name} must hold integer or string class labels, got dtype {arr.dtype}")
    n_classes = np.unique(arr).size
    if n_classes < min_classes:
        raise InvalidInputError(
            f"{name} must contain at least {min_classes} classes, got {n_classes} ({describe(np.unique(arr).tolist())})"
        )
    return arr


def check_same_length(a, b, *, names=("X", "y")) -> None:
    """Raise when two arrays do not have the same number of samples."""
    if len(a) != len(b):
        raise InvalidInputError(f"{names[0]} and {names[1]} must have the same length, got {len(a)} and {len(b)}")


def _is_missing(v) -> bool:
    return v is None or (isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) and v != v)


def _split_side(v, train, test, spelled: bool) -> int:
    """1 for a train entry, 0 for a test entry, -1 for anything else (missing included)."""
    if _is_missing(v):
        return -1
    if spelled and isinstance(v, (bool, np.bool_)):
        return int(bool(v))
    if spelled and isinstance(v, numbers.Real) and v in (0, 1):
        return int(v)
    for side, target in ((1, train), (0, test)):
        if isinstance(v, str) and isinstance(target, str):
            if v.strip().lower() == target.lower():
                return side
            continue
        try:
            if bool(v == target):
                return side
        except Exception:
            continue
    return -1


def check_split(split, *, train="train", test="test", name: str = "split", n: int | None = None) -> np.ndarray:
    """A train/test column as a boolean array (True = train): the one parser of every split auditad reads.

    Accepted entries: ``train`` and ``test`` (strings compared without case or surrounding spaces, so
    ``"Train"`` is a train row); with the default spellings also booleans (True = train) and 0/1
    (1 = train). Missing values and anything else are refused, with their counts; both sides must occur.

    Parameters
    ----------
    split : array-like of shape (n,)
    train, test : scalar, default "train", "test"
        The two values of the column.
    name : str
        Parameter name used in messages.
    n : int, optional
        The number of rows the column must have.

    Returns
    -------
    ndarray of shape (n,), bool

    Raises
    ------
    InvalidInputError
        Another value, a missing value, an empty, not 1-D or wrongly sized column, or one side only.

    Examples
    --------
    >>> check_split(["train", "Test", "TRAIN"]).tolist(), check_split([1, 0, 0]).tolist()
    ([True, False, True], [True, False, False])
    >>> check_split(["a", "b"], train="b", test="a").tolist()
    [False, True]
    """
    if _split_side(test, train, test, False) == 1:
        raise InvalidInputError(f"train and test must differ, got {train!r} for both")
    try:
        arr = np.asarray(split, dtype=object)
    except Exception as exc:
        raise InvalidInputError(f"{name} could not be read as an array: {exc}") from None
    if arr.ndim != 1:
        raise InvalidInputError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.size == 0:
        raise InvalidInputError(f"{name} is empty")
    if n is not None and arr.shape[0] != n:
        raise InvalidInputError(f"{name} must have one entry per sample ({n}), got {arr.shape[0]}")
    spelled = (train, test) == ("train", "test")
    side = np.fromiter((_split_side(v, train, test, spelled) for v in arr.tolist()), dtype=np.int8, count=arr.size)
    bad = side < 0
    if bad.any():
        counts: dict = {}
        for v in arr[bad].tolist():
            key = "missing" if _is_missing(v) else repr(v)
            counts[key] = counts.get(key, 0) + 1
        shown = ", ".join(f"{key} ({c} row{'s' if c > 1 else ''})" for key, c in list(counts.items())[:5])
        more = f" and {len(counts) - 5} more" if len(counts) > 5 else ""
        raise InvalidInputError(
            f"{name} must hold only {train!r} (train) and {test!r} (test); "
            f"{int(bad.sum())} row(s) hold other values: {shown}{more}"
        )
    is_train = side == 1
    if is_train.all() or not is_train.any():
        which = train if not is_train.any() else test
        raise InvalidInputError(f"{name} has no {which!r} row: both train and test rows are needed")
    return is_train


def check_int(value, *, name: str, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` as int, checking ``low <= value <= high``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise InvalidInputError(f"{name} must be an integer, got {describe(value)}")
    value = int(value)
    if low is not None and value < low:
        raise InvalidInputError(f"{name} must be >= {low}, got {value}")
    if high is not None and value > high:
        raise InvalidInputError(f"{name} must be <= {high}, got {value}")
    return value


def env_bytes(variable: str, default: int, *, zero: str = "") -> int:
    """A byte count from the environment variable ``variable`` (``default`` when it is unset).

    A value that is not a whole number of bytes (≥ 0) is an `InvalidInputError` naming the variable and
    the value; ``zero`` says what 0 means, in the message.
    """
    raw = os.environ.get(variable)
    if raw is None:
        return int(default)
    try:
        value = int(raw.strip())
    except ValueError:
        value = -1
    if value < 0:
        meaning = f" ({zero})" if zero else ""
        raise InvalidInputError(f"{variable} must be a whole number of bytes{meaning}, got {raw!r}")
    return value


def env_folder(variable: str) -> str | None:
    """The existing folder named by the environment variable ``variable`` (None when it is unset or empty);
    a path that is not a folder is an `InvalidInputError` naming the variable and the value."""
    raw = os.environ.get(variable)
    if not raw:
        return None
    if not os.path.isdir(raw):
        raise InvalidInputError(f"{variable} must name an existing folder, got {raw!r}")
    return raw


def check_off_or_int(value, *, name: str, off: str, low: int = 1) -> int | None:
    """``value`` checked as an integer ``>= low``, or ``0`` meaning ``off``: then None is returned.

    ``0`` is the one "switched off" value of the API, the configuration file and the command
    line (TOML has no None).  ``None`` is still accepted, with a `DeprecationWarning` naming ``0``.
    """
    if value is None:
        import sys
        import warnings

        level, frame, here = 1, sys._getframe(1), str(Path(__file__).resolve().parent)
        while frame is not None and str(Path(frame.f_code.co_filename).resolve()).startswith(here):
            level, frame = level + 1, frame.f_back  # the warning points at the caller's line, outside auditad
        warnings.warn(
            f"{name}=None is deprecated: use {name}=0 ({off}; the same value as in a configuration "
            "file and on the command line)",
            DeprecationWarning,
            stacklevel=level + 1,
        )
        return None
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value == 0:
        return None
    try:
        return check_int(value, name=name, low=low)
    except InvalidInputError:
        raise InvalidInputError(f"{name} must be an integer >= {low}, or 0 ({off}), got {describe(value)}") from None


def check_k(k, n: int, *, name: str = "k", strict: bool = True) -> int:
    """Check a neighbour count: ``1 <= k < n`` (``k <= n`` when ``strict`` is False)."""
    k = check_int(k, name=name, low=1)
    if strict and k >= n:
        raise InvalidInputError(
            f"{name} must be smaller than the number of samples ({n}) when self is excluded, got {name}={k}"
        )
    if not strict and k > n:
        raise InvalidInputError(f"{name} must be at most the number of reference samples ({n}), got {name}={k}")
    return k


def check_float(
    value,
    *,
    name: str,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """Return ``value`` as a finite float inside the given (open/closed) bounds."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidInputError(f"{name} must be a number, got {describe(value)}")
    value = float(value)
    if not np.isfinite(value):
        raise InvalidInputError(f"{name} must be finite, got {value}")
    if low is not None and (value < low or (low_open and value == low)):
        raise InvalidInputError(f"{name} must be {'>' if low_open else '>='} {low}, got {value}")
    if high is not None and (value > high or (high_open and value == high)):
        raise InvalidInputError(f"{name} must be {'<' if high_open else '<='} {high}, got {value}")
    return value


def renamed_parameter(old: str, new: str):
    """Decorator: the keyword ``old`` stays accepted as a deprecated name of the keyword ``new``.

    Passing ``old`` gives a `DeprecationWarning` that names ``new`` and passes the value on as ``new``;
    passing both raises [`InvalidInputError`][auditad.errors.InvalidInputError] (as scipy's
    ``_rename_parameter``). The signature shown (``inspect.signature``) is the function's own, with ``new``
    only. A warning the decorated function issues itself must count this wrapper as one more frame to point
    at its caller (``stacklevel`` + 1).
    """
    import functools

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if old in kwargs:
                if new in kwargs:
                    raise InvalidInputError(f"{fn.__name__}: give {new}= only: {old}= is its former (deprecated) name")
                import warnings

                warnings.warn(
                    f"{fn.__name__}: {old}= is deprecated: use {new}= (same meaning)", DeprecationWarning, stacklevel=2
                )
                kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)

        return wrapper

    return decorate


def check_probability(value, *, name: str, open_interval: bool = False) -> float:
    """A float in [0, 1] (or (0, 1) when ``open_interval``)."""
    return check_float(value, name=name, low=0.0, high=1.0, low_open=open_interval, high_open=open_interval)


def check_choice(value, choices, *, name: str) -> str:
    """Check that ``value`` is one of ``choices``."""
    if value not in choices:
        raise InvalidInputError(f"{name} must be one of {sorted(choices)}, got {describe(value)}")
    return value


def check_binary_labels(y_true, *, name: str = "y_true") -> np.ndarray:
    """Return binary labels as int8 {0, 1} (1 = anomaly = positive); both classes must be present."""
    arr = np.asarray(y_true)
    if arr.ndim != 1:
        raise InvalidInputError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise InvalidInputError(f"{name} must be binary 0/1 (or bool), got dtype {arr.dtype}")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise InvalidInputError(f"{name} contains NaN")
    values = np.unique(arr)
    if not np.all(np.isin(values, [0, 1])):
        raise InvalidInputError(f"{name} must be binary 0/1 (1 = anomaly), got values {describe(values.tolist())}")
    if values.size < 2:
        raise InvalidInputError(
            f"{name} contains a single class ({describe(values.tolist())}); both anomalies (1) and normals (0) are needed"
        )
    return arr.astype(np.int8)


def check_scores(scores, *, name: str = "scores", ndim: int | tuple[int, ...] = 1) -> np.ndarray:
    """Return finite float64 scores (1-D, or 2-D n×m for many score columns)."""
    arr = np.asarray(scores)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise InvalidInputError(f"{name} must be numeric, got dtype {arr.dtype}")
    ndims = (ndim,) if isinstance(ndim, int) else ndim
    if arr.ndim not in ndims:
        raise InvalidInputError(f"{name} must be {' or '.join(f'{d}-D' for d in ndims)}, got shape {arr.shape}")
    arr = arr.astype(np.float64, copy=False)
    if not np.all(np.isfinite(arr)):
        raise InvalidInputError(f"{name} contains {int(np.sum(~np.isfinite(arr)))} NaN or infinite value(s)")
    return arr


def check_probability_array(value, *, name: str, open_interval: bool = False) -> np.ndarray:
    """Return ``value`` as a float64 array (any shape, scalars allowed) with every entry in [0, 1] ((0, 1) when ``open_interval``)."""
    try:
        arr = np.asarray(value)
    except Exception as exc:
        raise InvalidInputError(f"{name} could not be read as an array: {exc}") from None
    if arr.dtype == object or arr.dtype.kind not in "biuf" or arr.dtype.kind == "b":
        raise InvalidInputError(f"{name} must be numeric, got {describe(value)}")
    arr = arr.astype(np.float64)
    if arr.size == 0:
        raise InvalidInputError(f"{name} is empty")
    if np.isnan(arr).any():
        raise InvalidInputError(f"{name} contains NaN")
    bad = (arr <= 0) | (arr >= 1) if open_interval else (arr < 0) | (arr > 1)
    if bad.any():
        interval = "(0, 1)" if open_interval else "[0, 1]"
        raise InvalidInputError(f"{name} must lie in {interval}, got {float(arr[bad].flat[0])!r}")
    return arr


# --------------------------------------------------------------------------- input files
def _npy_header(fh, where: str) -> tuple[tuple, np.dtype, int]:
    """Read the header of a ``.npy`` stream; return (shape, dtype, header length) or raise InvalidInputError."""
    fmt = np.lib.format
    start = fh.tell() if hasattr(fh, "tell") else 0
    try:
        major, minor = fmt.read_magic(fh)
        if (major, minor) == (1, 0):
            shape, _, dtype = fmt.read_array_header_1_0(fh)
        elif (major, minor) in ((2, 0), (3, 0)):
            shape, _, dtype = fmt.read_array_header_2_0(fh)
        else:
            raise ValueError(f"unknown .npy format version {major}.{minor}")
    except (ValueError, SyntaxError, EOFError, OverflowError, RecursionError, MemoryError) as exc:
        raise InvalidInputError(
            f"{where} is not a valid .npy array: corrupted header ({type(exc).__name__}: {_one_line(exc)})"
        ) from None
    except Exception as exc:  # tokenize.TokenError and whatever a damaged header makes the parser raise
        raise InvalidInputError(
            f"{where} is not a valid .npy array: corrupted header ({type(exc).__name__}: {_one_line(exc)})"
        ) from None
    if dtype.hasobject:
        raise InvalidInputError(
            f"{where} holds an object (pickled) array, which auditad never loads "
            "(arrays are read without pickle); save a numeric array instead"
        )
    header_len = (fh.tell() if hasattr(fh, "tell") else 0) - start
    return tuple(shape), dtype, header_len


def _one_line(exc: BaseException, limit: int = 160) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _check_npz_member(zf, info, where: str, archive_size: int) -> None:
    """One ``.npy`` member of an ``.npz`` archive: a plausible unpacked size, and a header whose shape fits in it."""
    import io

    if info.file_size > max(DECLARED_RATIO * info.compress_size, 4096) or info.file_size > declared_bytes_limit(
        archive_size
    ):
        raise InvalidInputError(
            f"{where} (array {info.filename[:-4]!r}) declares {info.file_size:,} "
            f"bytes unpacked from {info.compress_size:,} packed bytes: more than "
            "deflate produces or memory allows (a damaged or hostile archive)"
        )
    with zf.open(info) as fh:
        head = fh.read(65536 + 16)
    shape, dtype, header_len = _npy_header(io.BytesIO(head), f"{where} (array {info.filename[:-4]!r})")
    need = int(np.prod(shape, dtype=object)) * dtype.itemsize
    if need > info.file_size - header_len:
        raise InvalidInputError(
            f"{where} (array {info.filename[:-4]!r}) is truncated: shape "
            f"{shape} of {dtype} needs {need} bytes, the member holds "
            f"{info.file_size - header_len}"
        )


def check_input_file(path, *, name: str) -> Path:
    """Check that input ``path`` is a readable regular file; for ``.npy``/``.npz``/``.mat`` also check its structure.

    Reads only headers (the ``.npy`` header, the zip directory and each member's
    ``.npy`` header, a ``.mat`` file's element tags and variable headers), so corrupted,
    truncated or pickled arrays, and sizes no file of this size can hold (see
    `declared_bytes_limit`), are refused with a message naming ``name`` and the file
    before any large read or allocation.

    Raises
    ------
    InvalidInputError
        Missing file, a folder or special file, an unreadable file, a corrupted or
        truncated ``.npy``/``.npz``, or an object (pickled) array.
    """
    p = Path(path)
    where = f"{name} file {str(p)!r}"
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise InvalidInputError(f"{where} does not exist") from None
    except OSError as exc:
        raise InvalidInputError(f"{where} cannot be read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise InvalidInputError(f"{name} path {str(p)!r} is a directory, expected a file")
    if not stat.S_ISREG(st.st_mode):
        raise InvalidInputError(f"{where} is not a regular file (device, FIFO or socket)")
    if not os.access(p, os.R_OK):
        raise InvalidInputError(f"{where} cannot be read: permission denied")
    suffix = p.suffix.lower()
    if suffix == ".npy":
        with open(p, "rb") as fh:
            shape, dtype, header_len = _npy_header(fh, where)
        need = int(np.prod(shape, dtype=object)) * dtype.itemsize
        if need > st.st_size - header_len:
            raise InvalidInputError(
                f"{where} is truncated: its header announces shape {shape} of {dtype} "
                f"({need} bytes) but the file holds {st.st_size - header_len}"
            )
    elif suffix == ".npz":
        import zipfile

        try:
            with zipfile.ZipFile(p) as zf:
                for info in (i for i in zf.infolist() if i.filename.endswith(".npy")):
                    _check_npz_member(zf, info, where, st.st_size)
        except InvalidInputError:
            raise
        except Exception as exc:  # BadZipFile, EOFError, zlib.error, an unsupported compression method, ...
            raise InvalidInputError(
                f"{where} is not a valid .npz archive: truncated or corrupted ({type(exc).__name__}: {_one_line(exc)})"
            ) from None
    elif suffix == ".mat":
        _check_mat(p, st.st_size, where)
    return p


#: An input file may declare arrays of at most this many times its own size: zlib's largest
#: ratio is 1032 : 1, so no honest compressed file declares more.
DECLARED_RATIO = 1100
#: ... but a small file may always declare up to this many bytes (a tiny sparse matrix made dense).
DECLARED_FLOOR = 64 * 1024 * 1024


def _memory_bytes() -> int | None:
    """Physical memory, or the address-space limit of this process when that is lower (None if unknown)."""
    sizes = []
    try:
        sizes.append(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        pass
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft not in (resource.RLIM_INFINITY, -1) and soft > 0:
            sizes.append(soft)
    except (ImportError, ValueError, OSError):
        pass
    return min(sizes) if sizes else None


def declared_bytes_limit(file_size: int) -> int:
    r"""Most bytes that an input file of ``file_size`` bytes may declare for one array.

    \(\min(\max(1100\,s, 64\ \mathrm{MiB}), M/2)\) for a file of \(s\) bytes and memory \(M\)
    (physical memory, or the process's address-space limit when lower): a file whose
    headers announce more is damaged or hostile, and is refused before anything is
    allocated.
    """
    limit = max(DECLARED_RATIO * int(file_size), DECLARED_FLOOR)
    memory = _memory_bytes()
    return min(limit, memory // 2) if memory else limit


#: MAT-file level-5 data types (miINT8 .. miUTF32; 8, 10 and 11 are reserved).
_MAT5_TYPES = frozenset({1, 2, 3, 4, 5, 6, 7, 9, 12, 13, 14, 15, 16, 17, 18})
_MI_MATRIX, _MI_COMPRESSED = 14, 15


def _check_matrix_header(fh, start: int, end: int, endian: str, where: str) -> None:
    """A miMATRIX starts with its array flags (miUINT32 x 2, a known class), dimensions (miINT32, >= 2 of
    them; absent for opaque objects) and name (miINT8), as scipy's reader assumes."""
    import struct

    def tag(pos):
        if pos + 8 > end:
            raise InvalidInputError(f"{where} is truncated")
        fh.seek(pos)
        first, second = struct.unpack(endian + "II", fh.read(8))
        if first >> 16:  # a small data element holds at most 4 bytes
            if first >> 16 > 4:
                raise InvalidInputError(f"{where} is damaged")
            return first & 0xFFFF, first >> 16, pos + 4, pos + 8
        return first, second, pos + 8, pos + 8 + second + (-second % 8)

    mdtype, nbytes, data, nxt = tag(start)
    fh.seek(data)
    cls = struct.unpack(endian + "I", fh.read(4))[0] & 0xFF if mdtype == 6 and nbytes == 8 else 0
    if not 1 <= cls <= 17:
        raise InvalidInputError(f"{where} has damaged array flags")
    if cls == 17:  # mxOPAQUE_CLASS: no dimensions
        return
    mdtype, nbytes, data, nxt = tag(nxt)
    if mdtype not in (5, 6) or nbytes < 8 or nbytes % 4 or nxt > end:  # miINT32 (some writers: miUINT32)
        raise InvalidInputError(f"{where} has damaged dimensions")
    fh.seek(data)
    if mdtype == 5 and any(d < 0 for d in struct.unpack(endian + f"{nbytes // 4}i", fh.read(nbytes))):
        raise InvalidInputError(f"{where} has negative dimensions")
    if tag(nxt)[0] not in (1, 2, 16):  # miINT8 (also seen: miUINT8, miUTF8)
        raise InvalidInputError(f"{where} has a damaged name")


def _walk_mat5(
    fh, start: int, end: int, endian: str, bad: str, limit: int, *, top: bool = False, depth: int = 0
) -> None:
    """Check the element tags in bytes [start, end) of a level-5 MAT stream (MATLAB's "MAT-File Format", ch. 1)."""
    import io
    import struct
    import zlib

    if depth > 32:
        raise InvalidInputError(f"{bad}: nested more than 32 levels deep")
    pos = start
    while pos + 8 <= end:
        fh.seek(pos)
        first, second = struct.unpack(endian + "II", fh.read(8))
        if first >> 16:  # a small data element: type and byte count in the first word, data in the second
            mdtype, nbytes, step, extent = first & 0xFFFF, first >> 16, 8, 8
            if nbytes > 4 or top or mdtype in (_MI_MATRIX, _MI_COMPRESSED):
                raise InvalidInputError(f"{bad}: the element at byte {pos} is damaged")
        else:
            mdtype, nbytes = first, second
            pad = 0 if mdtype in (_MI_MATRIX, _MI_COMPRESSED) else -nbytes % 8
            step, extent = 8 + nbytes + pad, 8 + nbytes
        if mdtype not in _MAT5_TYPES or (mdtype == _MI_COMPRESSED and not top):
            raise InvalidInputError(f"{bad}: the element at byte {pos} has the unknown data type {mdtype}")
        if pos + extent > end:
            raise InvalidInputError(
                f"{bad}: truncated or corrupted (the element at byte {pos} declares "
                f"{nbytes:,} bytes, its container ends {max(end - pos - 8, 0):,} bytes later)"
            )
        if mdtype == _MI_MATRIX and nbytes:
            _check_matrix_header(fh, pos + 8, pos + 8 + nbytes, endian, f"{bad}: the matrix at byte {pos}")
            _walk_mat5(fh, pos + 8, pos + 8 + nbytes, endian, bad, limit, depth=depth + 1)
        elif mdtype == _MI_COMPRESSED:
            fh.seek(pos + 8)
            inflate = zlib.decompressobj()
            try:
                inner = inflate.decompress(fh.read(nbytes), limit + 1)
            except zlib.error as exc:
                raise InvalidInputError(f"{bad}: a compressed element does not inflate ({exc})") from None
            if len(inner) > limit:
                raise InvalidInputError(f"{bad}: a compressed element inflates to more than {limit:,} bytes")
            _walk_mat5(io.BytesIO(inner), 0, len(inner), endian, bad, limit, top=True, depth=depth + 1)
        pos += step


def _check_mat(p: Path, size: int, where: str) -> None:
    """A MATLAB file's declared types and sizes against its real size, before scipy reads anything.

    Level-5 files (v6, v7): every element tag, nested ones included, must name a MAT data
    type (scipy's readers index a table by it without a bounds check: a damaged type code
    crashes the process) and end inside its parent; compressed elements are inflated (at
    most `declared_bytes_limit` bytes) and checked the same way.  Every format: each
    variable's declared shape, made dense (a sparse matrix is densified), must fit
    `declared_bytes_limit`.
    """
    with open(p, "rb") as fh:
        head = fh.read(128)
        if len(head) == 128 and head[126:128] in (b"IM", b"MI") and head[124:126] in (b"\x00\x01", b"\x01\x00"):
            # level 5 (version 0x0100); v7.3 (0x0200) is HDF5, refused by the loader with its own message
            endian = "<" if head[126:128] == b"IM" else ">"
            _walk_mat5(fh, 128, size, endian, f"{where} is not a valid .mat file", declared_bytes_limit(size), top=True)
    import scipy.io

    try:
        declared = scipy.io.whosmat(str(p))
    except MemoryError:
        raise InvalidInputError(
            f"{where} is not a valid .mat file: its headers declare more data than memory "
            f"holds (a file of {size:,} bytes)"
        ) from None
    except Exception:  # noqa: BLE001  (not a MAT file, truncated, ...: the loader names the problem)
        return
    limit = declared_bytes_limit(size)
    for var, shape, cls in declared:
        need = int(np.prod([int(d) for d in shape], dtype=object)) * 8
        if need > limit:
            raise InvalidInputError(
                f"{where} declares variable {var!r} of shape {tuple(shape)} ({cls}): "
                f"{need:,} bytes as a dense array, more than the {limit:,} accepted for a file "
                f"of {size:,} bytes"
            )


def check_input_files(named) -> None:
    """`check_input_file` on each ``{name: path}`` item (None paths skipped), in order."""
    for name, path in named.items():
        if path is not None:
            check_input_file(path, name=name)


#: Exceptions that a parser raises on a damaged or hostile input file (beyond ValueError and OSError).
_PARSE_ERRORS = (ValueError, SyntaxError, EOFError, OverflowError, RecursionError, OSError)


@contextmanager
def reading_inputs(paths, *, name: str = "input") -> Iterator[None]:
    """Context manager that turns a loader's low-level parse error into `InvalidInputError`.

    ``paths`` are the files being read (named in the message).  Errors raised on
    purpose ([`AuditadError`][auditad.errors.AuditadError]) pass through; ``zipfile.BadZipFile``,
    ``SyntaxError`` / ``tokenize.TokenError`` from a corrupted ``.npy`` header,
    ``UnicodeDecodeError``, ``EOFError``, ``zlib.error``, pyarrow's errors and the like become one named
    error.  ``MemoryError`` and ``KeyboardInterrupt`` pass through unchanged.
    """
    from .errors import AuditadError

    try:
        yield
    except AuditadError:
        raise
    except MemoryError:
        raise
    except Exception as exc:
        import tokenize
        import zipfile
        import zlib

        arrow = type(exc).__module__.startswith("pyarrow")  # ArrowException: a damaged Parquet file, decoded lazily
        if not (arrow or isinstance(exc, _PARSE_ERRORS + (zipfile.BadZipFile, zlib.error, tokenize.TokenError))):
            raise
        files = [str(p) for p in (paths if isinstance(paths, (list, tuple)) else [paths]) if p is not None]
        culprit = getattr(exc, "filename", None)
        if culprit:
            files = [str(culprit)]
        shown = ", ".join(repr(f) for f in files[:4]) + (f" (+{len(files) - 4} more)" if len(files) > 4 else "")
        raise InvalidInputError(
            f"{name} {'file' if len(files) == 1 else 'files'} {shown} could not be read: "
            f"{type(exc).__name__}: {_one_line(exc)}"
        ) from None


# --------------------------------------------------------------------------- output files
def check_output_file(path, *, name: str) -> None:
    """Refuse an output file name before any work: a folder, a special file or a missing parent folder."""

    if path is None:
        return
    p = Path(path)
    target = Path(os.path.realpath(p)) if p.is_symlink() else p
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise InvalidInputError(f"{name} {str(path)!r}: {exc.strerror or exc}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise InvalidInputError(f"{name} {str(path)!r} is a directory, expected a file name")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise InvalidInputError(
            f"{name} {str(path)!r} is a special file (device, FIFO or socket); auditad writes regular files only"
        )
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise InvalidInputError(f"{name} {str(path)!r}: its folder does not exist")


def check_figure_path(path, *, name: str) -> None:
    """Refuse a figure file name whose extension matplotlib cannot write, before any work."""
    if path is None:
        return

    check_output_file(path, name=name)
    from matplotlib.backend_bases import FigureCanvasBase

    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = Path(path).suffix.lstrip(".").lower()
    if suffix and suffix not in formats:
        raise InvalidInputError(
            f"{name} {str(path)!r}: unsupported figure format {suffix!r}; use one of {', '.join(sorted(formats))}"
        )
