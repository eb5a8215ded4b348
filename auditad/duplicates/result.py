"""The result of `find_duplicates`: `DuplicatesResult`."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .._format import FrameDisplay
from .._json import json_safe
from .._validation import check_int, check_same_length, describe
from ..errors import InvalidInputError
from .checks import check_class_labels, check_row_index, isin_labels, python_scalar, records_frame
from .exact import first_occurrence, min_row_per_value, unique_pairs
from .near import NEAR_THRESHOLD_FACTOR, nearest_per_value
from .overlap import OverlapResult

__all__ = ["DuplicatesResult"]


@dataclass(frozen=True)
class DuplicatesResult(FrameDisplay):
    """Exact and near duplicate rows of one set, and the groups whose members carry different labels.

    Exact duplicates are rows whose values are identical in the dtype given (see
    `find_duplicates`).  Every row belongs to one *distinct value*; a distinct value
    held by two or more rows is an exact duplicate *group*.  Groups and distinct values are
    numbered by their first row, so the numbering never depends on the hash.

    Attributes
    ----------
    n_samples, n_features : int
        Shape of the set.
    dtype : str
        Dtype in which the rows were compared.
    value_ids : ndarray of shape (n,), int64
        Distinct value of each row, numbered 0, 1, ... by first occurrence.
    group_ids : ndarray of shape (n,), int64
        Exact duplicate group of each row (numbered by first occurrence), ``-1`` for a row
        without copy.
    group_sizes : ndarray of shape (n_groups,), int64
        Rows per group.
    labels : ndarray of shape (n,) or None
        The labels ``y``.
    anomaly_labels : tuple or None
        Label values that mark anomalies (None: no normal/anomaly split known).
    group_n_labels : ndarray of shape (n_groups,), int64, or None
        Distinct labels per group; a group with two or more is *conflicting*.
    group_n_anomalies : ndarray of shape (n_groups,), int64, or None
        Anomalies per group.
    near_threshold : float or None
        Distance below which two distinct rows are near duplicates; None when near
        duplicates were not looked for.
    near_threshold_rule : str
        ``"auto"`` (derived from the data), ``"given"`` or ``"none"``.
    nn_distance_median : float or None
        Median over the distinct rows of the distance to the nearest distinct row at a
        positive distance (among the listed neighbours): the base of the ``"auto"`` rule.
    near_pairs : ndarray of shape (n_pairs, 2), int64, or None
        Near-duplicate pairs of distinct values, each given by the first row of each value
        (smaller first), sorted.
    near_distances : ndarray of shape (n_pairs,), float64, or None
        Distance of each pair.
    near_group_ids : ndarray of shape (n,), int64, or None
        Near-duplicate group of each row: the connected components of the graph of near
        pairs (with all copies of each value), numbered by first row; ``-1`` outside.
    n_near_unresolved : int or None
        Distinct values all of whose listed neighbours lie within the threshold: more near
        duplicates of them may lie beyond the list, so near counts are lower bounds when > 0.
    neighbors_k : int or None
        Neighbours per list used for the near duplicates.
    metric : str or None
        Distance of the near duplicates.
    neighbors_source : str or None
        ``"given"`` (lists passed in), or the kNN backend that ran.
    n_distinct, n_groups : int
        Distinct rows; exact duplicate groups (distinct values held by two or more rows).
    n_rows_in_groups, n_extra_copies : int
        Rows with at least one exact copy; rows beyond the first of each group
        (``n_rows_in_groups - n_groups = n_samples - n_distinct``).
    largest_group : int
        Rows of the largest group (0 when there is none).
    n_conflicting_groups, n_conflicting_rows : int or None
        Groups whose members carry two or more labels, and their rows (None without labels).
    n_mixed_groups, n_mixed_rows : int or None
        Groups holding both a normal and an anomaly, and their rows (None without anomaly labels).

    See Also
    --------
    - `find_duplicates`: computes it.
    - `OverlapResult`: overlap of a train/test split, from `overlap`.

    References
    ----------
    C. G. Northcutt, L. Jiang, I. L. Chuang, "Confident Learning: Estimating Uncertainty in
    Dataset Labels", Journal of Artificial Intelligence Research 70, 2021 (cleanlab and its
    ``near_duplicate`` check).
    G. O. Campos et al., "On the evaluation of unsupervised outlier detection: measures,
    datasets, and an empirical study", Data Mining and Knowledge Discovery 30, 2016.
    """

    n_samples: int
    n_features: int
    dtype: str
    value_ids: np.ndarray = field(repr=False)
    group_ids: np.ndarray = field(repr=False)
    group_sizes: np.ndarray = field(repr=False)
    labels: np.ndarray | None = field(default=None, repr=False)
    anomaly_labels: tuple | None = None
    group_n_labels: np.ndarray | None = field(default=None, repr=False)
    group_n_anomalies: np.ndarray | None = field(default=None, repr=False)
    near_threshold: float | None = None
    near_threshold_rule: str = "none"
    nn_distance_median: float | None = None
    near_pairs: np.ndarray | None = field(default=None, repr=False)
    near_distances: np.ndarray | None = field(default=None, repr=False)
    near_group_ids: np.ndarray | None = field(default=None, repr=False)
    n_near_unresolved: int | None = None
    neighbors_k: int | None = None
    metric: str | None = None
    neighbors_source: str | None = None
    n_distinct: int = field(init=False)
    n_groups: int = field(init=False)
    n_rows_in_groups: int = field(init=False)
    n_extra_copies: int = field(init=False)
    largest_group: int = field(init=False)
    n_conflicting_groups: int | None = field(init=False)
    n_conflicting_rows: int | None = field(init=False)
    n_mixed_groups: int | None = field(init=False)
    n_mixed_rows: int | None = field(init=False)

    def __post_init__(self):
        sizes = self.group_sizes
        counts = {
            "n_distinct": int(self.value_ids.max()) + 1 if self.value_ids.size else 0,
            "n_groups": int(sizes.size),
            "n_rows_in_groups": int(sizes.sum()),
            "largest_group": int(sizes.max()) if sizes.size else 0,
        }
        counts["n_extra_copies"] = counts["n_rows_in_groups"] - counts["n_groups"]
        for kind, flags in (("conflicting", self.group_conflicting), ("mixed", self.group_mixed)):
            counts[f"n_{kind}_groups"] = None if flags is None else int(flags.sum())
            counts[f"n_{kind}_rows"] = None if flags is None else int(sizes[flags].sum())
        for key, value in counts.items():
            object.__setattr__(self, key, value)

    # ------------------------------------------------------------------ groups
    @cached_property
    def value_counts(self) -> np.ndarray:
        """Rows per distinct value (int64, numbered like `value_ids`)."""
        return np.bincount(self.value_ids).astype(np.int64)

    @cached_property
    def first_rows(self) -> np.ndarray:
        """First row of each distinct value (int64, increasing)."""
        return first_occurrence(self.value_ids)

    def group(self, g: int) -> np.ndarray:
        """Row indices of exact duplicate group ``g`` (increasing)."""
        if self.n_groups == 0:
            raise InvalidInputError("g: there is no exact duplicate group")
        g = check_int(g, name="g", low=0, high=self.n_groups - 1)
        start = self._group_starts[g]
        return self._members[start : start + self.group_sizes[g]]

    @cached_property
    def _members(self) -> np.ndarray:
        """Rows in groups, sorted by group, then by row (group g is a contiguous slice)."""
        order = np.argsort(self.group_ids, kind="stable")
        return order[self.group_ids[order] >= 0].astype(np.int64)

    @cached_property
    def _group_starts(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.group_sizes)[:-1]]).astype(np.int64)

    # ------------------------------------------------------------------ conflicts
    @property
    def group_conflicting(self) -> np.ndarray | None:
        """Per group: its members carry two or more labels (None without labels)."""
        return None if self.group_n_labels is None else self.group_n_labels >= 2

    @property
    def group_mixed(self) -> np.ndarray | None:
        """Per group: it holds both a normal and an anomaly (None without anomaly labels)."""
        if self.group_n_anomalies is None:
            return None
        return (self.group_n_anomalies > 0) & (self.group_n_anomalies < self.group_sizes)

    def group_conflicts(self, labels) -> np.ndarray:
        """Per group: its members carry two or more values of ``labels`` (another labelling of the rows).

        E.g. the anomaly column of a benchmark whose ``y`` holds semantic classes: the groups that hold
        both a normal and an anomaly.

        Parameters
        ----------
        labels : array-like of shape (n,)

        Returns
        -------
        ndarray of shape (n_groups,), bool
        """
        labels = check_class_labels(labels, "labels")
        check_same_length(self.value_ids, labels, names=("the rows", "labels"))
        codes = np.unique(labels, return_inverse=True)[1].ravel()
        grouped = self.group_ids >= 0
        g, _ = unique_pairs(self.group_ids[grouped], codes[grouped])
        return np.bincount(g, minlength=self.n_groups) >= 2

    def auroc_ceiling(self, rows=None) -> float:
        r"""Largest AUROC any detector can reach on ``rows`` when identical rows get identical scores.

        Identical rows labelled normal and anomaly are ties for every detector whose score
        is a function of the row; each such (anomaly, normal) pair counts ½ in the AUROC.
        The largest AUROC over all scores is the AUROC of the score

        \[
        s(x_i) = \frac{a_v}{a_v + n_v}, \qquad v = \text{the distinct value of row } i,
        \]

        where \(a_v\) and \(n_v\) are the anomalies and normals among ``rows`` that
        hold value \(v\) (ordering the values by their likelihood ratio \(a_v/n_v\)
        is optimal by an exchange argument).  It is 1 when no value carries both labels.

        Parameters
        ----------
        rows : array-like of int or bool, optional
            The evaluated rows (e.g. the test rows of a task); default all rows.

        Returns
        -------
        float

        Raises
        ------
        InvalidInputError
            Without anomaly labels, or when ``rows`` lack normals or anomalies.
        """
        if self.anomaly_labels is None:
            raise InvalidInputError("auroc_ceiling needs anomaly labels: pass y (0/1) or anomaly= to find_duplicates")
        rows = np.arange(self.n_samples) if rows is None else check_row_index(rows, self.n_samples, "rows")
        y = self.is_anomaly[rows]
        if y.all() or not y.any():
            raise InvalidInputError(
                "rows must hold both normals and anomalies to define an AUROC, got "
                f"{int(y.sum())} anomalies among {y.size} rows"
            )
        v = self.value_ids[rows]
        share = np.bincount(v, weights=y, minlength=self.n_distinct) / np.maximum(
            np.bincount(v, minlength=self.n_distinct), 1
        )
        from auditad import auroc

        return float(auroc(y.astype(np.int8), share[v]))

    @cached_property
    def is_anomaly(self) -> np.ndarray | None:
        """Per row: its label is one of `anomaly_labels` (None without them)."""
        if self.anomaly_labels is None:
            return None
        return isin_labels(self.labels, self.anomaly_labels)

    # ------------------------------------------------------------------ near duplicates
    @property
    def n_near_pairs(self) -> int | None:
        """Near-duplicate pairs of distinct values."""
        return None if self.near_pairs is None else int(self.near_pairs.shape[0])

    @property
    def n_near_groups(self) -> int | None:
        """Near-duplicate groups (connected components of two or more distinct values)."""
        if self.near_group_ids is None:
            return None
        return int(self.near_group_ids.max()) + 1 if self.near_group_ids.size else 0

    @property
    def n_near_rows(self) -> int | None:
        """Rows in near-duplicate groups (rows whose value has a near duplicate)."""
        return None if self.near_group_ids is None else int(np.sum(self.near_group_ids >= 0))

    @cached_property
    def near_group_n_labels(self) -> np.ndarray | None:
        """Distinct labels per near-duplicate group (None without labels or near duplicates)."""
        if self.near_group_ids is None or self.labels is None:
            return None
        codes = np.unique(self.labels, return_inverse=True)[1].ravel()
        sel = self.near_group_ids >= 0
        g, _ = unique_pairs(self.near_group_ids[sel], codes[sel])
        return np.bincount(g, minlength=self.n_near_groups).astype(np.int64)

    @property
    def n_near_conflicting_groups(self) -> int | None:
        """Near-duplicate groups whose rows carry two or more labels."""
        n = self.near_group_n_labels
        return None if n is None else int(np.sum(n >= 2))

    @property
    def n_near_conflicting_rows(self) -> int | None:
        """Rows in near-duplicate groups whose rows carry two or more labels."""
        n = self.near_group_n_labels
        if n is None:
            return None
        if n.size == 0:
            return 0
        g = self.near_group_ids
        return int(np.sum((g >= 0) & (n[np.maximum(g, 0)] >= 2)))

    # ------------------------------------------------------------------ overlap of a split
    def overlap(self, train_idx, test_idx, *, y_test=None) -> OverlapResult:
        """Test rows of a task with an exact or near copy among its training rows.

        Uses this grouping of the whole set, so each task costs O(n) and no new search.
        Near copies are the near pairs found here: when `n_near_unresolved` is
        positive they are a lower bound (``complete=False``).

        Parameters
        ----------
        train_idx, test_idx : array-like of int, or bool masks of length n
            Training and test rows of the task (disjoint, no repeated row; at least one test row).
        y_test : array-like of shape (len(test_idx),), optional
            Test labels of the task (e.g. 0/1 for normal/anomaly); default the labels ``y``
            of these rows.

        Returns
        -------
        OverlapResult
            Row identifiers are indices into the whole set.
        """
        n = self.n_samples
        train = check_row_index(train_idx, n, "train_idx")
        test = check_row_index(test_idx, n, "test_idx")
        if test.size == 0:
            raise InvalidInputError("test_idx is empty: a task needs at least one test row")
        both = np.intersect1d(train, test)
        if both.size:
            raise InvalidInputError(
                f"train_idx and test_idx share {both.size} row(s), e.g. {describe(both[:5].tolist())}"
            )
        if y_test is None:
            y_test = None if self.labels is None else self.labels[test]
        else:
            y_test = check_class_labels(y_test, "y_test")
            check_same_length(test, y_test, names=("test_idx", "y_test"))
        V = self.n_distinct
        min_train_row = min_row_per_value(self.value_ids, train, V)
        v_test = self.value_ids[test]
        exact_row = min_train_row[v_test]
        exact = exact_row >= 0
        near = near_row = near_dist = None
        if self.near_pairs is not None:
            a, b = self.value_ids[self.near_pairs[:, 0]], self.value_ids[self.near_pairs[:, 1]]
            src, dst = np.concatenate([a, b]), np.concatenate([b, a])
            dist = np.concatenate([self.near_distances, self.near_distances])
            keep = min_train_row[dst] >= 0
            best_dst, best_d = nearest_per_value(src[keep], dst[keep], dist[keep], V)
            has = best_dst[v_test] >= 0
            near = has & ~exact
            near_row = np.where(near, min_train_row[np.maximum(best_dst[v_test], 0)], -1)
            near_dist = np.where(near, best_d[v_test], np.nan)
        return OverlapResult(
            test_rows=test,
            n_train=int(train.size),
            exact_copy=exact,
            exact_train_row=exact_row,
            near_threshold=self.near_threshold,
            near_copy=near,
            near_train_row=near_row,
            near_distance=near_dist,
            y_test=y_test,
            complete=not self.n_near_unresolved,
        )

    def test_rows_to_keep(self, train_idx, test_idx, *, drop_near: bool = False) -> np.ndarray:
        """Test rows of a task without an exact (and, with ``drop_near``, near) copy among its training rows.

        Shorthand for ``overlap(train_idx, test_idx).rows_to_keep(drop_near=drop_near)``.
        """
        return self.overlap(train_idx, test_idx).rows_to_keep(drop_near=drop_near)

    # ------------------------------------------------------------------ export
    @cached_property
    def _class_table(self):
        """Per class: sizes and counts (see `to_frame`)."""
        classes, codes = np.unique(self.labels, return_inverse=True)
        codes = codes.ravel()
        K = classes.size
        grouped = self.group_ids >= 0
        n_samples = np.bincount(codes, minlength=K)
        _, c_distinct = unique_pairs(self.value_ids, codes)
        n_distinct = np.bincount(c_distinct, minlength=K)
        _, c_groups = unique_pairs(self.group_ids[grouped], codes[grouped])
        conf_rows = np.zeros(self.n_samples, dtype=bool)  # rows of conflicting groups (none without groups)
        conf_rows[grouped] = self.group_conflicting[self.group_ids[grouped]]
        _, c_conf = unique_pairs(self.group_ids[conf_rows], codes[conf_rows])
        table = {
            "class": classes,
            "n_samples": n_samples,
            "n_distinct": n_distinct,
            "n_rows_in_groups": np.bincount(codes[grouped], minlength=K),
            "n_groups": np.bincount(c_groups, minlength=K),
            "n_extra_copies": n_samples - n_distinct,
            "n_conflicting_rows": np.bincount(codes[conf_rows], minlength=K),
            "n_conflicting_groups": np.bincount(c_conf, minlength=K),
        }
        if self.near_group_ids is not None:
            near_rows = self.near_group_ids >= 0
            table["n_near_rows"] = np.bincount(codes[near_rows], minlength=K)
        return table

    def to_frame(self):
        """Tidy table of the counts: one row for the whole set (``scope="all"``), then one per class.

        Columns: ``scope``, ``class``, ``n_samples``, ``n_distinct``, ``n_rows_in_groups``
        (rows with an exact copy, whatever the copy's label), ``n_groups`` (groups with a
        row of the class), ``n_extra_copies`` (rows beyond the first of each value: for a
        class, counted among that class's rows only), ``n_conflicting_rows``,
        ``n_conflicting_groups`` (conflicting groups with a row of the class), and
        ``n_near_rows`` when near duplicates were computed.  Without labels only the
        ``"all"`` row, without the conflict columns.
        """
        total = {
            "scope": "all",
            "class": None,
            "n_samples": self.n_samples,
            "n_distinct": self.n_distinct,
            "n_rows_in_groups": self.n_rows_in_groups,
            "n_groups": self.n_groups,
            "n_extra_copies": self.n_extra_copies,
        }
        if self.labels is not None:
            total["n_conflicting_rows"] = self.n_conflicting_rows
            total["n_conflicting_groups"] = self.n_conflicting_groups
        if self.near_group_ids is not None:
            total["n_near_rows"] = self.n_near_rows
        rows = [total]
        if self.labels is not None:
            t = self._class_table
            for i, c in enumerate(t["class"]):
                rows.append(
                    {
                        "scope": "class",
                        "class": python_scalar(c),
                        **{key: int(col[i]) for key, col in t.items() if key != "class"},
                    }
                )
        return records_frame(rows, "class")

    def groups_frame(
        self, *, conflicting_only: bool = False, max_groups: int | None = None, largest_first: bool = False
    ):
        """One row per (group, member row): the exact duplicate groups, e.g. for a CSV file.

        Parameters
        ----------
        conflicting_only : bool
            Only the groups whose members carry two or more labels.
        max_groups : int or None
            At most this many groups (None = all).
        largest_first : bool
            Order groups by decreasing size (ties by group number) instead of by first row.

        Returns
        -------
        pandas.DataFrame
            Columns ``group``, ``size``, ``row``, then ``label`` and ``conflicting`` with
            labels, and ``anomaly`` with anomaly labels.
        """
        import pandas as pd

        if conflicting_only and self.labels is None:
            raise InvalidInputError("conflicting_only=True needs labels: pass y to find_duplicates")
        chosen = np.arange(self.n_groups)
        if conflicting_only:
            chosen = chosen[self.group_conflicting]
        if largest_first:
            chosen = chosen[np.argsort(-self.group_sizes[chosen], kind="stable")]
        if max_groups is not None:
            chosen = chosen[: check_int(max_groups, name="max_groups", low=0)]
        rows = np.concatenate([self.group(g) for g in chosen]) if chosen.size else np.zeros(0, np.int64)
        gid = np.repeat(chosen, self.group_sizes[chosen]).astype(np.int64)
        data = {"group": gid, "size": self.group_sizes[gid], "row": rows.astype(np.int64)}
        if self.labels is not None:
            data["label"] = [python_scalar(v) for v in self.labels[rows]]
            data["conflicting"] = self.group_conflicting[gid]
        if self.anomaly_labels is not None:
            data["anomaly"] = self.is_anomaly[rows]
        return pd.DataFrame(data)

    def near_pairs_frame(self):
        """One row per near-duplicate pair of distinct values.

        Columns ``row_a``, ``row_b`` (first row of each value), ``distance``, ``copies_a``,
        ``copies_b`` (rows holding each value), and ``conflicting`` (the rows of both values
        carry two or more labels) with labels.
        """
        import pandas as pd

        if self.near_pairs is None:
            raise InvalidInputError("near duplicates were not computed (near_threshold=None)")
        a, b = self.near_pairs[:, 0], self.near_pairs[:, 1]
        va, vb = self.value_ids[a], self.value_ids[b]
        data = {
            "row_a": a,
            "row_b": b,
            "distance": self.near_distances,
            "copies_a": self.value_counts[va],
            "copies_b": self.value_counts[vb],
        }
        if self.labels is not None:
            codes = np.unique(self.labels, return_inverse=True)[1].ravel()
            pv, pc = unique_pairs(self.value_ids, codes)
            n_lab = np.bincount(pv, minlength=self.n_distinct)
            single = np.full(self.n_distinct, -1, dtype=np.int64)
            single[pv[n_lab[pv] == 1]] = pc[n_lab[pv] == 1]
            data["conflicting"] = (n_lab[va] >= 2) | (n_lab[vb] >= 2) | (single[va] != single[vb])
        return pd.DataFrame(data)

    def to_dict(self, *, max_groups: int = 10, max_rows: int = 20) -> dict:
        """JSON-safe dictionary (full precision).

        Holds the counts, the near-duplicate settings and counts, the per-class table and the
        ``max_groups`` largest groups (each with at most ``max_rows`` row indices and its
        label counts), so its size is O(K + max_groups · max_rows).
        """
        max_groups = check_int(max_groups, name="max_groups", low=0)
        max_rows = check_int(max_rows, name="max_rows", low=0)
        out = {
            "n_samples": self.n_samples,
            "n_features": self.n_features,
            "dtype": self.dtype,
            "n_distinct": self.n_distinct,
            "n_groups": self.n_groups,
            "n_rows_in_groups": self.n_rows_in_groups,
            "n_extra_copies": self.n_extra_copies,
            "largest_group": self.largest_group,
            "n_conflicting_groups": self.n_conflicting_groups,
            "n_conflicting_rows": self.n_conflicting_rows,
            "anomaly_labels": None if self.anomaly_labels is None else [python_scalar(v) for v in self.anomaly_labels],
            "n_mixed_groups": self.n_mixed_groups,
            "n_mixed_rows": self.n_mixed_rows,
            "auroc_ceiling": self._auroc_ceiling_or_none(),
            "near": None,
            "per_class": [] if self.labels is None else self.to_frame().iloc[1:].to_dict(orient="records"),
            "largest_groups": self._largest_groups(max_groups, max_rows),
        }
        if self.near_threshold is not None:
            out["near"] = {
                "threshold": self.near_threshold,
                "rule": self.near_threshold_rule,
                "factor": NEAR_THRESHOLD_FACTOR,
                "nn_distance_median": self.nn_distance_median,
                "k": self.neighbors_k,
                "metric": self.metric,
                "neighbors": self.neighbors_source,
                "n_pairs": self.n_near_pairs,
                "n_groups": self.n_near_groups,
                "n_rows": self.n_near_rows,
                "n_conflicting_groups": self.n_near_conflicting_groups,
                "n_conflicting_rows": self.n_near_conflicting_rows,
                "n_unresolved": self.n_near_unresolved,
            }
        return json_safe(out)

    def summary_text(self, *, max_classes: int = 20) -> str:
        """A python_scalar-text table of the counts for the terminal (the per-class rows of the first ``max_classes``)."""
        rows = [
            ("rows", self.n_samples),
            ("distinct rows", self.n_distinct),
            ("rows with an exact copy", self.n_rows_in_groups),
            ("extra copies", self.n_extra_copies),
            ("groups", self.n_groups),
            ("largest group", self.largest_group),
        ]
        if self.labels is not None:
            rows += [("conflicting groups", self.n_conflicting_groups), ("conflicting rows", self.n_conflicting_rows)]
        if self.anomaly_labels is not None:
            rows += [("mixed normal/anomaly rows", self.n_mixed_rows)]
            ceiling = self._auroc_ceiling_or_none()
            if ceiling is not None:
                rows += [("AUROC ceiling", f"{ceiling:.6f}")]
        from .._format import text_table

        def counts(pairs) -> str:
            return text_table(pairs, align="lr", sep=" ", widths=(26, 12), indent="  ")

        lines = [
            f"Exact duplicates ({self.n_features} columns, {self.dtype} values compared as they are)",
            counts(rows),
        ]
        if self.near_threshold is not None:
            how = (
                f"auto: {NEAR_THRESHOLD_FACTOR:g} x median nearest-neighbour distance {self.nn_distance_median:.6g}"
                if self.near_threshold_rule == "auto"
                else "given"
            )
            near = [
                ("pairs", self.n_near_pairs),
                ("rows in near groups", self.n_near_rows),
                ("near groups", self.n_near_groups),
            ]
            if self.labels is not None:
                near.append(("rows in conflicting ones", self.n_near_conflicting_rows))
            lines += ["", f"Near duplicates (distance < {self.near_threshold:.6g}; {how})", counts(near)]
            if self.n_near_unresolved:
                lines.append(
                    f"  (lower bounds: {self.n_near_unresolved} distinct rows have every listed neighbour "
                    "within the threshold)"
                )
        if self.labels is not None:
            frame = self.to_frame().iloc[1:]
            cols = ["n_samples", "n_rows_in_groups", "n_extra_copies", "n_conflicting_rows"]
            table = [(row["class"], *(int(row[k]) for k in cols)) for _, row in frame.head(max_classes).iterrows()]
            lines += [
                "",
                text_table(
                    table,
                    header=("class", "rows", "in groups", "extra", "conflicting"),
                    align="r",
                    widths=(5, 8, 9, 8, 11),
                    indent="  ",
                ),
            ]
            if len(frame) > max_classes:
                lines.append(f"  ... and {len(frame) - max_classes} more classes")
        return "\n".join(lines)

    def _auroc_ceiling_or_none(self):
        if self.anomaly_labels is None:
            return None
        y = self.is_anomaly
        return self.auroc_ceiling() if (y.any() and not y.all()) else None

    def _largest_groups(self, max_groups: int, max_rows: int) -> list:
        order = np.argsort(-self.group_sizes, kind="stable")[:max_groups]
        out = []
        for g in order:
            rows = self.group(g)
            item = {"group": int(g), "size": int(self.group_sizes[g]), "rows": rows[:max_rows].tolist()}
            if self.labels is not None:
                vals, counts = np.unique(self.labels[rows], return_counts=True)
                item["labels"] = [{"label": python_scalar(v), "count": int(c)} for v, c in zip(vals, counts)]
            out.append(item)
        return out
