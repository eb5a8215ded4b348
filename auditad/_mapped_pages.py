"""Keep the pages of read-only memory-mapped inputs from piling up in the process's resident set.

A memory-mapped ``.npy`` of 10 GB that a pass reads from end to end leaves every page it touched
mapped into the process: its resident set (RSS) grows by the size of the file although the pages
are the kernel's page cache, shared and clean. On a machine (or in a container) whose limit is
expressed in RSS, a whole-file pass then looks like a 10 GB allocation.

Every read-only mapping that auditad opens (`register`) is watched by one daemon thread: when the
file-backed part of the process's resident set (``RssFile`` of ``/proc/self/status``) has grown
by more than `RESIDENT_BUDGET_BYTES` since the first mapping was registered, the thread calls
``madvise(MADV_DONTNEED)`` on every registered mapping. For a read-only file mapping this only
unmaps the pages from the process: the data stays in the page cache, and the next access maps it
again (a minor page fault, no disk read while the cache holds it). Values read are never changed.

Linux only (``/proc`` and ``MADV_DONTNEED``); elsewhere `register` does nothing.
The budget is read from the environment variable ``AUDITAD_MAPPED_RESIDENT_BYTES`` when a mapping is
registered (0: never release; a value that is not a whole number of bytes is an error naming the variable).
"""

from __future__ import annotations

import mmap
import threading
import time
import weakref

__all__ = [
    "RESIDENT_BUDGET_BYTES",
    "POLL_SECONDS",
    "CHECK_SECONDS",
    "register",
    "release",
    "check",
    "file_resident_bytes",
]

#: Growth of the file-backed resident set (bytes) above which the registered mappings are released.
RESIDENT_BUDGET_BYTES = 2 << 30

#: Seconds between two looks of the watching thread at the resident set.
POLL_SECONDS = 0.05

#: `check` looks at the resident set at most this often (seconds).
CHECK_SECONDS = 0.01

_lock = threading.Lock()
_maps: weakref.WeakSet = weakref.WeakSet()
_state: dict = {"thread": None, "baseline": None, "checked": 0.0, "budget": RESIDENT_BUDGET_BYTES}


def file_resident_bytes() -> int | None:
    """The file-backed resident set of this process in bytes (``RssFile``), or None where unknown."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("RssFile:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        return None
    return None


def _budget() -> int:
    """The budget from ``AUDITAD_MAPPED_RESIDENT_BYTES`` (default `RESIDENT_BUDGET_BYTES`); a value that is not a
    whole number of bytes is an [`InvalidInputError`][auditad.errors.InvalidInputError] naming the variable."""
    from ._validation import env_bytes

    return env_bytes("AUDITAD_MAPPED_RESIDENT_BYTES", RESIDENT_BUDGET_BYTES, zero="0: never release")


def release() -> int:
    """Unmap the resident pages of every registered mapping from this process (the data stays on disk and in
    the page cache); returns how many mappings were released."""
    with _lock:
        maps = list(_maps)
    done = 0
    for m in maps:
        try:
            m.madvise(mmap.MADV_DONTNEED)
            done += 1
        except (ValueError, OSError):  # closed meanwhile
            continue
    return done


def _over_budget() -> bool:
    budget, now, baseline = _state["budget"], file_resident_bytes(), _state["baseline"]
    return budget > 0 and now is not None and baseline is not None and now - baseline > budget


def check() -> None:
    """Release the registered mappings now if the file-backed resident set is past the budget.

    Called in the loops that gather rows at random from a memory-mapped input (the exact re-rank of
    candidates, the gathers of row subsets): a random row read maps whole runs of pages around it
    (the kernel's fault-around and large page-cache folios, often 100 kB and more for an 8 kB row), faster
    than the watching thread looks. Cheap: it looks at most every `CHECK_SECONDS`, and not at all while
    no mapping is registered.
    """
    if not _maps:
        return
    now = time.monotonic()
    if now - _state["checked"] < CHECK_SECONDS:
        return
    _state["checked"] = now
    if _over_budget():
        release()


def _watch() -> None:
    while True:
        time.sleep(POLL_SECONDS)
        with _lock:
            if not _maps:
                _state["thread"] = None
                return
        if _over_budget():
            release()


def register(array) -> None:
    """Watch the mapping behind ``array`` (a read-only ``np.memmap``): its pages are released from the
    resident set when the file-backed resident set grows past the budget. Anything else is ignored."""
    m = getattr(array, "_mmap", None)
    if not isinstance(m, mmap.mmap) or not hasattr(mmap, "MADV_DONTNEED") or getattr(array, "mode", "r") != "r":
        return
    budget = _budget()  # read here, in the caller's thread: a bad value is the caller's error, not the watcher's
    baseline = file_resident_bytes()
    if baseline is None:
        return
    with _lock:
        _maps.add(m)
        _state["budget"] = budget
        if _state["thread"] is None:
            _state["baseline"] = baseline
            thread = threading.Thread(target=_watch, name="auditad-mapped-pages", daemon=True)
            _state["thread"] = thread
            thread.start()
