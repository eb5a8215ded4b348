"""One approximate index over every row, shared by the neighbour passes of the confirmatory draws.

Each confirmatory draw trains on its own pool; an index over one pool serves one draw only. The shared index
(`auditad.protocol.shared.SharedIndex`) is built once over all rows; each draw keeps the candidates that lie in
its pool. Checked against brute force among each pool, and by counting index builds through `audit_protocol`.
"""

from __future__ import annotations

import numpy as np
import pytest

from _helpers import benchmark_inputs

from auditad.protocol.neighbor_lists import prepare_rows
from auditad.protocol.shared import LeaveOneOutLists, SharedIndex


def _brute(X, pool, rows, k):
    """Each row's k nearest pool rows (self excluded) by brute force: (idx, d2), ties by index."""
    d2 = ((X[rows][:, None, :] - X[pool][None, :, :]) ** 2).sum(axis=2)
    d2[pool[None, :] == rows[:, None]] = np.inf
    order = np.lexsort((np.broadcast_to(pool, d2.shape), d2), axis=1)[:, :k]
    return pool[order], np.take_along_axis(d2, order, axis=1)


def _data(n=3000, K=30, d=6, spread=0.8, seed=11):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    X = rng.normal(size=(n, d)) + spread * rng.normal(size=(K, d))[y]
    return prepare_rows(X, "euclidean"), y


@pytest.mark.parametrize("fraction", [0.8, 0.1])
def test_lists_are_the_nearest_pool_rows_for_any_pool_of_one_index(fraction):
    """Two pools (two draws) from one build: every entry is a pool row, never the row itself, sorted, at its exact
    distance, and the lists agree with brute force among the pool (recall >= 0.95). A pool of a tenth of the rows
    leaves most graph candidates outside it: the rows short of entries are queried wider until full."""
    X, _ = _data()
    n, width = X.shape[0], 10
    index = SharedIndex(X, 30, random_state=0)
    for seed in (1, 2):
        in_pool = np.random.default_rng(seed).random(n) < fraction
        pool = np.flatnonzero(in_pool)
        q = np.random.default_rng(seed + 10).choice(n, 300, replace=False)
        got_i, got_d2 = index.lists(X, q, in_pool, width)
        assert (got_i >= 0).all() and in_pool[got_i].all() and (got_i != q[:, None]).all()
        assert (np.diff(got_d2, axis=1) >= 0).all()
        np.testing.assert_allclose(got_d2, ((X[got_i] - X[q][:, None]) ** 2).sum(axis=2), rtol=1e-12)
        exp_i, _ = _brute(X, pool, q, width)
        hits = sum(len(set(a) & set(b)) for a, b in zip(got_i.tolist(), exp_i.tolist()))
        assert hits / exp_i.size >= 0.95, (fraction, seed, hits / exp_i.size)


def test_a_pool_smaller_than_the_width_is_listed_whole():
    X, _ = _data(n=400)
    in_pool = np.zeros(400, dtype=bool)
    in_pool[[3, 50, 120]] = True
    got_i, got_d2 = SharedIndex(X, 30, random_state=0).lists(X, np.array([3, 7]), in_pool, 5)
    assert sorted(got_i[0, :2].tolist()) == [50, 120] and (got_i[0, 2:] == -1).all() and np.isinf(got_d2[0, 2:]).all()
    assert sorted(got_i[1, :3].tolist()) == [3, 50, 120] and (got_i[1, 3:] == -1).all()


