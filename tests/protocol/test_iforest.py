"""Isolation Forest with each tree grown on its own subsample (auditad.protocol.iforest).

F. T. Liu, K. M. Ting, Z.-H. Zhou, "Isolation Forest", ICDM 2008: the model is scikit-learn's
``IsolationForest(max_samples=256)``; here every tree is fitted on its ψ drawn rows only.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from scipy.stats import spearmanr
from sklearn.datasets import load_digits, make_blobs
from sklearn.ensemble import IsolationForest
from sklearn.metrics import roc_auc_score
from sklearn.tree import ExtraTreeRegressor

from auditad.errors import InvalidInputError
from auditad.protocol import IsolationForestDetector, audit_protocol
from auditad.protocol.iforest import (
    RowSelection,
    average_path_length,
    fit_isolation_trees,
    node_depths,
    resolve_max_samples,
)


def _data_sets():
    """(name, training rows, query rows): held-out normals of the same law and 20 % wider outliers."""
    rng = np.random.default_rng(0)
    blobs, _ = make_blobs(n_samples=1000, n_features=8, centers=4, random_state=0)
    cube = rng.uniform(size=(1000, 5))
    digits = load_digits().data
    out = []
    for name, X in (("blobs", blobs), ("cube", cube), ("digits", digits)):
        X = X[rng.permutation(X.shape[0])]
        train, held = X[:-300], X[-300:]
        lo, hi = train.min(0), train.max(0)
        wide = rng.uniform(lo - 0.25 * (hi - lo), hi + 0.25 * (hi - lo), size=(75, X.shape[1]))
        out.append((name, train, np.vstack([held, wide])))
    return out


DATA = _data_sets()


def _sklearn(train, query, T, seed, **kw):
    """scikit-learn's scores negated (higher = more anomalous)."""
    return -IsolationForest(n_estimators=T, random_state=seed, **kw).fit(train).score_samples(query)


# --------------------------------------------------------------------------- the same model as scikit-learn's
@pytest.mark.parametrize("name, train, query", DATA, ids=[d[0] for d in DATA])
def test_rank_correlation_with_sklearn_at_other_seeds(name, train, query):
    # different seeds on both sides: the agreement is that of the model, not of shared random numbers
    # enough trees on both sides (1000) that the seed noise leaves ρ ≈ 0.993 between two scikit-learn forests
    ours = IsolationForestDetector(n_estimators=1000, random_state=101).fit(train).score_samples(query)
    rho = spearmanr(ours, _sklearn(train, query, 1000, 1))[0]
    assert rho >= 0.99, (name, rho)


def test_auroc_within_sklearn_seed_spread():
    # normals N(0, I) in 10-d, anomalies N(0, 1.4² I): the mean AUROC over seeds (≈ 0.84) is scikit-learn's
    # within the spread of scikit-learn's own AUROCs over seeds
    rng = np.random.default_rng(3)
    train = rng.normal(size=(1000, 10))
    test = np.vstack([rng.normal(size=(400, 10)), 1.4 * rng.normal(size=(100, 10))])
    labels = np.r_[np.zeros(400), np.ones(100)]
    seeds = range(5)
    ours = [
        roc_auc_score(
            labels, IsolationForestDetector(n_estimators=100, random_state=50 + s).fit(train).score_samples(test)
        )
        for s in seeds
    ]
    theirs = [roc_auc_score(labels, _sklearn(train, test, 100, s)) for s in seeds]
    spread = max(theirs) - min(theirs)
    assert 0 < spread < 0.05 and min(theirs) > 0.75
    assert abs(np.mean(ours) - np.mean(theirs)) <= spread, (ours, theirs)


