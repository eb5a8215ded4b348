r"""Approximate neighbours of high-dimensional rows: candidates in a PCA projection, re-ranked exactly.

The cost of an NN-descent graph [1]_ grows with the dimension (every
distance it evaluates costs \(d\)): at \(d = 2048\), 50 000 rows, the
graph took 39 CPU seconds where the graph of their 128-dimensional
projection took about 6 (the whole projected search, PCA fit and exact
re-rank included, took 16; ``benchmarks/bench_highdim.py``). Above
``PROJECT_ABOVE_DIM`` columns the approximate backend of
[`kneighbors`][auditad.neighbors.kneighbors] therefore

1. fits a principal-component basis of \(p\) directions
   (``DEFAULT_PROJECT_DIM``) on a random sample of ``PCA_SAMPLE_ROWS`` rows
   with randomized PCA [2]_ (a randomized range finder with
   ``PCA_POWER_ITERATIONS`` power iterations);
2. projects every row onto it, ``PROJECT_CHUNK_ELEMENTS`` at a time (the
   input may be a read-only memory map: it is read in row blocks and never
   copied whole; the only whole-set copy is the float32 \(n \times p\)
   projection handed to pynndescent);
3. builds the NN-descent graph of the projected rows and keeps each row's
   \(k' = c\,k\) nearest candidates in the projection (\(c\) =
   ``CANDIDATE_FACTOR``);
4. re-ranks the candidates with their exact float64 distances in the
   *original* space, computed in blocks of candidate rows (an
   \(n \times k' \times d\) array is never formed), and returns the
   \(k\) nearest, ties by index.

The recall that [`kneighbors`][auditad.neighbors.kneighbors] reports is
measured against exact search in the original space, so it covers both
approximations (the projection and the graph).

Why PCA and not a Gaussian random projection [3]_: embeddings concentrate
their variance in far fewer directions than they have coordinates, and PCA
keeps those directions, whereas a random projection to \(p\) dimensions
distorts every squared distance by a relative error of order
\(\sqrt{2/p}\) (about 12 % at \(p = 128\)), larger than the gaps between
the nearest neighbours it has to order. Measured with exact search of the
projections (``benchmarks/bench_highdim.py --methods``; 6 000 rows, 2048
columns, \(k = 10\), \(c = 3\), \(p = 128\)): the share of the true 10
nearest neighbours among the 30 projected candidates is 1.000 (PCA) against
0.53 (random projection) on rank-64 data plus isotropic noise, 0.999 against
0.51 with a decaying rank-256 spectrum, and 1.000 against 0.994 on
scikit-learn's digits mapped linearly to 2048 columns plus noise. The PCA
fit costs a few CPU seconds on 4 096 rows, the random projection almost
nothing, but both are small next to the graph in the full dimension; only
PCA keeps the recall. An orthogonal projection never lengthens a distance,
so duplicate rows stay (up to rounding) at distance 0 in the projection.

References
----------
1. W. Dong, M. Charikar, K. Li, "Efficient k-nearest neighbor graph
   construction for generic similarity measures", Proceedings of the 20th
   International Conference on World Wide Web (WWW 2011), pp. 577-586.
2. N. Halko, P.-G. Martinsson, J. A. Tropp, "Finding structure with
   randomness: probabilistic algorithms for constructing approximate matrix
   decompositions", SIAM Review 53(2), 2011, pp. 217-288.
3. W. B. Johnson, J. Lindenstrauss, "Extensions of Lipschitz mappings into a
   Hilbert space", Contemporary Mathematics 26, 1984, pp. 189-206.
"""

from __future__ import annotations

import numpy as np

from .exact import Frame, chunk_rows, lexsort_rows, n_workers, refine, search
from ..execution import map_in_threads
from .._validation import describe
from ..errors import InvalidInputError

__all__ = [
    "DEFAULT_PROJECT_DIM",
    "PROJECT_ABOVE_DIM",
    "CANDIDATE_FACTOR",
    "PCA_SAMPLE_ROWS",
    "PCA_POWER_ITERATIONS",
    "PROJECT_CHUNK_ELEMENTS",
    "RERANK_BLOCK_ELEMENTS",
    "resolve_project_dim",
    "n_candidates",
    "Projection",
    "rerank",
    "projection_seconds",
    "PROJECTED_EXACT_MAX_PAIRS",
    "searches_projection_exactly",
    "projected_queries",
]

