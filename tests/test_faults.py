"""Faults during a run: signals, concurrent writers, a full disk, a crash between two renames.

After each fault the output folder holds the old or the new complete report and nothing
else, and the folder's parent holds no temporary folder of a process that is gone (a run
killed with SIGKILL cannot clean up; the next run does).  Subprocess runs use a tiny
generated benchmark with the cheapest settings and bounded waits.
"""

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import auditad._io as io_mod
from auditad._io import discard_output_dir, prepare_output_dir, replace_dir_atomic, write_text_atomic
from auditad.cli import main
from auditad.errors import InvalidInputError, OutputError

ROOT = Path(__file__).resolve().parents[1]
CONFIG = """version = 1
[settings]
k = [3]
detectors = ["knn"]
null_metrics = ["auroc"]
null_runs = 50
landscape_metrics = ["auroc"]
landscape_resolution = 11
[[benchmarks]]
name = "tiny"
labels = "y.npy"
embeddings = { x = "X.npy" }
"""
TIMEOUT = 120


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("AUDITAD_DEBUG", None)
    return env


def _audit_cmd(data: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "auditad", "audit", str(data / "audit.toml"), "--out", str(out), "--quiet"]


def _listing(folder: Path) -> dict:
    """Relative path -> size of every file under ``folder`` (the report's identity for these tests)."""
    return {str(p.relative_to(folder)): p.stat().st_size for p in sorted(folder.rglob("*")) if p.is_file()}


