"""Terminal side of the command line: exit-code contract, signals, sanitised output, warnings.

`exit_status` maps every exception that can end a command to one exit code and one
line (the contract documented in ``docs/cli.md``):

* 0 — every gate at or above ``--fail-on`` passed (or the command has no gates);
* 1 — a gate failed (returned by the command itself, never from an exception);
* 2 — bad input or usage ([`AuditadError`][auditad.errors.AuditadError], argparse errors, missing or
  unreadable input files) and outputs the environment refused (disk full, read-only folder,
  permission denied: [`OutputError`][auditad.errors.OutputError] and ``OSError`` with such an errno);
* 3 — internal error: any other exception, ``MemoryError`` included (one line naming the
  exception and where it was raised; the traceback with ``--debug`` or ``AUDITAD_DEBUG=1``);
* 130 — SIGINT (Ctrl-C); 143 — SIGTERM (raised as `Terminated`, a ``KeyboardInterrupt``,
  so every clean-up that runs on Ctrl-C also runs on SIGTERM); 141 — broken pipe.

Signals (`SignalGuard`): the handlers only record the signal
([`request_stop`][auditad._progress.request_stop]); the pipeline raises at its next safe point
([`check_stop`][auditad._progress.check_stop]: every progress step, between sections, tasks and
files, before each line on stdout) and unwinds from there.  A handler that raised would raise
wherever the main thread happened to be -- in a weakref callback, a ``__del__`` or a
garbage-collection callback Python prints such an exception as "Exception ignored in ..." and
drops it.  A second signal while the first unwinds ends the process at once (`SignalGuard.force`).
"""

from __future__ import annotations

import errno
import os
import re
import signal
import sys
from pathlib import Path

from .._progress import RECEIVED, Terminated, check_stop, pending_cleanups, request_stop, stop_requested
from ..errors import AuditadError

__all__ = [
    "EXIT_OK",
    "EXIT_FAIL",
    "EXIT_USAGE",
    "EXIT_INTERNAL",
    "EXIT_SIGINT",
    "EXIT_SIGTERM",
    "EXIT_PIPE",
    "ENV_ERRNOS",
    "REPORT_TO",
    "sanitize",
    "SafeStream",
    "dash_nan",
    "format_value",
    "Terminated",
    "RECEIVED",
    "SignalGuard",
    "stop_message",
    "ignore_late_signals",
    "debug_requested",
    "exit_status",
    "forget_unhandled_interrupt",
    "print_warnings",
    "PYTHON_ALIASES",
    "Flags",
    "flag_names",
    "speak_cli",
    "quiet_shutdown",
    "quiet_children",
    "TRACKER_QUIET",
]

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_SIGINT, EXIT_SIGTERM, EXIT_PIPE = 130, 143, 141
#: Where an internal error should be reported (printed with exit code 3).
REPORT_TO = "the auditad issue tracker (include the command line and the output of --debug)"
#: errno values meaning "the environment refused the input or output" (exit 2, not an internal error).
ENV_ERRNOS = frozenset(
    getattr(errno, n)
    for n in (
        "ENOSPC",
        "EDQUOT",
        "EROFS",
        "EACCES",
        "EPERM",
        "EFBIG",
        "ENAMETOOLONG",
        "ENOTDIR",
        "EISDIR",
        "ENOENT",
        "EEXIST",
        "EXDEV",
        "ENOTEMPTY",
        "EBUSY",
        "ETXTBSY",
        "ELOOP",
    )
    if hasattr(errno, n)
)


# C0 controls except tab/newline/carriage return, DEL, C1 controls, and bidirectional overrides/isolates
_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f]")


