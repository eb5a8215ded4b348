"""The neighbour pass of an OOD audit: every query's nearest ID training rows and nearest OOD rows, merged.

One search of every query (the held-out ID rows and the rows of every OOD set) among all the ID rows
(the held-out ones then dropped from the lists) serves the kNN detector, the copies and the neighbourhoods;
per OOD set, a self search of the set and a search of the held-out ID rows among it complete the
neighbourhoods in the pool
``ID training rows ∪ OOD set``. The k nearest rows of a union are the k nearest of the two lists merged,
so the ID training rows are searched once for all OOD sets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..neighbors import kneighbors

__all__ = ["IDLists", "SetNeighbourhood", "merge_lists", "id_reference_lists", "set_neighbourhood"]


def merge_lists(dist_a: np.ndarray, dist_b: np.ndarray, k: int) -> np.ndarray:
    """Which of the ``k`` nearest entries of two sorted neighbour lists come from the first list.

    Parameters
    ----------
    dist_a, dist_b : ndarray of shape (m, ka), (m, kb)
        Ascending distances of each query to its nearest rows of two disjoint reference sets.
    k : int
        Entries kept, ``k <= ka + kb``.

    Returns
    -------
    ndarray of shape (m, k), bool
        True where the j-th nearest entry of the union is from the first list (at equal distance the
        first list comes first, a stable merge).

    Examples
    --------
    >>> merge_lists(np.array([[0.1, 0.5]]), np.array([[0.2, 0.3]]), 3).tolist()
    [[True, False, False]]
    """
    both = np.concatenate([dist_a, dist_b], axis=1)
    order = np.argsort(both, axis=1, kind="stable")[:, :k]
    return order < dist_a.shape[1]


@dataclass(frozen=True)
class IDLists:
    """The nearest ID rows of every query, from one search among all the ID rows.

    Attributes
    ----------
    train_idx, train_dist : ndarray of shape (m, k)
        The ``k`` nearest ID *training* rows (indices into ``X_id``) and their distances, ascending.
    whole_idx, whole_dist : ndarray of shape (m, k')
        The nearest ID rows of any kind (training or held out), ``k' >= k``: the copies are looked up here.
    search : dict
        How the search ran (`NeighborsResult.to_dict`).
    """

    train_idx: np.ndarray
    train_dist: np.ndarray
    whole_idx: np.ndarray
    whole_dist: np.ndarray
    search: dict


def _train_only(idx, dist, is_test, k):
    """The first ``k`` entries of each list that are training rows, and which rows have fewer."""
    keep = ~is_test[idx]
    pos = np.argsort(~keep, axis=1, kind="stable")[:, :k]  # the training entries first, in distance order
    short = keep.sum(axis=1) < k
    return np.take_along_axis(idx, pos, 1), np.take_along_axis(dist, pos, 1), short


def id_reference_lists(X_id, is_test, queries, *, k, metric, backend, random_state, progress=False) -> IDLists:
    """The ``k`` nearest ID training rows of every query, searched among *all* ID rows (no copy of the training rows).

    The reference is ``X_id`` itself (a memory-mapped array stays mapped): the search asks for ``k`` plus a
    margin for the held-out rows (``is_test``) that the lists may hold; the held-out rows are then dropped,
    and the rare query with fewer than ``k`` training rows left is searched again with a larger margin. Its
    unfiltered lists are the nearest ID rows of any kind (the copies). With the exact backend the lists
    equal those of a search among the training rows alone (ties broken by the smaller index in both).

    Parameters
    ----------
    X_id : ndarray of shape (n, d)
    is_test : ndarray of shape (n,), bool
        The held-out ID rows.
    queries : ndarray of shape (m, d)
    k : int
        Training rows per query, below the number of training rows.
    metric, backend, random_state, progress
        Of [`kneighbors`][auditad.neighbors.kneighbors].

    Returns
    -------
    IDLists

    Examples
    --------
    >>> X = np.arange(6.0)[:, None]; held = np.array([False, True, False, False, False, False])
    >>> lists = id_reference_lists(X, held, np.array([[1.1]]), k=2, metric="euclidean", backend="exact",
    ...                            random_state=0)
    >>> lists.train_idx.tolist(), lists.whole_idx[0, 0].item()
    ([[2, 0]], 1)
    """
    n = X_id.shape[0]
    share = float(is_test.mean())
    margin = max(4, int(np.ceil(2 * k * share / max(1e-9, 1 - share))) + 4)
    kk = min(n, k + margin)
    res = kneighbors(X_id, queries, k=kk, metric=metric, backend=backend, random_state=random_state, progress=progress)
    t_idx, t_dist, short = _train_only(res.indices, res.distances, is_test, k)
    while short.any():  # more held-out rows than the margin among the nearest: search those again, wider
        kk = min(n, 2 * kk)
        rows = np.flatnonzero(short)
        again = kneighbors(X_id, queries[rows], k=kk, metric=metric, backend=backend, random_state=random_state)
        t_idx[rows], t_dist[rows], still = _train_only(again.indices, again.distances, is_test, k)
        short[:] = False
        short[rows] = still
    return IDLists(t_idx, t_dist, res.indices, res.distances, res.to_dict())


@dataclass(frozen=True)
class SetNeighbourhood:
    """The neighbourhoods of one OOD set in the pool ``ID training rows ∪ OOD set``.

    Attributes
    ----------
    id_share_ood : ndarray of shape (m,)
        Share of ID training rows among the k nearest rows of each OOD row (itself excluded).
    id_share_test : ndarray of shape (n_test,)
        The same for each held-out ID row.
    chance_ood, chance_test : float
        Share of ID training rows in the pool each of them is searched in: ``n / (n + m - 1)`` and
        ``n / (n + m)``.
    """

    id_share_ood: np.ndarray
    id_share_test: np.ndarray
    chance_ood: float
    chance_test: float


def set_neighbourhood(X_ood, X_test, d_ood_id, d_test_id, *, k, metric, backend, random_state, n_train):
    """Neighbourhoods of one OOD set and of the held-out ID rows in ``ID training rows ∪ OOD set``.

    Parameters
    ----------
    X_ood, X_test : ndarray
        The OOD set and the held-out ID rows.
    d_ood_id, d_test_id : ndarray
        Their ascending distances to the nearest ID training rows (at least ``k`` columns).
    k : int
    metric, backend, random_state
        Of the two searches (the OOD set in itself, the held-out ID rows in the OOD set).
    n_train : int
        ID training rows.

    Returns
    -------
    SetNeighbourhood
    """
    m = X_ood.shape[0]
    if m > 1:
        self_nn = kneighbors(X_ood, k=min(k, m - 1), metric=metric, backend=backend, random_state=random_state)
        d_oo = self_nn.distances
    else:
        d_oo = np.full((1, 1), np.inf)
    test_nn = kneighbors(X_ood, X_test, k=min(k, m), metric=metric, backend=backend, random_state=random_state)
    share_ood = merge_lists(d_ood_id[:, :k], d_oo, k).mean(axis=1)
    share_test = merge_lists(d_test_id[:, :k], test_nn.distances, k).mean(axis=1)
    return SetNeighbourhood(
        id_share_ood=share_ood,
        id_share_test=share_test,
        chance_ood=n_train / (n_train + m - 1),
        chance_test=n_train / (n_train + m),
    )
