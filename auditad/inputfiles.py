"""Reading the files auditad is given: regular-file checks, capped reads, arrays and tables of user data.

* **Inputs** (`check_regular_input`, `read_input_bytes`): a file read whole is refused
  unless it is a regular file (a FIFO would block, a device such as ``/dev/zero`` never
  ends) no larger than a stated cap, checked before anything is read.
* **Arrays on disk** (`open_npy`, `open_npz_member`) are memory-mapped, never read whole;
  `mapped_empty` makes the arrays that shards and converted dtypes are copied into (the block-wise
  conversion and checks are in `auditad._io`).
* **Files of user data** (`array_file`, `read_table`, `table_embeddings`): one array of a ``.npy`` /
  ``.npz`` / ``.mat`` file and the embedding columns of a CSV / Parquet table, every malformed file a
  named [`InvalidInputError`][auditad.errors.InvalidInputError]; used by `auditad.datasets`.

`auditad._io` re-exports the input checks and the array functions under their former names.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np

from . import _mapped_pages
from ._validation import check_input_file, check_regular_input, env_bytes, env_folder
from .errors import InvalidInputError

__all__ = [
    "check_regular_input",
    "read_input_bytes",
    "SHARDS_MEMORY_BYTES",
    "float_target",
    "open_npy",
    "open_npz_member",
    "is_mapped_array",
    "mapped_empty",
    "existing_file",
    "row_list",
    "read_table",
    "table_embeddings",
    "index_column_reason",
    "INDEX_COLUMN_NAMES",
    "array_file",
    "install_hint",
]


# --------------------------------------------------------------------------- inputs
def read_input_bytes(path, *, what: str, max_bytes: int) -> bytes:
    """The bytes of input ``path``: a regular file of at most ``max_bytes`` bytes, else a named error.

    Checked with `check_regular_input` before opening; opened without blocking (so a file
    swapped for a FIFO in between cannot hang the run) and checked again on the open file;
    at most ``max_bytes + 1`` bytes are ever read (a file that grows past the cap is refused).

    Raises
    ------
    InvalidInputError
        Missing, a folder, a device/FIFO/socket, unreadable, or larger than ``max_bytes``;
        the message names ``what`` and the path.

    See Also
    --------
    - `check_regular_input`: the check without reading.
    """
    check_regular_input(path, what=what, max_bytes=max_bytes)
    where = f"{what} {str(path)!r}"
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InvalidInputError(f"{where} cannot be read: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InvalidInputError(
                f"{where} is not a regular file (a device, FIFO or socket); auditad reads regular files only"
            )
        chunks, total = [], 0
        while total <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise InvalidInputError(f"{where} cannot be read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if total > max_bytes:
        raise InvalidInputError(f"{where} is more than the {max_bytes:,} bytes accepted for a {what.split()[0]}")
    return b"".join(chunks)


# --------------------------------------------------------------------------- arrays on disk
#: Arrays made by `mapped_empty` (shards concatenated, other dtypes converted) larger than this go to an unlinked
#: temporary file instead of memory; the environment variable ``AUDITAD_SHARDS_MEMORY_BYTES`` overrides it.
SHARDS_MEMORY_BYTES = 2 << 30


def float_target(dtype, where: str):
    """The float dtype an embedding of ``dtype`` is used in: float32/64 kept, narrow types float32, wide float64.

    Parameters
    ----------
    dtype : numpy.dtype
        The dtype of the array on disk.
    where : str
        Names the array in the message of a non-numeric dtype.

    Returns
    -------
    numpy.dtype
        float32 or float64 in native byte order.

    Raises
    ------
    InvalidInputError
        ``dtype`` is not real numeric (or holds objects).

    See Also
    --------
    - `mapped_empty`: the arrays converted into this dtype.
    """
    if dtype.kind not in "biuf" or dtype.hasobject:
        raise InvalidInputError(f"{where} must hold a real numeric array, got dtype {dtype}")
    if dtype.kind == "f" and dtype.itemsize in (4, 8):
        return dtype.newbyteorder("=")
    return np.dtype(np.float32) if dtype.itemsize <= 2 else np.dtype(np.float64)


def _map_npy(path, base: int, avail: int, where: str):
    """Read-only memory map of the ``.npy`` bytes at ``base`` of file ``path`` (``avail`` bytes long)."""
    fmt = np.lib.format
    with open(path, "rb") as fh:
        fh.seek(base)
        try:
            version = fmt.read_magic(fh)
            reader = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
            shape, fortran, dtype = reader(fh)
        except Exception as exc:  # ValueError, SyntaxError, EOFError, tokenize errors of a damaged header
            raise InvalidInputError(
                f"{where} is not a valid .npy array: corrupted header ({type(exc).__name__}: {exc})"
            ) from None
        header = fh.tell() - base
    if dtype.hasobject:
        raise InvalidInputError(
            f"{where} holds an object (pickled) array, which auditad never loads "
            "(arrays are read without pickle); save a numeric array instead"
        )
    need = int(np.prod(shape, dtype=object)) * dtype.itemsize
    if need > avail - header:
        raise InvalidInputError(
            f"{where} is truncated: its header announces shape {tuple(shape)} of {dtype} "
            f"({need:,} bytes) but it holds {max(avail - header, 0):,}"
        )
    if need == 0:
        return np.empty(shape, dtype=dtype)
    out = np.memmap(
        path, dtype=dtype, mode="r", offset=base + header, shape=tuple(shape), order="F" if fortran else "C"
    )
    _mapped_pages.register(out)  # its pages leave the resident set past a budget (the page cache keeps them)
    return out


def open_npy(path, *, name: str):
    """The array of a ``.npy`` file (format 1.0 to 3.0), memory-mapped read-only: nothing is read until used.

    Returns a read-only ``np.memmap`` of the file's data (a zero-size array is in memory).
    A missing, special, truncated or corrupted file and an object (pickled) array raise
    [`InvalidInputError`][auditad.errors.InvalidInputError] naming ``name`` and the path.

    See Also
    --------
    - `open_npz_member`: one array of an uncompressed ``.npz`` archive.
    - `read_npy_shards`: a folder of ``.npy`` parts read as one array.
    """
    st = check_regular_input(path, what=f"{name} file")
    return _map_npy(path, 0, st.st_size, f"{name} file {str(path)!r}")


def open_npz_member(path, key: str, *, name: str):
    """Array ``key`` of an ``.npz`` archive, memory-mapped when the archive stores it uncompressed.

    ``np.load(mmap_mode=...)`` reads archive members whole; a member written with ``np.savez`` is stored
    (``ZIP_STORED``), so its bytes lie unchanged in the archive and are mapped in place.

    Returns a read-only ``np.memmap``, or None when the member is compressed or encrypted (read it
    with ``np.load``).  A damaged archive or member is an [`InvalidInputError`][auditad.errors.InvalidInputError].

    See Also
    --------
    - `open_npy`: a ``.npy`` file.
    """
    import struct
    import zipfile

    where = f"{name} archive {str(path)!r} (array {key!r})"
    try:
        with zipfile.ZipFile(path) as zf:
            info = zf.NameToInfo.get(f"{key}.npy")
        if info is None or info.compress_type != zipfile.ZIP_STORED or info.flag_bits & 0x1:
            return None
        with open(path, "rb") as fh:
            fh.seek(info.header_offset)
            head = fh.read(30)
    except (OSError, zipfile.BadZipFile) as exc:
        raise InvalidInputError(f"{where} cannot be read: {type(exc).__name__}: {exc}") from None
    if len(head) < 30 or head[:4] != b"PK\x03\x04":
        raise InvalidInputError(f"{where} is corrupted: no local file header at offset {info.header_offset}")
    name_len, extra_len = struct.unpack("<HH", head[26:30])
    return _map_npy(path, info.header_offset + 30 + name_len + extra_len, info.file_size, where)


def is_mapped_array(arr) -> bool:
    """True when ``arr`` is (a view of) a memory map: a file (`open_npy`) or the anonymous map of `mapped_empty`.

    See Also
    --------
    - `check_disk_embeddings`: the checks of such an array, block by block.
    """
    import mmap

    while isinstance(arr, np.ndarray):
        if isinstance(arr, np.memmap):
            return True
        arr = arr.base
    return isinstance(arr.obj if isinstance(arr, memoryview) else arr, mmap.mmap)


def mapped_empty(shape, dtype):
    """A new writable array in an anonymous memory map, or past ``SHARDS_MEMORY_BYTES`` in an unlinked temporary
    file (in ``AUDITAD_TMPDIR``, else ``TMPDIR``) that the system removes when the array is freed.

    See Also
    --------
    - `read_npy_shards`, `as_float_array`: the arrays made with it.
    """
    import mmap
    import tempfile

    dtype, count = np.dtype(dtype), int(np.prod(shape))
    if count * dtype.itemsize > env_bytes("AUDITAD_SHARDS_MEMORY_BYTES", SHARDS_MEMORY_BYTES):
        with tempfile.TemporaryFile(dir=env_folder("AUDITAD_TMPDIR")) as fh:
            return np.memmap(fh, dtype=dtype, mode="w+", shape=tuple(shape)).view(np.ndarray)
    return np.frombuffer(mmap.mmap(-1, max(count * dtype.itemsize, 1)), dtype=dtype, count=count).reshape(shape)


# --------------------------------------------------------------------------- files of user data
def existing_file(path, name) -> Path:
    """``path`` as a ``Path`` when it is an existing, non-empty file, else a named error.

    Parameters
    ----------
    path : str or path-like
    name : str
        Names the input in the message (``"embeddings"``, ``"labels"``).

    Raises
    ------
    InvalidInputError
        ``path`` is missing, a directory, or empty.

    See Also
    --------
    - `array_file`, `read_table`: read the file.
    """
    path = Path(path)
    if not path.exists():
        raise InvalidInputError(f"{name} file {str(path)!r} does not exist")
    if path.is_dir():
        raise InvalidInputError(f"{name} path {str(path)!r} is a directory, expected a file")
    if path.stat().st_size == 0:
        raise InvalidInputError(f"{name} file {str(path)!r} is empty")
    return path


def _names_text(names, *, limit: int = 12) -> str:
    """Column names for a message: all of them up to ``limit``, else the first ones and the count."""
    shown = ", ".join(map(repr, names[:limit]))
    return f"[{shown}]" if len(names) <= limit else f"[{shown}, ...] ({len(names)} in total)"


def row_list(mask, *, offset: int = 1) -> str:
    """Row numbers (0-based index + ``offset``) of a boolean mask, at most 20 shown.

    Parameters
    ----------
    mask : array-like of bool
    offset : int, default 1
        Added to each 0-based index (1: data rows counted from 1).

    Returns
    -------
    str
        ``"3, 7, 12"``, or the first 20 and the count (``", ... (57 in total)"``).

    See Also
    --------
    - `table_embeddings`: names the rows of empty values with it.
    """
    idx = [int(i) + offset for i in np.flatnonzero(np.asarray(mask))]
    text = ", ".join(map(str, idx[:20]))
    return text + (f", ... ({len(idx)} in total)" if len(idx) > 20 else "")


def install_hint(package: str, extra: str) -> str:
    """How to install an optional dependency, in words that work from a package index and from a checkout.

    Parameters
    ----------
    package : str
        The distribution to install (``"pyarrow"``).
    extra : str
        The auditad extra that installs it (``"parquet"``).

    Returns
    -------
    str

    See Also
    --------
    - `read_table`: names it when Parquet needs pyarrow.

    Examples
    --------
    >>> print(install_hint("pyarrow", "parquet"))
    pip install pyarrow (or the extra: pip install 'auditad[parquet]' from a package index, pip install '.[parquet]' in a checkout of auditad)
    """
    return (
        f"pip install {package} (or the extra: pip install 'auditad[{extra}]' from a package index, "
        f"pip install '.[{extra}]' in a checkout of auditad)"
    )


def read_table(path: Path, *, name: str, blank_lines: bool = False):
    """A CSV/TSV/Parquet file as a DataFrame (pandas' missing-value markers: empty, NA, NaN, null, ...).

    ``blank_lines=True`` keeps the blank lines of a CSV as rows of missing values.

    Parameters
    ----------
    path : Path
        A ``.csv``, ``.tsv``, ``.txt``, ``.parquet`` or ``.pq`` file.
    name : str
        Names the input in the messages.
    blank_lines : bool, default False

    Returns
    -------
    pandas.DataFrame
        Without a leading unnamed index column (dropped with a
        [`SkippedItemWarning`][auditad.errors.SkippedItemWarning]).

    Raises
    ------
    InvalidInputError
        An empty or malformed file, or Parquet without pyarrow.

    See Also
    --------
    - `table_embeddings`: the embedding columns of the table.
    """
    import pandas as pd

    suffix = path.suffix.lower()
    try:
        if suffix in (".parquet", ".pq"):
            try:
                frame = pd.read_parquet(path)
                for j in range(frame.shape[1]):  # pyarrow-backed text is decoded lazily: decode (and fail) here
                    frame.iloc[:, j].to_numpy()
                return _without_index_column(frame, path)
            except ImportError:
                raise InvalidInputError(
                    f"{name}: reading Parquet needs pyarrow; install it with {install_hint('pyarrow', 'parquet')}"
                ) from None
        return _without_index_column(
            pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",", skip_blank_lines=not blank_lines), path
        )
    except pd.errors.EmptyDataError:
        raise InvalidInputError(f"{name} file {str(path)!r} is empty") from None
    except InvalidInputError:
        raise
    except Exception as exc:  # pyarrow / parser errors of a malformed file
        raise InvalidInputError(
            f"{name} file {str(path)!r} could not be read as a "
            f"{'Parquet' if suffix in ('.parquet', '.pq') else 'CSV'} table: {exc}"
        ) from None


def _without_index_column(frame, path: Path):
    """``frame`` without a leading column with an empty header (pandas reads it as ``Unnamed: 0``).

    ``DataFrame.to_csv()`` writes the row index as such a column by default; audited as a feature
    it would add a dimension that sorts the samples by their position in the file.  It is dropped
    with a [`SkippedItemWarning`][auditad.errors.SkippedItemWarning] (one ``auditad: note:`` line on the command line).
    """
    import warnings

    from .errors import SkippedItemWarning

    if frame.shape[1] < 2 or str(frame.columns[0]).strip() not in ("", "Unnamed: 0"):
        return frame
    first = frame.iloc[:, 0]
    values = first.to_numpy()
    counting = values.dtype.kind in "iu" and np.array_equal(values, np.arange(values.size))
    what = f"values 0..{values.size - 1}" if counting else "no header"
    warnings.warn(
        f"{path.name}: the first column has an empty header ({what}): it is the row index that "
        "pandas' DataFrame.to_csv() writes by default and is not used as data (write the file with "
        "index=False, or give a header to use it)",
        SkippedItemWarning,
        stacklevel=3,
    )
    return frame.iloc[:, 1:]


#: Header names of a leading column read as the row index (compared without case and surrounding blanks).
INDEX_COLUMN_NAMES = ("index", "id", "sample_id", "unnamed: 0")
#: Fewest rows for which a leading column of distinct integers counts as a key (below it, distinct small
#: integers are too likely by chance).
MIN_KEY_ROWS = 10


def index_column_reason(column) -> str | None:
    """Why a table's leading column is its row index rather than a feature, or None when it is not one.

    A row index is a column named ``index``, ``id``, ``sample_id`` or ``Unnamed: 0`` (what pandas'
    ``DataFrame.to_csv()`` writes for a named or unnamed index), or an integer column holding the
    positions 0..n-1 or 1..n (in any order), or, from `MIN_KEY_ROWS` rows on, distinct integers (a key).

    Parameters
    ----------
    column : pandas.Series
        The leading column of a table.

    Returns
    -------
    str or None
        The reason, in words (``"named 'sample_id'"``, ``"values 0..239"``, ``"distinct integers"``).

    See Also
    --------
    - `table_embeddings`: leaves such a column out unless the columns are named.

    Examples
    --------
    >>> import pandas as pd
    >>> index_column_reason(pd.Series([3.5, 1.0, 2.0], name="f0")) is None
    True
    >>> index_column_reason(pd.Series([0.1, 0.2], name="sample_id"))
    "named 'sample_id'"
    >>> index_column_reason(pd.Series([2, 0, 1], name="row"))
    'values 0..2'
    """
    label = str(column.name).strip()
    if label.lower() in INDEX_COLUMN_NAMES:
        return f"named {label!r}"
    values = column.to_numpy()
    if values.dtype.kind not in "iu" or values.size < 2:
        return None
    ordered = np.sort(values)
    n = values.size
    for start in (0, 1):
        if (
            ordered[0] == start
            and ordered[-1] == start + n - 1
            and np.array_equal(ordered, np.arange(start, start + n))
        ):
            return f"values {start}..{start + n - 1}"
    if n >= MIN_KEY_ROWS and bool(np.all(ordered[1:] != ordered[:-1])):
        return "distinct integers"
    return None


def _warn_index_column(path: Path, column: str, reason: str, *, what: str) -> None:
    import warnings

    from .errors import SkippedItemWarning

    warnings.warn(
        f"{path.name}: the leading column {column!r} ({reason}) is read as the row index of {what} and not "
        "used as an embedding dimension (name the embedding columns explicitly to use it)",
        SkippedItemWarning,
        stacklevel=4,
    )


def table_embeddings(frame, path: Path, *, columns, prefix, name: str, exclude=()) -> np.ndarray:
    """The embedding columns of a table as an (n, d) array (named errors for missing or non-numeric columns).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table (`read_table`).
    path : Path
        The file it was read from (for the messages).
    columns : list of str or None
        The embedding columns by name.
    prefix : str or None
        The embedding columns by prefix (not with ``columns``).
    name : str
        Names the input in the messages.
    exclude : sequence of str
        Columns never used when neither ``columns`` nor ``prefix`` is given (every other numeric,
        non-boolean column is, except a leading row-index column: see `index_column_reason`; it is
        left out with a [`SkippedItemWarning`][auditad.errors.SkippedItemWarning]).

    Returns
    -------
    ndarray of shape (n, d), float64

    Raises
    ------
    InvalidInputError
        Missing or non-numeric columns, no rows, or empty values (naming their rows).

    See Also
    --------
    - `read_table`: the table.
    """
    import pandas as pd

    names = [str(c) for c in frame.columns]
    frame = frame.set_axis(names, axis=1)
    if columns is not None and prefix is not None:
        raise InvalidInputError(f"{name}: give columns= or prefix=, not both")
    if columns is not None:
        if isinstance(columns, str):
            raise InvalidInputError(
                f"{name}: columns= must be a list of column names, got the string {columns!r} "
                "(use prefix= for columns sharing a prefix)"
            )
        chosen = [str(c) for c in columns]
        missing = [c for c in chosen if c not in names]
        if not chosen:
            raise InvalidInputError(f"columns=[]: {name}: name at least one embedding column")
        if missing:
            raise InvalidInputError(
                f"columns={chosen!r}: {name} file {str(path)!r} has no column(s) {missing}; "
                f"its columns are {_names_text(names)}"
            )
    elif prefix is not None:
        if not isinstance(prefix, str) or not prefix:
            raise InvalidInputError(f"prefix={prefix!r}: {name}: the prefix must be a non-empty string")
        chosen = [c for c in names if c.startswith(prefix)]
        if not chosen:
            raise InvalidInputError(
                f"prefix={prefix!r}: {name} file {str(path)!r} has no column starting with "
                f"{prefix!r}; its columns are {_names_text(names)}"
            )
    else:
        skip = set(map(str, exclude))
        first = frame.iloc[:, 0] if len(names) > 1 and names[0] not in skip else None
        numeric = first is not None and pd.api.types.is_numeric_dtype(first) and not pd.api.types.is_bool_dtype(first)
        reason = index_column_reason(first) if numeric else None  # a text id is no feature anyway: no note
        if reason is not None:
            _warn_index_column(path, names[0], reason, what=name)
            skip.add(names[0])
        chosen = [
            c
            for c in names
            if c not in skip and pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
        ]
        if not chosen:
            raise InvalidInputError(
                f"{name} file {str(path)!r} has no numeric column; name the embedding columns with columns= or prefix="
            )
    bad = [c for c in chosen if not pd.api.types.is_numeric_dtype(frame[c]) or pd.api.types.is_bool_dtype(frame[c])]
    if bad:
        raise InvalidInputError(f"{name} file {str(path)!r}: embedding column(s) {bad} are not numeric")
    if frame.shape[0] == 0:
        raise InvalidInputError(f"{name} file {str(path)!r} has no rows")
    arr = frame[chosen].to_numpy(dtype=np.float64)
    nan_rows = np.isnan(arr).any(axis=1)
    if nan_rows.any():
        raise InvalidInputError(
            f"{name} file {str(path)!r} has empty embedding values at data row(s) {row_list(nan_rows)}"
        )
    return arr


def _load_mat(path: Path, *, name: str) -> dict:
    """The arrays of a MATLAB file up to v7.2 (scipy.io.loadmat); v7.3 (HDF5) is a named error."""
    import scipy.io

    with open(path, "rb") as fh:
        head = fh.read(128)
    v73 = b"MATLAB 7.3" in head
    if not v73:
        try:
            v73 = scipy.io.matlab.matfile_version(str(path))[0] == 2  # 2 = the HDF5-based v7.3 format
        except Exception:  # not a MAT file at all: loadmat below names the problem
            v73 = False
    if not v73:
        try:
            data = scipy.io.loadmat(str(path))
        except MemoryError:  # a byte count inside a compressed element, beyond what the file holds
            raise InvalidInputError(
                f"{name} file {str(path)!r} is not a valid .mat file: it declares more data than memory holds"
            ) from None
        except Exception as exc:  # ValueError (not a MAT file), OSError / EOFError (truncated), zlib errors
            raise InvalidInputError(
                f"{name} file {str(path)!r} could not be read as a MATLAB .mat file: {type(exc).__name__}: {exc}"
            ) from None
    if v73:
        raise InvalidInputError(
            f"{name} file {str(path)!r} is a MATLAB v7.3 file (HDF5), which scipy.io cannot read; save it as "
            "version 7 (MATLAB: save(f, 'X', 'y', '-v7')) or convert it to .npz (e.g. with h5py)"
        )
    out = {}
    for key, value in data.items():
        if key.startswith("__"):
            continue
        if hasattr(value, "toarray"):  # sparse matrix: indices checked first (a damaged one crashes toarray)
            try:
                value.check_format(full_check=True)
            except ValueError as exc:
                raise InvalidInputError(
                    f"{name} file {str(path)!r}: sparse matrix {key!r} is corrupted ({exc})"
                ) from None
            value = value.toarray()
        out[key] = np.asarray(value)
    return out


def array_file(path: Path, *, name: str, key, default_keys, mapped: bool = False) -> np.ndarray:
    """One array of a ``.npy``, ``.npz`` or ``.mat`` file (``mapped``: memory-mapped where possible); every malformed
    file is an InvalidInputError.

    Parameters
    ----------
    path : Path
    name : str
        Names the input in the messages.
    key : str or None
        The array of an archive; None: its only array, else the first of ``default_keys`` it holds.
    default_keys : sequence of str
    mapped : bool, default False
        Return a ``.npy`` file or a stored ``.npz`` member memory-mapped (`open_npy`, `open_npz_member`)
        instead of in memory.

    Raises
    ------
    InvalidInputError
        An unsupported suffix, a malformed, truncated or pickled file, a missing or ambiguous key.

    See Also
    --------
    - `existing_file`: the check before reading.
    """
    import zipfile
    import zlib

    suffix = path.suffix.lower()
    if suffix not in (".npy", ".npz", ".mat"):
        raise InvalidInputError(
            f"{name}: unsupported file type {path.suffix!r} for {str(path)!r} (use .npy, .npz, .mat, .csv or .parquet)"
        )
    broken = (OSError, EOFError, zipfile.BadZipFile, zlib.error, KeyError, TypeError)
    if suffix == ".mat":
        check_input_file(path, name=name)  # declared shapes (sparse made dense) against the file's size
        arrays = _load_mat(path, name=name)
        keys = list(arrays)
        obj = None
    else:
        check_input_file(path, name=name)  # corrupted/truncated/pickled headers: a named error before np.load
        if suffix == ".npy":
            return open_npy(path, name=name) if mapped else np.array(open_npy(path, name=name))
        try:
            obj = np.load(path, allow_pickle=False)
        except ValueError as exc:
            if "allow_pickle" in str(exc) or "Object arrays" in str(exc):
                raise InvalidInputError(
                    f"{name} file {str(path)!r} holds an object (pickled) array, which auditad never loads; "
                    "save a numeric array instead"
                ) from None
            raise InvalidInputError(
                f"{name} file {str(path)!r} is not a valid {suffix} file (corrupted header?): {exc}"
            ) from None
        except broken as exc:
            raise InvalidInputError(
                f"{name} file {str(path)!r} is not a valid {suffix} file (truncated or "
                f"corrupted): {type(exc).__name__}: {exc}"
            ) from None
        keys = list(obj.files)
    try:
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
                    f"{name} archive {str(path)!r} has several arrays {keys}; name one with the key option"
                )
        if obj is None:
            return arrays[chosen]
        if (arr := open_npz_member(path, chosen, name=name)) is not None:
            return arr if mapped else np.array(arr)
        try:
            return obj[chosen]
        except ValueError as exc:
            if "allow_pickle" in str(exc) or "Object arrays" in str(exc):
                raise InvalidInputError(
                    f"{name} array {chosen!r} in {str(path)!r} is an object (pickled) array, which auditad never loads"
                ) from None
            raise InvalidInputError(f"{name} array {chosen!r} in {str(path)!r} is corrupted: {exc}") from None
        except broken as exc:
            raise InvalidInputError(
                f"{name} archive {str(path)!r} is truncated or corrupted (array {chosen!r}): "
                f"{type(exc).__name__}: {exc}"
            ) from None
    finally:
        if obj is not None:
            obj.close()
