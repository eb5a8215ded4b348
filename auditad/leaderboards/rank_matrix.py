"""The datasets × methods matrix a ranking is computed on, from a leaderboard or a DataFrame.

Values of several seeds are averaged per (dataset, method); failed runs (exact zeros) count as missing;
a method (or dataset) without any usable value is left out, then the missing cells are handled by
complete case over datasets or over methods (`complete_case`).  Everything left out is named, with the
reason.  [`rank_methods`][auditad.leaderboards.rank_methods] ranks the matrix.
"""

from __future__ import annotations

import numpy as np

from .._validation import describe
from ..errors import InvalidInputError
from .readers import Leaderboard

__all__ = ["matrix_from_board", "matrix_from_frame", "complete_case", "dataset_blocks"]

#: OpenOOD column groups of one in-distribution set: ``<id set>/Near-OOD``, ``<id set>/Far-OOD``, ``<id set>/ID``.
_OPENOOD_GROUPS = ("near-ood", "far-ood", "id")


def dataset_blocks(board: Leaderboard) -> dict:
    """Dataset -> the block of datasets it is not independent of (itself for an ordinary table).

    OpenOOD's Near-OOD and Far-OOD columns are two groups of OOD sets scored against the *same*
    in-distribution test set by the same models: they form one block, named by the ID set.

    See Also
    --------
    - [`rank_methods`][auditad.leaderboards.rank_methods]: counts the independent blocks.
    """
    out = {}
    openood = board.format == "openood" or "training" in board.metadata_columns
    for d in board.datasets:
        head, sep, tail = str(d).rpartition("/")
        out[d] = head if (openood and sep and tail.lower() in _OPENOOD_GROUPS) else d
    return out


def matrix_from_board(board: Leaderboard, metric, missing: str, seed, zeros_are_failures: bool = True):
    """The seed-mean datasets × methods matrix of one metric of a leaderboard, failed runs as missing.

    Returns ``(metric, mean, dropped_datasets, dropped_methods, notes)``: the metric ranked (the only one, else
    ``"auroc"``), the complete matrix (pandas.DataFrame), what was left out, with the reasons, and notes.

    See Also
    --------
    - [`rank_methods`][auditad.leaderboards.rank_methods]: ranks the matrix.
    """
    from .cells import annotate_cells

    metrics = board.metrics
    if metric is None:
        if len(metrics) == 1:
            metric = metrics[0]
        elif "auroc" in metrics:
            metric = "auroc"
        else:
            raise InvalidInputError(f"the leaderboard has several metrics {list(metrics)}; pass metric=")
    if metric not in metrics:
        raise InvalidInputError(f"metric {metric!r} is not in the leaderboard (metrics: {list(metrics)})")
    cells = annotate_cells(board)
    cells = cells[cells["metric"] == metric]
    notes = []
    if seed is not None:
        keep = cells["seed_key"] == str(seed)
        if not keep.any():
            raise InvalidInputError(f"seed {seed!r} is not in the leaderboard (seeds: {list(board.seeds)})")
        cells = cells[keep]
    datasets = list(dict.fromkeys(cells["dataset"].tolist()))
    methods = list(dict.fromkeys(cells["method"].tolist()))
    if not zeros_are_failures:
        cells = cells.assign(usable=cells["value"].notna().to_numpy(), failed=False)
    use = cells[cells["usable"]]
    if use.shape[0] == 0:
        raise InvalidInputError(f"{metric}: no usable value to rank (every cell is missing or a failed run)")
    n_failed = int(cells["failed"].sum())
    if n_failed:
        notes.append(f"{n_failed} failed run(s) (exact zeros) are treated as missing")
    grouped = use.groupby(["dataset", "method"], sort=False)["value"]
    mean = grouped.mean().unstack("method").reindex(index=datasets, columns=methods)
    n_seeds = grouped.size().unstack("method").reindex(index=datasets, columns=methods).to_numpy(dtype=np.float64)
    seeds = cells.groupby("dataset", sort=False)["seed_key"].nunique().reindex(datasets).to_numpy()
    if (seeds > 1).any():
        fewer = np.argwhere(np.isfinite(n_seeds) & (n_seeds < seeds[:, None]))
        notes.append(
            "values averaged over the seeds of each (dataset, method)"
            + (
                f"; {len(fewer)} pair(s) over fewer seeds than their dataset has: "
                + ", ".join(
                    f"{methods[b]} on {datasets[a]} ({int(n_seeds[a, b])} of {int(seeds[a])})" for a, b in fewer[:6]
                )
                + (" ..." if len(fewer) > 6 else "")
                if len(fewer)
                else ""
            )
        )
    failed_methods = set(cells.loc[cells["failed"], "method"])
    empty = mean.isna().all(axis=0).to_numpy()
    dropped_methods = [
        (m, "failed run on every dataset" if m in failed_methods else "no value on any dataset")
        for m, e in zip(methods, empty)
        if e
    ]
    mean = mean.loc[:, ~empty]
    empty = mean.isna().all(axis=1).to_numpy()
    dropped_datasets = [(d, "no usable value (not run)") for d, e in zip(mean.index, empty) if e]
    mean = mean.loc[~empty]
    mean, more_d, more_m = complete_case(mean, missing, "no usable value")
    return metric, mean, dropped_datasets + more_d, dropped_methods + more_m, notes


