"""The kNN engine: exact backend vs a brute-force oracle and scikit-learn; approximate recall."""

import numpy as np
import pytest
from sklearn.neighbors import NearestNeighbors

from auditad import InvalidInputError
from auditad import neighbors as _neighbors
from auditad.neighbors import exact as _exact_search
from auditad.neighbors import choose_backend, estimate_seconds, kneighbors
from _reference import brute_knn


def _data(n=400, d=8, seed=0, dup=True):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if dup:
        X[10] = X[20]  # duplicate pair
        X[30:35] = X[35]  # a block of six identical points
    return X


@pytest.mark.parametrize("k", [1, 3, 10])
@pytest.mark.parametrize("dup", [False, True])
def test_exact_self_equals_oracle(k, dup):
    X = _data(dup=dup)
    res = kneighbors(X, k=k, backend="exact")
    idx, dist = brute_knn(X, None, k)
    assert res.backend == "exact"
    np.testing.assert_array_equal(res.indices, idx)
    np.testing.assert_allclose(res.distances, dist, rtol=0, atol=1e-9)


def test_exact_self_never_returns_self_but_keeps_duplicates():
    X = _data()
    res = kneighbors(X, k=5, backend="exact")
    assert not np.any(res.indices == np.arange(len(X))[:, None])
    assert res.indices[10, 0] == 20 and res.distances[10, 0] == 0.0
    # the six identical points 30..35: each has the five others at distance 0, ties by index
    assert res.indices[30].tolist() == [31, 32, 33, 34, 35]
    assert res.indices[33].tolist() == [30, 31, 32, 34, 35]


def test_exact_queries_equal_oracle_and_sklearn():
    X = _data(dup=False)
    Q = np.random.default_rng(1).normal(size=(50, 8))
    res = kneighbors(X, Q, k=7, backend="exact")
    idx, dist = brute_knn(X, Q, 7)
    np.testing.assert_array_equal(res.indices, idx)
    np.testing.assert_allclose(res.distances, dist, atol=1e-9)
    d_sk, i_sk = NearestNeighbors(n_neighbors=7, algorithm="brute").fit(X).kneighbors(Q)
    np.testing.assert_allclose(res.distances, d_sk, atol=1e-9)
    np.testing.assert_array_equal(res.indices, i_sk)  # continuous data: no ties


def test_exact_self_matches_sklearn_up_to_ties():
    X = _data(n=600, d=16, dup=True)
    res = kneighbors(X, k=10, backend="exact")
    d_sk, i_sk = NearestNeighbors(n_neighbors=10, algorithm="brute").fit(X).kneighbors()
    # scikit-learn's float64 dot-product trick leaves ~1e-7 on exact duplicates
    np.testing.assert_allclose(res.distances, d_sk, atol=1e-6)
    clean = np.ones(len(X), bool)
    clean[[10, 20, 30, 31, 32, 33, 34, 35]] = False
    np.testing.assert_allclose(res.distances[clean], d_sk[clean], atol=1e-9)
    for i in range(len(X)):
        # identical sets, except for neighbours tied at the k-th distance
        differ = set(res.indices[i]) ^ set(i_sk[i])
        assert all(abs(np.linalg.norm(X[j] - X[i]) - res.distances[i, -1]) < 1e-6 for j in differ)


def test_exact_ties_broken_by_index_on_a_grid():
    # integer grid: many exactly equal distances
    g = np.array([[a, b] for a in range(12) for b in range(12)], dtype=float)
    res = kneighbors(g, k=6, backend="exact")
    idx, dist = brute_knn(g, None, 6)
    np.testing.assert_array_equal(res.indices, idx)
    np.testing.assert_allclose(res.distances, dist, atol=1e-12)


def test_block_size_does_not_change_the_answer():
    X = _data(n=700, d=5)
    a = kneighbors(X, k=4, backend="exact", block_memory_mb=0.01, n_jobs=1)
    b = kneighbors(X, k=4, backend="exact", block_memory_mb=512, n_jobs=2)
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.distances, b.distances)


