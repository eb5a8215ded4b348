"""Exact and near duplicates, conflicting labels and train/test overlap against independent oracles.

Oracles: ``np.unique(X, axis=0)`` (a sort of the rows, no hashing), Python dictionaries keyed by
the rows' values, brute-force pairwise distances (``scipy.spatial.distance.cdist``) and, for the
AUROC ceiling, scikit-learn's ``roc_auc_score`` maximised over every ordering of the distinct rows.
"""

from __future__ import annotations

import itertools
import json
import re
import warnings

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.metrics import roc_auc_score

import auditad.duplicates.exact as exact_module
from auditad import InvalidInputError, kneighbors
from auditad.duplicates import (
    NEAR_THRESHOLD_FACTOR,
    DuplicatesResult,
    check_split_column,
    find_duplicates,
    overlap_by_task,
    train_test_overlap,
)
from auditad.errors import ApproximationWarning

DTYPES = [np.float64, np.float32, np.float16, np.int64, np.int16, np.uint8, np.bool_]
SHAPES = [(1, 3), (7, 1), (60, 3), (500, 8), (3000, 17)]


# --------------------------------------------------------------------------- data and oracles
def planted(n, d, dtype, seed, n_classes=3):
    """Rows with natural and planted exact copies; copies keep or change their label at random."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        X = rng.random((n, d)) < 0.5
    elif dtype.kind in "iu":
        X = rng.integers(0, 4, size=(n, d)).astype(dtype)  # small values: natural duplicates too
    else:
        X = rng.standard_normal((n, d)).astype(dtype)
        X[rng.random((n, d)) < 0.02] = 0.0
    y = rng.integers(0, n_classes, size=n)
    m = n // 5
    if m:
        dst = rng.choice(n, size=m, replace=False)
        src = rng.integers(0, n, size=m)
        X[dst] = X[src]
        y[dst] = np.where(rng.random(m) < 0.5, y[src], y[dst])
    return X, y


def oracle_counts(X, y):
    """Counts from np.unique (groups) and a dictionary of rows -> labels (conflicts)."""
    _, inv, counts = np.unique(X, axis=0, return_inverse=True, return_counts=True)
    labels_of = {}
    for row, label in zip(map(tuple, X.tolist()), y.tolist()):
        labels_of.setdefault(row, []).append(label)
    conflicting = [v for v in labels_of.values() if len(v) > 1 and len(set(v)) > 1]
    return {
        "n_distinct": counts.size,
        "n_groups": int(np.sum(counts > 1)),
        "n_rows_in_groups": int(counts[counts > 1].sum()),
        "n_extra_copies": X.shape[0] - counts.size,
        "n_conflicting_groups": len(conflicting),
        "n_conflicting_rows": sum(len(v) for v in conflicting),
        "inverse": inv.ravel(),
    }


def brute_has_copy(A, B):
    """Per row of B: index of the first equal row of A (-1 when none), by comparing values."""
    out = np.full(B.shape[0], -1)
    for i, b in enumerate(B):
        hit = np.flatnonzero(np.all(A == b, axis=1))
        if hit.size:
            out[i] = hit[0]
    return out


# --------------------------------------------------------------------------- exact groups
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_counts_equal_np_unique(dtype, shape, seed):
    X, y = planted(*shape, dtype, seed)
    res = find_duplicates(X, y, near_threshold=None)
    ref = oracle_counts(X, y)
    for key in (
        "n_distinct",
        "n_groups",
        "n_rows_in_groups",
        "n_extra_copies",
        "n_conflicting_groups",
        "n_conflicting_rows",
    ):
        assert getattr(res, key) == ref[key], key
    # the same partition of the rows: as many (ours, np.unique) pairs as values of either
    inv = ref["inverse"]
    assert np.unique(np.stack([res.value_ids, inv], 1), axis=0).shape[0] == ref["n_distinct"] == res.n_distinct
    # groups are numbered by their first row; each group's rows are equal and are all the copies
    firsts = [res.group(g)[0] for g in range(res.n_groups)]
    assert firsts == sorted(firsts)
    for g in range(min(res.n_groups, 20)):
        rows = res.group(g)
        assert np.array_equal(rows, np.flatnonzero(inv == inv[rows[0]]))
    assert res.n_samples == shape[0] and res.n_features == shape[1]


def test_exact_counts_at_a_realistic_size():
    X, y = planted(200_000, 16, np.float32, 5)
    res = find_duplicates(X, y, near_threshold=None)
    _, inv, counts = np.unique(X, axis=0, return_inverse=True, return_counts=True)
    assert res.n_distinct == counts.size
    assert res.n_rows_in_groups == int(counts[counts > 1].sum())
    assert res.n_groups == int(np.sum(counts > 1))
    pairs = np.unique(np.stack([inv.ravel(), y], 1), axis=0)
    n_labels = np.bincount(pairs[:, 0], minlength=counts.size)
    assert res.n_conflicting_groups == int(np.sum(n_labels >= 2))
    assert res.n_conflicting_rows == int(counts[n_labels >= 2].sum())


def test_per_class_table_equals_a_loop():
    X, y = planted(400, 3, np.int16, 3, n_classes=4)
    res = find_duplicates(X, y, near_threshold=None)
    frame = res.to_frame()
    assert list(frame.columns) == [
        "scope",
        "class",
        "n_samples",
        "n_distinct",
        "n_rows_in_groups",
        "n_groups",
        "n_extra_copies",
        "n_conflicting_rows",
        "n_conflicting_groups",
    ]
    rows = list(map(tuple, X.tolist()))
    labels_of, members = {}, {}
    for i, (r, lab) in enumerate(zip(rows, y.tolist())):
        labels_of.setdefault(r, set()).add(lab)
        members.setdefault(r, []).append(i)
    total = frame.iloc[0]
    assert total["scope"] == "all" and total["class"] is None and total["n_samples"] == 400
    for c in range(4):
        got = frame[(frame["scope"] == "class") & (frame["class"] == c)].iloc[0]
        mine = [i for i in range(400) if y[i] == c]
        assert got["n_samples"] == len(mine)
        assert got["n_distinct"] == len({rows[i] for i in mine})
        assert got["n_extra_copies"] == len(mine) - len({rows[i] for i in mine})
        assert got["n_rows_in_groups"] == sum(len(members[rows[i]]) > 1 for i in mine)
        assert got["n_groups"] == len({rows[i] for i in mine if len(members[rows[i]]) > 1})
        assert got["n_conflicting_rows"] == sum(len(labels_of[rows[i]]) > 1 for i in mine)
        assert got["n_conflicting_groups"] == len({rows[i] for i in mine if len(labels_of[rows[i]]) > 1})
    assert isinstance(frame["class"].iloc[1], int)


def test_negative_zero_is_plus_zero_and_np_unique_agrees():
    X = np.array([[0.0, 1.0], [-0.0, 1.0], [0.0, -0.0], [-0.0, 0.0], [1.0, 1.0]])
    res = find_duplicates(X, near_threshold=None)
    assert res.group_ids.tolist() == [0, 0, 1, 1, -1]
    assert res.n_distinct == np.unique(X, axis=0).shape[0] == 3
    X32 = X.astype(np.float32)
    assert find_duplicates(X32, near_threshold=None).group_ids.tolist() == [0, 0, 1, 1, -1]


def test_rows_are_compared_in_their_own_dtype():
    # int64 values above 2**53 differ by 1: a float64 conversion would merge them
    X = np.array([[2**53, 0], [2**53 + 1, 0], [2**53 + 1, 0]], dtype=np.int64)
    res = find_duplicates(X, near_threshold=None)
    assert res.group_ids.tolist() == [-1, 0, 0] and res.dtype == "int64"
    # float32 values are not rounded further; float64 values that agree in float32 are distinct
    a = np.float64(1.0)
    b = np.nextafter(a, 2.0)
    assert find_duplicates(np.array([[a], [b]]), near_threshold=None).n_groups == 0
    assert find_duplicates(np.array([[a], [b]]).astype(np.float32), near_threshold=None).n_groups == 1
    # byte order does not matter
    big = np.array([[1.5, 2.0], [1.5, 2.0]], dtype=">f8")
    assert find_duplicates(big, near_threshold=None).n_groups == 1


@pytest.mark.parametrize(
    "bad_hash",
    [
        lambda A, dtype: np.zeros(A.shape[0], dtype=np.uint64),  # every row collides
        lambda A, dtype: (np.abs(np.asarray(A, dtype=np.float64)).sum(axis=1) > 1).astype(np.uint64),  # few classes
    ],
)
def test_hash_collisions_never_merge_different_rows(monkeypatch, bad_hash):
    X, y = planted(300, 4, np.float64, 7)
    good = find_duplicates(X, y, near_threshold=None)
    monkeypatch.setattr(exact_module, "hash_rows", bad_hash)
    worse = find_duplicates(X, y, near_threshold=None)
    assert np.array_equal(worse.value_ids, good.value_ids)
    assert np.array_equal(worse.group_ids, good.group_ids)
    assert worse.to_dict() == good.to_dict()


def test_deterministic_and_json_safe():
    X, y = planted(500, 5, np.float64, 11)
    X[3] = X[4] + 1e-9
    a = find_duplicates(X, y, k=5, backend="exact")
    b = find_duplicates(X.copy(), y.copy(), k=5, backend="exact")
    ja, jb = json.dumps(a.to_dict(), allow_nan=False), json.dumps(b.to_dict(), allow_nan=False)
    assert ja == jb
    assert a.groups_frame().equals(b.groups_frame())
    assert a.near_pairs_frame().equals(b.near_pairs_frame())
    d = a.to_dict(max_groups=2, max_rows=3)
    assert len(d["largest_groups"]) == 2 and all(len(g["rows"]) <= 3 for g in d["largest_groups"])
    assert d["n_groups"] == a.n_groups and len(d["per_class"]) == 3


def test_groups_frame_lists_every_member():
    X, y = planted(200, 2, np.uint8, 4)
    res = find_duplicates(X, y, near_threshold=None)
    frame = res.groups_frame()
    assert list(frame.columns) == ["group", "size", "row", "label", "conflicting"]
    assert len(frame) == res.n_rows_in_groups
    for g, part in frame.groupby("group"):
        rows = part["row"].to_numpy()
        assert np.all(X[rows] == X[rows[0]]) and part["size"].iloc[0] == rows.size
        assert part["conflicting"].iloc[0] == (np.unique(y[rows]).size > 1)
    conf = res.groups_frame(conflicting_only=True)
    assert conf["row"].size == res.n_conflicting_rows
    big = res.groups_frame(largest_first=True, max_groups=1)
    assert big["size"].iloc[0] == res.largest_group


# --------------------------------------------------------------------------- labels, anomalies
def test_binary_labels_mark_anomalies_and_mixed_groups():
    X = np.array([[0], [0], [0], [1], [1], [2], [3], [3]], dtype=float)
    y = np.array([0, 1, 0, 0, 0, 1, 1, 1])
    res = find_duplicates(X, y, near_threshold=None)
    assert res.anomaly_labels == (1,)
    assert (res.n_groups, res.n_conflicting_groups, res.n_conflicting_rows) == (3, 1, 3)
    assert (res.n_mixed_groups, res.n_mixed_rows) == (1, 3)
    frame = res.groups_frame()
    assert frame["anomaly"].tolist() == [False, True, False, False, False, True, True]


def test_named_anomaly_classes_in_a_multiclass_set():
    X = np.array([[0], [0], [1], [1], [2], [2]], dtype=float)
    y = np.array(["cat", "dog", "cat", "cat", "dog", "eel"])
    res = find_duplicates(X, y, near_threshold=None)
    assert res.anomaly_labels is None and res.n_conflicting_groups == 2 and res.n_mixed_groups is None
    res = find_duplicates(X, y, anomaly="dog", near_threshold=None)
    assert res.anomaly_labels == ("dog",) and res.n_mixed_groups == 2
    res = find_duplicates(X, y, anomaly=["dog", "eel"], near_threshold=None)
    assert res.n_mixed_groups == 1 and res.n_mixed_rows == 2  # {dog, eel} are both anomalies
    with pytest.raises(InvalidInputError, match="anomaly label.*'fox'.*do not occur in y"):
        find_duplicates(X, y, anomaly="fox", near_threshold=None)
    with pytest.raises(InvalidInputError, match="anomaly=1 needs the labels y"):
        find_duplicates(X, anomaly=1, near_threshold=None)


def _best_auroc_over_orderings(values, y):
    """max over every strict ordering of the distinct values of the AUROC (ties only inside a value)."""
    distinct = sorted(set(values))
    best = 0.0
    for perm in itertools.permutations(range(len(distinct))):
        rank = dict(zip(distinct, perm))
        best = max(best, roc_auc_score(y, [rank[v] for v in values]))
    return best


@pytest.mark.parametrize("seed", range(6))
def test_auroc_ceiling_equals_the_best_ordering(seed):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 5, size=30)
    y = (rng.random(30) < 0.4).astype(int)
    y[:2] = [0, 1]
    res = find_duplicates(values[:, None].astype(float), y, near_threshold=None)
    assert res.auroc_ceiling() == pytest.approx(_best_auroc_over_orderings(values.tolist(), y), abs=1e-12)
    rows = np.flatnonzero(rng.random(30) < 0.6)
    rows = np.union1d(rows, [0, 1])
    assert res.auroc_ceiling(rows) == pytest.approx(
        _best_auroc_over_orderings(values[rows].tolist(), y[rows]), abs=1e-12
    )


def test_auroc_ceiling_is_one_without_mixed_values_and_needs_both_labels():
    X = np.array([[0.0], [0.0], [1.0], [2.0]])
    res = find_duplicates(X, [0, 0, 1, 1], near_threshold=None)
    assert res.auroc_ceiling() == 1.0
    with pytest.raises(InvalidInputError, match="rows must hold both normals and anomalies"):
        res.auroc_ceiling([0, 1])
    with pytest.raises(InvalidInputError, match="auroc_ceiling needs anomaly labels"):
        find_duplicates(X, ["a", "a", "b", "b"], near_threshold=None).auroc_ceiling()


# --------------------------------------------------------------------------- near duplicates
def brute_near(X, tau):
    """Auto-rule median and the near pairs of distinct values, from all pairwise distances."""
    uniq, first = np.unique(X, axis=0, return_index=True)
    order = np.argsort(first)
    first = first[order]
    D = cdist(X[first], X[first])
    np.fill_diagonal(D, np.inf)
    nn = np.where(D > 0, D, np.inf).min(axis=1)
    median = float(np.median(nn[np.isfinite(nn)]))
    tau = NEAR_THRESHOLD_FACTOR * median if tau is None else tau
    i, j = np.nonzero(np.triu(D < tau, 1))
    return median, tau, {(int(first[a]), int(first[b])) for a, b in zip(i, j)}


def near_data(seed, n=120, d=3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X[10:20] = X[0:10] + rng.normal(scale=1e-3, size=(10, d))  # near copies
    X[20:25] = X[30:35]  # exact copies
    X[40] = X[41] + 1e-12  # near pair also at tiny distance
    return X


@pytest.mark.parametrize("seed", range(4))
def test_auto_threshold_and_pairs_equal_brute_force(seed):
    X = near_data(seed)
    V = np.unique(X, axis=0).shape[0]
    res = find_duplicates(X, k=V - 1, backend="exact")  # complete lists: every pair is seen
    median, tau, pairs = brute_near(X, None)
    assert res.near_threshold_rule == "auto" and res.n_near_unresolved == 0
    assert res.nn_distance_median == pytest.approx(median, rel=1e-12)
    assert res.near_threshold == pytest.approx(tau, rel=1e-12)
    assert {tuple(p) for p in res.near_pairs.tolist()} == pairs
    assert {(0 + i, 10 + i) for i in range(10)} <= pairs and (40, 41) in pairs
    # default k=10 finds the same planted pairs on this data
    res10 = find_duplicates(X, backend="exact")
    assert {tuple(p) for p in res10.near_pairs.tolist()} == pairs


def test_given_threshold_overrides_and_scales_with_the_data():
    X = near_data(0)
    small = find_duplicates(X, near_threshold=1e-6, backend="exact")
    assert small.near_threshold_rule == "given" and small.near_threshold == 1e-6
    assert {tuple(p) for p in small.near_pairs.tolist()} == {(40, 41)}
    _, _, pairs = brute_near(X, 0.5)
    big = find_duplicates(X, near_threshold=0.5, k=119, backend="exact")
    assert {tuple(p) for p in big.near_pairs.tolist()} == pairs
    # the auto threshold is a property of the geometry: scaling the data by 4 scales it by 4
    a, b = find_duplicates(X, backend="exact"), find_duplicates(4.0 * X, backend="exact")
    assert b.near_threshold == pytest.approx(4 * a.near_threshold, rel=1e-12)
    assert np.array_equal(a.near_pairs, b.near_pairs)


def test_near_groups_and_their_label_conflicts():
    X = np.array([[0.0], [0.001], [0.002], [5.0], [5.0], [10.0], [20.0], [30.0]])
    y = np.array([0, 0, 1, 0, 1, 0, 0, 0])
    res = find_duplicates(X, y, near_threshold=0.01, backend="exact")
    assert res.near_pairs.tolist() == [[0, 1], [0, 2], [1, 2]]
    assert res.near_group_ids.tolist() == [0, 0, 0, -1, -1, -1, -1, -1]
    assert (res.n_near_groups, res.n_near_rows, res.n_near_conflicting_groups, res.n_near_conflicting_rows) == (
        1,
        3,
        1,
        3,
    )
    frame = res.near_pairs_frame()
    assert frame["conflicting"].tolist() == [False, True, True]
    assert res.to_frame()["n_near_rows"].tolist() == [3, 2, 1]


def test_given_neighbour_lists_give_the_same_answer_without_a_search(monkeypatch):
    X = near_data(1, n=80)
    X[60:70] = X[70:80]  # more exact copies: row lists then start with copies
    nb = kneighbors(X, k=X.shape[0] - 1, backend="exact")
    own = find_duplicates(X, k=79, backend="exact")

    def no_search(*args, **kwargs):
        raise AssertionError("no neighbour search may run when lists are given")

    monkeypatch.setattr("auditad.kneighbors", no_search)
    given = find_duplicates(X, neighbors=nb)
    assert given.neighbors_source == "given" and given.metric == "euclidean"
    assert given.near_threshold == pytest.approx(own.near_threshold, rel=1e-12)
    assert np.array_equal(given.near_pairs, own.near_pairs)
    tuple_given = find_duplicates(X, neighbors=(nb.indices, nb.distances))
    assert np.array_equal(tuple_given.near_pairs, own.near_pairs)


def test_short_lists_warn_that_near_counts_are_lower_bounds():
    X = np.repeat(np.arange(20, dtype=float)[:, None], 3, axis=0)  # every value three times
    X = np.vstack([X, [[0.001]]])
    nb = kneighbors(X, k=2, backend="exact")  # the lists of the copied values hold only copies
    with pytest.warns(ApproximationWarning, match="lower bounds"):
        res = find_duplicates(X, neighbors=nb, near_threshold=0.01)
    assert res.n_near_unresolved > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        complete = find_duplicates(X, near_threshold=0.01, backend="exact")
    assert complete.n_near_unresolved == 0 and complete.near_pairs.tolist() == [[0, 60]]


def test_cosine_near_duplicates_and_half_precision():
    X = np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 1.0], [0.6, 0.8], [-1.0, 0.2], [0.3, -1.0]])
    res = find_duplicates(X, metric="cosine", near_threshold=1e-9, backend="exact")
    assert res.n_groups == 0 and res.metric == "cosine"
    assert res.near_pairs.tolist() == [[0, 1]] and res.near_distances.tolist() == [0.0]  # same direction
    half = find_duplicates(near_data(0).astype(np.float16), backend="exact")
    assert half.dtype == "float16" and half.n_near_pairs >= 10


def test_string_and_bool_labels_are_json_safe():
    X = np.array([[0.0], [0.0], [1.0], [1.0], [2.0]])
    for y in (np.array(["a", "b", "a", "a", "b"]), np.array([False, True, False, False, True])):
        res = find_duplicates(X, y, near_threshold=0.5, backend="exact")
        text = json.dumps(res.to_dict(), allow_nan=False)
        assert res.n_conflicting_groups == 1 and '"n_conflicting_rows": 2' in text
    # anomalies: row 1 (value shared with normal row 0: a tie) and row 4; 5.5 of 6 pairs
    assert res.anomaly_labels == (True,) and res.auroc_ceiling() == pytest.approx(5.5 / 6, abs=1e-15)


def test_auto_threshold_undefined_raises():
    X = np.ones((5, 2))
    with pytest.raises(InvalidInputError, match="near_threshold='auto' cannot be derived"):
        find_duplicates(X)
    res = find_duplicates(X, near_threshold=0.5)
    assert res.n_near_pairs == 0 and res.n_groups == 1


# --------------------------------------------------------------------------- train/test overlap
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("dtypes", [(np.float64, np.float64), (np.float32, np.float64), (np.int16, np.int16)])
def test_overlap_equals_brute_force(seed, dtypes):
    rng = np.random.default_rng(seed)
    A, _ = planted(300, 4, dtypes[0], seed)
    B, _ = planted(200, 4, dtypes[1], seed + 100)
    pick = rng.choice(200, 40, replace=False)
    B[pick] = A[rng.integers(0, 300, 40)].astype(dtypes[1])
    res = train_test_overlap(A, B, near_threshold=None)
    ref = brute_has_copy(A.astype(np.float64), B.astype(np.float64))
    assert np.array_equal(res.exact_train_row, ref)
    assert res.n_exact == int(np.sum(ref >= 0)) and res.exact_share == np.mean(ref >= 0)
    assert np.array_equal(res.rows_to_keep(), np.flatnonzero(ref < 0))


@pytest.mark.parametrize("seed", range(3))
def test_near_overlap_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((150, 3))
    B = rng.standard_normal((80, 3))
    B[:10] = A[:10]
    B[10:20] = A[20:30] + rng.normal(scale=1e-3, size=(10, 3))
    B[75:80] = B[70:75]  # copies inside the test rows count once
    A[100:110] = A[:10]  # several training copies of one test row
    res = train_test_overlap(A, B, y_test=(np.arange(80) < 15).astype(int), backend="exact")
    D = cdist(B, A)
    exact = np.array([np.any(np.all(A == b, axis=1)) for b in B])
    Dn = np.where(np.all(A[None] == B[:, None], axis=2), np.inf, D)  # not counting identical rows
    nn = Dn.min(axis=1)
    _, first = np.unique(B, axis=0, return_index=True)  # one value per distinct test row
    tau = NEAR_THRESHOLD_FACTOR * np.median(np.where(Dn > 0, Dn, np.inf).min(axis=1)[first])
    assert res.near_threshold == pytest.approx(tau, rel=1e-12)
    assert np.array_equal(res.near_copy, ~exact & (nn < tau))
    assert np.array_equal(res.near_train_row[res.near_copy], Dn.argmin(axis=1)[res.near_copy])
    assert set(np.flatnonzero(res.near_copy)) == set(range(10, 20))
    frame = res.to_frame()
    assert frame["n_exact"].tolist() == [10, 0, 10] and frame["n_near"].tolist() == [10, 5, 5]
    assert res.rows_to_keep(drop_near=True).tolist() == list(range(20, 80))
    given = train_test_overlap(A, B, near_threshold=0.01, neighbors=kneighbors(A, B, k=3, backend="exact"))
    assert np.array_equal(given.near_copy, ~exact & (nn < 0.01))


def test_task_overlap_from_one_grouping_equals_brute_force():
    X, y = planted(600, 3, np.int16, 9, n_classes=4)
    X = X.astype(float)
    rng = np.random.default_rng(0)
    is_train = rng.random(600) < 0.5
    dup = find_duplicates(X, y, near_threshold=None)
    tasks = {}
    for c in range(4):  # K-1 vs 1: train on the other classes, test normals + class c
        train = np.flatnonzero(is_train & (y != c))
        test = np.flatnonzero(~is_train & (y != c))
        test = np.concatenate([test, np.flatnonzero(y == c)])
        tasks[f"class {c}"] = (train, test, (y[test] == c).astype(int))
    res = overlap_by_task(dup, tasks)
    frame = res.to_frame()
    assert frame["task"].tolist()[:3] == ["class 0"] * 3
    for name, (train, test, y_test) in tasks.items():
        ref = brute_has_copy(X[train], X[test])
        got = res[name]
        assert np.array_equal(got.exact_copy, ref >= 0)
        # the smallest training row holding the value (train is increasing, so the first match)
        assert np.array_equal(got.exact_train_row, np.where(ref >= 0, train[np.maximum(ref, 0)], -1))
        keep = dup.test_rows_to_keep(train, test)
        assert np.array_equal(keep, test[ref < 0])
        same = train_test_overlap(X[train], X[test], near_threshold=None)
        assert np.array_equal(same.exact_copy, got.exact_copy)
    json.dumps(res.to_dict(), allow_nan=False)


def test_task_overlap_near_copies_match_the_two_array_version():
    X = near_data(2, n=100)
    train, test = np.arange(0, 50), np.arange(50, 100)
    X[60:65] = X[0:5]  # exact copies of training rows
    X[70:75] = X[5:10] + 1e-4  # near copies of training rows
    dup = find_duplicates(X, near_threshold=0.01, k=99, backend="exact")
    got = dup.overlap(train, test)
    ref = train_test_overlap(X[train], X[test], near_threshold=0.01, backend="exact")
    assert np.array_equal(got.exact_copy, ref.exact_copy)
    assert np.array_equal(got.near_copy, ref.near_copy)
    assert np.array_equal(got.near_train_row[got.near_copy], train[ref.near_train_row[ref.near_copy]])
    np.testing.assert_allclose(got.near_distance[got.near_copy], ref.near_distance[ref.near_copy], rtol=1e-12)
    assert got.complete and sorted(got.rows_to_keep(drop_near=True).tolist()) == sorted(
        set(range(50, 100)) - set(range(60, 65)) - set(range(70, 75))
    )


# --------------------------------------------------------------------------- split column
def test_split_column():
    assert check_split_column(np.array(["train", "test", "test"])).tolist() == [True, False, False]
    assert check_split_column([True, False], train=True, test=False).tolist() == [True, False]
    # one split parser for the package: the protocol's spellings ("Train", 0/1) are accepted here too
    assert check_split_column(["train", "Train", " TEST "]).tolist() == [True, True, False]
    assert check_split_column([1, 0, True]).tolist() == [True, False, True]
    with pytest.raises(
        InvalidInputError,
        match=r"split must hold only 'train' \(train\) and 'test' \(test\); "
        r"3 row\(s\) hold other values: 'val' \(2 rows\), 'dev' \(1 row\)",
    ):
        check_split_column(["train", "val", "test", "dev", "val"])
    with pytest.raises(InvalidInputError, match=r"fold must hold only 1 \(train\) and 0 \(test\).*2 \(1 row\)"):
        check_split_column([1, 0, 2], train=1, test=0, name="fold")
    with pytest.raises(InvalidInputError, match=r"missing \(2 rows\)"):
        check_split_column(["train", None, "test", float("nan")])
    with pytest.raises(InvalidInputError, match="split has no 'test' row"):
        check_split_column(["train", "train"])
    with pytest.raises(InvalidInputError, match="split is empty"):
        check_split_column([])
    with pytest.raises(InvalidInputError, match="train and test must differ"):
        check_split_column(["a"], train="a", test="a")


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "value, match",
    [
        (0, r"near_threshold must be > 0.0, got 0.0"),
        (-1.5, r"near_threshold must be > 0.0, got -1.5"),
        ("median", r"near_threshold must be 'auto', a number > 0 or None, got 'median'"),
        (True, r"near_threshold must be a number, got True"),
        (float("nan"), r"near_threshold must be finite"),
    ],
)
def test_bad_threshold(value, match):
    X = np.arange(10.0)[:, None]
    with pytest.raises(InvalidInputError, match=match):
        find_duplicates(X, near_threshold=value)
    with pytest.raises(InvalidInputError, match=match):
        train_test_overlap(X, X, near_threshold=value)


@pytest.mark.parametrize(
    "X, y, match",
    [
        (np.zeros((4, 2)), np.zeros(3), r"X and y must have the same length, got 4 and 3"),
        (np.array([[0.0, np.nan], [1.0, 1.0]]), None, r"X contains non-finite values \(NaN at index \(0, 1\)\)"),
        (np.array([[0.0, np.inf]]), None, r"X contains non-finite values \(inf"),
        (np.zeros((0, 3)), None, r"X must have at least 1 sample"),
        (np.zeros(5), None, r"X must be 2-D"),
        (np.array([["a", "b"]]), None, r"X must be a numeric array"),
        (np.zeros((2, 1)), np.array([b"a", b"b"]), r"y holds bytes labels .*decode them to str"),
        (np.zeros((2, 1)), np.array([b"a", b"b"], dtype=object), r"y holds bytes labels"),
        (np.zeros((2, 1)), np.array([0.0, np.nan]), r"y contains NaN"),
        (np.zeros((2, 1)), np.array([]), r"y is empty"),
    ],
)
def test_bad_data(X, y, match):
    with pytest.raises(InvalidInputError, match=match):
        find_duplicates(X, y, near_threshold=None)


def test_bad_neighbour_lists_and_k():
    X = np.arange(12.0).reshape(6, 2)
    nb = kneighbors(X, k=2, backend="exact")
    with pytest.raises(InvalidInputError, match=r"neighbors must hold one neighbour list per row \(6\), got 5"):
        find_duplicates(X, neighbors=(nb.indices[:5], nb.distances[:5]))
    with pytest.raises(InvalidInputError, match=r"neighbors indices must lie in \[0, 6\)"):
        find_duplicates(X, neighbors=(nb.indices + 3, nb.distances))
    with pytest.raises(InvalidInputError, match="neighbors distances must be finite and >= 0"):
        find_duplicates(X, neighbors=(nb.indices, -nb.distances))
    with pytest.raises(InvalidInputError, match="same shape"):
        find_duplicates(X, neighbors=(nb.indices, nb.distances[:, :1]))
    with pytest.raises(InvalidInputError, match="neighbors must be a NeighborsResult or a pair"):
        find_duplicates(X, neighbors="lists")
    with pytest.raises(InvalidInputError, match="k must be >= 1, got 0"):
        find_duplicates(X, k=0)
    with pytest.raises(InvalidInputError, match="metric must be one of"):
        find_duplicates(X, metric="manhattan")


def test_bad_overlap_input():
    X = np.arange(20.0).reshape(10, 2)
    dup = find_duplicates(X, near_threshold=None)
    with pytest.raises(InvalidInputError, match=r"train_idx and test_idx share 2 row\(s\), e.g. \[3, 4\]"):
        dup.overlap([0, 1, 3, 4], [3, 4, 5])
    with pytest.raises(InvalidInputError, match="test_idx is empty"):
        dup.overlap([0], [])
    assert dup.overlap([], [1, 2]).n_exact == 0  # no training rows: no copies
    with pytest.raises(InvalidInputError, match="test_idx holds repeated row indices"):
        dup.overlap([0], [1, 1])
    with pytest.raises(
        InvalidInputError, match=r"train_idx must hold row indices in \[0, 10\), got values from 0 to 10"
    ):
        dup.overlap([0, 10], [1])
    with pytest.raises(InvalidInputError, match="test_idx and y_test must have the same length, got 2 and 1"):
        dup.overlap([0], [1, 2], y_test=[0])
    with pytest.raises(InvalidInputError, match="drop_near=True needs near copies"):
        dup.overlap([0], [1]).rows_to_keep(drop_near=True)
    mask = np.zeros(10, dtype=bool)
    mask[:4] = True
    assert dup.overlap(mask, ~mask).test_rows.tolist() == list(range(4, 10))
    with pytest.raises(InvalidInputError, match="X_train and X_test must have the same number of columns, got 2 and 3"):
        train_test_overlap(X, np.zeros((2, 3)))
    with pytest.raises(InvalidInputError, match="X_test must have at least 1 sample"):
        train_test_overlap(X, np.zeros((0, 2)))
    with pytest.raises(InvalidInputError, match=r"X_test and y_test must have the same length"):
        train_test_overlap(X, X, y_test=[0, 1], near_threshold=None)
    with pytest.raises(InvalidInputError, match="tasks must be a mapping"):
        overlap_by_task(dup, [([0], [1])])
    with pytest.raises(InvalidInputError, match="duplicates must be a DuplicatesResult"):
        overlap_by_task({"a": 1}, {})
    assert isinstance(dup, DuplicatesResult)


# --------------------------------------------------------------------------- the report section, the split plan, the CLI
def planted_digits(n=400, n_copies=40, n_relabelled=12, seed=0):
    """Digits rows with planted exact copies, some of them under another class (conflicting labels)."""
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X, y = X[:n].astype(float), y[:n].copy()
    rng = np.random.default_rng(seed)
    src = rng.choice(n, n_copies, replace=False)
    dst = rng.choice(np.setdiff1d(np.arange(n), src), n_copies, replace=False)
    X[dst] = X[src]
    y[dst] = y[src]
    y[dst[:n_relabelled]] = (y[src[:n_relabelled]] + 1) % 10
    return X, y


def audit_inputs(X, y, *, name="planted", columns=None, **settings):
    from auditad.audit.config import validate_settings
    from auditad.audit.loader import BenchmarkInputs
    from auditad.datasets import Benchmark

    s = validate_settings(
        {
            "detectors": ["knn", "lof"],
            "null_runs": 50,
            "landscape_resolution": 11,
            "null_metrics": ["auroc"],
            "leakage_k": [10],
            **settings,
        }
    )
    bench = Benchmark(name=name, y=np.asarray(y), representations={"raw": np.asarray(X, dtype=float)}, sources={})
    kind = "anomaly" if columns and "anomaly" in columns and np.array_equal(columns["anomaly"], y) else "classes"
    return BenchmarkInputs(
        name=name,
        benchmark=bench,
        columns=columns or {},
        selection=None,
        settings=s,
        gates=(),
        inputs=(),
        config_text="version = 1\n",
        config_name=f"{name}.toml",
        config_sha256="0" * 64,
        config_origin="file",
        command_line=(),
        kind=kind,
    )


def has_copy(X, train, rows):
    """Per row of ``rows``: some training row is identical (brute force, by comparing values)."""
    return np.array([bool(np.any(np.all(X[train] == X[i], axis=1))) for i in rows])


@pytest.fixture(scope="module")
def planted_audit(tmp_path_factory):
    from auditad.audit.runner import run_audit

    X, y = planted_digits()
    out = tmp_path_factory.mktemp("planted") / "out"
    run = run_audit([audit_inputs(X, y)], out)
    return run, out, X, y


def test_section_counts_equal_np_unique_and_the_default_gates_warn(planted_audit):
    import jsonschema
    import pandas as pd

    from auditad.report import schema_path

    run, out, X, y = planted_audit
    summary = json.loads((out / "planted" / "summary.json").read_text(encoding="utf-8"))
    jsonschema.validate(summary, json.loads(schema_path().read_text(encoding="utf-8")))
    d, ref = summary["duplicates"], oracle_counts(X, y)
    assert (
        (d["distinct"], d["groups"], d["rows_in_groups"], d["extra_copies"])
        == (ref["n_distinct"], ref["n_groups"], ref["n_rows_in_groups"], ref["n_extra_copies"])
        == (360, 40, 80, 40)
    )
    assert (
        (d["conflicting_groups"], d["conflicting_rows"])
        == (ref["n_conflicting_groups"], ref["n_conflicting_rows"])
        == (12, 24)
    )
    assert d["mixed_rows"] == d["conflicting_rows"]  # class labels: a class conflict is mixed in some task
    per_class = pd.DataFrame(d["representations"]["raw"]["per_class"])
    _, counts = np.unique(X, axis=0, return_counts=True)
    assert per_class["n_samples"].tolist() == np.bincount(y).tolist()
    assert int(per_class["n_extra_copies"].sum()) <= d["extra_copies"]  # copies across classes count in neither
    # the default gates: identical rows with two labels, and test rows copied in the training rows
    gates = {g["metric"]: g for g in summary["gates"]}
    assert gates["duplicates.conflicting_rows"]["status"] == "warn"
    assert gates["duplicates.conflicting_rows"]["value"] == 24
    assert gates["duplicates.train_test_overlap"]["status"] == "warn"
    assert gates["duplicates.train_test_overlap"]["value"] == d["train_test_overlap"] > 0.01
    assert summary["verdict"] == "warn" and run.exit_code == 0
    # example groups: conflicting groups first, each group's rows identical in X
    groups = pd.read_csv(out / "planted" / "data" / "duplicates_groups.csv")
    first = groups.drop_duplicates("group")
    assert first["conflicting"].tolist() == [True] * 12 + [False] * 28
    for _, g in groups.groupby("group"):
        rows = g["row"].to_numpy()
        assert np.all(X[rows] == X[rows[0]]) and (g["label"].nunique() > 1) == g["conflicting"].iloc[0]
    sec = next(s for s in run.audits[0].sections if s.id == "duplicates")
    assert "24 rows in 12 groups carry different labels" in sec.reading
    assert (out / "planted" / "tables" / "duplicates_delta_auroc.csv").is_file()


def test_task_overlap_and_delta_auroc_against_brute_force_and_scikit_learn(planted_audit):
    import pandas as pd
    from sklearn.neighbors import NearestNeighbors

    run, out, X, y = planted_audit
    r = run.audits[0].results["duplicates"]
    plan, frame = r["plan"], r["overlap"]["raw"]
    proto = run.audits[0].results["protocol"]
    assert len(plan.tasks) == len(frame) == 10
    for t, (_, row) in zip(plan.tasks, frame.iterrows()):
        copied = has_copy(X, t.train_idx, t.test_idx)
        assert row["n_exact"] == copied.sum() and row["n_test"] == t.test_idx.size
        assert row["n_exact_anomalies"] == copied[t.y_test == 1].sum()
    # the run without the copied test rows scores exactly the other test rows
    dedup = r["dedup"]["raw"]
    assert dedup.settings["excluded_test_copies"] == frame["n_exact"].sum()
    assert np.array_equal(
        dedup.n_pos[:, 0] + dedup.n_neg[:, 0], proto.n_pos[:, 0] + proto.n_neg[:, 0] - frame["n_exact"].to_numpy()
    )
    delta = pd.read_csv(out / "planted" / "tables" / "duplicates_delta_auroc.csv")
    knn = delta[delta["detector"] == "knn"].reset_index(drop=True)
    for t, (_, row) in zip(plan.tasks, knn.iterrows()):
        keep = ~has_copy(X, t.train_idx, t.test_idx)
        nn = NearestNeighbors(n_neighbors=5).fit(X[t.train_idx])
        score = nn.kneighbors(X[t.test_idx[keep]])[0][:, 4]  # the kNN detector: distance to the 5th neighbour
        assert row["auroc_without_copies"] == pytest.approx(roc_auc_score(t.y_test[keep], score), abs=1e-12)
        assert row["delta_auroc"] == pytest.approx(row["auroc_without_copies"] - row["auroc"], abs=1e-15)
    d = json.loads((out / "planted" / "summary.json").read_text())["duplicates"]
    assert d["max_abs_delta_auroc"] == pytest.approx(delta["delta_auroc"].abs().max(), abs=1e-15)
    assert d["max_abs_delta_auroc"] > 0
    assert d["max_abs_delta_auroc_where"]["detector"] in ("knn", "lof")


def test_class_split_plan_reproduces_audit_protocol_and_excludes_copies():
    from auditad.protocol import audit_protocol, class_split_plan

    X, y = planted_digits(n=300, n_copies=30, n_relabelled=10, seed=3)
    kw = dict(train_fraction=0.7, contamination=0.2, max_test_normals=120, repeats=2, random_state=5)
    plan = class_split_plan(y, **kw)
    res = audit_protocol(X, y, detectors=["knn"], leakage_k=0, **kw)
    for t in plan.tasks:
        assert (t.y_test.sum(), (t.y_test == 0).sum()) == (res.n_pos[t.c, t.repeat], res.n_neg[t.c, t.repeat])
    # the result carries that plan (the duplicates section reuses it instead of drawing it again)
    assert len(res.plan.tasks) == len(plan.tasks)
    for t, u in zip(plan.tasks, res.plan.tasks):
        assert (t.c, t.repeat, t.seed) == (u.c, u.repeat, u.seed) and np.array_equal(t.test_idx, u.test_idx)
    ids = find_duplicates(X, near_threshold=None).value_ids
    cut = class_split_plan(y, exclude_test_copies=ids, **kw)
    for t, u in zip(plan.tasks, cut.tasks):
        copied = has_copy(X, t.train_idx, t.test_idx)
        assert u.n_excluded == copied.sum() and np.array_equal(u.test_idx, t.test_idx[~copied])
        assert not has_copy(X, u.train_idx, u.test_idx).any()
    assert sum(u.n_excluded for u in cut.tasks) > 0
    one = class_split_plan(y, protocol="one_class", **kw)
    assert all(np.all(y[t.train_idx] == one.classes[t.c]) for t in one.tasks)
    with pytest.raises(InvalidInputError, match="exclude_test_copies must be 1-D with one entry per sample"):
        class_split_plan(y, exclude_test_copies=ids[:5])


def test_leakage_keeps_its_neighbour_lists_for_the_near_duplicates():
    from auditad.leakage import leakage

    X = near_data(4, n=150)
    y = np.arange(X.shape[0]) % 3
    lr = leakage(X, y, k=10, backend="exact", keep_neighbors=True)
    assert leakage(X, y, k=10, backend="exact").neighbors is None
    given = find_duplicates(X, y, neighbors=lr.neighbors)
    searched = find_duplicates(X, y, neighbors=kneighbors(X, k=10, backend="exact"))
    assert given.neighbors_source == "given"
    assert np.array_equal(given.near_pairs, searched.near_pairs) and given.near_threshold == searched.near_threshold


def test_anomaly_labels_give_the_overlap_of_the_semi_supervised_task():
    from auditad.audit.runner import audit_benchmark

    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(size=(120, 3)), rng.normal(size=(12, 3)) + 6.0]
    X[100:110] = X[:10]  # normals copied: test normals with an identical training normal
    X[120:123] = X[20:23]  # anomalies identical to normals: conflicting labels
    y = np.r_[np.zeros(120, int), np.ones(12, int)]
    audit = audit_benchmark(audit_inputs(X, y, name="adb", columns={"anomaly": y}, leakage_k=[5]))
    d = audit.summary["duplicates"]
    assert d["kind"] == "anomaly" and (d["conflicting_rows"], d["conflicting_groups"]) == (6, 3)
    assert d["auroc_ceiling"] == pytest.approx(find_duplicates(X, y, near_threshold=None).auroc_ceiling())
    plan = audit.results["duplicates"]["plan"]
    (task,) = plan.tasks
    copied = has_copy(X, task.train_idx, task.test_idx)
    assert plan.classes[task.c] == "normal" and np.all(y[task.train_idx] == 0)
    assert (
        d["train_test_overlap"] == pytest.approx(copied.mean()) and d["train_test_overlap_where"]["class"] == "normal"
    )
    assert d["representations"]["raw"]["delta_auroc"]["status"] == "computed"


def test_a_statistic_that_is_not_applicable_leaves_its_default_gate_out():
    from auditad.audit.runner import _applicable_gates
    from auditad.gates.checks import parse_rule

    why = {"status": "not_applicable", "reason": "no tasks"}
    summary = {"duplicates": {"train_test_overlap": why, "conflicting_rows": 0}}
    rules = [parse_rule("warn: duplicates.train_test_overlap <= 0.01"), parse_rule("duplicates.conflicting_rows <= 0")]
    kept = _applicable_gates(rules, summary, {}, name="b", default=True)
    assert [r.path for r in kept] == ["duplicates.conflicting_rows"]
    with pytest.raises(
        InvalidInputError,
        match=r"addresses 'duplicates.train_test_overlap', which is not "
        r"applicable: no tasks",
    ):
        _applicable_gates(rules, summary, {}, name="b", default=False)


def run_cli(argv):
    import contextlib
    import io

    from auditad.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_cli_prints_the_counts_writes_json_and_refuses_bad_input(tmp_path):
    import pandas as pd

    X, y = planted_digits(n=300, n_copies=30, n_relabelled=10, seed=1)
    np.save(tmp_path / "X.npy", X)
    split = np.where(np.random.default_rng(0).random(X.shape[0]) < 0.7, "train", "test")
    pd.DataFrame({"label": y, "split": split, "fold": (split == "train").astype(int)}).to_csv(
        tmp_path / "y.csv", index=False
    )
    base = [
        "duplicates",
        "--embeddings",
        str(tmp_path / "X.npy"),
        "--labels",
        str(tmp_path / "y.csv"),
        "--label-column",
        "label",
    ]
    code, out, err = run_cli(base + ["--split-column", "split", "--json", str(tmp_path / "d.json"), "--quiet"])
    ref = oracle_counts(X, y)
    assert code == 0 and err == ""
    assert re.search(rf"rows with an exact copy\s+{ref['n_rows_in_groups']}\n", out)
    assert re.search(rf"conflicting rows\s+{ref['n_conflicting_rows']}\n", out)
    saved = json.loads((tmp_path / "d.json").read_text())
    assert saved["duplicates"] == find_duplicates(X, y).to_dict()
    test = np.flatnonzero(split == "test")
    copied = has_copy(X, np.flatnonzero(split == "train"), test)
    assert saved["overlap"]["n_exact"] == copied.sum() and f"{copied.sum()} test rows" in out
    # an integer split column: the flag values are read as integers
    code, out2, _ = run_cli(
        base + ["--split-column", "fold", "--split-train", "1", "--split-test", "0", "--near-threshold", "none"]
    )
    assert code == 0 and f"{copied.sum()} test rows" in out2 and "Near duplicates" not in out2
    # bad input: exit 2, one line naming the flag and the value
    code, _, err = run_cli(base + ["--near-threshold", "0"])
    assert code == 2 and err.count("\n") == 1 and "--near-threshold" in err and "got 0" in err
    bad = split.astype(object)
    bad[:3] = ["dev", "val", "dev"]  # "Train" is a train row (the one split parser)
    pd.DataFrame({"label": y, "split": bad}).to_csv(tmp_path / "bad.csv", index=False)
    code, _, err = run_cli(
        [
            "duplicates",
            "--embeddings",
            str(tmp_path / "X.npy"),
            "--labels",
            str(tmp_path / "bad.csv"),
            "--split-column",
            "split",
        ]
    )
    assert code == 2 and err.count("\n") == 1
    assert "'dev' (2 rows), 'val' (1 row)" in err and "--split-column 'split'" in err
    code, _, err = run_cli(base[:-2] + ["--label-column", "nope"])
    assert code == 2 and "has no column 'nope'" in err


def test_cli_overlap_of_separate_train_and_test_files(tmp_path, capsys):
    from auditad.cli import main

    rng = np.random.default_rng(0)
    train = rng.normal(size=(200, 5))
    test = np.r_[train[:7], rng.normal(size=(50, 5))]
    np.save(tmp_path / "train.npy", train)
    np.save(tmp_path / "test.npy", test)
    assert (
        main(
            [
                "duplicates",
                "--embeddings",
                str(tmp_path / "train.npy"),
                "--test-embeddings",
                str(tmp_path / "test.npy"),
                "--near-threshold",
                "none",
                "--json",
                str(tmp_path / "o.json"),
            ]
        )
        == 0
    )
    out = json.loads((tmp_path / "o.json").read_text())
    # brute force: test rows equal to some training row
    expected = sum(any(np.array_equal(t, r) for r in train) for t in test)
    assert out["overlap"]["n_exact"] == expected == 7
    capsys.readouterr()
    assert (
        main(
            [
                "duplicates",
                "--embeddings",
                str(tmp_path / "train.npy"),
                "--test-embeddings",
                str(tmp_path / "missing.npy"),
            ]
        )
        == 2
    )
    err = capsys.readouterr()
    assert "--test-embeddings" in err.err and err.out == ""
    np.save(tmp_path / "narrow.npy", test[:, :3])
    assert (
        main(
            [
                "duplicates",
                "--embeddings",
                str(tmp_path / "train.npy"),
                "--test-embeddings",
                str(tmp_path / "narrow.npy"),
            ]
        )
        == 2
    )


def test_anomaly_labelled_audit_reports_duplicates_in_the_summary_and_on_the_first_screen(tmp_path):
    import html as html_module

    from auditad.cli import main

    rng = np.random.default_rng(3)
    X = np.r_[rng.normal(size=(120, 4)), rng.normal(size=(8, 4)) + 6]
    y = np.r_[np.zeros(120, int), np.ones(8, int)]
    X, y = np.r_[X, X[:20]], np.r_[y, y[:20]]  # 20 exact copies of normals
    y[-1] = 1  # one copy labelled both ways
    np.savez(tmp_path / "d.npz", X=X, y=y)
    assert (
        main(
            [
                "audit",
                "--embeddings",
                str(tmp_path / "d.npz"),
                "--embeddings-key",
                "X",
                "--labels",
                str(tmp_path / "d.npz"),
                "--label-column",
                "y",
                "--anomaly-column",
                "y",
                "--out",
                str(tmp_path / "out"),
                "--quiet",
                "--null-runs",
                "100",
                "--landscape-resolution",
                "11",
            ]
        )
        == 0
    )
    s = json.loads((tmp_path / "out" / "d" / "summary.json").read_text())
    _, counts = np.unique(X, axis=0, return_counts=True)
    assert s["duplicates"]["rows_in_groups"] == int(counts[counts > 1].sum()) == 40
    assert s["duplicates"]["conflicting_rows"] == 2 and s["verdict"] == "warn"
    page = (tmp_path / "out" / "d" / "report.html").read_text(encoding="utf-8")
    page = re.sub(r"<(style|script)\b.*?</\1>", " ", page, flags=re.S)
    page = re.sub(r"<details>\s*<summary>(.*?)</summary>.*?</details>", r" \1 ", page, flags=re.S)
    first = html_module.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))[:1800]
    assert "conflicting labels" in first and "40 rows in 20 groups" in first
