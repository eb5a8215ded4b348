"""The test-normal subsample of a task draws its classes at random, and a plan of a few classes draws their tasks
exactly as the full plan does (what the confirmatory draws rely on to run only their candidates' tasks)."""

from __future__ import annotations

import numpy as np
import pytest

from auditad.protocol.plan import class_split_plan, stratified_subsample


def test_classes_tied_at_the_cut_are_drawn_at_random_not_in_class_order():
    # 1 000 classes of 5 rows, 200 rows wanted: every class has the same share, 200 * 5 / 5 000 = 0.2
    labels = np.repeat(np.arange(1000), 5)
    idx = np.arange(labels.size) * 3  # any sorted row numbers
    seen = []
    for seed in range(5):
        out = stratified_subsample(idx, labels, 200, np.random.default_rng(seed))
        cls = labels[np.searchsorted(idx, out)]
        assert out.size == 200 and np.unique(out).size == 200
        assert np.bincount(cls, minlength=1000).max() == 1  # one row from each of 200 classes (0.2 each)
        seen.append(set(cls.tolist()))
    # class order would take classes 0..199 every time; a uniform draw spreads over the classes
    assert all(max(s) > 500 for s in seen)
    assert len(set.union(*seen)) > 600 and len(seen[0] & seen[1]) < 100


def test_the_quota_is_proportional_and_the_untied_classes_keep_theirs():
    labels = np.concatenate([np.full(50, 0), np.full(30, 1), np.full(10, 2), np.full(10, 3)])
    idx = np.arange(labels.size)
    for seed in range(20):
        out = stratified_subsample(idx, labels, 21, np.random.default_rng(seed))
        counts = np.bincount(labels[out], minlength=4)
        # exact shares 10.5, 6.3, 2.1, 2.1: floors 10, 6, 2, 2 and one row left: class 0 has the largest part
        assert counts.tolist() == [11, 6, 2, 2]


def test_a_plan_of_a_few_classes_draws_the_tasks_of_the_full_plan():
    y = np.repeat(np.arange(12), 40)
    kw = dict(max_test_normals=100, repeats=3, random_state=7, contamination=0.1)
    full = {(t.repeat, t.c): t for t in class_split_plan(y, **kw).tasks}
    part = class_split_plan(y, class_positions=[9, 2, 2], **kw)
    assert sorted({t.c for t in part.tasks}) == [2, 9] and len(part.tasks) == 6
    for t in part.tasks:
        ref = full[t.repeat, t.c]
        np.testing.assert_array_equal(t.test_idx, ref.test_idx)
        np.testing.assert_array_equal(t.y_test, ref.y_test)
        np.testing.assert_array_equal(t.train_idx, ref.train_idx)
        assert (t.seed, t.n_train, t.n_neg_available) == (ref.seed, ref.n_train, ref.n_neg_available)


@pytest.mark.parametrize("K, n", [(2, 50), (12, 360), (1000, 20_000), ((1 << 16) + 3, 140_000)])
def test_stratified_assignment_draws_what_a_scan_per_class_draws(K, n):
    """The classes' members come from one stable grouping: the same arrays as scanning the rows once per class,
    so the same permutations and the same split for a seed (classes of 0, 1, 2 and many rows)."""
    from auditad.protocol.plan import stratified_assignment

    def by_scans(y_idx, K, train_fraction, rng):
        is_train = np.zeros(y_idx.size, dtype=bool)
        for c in range(K):
            members = np.flatnonzero(y_idx == c)
            n_tr = int(round(train_fraction * members.size))
            if members.size >= 2:
                n_tr = min(max(n_tr, 1), members.size - 1)
            is_train[rng.permutation(members)[:n_tr]] = True
        return is_train

    rng = np.random.default_rng(K)
    y_idx = rng.integers(0, K, n)
    y_idx[:3] = K - 1
    y_idx[3:5] = 1  # (and class 0 may hold one row or none)
    for seed in (0, 1):
        got = stratified_assignment(y_idx, K, 0.8, np.random.default_rng(seed))
        np.testing.assert_array_equal(got, by_scans(y_idx, K, 0.8, np.random.default_rng(seed)))
