"""The audit's nulls on n_jobs threads: the same nulls, in the same order, as the serial run."""

from __future__ import annotations

import json
import threading
import warnings
from types import SimpleNamespace

import numpy as np
from _helpers import meeting

from auditad.audit import sections
from auditad.audit.config import validate_settings
from auditad.execution import SerialExecutor
from auditad.protocol import audit_protocol


def _context(n_jobs, executor=None):
    rng = np.random.default_rng(4)
    sizes = [60, 75, 90, 105]  # four classes of different sizes: four nulls at different counts
    y = np.repeat(np.arange(4), sizes)
    X = rng.normal(size=(y.size, 4)) + y[:, None] * 0.3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = audit_protocol(X, y, detectors=("knn",), k=5, random_state=0, leakage_k=0, backend="exact")
    settings = validate_settings({"n_jobs": n_jobs, "null_method": "monte_carlo", "null_runs": 400})
    return SimpleNamespace(
        settings=settings, results={"protocol": res}, inputs=SimpleNamespace(columns={}), executor=executor
    )


def test_nulls_on_two_threads_equal_the_serial_nulls(monkeypatch):
    threads = set()
    null_at = sections.null_at
    meet = [lambda: None]  # (the parallel run: both threads take part, whatever the scheduling)

    def spy(item, **kw):
        threads.add(threading.get_ident())
        meet[0]()
        return null_at(item, **kw)

    monkeypatch.setattr(sections, "null_at", spy)
    serial = sections.run_nulls(_context(1))
    assert len(threads) == 1
    threads.clear()
    meet[0] = meeting(2)
    parallel = sections.run_nulls(_context(2, SerialExecutor()))  # (an audit without Dask has a serial executor)
    assert len(threads) == 2, "the nulls were not computed on two threads"
    assert [(c.label, c.n_pos, c.n_neg) for c in parallel["classes"]] == [
        (c.label, c.n_pos, c.n_neg) for c in serial["classes"]
    ]
    assert len({(c.n_pos, c.n_neg) for c in serial["classes"]}) == 4
    # Monte Carlo nulls: equal only if each one kept its own stream, whichever thread drew it
    assert [json.dumps(c.null.to_dict(), sort_keys=True) for c in parallel["classes"]] == [
        json.dumps(c.null.to_dict(), sort_keys=True) for c in serial["classes"]
    ]
    assert any("monte" in json.dumps(c.null.to_dict()).lower() for c in serial["classes"])
