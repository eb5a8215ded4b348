"""File-writing helpers: everything auditad writes goes to a temporary name first, then is renamed.

Guarantees (see ``docs/cli.md``, "Outputs"):

* **Files** (`write_bytes_atomic`): the data goes to a temporary file in the
  target's folder, then one ``rename`` puts it in place, so a reader sees the old or
  the new file, never a partial one.  A symlink is written *through*: the temporary
  file is created beside the link's target and renamed onto the target, so the link
  stays a link.  Special files (devices, FIFOs, sockets) are refused.
* **Folders** (`prepare_output_dir` → `replace_dir_atomic`): a run takes
  an exclusive lock beside the output folder (``.<name>.auditad-lock``, holding pid,
  host and start time; a second writer fails at once naming the holder), writes into
  ``.<name>.auditad-tmp-<pid>-<random>`` and swaps it in.  On Linux the swap is one
  ``renameat2(RENAME_EXCHANGE)``, so at every instant ``out`` is the old or the new
  complete folder.  Elsewhere ``out`` is first renamed to
  ``.<name>.auditad-old-<pid>-<random>`` and the new folder renamed into place; the
  next run restores such a backup if a crash left no ``out``.
* **Debris**: temporary and backup names carry the owning process id, lock files name
  their holder; a later run into *any* folder of the same parent removes those whose
  process is gone (dead, or its pid reused by a younger process), since a run killed
  with SIGKILL cannot clean up after itself.  A backup whose folder a crash left missing
  is restored by the next run into that folder, never removed by another.
* **Inputs** (`read_input_bytes`, `check_regular_input`): a file read whole is refused
  unless it is a regular file (a FIFO would block, a device such as ``/dev/zero`` never
  ends) no larger than a stated cap, checked before anything is read.  Arrays on disk
  (`open_npy`, `open_npz_member`, `read_npy_shards`) are memory-mapped, never read whole;
  `as_float_array` and `check_disk_embeddings` convert and check them block by block.
  The input checks and the memory maps are defined in `auditad.inputfiles` and re-exported here.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import shutil
import socket
import stat
import sys
import threading
import time
from pathlib import Path


from .errors import InvalidInputError, OutputError
from .inputfiles import (  # the input checks and arrays on disk, re-exported under their former names
    SHARDS_MEMORY_BYTES,  # noqa: F401 - a module constant of the former auditad._io
    check_regular_input,
    float_target,
    is_mapped_array,
    mapped_empty,
    open_npy,
    open_npz_member,
    read_input_bytes,
)

__all__ = [
    "write_text_atomic",
    "write_bytes_atomic",
    "prepare_output_dir",
    "replace_dir_atomic",
    "discard_output_dir",
    "output_lock",
    "OutputLock",
    "TMP_TAG",
    "check_regular_input",
    "read_input_bytes",
    "open_npy",
    "open_npz_member",
    "read_npy_shards",
    "is_mapped_array",
    "mapped_empty",
    "as_float_array",
    "check_disk_embeddings",
]

#: Marker in the names of temporary files and folders; ``.<name>.auditad-tmp-<pid>-<hex>``.
TMP_TAG = "auditad-tmp"
_OLD_TAG = "auditad-old"
_LOCK_SUFFIX = "auditad-lock"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _tmp_name(name: str, tag: str = TMP_TAG) -> str:
    return f".{name}.{tag}-{os.getpid()}-{secrets.token_hex(4)}"


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    except OSError:
        return True
    return True


def _process_start(pid: int) -> float | None:
    """Start time (seconds since the epoch) of process ``pid`` from ``/proc``; None where unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        with open("/proc/stat", "rb") as fh:
            boot = next(int(line.split()[1]) for line in fh if line.startswith(b"btime "))
        return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22 of stat: start time in ticks
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def _owner_gone(pid: int, made: float) -> bool:
    """Debris last changed at ``made`` cannot belong to a running process ``pid``.

    True when the process is dead, or when the pid now names a younger process (started
    after the debris last changed: the pid was reused).  Never True for this process.
    """
    if pid == os.getpid():
        return False
    if not _pid_alive(pid):
        return True
    start = _process_start(pid)
    return start is not None and start > made + 2.0  # 2 s: the clock ticks and the boot time's whole seconds


