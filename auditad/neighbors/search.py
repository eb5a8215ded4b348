"""`kneighbors` and its backends: the cost model, the approximate index, the recall check. Re-exported by
[`auditad.neighbors`][auditad.neighbors]; the algorithms and references are described there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._format import FrameDisplay
from .exact import Frame, UnitRows, check_distance_range, chunk_rows, lexsort_rows, search, search_distributed
from .projection import (
    Projection,
    n_candidates,
    projected_queries,
    projection_seconds,
    rerank,
    resolve_project_dim,
    searches_projection_exactly,
)
from .query_blocks import query_in_blocks
from ..execution import distributed
from .._progress import Progress
from .._rng import check_random_state, seed_int
from .._validation import check_choice, check_embeddings, check_int, check_k
from ..errors import InvalidInputError

__all__ = [
    "NeighborsResult",
    "kneighbors",
    "choose_backend",
    "estimate_seconds",
    "AUTO_EXACT_MAX_COST",
    "METRICS",
    "BACKENDS",
    "ApproximateIndex",
]

METRICS = ("euclidean", "cosine")
BACKENDS = ("auto", "exact", "approximate")

# Cost model of ``backend="auto"``: wall seconds on the project's 2-core reference machine (Linux, OpenBLAS, numba
# 0.68, pynndescent 0.7; 128-d embedding-like data, k = 10), measured with ``benchmarks/bench_leakage.py
# --cost-model`` in a fresh process (the faster of two runs).
#: exact search: wall seconds per "operation" n_queries * n_reference * (d + 64)
#: (measured 6.8e-12: self searches of 20k and 40k x 128 rows, half the products formed: `auditad.neighbors.pairs`)
EXACT_SECONDS_PER_OP = 6.8e-12
#: numba compilation of pynndescent's graph construction, paid once per process: 21.9 s
#: with numba's on-disk cache warm (every run after the first on a machine), about 60 s cold
NUMBA_BUILD_COMPILE_SECONDS = 22.0
#: numba compilation of pynndescent's query functions (queries distinct from X), once per
#: process: 0.15 s with the on-disk cache warm, 62 s cold (first run on a machine)
NUMBA_QUERY_COMPILE_SECONDS = 5.0
#: pynndescent graph construction: wall seconds per n * (d + 32) * n_neighbors / 30
#: (measured 2.9e-7 at n = 50k; 4.8e-7 CPU seconds)
APPROX_BUILD_SECONDS_PER_UNIT = 2.9e-7
#: pynndescent queries, including the search-graph preparation: seconds per n_queries * (d + 32)
#: (1.2e-6 CPU s, 12.5k queries against 50k rows, pynndescent 0.5; 0.7 is ~10x faster near the rows, far slower far)
APPROX_QUERY_SECONDS_PER_UNIT = 7.0e-7
#: queries checked against exact search to measure the approximate backend's recall (default)
DEFAULT_RECALL_SAMPLE = 200
#: Approximate queries of another set: largest degree of the NN-descent graph built over the reference rows.
QUERY_INDEX_MAX_DEGREE = 64
#: NN-descent candidates per row and iteration, at most (pynndescent's: min(60, degree); docs/methods/protocol.md)
GRAPH_MAX_CANDIDATES = 32


def _break_even_ops(d: int = 128, k: int = 10) -> float:
    """n^2 (d + 64) at the self-search size where both estimates of `estimate_seconds` agree."""
    a = EXACT_SECONDS_PER_OP * (d + 64)
    b = APPROX_BUILD_SECONDS_PER_UNIT * (d + 32) * max(
        30, k + 1
    ) / 30.0 + EXACT_SECONDS_PER_OP * DEFAULT_RECALL_SAMPLE * (d + 64)
    n = (b + np.sqrt(b * b + 4 * a * NUMBA_BUILD_COMPILE_SECONDS)) / (2 * a)
    return float(n * n * (d + 64))


#: Kept for backward compatibility: the exact-search cost n_queries * n_reference * (d + 64)
#: at which both backends' estimates agree for a self search at d = 128, k = 10
#: (about n = 149 000 rows); ``auto`` decides with `estimate_seconds` itself.
AUTO_EXACT_MAX_COST = _break_even_ops()


@dataclass(frozen=True)
class NeighborsResult(FrameDisplay):
    """The k nearest neighbours of every query.

    Attributes
    ----------
    indices : ndarray of shape (n_queries, k), int64
        Row indices into the reference set, by increasing distance (ties by
        index for the exact backend).
    distances : ndarray of shape (n_queries, k), float64
        Euclidean distances, or cosine distances ``1 - cos``.
    backend : str
        ``"exact"`` or ``"approximate"``: the backend that actually ran.
    metric : str
        ``"euclidean"`` or ``"cosine"``.
    recall : float or None
        Approximate backend only: the share of the exact k nearest neighbours
        (ties counted as found) that the approximate search returned, on a
        random sample of ``n_recall_queries`` queries; ``None`` for exact
        search (recall 1 by construction) or when not measured.
    n_recall_queries : int
        Size of that sample (0 when not measured).
    requested_backend : str
        The ``backend=`` argument (``"auto"``, ``"exact"`` or ``"approximate"``).
    estimated_seconds : dict or None
        ``backend="auto"`` only: the cost model's estimate of the wall time of
        each backend, ``{"exact": s, "approximate": s}`` (see
        `estimate_seconds`); the cheaper one ran.
    project_dim : int or None
        Approximate backend only: the dimension of the PCA projection the
        candidates were searched in (they were then re-ranked in the original
        space), or ``None`` when the graph was built in the full dimension.

    See Also
    --------
    - [`kneighbors`][auditad.neighbors.kneighbors]: computes it.

    References
    ----------
    W. Dong, M. Charikar, K. Li, "Efficient k-nearest neighbor graph construction for generic
    similarity measures", WWW 2011 (NN-descent, the approximate backend via pynndescent).
    """

    indices: np.ndarray
    distances: np.ndarray
    backend: str
    metric: str
    recall: float | None = None
    n_recall_queries: int = 0
    requested_backend: str = "exact"
    estimated_seconds: dict | None = None
    project_dim: int | None = None

    @property
    def k(self) -> int:
        return int(self.indices.shape[1])

    def to_dict(self) -> dict:
        """How the neighbours were found (JSON-safe; the arrays are left out)."""
        return {
            "backend": self.backend,
            "requested_backend": self.requested_backend,
            "metric": self.metric,
            "k": self.k,
            "n_queries": int(self.indices.shape[0]),
            "recall": self.recall,
            "n_recall_queries": self.n_recall_queries,
            "estimated_seconds": None if self.estimated_seconds is None else dict(self.estimated_seconds),
            "project_dim": self.project_dim,
        }

    def to_frame(self):
        """Tidy table: one row per (query, rank) with the neighbour's ``index`` and ``distance``."""
        import pandas as pd

        n, k = self.indices.shape
        return pd.DataFrame(
            {
                "query": np.repeat(np.arange(n), k),
                "rank": np.tile(np.arange(1, k + 1), n),
                "index": self.indices.ravel(),
                "distance": self.distances.ravel(),
            }
        )