def complete_case(mean, missing: str, what: str):
    """The complete sub-matrix: datasets (or methods) with a missing cell left out, with the reasons.

    See Also
    --------
    - [`rank_methods`][auditad.leaderboards.rank_methods]: ranks the matrix.
    """
    lack = mean.isna().to_numpy()
    cols, rows = list(mean.columns), list(mean.index)

    def names(values):
        values = [str(v) for v in values]
        return ", ".join(values[:4]) + (" ..." if len(values) > 4 else "")

    if missing == "drop_datasets":
        bad = lack.any(axis=1)
        dropped = [(rows[i], f"{what} for {names(np.asarray(cols)[lack[i]])}") for i in np.flatnonzero(bad)]
        return mean.loc[~bad], dropped, []
    bad = lack.any(axis=0)
    dropped = [(cols[j], f"{what} on {names(np.asarray(rows)[lack[:, j]])}") for j in np.flatnonzero(bad)]
    return mean.loc[:, ~bad], [], dropped


def matrix_from_frame(data, metric, missing: str, higher_is_better, zeros_are_failures: bool = True):
    """The complete datasets × methods matrix of a DataFrame (index = datasets, NaN = missing).

    Exact zeros are failed runs (missing) unless ``zeros_are_failures`` is False -- the same default as for a
    leaderboard file.

    Returns ``(higher_is_better, metric, mean, dropped_datasets, dropped_methods, notes)``: the direction
    (default True), the metric's name (default ``"score"``), the complete matrix, what was left out, with the
    reasons, and notes.

    See Also
    --------
    - [`rank_methods`][auditad.leaderboards.rank_methods]: ranks the matrix.
    """
    hib = True if higher_is_better is None else higher_is_better
    if not isinstance(hib, bool):
        raise InvalidInputError(f"higher_is_better must be True or False, got {describe(higher_is_better)}")
    metric = metric or "score"
    try:
        mean = data.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"data must hold numbers: {exc}") from None
    mean.index = [str(i) for i in mean.index]
    mean.columns = [str(c) for c in mean.columns]
    notes, dropped_d = [], []
    zero = (mean == 0.0).to_numpy()
    if zeros_are_failures and zero.any():
        mean = mean.mask(zero)
        notes.append(
            f"{int(zero.sum())} exact zero(s) treated as failed runs (missing), as in a leaderboard file; "
            "pass zeros_are_failures=False to rank them as scores"
        )
    empty = mean.isna().all(axis=0).to_numpy()
    dropped_m = [(m, "no value on any dataset") for m, e in zip(mean.columns, empty) if e]
    mean = mean.loc[:, ~empty]
    mean, more_d, more_m = complete_case(mean, missing, "no value")
    dropped_d, dropped_m = dropped_d + more_d, dropped_m + more_m
    return hib, metric, mean, dropped_d, dropped_m, notes
