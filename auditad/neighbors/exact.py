"""Certified exact k-nearest-neighbour search, in this process or with its query blocks on an executor.

The exact backend of [`auditad.neighbors.kneighbors`][auditad.neighbors.kneighbors]: candidates are found
with a float32 matrix product on centred, power-of-two rescaled rows (fast
BLAS), their distances are recomputed in float64, and a per-row error bound
certifies that no other row can be closer; rows that cannot be certified are
recomputed entirely in float64. The answer is the exact float64 one, ties at
equal distance broken by the smaller index, and it does not depend on how the
queries are split into blocks or where the blocks run.

On an executor (`search_distributed`) each worker prepares the
reference side of a search (`Reference`: the float32 copy of the
reference rows and their squared norms) once, for all the blocks it runs,
and forgets it when the search ends.
"""

from __future__ import annotations

import contextlib
import os
import threading
import uuid
from collections import OrderedDict

import numpy as np

from .. import _mapped_pages
from .._progress import Progress
from .._validation import check_int
from ..errors import InvalidInputError
from ..execution import map_in_threads
from . import pairs

__all__ = [
    "U32",
    "MAX_BLOCK_ROWS",
    "chunk_rows",
    "Frame",
    "RowSubset",
    "UnitRows",
    "Reference",
    "search",
    "search_distributed",
    "search_block",
    "search_rows_distributed",
    "search_rows_block",
    "forget_reference",
    "check_distance_range",
    "row_thresholds",
    "candidate_table",
    "refine",
    "lexsort_rows",
    "n_workers",
]

U32 = float(np.finfo(np.float32).eps) / 2.0  # unit round-off of float32
MAX_BLOCK_ROWS = 256  # larger blocks leave the cache; smaller ones under-use BLAS (measured on 2 cores)
#: Every SAMPLE_STEP-th column of a block gives the first estimate of each row's candidate threshold
#: (the same step as the pairs' sample, `auditad.neighbors.pairs.SAMPLE_STEP`).
SAMPLE_STEP = pairs.SAMPLE_STEP

#: References kept by a worker process, by search token (a worker may serve two searches at once).
_KEEP_REFERENCES = 2
_references: OrderedDict = OrderedDict()
_references_lock = threading.Lock()