def estimate_seconds(
    n_queries: int,
    n_reference: int,
    d: int,
    *,
    k: int = 10,
    self_search: bool = True,
    recall_sample: int = DEFAULT_RECALL_SAMPLE,
    compiled: bool = False,
    project_dim="auto",
) -> dict:
    r"""Estimated wall time of each backend for one search (2 cores, idle machine).

    \[
    t_\mathrm{exact} &= a\, m\, n\, (d + 64) \\
    t_\mathrm{approx} &= C_\mathrm{build} + C_\mathrm{query}
    + b\, n\, (d + 32)\, g / 30
    + q\, m\, (d + 32) + a\, s\, n\, (d + 64)
    \]

    with \(m\) queries, \(n\) reference rows, \(s\) recall
    queries, \(g\) the degree of the NN-descent graph (\(\max(30, k + 1)\)
    for a self search, \(\max(30, \min(k, 64))\) for queries of another set); \(C\) are numba's compilation times (\(C_\mathrm{query}\)
    and the query term only when the queries are not the reference set
    itself). When the approximate backend projects (``project_dim``, see
    `kneighbors`), the graph and query terms use the projected dimension
    \(p\) instead of \(d\), the degree of a self search becomes
    \(\max(30, 3k + 1)\), and the cost of the PCA fit, of projecting the
    rows and of re-ranking the \(3k\) candidates in the original space is
    added (`auditad.neighbors.projection.projection_seconds`); the recall
    sample is still searched in \(d\) dimensions. Queries of another set within
    `auditad.neighbors.projection.searches_projection_exactly` replace the graph by an exact search of the
    projection, \(a\, m\, n\, (p + 64)\). Compilation is always counted unless ``compiled=True``: the
    choice of ``auto`` depends only on the sizes, never on what ran earlier in
    the process, so the same call gives the same neighbours in any session. The constants
    (``EXACT_SECONDS_PER_OP``, ``NUMBA_*_COMPILE_SECONDS``,
    ``APPROX_*_SECONDS_PER_UNIT``) were measured on this project's 2-core
    reference machine with ``benchmarks/bench_leakage.py --cost-model``.

    Parameters
    ----------
    n_queries, n_reference, d : int
        Search size.
    k : int
        Neighbours per query.
    self_search : bool
        Whether the queries are the reference rows (no separate query phase).
    recall_sample : int
        Queries checked against exact search after an approximate search.
    compiled : bool
        Leave out numba's compilation times (for a caller that runs many
        searches in one process and accounts for them once).
    project_dim : "auto" or int
        As in `kneighbors`: whether, and to what dimension, the approximate
        backend projects.

    Returns
    -------
    dict
        ``{"exact": seconds, "approximate": seconds}``.

    See Also
    --------
    - `choose_backend`
    - [`kneighbors`][auditad.neighbors.kneighbors]

    References
    ----------
    1. W. Dong, M. Charikar, K. Li, "Efficient k-nearest neighbor graph
       construction for generic similarity measures", WWW 2011.
    """
    m, n = float(n_queries), float(n_reference)
    exact = EXACT_SECONDS_PER_OP * m * n * (d + 64)
    p = resolve_project_dim(project_dim, d)
    dg = d if p is None else p  # the dimension the graph is built and queried in
    if p is not None and not self_search and searches_projection_exactly(m, n):  # no graph: exact in projection
        approx = EXACT_SECONDS_PER_OP * m * n * (p + 64)
    else:
        approx = 0.0 if compiled else NUMBA_BUILD_COMPILE_SECONDS
        kg = k if p is None else n_candidates(k, n_reference)  # neighbours taken from the graph
        degree = max(30, kg + 1) if self_search else max(30, min(k + 1, QUERY_INDEX_MAX_DEGREE + 1))
        approx += APPROX_BUILD_SECONDS_PER_UNIT * n * (dg + 32) * degree / 30.0
        if not self_search:
            approx += 0.0 if compiled else NUMBA_QUERY_COMPILE_SECONDS
            approx += APPROX_QUERY_SECONDS_PER_UNIT * m * (dg + 32)
    if p is not None:
        approx += projection_seconds(n_queries, n_reference, d, p, k, self_search=self_search)
    approx += EXACT_SECONDS_PER_OP * min(recall_sample, m) * n * (d + 64)
    return {"exact": exact, "approximate": approx}


