"""The candidate pairs of a whole exact self-search from half the float32 products.

In a self-search the float32 value of the pair (i, j) serves both row i and row j: the block
of rows ``I`` is multiplied only with the rows from its own first row on (a strip), and each
product gives row i's value ``|x_j|² − 2 x_i·x_j`` directly and row j's value
``|x_i|² − 2 x_i·x_j`` by two float32 additions. Each row's threshold comes first, from a
product with every `SAMPLE_STEP`-th row (a sixteenth of the work), as the block search takes
it from every 16th column of its product, raised by twice the rounding bound of a value
(`widened`); the strips then keep every pair at or below the threshold of its row. The
candidates of a row are those of the block search up to float32 rounding of the values and
that margin, which the certificate of `auditad.neighbors.exact.search` bounds (two more
roundings than the block search's, inside its margin), so the answer is the same exact
float64 one, bit for bit. The matrix products, most of the search's time, are halved; they
run on one BLAS thread each, so the kept pairs do not depend on the number of threads.

Rows whose count of candidates falls outside ``[c, max_pairs(c)]`` (many equal distances, or a
sample that missed a dense neighbourhood) are searched by their own products, as in the block
search; a row past `max_pairs` stops collecting pairs, and a strip with more than that many
pairs per row on average gives the whole search back to the block search, so memory stays bounded.
"""

from __future__ import annotations

import threading

import numpy as np

from ..execution import map_in_threads

__all__ = [
    "SAMPLE_STEP",
    "QUERY_BLOCK_ROWS",
    "TILE_ROWS",
    "PairEntries",
    "QueryEntries",
    "pair_entries",
    "query_entries",
    "sample_thresholds",
    "widened",
    "entries_bytes",
    "max_pairs",
    "sample_rank",
    "operands",
]

#: Every SAMPLE_STEP-th row gives the threshold of each row (the block search's sample step).
SAMPLE_STEP = 16