def test_leave_one_out_lists_from_a_shared_index_match_exact_search():
    """The lists of every task among P minus class c, from the shared index: no row of class c, no self, only pool
    rows, and recall >= 0.95 against brute force; the index is built once for two pools."""
    X, y = _data()
    n, K, k = X.shape[0], 30, 5
    built = []

    def provider(degree):
        if not built:
            built.append(SharedIndex(X, degree, random_state=0))
        return built[0]

    for seed in (3, 4):
        is_train = np.random.default_rng(seed).random(n) < 0.6
        pool, test = np.flatnonzero(is_train), np.flatnonzero(~is_train)
        anomalies = {c: test[y[test] == c] for c in range(K)}
        lists = LeaveOneOutLists(
            X, y, pool, np.r_[test, pool], anomalies, k, backend="approximate", random_state=0, shared_index=provider
        )
        assert lists.recall >= 0.95
        hits = total = 0
        for c in range(0, K, 3):
            ref = pool[y[pool] != c]
            for rows in (test[y[test] != c], anomalies[c]):
                got_i, got_d2 = lists.lists(c, rows)
                assert np.isin(got_i, ref).all() and (got_i != rows[:, None]).all()
                assert (np.diff(got_d2, axis=1) >= 0).all()
                exp_i, _ = _brute(X, ref, rows, k)
                hits += sum(len(set(a) & set(b)) for a, b in zip(got_i.tolist(), exp_i.tolist()))
                total += exp_i.size
        assert hits / total >= 0.95
    assert len(built) == 1


def test_the_audit_and_its_confirmatory_draws_build_one_index_per_representation(monkeypatch):
    """Approximate backend, K-1 vs 1, one representation: the audit's own draw and its five confirmatory draws
    share one index over every row (not one over each of six pools); their AUROCs are those of lists of the same
    quality (each within 0.02 of the draws with one index per pool)."""
    import auditad.neighbors as nb
    from auditad.protocol import audit_protocol
    import auditad.protocol.confirmation as confirmation
    import auditad.protocol.runner as runner

    X, y = _data(n=2400, K=8, spread=0.5)
    builds = []
    real = nb.ApproximateIndex

    class Counting(real):
        def __init__(self, *a, **kw):
            builds.append(kw.get("rows") is None)  # True: over every row
            super().__init__(*a, **kw)

    monkeypatch.setattr(nb, "ApproximateIndex", Counting)
    kw = dict(detectors=["knn", "lof"], backend="approximate", confirm_repeats=5, random_state=0)
    shared = audit_protocol(X, y, **kw)
    n_candidates = shared.confirmation.n_candidates
    assert n_candidates > 0
    assert builds == [True]  # one index over every row for the audit's own draw and the five draws
    for module in (runner, confirmation):  # each pass with an index over its own pool
        execute = module.execute_tasks
        monkeypatch.setattr(module, "execute_tasks", lambda a, tp, index_cache=None, _e=execute: _e(a, tp))
    builds.clear()
    separate = audit_protocol(X, y, **kw)
    assert builds == [False] * 6
    assert np.nanmax(np.abs(shared.auroc - separate.auroc)) <= 0.02
    a, b = shared.confirmation.auroc, separate.confirmation.auroc
    assert np.array_equal(np.isfinite(a), np.isfinite(b))
    assert np.nanmax(np.abs(a - b)) <= 0.02


def test_several_representations_keep_one_index_over_the_pool_in_their_own_draw(monkeypatch):
    """With two representations the audit's own draws build their indexes over their pools (an index kept for
    the confirmation would be evicted by the next representation's), and the confirmation one per
    representation."""
    import auditad.neighbors as nb
    from auditad.protocol import audit_protocol

    X, y = _data(n=2400, K=8, spread=0.5)
    builds = []
    real = nb.ApproximateIndex

    class Counting(real):
        def __init__(self, *a, **kw):
            builds.append(kw.get("rows") is None)
            super().__init__(*a, **kw)

    monkeypatch.setattr(nb, "ApproximateIndex", Counting)
    res = audit_protocol(
        {"a": X, "b": X[:, ::-1].copy()},
        y,
        detectors=["knn", "lof"],
        backend="approximate",
        confirm_repeats=5,
        random_state=0,
    )
    assert res.confirmation.n_candidates > 0
    assert builds[:2] == [False, False] and all(builds[2:]) and 1 <= len(builds[2:]) <= 2


def test_the_cache_builds_one_index_per_key_across_calls():
    """The confirmation's rounds call `execute_tasks` again with the same cache: the key's index is reused (not
    rebuilt from the new call's seed), and a new key frees the old index before building its own."""
    from auditad.protocol.execution_stage import IndexCache

    X, _ = _data(n=500)
    cache = IndexCache()
    first = cache.provider((0, "euclidean", "approximate"), X, 1, "auto")(30)
    again = cache.provider((0, "euclidean", "approximate"), X, 2, "auto")(40)  # a later round: another seed
    assert again is first
    other = cache.provider((1, "euclidean", "approximate"), X, 1, "auto")(30)
    assert other is not first


