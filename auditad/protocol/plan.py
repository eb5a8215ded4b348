"""The split plan of a class-split protocol: every task's training rows, test rows and seeds, drawn up front.

[`audit_protocol`][auditad.protocol.audit_protocol] draws its splits, subsamples and detector seeds here, before any
detector
runs, so the plan depends only on the labels and the settings (not on the representations, the
detectors or ``n_jobs``). [`class_split_plan`][auditad.protocol.class_split_plan] gives the same plan on its own: e.g.
to measure
how many test rows of each task have a copy among the task's training rows
(`auditad.duplicates.DuplicatesResult.overlap`) without running a detector.

References
----------
1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection", §2.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._rng import check_random_state
from .._validation import check_int, check_labels, check_off_or_int, check_probability, check_split, describe
from ..errors import InvalidInputError
from .shared import stable_order
from .strategies import TrainingRows, protocol_strategy

__all__ = [
    "DEFAULT_MAX_TEST_NORMALS",
    "SplitTask",
    "SplitPlan",
    "class_split_plan",
    "check_plan_arguments",
    "check_split",
    "stratified_assignment",
    "stratified_subsample",
]

#: Default cap on the test normals scored per task. Isolation Forest scores every test normal of
#: every task (the remaining K × n term once neighbours are shared); with 10 000 normals per task
#: a 1M-sample, 1000-class audit scores about 1000 × (10 000 + 1 000) points per detector instead
#: of 1000 × 200 000, while the normals' share of the DeLong standard error of AUROC(c) stays below
#: √(1/(4·10⁴)) = 0.005 (≈ 0.003 near AUROC = ½) — small next to the class-to-class spread the audit measures.
DEFAULT_MAX_TEST_NORMALS = 10_000


def check_plan_arguments(train_fraction, contamination, max_test_normals, repeats) -> tuple:
    """``(train_fraction, contamination, max_test_normals, repeats)`` checked, in that order (shared with
    [`audit_protocol`][auditad.protocol.audit_protocol])."""
    train_fraction = check_probability(train_fraction, name="train_fraction", open_interval=True)
    if contamination is not None:
        contamination = check_probability(contamination, name="contamination", open_interval=True)
    max_test_normals = check_off_or_int(max_test_normals, name="max_test_normals", off="every test normal")
    return train_fraction, contamination, max_test_normals, check_int(repeats, name="repeats", low=1)


def stratified_assignment(y_idx: np.ndarray, K: int, train_fraction: float, rng: np.random.Generator) -> np.ndarray:
    """Random train/test assignment of every sample, stratified by class (True = train).

    Class c's members are its rows in increasing order (one stable grouping of all rows, not K scans of them)."""
    is_train = np.zeros(y_idx.size, dtype=bool)
    grouped = stable_order(y_idx, K)
    start = np.concatenate([[0], np.cumsum(np.bincount(y_idx, minlength=K)[:K])])
    for c in range(K):
        members = grouped[start[c] : start[c + 1]]
        n_c = members.size
        n_tr = int(round(train_fraction * n_c))
        if n_c >= 2:
            n_tr = min(max(n_tr, 1), n_c - 1)
        is_train[rng.permutation(members)[:n_tr]] = True
    return is_train


