r"""A tiny stderr progress bar for long runs (off unless asked for), and the stop requests it checks.

Library functions never print; they take ``progress=False`` and only when a
caller (usually the CLI) passes ``progress=True`` does this bar write to
``sys.stderr``.  On a terminal it redraws one line with ``\r``; on any other
stream (a log file, a CI job, a pipe) it writes one line when the stage
finishes -- and, for a stage longer than `HEARTBEAT_SECONDS`, one line
at most that often while it runs -- never a line per step.

Stop requests: the command line's signal handlers only *record* a SIGINT or SIGTERM
(`request_stop`); they never raise.  An exception raised by a signal handler surfaces
wherever the main thread happens to be, and when that is a weakref callback, a ``__del__``
or a garbage-collection callback, Python prints it as "Exception ignored in ..." and
drops it.  Instead the pipeline calls `check_stop` at safe points -- every progress
step (`Progress.update`), between sections, tasks and files, before and after each
write -- and the run unwinds from there, running its clean-ups once.  Without a handler
(the library used from Python) nothing is ever recorded and `check_stop` costs one test.
"""

from __future__ import annotations

import signal
import sys
import threading
import time

__all__ = [
    "Progress",
    "HEARTBEAT_SECONDS",
    "RECEIVED",
    "Terminated",
    "request_stop",
    "stop_requested",
    "stop_exception",
    "check_stop",
    "Cleanup",
    "pending_cleanups",
]

#: On a stream that is not a terminal, a running stage writes a line at most this often.
HEARTBEAT_SECONDS = 60.0


class Progress:
    """Context manager drawing ``desc [#####.....] done/total elapsed`` on stderr.

    Parameters
    ----------
    total : int
        Number of steps.
    desc : str
        Short label shown before the bar.
    enabled : bool
        When False nothing is ever written (the object still counts steps).

    Examples
    --------
    >>> with Progress(3, "work", enabled=False) as bar:
    ...     for _ in range(3):
    ...         bar.update()
    >>> bar.done
    3
    """

    def __init__(self, total: int, desc: str = "", enabled: bool = True, *, stream=None, width: int = 30):
        self.total = max(int(total), 0)
        self.desc = str(desc)
        self.enabled = bool(enabled)
        self.stream = stream
        self.width = int(width)
        self.done = 0
        self._start = 0.0
        self._last_write = 0.0
        self._lock = threading.Lock()  # update() may be called from worker threads

    def __enter__(self) -> "Progress":
        check_stop()
        self._start = time.perf_counter()
        if self.enabled:
            self._draw(force=True)
        return self

    def update(self, n: int = 1) -> None:
        """Advance by ``n`` steps and redraw (thread-safe); a check point of `check_stop` in the main thread."""
        check_stop()
        with self._lock:
            self.done = min(self.done + int(n), self.total) if self.total else self.done + int(n)
            if self.enabled:
                self._draw()

    def __exit__(self, exc_type, exc, tb) -> None:
        if self.enabled:
            self._draw(force=True, final=True, stopped=exc_type is not None)

    # ------------------------------------------------------------------ drawing
    def _out(self):
        return self.stream if self.stream is not None else sys.stderr

    def _draw(self, *, force: bool = False, final: bool = False, stopped: bool = False) -> None:
        out = self._out()
        frac = self.done / self.total if self.total else 1.0
        filled = int(round(frac * self.width))
        now = time.perf_counter()
        elapsed = now - self._start
        line = f"{self.desc} [{'#' * filled}{'.' * (self.width - filled)}] {self.done}/{self.total} {elapsed:6.1f}s"
        if bool(getattr(out, "isatty", lambda: False)()):
            out.write("\r" + line + ("\n" if final else ""))
            out.flush()
            return
        if final:  # one line per finished stage
            text = (
                f"{self.desc}: stopped at {self.done}/{self.total} after {elapsed:.1f}s"
                if stopped
                else f"{self.desc}: done {self.done}/{self.total} in {elapsed:.1f}s"
            )
        elif not force and now - max(self._last_write, self._start) >= HEARTBEAT_SECONDS:
            text = f"{self.desc}: {self.done}/{self.total} after {elapsed:.0f}s"
        else:
            return
        self._last_write = now
        out.write(text + "\n")
        out.flush()


# --------------------------------------------------------------------------- stop requests
#: Signals recorded by the command line's handlers during the current command, in order (cleared by
#: `auditad.cli.main` before and after each command).
RECEIVED: list[int] = []


class Terminated(KeyboardInterrupt):
    """Raised at a check point after a SIGTERM: it unwinds (and cleans up) like Ctrl-C, with exit code 143.

    See Also
    --------
    - [`check_stop`][auditad._progress.check_stop]: where it is raised.
    """


