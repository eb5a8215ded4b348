"""One neighbour pass per (representation, repeat) serving every class-split task.

In the K−1 vs 1 protocol task c trains on the training pool P minus class c.
Instead of K searches of n points against |P| rows, :class:`LeaveOneOutLists`

(a) searches every needed row once against the whole pool, keeping the
    ``k' = 2 k`` nearest (:func:`~auditad.protocol.neighbours.nearest`, exact,
    ties by index); the lists of task c are these lists with class c removed.
    A prefix of the exact order of P with class c removed is a prefix of the
    exact order of P \\ c, so the first k remaining entries are exact whenever
    at least k remain. Fewer than k remain only when class c holds more than
    ``k' − k = k`` of the ``2k`` entries, i.e. is the row's strict majority —
    at most one class per row;
(b) searches, for each class c, the samples of class c (the anomalies of task
    c) and the rows whose majority class is c against P \\ c. Over all c this
    is about one more pass.

With the approximate backend, (b) would build one approximate index per class
(K index builds of |P| rows). Instead one approximate search of the rows and
the anomaly rows against P keeps ``k_w = WIDE_FACTOR · k`` candidates; the
anomalies of task c (rows of class c) take the first k candidates not of class
c, and only rows with fewer than k such candidates, and the majority rows of
(a), are searched exactly against P \\ c. The lists are then approximate (as
any list of the approximate backend) and cost one index build per repeat.

In the 1 vs K−1 protocol task c trains on class c only, so one search per task
against the training rows of class c already costs one pass in total
(:func:`one_class_lists`).

References
----------
1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly
   Detection", §2 (the K−1 vs 1 and 1 vs K−1 protocols).
"""

from __future__ import annotations

import numpy as np

from .neighbours import nearest

__all__ = ["LeaveOneOutLists", "one_class_lists", "filter_lists", "filter_own_class", "WIDE_FACTOR"]

#: Approximate backend: candidates per row of the one search against the whole pool, in units of k.
WIDE_FACTOR = 4


def filter_lists(idx: np.ndarray, d2: np.ndarray, labels: np.ndarray, c: int, k: int):
    """The first ``k`` valid entries of each row whose label is not ``c`` (padded with −1 / inf)."""
    mask = (labels != c) & (idx >= 0)
    sel = mask & (np.cumsum(mask, axis=1) <= k)
    order = np.argsort(~sel, axis=1, kind="stable")[:, :k]
    keep = np.take_along_axis(sel, order, axis=1)
    out_i = np.where(keep, np.take_along_axis(idx, order, axis=1), -1)
    out_d = np.where(keep, np.take_along_axis(d2, order, axis=1), np.inf)
    if out_i.shape[1] < k:  # a pool smaller than k
        pad = k - out_i.shape[1]
        out_i = np.hstack([out_i, np.full((out_i.shape[0], pad), -1, dtype=np.int64)])
        out_d = np.hstack([out_d, np.full((out_d.shape[0], pad), np.inf)])
    return out_i, out_d


def filter_own_class(idx: np.ndarray, d2: np.ndarray, labels: np.ndarray, own: np.ndarray, k: int):
    """The first ``k`` valid entries of each row whose label differs from that row's ``own`` class.

    Returns ``(idx, d2, n_found)``; rows with fewer than ``k`` such entries are padded with −1 / inf.
    """
    mask = (labels != own[:, None]) & (idx >= 0)
    found = mask.sum(axis=1)
    sel = mask & (np.cumsum(mask, axis=1) <= k)
    order = np.argsort(~sel, axis=1, kind="stable")[:, :k]
    keep = np.take_along_axis(sel, order, axis=1)
    out_i = np.where(keep, np.take_along_axis(idx, order, axis=1), -1)
    out_d = np.where(keep, np.take_along_axis(d2, order, axis=1), np.inf)
    if out_i.shape[1] < k:
        pad = k - out_i.shape[1]
        out_i = np.hstack([out_i, np.full((out_i.shape[0], pad), -1, dtype=np.int64)])
        out_d = np.hstack([out_d, np.full((out_d.shape[0], pad), np.inf)])
    return out_i, out_d, found


