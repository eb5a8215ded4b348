"""Memory-mapped arrays sent to other processes by path instead of by content.

A ``numpy.memmap`` that maps a whole file region (what ``numpy.load(path,
mmap_mode="r")`` returns) is described completely by a few numbers: the file,
the byte offset of its data, its dtype, shape and memory order. `memmap_token`
turns such an array into a `MemmapToken` of a few hundred bytes; `MemmapToken.open`
maps the same bytes again, read-only, in any process that can read the file.
`auditad.execution.DaskExecutor.share` sends the token instead of the data when
every worker can read the file (always on a local cluster; on a remote cluster
only when the path is on storage the workers share), and the workers open it
themselves (`open_tokens`).

The token records the file's size and modification time: a file changed or
replaced after the token was made is refused by `MemmapToken.open` rather than
read as other data.
"""

from __future__ import annotations

import functools
import mmap
import os
from dataclasses import dataclass

import numpy as np

from . import _mapped_pages
from .errors import InvalidInputError

__all__ = ["MemmapToken", "call_opened", "holds_token", "memmap_token", "open_tokens", "readable_everywhere"]


@dataclass(frozen=True)
class MemmapToken:
    """A picklable description of a memory-mapped array: the file and the layout of its data.

    Attributes
    ----------
    filename : str
        Absolute path of the file.
    offset : int
        Byte offset of the array's first element in the file.
    dtype : numpy.dtype
    shape : tuple of int
    order : {"C", "F"}
    size : int
        Size of the file in bytes when the token was made.
    mtime : float
        Modification time of the file (seconds) when the token was made.

    See Also
    --------
    - `memmap_token`: the token of an array.
    - `open_tokens`: a value with its tokens opened.
    """

    filename: str
    offset: int
    dtype: np.dtype
    shape: tuple
    order: str
    size: int
    mtime: float

    def readable(self) -> bool:
        """Whether this process can read the file, and it is the same size and age as when the token was made."""
        try:
            st = os.stat(self.filename)
        except OSError:
            return False
        return st.st_size == self.size and abs(st.st_mtime - self.mtime) < 1.0 and os.access(self.filename, os.R_OK)

    def open(self) -> np.memmap:
        """The array, mapped read-only from the file (its bytes equal the original array's).

        Raises
        ------
        InvalidInputError
            When the file cannot be read here or changed since the token was made.
        """
        if not self.readable():
            raise InvalidInputError(
                f"{self.filename!r} cannot be read by this process, or it changed since it "
                "was shared (its size or modification time differ)"
            )
        return _open_cached(self)


@functools.lru_cache(maxsize=16)
def _open_cached(token: MemmapToken) -> np.memmap:
    out = np.memmap(
        token.filename, dtype=token.dtype, mode="r", offset=token.offset, shape=token.shape, order=token.order
    )
    _mapped_pages.register(out)
    return out


def memmap_token(array) -> MemmapToken | None:
    """The `MemmapToken` of ``array``, or None when it cannot be sent by path.

    Only a ``numpy.memmap`` that maps a file region itself (not a view or
    slice of one, whose offset numpy does not track) and is C- or
    Fortran-contiguous has a token.

    See Also
    --------
    - `MemmapToken.open`: the array again, from the token.

    Examples
    --------
    >>> import numpy as np
    >>> memmap_token(np.zeros(3)) is None
    True
    """
    if not isinstance(array, np.memmap) or not isinstance(array.base, mmap.mmap) or not array.filename:
        return None
    order = "C" if array.flags.c_contiguous else "F" if array.flags.f_contiguous else None
    if order is None:
        return None
    try:
        st = os.stat(array.filename)
    except OSError:
        return None
    return MemmapToken(
        os.path.abspath(array.filename),
        int(array.offset),
        array.dtype,
        tuple(array.shape),
        order,
        st.st_size,
        st.st_mtime,
    )


def open_tokens(value):
    """``value`` with every `MemmapToken` in it (itself, or an item of a dict, list or tuple) opened.

    See Also
    --------
    - `MemmapToken.open`
    """
    if isinstance(value, MemmapToken):
        return value.open()
    if type(value) is dict:
        return {k: open_tokens(v) if isinstance(v, MemmapToken) else v for k, v in value.items()}
    if type(value) in (list, tuple):
        return type(value)(open_tokens(v) if isinstance(v, MemmapToken) else v for v in value)
    return value


def holds_token(value) -> bool:
    """Whether ``value`` is a `MemmapToken` or a dict, list or tuple holding one.

    See Also
    --------
    - `open_tokens`: the same value with its tokens opened.
    """
    if isinstance(value, MemmapToken):
        return True
    items = value.values() if type(value) is dict else value if type(value) in (list, tuple) else ()
    return any(isinstance(v, MemmapToken) for v in items)


def readable_everywhere(client, token: MemmapToken, cache: dict) -> bool:
    """Whether every worker of the Dask ``client`` reads the file of ``token`` (remembered in ``cache``).

    False when the cluster cannot be asked (a worker lost meanwhile): the data is then sent instead.

    See Also
    --------
    - `MemmapToken.readable`: the check each worker runs.
    """
    if token not in cache:
        try:
            found = client.run(token.readable)
        except Exception:  # noqa: BLE001  (a lost worker, a closing cluster: send the data instead)
            found = {}
        cache[token] = bool(found) and all(found.values())
    return cache[token]


def call_opened(fn, item, **shared):
    """``fn(item, **shared)`` with the `MemmapToken` values of ``shared`` opened first (run on a worker).

    See Also
    --------
    - `open_tokens`
    """
    return fn(item, **{key: open_tokens(value) for key, value in shared.items()})