def test_far_from_origin_data_is_still_exact():
    # a tight cluster far from the origin: float32 dot products alone would mis-rank
    rng = np.random.default_rng(3)
    X = 1e4 + rng.normal(scale=1e-3, size=(300, 6))
    res = kneighbors(X, k=3, backend="exact")
    idx, dist = brute_knn(X, None, 3)
    np.testing.assert_array_equal(res.indices, idx)
    np.testing.assert_allclose(res.distances, dist, rtol=1e-9)


def test_cosine_metric_matches_sklearn():
    X = _data(dup=False) + 0.5
    res = kneighbors(X, k=5, metric="cosine", backend="exact")
    d_sk, i_sk = NearestNeighbors(n_neighbors=5, algorithm="brute", metric="cosine").fit(X).kneighbors()
    np.testing.assert_allclose(res.distances, d_sk, atol=1e-9)
    np.testing.assert_array_equal(res.indices, i_sk)
    with pytest.raises(InvalidInputError, match="all-zero row"):
        kneighbors(np.vstack([X, np.zeros(8)]), k=2, metric="cosine", backend="exact")


@pytest.mark.parametrize(
    "bad, match",
    [
        (dict(k=0), "k must be >= 1"),
        (dict(k=400), "smaller than the number of samples"),
        (dict(k=2, metric="manhattan"), "metric must be one of"),
        (dict(k=2, backend="faiss"), "backend must be one of"),
    ],
)
def test_bad_arguments(bad, match):
    with pytest.raises(InvalidInputError, match=match):
        kneighbors(_data(), **bad)


def test_query_dimension_mismatch():
    with pytest.raises(InvalidInputError, match="same number of columns"):
        kneighbors(_data(), np.zeros((3, 4)), k=2)


def test_auto_picks_exact_for_small_and_approximate_for_huge():
    assert choose_backend(2000, 2000, 64) == "exact"
    assert choose_backend(10**6, 10**6, 128) == "approximate"
    res = kneighbors(_data(), k=3)
    assert res.backend == "exact" and res.requested_backend == "auto"
    assert set(res.estimated_seconds) == {"exact", "approximate"}
    assert res.estimated_seconds["exact"] < res.estimated_seconds["approximate"]
    assert res.recall is None and res.n_recall_queries == 0
    explicit = kneighbors(_data(), k=3, backend="exact")
    assert explicit.requested_backend == "exact" and explicit.estimated_seconds is None
    d = res.to_dict()
    assert d["backend"] == "exact" and d["k"] == 3 and d["n_queries"] == 400
    import json

    json.dumps(d)  # JSON-safe


def test_cost_model_is_the_documented_formula():
    nb = _neighbors
    n, m, d, k = 300_000, 5_000, 96, 40
    est = estimate_seconds(m, n, d, k=k, self_search=False, recall_sample=150)
    exact = nb.EXACT_SECONDS_PER_OP * m * n * (d + 64)
    approx = (
        nb.NUMBA_BUILD_COMPILE_SECONDS
        + nb.NUMBA_QUERY_COMPILE_SECONDS
        + nb.APPROX_BUILD_SECONDS_PER_UNIT * n * (d + 32) * max(30, min(k + 1, nb.QUERY_INDEX_MAX_DEGREE + 1)) / 30
        + nb.APPROX_QUERY_SECONDS_PER_UNIT * m * (d + 32)
        + nb.EXACT_SECONDS_PER_OP * 150 * n * (d + 64)
    )
    assert est["exact"] == pytest.approx(exact, rel=1e-12)
    assert est["approximate"] == pytest.approx(approx, rel=1e-12)
    warm = estimate_seconds(m, n, d, k=k, self_search=False, recall_sample=150, compiled=True)
    assert warm["approximate"] == pytest.approx(
        approx - nb.NUMBA_BUILD_COMPILE_SECONDS - nb.NUMBA_QUERY_COMPILE_SECONDS, rel=1e-12
    )
    # the choice follows the estimates, and flips exactly at the documented break-even
    n_star = np.sqrt(nb.AUTO_EXACT_MAX_COST / (128 + 64))
    assert 60_000 < n_star < 300_000
    assert choose_backend(int(n_star * 0.98), int(n_star * 0.98), 128) == "exact"
    assert choose_backend(int(n_star * 1.02), int(n_star * 1.02), 128) == "approximate"
    # the choice never depends on what ran before in the process (compilation always counted)
    assert choose_backend(100_000, 100_000, 128) == "exact"
    # sets too small for NN-descent stay exact
    assert choose_backend(40, 40, 2, k=10, compiled=True) == "exact"