@pytest.mark.parametrize(
    "n, d, T, max_samples, dtype",
    [
        (200, 3, 20, "auto", np.float64),  # n < 256: ψ = n
        (3000, 16, 20, "auto", np.float32),  # ψ = 256, a permutation draws the rows
        (30000, 4, 10, "auto", np.float64),  # ψ/n < 1 %: the draw-and-redraw selection (vectorised here)
        (1000, 8, 15, 64, np.float32),
        (500, 5, 15, 0.3, np.float64),
    ],
)
def test_same_trees_and_bits_as_sklearn_for_the_same_seed(n, d, T, max_samples, dtype):
    # the draws follow scikit-learn's, so its estimator with the same int seed is this very forest
    rng = np.random.default_rng(n)
    train = (rng.normal(size=(n, d)) * 100).astype(dtype)
    query = (rng.normal(size=(400, d)) * 150).astype(dtype)
    det = IsolationForestDetector(n_estimators=T, max_samples=max_samples, random_state=7).fit(train)
    ref = IsolationForest(n_estimators=T, max_samples=max_samples, random_state=7).fit(train)
    for ours, theirs in zip(det.estimators_, ref.estimators_):
        np.testing.assert_array_equal(ours.tree_.feature, theirs.tree_.feature)
        np.testing.assert_array_equal(ours.tree_.threshold, theirs.tree_.threshold)
        np.testing.assert_array_equal(ours.tree_.n_node_samples, theirs.tree_.n_node_samples)
    np.testing.assert_array_equal(det.score_samples(query), -ref.score_samples(query))


# --------------------------------------------------------------------------- each tree sees only its ψ rows
def test_each_tree_is_fitted_on_exactly_psi_rows(monkeypatch):
    seen = []
    fit = ExtraTreeRegressor.fit
    monkeypatch.setattr(
        ExtraTreeRegressor,
        "fit",
        lambda self, X, y, *a, **kw: (seen.append((X.shape[0], y.shape[0])), fit(self, X, y, *a, **kw))[1],
    )
    X = np.random.default_rng(1).normal(size=(5000, 6))
    det = IsolationForestDetector(n_estimators=30, random_state=0).fit(X)
    assert det.max_samples_ == 256 and seen == [(256, 256)] * 30
    assert [t.tree_.n_node_samples[0] for t in det.estimators_] == [256] * 30
    assert all(t.get_depth() <= 8 for t in det.estimators_)


def test_the_protocol_gathers_only_the_drawn_rows(monkeypatch):
    X = np.random.default_rng(2).normal(size=(20000, 5))
    rows = np.arange(0, 20000, 2)
    det = IsolationForestDetector(n_estimators=25, random_state=3)
    sel = det.take_rows(X, rows)
    assert isinstance(sel, RowSelection) and sel.shape == (10000, 5)
    taken = []
    take = RowSelection.take
    monkeypatch.setattr(RowSelection, "take", lambda self, p: (taken.append(len(p)), take(self, p))[1])
    det.fit(sel)
    assert taken == [256] * 25
    # the lazy rows give the forest and the scores of the gathered array
    query = det.take_rows(X, np.arange(1, 3000, 2))
    lazy = det.score_samples(query)
    eager = IsolationForestDetector(n_estimators=25, random_state=3).fit(X[rows]).score_samples(X[1:3000:2])
    np.testing.assert_array_equal(lazy, eager)
    np.testing.assert_array_equal(np.asarray(query), X[1:3000:2].astype(np.float32))


def test_small_training_sets_use_every_row():
    X = np.random.default_rng(4).normal(size=(100, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # ψ = n without scikit-learn's warning
        for max_samples in ("auto", 256, 1.0):
            det = IsolationForestDetector(n_estimators=10, max_samples=max_samples, random_state=0).fit(X)
            assert det.max_samples_ == 100
            assert {t.tree_.n_node_samples[0] for t in det.estimators_} == {100}
    one = IsolationForestDetector(n_estimators=5, random_state=0).fit(X[:1]).score_samples(X[:4])
    np.testing.assert_array_equal(one, 0.5)  # c(1) = 0: every score is ½, as scikit-learn's
    np.testing.assert_array_equal(one, _sklearn(X[:1], X[:4], 5, 0))


# --------------------------------------------------------------------------- reproducibility
def test_same_seed_same_scores_other_seed_other_scores():
    X = np.random.default_rng(5).normal(size=(2000, 4))
    q = X[:300] * 1.3

    def scores(rs):
        return IsolationForestDetector(n_estimators=40, random_state=rs).fit(X).score_samples(q)

    np.testing.assert_array_equal(scores(11), scores(11))
    assert not np.array_equal(scores(11), scores(12))
    np.testing.assert_array_equal(scores(np.random.default_rng(9)), scores(np.random.default_rng(9)))
    det = IsolationForestDetector(n_estimators=40, random_state=11).fit(X)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(det)).score_samples(q), scores(11))
    assert det.fresh(4).random_state == 4 and det.fresh(None).random_state == 11