def choose_backend(n_queries: int, n_reference: int, d: int, **options) -> str:
    """The backend ``auto`` picks: the one with the smaller `estimate_seconds`.

    ``options`` are the keyword arguments of `estimate_seconds` (``k``, ``self_search``,
    ``recall_sample``, ``compiled``, ``project_dim``). Exact search also wins for sets too small for
    NN-descent (n < 4 (k + 1)).

    See Also
    --------
    - `estimate_seconds`

    References
    ----------
    1. W. Dong, M. Charikar, K. Li, "Efficient k-nearest neighbor graph
       construction for generic similarity measures", WWW 2011.
    """
    k = options.get("k", 10)
    if n_reference < 4 * (k + 1):
        return "exact"
    return _cheaper(estimate_seconds(n_queries, n_reference, d, **options), n_reference, k)


def _cheaper(estimate: dict, n_reference: int, k: int) -> str:
    """The backend of the smaller estimate (exact for sets too small for NN-descent)."""
    if n_reference < 4 * (k + 1):
        return "exact"
    return "exact" if estimate["exact"] <= estimate["approximate"] else "approximate"


def kneighbors(
    X,
    queries=None,
    *,
    k,
    metric="euclidean",
    backend="auto",
    block_memory_mb=256,
    n_jobs=None,
    random_state=None,
    recall_sample=None,
    progress=False,
    executor=None,
    project_dim="auto",
    self_lists=None,
) -> NeighborsResult:
    """k nearest neighbours of a set in itself (self excluded) or of queries in a reference set.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Reference set.
    queries : array-like of shape (m, d), optional
        Query points. ``None`` searches every row of ``X`` among the *other*
        rows of ``X``: row ``i`` is never its own neighbour, but a duplicate of
        row ``i`` (distance 0) is kept.
    k : int
        Number of neighbours, ``1 <= k < n`` for a self search and
        ``1 <= k <= n`` for queries.
    metric : {"euclidean", "cosine"}
        Cosine distance is ``1 - cos(x, r)``; all-zero rows are rejected. The rows are divided by
        their norms in float64 (a float64 copy for the exact backend; the approximate backend forms
        them as it reads them, `auditad.neighbors.exact.UnitRows`, so float32 or memory-mapped input
        is never copied whole in float64).
    backend : {"auto", "exact", "approximate"}
        See the module docstring.
    block_memory_mb : float
        Memory cap of one block of the exact search (float32 distances of a
        block of queries to every reference row). Blocks hold at most 256
        queries (the fastest size measured on 2 cores), so the cap only binds
        above n ≈ 130 000. Memory beyond the blocks is one float32 copy of the
        data (two for a self search).
    n_jobs : int, optional
        Threads of the exact search (default: the number of CPUs, at most 8); processes that answer the
        approximate backend's queries of another set, in fixed blocks (default: every CPU; Linux only). The
        result does not depend on it.
    random_state : None, int or Generator
        Seeds pynndescent and the recall sample.
    progress : bool
        Draw a progress bar on stderr over the blocks of the exact search
        (the approximate backend reports only its start and end).
    recall_sample : int, optional
        Approximate backend: number of random queries whose neighbours are
        checked against exact search (0 = do not measure; default
        `DEFAULT_RECALL_SAMPLE`). Ignored by the exact backend.
    executor : executor, optional
        An open executor of `auditad.execution.open_executor` (e.g. a
        Dask cluster): the exact search then runs in blocks of queries, one
        task per block, each worker with one thread. The result is identical,
        bit for bit, to the search in this process (each row is certified on
        its own, in the same coordinate frame). Ignored by the approximate
        backend and by a serial executor.
    project_dim : "auto" or int
        Approximate backend: the dimension of the PCA projection (randomized
        PCA fitted on 4 096 sampled rows, Halko, Martinsson & Tropp 2011) in
        which the NN-descent graph looks for ``3 k`` candidates per query,
        which are then re-ranked by their exact float64 distances in the
        original space (computed in blocks; no copy of the data beyond the
        float32 projection). ``"auto"`` projects to 128 dimensions when
        ``d > 256``; ``0`` builds the graph in the full dimension; an
        integer ``1 <= p <= d`` projects to ``p`` dimensions whenever
        ``p < d``. Queries of another set (up to 2^38 query-row pairs) are searched
        exactly in the projection instead of a graph, whose time for far queries has no bound.
        The reported recall is measured in the original space; ``auto`` accounts for all of it. Ignored
        by the exact backend (but checked).
    self_lists : callable, optional
        Approximate backend, self search: ``self_lists(k)`` returns every row's ``k`` nearest other rows as
        ``(indices, squared distances)`` (of the rows as the metric reads them: unit rows for cosine; exact,
        nearest first, ties by index) from an index built elsewhere, or None (then the index is built here).
        An audit builds one index over every row for its leakage and its protocol stages
        (`auditad.protocol.shared.SharedIndex`). The recall is measured on these lists as on any others.

    Returns
    -------
    NeighborsResult

    See Also
    --------
    - [`NeighborsResult`][auditad.neighbors.NeighborsResult]: its result.
    - [`auditad.leakage.leakage`][auditad.leakage.leakage]: L_k from these neighbours.

    References
    ----------
    W. Dong, M. Charikar, K. Li, "Efficient k-nearest neighbor graph construction for generic
    similarity measures", WWW 2011 (NN-descent, the approximate backend via pynndescent).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [3.0]])
    >>> res = kneighbors(X, k=1, backend="exact")
    >>> res.indices.ravel().tolist(), res.distances.ravel().tolist()
    ([1, 0, 3, 2], [1.0, 1.0, 0.0, 0.0])
    """
    check_choice(metric, METRICS, name="metric")
    check_choice(backend, BACKENDS, name="backend")
    # float32 input stays float32 (no float64 copy of the whole set); every distance is float64
    Xr = check_embeddings(X, name="X", dtype=None)
    self_search = queries is None
    Q = Xr if self_search else check_embeddings(queries, name="queries", dtype=None)
    if Q.shape[1] != Xr.shape[1]:
        raise InvalidInputError(
            f"queries must have the same number of columns as X, got {Q.shape[1]} and {Xr.shape[1]}"
        )
    n = Xr.shape[0]
    k = check_k(k, n, name="k", strict=self_search)
    recall_sample = (
        DEFAULT_RECALL_SAMPLE if recall_sample is None else check_int(recall_sample, name="recall_sample", low=0)
    )
    if not (isinstance(block_memory_mb, (int, float)) and block_memory_mb > 0):
        raise InvalidInputError(f"block_memory_mb must be a positive number, got {block_memory_mb!r}")
    proj = resolve_project_dim(project_dim, Xr.shape[1])
    if n_jobs is not None:
        check_int(n_jobs, name="n_jobs", low=1)
    if self_lists is not None and not callable(self_lists):
        raise InvalidInputError(f"self_lists must be a function k -> (indices, squared distances), got {self_lists!r}")
    requested, estimate = backend, None
    if backend == "auto":  # (one estimate: the same choice as `choose_backend`)
        estimate = estimate_seconds(
            Q.shape[0],
            n,
            Xr.shape[1],
            k=k,
            self_search=self_search,
            recall_sample=recall_sample,
            project_dim=project_dim,
        )
        backend = _cheaper(estimate, n, k)

    if metric == "cosine":  # unit rows: a float64 copy for the exact engine, formed as read for the approximate
        unit = _unit_rows if backend == "exact" else UnitRows
        Xr = unit(Xr, "X")
        Q = Xr if self_search else unit(Q, "queries")
    recall, n_rec = None, 0
    if backend == "exact":
        if distributed(executor):
            idx, dist = search_distributed(Xr, Q, k, self_search, block_memory_mb, executor)
        else:
            idx, dist = search(Xr, Q, k, self_search, block_memory_mb, n_jobs, progress)
    else:
        label = "approximate kNN (pynndescent" + ("" if proj is None else f", {proj}-d PCA projection") + ")"
        with Progress(1, label, enabled=progress):
            given = self_lists(k) if self_lists is not None and self_search else None
            if given is not None:  # (an index over every row built for other searches too)
                idx, dist = given[0], np.sqrt(given[1])
                check_distance_range(dist)
            else:
                idx, dist = _approximate(Xr, Q, k, self_search, random_state, proj, n_jobs)
        if recall_sample > 0:
            recall, n_rec = _measure_recall(Xr, Q, k, self_search, idx, dist, recall_sample, random_state)
    if metric == "cosine":
        dist = 0.5 * dist * dist  # |a-b|^2 / 2 = 1 - cos for unit vectors
    return NeighborsResult(
        indices=idx,
        distances=dist,
        backend=backend,
        metric=metric,
        recall=recall,
        n_recall_queries=n_rec,
        requested_backend=requested,
        estimated_seconds=estimate,
        project_dim=proj if backend == "approximate" else None,
    )