def chunk_rows(d: int) -> int:
    """Rows per chunk when rows of width ``d`` are transformed piecewise (about 32 MB of float64)."""
    return max(1, int(2**22 // max(int(d), 1)))


def _cache_rows(d: int) -> int:
    """Rows per chunk of a row-by-row pass whose result does not depend on the chunks (1 MB of float64:
    the chunk stays in a core's cache between the steps of the pass)."""
    return max(1, int(2**17 // max(int(d), 1)))


class Reference:
    """The reference side of an exact search, prepared once for every query block.

    Holds the reference rows ``X`` (C-contiguous and aligned: rows received
    from another process may sit at any byte offset, which slows every
    gather of rows), ``X32a`` = the float32 rows of the frame augmented with
    their squared norm (n × (d+1), the only whole-set copy of a search),
    ``xsq64`` = the float64 squared norms in the frame, and ``buffers``, a
    thread-local store for the per-thread block buffers (products, candidate
    mask, query rows) that successive blocks reuse (fresh pages per block
    cost page faults).

    Parameters
    ----------
    X : ndarray of shape (n, d), float32 or float64
        Reference rows.
    frame : Frame
        The frame of the whole search.
    """

    def __init__(self, X: np.ndarray, frame: "Frame"):
        X = np.require(X, requirements=["C", "A"])
        n, d = X.shape
        chunk = _cache_rows(d)  # (row by row: the chunks do not change the result)
        # augmented float32 operands: [x, |x|^2] . [-2q, 1] = |x|^2 - 2 q.x
        X32a = np.empty((n, d + 1), dtype=np.float32)
        xsq64 = np.empty(n, dtype=np.float64)
        local = threading.local()

        def prepare(a):  # (disjoint rows per chunk: any thread)
            if getattr(local, "buf", None) is None:
                local.buf = np.empty((max(1, min(chunk, n)), d))
            xc = frame.rows(X, a, min(a + chunk, n), out=local.buf)
            X32a[a : a + xc.shape[0], :d] = xc
            xsq64[a : a + xc.shape[0]] = np.einsum("ij,ij->i", xc, xc)

        _over_chunks(prepare, n, chunk, d)
        X32a[:, d] = xsq64
        self.X, self.X32a, self.xsq64 = X, X32a, xsq64
        self.buffers = threading.local()


def search_distributed(X, Q, k, self_search, block_memory_mb, executor):
    """`search` with its query blocks mapped over ``executor``; the same result, bit for bit.

    The rows travel to each worker once; each worker prepares its
    `Reference` at its first block and drops it when the search ends.
    """
    frame = Frame(X, None if self_search else Q, chunk_rows(X.shape[1]))  # one frame for every block
    return _map_blocks(
        executor,
        X.shape[0] if self_search else Q.shape[0],
        search_block,
        X=executor.share(X),
        Q=None if self_search else executor.share(Q),
        k=k,
        self_search=self_search,
        block_memory_mb=block_memory_mb,
        frame=frame,
    )


def search_rows_distributed(X, ref, queries, k, executor, *, rows=None, block_memory_mb=256):
    """The k nearest rows of ``X[ref]`` to each row ``X[queries]`` (index arrays), blocks on ``executor``.

    The same result, bit for bit, as `search` of ``X[ref]`` and
    ``X[queries]``, but the rows travel as the whole array ``X`` (or
    ``rows``, the handle of the executor's ``share`` that already sent it), so that
    several searches over subsets of one representation send it once; each
    worker gathers the reference rows it needs at its first block.

    Returns
    -------
    positions : ndarray of shape (len(queries), k), int64
        Positions in ``ref``.
    distances : ndarray of shape (len(queries), k), float64
    """
    ref, queries = np.asarray(ref, dtype=np.int64), np.asarray(queries, dtype=np.int64)
    frame = Frame(RowSubset(X, ref), RowSubset(X, queries), chunk_rows(X.shape[1]))  # read in chunks, no whole copy
    return _map_blocks(
        executor,
        queries.size,
        search_rows_block,
        X=executor.share(X) if rows is None else rows,
        ref=ref,
        queries=queries,
        k=k,
        block_memory_mb=block_memory_mb,
        frame=frame,
    )


def _map_blocks(executor, m, task, **shared):
    """``task`` over the query blocks of ``m`` queries on ``executor`` (about four blocks per worker), under
    one search token whose worker references are dropped at the end; the blocks' results concatenated."""
    workers = max(1, int(getattr(executor, "n_workers", 1) or 1))
    step = max(MAX_BLOCK_ROWS, -(-m // (4 * workers)))
    token = uuid.uuid4().hex
    try:
        parts = executor.map_ordered(task, [(a, min(a + step, m)) for a in range(0, m, step)], token=token, **shared)
    finally:
        executor.run_everywhere(forget_reference, token)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def search_rows_block(rows, *, X, ref, queries, k, block_memory_mb, frame, token):
    """One block of `search_rows_distributed` (run by an executor's worker)."""
    reference = _reference(token, lambda: X[ref], frame)
    return search(
        reference.X, X[queries[rows[0] : rows[1]]], k, False, block_memory_mb, 1, frame=frame, reference=reference
    )


class RowSubset:
    """``X[idx]`` read slice by slice (what `Frame` needs), never gathered whole; ``dtype``: each slice is
    converted to it as it is read."""

    def __init__(self, X, idx, dtype=None):
        self.X, self.idx, self.shape, self.dtype = X, idx, (idx.size, X.shape[1]), dtype

    def __getitem__(self, part):
        out = self.X[self.idx[part]]
        return out if self.dtype is None else out.astype(self.dtype, copy=False)


class UnitRows:
    r"""The rows of ``X`` divided by their Euclidean norm (float64), formed as they are read, never whole.

    A slice or a gather of rows gives the same bits as the rows of a whole unit copy: each row is
    first scaled by the power of two that brings its largest coordinate into [0.5, 1) (exact), then
    divided by its norm, on its own. All-zero rows are rejected at construction (``name`` in the message).
    Cosine distance of unit rows: \(1 - \cos(a, b) = \lVert a - b\rVert^2 / 2\).
    """

    dtype = np.dtype(np.float64)
    ndim = 2

    def __init__(self, X, name: str = "X"):
        self.X, self.shape = X, X.shape
        step = chunk_rows(X.shape[1])
        for a in range(0, X.shape[0], step):
            zero = ~np.any(np.asarray(X[a : a + step]) != 0, axis=1)
            if zero.any():
                raise InvalidInputError(
                    f"{name} has an all-zero row (index {a + int(np.flatnonzero(zero)[0])}); "
                    "cosine distance is undefined for it"
                )

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, part):
        A = np.array(self.X[part], dtype=np.float64)
        amax = np.abs(A).max(axis=-1, keepdims=True)
        A = np.ldexp(A, -np.frexp(amax)[1])
        return A / np.linalg.norm(A, axis=-1, keepdims=True)


def _reference(token, rows, frame) -> Reference:
    """This process's `Reference` of the search ``token``, built from ``rows()`` at the first block."""
    with _references_lock:
        reference = _references.get(token)
        if reference is None:
            reference = _references[token] = Reference(rows(), frame)
            while len(_references) > _KEEP_REFERENCES:
                _references.popitem(last=False)
    return reference


def search_block(rows, *, X, Q, k, self_search, block_memory_mb, frame, token):
    """One block ``rows = (a, b)`` of the queries of a search (run by an executor's worker, one thread).

    The worker's `Reference` for ``token`` is built at its first block
    and reused by the next ones (at most two searches' references are kept).
    """
    reference = _reference(token, lambda: X, frame)
    if self_search:
        return search(X, None, k, True, block_memory_mb, 1, rows=rows, frame=frame, reference=reference)
    return search(X, Q[rows[0] : rows[1]], k, False, block_memory_mb, 1, frame=frame, reference=reference)


def forget_reference(token: str) -> None:
    """Drop this process's `Reference` of the search ``token`` (run on every worker when it ends)."""
    with _references_lock:
        _references.pop(token, None)


def search(X, Q, k, self_search, block_memory_mb, n_jobs, progress=False, *, rows=None, frame=None, reference=None):
    """Certified exact kNN: float32 candidates, float64 refinement, float64 fallback.

    ``X`` and ``Q`` may be float32 or float64 and are never copied whole in
    float64: centred, rescaled float64 rows are formed chunk by chunk by a
    `Frame` (converting float32 to float64 and scaling by a power of two
    are exact, so every chunk equals the same rows of the whole transformed set).
    ``rows=(a, b)`` with ``self_search`` searches only the queries ``X[a:b]``
    (self excluded by their index in ``X``); ``frame`` reuses a frame built for
    the whole search, so that blocks give the same bits as one search, and
    ``reference`` a `Reference` prepared once for several blocks.
    In the frame every coordinate lies in (-1, 1), so the float32 products cannot
    overflow; their underflow is an absolute error that the certificate bounds.
    """
    n, d = X.shape
    offset = 0
    if self_search:
        offset, end = (0, n) if rows is None else rows
        Q = X[offset:end]
    m = Q.shape[0]
    if frame is None:
        frame = Frame(X, None if self_search else Q, chunk_rows(d))
    if reference is None:
        reference = Reference(X, frame)
    plan = _Search(reference, frame, Q, k, self_search, offset, block_memory_mb)
    starts = list(range(0, m, plan.block))
    out_idx = np.empty((m, k), dtype=np.int64)
    out_dist = np.empty((m, k), dtype=np.float64)

    found = None  # the kept pairs of a whole self-search, when it takes that way

    def run(start):
        stop = min(start + plan.block, m)
        out_idx[start:stop], out_dist[start:stop] = plan.run(start, stop, found)
        bar.update(stop - start if found is None else (stop - start) // 2)

    workers = n_workers(n_jobs, len(starts))
    halved = _halved(plan, self_search and rows is None, n, d, block_memory_mb)
    with Progress(m, "exact kNN", enabled=progress) as bar, _single_threaded_blas(workers, halved):
        if halved:
            # each float32 product serves both of its rows (`auditad.neighbors.pairs`); the strips advance
            # the bar by half their rows, the blocks' refinement by the other half. The thresholds are raised
            # by twice the rounding bound: copies of a row are all kept however the BLAS rounds each product
            thr = pairs.widened(
                pairs.sample_thresholds(reference.X32a, plan.block, plan.c, workers), 2 * plan.rounding(plan.qsq64)
            )
            found = pairs.pair_entries(reference.X32a, thr, plan.block, plan.c, workers, bar)  # None: many ties
        elif _tiled(plan, self_search, n):
            # queries of another set against many rows: blocks of queries times tiles of rows (`pairs`)
            step = plan.block * max(1, pairs.QUERY_BLOCK_ROWS // plan.block)
            found = pairs.query_entries(
                reference.X32a,
                plan.operands,
                m,
                plan.c,
                n_workers(n_jobs, -(-m // step)),
                step,
                2 * plan.rounding(plan.qsq64),
                bar,
            )
        map_in_threads(run, starts, workers)
    check_distance_range(out_dist)
    return out_idx, out_dist


#: A whole self-search takes its candidates from `auditad.neighbors.pairs` from this many rows and
#: rows x width on: below, the products are too cheap for halving them to pay for the pairs' bookkeeping
#: (measured on 2 cores: 0.87x the time of the block search at 20 000 x 128, 0.64x at 100 000 x 128,
#: 0.73x at 20 000 x 512; 1.06x at 20 000 x 32, 1.25x at 2 000 x 512).
PAIRS_MIN_ROWS, PAIRS_MIN_VALUES = 2**14, 2**21


#: Queries of another set are searched in tiles (`auditad.neighbors.pairs.query_entries`) from this many
#: reference rows on: below, the block search's products of a block of queries with every row stay in the cache
#: (measured on 2 cores, d = 128, k = 10: 1.01x the block search's time at 32 768 rows, 0.83x at 65 536, 0.70x at
#: 131 072; 1 280 000 rows, k = 30: 1.7 ms per query against 4.6).
TILED_MIN_ROWS = 2**16


def _tiled(plan, self_search: bool, n: int) -> bool:
    """Whether queries of another set take their candidates from tiles (`TILED_MIN_ROWS` reference rows or more,
    not every row a candidate, ``n >= 64 c``)."""
    return not self_search and not plan.full and n >= max(64 * plan.c, TILED_MIN_ROWS)


def _halved(plan, whole_self_search: bool, n: int, d: int, block_memory_mb) -> bool:
    """Whether a search takes its candidates from the pairs of `auditad.neighbors.pairs`: a large whole
    self-search (`PAIRS_MIN_ROWS`, `PAIRS_MIN_VALUES`) whose rows are sampled for their thresholds (not every
    row a candidate, ``n >= 64 c``) and whose kept pairs fit in twice the block memory."""
    return (
        whole_self_search
        and not plan.full
        and n >= max(64 * plan.c, PAIRS_MIN_ROWS)
        and n * d >= PAIRS_MIN_VALUES
        and pairs.entries_bytes(n, plan.c) <= 2 * block_memory_mb * 2**20
    )


def _single_threaded_blas(workers: int, halved: bool = False):
    """Single-threaded BLAS while ``workers`` > 1 threads each run their own products, and for the pairs of a
    whole self-search (``halved``) on one thread too: a BLAS may round the same product differently when it splits
    it over threads, and the kept pairs then do not depend on ``n_jobs`` (nothing otherwise)."""
    if workers <= 1 and not halved:
        return contextlib.nullcontext()
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


class _Search:
    """The constants of one `search` and its work on one block of queries (`run`).

    Float32 rows (``X`` and ``Q`` both float32) are refined in the input's own units:
    float32 values, their float64 differences, squares and sums are all normal float64
    numbers both there and in the frame's units (``Frame.raw``), so the squared distances
    are exactly ``2**(-2 e0)`` times the frame's (``unit`` = ``2 e0``, else 0), bit for bit,
    without scaling copies of the candidate rows.
    """

    def __init__(self, reference, frame, Q, k, self_search, offset, block_memory_mb):
        X, xsq64 = reference.X, reference.xsq64
        n, d = X.shape
        m = Q.shape[0]
        self.reference, self.frame, self.Q, self.k = reference, frame, Q, k
        self.self_search, self.offset, self.chunk = self_search, offset, chunk_rows(d)
        if self_search:
            self.qsq64 = xsq64[offset : offset + m]
        else:
            self.qsq64 = np.empty(m, dtype=np.float64)
            for a in range(0, m, self.chunk):
                qc = frame.rows(Q, a, min(a + self.chunk, m))
                self.qsq64[a : a + qc.shape[0]] = np.einsum("ij,ij->i", qc, qc)
        # Candidates per row: a margin beyond k so that certification almost always succeeds.
        n_avail = n - 1 if self_search else n
        self.c = min(n_avail, k + max(8, k // 2))
        self.full = self.c >= n_avail  # every other row is a candidate: nothing to certify
        # Rigorous bound on |float32 squared distance - exact squared distance|, relative part:
        # rounding of the inputs, of the dot product (length d + 1) and of the sums, and the two float32
        # additions that turn a pair's value for one row into its value for the other (`pairs`) (2x margin) ...
        self.gamma = (d + 16) * 2.0 * U32
        # ... and absolute part: gradual underflow of inputs and products (below 2**-126 each,
        # also when the BLAS flushes subnormals to zero), d + 1 terms, 16x margin
        self.eta = (d + 10) * 2.0**-122
        self.xnorm_max = float(np.sqrt(xsq64.max()))
        block = max(1, int(block_memory_mb * 2**20 // (4 * max(n, 1) * 2)))
        self.block = min(block, m, MAX_BLOCK_ROWS)
        # rows per float64 refinement chunk: (rows, c, d) float64 within the budget
        self.refine_rows = max(1, int(block_memory_mb * 2**20 // (8 * max(self.c, 1) * max(d, 1) * 2)))
        self.unscaled = X.dtype == np.float32 and Q.dtype == np.float32
        self.unit = 2 * frame.e0 if self.unscaled else 0

    def rounding(self, qsq64: np.ndarray) -> np.ndarray:
        """The bound on ``|float32 value − exact value|`` of the queries with squared norms ``qsq64`` (the frame's
        units): ``gamma (|q| + max |x|)² + eta``."""
        return self.gamma * (np.sqrt(qsq64) + self.xnorm_max) ** 2 + self.eta

    def _buffers(self):
        """This thread's block buffers (float32 products, query operands, candidate mask), reused across blocks:
        fresh pages per block cost page faults."""
        local = self.reference.buffers
        n, d = self.reference.X.shape
        if getattr(local, "s", None) is None or local.s.shape[0] < self.block or local.s.shape[1] != n:
            local.s = np.empty((self.block, n), dtype=np.float32)
            local.mask = np.empty((self.block, n), dtype=bool)
            local.q32a = np.empty((self.block, d + 1), dtype=np.float32)
            local.q64 = np.empty((self.block, d), dtype=np.float64)
        return local

    def operands(self, a: int, b: int) -> np.ndarray:
        """The augmented float32 operands ``[−2 q, 1]`` of the queries ``a:b`` (`pairs.operands` of the frame's rows)."""
        return pairs.operands(self.frame.rows(self.Q, a, b))

    def _products(self, rows):
        """This thread's float32 block ``|x|² − 2 q·x`` of the queries ``rows`` (positions in ``Q``) against every
        reference row, the query itself at +inf in a self-search, and the block's mask buffer."""
        X32a, r = self.reference.X32a, rows.size
        d = X32a.shape[1] - 1
        bufs = self._buffers()
        if self.self_search:  # (the frame's float32 rows, as the reference holds them: the same bits)
            q = X32a[self.offset + rows, :d]
        elif rows[-1] - rows[0] + 1 == r:  # a contiguous block of queries
            q = self.frame.rows(self.Q, rows[0], rows[-1] + 1, out=bufs.q64)
        else:  # queries redone one by one (`_found_candidates`)
            q = self.frame.rows(self.Q[rows], 0, r, out=bufs.q64)
        # s = |x|^2 - 2 q.x in one GEMM (the constant |q|^2 does not change a row's order)
        s = np.matmul(pairs.operands(q, out=bufs.q32a), X32a.T, out=bufs.s[:r])
        if self.self_search:
            s[np.arange(r), self.offset + rows] = np.inf
        return s, bufs.mask[:r]

    def run(self, start, stop, found=None):
        """Indices and distances (input units) of the ``k`` nearest rows of the queries ``start:stop``;
        ``found``: their candidates from the `auditad.neighbors.pairs.PairEntries` of a whole self-search or the
        `auditad.neighbors.pairs.QueryEntries` of queries in tiles."""
        frame, X, k, r = self.frame, self.reference.X, self.k, stop - start
        own = np.arange(self.offset + start, self.offset + stop) if self.self_search else None
        if self.full:
            cand, pad = np.broadcast_to(np.arange(X.shape[0]), (r, X.shape[0])), None
        elif found is None:
            s, mask = self._products(np.arange(start, stop))
            cand, pad, cth = _candidate_columns(s, self.c, self.qsq64[start:stop], mask)
            del s, mask  # (views of the thread's buffers)
        else:
            cand, pad, cth = self._found_candidates(found, start, stop)
        q = self.Q[start:stop] if self.unscaled else frame.raw(self.Q[start:stop])
        d2 = refine(X, frame, q, cand, self.refine_rows, unscaled=self.unscaled)
        if own is not None:
            d2[cand == own[:, None]] = np.inf
        if pad is not None:
            d2[pad] = np.inf
        order = lexsort_rows(d2, cand)[:, :k]
        top = np.take_along_axis(cand, order, axis=1)
        topd = np.take_along_axis(d2, order, axis=1)
        if not self.full:
            # certificate: a non-candidate has exact d2 >= cth - delta > k-th candidate d2;
            # rows with a non-finite float32 value among their candidates or threshold are never certified
            delta = self.rounding(self.qsq64[start:stop])
            kth = np.ldexp(topd[:, -1], 2 * frame.e1 + self.unit)  # in the units of cth (exact)
            ok = (kth + delta < cth - delta) & np.isfinite(cth)
            for i in np.flatnonzero(~ok):  # rare: near-ties at the candidate boundary -> full float64 row
                qraw = frame.raw(self.Q[start + i : start + i + 1])[0]
                top[i], d2i = _full_row(X, frame, qraw, k, self.chunk, None if own is None else own[i])
                topd[i] = np.ldexp(d2i, -self.unit)  # exact: see the class docstring
        dist = np.sqrt(np.maximum(topd, 0.0))
        return top, (dist if self.unscaled else frame.unscale(dist))

    def _found_candidates(self, found, start, stop):
        """`_candidate_columns` of the rows ``start:stop`` from the kept entries, with the rows they do not
        serve (count outside ``[c, pairs.max_pairs(c)]``) searched by their own products."""
        rows, cols, vals, redo = found.block(start, stop)
        thr = found.thr[start:stop].copy()
        if redo.size:
            s, mask = self._products(start + redo)
            rthr, _, flat = _thresholds(s, self.c, mask[: redo.size])
            n = s.shape[1]
            rrows = flat // n
            rows = np.concatenate([rows, redo[rrows]])
            cols = np.concatenate([cols, flat - rrows * n])
            vals = np.concatenate([vals, s.reshape(-1)[flat]])
            thr[redo] = rthr
            order = np.argsort(rows, kind="stable")
            rows, cols, vals = rows[order], cols[order], vals[order]
        return candidate_table(rows, cols, vals, thr, self.c, self.qsq64[start:stop])


def _candidate_columns(s: np.ndarray, c: int, qsq64: np.ndarray, mask: np.ndarray | None = None):
    """The candidate columns of each row of a block of float32 values ``s = |x|² − 2 q·x``.

    Returns ``(cand, pad, cth)``: at least the ``c`` smallest values of each row (exactly ``c`` when more tie
    at the threshold), ``pad`` marking the unused slots of a row, and ``cth`` = the row's float32 threshold
    plus ``|q|²`` (``qsq64``) in float64: every non-candidate has a float32 value above the threshold.
    ``cth`` is NaN for a row with a non-finite candidate value (NaN, which is never above a threshold,
    is always a candidate) or a NaN threshold: such a row is never certified. In the frame ``|s| <= 3d``,
    so only a faulty GEMM gives non-finite values: NaN and -inf are caught this way (no separate pass over
    the block), +inf is a value above any finite threshold. ``mask``: a boolean buffer of the shape of ``s``.
    """
    n = s.shape[1]
    thr, _, flat = _thresholds(s, c, mask)
    rows = flat // n
    return candidate_table(rows, flat - rows * n, s.reshape(-1)[flat], thr, c, qsq64)


def candidate_table(rows, cols, vals, thr, c: int, qsq64):
    """`_candidate_columns`'s table from the entries at or below each row's float32 threshold ``thr``:
    ``rows`` (sorted), ``cols`` and their float32 values ``vals``."""
    m = thr.size
    counts = np.bincount(rows, minlength=m)
    first = np.concatenate(([0], np.cumsum(counts)[:-1]))
    width = max(1, int(counts.max()))
    pos = np.arange(rows.size) - first[rows]
    cand = np.zeros((m, width), dtype=np.int64)
    cand[rows, pos] = cols
    nonfinite = np.concatenate([rows[~np.isfinite(vals)], np.flatnonzero(np.isnan(thr))])
    if width > c:
        # keep the c smallest float32 values: non-kept ones are >= the c-th value
        full_vals = np.full((m, width), np.inf, dtype=np.float32)
        full_vals[rows, pos] = vals
        sel = np.argpartition(full_vals, c - 1, axis=1)[:, :c]
        thr = np.take_along_axis(full_vals, sel, axis=1).max(axis=1)
        cand = np.take_along_axis(cand, sel, axis=1)
        pad = np.take_along_axis(np.arange(width) >= counts[:, None], sel, axis=1)
    else:
        pad = np.arange(width) >= counts[:, None]
    cth = thr.astype(np.float64) + qsq64
    cth[nonfinite] = np.nan
    return cand, pad, cth


def _full_row(X, frame, q_raw: np.ndarray, k: int, chunk: int, exclude: int | None):
    """The ``k`` nearest rows of ``X`` to one query (``q_raw``: its row in the frame's raw units) by exact float64
    distance against every row, ties by index; row ``exclude`` (the query itself) left out. Returns
    ``(indices, squared distances)``: the fallback for a row that the certificate does not cover."""
    n = X.shape[0]
    d2_all = np.concatenate(
        [np.einsum("ij,ij->i", dc, dc) for dc in (frame.raw(X[a : a + chunk]) - q_raw for a in range(0, n, chunk))]
    )
    if exclude is not None:
        d2_all[exclude] = np.inf
    o = np.lexsort((np.arange(n), d2_all))[:k]
    return o, d2_all[o]


def check_distance_range(dist: np.ndarray) -> None:
    if not np.all(np.isfinite(dist)):
        raise InvalidInputError(
            "X: some neighbour distances exceed the float64 range (about 1.8e308); "
            "divide the data by a power of two before the search"
        )


def _exponent(m: float) -> int:
    """The integer ``e`` with ``m * 2**-e`` in [0.5, 1) (0 for ``m == 0``)."""
    return int(np.frexp(m)[1]) if m > 0 else 0


def _absmax(A: np.ndarray, chunk: int) -> float:
    """The largest absolute value of ``A`` (largest and smallest value: no copy of a chunk)."""
    return max(_over_chunks(lambda a: _chunk_absmax(A[a : a + chunk]), A.shape[0], chunk, A.shape[1]), default=0.0)


def _chunk_absmax(c) -> float:
    c = np.asarray(c)
    return max(float(c.max()), -float(c.min())) if c.size else 0.0


#: Passes over at least this many values (rows times columns) run their chunks on one thread per CPU.
THREADED_PASS_VALUES = 1 << 20


def _over_chunks(fn, n: int, step: int, d: int) -> list:
    """``[fn(a) for a in range(0, n, step)]``, in that order, on one thread per CPU (at most 8) when the pass is
    large: numpy releases the GIL in the chunks' work, and the caller combines the results in chunk order, so the
    values do not depend on the threads."""
    starts = range(0, n, step)
    return map_in_threads(fn, starts, n_workers(None, len(starts)) if n * d >= THREADED_PASS_VALUES else 1)


class Frame:
    r"""Power-of-two rescaled and centred coordinates, formed chunk by chunk.

    ``raw(A)`` is \(2^{e_0} A\) in float64, where \(2^{e_0}\) brings
    \(\max|X|, \max|Q|\) into [0.5, 1): float64 squares and sums of
    these cannot overflow, and the exact distances are computed from them.
    ``rows(A, a, b)`` is \(2^{e_1}(2^{e_0} A_{a:b} - c)\), with \(c\) the
    mean of the scaled reference rows and \(2^{e_1}\) bringing the largest
    centred coordinate into [0.5, 1): the input of the float32 pre-filter (and of
    pynndescent), in which float32 products cannot overflow.
    Multiplying by a power of two is exact (short of underflow below 2^-1022),
    so scaling the input by \(2^p\) leaves every transformed value, and
    hence every comparison of the search, bit for bit unchanged; distances
    come back through `unscale`, exact to the last bit.
    """

    def __init__(self, X: np.ndarray, Q: np.ndarray | None, chunk: int):
        n, d = X.shape
        amax = _absmax(X, chunk) if Q is None else max(_absmax(X, chunk), _absmax(Q, chunk))
        self.e0 = -_exponent(amax)
        self.e1 = 0
        acc = np.zeros(d)
        local = threading.local()  # one buffer per thread for every chunk: fresh pages cost page faults

        def buffer(rows):
            if getattr(local, "buf", None) is None or local.buf.shape[0] < rows:
                local.buf = np.empty((max(1, rows), d))
            return local.buf

        def chunk_sum(a):
            return self.raw(X[a : a + chunk], out=buffer(min(chunk, n))).sum(axis=0)

        for part in _over_chunks(chunk_sum, n, chunk, d):  # (added in chunk order: the same bits on any threads)
            acc += part
        self.center = acc / n
        step = min(_cache_rows(d), max(1, n))  # (the largest value does not depend on the chunks)
        spread = 0.0
        for A in (X,) if Q is None else (X, Q):
            parts = _over_chunks(
                lambda a, A=A: _chunk_absmax(self.rows(A, a, a + step, out=buffer(step))), A.shape[0], step, d
            )
            spread = max([spread, *parts])
        self.e1 = -_exponent(spread)

    def raw(self, A: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        r"""Rows scaled by \(2^{e_0}\), as a new float64 array (or in the first rows of ``out``)."""
        out = np.empty(np.shape(A), dtype=np.float64) if out is None else out[: len(A)]
        _mapped_pages.check()  # every pass over the rows reads them through here
        return _scale_into(A, self.e0, out)

    def rows(self, A: np.ndarray, start: int, stop: int, out: np.ndarray | None = None) -> np.ndarray:
        """Rows ``start:stop`` of ``A`` centred and scaled, as a new float64 array (or in the first rows of ``out``)."""
        t = self.raw(A[start:stop], out=out)
        t -= self.center
        if self.e1:
            _scale_into(t, self.e1, t)
        return t

    def unscale(self, dist: np.ndarray) -> np.ndarray:
        """Distances computed from `raw` rows, back in the units of the input (exact)."""
        return np.ldexp(dist, -self.e0)


def row_thresholds(s: np.ndarray, c: int, out: np.ndarray | None = None):
    """Per-row float32 threshold with between c and 16c entries not above it, and that mask.

    A partition of every 16th column (`SAMPLE_STEP`) gives the threshold cheaply (np.partition
    of the whole row is the slowest step of the search otherwise); rows whose count
    falls outside [c, 16c] get the exact c-th smallest value instead. Returns
    ``(thr, mask)`` with ``mask = ~(s > thr[:, None])`` (written into ``out`` if given):
    the entries at or below the threshold and the NaN entries, so that every entry
    outside the mask is a number above the threshold. A row that needs the exact value
    and holds a NaN gets a NaN threshold and an empty mask (it cannot be certified).
    """
    thr, mask, _ = _thresholds(s, c, out)
    return thr, mask


def _thresholds(s: np.ndarray, c: int, out: np.ndarray | None):
    """`row_thresholds` and the flat positions of the mask's entries (``np.flatnonzero(mask)``)."""
    m, n = s.shape
    exact = n < 64 * c
    if exact:
        thr = np.partition(s, c - 1, axis=1)[:, c - 1]
    else:
        # the (2c/16 + 3)-th smallest of every 16th column: about 2c + 48 entries at or below it
        sample = s[:, ::SAMPLE_STEP]
        cs = pairs.sample_rank(c, sample.shape[1])
        thr = np.partition(sample, cs - 1, axis=1)[:, cs - 1]
    mask = np.greater(s, thr[:, None], out=out)
    np.logical_not(mask, out=mask)
    if exact:
        flat = np.flatnonzero(mask)
        redo = np.flatnonzero(np.isnan(thr))
    else:
        # more than 16c entries in all means some row has too many: then count row by row
        # (flat positions, at most 16c per row, are otherwise the cheaper way to the counts)
        many = np.count_nonzero(mask) > 16 * c * m
        flat = None if many else np.flatnonzero(mask)
        counts = np.count_nonzero(mask, axis=1) if many else np.bincount(flat // n, minlength=m)
        redo = np.flatnonzero((counts < c) | (counts > 16 * c))
    if redo.size:
        sub = s[redo]
        thr[redo] = np.partition(sub, c - 1, axis=1)[:, c - 1]
        lost = np.isnan(sub).any(axis=1)
        thr[redo[lost]] = np.nan
        fixed = ~(sub > thr[redo, None]) & ~lost[:, None]
        mask[redo] = fixed
        flat = _replace_rows(flat, m, n, redo, fixed) if flat is not None else np.flatnonzero(mask)
    return thr, mask, flat


def _replace_rows(flat: np.ndarray, m: int, n: int, redo: np.ndarray, fixed: np.ndarray) -> np.ndarray:
    """Flat positions (row * n + column, sorted) with the rows ``redo`` replaced by the entries of ``fixed``."""
    gone = np.zeros(m, dtype=bool)
    gone[redo] = True
    r, col = np.nonzero(fixed)
    return np.sort(np.concatenate([flat[~gone[flat // n]], redo[r] * n + col]))


#: Bytes of float64 differences that `refine` forms at a time: they stay in a core's L2 cache.
REFINE_BYTES = 2**20


def _scale_into(A: np.ndarray, e: int, out: np.ndarray) -> np.ndarray:
    r"""``out`` = \(2^e A\) in float64 (``A`` may be ``out``): exact, the same bits as ``np.ldexp``."""
    if e == 0:
        if A is not out:
            np.copyto(out, A)
    elif -1074 <= e <= 1023:  # 2**e is a float64: one correctly rounded product
        np.multiply(A, 2.0**e, out=out, dtype=np.float64)
    else:
        np.ldexp(A, e, out=out, dtype=np.float64)
    return out


def refine(X, frame, qraw, cand, rows, *, unscaled=False):
    """Float64 squared distances from each query to its candidate rows of X, in row chunks.

    Differences are taken between the (power-of-two scaled) rows themselves, not
    between centred rows, so no rounding of the centre enters a distance.
    ``unscaled``: ``X`` and ``qraw`` are float32 rows as given (not `Frame.raw`), and the
    squared distances come back in the input's units (``2**(-2 e0)`` times the frame's,
    exactly; see `search`). At most ``rows`` query rows, and about `REFINE_BYTES` of
    differences, are formed at a time, in buffers reused across the chunks.
    """
    m, w = cand.shape
    d = X.shape[1]
    out = np.empty((m, w), dtype=np.float64)
    e = 0 if unscaled else frame.e0
    if not (e == 0 and X.dtype == np.float32 and getattr(qraw, "dtype", None) == np.float32):
        qraw = np.asarray(qraw, dtype=np.float64)  # (float32 rows: converted exactly as they are subtracted)
    rows = max(1, min(rows, m, REFINE_BYTES // (8 * max(w * d, 1))))
    diff = np.empty((rows, w, d), dtype=np.float64)
    gathered = diff if X.dtype == np.float64 else np.empty((rows, w, d), dtype=X.dtype)
    for a in range(0, m, rows):
        b = min(a + rows, m)
        g, dv = gathered[: b - a], diff[: b - a]
        _mapped_pages.check()  # random rows of a memory-mapped input: keep its pages out of the resident set
        if isinstance(X, np.ndarray):  # (indices are valid; "clip" avoids a buffered copy)
            np.take(X, cand[a:b], axis=0, out=g, mode="clip")
        else:  # rows formed as they are read (`UnitRows`)
            g[...] = X[cand[a:b]]
        if e == 0 and g is not dv:  # float32 rows: converted as they are subtracted (exact, no copy pass)
            np.subtract(g, qraw[a:b, None, :], out=dv, dtype=np.float64)
        else:
            _scale_into(g, e, dv)
            dv -= qraw[a:b, None, :]
        np.einsum("bcd,bcd->bc", dv, dv, out=out[a:b])
    return out


def lexsort_rows(d2: np.ndarray, cand: np.ndarray) -> np.ndarray:
    """Per-row argsort by (d2, index): ties at equal distance broken by the smaller index."""
    o1 = np.argsort(cand, axis=1, kind="stable")
    d2s = np.take_along_axis(d2, o1, axis=1)
    o2 = np.argsort(d2s, axis=1, kind="stable")
    return np.take_along_axis(o1, o2, axis=1)


def n_workers(n_jobs, n_blocks) -> int:
    """Threads for ``n_blocks`` query blocks: ``n_jobs`` (None = the CPUs, at most 8), at most one per block."""
    if n_jobs is None:
        n_jobs = min(os.cpu_count() or 1, 8)
    n_jobs = check_int(n_jobs, name="n_jobs", low=1)
    return max(1, min(n_jobs, n_blocks))
