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

import os
import threading
import uuid
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .._progress import Progress
from .._validation import check_int
from ..errors import InvalidInputError

__all__ = ["U32", "MAX_BLOCK_ROWS", "chunk_rows", "Frame", "Reference", "search", "search_distributed",
           "search_block", "search_rows_distributed", "search_rows_block", "forget_reference",
           "check_distance_range", "row_thresholds", "refine", "lexsort_rows", "n_workers"]

U32 = float(np.finfo(np.float32).eps) / 2.0  # unit round-off of float32
MAX_BLOCK_ROWS = 256  # larger blocks leave the cache; smaller ones under-use BLAS (measured on 2 cores)

#: References kept by a worker process, by search token (a worker may serve two searches at once).
_KEEP_REFERENCES = 2
_references: OrderedDict = OrderedDict()
_references_lock = threading.Lock()


def chunk_rows(d: int) -> int:
    """Rows per chunk when rows of width ``d`` are transformed piecewise (about 32 MB of float64)."""
    return max(1, int(2**22 // max(int(d), 1)))


class Reference:
    """The reference side of an exact search, prepared once for every query block.

    Holds the reference rows ``X`` (C-contiguous and aligned: rows received
    from another process may sit at any byte offset, which slows every
    gather of rows), ``X32a`` = the float32 rows of the frame augmented with
    their squared norm (n × (d+1), the only whole-set copy of a search),
    ``xsq64`` = the float64 squared norms in the frame, and ``buffers``, a
    thread-local store for the per-thread product buffer that successive
    blocks reuse (fresh pages per block cost page faults).

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
        chunk = chunk_rows(d)
        # augmented float32 operands: [x, |x|^2] . [-2q, 1] = |x|^2 - 2 q.x
        X32a = np.empty((n, d + 1), dtype=np.float32)
        xsq64 = np.empty(n, dtype=np.float64)
        for a in range(0, n, chunk):
            xc = frame.rows(X, a, min(a + chunk, n))
            X32a[a:a + xc.shape[0], :d] = xc
            xsq64[a:a + xc.shape[0]] = np.einsum("ij,ij->i", xc, xc)
        X32a[:, d] = xsq64
        self.X, self.X32a, self.xsq64 = X, X32a, xsq64
        self.buffers = threading.local()


def search_distributed(X, Q, k, self_search, block_memory_mb, executor):
    """`search` with its query blocks mapped over ``executor``; the same result, bit for bit.

    The rows travel to each worker once; each worker prepares its
    `Reference` at its first block and drops it when the search ends.
    """
    frame = Frame(X, None if self_search else Q, chunk_rows(X.shape[1]))  # one frame for every block
    return _map_blocks(executor, X.shape[0] if self_search else Q.shape[0], search_block, X=executor.share(X),
                       Q=None if self_search else executor.share(Q), k=k, self_search=self_search,
                       block_memory_mb=block_memory_mb, frame=frame)


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
    frame = Frame(_Subset(X, ref), _Subset(X, queries), chunk_rows(X.shape[1]))  # read in chunks, no whole copy
    return _map_blocks(executor, queries.size, search_rows_block, X=executor.share(X) if rows is None else rows,
                       ref=ref, queries=queries, k=k, block_memory_mb=block_memory_mb, frame=frame)


def _map_blocks(executor, m, task, **shared):
    """``task`` over the query blocks of ``m`` queries on ``executor`` (about four blocks per worker), under
    one search token whose worker references are dropped at the end; the blocks' results concatenated."""
    workers = max(1, int(getattr(executor, "n_workers", 1) or 1))
    step = max(MAX_BLOCK_ROWS, -(-m // (4 * workers)))
    token = uuid.uuid4().hex
    try:
        parts = executor.map_ordered(task, [(a, min(a + step, m)) for a in range(0, m, step)], token=token,
                                     **shared)
    finally:
        executor.run_everywhere(forget_reference, token)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def search_rows_block(rows, *, X, ref, queries, k, block_memory_mb, frame, token):
    """One block of `search_rows_distributed` (run by an executor's worker)."""
    reference = _reference(token, lambda: X[ref], frame)
    return search(reference.X, X[queries[rows[0]:rows[1]]], k, False, block_memory_mb, 1, frame=frame,
                  reference=reference)


class _Subset:
    """``X[idx]`` read slice by slice (what `Frame` needs), never gathered whole."""

    def __init__(self, X, idx):
        self.X, self.idx, self.shape = X, idx, (idx.size, X.shape[1])

    def __getitem__(self, part):
        return self.X[self.idx[part]]


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
    return search(X, Q[rows[0]:rows[1]], k, False, block_memory_mb, 1, frame=frame, reference=reference)


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
    chunk = chunk_rows(d)
    if frame is None:
        frame = Frame(X, None if self_search else Q, chunk)
    if reference is None:
        reference = Reference(X, frame)
    X, X32a, xsq64, local = reference.X, reference.X32a, reference.xsq64, reference.buffers
    if self_search:
        qsq64 = xsq64[offset:offset + m]
    else:
        qsq64 = np.empty(m, dtype=np.float64)
        for a in range(0, m, chunk):
            qc = frame.rows(Q, a, min(a + chunk, m))
            qsq64[a:a + qc.shape[0]] = np.einsum("ij,ij->i", qc, qc)
    # Candidates per row: a margin beyond k so that certification almost always succeeds.
    n_avail = n - 1 if self_search else n
    c = min(n_avail, k + max(8, k // 2))
    # Rigorous bound on |float32 squared distance - exact squared distance|, relative part:
    # rounding of the inputs, of the dot product (length d + 1) and of the sums (2x margin) ...
    gamma = (d + 10) * 2.0 * U32
    # ... and absolute part: gradual underflow of inputs and products (below 2**-126 each,
    # also when the BLAS flushes subnormals to zero), d + 1 terms, 16x margin
    eta = (d + 10) * 2.0**-122
    xnorm_max = float(np.sqrt(xsq64.max()))

    block = max(1, int(block_memory_mb * 2**20 // (4 * max(n, 1) * 2)))
    block = min(block, m, MAX_BLOCK_ROWS)
    starts = list(range(0, m, block))
    # rows per float64 refinement chunk: (rows, c, d) float64 within the budget
    refine_rows = max(1, int(block_memory_mb * 2**20 // (8 * max(c, 1) * max(d, 1) * 2)))
    out_idx = np.empty((m, k), dtype=np.int64)
    out_dist = np.empty((m, k), dtype=np.float64)

    def run(start):
        stop = min(start + block, m)
        qc = frame.rows(Q, start, stop)
        qraw = frame.raw(Q[start:stop])
        q32a = np.empty((stop - start, d + 1), dtype=np.float32)
        q32a[:, :d] = -2.0 * qc
        q32a[:, d] = 1.0
        # s = |x|^2 - 2 q.x in one GEMM (the constant |q|^2 does not change a row's order),
        # into a per-thread buffer reused across blocks (fresh pages per block cost page faults)
        buf = getattr(local, "buf", None)
        if buf is None or buf.shape[0] < stop - start:
            buf = local.buf = np.empty((block, n), dtype=np.float32)
        s = np.matmul(q32a, X32a.T, out=buf[:stop - start])
        # |s| <= 3d in the frame, so this float32 sum (at most 3dn) is finite unless the GEMM produced
        # inf/nan; summed in float32, not float64, a pass 3.5 times faster over the block
        finite = np.isfinite(np.add.reduce(s, axis=1))
        if self_search:
            s[np.arange(stop - start), np.arange(offset + start, offset + stop)] = np.inf
        full = c >= n_avail  # every other row is a candidate: nothing to certify
        if full:
            cand = np.broadcast_to(np.arange(n), (stop - start, n))
        else:
            cand, pad, cth = _candidate_columns(s, c, qsq64[start:stop])
        del s  # (a view of the thread's buffer)
        d2 = refine(X, frame, qraw, cand, refine_rows)
        if self_search:
            d2[cand == np.arange(offset + start, offset + stop)[:, None]] = np.inf
        if not full:
            d2[pad] = np.inf
        order = lexsort_rows(d2, cand)[:, :k]
        top = np.take_along_axis(cand, order, axis=1)
        topd = np.take_along_axis(d2, order, axis=1)
        bad = np.empty(0, dtype=np.int64)
        if not full:
            # certificate: a non-candidate has exact d2 >= cth - delta > k-th candidate d2;
            # rows with a non-finite float32 value or threshold are never certified
            qn = np.sqrt(qsq64[start:stop])
            delta = gamma * (qn + xnorm_max) ** 2 + eta
            kth = np.ldexp(topd[:, -1], 2 * frame.e1)  # in the units of cth (exact)
            ok = (kth + delta < cth - delta) & finite & np.isfinite(cth)
            bad = np.flatnonzero(~ok)
        for r in bad:  # rare: near-ties at the candidate boundary -> full float64 row
            top[r], topd[r] = _full_row(X, frame, qraw[r], k, chunk, offset + start + r if self_search else None)
        out_idx[start:stop] = top
        out_dist[start:stop] = frame.unscale(np.sqrt(np.maximum(topd, 0.0)))
        bar.update(stop - start)
        return len(bad)

    workers = n_workers(n_jobs, len(starts))
    with Progress(m, "exact kNN", enabled=progress) as bar:
        if workers == 1:
            for s0 in starts:
                run(s0)
        else:
            from threadpoolctl import threadpool_limits

            with threadpool_limits(limits=1, user_api="blas"), ThreadPoolExecutor(workers) as pool:
                list(pool.map(run, starts))
    check_distance_range(out_dist)
    return out_idx, out_dist


def _candidate_columns(s: np.ndarray, c: int, qsq64: np.ndarray):
    """The candidate columns of each row of a block of float32 values ``s = |x|² − 2 q·x``.

    Returns ``(cand, pad, cth)``: at least the ``c`` smallest values of each row (exactly ``c`` when more tie
    at the threshold), ``pad`` marking the unused slots of a row, and ``cth`` = the row's float32 threshold
    plus ``|q|²`` (``qsq64``) in float64: every non-candidate has a float32 value at least the threshold.
    """
    m, n = s.shape
    thr, mask = row_thresholds(s, c)
    flat = np.flatnonzero(mask)
    del mask
    rows = flat // n
    cols = flat - rows * n
    counts = np.bincount(rows, minlength=m)
    first = np.concatenate(([0], np.cumsum(counts)[:-1]))
    cand = np.zeros((m, max(1, int(counts.max()))), dtype=np.int64)
    pad = np.ones(cand.shape, dtype=bool)
    pos = np.arange(rows.size) - first[rows]
    cand[rows, pos] = cols
    pad[rows, pos] = False
    if cand.shape[1] > c:
        # keep the c smallest float32 values: non-kept ones are >= the c-th value
        vals = np.where(pad, np.inf, np.take_along_axis(s, cand, axis=1))
        sel = np.argpartition(vals, c - 1, axis=1)[:, :c]
        thr = np.take_along_axis(vals, sel, axis=1).max(axis=1)
        cand = np.take_along_axis(cand, sel, axis=1)
        pad = np.take_along_axis(pad, sel, axis=1)
    # every non-candidate has float32 value >= thr
    return cand, pad, thr.astype(np.float64) + qsq64


def _full_row(X, frame, q_raw: np.ndarray, k: int, chunk: int, exclude: int | None):
    """The ``k`` nearest rows of ``X`` to one query (``q_raw``: its row in the frame's raw units) by exact float64
    distance against every row, ties by index; row ``exclude`` (the query itself) left out. Returns
    ``(indices, squared distances)``: the fallback for a row that the certificate does not cover."""
    n = X.shape[0]
    d2_all = np.concatenate([
        np.einsum("ij,ij->i", dc, dc)
        for dc in (frame.raw(X[a:a + chunk]) - q_raw for a in range(0, n, chunk))])
    if exclude is not None:
        d2_all[exclude] = np.inf
    o = np.lexsort((np.arange(n), d2_all))[:k]
    return o, d2_all[o]


def check_distance_range(dist: np.ndarray) -> None:
    if not np.all(np.isfinite(dist)):
        raise InvalidInputError(
            "X: some neighbour distances exceed the float64 range (about 1.8e308); "
            "divide the data by a power of two before the search")


def _exponent(m: float) -> int:
    """The integer ``e`` with ``m * 2**-e`` in [0.5, 1) (0 for ``m == 0``)."""
    return int(np.frexp(m)[1]) if m > 0 else 0


def _absmax(A: np.ndarray, chunk: int) -> float:
    return max(float(np.abs(A[a:a + chunk]).max()) for a in range(0, A.shape[0], chunk))


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
        for a in range(0, n, chunk):
            acc += self.raw(X[a:a + chunk]).sum(axis=0)
        self.center = acc / n
        spread = 0.0
        for A in (X,) if Q is None else (X, Q):
            for a in range(0, A.shape[0], chunk):
                spread = max(spread, float(np.abs(self.rows(A, a, a + chunk)).max()))
        self.e1 = -_exponent(spread)

    def raw(self, A: np.ndarray) -> np.ndarray:
        r"""Rows scaled by \(2^{e_0}\), as a new float64 array."""
        return np.ldexp(A.astype(np.float64), self.e0)

    def rows(self, A: np.ndarray, start: int, stop: int) -> np.ndarray:
        """Rows ``start:stop`` of ``A`` centred and scaled, as a new float64 array."""
        t = self.raw(A[start:stop])
        t -= self.center
        if self.e1:
            np.ldexp(t, self.e1, out=t)
        return t

    def unscale(self, dist: np.ndarray) -> np.ndarray:
        """Distances computed from `raw` rows, back in the units of the input (exact)."""
        return np.ldexp(dist, -self.e0)


def row_thresholds(s: np.ndarray, c: int):
    """Per-row float32 threshold with between c and 16c entries at or below it, and that mask.

    A partition of every 8th column gives the threshold cheaply (np.partition of
    the whole row is the slowest step of the search otherwise); rows whose count
    falls outside [c, 16c] get the exact c-th smallest value instead. Returns
    ``(thr, mask)`` with ``mask = s <= thr[:, None]``.
    """
    n = s.shape[1]
    step = 8
    if n < 64 * c:
        thr = np.partition(s, c - 1, axis=1)[:, c - 1]
        return thr, s <= thr[:, None]
    sample = s[:, ::step]
    cs = min(sample.shape[1], -(-c // step) + 3)
    thr = np.partition(sample, cs - 1, axis=1)[:, cs - 1]
    mask = s <= thr[:, None]
    counts = np.count_nonzero(mask, axis=1)
    redo = np.flatnonzero((counts < c) | (counts > 16 * c))
    if redo.size:
        thr[redo] = np.partition(s[redo], c - 1, axis=1)[:, c - 1]
        mask[redo] = s[redo] <= thr[redo, None]
    return thr, mask


def refine(X, frame, qraw, cand, rows):
    """Float64 squared distances from each query to its candidate rows of X, in row chunks.

    Differences are taken between the (power-of-two scaled) rows themselves, not
    between centred rows, so no rounding of the centre enters a distance.
    """
    out = np.empty(cand.shape, dtype=np.float64)
    for a in range(0, cand.shape[0], rows):
        b = min(a + rows, cand.shape[0])
        diff = frame.raw(np.take(X, cand[a:b].ravel(), axis=0)).reshape(b - a, cand.shape[1], -1)
        diff -= qraw[a:b, None, :]
        out[a:b] = np.einsum("bcd,bcd->bc", diff, diff)
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
