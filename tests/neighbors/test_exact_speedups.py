"""The fast paths of the exact kNN engine against a float64 oracle and against their slow equivalents.

Covers what the "scale" speed-ups touched: float32 rows refined in their own units (no scaling copies),
the sampled candidate threshold (every 16th column) with its exact fallback and the merge of redone rows,
NaN products never certified (the separate finiteness pass is gone), buffers reused across blocks and
chunks, and the power-of-two scaling by multiplication instead of ``np.ldexp``.
"""

import numpy as np
import pytest

from auditad.neighbors import exact as E
from auditad.neighbors import kneighbors


def oracle(X, Q, k):
    """k nearest rows by full float64 distance from the data as given, ties by index (self excluded if Q is None)."""
    X = np.asarray(X, dtype=np.float64)
    self_search = Q is None
    Q = X if self_search else np.asarray(Q, dtype=np.float64)
    cols = np.arange(X.shape[0])
    idx = np.empty((Q.shape[0], k), dtype=np.int64)
    dist = np.empty((Q.shape[0], k))
    for a in range(0, Q.shape[0], 128):
        diff = Q[a : a + 128, None, :] - X[None, :, :]
        d2 = (diff * diff).sum(axis=2)
        for r in range(d2.shape[0]):
            if self_search:
                d2[r, a + r] = np.inf
            order = np.lexsort((cols, d2[r]))[:k]
            idx[a + r], dist[a + r] = order, np.sqrt(d2[r, order])
    return idx, dist


def _gauss32(n, d, seed, p=0):
    return np.ldexp(np.random.default_rng(seed).normal(size=(n, d)), p).astype(np.float32)


@pytest.mark.parametrize("p", [0, 120, -120, -140])
def test_float32_rows_refined_in_their_own_units_equal_the_float64_search_bit_for_bit(p):
    # at 2**-140 many coordinates are float32 subnormals; at 2**120 float32 squares would overflow
    X = _gauss32(1500, 24, 0, p)
    X[100:140] = X[140]  # a duplicate group larger than the candidate margin
    a = kneighbors(X, k=7, backend="exact")
    b = kneighbors(X.astype(np.float64), k=7, backend="exact")
    np.testing.assert_array_equal(a.indices, b.indices)
    assert a.distances.tobytes() == b.distances.tobytes()
    idx, dist = oracle(X, None, 7)
    np.testing.assert_array_equal(a.indices, idx)
    np.testing.assert_allclose(a.distances, dist, rtol=1e-12, atol=0)


