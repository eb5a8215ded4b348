"""Tests of auditad.selection.bounds: the Cantelli bounds (Eq. 1, App. A.1 of Wilkinghoff & Tan), NPD, Eqs. 4–6, LID."""

import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from auditad.selection.bounds import (
    auc_bound,
    bound_from_moments,
    domain_moments,
    local_intrinsic_dimension,
    npd_from_moments,
)
from auditad.errors import InvalidInputError, UndefinedValueWarning

from _reference import brute_lid

samples = st.lists(st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False), min_size=1, max_size=30)


@given(z_in=samples, z_out=samples)
@settings(max_examples=150, deadline=None)
def test_empirical_auc_is_at_least_the_bound(z_in, z_out):
    """Cantelli on the product of the two empirical distributions, population moments."""
    r = auc_bound(z_in, z_out)
    assume(r.mu_delta > 0)
    assert r.empirical_auc >= r.bound - 1e-9
    assert r.robust_bound <= r.bound + 1e-12
    assert 0.0 <= r.robust_bound <= r.bound <= 1.0
    if len(set(z_in)) > 1 or len(set(z_out)) > 1:
        y = np.r_[np.zeros(len(z_in)), np.ones(len(z_out))]
        assert r.empirical_auc == pytest.approx(roc_auc_score(y, np.r_[z_in, z_out]))


def test_bound_by_hand():
    # z_in = {0, 2}: mean 1, var 1; z_out = {3, 5}: mean 4, var 1; mu = 3
    r = auc_bound([0.0, 2.0], [3.0, 5.0])
    assert (r.mu_delta, r.var_in, r.var_out) == (3.0, 1.0, 1.0)
    assert r.bound == pytest.approx(9 / 11)
    assert r.robust_bound == pytest.approx(9 / 13)
    assert r.npd == pytest.approx(9 / 4)
    assert r.empirical_auc == 1.0 and r.mu_delta_sign == 1
    # the sign is reported; the bound only depends on mu^2
    s = auc_bound([3.0, 5.0], [0.0, 2.0])
    assert s.mu_delta_sign == -1 and s.bound == pytest.approx(r.bound)


def test_conventions_at_zero():
    assert bound_from_moments(0.0, 0.0, 0.0) == 0.0
    assert bound_from_moments(1.0, 0.0, 0.0) == 1.0
    assert npd_from_moments(0.0, 0.0, 0.0) == 0.0
    assert npd_from_moments(2.0, 0.0, 0.0) == np.inf
    assert npd_from_moments(2.0, 0.0, 0.0, eps=1.0) == 4.0
    with pytest.raises(InvalidInputError, match="var_in"):
        bound_from_moments(1.0, -1.0, 0.0)


def _exact_bounds(z_in, z_out, eps=0):
    """Bound, robust bound's square-free parts and NPD in exact rational arithmetic (fractions.Fraction)."""
    from fractions import Fraction

    zi = [Fraction(float(v)) for v in z_in]
    zo = [Fraction(float(v)) for v in z_out]
    mi, mo = sum(zi) / len(zi), sum(zo) / len(zo)
    vi = sum((v - mi) ** 2 for v in zi) / len(zi)
    vo = sum((v - mo) ** 2 for v in zo) / len(zo)
    mu2 = (mo - mi) ** 2
    return float(mu2 / (vi + vo + mu2)), float(mu2 / (2 * (vi + vo) + Fraction(eps))), (mo - mi, vi, vo)


