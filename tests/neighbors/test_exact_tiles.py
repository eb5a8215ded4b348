"""Queries of another set searched in tiles (`auditad.neighbors.pairs.query_entries`) against the block search
and a float64 oracle.

The tiled path must give the block search's answer bit for bit: Gaussian float32 queries, far queries, float64
rows scaled by 2^-900 and 1e300, a reference with large groups of equal rows (queries past `max_pairs` candidates,
redone by their own products) and queries equal to many rows. Its kept candidates are checked against float64
values: every row left out is, within the certificate's bound, above the query's threshold. The size rule is
lowered in these tests (``TILED_MIN_ROWS``) so that small sets take the tiled path.
"""

import numpy as np
import pytest
from _helpers import recording

from auditad.neighbors import exact as E
from auditad.neighbors import kneighbors
from auditad.neighbors import pairs as P


@pytest.fixture
def spy(monkeypatch):
    """Lowers the size rule and records each `query_entries` result."""
    monkeypatch.setattr(E, "TILED_MIN_ROWS", 1000)
    monkeypatch.setattr(P, "TILE_ROWS", 2048)  # several tiles in small sets
    return recording(monkeypatch, P, "query_entries")


def block_search(X, Q, k, monkeypatch, n_jobs=2):
    with monkeypatch.context() as mp:
        mp.setattr(E, "TILED_MIN_ROWS", 10**12)
        return E.search(X, Q, k, False, 256, n_jobs)


def assert_same(a, b):
    np.testing.assert_array_equal(a[0], b[0])
    assert a[1].tobytes() == b[1].tobytes()


def test_the_size_rule():
    assert E.TILED_MIN_ROWS == 2**16
    from types import SimpleNamespace

    plan = SimpleNamespace(full=False, c=18)
    assert E._tiled(plan, False, 2**16) and not E._tiled(plan, False, 2**16 - 1)
    assert not E._tiled(plan, True, 2**20)  # a self-search: the pairs or the blocks
    assert not E._tiled(SimpleNamespace(full=True, c=18), False, 2**20)


rng = np.random.default_rng(11)
CASES = {
    "gauss32": (rng.standard_normal((9000, 24)).astype(np.float32), rng.standard_normal((1500, 24)).astype(np.float32)),
    "far": (rng.standard_normal((9000, 24)), rng.standard_normal((1500, 24)) + 7.0),
    "2^-900": (np.ldexp(rng.standard_normal((9000, 16)), -900), np.ldexp(rng.standard_normal((1500, 16)), -900)),
    "1e300": (rng.standard_normal((9000, 16)) * 1e300, rng.standard_normal((1500, 16)) * 1e300),
}


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("k", [1, 10])
def test_tiles_give_the_block_search_bit_for_bit(spy, monkeypatch, name, k):
    X, Q = CASES[name]
    a = E.search(X, Q, k, False, 256, 2)
    assert len(spy) == 1 and spy[0].redo.sum() <= 30  # the tiled path ran and served almost every query
    assert_same(a, block_search(X, Q, k, monkeypatch))


def test_equal_rows_and_queries_on_them_are_redone(spy, monkeypatch):
    base = rng.standard_normal((300, 8))
    X = np.repeat(base, 30, axis=0)  # 300 groups of 30 equal rows
    X[:4000] = base[0]  # and one group of 4 000: a query on it is past max_pairs in one tile
    Q = np.concatenate([base[[0]], base[140:180], rng.standard_normal((400, 8))])  # 41 queries on equal rows
    a = E.search(X, Q, 10, False, 256, 2)
    found = spy[0]
    assert found.redo[0] and found.redo.sum() >= 1
    assert_same(a, block_search(X, Q, 10, monkeypatch))
    assert (a[1][:41] == 0).all()


def test_one_and_two_threads_give_the_same_answer(spy, monkeypatch):
    X, Q = CASES["gauss32"]
    Q = np.concatenate([Q, Q])  # three blocks of queries
    assert_same(E.search(X, Q, 10, False, 256, 1), E.search(X, Q, 10, False, 256, 2))


def test_kept_candidates_are_the_rows_at_or_below_each_querys_threshold_within_the_bound(spy):
    X, Q = CASES["far"]
    n, d = X.shape
    kneighbors(X, Q, k=10, backend="exact")
    found = spy[0]
    fr = E.Frame(X, Q, E.chunk_rows(d))
    Xf, Qf = fr.rows(X, 0, n), fr.rows(Q, 0, Q.shape[0])
    exact = (Xf * Xf).sum(axis=1)[None, :] - 2.0 * Qf @ Xf.T
    qn = np.sqrt((Qf * Qf).sum(axis=1))
    delta = (d + 16) * 2.0 * E.U32 * (qn + np.sqrt((Xf * Xf).sum(axis=1)).max()) ** 2
    thr = found.thr
    checked = 0
    for start in range(0, Q.shape[0], 256):
        stop = min(start + 256, Q.shape[0])
        rows, cols, vals, redo = found.block(start, stop)
        for i in set(range(stop - start)) - set(redo.tolist()):
            g = start + i
            kept = np.zeros(n, dtype=bool)
            kept[cols[rows == i]] = True
            assert np.all(exact[g, kept] <= thr[g] + delta[g])
            assert np.all(exact[g, ~kept] > thr[g] - delta[g])
            np.testing.assert_allclose(vals[rows == i], exact[g, cols[rows == i]], rtol=0, atol=delta[g])
            checked += 1
    assert checked >= Q.shape[0] - 30