def _mtime(path) -> float:
    try:
        return os.lstat(path).st_mtime
    except OSError:
        return float("inf")


def _stale_siblings(parent: Path, name: str, tag: str, *, include_own: bool = False) -> list[Path]:
    """Siblings ``.<name>.<tag>-<pid>-<hex>`` whose process is gone (or, with ``include_own``, is us)."""
    pattern = re.compile(rf"^\.{re.escape(name)}\.{tag}-(\d+)-[0-9a-f]+$")
    out = []
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return out
    for entry in entries:
        m = pattern.match(entry.name)
        if not m:
            continue
        pid = int(m.group(1))
        if _owner_gone(pid, _mtime(entry.path)) or (
            include_own and pid == os.getpid() and not _active(Path(entry.path))
        ):
            out.append(Path(entry.path))
    return out


_DEBRIS = re.compile(rf"^\.(?P<name>.+)\.(?P<tag>{TMP_TAG}|{_OLD_TAG})-(?P<pid>\d+)-[0-9a-f]+$")
_LOCK_FILE = re.compile(rf"^\.(?P<name>.+)\.{_LOCK_SUFFIX}$")
_HOLDER = re.compile(r"^pid (\d+) on host (\S+)")


def _clean_parent(parent: Path, skip: str) -> None:
    """Remove the debris of dead runs into *any* folder or file of ``parent`` (except ``skip``, handled by its run).

    Temporary files and folders (``.<name>.auditad-tmp-<pid>-<hex>``) whose process is gone;
    backups (``.<name>.auditad-old-...``) of a dead process when ``<name>`` exists (a backup
    whose folder a crash left missing is kept: the next run into that folder restores it);
    lock files of a dead holder on this host that nobody holds.  A run killed with SIGKILL
    cannot clean up, and the next run may well go to another folder of the same parent.
    """
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return
    for entry in entries:
        m = _DEBRIS.match(entry.name)
        if m and m["name"] != skip and _owner_gone(int(m["pid"]), _mtime(entry.path)):
            if m["tag"] == TMP_TAG or os.path.lexists(parent / m["name"]):
                _remove(Path(entry.path))
            continue
        m = _LOCK_FILE.match(entry.name)
        if m and m["name"] != skip:
            _remove_stale_lock(Path(entry.path))


def _holder_gone(holder: str, made: float) -> bool:
    """The lock text ``pid N on host H since T`` names a process of this host that is gone."""
    m = _HOLDER.match(holder)
    return bool(m) and m.group(2) == socket.gethostname() and _owner_gone(int(m.group(1)), made)


def _remove_stale_lock(path: Path) -> None:
    """Unlink the lock file ``path`` if its holder is gone and nobody holds the lock (checked under the lock)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return
    try:
        fd = os.open(path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return
    try:
        if not _holder_gone(_read_holder(fd), os.fstat(fd).st_mtime):
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return  # held: a live run took it over
        if os.fstat(fd).st_ino == os.stat(path).st_ino:
            os.unlink(path)  # while holding it, as OutputLock.release does
    except OSError:
        pass
    finally:
        os.close(fd)


def _remove(path: Path) -> None:
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink()
    except OSError:
        pass


def _as_output_error(exc: OSError, path) -> OutputError:
    what = os.strerror(exc.errno) if exc.errno else str(exc)
    return OutputError(exc.errno or 0, f"cannot write {str(path)!r}: {what}", str(path))


# --------------------------------------------------------------------------- files
def _resolve_target(path: Path) -> Path:
    """The file that will actually be replaced: ``path``, or a symlink's final target."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return path
    if stat.S_ISLNK(st.st_mode):
        target = Path(os.path.realpath(path))
        return _resolve_target(target) if target != path else target
    return path