def test_approximate_recall_on_clustered_20k():
    rng = np.random.default_rng(0)
    centers = rng.normal(size=(20, 16)) * 3
    X = centers[rng.integers(0, 20, 20000)] + rng.normal(size=(20000, 16))
    res = kneighbors(X, k=10, backend="approximate", random_state=0, recall_sample=300)
    assert res.backend == "approximate"
    assert not np.any(res.indices == np.arange(len(X))[:, None])
    exact = kneighbors(X, k=10, backend="exact")
    recall = np.mean([len(set(a) & set(b)) for a, b in zip(res.indices, exact.indices)]) / 10
    assert recall >= 0.98
    assert res.recall >= 0.98 and res.n_recall_queries == 300
    assert res.requested_backend == "approximate"
    default = kneighbors(X[:3000], k=5, backend="approximate", random_state=0)  # recall measured by default
    assert default.n_recall_queries == 200 and 0.9 <= default.recall <= 1.0
    # distances of the returned neighbours are exact float64 distances
    np.testing.assert_allclose(res.distances, np.sqrt(((X[res.indices] - X[:, None]) ** 2).sum(-1)), atol=1e-9)


def test_float32_input_is_searched_exactly_in_float64():
    X32 = _data(n=500, d=12).astype(np.float32)
    Q32 = np.random.default_rng(5).normal(size=(40, 12)).astype(np.float32)
    res = kneighbors(X32, k=6, backend="exact")
    idx, dist = brute_knn(X32.astype(np.float64), None, 6)
    np.testing.assert_array_equal(res.indices, idx)
    np.testing.assert_allclose(res.distances, dist, atol=1e-12)
    resq = kneighbors(X32, Q32, k=6, backend="exact")
    idx, dist = brute_knn(X32.astype(np.float64), Q32.astype(np.float64), 6)
    np.testing.assert_array_equal(resq.indices, idx)
    np.testing.assert_allclose(resq.distances, dist, atol=1e-12)


def test_progress_bar_only_when_asked(capsys):
    X = _data(n=300, d=4)
    quiet = kneighbors(X, k=2, backend="exact", block_memory_mb=0.01)
    assert capsys.readouterr().err == ""
    loud = kneighbors(X, k=2, backend="exact", block_memory_mb=0.01, progress=True)
    err = capsys.readouterr().err
    assert "exact kNN" in err and "300/300" in err
    np.testing.assert_array_equal(quiet.indices, loud.indices)


def test_recall_measurement_is_one_for_exact_neighbours_and_drops_for_wrong_ones():
    from auditad.neighbors.search import _measure_recall

    X = _data(n=500, d=6)  # includes duplicates, so ties at distance 0
    ex = kneighbors(X, k=5, backend="exact")
    rec, n_q = _measure_recall(X, X, 5, True, ex.indices, ex.distances, 100, 0)
    assert rec == 1.0 and n_q == 100
    worse = ex.distances.copy()
    worse[:, -1] *= 2 + 1e-3  # the 5th neighbour is now beyond the exact 5th distance
    worse[worse == 0] = 1.0
    rec2, _ = _measure_recall(X, X, 5, True, ex.indices, worse, 500, 0)
    assert rec2 <= 0.8 + 1e-12


