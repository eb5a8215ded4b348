r"""The two class-split protocols as strategy objects: what differs between K−1 vs 1 and 1 vs K−1.

For every class c of a labelled benchmark a class-split protocol builds one anomaly-detection task.
The protocols differ in three things only, and each is a method of its strategy object:

* which rows are the normals and which the anomalies of task c
  (`LeaveOneClassOut.normal_anomalous`);
* the training rows of task c: the repeat's training pool minus class c (K−1 vs 1, built only when
  asked for, see `PoolMinusClass`), or class c in the pool
  (1 vs K−1);
* the neighbour lists of the kNN and LOF detectors: one shared pass over the pool for all K tasks
  (`auditad.protocol.shared.LeaveOneOutLists`), or one search per task among its own training rows
  (`auditad.protocol.shared.one_class_lists`).

Everything else (splits, subsamples, seeds, scoring, rates) is common and lives in
[`class_split_plan`][auditad.protocol.class_split_plan] and [`audit_protocol`][auditad.protocol.audit_protocol],
which ask `protocol_strategy` for the object of a protocol name.

References
----------
1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection", §2.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod

import numpy as np

from .._validation import check_choice
from ..execution import distributed
from .neighbor_lists import LOFTables, lof_tables, reachability_density, to_distance
from .shared import LeaveOneOutLists, one_class_lists

__all__ = [
    "PROTOCOLS",
    "ClassSplitProtocol",
    "LeaveOneClassOut",
    "OneClass",
    "protocol_strategy",
    "TrainingRows",
    "PoolMinusClass",
]


# --------------------------------------------------------------------------- training rows of one task
class TrainingRows:
    """The training rows of one task, stored as they are (1 vs K−1: class c in the pool).

    Parameters
    ----------
    rows : ndarray of int64, sorted
        The training rows.

    Attributes
    ----------
    shared_pool : ndarray or None
        The repeat's whole training pool when the rows are that pool minus one class
        (`PoolMinusClass`), else None.

    See Also
    --------
    - `PoolMinusClass`: the K−1 vs 1 training rows.
    """

    shared_pool = None

    def __init__(self, rows: np.ndarray):
        self._rows = rows

    def rows(self) -> np.ndarray:
        """The training rows (sorted)."""
        return self._rows


class PoolMinusClass(TrainingRows):
    """The training rows of a K−1 vs 1 task: the repeat's pool minus class c, built only when asked for.

    K tasks share one pool; K materialised copies would take K·n memory.

    Parameters
    ----------
    pool : ndarray of int64, sorted
        The repeat's training pool (training rows of every class).
    pool_labels : ndarray of int
        Class index of each pool row.
    c : int
        The held-out class.

    See Also
    --------
    - `TrainingRows`: the interface.
    """

    def __init__(self, pool: np.ndarray, pool_labels: np.ndarray, c: int):
        self.pool, self.pool_labels, self.c = pool, pool_labels, c
        self.shared_pool = pool

    def rows(self) -> np.ndarray:
        """The pool rows not of class c (sorted; built on each call)."""
        return self.pool[self.pool_labels != self.c]


# --------------------------------------------------------------------------- the protocols
class ClassSplitProtocol(ABC):
    """What a class-split protocol decides for task c; one subclass per protocol.

    Attributes
    ----------
    name : str
        The protocol's name (one of `PROTOCOLS`).

    See Also
    --------
    - `LeaveOneClassOut`: K−1 vs 1.
    - `OneClass`: 1 vs K−1.
    """

    name = ""

    @abstractmethod
    def normal_anomalous(self, in_c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(normal, anomalous)`` masks over the samples of task c, from ``in_c`` (the samples of class c)."""

    @abstractmethod
    def training_rows(
        self,
        c: int,
        normal: np.ndarray,
        is_train: np.ndarray,
        pool: np.ndarray,
        pool_labels: np.ndarray,
        pool_counts: np.ndarray,
    ) -> tuple[TrainingRows, int]:
        """The training rows of task c and their number.

        ``normal`` masks the task's normals, ``is_train`` the repeat's training pool; ``pool`` holds the pool's
        rows, ``pool_labels`` their class indices and ``pool_counts`` the pool rows per class.
        """

    def skip_reason(self, in_c: np.ndarray) -> str | None:
        """Why class c cannot form a task whatever the split (None: it can)."""
        return None

    @abstractmethod
    def neighbour_pass(
        self,
        X,
        y_idx,
        tasks,
        k,
        *,
        need_train,
        metric,
        backend,
        n_jobs,
        seed,
        executor,
        recalls,
        project_dim="auto",
        shared_index=None,
    ):
        """The neighbour lists of the kNN and LOF detectors on ``tasks`` (one repeat's, each with ``c``,
        ``test_idx``, ``y_test``, ``train_idx`` and ``shared_pool``): an object with ``query_lists(task)``
        (the test rows' ``k`` nearest training rows, ``(idx, d2)``) and ``lof_tables(task, q_idx, k)``
        (the LOF tables of the training rows those lists reach). ``X`` holds the prepared rows (`prepare_rows`);
        ``need_train``: a detector needs the training rows' own lists (LOF); an approximate search appends its
        measured ``(recall, n_queries)`` to ``recalls``; ``project_dim``: the approximate backend's PCA projection
        (as in `auditad.neighbors.kneighbors`); ``shared_index``: an approximate index over every row shared by
        several draws of the split (`auditad.protocol.shared.LeaveOneOutLists`; a protocol may ignore it, and it
        is passed only when given)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class LeaveOneClassOut(ClassSplitProtocol):
    """K−1 vs 1: the anomalies of task c are class c, the normals every other class.

    Task c trains on the repeat's training pool minus class c; the neighbour lists of all K tasks of a
    repeat come from one shared pass over the pool (`auditad.protocol.shared.LeaveOneOutLists`).

    See Also
    --------
    - `OneClass`: the other protocol.
    - [`class_split_plan`][auditad.protocol.class_split_plan]: the tasks it gives.
    """

    name = "leave_one_class_out"

    def normal_anomalous(self, in_c):
        return ~in_c, in_c

    def training_rows(self, c, normal, is_train, pool, pool_labels, pool_counts):
        return PoolMinusClass(pool, pool_labels, c), int(pool.size - pool_counts[c])

    def neighbour_pass(self, X, y_idx, tasks, k, **search):
        return _LeaveOneOutPass(X, y_idx, tasks, k, **search)


class OneClass(ClassSplitProtocol):
    """1 vs K−1: the normals of task c are class c, the anomalies every other class.

    Task c trains on class c in the repeat's training pool; its neighbour lists come from one search among
    those rows (`auditad.protocol.shared.one_class_lists`), one pass over all tasks in total. A class of
    fewer than 2 samples cannot be split into training and test normals.

    See Also
    --------
    - `LeaveOneClassOut`: the other protocol.
    - [`class_split_plan`][auditad.protocol.class_split_plan]: the tasks it gives.
    """

    name = "one_class"

    def normal_anomalous(self, in_c):
        return in_c, ~in_c

    def training_rows(self, c, normal, is_train, pool, pool_labels, pool_counts):
        rows = np.flatnonzero(normal & is_train)
        return TrainingRows(rows), int(rows.size)

    def skip_reason(self, in_c):
        n_c = int(in_c.sum())
        return f"class has {n_c} sample(s): too few to split into train and test normals" if n_c < 2 else None

    def neighbour_pass(self, X, y_idx, tasks, k, **search):
        search.pop("shared_index", None)  # (one search per task among its class's training rows: no index to share)
        return _OneClassPass(X, k, **search)


_STRATEGIES = {p.name: p for p in (LeaveOneClassOut(), OneClass())}

#: Names of the class-split protocols.
PROTOCOLS = tuple(_STRATEGIES)


def protocol_strategy(protocol: str) -> ClassSplitProtocol:
    """The strategy object of the protocol named ``protocol`` (one of `PROTOCOLS`).

    Raises
    ------
    InvalidInputError
        An unknown name (the message names ``protocol``).

    See Also
    --------
    - `LeaveOneClassOut`, `OneClass`
    """
    return _STRATEGIES[check_choice(protocol, PROTOCOLS, name="protocol")]


# --------------------------------------------------------------------------- neighbour passes
class _LeaveOneOutPass:
    """The lists of every K−1 vs 1 task of one repeat from one pass over the pool."""

    #: its tasks only read the shared lists: they may be scored on threads at once
    parallel_tasks = True

    def __init__(self, X, y_idx, tasks, k, *, need_train, metric, seed, recalls, **search):
        """``search``: ``backend``, ``n_jobs``, ``executor``, ``project_dim`` and ``shared_index`` of
        `auditad.protocol.shared.LeaveOneOutLists`."""
        # the union of the tasks' training sets: the whole pool once two classes remain (a row of class c'
        # trains every task c != c'), else the one task's pool minus its class
        pool = tasks[0].shared_pool if len(tasks) >= 2 else tasks[0].train_idx
        normals = [t.test_idx[t.y_test == 0] for t in tasks]
        rows = np.concatenate(normals + ([pool] if need_train else []))
        anomalies = {t.c: t.test_idx[t.y_test == 1] for t in tasks}
        self._lists = LeaveOneOutLists(X, y_idx, pool, rows, anomalies, k, random_state=seed, **search)
        self._metric, self._n_total = metric, X.shape[0]
        self._base, self._base_lock = {}, threading.Lock()  # k -> the whole pool's LOF tables (`_base_tables`)
        if self._lists.recall is not None and recalls is not None:
            recalls.append((self._lists.recall, self._lists.n_recall_queries))

    def query_lists(self, task):
        return self._lists.lists(task.c, task.test_idx)

    def lof_tables(self, task, q_idx, k):
        """lrd only of the training rows the queries reach (the same numbers as from all training rows); a row
        whose list and whose neighbours' lists are their pool heads in this task takes its values from the
        whole pool's tables (`_base_tables`, computed once per k)."""
        lists, c = self._lists, task.c
        if k not in self._base:
            with self._base_lock:
                if k not in self._base:
                    self._base[k] = _base_tables(lists, k, self._metric, self._n_total)
        return _lof_tables_reached(
            lambda rows: lists.lists(c, rows),
            lambda rows, j: lists.kth_d2(c, rows, j),
            q_idx[:, :k],
            k,
            self._metric,
            self._n_total,
            base=(lambda rows: lists.unchanged(c, rows), *self._base[k]),
        )


