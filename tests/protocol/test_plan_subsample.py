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


def _choice_per_class(rng, starts, quota):
    """The oracle: one ``Generator.choice`` call per class, as the subsample drew before (and as a reader
    would write it)."""
    out = [
        starts[j] + rng.choice(int(starts[j + 1] - starts[j]), size=int(quota[j]), replace=False)
        for j in np.flatnonzero(quota > 0)
    ]
    return np.sort(np.concatenate(out)) if out else np.zeros(0, dtype=np.int64)


def _same_state(x, y) -> bool:
    if isinstance(x, dict):
        return x.keys() == y.keys() and all(_same_state(x[k], y[k]) for k in x)
    return bool(np.array_equal(x, y))


@pytest.mark.parametrize("bit_generator", [np.random.PCG64, np.random.MT19937, np.random.Philox, np.random.SFC64])
def test_class_draws_take_the_samples_choice_takes_class_by_class(bit_generator):
    """One ``integers`` call per run of classes, collisions resolved without a loop: the same sets as
    ``Generator.choice`` per class and the generator left in the same state, for samples of 1 row, of a whole
    class, of classes of one row, and around numpy's switch to its tail shuffle (over 10 000 rows, over 1/50)."""
    from auditad.protocol.plan import _class_draws, _tail_shuffled

    rs = np.random.default_rng(11)
    cases = [
        (np.array([1, 1, 1]), np.array([1, 0, 1])),
        (np.array([7, 5, 3]), np.array([7, 5, 3])),  # whole classes: every step from t = 0 on
        (np.array([12_000, 9, 30_000, 4]), np.array([241, 3, 601, 2])),  # tail shuffles between Floyd runs
        (np.array([12_000, 20_000]), np.array([240, 400])),  # over 10 000 rows, at most 1/50: Floyd
    ]
    for _ in range(300):
        pops = rs.integers(1, 60, int(rs.integers(1, 25)))
        cases.append((pops, np.array([int(rs.integers(0, p + 1)) for p in pops])))
    n_tail = 0
    for pops, quota in cases:
        starts = np.concatenate([[0], np.cumsum(pops)])
        n_tail += int(_tail_shuffled(pops, quota).sum())
        seed = int(rs.integers(2**32))
        a, b = np.random.Generator(bit_generator(seed)), np.random.Generator(bit_generator(seed))
        np.testing.assert_array_equal(np.sort(_class_draws(a, starts, quota)), _choice_per_class(b, starts, quota))
        assert _same_state(a.bit_generator.state, b.bit_generator.state)
        assert a.integers(2**62) == b.integers(2**62)
    assert n_tail == 2  # the tail-shuffle branch ran


def test_stratified_subsample_of_a_1000_class_task_is_the_per_class_choice():
    """A task of a 1 000-class benchmark (10 000 of 200 000 test normals): the subsample is the per-class
    ``choice`` draw's, row for row, for several seeds."""
    labels = np.random.default_rng(0).permutation(np.repeat(np.arange(1000), 200))
    idx = np.sort(np.random.default_rng(1).choice(10**6, labels.size, replace=False))
    grouped = idx[np.argsort(labels, kind="stable")]
    starts = np.arange(0, labels.size + 1, 200)
    for seed in range(3):
        got = stratified_subsample(idx, labels, 10_000, np.random.default_rng(seed))
        ref = grouped[_choice_per_class(np.random.default_rng(seed), starts, np.full(1000, 10))]
        np.testing.assert_array_equal(got, np.sort(ref))
