"""A Dask worker lost for good during ``auditad audit --scheduler tcp://...``, and arrays sent by path.

The cluster is started like a user's: ``dask scheduler`` and two ``dask worker`` processes (without
nannies, so a SIGKILL ends a worker for good), reached by address.  Killing one worker while it runs
tasks and holds shared data must not change the outcome: exit 0 and the report folder identical, byte
for byte, to the serial run's (same input and output paths: the report records them, so the serial
report is moved away before the cluster run writes to the same place).  Killing both ends the run with
exit 2 and one ``auditad: error: no Dask worker is left ...`` line, within a bounded time.
"""

import json
import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("distributed")

from auditad.diskarray import MemmapToken, memmap_token, open_tokens
from auditad.errors import InvalidInputError
from auditad.execution import ExecutionError, open_executor

ROOT = Path(__file__).resolve().parents[2]
#: a guard against a hang, not a speed limit (the audit of `data` took 124 s on two cores loaded by other work)
TIMEOUT = 600
#: keys of data scattered by the client (``type-<32 hex>``), not of tasks (``name-<uuid>-<i>``)
SCATTERED = re.compile(r"^\w+-[0-9a-f]{32}$")


def _env():
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("AUDITAD_DEBUG", None)
    return env


def _audit_cmd(data: Path, out: Path, scheduler: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "auditad",
        "audit",
        "--embeddings",
        f"emb={data / 'X.npy'}",
        "--labels",
        str(data / "y.npy"),
        "--out",
        str(out),
        "--scheduler",
        scheduler,
        "--quiet",
    ]


def _files(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _stop(procs) -> None:
    for p in procs:
        if p.poll() is None:
            p.kill()
    for p in procs:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


@contextmanager
def _cluster(folder: Path, n_workers: int = 2):
    """A scheduler and ``n_workers`` worker processes started from the command line: (address, workers)."""
    procs, workers = [], []
    sched_file = folder / "scheduler.json"
    env = dict(
        _env(), PYTHONPATH=f"{ROOT / 'tests' / 'execution'}{os.pathsep}{_env()['PYTHONPATH']}"
    )  # this module's total()
    with open(folder / "cluster.log", "ab") as log:
        yield from _started(procs, workers, sched_file, log, env, n_workers)


def _started(procs, workers, sched_file, log, env, n_workers):
    try:
        procs.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "distributed.cli.dask_scheduler",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    "0",
                    "--no-dashboard",
                    "--dashboard-address",
                    "127.0.0.1:0",  # not 8787: local clusters of other tests want it
                    "--scheduler-file",
                    str(sched_file),
                ],
                env=env,
                stdout=log,
                stderr=log,
            )
        )
        t0, address = time.monotonic(), None
        while address is None and time.monotonic() - t0 < 60:
            assert procs[0].poll() is None, "the scheduler ended at start-up"
            try:
                address = json.loads(sched_file.read_text())["address"]
            except (OSError, ValueError, KeyError):  # not written yet, or half-written
                time.sleep(0.1)
        assert address, "the scheduler wrote no address within 60 s"
        for _ in range(n_workers):
            workers.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "distributed.cli.dask_worker",
                        "--scheduler-file",
                        str(sched_file),
                        "--nthreads",
                        "1",
                        "--no-nanny",
                        "--no-dashboard",
                        "--dashboard-address",
                        "127.0.0.1:0",
                        "--host",
                        "127.0.0.1",
                        "--death-timeout",
                        "60",
                    ],
                    env=env,
                    stdout=log,
                    stderr=log,
                )
            )
        procs += workers
        from distributed import Client

        with Client(address, timeout=30) as client:
            client.wait_for_workers(n_workers, timeout=60)
        yield address, workers
    finally:
        _stop(procs[::-1])


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """A benchmark whose cluster audit runs several seconds, and its serial report (moved to ``serial``)."""
    d = tmp_path_factory.mktemp("loss")
    rng = np.random.default_rng(3)
    k, per, dim = 5, 500, 24
    y = np.repeat(np.array([f"c{i}" for i in range(k)]), per)
    X = rng.normal(size=(y.size, dim)) + np.repeat(rng.normal(0, 1.5, (k, dim)), per, axis=0)
    np.save(d / "X.npy", X.astype(np.float32))
    np.save(d / "y.npy", y)
    r = subprocess.run(
        _audit_cmd(d, d / "out", "serial"), env=_env(), capture_output=True, text=True, timeout=TIMEOUT, check=False
    )
    assert r.returncode == 0, r.stderr
    (d / "out").rename(d / "serial")
    return d


