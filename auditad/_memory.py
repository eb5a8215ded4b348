"""How an auditad command's memory is backed: NumPy's huge pages (off on virtual machines whose huge-page faults
are slow) and glibc's malloc arenas (one, shared by the threads). Neither changes a value computed in that memory.

**Huge pages.** NumPy advises the kernel to back every array of 4 MiB and more with transparent huge pages
(``madvise(MADV_HUGEPAGE)``, when ``/sys/kernel/mm/transparent_hugepage/enabled`` is ``madvise``). On most
machines that makes large arrays faster. On a virtual machine whose balloon device reports free pages to the
host (virtio-balloon's free page reporting, e.g. Firecracker or QEMU with ``free-page-reporting=on``), the
guest's free memory is handed back to the host in 2 MiB blocks a few seconds after it is freed, and the first
touch of a huge page in such a block waits for the host to back all 2 MiB again. An audit allocates and frees
gigabytes of temporaries: on a 2-core VM of that kind a fresh 160 MB array took 1.6–2.0 s to fill with huge
pages and 0.06 s without them, and the audit of 300 000 × 128 rows, K = 300 (``benchmarks/bench_audit.py``)
took 230 s with huge pages and 177 s without, with the same peak memory and the same results.

`configure_huge_pages` turns NumPy's advice off on exactly those machines: the
kernel's policy is ``madvise`` (so NumPy's advice is what enables huge pages) and a virtio balloon with free
page reporting is bound. Elsewhere nothing changes. A user who sets NumPy's own variable
``NUMPY_MADVISE_HUGEPAGE`` (0 or 1, read by NumPy at import) decides instead, and `configure_huge_pages` leaves it
alone.
Which pages back an array never changes a value computed from it.

**Malloc arenas.** glibc gives each thread that allocates while another holds the main arena an arena of its own (up to 8 per
core). A block freed in a thread's arena is reused only by allocations served from that arena, and freed
blocks in the middle of an arena are kept by the process. An audit runs its neighbour lists, re-ranking and
nulls in blocks on threads, each block allocating and freeing temporaries of a few MB (below glibc's mmap
threshold once it has risen): each thread's arena then holds its own high-water mark of free blocks. At
200 000 × 128 rows, K = 200 (``benchmarks/bench_audit.py``), glibc's own count at the audit's peak was 567 MB in
use and 564 MB free in the arenas. With one arena its peak RSS was 1 604 MB (206.9 s), against 1 916 MB (207.7 s)
with glibc's default and 1 787 MB (217.1 s) with ``MALLOC_ARENA_MAX=16``, with the same results.

`configure_arenas` sets the arena limit to one
(``mallopt(M_ARENA_MAX, 1)``) when the C library is glibc, and ``MALLOC_ARENA_MAX=1`` for the processes the
command starts. A user who sets ``MALLOC_ARENA_MAX`` (glibc's own variable, read at process start) decides
instead, and `configure_arenas` leaves it alone.

`configure` (called by every ``auditad`` command before it starts a thread pool) does both.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

__all__ = [
    "THP_POLICY",
    "BALLOON_DEVICES",
    "FREE_PAGE_REPORTING_BIT",
    "ARENA_VARIABLE",
    "M_ARENA_MAX",
    "slow_huge_page_faults",
    "configure_huge_pages",
    "configure_arenas",
    "configure",
]

#: The kernel's transparent-huge-page policy (the selected one is in brackets, e.g. ``always [madvise] never``).
THP_POLICY = Path("/sys/kernel/mm/transparent_hugepage/enabled")

#: The virtio balloon devices bound to their driver; each has a ``features`` file of '0'/'1' flags, bit 0 first.
BALLOON_DEVICES = Path("/sys/bus/virtio/drivers/virtio_balloon")

#: VIRTIO_BALLOON_F_REPORTING: the device takes the guest's free page reports (virtio specification 1.2, §5.5.3).
FREE_PAGE_REPORTING_BIT = 5


def _selected(text: str) -> str:
    """The bracketed word of a sysfs choice line (``always [madvise] never`` -> ``madvise``), or ''."""
    start, stop = text.find("["), text.find("]")
    return text[start + 1 : stop] if 0 <= start < stop else ""


def slow_huge_page_faults(thp_policy: Path = THP_POLICY, balloon_devices: Path = BALLOON_DEVICES) -> bool:
    """Whether this machine's huge pages are NumPy's to ask for and its free memory is reported to a host.

    True when the kernel backs with transparent huge pages only the memory advised for them (policy
    ``madvise``) and a bound virtio balloon device offers free page reporting; False otherwise, and when the
    files cannot be read (not Linux, no such device)."""
    try:
        if _selected(thp_policy.read_text()) != "madvise":
            return False
        devices = sorted(balloon_devices.glob("virtio*")) if balloon_devices.is_dir() else []
        for device in devices:
            flags = (device / "features").read_text().strip()
            if len(flags) > FREE_PAGE_REPORTING_BIT and flags[FREE_PAGE_REPORTING_BIT] == "1":
                return True
    except OSError:
        return False
    return False


def _numpy_toggle():
    """NumPy's runtime switch of its huge-page advice (``_set_madvise_hugepage(enabled) -> previous``), or None."""
    try:
        from numpy._core.multiarray import _set_madvise_hugepage
    except ImportError:
        try:
            from numpy.core.multiarray import _set_madvise_hugepage
        except ImportError:
            return None
    return _set_madvise_hugepage


