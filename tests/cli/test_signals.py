"""Signals at any moment of a run: recorded by the handler, honoured at the pipeline's next safe point.

The stress test sends SIGTERM or SIGINT (in turn) at evenly spaced moments of a short audit (into a fresh
``--out`` and over an older report) and checks each outcome against the contract: exit 143 / 130 with
one line on stderr (or exit 0 when the report was complete before the signal was honoured), never a
traceback nor "Exception ignored", and next to ``--out`` nothing but a complete report: the older one
intact, or the new one whole.  The older report is made with another seed, so "intact" and "replaced
whole" are told apart by the bytes of every file.  The other tests cover the handler itself (it only
records; a second signal forces the exit after the pending clean-ups).
"""

import hashlib
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from auditad import _progress
from auditad.cli import terminal

from _helpers import child_env, default_sigint, write_tiny_benchmark

TIMEOUT = 180
MOMENTS = 16  # evenly spaced from 5 % to 98 % of a full run; the two signals take turns
MESSAGE = {
    signal.SIGTERM: (143, "auditad: terminated (SIGTERM); nothing half-written was left\n"),
    signal.SIGINT: (130, "auditad: interrupted; nothing half-written was left\n"),
}


def _cmd(data: Path, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "auditad", "audit", str(data / "audit.toml"), "--out", str(out), "--quiet", *extra]


