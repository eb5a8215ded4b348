"""The halved products of a whole exact self-search (`auditad.neighbors.pairs`) against the block search and a
float64 oracle.

The pairs path must give the block search's answer bit for bit: on Gaussian rows, float32 and float64, scaled by
powers of two and by 1e300, shifted far from the origin, with duplicates spread through the set (rows past 16 c
pairs, redone by the block search), and with so many equal values that the pairs are abandoned for the block
search. Its kept pairs are checked against float64 values: every pair left out is, within the certificate's
bound, above its row's threshold.
"""

from types import SimpleNamespace

import numpy as np
import pytest
from _helpers import recording

from auditad.neighbors import exact as E
from auditad.neighbors import kneighbors
from auditad.neighbors import pairs as P

N, D = 6000, 48  # small sets: the tests lower the size rule (`spy`), as the tiles' tests do


@pytest.fixture(scope="module")
def gauss():
    return np.random.default_rng(5).standard_normal((N, D)).astype(np.float32)


@pytest.fixture
def spy(monkeypatch):
    """Lowers the size rule to these small sets and records what each `pair_entries` call returned (None when it
    gave the search back to the block search)."""
    monkeypatch.setattr(E, "PAIRS_MIN_ROWS", 4096)
    monkeypatch.setattr(E, "PAIRS_MIN_VALUES", 2**18)
    return recording(monkeypatch, P, "pair_entries")


def both(X, k, n_jobs=2):
    """(pairs path, block path): ``rows=(0, n)`` is a block of a search, which never takes the pairs."""
    n = X.shape[0]
    return E.search(X, None, k, True, 256, n_jobs), E.search(X, None, k, True, 256, n_jobs, rows=(0, n))


def assert_same(a, b):
    np.testing.assert_array_equal(a[0], b[0])
    assert a[1].tobytes() == b[1].tobytes()


def test_the_threshold_rule_takes_the_pairs_only_for_large_self_searches():
    assert E.PAIRS_MIN_ROWS == 2**14 and E.PAIRS_MIN_VALUES == 2**21
    N, D = 17000, 128  # the smallest sizes that take the pairs path
    plan = SimpleNamespace(full=False, c=18)  # k = 10
    assert E._halved(plan, True, N, D, 256)
    assert not E._halved(plan, False, N, D, 256)  # a block of a search, or queries of another set
    assert not E._halved(plan, True, 10000, D, 256)  # too few rows
    assert not E._halved(plan, True, N, 64, 256)  # too narrow: 17 000 x 64 < 2**21
    assert not E._halved(plan, True, N, D, 1)  # the kept pairs would not fit the block memory
    assert not E._halved(SimpleNamespace(full=False, c=300), True, N, D, 256)  # n < 64 c: no sampled threshold
    assert not E._halved(SimpleNamespace(full=True, c=18), True, N, D, 256)  # every row a candidate


@pytest.mark.parametrize("k", [1, 10, 40])
def test_gaussian_rows_give_the_block_search_bit_for_bit(gauss, spy, monkeypatch, k):
    full_rows = []
    real = E._full_row
    monkeypatch.setattr(E, "_full_row", lambda *a, **kw: full_rows.append(1) or real(*a, **kw))
    a = E.search(gauss, None, k, True, 256, 2)
    assert len(spy) == 1 and spy[0] is not None  # the pairs path ran ...
    assert len(full_rows) <= 5 and spy[0].redo.sum() <= 50  # ... and certified almost every row from its pairs
    assert_same(a, E.search(gauss, None, k, True, 256, 2, rows=(0, N)))