def sample_rank(c: int, n_sample: int) -> int:
    """The rank, among ``n_sample`` sampled values, of a row's threshold: ``⌈2c/16⌉ + 3`` (about ``2 c + 48``
    values of the whole row at or below it with a sample of every `SAMPLE_STEP`-th value), at most ``n_sample``."""
    return min(int(n_sample), -(-2 * int(c) // SAMPLE_STEP) + 3)


def operands(rows: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The augmented float32 operands ``[−2 q, 1]`` of query rows ``q`` (the frame's rows, float32 or float64;
    doubling is exact, so float32 rows and float64 rows rounded to float32 give the same bits): their product with
    the reference's ``[x, |x|²]`` is ``|x|² − 2 q·x``. Written into the first rows of ``out`` if given."""
    r, d = rows.shape
    out = np.empty((r, d + 1), dtype=np.float32) if out is None else out[:r]
    np.multiply(rows, -2.0, out=out[:, :d])
    out[:, d] = 1.0
    return out


def max_pairs(c: int) -> int:
    """The most pairs a row keeps: ``16 c``, and at least 256. The sample threshold aims at about ``2 c + 48``
    pairs with a spread of about ``16 sqrt(c / 8 + 3)``; for a small ``c`` (k = 1) ``16 c`` lies within two
    spreads of the aim, and 6 % of Gaussian rows would pass it by chance."""
    return max(16 * int(c), 256)


def entries_bytes(n: int, c: int) -> int:
    """Memory of the kept pairs of a self-search of ``n`` rows with ``c`` candidates per row (an upper estimate:
    about ``2 c + 48`` pairs per row, as the sample threshold aims, twice, of 12 bytes each)."""
    return int(n) * (2 * int(c) + 48) * 24


def widened(thr: np.ndarray, slack: np.ndarray) -> np.ndarray:
    """Float32 thresholds ``thr`` raised by ``slack`` (float64, per row) and rounded up to float32.

    With ``slack`` twice the bound on the rounding of one float32 value, a pair whose exact value is at or below
    the exact value behind its row's threshold is kept whatever the rounding of either value: copies of a row,
    whose values a BLAS may round one unit apart at different places of a product (its edge kernels, its split
    over threads), are all kept and counted, so a row with many copies passes `max_pairs` on every machine.
    The certificate of `auditad.neighbors.exact.search` holds for any threshold that every left-out value
    exceeds. A NaN threshold stays NaN.
    """
    t = thr.astype(np.float64) + slack
    up = t.astype(np.float32)
    low = up.astype(np.float64) < t
    up[low] = np.nextafter(up[low], np.float32(np.inf))
    return up


def sample_thresholds(X32a: np.ndarray, block: int, c: int, workers: int) -> np.ndarray:
    """Each row's float32 threshold: the ``(⌈2c/16⌉ + 3)``-th smallest value ``|x_j|² − 2 x_i·x_j`` over every
    `SAMPLE_STEP`-th row ``j ≠ i`` (about ``2 c + 48`` rows of the whole set at or below it).

    ``X32a``: the n × (d+1) augmented float32 rows ``[x, |x|²]`` of the search's frame.
    """
    n, d = X32a.shape[0], X32a.shape[1] - 1
    XS = np.ascontiguousarray(X32a[::SAMPLE_STEP])
    cs = sample_rank(c, XS.shape[0] - 1)  # (less the row itself)
    thr = np.empty(n, dtype=np.float32)

    def run(a):
        b = min(a + block, n)
        s = operands(X32a[a:b, :d]) @ XS.T
        own = np.arange(a, b)
        hit = np.flatnonzero(own % SAMPLE_STEP == 0)
        s[hit, own[hit] // SAMPLE_STEP] = np.inf
        thr[a:b] = np.partition(s, cs - 1, axis=1)[:, cs - 1]

    map_in_threads(run, range(0, n, block), workers)
    return thr


class PairEntries:
    """The kept pairs of a self-search, per strip and sorted by row, and the rows that need the block search.

    ``block(start, stop)`` gives the pairs of the rows ``start:stop`` as ``(rows, cols, vals)`` (rows local
    to the block, sorted, ``vals`` float32) and ``redo`` (local rows whose pairs are not kept: count outside
    ``[c, max_pairs(c)]`` or a NaN threshold).
    """

    def __init__(self, strips, counts, thr, c, block):
        self.strips, self.thr, self.step = strips, thr, block
        self.redo = (counts < c) | (counts > max_pairs(c)) | np.isnan(thr)
        # where each strip's pairs of every block of rows begin (one search per strip)
        edges = np.arange(0, thr.size + block, block)
        self.bounds = [np.searchsorted(srows, edges) for srows, _, _ in strips]

    def block(self, start: int, stop: int):
        """The pairs of the rows ``start:stop`` (a block of the strips' size: ``start`` a multiple of it)."""
        rows, cols, vals = [], [], []
        j = start // self.step
        for (srows, scols, svals), bounds in zip(
            self.strips[: j + 1], self.bounds[: j + 1]
        ):  # later strips: later rows
            a, b = bounds[j], bounds[j + 1]
            if a < b:
                rows.append(srows[a:b])
                cols.append(scols[a:b])
                vals.append(svals[a:b])
        rows = np.concatenate(rows) - start if rows else np.zeros(0, dtype=np.int64)
        cols = np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64)
        vals = np.concatenate(vals) if vals else np.zeros(0, dtype=np.float32)
        order = np.argsort(rows, kind="stable")  # (the strips' pieces of a row: in strip order)
        return _served(rows[order], cols[order], vals[order], self.redo[start:stop])


def pair_entries(X32a: np.ndarray, thr: np.ndarray, block: int, c: int, workers: int, bar=None) -> PairEntries:
    """The pairs ``(i, j)``, ``j ≠ i``, whose float32 value for row ``i`` is not above ``thr[i]``, from strips of
    ``block`` rows multiplied with the rows from their first row on, on ``workers`` threads.

    A pair's value for the later row is ``(s + |x_i|²) − |x_j|²`` from the strip's value ``s = |x_j|² − 2 x_i·x_j``
    (float32), compared as ``s + |x_i|² ≤ thr_j + |x_j|²``; a value that is not a number is always kept (as in
    the block search, where it makes its row uncertified). ``bar``: a progress bar advanced by the strips' rows.
    """
    n, d1 = X32a.shape
    d = d1 - 1
    xsq = np.ascontiguousarray(X32a[:, d])  # float32 squared norms of the frame's rows
    g = (thr.astype(np.float64) + xsq).astype(np.float32)  # each row's threshold on the scale s + |x_i|^2
    counts = np.zeros(n, dtype=np.int64)
    lock = threading.Lock()
    local = threading.local()
    limit = max_pairs(c)
    many = threading.Event()  # a strip with more than `limit` pairs per row: the block search does it all

    def strip(a):
        if many.is_set():
            return None
        b = min(a + block, n)
        r, w = b - a, n - a
        if getattr(local, "s", None) is None:
            local.s = np.empty(block * n, dtype=np.float32)
            local.m = np.empty(block * n, dtype=bool)
            local.q = np.empty((block, d1), dtype=np.float32)
        q = operands(X32a[a:b, :d], out=local.q)
        s = np.matmul(q, X32a[a:].T, out=local.s[: r * w].reshape(r, w))
        s[np.arange(r), np.arange(r)] = np.inf  # the row itself
        mask = np.greater(s, thr[a:b, None], out=local.m[: r * w].reshape(r, w))
        np.logical_not(mask, out=mask)
        if np.count_nonzero(mask) > limit * r:
            many.set()
            return None
        flat = np.flatnonzero(mask)
        i1 = flat // w
        rows1, cols1, vals1 = i1 + a, flat - i1 * w + a, s.reshape(-1)[flat]
        rows2 = cols2 = np.zeros(0, dtype=np.int64)
        vals2 = np.zeros(0, dtype=np.float32)
        if w > r:  # the later rows' values: s + |x_i|^2 - |x_j|^2
            t = s[:, r:]
            t += xsq[a:b, None]
            maskt = np.greater(t, g[None, b:], out=local.m[: r * (w - r)].reshape(r, w - r))
            np.logical_not(maskt, out=maskt)
            if np.count_nonzero(maskt) > limit * r:
                many.set()
                return None
            flat = np.flatnonzero(maskt)
            i2 = flat // (w - r)
            j2 = flat - i2 * (w - r)
            rows2, cols2 = j2 + b, i2 + a
            vals2 = t[i2, j2] - xsq[rows2]  # (t is a strided view: no flat copy of it)
        rows = np.concatenate([rows1, rows2])
        order = np.argsort(rows, kind="stable")
        rows = rows[order]
        cols = np.concatenate([cols1, cols2])[order].astype(np.int32)
        vals = np.concatenate([vals1, vals2])[order]
        # a row past `limit` pairs (many equal values) stops collecting them: its own products redo it
        touched, per_row = np.unique(rows, return_counts=True)
        with lock:
            counts[touched] += per_row
            keep = counts[rows] <= limit
        if bar is not None:
            bar.update(r - r // 2)
        return rows[keep].astype(np.int32), cols[keep], vals[keep]

    strips = map_in_threads(strip, range(0, n, block), workers)
    return None if many.is_set() else PairEntries(strips, counts, thr, c, block)


#: Queries of another set are taken this many at a time and multiplied with this many reference rows at a time
#: (`query_entries`): a tile of the reference stays in the cache for every query of the block.
QUERY_BLOCK_ROWS, TILE_ROWS = 1024, 8192


class QueryEntries:
    """The kept candidates of queries of another set (`query_entries`), per block of `QUERY_BLOCK_ROWS` queries.

    ``block(start, stop)`` as `PairEntries.block` (``start:stop`` within one block of queries).
    """

    def __init__(self, blocks, thr, redo, step):
        self.blocks, self.thr, self.redo, self.step = blocks, thr, redo, step

    def block(self, start: int, stop: int):
        j = start // self.step
        rows, cols, vals = self.blocks[j]
        a, b = np.searchsorted(rows, [start - j * self.step, stop - j * self.step])
        return _served(rows[a:b] - (start - j * self.step), cols[a:b], vals[a:b], self.redo[start:stop])


def _served(rows, cols, vals, redo):
    """A block's entries (``rows`` local and sorted) less those of its rows marked in ``redo``, as int64 indices,
    and the positions of those rows: what `PairEntries.block` and `QueryEntries.block` return."""
    keep = ~redo[rows]
    return rows[keep].astype(np.int64), cols[keep].astype(np.int64), vals[keep], np.flatnonzero(redo)


def query_entries(X32a: np.ndarray, queries, m: int, c: int, workers: int, step: int, slack, bar=None) -> QueryEntries:
    """The reference rows whose float32 value ``|x|² − 2 q·x`` is not above each query's sampled threshold, for
    ``m`` queries of another set, computed in tiles: blocks of ``step`` queries (a multiple of the caller's
    block, about `QUERY_BLOCK_ROWS`) against `TILE_ROWS` reference rows at a time, one block per thread.

    ``queries(a, b)`` gives the augmented float32 operands ``[−2 q, 1]`` of the queries ``a:b``. The threshold
    of a query is the ``(⌈2c/16⌉ + 3)``-th smallest value over every `SAMPLE_STEP`-th reference row, as in the
    block search; a query with fewer than ``c`` or more than `max_pairs` candidates, or a NaN threshold, is
    marked in ``redo`` (its entries are not kept). A value that is not a number is always kept. ``slack``: each
    query's threshold is raised by it (`widened`), as in the pairs of a self-search.
    """
    n = X32a.shape[0]
    XS = np.ascontiguousarray(X32a[::SAMPLE_STEP])
    cs = sample_rank(c, XS.shape[0])
    limit = max_pairs(c)
    thr = np.empty(m, dtype=np.float32)
    redo = np.zeros(m, dtype=bool)
    local = threading.local()

    def run(a):
        b = min(a + step, m)
        r = b - a
        q = queries(a, b)
        if getattr(local, "s", None) is None:
            local.s = np.empty(step * TILE_ROWS, dtype=np.float32)
            local.m = np.empty(step * TILE_ROWS, dtype=bool)
        low = []  # each tile's cs smallest sampled values per query
        for t in range(0, XS.shape[0], TILE_ROWS):
            s = np.matmul(q, XS[t : t + TILE_ROWS].T, out=local.s[: r * min(TILE_ROWS, XS.shape[0] - t)].reshape(r, -1))
            low.append(np.partition(s, cs - 1, axis=1)[:, :cs] if s.shape[1] > cs else s.copy())
        low = np.concatenate(low, axis=1)
        th = widened(np.partition(low, cs - 1, axis=1)[:, cs - 1], slack[a:b])
        thr[a:b] = th
        counts = np.zeros(r, dtype=np.int64)
        rows, cols, vals = [], [], []
        for t in range(0, n, TILE_ROWS):
            w = min(TILE_ROWS, n - t)
            s = np.matmul(q, X32a[t : t + w].T, out=local.s[: r * w].reshape(r, w))
            mask = np.greater(s, th[:, None], out=local.m[: r * w].reshape(r, w))
            np.logical_not(mask, out=mask)
            if np.count_nonzero(mask) > limit * r:  # many equal values: rows past the limit stop collecting
                counts += np.count_nonzero(mask, axis=1)
                mask[counts > limit] = False
                counts -= np.count_nonzero(mask, axis=1)  # (counted again below)
            flat = np.flatnonzero(mask)
            i = flat // w
            rows.append(i.astype(np.int32))
            cols.append((flat - i * w + t).astype(np.int32))
            vals.append(s.reshape(-1)[flat])
            counts += np.bincount(i, minlength=r)
        rows, cols, vals = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
        order = np.argsort(rows, kind="stable")
        redo[a:b] = (counts < c) | (counts > limit) | np.isnan(th)
        if bar is not None:
            bar.update(r - r // 2)
        return rows[order], cols[order], vals[order]

    blocks = map_in_threads(run, range(0, m, step), workers)
    return QueryEntries(blocks, thr, redo, step)