@pytest.mark.parametrize("exponent", [-300, -250, -160, -120, -50, 0, 50, 120, 154, 155, 200, 250, 300])
def test_bound_at_extreme_score_magnitudes_against_exact_arithmetic(exponent):
    """Scores near the float64 limits (|z| >= 1.3e154 squares to infinity): rescaled, not an error on var_in."""
    rng = np.random.default_rng(abs(exponent))
    base_in, base_out = rng.normal(size=40), rng.normal(1.0, 1.5, size=30)
    z_in, z_out = base_in * 10.0**exponent, base_out * 10.0**exponent
    want_bound, want_npd, (mu, vi, vo) = _exact_bounds(z_in, z_out, eps=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow / invalid-value warning
        r = auc_bound(z_in, z_out)
        r_eps = auc_bound(z_in, z_out, npd_eps=1e-3)
    assert r.bound == pytest.approx(want_bound, rel=1e-12)
    assert r.npd == pytest.approx(want_npd, rel=1e-12)
    assert r_eps.npd == pytest.approx(_exact_bounds(z_in, z_out, eps=1e-3)[1], rel=1e-12)
    assert 0 < r.robust_bound <= r.bound
    assert r.mu_delta == pytest.approx(float(mu), rel=1e-12)
    # the variances themselves exceed float64 above about 1e154: reported as inf, the bound stays exact
    from fractions import Fraction

    for got, exact in ((r.var_in, vi), (r.var_out, vo)):
        if exact < Fraction(float(np.finfo(np.float64).max)):
            assert got == pytest.approx(float(exact), rel=1e-12)
        else:
            assert got == np.inf
    assert r.empirical_auc == pytest.approx(roc_auc_score(np.r_[np.zeros(40), np.ones(30)], np.r_[z_in, z_out]))


@pytest.mark.parametrize("exponent", [-160, 0, 155, 300])
def test_bound_from_moments_is_scale_invariant(exponent):
    mu, vi, vo = 1.5, 0.7, 1.3
    s = 10.0**exponent
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = (
            bound_from_moments(mu * s, vi * s * s, vo * s * s)
            if abs(exponent) < 154
            else bound_from_moments(mu * s, 0.0, 0.0)
        )
    if abs(exponent) < 154:
        assert got == pytest.approx(mu**2 / (vi + vo + mu**2), rel=1e-12)
        assert npd_from_moments(mu * s, vi * s * s, vo * s * s) == pytest.approx(mu**2 / (2 * (vi + vo)), rel=1e-12)
    else:
        assert got == 1.0


def test_domain_weighted_bound_at_large_magnitudes():
    z_in = np.array([0.0, 1.0, 2.0, 4.0, 5.0])
    dom = ["s", "s", "t", "t", "t"]
    z_out = np.array([6.0, 8.0])
    small = auc_bound(z_in, z_out, domain_in=dom, lam=0.5)
    big = auc_bound(z_in * 1e200, z_out * 1e200, domain_in=dom, lam=0.5)
    assert big.bound == pytest.approx(small.bound, rel=1e-12)
    assert big.domain_in.means == pytest.approx(small.domain_in.means * 1e200, rel=1e-12)
    assert np.isinf(big.var_in) and big.mean_in == pytest.approx(small.mean_in * 1e200, rel=1e-12)


def test_npd_orders_candidates_exactly_like_the_bound():
    rng = np.random.default_rng(0)
    mu = rng.normal(size=500)
    vi, vo = rng.gamma(1.0, size=500), rng.gamma(1.0, size=500)
    b = bound_from_moments(mu, vi, vo)
    n = npd_from_moments(mu, vi, vo)
    np.testing.assert_allclose(b, 2 * n / (1 + 2 * n), rtol=1e-12)
    np.testing.assert_array_equal(np.argsort(b, kind="stable"), np.argsort(n, kind="stable"))


def test_domain_decomposition_eq4_by_hand():
    z = np.array([0.0, 2.0, 0.0, 2.0, 10.0, 12.0])
    dom = np.array(["S", "S", "S", "S", "T", "T"])
    emp = domain_moments(z, dom)
    assert emp.variance == pytest.approx(z.var()) and emp.mean == pytest.approx(z.mean())
    half = domain_moments(z, dom, lam=0.5)
    # 0.5*1 + 0.5*1 + 0.25*(1 - 11)^2 = 26
    assert half.variance == pytest.approx(26.0) and half.between == pytest.approx(25.0)
    assert half.mean == pytest.approx(6.0) and half.domains == ("S", "T") and half.lam == 0.5
    t_first = domain_moments(z, dom, lam=0.9, source="T")
    assert t_first.domains == ("T", "S") and t_first.mean == pytest.approx(0.9 * 11 + 0.1 * 1)
    given_w = domain_moments(z, dom, lam={"S": 0.25, "T": 0.75})
    assert given_w.mean == pytest.approx(0.25 * 1 + 0.75 * 11)
    with pytest.raises(InvalidInputError, match="two domains"):
        domain_moments(z, np.array(list("SSTTUU")), lam=0.5)
    with pytest.raises(InvalidInputError, match="sum to 1"):
        domain_moments(z, dom, lam={"S": 0.5, "T": 0.6})


def test_auc_bound_with_domain_weights_eq6():
    z_in = np.array([0.0, 0.0, 0.0, 4.0])
    d_in = np.array(["S", "S", "S", "T"])
    z_out = np.array([1.0, 7.0])
    d_out = np.array(["S", "T"])
    r = auc_bound(z_in, z_out, domain_in=d_in, domain_out=d_out, lam=0.5)
    # Eq. 6: 0.5*(1 - 0) + 0.5*(7 - 4) = 2
    assert r.mu_delta == pytest.approx(2.0)
    assert r.var_in == pytest.approx(0.25 * 16) and r.var_out == pytest.approx(0.25 * 36)
    assert r.weighting == "lambda" and r.domain_out.counts.tolist() == [1, 1]
    # empirical weights with pooled outliers: mu = E[out] - (0.75*0 + 0.25*4)
    r = auc_bound(z_in, z_out, domain_in=d_in, lam="empirical")
    assert r.mu_delta == pytest.approx(4.0 - 1.0) and r.var_in == pytest.approx(z_in.var())
    with pytest.raises(InvalidInputError, match="needs domain_in"):
        auc_bound(z_in, z_out, lam=0.5)
    with pytest.raises(InvalidInputError, match="no score in domain"):
        auc_bound(z_in, z_out, domain_in=d_in, domain_out=np.array(["S", "S"]), lam=0.5)
    assert set(r.to_dict()) >= {"bound", "robust_bound", "npd", "domain_in"}


def test_lid_matches_brute_force_and_recovers_dimension():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    res = local_intrinsic_dimension(X, k=6, backend="exact")
    np.testing.assert_allclose(res.local, brute_lid(X, 6), rtol=1e-10)
    assert res.aggregate == pytest.approx(1.0 / np.mean(1.0 / brute_lid(X, 6)))
    # a 2-D plane embedded in 6-D
    P = rng.uniform(size=(1500, 2)) @ rng.normal(size=(2, 6))
    assert 1.7 < local_intrinsic_dimension(P, k=20, backend="exact").aggregate < 2.3
    assert res.q05 <= res.median <= res.q95 and res.std > 0


def test_lid_duplicates_are_undefined():
    X = np.random.default_rng(1).normal(size=(30, 2))
    X[1] = X[0]
    with pytest.warns(UndefinedValueWarning, match="duplicate"):
        res = local_intrinsic_dimension(X, k=5, backend="exact")
    assert np.isnan(res.local[[0, 1]]).all() and res.n_undefined == 2
    assert np.isfinite(res.aggregate)
    with pytest.raises(InvalidInputError, match="k must be >= 2"):
        local_intrinsic_dimension(X, k=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert local_intrinsic_dimension(X[1:], k=5, backend="exact").n_undefined == 0


@pytest.mark.slow  # 85 s: the first pynndescent call compiles with numba
def test_lid_approximate_backend_agrees_with_exact():
    """LID from pynndescent's neighbour graph against exact search: recall and estimates within tolerance."""
    rng = np.random.default_rng(4)
    X = np.c_[rng.uniform(size=(800, 3)), np.zeros((800, 5))] @ rng.normal(size=(8, 8))
    exact = local_intrinsic_dimension(X, k=15, backend="exact")
    approx = local_intrinsic_dimension(X, k=15, backend="approximate", recall_sample=200, random_state=0)
    assert approx.backend == "approximate" and approx.recall >= 0.95 and approx.n_recall_queries == 200
    assert np.mean(np.abs(approx.local - exact.local) <= 1e-9 * exact.local) >= 0.9
    assert approx.aggregate == pytest.approx(exact.aggregate, rel=0.02)
    assert exact.recall is None