def test_an_audit_builds_one_index_for_its_leakage_its_draw_and_its_confirmation(monkeypatch, tmp_path):
    """`run_audit`, approximate backend, one representation: the leakage's self search, the audit's own draw and
    the confirmatory draws read one index over every row (one build, at the protocol's degree); the leakage's lists
    are the exact nearest rows (recall against brute force >= 0.95, exact distances); with two representations each
    stage builds its own indexes as before."""
    import auditad.neighbors as nb
    from auditad.audit.runner import run_audit
    from auditad.neighbors import search

    X, y = _data(n=2400, K=8, spread=0.5)
    builds, self_builds = [], []
    real = nb.ApproximateIndex

    class Counting(real):
        def __init__(self, *a, **kw):
            builds.append((kw.get("rows") is None, kw.get("k")))
            super().__init__(*a, **kw)

    real_approx = search._approximate
    monkeypatch.setattr(nb, "ApproximateIndex", Counting)
    monkeypatch.setattr(search, "_approximate", lambda *a, **kw: self_builds.append(1) or real_approx(*a, **kw))
    settings = {
        "detectors": ["knn", "lof"],
        "backend": "approximate",
        "confirm_repeats": 3,
        "null_metrics": ["auroc"],
        "null_runs": 20,
        "landscape_resolution": 5,
        "leakage_k": [10],
    }
    audit = run_audit([benchmark_inputs("shared", {"raw": X}, y, settings)], tmp_path / "one").audits[0]
    protocol = audit.results["protocol"]
    assert protocol.confirmation.n_candidates > 0
    assert builds == [(True, 63)] and self_builds == []  # 1.25 * 2 * 20 / 0.8 = 62.5: degree 63, built once
    leak = audit.results["leakage"]["representations"]["raw"]
    assert leak.backend == "approximate" and leak.recall >= 0.95
    rows = np.arange(0, X.shape[0], 7)
    exp_i, exp_d2 = _brute(X, np.arange(X.shape[0]), rows, 10)
    got = leak.neighbors.indices[rows]
    assert sum(len(set(a) & set(b)) for a, b in zip(got.tolist(), exp_i.tolist())) / exp_i.size >= 0.95
    assert np.allclose(leak.neighbors.distances[rows] ** 2, ((X[rows][:, None] - X[got]) ** 2).sum(axis=2))
    builds.clear()
    two = run_audit(
        [benchmark_inputs("shared", {"raw": X, "rev": X[:, ::-1].copy()}, y, settings)], tmp_path / "two"
    ).audits[0]
    assert two.results["protocol"].confirmation.n_candidates > 0
    assert len(self_builds) == 2  # each leakage its own index
    assert [over_all for over_all, _ in builds[:2]] == [False, False]  # each own draw an index over its pool


def test_kneighbors_takes_given_self_lists_and_measures_their_recall():
    """`kneighbors(self_lists=...)`: the approximate backend returns the given lists (distances their square
    roots) and measures their recall as usual; exact lists read recall 1; a non-function is refused by name."""
    from auditad.errors import InvalidInputError
    from auditad.neighbors import kneighbors

    X, _ = _data(n=600)
    exact = kneighbors(X, k=5, backend="exact")
    got = kneighbors(
        X, k=5, backend="approximate", self_lists=lambda k: (exact.indices[:, :k], exact.distances[:, :k] ** 2)
    )
    assert np.array_equal(got.indices, exact.indices) and np.allclose(got.distances, exact.distances)
    assert got.recall == 1.0 and got.backend == "approximate"
    worse = exact.indices.copy()
    worse[:, 4] = (worse[:, 4] + 1) % X.shape[0]
    far = kneighbors(X, k=5, backend="approximate", self_lists=lambda k: (worse, np.full(worse.shape, 1e6)))
    assert far.recall < 1.0
    with pytest.raises(InvalidInputError, match="self_lists"):
        kneighbors(X, k=5, backend="approximate", self_lists=3)


