r"""Exact neighbour lists of the protocol's kNN and LOF detectors, shared by every class-split task.

One definition of "the k nearest training normals" serves the standalone
detectors and the shared pass of [`audit_protocol`][auditad.protocol.audit_protocol]:

* the distance of a pair (q, r) is the float64 value
  \(\sqrt{\sum_j (r_j - q_j)^2}\) (cosine: \(\tfrac12\lVert\hat r - \hat q\rVert^2 = 1 - \cos\)
  on unit rows), computed by one function (`pair_sq_distances`) from the
  rows' values, so it does not depend on which other rows are in the
  reference set;
* the neighbours are the k smallest distances, ties broken by the smaller row
  index (global sample index in an audit), so results do not depend on the
  thread count;
* candidates come from [`auditad.neighbors.kneighbors`][auditad.neighbors.kneighbors] with a margin;
  a row is accepted when its k-th distance lies below the margin's last
  engine distance minus a rigorous rounding bound, else it is recomputed
  against every reference row (exact brute force).

It also holds the grouping of list entries by key (`stable_order`, `csr`, `csr_parts`) that the shared pass
uses to find the rows listing a class or a row.

References
----------
1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly
   Detection", §2 (K−1 vs 1 protocol with kNN and LOF detectors).
2. M. M. Breunig, H.-P. Kriegel, R. T. Ng, J. Sander, "LOF: identifying
   density-based local outliers", ACM SIGMOD 2000.
"""

from __future__ import annotations

import numpy as np

from .. import _mapped_pages
from ..neighbors.exact import chunk_rows, refine
from ..errors import InvalidInputError

__all__ = [
    "METRICS",
    "prepare_rows",
    "SAFE_EXPONENT",
    "magnitude_exponent",
    "rescaled",
    "pair_sq_distances",
    "rows64",
    "nearest",
    "rerank",
    "gather32",
    "to_distance",
    "lof_tables",
    "lof_scores",
    "reachability_density",
    "LOF_BLOCK_ROWS",
    "list_recall",
    "RECALL_POOL_BLOCK",
    "RECALL_POOL_ELEMENTS",
]

#: Pool rows per exact search when measuring recall, at most (bounds its memory at 1M rows: 131 072 float64 rows
#: of the pool and their float32 copy per search instead of the whole pool) ...
RECALL_POOL_BLOCK = 1 << 17

#: ... and at most this many values (rows times columns: 256 MiB of float64, 16 384 rows at 2048 columns).
RECALL_POOL_ELEMENTS = 1 << 25

METRICS = ("euclidean", "cosine")
_U64 = float(np.finfo(np.float64).eps) / 2.0


#: Rows whose largest magnitude lies in [2**-SAFE_EXPONENT, 2**SAFE_EXPONENT] are used as they are; others are
#: first multiplied by a power of two (`rescaled`): float64 squared distances over 10**6 columns then neither
#: overflow nor lose their small differences to underflow.
SAFE_EXPONENT = 100


def magnitude_exponent(X: np.ndarray, *, chunk: int | None = None) -> int:
    """0 when the largest magnitude of ``X`` lies in [2**-SAFE_EXPONENT, 2**SAFE_EXPONENT] (or ``X`` is all
    zero), else the exponent ``e`` with ``max|X| * 2**-e`` in [0.5, 1). Read ``chunk`` rows at a time.

    See Also
    --------
    - `rescaled`: applies it.
    """
    step = chunk or chunk_rows(X.shape[1] if X.ndim > 1 else 1)
    big = 0.0
    for a in range(0, X.shape[0], step):
        part = X[a : a + step]
        if part.size:
            big = max(big, float(part.max()), -float(part.min()))
    if big == 0.0 or 2.0**-SAFE_EXPONENT <= big <= 2.0**SAFE_EXPONENT:
        return 0
    return int(np.frexp(big)[1])


