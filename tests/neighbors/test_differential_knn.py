"""The exact kNN engine against a float64 brute-force oracle, over a grid of magnitudes and data shapes.

The oracle below is deliberately naive and independent of the engine: the full
float64 distance of every query to every reference row, computed directly from
the data as given (no centring, no float32, no certificate), sorted with
``np.lexsort`` by (distance, index). The grid covers what users feed the
engine: data scaled by 2^±60 and 2^±100 (float32 products over/underflow there),
shifted by 1e8 (catastrophic cancellation in dot-product formulas), exact
duplicates (groups larger than the engine's candidate margin), integer grids
(many exactly tied distances) and float32 input, at n up to a few thousand.

Invariant checked on top of the oracle: multiplying the data by an exact power of
two never changes the neighbour indices, and the distances scale by exactly that
power of two (bit for bit).
"""

import numpy as np
import pytest

from auditad.neighbors import kneighbors

SCALES = [0, 60, -60, 100, -100]  # exponents p: data multiplied by 2**p


def oracle(X, Q, k, metric):
    """k nearest rows of X for each row of Q (Q None: self search, self excluded), ties by index."""
    X = np.asarray(X, dtype=np.float64)
    self_search = Q is None
    Q = X if self_search else np.asarray(Q, dtype=np.float64)
    if metric == "cosine":
        X = X / np.sqrt((X * X).sum(axis=1))[:, None]
        Q = Q / np.sqrt((Q * Q).sum(axis=1))[:, None]
    n = X.shape[0]
    cols = np.arange(n)
    idx = np.empty((Q.shape[0], k), dtype=np.int64)
    dist = np.empty((Q.shape[0], k))
    for a in range(0, Q.shape[0], 128):
        diff = Q[a : a + 128, None, :] - X[None, :, :]
        d2 = (diff * diff).sum(axis=2)
        for r in range(d2.shape[0]):
            row = d2[r]
            if self_search:
                row[a + r] = np.inf
            order = np.lexsort((cols, row))[:k]
            idx[a + r] = order
            dist[a + r] = 0.5 * row[order] if metric == "cosine" else np.sqrt(row[order])
    return idx, dist


