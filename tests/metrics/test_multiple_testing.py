"""Holm and Benjamini-Hochberg, one implementation each, against brute-force oracles written from the papers."""

import itertools

import numpy as np
import pytest

from auditad.errors import InvalidInputError
from auditad.metrics.multiple_testing import bh_adjust, holm_adjust

#: A level exactly at a boundary rejects: a relative slack for the rounding of alpha / (m - i + 1) and i q / m.
_SLACK = 1 + 1e-12


def _holm_rejects(p, alpha):
    """Holm (1979): step down, reject H_(i) while p_(i) <= alpha / (m - i + 1) (i from 1)."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    out = [False] * len(p)
    for rank, i in enumerate(order):
        if p[i] > alpha / (len(p) - rank) * _SLACK:
            break
        out[i] = True
    return out


def _bh_rejects(p, q):
    """Benjamini-Hochberg (1995): k = the largest i with p_(i) <= i q / m; reject H_(1..k)."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    k = max((r + 1 for r, i in enumerate(order) if p[i] <= (r + 1) * q / m * _SLACK), default=0)
    out = [False] * m
    for i in order[:k]:
        out[i] = True
    return out


def _adjusted_by_search(p, rejects):
    """The adjusted p-value of each hypothesis: the smallest level (over the candidate levels) that rejects it."""
    m = len(p)
    levels = sorted({min(1.0, x * c) for x in p for c in [m / j for j in range(1, m + 1)] + list(range(1, m + 1))})
    out = []
    for i in range(m):
        out.append(next((a for a in levels if rejects(p, a)[i]), 1.0))
    return np.array(out)


@pytest.mark.parametrize("adjust, rejects", [(holm_adjust, _holm_rejects), (bh_adjust, _bh_rejects)])
@pytest.mark.parametrize("seed", range(6))
def test_adjusted_p_values_are_the_smallest_rejecting_levels(adjust, rejects, seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 9))
    p = rng.uniform(0, 0.3, m).round(3).tolist()  # rounding makes ties
    np.testing.assert_allclose(adjust(p), _adjusted_by_search(p, rejects), rtol=1e-12, atol=1e-15)
    for alpha in (0.01, 0.05, 0.1):
        assert (adjust(p) <= alpha + 1e-12).tolist() == rejects(p, alpha)


@pytest.mark.parametrize("adjust", [holm_adjust, bh_adjust])
def test_nan_is_skipped_and_does_not_count(adjust):
    p = [0.01, np.nan, 0.04, 0.03, np.nan]
    out = adjust(p)
    assert np.isnan(out[[1, 4]]).all()
    np.testing.assert_array_equal(out[[0, 2, 3]], adjust([0.01, 0.04, 0.03]))
    assert np.isnan(adjust([np.nan, np.nan])).all() and adjust([]).shape == (0,)


@pytest.mark.parametrize("adjust", [holm_adjust, bh_adjust])
@pytest.mark.parametrize("bad", [[-0.1, 0.2], [0.2, 1.5], [0.2, np.inf]])
def test_p_values_outside_the_unit_interval_are_refused(adjust, bad):
    with pytest.raises(InvalidInputError, match="p_values must lie in"):
        adjust(bad)


def test_the_former_homes_give_the_one_implementation():
    from auditad.leaderboards import holm_adjust as from_leaderboards
    from auditad.protocol.rates import holm_adjust as from_protocol

    assert from_leaderboards is holm_adjust is from_protocol


def test_permutation_invariance_and_bounds():
    p = [0.001, 0.2, 0.05, 0.05, 0.9]
    for perm in itertools.permutations(range(5)):
        q = [p[i] for i in perm]
        for adjust in (holm_adjust, bh_adjust):
            np.testing.assert_array_equal(adjust(q), adjust(p)[list(perm)])
    assert (bh_adjust(p) <= holm_adjust(p)).all() and (holm_adjust(p) <= 1).all() and (bh_adjust(p) >= p).all()
