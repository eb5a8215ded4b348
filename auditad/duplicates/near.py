"""Near-duplicate pairs from neighbour lists, the ``"auto"`` threshold and the near groups.

Definitions: ``docs/methods/duplicates.md`` (section *Near duplicates*).
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidInputError
from .exact import factorize, unique_pairs

__all__ = ["NEAR_THRESHOLD_FACTOR", "DEFAULT_NEAR_K", "nearest_per_value", "near_pairs_from_lists", "near_components"]

#: ``near_threshold="auto"``: the threshold is this factor times the median distance from each
#: distinct row to its nearest distinct row (cleanlab's ``near_duplicate`` default factor).
NEAR_THRESHOLD_FACTOR = 0.13
#: Neighbours per distinct row searched by `find_duplicates` when no neighbour lists are given.
DEFAULT_NEAR_K = 10


def nearest_per_value(src, dst, dist, V):
    """Per value in ``src``: the ``dst`` at the smallest ``dist`` (ties: smaller dst); -1 / inf when none."""
    best_dst = np.full(V, -1, dtype=np.int64)
    best_d = np.full(V, np.inf)
    if src.size:
        order = np.lexsort((dst, dist, src))
        s = src[order]
        first = np.ones(s.size, dtype=bool)
        first[1:] = s[1:] != s[:-1]
        best_dst[s[first]] = dst[order][first]
        best_d[s[first]] = dist[order][first]
    return best_dst, best_d


def near_pairs_from_lists(src, dst, dist, V, tau, rule, first_rows, complete_lists) -> dict:
    """Near pairs of distinct values from neighbour lists ``src[i] -> dst[i, :]`` (distances ``dist``)."""
    distinct = dst != src[:, None]
    positive = np.where(distinct & (dist > 0), dist, np.inf).min(axis=1) if dist.size else np.zeros(0)
    nn = np.full(V, np.inf)
    if src.size:
        np.minimum.at(nn, src, positive)
    finite = nn[np.isfinite(nn)]
    median = float(np.median(finite)) if finite.size else None
    if rule == "auto":
        if median is None:
            raise InvalidInputError(
                "near_threshold='auto' cannot be derived: no distinct row has a listed neighbour "
                "at a positive distance (every listed neighbour is an exact copy, or there is a "
                "single distinct row); pass more neighbours, a number, or near_threshold=None"
            )
        tau = NEAR_THRESHOLD_FACTOR * median
    sel = distinct & (dist < tau)
    s = np.broadcast_to(src[:, None], dst.shape)[sel]
    t, d = dst[sel], dist[sel]
    a, b = np.minimum(s, t), np.maximum(s, t)
    pa, pb = unique_pairs(a, b)
    if pa.size:
        order = np.lexsort((d, b, a))  # per pair the smallest listed distance
        a, b, d = a[order], b[order], d[order]
        keep = np.ones(a.size, dtype=bool)
        keep[1:] = (a[1:] != a[:-1]) | (b[1:] != b[:-1])
        pd_ = d[keep]
    else:
        pd_ = np.zeros(0)
    # a list whose every entry lies within tau may hide more near duplicates beyond it
    full = (dist < tau).all(axis=1) if dist.size else np.zeros(0, dtype=bool)
    rows_per_value = np.bincount(src, minlength=V)
    full_per_value = np.bincount(src, weights=full, minlength=V)
    unresolved = 0 if complete_lists else int(np.sum((rows_per_value > 0) & (full_per_value == rows_per_value)))
    pairs = np.zeros((0, 2), np.int64)
    if pa.size:
        pairs = np.stack([first_rows[pa], first_rows[pb]], axis=1).astype(np.int64)
    return {
        "near_threshold": float(tau),
        "nn_distance_median": median,
        "near_pairs": pairs,
        "near_distances": pd_.astype(np.float64),
        "n_near_unresolved": unresolved,
    }


def near_components(pairs: np.ndarray, value_ids: np.ndarray, V: int) -> np.ndarray:
    """Per distinct value: its near group (components of two or more values, numbered by first row), else -1."""
    out = np.full(V, -1, dtype=np.int64)
    if pairs.shape[0] == 0:
        return out
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    a, b = value_ids[pairs[:, 0]], value_ids[pairs[:, 1]]
    graph = coo_matrix((np.ones(a.size), (a, b)), shape=(V, V)).tocsr()
    _, comp = connected_components(graph, directed=False)
    size = np.bincount(comp)
    in_group = size[comp] >= 2
    # values are numbered by first row, so renumbering components by first appearance orders them by first row
    numbered = factorize(comp[in_group])
    out[np.flatnonzero(in_group)] = numbered
    return out