class _OneClassPass:
    """The lists of every 1 vs K−1 task of one repeat, one search per task among its training rows."""

    def __init__(self, X, k, *, need_train, metric, backend, n_jobs, seed, executor, recalls, project_dim="auto"):
        self._X, self._k, self._need_train, self._metric = X, k, need_train, metric
        self._search = dict(
            backend=backend,
            n_jobs=n_jobs,
            random_state=seed,
            executor=executor,
            recalls=recalls,
            project_dim=project_dim,
        )
        self._shared_rows = None
        self._train_lists = None  # (task class, idx, d2) of the last task's training rows

    def query_lists(self, task):
        X, backend, executor = self._X, self._search["backend"], self._search["executor"]
        rows = np.concatenate([task.test_idx, task.train_idx]) if self._need_train else task.test_idx
        # the rows travel to a cluster once for all tasks' exact searches ("auto" may pick exact per task)
        if self._shared_rows is None and backend != "approximate" and distributed(executor):
            self._shared_rows = executor.share(X)
        a_i, a_d2 = one_class_lists(X, task.train_idx, rows, self._k, shared_rows=self._shared_rows, **self._search)
        m = task.test_idx.size
        self._train_lists = (task.c, a_i[m:], a_d2[m:]) if self._need_train else None
        return a_i[:m], a_d2[:m]

    def lof_tables(self, task, q_idx, k):
        _, tr_i, tr_d2 = self._train_lists
        return lof_tables(self._X.shape[0], task.train_idx, tr_d2[:, :k], tr_i[:, :k], self._metric)