def test_the_lists_are_ordered_on_threads_with_the_values_of_one_thread(monkeypatch):
    """The shared index orders its graph lists by exact distance in blocks on one thread per CPU: the lists and
    distances are those of one thread, bit for bit, and of one block (blocks of 100 rows here, so that there are many)."""
    import os

    import auditad.protocol.shared as shared

    X, _ = _data(n=1500)
    whole = SharedIndex(X, 20, random_state=3)  # (one block: 1 500 rows < SHARED_BLOCK_ROWS)
    monkeypatch.setattr(shared, "SHARED_BLOCK_ROWS", 100)
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    many = SharedIndex(X, 20, random_state=3)
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    one = SharedIndex(X, 20, random_state=3)
    assert np.array_equal(many.graph, one.graph) and np.array_equal(many.graph_d2, one.graph_d2)
    assert np.array_equal(many.graph, whole.graph) and np.array_equal(many.graph_d2, whole.graph_d2)
    exp_i, exp_d2 = _brute(X, np.arange(X.shape[0]), np.arange(X.shape[0]), 20)
    hits = sum(len(set(a) & set(b)) for a, b in zip(many.graph[:, :20].tolist(), exp_i.tolist()))
    assert hits / exp_i.size >= 0.95


def test_a_draws_lists_are_kept_on_threads_with_the_values_of_one_thread(monkeypatch):
    """`SharedIndex.lists` keeps each block of rows' pool entries on its own thread (``n_jobs``): the lists are
    those of one thread and of one block, bit for bit (blocks of 100 rows, a pool of half the rows, rows short of
    entries queried wider)."""
    import auditad.protocol.shared as shared

    X, _ = _data(n=1500)
    index = SharedIndex(X, 20, random_state=3)
    in_pool = np.random.default_rng(4).random(X.shape[0]) < 0.5
    q = np.random.default_rng(5).permutation(X.shape[0])[:1234]
    whole = index.lists(X, q, in_pool, 15)  # (one block of rows, one block of wider queries)
    monkeypatch.setattr(shared, "SHARED_BLOCK_ROWS", 100)
    monkeypatch.setattr(shared, "QUERY_BLOCK_ELEMENTS", 100 * X.shape[1])
    lists = {}
    for jobs in (1, 3):
        index.n_jobs = jobs
        lists[jobs] = index.lists(X, q, in_pool, 15)
    assert np.array_equal(lists[1][0], lists[3][0]) and np.array_equal(lists[1][1], lists[3][1])
    assert np.array_equal(lists[1][0], whole[0]) and np.array_equal(lists[1][1], whole[1])
    assert (lists[3][0] >= 0).all() and in_pool[lists[3][0]].all()


def test_entries_past_the_stored_distances_get_the_same_distances(monkeypatch):
    """`SharedIndex` keeps the squared distances of each row's first `STORED_DISTANCES` graph entries only; a list
    that reaches past them computes theirs again. With 4 stored the lists and distances of draws of several widths,
    and the self lists, are those of an index that stores all of them, bit for bit."""
    import auditad.protocol.shared as shared

    X, _ = _data(n=1500)
    built = {}
    for stored in (4, 1000):
        monkeypatch.setattr(shared, "STORED_DISTANCES", stored)
        built[stored] = SharedIndex(X, 20, random_state=3)
    few, all_ = built[4], built[1000]
    assert few.graph_d2.shape[1] == 4 and all_.graph_d2.shape[1] == all_.graph.shape[1]
    in_pool = np.random.default_rng(4).random(X.shape[0]) < 0.5
    q = np.random.default_rng(5).permutation(X.shape[0])[:700]
    for width in (3, 10, 25):
        a, b = few.lists(X, q, in_pool, width), all_.lists(X, q, in_pool, width)
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]), width
        assert not np.isnan(a[1]).any()
    for width in (3, 12):
        a, b = few.self_lists(X, width), all_.self_lists(X, width)
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]), width