def rescaled(X: np.ndarray) -> np.ndarray:
    """``X`` itself when its magnitude is ordinary (`magnitude_exponent` 0), else ``X * 2**-e`` (exact: the
    same dtype, its largest magnitude in [0.5, 1)).

    Multiplying by a power of two is exact and commutes with every rounding of the float operations
    that follow (sums, products, square roots, float32 conversions), so distances, neighbour orders
    and tree splits of the rescaled rows are those of the input up to the factor ``2**-e``: the AUROC
    of a detector whose scores keep their order under scaling (kNN distance, Isolation Forest) is the
    same at any magnitude, where the squared distances of the input would overflow (above about
    1e154) or underflow.

    See Also
    --------
    - `magnitude_exponent`: the exponent.
    """
    e = magnitude_exponent(X)
    if e == 0:
        return X
    out = np.empty(X.shape, dtype=X.dtype if X.dtype in (np.float32, np.float64) else np.float64)
    step = chunk_rows(X.shape[1])
    for a in range(0, X.shape[0], step):
        out[a : a + step] = np.ldexp(np.asarray(X[a : a + step], dtype=out.dtype), -e)
    return out


def prepare_rows(X: np.ndarray, metric: str) -> np.ndarray:
    """The rows the neighbour passes read: for ``metric="euclidean"`` C-contiguous float32 or float64 rows are
    kept as they are (a memory-mapped input is not copied: every distance is computed in float64 from rows
    gathered block by block, `rows64`), other types become float64; for ``metric="cosine"`` a float64 copy
    of the unit rows (all-zero rows rejected). Each row is scaled by a power of two before its norm is
    taken (exact), so rows of any magnitude give their unit vector, bit for bit the same as at magnitude 1."""
    if metric != "cosine" and X.dtype in (np.float32, np.float64) and X.flags.c_contiguous and X.dtype.isnative:
        return X
    X = np.ascontiguousarray(X, dtype=np.float64)
    if metric == "cosine":
        amax = np.abs(X).max(axis=1)
        if np.any(amax == 0):
            raise InvalidInputError(
                f"X has an all-zero row (index {int(np.flatnonzero(amax == 0)[0])}); cosine "
                "distance is undefined for it"
            )
        X = np.ldexp(X, -np.frexp(amax)[1][:, None])  # largest coordinate in [0.5, 1): no overflow, no underflow
        X /= np.sqrt(np.einsum("ij,ij->i", X, X))[:, None]
    return X


def to_distance(d2: np.ndarray, metric: str) -> np.ndarray:
    """Squared euclidean distances of prepared rows -> the metric's distance."""
    return 0.5 * d2 if metric == "cosine" else np.sqrt(d2)


def rows64(X: np.ndarray, rows) -> np.ndarray:
    """``X[rows]`` as float64 (the prepared rows may be float32: every distance is computed in float64).

    Rows gathered at random from a memory-mapped input: its pages are kept out of the resident set here
    (`auditad._mapped_pages.check`), for every caller."""
    _mapped_pages.check()
    return np.asarray(X[rows], dtype=np.float64)