def _base_tables(lists, k, metric, n_total):
    """The LOF tables (k-distance, lrd; by global row, NaN elsewhere) of the rows of ``lists`` from the first k
    entries of their pool lists, in float64 as `LeaveOneOutLists.lists` gives them (the same bits as
    `_lof_tables_reached`). Rows with padding among those entries get values but never use them
    (`LeaveOneOutLists.unchanged`)."""
    tables = lof_tables(n_total, lists.rows, lists.A_d2[:, :k], lists.A_idx[:, :k], metric, dtype=np.float64)
    return tables.kdist, tables.lrd


def _lof_tables_reached(get_rows, get_kth, q_nb, k, metric, n_total, base=None):
    """LOF tables (k-distance, lrd) of the training rows that the queries' lists reach.

    lrd(o) needs o's own list and the k-distances of o's neighbours, so two
    rings around the queries suffice; every value equals the one computed from
    all training rows (`lof_tables`). ``get_rows(rows)`` gives the
    rows' lists (idx, d2), ``get_kth(rows, j)`` only their column j of d2 (the second ring needs no more).
    ``base = (unchanged, kdist, lrd)``: the rows ``unchanged(rows)`` marks take their values from the tables
    ``kdist``, ``lrd`` (`_base_tables`); only the others are computed here.
    """
    mark = np.zeros(n_total, dtype=bool)  # sorted unique indices by marking: O(n + entries), no sort
    mark[q_nb[q_nb >= 0]] = True
    ring1 = np.flatnonzero(mark)
    kdist = np.full(n_total, np.nan)
    lrd = np.full(n_total, np.nan)
    same = ring1[:0]
    if base is not None:
        taken = base[0](ring1)
        same, ring1 = ring1[taken], ring1[~taken]
        kdist[same], lrd[same] = base[1][same], base[2][same]
    i1, d1 = get_rows(ring1)
    i1, d1 = i1[:, :k], to_distance(d1[:, :k], metric)
    mark2 = np.zeros(n_total, dtype=bool)
    mark2[i1[i1 >= 0]] = True
    mark2[ring1] = False
    mark2[same] = False  # (their k-distance is set, from the base tables: the same value)
    ring2 = np.flatnonzero(mark2)
    kdist[ring1] = d1[:, -1]
    if ring2.size:  # only their k-th distance is needed
        kdist[ring2] = to_distance(get_kth(ring2, k - 1), metric)
    lrd[ring1] = reachability_density(d1, kdist[i1])
    return LOFTables(kdist, lrd)
