"""File-writing helpers: everything auditad writes goes to a temporary name first, then is renamed."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from .errors import InvalidInputError

__all__ = ["write_text_atomic", "write_bytes_atomic", "replace_dir_atomic", "prepare_output_dir"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_bytes_atomic(path, data: bytes) -> Path:
    """Write ``data`` to ``path`` via a temporary file in the same folder and an atomic rename."""
    path = Path(path)
    if path.exists() and path.is_dir():
        raise InvalidInputError(f"output path {str(path)!r} is a directory, expected a file name")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.exists():
        raise InvalidInputError(f"the folder of output path {str(path)!r} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600; give the usual permissions
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def write_text_atomic(path, text: str) -> Path:
    """Write UTF-8 ``text`` to ``path`` atomically (see :func:`write_bytes_atomic`)."""
    return write_bytes_atomic(path, text.encode("utf-8"))


def prepare_output_dir(out) -> tuple[Path, Path]:
    """Check that ``out`` can become a folder; return (final path, fresh temporary sibling folder).

    Everything is written into the temporary folder and moved into place with
    :func:`replace_dir_atomic`, so a failed run leaves nothing half-written.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InvalidInputError(f"--out {str(out)!r} exists and is a file, expected a folder")
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.exists():
        raise InvalidInputError(f"the parent folder of --out {str(out)!r} does not exist")
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=parent))
    return out, tmp


def replace_dir_atomic(tmp: Path, out: Path) -> Path:
    """Move the finished temporary folder ``tmp`` to ``out``, replacing an older ``out``."""
    os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp creates 0700
    old = None
    if out.exists():
        old = out.with_name(f".{out.name}.old-{os.getpid()}")
        os.replace(out, old)
    os.replace(tmp, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return out
