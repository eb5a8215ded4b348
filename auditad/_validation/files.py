"""Input and output files: ``.npy``/``.npz`` headers, MAT-file level 5 structure, size limits, output paths."""

from __future__ import annotations

import os
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import numpy as np

from ..errors import InvalidInputError


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


def check_regular_input(path, *, what: str, max_bytes: int | None = None) -> os.stat_result:
    """Refuse an input that is missing, a folder, not a regular file, or larger than ``max_bytes``.

    ``what`` names the input in the message (``"summary file"``, ``"config"``).  Nothing is
    opened: a FIFO would block and a device such as ``/dev/zero`` never ends.  Returns the
    file's ``stat`` (symlinks followed).

    See Also
    --------
    - `read_input_bytes`: the bytes of such a file, capped (`auditad.inputfiles`).
    - `check_input_file`: this check, then the structure of an array file.
    """
    p = Path(path)
    where = f"{what} {str(p)!r}"
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise InvalidInputError(f"{where} does not exist") from None
    except OSError as exc:
        raise InvalidInputError(f"{where} cannot be read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise InvalidInputError(f"{where} is a directory, expected a file")
    if not stat.S_ISREG(st.st_mode):
        raise InvalidInputError(
            f"{where} is not a regular file (a device, FIFO or socket); auditad reads regular files only"
        )
    if max_bytes is not None and st.st_size > max_bytes:
        raise InvalidInputError(
            f"{where} is {st.st_size:,} bytes, more than the {max_bytes:,} bytes accepted for a {what.split()[0]}"
        )
    return st


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
    st = check_regular_input(p, what=f"{name} file")
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
    from ..errors import AuditadError

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