def request_stop(signum: int) -> None:
    """Record a stop request (what a signal handler does, and all it does).

    Parameters
    ----------
    signum : int
        The signal received (``signal.SIGINT`` or ``signal.SIGTERM``).

    See Also
    --------
    - [`check_stop`][auditad._progress.check_stop]: raises at the next check point.

    Examples
    --------
    >>> import signal
    >>> request_stop(signal.SIGTERM)
    >>> stop_requested() == signal.SIGTERM
    True
    >>> RECEIVED.clear()
    """
    RECEIVED.append(int(signum))


def stop_requested() -> int | None:
    """The first signal recorded by `request_stop` during this command, or None.

    See Also
    --------
    - [`check_stop`][auditad._progress.check_stop]: raises for it.

    Examples
    --------
    >>> stop_requested() is None
    True
    """
    return RECEIVED[0] if RECEIVED else None


def stop_exception(signum: int) -> KeyboardInterrupt:
    """The exception a stop request for ``signum`` unwinds with: `Terminated` for SIGTERM, else ``KeyboardInterrupt``.

    See Also
    --------
    - [`check_stop`][auditad._progress.check_stop]: raises it.

    Examples
    --------
    >>> import signal
    >>> type(stop_exception(signal.SIGTERM)).__name__, type(stop_exception(signal.SIGINT)).__name__
    ('Terminated', 'KeyboardInterrupt')
    """
    return Terminated() if signum == getattr(signal, "SIGTERM", None) else KeyboardInterrupt()


def check_stop() -> None:
    """A safe point: raise `stop_exception` of the recorded signal, if there is one, in the main thread.

    Called between pieces of work (it must never be called from a clean-up).  It keeps raising
    while the request stands, so an exception that some code swallowed is raised again at the
    next check point.  Other threads return: an exception there would end the thread, not the run,
    and the main thread stops at its own next check point.

    See Also
    --------
    - [`request_stop`][auditad._progress.request_stop]: what the signal handlers call.

    Examples
    --------
    >>> check_stop()  # no request: nothing happens
    """
    if RECEIVED and threading.current_thread() is threading.main_thread():
        raise stop_exception(RECEIVED[0])


#: Clean-ups to run if the process must exit at once (a second signal), in registration order.
_PENDING: list["Cleanup"] = []


class Cleanup:
    """A clean-up that runs at most once: on the normal way out, or at a forced exit.

    The normal way out calls the object (``cleanup()``).  While a ``with cleanup.registered():`` block
    runs, `pending_cleanups` lists it, so that a forced exit (a second signal, which cannot wait for
    the unwinding) runs its ``forced`` variant: one that takes no lock the interrupted code may hold
    (remove a temporary folder, unlink a lock file).

    Parameters
    ----------
    fn : callable
        The clean-up of the normal way out.
    forced : callable, optional
        The clean-up of a forced exit (default ``fn``).

    See Also
    --------
    - [`pending_cleanups`][auditad._progress.pending_cleanups]: what a forced exit runs.

    Examples
    --------
    >>> done = []
    >>> c = Cleanup(lambda: done.append(1))
    >>> with c.registered():
    ...     len(pending_cleanups())
    1
    >>> c(); c(); done
    [1]
    """

    def __init__(self, fn, *, forced=None):
        self.fn, self.forced = fn, forced if forced is not None else fn
        self.state = "pending"  # -> "running" -> "finished"

    def __call__(self) -> None:
        if self.state != "pending":
            return
        self.state = "running"
        try:
            self.fn()
        finally:
            self.state = "finished"

    def force(self) -> None:
        """Run the forced variant unless the clean-up finished: a forced exit also completes one that it
        interrupted (that one never resumes), so the forced variant must be safe to run after a partial ``fn``."""
        if self.state == "finished":
            return
        self.state = "running"
        try:
            self.forced()
        finally:
            self.state = "finished"

    def registered(self):
        """Context manager during which a forced exit runs this clean-up."""
        import contextlib

        @contextlib.contextmanager
        def block():
            _PENDING.append(self)
            try:
                yield self
            finally:
                if self in _PENDING:
                    _PENDING.remove(self)

        return block()


def pending_cleanups() -> list:
    """The registered `Cleanup` objects that have not run, oldest first (what a forced exit runs).

    See Also
    --------
    - [`Cleanup`][auditad._progress.Cleanup]: registers itself with ``registered()``.

    Examples
    --------
    >>> pending_cleanups()
    []
    """
    return [c for c in _PENDING if c.state != "finished"]