def _fingerprint(folder: Path) -> dict:
    """Relative path -> SHA-256 of every file under ``folder`` (the identity of a report, byte for byte)."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _run(cmd: list[str]) -> tuple[subprocess.CompletedProcess, float]:
    t0 = time.monotonic()
    r = subprocess.run(cmd, env=child_env(), capture_output=True, text=True, timeout=TIMEOUT)
    return r, time.monotonic() - t0


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """A tiny benchmark (3 classes of 20 rows in 3 dimensions) and the cheapest audit settings."""
    d = tmp_path_factory.mktemp("signals")
    write_tiny_benchmark(d)
    return d


@pytest.fixture(scope="module")
def audits(data):
    """The report a full run makes (seed 0), an older report (seed 1) and the time of a full run.

    The two reference runs run side by side, as the trials do (two at a time), so the measured time
    matches the trials' conditions.
    """
    with ThreadPoolExecutor(2) as pool:
        new = pool.submit(_run, _cmd(data, data / "new"))
        old = pool.submit(_run, _cmd(data, data / "old", "--seed", "1"))
        (r_new, t_new), (r_old, t_old) = new.result(), old.result()
    for r in (r_new, r_old):
        assert r.returncode == 0 and r.stderr == "", r.stderr
    expected, older = _fingerprint(data / "new"), _fingerprint(data / "old")
    assert expected != older and {"index.html", "tiny/report.html", "tiny/summary.json"} <= set(expected)
    return {"data": data, "new": expected, "old": older, "seconds": (t_new + t_old) / 2}


def _trial(audits, parent: Path, sig: int, delay: float, over_old: bool) -> list[str]:
    """One run signalled ``delay`` seconds after its start; the ways it broke the contract (none: [])."""
    parent.mkdir()
    if over_old:
        import shutil

        shutil.copytree(audits["data"] / "old", parent / "out")
    proc = subprocess.Popen(
        _cmd(audits["data"], parent / "out"),
        env=child_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    time.sleep(delay)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=TIMEOUT)
    code, message = MESSAGE[sig]
    what = f"{signal.Signals(sig).name} at {delay:.2f} s ({'over an older report' if over_old else 'fresh'})"
    problems = []
    if "Traceback" in err or "Exception ignored" in err:
        problems.append(f"{what}: traceback on stderr: {err[-1500:]}")
    if proc.returncode not in (0, code):
        problems.append(f"{what}: exit {proc.returncode}: {err[-500:]}")
    elif err != ("" if proc.returncode == 0 else message):
        problems.append(f"{what}: exit {proc.returncode}, stderr {err[-500:]!r}")
    left = sorted(p.name for p in parent.iterdir())
    if left not in ([], ["out"]):
        problems.append(f"{what}: beside --out: {left}")
    report = _fingerprint(parent / "out") if (parent / "out").is_dir() else None
    allowed = [audits["new"]] + ([audits["old"]] if over_old else [None]) * (proc.returncode != 0)
    if report not in allowed:
        problems.append(f"{what}: exit {proc.returncode} left " + ("no report" if report is None else "a mixed report"))
    return problems


@pytest.mark.slow  # 16 runs of a ~3 s audit, two at a time: about 30 s on two free cores, minutes on busy ones
def test_a_signal_at_any_moment_ends_with_one_line_and_a_whole_report(audits, tmp_path):
    full = audits["seconds"]
    moments = np.linspace(0.05, 0.98, MOMENTS) * full
    signals = (signal.SIGTERM, signal.SIGINT)
    trials = [
        (tmp_path / f"{signals[i % 2].name}-{i:02d}", signals[i % 2], float(t), bool(i // 2 % 2))
        for i, t in enumerate(moments)
    ]  # one signal a moment, the two in turn (the handler is one code path; only the exit line differs), so each
    # signal lands in every part of the run; fresh and over an older report alternate for each signal
    with ThreadPoolExecutor(2) as pool:
        outcomes = list(pool.map(lambda t: _trial(audits, *t), trials))
    problems = [p for found in outcomes for p in found]
    assert problems == [], f"{len(problems)} problem(s) in {len(trials)} trials (full run {full:.1f} s):\n" + "\n".join(
        problems
    )


# --------------------------------------------------------------------------- the handler itself
def test_the_handler_records_and_the_check_points_raise(monkeypatch):
    """The handler never raises (an exception raised there can be swallowed as "Exception ignored"); the
    next safe point raises ``Terminated`` (143) or ``KeyboardInterrupt`` (130), and keeps raising."""
    with terminal.SignalGuard() as guard:
        assert signal.getsignal(signal.SIGTERM) == guard.handle
        _progress.check_stop()  # nothing recorded: no effect
        guard.handle(signal.SIGTERM, None)
        assert terminal.RECEIVED == [signal.SIGTERM]
        for _ in range(2):  # a swallowed stop is raised again at the next check point
            with pytest.raises(terminal.Terminated):
                _progress.check_stop()
        with pytest.raises(terminal.Terminated), _progress.Progress(3, "stage", enabled=False) as bar:
            bar.update()
        stream = terminal.SafeStream(open(os.devnull, "w"), check=True)
        with pytest.raises(KeyboardInterrupt):
            stream.write("a line after the signal")
        assert terminal.exit_status(terminal.Terminated())[0] == 143
    assert terminal.RECEIVED == [] and signal.getsignal(signal.SIGTERM) != guard.handle
    with terminal.SignalGuard() as guard:
        guard.handle(signal.SIGINT, None)
        with pytest.raises(KeyboardInterrupt) as caught:
            _progress.check_stop()
        assert not isinstance(caught.value, terminal.Terminated)
        assert terminal.exit_status(caught.value) == (130, MESSAGE[signal.SIGINT][1].strip())


def test_a_second_signal_runs_the_pending_cleanups_once_and_exits(monkeypatch, tmp_path):
    """The forced exit: the pending clean-ups' forced variants (one interrupted while running is completed,
    a finished one is not run again), the child processes ended, one line on stderr, the exit code."""
    ran = []
    finished = _progress.Cleanup(lambda: ran.append("finished"))
    pending = _progress.Cleanup(lambda: ran.append("normal"), forced=lambda: ran.append("forced"))
    exits = []
    monkeypatch.setattr(terminal, "_kill_descendants", lambda: ran.append("children"))
    monkeypatch.setattr(terminal.os, "_exit", exits.append)
    read, write = os.pipe()
    try:
        with terminal.SignalGuard(err_fd=write) as guard, finished.registered(), pending.registered():
            finished()
            guard.handle(signal.SIGTERM, None)
            assert ran == ["finished"] and exits == []  # the first signal is only recorded
            guard.handle(signal.SIGINT, None)
            assert ran == ["finished", "forced", "children"] and exits == [130]
            pending()  # the normal way out, had it come: the clean-up already ran
            assert ran == ["finished", "forced", "children"]
        assert os.read(read, 1000).decode() == MESSAGE[signal.SIGINT][1]
        with terminal.SignalGuard(err_fd=write) as guard:  # the command is reporting: later signals wait
            guard.handle(signal.SIGTERM, None)
            guard.ending = True
            guard.handle(signal.SIGTERM, None)
            assert exits == [130]
    finally:
        os.close(read)
        os.close(write)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="the handler's installation is seen in /proc")
def test_two_quick_signals_exit_at_once_with_one_line(data, tmp_path):
    """Two SIGTERMs while the command still imports NumPy and co. (no safe point for a while): the second
    one ends the process at once, with exit 143 and the one line."""
    proc = subprocess.Popen(
        _cmd(data, tmp_path / "out"), env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    status = Path(f"/proc/{proc.pid}/status")
    while proc.poll() is None:  # SigCgt: the signals with a handler; SIGTERM's bit once main() installed its own
        caught = next((ln for ln in status.read_text().splitlines() if ln.startswith("SigCgt:")), "SigCgt: 0")
        if int(caught.split()[1], 16) >> (signal.SIGTERM - 1) & 1:
            break
        time.sleep(0.005)
    proc.send_signal(signal.SIGTERM)
    time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 143 and err == MESSAGE[signal.SIGTERM][1], err
    assert sorted(p.name for p in tmp_path.iterdir()) == []
