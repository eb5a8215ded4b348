"""Parameter checks: arrays (embeddings, labels, scores), numbers, choices, the train/test split, renamed keywords."""

from __future__ import annotations

import numbers
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InvalidInputError


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


def check_n_jobs(value, *, name: str = "n_jobs") -> int:
    """``value`` checked as a worker count: a non-zero integer (-1 = one per CPU, -2 all but one, ..., as
    scikit-learn; `auditad.execution.resolve_n_jobs` turns it into a count)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value == 0:
        raise InvalidInputError(f"{name} must be a non-zero integer (-1 = all cores), got {describe(value)}")
    return int(value)


def check_off_or_int(value, *, name: str, off: str, low: int = 1) -> int | None:
    """``value`` checked as an integer ``>= low``, or ``0`` meaning ``off``: then None is returned.

    ``0`` is the one "switched off" value of the API, the configuration file and the command
    line (TOML has no None).  ``None`` is still accepted, with a `DeprecationWarning` naming ``0``.
    """
    if value is None:
        import sys
        import warnings

        level, frame, here = 1, sys._getframe(1), str(Path(__file__).resolve().parents[1])  # auditad/
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
