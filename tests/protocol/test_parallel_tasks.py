"""The protocol's per-task scoring on threads: the same result, bit for bit, as the serial run."""

from __future__ import annotations

import json
import threading
import warnings

import numpy as np
import pytest
from _helpers import meeting

from auditad.protocol import audit_protocol
from auditad.protocol import execution_stage
from auditad.protocol.execution_stage import task_threads


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    n, d, K = 900, 5, 6
    y = rng.integers(0, K, n)
    X = rng.normal(size=(n, d)) + y[:, None] * 0.4
    X[:40:2] = X[1:41:2]  # duplicates: ties broken by index in every thread
    return X, y


def _run(X, y, n_jobs, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return audit_protocol(
            X, y, detectors=("knn", "lof"), k=5, repeats=2, n_jobs=n_jobs, random_state=5, leakage_k=0, **kw
        )


@pytest.mark.parametrize("backend", ["exact"])  # (approximate: numba compiles for minutes in a fresh process)
def test_two_jobs_give_the_serial_result_bit_for_bit(data, backend, monkeypatch):
    X, y = data
    threads = set()
    score = execution_stage._neighbour_scores
    meet = [lambda: None]  # (the parallel run: both threads take part, whatever the scheduling)

    def spy(*args):  # records which threads scored the tasks
        threads.add(threading.get_ident())
        meet[0]()
        return score(*args)

    monkeypatch.setattr(execution_stage, "_neighbour_scores", spy)
    serial = _run(X, y, 1, backend=backend)
    assert len(threads) == 1
    threads.clear()
    meet[0] = meeting(2)
    parallel = _run(X, y, 2, backend=backend)
    assert len(threads) >= 2, "the tasks were not scored on two threads"
    assert parallel.to_frame().equals(serial.to_frame())
    assert json.dumps(parallel.to_dict(), sort_keys=True) == json.dumps(serial.to_dict(), sort_keys=True)


def test_constant_scores_warn_once_on_threads():
    X = np.zeros((120, 3))
    X[:, 0] = np.repeat(np.arange(4), 30) * 0.0
    y = np.repeat(np.arange(4), 30)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        audit_protocol(X, y, detectors=("knn",), k=3, n_jobs=2, random_state=0, leakage_k=0)
    assert sum("constant scores" in str(w.message) for w in caught) == 1


def test_task_threads():
    assert task_threads(1, 10) == 1
    assert task_threads(2, 10) == 2
    assert task_threads(4, 3) == 3
    assert task_threads(-1, 1000) >= 1


@pytest.mark.parametrize("project_dim", [0, 3, "auto"])
def test_project_dim_reaches_the_approximate_index(data, monkeypatch, project_dim):
    import auditad.neighbors as nb
    from auditad.protocol.shared import LeaveOneOutLists

    seen = {}

    class Stop(Exception):
        pass

    def fake_index(X, **kw):  # records the arguments, builds nothing
        seen.update(kw)
        raise Stop

    monkeypatch.setattr(nb, "ApproximateIndex", fake_index)
    X, y = data
    pool = np.arange(0, X.shape[0], 2)
    with pytest.raises(Stop):
        LeaveOneOutLists(
            X,
            y,
            pool,
            np.arange(1, 99, 2),
            {0: np.arange(1, 9, 2)},
            5,
            backend="approximate",
            random_state=0,
            project_dim=project_dim,
        )
    assert seen["project_dim"] == project_dim


@pytest.mark.parametrize("protocol", ["leave_one_class_out", "one_class"])
def test_fits_in_processes_give_the_serial_result_bit_for_bit(data, protocol, monkeypatch):
    """Isolation Forest fitted per task in 2 processes, in chunks of tasks that build their training rows there
    from the protocol's `TrainingRows` (the pool once per chunk): the same AUROCs, intervals and p-values as one
    after another in this process."""
    import joblib

    X, y = data
    monkeypatch.setattr(execution_stage, "PROCESS_FIT_MIN_ROWS", 0)  # (the sizes here are far below the real rule)
    chunks = []

    class Recording(joblib.Parallel):
        def __call__(self, iterable):
            calls = list(iterable)
            chunks.append(len(calls))
            return super().__call__(calls)

    monkeypatch.setattr(joblib, "Parallel", Recording)
    kw = dict(protocol=protocol, detectors=("iforest", "knn"), k=5, repeats=2, random_state=5, leakage_k=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        serial = audit_protocol(X, y, n_jobs=1, **kw)
        assert chunks == []
        procs = audit_protocol(X, y, n_jobs=2, **kw)
    assert chunks == [6]  # 12 tasks (6 classes, 2 repeats) in 4 chunks per process, 2 tasks each
    for name in ("auroc", "ci_low", "ci_high", "p_value"):
        np.testing.assert_array_equal(getattr(procs, name), getattr(serial, name), err_msg=name)
    assert np.isfinite(serial.auroc).sum() == 2 * 6 * 2  # two detectors, six classes, two repeats