def _victim(client):
    """A worker that runs a task and alone holds scattered data (its loss costs the most), or None."""
    processing, held = client.processing(), client.has_what()
    for address, keys in processing.items():
        others = {key for a, ks in held.items() if a != address for key in ks}
        if keys and any(SCATTERED.match(str(key)) and key not in others for key in held.get(address, ())):
            return address
    return None


def _lost_scattered(client) -> list:
    """The scattered keys the scheduler reports lost with a removed worker."""
    return [
        key
        for _, msg in client.get_events("all")
        if isinstance(msg, dict)
        for key in msg.get("lost-scattered-tasks", ())
    ]


def _addresses(client, workers) -> dict:
    """Worker address -> its process (matched through the process ids the workers report)."""
    pids = client.run(os.getpid)
    return {address: next(p for p in workers if p.pid == pid) for address, pid in pids.items()}


def _wait_for(proc, cond, what: str, timeout: float = 90.0):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        found = cond()
        if found:
            return found
        if proc.poll() is not None:
            pytest.fail(f"the audit ended (exit {proc.returncode}) before {what}: {proc.stderr.read()}")
        time.sleep(0.02)
    pytest.fail(f"timed out waiting for {what}")


@pytest.mark.slow
def test_a_lost_worker_is_survived_with_the_serial_report(data, tmp_path):
    from distributed import Client

    shutil.rmtree(data / "out", ignore_errors=True)
    with _cluster(tmp_path) as (address, workers), Client(address, timeout=30) as client:
        by_address = _addresses(client, workers)
        proc = subprocess.Popen(
            _audit_cmd(data, data / "out", address),
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            victim = _wait_for(proc, lambda: _victim(client), "a worker running a task, alone holding shared data")
            by_address[victim].send_signal(signal.SIGKILL)
            _, err = proc.communicate(timeout=TIMEOUT)
        finally:
            _stop([proc])
        assert proc.returncode == 0, err
        assert by_address[victim].wait(timeout=10) == -signal.SIGKILL
        assert len(client.scheduler_info()["workers"]) == 1  # the run finished on the other worker
        assert _lost_scattered(client)  # and sent again the data the lost worker alone held
    assert _files(data / "out") == _files(data / "serial")


@pytest.mark.slow
def test_no_worker_left_is_a_named_error_within_a_bounded_time(data, tmp_path):
    from distributed import Client

    out = tmp_path / "out"
    with _cluster(tmp_path) as (address, workers), Client(address, timeout=30) as client:
        proc = subprocess.Popen(
            _audit_cmd(data, out, address), env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            _wait_for(proc, lambda: any(client.processing().values()), "a task on the cluster")
            for w in workers:
                w.send_signal(signal.SIGKILL)
            t0 = time.monotonic()
            _, err = proc.communicate(timeout=TIMEOUT)
            waited = time.monotonic() - t0
        finally:
            _stop([proc])
    assert proc.returncode == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"auditad: error: no Dask worker is left on '{address}' (none joined within 20 s)"), err
    assert waited < 60, waited
    assert not out.exists()


# --------------------------------------------------------------------------- arrays sent by path
def _saved(tmp_path, array, name="a.npy"):
    np.save(tmp_path / name, array)
    return np.load(tmp_path / name, mmap_mode="r")


@pytest.mark.parametrize(
    "array",
    [
        np.arange(60, dtype=np.float32).reshape(12, 5),
        np.asfortranarray(np.random.default_rng(1).normal(size=(7, 3))),
        np.array(["a", "bc", "def"]),
        np.arange(5, dtype=">i8"),
    ],
)
def test_memmap_token_round_trips_to_an_identical_array(tmp_path, array):
    mapped = _saved(tmp_path, array)
    token = memmap_token(mapped)
    assert isinstance(token, MemmapToken) and len(pickle.dumps(token)) < 1000
    again = pickle.loads(pickle.dumps(token)).open()
    assert isinstance(again, np.memmap) and not again.flags.writeable
    assert again.dtype == array.dtype and again.shape == array.shape
    assert again.flags.c_contiguous == array.flags.c_contiguous and again.flags.f_contiguous == array.flags.f_contiguous
    assert again.tobytes(order="A") == array.tobytes(order="A")
    np.testing.assert_array_equal(open_tokens({"x": token, "n": 3})["x"], array)


def test_only_whole_contiguous_memmaps_have_a_token_and_a_changed_file_is_refused(tmp_path):
    mapped = _saved(tmp_path, np.arange(40.0).reshape(8, 5))
    assert memmap_token(np.arange(3.0)) is None  # in memory
    assert memmap_token(mapped[2:]) is None and memmap_token(mapped[:, 1]) is None  # views: offset not tracked
    token = memmap_token(mapped)
    np.save(tmp_path / "a.npy", np.arange(50.0))  # replaced: another size
    with pytest.raises(InvalidInputError, match="changed since it was shared"):
        token.open()


def total(i, *, rows):
    return float(rows[i].sum()), type(rows).__name__


@pytest.mark.slow
def test_a_memmap_travels_by_path_and_gives_the_same_results(tmp_path):
    mapped = _saved(tmp_path, np.random.default_rng(2).normal(size=(50, 4)))
    with _cluster(tmp_path) as (address, _), open_executor(address) as ex:
        shared = ex.share(mapped)
        assert isinstance(shared, MemmapToken)
        out = ex.map_ordered(total, range(50), rows=shared)
        assert [v for v, _ in out] == [float(r.sum()) for r in mapped] and {t for _, t in out} == {"memmap"}
        # opted out, or a file the workers cannot read: the data travels
        with open_executor(address, share_by_path=False) as by_value:
            assert not isinstance(by_value.share(mapped), MemmapToken)
        assert ex.map_ordered(total, [3], rows=ex.share(np.asarray(mapped)))[0] == (out[3][0], "ndarray")
    with pytest.raises(ExecutionError, match="not open"):
        ex.share(mapped)


@pytest.mark.slow
def test_shared_data_lost_with_its_worker_is_sent_again_until_no_worker_is_left(tmp_path):
    X = np.arange(200.0).reshape(50, 4)
    with _cluster(tmp_path) as (address, workers), open_executor(address, timeout=3, worker_wait=3) as ex:
        shared = ex.share({"rows": X})
        assert list(shared) == ["rows"] and shared["rows"].key != "rows"  # one piece per item, keys of its own
        by_address = _addresses(ex.client, workers)
        holder = ex.client.who_has([shared["rows"]])[shared["rows"].key][0]
        for address_, alive in ((holder, 1), (next(a for a in by_address if a != holder), 0)):
            by_address[address_].send_signal(signal.SIGKILL)
            by_address[address_].wait(timeout=10)
            t0 = time.monotonic()
            while ex.n_workers != alive and time.monotonic() - t0 < 30:
                time.sleep(0.05)
            if alive:  # the only copy went with the worker: sent again from this process's copy
                assert ex.map_ordered(total, range(50), rows=shared["rows"]) == [(float(r.sum()), "ndarray") for r in X]
        t0 = time.monotonic()
        with pytest.raises(ExecutionError, match=f"no Dask worker is left on '{address}' \\(none joined within 3 s\\)"):
            ex.map_ordered(total, range(3), rows=shared["rows"])
        assert time.monotonic() - t0 < 30