def write_bytes_atomic(path, data: bytes) -> Path:
    """Write ``data`` to ``path`` via a temporary file in the same folder and an atomic rename.

    A symlink is written through to its target (a regular file, or a new file where a
    dangling link points); devices, FIFOs and sockets are refused with
    [`InvalidInputError`][auditad.errors.InvalidInputError].  A failed write (disk full, read-only
    folder) raises [`OutputError`][auditad.errors.OutputError] naming the file and leaves no
    temporary file behind.
    """
    path = Path(path)
    target = _resolve_target(path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise _as_output_error(exc, path) from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise InvalidInputError(f"output path {str(path)!r} is a directory, expected a file name")
        if not stat.S_ISREG(st.st_mode):
            raise InvalidInputError(
                f"output path {str(path)!r} is a special file (device, FIFO or socket); "
                "auditad writes regular files only"
            )
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise InvalidInputError(f"the folder of output path {str(path)!r} does not exist")
    for stale in _stale_siblings(parent, target.name, TMP_TAG):
        _remove(stale)
    tmp = parent / _tmp_name(target.name)
    try:
        fd = os.open(
            tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666 & ~_umask() if st is None else stat.S_IMODE(st.st_mode)
        )
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            raise _as_output_error(exc, path) from None
        raise
    return path


def write_text_atomic(path, text: str) -> Path:
    """Write UTF-8 ``text`` to ``path`` atomically (see `write_bytes_atomic`)."""
    return write_bytes_atomic(path, text.encode("utf-8"))


# --------------------------------------------------------------------------- lock
class OutputLock:
    """Exclusive advisory lock (``fcntl.flock``) on an output folder, held in ``.<name>.auditad-lock``.

    The lock file records ``pid host start-time`` so that a refused writer can name the
    holder; it is removed on release.  A process killed while holding the lock leaves
    the file, but not the lock (the kernel drops it), and the next run takes it over.
    """

    def __init__(self, out):
        out = Path(out)
        self.out = out
        parent = out.parent if str(out.parent) else Path(".")
        self.path = parent / f".{out.name}.{_LOCK_SUFFIX}"
        self._fd: int | None = None

    def acquire(self) -> "OutputLock":
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no lock, the folder swap stays safe for one writer
            return self
        for _ in range(20):
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666 & ~_umask())
            except OSError as exc:
                raise _as_output_error(exc, self.path) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                holder = _read_holder(fd)
                stale = _holder_gone(holder, os.fstat(fd).st_mtime)
                os.close(fd)
                if stale and exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    time.sleep(0.05)  # a dead holder: another run is removing the stale lock file; retry
                    continue
                if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise InvalidInputError(
                        f"output folder {str(self.out)!r} is being written by another auditad run "
                        f"({holder or 'holder unknown'}; lock {str(self.path)!r}); wait for it to finish "
                        "or choose another folder"
                    ) from None
                raise _as_output_error(exc, self.path) from None
            try:  # the file may have been removed (released) between open and flock: retry on the new one
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if not same:
                os.close(fd)
                continue
            os.ftruncate(fd, 0)
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            os.write(fd, f"pid {os.getpid()} on host {socket.gethostname()} since {stamp}\n".encode())
            self._fd = fd
            return self
        raise InvalidInputError(
            f"could not lock output folder {str(self.out)!r} ({str(self.path)!r} keeps "
            "changing); is another run starting?"
        )

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            os.unlink(self.path)  # while still holding it: a waiter that opened the old file retries
        except OSError:
            pass
        os.close(fd)

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()


def _read_holder(fd: int) -> str:
    try:
        return os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
    except OSError:
        return ""


def output_lock(out) -> OutputLock:
    """An `OutputLock` on folder ``out`` (use as a context manager)."""
    return OutputLock(out)


# --------------------------------------------------------------------------- folders
# temporary folder -> (final folder, lock) of the runs of this process that are writing now
_ACTIVE: dict[Path, tuple[Path, OutputLock]] = {}
_ACTIVE_GUARD = threading.Lock()


def _active(tmp: Path) -> bool:
    with _ACTIVE_GUARD:
        return Path(tmp) in _ACTIVE


def _recover(out: Path) -> None:
    """Under the lock: restore a backup if a crash left no ``out``; remove dead runs' temporaries and backups."""
    parent = out.parent if str(out.parent) else Path(".")
    olds = _stale_siblings(parent, out.name, _OLD_TAG, include_own=True)
    if olds and not os.path.lexists(out):
        newest = max(olds, key=lambda p: p.stat().st_mtime)
        os.replace(newest, out)
        olds.remove(newest)
    for stale in olds + _stale_siblings(parent, out.name, TMP_TAG, include_own=True):
        _remove(stale)