#: Projected dimension of ``project_dim="auto"``.
DEFAULT_PROJECT_DIM = 128
#: ``project_dim="auto"`` projects only rows with more columns than this.
PROJECT_ABOVE_DIM = 256
#: Candidates per query found in the projection and re-ranked exactly: ``CANDIDATE_FACTOR * k``.
CANDIDATE_FACTOR = 3
#: Rows of the random sample the principal directions are fitted on.
PCA_SAMPLE_ROWS = 4096
#: Power iterations of the randomized range finder (Halko, Martinsson & Tropp 2011, Algorithm 4.3;
#: normalised by LU factorisations between iterations, as scikit-learn's ``randomized_svd``).
PCA_POWER_ITERATIONS = 4
#: Oversampling of the randomized range finder (extra random directions).
PCA_OVERSAMPLES = 10
#: Float64 elements of one block of rows being projected (32 MB).
PROJECT_CHUNK_ELEMENTS = 2**22
#: Float64 elements of one block of candidate differences being re-ranked (16 MB per thread).
RERANK_BLOCK_ELEMENTS = 2**21

# Cost model (wall seconds on the project's 2-core reference machine, measured as CPU seconds with
# ``benchmarks/bench_highdim.py --cost-model`` at n = 50 000, d = 2048, p = 128, k = 10; the BLAS steps
# use both cores, wall = CPU / 2; the re-rank gathers rows, bound by memory: wall = CPU).
#: randomized PCA: seconds per sample_rows * d * (p + oversamples) * (2 * power_iterations + 2)
#: (measured 2.8e-10 CPU s: 3.2 CPU s for 4 096 x 2048)
PCA_SECONDS_PER_OP = 1.4e-10
#: projection of the rows (frame transform and product): seconds per rows * d * (p + 16)
#: (measured 9.4e-11 CPU s: 1.4 CPU s for 50 000 x 2048)
PROJECT_SECONDS_PER_OP = 4.7e-11
#: exact re-rank of the candidates: seconds per queries * candidates * d
#: (measured 1.7e-9 CPU s: 5.2 CPU s for 50 000 x 30 candidates x 2048)
RERANK_SECONDS_PER_OP = 1.7e-9


def resolve_project_dim(project_dim, d: int) -> int | None:
    """The projected dimension for rows of ``d`` columns, or None for a search in the full dimension.

    Parameters
    ----------
    project_dim : "auto" or int
        ``"auto"``: ``DEFAULT_PROJECT_DIM`` when ``d > PROJECT_ABOVE_DIM``,
        else no projection; ``0``: no projection (the project's one "off" value); an int
        ``1 <= p <= d``: project to ``p`` dimensions whenever ``p < d`` (``p == d`` is no projection).
    d : int
        Columns of the rows.

    Returns
    -------
    int or None

    See Also
    --------
    - [`kneighbors`][auditad.neighbors.kneighbors]: its ``project_dim`` argument.
    """
    if isinstance(project_dim, str) and project_dim == "auto":
        return DEFAULT_PROJECT_DIM if d > PROJECT_ABOVE_DIM else None
    if isinstance(project_dim, (int, np.integer)) and not isinstance(project_dim, bool):
        p = int(project_dim)
        if 0 <= p <= d:
            return p if 0 < p < d else None
        raise InvalidInputError(
            f"project_dim must be 0 (no projection) or between 1 and the number of columns d = {d}, got {p}"
        )
    raise InvalidInputError(
        f"project_dim must be 'auto', 0 (no projection) or an integer between 1 and the number "
        f"of columns d = {d}, got {describe(project_dim)}"
    )


def n_candidates(k: int, n: int) -> int:
    """Candidates per query taken from the projection: ``CANDIDATE_FACTOR * k``, at most ``n``.

    See Also
    --------
    - `rerank`: re-ranks them.
    """
    return int(min(CANDIDATE_FACTOR * int(k), int(n)))


