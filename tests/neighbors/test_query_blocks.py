"""Approximate queries in fixed blocks, on forked processes: the same lists whatever the number of processes."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from auditad.neighbors import kneighbors, query_blocks
from auditad.neighbors.search import ApproximateIndex

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="blocks go to forked processes on Linux")


_SPY_DIR = None
_BLOCK = query_blocks._block
_MEET = None  # (a barrier of the forked processes: each one's first block waits for the other's)
_MET = None


def _spy_block(bounds):
    """`query_blocks._block`, leaving a file named after the process that answered the block and whether that
    process ends on SIGTERM (the forked processes inherit the patch); with `_MEET`, both processes take part
    whatever the scheduling."""
    global _MET
    import signal

    (_SPY_DIR / f"{os.getpid()}-{bounds[0]}-{signal.getsignal(signal.SIGTERM) is signal.SIG_DFL}").touch()
    if _MEET is not None and _MET != os.getpid():
        _MET = os.getpid()
        _MEET.wait(120)
    return _BLOCK(bounds)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 12)).astype(np.float32)
    Q = rng.normal(size=(700, 12)).astype(np.float32)
    return X, Q


def test_blocks_on_two_processes_equal_one_process(data, monkeypatch, tmp_path):
    X, Q = data
    index = ApproximateIndex(X, span=Q, k=10, random_state=0, project_dim=0)
    one = index.query(Q, 10)  # fewer queries than a block: one call of pynndescent, as before blocks
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(one, index._index.query(index._rows32(Q), k=10)[0])
    monkeypatch.setattr(query_blocks, "QUERY_BLOCK_ROWS", 64)  # 11 blocks
    monkeypatch.setattr(query_blocks, "_block", _spy_block)
    monkeypatch.setattr(sys.modules[__name__], "_SPY_DIR", tmp_path)
    serial = index.query(Q, 10, n_jobs=1)
    assert {p.name.split("-")[0] for p in tmp_path.iterdir()} == {str(os.getpid())}
    for p in tmp_path.iterdir():
        p.unlink()
    import multiprocessing

    monkeypatch.setattr(sys.modules[__name__], "_MEET", multiprocessing.get_context("fork").Barrier(2))
    parallel = index.query(Q, 10, n_jobs=2)
    pids = {p.name.split("-")[0] for p in tmp_path.iterdir()}
    assert len(pids) == 2 and str(os.getpid()) not in pids, "the blocks were not answered by two processes"
    assert len(list(tmp_path.iterdir())) == 11
    np.testing.assert_array_equal(parallel, serial)
    assert parallel.dtype == np.int64 and parallel.shape == (700, 10)
    # blocks change which random candidates a query starts from, not the quality of its list
    exact = kneighbors(X, Q, k=10, backend="exact").indices
    found = [np.mean([len(set(a) & set(b)) / 10 for a, b in zip(lists, exact)]) for lists in (serial, one)]
    assert found[0] > 0.9 and abs(found[0] - found[1]) < 0.02, found


def test_kneighbors_queries_of_another_set_do_not_depend_on_n_jobs(data, monkeypatch):
    X, Q = data
    monkeypatch.setattr(query_blocks, "QUERY_BLOCK_ROWS", 100)
    runs = [kneighbors(X, Q, k=5, backend="approximate", random_state=1, n_jobs=j, recall_sample=50) for j in (1, 2)]
    np.testing.assert_array_equal(runs[0].indices, runs[1].indices)
    assert runs[0].distances.tobytes() == runs[1].distances.tobytes()
    assert runs[0].recall > 0.8  # (12 independent Gaussian columns: a hard case for NN-descent)


def test_processes_follow_n_jobs():
    assert query_blocks.query_processes(1, 10) == 1
    assert query_blocks.query_processes(4, 3) == 3
    assert query_blocks.query_processes(2, 1) == 1
    assert query_blocks.query_processes(None, 50) == (os.cpu_count() or 1)
    assert query_blocks.query_processes(-1, 50) == (os.cpu_count() or 1)


def test_bad_n_jobs_is_named(data):
    from auditad.errors import InvalidInputError

    X, Q = data
    with pytest.raises(InvalidInputError, match="n_jobs"):
        kneighbors(X, Q, k=5, backend="approximate", n_jobs=0)


def test_shared_index_wider_queries_on_two_processes_equal_one(monkeypatch):
    from auditad.protocol.shared import SharedIndex

    rng = np.random.default_rng(8)
    X = rng.normal(size=(1500, 6))
    in_pool = rng.random(1500) < 0.3  # a small pool: most rows are short of 25 pool rows in the graph's lists
    monkeypatch.setattr(query_blocks, "QUERY_BLOCK_ROWS", 128)
    calls = []
    query = query_blocks.query_in_blocks

    def spy(index, Q32, k, n_jobs=1):
        calls.append((Q32.shape[0], n_jobs))
        return query(index, Q32, k, n_jobs)

    monkeypatch.setattr("auditad.neighbors.search.query_in_blocks", spy)
    q = np.arange(0, 1500, 2)
    one = SharedIndex(X, 20, random_state=3, n_jobs=1).lists(X, q, in_pool, 25)
    two = SharedIndex(X, 20, random_state=3, n_jobs=2).lists(X, q, in_pool, 25)
    assert any(m > 128 and j == 2 for m, j in calls), calls  # wider queries of several blocks on two processes
    np.testing.assert_array_equal(one[0], two[0])
    assert one[1].tobytes() == two[1].tobytes()


def test_forked_processes_end_under_the_command_lines_signal_handler(data, monkeypatch, tmp_path):
    # The command line's handler records SIGTERM instead of ending the process, and a fork copies it: the
    # SIGTERM with which the pool ended a worker still waiting for work was recorded, and joining that worker
    # waited forever (a 1M-row audit hung at its wider queries). A watchdog kills what a call leaves behind.
    import multiprocessing
    import threading

    from auditad.cli.terminal import SignalGuard

    X, Q = data
    index = ApproximateIndex(X, span=Q, k=10, random_state=0, project_dim=0)
    monkeypatch.setattr(query_blocks, "QUERY_BLOCK_ROWS", 64)  # 11 blocks
    monkeypatch.setattr(query_blocks, "_block", _spy_block)
    monkeypatch.setattr(sys.modules[__name__], "_SPY_DIR", tmp_path)
    serial = index.query(Q, 10, n_jobs=1)
    stuck = []
    others = {child.pid for child in multiprocessing.active_children()}  # (e.g. joblib's reusable workers)

    def started_here():
        return [child for child in multiprocessing.active_children() if child.pid not in others]

    def watchdog():
        for child in started_here():
            stuck.append(child.pid)
            child.kill()

    with SignalGuard():
        for _ in range(12):
            timer = threading.Timer(60, watchdog)
            timer.start()
            try:
                np.testing.assert_array_equal(index.query(Q, 10, n_jobs=2), serial)
            finally:
                timer.cancel()
    assert not stuck, f"{len(stuck)} forked processes did not end"
    ends = {p.name.split("-")[2] for p in tmp_path.iterdir() if p.name.split("-")[0] != str(os.getpid())}
    assert ends == {"True"}, "a forked process kept the command line's SIGTERM handler"
    assert not started_here()
