"""Train/test overlap: `OverlapResult`, `TaskOverlapResult` and `train_test_overlap`."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._format import FrameDisplay
from .._json import json_safe
from .._validation import check_choice, check_same_length, describe
from ..errors import InvalidInputError
from .checks import (
    check_class_labels,
    check_near_threshold,
    check_neighbor_lists,
    check_rows,
    python_scalar,
    records_frame,
    rows_for_search,
)
from .exact import distinct_values, min_row_per_value
from .near import NEAR_THRESHOLD_FACTOR

__all__ = ["OverlapResult", "TaskOverlapResult", "train_test_overlap"]


@dataclass(frozen=True)
class OverlapResult(FrameDisplay):
    """Test rows with an exact or near copy among the training rows.

    Attributes
    ----------
    test_rows : ndarray of shape (m,), int64
        Identifiers of the test rows: row indices into ``X_test`` (`train_test_overlap`)
        or into the whole set (`DuplicatesResult.overlap`), in the order given.
    n_train : int
        Number of training rows.
    exact_copy : ndarray of shape (m,), bool
        The test row is bit-identical to at least one training row (see
        `find_duplicates` for what identical means).
    exact_train_row : ndarray of shape (m,), int64
        The smallest index of such a training row (in the same indexing as the training
        rows), ``-1`` when there is none.
    near_threshold : float or None
        Distance below which a training row is a near copy; ``None`` when near copies were
        not looked for.
    near_copy : ndarray of shape (m,), bool, or None
        The test row has no exact copy but a training row at distance ``< near_threshold``.
    near_train_row : ndarray of shape (m,), int64, or None
        The nearest such training row (``-1`` when there is none).
    near_distance : ndarray of shape (m,), float64, or None
        Its distance (``nan`` when there is none).
    y_test : ndarray of shape (m,) or None
        Labels of the test rows, used to break the shares down by label.
    complete : bool
        False when some near copies may have been missed because a neighbour list was full
        of rows within the threshold (the near counts are then lower bounds).
    n_test, n_exact : int
        Test rows; those with an exact copy among the training rows.
    exact_share : float
        ``n_exact / n_test``.
    n_near, near_share : int, float or None
        Test rows with a near (not exact) copy among the training rows, and their share of
        the test rows; None when near copies were not looked for.

    See Also
    --------
    - `train_test_overlap`: computes it for two arrays.
    - `DuplicatesResult.overlap`: computes it for train/test row indices of one set.

    References
    ----------
    C. G. Northcutt, L. Jiang, I. L. Chuang, "Confident Learning: Estimating Uncertainty in
    Dataset Labels", Journal of Artificial Intelligence Research 70, 2021 (cleanlab).
    """

    test_rows: np.ndarray = field(repr=False)
    n_train: int
    exact_copy: np.ndarray = field(repr=False)
    exact_train_row: np.ndarray = field(repr=False)
    near_threshold: float | None = None
    near_copy: np.ndarray | None = field(default=None, repr=False)
    near_train_row: np.ndarray | None = field(default=None, repr=False)
    near_distance: np.ndarray | None = field(default=None, repr=False)
    y_test: np.ndarray | None = field(default=None, repr=False)
    complete: bool = True
    n_test: int = field(init=False)
    n_exact: int = field(init=False)
    exact_share: float = field(init=False)
    n_near: int | None = field(init=False)
    near_share: float | None = field(init=False)

    def __post_init__(self):
        counts = self._summary_row("all", None, np.ones(self.test_rows.size, dtype=bool))
        for key in ("n_test", "n_exact", "exact_share", "n_near", "near_share"):
            object.__setattr__(self, key, counts[key])

    def rows_to_keep(self, *, drop_near: bool = False) -> np.ndarray:
        """The test rows without a copy among the training rows, in the order given.

        Parameters
        ----------
        drop_near : bool
            Also drop the test rows with a near copy (needs near copies to have been computed).

        Returns
        -------
        ndarray of int64
            A subset of `test_rows`: recompute the metrics on these rows to see how
            much of a result came from test rows that were also training rows.
        """
        keep = ~self.exact_copy
        if drop_near:
            if self.near_copy is None:
                raise InvalidInputError(
                    "drop_near=True needs near copies; they were not computed (near_threshold=None)"
                )
            keep &= ~self.near_copy
        return self.test_rows[keep]

    # ------------------------------------------------------------------ export
    def to_frame(self):
        """Tidy table: one row for all test rows (``scope="all"``), then one per test label.

        Columns ``scope``, ``label``, ``n_test``, ``n_exact``, ``exact_share``, ``n_near``,
        ``near_share`` (the near columns are missing values when near copies were not computed).
        """
        rows = [self._summary_row("all", None, np.ones(self.n_test, dtype=bool))]
        if self.y_test is not None:
            for value in np.unique(self.y_test):
                rows.append(self._summary_row("label", python_scalar(value), self.y_test == value))
        return records_frame(rows, "label")

    def _summary_row(self, scope, label, mask) -> dict:
        m = int(mask.sum())
        n_exact = int(self.exact_copy[mask].sum())
        n_near = None if self.near_copy is None else int(self.near_copy[mask].sum())
        return {
            "scope": scope,
            "label": label,
            "n_test": m,
            "n_exact": n_exact,
            "exact_share": n_exact / m if m else float("nan"),
            "n_near": n_near,
            "near_share": None if n_near is None else (n_near / m if m else float("nan")),
        }

    def rows_frame(self):
        """One row per test row with a copy.

        Columns ``test_row``, ``label`` (with labels), ``exact_train_row``, and ``near_train_row``,
        ``near_distance`` when near copies were computed.
        """
        import pandas as pd

        hit = self.exact_copy.copy()
        if self.near_copy is not None:
            hit |= self.near_copy
        sel = np.flatnonzero(hit)
        data = {"test_row": self.test_rows[sel], "exact_train_row": self.exact_train_row[sel]}
        if self.y_test is not None:
            data = {
                "test_row": data["test_row"],
                "label": [python_scalar(v) for v in self.y_test[sel]],
                "exact_train_row": data["exact_train_row"],
            }
        if self.near_copy is not None:
            data["near_train_row"] = self.near_train_row[sel]
            data["near_distance"] = self.near_distance[sel]
        return pd.DataFrame(data)

    def to_dict(self) -> dict:
        """JSON-safe dictionary (full precision): the counts, shares and the per-label table."""
        return json_safe(
            {
                "n_train": self.n_train,
                "n_test": self.n_test,
                "n_exact": self.n_exact,
                "exact_share": self.exact_share,
                "near_threshold": self.near_threshold,
                "n_near": self.n_near,
                "near_share": self.near_share,
                "complete": self.complete,
                "by_label": self.to_frame().to_dict(orient="records"),
            }
        )


@dataclass(frozen=True)
class TaskOverlapResult(FrameDisplay):
    """`OverlapResult` of each task of a protocol.

    Attributes
    ----------
    tasks : tuple
        Task names, in the order given.
    overlaps : tuple of OverlapResult
        One per task.

    See Also
    --------
    - `overlap_by_task`: computes it.
    - `OverlapResult`: one task.

    References
    ----------
    G. O. Campos, A. Zimek, J. Sander, R. J. G. B. Campello, B. Micenková, E. Schubert,
    I. Assent, M. E. Houle, "On the evaluation of unsupervised outlier detection: measures,
    datasets, and an empirical study", Data Mining and Knowledge Discovery 30, 2016.
    """

    tasks: tuple
    overlaps: tuple = field(repr=False)

    def __getitem__(self, task) -> OverlapResult:
        """The `OverlapResult` of one task."""
        for name, res in zip(self.tasks, self.overlaps):
            if name == task:
                return res
        raise InvalidInputError(f"task {describe(task)} is not one of {describe(list(self.tasks))}")

    def to_frame(self):
        """Tidy table: each task's `OverlapResult.to_frame` with a leading ``task`` column."""
        import pandas as pd

        frames = []
        for name, res in zip(self.tasks, self.overlaps):
            f = res.to_frame()
            f.insert(0, "task", python_scalar(name))
            frames.append(f)
        return pd.concat(frames, ignore_index=True)

    def to_dict(self) -> dict:
        """JSON-safe dictionary: ``{"tasks": [{"task": name, **OverlapResult.to_dict()}, ...]}``."""
        return json_safe(
            {"tasks": [{"task": python_scalar(name), **res.to_dict()} for name, res in zip(self.tasks, self.overlaps)]}
        )


