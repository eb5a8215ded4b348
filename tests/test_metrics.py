"""Tests of auditad.metrics: expected values from scikit-learn, brute-force oracles and seed 003."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.metrics import roc_auc_score

from auditad.errors import InvalidInputError, UndefinedValueWarning
from auditad.metrics import AurocCIResult, auroc, auroc_ci


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
    r = auroc_ci(y, s, level=0.9)
    auc, se = _brute_delong(y, s)
    assert isinstance(r, AurocCIResult)
    assert r.auroc == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    assert r.auroc == pytest.approx(auc, abs=1e-12)
    assert r.se == pytest.approx(se, rel=1e-10)
    z = norm.ppf(0.95)
    assert r.ci_low == pytest.approx(max(0.0, auc - z * se), abs=1e-12)
    assert r.ci_high == pytest.approx(min(1.0, auc + z * se), abs=1e-12)
    assert r.p_value == pytest.approx(2 * norm.sf(abs(auc - 0.5) / se), rel=1e-9)
    assert (r.n_pos, r.n_neg, r.method) == (int(y.sum()), int((y == 0).sum()), "delong")


def test_auroc_ci_clipped_and_perfect_separation():
    y = np.array([0] * 5 + [1] * 5)
    s = np.arange(10.0)
    r = auroc_ci(y, s)
    assert r.auroc == 1.0 and r.ci_high == 1.0 and r.ci_low == 1.0 and r.p_value == 0.0
    # near-perfect: upper limit must be clipped at 1
    s2 = s.copy()
    s2[4], s2[5] = s2[5], s2[4]
    r2 = auroc_ci(y, s2)
    assert r2.ci_high == 1.0 and r2.ci_low < r2.auroc < 1.0


def test_auroc_ci_constant_scores_warns():
    with pytest.warns(UndefinedValueWarning, match="constant"):
        r = auroc_ci([0, 1, 0, 1], [3.0, 3.0, 3.0, 3.0])
    assert r.auroc == 0.5 and r.p_value == 1.0 and math.isnan(r.ci_low)
    d = r.to_dict()
    assert d["ci_low"] is None and d["auroc"] == 0.5
    assert list(r.to_frame().columns)[:4] == ["auroc", "ci_low", "ci_high", "p_value"]


def test_auroc_ci_bad_level():
    with pytest.raises(InvalidInputError, match="level"):
        auroc_ci([0, 1], [0.0, 1.0], level=1.0)


def test_auroc_ci_null_coverage():
    """Under H0 (random scores) the 95 % DeLong p-value rejects about 5 % of the time."""
    rng = np.random.default_rng(11)
    y = np.r_[np.zeros(60, int), np.ones(40, int)]
    p = np.array([auroc_ci(y, rng.normal(size=100)).p_value for _ in range(400)])
    assert 0.02 < np.mean(p < 0.05) < 0.09
