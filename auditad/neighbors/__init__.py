"""One k-nearest-neighbour interface for all of auditad.

Two backends answer the same question:

``exact``
    Blocked brute force in numpy. Candidates are found with a float32 matrix
    product on centred data (fast BLAS), then the distances of the candidates
    are recomputed in float64 and a per-row error bound certifies that no
    non-candidate can be closer; rows that cannot be certified are recomputed
    entirely in float64. The result is therefore the exact float64 answer,
    with ties at equal distance broken by the smaller index. Memory is bounded
    by ``block_memory_mb`` (no n×n matrix is ever held).
``approximate``
    pynndescent's NN-descent graph [1]_. Much faster for large n, but the first
    call in a process pays numba's compilation (tens of seconds). Its recall
    against exact search is measured on a random sample of queries (200 by
    default) and returned with the neighbours. Rows of more than 256 columns
    are searched in a 128-dimensional PCA projection [2]_ and the
    ``3 k`` candidates re-ranked by their exact distances in the original
    space (``project_dim``; `auditad.neighbors.projection`); the recall is
    still measured in the original space.
``auto``
    The backend with the smaller estimated total cost (`estimate_seconds`:
    a cost model fitted to measurements on 2 cores, including numba's
    compilation while it has not yet happened in this process).

References
----------
1. W. Dong, M. Charikar, K. Li, "Efficient k-nearest neighbor graph
   construction for generic similarity measures", Proceedings of the 20th
   International Conference on World Wide Web (WWW 2011), pp. 577-586.
2. N. Halko, P.-G. Martinsson, J. A. Tropp, "Finding structure with
   randomness: probabilistic algorithms for constructing approximate matrix
   decompositions", SIAM Review 53(2), 2011, pp. 217-288.

Modules: `search` (`kneighbors`, the cost model, `ApproximateIndex`, the recall check), `exact` (the
certified blocked search) and `projection` (the PCA projection of wide rows).
"""

from .exact import chunk_rows as chunk_rows  # the query blocks, read by the protocol's Isolation Forest
from .search import (
    APPROX_BUILD_SECONDS_PER_UNIT,
    APPROX_QUERY_SECONDS_PER_UNIT,
    AUTO_EXACT_MAX_COST,
    BACKENDS,
    DEFAULT_RECALL_SAMPLE,
    EXACT_SECONDS_PER_OP,
    METRICS,
    NUMBA_BUILD_COMPILE_SECONDS,
    NUMBA_QUERY_COMPILE_SECONDS,
    QUERY_INDEX_MAX_DEGREE,
    RECALL_REFERENCE_BLOCK,
    ApproximateIndex,
    NeighborsResult,
    choose_backend,
    estimate_seconds,
    kneighbors,
    recall_reference,
)

__all__ = [
    "NeighborsResult",
    "kneighbors",
    "choose_backend",
    "estimate_seconds",
    "AUTO_EXACT_MAX_COST",
    "METRICS",
    "BACKENDS",
    "ApproximateIndex",
    "DEFAULT_RECALL_SAMPLE",
    "EXACT_SECONDS_PER_OP",
    "NUMBA_BUILD_COMPILE_SECONDS",
    "NUMBA_QUERY_COMPILE_SECONDS",
    "APPROX_BUILD_SECONDS_PER_UNIT",
    "APPROX_QUERY_SECONDS_PER_UNIT",
    "QUERY_INDEX_MAX_DEGREE",
    "RECALL_REFERENCE_BLOCK",
    "recall_reference",
]
