"""The entry points `find_duplicates` and `overlap_by_task`."""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np

from .._validation import check_choice, check_int, check_same_length, describe
from ..errors import ApproximationWarning, InvalidInputError
from .checks import (
    check_class_labels,
    check_near_threshold,
    check_neighbor_lists,
    check_rows,
    isin_labels,
    resolve_anomaly,
    rows_for_search,
)
from .exact import distinct_values, first_occurrence, unique_pairs
from .near import DEFAULT_NEAR_K, near_components, near_pairs_from_lists
from .overlap import TaskOverlapResult
from .result import DuplicatesResult

__all__ = ["find_duplicates", "overlap_by_task"]


def find_duplicates(
    X,
    y=None,
    *,
    anomaly=None,
    near_threshold="auto",
    neighbors=None,
    k=DEFAULT_NEAR_K,
    metric="euclidean",
    backend="auto",
    random_state=None,
    progress=False,
) -> DuplicatesResult:
    r"""Exact and near duplicate rows of ``X``, and the groups whose members carry different labels.

    **Exact duplicates.** Two rows are identical when their bytes are identical in the dtype
    of ``X`` (native byte order) after one canonicalisation: ``-0.0`` is read as ``+0.0``
    (IEEE 754 equal, at distance 0, and grouped together by ``np.unique``).  Rows are not
    rounded: a float64 set compares float64 values, a float32 set float32 values, integers
    as integers.  NaN and infinite values are refused.  Rows are hashed to 64 bits in
    blocks (O(n)), grouped by hash with a hash table, and every member of a hash group is
    compared with the group's first row, so a hash collision can never merge different rows.

    \[
    G = \#\{v : c_v \ge 2\}, \quad R = \sum_{v: c_v \ge 2} c_v, \quad
    E = R - G = n - V,
    \]

    with \(c_v\) the rows holding distinct value \(v\) and \(V\) the number of
    distinct values: \(G\) groups, \(R\) rows in groups, \(E\) extra copies.
    A group is *conflicting* when its rows carry two or more labels, and *mixed* when it
    holds both a normal and an anomaly.

    **Near duplicates.** Two distinct rows are near duplicates when their distance is below
    \(\tau\).  With ``near_threshold="auto"``

    \[
    \tau = 0.13 \cdot \operatorname{median}_v \delta_v, \qquad
    \delta_v = \min \{ d(x_v, x_u) : u \text{ listed neighbour of } v,\; x_u \ne x_v,\; d(x_v, x_u) > 0 \},
    \]

    cleanlab's rule (0.13 times the median nearest-neighbour distance) with the median
    taken over distinct rows and positive distances, so that the duplicates themselves
    cannot pull the threshold to 0.  Pairs come from neighbour lists: the given
    ``neighbors`` (e.g. those of the leakage pass; no second search) or, when None,
    [`auditad.kneighbors`][auditad.neighbors.kneighbors] over the distinct rows with ``k`` neighbours each.  Near
    groups are the connected components of the near pairs (with all copies of each value).

    Parameters
    ----------
    X : array-like of shape (n, d)
        Rows (float, integer or bool; kept in their dtype).
    y : array-like of shape (n,), optional
        Class labels (integers or strings; bytes are refused).
    anomaly : label or sequence of labels, optional
        Label values that mark anomalies, for the normal/anomaly conflicts and
        `DuplicatesResult.auroc_ceiling`.  Default: ``1`` when ``y`` is 0/1 (1 =
        anomaly), otherwise none (conflicts are then between classes only).
    near_threshold : "auto", float > 0 or None
        Distance threshold of near duplicates; None skips them (no neighbour search).
    neighbors : NeighborsResult or (indices, distances), optional
        Neighbour lists of the rows of ``X`` among the other rows, arrays of shape
        (n, k): e.g. [`auditad.kneighbors`][auditad.neighbors.kneighbors] ``(X, k=...)``.  Entries that are exact
        copies (or the row itself) are ignored.
    k : int
        Neighbours per distinct row when ``neighbors`` is None (at most the number of
        distinct rows minus one).
    metric : {"euclidean", "cosine"}
        Distance of the neighbour search when ``neighbors`` is None.
    backend : {"auto", "exact", "approximate"}
        Backend of that search (see [`auditad.kneighbors`][auditad.neighbors.kneighbors]).
    random_state : None, int or Generator
        Seeds the approximate backend.
    progress : bool
        Progress bar of the neighbour search on stderr.

    Returns
    -------
    DuplicatesResult

    Raises
    ------
    InvalidInputError
        Bad ``X`` (NaN/inf, empty, not 2-D), bad labels (bytes, NaN, wrong length),
        ``near_threshold <= 0``, bad neighbour lists, or ``near_threshold="auto"`` when no
        distinct row has a listed neighbour at positive distance.

    Warns
    -----
    ApproximationWarning
        When some distinct rows have every listed neighbour within the threshold (near
        counts are then lower bounds; pass more neighbours).

    See Also
    --------
    - `DuplicatesResult`: the result.
    - `train_test_overlap`: copies of test rows among training rows.
    - [`auditad.kneighbors`][auditad.neighbors.kneighbors]: the neighbour search.

    References
    ----------
    C. G. Northcutt, L. Jiang, I. L. Chuang, "Confident Learning: Estimating Uncertainty in
    Dataset Labels", Journal of Artificial Intelligence Research 70, 2021 (cleanlab, whose
    ``near_duplicate`` check uses 0.13 times the median nearest-neighbour distance).
    G. O. Campos, A. Zimek, J. Sander, R. J. G. B. Campello, B. Micenková, E. Schubert,
    I. Assent, M. E. Houle, "On the evaluation of unsupervised outlier detection: measures,
    datasets, and an empirical study", Data Mining and Knowledge Discovery 30, 2016 (the
    benchmark collection published with de-duplicated versions).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 1.0], [5.0, 5.0], [0.0, 1.0], [9.0, 0.0], [-0.0, 1.0], [5.0, 5.0]])
    >>> y = np.array([0, 0, 1, 0, 0, 0])
    >>> res = find_duplicates(X, y, near_threshold=None)
    >>> res.n_groups, res.n_rows_in_groups, res.n_extra_copies
    (2, 5, 3)
    >>> res.n_conflicting_groups, res.n_conflicting_rows
    (1, 3)
    >>> _, counts = np.unique(X, axis=0, return_counts=True)
    >>> int(counts[counts > 1].sum()), int(X.shape[0] - counts.size)
    (5, 3)
    >>> res.group(0).tolist(), round(res.auroc_ceiling(), 3)
    ([0, 2, 4], 0.8)
    """
    X = check_rows(X, "X")
    n, d = X.shape
    labels = None
    if y is not None:
        labels = check_class_labels(y, "y")
        check_same_length(X, labels, names=("X", "y"))
    anomaly_labels = resolve_anomaly(labels, anomaly)
    tau, rule = check_near_threshold(near_threshold)
    k = check_int(k, name="k", low=1)
    if neighbors is not None:
        nb_idx, nb_dist, nb_metric = check_neighbor_lists(neighbors, n, n, "neighbors")
    elif rule != "none":
        from auditad.neighbors import BACKENDS, METRICS

        check_choice(metric, METRICS, name="metric")
        check_choice(backend, BACKENDS, name="backend")

    value_ids, value_counts = distinct_values([X], X.dtype)
    multi = value_counts >= 2
    group_of_value = np.where(multi, np.cumsum(multi) - 1, -1).astype(np.int64)
    group_ids = group_of_value[value_ids]
    group_sizes = value_counts[multi].astype(np.int64)
    grouped = group_ids >= 0

    group_n_labels = group_n_anomalies = None
    if labels is not None:
        codes = np.unique(labels, return_inverse=True)[1].ravel()
        g, _ = unique_pairs(group_ids[grouped], codes[grouped])
        group_n_labels = np.bincount(g, minlength=group_sizes.size).astype(np.int64)
        if anomaly_labels is not None:
            is_anom = isin_labels(labels, anomaly_labels)
            group_n_anomalies = np.bincount(
                group_ids[grouped], weights=is_anom[grouped], minlength=group_sizes.size
            ).astype(np.int64)

    near = dict(
        near_threshold=None,
        near_threshold_rule="none",
        nn_distance_median=None,
        near_pairs=None,
        near_distances=None,
        near_group_ids=None,
        n_near_unresolved=None,
        neighbors_k=None,
        metric=None,
        neighbors_source=None,
    )
    if rule != "none":
        first = first_occurrence(value_ids)
        V = first.size
        if neighbors is not None:
            src = value_ids  # one list per row of X
            dst = value_ids[nb_idx]
            dist = nb_dist
            source, used_metric, kk = "given", nb_metric or metric, nb_idx.shape[1]
        elif V >= 2:
            from auditad import kneighbors

            kk = min(k, V - 1)
            res = kneighbors(
                rows_for_search(X[first]),
                k=kk,
                metric=metric,
                backend=backend,
                random_state=random_state,
                progress=progress,
            )
            src, dst, dist = np.arange(V), res.indices, res.distances
            source, used_metric = res.backend, res.metric
        else:
            src = np.zeros(0, np.int64)
            dst, dist = np.zeros((0, 1), np.int64), np.zeros((0, 1))
            source, used_metric, kk = "none", metric, 0
        complete_lists = dst.shape[1] >= V - 1 if neighbors is None else nb_idx.shape[1] >= n - 1
        near.update(near_pairs_from_lists(src, dst, dist, V, tau, rule, first, complete_lists))
        near.update(near_threshold_rule=rule, neighbors_k=int(kk), metric=used_metric, neighbors_source=source)
        comp = near_components(near["near_pairs"], value_ids, V)
        near["near_group_ids"] = comp[value_ids]
        if near["n_near_unresolved"]:
            warnings.warn(
                f"near-duplicate counts are lower bounds: {near['n_near_unresolved']} distinct row(s) have "
                f"all {kk} listed neighbour(s) within near_threshold={near['near_threshold']!r}; "
                "pass more neighbours (k=) to find the rest",
                ApproximationWarning,
                stacklevel=2,
            )

    return DuplicatesResult(
        n_samples=int(n),
        n_features=int(d),
        dtype=str(X.dtype),
        value_ids=value_ids,
        group_ids=group_ids,
        group_sizes=group_sizes,
        labels=labels,
        anomaly_labels=anomaly_labels,
        group_n_labels=group_n_labels,
        group_n_anomalies=group_n_anomalies,
        **near,
    )