def _unit_rows(A: np.ndarray, name: str) -> np.ndarray:
    r"""Rows divided by their Euclidean norm, at any magnitude.

    Each row is first scaled by the power of two that brings its largest
    coordinate into [0.5, 1) (exact), so the squared norm can neither overflow
    nor underflow, and a row multiplied by \(2^p\) gives the same unit vector
    bit for bit.
    """
    A = np.asarray(A, dtype=np.float64)
    amax = np.abs(A).max(axis=1)
    if np.any(amax == 0):
        raise InvalidInputError(
            f"{name} has an all-zero row (index {int(np.flatnonzero(amax == 0)[0])}); "
            "cosine distance is undefined for it"
        )
    A = np.ldexp(A, -np.frexp(amax)[1][:, None])
    return A / np.linalg.norm(A, axis=1)[:, None]


# ----------------------------------------------------------------------- approximate
def _approximate(X, Q, k, self_search, random_state, project_dim=None, n_jobs=None):
    """Approximate k nearest neighbours; ``project_dim``: None (full dimension) or the resolved projected dimension;
    ``n_jobs``: processes of the queries of another set."""
    dist = None
    if not self_search and project_dim is not None and searches_projection_exactly(Q.shape[0], X.shape[0]):
        idx, dist, frame = projected_queries(X, Q, k, project_dim, seed_int(random_state), n_jobs)
    elif not self_search:  # queries of another set: one ApproximateIndex, queried once
        index = ApproximateIndex(
            X, span=Q, k=k, random_state=random_state, project_dim=0 if project_dim is None else project_dim
        )
        frame, idx = index.frame, index.query(Q, k, n_jobs=n_jobs)
    elif project_dim is not None:  # candidates in a PCA projection, re-ranked in the original space
        frame = Frame(X, None, chunk_rows(X.shape[1]))
        idx, dist = _projected_self(X, frame, k, project_dim, random_state)
    else:
        import warnings

        # pynndescent works in float32: give it the centred, power-of-two-rescaled data
        # (coordinates in (-1, 1)), so neither large offsets nor extreme magnitudes reach it
        chunk = chunk_rows(X.shape[1])
        frame = Frame(X, None, chunk)
        X32 = _frame_float32(frame, X, chunk)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numba / pynndescent deprecation chatter
            from pynndescent import NNDescent

            n = X.shape[0]
            index = NNDescent(
                X32,
                n_neighbors=min(n - 1, max(30, k + 1)),
                metric="euclidean",
                random_state=seed_int(random_state),
                n_jobs=-1,
                low_memory=True,
                compressed=False,
            )
            gi, gd = index.neighbor_graph
            idx, _ = _drop_self(gi, gd, k)
        del X32
    if dist is None:  # recompute distances exactly in float64 (in the frame), so both backends agree to rounding
        dist = _frame_distances(X, Q, frame, idx)
    order = lexsort_rows(dist, idx)
    idx, dist = np.take_along_axis(idx, order, axis=1), frame.unscale(np.take_along_axis(dist, order, axis=1))
    check_distance_range(dist)
    return idx, dist