def prepare_output_dir(out) -> tuple[Path, Path]:
    """Lock folder ``out`` and return (final path, fresh temporary sibling folder).

    Everything is written into the temporary folder and moved into place with
    `replace_dir_atomic` (or thrown away with `discard_output_dir`), so a
    failed run leaves nothing half-written.  The lock is held until then.

    A symlink ``out`` is followed: the folder it points to is replaced and the link kept
    (the returned final path is then the link's target).

    Raises
    ------
    InvalidInputError
        ``out`` is a file, its parent folder does not exist, or another run holds the lock.
    """
    out = Path(out)
    if out.is_symlink():  # a link to a folder: replace the folder it points to, keep the link
        out = Path(os.path.realpath(out))
    if out.exists() and not out.is_dir():
        raise InvalidInputError(f"output folder {str(out)!r} exists and is a file, expected a folder")
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise InvalidInputError(f"the parent folder of output folder {str(out)!r} does not exist")
    with _ACTIVE_GUARD:  # a run of this process that died without discard_output_dir: release its lock
        for tmp_old, (out_old, lock_old) in list(_ACTIVE.items()):
            if out_old == out and not tmp_old.exists():
                lock_old.release()
                del _ACTIVE[tmp_old]
    lock = OutputLock(out).acquire()
    try:
        _recover(out)
        _clean_parent(parent, out.name)  # and the debris of dead runs into the parent's other folders
        tmp = parent / _tmp_name(out.name)
        os.mkdir(tmp, 0o777 & ~_umask())
    except BaseException as exc:
        lock.release()
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            raise _as_output_error(exc, out) from None
        raise
    with _ACTIVE_GUARD:
        _ACTIVE[tmp] = (out, lock)
    return out, tmp


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths with Linux ``renameat2(RENAME_EXCHANGE)``; False where unsupported."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    AT_FDCWD, RENAME_EXCHANGE = -100, 2
    if fn(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _release(tmp: Path) -> None:
    with _ACTIVE_GUARD:
        entry = _ACTIVE.pop(Path(tmp), None)
    if entry is not None:
        entry[1].release()


def replace_dir_atomic(tmp: Path, out: Path) -> Path:
    """Move the finished temporary folder ``tmp`` to ``out``, replacing an older ``out``; release the lock.

    At every instant ``out`` is either the old or the new complete folder (Linux:
    one atomic exchange; elsewhere a backup that the next run restores after a crash).
    """
    tmp, out = Path(tmp), Path(out)
    try:
        os.chmod(tmp, 0o777 & ~_umask())
        if os.path.lexists(out):
            if _exchange(tmp, out):  # tmp now holds the old report (named with our pid: debris if we die here)
                shutil.rmtree(tmp, ignore_errors=True)
                return out
            old = out.with_name(_tmp_name(out.name, _OLD_TAG))
            os.replace(out, old)
            try:
                os.replace(tmp, out)
            except BaseException:  # interrupted between the two renames: put the old report back now
                os.replace(old, out)
                raise
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, OutputError):
            raise
        raise _as_output_error(exc, out) from None
    finally:
        _release(tmp)
    return out


def discard_output_dir(tmp: Path) -> None:
    """Remove an unfinished temporary folder from `prepare_output_dir` and release its lock."""
    shutil.rmtree(tmp, ignore_errors=True)
    _release(tmp)


# --------------------------------------------------------------------------- arrays on disk
#: Bytes of an array read per block when an array on disk is converted or checked piece by piece.
BLOCK_BYTES = 32 << 20