def overlap_by_task(duplicates: DuplicatesResult, tasks) -> TaskOverlapResult:
    """Overlap of the test rows with the training rows, task by task, from one grouping of the whole set.

    For a class-split protocol (K−1 vs 1, 1 vs K−1) or a semi-supervised split, each task
    has training rows and test rows of one set ``X``; `find_duplicates` groups ``X``
    once and each task then costs O(n) (`DuplicatesResult.overlap`).

    Parameters
    ----------
    duplicates : DuplicatesResult
        ``find_duplicates(X, y, ...)`` of the whole set.
    tasks : mapping
        Task name -> ``(train_idx, test_idx)`` or ``(train_idx, test_idx, y_test)``, with
        row indices (or boolean masks) into ``X``; ``y_test`` e.g. 0/1 for normal/anomaly.

    Returns
    -------
    TaskOverlapResult

    See Also
    --------
    - `DuplicatesResult.overlap`: one task.
    - `train_test_overlap`: for two separate arrays.

    References
    ----------
    G. O. Campos et al., "On the evaluation of unsupervised outlier detection: measures,
    datasets, and an empirical study", Data Mining and Knowledge Discovery 30, 2016.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.0], [1.0], [2.0], [2.0], [3.0]])
    >>> y = np.array(["a", "a", "b", "b", "c", "c"])
    >>> dup = find_duplicates(X, y, near_threshold=None)
    >>> res = overlap_by_task(dup, {"c": ([0, 2], [1, 3, 4, 5], [0, 0, 1, 1])})
    >>> res["c"].exact_copy.tolist(), res["c"].rows_to_keep().tolist()
    ([True, False, False, False], [3, 4, 5])
    """
    if not isinstance(duplicates, DuplicatesResult):
        raise InvalidInputError(
            f"duplicates must be a DuplicatesResult (from find_duplicates), got {describe(duplicates)}"
        )
    if not isinstance(tasks, Mapping):
        raise InvalidInputError(
            f"tasks must be a mapping task name -> (train_idx, test_idx[, y_test]), got {describe(tasks)}"
        )
    names, results = [], []
    for name, spec in tasks.items():
        if not isinstance(spec, (tuple, list)) or len(spec) not in (2, 3):
            raise InvalidInputError(
                f"tasks[{name!r}] must be (train_idx, test_idx) or (train_idx, test_idx, y_test), got {describe(spec)}"
            )
        y_test = spec[2] if len(spec) == 3 else None
        names.append(name)
        results.append(duplicates.overlap(spec[0], spec[1], y_test=y_test))
    return TaskOverlapResult(tasks=tuple(names), overlaps=tuple(results))