def test_float32_queries_and_mixed_dtypes_equal_the_oracle():
    X = _gauss32(1300, 16, 1)
    Q32 = _gauss32(200, 16, 2)
    for Q in (Q32, Q32.astype(np.float64)):
        res = kneighbors(X, Q, k=6, backend="exact")
        idx, dist = oracle(X, Q, 6)
        np.testing.assert_array_equal(res.indices, idx)
        np.testing.assert_allclose(res.distances, dist, rtol=1e-12, atol=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_other_row_as_neighbour(dtype):
    X = np.random.default_rng(3).normal(size=(60, 5)).astype(dtype)
    X[7] = X[8]
    res = kneighbors(X, k=59, backend="exact")
    idx, dist = oracle(X, None, 59)
    np.testing.assert_array_equal(res.indices, idx)
    np.testing.assert_allclose(res.distances, dist, rtol=1e-12, atol=0)


def test_integer_grid_ties_in_float32_with_the_sampled_threshold():
    # 45 x 45 grid: n >= 64 c, so the threshold comes from the sample; many exactly tied distances
    g = np.array([[a, b] for a in range(45) for b in range(45)], dtype=np.float32)
    res = kneighbors(g, k=8, backend="exact", block_memory_mb=1)
    idx, dist = oracle(g, None, 8)
    np.testing.assert_array_equal(res.indices, idx)
    np.testing.assert_allclose(res.distances, dist, rtol=1e-12, atol=0)


def test_huge_duplicate_group_goes_through_the_exact_threshold():
    # 400 identical rows: more than 16 c entries at the threshold, so those rows take the exact c-th value
    X = _gauss32(2500, 6, 4)
    X[1000:1400] = X[5]
    res = kneighbors(X, k=10, backend="exact")
    idx, dist = oracle(X, None, 10)
    np.testing.assert_array_equal(res.indices, idx)
    np.testing.assert_allclose(res.distances, dist, rtol=1e-12, atol=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_block_and_chunk_sizes_do_not_change_a_bit(dtype, monkeypatch):
    X = np.random.default_rng(5).normal(size=(2100, 40)).astype(dtype)
    base = kneighbors(X, k=5, backend="exact", n_jobs=1)
    monkeypatch.setattr(E, "REFINE_BYTES", 1)  # one query row per refinement chunk
    small = kneighbors(X, k=5, backend="exact", block_memory_mb=0.2, n_jobs=2)
    np.testing.assert_array_equal(small.indices, base.indices)
    assert small.distances.tobytes() == base.distances.tobytes()


def _check_thresholds(s, c):
    thr, mask = E.row_thresholds(s.copy(), c)
    _, _, flat = E._thresholds(s.copy(), c, None)
    np.testing.assert_array_equal(flat, np.flatnonzero(mask))
    for r in range(s.shape[0]):
        row, inside = s[r], mask[r]
        if np.isnan(thr[r]):
            assert not inside.any()  # a row that cannot be certified brings no candidates
            continue
        assert np.all(row[~inside] > thr[r])  # outside the mask: numbers above the threshold
        assert np.all(inside == ~(row > thr[r]))
        assert inside.sum() >= c
    return thr, mask


def test_sampled_thresholds_fall_back_to_the_exact_value():
    rng = np.random.default_rng(6)
    c, n = 18, 64 * 18 + 100
    s = rng.normal(size=(6, n)).astype(np.float32)
    s[0, ::16] = -10.0  # the sample sees only tiny values: far too few entries below its threshold
    s[1, 1::16] = -10.0  # small values the sample never sees: far too many below its threshold
    s[1, ::16] = 5.0
    s[2, :] = 1.0  # all tied
    thr, mask = _check_thresholds(s, c)
    assert thr[0] == np.partition(s[0], c - 1)[c - 1]
    assert thr[1] == np.partition(s[1], c - 1)[c - 1]
    assert mask[2].all()


def test_nan_products_are_never_certified():
    rng = np.random.default_rng(7)
    c, n = 18, 2000
    s = rng.normal(size=(5, n)).astype(np.float32)
    s[0, 3] = np.nan  # one NaN: it is a candidate (never above a threshold), the row is not certified
    s[1, ::2] = np.nan  # NaN in the sample too: the exact fallback, then no candidates at all
    s[2] = np.nan
    _check_thresholds(s, c)
    cand, pad, cth = E._candidate_columns(s, c, np.zeros(5))
    assert np.isnan(cth[:3]).all() and np.isfinite(cth[3:]).all()
    small = s[:, :200]  # n < 64 c: the exact threshold directly
    _check_thresholds(small, c)
    assert np.isnan(E._candidate_columns(small, c, np.zeros(5))[2][:3]).all()


def test_candidates_are_the_smallest_values_and_the_threshold_bounds_the_rest():
    rng = np.random.default_rng(8)
    c = 12
    s = rng.normal(size=(40, 3000)).astype(np.float32)
    s[5, 100:400] = -7.0  # ties at the threshold, more than 16 c
    cand, pad, cth = E._candidate_columns(s, c, np.zeros(40))
    thr32 = cth.astype(np.float32)
    for r in range(40):
        got = cand[r][~pad[r]]
        assert len(got) == c == len(set(got))
        rest = np.setdiff1d(np.arange(3000), got)
        assert s[r, got].max() <= s[r, rest].min()
        assert s[r, rest].min() >= thr32[r] >= s[r, got].max()


def test_refine_in_own_units_is_the_scaled_refinement_exactly():
    X = _gauss32(500, 33, 9, 70)
    frame = E.Frame(X, None, E.chunk_rows(33))
    cand = np.random.default_rng(9).integers(0, 500, size=(50, 11))
    scaled = E.refine(X, frame, frame.raw(X[:50]), cand, 7)
    own = E.refine(X, frame, X[:50], cand, 7, unscaled=True)
    assert np.ldexp(own, 2 * frame.e0).tobytes() == scaled.tobytes()


@pytest.mark.parametrize("e", [0, 5, -5, -1030, 1030, 1060])
def test_scaling_by_multiplication_is_ldexp_bit_for_bit(e):
    rng = np.random.default_rng(10)
    A = np.concatenate(
        [rng.normal(size=500), np.ldexp(rng.normal(size=500), -1040), np.ldexp(rng.normal(size=500), -20)]
    )
    if e > 0:
        A = np.ldexp(A, -e // 2 - 2)  # keep the products finite
    out = np.empty_like(A)
    assert E._scale_into(A, e, out).tobytes() == np.ldexp(A, e).tobytes()
    A32 = rng.normal(size=100).astype(np.float32)
    out = np.empty(100)
    assert E._scale_into(A32, min(e, 900), out).tobytes() == np.ldexp(A32.astype(np.float64), min(e, 900)).tobytes()


def test_frame_rows_into_a_buffer_equal_new_arrays():
    X = np.random.default_rng(11).normal(size=(300, 9)) * 1e5 + 3.0
    frame = E.Frame(X, None, 64)
    buf = np.full((120, 9), np.nan)
    np.testing.assert_array_equal(frame.rows(X, 10, 100, out=buf), frame.rows(X, 10, 100))
    np.testing.assert_array_equal(frame.raw(X[:50], out=buf), frame.raw(X[:50]))


def test_float32_subnormal_cluster_falls_back_to_float64_rows_exactly():
    # a cluster of float32 subnormals (~1e-41) at the centre of points spread over ~1: the float32
    # pre-filter sees one point, the certificate sends those rows to the full float64 search, whose
    # squared distances come back to the input's units exactly
    rng = np.random.default_rng(12)
    far = rng.normal(size=(200, 6))
    cluster = rng.normal(size=(40, 6)) * 1e-41
    X = np.vstack([far, -far, cluster, -cluster]).astype(np.float32)
    assert np.any((X != 0) & (np.abs(X) < np.finfo(np.float32).tiny))
    res = kneighbors(X, k=5, backend="exact")
    idx, dist = oracle(X, None, 5)
    np.testing.assert_array_equal(res.indices, idx)
    np.testing.assert_allclose(res.distances, dist, rtol=1e-12, atol=0)
    ref = kneighbors(X.astype(np.float64), k=5, backend="exact")
    assert res.distances.tobytes() == ref.distances.tobytes()