def _complete(folder: Path) -> bool:
    files = _listing(folder)
    return ({".auditad-report", "index.html", "tiny/report.html", "tiny/summary.json"} <= set(files)
            and json.loads((folder / "tiny" / "summary.json").read_text())["benchmark"] == "tiny")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """Inputs and one complete report made by a full run (the 'old' report of every fault below).

    Before that run, its folder's parent holds the debris of a run killed with SIGKILL: a
    temporary folder named with a process id that is gone, and a stale lock file.  The run
    must clean both up.
    """
    d = tmp_path_factory.mktemp("faults")
    rng = np.random.default_rng(0)
    np.save(d / "X.npy", np.vstack([rng.normal(3 * i, 1, (20, 3)) for i in range(3)]))
    np.save(d / "y.npy", np.repeat(np.array(["a", "b", "c"]), 20))
    (d / "audit.toml").write_text(CONFIG)
    (d / "reports").mkdir()
    debris = d / "reports" / f".out.auditad-tmp-{_dead_pid()}-0badf00d"
    (debris / "tiny").mkdir(parents=True)
    (debris / "tiny" / "summary.json").write_text("{")
    (d / "reports" / ".out.auditad-lock").write_text("pid 1 on host gone since then\n")
    old = d / "reports" / "out"
    r = subprocess.run(_audit_cmd(d, old), env=_env(), capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    assert _complete(old)
    assert sorted(p.name for p in old.parent.iterdir()) == ["out"]  # debris, lock and temporary all gone
    return d


def test_first_run_cleans_the_debris_of_a_killed_run(data):
    assert sorted(p.name for p in (data / "reports").iterdir()) == ["out"] and _complete(data / "reports" / "out")


@pytest.fixture
def workdir(data, tmp_path):
    """A fresh parent folder holding a copy of the old report at ``out``."""
    parent = tmp_path / "run"
    parent.mkdir()
    shutil.copytree(data / "reports" / "out", parent / "out")
    return parent


def _wait_for(proc, cond, what: str, timeout: float = 90.0):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        found = cond()
        if found:
            return found
        if proc.poll() is not None:
            pytest.fail(f"the run ended (exit {proc.returncode}) before {what}: {proc.stderr.read()}")
        time.sleep(0.02)
    proc.kill()
    pytest.fail(f"timed out waiting for {what}")


def _tmp_dirs(parent: Path) -> list[Path]:
    return sorted(parent.glob(".out.auditad-tmp-*"))


POINTS = {
    # the temporary folder exists: the lock is held, statistics are being computed
    "computing": lambda parent: _tmp_dirs(parent),
    # summary.json is written: figures follow
    "writing": lambda parent: [t for t in _tmp_dirs(parent) if (t / "tiny" / "summary.json").exists()],
    # at least two figure files are written
    "figures": lambda parent: [t for t in _tmp_dirs(parent) if len(list((t / "tiny" / "figures").glob("*")))
                               >= 2] if _tmp_dirs(parent) else [],
}


@pytest.mark.parametrize("sig, point, code", [
    (signal.SIGTERM, "computing", 143),
    (signal.SIGTERM, "figures", 143),
    (signal.SIGINT, "writing", 130),
    (signal.SIGKILL, "figures", -9),
])
def test_signal_during_audit_keeps_the_old_report_and_nothing_else(data, workdir, sig, point, code):
    old = _listing(workdir / "out")
    proc = subprocess.Popen(_audit_cmd(data, workdir / "out"), env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    _wait_for(proc, lambda: POINTS[point](workdir), point)
    if point == "computing" and sig == signal.SIGTERM:
        # a second writer while the first holds the lock: refused at once, naming the holder
        t0 = time.monotonic()
        second = subprocess.run(_audit_cmd(data, workdir / "out"), env=_env(), capture_output=True, text=True,
                                timeout=TIMEOUT)
        assert second.returncode == 2, second.stderr
        assert f"pid {proc.pid}" in second.stderr and "being written by another auditad run" in second.stderr
        assert "Traceback" not in second.stderr and time.monotonic() - t0 < 30
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == code, err
    assert "Traceback" not in err
    assert _listing(workdir / "out") == old and _complete(workdir / "out")
    left = sorted(p.name for p in workdir.iterdir())
    if sig == signal.SIGKILL:  # no chance to clean: the temporary folder names the dead process
        assert any(name.startswith(f".out.auditad-tmp-{proc.pid}-") for name in left)
        out, tmp = prepare_output_dir(workdir / "out")  # the next run removes it
        discard_output_dir(tmp)
        left = sorted(p.name for p in workdir.iterdir())
    else:
        assert err.strip().splitlines()[-1].startswith("auditad: " + ("terminated" if code == 143 else "interrupted"))
    assert left == ["out"]


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


# --------------------------------------------------------------------------- in-process faults
class _Killed(BaseException):
    """Stands for the process dying: nothing after it runs."""


def _portable_swap_interrupted(tmp_path, monkeypatch, fail_from: int):
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.txt").write_text("old")
    monkeypatch.setattr(io_mod, "_exchange", lambda a, b: False)  # the portable path: backup, then rename
    real = os.replace
    calls = []

    def replace(src, dst):
        calls.append((src, dst))
        if len(calls) == fail_from:
            raise _Killed
        return real(src, dst)

    _, tmp = prepare_output_dir(out)
    (tmp / "report.txt").write_text("new")
    monkeypatch.setattr(io_mod.os, "replace", replace)
    with pytest.raises(_Killed):
        replace_dir_atomic(tmp, out)
    monkeypatch.setattr(io_mod.os, "replace", real)
    discard_output_dir(tmp)  # what run_audit / write_appendix do on any exception
    return out


def test_interrupt_between_the_two_renames_puts_the_old_report_back(tmp_path, monkeypatch):
    out = _portable_swap_interrupted(tmp_path, monkeypatch, fail_from=2)  # only the new -> out rename fails
    assert (out / "report.txt").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_death_between_the_two_renames_is_recovered_by_the_next_run(tmp_path):
    # the state a SIGKILL leaves between 'out -> backup' and 'new -> out' (no handler ran)
    dead = _dead_pid()
    backup = tmp_path / f".out.auditad-old-{dead}-00ff00ff"
    backup.mkdir()
    (backup / "report.txt").write_text("old")
    new = tmp_path / f".out.auditad-tmp-{dead}-11ee11ee"
    new.mkdir()
    (new / "report.txt").write_text("new")
    out = tmp_path / "out"
    _, tmp2 = prepare_output_dir(out)  # the next run restores the old report before doing anything
    assert (out / "report.txt").read_text() == "old"
    discard_output_dir(tmp2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_stale_temporary_file_of_a_killed_json_write_is_removed(tmp_path):
    stale = tmp_path / f".r.json.auditad-tmp-{_dead_pid()}-12ab34cd"
    stale.write_text("half")
    live = tmp_path / f".r.json.auditad-tmp-{os.getpid()}-12ab34cd"
    write_text_atomic(tmp_path / "r.json", "{}")
    assert not stale.exists() and (tmp_path / "r.json").read_text() == "{}"
    assert not live.exists()


def test_exchange_keeps_out_present_at_every_instant(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "a").write_text("old")
    _, tmp = prepare_output_dir(out)
    (tmp / "a").write_text("new")
    replace_dir_atomic(tmp, out)
    assert (out / "a").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    if sys.platform.startswith("linux"):
        a, b = tmp_path / "x", tmp_path / "y"
        a.mkdir()
        b.mkdir()
        (a / "f").write_text("x")
        assert io_mod._exchange(a, b) and (b / "f").exists() and not (a / "f").exists()


def _enospc_after(n: int):
    count = {"n": 0}
    real = os.fsync

    def fsync(fd):
        count["n"] += 1
        if count["n"] > n:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd)

    return fsync


def test_full_disk_on_json_output_exits_2_and_keeps_the_old_file(tmp_path, monkeypatch, capsys):
    rng = np.random.default_rng(1)
    np.save(tmp_path / "X.npy", rng.normal(size=(40, 3)))
    np.save(tmp_path / "y.npy", np.repeat([0, 1], 20))
    (tmp_path / "r.json").write_text("old")
    monkeypatch.setattr(io_mod.os, "fsync", _enospc_after(0))
    code = main(["leakage", "--embeddings", str(tmp_path / "X.npy"), "--labels", str(tmp_path / "y.npy"),
                 "--k", "3", "--backend", "exact", "--json", str(tmp_path / "r.json")])
    err = capsys.readouterr().err
    assert code == 2 and "No space left on device" in err and "r.json" in err and "Traceback" not in err
    assert (tmp_path / "r.json").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["X.npy", "r.json", "y.npy"]


def test_full_disk_during_a_report_exits_2_and_keeps_the_old_report(data, workdir, monkeypatch, capsys):
    old = _listing(workdir / "out")
    monkeypatch.setattr(io_mod.os, "fsync", _enospc_after(3))  # fails in the middle of the report's files
    code = main(["audit", str(data / "audit.toml"), "--out", str(workdir / "out"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "No space left on device" in err and "Traceback" not in err, err
    assert _listing(workdir / "out") == old
    assert sorted(p.name for p in workdir.iterdir()) == ["out"]


def test_write_error_types():
    exc = OutputError(errno.ENOSPC, "cannot write 'x': No space left on device", "x")
    assert isinstance(exc, OSError) and exc.errno == errno.ENOSPC and str(exc).startswith("cannot write")


def test_lock_in_process_refuses_a_second_writer_and_is_released(tmp_path):
    out = tmp_path / "out"
    _, tmp = prepare_output_dir(out)
    lock = tmp_path / ".out.auditad-lock"
    assert f"pid {os.getpid()}" in lock.read_text()
    r = subprocess.run([sys.executable, "-c", "from auditad._io import prepare_output_dir as p; p(" + repr(str(out))
                        + ")"], env=_env(), capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "being written by another auditad run" in r.stderr
    write_text_atomic(tmp / "f", "x")
    replace_dir_atomic(tmp, out)
    assert not lock.exists() and (out / "f").read_text() == "x"
    with pytest.raises(InvalidInputError, match="exists and is a file"):
        prepare_output_dir(out / "f")


def test_output_folder_behind_a_symlink_is_replaced_and_the_link_kept(tmp_path):
    real = tmp_path / "store" / "report"
    real.parent.mkdir()
    real.mkdir()
    (real / "a").write_text("old")
    link = tmp_path / "out"
    link.symlink_to(real, target_is_directory=True)
    final, tmp = prepare_output_dir(link)
    assert final == real.resolve() and tmp.parent == real.resolve().parent
    (tmp / "a").write_text("new")
    replace_dir_atomic(tmp, final)
    assert link.is_symlink() and (link / "a").read_text() == "new"
    assert sorted(p.name for p in real.parent.iterdir()) == ["report"]