def train_test_overlap(
    X_train,
    X_test,
    *,
    y_test=None,
    near_threshold="auto",
    neighbors=None,
    metric="euclidean",
    backend="auto",
    random_state=None,
    progress=False,
) -> OverlapResult:
    r"""Share of test rows with an exact or near copy among the training rows.

    Exact copies are found by hashing the rows of both sets (O(n + m), verified; rows are
    compared in the common dtype ``np.result_type(X_train, X_test)``, ``-0.0`` read as
    ``+0.0``, as in `find_duplicates`).  A test row without exact copy has a *near*
    copy when its nearest training row is at distance \(< \tau\); with
    ``near_threshold="auto"``

    \[
    \tau = 0.13 \cdot \operatorname{median}_v \delta_v,
    \]

    where \(\delta_v\) is the distance from distinct test row \(v\) to its nearest
    listed training row that is not a copy of it (positive distances only; test rows with
    an exact copy count too, with their nearest non-identical training row).  To use one
    threshold for a whole audit, pass ``near_threshold=find_duplicates(X).near_threshold``.

    \[
    \text{exact share} = \frac{1}{m} \sum_{i=1}^{m} \mathbb 1[\exists j: x^{train}_j = x^{test}_i]
    \]

    Parameters
    ----------
    X_train : array-like of shape (n, d)
        Training rows.
    X_test : array-like of shape (m, d)
        Test rows.
    y_test : array-like of shape (m,), optional
        Test labels: the shares are also given per label.
    near_threshold : "auto", float > 0 or None
        None: exact copies only (no neighbour search).
    neighbors : NeighborsResult or (indices, distances), optional
        Nearest training rows of each test row, arrays of shape (m, k) with indices into
        ``X_train`` (e.g. ``kneighbors(X_train, X_test, k=2)``); listed exact copies are
        skipped.  Default: [`auditad.kneighbors`][auditad.neighbors.kneighbors] of each test row among the *distinct*
        training rows with k = 2 (so the second neighbour is never a copy).
    metric, backend, random_state, progress
        Of that search (see [`auditad.kneighbors`][auditad.neighbors.kneighbors]).

    Returns
    -------
    OverlapResult
        Test rows are identified by their index in ``X_test``, training rows by their
        index in ``X_train``.

    See Also
    --------
    - `OverlapResult`: the result; ``rows_to_keep()`` drops the test rows with copies.
    - `DuplicatesResult.overlap`: the same for row indices of one set.

    References
    ----------
    C. G. Northcutt, L. Jiang, I. L. Chuang, "Confident Learning: Estimating Uncertainty in
    Dataset Labels", Journal of Artificial Intelligence Research 70, 2021 (cleanlab).
    G. O. Campos et al., "On the evaluation of unsupervised outlier detection: measures,
    datasets, and an empirical study", Data Mining and Knowledge Discovery 30, 2016.

    Examples
    --------
    >>> import numpy as np
    >>> X_train = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 0.0]])
    >>> X_test = np.array([[1.0, 1.0], [5.0, 5.0], [2.0, 0.01], [0.0, 0.0]])
    >>> res = train_test_overlap(X_train, X_test, near_threshold=0.1, backend="exact")
    >>> res.exact_copy.tolist(), res.exact_train_row.tolist()
    ([True, False, False, True], [1, -1, -1, 0])
    >>> res.near_copy.tolist(), res.exact_share, res.near_share
    ([False, False, True, False], 0.5, 0.25)
    >>> res.rows_to_keep().tolist(), res.rows_to_keep(drop_near=True).tolist()
    ([1, 2], [1])
    """
    A = check_rows(X_train, "X_train")
    B = check_rows(X_test, "X_test")
    if A.shape[1] != B.shape[1]:
        raise InvalidInputError(
            f"X_train and X_test must have the same number of columns, got {A.shape[1]} and {B.shape[1]}"
        )
    n, m = A.shape[0], B.shape[0]
    if y_test is not None:
        y_test = check_class_labels(y_test, "y_test")
        check_same_length(B, y_test, names=("X_test", "y_test"))
    tau, rule = check_near_threshold(near_threshold)
    if neighbors is not None:
        nb_idx, nb_dist, _ = check_neighbor_lists(neighbors, m, n, "neighbors")
    elif rule != "none":
        from auditad.neighbors import BACKENDS, METRICS

        check_choice(metric, METRICS, name="metric")
        check_choice(backend, BACKENDS, name="backend")

    common = np.result_type(A.dtype, B.dtype)
    value_ids, _ = distinct_values([A, B], common)
    V = int(value_ids.max()) + 1
    min_train_row = min_row_per_value(value_ids, np.arange(n), V)
    v_test = value_ids[n:]
    exact_row = min_train_row[v_test]
    exact = exact_row >= 0
    near = near_row = near_dist = None
    if rule != "none":
        if neighbors is None:  # search the distinct training rows: the 2nd neighbour is never a copy
            from auditad import kneighbors

            distinct_train = min_train_row[np.unique(value_ids[:n])]
            res = kneighbors(
                rows_for_search(A[distinct_train]),
                rows_for_search(B),
                k=min(2, distinct_train.size),
                metric=metric,
                backend=backend,
                random_state=random_state,
                progress=progress,
            )
            nb_idx, nb_dist = distinct_train[res.indices], res.distances
        other = value_ids[nb_idx] != v_test[:, None]  # not an exact copy of the test row
        masked = np.where(other, nb_dist, np.inf)
        j = np.argmin(masked, axis=1)
        best = masked[np.arange(m), j]
        if rule == "auto":
            pos = np.where(other & (nb_dist > 0), nb_dist, np.inf).min(axis=1)
            per_value = np.full(V, np.inf)
            np.minimum.at(per_value, v_test, pos)
            finite = per_value[np.isfinite(per_value)]
            if finite.size == 0:
                raise InvalidInputError(
                    "near_threshold='auto' cannot be derived: no test row has a listed training "
                    "row at positive distance that is not a copy of it; pass a number or None"
                )
            tau = NEAR_THRESHOLD_FACTOR * float(np.median(finite))
        near = ~exact & (best < tau)
        near_row = np.where(near, nb_idx[np.arange(m), j], -1).astype(np.int64)
        near_dist = np.where(near, best, np.nan)
    return OverlapResult(
        test_rows=np.arange(m, dtype=np.int64),
        n_train=int(n),
        exact_copy=exact,
        exact_train_row=exact_row,
        near_threshold=tau,
        near_copy=near,
        near_train_row=near_row,
        near_distance=near_dist,
        y_test=y_test,
        complete=True,
    )
