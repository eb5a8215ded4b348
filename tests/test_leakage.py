"""Neighbourhood class leakage L_k (SPEC §1) against independent computations."""

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.neighbors import NearestNeighbors

from auditad import InvalidInputError
from auditad.leakage import leakage
from _reference import brute_leakage


def test_digits_equals_independent_sklearn_computation():
    X, y = load_digits(return_X_y=True)
    res = leakage(X, y, k=10, backend="exact")
    # independent: scikit-learn's exact neighbours of the fitted set (self excluded)
    _, idx = NearestNeighbors(n_neighbors=10, algorithm="brute").fit(X).kneighbors()
    per = (y[idx] != y[:, None]).mean(axis=1)
    assert res.L_k == pytest.approx(per.mean(), abs=2e-3)  # pixel data has tied distances
    # and exactly equal to a slow loop with index tie-breaking on a subset
    sub = np.random.default_rng(0).choice(len(y), 300, replace=False)
    ref, ref_per = brute_leakage(X[sub], y[sub], 10)
    sres = leakage(X[sub], y[sub], k=10, backend="exact")
    assert sres.L_k == pytest.approx(ref, abs=1e-15)
    np.testing.assert_allclose(sres.per_sample[:, 0], ref_per)


def test_digits_per_class_confusion_and_chance():
    X, y = load_digits(return_X_y=True)
    res = leakage(X, y, k=[10, 1, 5], backend="exact")
    assert res.ks == (10, 1, 5) and res.k == 10
    _, idx = NearestNeighbors(n_neighbors=10, algorithm="brute").fit(X).kneighbors()
    for c in range(10):
        m = y == c
        assert res.per_class_leakage[c] == pytest.approx(res.per_sample[m, 0].mean())
    np.testing.assert_allclose(res.confusion.sum(axis=1), 1.0)
    assert np.allclose(1 - np.diag(res.confusion), res.per_class_leakage)
    n = len(y)
    assert res.chance == pytest.approx(np.mean([(n - np.sum(y == y[i])) / (n - 1) for i in range(n)]))
    # L over k from one search equals separate runs
    for k in (1, 5):
        assert res.leakage_at(k) == pytest.approx(leakage(X, y, k=k, backend="exact").L_k, abs=1e-15)
    frame = res.per_class_frame()
    assert set(frame.columns) == {"class", "k", "n", "leakage", "chance"} and len(frame) == 30


def test_separated_and_mixed_extremes():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(50, 3)), rng.normal(size=(50, 3)) + 100])
    y = np.repeat([0, 1], 50)
    assert leakage(X, y, k=5, backend="exact").L_k == 0.0
    y_alt = np.tile([0, 1], 50)
    X_line = np.arange(100, dtype=float)[:, None]
    # on a line with alternating labels an inner point's two neighbours are of the other class;
    # the two end points have one of each: L_2 = (98 * 1 + 2 * 0.5) / 100
    assert leakage(X_line, y_alt, k=2, backend="exact").L_k == pytest.approx(0.99, abs=1e-15)


def test_single_sample_class_is_allowed_and_fully_leaky():
    X, y = load_digits(return_X_y=True)
    X, y = X[:200], y[:200].astype("<U10")
    y = y.copy()
    y[0] = "lonely"
    res = leakage(X, y, k=5, backend="exact")
    i = list(res.classes).index("lonely")
    assert res.class_sizes[i] == 1 and res.per_class_leakage[i] == 1.0


def test_to_dict_is_json_safe_and_complete():
    import json

    X, y = load_digits(return_X_y=True)
    d = leakage(X[:300], y[:300], k=[10, 3], backend="exact").to_dict()
    json.dumps(d, allow_nan=False)
    assert d["k"] == 10 and set(d["by_k"]) == {"10", "3"} and len(d["per_class"]) == 10
    assert d["L_k"] == d["by_k"]["10"]


@pytest.mark.parametrize("X, y, kw, match", [
    (np.array([[0.0, np.nan], [1, 1], [2, 2]]), [0, 1, 1], {}, "non-finite"),
    (np.array([[0.0, np.inf], [1, 1], [2, 2]]), [0, 1, 1], {}, "non-finite"),
    (np.zeros((4, 2)), [0, 1, 1], {}, "same length"),
    (np.zeros((4, 2)), [1, 1, 1, 1], {}, "at least 2 classes"),
    (np.arange(8.0).reshape(4, 2), [0, 1, 0, 1], {"k": 4}, "smaller than the number of samples"),
    (np.arange(4.0), [0, 1, 0, 1], {"k": 1}, "must be 2-D"),
    (np.zeros((4, 2, 2)), [0, 1, 0, 1], {"k": 1}, "must be 2-D"),
    (np.array([[object()], [1]], dtype=object), [0, 1], {"k": 1}, "numeric array"),
    (np.arange(8.0).reshape(4, 2), [0, 1, 0, 1], {"k": 0}, "k must be >= 1"),
    (np.arange(8.0).reshape(4, 2), [0, 1, 0, 1], {"k": []}, "non-empty"),
])
def test_bad_input(X, y, kw, match):
    with pytest.raises(InvalidInputError, match=match):
        leakage(X, y, backend="exact", **kw)