def _escape_char(m) -> str:
    code = ord(m.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def sanitize(text: str) -> str:
    """``text`` with terminal control characters shown as escapes (``\\x1b``), so labels from
    user files cannot move the cursor, recolour or rewrite the terminal."""
    return _UNSAFE.sub(_escape_char, str(text))


class SafeStream:
    """Text stream proxy that sanitises everything written through it.

    With ``check=True`` every write is a safe point of the stop requests
    ([`check_stop`][auditad._progress.check_stop]): after a signal, nothing more is printed.
    """

    def __init__(self, stream, *, check: bool = False):
        self._stream = stream
        self._check = bool(check)

    def write(self, text):
        if self._check:
            check_stop()
        return self._stream.write(sanitize(text))

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def __getattr__(self, name):
        return getattr(self._stream, name)


_NAN = re.compile(r"(?<![\w.])([-+]?nan)(?![\w.])", re.IGNORECASE)


def dash_nan(text: str) -> str:
    """Replace standalone ``nan`` tokens in a result table by "–" (right-aligned in the same width)."""
    return _NAN.sub(lambda m: "\u2013".rjust(len(m.group(1))), text)


def format_value(value, threshold=None) -> str:
    """A gate value for the terminal, as the report prints it ("–" when missing or NaN).

    See [`auditad.gates.checks.gate_value_text`][auditad.gates.checks.gate_value_text]: 3 decimals, more digits only
    where
    rounding would make the value look equal to ``threshold``.
    """
    import math

    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "\u2013"
    from ..gates.checks import gate_value_text

    return gate_value_text(value, threshold)


def stop_message(code: int) -> str:
    """The one line that ends a command stopped by a signal (exit code 143 or 130)."""
    if code == EXIT_SIGTERM:
        return "auditad: terminated (SIGTERM); nothing half-written was left"
    return "auditad: interrupted; nothing half-written was left"


class SignalGuard:
    """SIGTERM and SIGINT handling for one command: record the first signal, force the exit on a second.

    Entered in the main thread, it installs `handle` for SIGTERM, and for SIGINT unless SIGINT is
    ignored (a program started in the background of a shell); leaving restores the previous handlers
    and forgets the signals.  The first signal is only recorded
    ([`request_stop`][auditad._progress.request_stop]): the pipeline stops at its next safe point
    and unwinds through its clean-ups.  A second one before the command reports its outcome
    (`ending`) cannot wait for that: `force` runs the registered clean-ups that have not finished,
    ends the child processes, prints the one line and exits.  A signal that arrives while the
    outcome is being reported is too late to change it; two such signals force the exit (the
    exit hangs).

    Parameters
    ----------
    err_fd : int
        File descriptor of the line a forced exit prints (stderr).
    keep : bool
        Leave the handler installed when the block ends, in the "too late" state: the process is
        about to exit (``auditad`` run as a program), and a signal during the interpreter's own exit
        must neither kill it by the signal's default action nor raise.
    """

    def __init__(self, err_fd: int = 2, *, keep: bool = False):
        self.err_fd, self.keep = err_fd, keep
        self.ending = False  # the command is reporting its outcome: later signals do not change it
        self.late = 0  # signals received since then
        self.forcing = False
        self.previous: dict = {}

    def __enter__(self) -> "SignalGuard":
        import threading

        if threading.current_thread() is threading.main_thread():  # signals recorded before are kept
            self.previous[signal.SIGTERM] = signal.signal(signal.SIGTERM, self.handle)
            current = signal.getsignal(signal.SIGINT)  # Python's own, or the recorder of ``python -m auditad``
            if current is signal.default_int_handler or (
                callable(current) and current is self.previous[signal.SIGTERM]
            ):
                self.previous[signal.SIGINT] = signal.signal(signal.SIGINT, self.handle)  # not when Ctrl-C is ignored
        return self

    def __exit__(self, *exc) -> None:
        RECEIVED.clear()
        if self.keep:
            self.ending = True
            return
        for signum, previous in self.previous.items():
            signal.signal(signum, previous)
        self.previous.clear()

    def handle(self, signum, frame) -> None:
        """The signal handler: record the signal; never raise (see the module's doc)."""
        if self.forcing:
            return
        if self.ending:
            self.late += 1
            if self.late > 1:
                self.force(signum)
            return
        first = not RECEIVED
        request_stop(signum)
        if not first:
            self.force(signum)

    def force(self, signum) -> None:
        """Exit now with the code of ``signum``: finish the pending clean-ups (their lock-free forced variants),
        SIGKILL the child processes, print the one line (unless the command already printed it)."""
        self.forcing = True
        for cleanup in reversed(pending_cleanups()):
            try:
                cleanup.force()
            except BaseException:  # noqa: BLE001, S110  (exiting anyway: the next run removes what is left)
                pass
        try:
            _kill_descendants()
        except BaseException:  # noqa: BLE001, S110
            pass
        code = EXIT_SIGTERM if signum == signal.SIGTERM else EXIT_SIGINT
        try:  # not through sys.stderr: the interrupted code may be inside its buffer's lock
            os.write(self.err_fd, (stop_message(code) + "\n").encode())
        except OSError:
            pass
        os._exit(code)


def ignore_late_signals() -> None:
    """Ignore SIGTERM and SIGINT from now on: registered with ``atexit`` by `auditad.cli.main` run as the program.

    The interpreter's exit resets every Python signal handler to the default action before it tears
    down the modules (seconds on a busy machine); a signal then would kill the finished run, with
    status -15 or -2 instead of its exit code.  The last ``atexit`` function to run (the first
    registered) ignores them instead: the run has reported its outcome.
    """
    for signum in (signal.SIGTERM, signal.SIGINT):
        try:
            signal.signal(signum, signal.SIG_IGN)
        except (OSError, ValueError):  # not the main thread, or not a signal on this system
            pass


def _descendants(pid: int) -> list[int]:
    """The process ids of every descendant of ``pid``, from ``/proc`` (Linux); empty where it does not exist."""
    found, todo = [], [pid]
    while todo:
        for f in Path(f"/proc/{todo.pop()}/task").glob("*/children"):
            try:
                kids = [int(c) for c in f.read_text().split()]
            except (OSError, ValueError):
                continue
            new = [k for k in kids if k not in found]
            found += new
            todo += new
    return found


def _kill_descendants(rounds: int = 3) -> None:
    """SIGKILL every descendant process (Dask nannies and their workers), a few times 20 ms apart to catch the
    ones being spawned; multiprocessing's resource tracker is spared (it cleans up quietly once we are gone)."""
    import time

    kill = getattr(signal, "SIGKILL", signal.SIGTERM)
    tracker = sys.modules.get("multiprocessing.resource_tracker")
    spare = {getattr(getattr(tracker, "_resource_tracker", None), "_pid", None)}
    for _ in range(rounds):
        for pid in set(_descendants(os.getpid())) - spare:
            try:
                os.kill(pid, kill)
            except OSError:
                pass
        time.sleep(0.02)


#: A ``-W`` option that child interpreters inherit (``sys.warnoptions``): multiprocessing's resource tracker,
#: started with a local Dask cluster, warns of "leaked semaphore objects" when a signal ends the run while
#: workers start; the run has already said how it ended.
TRACKER_QUIET = "ignore::UserWarning:multiprocessing.resource_tracker"


def quiet_children() -> None:
    """Add `TRACKER_QUIET` to the options child interpreters start with (this process's filters are untouched)."""
    if TRACKER_QUIET not in sys.warnoptions:
        sys.warnoptions.append(TRACKER_QUIET)


def quiet_shutdown() -> None:
    """After a signal ended the command: close leftover Dask clusters without their shutdown noise.

    A signal can leave a local Dask cluster behind (caught while it started, or while the
    executor closed it); Dask's exit handler would then print a traceback after auditad's
    last line (see [`abandon_local_clusters`][auditad.execution.abandon_local_clusters]), and
    worker processes still being spawned would each print one when they find their parent
    gone: they are ended first (the command is ending anyway).  Does nothing (and imports
    nothing) when Dask was not used.
    """
    if "distributed" not in sys.modules:
        return
    import multiprocessing

    from ..execution import abandon_local_clusters

    abandon_local_clusters(ending=True)
    _end_children(multiprocessing)


def _own_children() -> set[int]:
    """The process ids of this process's children, from ``/proc`` (Linux); empty where it does not exist."""
    found: set[int] = set()
    for f in Path(f"/proc/{os.getpid()}/task").glob("*/children"):
        try:
            found.update(int(c) for c in f.read_text().split())
        except (OSError, ValueError):
            pass
    return found


def _end_children(multiprocessing, *, quiet_for: float = 0.3, patience: float = 5.0) -> None:
    """End, with SIGKILL, every child process until none has appeared for ``quiet_for`` seconds.

    Dask's worker processes are spawned from daemon threads: a worker created just before
    the signal may not have been sent its start-up data yet, and would print an ``EOFError``
    traceback when this process exits.  A killed process prints nothing.  The children are
    found through ``/proc`` (a process being spawned is not yet in multiprocessing's own
    list) and through ``multiprocessing.active_children()``; multiprocessing's resource
    tracker is spared (it would be relaunched, with warnings).  The scan repeats, sleeping
    briefly so that the spawning threads can finish, for at most ``patience`` seconds.
    """
    import signal
    import time

    kill = getattr(signal, "SIGKILL", signal.SIGTERM)
    tracker = sys.modules.get("multiprocessing.resource_tracker")
    spare = {getattr(getattr(tracker, "_resource_tracker", None), "_pid", None)}  # relaunched if killed
    start = last_seen = time.monotonic()
    while time.monotonic() - last_seen < quiet_for and time.monotonic() - start < patience:
        pids = (_own_children() | {c.pid for c in multiprocessing.active_children() if c.pid}) - spare
        for pid in pids:
            try:
                os.kill(pid, kill)
            except OSError:
                pass
        if pids:
            last_seen = time.monotonic()
        time.sleep(0.05)
        for pid in pids:  # reap what the killing left (multiprocessing may have reaped it already)
            try:
                os.waitpid(pid, os.WNOHANG)
            except (ChildProcessError, OSError):
                pass


def debug_requested(argv: list[str]) -> bool:
    """Remove every ``--debug`` before a ``--`` from ``argv``; True if one was there or AUDITAD_DEBUG is set."""
    cut = argv.index("--") if "--" in argv else len(argv)
    found = "--debug" in argv[:cut]
    argv[:cut] = [a for a in argv[:cut] if a != "--debug"]
    env = os.environ.get("AUDITAD_DEBUG", "").strip().lower()
    return found or env not in ("", "0", "false", "no")


def _where(exc: BaseException) -> str:
    """``file.py:line`` of the innermost frame of the traceback that lies in auditad (else the innermost)."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "unknown location"
    root = str(Path(__file__).resolve().parent.parent)  # the auditad package folder
    ours = [f for f in frames if str(Path(f.filename).resolve()).startswith(root)]
    f = (ours or frames)[-1]
    name = Path(f.filename).name if not ours else str(Path(f.filename).resolve().relative_to(Path(root).parent))
    return f"{name}:{f.lineno}"


def _one_line(text) -> str:
    return " ".join(str(text).split())


def _interrupt_in_chain(exc: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C (or SIGTERM) behind ``exc``: a library that wraps whatever stopped its import
    (NumPy raises ``ImportError`` "troubleshooting tips" around it) must not turn it into exit 3."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def forget_unhandled_interrupt() -> None:
    """Clear CPython's "unhandled KeyboardInterrupt" flag after an interrupt was handled.

    A Ctrl-C that escapes an ``exec(string)`` inside a library import (SciPy clones NumPy's
    namespace that way) sets an interpreter-wide flag that makes ``python -m auditad`` kill
    itself with SIGINT at exit (status -2) although `auditad.cli.main` handled the
    interrupt and returned 130.  Each ``exec`` of a string resets that flag first; this is one.
    """
    exec("None", {})  # noqa: S102 - a constant string, evaluated for its side effect on the flag


def exit_status(exc: BaseException) -> tuple[int, str]:
    """Exit code and one-line message for an exception that ended a command (the contract in the module doc)."""
    import errno

    if isinstance(exc, SystemExit):  # argparse: --help, --version, usage errors (already printed)
        code = exc.code
        if code is None or isinstance(code, int):
            return int(code or 0), ""
        return EXIT_USAGE, f"auditad: error: {_one_line(code)}"
    exc = _interrupt_in_chain(exc) or exc
    if RECEIVED and not isinstance(exc, (KeyboardInterrupt, SystemExit)):  # the interrupt, wrapped by a library
        exc = Terminated() if stop_requested() == signal.SIGTERM else KeyboardInterrupt()
    if isinstance(exc, Terminated):
        return EXIT_SIGTERM, stop_message(EXIT_SIGTERM)
    if isinstance(exc, KeyboardInterrupt):
        return EXIT_SIGINT, stop_message(EXIT_SIGINT)
    if isinstance(exc, AuditadError):
        return EXIT_USAGE, f"auditad: error: {_one_line(exc)}"
    if isinstance(exc, BrokenPipeError):
        return EXIT_PIPE, ""
    if isinstance(exc, OSError) and (
        exc.errno in ENV_ERRNOS
        or isinstance(exc, (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError))
    ):
        reason = exc.strerror or os.strerror(exc.errno or errno.EIO)
        name = f"{str(exc.filename)!r}: " if exc.filename else ""
        return EXIT_USAGE, f"auditad: error: {name}{reason}"
    if isinstance(exc, MemoryError):
        return EXIT_INTERNAL, (
            f"auditad: internal error: out of memory (MemoryError at {_where(exc)}); give the "
            "process more memory or audit fewer samples or classes; report it to "
            f"{REPORT_TO} if the input is small"
        )
    return EXIT_INTERNAL, (
        f"auditad: internal error: {type(exc).__name__}: {_one_line(exc)[:300]} "
        f"(at {_where(exc)}); please report it to {REPORT_TO}; "
        "--debug or AUDITAD_DEBUG=1 shows the traceback"
    )


#: Library parameter names that differ from the ``dest`` of the command-line option carrying the value
#: (applied only when the command being run has that option).
PYTHON_ALIASES = {
    "out_dir": "out",
    "ratios": "ratio",
    "metrics": "metric",
    "detectors": "detector",
    "estimators": "estimator",
    "probes": "pseudo",
    "random_state": "seed",
    "json_path": "json",
    "X": "embeddings",
    "y": "labels",
    "summary_paths": "summaries",
    "audit": "audit_dir",
}


class Flags(dict):
    """``{python name: flag}`` plus ``switches``: the flags that take no value (``--percent``)."""

    switches: frozenset = frozenset()


def flag_names(parser) -> Flags:
    """``{python name: flag}`` for one (sub)command parser, from its argparse actions.

    An option is reachable under its ``dest``, its ``dest`` without the ``setting_`` prefix of
    the audit settings, its long option string written as a Python name (``--n-pos`` → ``n_pos``)
    and the library's name for the same value (`PYTHON_ALIASES`).  Positional arguments
    map to their metavar (``DIR``).
    """
    flags, switches = Flags(), set()
    for action in getattr(parser, "_actions", ()):
        if action.dest in ("help", "version") or action.dest is None:
            continue
        longs = [o for o in action.option_strings if o.startswith("--")]
        if longs:
            flag = max(longs, key=len)
            if action.nargs == 0:  # store_true / store_false / store_const
                switches.add(flag)
            names = {action.dest, action.dest.removeprefix("setting_"), flag[2:].replace("-", "_")}
        elif not action.option_strings:
            flag = action.metavar if isinstance(action.metavar, str) else action.dest
            names = {action.dest}
        else:
            continue
        for name in names:
            flags.setdefault(name, flag)
    for py, dest in PYTHON_ALIASES.items():
        if dest in flags:
            flags.setdefault(py, flags[dest])
    flags.switches = frozenset(switches)
    return flags


def speak_cli(message: str, flags: dict[str, str]) -> str:
    """A library error message with its Python parameter names replaced by the command's flags.

    ``out_dir='x'`` becomes ``--out 'x'``, ``embeddings['pixels']='p.npy'`` becomes
    ``--embeddings pixels='p.npy'``, ``k=500`` becomes ``--k 500``, and a name that opens the
    message or is followed by "must" (``resolution must be >= 2``), and the pair in "both n_pos and
    n_neg", become the flags.  Names
    inside paths, dotted keys (``leakage.L_k``) and words that are not a parameter of the
    command are left alone.

    >>> speak_cli("out_dir='a' would replace 'b'; k=5, k must be >= 1", {"out_dir": "--out", "k": "--k"})
    "--out 'a' would replace 'b'; --k 5, --k must be >= 1"
    """
    if not flags:
        return message
    names = "|".join(sorted(map(re.escape, flags), key=len, reverse=True))
    before = r"(?<![\w.\-/'\"\[=])"

    switches = getattr(flags, "switches", frozenset())

    def assign(m):
        flag, key = flags[m.group(1)], m.group(2)
        if flag in switches and m.group(3):  # percent=True -> --percent (a switch takes no value)
            return flag
        value = m.group(3) or ""
        if key:
            inner = key[1:-1].strip("'\"")
            return f"{flag} {inner}={value}"
        return f"{flag} {value}"

    out = re.sub(before + rf"({names})(\[[^\]\s]*\])?=(?!=)(True\b)?", assign, message)
    out = re.sub(
        rf"\b(both|either|neither) ({names}) (and|or|nor) ({names})\b",
        lambda m: f"{m.group(1)} {flags[m.group(2)]} {m.group(3)} {flags[m.group(4)]}",
        out,
    )
    return re.sub(before + rf"({names})(?=:\s| must\b)", lambda m: flags[m.group(1)], out)


def print_warnings(caught, debug: bool) -> None:
    """Each distinct warning of the run as one line ``auditad: note: ...`` on stderr (no source line)."""
    from ..errors import AuditadWarning

    seen = set()
    for w in caught:
        text = _one_line(w.message)
        if issubclass(w.category, AuditadWarning):
            line = f"auditad: note: {text}"
        else:
            line = f"auditad: note: {w.category.__name__}: {text}"
            if debug:
                line += f" ({Path(w.filename).name}:{w.lineno})"
        if line not in seen:
            seen.add(line)
            print(line, file=sys.stderr)
