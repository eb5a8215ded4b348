"""LOF in the K−1 vs 1 protocol from the whole pool's tables where a task leaves the lists unchanged.

A training row whose list in task c is the head of its pool list, and whose neighbours' lists are too, has the
same k-distance and lrd in task c as in the whole pool: `_LeaveOneOutPass.lof_tables` takes those from tables
computed once (`_base_tables`). Checked against the computation from the task's own lists: the same bits for
every task, class sizes and duplicates included, and `LeaveOneOutLists.unchanged` against its definition.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from auditad.protocol import audit_protocol
from auditad.protocol import strategies
from auditad.protocol.shared import LeaveOneOutLists


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    n, d, K = 1500, 4, 25
    y = rng.integers(0, K, n)
    y[:30] = K  # a small class
    X = rng.normal(size=(n, d)) + y[:, None] * 0.15
    X[:60:2] = X[1:61:2]  # duplicates
    return X, y


def _run(X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return audit_protocol(X, y, detectors=("lof",), k=7, repeats=2, random_state=2, leakage_k=0, **kw)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_the_base_tables_give_the_tasks_own_lof_bit_for_bit(data, monkeypatch, n_jobs):
    X, y = data
    taken, total = [], []
    real = strategies._lof_tables_reached

    def counting(*args, base=None):
        if base is not None:
            ring = np.unique(args[2][args[2] >= 0])
            taken.append(int(base[0](ring).sum()))
            total.append(ring.size)
        return real(*args, base=base)

    monkeypatch.setattr(strategies, "_lof_tables_reached", counting)
    fast = _run(X, y, backend="exact", n_jobs=n_jobs)
    assert 0 < sum(taken) < sum(total)  # most rows from the base tables, some computed in the task
    monkeypatch.setattr(strategies, "_lof_tables_reached", lambda *args, base=None: real(*args))
    slow = _run(X, y, backend="exact", n_jobs=n_jobs)
    assert json.dumps(fast.to_dict(), sort_keys=True) == json.dumps(slow.to_dict(), sort_keys=True)


def test_unchanged_rows_match_their_definition(data):
    X, y = data
    pool = np.arange(1200)
    rows = np.arange(X.shape[0])
    anomalies = {c: np.flatnonzero(y[1200:] == c) + 1200 for c in np.unique(y)}
    lists = LeaveOneOutLists(X, y, pool, rows, anomalies, 6, backend="exact")
    k = lists.k
    for c in (0, 7, 25):
        train = pool[y[pool] != c]  # the rows a task asks lists of: its training rows
        got = lists.unchanged(c, train)
        i_c, d_c = lists.lists(c, train)
        head_i = lists.A_idx[lists.pos[train], :k]
        own = np.all(i_c == head_i, axis=1) & np.all(d_c == lists.A_d2[lists.pos[train], :k], axis=1)
        own_by_row = dict(zip(train.tolist(), own.tolist()))
        assert not lists.unchanged(c, pool[y[pool] == c]).any()
        for r, g in zip(train.tolist(), got.tolist()):
            if g:  # unchanged: its list and every neighbour's list are their heads in task c
                assert own_by_row[r]
                assert all(own_by_row.get(j, False) for j in lists.A_idx[lists.pos[r], :k].tolist())
        assert got.mean() > 0.5
        # the base tables equal the task's own tables on the unchanged rows
        kd, lrd = strategies._base_tables(lists, k, "euclidean", X.shape[0])
        tables = strategies._lof_tables_reached(
            lambda rr: lists.lists(c, rr),
            lambda rr, j: lists.kth_d2(c, rr, j),
            train[:, None],
            k,
            "euclidean",
            X.shape[0],
        )
        same = train[got]
        assert kd[same].tobytes() == tables.kdist[same].tobytes()
        assert lrd[same].tobytes() == tables.lrd[same].tobytes()


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
def test_lof_tables_from_squared_distances_equal_the_former_call_with_distances(monkeypatch, metric):
    from auditad.protocol import neighbor_lists as nl

    rng = np.random.default_rng(0)
    n, k = 700, 6
    nb = np.stack([rng.choice(n, k, replace=False) for _ in range(n)])
    d2 = np.sort(rng.random((n, k)) * 4, axis=1)
    rows = np.arange(n)
    former = nl.lof_tables(n + 5, rows, nl.to_distance(d2, metric), nb)  # distances, no metric (the former call)
    monkeypatch.setattr(nl, "LOF_BLOCK_ROWS", 64)  # several blocks
    blocked = nl.lof_tables(n + 5, rows, d2, nb, metric)
    assert former.kdist.tobytes() == blocked.kdist.tobytes()
    assert former.lrd.tobytes() == blocked.lrd.tobytes()
    assert np.isnan(blocked.lrd[n:]).all()
