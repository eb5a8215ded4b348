r"""One neighbour pass per (representation, repeat) serving every class-split task.

In the K−1 vs 1 protocol task c trains on the training pool P minus class c.
Instead of K searches of n points against |P| rows, `LeaveOneOutLists`

(a) searches every needed row once against the whole pool, keeping the
    ``k' = 2 k`` nearest (`nearest`, exact,
    ties by index); the lists of task c are these lists with class c removed.
    A prefix of the exact order of P with class c removed is a prefix of the
    exact order of P \ c, so the first k remaining entries are exact whenever
    at least k remain. Fewer than k remain only when class c holds more than
    ``k' − k = k`` of the ``2k`` entries, i.e. is the row's strict majority —
    at most one class per row;
(b) searches, for each class c, the samples of class c (the anomalies of task
    c) and the rows whose majority class is c against P \ c. Over all c this
    is about one more pass.

With the approximate backend, (b) would build one approximate index per class
(K index builds of |P| rows). Instead one index over P
(`auditad.neighbors.ApproximateIndex`) answers every query of the
repeat: the rows and the anomaly rows get their 2k nearest in P (a row of P
takes them from the index's own NN-descent graph, unqueried); the anomalies
of task c (rows of class c) take the first k of them not of class c, and the
majority rows of (a) the first k not of their majority class; rows with
fewer than k such candidates are queried again, ever wider (`WIDE_FACTORS`:
8k, then 64k); only rows still short are searched by brute force against
P \ c (`masked_lists`). The lists are then approximate (as any list of the
approximate backend), at one index build per repeat whatever K is.

In the 1 vs K−1 protocol task c trains on class c only, so one search per task
against the training rows of class c already costs one pass in total
(`one_class_lists`).

References
----------
1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly
   Detection", §2 (the K−1 vs 1 and 1 vs K−1 protocols).
"""

from __future__ import annotations

import threading

import numpy as np

from ..execution import distributed, map_in_threads, resolve_n_jobs
from .neighbor_lists import (  # (list_recall and its pool bounds: re-exported)
    RECALL_POOL_BLOCK,
    RECALL_POOL_ELEMENTS,
    csr,
    csr_parts,
    csr_rows,
    gather32,
    list_recall,
    nearest,
    pair_sq_distances,
    rerank,
    rows64,
    stable_order,
)

__all__ = [
    "LeaveOneOutLists",
    "SharedIndex",
    "shared_degree",
    "one_class_lists",
    "list_recall",
    "filter_lists",
    "filter_own_class",
    "first_entries",
    "first_known",
    "masked_lists",
    "WIDE_FACTOR",
    "WIDE_FACTORS",
    "WIDE_BLOCK_ELEMENTS",
    "RECALL_POOL_BLOCK",
    "RECALL_POOL_ELEMENTS",
    "MASKED_POOL_ELEMENTS",
    "QUERY_BLOCK_ELEMENTS",
    "FILTER_BLOCK_ROWS",
    "SHARED_BLOCK_ROWS",
    "STORED_DISTANCES",
    "index_dtype",
    "stable_order",
    "entry_labels",
    "other_class",
]

#: Pool values (rows times columns) read at a time by the brute-force fallback (`masked_lists`): 128 MiB of float64.
MASKED_POOL_ELEMENTS = 1 << 24

#: Approximate backend: query rows (times their columns) gathered and searched at a time (64 MiB of float32).
QUERY_BLOCK_ELEMENTS = 1 << 24

#: `SharedIndex`: graph entries per row whose squared distance is kept (the rest are computed when a list reaches
#: them: a draw's lists of 2k pool rows rarely need more than the first 32 entries of 64).
STORED_DISTANCES = 32

#: Rows of neighbour lists filtered or counted at a time (bounds the temporaries of a pass over 1M lists).
FILTER_BLOCK_ROWS = 1 << 16

#: `SharedIndex`: rows whose graph lists are ordered (at its build) or filtered to a pool (`SharedIndex.lists`)
#: per block, one block per thread. At 200 000 rows of 128 columns and degree 64, one draw's lists raised the
#: peak memory by 31 MiB with these blocks, by 313 MiB with blocks of 131 072 rows (the query block).
SHARED_BLOCK_ROWS = 1 << 14

#: Approximate backend: width of the second query (rows whose 2k list is mostly their own class), in units of k.
WIDE_FACTOR = 8

#: Approximate backend: list entries (rows times width) of one block of a wider query (`LeaveOneOutLists._widen`).
#: Rows of well-separated classes are short of entries outside their own class at every width, so every anomaly
#: row may be queried 64k wide, all at once before these blocks: a default audit of 50 000 rows of 50 such classes
#: peaked at 3.45 GB (1.10 GB with the blocks, in the same time), one of 200 000 rows of 200 classes at 8.3 GB.
WIDE_BLOCK_ELEMENTS = 1 << 22

