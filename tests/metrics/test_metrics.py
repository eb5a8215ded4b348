"""Tests of auditad.metrics: expected values from scikit-learn, brute-force oracles and Hermary et al. ."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.metrics import (
    auc,
    average_precision_score,
    f1_score,
    matthews_corrcoef,
    precision_recall_curve,
    roc_auc_score,
)

from auditad.errors import InvalidInputError, UndefinedValueWarning
from auditad.metrics import (
    AurocCIResult,
    aupr_trapezoid,
    auroc,
    auroc_ci,
    average_precision,
    best_f1,
    f1_at_threshold,
    mcc_at_threshold,
    operating_point_metrics,
    scaled_mcc,
    score_metrics,
)


def _random_case(seed, n=200, ties=False, pos_rate=0.3):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < pos_rate).astype(int)
    y[0], y[1] = 0, 1
    s = rng.normal(size=n) + 0.7 * y
    if ties:
        s = np.round(s * 2) / 2  # few distinct values -> many ties
    return y, s


def _brute_delong(y, s):
    """O(n_pos * n_neg) DeLong (1988) with explicit placement values."""
    x = s[y == 1][:, None]
    z = s[y == 0][None, :]
    psi = (x > z) + 0.5 * (x == z)
    auc = psi.mean()
    v10 = psi.mean(axis=1)
    v01 = psi.mean(axis=0)
    var = v10.var(ddof=1) / v10.size + v01.var(ddof=1) / v01.size
    return auc, math.sqrt(var)


# --------------------------------------------------------------------------- auroc
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_auroc_equals_sklearn(seed, ties):
    y, s = _random_case(seed, ties=ties)
    assert auroc(y, s) == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    assert isinstance(auroc(y, s), float)


def test_auroc_2d_columns_equal_sklearn_loop():
    rng = np.random.default_rng(3)
    y, _ = _random_case(3, n=150)
    S = rng.normal(size=(150, 7)) + 0.5 * y[:, None]
    S[:, 3] = np.round(S[:, 3])  # a column with ties
    S[:, 5] = 1.0  # a constant column
    got = auroc(y, S)
    assert got.shape == (7,)
    expected = [roc_auc_score(y, S[:, j]) for j in range(7)]
    np.testing.assert_allclose(got, expected, atol=1e-12, rtol=0)
    assert got[5] == 0.5


def test_auroc_bool_labels_and_lists():
    assert auroc([False, True, True], [0.2, 0.1, 0.9]) == pytest.approx(0.5)


@pytest.mark.parametrize(
    "y, s, match",
    [
        ([0, 0, 0], [1, 2, 3], "single class"),
        ([0, 1, 2], [1, 2, 3], "binary"),
        ([0, 1, 1], [1, np.nan, 3], "NaN"),
        ([0, 1, 1], [1, 2], "same length"),
        ([0, 1], [[[1.0]], [[2.0]]], "1-D or 2-D"),
    ],
)
def test_auroc_bad_input(y, s, match):
    with pytest.raises(InvalidInputError, match=match):
        auroc(y, s)


# --------------------------------------------------------------------------- auroc_ci
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", [0, 5])
def test_auroc_ci_matches_brute_force_delong(seed, ties):
    y, s = _random_case(seed, n=120, ties=ties)
    r = auroc_ci(y, s, confidence_level=0.9)
    auc, se = _brute_delong(y, s)
    assert isinstance(r, AurocCIResult)
    assert r.auroc == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    assert r.auroc == pytest.approx(auc, abs=1e-12)
    assert r.se == pytest.approx(se, rel=1e-10)
    z = norm.ppf(0.95)
    # the interval is the hull of the logit-DeLong interval and Newcombe's (2006, Method 5) score interval
    logit = math.log(auc / (1 - auc))
    half = z * se / (auc * (1 - auc))
    nlo, nhi = _newcombe_oracle(auc, r.n_pos, r.n_neg, z, grid=2_000_001)
    assert r.ci_low == pytest.approx(min(1 / (1 + math.exp(-(logit - half))), nlo), abs=2e-6)
    assert r.ci_high == pytest.approx(max(1 / (1 + math.exp(-(logit + half))), nhi), abs=2e-6)
    # the test of AUROC = 1/2 is the Mann-Whitney test: scipy's exact one without ties (within the budget),
    # its asymptotic one (tie- and continuity-corrected) with these ties (beyond the exact budget)
    from scipy.stats import mannwhitneyu

    ref = mannwhitneyu(s[y == 1], s[y == 0], method="asymptotic" if ties else "exact").pvalue
    assert r.p_method == ("normal" if ties else "exact")
    assert r.p_value == pytest.approx(ref, rel=1e-9)
    assert r.log10_p_value == pytest.approx(np.log10(ref), abs=1e-9)
    assert (r.n_pos, r.n_neg, r.method) == (int(y.sum()), int((y == 0).sum()), "logit_delong|newcombe")


def test_auroc_ci_clipped_and_perfect_separation():
    y = np.array([0] * 5 + [1] * 5)
    s = np.arange(10.0)
    r = auroc_ci(y, s)
    # DeLong's variance is 0 here: Newcombe's interval takes over and does not collapse; p is never 0
    assert r.auroc == 1.0 and r.ci_high == 1.0 and r.ci_low < 1.0 and r.method == "newcombe" and r.p_value > 0.0
    # near-perfect: the interval stays inside [0, 1] (the logit scale keeps it there) and around the estimate
    s2 = s.copy()
    s2[4], s2[5] = s2[5], s2[4]
    r2 = auroc_ci(y, s2)
    assert r2.ci_low < r2.auroc < r2.ci_high <= 1.0


def test_auroc_ci_constant_scores_warns():
    with pytest.warns(UndefinedValueWarning, match="constant"):
        r = auroc_ci([0, 1, 0, 1], [3.0, 3.0, 3.0, 3.0])
    assert r.auroc == 0.5 and r.p_value == 1.0 and math.isnan(r.ci_low)
    d = r.to_dict()
    assert d["ci_low"] is None and d["auroc"] == 0.5
    assert list(r.to_frame().columns)[:4] == ["auroc", "ci_low", "ci_high", "p_value"]


def test_auroc_ci_bad_level():
    with pytest.raises(InvalidInputError, match="confidence_level"):
        auroc_ci([0, 1], [0.0, 1.0], confidence_level=1.0)


def test_auroc_ci_null_coverage():
    """Under H0 (random scores) the 95 % DeLong p-value rejects about 5 % of the time."""
    rng = np.random.default_rng(11)
    y = np.r_[np.zeros(60, int), np.ones(40, int)]
    p = np.array([auroc_ci(y, rng.normal(size=100)).p_value for _ in range(400)])
    assert 0.02 < np.mean(p < 0.05) < 0.09


# --------------------------------------------------------------------------- PR-curve metrics
def _sk_aupr(y, s):
    precision, recall, _ = precision_recall_curve(y, s)
    return auc(recall, precision)


def _brute_best_f1(y, s):
    return max(f1_score(y, (s >= t).astype(int)) for t in np.unique(s))


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_curve_metrics_equal_sklearn(seed, ties):
    y, s = _random_case(seed, n=180, ties=ties, pos_rate=[0.05, 0.3, 0.6, 0.9][seed])
    assert average_precision(y, s) == pytest.approx(average_precision_score(y, s), abs=1e-12)
    assert aupr_trapezoid(y, s) == pytest.approx(_sk_aupr(y, s), abs=1e-12)
    assert best_f1(y, s) == pytest.approx(_brute_best_f1(y, s), abs=1e-12)


def test_curve_metrics_2d_match_sklearn_loop():
    rng = np.random.default_rng(7)
    y, _ = _random_case(7, n=90)
    S = rng.normal(size=(90, 6)) + y[:, None]
    S[:, 1] = np.round(S[:, 1])
    S[:, 2] = 0.0  # constant column
    S[:, 3] = (S[:, 3] > 0.5).astype(float)  # binary column
    np.testing.assert_allclose(
        average_precision(y, S), [average_precision_score(y, c) for c in S.T], atol=1e-12, rtol=0
    )
    np.testing.assert_allclose(aupr_trapezoid(y, S), [_sk_aupr(y, c) for c in S.T], atol=1e-12, rtol=0)
    np.testing.assert_allclose(best_f1(y, S), [_brute_best_f1(y, c) for c in S.T], atol=1e-12, rtol=0)


def test_curve_metrics_chunking(monkeypatch):
    """Results do not depend on the column chunk size."""
    import auditad.metrics as mod

    rng = np.random.default_rng(8)
    y, _ = _random_case(8, n=50)
    S = np.round(rng.normal(size=(50, 9)), 1)
    full = aupr_trapezoid(y, S)
    monkeypatch.setattr(mod._curves, "CHUNK_ELEMENTS", 100)  # 2 columns per chunk
    np.testing.assert_array_equal(aupr_trapezoid(y, S), full)


# --------------------------------------------------------------------------- thresholded metrics
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_f1_mcc_at_threshold_equal_sklearn(seed, ties):
    y, s = _random_case(seed, n=160, ties=ties)
    for t in (np.median(s), 0.5, s.max(), s.max() + 1, s.min()):
        pred = (s >= t).astype(int)
        assert f1_at_threshold(y, s, threshold=t) == pytest.approx(f1_score(y, pred, zero_division=0), abs=1e-12)
        assert mcc_at_threshold(y, s, threshold=t) == pytest.approx(matthews_corrcoef(y, pred), abs=1e-12)
        assert mcc_at_threshold(y, s, threshold=t, scaled=True) == pytest.approx(
            (matthews_corrcoef(y, pred) + 1) / 2, abs=1e-12
        )


def test_thresholded_2d_per_column_threshold():
    rng = np.random.default_rng(4)
    y, _ = _random_case(4, n=70)
    S = rng.normal(size=(70, 4))
    thr = np.array([0.0, 0.5, -1.0, 3.0])
    got_f1 = f1_at_threshold(y, S, threshold=thr)
    got_mcc = mcc_at_threshold(y, S, threshold=thr)
    for j in range(4):
        pred = (S[:, j] >= thr[j]).astype(int)
        assert got_f1[j] == pytest.approx(f1_score(y, pred, zero_division=0), abs=1e-12)
        assert got_mcc[j] == pytest.approx(matthews_corrcoef(y, pred), abs=1e-12)
    with pytest.raises(InvalidInputError, match="threshold"):
        f1_at_threshold(y, S, threshold=[0.0, 1.0])


def test_threshold_is_inclusive():
    # predicted positive = score >= threshold
    assert f1_at_threshold([0, 1], [0.2, 0.7], threshold=0.7) == 1.0
    assert f1_at_threshold([0, 1], [0.2, 0.7], threshold=0.7000001) == 0.0


def test_scaled_mcc():
    assert scaled_mcc(-1.0) == 0.0 and scaled_mcc(1.0) == 1.0
    np.testing.assert_allclose(scaled_mcc(np.array([0.0, 0.5])), [0.5, 0.75])
    with pytest.raises(InvalidInputError, match="mcc"):
        scaled_mcc(1.5)


def test_score_metrics_bundle():
    y, s = _random_case(9, n=120, ties=True)
    r = score_metrics(y, s)
    assert r.threshold_rule == "best_f1"
    assert r.f1 == pytest.approx(r.best_f1, abs=1e-12)
    assert r.f1 == pytest.approx(f1_score(y, (s >= r.threshold).astype(int)), abs=1e-12)
    assert r.auroc == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    assert r.ap == pytest.approx(average_precision_score(y, s), abs=1e-12)
    r2 = score_metrics(y, s, threshold=0.0)
    assert r2.threshold_rule == "given" and r2.mcc == pytest.approx(
        matthews_corrcoef(y, (s >= 0).astype(int)), abs=1e-12
    )
    d = r2.to_dict()
    assert d["n_pos"] == int(y.sum()) and isinstance(d["ratio"], float)
    assert r2.to_frame().shape == (6, 2)


# --------------------------------------------------------------------------- operating point
def _binary_case(n_pos, n_neg, tp, tn):
    y = np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]
    pred = np.r_[np.ones(tp), np.zeros(n_pos - tp), np.zeros(tn), np.ones(n_neg - tn)]
    return y, pred


@pytest.mark.parametrize("n_pos, n_neg", [(7, 13), (3, 40), (30, 4)])
def test_operating_point_equals_score_metrics_on_binary_scores(n_pos, n_neg):
    for tp in range(n_pos + 1):
        for tn in range(0, n_neg + 1, max(1, n_neg // 7)):
            y, pred = _binary_case(n_pos, n_neg, tp, tn)
            r = operating_point_metrics(tp / n_pos, tn / n_neg, n_pos / (n_pos + n_neg))
            assert r.auroc == pytest.approx(roc_auc_score(y, pred), abs=1e-12)
            assert r.ap == pytest.approx(average_precision_score(y, pred), abs=1e-12)
            assert r.aupr_trap == pytest.approx(_sk_aupr(y, pred), abs=1e-12)
            assert r.f1 == pytest.approx(f1_score(y, pred, zero_division=0), abs=1e-12)
            assert r.mcc == pytest.approx(matthews_corrcoef(y, pred), abs=1e-12)


def test_operating_point_paper_checks():
    # Hermary et al. §V-C: balanced, TPR = 0, TNR = 1 -> AUPR (trapezoid) = 0.75
    r = operating_point_metrics(0.0, 1.0, 0.5)
    assert r.aupr_trap == pytest.approx(0.75, abs=1e-15)
    assert r.ap == pytest.approx(0.5) and r.f1 == 0.0 and r.mcc == 0.0 and math.isnan(r.precision)
    # Hermary et al. §V-C: UCR ratio 0.19 %, TPR = 0, TNR = 0.1 -> scaled MCC ~ 0.43 (0.435)
    r = operating_point_metrics(0.0, 0.1, 0.0019)
    expected = (1 - math.sqrt(0.9 * 0.0019 / (0.1 * (1 - 0.0019) + 0.0019))) / 2  # hand algebra
    assert r.mcc_scaled == pytest.approx(expected, abs=1e-12)
    assert round(r.mcc_scaled, 3) == 0.435


def test_operating_point_broadcast_and_frame():
    grid = np.linspace(0, 1, 5)
    r = operating_point_metrics(grid[:, None], grid[None, :], 0.2)
    assert r.f1.shape == (5, 5)
    np.testing.assert_allclose(r.auroc, (grid[:, None] + grid[None, :]) / 2)
    frame = r.to_frame()
    assert len(frame) == 25 and "mcc_scaled" in frame.columns
    d = r.to_dict()
    assert d["precision"][0][-1] is None  # TPR 0, TNR 1: nothing predicted positive


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(tpr=1.2, tnr=0.5, ratio=0.5), "tpr"),
        (dict(tpr=0.5, tnr=-0.1, ratio=0.5), "tnr"),
        (dict(tpr=0.5, tnr=0.5, ratio=0.0), "ratio"),
        (dict(tpr=0.5, tnr=0.5, ratio=1.0), "ratio"),
        (dict(tpr=np.nan, tnr=0.5, ratio=0.5), "tpr"),
        (dict(tpr=[0.1, 0.2], tnr=[0.1, 0.2, 0.3], ratio=0.5), "broadcast"),
    ],
)
def test_operating_point_bad_input(kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        operating_point_metrics(**kwargs)


def test_auroc_chunked_and_tie_paths(monkeypatch):
    """One column per block exercises the tie-free and the tie paths separately; results match sklearn."""
    import auditad.metrics as mod

    rng = np.random.default_rng(12)
    y, _ = _random_case(12, n=60)
    S = rng.normal(size=(60, 5))
    S[:, 1] = np.round(S[:, 1])
    S[:, 4] = np.round(S[:, 4] * 3) / 3
    expected = [roc_auc_score(y, c) for c in S.T]
    np.testing.assert_allclose(auroc(y, S), expected, atol=1e-12, rtol=0)
    monkeypatch.setattr(mod._curves, "CHUNK_ELEMENTS", 60)
    np.testing.assert_allclose(auroc(y, S), expected, atol=1e-12, rtol=0)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(y_true=[[0, 1], [1, 0]], scores=[0.1, 0.2]), "shape"),
        (dict(y_true=[0, 1, 2], scores=[0.1, 0.2, 0.3]), "binary"),
        (dict(y_true=["a", "b"], scores=[0.1, 0.2], pos_label="c"), "pos_label='c' is not a valid label"),
        (dict(y_true=[0, 1], scores=[0.1, 0.2], sample_weight=[1.0]), "sample_weight has 1 values"),
        (dict(y_true=[0, 1], scores=[0.1, 0.2], sample_weight=[1.0, -1.0]), "non-negative"),
        (dict(y_true=[0, 1], scores=[0.1, 0.2], sample_weight=[1.0, 0.0]), "no weight on one of the two classes"),
    ],
)
def test_label_and_weight_errors_are_named(kwargs, match):
    from auditad.metrics import average_precision

    with pytest.raises(InvalidInputError, match=match):
        average_precision(**kwargs)


def test_pos_label_everywhere_equals_relabelling():
    from sklearn.metrics import f1_score, matthews_corrcoef

    from auditad.metrics import auroc_ci, best_f1, f1_at_threshold, mcc_at_threshold, score_metrics

    rng = np.random.default_rng(5)
    y01 = rng.integers(0, 2, 80)
    s = rng.normal(size=80) + y01
    y = np.where(y01 == 1, "anomaly", "normal")
    kw = dict(pos_label="anomaly")
    assert f1_at_threshold(y, s, threshold=0.4, **kw) == pytest.approx(f1_score(y01, s >= 0.4), abs=1e-12)
    assert mcc_at_threshold(y, s, threshold=0.4, **kw) == pytest.approx(matthews_corrcoef(y01, s >= 0.4), abs=1e-12)
    assert best_f1(y, s, **kw) == best_f1(y01, s)
    assert auroc_ci(y, s, **kw).auroc == auroc_ci(y01, s).auroc
    assert score_metrics(y, s, **kw).to_dict() == score_metrics(y01, s).to_dict()


def _newcombe_oracle(auc, m, n, z, grid=200_001):
    """Brute force: the θ on a fine grid with (auc - θ)² <= z² V(θ) (Newcombe 2006, Method 5)."""
    t = np.linspace(0.0, 1.0, grid)
    nstar = (m + n) / 2.0
    v = t * (1 - t) * (1 + (nstar - 1) * (1 - t) / (2 - t) + (nstar - 1) * t / (1 + t)) / (m * n)
    ok = (auc - t) ** 2 <= z * z * v
    return t[ok].min(), t[ok].max()


@pytest.mark.parametrize("auc,m,n", [(1.0, 5, 5), (1.0, 50, 20), (0.0, 30, 30), (0.97, 12, 40)])
def test_newcombe_interval_matches_a_grid_search_and_never_collapses(auc, m, n):
    from auditad.metrics._delong import newcombe_interval

    z = norm.ppf(0.975)
    lo, hi = newcombe_interval(auc, m, n, z)
    olo, ohi = _newcombe_oracle(auc, m, n, z)
    assert lo == pytest.approx(olo, abs=2e-5) and hi == pytest.approx(ohi, abs=2e-5)
    assert hi - lo > 0.0


@pytest.mark.parametrize("m,n", [(10, 10), (200, 300), (5000, 5000)])
def test_auroc_ci_p_value_never_zero_at_perfect_separation(m, n):
    y = np.r_[np.zeros(n), np.ones(m)]
    s = np.arange(m + n, dtype=float)
    r = auroc_ci(y, s)
    assert r.p_value > 0.0 and r.ci_low < 1.0 and r.ci_high == 1.0
    from scipy.stats import mannwhitneyu

    # exact at any size (the tail beyond U = m n holds one arrangement): p = 2 / C(m + n, m)
    log10_exact = math.log10(2) - math.log10(math.comb(m + n, m))
    assert r.p_method == "exact" and r.log10_p_value == pytest.approx(log10_exact, abs=1e-9)
    if log10_exact > -300:
        assert r.p_value == pytest.approx(10**log10_exact, rel=1e-9)
        assert r.p_value == pytest.approx(mannwhitneyu(s[y == 1], s[y == 0], method="exact").pvalue, rel=1e-9)
    else:  # below the float range: p floored at the smallest double, log10 p exact
        assert r.p_value == np.finfo(float).tiny


# --------------------------------------------------------------------------- small counts: exact test, coverage
def test_three_vs_three_perfect_separation_is_the_exact_point_one():
    from scipy.stats import mannwhitneyu

    r = auroc_ci([0, 0, 0, 1, 1, 1], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    ref = mannwhitneyu([4.0, 5.0, 6.0], [1.0, 2.0, 3.0], method="exact").pvalue  # 2 / C(6, 3) = 0.1
    assert ref == pytest.approx(0.1) and r.p_value == pytest.approx(ref, rel=1e-12) and r.p_method == "exact"
    assert 0.0 < r.ci_low < r.ci_high == 1.0  # never collapses


@pytest.mark.parametrize("m,n", [(3, 3), (4, 9), (8, 8), (5, 50), (12, 30)])
def test_p_value_equals_scipy_exact_without_ties(m, n):
    """Without ties and within the budget the p-value is scipy's exact two-sided one (never smaller)."""
    from scipy.stats import mannwhitneyu

    rng = np.random.default_rng(m * 100 + n)
    for shift in (0.0, 0.8, -1.5, 3.0):
        x, z = rng.normal(shift, 1, m), rng.normal(0, 1, n)
        r = auroc_ci(np.r_[np.ones(m), np.zeros(n)], np.r_[x, z])
        ref = mannwhitneyu(x, z, method="exact").pvalue
        assert r.p_method == "exact" and r.p_value == pytest.approx(ref, rel=1e-9), (shift, r.p_value, ref)
        assert r.p_value >= ref * (1 - 1e-12) and r.p_value > 0