def configure_huge_pages(environ=None, *, slow=None, toggle=None) -> str:
    """Turn NumPy's huge-page advice off where `slow_huge_page_faults` holds; what was done, as a word.

    Returns ``"user"`` when ``NUMPY_MADVISE_HUGEPAGE`` is set in ``environ`` (default ``os.environ``; NumPy
    honoured it at import and it is left so), ``"off"`` when the advice was turned off, ``"kept"`` otherwise
    (also when this NumPy has no switch). Turning it off also sets ``NUMPY_MADVISE_HUGEPAGE=0`` in ``environ``, for
    the processes the command starts. ``slow`` and ``toggle`` replace the machine's answer and NumPy's switch
    (tests)."""
    environ = os.environ if environ is None else environ
    if "NUMPY_MADVISE_HUGEPAGE" in environ:
        return "user"
    if not (slow_huge_page_faults() if slow is None else slow):
        return "kept"
    toggle = _numpy_toggle() if toggle is None else toggle
    if toggle is None:
        return "kept"
    toggle(False)
    environ["NUMPY_MADVISE_HUGEPAGE"] = "0"  # (processes it starts, e.g. a local Dask cluster's, do the same)
    return "off"


#: glibc's environment variable for the arena limit (read when a process starts).
ARENA_VARIABLE = "MALLOC_ARENA_MAX"

#: ``mallopt``'s parameter number of the arena limit (glibc ``malloc.h``).
M_ARENA_MAX = -8


def _glibc_mallopt():
    """glibc's ``mallopt(param, value) -> 1 on success``, or None where the C library is not glibc."""
    try:
        libc = ctypes.CDLL(None)  # (the process's own symbols, libc's among them: no library search at start-up)
        libc.gnu_get_libc_version  # (glibc only: musl and others have no such symbol)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return None
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return mallopt


def configure_arenas(environ=None, *, mallopt=None) -> str:
    """One malloc arena for this process and those it starts; what was done, as a word.

    Returns ``"user"`` when ``MALLOC_ARENA_MAX`` is set in ``environ`` (default ``os.environ``; glibc read it at
    process start and it is left so), ``"one"`` when the limit was set, ``"kept"`` otherwise (not glibc, or
    ``mallopt`` refused). Setting it also sets ``MALLOC_ARENA_MAX=1`` in ``environ``. ``mallopt`` replaces
    glibc's function (tests)."""
    environ = os.environ if environ is None else environ
    if ARENA_VARIABLE in environ:
        return "user"
    mallopt = _glibc_mallopt() if mallopt is None else mallopt
    if mallopt is None or mallopt(M_ARENA_MAX, 1) != 1:
        return "kept"
    environ[ARENA_VARIABLE] = "1"  # (the processes it starts: process pools, a local Dask cluster)
    return "one"


def configure(environ=None) -> tuple[str, str]:
    """`configure_huge_pages` and `configure_arenas` for this process (and those it starts): their words."""
    return configure_huge_pages(environ), configure_arenas(environ)
