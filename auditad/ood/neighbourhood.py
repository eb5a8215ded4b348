"""The neighbour pass of an OOD audit: every query's nearest ID training rows and nearest OOD rows, merged.

One search of every query (the held-out ID rows and the rows of every OOD set) among the ID training
rows serves the kNN detector, the copies and the neighbourhoods; per OOD set, a self search of the set
and a search of the held-out ID rows among it complete the neighbourhoods in the pool
``ID training rows ∪ OOD set``. The k nearest rows of a union are the k nearest of the two lists merged,
so the ID training rows are searched once for all OOD sets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..neighbors import kneighbors

__all__ = ["SetNeighbourhood", "merge_lists", "id_reference_lists", "set_neighbourhood"]


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


def id_reference_lists(X_train, queries, *, k, metric, backend, random_state, progress=False):
    """The ``k`` nearest ID training rows of every query (one search; see `auditad.neighbors.kneighbors`)."""
    return kneighbors(
        X_train, queries, k=k, metric=metric, backend=backend, random_state=random_state, progress=progress
    )


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