class Projection:
    r"""Principal directions of rows in a `Frame`, fitted by randomized PCA on a sample of rows.

    ``transform(A)`` maps rows (original units) to float32 coordinates
    \((\mathrm{frame}(A) - \bar s) V\) with \(V\) the ``p`` leading right
    singular vectors of the centred sample in frame coordinates; rows are read
    ``PROJECT_CHUNK_ELEMENTS`` at a time.

    Parameters
    ----------
    X : ndarray of shape (n, d), float32 or float64 (a memory map is fine)
        Rows the directions are fitted on.
    frame : Frame
        The centred, power-of-two scaled coordinates of the search.
    p : int
        Projected dimension (at most ``d``; capped at the sample size).
    seed : int
        Seeds the sample and the range finder.

    See Also
    --------
    - `rerank`: exact distances of the candidates found in the projection.

    References
    ----------
    N. Halko, P.-G. Martinsson, J. A. Tropp, "Finding structure with randomness: probabilistic algorithms
    for constructing approximate matrix decompositions", SIAM Review 53(2), 2011.
    """

    def __init__(self, X: np.ndarray, frame: Frame, p: int, seed: int):
        from sklearn.utils.extmath import randomized_svd

        n, d = X.shape
        rng = np.random.default_rng(seed)
        pick = np.arange(n) if n <= PCA_SAMPLE_ROWS else np.sort(rng.choice(n, PCA_SAMPLE_ROWS, replace=False))
        sample = frame.rows(X[pick], 0, pick.size)  # float64, centred and scaled: (s, d)
        self.offset = sample.mean(axis=0)
        sample -= self.offset
        p = int(min(p, d, pick.size))
        _, _, vt = randomized_svd(
            sample,
            p,
            n_oversamples=PCA_OVERSAMPLES,
            n_iter=PCA_POWER_ITERATIONS,
            power_iteration_normalizer="LU",
            random_state=int(seed),
        )
        self.components = np.ascontiguousarray(vt.T)  # (d, p), orthonormal columns
        self.frame, self.p, self.d = frame, p, d

    def transform(self, A: np.ndarray) -> np.ndarray:
        """Rows of ``A`` projected: float32 of shape (m, p)."""
        out = np.empty((A.shape[0], self.p), dtype=np.float32)
        chunk = max(1, PROJECT_CHUNK_ELEMENTS // max(self.d, 1))
        for a in range(0, A.shape[0], chunk):
            b = min(a + chunk, A.shape[0])
            t = self.frame.rows(A, a, b)
            t -= self.offset
            out[a:b] = t @ self.components
        return out


def rerank(X: np.ndarray, Q: np.ndarray, frame: Frame, cand: np.ndarray, k: int):
    """The ``k`` nearest of each query's candidate rows, by exact float64 distance in the original space.

    Distances are computed from the power-of-two scaled rows of ``frame``
    (``frame.raw``), in blocks of at most ``RERANK_BLOCK_ELEMENTS`` float64
    values (one block per thread, as many threads as CPUs, at most 8); ties
    are broken by the smaller index. Candidates ``< 0`` (none)
    sort last and stay ``-1``.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Reference rows (original units).
    Q : ndarray of shape (m, d)
        Query rows (``X`` itself for a self search).
    frame : Frame
    cand : ndarray of shape (m, k'), int
        Candidate rows of each query.
    k : int
        Neighbours kept (``k <= k'``).

    Returns
    -------
    idx : ndarray of shape (m, k), int64
    dist : ndarray of shape (m, k), float64
        Distances in the frame's scaled units (``frame.unscale`` gives the input units).

    See Also
    --------
    - `Projection`: where the candidates come from.
    """
    cand = np.asarray(cand, dtype=np.int64)
    m, kc = cand.shape
    d2 = np.empty((m, kc), dtype=np.float64)
    rows = max(1, RERANK_BLOCK_ELEMENTS // max(kc * X.shape[1], 1))
    safe = np.maximum(cand, 0)

    def block(a):  # numpy's gathers and sums release the GIL: blocks run on threads
        b = min(a + rows, m)
        d2[a:b] = refine(X, frame, frame.raw(Q[a:b]), safe[a:b], b - a)

    starts = range(0, m, rows)
    map_in_threads(block, starts, n_workers(None, len(starts)))
    missing = cand < 0
    d2[missing] = np.inf
    keyed = np.where(missing, np.iinfo(np.int64).max, cand)
    order = lexsort_rows(d2, keyed)[:, :k]
    idx = np.take_along_axis(cand, order, axis=1)
    return idx, np.sqrt(np.take_along_axis(d2, order, axis=1))


def projection_seconds(n_queries: int, n_reference: int, d: int, p: int, k: int, *, self_search: bool = True) -> float:
    """Estimated wall seconds of the projection steps: PCA fit, projecting the rows, exact re-rank.

    ``PCA_SECONDS_PER_OP * s * d * (p + 10) * (2 i + 2)``
    ``+ PROJECT_SECONDS_PER_OP * r * d * (p + 16)``
    ``+ RERANK_SECONDS_PER_OP * m * k' * d``, with ``s`` the sample rows,
    ``i`` the power iterations, ``r`` the projected rows (``n``, plus the
    ``m`` queries when they are another set) and ``k' = CANDIDATE_FACTOR * k``.

    See Also
    --------
    - [`estimate_seconds`][auditad.neighbors.estimate_seconds]: adds it to the graph's cost.
    """
    s = min(n_reference, PCA_SAMPLE_ROWS)
    fit = PCA_SECONDS_PER_OP * s * d * (p + PCA_OVERSAMPLES) * (2 * PCA_POWER_ITERATIONS + 2)
    rows = n_reference + (0 if self_search else n_queries)
    project = PROJECT_SECONDS_PER_OP * float(rows) * d * (p + 16)
    kc = n_candidates(k, n_reference)
    return float(fit + project + RERANK_SECONDS_PER_OP * float(n_queries) * kc * d)


#: Queries of another set, in a projection, are searched exactly in the projection (no NN-descent graph) up to
#: this many query-reference pairs: about 215 000 queries against 1.28 M rows, some 6 minutes on 2 cores.
PROJECTED_EXACT_MAX_PAIRS = 2**38


def searches_projection_exactly(n_queries: int, n_reference: int) -> bool:
    """Whether `projected_queries` (an exact search in the projection) answers ``n_queries`` queries of another
    set, rather than an NN-descent graph of the projected rows: up to `PROJECTED_EXACT_MAX_PAIRS` pairs.

    A graph search stops when no candidate lies within (1 + ε) of its current k-th distance. A query far from
    every reference row (an OOD set's row) sees nearly the same distance to all of them, so the search visits a
    large share of the graph: 8.7 ms per far query against 0.32 ms per near one at 128 000 rows, growing with
    the rows (`docs/methods/ood.md`, "Scale"), so a graph's time for such queries has no useful bound. The
    exact search in the projection costs the same for near and far queries, about ``m n (p + 64)`` operations
    (1.7 ms per query against 1.28 M rows, ``p`` = 128, 2 cores), and finds every nearest projected row.
    """
    return float(n_queries) * float(n_reference) <= PROJECTED_EXACT_MAX_PAIRS


def projected_queries(X, Q, k: int, p: int, seed: int, n_jobs=None):
    """The ``k`` nearest rows of ``X`` to each row of ``Q`` (another set): the ``CANDIDATE_FACTOR * k`` nearest
    rows in the ``p``-d PCA projection, by the exact engine (`auditad.neighbors.exact.search`, on ``n_jobs``
    threads), re-ranked by their exact float64 distances in the original space (`rerank`).

    Returns ``(idx, dist, frame)``: distances in the frame's scaled units, nearest first, ties by index.
    """
    frame = Frame(X, Q, chunk_rows(X.shape[1]))
    projection = Projection(X, frame, p, seed)
    PX, PQ = projection.transform(X), projection.transform(Q)
    cand = search(PX, PQ, n_candidates(k, X.shape[0]), False, 256, n_jobs)[0]
    del PX, PQ
    idx, dist = rerank(X, Q, frame, cand, k)
    return idx, dist, frame