def _brute_tied_p(x, z):
    """Two-sided permutation p-value by enumerating every assignment (mid-ranks, ties kept)."""
    from itertools import combinations

    from scipy.stats import rankdata

    pooled = np.r_[x, z]
    ranks = rankdata(pooled)
    m, mean = x.size, x.size * (pooled.size + 1) / 2
    obs = abs(ranks[:m].sum() - mean)
    sums = np.array([ranks[list(c)].sum() for c in combinations(range(pooled.size), m)])
    return float(np.mean(np.abs(sums - mean) >= obs - 1e-9))


@pytest.mark.parametrize("m,n,seed", [(3, 5, 0), (5, 7, 1), (6, 6, 2), (7, 4, 3)])
def test_tied_p_value_is_the_exact_permutation_p(m, n, seed):
    rng = np.random.default_rng(seed)
    x, z = np.round(rng.normal(0.7, 1, m)), np.round(rng.normal(0, 1, n))
    r = auroc_ci(np.r_[np.ones(m), np.zeros(n)], np.r_[x, z])
    assert r.p_method == "exact_conditional"
    assert r.p_value == pytest.approx(_brute_tied_p(x, z), rel=1e-9)


@pytest.mark.parametrize("m,n,theta", [(5, 50, 0.95), (5, 50, 0.80), (50, 50, 0.90)])
def test_interval_coverage_at_small_counts(m, n, theta):
    """Binormal scores with known AUROC theta: the 95 % interval covers theta in >= 91 % of 300 replicates
    (the benchmark measures >= 0.95 with 2 000; the bound leaves room for the binomial noise of 300)."""
    rng = np.random.default_rng(7)
    d = math.sqrt(2) * norm.ppf(theta)
    y = np.r_[np.ones(m), np.zeros(n)]
    hits = 0
    for _ in range(300):
        r = auroc_ci(y, np.r_[rng.normal(d, 1, m), rng.normal(0, 1, n)])
        hits += r.ci_low <= theta <= r.ci_high
        assert r.ci_high > r.ci_low
    assert hits / 300 >= 0.91