def _frame_distances(X, Q, frame, idx):
    """Float64 distances (frame units) from each query to its listed reference rows, in blocks."""
    dist = np.empty(idx.shape, dtype=np.float64)
    step = max(1, int(2**24 // max(idx.shape[1] * X.shape[1], 1)))
    for a in range(0, idx.shape[0], step):
        b = min(a + step, idx.shape[0])
        diff = frame.raw(X[idx[a:b]]) - frame.raw(Q[a:b])[:, None, :]
        dist[a:b] = np.sqrt(np.einsum("bkd,bkd->bk", diff, diff))
    return dist


def _projected_self(X, frame, k, p, random_state):
    """Self search: the NN-descent graph of the rows' p-d PCA projection gives 3k candidates, re-ranked exactly."""
    import warnings

    seed = seed_int(random_state)
    P = Projection(X, frame, p, seed).transform(X)
    n = X.shape[0]
    kc = max(k, n_candidates(k, n - 2))  # the graph (at most n - 1 entries with self) holds kc others
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba / pynndescent deprecation chatter
        from pynndescent import NNDescent

        index = NNDescent(
            P,
            n_neighbors=min(n - 1, max(30, kc + 1)),
            metric="euclidean",
            random_state=seed,
            n_jobs=-1,
            low_memory=True,
            compressed=False,
        )
        gi, gd = index.neighbor_graph
    del P, index
    cand, _ = _drop_self(gi, gd, kc)
    return rerank(X, X, frame, cand, k)


class ApproximateIndex:
    """One NN-descent index (pynndescent) over reference rows, queried several times with different k.

    The rows go to pynndescent in float32, centred and scaled by powers of two
    (as in [`kneighbors`][auditad.neighbors.kneighbors]); ``span`` (default: the reference rows) must hold
    every row that will be queried, so that one frame covers them all. Only
    candidate indices are returned: callers re-rank them with exact distances.
    Rows of more than 256 columns are indexed in a PCA projection
    (``project_dim``, as in [`kneighbors`][auditad.neighbors.kneighbors]); a
    query then takes ``3 k`` candidates from the projection and returns the
    ``k`` nearest of them by exact distance in the original space (``X`` is
    kept by reference for this).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Reference rows (float32 or float64; a memory map is fine).
    rows : ndarray of int, sorted and distinct, optional
        Index only ``X[rows]``, read block by block as float32 (no copy of the subset is made; query results
        are positions in ``rows``; candidates of a projection are re-ranked against ``X`` itself).
    span : ndarray of shape (m, d), optional
        Rows whose range the frame must cover besides ``X`` (the future queries).
    k : int
        Typical number of neighbours asked for (sets the graph degree,
        ``max(30, min(k + 1, QUERY_INDEX_MAX_DEGREE + 1))``: every reference row's own list in the graph,
        `graph_lists`, holds k rows besides itself).
    random_state : None, int or Generator
    project_dim : "auto" or int
        As in [`kneighbors`][auditad.neighbors.kneighbors]; the resolved
        dimension (or None) is the attribute ``project_dim``.

    Attributes
    ----------
    degree : int
        Rows besides itself that each reference row's list in the graph holds (`graph_lists` serves up to
        this many; wider lists need `query`); 0 after `drop_graph`.

    References
    ----------
    W. Dong, M. Charikar, K. Li, "Efficient k-nearest neighbor graph construction for generic
    similarity measures", WWW 2011.

    See Also
    --------
    - [`kneighbors`][auditad.neighbors.kneighbors]
    """

    def __init__(
        self,
        X: np.ndarray,
        *,
        rows: np.ndarray | None = None,
        span: np.ndarray | None = None,
        k: int = 30,
        random_state=None,
        project_dim="auto",
    ):
        import warnings

        from .exact import RowSubset

        self._chunk = chunk_rows(X.shape[1])
        self._X, self._rows = X, None
        if rows is not None:  # the reference is X[rows], read block by block (never gathered whole)
            self._rows = np.asarray(rows, dtype=np.int64)
            if self._rows.size and np.any(np.diff(self._rows) <= 0):
                raise InvalidInputError("ApproximateIndex: rows must be sorted and distinct")
            X = RowSubset(X, self._rows, np.float32)  # as a float32 gather of the rows would give them
        self.frame = Frame(X, span, self._chunk)
        self.project_dim = resolve_project_dim(project_dim, X.shape[1])
        n = X.shape[0]
        seed = seed_int(random_state)
        self._projection = None
        if self.project_dim is not None:
            self._projection = Projection(X, self.frame, self.project_dim, seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numba / pynndescent deprecation chatter
            from pynndescent import NNDescent

            n_neighbors = min(n - 1, max(30, min(int(k) + 1, QUERY_INDEX_MAX_DEGREE + 1)))  # k others besides self
            self._index = NNDescent(
                self._rows32(X),
                n_neighbors=n_neighbors,
                metric="euclidean",
                random_state=seed,
                n_jobs=-1,
                low_memory=True,
                max_candidates=min(GRAPH_MAX_CANDIDATES, n_neighbors),
            )
            # the search structures now, while nothing but the index is held (pynndescent would build them at
            # the first query, beside the caller's result arrays: at 800 000 rows it holds ~0.8 GB more then)
            self._index.prepare()
        self.n = n
        self.degree = n_neighbors - 1  # other rows each reference row's graph list holds (`graph_lists`)

    def drop_graph(self) -> None:
        """Free the NN-descent graph (`graph_lists` then returns None; `query` is unaffected).

        For callers that have read the graph's lists and only query from then on: at 800 000 rows the
        graph and the random-projection forest of the build hold a few hundred MB.
        """
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self._index.compress_index()
        self.degree = 0

    def _rows32(self, A: np.ndarray) -> np.ndarray:
        """The float32 rows pynndescent sees: the frame's coordinates, or their projection."""
        if self._projection is None:
            return _frame_float32(self.frame, A, self._chunk)
        return self._projection.transform(A)

    def graph_lists(self, k: int) -> np.ndarray | None:
        """Each reference row's candidates from the NN-descent graph itself: the positions of its
        ``k`` nearest other reference rows as the graph has them (pynndescent's int32, (n, k), −1 where the
        graph holds fewer), or None when the graph's degree is below ``k``.

        The graph already lists every reference row's neighbours, so a reference row need not be queried
        (about as many candidates as `query` returns: callers re-rank them with exact distances). With a
        projection the first ``3 k`` graph entries (the graph's order is the projection's), at most the degree.
        """
        if self.degree < k:  # (decided before pynndescent copies its graph out)
            return None
        width = k if self._projection is None else min(self.degree, n_candidates(k, self.n))
        return self._index.neighbor_graph[0][:, 1 : width + 1]  # (self is first: dropped)

    def query(self, Q: np.ndarray, k: int, n_jobs=1) -> np.ndarray:
        """Positions in the reference (``X``, or ``X[rows]``) of about the ``k`` nearest reference rows of each
        row of ``Q`` (int64, (m, k)); ``Q`` may also be a row subset read block by block (``exact.RowSubset``).

        The queries are answered in fixed blocks (`auditad.neighbors.query_blocks`), on ``n_jobs`` forked
        processes when there are several blocks; the result does not depend on ``n_jobs``.
        """
        import warnings

        k = min(int(k), self.n)
        kc = k if self._projection is None else n_candidates(k, self.n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gi = query_in_blocks(self._index, self._rows32(Q), kc, n_jobs)
        if self._projection is None:
            return gi
        if self._rows is None:
            return rerank(self._X, Q, self.frame, gi, k)[0]
        glob = np.where(gi >= 0, self._rows[np.maximum(gi, 0)], -1)
        idx = rerank(self._X, Q, self.frame, glob, k)[0]  # global rows, nearest first; back to positions
        return np.where(idx >= 0, np.searchsorted(self._rows, np.maximum(idx, 0)), -1)


def _frame_float32(frame: Frame, A: np.ndarray, chunk: int) -> np.ndarray:
    out = np.empty(A.shape, dtype=np.float32)
    for a in range(0, A.shape[0], chunk):
        out[a : a + chunk] = frame.rows(A, a, a + chunk)
    return out


def _drop_self(gi: np.ndarray, gd: np.ndarray, k: int):
    """Remove row i from its own neighbour list (by index); keep the first k others."""
    m = gi.shape[0]
    rows = np.arange(m)[:, None]
    is_self = gi == rows
    missing = gi < 0
    key = np.where(is_self | missing, np.inf, gd.astype(np.float64))
    order = np.argsort(key, axis=1, kind="stable")[:, :k]
    idx = np.take_along_axis(gi, order, axis=1).astype(np.int64)
    if np.any(idx < 0):
        raise InvalidInputError("the approximate backend returned too few neighbours; use backend='exact'")
    return idx, np.take_along_axis(gd, order, axis=1).astype(np.float64)


#: Reference rows per exact search of the recall check: the exact engine prepares a float32 copy of its
#: reference rows, so a memory-mapped 1.28M x 2048 input is searched 131 072 rows (1 GiB) at a time.
RECALL_REFERENCE_BLOCK = 1 << 17


def recall_reference(X: np.ndarray, Q: np.ndarray, k: int):
    """The exact ``k`` nearest rows of ``X`` to each row of ``Q`` (ties by index), ``X`` searched in blocks.

    The blocks' exact lists merged by (distance, index) are the exact lists of the whole set: the memory
    of one search is bounded by `RECALL_REFERENCE_BLOCK` reference rows whatever the size of ``X``.

    See Also
    --------
    - [`kneighbors`][auditad.neighbors.kneighbors]: its ``recall_sample`` queries are checked with this.
    """
    n = X.shape[0]
    # rows formed as they are read (`UnitRows`): blocks of at most 2**25 float64 values
    step = (
        RECALL_REFERENCE_BLOCK
        if isinstance(X, np.ndarray)
        else max(1, min(RECALL_REFERENCE_BLOCK, 2**25 // X.shape[1]))
    )
    if n <= step and isinstance(X, np.ndarray):
        return search(X, Q, k, False, 256, 1)
    parts_i, parts_d = [], []
    for a in range(0, n, step):
        b = min(a + step, n)
        i, d = search(X[a:b], Q, min(k, b - a), False, 256, 1)
        parts_i.append(i + a)
        parts_d.append(d)
    cand, d2 = np.concatenate(parts_i, axis=1), np.concatenate(parts_d, axis=1)
    order = lexsort_rows(d2, cand)[:, :k]
    return np.take_along_axis(cand, order, axis=1), np.take_along_axis(d2, order, axis=1)


def _measure_recall(X, Q, k, self_search, idx, dist, sample, random_state):
    """Recall of the approximate neighbours against exact search on ``sample`` random queries.

    A returned neighbour counts as found when its distance is within rounding of
    the exact k-th distance, so ties at the k-th distance are not penalised.
    """
    rng = check_random_state(random_state)
    m = Q.shape[0]
    pick = np.sort(rng.choice(m, size=min(sample, m), replace=False))
    # exact neighbours of the sampled queries with the blocked exact search (one more
    # for a self search, then drop the query itself, or the last one when duplicates
    # at distance 0 pushed the query out of the list)
    kk = min(k + 1, X.shape[0]) if self_search else k
    e_idx, e_dist = recall_reference(X, Q[pick], kk)
    if self_search:
        is_self = e_idx == pick[:, None]
        drop = np.where(is_self.any(axis=1), is_self.argmax(axis=1), kk - 1)
        keep = np.ones(e_dist.shape, dtype=bool)
        keep[np.arange(len(pick)), drop] = False
        e_dist = e_dist[keep].reshape(len(pick), kk - 1)
    kth = e_dist[:, k - 1]
    found = int(np.sum(dist[pick] <= kth[:, None] * (1 + 1e-9) + 1e-12))
    return found / (len(pick) * k), int(len(pick))