def _block_rows(arr) -> int:
    row = max(1, arr.dtype.itemsize * (int(arr.size) // max(arr.shape[0], 1)))
    return max(1, BLOCK_BYTES // row)


def as_float_array(arr, *, name: str, out=None):
    """``arr`` as a float array, converted block by block into one new array (float32/float64 kept as they are).

    Narrow types (bool, 8/16-bit integers, float16) become float32, wider integers float64 (exact), never via a
    whole float64 copy; into ``out`` (target dtype and shape) if given, else into a new `mapped_empty` array.

    See Also
    --------
    - `check_disk_embeddings`: conversion and checks of an embedding on disk.
    """
    target = float_target(arr.dtype, name)
    if out is None and arr.dtype == target:
        return arr
    out = mapped_empty(arr.shape, target) if out is None else out
    step = _block_rows(arr)
    for a in range(0, arr.shape[0], step):
        out[a : a + step] = arr[a : a + step]
    out.flags.writeable = False
    return out


def check_disk_embeddings(arr, *, name: str, max_abs: float | None = None):
    """An (n, d) embedding array on disk, checked block by block, as a float32 or float64 array.

    The checks and messages of ``auditad._validation.check_embeddings`` (2-D, non-empty, finite, at most
    ``max_abs`` in magnitude), without the temporary arrays of the size of the data that a whole-array
    check allocates; float32 and float64 stay memory-mapped (see `as_float_array`).

    See Also
    --------
    - `open_npy`, `read_npy_shards`: the arrays this checks.
    """
    if arr.dtype.kind not in "biuf" or arr.dtype.hasobject:
        raise InvalidInputError(f"{name} must be a real numeric array, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise InvalidInputError(f"{name} must be 2-D (rows, columns), got a {arr.ndim}-D array of shape {arr.shape}")
    if arr.size == 0:
        raise InvalidInputError(f"{name} is empty: shape {arr.shape}")
    from ._validation import check_embeddings

    # finite and bounded, block by block (no temporary of the data's size): the in-memory check itself
    arr = as_float_array(arr, name=name)
    check_embeddings(arr, name=name, dtype=None, max_abs=max_abs, block_rows=_block_rows(arr))
    return arr


def read_npy_shards(folder, *, name: str):
    """The ``.npy`` shards of ``folder`` (``part-00000.npy``, ``part-00001.npy``, ... by name) as one array.

    Each shard is memory-mapped and copied once into one preallocated read-only (n, d) array
    (`mapped_empty`) of the float type of `as_float_array`.

    Raises
    ------
    InvalidInputError
        No shard, a file other than ``.npy`` (hidden files are ignored), shards of different column
        counts or dtypes, a non-numeric dtype, a truncated or corrupted shard; naming ``name`` and the path.

    See Also
    --------
    - `open_npy`: one shard.
    """
    where = f"{name} folder {str(folder)!r}"
    try:
        files = sorted(p for p in Path(folder).iterdir() if not p.name.startswith("."))
    except OSError as exc:
        raise InvalidInputError(f"{where} cannot be read: {exc.strerror or exc}") from None
    other = [p.name for p in files if p.suffix.lower() != ".npy" or not p.is_file()]
    if not files or other:
        raise InvalidInputError(
            f"{where} "
            + (f"holds {other[0]!r}, not a .npy shard" if other else "is empty")
            + "; a shards folder holds only part-00000.npy, part-00001.npy, ... (one dtype)"
        )
    parts = [open_npy(p, name=f"{name} shard") for p in files]
    for p, arr in zip(files, parts):
        what = None if arr.ndim == 2 else f"is {arr.ndim}-D of shape {arr.shape}, expected (rows, columns)"
        if what is None and arr.shape[1] != parts[0].shape[1]:
            what = f"has {arr.shape[1]} columns, {files[0].name!r} {parts[0].shape[1]}"
        if what is None and arr.dtype != parts[0].dtype:
            what = f"has dtype {arr.dtype}, {files[0].name!r} {parts[0].dtype}"
        if what:
            raise InvalidInputError(f"{where}: shard {p.name!r} {what}; all shards must agree")
    target = float_target(parts[0].dtype, f"{where} (shard {files[0].name!r})")
    shape = (sum(a.shape[0] for a in parts), parts[0].shape[1])
    out, row = mapped_empty(shape, target), 0
    while parts:  # each shard unmapped once copied: its pages leave memory
        arr = parts.pop(0)
        as_float_array(arr, name=where, out=out[row : row + arr.shape[0]])
        row += arr.shape[0]
    out.flags.writeable = False
    return out
