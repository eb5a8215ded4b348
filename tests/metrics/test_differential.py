"""Differential tests over grids of sizes: nulls against Python-integer counts, closed forms and
Monte Carlo; metrics against scikit-learn with heavy ties. Runs in CI (~20 s)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import mannwhitneyu
from sklearn.metrics import (
    auc,
    average_precision_score,
    f1_score,
    matthews_corrcoef,
    precision_recall_curve,
    roc_auc_score,
)

from auditad.metrics import aupr_trapezoid, auroc, average_precision, f1_at_threshold, mcc_at_threshold
from auditad.nulls import auroc_null, mann_whitney_pmf, null_distribution


# --------------------------------------------------------------------------- Python-integer oracle
def _bigint_counts(m: int, n: int) -> list[int]:
    """Exact counts of U = 0..m n with Python integers (product of (1 - q^(n+i)) / (1 - q^i))."""
    size = m * n + 1
    c = [0] * size
    c[0] = 1
    for i in range(1, m + 1):
        a = n + i
        for k in range(size - 1, a - 1, -1):
            c[k] -= c[k - a]
        for k in range(i, size):
            c[k] += c[k - i]
    return c


def _box_partitions(t: int, m: int, n: int) -> list[int]:
    """Partitions of k = 0..t into at most m parts each <= n (Python integers, small t)."""
    # p[j][k]: partitions of k into at most j parts each <= n, by adding the parts one size at a time
    ways = [[0] * (t + 1) for _ in range(m + 1)]
    for j in range(m + 1):
        ways[j][0] = 1
    for size in range(1, min(n, t) + 1):  # parts of this size, any number of them (respecting the part count)
        new = [row[:] for row in ways]
        for j in range(1, m + 1):
            for k in range(size, t + 1):
                new[j][k] += new[j - 1][k - size]
        ways = new
    return ways[m]


SIZES_BIGINT = [(1, 1), (1, 700), (2, 2), (3, 400), (7, 9), (17, 230), (40, 41), (60, 60), (100, 150), (160, 160)]


@pytest.mark.parametrize("m, n", SIZES_BIGINT)
def test_pmf_and_tail_equal_python_integer_counts(m, n):
    counts = _bigint_counts(min(m, n), max(m, n))
    total = math.comb(m + n, m)
    r = null_distribution(m, n, metrics=["auroc"])
    assert r["auroc"].method == "exact"
    pmf = r["auroc"].probabilities
    rng = np.random.default_rng(m * 1000 + n)
    cells = np.unique(
        np.r_[
            np.arange(min(60, len(counts))),
            len(counts) - 1 - np.arange(min(60, len(counts))),
            rng.integers(0, len(counts), 300),
        ]
    )
    acc, tail = 0, [0] * len(counts)
    for k in range(len(counts) - 1, -1, -1):
        acc += counts[k]
        tail[k] = acc
    for k in cells:
        exact = counts[k] / total  # correctly rounded quotient of Python integers
        if exact >= 1e-300:
            assert pmf[k] == pytest.approx(exact, rel=1e-12, abs=0), (m, n, k)
        p_exact = tail[k] / total
        p, log10p, how, bound = r.p_value_details(k / (m * n))
        assert how == "exact" and not bound
        if p_exact >= 1e-300:
            assert p == pytest.approx(p_exact, rel=1e-9, abs=0), (m, n, k)
        assert log10p == pytest.approx(math.log10(tail[k]) - math.log10(total), rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("m, n", [(60, 70), (229, 223), (300, 700), (1000, 1000), (2000, 60), (2000, 2000)])
@pytest.mark.parametrize("t", [0, 1, 5, 17])
def test_extreme_tails_equal_python_integer_counts_at_any_size(m, n, t):
    """P(U >= mn - t) = (partitions of <= t in an m x n box) / C(m+n, m), far below the float range."""
    part = _box_partitions(t, min(m, n), max(m, n))
    total = math.comb(m + n, m)
    log10_exact = math.log10(sum(part)) - math.log10(total)
    r = null_distribution(m, n, metrics=["auroc"])
    p, log10p, how, bound = r.p_value_details(1.0 - t / (m * n))
    assert how in ("exact", "exact_tail")
    assert log10p == pytest.approx(log10_exact, abs=4e-10)  # 1e-9 relative on p
    if log10_exact > -300:
        assert p == pytest.approx(10**log10_exact, rel=1e-9)
        assert not bound
    else:  # below the float range: the stored p-value is the floor, flagged as an upper bound
        assert p == 1e-300 and bound


GRID = [1, 2, 5, 17, 60, 160, 229, 500, 1000, 2000]


@pytest.mark.parametrize("m", GRID)
def test_null_variance_equals_closed_form_on_a_grid(m):
    for n in GRID:
        r = null_distribution(m, n, metrics=["auroc"])["auroc"]
        closed = math.sqrt((m + n + 1) / (12 * m * n))
        assert r.std == pytest.approx(closed, rel=1e-9), (m, n, r.method)
        assert r.mean == pytest.approx(0.5, abs=1e-12)
        if r.method == "exact":  # symmetric about 1/2
            np.testing.assert_allclose(r.probabilities, r.probabilities[::-1], rtol=1e-12, atol=0)


@pytest.mark.parametrize("m, n", [(229, 223), (1000, 1000), (2000, 60)])
def test_monte_carlo_agrees_with_the_null(m, n):
    runs = 3000
    mc = null_distribution(m, n, metrics=["auroc"], method="monte_carlo", runs=runs, random_state=7)["auroc"]
    an = null_distribution(m, n, metrics=["auroc"])["auroc"]
    assert abs(mc.mean - 0.5) < 4.5 * an.std / math.sqrt(runs)
    assert mc.std == pytest.approx(an.std, rel=0.06)
    assert mc.q99 == pytest.approx(an.q99, abs=0.6 * an.std)


def test_pmf_small_sizes_by_brute_force_enumeration():
    from itertools import combinations

    for m, n in [(3, 5), (4, 4), (2, 7)]:
        counts = np.zeros(m * n + 1)
        for pos in combinations(range(m + n), m):
            u = sum(p - i for i, p in enumerate(sorted(pos)))  # negatives below each positive
            counts[u] += 1
        np.testing.assert_allclose(mann_whitney_pmf(m, n), counts / counts.sum(), rtol=1e-14)


# --------------------------------------------------------------------------- tie-corrected normal null vs scipy
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("levels", [2, 3, 5])
def test_tie_corrected_null_equals_scipy_asymptotic(seed, levels):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 400))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = rng.integers(0, levels, n).astype(float) + 0.3 * y * rng.integers(0, 2, n)
    r = auroc_null(y, s)["auroc"]
    ref = mannwhitneyu(s[y == 1], s[y == 0], alternative="greater", method="asymptotic", use_continuity=True)
    assert r.p_method == "normal_tie_corrected"
    assert r.observed == pytest.approx(ref.statistic / ((y == 1).sum() * (y == 0).sum()), abs=1e-12)
    assert r.p_value == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)


# --------------------------------------------------------------------------- metrics vs scikit-learn, heavy ties
@pytest.mark.parametrize("n", [6, 40, 300, 3000])
@pytest.mark.parametrize("levels", [1, 2, 4, 50])
def test_metrics_equal_sklearn_with_heavy_ties(n, levels):
    rng = np.random.default_rng(n * 7 + levels)
    for _ in range(5):
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        s = rng.integers(0, levels, n).astype(float)
        w = rng.random(n) * (rng.random(n) > 0.1)
        w[:2] = 1.0
        assert auroc(y, s) == pytest.approx(roc_auc_score(y, s), abs=1e-12)
        assert auroc(y, s, sample_weight=w) == pytest.approx(roc_auc_score(y, s, sample_weight=w), abs=1e-12)
        assert average_precision(y, s) == pytest.approx(average_precision_score(y, s), abs=1e-12)
        assert average_precision(y, s, sample_weight=w) == pytest.approx(
            average_precision_score(y, s, sample_weight=w), abs=1e-12
        )
        p, r, _ = precision_recall_curve(y, s)
        assert aupr_trapezoid(y, s) == pytest.approx(auc(r, p), abs=1e-12)
        p, r, _ = precision_recall_curve(y, s, sample_weight=w)
        assert aupr_trapezoid(y, s, sample_weight=w) == pytest.approx(auc(r, p), abs=1e-12)
        thr = float(rng.integers(0, levels + 1))
        pred = (s >= thr).astype(int)
        assert f1_at_threshold(y, s, threshold=thr) == pytest.approx(f1_score(y, pred, zero_division=0), abs=1e-12)
        assert mcc_at_threshold(y, s, threshold=thr) == pytest.approx(matthews_corrcoef(y, pred), abs=1e-12)
        for max_fpr in (0.05, 0.3, 0.77):
            assert auroc(y, s, max_fpr=max_fpr) == pytest.approx(roc_auc_score(y, s, max_fpr=max_fpr), abs=1e-12)
