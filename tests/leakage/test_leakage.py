"""Neighbourhood class leakage L_k against independent computations (scikit-learn, brute-force loops)."""

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.neighbors import NearestNeighbors

from auditad import InvalidInputError
from auditad.leakage import CONFUSION_DENSE_MAX_CLASSES, leakage
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


def test_to_dict_is_json_safe_and_matches_sklearn():
    import json

    X, y = load_digits(return_X_y=True)
    X, y = X[:300], y[:300]
    d = json.loads(json.dumps(leakage(X, y, k=[10, 3], backend="exact").to_dict(), allow_nan=False))
    assert d["k"] == 10 and set(d["by_k"]) == {"10", "3"} and len(d["per_class"]) == 10
    for k in (10, 3):  # independent: scikit-learn's neighbours (pixel ties may reorder a few)
        _, idx = NearestNeighbors(n_neighbors=k, algorithm="brute").fit(X).kneighbors()
        assert d["by_k"][str(k)] == pytest.approx((y[idx] != y[:, None]).mean(), abs=5e-3)
    # the dense confusion (10 classes) is the row-normalised count of neighbour classes, by a plain loop
    _, idx = NearestNeighbors(n_neighbors=10, algorithm="brute").fit(X).kneighbors()
    counts = np.zeros((10, 10))
    for i in range(len(y)):
        for j in idx[i]:
            counts[y[i], y[j]] += 1
    np.testing.assert_allclose(d["confusion"], counts / counts.sum(axis=1, keepdims=True), atol=0.02)


def _confusion_loop(codes, neighbours, K):
    M = np.zeros((K, K))
    for i, row in enumerate(neighbours):
        for j in row:
            M[codes[i], codes[j]] += 1
    return M / M.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("K, per_class, k", [(3, 40, 5), (50, 4, 3), (120, 3, 2), (400, 2, 1)])
def test_sparse_confusion_equals_dense_loop_over_class_counts(K, per_class, k):
    rng = np.random.default_rng(K)
    X = rng.normal(size=(K * per_class, 4))
    y = np.repeat(np.arange(K), per_class)
    res = leakage(X, y, k=k, backend="exact")
    _, idx = NearestNeighbors(n_neighbors=k, algorithm="brute").fit(X).kneighbors()
    oracle = _confusion_loop(y, idx, K)
    assert res.confusion_sparse.shape == (K, K) and res.confusion_sparse.nnz <= K * per_class * k
    np.testing.assert_allclose(res.confusion, oracle, atol=1e-12)
    np.testing.assert_allclose(1 - np.diag(res.confusion), res.per_class_leakage, atol=1e-12)
    top = res.top_confusions(None)
    off = [(oracle[a, b], a, b) for a in range(K) for b in range(K) if a != b and oracle[a, b] > 0]
    assert len(top) == len(off)
    assert top["share"].tolist() == pytest.approx(sorted((v for v, _, _ in off), reverse=True))
    long = res.confusion_frame(long=True)
    assert long["share"].sum() == pytest.approx(K)  # every row sums to 1
    d = res.to_dict()
    if K <= CONFUSION_DENSE_MAX_CLASSES:
        np.testing.assert_allclose(d["confusion"], oracle, atol=1e-12)
        assert res.confusion_frame().shape == (K, K)
    else:
        assert d["confusion"] == [] and len(d["per_class"]) == K
        with pytest.raises(InvalidInputError, match="long=True"):
            res.confusion_frame()


def test_five_thousand_classes_fit_in_a_memory_cap(tmp_path):
    """K = 5 000 classes of 2 samples: leakage and its JSON stay O(n k + K) under a 600 MB address-space cap.

    The dense K x K version (0.1) needed about 1.5 GB here (a 200 MB matrix and 25 M Python floats in to_dict).
    """
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = """
import json, resource, sys
cap = 600 * 2**20
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
import numpy as np
from auditad.leakage import leakage
K = 5000
X = np.random.default_rng(0).normal(size=(2 * K, 8))
y = np.repeat(np.arange(K), 2)
res = leakage(X, y, k=5, backend="exact")
text = json.dumps(res.to_dict(), allow_nan=False)
print(json.dumps({"bytes": len(text), "L_k": res.L_k, "nnz": int(res.confusion_sparse.nnz),
                  "top": res.top_confusions(1)["share"].tolist()}))
"""
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout)
    assert out["bytes"] < 2_000_000  # O(K): about 0.5 MB, not K^2 (125 MB)
    assert out["nnz"] <= 2 * 5000 * 5
    # with 2 samples per class and k = 5, at least 4 of 5 neighbours are of another class
    assert 0.8 <= out["L_k"] <= 1.0 and 0 < out["top"][0] <= 1


@pytest.mark.parametrize(
    "X, y, kw, match",
    [
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
    ],
)
def test_bad_input(X, y, kw, match):
    with pytest.raises(InvalidInputError, match=match):
        leakage(X, y, backend="exact", **kw)