@pytest.mark.parametrize("scale", ["2^-900", "2^900", "1e300", "shift"])
def test_scaled_and_shifted_float64_rows_give_the_block_search_bit_for_bit(gauss, spy, scale):
    X = gauss.astype(np.float64)
    X = {"2^-900": np.ldexp(X, -900), "2^900": np.ldexp(X, 900), "1e300": X * 1e300, "shift": X + 1e3}[scale]
    a, b = both(X, 10)
    assert spy[0] is not None
    assert_same(a, b)
    if scale == "2^-900":  # the scaling is exact: the indices of the unscaled search
        np.testing.assert_array_equal(a[0], both(gauss.astype(np.float64), 10)[1][0])


def test_spread_duplicates_are_redone_by_the_block_search(gauss, spy):
    X = gauss.copy()
    at = np.random.default_rng(0).choice(N, 320, replace=False)  # 320 copies of one row, spread over the strips
    X[at] = X[at[0]]
    a, b = both(X, 10)
    found = spy[0]
    assert found is not None and found.redo[at].all()  # 319 pairs at distance 0 each: past 16 c = 288
    assert_same(a, b)
    assert (a[1][at] == 0).all()


def test_near_copies_within_the_rounding_bound_are_all_kept_and_redone(gauss, spy):
    # 320 rows on a short segment: their squared distances lie within a quarter of the rounding bound of a float32
    # value, so a BLAS may round their values to either side of a threshold taken from one of them (as one did,
    # for exact copies, on an AMD EPYC with OpenBLAS's Haswell kernels). The thresholds are raised by twice the
    # bound: every near-copy is kept, 319 of them pass 16 c = 288, and the rows are redone on every machine.
    X = gauss.astype(np.float64)
    rng = np.random.default_rng(0)
    at = rng.choice(N, 320, replace=False)
    e = rng.standard_normal(D)
    fr = E.Frame(X, None, E.chunk_rows(D))
    to_input = 2.0 ** -(fr.e0 + fr.e1)  # a frame unit in the input's units
    plan = E._Search(E.Reference(X, fr), fr, X, 10, True, 0, 256)
    bound = plan.rounding(plan.qsq64).min()
    X[at] = X[at[0]] + np.outer(rng.uniform(0, 1, 320), e / np.linalg.norm(e) * np.sqrt(bound / 4) * to_input)
    fr = E.Frame(X, None, E.chunk_rows(D))
    ref = E.Reference(X, fr)
    plan = E._Search(ref, fr, X, 10, True, 0, 256)
    Xf = fr.rows(X, 0, N)[at]
    spread = ((Xf[:, None, :] - Xf[None, :, :]) ** 2).sum(axis=2).max()
    assert spread <= plan.rounding(plan.qsq64[at]).min() / 2  # (the frame of the new rows: the same scale)
    raw = P.sample_thresholds(ref.X32a, 256, plan.c, 2)[at]
    s = P.operands(ref.X32a[at, :D]) @ ref.X32a[at].T
    np.fill_diagonal(s, -np.inf)
    assert (s > raw[:, None]).any()  # the thresholds as sampled leave some near-copies out
    a, b = both(X, 10)
    assert spy[0] is not None and spy[0].redo[at].all()
    assert_same(a, b)
    assert np.isin(a[0][at], at).all()  # each one's 10 nearest rows: near-copies


def test_widened_thresholds_round_up_and_keep_nan():
    thr = np.array([1.0, -0.62000436, np.nan, 0.0], dtype=np.float32)
    slack = np.array([0.0, 1e-9, 1.0, 2.0**-151])
    up = P.widened(thr, slack)
    assert up.dtype == np.float32
    exact = thr.astype(np.float64) + slack
    assert np.all(up[[0, 1, 3]].astype(np.float64) >= exact[[0, 1, 3]])  # never below the raised value
    assert up[0] == 1.0 and up[1] == np.nextafter(thr[1], np.float32(1)) and np.isnan(up[2])
    assert up[3] == np.nextafter(np.float32(0), np.float32(1))  # the smallest float32 above 2**-151


