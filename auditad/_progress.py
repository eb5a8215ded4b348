r"""A tiny stderr progress bar for long runs (off unless asked for).

Library functions never print; they take ``progress=False`` and only when a
caller (usually the CLI) passes ``progress=True`` does this bar write to
``sys.stderr``.  On a terminal it redraws one line with ``\r``; on any other
stream (a log file, a CI job, a pipe) it writes one line when the stage
finishes -- and, for a stage longer than `HEARTBEAT_SECONDS`, one line
at most that often while it runs -- never a line per step.
"""

from __future__ import annotations

import sys
import threading
import time

__all__ = ["Progress", "HEARTBEAT_SECONDS"]

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
        self._start = time.perf_counter()
        if self.enabled:
            self._draw(force=True)
        return self

    def update(self, n: int = 1) -> None:
        """Advance by ``n`` steps and redraw (thread-safe)."""
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