def test_the_protocol_audit_is_reproducible():
    rng = np.random.default_rng(6)
    X = np.vstack([rng.normal(loc=c, size=(80, 3)) for c in (0.0, 0.5, 6.0)])
    y = np.repeat([0, 1, 2], 80)
    kw = {"detectors": [IsolationForestDetector(n_estimators=20)], "leakage_k": 0, "random_state": 4}
    a, b = audit_protocol(X, y, **kw), audit_protocol(X, y, **kw)
    np.testing.assert_array_equal(a.auroc, b.auroc)
    assert a.auroc.ravel()[2] > 0.9  # the far class is found


# --------------------------------------------------------------------------- pieces and errors
def test_average_path_length_and_node_depths():
    m = np.array([0, 1, 2, 3, 10, 256])
    np.testing.assert_allclose(
        average_path_length(m)[3:], 2 * (np.log(m[3:] - 1.0) + np.euler_gamma) - 2 * (m[3:] - 1) / m[3:], rtol=1e-15
    )
    harmonic = sum(1.0 / i for i in range(1, 256))  # H(ψ - 1) of Liu et al., approximated by ln + γ
    assert abs(average_path_length(256) - (2 * harmonic - 2 * 255 / 256)) < 0.005
    assert average_path_length(m)[:3].tolist() == [0.0, 0.0, 1.0]
    assert average_path_length(256).shape == ()

    tree = IsolationForestDetector(n_estimators=1, random_state=0).fit(np.random.default_rng(0).normal(size=(300, 2)))
    t = tree.estimators_[0].tree_

    class Bare:  # a tree without compute_node_depths (scikit-learn < 1.3)
        children_left, children_right, node_count = t.children_left, t.children_right, t.node_count

    np.testing.assert_array_equal(node_depths(Bare()), node_depths(t))
    assert node_depths(t)[0] == 1


@pytest.mark.parametrize("max_samples", [0, -3, 0.0, 1.5, "all", True, None])
def test_bad_max_samples_are_refused(max_samples):
    with pytest.raises(InvalidInputError, match="max_samples"):
        resolve_max_samples(max_samples, 100)
    with pytest.raises(InvalidInputError, match="max_samples"):
        IsolationForestDetector(max_samples=max_samples).fit(np.zeros((100, 2)))


def test_bad_inputs_are_refused():
    X = np.random.default_rng(7).normal(size=(400, 3))
    with pytest.raises(InvalidInputError, match="random_state"):
        IsolationForestDetector(random_state=-1).fit(X)
    with pytest.raises(InvalidInputError, match="random_state"):
        IsolationForestDetector(random_state="seven").fit(X)
    with pytest.raises(InvalidInputError, match="n_estimators"):
        IsolationForestDetector(n_estimators=0).fit(X)
    with pytest.raises(InvalidInputError, match="max_samples"):
        fit_isolation_trees(X, 5, 0.001, 0)  # ⌊0.001·400⌋ = 0 rows per tree
    bad = X.copy()
    bad[7, 1] = np.nan
    with pytest.raises(InvalidInputError):
        IsolationForestDetector(n_estimators=5).fit(bad)
    with pytest.raises(InvalidInputError, match="NaN"):  # a selection is checked on the rows the trees read
        IsolationForestDetector(n_estimators=5, max_samples=1.0).fit(RowSelection(bad, np.arange(400)))
    det = IsolationForestDetector(n_estimators=5, random_state=0).fit(X)
    with pytest.raises(InvalidInputError, match="NaN"):
        det.score_samples(RowSelection(bad, np.arange(10)))
    with pytest.raises(InvalidInputError, match="features"):
        det.score_samples(np.zeros((3, 4)))