#: Approximate backend: widths of the wider queries, in units of k, tried in turn for the rows still short of
#: k entries outside the excluded class (those left are searched by brute force, `masked_lists`).
WIDE_FACTORS = (WIDE_FACTOR, 64)


def index_dtype(n: int):
    """The integer dtype of row indices below ``n``: int32 (half the memory of lists of 1M rows) when it holds
    them, else int64."""
    return np.int32 if n <= np.iinfo(np.int32).max else np.int64


def _ranges(values: np.ndarray, starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """``values[starts[0]:stops[0]]``, ``values[starts[1]:stops[1]]``, ... concatenated (no Python loop)."""
    lengths = stops - starts
    total = int(lengths.sum())
    if total == 0:
        return values[:0]
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    return values[np.arange(total) + offsets]


def entry_labels(y_idx: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The class of each list entry ``idx`` (−1 where the entry is padding)."""
    return np.where(idx >= 0, y_idx[np.maximum(idx, 0)], -1)


def filter_lists(idx: np.ndarray, d2: np.ndarray, y_idx: np.ndarray, c: int, k: int):
    """The first ``k`` valid entries of each row whose class (``y_idx``) is not ``c`` (padded with −1 / inf)."""
    out_i, out_d, _ = filter_own_class(idx, d2, y_idx, np.full(idx.shape[0], c), k)
    return out_i, out_d


def filter_own_class(idx: np.ndarray, d2: np.ndarray, y_idx: np.ndarray, own: np.ndarray, k: int):
    """The first ``k`` valid entries of each row whose class (``y_idx`` of the entry) differs from that row's
    ``own`` class.

    Returns ``(idx, d2, n_found)``; rows with fewer than ``k`` such entries are padded with −1 / inf.
    """
    mask = other_class(idx, y_idx, own)
    return (*first_entries(idx, d2, mask, k), mask.sum(axis=1))


def other_class(idx: np.ndarray, y_idx: np.ndarray, own: np.ndarray) -> np.ndarray:
    """Which list entries ``idx`` are valid and of a class other than their row's ``own``."""
    return (entry_labels(y_idx, idx) != own[:, None]) & (idx >= 0)


def first_entries(idx: np.ndarray, d2: np.ndarray, mask: np.ndarray, k: int):
    """``(idx, d2)`` of the first ``k`` entries of each row where ``mask`` holds, in list order (padded with −1 /
    inf to k columns)."""
    sel = mask & (np.cumsum(mask, axis=1) <= k)
    order = np.argsort(~sel, axis=1, kind="stable")[:, :k]
    keep = np.take_along_axis(sel, order, axis=1)
    out_i = np.where(keep, np.take_along_axis(idx, order, axis=1), -1)
    out_d = np.where(keep, np.take_along_axis(d2, order, axis=1), np.inf)
    if out_i.shape[1] < k:
        pad = k - out_i.shape[1]
        out_i = np.hstack([out_i, np.full((out_i.shape[0], pad), -1, dtype=np.int64)])
        out_d = np.hstack([out_d, np.full((out_d.shape[0], pad), np.inf)])
    return out_i, out_d


def first_known(X, rows: np.ndarray, idx: np.ndarray, stored_d2: np.ndarray, mask: np.ndarray, k: int):
    """`first_entries` of the lists ``idx`` of ``rows`` whose squared distances are stored for their first
    columns only (``stored_d2``): a kept entry past them gets its distance computed again, by the same formula
    (`pair_sq_distances`: the same value)."""
    known = np.full(idx.shape, np.nan)  # (nan: an entry past the stored distances)
    known[:, : stored_d2.shape[1]] = stored_d2
    i, d = first_entries(idx, known, mask, k)
    r, c = np.nonzero(np.isnan(d))
    if r.size:
        d[r, c] = pair_sq_distances(X, rows[r], i[r, c][:, None].astype(np.int64))[:, 0]
    return i, d


def masked_lists(X, pool, pool_labels, queries, excluded, k, *, block: int = 32):
    """The ``k`` nearest pool rows of each query among those whose label is not ``excluded[i]`` (self excluded).

    Brute force over the pool in blocks of queries: float64 products (``|p|² − 2 q·p``) pick ``k + 9``
    candidates per query, re-ranked by exact distance (`rerank`); the
    approximate backend's fallback for the few rows whose approximate candidates run short. The pool is
    read `MASKED_POOL_ELEMENTS` values at a time (a memory-mapped pool is never gathered whole); the candidates
    of the blocks are merged by their product distances.
    """
    m = queries.size
    kk = min(k + 9, pool.size)
    cand = np.zeros((m, kk), dtype=np.int64)
    if m == 0 or kk == 0:
        return rerank(X, queries, pool, cand, k)
    best = np.full((m, kk), np.inf)
    cand[:] = -1
    block_rows = max(1, MASKED_POOL_ELEMENTS // max(X.shape[1], 1))
    for lo in range(0, pool.size, block_rows):
        hi = min(lo + block_rows, pool.size)
        P = rows64(X, pool[lo:hi])
        pn = np.einsum("ij,ij->i", P, P)
        for a in range(0, m, block):
            b = min(a + block, m)
            d2 = pn[None, :] - 2.0 * (rows64(X, queries[a:b]) @ P.T)
            d2[pool_labels[None, lo:hi] == excluded[a:b, None]] = np.inf
            d2[pool[None, lo:hi] == queries[a:b, None]] = np.inf
            if lo:  # merge with the candidates of the earlier blocks
                d2 = np.hstack([best[a:b], d2])
                ids = np.hstack([cand[a:b], np.broadcast_to(np.arange(lo, hi), (b - a, hi - lo))])
            else:
                ids = np.broadcast_to(np.arange(lo, hi), (b - a, hi - lo))
            w = min(kk, d2.shape[1])
            top = np.argpartition(d2, w - 1, axis=1)[:, :w]
            best[a:b, :w] = np.take_along_axis(d2, top, axis=1)
            cand[a:b, :w] = np.take_along_axis(ids, top, axis=1)
    cand[~np.isfinite(best)] = -1
    return rerank(X, queries, pool, cand, k)  # -1: no candidate (fewer than kk rows outside the class)


def shared_degree(width: int, fraction: float) -> int:
    """The graph degree of a `SharedIndex` whose lists must hold ``width`` rows of a pool of ``fraction`` of the
    rows: ``ceil(1.25 · width / fraction)`` (a quarter more than the pool's expected share; rows left short are
    queried wider). `auditad.neighbors.ApproximateIndex` caps it at its largest degree."""
    return int(np.ceil(1.25 * width / fraction))


class SharedIndex:
    r"""One approximate index over every row of a representation, shared by the neighbour passes of several
    draws of the split (the confirmatory draws of [`audit_protocol`][auditad.protocol.audit_protocol]).

    Each draw trains on its own pool P (about ``train_fraction`` of the rows), so an index over P serves one
    draw only: five draws would build five indexes, each over most of the rows. One index over all rows serves
    them all: a row's candidates are its list in the index's NN-descent graph (every row is a reference row),
    re-ranked by exact distance once when the index is built (``graph``, ``graph_d2``), and a draw keeps those
    that lie in its pool (`lists`: a filter); rows left with fewer than the width asked for are queried again,
    ever wider. Memory: the index, 4 bytes per row and graph entry (int32 index) and the float64 squared
    distances of each row's first `STORED_DISTANCES` entries (512 MB at 1M rows and degree 64); an entry past
    them that a list reaches has its distance computed again, by the same formula (`pair_sq_distances`: the
    same value). The lists are approximate, like any list
    of the approximate backend, and their recall is measured per draw as usual. The ordering runs on one thread
    per CPU, as the NN-descent build before it (the same values as on one).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Prepared rows of the representation.
    k : int
        Graph degree asked for (`auditad.neighbors.ApproximateIndex`).
    random_state, project_dim
        As for `auditad.neighbors.ApproximateIndex`.
    n_jobs : int or None, default 1
        Processes that answer its wider queries (`auditad.neighbors.ApproximateIndex.query`); the lists do not
        depend on it.
    """

    def __init__(self, X, k: int, *, random_state=None, project_dim="auto", n_jobs=1):
        from ..neighbors import ApproximateIndex

        self.n_jobs = n_jobs
        self.index = ApproximateIndex(X, span=X, k=k, random_state=random_state, project_dim=project_dim)
        self.n = int(X.shape[0])
        self._all = np.arange(self.n, dtype=np.int64)
        graph = self.index.graph_lists(self.index.degree)  # (a copy: the index's own graph is freed next)
        degree = graph.shape[1]
        # pynndescent's graph and random-projection forest, only needed to build it, freed before the ordering
        # (its queries are unaffected; at 1M rows of degree 64 the graph alone is 0.5 GB: int32 indices, float32
        # distances)
        self.index.drop_graph()
        # each row's graph list by exact squared distance (ties by index), once: a draw only filters it
        self.graph = np.empty((self.n, degree), dtype=index_dtype(self.n))
        self.graph_d2 = np.empty((self.n, min(degree, STORED_DISTANCES)))  # (the first entries' distances)
        block = SHARED_BLOCK_ROWS

        def order(
            a, graph=graph
        ):  # (numpy's gathers, products and sorts release the GIL: blocks on threads, same values)
            rows = self._all[a : a + block]
            self.graph[a : a + block], d2 = rerank(X, rows, self._all, graph[rows], degree)
            self.graph_d2[a : a + block] = d2[:, : self.graph_d2.shape[1]]

        map_in_threads(order, range(0, self.n, block), resolve_n_jobs(None))  # (every core, as the NN-descent build)
        del graph

    def self_lists(self, X, width: int):
        """``(idx, d2)`` of shape (n, width): every row's ``width`` nearest other rows (the lists of a self search,
        exact squared distances, nearest first, ties by index), or None when the graph's degree is below ``width``."""
        if width > self.graph.shape[1]:
            return None
        if width <= self.graph_d2.shape[1] and np.isfinite(self.graph_d2[:, width - 1]).all():  # (the usual case)
            return self.graph[:, :width].astype(np.int64), self.graph_d2[:, :width].copy()
        idx, d2 = self.lists(X, self._all, np.ones(self.n, dtype=bool), width)
        return idx.astype(np.int64), d2

    def lists(self, X, q: np.ndarray, in_pool: np.ndarray, width: int):
        """``(idx, d2)`` of shape (len(q), width): each row's ``width`` nearest rows with ``in_pool`` (self
        excluded) among its candidates, nearest first; −1 / inf where the pool holds fewer."""
        q = np.asarray(q, dtype=np.int64)
        idx = np.full((q.size, width), -1, dtype=index_dtype(self.n))
        d2 = np.full((q.size, width), np.inf)
        block = SHARED_BLOCK_ROWS

        def keep(a):  # the graph's lists (exactly ordered), kept in the pool (blocks on threads: each its own rows)
            rows = q[a : a + block]
            g = self.graph[rows]
            in_g = (g >= 0) & in_pool[np.maximum(g, 0)]
            idx[a : a + block], d2[a : a + block] = first_known(X, rows, g, self.graph_d2[rows], in_g, width)

        map_in_threads(keep, range(0, q.size, block), resolve_n_jobs(self.n_jobs))
        n_pool = int(in_pool.sum())  # rows short of `width` pool entries (or all the pool has): wider queries
        wanted = min(width, max(n_pool - 1, 0))
        frac = max(n_pool / max(self.n, 1), 1e-9)
        w = self.graph.shape[1]
        short = np.flatnonzero(np.isinf(d2[:, wanted - 1])) if wanted > 0 else np.empty(0, dtype=np.int64)
        while short.size and w < self.n:
            w = min(self.n, max(2 * w, int(np.ceil(1.25 * width / frac))))  # (about 1.25 x the rows needed)
            # query rows gathered at a time: their rows and their w candidates each within the query block
            step = max(1, QUERY_BLOCK_ELEMENTS // max(X.shape[1], w, 1))
            for a in range(0, short.size, step):
                sel = short[a : a + step]
                cand = self.index.query(gather32(X, q[sel]), w, n_jobs=self.n_jobs)
                cand[(cand < 0) | ~in_pool[np.maximum(cand, 0)]] = -1
                idx[sel], d2[sel] = rerank(X, q[sel], self._all, cand, width)
            short = short[np.isinf(d2[short, wanted - 1])]
        return idx, d2


class LeaveOneOutLists:
    r"""Exact k-neighbour lists among P \ c for every task c of one repeat (K−1 vs 1).

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
        Passed to `nearest`.
    project_dim : "auto" or int
        The approximate index's PCA projection (as in `auditad.neighbors.kneighbors`; 0 = none).
    shared_index : callable, optional
        Approximate backend: ``shared_index(k)`` returns a `SharedIndex` over every row (built on the first
        call) whose graph and queries replace an index over the pool (the confirmatory draws share one).

    Memory: each listed row's 2k entries and the float64 distances of its first k (later ones are computed again
    when a task reaches them); an anomaly row's list among P \ own class is stored only where its 2k entries
    hold fewer than k of other classes (elsewhere it is that list filtered, when asked).
    """

    def __init__(
        self,
        X,
        y_idx,
        pool,
        rows,
        anomalies,
        k,
        *,
        backend="auto",
        n_jobs=None,
        random_state=None,
        executor=None,
        project_dim="auto",
        shared_index=None,
    ):
        from ..neighbors import choose_backend

        self.y, self._X = y_idx, X
        self.k = int(k)
        n = X.shape[0]
        rows = np.unique(np.asarray(rows, dtype=np.int64))
        kA = min(2 * self.k, pool.size)
        self.pos = np.full(n, -1, dtype=np.int64)
        self.pos[rows] = np.arange(rows.size)
        self.rows = rows  # the global row of each position
        anomaly_rows = np.unique(
            np.concatenate([np.asarray(a, dtype=np.int64) for a in anomalies.values()] + [np.empty(0, np.int64)])
        )
        if backend == "auto":
            backend = choose_backend(
                rows.size + anomaly_rows.size, pool.size, X.shape[1], k=kA, self_search=False, project_dim=project_dim
            )
        self.backend = backend
        # a Dask executor receives the rows once for every exact search of the pass
        shared_rows = executor.share(X) if backend == "exact" and distributed(executor) else None
        # anomaly rows with their list among P \ own class already known (approximate backend): row -> position
        self.own_pos = np.full(n, -1, dtype=np.int64)
        exact_anomalies, widened = anomalies, {}
        if backend == "approximate":  # (widened: majority rows listed among P \ c by a wider query)
            exact_anomalies, short, widened = self._approximate_lists(
                X, pool, rows, anomaly_rows, kA, random_state, project_dim, shared_index
            )
        else:
            self.recall, self.n_recall_queries = None, 0
            self.A_idx, self.A_d2 = nearest(
                X,
                pool,
                rows,
                kA,
                exclude_self=True,
                backend=backend,
                n_jobs=n_jobs,
                random_state=random_state,
                executor=executor,
                rows=shared_rows,
            )
            self.A_d2 = self.A_d2[:, : self.k].copy()  # (the first k distances kept: `lists`)
            self.n_anomalies_searched = int(anomaly_rows.size)
            short = self._majority_rows(pool, rows, kA)
        self._search_b(
            X,
            pool,
            rows,
            exact_anomalies,
            short,
            widened,
            n_jobs=n_jobs,
            random_state=random_state,
            executor=executor,
            shared_rows=shared_rows,
        )
        self.n_short = int(short.sum())
        self._invert_heads()

    def _approximate_lists(
        self, X, pool, rows, anomaly_rows, kA, random_state, project_dim="auto", shared_index=None
    ) -> dict:
        r"""(a) with the approximate backend: the rows' and anomaly rows' ``kA`` nearest in P from one index
        over the pool (or the `SharedIndex` over every row that ``shared_index`` gives), the anomaly rows' lists
        among P \ own class (wider queries where short) and the recall.

        Returns the anomaly rows (class -> rows) still to be searched exactly among P \ c.
        """
        from ..neighbors import ApproximateIndex

        y_idx = self.y
        if shared_index is not None:  # one index over every row, shared with other draws: kept in the pool
            pool_mask = np.zeros(X.shape[0], dtype=bool)
            pool_mask[pool] = True
            frac = max(pool.size / max(X.shape[0], 1), 1e-9)
            shared = shared_index(shared_degree(kA, frac))
            index = None

            def approx(q, width):
                return shared.lists(X, q, pool_mask, width)

        else:
            # one index over the pool serves every query of the repeat (no index per class)
            # (the pool is read block by block, never gathered: at 1.28M x 2048 a float32 copy would be 8 GB)
            index = ApproximateIndex(X, rows=pool, span=X, k=kA, random_state=random_state, project_dim=project_dim)
            approx = self._pool_approx(X, pool, index)

        queries = np.union1d(rows, anomaly_rows)
        Q_idx, Q_d2 = approx(queries, kA)
        if queries.size == rows.size:  # (the usual case: every anomaly row is a normal of another task)
            self.A_idx, self.A_d2 = Q_idx, Q_d2[:, : self.k].copy()  # (the first k distances kept: `lists`)
        else:
            at = np.searchsorted(queries, rows)
            self.A_idx, self.A_d2 = Q_idx[at], Q_d2[at, : self.k]
        own = y_idx[anomaly_rows]
        counts = np.bincount(y_idx[pool], minlength=int(y_idx.max()) + 1)
        other = pool.size - counts[own]
        need = np.minimum(self.k, other)  # a list among P \ own class: k rows, or all there are
        at = np.searchsorted(queries, anomaly_rows)
        found = np.zeros(at.size, dtype=np.int64)  # (each row's entries of other classes; in blocks)
        for a in range(0, at.size, FILTER_BLOCK_ROWS):
            sel = slice(a, a + FILTER_BLOCK_ROWS)
            found[sel] = other_class(Q_idx[at[sel]], y_idx, own[sel]).sum(axis=1)
        # a row with an (a) list holding enough rows of other classes: its list among P \ own class is that list
        # filtered when asked (`lists`; own_pos −2), not stored (at 1M rows, 240 MB); the others' lists are kept
        kept = np.flatnonzero((found < need) | (self.pos[anomaly_rows] < 0))
        self.own_pos[anomaly_rows] = -2
        self.O_idx, self.O_d2 = filter_own_class(Q_idx[at[kept]], Q_d2[at[kept]], y_idx, own[kept], self.k)[:2]
        found = found[kept]
        del Q_idx, Q_d2
        # a neighbourhood mostly of the row's own class: wider queries of the same index
        self._widen(approx, pool.size, anomaly_rows[kept], own[kept], need[kept], (self.O_idx, self.O_d2, found))
        ok = found >= need[kept]
        self.own_pos[anomaly_rows[kept]] = np.where(ok, np.arange(kept.size), -1)
        self.n_anomalies_searched = int((~ok).sum())
        # rows whose nearest pool rows are mostly of one other class c: their lists among P \ c, likewise
        short = self._majority_rows(pool, rows, kA)
        s, widened = np.flatnonzero(short), {}
        if s.size:
            major = self.major[s]
            in_pool = np.isin(rows[s], pool)
            need = np.minimum(self.k, pool.size - counts[major] - (in_pool & (y_idx[rows[s]] != major)))
            lists = (np.full((s.size, self.k), -1, dtype=np.int64), np.full((s.size, self.k), np.inf))
            got = np.zeros(s.size, dtype=np.int64)
            self._widen(approx, pool.size, rows[s], major, need, (*lists, got))
            done = got >= need
            for c in np.unique(major[done]).tolist():
                sel = np.flatnonzero(done & (major == c))  # (rows[s] is sorted: so is each class's part)
                widened[c] = (rows[s[sel]], lists[0][sel], lists[1][sel])
            short[s[done]] = False
        del approx, index  # (the recall's exact search runs without the index beside it)
        self.recall, self.n_recall_queries = list_recall(X, pool, rows, self.A_d2, self.k, random_state)
        bad, own_bad = anomaly_rows[kept[~ok]], own[kept[~ok]]  # (rows still short: searched exactly)
        return {c: bad[own_bad == c] for c in np.unique(own_bad).tolist()}, short, widened

    @staticmethod
    def _pool_approx(X, pool, index):
        """``approx(q, width)`` over an index of the pool: the first ``width`` of about width + 1 candidates of each
        row ``q``, exactly re-ranked (a row of the pool takes them from the index's own graph, unqueried)."""
        step = max(1, QUERY_BLOCK_ELEMENTS // max(X.shape[1], 1))

        def approx(q, width):
            idx, d2 = np.full((q.size, width), -1, dtype=index_dtype(X.shape[0])), np.full((q.size, width), np.inf)
            at = np.minimum(np.searchsorted(pool, q), pool.size - 1)
            # rows of the pool: their lists in the index's own graph (no query), when it holds `width` per row
            listed = (pool[at] == q) & (index.degree >= width) if pool.size else np.zeros(q.size, dtype=bool)
            if listed.any():
                graph = index.graph_lists(width)
                for a in range(0, q.size, step):
                    sel = np.flatnonzero(listed[a : a + step]) + a
                    idx[sel], d2[sel] = rerank(X, q[sel], pool, graph[at[sel]], width)
                del graph
                index.drop_graph()  # (read: the wider widths that follow are queried)
            rest = np.flatnonzero(~listed)
            for a in range(0, rest.size, step):
                sel = rest[a : a + step]
                idx[sel], d2[sel] = rerank(X, q[sel], pool, index.query(gather32(X, q[sel]), width + 1), width)
            return idx, d2

        return approx

    def _widen(self, approx, pool_size, q, excluded, need, out):
        """Lists among P \\ excluded class of the rows ``q`` still short of ``need`` entries, from ever wider
        queries (`WIDE_FACTORS` times k); fills ``out = (idx, d2, found)`` in place where a query finds more."""
        y_idx = self.y
        idx, d2, found = out
        for factor in WIDE_FACTORS:
            short_all = np.flatnonzero(found < need)
            width = min(factor * self.k, pool_size)
            step = max(1, WIDE_BLOCK_ELEMENTS // max(width, 1))  # (rows queried at a time: bounded lists)
            for a in range(0, short_all.size, step):
                short = short_all[a : a + step]
                W_idx, W_d2 = approx(q[short], width)
                w_i, w_d, w_found = filter_own_class(W_idx, W_d2, y_idx, excluded[short], self.k)
                del W_idx, W_d2
                better = w_found > found[short]
                b = short[better]
                idx[b], d2[b], found[b] = w_i[better], w_d[better], w_found[better]

    def _majority_rows(self, pool, rows, kA) -> np.ndarray:
        """Each row's majority class whose removal leaves fewer than k entries of its (a) list
        (``self.major``, −1: none); returns the mask of those short rows."""
        y_idx = self.y
        n = self.pos.shape[0]
        in_pool = np.zeros(n, dtype=bool)
        in_pool[pool] = True
        available = pool.size - in_pool[rows].astype(np.int64)
        complete = kA >= available  # the list holds every other pool row: filtering is exact for any c
        mid, count = np.zeros(rows.size, dtype=np.int64), np.zeros(rows.size, dtype=np.int64)
        if kA > 0:
            for a in range(0, rows.size, FILTER_BLOCK_ROWS):  # (in blocks: bounded temporaries)
                labels = entry_labels(y_idx, self.A_idx[a : a + FILTER_BLOCK_ROWS])
                m = np.sort(labels, axis=1)[:, kA // 2]
                mid[a : a + m.size], count[a : a + m.size] = m, (labels == m[:, None]).sum(axis=1)
        short = ~complete & (count > kA - self.k) & (mid != y_idx[rows])
        self.major = np.where(short, mid, -1)  # the one class whose removal leaves fewer than k entries
        return short

    def _search_b(self, X, pool, rows, exact_anomalies, short, widened, *, n_jobs, random_state, executor, shared_rows):
        r"""(b): for each class c, its anomaly rows not yet listed and the rows whose majority class is c,
        searched among P \ c (``self.B``: c -> (rows, idx, d2)), with the rows a wider query already listed
        (``widened``: c -> (rows, idx, d2), approximate backend)."""
        y_idx = self.y
        self.B: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        classes = set(exact_anomalies) | set(np.unique(self.major[short]).tolist())
        per_class = {
            c: np.unique(
                np.concatenate(
                    [np.asarray(exact_anomalies.get(c, []), dtype=np.int64), rows[short & (self.major == c)]]
                )
            )
            for c in sorted(classes)
        }
        if self.backend == "approximate":  # the few fallback rows: one masked brute-force pass for every class
            qs = [q for q in per_class.values()]
            excl = [np.full(q.size, c, dtype=np.int64) for c, q in per_class.items()]
            q_all = np.concatenate(qs + [np.empty(0, np.int64)])
            bi, bd = masked_lists(X, pool, y_idx[pool], q_all, np.concatenate(excl + [np.empty(0, np.int64)]), self.k)
            at = np.cumsum([0] + [q.size for q in qs])
            for j, (c, q) in enumerate(per_class.items()):
                self.B[c] = (q, bi[at[j] : at[j + 1]], bd[at[j] : at[j + 1]])
            for c, (q, wi, wd) in widened.items():  # with the rows a wider query listed
                if c in self.B:
                    q0, bi0, bd0 = self.B[c]
                    q, wi, wd = np.concatenate([q0, q]), np.vstack([bi0, wi]), np.vstack([bd0, wd])
                    order = np.argsort(q, kind="stable")
                    q, wi, wd = q[order], wi[order], wd[order]
                self.B[c] = (q, wi, wd)
        else:
            for c, q in per_class.items():
                ref = pool[y_idx[pool] != c]
                bi, bd = nearest(
                    X,
                    ref,
                    q,
                    self.k,
                    exclude_self=True,
                    backend=self.backend,
                    n_jobs=n_jobs,
                    random_state=random_state,
                    executor=executor,
                    rows=shared_rows,
                )
                self.B[c] = (q, bi, bd)

    def _invert_heads(self) -> None:
        """Index each row's first k labels by class, for `_plain`."""
        # classes among each row's first k entries, inverted (class -> row positions): a task's lists differ
        # from the first k entries only at the rows that list its class there
        # rows listing class c: _inv_rows[_inv_start[c] : _inv_start[c + 1]]
        m = self.A_idx.shape[0]
        self._inv_rows, self._inv_start = self._head_csr(
            lambda h: entry_labels(self.y, h), np.arange(m), int(self.y.max()) + 1, index_dtype(m)
        )
        # (class, rows listing it among their first k) of the last task of each thread: tasks score on threads
        self._hit = threading.local()
        self._lock, self._reverse = threading.Lock(), None

    def _head_csr(self, keys_of, owners, n_keys: int, dtype):
        """`csr_parts` of the valid entries among every row's first k, a block of rows at a time: keys
        ``keys_of(block of lists)``, values the row's ``owners`` (as ``dtype``)."""
        width = min(self.k, self.A_idx.shape[1])

        def part(j):
            a = j * FILTER_BLOCK_ROWS
            flat = keys_of(self.A_idx[a : a + FILTER_BLOCK_ROWS, :width]).ravel()
            rows = np.repeat(owners[a : a + FILTER_BLOCK_ROWS].astype(dtype), width)
            return flat[flat >= 0], rows[flat >= 0]

        return csr_parts(part, -(-self.A_idx.shape[0] // FILTER_BLOCK_ROWS), n_keys, dtype)

    def _reverse_heads(self):
        """(once, thread-safe) The rows that list each row among their first k entries (CSR over global rows:
        ``rev_rows[rev_start[j] : rev_start[j + 1]]``) and the class and majority CSRs by class (global rows)."""
        with self._lock:
            if self._reverse is None:
                n = self.pos.size
                rev_rows, rev_start = self._head_csr(lambda h: h, self.rows, n, index_dtype(n))
                by_class = csr(self.y[self.rows], self.rows, int(self.y.max()) + 1)
                major = self.major >= 0
                by_major = csr(self.major[major], self.rows[major], int(self.y.max()) + 1)
                # rows an entry of whose first k has no list here (never the base tables)
                lost = np.zeros(n, dtype=bool)
                for a in range(0, self.rows.size, FILTER_BLOCK_ROWS):  # (in blocks: at 1M rows, 260 MB at once)
                    head = self.A_idx[a : a + FILTER_BLOCK_ROWS, : self.k]
                    miss = np.any((head < 0) | (self.pos[np.maximum(head, 0)] < 0), axis=1)
                    lost[self.rows[a : a + FILTER_BLOCK_ROWS][miss]] = True
                self._reverse = (rev_rows, rev_start, by_class, by_major, lost)
        return self._reverse

    def unchanged(self, c: int, rows: np.ndarray) -> np.ndarray:
        """Which ``rows`` (global) have, in task c, the first k entries of their pool list as their list (`lists`)
        and so does every row among those k: the rows whose LOF k-distance and lrd in task c are those of the
        whole pool's first k entries (`auditad.protocol.strategies`)."""
        rows = np.asarray(rows, dtype=np.int64)
        if self.A_idx.shape[1] < self.k:
            return np.zeros(rows.size, dtype=bool)
        last = getattr(self._hit, "changed", (None, None))
        if last[0] != c:  # one mask per task and thread
            rev_rows, rev_start, by_class, by_major, lost = self._reverse_heads()
            # rows whose own list differs from its head (`lists`: class c, majority c, or class c among the head)
            own = np.concatenate(
                [
                    csr_rows(by_class, c),
                    csr_rows(by_major, c),
                    self.rows[csr_rows((self._inv_rows, self._inv_start), c)],
                ]
            )
            changed = lost.copy()
            changed[own] = True
            changed[_ranges(rev_rows, rev_start[own], rev_start[own + 1])] = True  # ... and the rows listing them
            last = self._hit.changed = (c, changed)
        return (self.pos[rows] >= 0) & ~last[1][rows]

    def _plain(self, c: int, p: np.ndarray) -> np.ndarray:
        """Which row positions ``p`` have no entry of class c among their first k (their list is that head)."""
        if self.A_idx.shape[1] < self.k:
            return np.zeros(p.size, dtype=bool)
        last = getattr(self._hit, "mask", (None, None))
        if last[0] != c:  # one mask per task (a task asks for its queries' lists and two rings)
            hit = np.zeros(self.A_idx.shape[0], dtype=bool)
            hit[csr_rows((self._inv_rows, self._inv_start), c)] = True
            last = self._hit.mask = (c, hit)
        return ~last[1][p]

    def kth_d2(self, c: int, rows: np.ndarray, j: int) -> np.ndarray:
        r"""Squared distance of each row's (j+1)-th nearest among P \ c: column j of `lists`, cheaper."""
        rows = np.asarray(rows, dtype=np.int64)
        p = self.pos[rows]
        use_b = (p < 0) | (self.major[np.maximum(p, 0)] == c) | (self.y[rows] == c)
        out = np.empty(rows.size)
        a = np.flatnonzero(~use_b)
        fast = np.zeros(rows.size, dtype=bool)
        if a.size:
            fast[a] = self._plain(c, p[a])
        f = np.flatnonzero(fast)
        out[f] = self.A_d2[p[f], j]
        r = np.flatnonzero(~fast)
        if r.size:
            out[r] = self.lists(c, rows[r])[1][:, j]
        return out

    def _filtered(self, c: int, p: np.ndarray, rows: np.ndarray):
        """The (a) lists at positions ``p`` (of ``rows``) without class c, first k (`first_known`: only the first
        k distances of a list are stored, 160 MB less at 1M rows and k = 20)."""
        i = self.A_idx[p]
        return first_known(self._X, rows, i, self.A_d2[p], other_class(i, self.y, np.full(p.size, c)), self.k)

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
            fast = self._plain(c, pa)
            f, r = a[fast], a[~fast]
            out_i[f], out_d[f] = self.A_idx[pa[fast], : self.k], self.A_d2[pa[fast], : self.k]
            if r.size:
                out_i[r], out_d[r] = self._filtered(c, pa[~fast], rows[r])
        b = np.flatnonzero(use_b)
        if b.size:
            o, mine = self.own_pos[rows[b]], self.y[rows[b]] == c
            known = (o >= 0) & mine  # approximate backend: the row's list among P \ own class
            if known.any():
                out_i[b[known]], out_d[b[known]] = self.O_idx[o[known]], self.O_d2[o[known]]
            filtered = (o == -2) & mine  # ... its (a) list without class c
            if filtered.any():
                out_i[b[filtered]], out_d[b[filtered]] = self._filtered(
                    c, self.pos[rows[b[filtered]]], rows[b[filtered]]
                )
            b = b[~known & ~filtered]
        if b.size:
            q, bi, bd = self.B[c]
            j = np.searchsorted(q, rows[b])
            out_i[b], out_d[b] = bi[j], bd[j]
        return out_i, out_d


def one_class_lists(
    X,
    train_idx,
    rows,
    k,
    *,
    backend="auto",
    n_jobs=None,
    random_state=None,
    executor=None,
    shared_rows=None,
    recalls=None,
    project_dim="auto",
):
    """k nearest training rows of class c for ``rows`` (1 vs K−1: one search per task, one pass in total;
    ``shared_rows``: ``executor.share(X)`` made once for all tasks; an approximate search's measured
    ``(recall, n_queries)`` is appended to ``recalls``)."""
    return nearest(
        X,
        train_idx,
        rows,
        k,
        exclude_self=True,
        backend=backend,
        n_jobs=n_jobs,
        random_state=random_state,
        executor=executor,
        rows=shared_rows,
        recalls=recalls,
        project_dim=project_dim,
    )
