"""Tests of auditad.selection.scoring: kNN / LDN scores against a brute-force oracle, pooling identities."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from auditad.errors import InvalidInputError
from auditad.selection.scoring import KNNScorer, knn_scores, paper_pooling_grid, parse_pooling, pool_sequences

from _reference import brute_anomaly_scores


def _data(seed=0, n=40, m=15, d=3):
    rng = np.random.default_rng(seed)
    R = rng.normal(size=(n, d)) * rng.uniform(0.2, 3.0, size=(n, 1))  # varying local density
    R[7] = R[8]  # an exact duplicate: distance 0, floored and counted
    Q = rng.normal(size=(m, d)) * 2.0
    Q[0] = R[3]  # a query on top of a reference sample
    return R, Q


CASES = [
    ("knn", "reference", 1, 2),
    ("knn", "reference", 3, 2),
    ("ldn", "query", 1, 2),
    ("ldn", "query", 2, 4),
    ("ldn", "reference", 1, 2),
    ("ldn", "reference", 2, 3),
    ("ldn", "reference", 1, 1),
]


@pytest.mark.parametrize("scoring,form,k,K", CASES)
@pytest.mark.parametrize("block_memory_mb", [64, 0.001])  # 0.001: one query row per block
def test_scores_equal_brute_force_oracle(scoring, form, k, K, block_memory_mb):
    R, Q = _data()
    scorer = KNNScorer(scoring=scoring, ldn_form=form, k=k, K=K, backend="exact", block_memory_mb=block_memory_mb).fit(
        R
    )
    np.testing.assert_allclose(
        scorer.score(Q).scores, brute_anomaly_scores(R, Q, scoring=scoring, form=form, k=k, K=K), atol=1e-12
    )
    loo = scorer.score_reference()
    assert loo.leave_one_out
    np.testing.assert_allclose(
        loo.scores, brute_anomaly_scores(R, None, scoring=scoring, form=form, k=k, K=K), atol=1e-12
    )


@given(seed=st.integers(0, 10_000), n=st.integers(5, 25), k=st.integers(1, 3), K=st.integers(1, 3))
@settings(max_examples=25, deadline=None)
def test_reference_ldn_loo_property(seed, n, k, K):
    """Random sets with ties (integer grid): LOO reference-form LDN equals deleting the sample."""
    rng = np.random.default_rng(seed)
    R = rng.integers(0, 4, size=(n, 2)).astype(float)
    if n < max(k + 1, K + 2):
        with pytest.raises(InvalidInputError, match="needs at least"):
            KNNScorer(scoring="ldn", k=k, K=K, backend="exact").fit(R)
        return
    got = knn_scores(R, scoring="ldn", k=k, K=K, backend="exact").scores
    np.testing.assert_allclose(got, brute_anomaly_scores(R, None, scoring="ldn", k=k, K=K), atol=1e-12)


@pytest.mark.parametrize("offset", [0.0, 1e6])
def test_reference_ldn_near_ties_far_from_origin(offset):
    """Many near-equal ratios far from the origin: the certified block computation still matches."""
    rng = np.random.default_rng(5)
    R = offset + rng.integers(0, 3, size=(30, 4)) + 1e-7 * rng.normal(size=(30, 4))
    Q = offset + rng.integers(0, 3, size=(10, 4)).astype(float)
    for queries in (Q, None):
        got = knn_scores(R, queries, scoring="ldn", backend="exact").scores
        np.testing.assert_allclose(got, brute_anomaly_scores(R, queries, scoring="ldn"), atol=1e-9)


def test_zero_distances_are_floored_and_counted():
    R = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [5.0, 5.0]])
    res = knn_scores(R, backend="exact")
    assert res.n_floored == 2  # rows 0 and 1 are duplicates of each other
    assert res.scores[0] == pytest.approx(np.log(1e-12))
    res = knn_scores(R, np.array([[1.0, 0.0], [2.0, 0.0]]), backend="exact", eps=1e-6)
    assert res.n_floored == 1 and res.scores[0] == pytest.approx(np.log(1e-6)) and res.eps == 1e-6


def test_cosine_metric_matches_manual():
    rng = np.random.default_rng(3)
    R, Q = rng.normal(size=(20, 4)), rng.normal(size=(5, 4))
    res = knn_scores(R, Q, metric="cosine", backend="exact")
    Rn = R / np.linalg.norm(R, axis=1, keepdims=True)
    Qn = Q / np.linalg.norm(Q, axis=1, keepdims=True)
    D = 1 - Qn @ Rn.T
    np.testing.assert_allclose(res.scores, np.log(D.min(axis=1)), atol=1e-10)
    DR = 1 - Rn @ Rn.T
    np.fill_diagonal(DR, np.inf)
    rho = np.sort(DR, axis=1)[:, :2].mean(axis=1)
    ldn = knn_scores(R, Q, scoring="ldn", metric="cosine", backend="exact")
    np.testing.assert_allclose(ldn.scores, np.log((D / rho).min(axis=1)), atol=1e-10)


def test_reference_ldn_far_reference_with_large_scale_wins():
    """min_r d(x, r)/rho(r) is not attained at the nearest reference: a far, sparse reference can win."""
    R = np.array([[0.0], [0.1], [0.2], [10.0], [14.0], [18.0]])  # a dense and a sparse cluster
    x = np.array([[5.0]])
    # K = 2: nearest reference 0.2 has rho (0.1 + 0.2)/2 = 0.15 -> 4.8/0.15 = 32;
    # reference 10 has rho (4 + 8)/2 = 6 -> 5/6; reference 14: rho 4 -> 9/4
    assert knn_scores(R, x, scoring="ldn", backend="exact").scores[0] == pytest.approx(np.log(5.0 / 6.0))


def test_result_dict_and_frame():
    R, Q = _data()
    res = knn_scores(R, Q, scoring="ldn", backend="exact")
    d = res.to_dict()
    assert d["scoring"] == "ldn" and d["ldn_form"] == "reference" and len(d["scores"]) == Q.shape[0]
    assert list(res.to_frame().columns[:2]) == ["index", "score"]


@pytest.mark.parametrize(
    "bad,match",
    [
        (np.zeros((1, 3)), "at least 2 samples"),
        (np.array([[0.0, np.nan], [1.0, 1.0]]), "NaN"),
    ],
)
def test_bad_reference(bad, match):
    with pytest.raises(InvalidInputError, match=match):
        KNNScorer(backend="exact").fit(bad)


def test_bad_queries_and_settings():
    R, _ = _data()
    scorer = KNNScorer(backend="exact").fit(R)
    with pytest.raises(InvalidInputError, match="5 dimensions but the reference has 3"):
        scorer.score(np.zeros((2, 5)))
    with pytest.raises(InvalidInputError, match="not fitted"):
        KNNScorer().score(R)
    with pytest.raises(InvalidInputError, match="scoring"):
        KNNScorer(scoring="lof")
    with pytest.raises(InvalidInputError, match="needs at least 4"):
        KNNScorer(scoring="ldn", K=2, backend="exact").fit(R[:3])


# --------------------------------------------------------------------------- pooling
seqs = arrays(
    np.float64,
    st.tuples(st.integers(1, 4), st.integers(1, 6), st.integers(1, 4)),
    elements=st.floats(-50, 50, allow_nan=False),
)


@given(S=seqs)
@settings(max_examples=60, deadline=None)
def test_rdp_gamma0_is_mean_and_gem1_is_mean_of_positive_parts(S):
    np.testing.assert_allclose(pool_sequences(S, method="rdp", gamma=0.0), S.mean(axis=1), atol=1e-9)
    np.testing.assert_allclose(pool_sequences(S, method="gem:1"), np.maximum(S, 0).mean(axis=1), atol=1e-9)
    np.testing.assert_array_equal(pool_sequences(S, method="max"), S.max(axis=1))


def test_rdp_weights_by_hand():
    # frames 0, 0, 3 (d=1): mean 1, deviations 1, 1, 2 -> dhat .5, .5, 1; gamma=1 weights 1.5, 1.5, 2 (/5)
    S = np.array([[[0.0], [0.0], [3.0]]])
    assert pool_sequences(S, method="rdp:1")[0, 0] == pytest.approx(2.0 * 3.0 / 5.0)
    # constant sequence: uniform weights
    assert pool_sequences(np.ones((1, 4, 2)), method="rdp:5").tolist() == [[1.0, 1.0]]


def test_gem_large_p_approaches_max_without_overflow():
    rng = np.random.default_rng(0)
    S = rng.uniform(0, 1e200, size=(3, 5, 2))
    g = pool_sequences(S, method="gem:25")
    assert np.all(np.isfinite(g)) and np.all(g <= S.max(axis=1) * (1 + 1e-12))
    np.testing.assert_allclose(g, (np.mean((S / 1e200) ** 25, axis=1) ** (1 / 25)) * 1e200, rtol=1e-10)


def test_parse_pooling_and_grid():
    assert parse_pooling("GeM:2.5") == ("gem", 2.5)
    assert parse_pooling("rdp") == ("rdp", 1.0)
    grid = paper_pooling_grid()
    assert len(grid) == 52 and grid[:3] == ["mean", "max", "gem:1"] and grid[-1] == "rdp:25"
    for bad, match in [
        ("median", "pooling"),
        ("gem:0", "p"),
        ("rdp:-1", "gamma"),
        ("mean:2", "no parameter"),
        ("gem:x", "number"),
        (3, "string"),
    ]:
        with pytest.raises(InvalidInputError, match=match):
            parse_pooling(bad)
    with pytest.raises(InvalidInputError, match="3-D"):
        pool_sequences(np.zeros((3, 4)))


# --------------------------------------------------------------------------- approximate backend
def test_approximate_backend_agrees_with_exact_search():
    """backend="approximate" (pynndescent) against the exact search on 600 x 8 data, with recall measured.

    A kNN score from approximate neighbours can only be too large (its k-th distance is a distance to a
    real reference point), never too small; leave-one-out searches (NN-descent's own graph) are nearly exact,
    queries less so. Tolerances: recall >= 0.95 (leave-one-out) / 0.7 (queries), AUROC within 0.03.
    """
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(0)
    R = rng.normal(size=(600, 8))
    Q = np.r_[rng.normal(size=(150, 8)), rng.normal(1.5, 1.0, size=(50, 8))]
    y = np.r_[np.zeros(150), np.ones(50)]
    for scoring, form, k in [
        ("knn", "reference", 1),
        ("knn", "reference", 5),
        ("ldn", "query", 5),
        ("ldn", "reference", 1),
    ]:
        kw = dict(scoring=scoring, ldn_form=form, k=k)
        approx = knn_scores(R, Q, backend="approximate", recall_sample=100, random_state=0, **kw)
        exact = knn_scores(R, Q, backend="exact", **kw)
        loo_a = knn_scores(R, None, backend="approximate", recall_sample=100, random_state=0, **kw)
        loo_e = knn_scores(R, None, backend="exact", **kw)
        assert approx.backend == "approximate" and approx.n_recall_queries == 100
        assert loo_a.recall >= 0.95 and np.mean(np.abs(loo_a.scores - loo_e.scores) < 1e-9) >= 0.95
        if scoring == "knn":
            assert np.all(approx.scores >= exact.scores - 1e-12)
            assert np.all(loo_a.scores >= loo_e.scores - 1e-12)
        if form == "reference" and scoring == "ldn":  # exact ratio search, approximate scales only
            assert np.mean(np.abs(approx.scores - exact.scores) < 1e-9) >= 0.95
        else:
            assert approx.recall >= 0.7 and np.mean(np.abs(approx.scores - exact.scores) < 1e-9) >= 0.6
        assert abs(roc_auc_score(y, approx.scores) - roc_auc_score(y, exact.scores)) <= 0.03
        assert exact.recall is None and exact.n_recall_queries == 0