def stratified_subsample(idx: np.ndarray, labels: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` of the rows ``idx`` without replacement, stratified by ``labels`` (sorted indices).

    Each class gets ⌊size · n_j / N⌋ rows and the remaining rows go to the
    largest fractional parts; classes tied at the last fractional part taken are chosen uniformly at random
    (with many classes of equal size, e.g. 1 000 classes of 200 test rows and ``size`` = 200, every class has the
    same fractional part: taking them in class order would give every task the test normals of the same 200
    classes). Rows within a class are a uniform draw.
    """
    if size >= idx.size:
        return idx
    small = labels.dtype.kind in "iu" and labels.size and labels.min() >= 0 and labels.max() < 2**15
    if small:  # class indices: counted, and grouped by a radix sort (K = 1 000 tasks of 200 000 rows each)
        labels = labels.astype(np.int16)
        counts = np.bincount(labels)
        counts = counts[counts > 0]
    else:
        counts = np.unique(labels, return_counts=True)[1]
    exact = size * counts / idx.size
    quota = np.floor(exact).astype(np.int64)
    rest = size - int(quota.sum())
    if rest > 0:
        frac = exact - quota
        cut = np.sort(frac)[::-1][rest - 1]  # the last fractional part taken
        above, tied = np.flatnonzero(frac > cut), np.flatnonzero(frac == cut)
        quota[above] += 1
        need = rest - above.size
        quota[tied if need >= tied.size else rng.choice(tied, size=need, replace=False)] += 1
    grouped = idx[np.argsort(labels, kind="stable")]  # each class's rows in their order in idx, classes sorted
    starts = np.concatenate([[0], np.cumsum(counts)])
    return np.sort(grouped[_class_draws(rng, starts, quota)])


def _tail_shuffled(pop: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Where ``Generator.choice(pop, size, replace=False)`` shuffles the tail of ``arange(pop)`` (numpy's rule)
    instead of using Floyd's algorithm."""
    return (pop > 10_000) & (size > pop // 50)


def _class_draws(rng: np.random.Generator, starts: np.ndarray, quota: np.ndarray) -> np.ndarray:
    """Positions (into the grouped rows; class j at ``starts[j]:starts[j + 1]``) of ``quota[j]`` rows of every
    class, the same sets as ``rng.choice(rows of class j, quota[j], replace=False)`` class by class, with the
    generator left in the same state.

    ``Generator.choice`` draws a small sample by Floyd's algorithm: for t = P − q .. P − 1 a bounded integer
    u ∈ {0..t}, taken unless already taken, else t; then it shuffles the q values (q − 1 bounded integers, of
    ranges q − 1 .. 1). Every one of these draws is one bounded integer of the generator, the one
    ``Generator.integers`` makes for each element of an array of bounds: one ``integers`` call draws them for
    a run of classes (not one ``choice`` call per class: 1 000 calls per task of a 1 000-class benchmark),
    and `_floyd_sets` resolves the collisions. The shuffle only orders a class's sample, which is sorted
    anyway. A class that ``choice`` would tail-shuffle instead (over 10 000 rows, a sample over 1/50 of them)
    gets ``choice`` itself, in its turn. A test compares both, sample and generator state, for many sizes.
    """
    js = np.flatnonzero(quota > 0)
    pop, size = np.diff(starts)[js], quota[js].astype(np.int64)
    tail = _tail_shuffled(pop, size)
    out = []
    lo = 0
    for cut in [*np.flatnonzero(tail), js.size]:
        if cut > lo:  # a run of Floyd classes
            out.append(starts[js[lo:cut]].repeat(size[lo:cut]) + _floyd_sets(rng, pop[lo:cut], size[lo:cut]))
        if cut < js.size:
            j = js[cut]
            out.append(starts[j] + rng.choice(int(pop[cut]), size=int(size[cut]), replace=False))
        lo = cut + 1
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


def _floyd_sets(rng: np.random.Generator, pop: np.ndarray, size: np.ndarray) -> np.ndarray:
    """The samples (0-based, class after class, unsorted within a class) that Floyd's algorithm takes for
    classes of ``pop`` rows and samples of ``size``, from one ``integers`` call; the shuffle draws after each
    class's steps are made and discarded (see `_class_draws`).

    Resolution without a loop over the steps (as `auditad.nulls._kernels._floyd`, per class): step b takes its
    draw u_b unless u_b was drawn at an earlier step of its class (taken then, or that step collided because
    u_b was taken before it), or u_b is the value t_a of an earlier step a that collided (a chain, followed
    until nothing changes: a few rounds); a collided step takes t_b, never taken before it.
    """
    n_draws = 2 * size - 1  # per class: q Floyd steps (ranges P − q .. P − 1), then q − 1 shuffle draws (q − 1 .. 1)
    cls = np.repeat(np.arange(size.size), n_draws)
    i = np.arange(cls.size) - np.repeat(np.cumsum(n_draws) - n_draws, n_draws)  # position in its class's draws
    q, t0 = size[cls], (pop - size)[cls]
    is_step = i < q
    u = rng.integers(0, np.where(is_step, t0 + i, 2 * q - 1 - i) + 1)[is_step]
    seg, t0, t = cls[is_step], t0[is_step], (t0 + i)[is_step]  # the steps: class, P − q, step value t
    n_steps = u.size
    pos = np.arange(n_steps)
    order = np.lexsort((pos, u, seg))
    same = (seg[order[1:]] == seg[order[:-1]]) & (u[order[1:]] == u[order[:-1]])
    drawn_before = np.zeros(n_steps, dtype=bool)
    drawn_before[order[1:][same]] = True
    late = (u >= t0) & (u < t)  # u_b is the value t_a of the earlier step a = b − (t_b − u_b)
    prior = np.where(late, pos - (t - u), 0)
    taken = drawn_before
    while True:
        nxt = drawn_before | (late & taken[prior])
        if np.array_equal(nxt, taken):
            return np.where(taken, t, u)
        taken = nxt


@dataclass(frozen=True)
class SplitTask:
    """One task of a class-split protocol: the rows a detector is fitted on and the rows it scores.

    Attributes
    ----------
    c : int
        Position of the held-out class in `SplitPlan.classes`.
    repeat : int
        The repeat (split) number.
    test_idx : ndarray of int64
        Test rows: the test normals, then the anomalies.
    y_test : ndarray of int8
        1 for an anomaly, 0 for a normal, aligned with ``test_idx``.
    seed : int
        Seed of the task's detectors.
    n_train : int
        Training rows.
    n_neg_available : int
        Test normals before the ``max_test_normals`` subsample.
    n_excluded : int
        Test rows left out because an identical row is among the training rows
        (``exclude_test_copies``; 0 without it).

    See Also
    --------
    - [`SplitPlan`][auditad.protocol.plan.SplitPlan]: the plan holding the tasks.
    """

    c: int
    repeat: int
    test_idx: np.ndarray = field(repr=False)
    y_test: np.ndarray = field(repr=False)
    seed: int
    n_train: int
    n_neg_available: int
    n_excluded: int = 0
    _train: TrainingRows = field(default=None, repr=False)  # the protocol's training rows of the task

    @property
    def train_idx(self) -> np.ndarray:
        """Training rows (sorted; built on each access for a K−1 vs 1 task)."""
        return self._train.rows()

    @property
    def shared_pool(self) -> np.ndarray | None:
        """The repeat's whole training pool when the training rows are the pool minus class c, else None."""
        return self._train.shared_pool

    @property
    def training_rows(self) -> TrainingRows:
        """The training rows as the protocol holds them (``.rows()`` builds `train_idx`): small to send to another
        process (a K−1 vs 1 task's is the repeat's pool, shared by its tasks, and its class)."""
        return self._train


@dataclass(frozen=True)
class SplitPlan:
    """Every task of a class-split protocol, and the classes or repeats that could not form a task.

    Attributes
    ----------
    protocol : str
    classes : ndarray
        Sorted class labels.
    repeat_seeds : ndarray of int64
        Seed of each repeat (splits, subsamples, detector seeds, neighbour passes).
    tasks : tuple of SplitTask
        In draw order: repeat by repeat, class by class.
    skipped : tuple of (c, repeat, reason)
        Classes of a repeat without a task, and why.
    short_anomalies : tuple of (class label, available, wanted)
        Tasks with fewer anomalies than ``contamination`` asks for (all were used).

    See Also
    --------
    - [`class_split_plan`][auditad.protocol.class_split_plan]: draws it.
    - [`auditad.protocol.audit_protocol`][auditad.protocol.audit_protocol]: runs the detectors on it.
    """

    protocol: str
    classes: np.ndarray = field(repr=False)
    repeat_seeds: np.ndarray = field(repr=False)
    tasks: tuple = field(repr=False)
    skipped: tuple = ()
    short_anomalies: tuple = ()

    def task(self, label, repeat: int = 0) -> SplitTask:
        """The task holding out the class ``label`` in ``repeat``."""
        for t in self.tasks:
            if t.repeat == repeat and self.classes[t.c].item() == label:
                return t
        raise InvalidInputError(f"no task holds out class {describe(label)} in repeat {repeat!r}")

    def to_frame(self):
        """One row per task: ``class``, ``repeat``, ``n_train``, ``n_pos``, ``n_neg``, ``n_neg_available``,
        ``n_excluded``."""
        import pandas as pd

        return pd.DataFrame(
            [
                {
                    "class": self.classes[t.c].item(),
                    "repeat": t.repeat,
                    "n_train": t.n_train,
                    "n_pos": int(t.y_test.sum()),
                    "n_neg": int(t.y_test.size - t.y_test.sum()),
                    "n_neg_available": t.n_neg_available,
                    "n_excluded": t.n_excluded,
                }
                for t in self.tasks
            ],
            columns=["class", "repeat", "n_train", "n_pos", "n_neg", "n_neg_available", "n_excluded"],
        )


def _check_copy_ids(ids, n: int) -> np.ndarray:
    arr = np.asarray(ids)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise InvalidInputError(
            f"exclude_test_copies must be 1-D with one entry per sample ({n}), got shape {arr.shape}"
        )
    if arr.dtype.kind not in "iu" or (arr.size and arr.min() < 0):
        raise InvalidInputError(
            "exclude_test_copies must hold non-negative integer copy ids (e.g. "
            f"find_duplicates(X).value_ids), got {describe(arr)}"
        )
    return arr.astype(np.int64)


def class_split_plan(
    y,
    *,
    protocol: str = "leave_one_class_out",
    train_fraction: float = 0.8,
    split=None,
    contamination: float | None = None,
    max_test_normals: int = DEFAULT_MAX_TEST_NORMALS,
    repeats: int = 1,
    random_state=None,
    exclude_test_copies=None,
    class_positions=None,
) -> SplitPlan:
    r"""The tasks of a class-split protocol, as [`audit_protocol`][auditad.protocol.audit_protocol] draws them.

    For every repeat the samples are split into a training pool and test rows (a split stratified by
    class with ``train_fraction``, or the user's ``split``); then, for every class c:

    * ``"leave_one_class_out"`` (K−1 vs 1): training rows = the pool minus class c, test rows = the
      other classes' test rows (normals) and every row of class c (anomalies; only its test rows with
      a user ``split``);
    * ``"one_class"`` (1 vs K−1): training rows = class c in the pool, test rows = class c's test rows
      (normals) and the other classes' rows (anomalies).

    ``max_test_normals`` subsamples the test normals (stratified by class), ``contamination`` the
    anomalies. The same arguments (and seed) give the tasks of ``audit_protocol`` exactly, whatever its
    representations and detectors.

    Parameters
    ----------
    y : array-like of shape (n,)
        Class labels (at least 2 classes).
    protocol, train_fraction, split, contamination, max_test_normals, repeats, random_state
        As in [`audit_protocol`][auditad.protocol.audit_protocol].
    exclude_test_copies : array-like of shape (n,) of int, optional
        Copy id of every row: rows with the same id are identical (e.g.
        ``find_duplicates(X).value_ids``). Each task's test rows whose id occurs among the task's
        training rows are left out (after the subsamples), so that a detector is never scored on a
        row it was trained on:

        \[
        T'_c = \{\, i \in T_c : \mathrm{id}(i) \notin \{\mathrm{id}(j) : j \in \mathrm{Train}_c\} \,\}.
        \]

        A task left without anomalies or without normals is skipped.
    class_positions : collection of int, optional
        Draw only the tasks of these classes (positions in the sorted labels, as ``SplitTask.c``); the default
        draws every class's. A class's task does not depend on which other classes are drawn: every split and
        every class's seeds are drawn first, so a task is the same in the full plan and in a plan of a few
        classes (which costs only those classes' subsamples).

    Returns
    -------
    SplitPlan

    See Also
    --------
    - [`auditad.protocol.audit_protocol`][auditad.protocol.audit_protocol]: runs the detectors on these tasks.
    - `auditad.duplicates.DuplicatesResult.overlap`: test rows of a task with a copy among its training rows.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection", §2.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.repeat([0, 1, 2], 10)
    >>> plan = class_split_plan(y, random_state=0)
    >>> [(plan.classes[t.c].item(), t.n_train, int(t.y_test.sum())) for t in plan.tasks]
    [(0, 16, 10), (1, 16, 10), (2, 16, 10)]
    """
    y = check_labels(y, name="y", min_classes=2)
    n = y.shape[0]
    strategy = protocol_strategy(protocol)
    train_fraction, contamination, max_test_normals, S = check_plan_arguments(
        train_fraction, contamination, max_test_normals, repeats
    )
    user_split = None if split is None else check_split(split, n=n)
    copy_ids = None if exclude_test_copies is None else _check_copy_ids(exclude_test_copies, n)
    rng = check_random_state(random_state)

    classes, y_idx = np.unique(y, return_inverse=True)
    y_idx = y_idx.ravel()
    K = classes.size
    repeat_seeds = rng.integers(0, 2**63 - 1, size=S, dtype=np.int64)
    tasks, skipped, short_anomalies = [], [], []
    seen = None if copy_ids is None else np.zeros(int(copy_ids.max()) + 1, dtype=bool)
    for s in range(S):
        g = np.random.default_rng(int(repeat_seeds[s]))
        is_train = user_split if user_split is not None else stratified_assignment(y_idx, K, train_fraction, g)
        class_seeds = g.integers(0, 2**31 - 1, size=(K, 2))
        pool_s = np.flatnonzero(is_train)
        pool_labels = y_idx[pool_s]
        pool_counts = np.bincount(pool_labels, minlength=K)
        for c in range(K) if class_positions is None else sorted(int(c) for c in set(class_positions)):
            in_c = y_idx == c
            normal, anomalous = strategy.normal_anomalous(in_c)
            train_rows, n_train = strategy.training_rows(c, normal, is_train, pool_s, pool_labels, pool_counts)
            test_norm = np.flatnonzero(normal & ~is_train)
            anom = np.flatnonzero(anomalous & (~is_train if user_split is not None else True))
            reason = strategy.skip_reason(in_c)
            if reason is not None:
                skipped.append((c, s, reason))
                continue
            if n_train == 0 or test_norm.size == 0:
                skipped.append((c, s, f"no {'training' if n_train == 0 else 'test'} normals in the split"))
                continue
            if anom.size == 0:
                skipped.append((c, s, "no anomalies in the test split"))
                continue
            n_avail = test_norm.size
            if max_test_normals is not None and test_norm.size > max_test_normals:
                sub = np.random.default_rng([int(class_seeds[c, 0]), 1])
                test_norm = stratified_subsample(test_norm, y_idx[test_norm], max_test_normals, sub)
            if contamination is not None:
                target = max(1, int(round(contamination / (1.0 - contamination) * test_norm.size)))
                if target <= anom.size:
                    sub = np.random.default_rng(int(class_seeds[c, 0]))
                    anom = np.sort(sub.choice(anom, size=target, replace=False))
                else:
                    short_anomalies.append((classes[c].item(), anom.size, target))
            n_excluded = 0
            if copy_ids is not None:
                train_idx = train_rows.rows()
                seen[copy_ids[train_idx]] = True
                keep_norm, keep_anom = ~seen[copy_ids[test_norm]], ~seen[copy_ids[anom]]
                seen[copy_ids[train_idx]] = False
                n_excluded = int(test_norm.size - keep_norm.sum() + anom.size - keep_anom.sum())
                n_avail -= int(test_norm.size - keep_norm.sum())
                test_norm, anom = test_norm[keep_norm], anom[keep_anom]
                if test_norm.size == 0 or anom.size == 0:
                    which = "normal" if test_norm.size == 0 else "anomaly"
                    skipped.append((c, s, f"every test {which} has an identical row among the training rows"))
                    continue
            test_idx = np.concatenate([test_norm, anom])
            y_test = np.concatenate([np.zeros(test_norm.size, np.int8), np.ones(anom.size, np.int8)])
            tasks.append(
                SplitTask(c, s, test_idx, y_test, int(class_seeds[c, 1]), n_train, n_avail, n_excluded, train_rows)
            )
    return SplitPlan(
        protocol=strategy.name,
        classes=classes,
        repeat_seeds=repeat_seeds,
        tasks=tuple(tasks),
        skipped=tuple(skipped),
        short_anomalies=tuple(short_anomalies),
    )