def gaussian_with_duplicates(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[1] = X[0]  # a duplicate pair
    X[10:50] = X[50]  # 41 identical points: more than the engine's candidate margin
    X[60:70] = X[70] * 4.0  # collinear with row 70: cosine distance exactly 0 to it
    return X


def integer_grid(side, d):
    axes = np.meshgrid(*[np.arange(side)] * d, indexing="ij")
    return np.stack([a.ravel() for a in axes], axis=1).astype(np.float64)


def dyadic(n, d, seed):
    """Gaussian rounded to 20 fractional bits: adding 1e8 is then exact in float64."""
    return np.round(np.random.default_rng(seed).normal(size=(n, d)) * 2**20) / 2**20


DATASETS = {
    "gauss_dup_n3000_d16": lambda: gaussian_with_duplicates(3000, 16, 0),
    "gauss_dup_n400_d64": lambda: gaussian_with_duplicates(400, 64, 1),
    "int_grid_15^3": lambda: integer_grid(15, 3),
    "int_grid_40^2": lambda: integer_grid(40, 2),
}


def _check(res, X, Q, k, metric):
    idx, dist = oracle(X, Q, k, metric)
    np.testing.assert_array_equal(res.indices, idx)
    np.testing.assert_allclose(res.distances, dist, rtol=1e-12, atol=0 if metric == "euclidean" else 1e-15)


@pytest.mark.parametrize("p", SCALES)
@pytest.mark.parametrize("name", list(DATASETS))
def test_euclidean_self_search_equals_oracle_at_every_magnitude(name, p):
    X = np.ldexp(DATASETS[name](), p)
    k = 10
    res = kneighbors(X, k=k, backend="exact")
    _check(res, X, None, k, "euclidean")


@pytest.mark.parametrize("p", SCALES)
def test_euclidean_queries_equal_oracle_at_every_magnitude(p):
    rng = np.random.default_rng(7)
    X = np.ldexp(gaussian_with_duplicates(2000, 24, 2), p)
    Q = np.ldexp(np.vstack([rng.normal(size=(300, 24)), gaussian_with_duplicates(2000, 24, 2)[:60]]), p)
    res = kneighbors(X, Q, k=7, backend="exact")
    _check(res, X, Q, 7, "euclidean")


@pytest.mark.parametrize("p", SCALES)
@pytest.mark.parametrize("form", ["self", "queries"])
def test_cosine_equals_oracle_at_every_magnitude(p, form):
    X = np.ldexp(gaussian_with_duplicates(1500, 16, 3), p)
    Q = None if form == "self" else np.ldexp(np.random.default_rng(4).normal(size=(200, 16)), p)
    res = kneighbors(X, Q, k=5, metric="cosine", backend="exact")
    idx, dist = oracle(X, Q, 5, "cosine")
    np.testing.assert_array_equal(res.indices, idx)
    np.testing.assert_allclose(res.distances, dist, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("name", ["gauss_dup_n400_d64", "int_grid_15^3"])
@pytest.mark.parametrize("form", ["self", "queries"])
def test_power_of_two_scaling_changes_nothing(name, form):
    X = DATASETS[name]()
    Q = None if form == "self" else X[::7] + 0.25
    base = kneighbors(X, Q, k=6, backend="exact")
    for p in (60, -60, 100, -100):
        res = kneighbors(np.ldexp(X, p), None if Q is None else np.ldexp(Q, p), k=6, backend="exact")
        np.testing.assert_array_equal(res.indices, base.indices)
        np.testing.assert_array_equal(res.distances, np.ldexp(base.distances, p))  # bit for bit
        cos = kneighbors(np.ldexp(X, p) + np.ldexp(1.0, p), k=4, metric="cosine", backend="exact")
        cos0 = kneighbors(X + 1.0, k=4, metric="cosine", backend="exact")
        np.testing.assert_array_equal(cos.indices, cos0.indices)
        np.testing.assert_array_equal(cos.distances, cos0.distances)


@pytest.mark.parametrize("form", ["self", "queries"])
def test_shift_by_1e8_changes_no_index(form):
    X = dyadic(2500, 12, 5)
    X[100:120] = X[120]
    Q = None if form == "self" else dyadic(150, 12, 6)
    shift = 1e8
    assert np.all((X + shift) - shift == X)  # the shifted data are exactly representable
    base = kneighbors(X, Q, k=8, backend="exact")
    res = kneighbors(X + shift, None if Q is None else Q + shift, k=8, backend="exact")
    np.testing.assert_array_equal(res.indices, base.indices)
    np.testing.assert_allclose(res.distances, base.distances, rtol=1e-12)
    _check(res, X + shift, None if Q is None else Q + shift, 8, "euclidean")


@pytest.mark.parametrize("p", [0, 100, -100])
def test_float32_input_at_extreme_magnitudes(p):
    X32 = np.ldexp(gaussian_with_duplicates(1200, 32, 8), p).astype(np.float32)
    res = kneighbors(X32, k=5, backend="exact")
    _check(res, X32.astype(np.float64), None, 5, "euclidean")


def test_magnitudes_near_the_float64_limits():
    X = gaussian_with_duplicates(300, 8, 9)
    for p in (900, -900, -1000):
        res = kneighbors(np.ldexp(X, p), k=4, backend="exact")
        base = kneighbors(X, k=4, backend="exact")
        np.testing.assert_array_equal(res.indices, base.indices)
        np.testing.assert_array_equal(res.distances, np.ldexp(base.distances, p))


def test_subnormal_scale_cluster_next_to_unit_scale_points():
    # a cluster of diameter ~1e-40 at the centre of points spread over ~1: below float32's
    # normal range, the float32 pre-filter sees the cluster as one point; the certificate
    # must send those rows to float64
    rng = np.random.default_rng(10)
    far = rng.normal(size=(200, 6))
    far = np.vstack([far, -far])  # mean exactly 0
    cluster = rng.normal(size=(40, 6)) * 1e-40
    X = np.vstack([far, cluster, -cluster])
    res = kneighbors(X, k=5, backend="exact")
    _check(res, X, None, 5, "euclidean")