class LeaveOneOutLists:
    """Exact k-neighbour lists among P \\ c for every task c of one repeat (K−1 vs 1).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Prepared rows of the representation.
    y_idx : ndarray of shape (n,), int
        Class index of every sample.
    pool : ndarray of int, sorted
        The training pool P (training rows of every class).
    rows : ndarray of int
        Rows that are normals of some task (test normals, and the pool rows
        when a detector needs the training rows' own lists).
    anomalies : dict int -> ndarray of int
        The anomaly rows of each task c.
    k : int
        Neighbours per list.
    backend, n_jobs, random_state, executor
        Passed to :func:`~auditad.protocol.neighbours.nearest`.
    """

    def __init__(self, X, y_idx, pool, rows, anomalies, k, *, backend="auto", n_jobs=None, random_state=None,
                 executor=None):
        from .._neighbors import choose_backend

        self.y = y_idx
        self.k = int(k)
        n = X.shape[0]
        rows = np.unique(np.asarray(rows, dtype=np.int64))
        kA = min(2 * self.k, pool.size)
        self.pos = np.full(n, -1, dtype=np.int64)
        self.pos[rows] = np.arange(rows.size)
        anomaly_rows = np.unique(np.concatenate([np.asarray(a, dtype=np.int64) for a in anomalies.values()]
                                                + [np.empty(0, np.int64)]))
        if backend == "auto":
            backend = choose_backend(rows.size + anomaly_rows.size, pool.size, X.shape[1], k=kA, self_search=False)
        self.backend = backend
        # anomaly rows with their list among P \ own class already known (approximate backend): row -> position
        self.own_pos = np.full(n, -1, dtype=np.int64)
        exact_anomalies = anomalies
        if backend == "approximate":
            queries = np.union1d(rows, anomaly_rows)
            kW = min(max(WIDE_FACTOR * self.k, kA), pool.size)
            W_idx, W_d2 = nearest(X, pool, queries, kW, exclude_self=True, backend="approximate", n_jobs=n_jobs,
                                  random_state=random_state, executor=executor)
            at = np.searchsorted(queries, rows)
            self.A_idx, self.A_d2 = W_idx[at, :kA], W_d2[at, :kA]
            at = np.searchsorted(queries, anomaly_rows)
            w_lab = np.where(W_idx[at] >= 0, y_idx[np.maximum(W_idx[at], 0)], -1)
            own = y_idx[anomaly_rows]
            self.O_idx, self.O_d2, found = filter_own_class(W_idx[at], W_d2[at], w_lab, own, self.k)
            del W_idx, W_d2, w_lab
            other = pool.size - np.bincount(y_idx[pool], minlength=int(y_idx.max()) + 1)[own]
            ok = found >= np.minimum(self.k, other)  # enough candidates of other classes (or all of them)
            self.own_pos[anomaly_rows[ok]] = np.flatnonzero(ok)
            exact_anomalies = {c: anomaly_rows[~ok & (own == c)] for c in np.unique(own[~ok]).tolist()}
            self.n_anomalies_searched = int((~ok).sum())
        else:
            self.A_idx, self.A_d2 = nearest(X, pool, rows, kA, exclude_self=True, backend=backend, n_jobs=n_jobs,
                                            random_state=random_state, executor=executor)
            self.n_anomalies_searched = int(anomaly_rows.size)
        labels = np.where(self.A_idx >= 0, y_idx[np.maximum(self.A_idx, 0)], -1)
        self.A_lab = labels
        in_pool = np.zeros(n, dtype=bool)
        in_pool[pool] = True
        available = pool.size - in_pool[rows].astype(np.int64)
        complete = kA >= available  # the list holds every other pool row: filtering is exact for any c
        if kA > 0:
            mid = np.sort(labels, axis=1)[:, kA // 2]
            count = (labels == mid[:, None]).sum(axis=1)
            short = ~complete & (count > kA - self.k) & (mid != y_idx[rows])
        else:
            mid, short = np.zeros(rows.size, dtype=np.int64), np.zeros(rows.size, dtype=bool)
        self.major = np.where(short, mid, -1)  # the one class whose removal leaves fewer than k entries
        self.B: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        classes = set(exact_anomalies) | set(np.unique(self.major[short]).tolist())
        exact = "exact" if backend == "approximate" else backend  # the few fallback rows: exact search
        for c in sorted(classes):
            q = np.unique(np.concatenate([np.asarray(exact_anomalies.get(c, []), dtype=np.int64),
                                          rows[self.major == c]]))
            ref = pool[y_idx[pool] != c]
            bi, bd = nearest(X, ref, q, self.k, exclude_self=True, backend=exact, n_jobs=n_jobs,
                             random_state=random_state, executor=executor)
            self.B[c] = (q, bi, bd)
        self.n_short = int(short.sum())

    def lists(self, c: int, rows: np.ndarray):
        """``(idx, d2)`` of shape (len(rows), k): each row's k nearest among P \\ c (self excluded)."""
        rows = np.asarray(rows, dtype=np.int64)
        out_i = np.full((rows.size, self.k), -1, dtype=np.int64)
        out_d = np.full((rows.size, self.k), np.inf)
        p = self.pos[rows]
        use_b = (p < 0) | (self.major[np.maximum(p, 0)] == c) | (self.y[rows] == c)  # anomalies of task c: (b)
        a = np.flatnonzero(~use_b)
        if a.size:
            pa = p[a]
            out_i[a], out_d[a] = filter_lists(self.A_idx[pa], self.A_d2[pa], self.A_lab[pa], c, self.k)
        b = np.flatnonzero(use_b)
        if b.size:
            o = self.own_pos[rows[b]]
            known = (o >= 0) & (self.y[rows[b]] == c)  # approximate backend: the row's list among P \ own class
            if known.any():
                out_i[b[known]], out_d[b[known]] = self.O_idx[o[known]], self.O_d2[o[known]]
                b = b[~known]
        if b.size:
            q, bi, bd = self.B[c]
            j = np.searchsorted(q, rows[b])
            out_i[b], out_d[b] = bi[j], bd[j]
        return out_i, out_d


def one_class_lists(X, train_idx, rows, k, *, backend="auto", n_jobs=None, random_state=None, executor=None):
    """k nearest training rows of class c for ``rows`` (1 vs K−1: one search per task, one pass in total)."""
    return nearest(X, train_idx, rows, k, exclude_self=True, backend=backend, n_jobs=n_jobs,
                   random_state=random_state, executor=executor)