class _LoopExecutor:
    """Stands in for a Dask executor: same interface, tasks run in this process."""

    from auditad.execution import SchedulerSpec

    spec = SchedulerSpec("local", n_workers=3)
    n_workers = 3

    def share(self, obj):
        return obj

    def map_ordered(self, fn, items, **shared):
        return [fn(item, **shared) for item in items]

    def run_everywhere(self, fn, *args):
        fn(*args)


@pytest.mark.parametrize("form", ["self", "queries"])
def test_exact_search_in_query_blocks_equals_one_search_bit_for_bit(form):
    X = _data(n=1200, d=9)
    X[100:140] = X[140]  # a duplicate group larger than the candidate margin
    Q = None if form == "self" else np.vstack([X[::5] + 0.01, X[:30]])
    one = kneighbors(X, Q, k=6, backend="exact")
    blocks = kneighbors(X, Q, k=6, backend="exact", executor=_LoopExecutor())
    np.testing.assert_array_equal(blocks.indices, one.indices)
    assert blocks.distances.tobytes() == one.distances.tobytes()
    idx, dist = brute_knn(X, Q, 6)
    np.testing.assert_array_equal(blocks.indices, idx)
    # the blocks shared one prepared reference, dropped when the search ended
    assert not _exact_search._references


def test_a_worker_prepares_the_reference_once_per_search(monkeypatch):
    built = []
    real = _exact_search.Reference

    def counting(X, frame):
        built.append(X.shape)
        return real(X, frame)

    monkeypatch.setattr(_exact_search, "Reference", counting)
    X = _data(n=3000, d=5)
    res = kneighbors(X, k=4, backend="exact", executor=_LoopExecutor())
    assert len(built) == 1  # 12 blocks on one "worker" (this process), one preparation
    np.testing.assert_array_equal(res.indices, brute_knn(X, None, 4)[0])
    assert not _exact_search._references


def test_unaligned_rows_give_the_same_neighbours():
    # rows received from another process can start at any byte offset
    X = _data(n=500, d=7).astype(np.float32)
    raw = bytearray(X.nbytes + 3)
    U = np.frombuffer(memoryview(raw)[3:], dtype=np.float32).reshape(X.shape)
    U[:] = X
    assert not U.flags.aligned
    a = kneighbors(U, k=5, backend="exact", executor=_LoopExecutor())
    b = kneighbors(X, k=5, backend="exact")
    np.testing.assert_array_equal(a.indices, b.indices)
    assert a.distances.tobytes() == b.distances.tobytes()


def test_approximate_backend_at_extreme_magnitudes_and_offsets():
    # pynndescent works in float32; it receives the centred, power-of-two-rescaled data, so scaling
    # by 2^p gives the same graph (same seed) and distances scaled by exactly 2^p, and an offset of
    # 1e8 (where float32 cannot tell the points apart) still finds the true neighbours
    rng = np.random.default_rng(2)
    centers = rng.normal(size=(8, 10)) * 3
    X = centers[rng.integers(0, 8, 3000)] + rng.normal(size=(3000, 10))
    base = kneighbors(X, k=5, backend="approximate", random_state=0)
    exact = kneighbors(X, k=5, backend="exact")
    for p in (100, -100):
        res = kneighbors(np.ldexp(X, p), k=5, backend="approximate", random_state=0)
        np.testing.assert_array_equal(res.indices, base.indices)
        np.testing.assert_array_equal(res.distances, np.ldexp(base.distances, p))
        assert res.recall >= 0.95
    shifted = kneighbors(X + 1e8, k=5, backend="approximate", random_state=0)
    found = np.mean([len(set(a) & set(b)) for a, b in zip(shifted.indices, exact.indices)]) / 5
    assert found >= 0.95 and shifted.recall >= 0.95