def test_a_block_of_equal_rows_gives_the_search_back_to_the_block_search(gauss, spy):
    X = gauss.copy()
    X[:400] = X[0]  # the first strip: 399 pairs at distance 0 for each of its rows, past 16 c on average
    a, b = both(X, 10)
    assert spy == [None]
    assert_same(a, b)
    assert (a[1][:400] == 0).all()


def test_equal_rows_stop_the_strips():
    X32a = np.zeros((3000, 9), dtype=np.float32)  # every value equal: every pair at its row's threshold
    thr = P.sample_thresholds(X32a, 256, 15, 2)
    assert P.pair_entries(X32a, thr, 256, 15, 2) is None


def test_one_and_two_threads_give_the_same_pairs_and_answer(gauss, spy):
    assert_same(E.search(gauss, None, 10, True, 256, 1), E.search(gauss, None, 10, True, 256, 2))
    one, two = spy
    assert (one.redo == two.redo).all()
    for start in range(0, N, 256 * 13):
        x, y = one.block(start, min(start + 256, N)), two.block(start, min(start + 256, N))
        for u, v in zip(x, y):
            np.testing.assert_array_equal(u, v)


def test_kept_pairs_are_the_pairs_at_or_below_each_rows_threshold_within_the_bound():
    # small n: pair_entries itself has no size rule; the float64 oracle of every pair is affordable
    n, d, c = 3000, 24, 15
    X = np.random.default_rng(2).standard_normal((n, d))
    fr = E.Frame(X, None, E.chunk_rows(d))
    ref = E.Reference(X, fr)
    thr = P.sample_thresholds(ref.X32a, 256, c, 2)
    found = P.pair_entries(ref.X32a, thr, 256, c, 2)
    Xf = fr.rows(X, 0, n)
    exact = (Xf * Xf).sum(axis=1)[None, :] - 2.0 * Xf @ Xf.T  # s = |x_j|^2 - 2 x_i.x_j for row i, float64
    np.fill_diagonal(exact, np.inf)
    norms = np.sqrt((Xf * Xf).sum(axis=1))
    delta = (d + 16) * 2.0 * E.U32 * (norms + norms.max()) ** 2
    # the sample threshold: close to the float64 value of the same rank over every 16th row
    sample = exact[:, ::16]
    cs = -(-2 * c // 16) + 3
    ref_thr = np.partition(sample, cs - 1, axis=1)[:, cs - 1]
    assert np.all(np.abs(thr - ref_thr) <= delta)
    checked = 0
    for start in range(0, n, 256):
        stop = min(start + 256, n)
        rows, cols, vals, redo = found.block(start, stop)
        assert np.all(np.diff(rows) >= 0)
        for i in range(stop - start):
            if i in redo:
                continue
            g = start + i
            kept = np.zeros(n, dtype=bool)
            kept[cols[rows == i]] = True
            assert not kept[g]  # never the row itself
            assert np.all(exact[g, kept] <= thr[g] + delta[g])  # kept: at or below the threshold (rounding)
            out = ~kept
            out[g] = False
            assert np.all(exact[g, out] > thr[g] - delta[g])  # left out: above it (rounding)
            np.testing.assert_allclose(vals[rows == i], exact[g, cols[rows == i]], rtol=0, atol=delta[g])
            checked += 1
    assert checked > n - 50 and found.redo.sum() < 50


def test_kneighbors_exact_takes_the_pairs_and_equals_the_oracle_on_a_sample(gauss, spy):
    res = kneighbors(gauss, k=5, backend="exact")
    assert len(spy) == 1 and spy[0] is not None
    rows = np.random.default_rng(3).choice(N, 40, replace=False)
    X64 = gauss.astype(np.float64)
    for i in rows:
        d2 = ((X64 - X64[i]) ** 2).sum(axis=1)
        d2[i] = np.inf
        order = np.lexsort((np.arange(N), d2))[:5]
        np.testing.assert_array_equal(res.indices[i], order)
        np.testing.assert_allclose(res.distances[i], np.sqrt(d2[order]), rtol=1e-12, atol=0)