def pair_sq_distances(X: np.ndarray, q: np.ndarray, cand: np.ndarray) -> np.ndarray:
    """float64 squared distances ``|X[cand[i, j]] - X[q[i]]|²`` (the one formula every path uses).

    Each value is the sum over the coordinates of one pair's float64 differences (the rows as given, a float32
    value converted exactly), so it depends only on the two rows' values: the exact engine's `refine` on the
    rows as given, a block of query rows at a time (their float64 copies stay small).
    """
    m, c = cand.shape
    out = np.empty((m, c), dtype=np.float64)
    step = max(1, int(2**22 // max(c * X.shape[1], 1)))  # (query rows per block)
    for a in range(0, m, step):
        b = min(a + step, m)
        out[a:b] = refine(X, None, X[q[a:b]], cand[a:b], b - a, unscaled=True)
    return out


def _sort_rows(d2: np.ndarray, cand: np.ndarray) -> np.ndarray:
    """Per-row order by (d2, index)."""
    o1 = np.argsort(cand, axis=1, kind="stable")
    o2 = np.argsort(np.take_along_axis(d2, o1, axis=1), axis=1, kind="stable")
    return np.take_along_axis(o1, o2, axis=1)


def nearest(
    X: np.ndarray,
    ref: np.ndarray,
    queries: np.ndarray,
    k: int,
    *,
    exclude_self: bool = True,
    backend: str = "auto",
    n_jobs=None,
    random_state=None,
    executor=None,
    rows=None,
    recalls=None,
    project_dim="auto",
) -> tuple[np.ndarray, np.ndarray]:
    """The k nearest rows of ``X[ref]`` to each row ``X[queries]``, by (squared distance, index).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Prepared rows (`prepare_rows`).
    ref : ndarray of int, sorted ascending
        Indices of the reference rows.
    queries : ndarray of int
        Indices of the query rows.
    k : int
        Neighbours per query; lists that run out of reference rows are padded
        with index −1 and squared distance inf.
    exclude_self : bool, default True
        A query that is itself a reference row is not its own neighbour (a
        duplicate at distance 0 is kept).
    backend : {"auto", "exact", "approximate"}
        Backend of [`auditad.neighbors.kneighbors`][auditad.neighbors.kneighbors] for the candidates.
        With the exact backend the result is exact; with the approximate one
        the candidates are only re-ranked.
    executor : executor, optional
        Runs the exact candidate search's query blocks on it (same result).
    rows : optional
        ``executor.share(X)``, made once for several searches over the same
        ``X`` (a Dask executor then sends the rows once, not per search).
    recalls : list, optional
        An approximate search appends its measured ``(recall, n_queries)``.
    project_dim : "auto" or int
        The approximate backend's PCA projection (as in `kneighbors`; 0 = none).

    Returns
    -------
    idx : ndarray of shape (m, k), int64
        Global row indices (−1 = none).
    d2 : ndarray of shape (m, k), float64
        Squared euclidean distances of the prepared rows.
    """
    from ..neighbors.exact import search_rows_distributed
    from ..execution import distributed
    from ..neighbors import choose_backend, kneighbors

    ref = np.asarray(ref, dtype=np.int64)
    queries = np.asarray(queries, dtype=np.int64)
    m, n_ref = queries.size, ref.size
    idx = np.full((m, k), -1, dtype=np.int64)
    d2 = np.full((m, k), np.inf)
    if m == 0 or n_ref == 0 or k == 0:
        return idx, d2
    # exact: a margin of candidates for the certificate below; approximate: candidates are only re-ranked
    kk = min(n_ref, k + int(exclude_self) + (0 if backend == "approximate" else max(8, k // 2)))
    take = gather32 if backend == "approximate" else rows64
    if backend == "auto":  # kneighbors' own choice, made here so that an exact search takes the path below
        backend = choose_backend(m, n_ref, X.shape[1], k=kk, self_search=False, project_dim=project_dim)
    R = None  # the reference rows in float64, gathered once for the search and the certificate
    if backend == "exact" and distributed(executor):  # the rows travel once: ``rows``, or X itself
        positions, distances = search_rows_distributed(X, ref, queries, kk, executor, rows=rows)
        found_by = "exact"
    else:  # in this process (approximate: float32 rows suffice, its candidates are re-ranked in float64 below)
        R = take(X, ref)
        res = kneighbors(
            R,
            take(X, queries),
            k=kk,
            metric="euclidean",
            backend=backend,
            n_jobs=n_jobs,
            random_state=random_state,
            executor=executor,
            project_dim=project_dim,
        )
        positions, distances, found_by = res.indices, res.distances, res.backend
        R = R if take is rows64 else None
        if recalls is not None and res.recall is not None:  # approximate search (asked for, or chosen by "auto")
            recalls.append((res.recall, res.n_recall_queries))
    idx, d2 = rerank(X, queries, ref, positions, k, exclude_self=exclude_self)
    if kk >= n_ref or found_by != "exact":
        return idx, d2  # every reference row was a candidate, or approximate candidates (re-ranked only)
    # certificate: every non-candidate r has engine distance >= e_last, and the engine's (centred)
    # squared distance differs from the pair formula by at most tol, so its d2 >= e_last^2 - tol
    R = rows64(X, ref) if R is None else R
    mu = R.mean(axis=0)
    R -= mu  # (this function's own copy, centred in place: no temporary of the reference's size)
    rmax = float(np.sqrt(np.max(np.einsum("ij,ij->i", R, R))))
    del R
    Qr = rows64(X, queries) - mu
    qn = np.sqrt(np.einsum("ij,ij->i", Qr, Qr))
    gamma = 8.0 * (X.shape[1] + 10) * _U64
    tol = gamma * (qn + 2.0 * rmax) ** 2
    last = distances[:, -1] ** 2
    kth = d2[:, k - 1]
    bad = np.flatnonzero(~(kth < last - tol))
    for i in bad:  # near-ties at the candidate boundary: brute force over every reference row
        row = pair_sq_distances(X, queries[i : i + 1], ref[None, :])[0]
        if exclude_self:
            row[ref == queries[i]] = np.inf
        o = np.argsort(row, kind="stable")[:k]  # ref is sorted: stable order = ties by index
        idx[i] = -1
        d2[i] = np.inf
        idx[i, : o.size], d2[i, : o.size] = ref[o], row[o]
        idx[i, ~np.isfinite(d2[i])] = -1
    return idx, d2


def rerank(
    X: np.ndarray, queries: np.ndarray, ref: np.ndarray, positions: np.ndarray, k: int, *, exclude_self: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """The first ``k`` of each query's candidates ``ref[positions]`` by exact (squared distance, index).

    Distances are `pair_sq_distances`; the query itself is dropped with ``exclude_self``; a negative
    position is no candidate; rows with fewer than ``k`` candidates are padded with index −1 and squared
    distance inf. Works in row chunks.
    """
    m = queries.size
    idx = np.full((m, k), -1, dtype=np.int64)
    d2 = np.full((m, k), np.inf)
    kk_eff = min(k, positions.shape[1])
    step = max(1, 2**21 // max(positions.shape[1], 1))  # rows per chunk: bounded temporaries
    for a in range(0, m, step):
        b = min(a + step, m)
        pos = positions[a:b]
        cand = np.where(pos >= 0, ref[np.maximum(pos, 0)], -1)
        cd2 = pair_sq_distances(X, queries[a:b], np.maximum(cand, 0))
        cd2[cand < 0] = np.inf
        if exclude_self:
            cd2[cand == queries[a:b, None]] = np.inf
        order = _sort_rows(cd2, cand)[:, :kk_eff]
        idx[a:b, :kk_eff] = np.take_along_axis(cand, order, axis=1)
        d2[a:b, :kk_eff] = np.take_along_axis(cd2, order, axis=1)
    idx[~np.isfinite(d2)] = -1
    return idx, d2


def gather32(X: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``X[rows]`` as float32, gathered in chunks (no float64 copy of the whole selection)."""
    out = np.empty((rows.size, X.shape[1]), dtype=np.float32)
    step = chunk_rows(X.shape[1])
    for a in range(0, rows.size, step):
        _mapped_pages.check()  # (as in `rows64`)
        out[a : a + step] = X[rows[a : a + step]]
    return out


def lof_scores(tables, query_d: np.ndarray, query_idx_nb: np.ndarray) -> np.ndarray:
    r"""Local outlier factor of query rows from neighbour lists (higher = more anomalous).

    \[
    \mathrm{reach}_k(x, o) = \max\{d_k(o), d(x, o)\},\quad
    \mathrm{lrd}(x) = \Big(\tfrac1k\sum_{o\in N_k(x)} \mathrm{reach}_k(x, o) + 10^{-10}\Big)^{-1},\quad
    \mathrm{LOF}(x) = \tfrac1k\sum_{o\in N_k(x)} \frac{\mathrm{lrd}(o)}{\mathrm{lrd}(x)},
    \]

    with the training rows' own lists (self excluded) for d_k(o) and lrd(o); the
    1e-10 and the order of the operations are scikit-learn's
    (``LocalOutlierFactor(novelty=True).score_samples`` negated).

    Parameters
    ----------
    tables : callable
        Maps global indices of training rows to their ``(k-distance, lrd)``
        (built by `lof_tables` from the training rows' own lists).
    query_d, query_idx_nb : ndarray of shape (m, k)
        The queries' neighbour distances and global indices.
    """
    kd, lrd = tables(query_idx_nb)
    lrd_q = reachability_density(query_d, kd)
    return np.mean(lrd / lrd_q[:, np.newaxis], axis=1)


def reachability_density(d: np.ndarray, kd: np.ndarray) -> np.ndarray:
    r"""The local reachability density of rows from their neighbours' distances ``d`` and k-distances ``kd``
    (both (m, k)): \(1 / (	frac1k\sum \max\{d_k(o), d(x, o)\} + 10^{-10})\), as in `lof_scores` (scikit-learn's
    operations; row by row, so any block of rows gives the same bits)."""
    return 1.0 / (np.mean(np.maximum(d, kd), axis=1) + 1e-10)


#: Rows of `lof_tables` formed at a time (their distances and reachabilities: bounded temporaries).
LOF_BLOCK_ROWS = 2**18


def lof_tables(
    n_total: int, train_rows: np.ndarray, train_d: np.ndarray, train_nb: np.ndarray, metric=None, *, dtype=None
):
    """k-distance and lrd of each training row, as a lookup by global index (see `lof_scores`).

    ``train_d``, ``train_nb``: the training rows' distances to, and global indices of, their k nearest training
    rows (self excluded). With ``metric``, ``train_d`` holds *squared* distances of prepared rows, turned into
    the metric's distances (`to_distance`) `LOF_BLOCK_ROWS` rows at a time, after converting them to ``dtype``
    if given (bounded temporaries for lists of a million rows); without it (the former call), distances.
    """
    kdist, lrd = np.full(n_total, np.nan), np.full(n_total, np.nan)
    m = len(train_rows)
    for a in range(0, m, LOF_BLOCK_ROWS):
        kdist[train_rows[a : a + LOF_BLOCK_ROWS]] = _distances(train_d[a : a + LOF_BLOCK_ROWS, -1], metric, dtype)
    for a in range(0, m, LOF_BLOCK_ROWS):
        d = _distances(train_d[a : a + LOF_BLOCK_ROWS], metric, dtype)
        lrd[train_rows[a : a + LOF_BLOCK_ROWS]] = reachability_density(d, kdist[train_nb[a : a + LOF_BLOCK_ROWS]])
    return LOFTables(kdist, lrd)


def _distances(d, metric, dtype):
    """``d`` as distances: converted to ``dtype`` (if given), then squared distances turned into the metric's
    distances when ``metric`` is given."""
    d = np.asarray(d, dtype=dtype)
    return d if metric is None else to_distance(d, metric)


class LOFTables:
    """k-distance and lrd by global row index; calling it with indices returns both (picklable)."""

    def __init__(self, kdist: np.ndarray, lrd: np.ndarray):
        self.kdist = kdist
        self.lrd = lrd

    def __call__(self, nb: np.ndarray):
        return self.kdist[nb], self.lrd[nb]


def stable_order(keys: np.ndarray, n_keys: int) -> np.ndarray:
    """``np.argsort(keys, kind="stable")`` for keys in ``range(n_keys)``, by numpy's radix sort of 16-bit integers:
    one pass for keys below 2^16 (class labels: 0.3 s for 20M keys against 1.8–2.9 s as int64), two for keys below
    2^32 (row indices: the low half, then the high half of the keys in that order, a least-significant-digit radix
    sort). The order is the same."""
    if n_keys <= 1 << 16:
        return np.argsort(keys.astype(np.uint16), kind="stable")
    if n_keys > 1 << 32:
        return np.argsort(keys, kind="stable")
    order = np.argsort((keys & 0xFFFF).astype(np.uint16), kind="stable")
    high = (keys >> 16).astype(np.uint16)[order]
    return order[np.argsort(high, kind="stable")]


def csr(keys: np.ndarray, values: np.ndarray, n_keys: int):
    """``values`` grouped by ``keys`` (in ``range(n_keys)``): ``(grouped values, start of each key)``, each key's
    values in their order in ``values`` (`stable_order`)."""
    return csr_parts(lambda j: (keys, values), 1, n_keys, values.dtype)


def csr_parts(part, n_parts: int, n_keys: int, dtype):
    """`csr` of the concatenation of ``part(0), …, part(n_parts − 1)`` (each ``(keys, values)``), the same arrays
    with the temporaries of one part (all 1M lists' entries at once: 0.7 GB): counted, then placed in turn."""
    total = np.zeros(n_keys, dtype=np.int64)
    for j in range(n_parts):
        total += np.bincount(part(j)[0], minlength=n_keys)
    start = np.concatenate([[0], np.cumsum(total)])
    cursor, out = start[:-1].copy(), np.empty(int(start[-1]), dtype=dtype)
    for j in range(n_parts):
        keys, values = part(j)
        order = stable_order(keys, n_keys)
        sk, count = keys[order], np.bincount(keys, minlength=n_keys)
        out[cursor[sk] + (np.arange(sk.size) - (np.cumsum(count) - count)[sk])] = values[order]
        cursor += count
    return out, start


def csr_rows(csr, key: int) -> np.ndarray:
    values, start = csr
    return values[start[key] : start[key + 1]] if 0 <= key < start.size - 1 else values[:0]


def list_recall(X, pool, rows, lists_d2, k, random_state, sample=None) -> tuple[float, int]:
    """Recall of approximate lists among the pool, measured against exact search on a sample of rows.

    ``lists_d2[i]`` holds the exact squared distances of row ``rows[i]``'s listed
    pool rows, nearest first. An entry among its first k counts as found when it
    is no farther than the exact k-th nearest pool row (self excluded), so ties
    at the k-th distance are not penalised. ``sample`` rows (default: the
    leakage's recall sample, 200), drawn from ``random_state``.

    Returns
    -------
    (recall, n_queries)
    """
    from ..neighbors import DEFAULT_RECALL_SAMPLE
    from .._rng import check_random_state

    sample = DEFAULT_RECALL_SAMPLE if sample is None else int(sample)
    if rows.size == 0 or sample <= 0 or pool.size == 0:
        return None, 0
    pick = np.sort(check_random_state(random_state).choice(rows.size, size=min(sample, rows.size), replace=False))
    exact_d2 = None
    step = max(1, min(RECALL_POOL_BLOCK, RECALL_POOL_ELEMENTS // max(X.shape[1], 1)))
    for a in range(0, pool.size, step):  # exact k nearest per block of the pool, then merged
        _, d2 = nearest(X, pool[a : a + step], rows[pick], k, exclude_self=True, backend="exact")
        exact_d2 = d2 if exact_d2 is None else np.sort(np.hstack([exact_d2, d2]), axis=1)[:, :k]
    kth = exact_d2[:, -1]
    valid = np.isfinite(exact_d2)  # short pools: fewer than k rows to find
    got = lists_d2[pick, :k]
    found = np.isfinite(got) & (got <= kth[:, None])
    return float(found.sum() / max(int(valid.sum()), 1)), int(pick.size)
