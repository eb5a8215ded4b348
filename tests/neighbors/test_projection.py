"""High-dimensional approximate search: candidates in a PCA projection, re-ranked in the original space."""

import numpy as np
import pytest
from sklearn.neighbors import NearestNeighbors

from auditad import InvalidInputError
from auditad import neighbors as nb
from auditad.neighbors import estimate_seconds, kneighbors
from auditad.neighbors import projection as pj
from auditad.neighbors.exact import Frame, chunk_rows


def _lowrank(n, d=2048, r=32, noise=0.3, seed=0):
    """Embedding-like rows: a rank-r signal plus isotropic noise, float32."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, r))
    W = rng.normal(size=(r, d)) / np.sqrt(r)
    return (Z @ W + noise * rng.normal(size=(n, d))).astype(np.float32)


def _oracle_distances(X, Q, idx):
    X64, Q64 = np.asarray(X, dtype=np.float64), np.asarray(Q, dtype=np.float64)
    return np.linalg.norm(X64[idx] - Q64[:, None, :], axis=2)


@pytest.fixture(scope="module")
def self_search():
    X = _lowrank(2000)
    # every row is a recall query: the reported recall can be recomputed exactly below
    res = kneighbors(X, k=10, backend="approximate", random_state=0, recall_sample=len(X))
    return X, res


def test_projected_self_search_recall_against_exact(self_search):
    X, res = self_search
    assert res.backend == "approximate" and res.project_dim == pj.DEFAULT_PROJECT_DIM
    assert res.to_dict()["project_dim"] == pj.DEFAULT_PROJECT_DIM
    _, exact = NearestNeighbors(n_neighbors=10, algorithm="brute").fit(X.astype(np.float64)).kneighbors()
    recall = np.mean([len(set(a) & set(b)) for a, b in zip(res.indices, exact)]) / 10
    assert recall >= 0.95
    assert not np.any(res.indices == np.arange(len(X))[:, None])
    assert all(len(set(row)) == 10 for row in res.indices)


def test_returned_distances_are_the_original_space_distances(self_search):
    X, res = self_search
    np.testing.assert_allclose(res.distances, _oracle_distances(X, X, res.indices), rtol=1e-12, atol=0)
    assert np.all(np.diff(res.distances, axis=1) >= 0)


def test_reported_recall_is_measured_in_the_original_space(self_search):
    X, res = self_search
    d_sk, _ = NearestNeighbors(n_neighbors=10, algorithm="brute").fit(X.astype(np.float64)).kneighbors()
    kth = d_sk[:, -1]
    found = np.sum(_oracle_distances(X, X, res.indices) <= kth[:, None] * (1 + 1e-9))
    assert res.n_recall_queries == len(X)
    assert res.recall == pytest.approx(found / res.indices.size, abs=1e-12)
    assert res.recall < 1.0  # the projection loses a few neighbours: the figure is not vacuous


def test_projected_search_is_deterministic_and_reads_a_read_only_memmap(self_search, tmp_path):
    X, res = self_search
    path = tmp_path / "X.npy"
    np.save(path, X)
    M = np.load(path, mmap_mode="r")
    assert not M.flags.writeable
    again = kneighbors(M, k=10, backend="approximate", random_state=0, recall_sample=len(X))
    np.testing.assert_array_equal(again.indices, res.indices)
    np.testing.assert_array_equal(again.distances, res.distances)
    assert again.recall == res.recall


@pytest.mark.parametrize("graph", [False, True])
def test_projected_queries_of_another_set(monkeypatch, graph):
    X = _lowrank(1600, seed=1)
    R, Q = X[:1200], X[1200:]
    Q[:50] += 30.0  # far queries
    if graph:  # beyond the pairs searched exactly in the projection: the NN-descent graph of the projection
        monkeypatch.setattr(pj, "PROJECTED_EXACT_MAX_PAIRS", 0)
    else:
        monkeypatch.setattr(nb.search, "ApproximateIndex", None)  # no graph is built
    res = kneighbors(R, Q, k=5, backend="approximate", random_state=1)
    assert res.project_dim == pj.DEFAULT_PROJECT_DIM
    _, exact = NearestNeighbors(n_neighbors=5, algorithm="brute").fit(R.astype(np.float64)).kneighbors(Q)
    shared = np.mean([len(set(a) & set(b)) for a, b in zip(res.indices, exact)]) / 5
    assert shared >= 0.95
    np.testing.assert_allclose(res.distances, _oracle_distances(R, Q, res.indices), rtol=1e-12, atol=0)
    assert res.recall >= 0.9
    if not graph:  # the same as the candidates of an exact search of the projected rows, re-ranked
        frame = Frame(R, Q, chunk_rows(R.shape[1]))
        from auditad._rng import seed_int

        proj = pj.Projection(R, frame, pj.DEFAULT_PROJECT_DIM, seed_int(1))
        cand = kneighbors(proj.transform(R), proj.transform(Q), k=15, backend="exact").indices
        idx, _ = pj.rerank(R, Q, frame, cand, 5)
        np.testing.assert_array_equal(res.indices, idx)


def test_low_dimension_keeps_the_full_dimensional_path(monkeypatch):
    X = _lowrank(500, d=64, r=16, seed=2)

    def forbidden(*args, **kwargs):
        raise AssertionError("no projection at d <= PROJECT_ABOVE_DIM")

    monkeypatch.setattr(nb.search, "Projection", forbidden)
    res = kneighbors(X, k=5, backend="approximate", random_state=3)
    assert res.project_dim is None
    # the same graph built directly with pynndescent (on the frame's float32 rows, as before)
    from pynndescent import NNDescent

    from auditad._rng import seed_int

    frame = Frame(X, None, chunk_rows(X.shape[1]))
    X32 = frame.rows(X, 0, len(X)).astype(np.float32)
    gi, gd = NNDescent(
        X32, n_neighbors=30, metric="euclidean", random_state=seed_int(3), n_jobs=-1, low_memory=True, compressed=False
    ).neighbor_graph
    for i in range(len(X)):
        direct = [j for j in gi[i] if j != i][:5]
        assert set(res.indices[i]) == set(direct)
    np.testing.assert_allclose(res.distances, _oracle_distances(X, X, res.indices), rtol=1e-12)


@pytest.mark.parametrize(
    "bad, shown", [(-4, "got -4"), (301, "got 301"), (True, "True"), ("full", "full"), (2.5, "2.5")]
)
def test_bad_project_dim_is_an_auditad_error(bad, shown):
    X = _lowrank(40, d=300, r=4)
    with pytest.raises(InvalidInputError, match="project_dim") as info:
        kneighbors(X, k=3, backend="exact", project_dim=bad)
    assert shown in str(info.value)
    if isinstance(bad, int) and not isinstance(bad, bool) and bad > 300:
        assert "d = 300" in str(info.value)
    with pytest.raises(InvalidInputError, match="project_dim"):
        estimate_seconds(1000, 1000, 300, project_dim=bad)


def test_resolved_project_dim():
    assert pj.resolve_project_dim("auto", 2048) == pj.DEFAULT_PROJECT_DIM
    assert pj.resolve_project_dim("auto", pj.PROJECT_ABOVE_DIM) is None
    assert pj.resolve_project_dim(0, 2048) is None
    assert pj.resolve_project_dim(np.int64(64), 100) == 64
    assert pj.resolve_project_dim(100, 100) is None


def test_projection_reads_rows_in_blocks_and_keeps_a_low_rank_geometry(monkeypatch):
    rng = np.random.default_rng(4)
    X = (rng.normal(size=(700, 6)) @ rng.normal(size=(6, 400)) + 3.0).astype(np.float64)
    frame = Frame(X, None, chunk_rows(X.shape[1]))
    proj = pj.Projection(X, frame, 16, seed=5)
    whole = proj.transform(X)
    monkeypatch.setattr(pj, "PROJECT_CHUNK_ELEMENTS", 400 * 7)  # 7 rows per block
    np.testing.assert_allclose(proj.transform(X), whole, rtol=0, atol=1e-6)  # BLAS rounding per block shape
    np.testing.assert_allclose(proj.components.T @ proj.components, np.eye(16), atol=1e-10)
    # rank 6 < 16: the projection keeps every distance (in the frame's units)
    scale = 2.0 ** (frame.e0 + frame.e1)
    d_orig = np.linalg.norm(X[:50, None] - X[None, :50], axis=2) * scale
    d_proj = np.linalg.norm(whole[:50, None].astype(np.float64) - whole[None, :50], axis=2)
    np.testing.assert_allclose(d_proj, d_orig, rtol=1e-5, atol=1e-6)


def test_rerank_is_exact_in_any_block_size_and_puts_missing_candidates_last(monkeypatch):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(60, 9))
    X[7] = X[3]  # a tie at equal distance: the smaller index first
    frame = Frame(X, None, chunk_rows(9))
    cand = np.array([[7, 3, 11, -1, 20], [0, 1, 2, 3, 4]])
    Q = X[[5, 50]]
    idx, dist = pj.rerank(X, Q, frame, cand, 5)
    monkeypatch.setattr(pj, "RERANK_BLOCK_ELEMENTS", 1)
    idx1, dist1 = pj.rerank(X, Q, frame, cand, 5)
    np.testing.assert_array_equal(idx, idx1)
    np.testing.assert_array_equal(dist, dist1)
    np.testing.assert_allclose(frame.unscale(dist[1]), _oracle_distances(X, X[[50]], idx[1:2])[0], rtol=1e-14)
    assert np.all(np.diff(dist[1]) >= 0)
    row = idx[0].tolist()
    assert row[-1] == -1 and row.index(3) == row.index(7) - 1 and np.isinf(dist[0, -1])


def test_cost_model_accounts_for_the_projection(monkeypatch):
    n, d, k = 200_000, 2048, 10
    off = estimate_seconds(n, n, d, k=k, project_dim=0)
    on = estimate_seconds(n, n, d, k=k)
    assert on["exact"] == off["exact"]
    p = pj.DEFAULT_PROJECT_DIM
    graph = nb.APPROX_BUILD_SECONDS_PER_UNIT * n * (p + 32) * max(30, 3 * k + 1) / 30
    expected = (
        nb.NUMBA_BUILD_COMPILE_SECONDS
        + graph
        + pj.projection_seconds(n, n, d, p, k)
        + nb.EXACT_SECONDS_PER_OP * nb.DEFAULT_RECALL_SAMPLE * n * (d + 64)
    )
    assert on["approximate"] == pytest.approx(expected, rel=1e-12)
    assert on["approximate"] < 0.5 * off["approximate"]
    # queries of another set, up to 2^38 pairs: an exact search of the projection (no graph), the projection of
    # the queries counted
    q = estimate_seconds(5_000, n, d, k=k, self_search=False, project_dim=64)
    expected_q = (
        nb.EXACT_SECONDS_PER_OP * 5_000 * n * (64 + 64)
        + pj.projection_seconds(5_000, n, d, 64, k, self_search=False)
        + nb.EXACT_SECONDS_PER_OP * nb.DEFAULT_RECALL_SAMPLE * n * (d + 64)
    )
    assert q["approximate"] == pytest.approx(expected_q, rel=1e-12)
    # beyond: the graph's build and query terms in p dimensions
    monkeypatch.setattr(pj, "PROJECTED_EXACT_MAX_PAIRS", 5_000 * n - 1)
    q = estimate_seconds(5_000, n, d, k=k, self_search=False, project_dim=64)
    expected_q = (
        nb.NUMBA_BUILD_COMPILE_SECONDS
        + nb.NUMBA_QUERY_COMPILE_SECONDS
        + nb.APPROX_BUILD_SECONDS_PER_UNIT * n * (64 + 32) * 30 / 30
        + nb.APPROX_QUERY_SECONDS_PER_UNIT * 5_000 * (64 + 32)
        + pj.projection_seconds(5_000, n, d, 64, k, self_search=False)
        + nb.EXACT_SECONDS_PER_OP * nb.DEFAULT_RECALL_SAMPLE * n * (d + 64)
    )
    assert q["approximate"] == pytest.approx(expected_q, rel=1e-12)
    # at most 256 columns nothing changes
    assert estimate_seconds(n, n, 256, k=k) == estimate_seconds(n, n, 256, k=k, project_dim=0)


def test_the_recall_check_searches_a_large_reference_in_blocks(monkeypatch):
    """The exact lists of the recall check, searched block by block, equal one search of the whole set."""
    import auditad.neighbors as nb
    from auditad.neighbors.exact import search

    rng = np.random.default_rng(8)
    X = np.round(rng.normal(size=(900, 12)), 1)  # rounded: ties at equal distance across the blocks
    Q = X[rng.choice(900, size=40, replace=False)]
    whole = search(X, Q, 7, False, 256, 1)
    monkeypatch.setattr(nb.search, "RECALL_REFERENCE_BLOCK", 128)
    blocked = nb.recall_reference(X, Q, 7)
    np.testing.assert_array_equal(blocked[0], whole[0])
    np.testing.assert_array_equal(blocked[1], whole[1])


@pytest.mark.parametrize("d", [64, 600])  # the full-dimensional index, and the projected one with its re-rank
def test_an_index_over_a_row_subset_equals_the_index_over_the_gathered_rows(d, tmp_path):
    from auditad.neighbors import ApproximateIndex

    X = _lowrank(800, d=d, r=16, seed=4).astype(np.float32)
    path = tmp_path / "X.npy"
    np.save(path, X)
    M = np.load(path, mmap_mode="r")  # read-only memory map: the subset is read from it block by block
    rows = np.flatnonzero(np.random.default_rng(5).random(len(X)) < 0.7)
    queries = X[::11]
    whole = ApproximateIndex(X[rows], span=X, k=10, random_state=6)
    subset = ApproximateIndex(M, rows=rows, span=M, k=10, random_state=6)
    assert whole.project_dim == subset.project_dim == (None if d == 64 else pj.DEFAULT_PROJECT_DIM)
    np.testing.assert_array_equal(subset.query(queries, 10), whole.query(queries, 10))  # positions in rows
    with pytest.raises(InvalidInputError, match="sorted and distinct"):
        ApproximateIndex(X, rows=rows[::-1], k=10)


@pytest.mark.parametrize("d", [64, 600])
def test_graph_lists_are_the_reference_rows_own_neighbours(d):
    """A reference row's candidates from the index's NN-descent graph: other rows only (no self), at least
    as good as a query of the same index, and None when the graph holds fewer than k per row."""
    from auditad.neighbors import ApproximateIndex

    X = _lowrank(800, d=d, r=16, seed=7)
    index = ApproximateIndex(X, k=10, random_state=8)
    graph = index.graph_lists(10)
    assert graph.shape[0] == len(X) and np.issubdtype(graph.dtype, np.integer)
    if d == 64:
        assert graph.shape[1] == 10
    else:  # candidates for the re-rank in the original space: 3k, at most the graph's degree
        assert 10 < graph.shape[1] <= pj.n_candidates(10, len(X))
    assert not (graph == np.arange(len(X))[:, None]).any()
    d_exact = _oracle_distances(X, X, graph)
    _, exact = NearestNeighbors(n_neighbors=11, algorithm="brute").fit(X).kneighbors(X)
    kth = np.sort(_oracle_distances(X, X, exact[:, 1:]), axis=1)[:, -1]
    hits = (np.sort(d_exact, axis=1)[:, :10] <= kth[:, None] * (1 + 1e-9)).mean()
    assert hits >= 0.95
    assert index.graph_lists(200) is None  # the graph's degree (about 30) is below 200: query instead
    # an index built for k = 40 (the protocol's 2k for LOF's 20) lists 40 rows besides each row itself
    assert ApproximateIndex(X, k=40, random_state=8).graph_lists(40).shape[1] >= 40


def test_drop_graph_frees_the_graph_and_leaves_queries_unchanged():
    """After `drop_graph` the index serves no graph lists (degree 0) and its queries are those of an index
    that kept its graph."""
    from auditad.neighbors import ApproximateIndex

    X = _lowrank(900, d=32, r=8, seed=3)
    kept, dropped = ApproximateIndex(X, k=20, random_state=4), ApproximateIndex(X, k=20, random_state=4)
    np.testing.assert_array_equal(kept.graph_lists(20), dropped.graph_lists(20))
    dropped.drop_graph()
    assert dropped.degree == 0 and dropped.graph_lists(1) is None
    np.testing.assert_array_equal(kept.query(X[:50], 15), dropped.query(X[:50], 15))
