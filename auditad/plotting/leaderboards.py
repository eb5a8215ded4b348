"""The figures of a leaderboard audit: the methods × datasets heatmap and the critical-difference diagram.

Both are re-exported by `auditad.plotting`. Presentation only: the values, the failed and missing cells
and the status of each cell come from [`CellGrid`][auditad.leaderboards.audit.CellGrid]
(`LeaderboardAudit.grid`), the average ranks, the critical difference and the groups of methods not
significantly different from [`RankingResult`][auditad.leaderboards.RankingResult]
([`cliques`][auditad.leaderboards.RankingResult.cliques]); nothing is computed here.

References
----------
J. Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", JMLR 7, 1–30, 2006
(the datasets × methods layout of a comparison; the critical-difference diagram, §3.2.2, Figures 1 and 2).
"""

from __future__ import annotations

import math

from . import style as st
from ..errors import InvalidInputError

__all__ = [
    "MAX_HEATMAP_METHODS",
    "MAX_HEATMAP_DATASETS",
    "plot_leaderboard_heatmap",
    "leaderboard_heatmap_figure",
    "plot_critical_difference",
    "critical_difference_size",
]

#: Most methods (rows) and datasets (columns) drawn; beyond, those with the most flagged cells are kept.
MAX_HEATMAP_METHODS = 80
MAX_HEATMAP_DATASETS = 80
#: Most cells, and most columns, that get their value written into them.
MAX_ANNOTATED_CELLS = 400
MAX_ANNOTATED_COLUMNS = 24
_LEVEL = {"": 0, "warn": 1, "fail": 2}


def _keep(n: int, limit: int, weight) -> list:
    """Indices of at most ``limit`` of ``n`` items: the heaviest (most flagged cells), in their original order."""
    import numpy as np

    if n <= limit:
        return list(range(n))
    order = np.argsort(-np.asarray(weight), kind="stable")[:limit]
    return sorted(int(i) for i in order)


def _selection(grid, max_methods: int, max_datasets: int):
    import numpy as np

    level = (
        np.vectorize(_LEVEL.get, otypes=[np.int64])(grid.status)
        if grid.status.size
        else np.zeros(grid.status.shape, dtype=np.int64)
    )
    flagged = (level > 0) | grid.failed
    listed = ~grid.missing | grid.failed  # a method or dataset without any value is not drawn
    keep_r = np.flatnonzero(listed.any(axis=1))
    keep_c = np.flatnonzero(listed.any(axis=0))
    f = flagged[np.ix_(keep_r, keep_c)]
    lv = level[np.ix_(keep_r, keep_c)]
    rows = [int(keep_r[i]) for i in _keep(len(keep_r), max_methods, f.sum(axis=1) + 1e-3 * lv.sum(axis=1))]
    sub = np.searchsorted(keep_r, rows)
    cols = [int(keep_c[j]) for j in _keep(len(keep_c), max_datasets, f[sub].sum(axis=0) + 1e-3 * lv[sub].sum(axis=0))]
    return rows, cols, level, (len(grid.methods) - len(keep_r), len(grid.datasets) - len(keep_c))


def _scale(metric: str, values):
    """(colour map, vmin, vmax, centre label) for a metric."""
    import numpy as np

    from ..leaderboards.schema import metric_info

    spec = metric_info(metric)
    if spec.chance == "half":
        return "RdBu", 0.0, 1.0, "½ = chance (white); red below, blue above"
    if spec.bounded:
        return "viridis", 0.0, 1.0, ""
    finite = values[np.isfinite(values)]
    hi = float(finite.max()) if finite.size else 1.0
    return "viridis_r" if not spec.higher_is_better else "viridis", 0.0, hi if hi > 0 else 1.0, ""


def _cell_text(v: float, *, failed: bool) -> str:
    """A cell's annotation: the value with two decimals; ``"0"`` for a failed run without one, ``"–"`` when missing."""
    if not math.isfinite(v):
        return "0" if failed else "–"
    return f"{v:.2f}"


def plot_leaderboard_heatmap(
    grid,
    *,
    ax=None,
    annotate=None,
    colorbar: bool = True,
    transpose=None,
    max_methods: int = MAX_HEATMAP_METHODS,
    max_datasets: int = MAX_HEATMAP_DATASETS,
):
    """Methods × datasets heatmap of one metric, the flagged cells framed (from a `CellGrid`).

    Each cell is the mean over seeds of a method's usable values on a dataset;
    AUROC uses a diverging scale centred at ½ (blue above chance, red below).
    A solid black frame marks a cell named by a failed finding, a dashed frame
    one named by a warning (`LeaderboardAudit.grid` says which checks); a hatched
    grey cell is a failed run stored as a score, a plain grey cell has no value.
    Beyond ``max_methods`` rows or ``max_datasets`` columns, the ones with the
    most flagged cells are drawn (the title says how many of how many).

    Parameters
    ----------
    grid : CellGrid
        From `LeaderboardAudit.grid`.
    ax : matplotlib Axes, optional
    annotate : bool, optional
        Write each value into its cell (default: up to 400 cells).
    colorbar : bool, default True
    transpose : bool, optional
        Datasets as rows instead of columns (default: when there are at most 6 datasets and more than 20
        methods, so that a few datasets do not give a tall thin figure).
    max_methods, max_datasets : int

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import tempfile, pathlib
    >>> from auditad.leaderboards import audit_leaderboard
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "roc.csv"
    >>> _ = path.write_text("Data,#Samples,# Dimensions,Outlier Perc,IForest,LOF,VAE\\n"
    ...                     "pima,768,8,34.8958,0.6806,0.6271,0.0\\nwbc,378,30,5.5556,0.9310,0.9349,0.0\\n")
    >>> ax = plot_leaderboard_heatmap(audit_leaderboard(path).grid())
    >>> [(c.get_gid(), len(c.get_paths())) for c in ax.collections if c.get_gid()]
    [('failed-run', 2)]
    """
    import numpy as np
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Rectangle

    from ..leaderboards.audit import CellGrid

    if not isinstance(grid, CellGrid):
        raise InvalidInputError(f"grid must be a CellGrid (LeaderboardAudit.grid()), got {type(grid).__name__}")
    rows, cols, level, (no_m, no_d) = _selection(grid, max_methods, max_datasets)
    if not rows or not cols:
        raise InvalidInputError(f"the grid of {grid.metric!r} has no value to draw")
    if transpose is None:
        transpose = len(cols) <= 6 and len(rows) > 20
    values = grid.values[np.ix_(rows, cols)]
    failed = grid.failed[np.ix_(rows, cols)]
    lev = level[np.ix_(rows, cols)]
    checks = grid.checks[np.ix_(rows, cols)]
    ylabels = [str(grid.methods[i]) for i in rows]
    xlabels = [str(grid.datasets[j]) for j in cols]
    ynames, xnames = "method", "dataset"
    if transpose:
        values, failed, lev, checks = values.T, failed.T, lev.T, checks.T
        ylabels, xlabels, ynames, xnames = xlabels, ylabels, xnames, ynames
    n_y, n_x = values.shape
    if ax is None:
        longest_x = max((len(t) for t in xlabels), default=4)
        longest_y = max((len(t) for t in ylabels), default=4)
        width = min(st.CONTENT_WIDTH_IN, 1.2 + 0.075 * longest_y + 0.32 * n_x + (1.1 if colorbar else 0.2))
        height = 1.4 + min(2.6, 0.075 * longest_x) + 0.24 * n_y
        ax = st.axes_or_new(None, height=height, width=max(width, 4.5))
    cmap_name, vmin, vmax, centre = _scale(grid.metric, grid.values)
    import matplotlib

    cmap = matplotlib.colormaps[cmap_name].with_extremes(bad="0.88")
    im = ax.imshow(
        np.ma.masked_invalid(values), cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto", interpolation="nearest"
    )
    if colorbar:
        ax.figure.colorbar(im, ax=ax, label=f"{grid.metric} (seed mean)", shrink=0.9)

    def boxes(mask, half):  # one collection per kind: fast to draw and to save, whatever the count
        return [Rectangle((j - half, i - half), 2 * half, 2 * half) for i, j in zip(*np.nonzero(mask))]

    if failed.any():
        ax.add_collection(
            PatchCollection(
                boxes(failed, 0.5), facecolor="0.75", edgecolor="0.45", hatch="////", linewidth=0.0, gid="failed-run"
            )
        )
    for level, gid, style in (
        (2, "flag-fail", {"linestyle": "solid", "linewidth": 2.0}),
        (1, "flag-warn", {"linestyle": (0, (2.5, 1.5)), "linewidth": 1.4}),
    ):
        mask = (lev == level) & ~failed
        if mask.any():
            ax.add_collection(PatchCollection(boxes(mask, 0.42), facecolor="none", edgecolor="black", gid=gid, **style))
    if annotate is None:
        annotate = n_x * n_y <= MAX_ANNOTATED_CELLS and n_x <= MAX_ANNOTATED_COLUMNS
    if annotate:
        for i in range(n_y):
            for j in range(n_x):
                v = values[i, j]
                text = _cell_text(v, failed=bool(failed[i, j]))
                dark = np.isfinite(v) and cmap_name == "RdBu" and abs(v - 0.5) > 0.3
                ax.text(
                    j, i, text, ha="center", va="center", fontsize=st.MIN_FONT_PT, color="white" if dark else "black"
                )
    ax.set_xticks(range(n_x), xlabels, rotation=90 if n_x > 4 else 0)
    ax.set_yticks(range(n_y), ylabels)
    ax.tick_params(length=0)
    for side in ("top", "right", "left", "bottom"):
        ax.spines[side].set_visible(False)
    total = {"method": len(grid.methods) - no_m, "dataset": len(grid.datasets) - no_d}
    drawn = {ynames: n_y, xnames: n_x}
    cut = "; ".join(f"{drawn[k]} of {total[k]} {k}s" for k in ("method", "dataset") if drawn[k] < total[k])
    empty = "; ".join(f"{n} {k}(s) without any value left out" for k, n in (("method", no_m), ("dataset", no_d)) if n)
    n_fail, n_warn = int((grid.status == "fail").sum()), int((grid.status == "warn").sum())
    title = (
        f"{grid.metric}: {n_fail} cell(s) in failed findings (solid frame), {n_warn} in warnings (dashed)"
        + (f"; drawn: {cut} (the most flagged)" if cut else "")
        + (f"; {empty}" if empty else "")
    )
    ax.set_title(title)
    ax.set_xlabel(xnames + ("" if not centre else f"   (colour: {centre}; hatched: failed run; grey: no value)"))
    ax.set_ylabel(ynames + ("s, best ranked first" if ynames == "method" else "s"))
    return ax


def leaderboard_heatmap_figure(grid, **kw):
    """The heatmap as a figure in auditad's style (see `plot_leaderboard_heatmap`)."""
    with st.style_context():
        ax = plot_leaderboard_heatmap(grid, **kw)
    return ax.figure


def critical_difference_size(result) -> tuple:
    """(width, height) in inches of a new figure of `plot_critical_difference` (rows for labels and bars)."""
    k = result.n_methods
    n_rows = max(math.ceil(k / 2), k - math.ceil(k / 2))
    return 9.0, 1.6 + 0.28 * (n_rows + len(result.cliques()))


def plot_critical_difference(result, *, ax=None, title: str | None = None):
    """Draw the critical-difference diagram of a ranking (Demšar 2006, Fig. 1–2) and return the Axes.

    The axis carries the average ranks, turned so that the best ranks are on
    the right; each method hangs from its average rank (the better half
    labelled on the right, the other half on the left); the bar marked
    ``CD`` has the length of the Nemenyi critical difference; thick bars join
    groups of methods whose average ranks differ by less than CD (not
    significantly different).  A CD longer than the axis is drawn to the
    axis' end and labelled with its value.

    Artists carry ``gid`` values for inspection: ``"rank-axis"``, ``"cd-bar"``,
    ``"clique"`` (one line per group) and ``"method-line"`` (one per method).

    Parameters
    ----------
    result : RankingResult
    ax : matplotlib.axes.Axes, optional
        Drawn into a new figure when None.
    title : str, optional
        Default: the metric, k and N.

    Returns
    -------
    matplotlib.axes.Axes

    References
    ----------
    J. Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", Journal of Machine
    Learning Research 7, 1–30, 2006 (§3.2.2, Figures 1 and 2).

    See Also
    --------
    - [`auditad.leaderboards.rank_methods`][auditad.leaderboards.rank_methods]

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas as pd
    >>> from auditad.leaderboards import rank_methods
    >>> table = pd.DataFrame({"A": [0.90, 0.85, 0.70, 0.99, 0.80], "B": [0.80, 0.86, 0.65, 0.90, 0.78],
    ...                       "C": [0.70, 0.60, 0.66, 0.80, 0.60]})
    >>> from auditad.plotting import plot_critical_difference
    >>> ax = plot_critical_difference(rank_methods(table))
    >>> sorted(t.get_text().split(" (")[0] for t in ax.texts if t.get_gid() == "method-label")
    ['A', 'B', 'C']
    """
    from ..leaderboards.ranking import RankingResult

    if not isinstance(result, RankingResult):
        raise InvalidInputError(f"result must be a RankingResult (from rank_methods), got {type(result).__name__}")
    import matplotlib.pyplot as plt

    k = result.n_methods
    ranks = [float(r) for r in result.average_ranks]
    cliques = result.cliques()
    n_right = math.ceil(k / 2)
    n_rows = max(n_right, k - n_right)
    row_h = 1.0
    clique_gap = 0.35
    top_labels = -(0.8 + clique_gap * len(cliques))
    if ax is None:
        _, ax = plt.subplots(figsize=critical_difference_size(result))
    lo, hi = 1.0, float(k)
    span = hi - lo if hi > lo else 1.0
    left_edge, right_edge = hi + 0.18 * span, lo - 0.18 * span
    # the rank axis, best (1) on the right
    ax.plot([hi, lo], [0, 0], color="black", lw=1.2, gid="rank-axis")
    step = 1 if k <= 20 else (2 if k <= 40 else 5)
    ticks = list(range(1, k + 1, step))
    if ticks[-1] != k:
        ticks = [t for t in ticks if k - t >= step / 2] + [k]  # the last rank, without two labels overlapping
    for t in ticks:
        ax.plot([t, t], [0, 0.12], color="black", lw=1.0)
        ax.text(t, 0.22, str(t), ha="center", va="bottom", fontsize=8)
    # the CD bar above the axis, from the worst end
    cd = result.critical_difference
    end = max(lo, hi - cd)
    ax.plot([hi, end], [1.0, 1.0], color="black", lw=1.6, gid="cd-bar")
    for x in (hi, end):
        ax.plot([x, x], [0.9, 1.1], color="black", lw=1.0)
    label = f"CD = {cd:.2f}" + (" (longer than the axis)" if hi - cd < lo else "")
    ax.text((hi + end) / 2, 1.2, label, ha="center", va="bottom", fontsize=9)
    # the methods
    order = list(range(k))
    right = order[:n_right]  # best first, top row first
    left = list(reversed(order[n_right:]))  # worst first, top row first
    for side, members, edge, align in (("right", right, right_edge, "left"), ("left", left, left_edge, "right")):
        for row, i in enumerate(members):
            y = top_labels - row * row_h * 0.5
            ax.plot([ranks[i], ranks[i], edge], [0, y, y], color="0.25", lw=0.9, gid="method-line")
            ax.text(
                edge + (-0.01 * span if side == "right" else 0.01 * span),
                y,
                f"{result.methods[i]} ({ranks[i]:.2f})",
                ha=align,
                va="center",
                fontsize=8,
                gid="method-label",
            )
    # groups not significantly different
    index = {m: i for i, m in enumerate(result.methods)}
    for j, group in enumerate(cliques):
        a, b = ranks[index[group[0]]], ranks[index[group[-1]]]
        y = -0.45 - clique_gap * j
        ax.plot(
            [a + 0.03 * min(1.0, span / 10), b - 0.03 * min(1.0, span / 10)],
            [y, y],
            color="black",
            lw=3.0,
            solid_capstyle="round",
            gid="clique",
        )
    ax.set_xlim(left_edge + 0.35 * span, right_edge - 0.35 * span)
    ax.set_ylim(top_labels - (n_rows - 1) * row_h * 0.5 - 0.6, 1.9)
    ax.axis("off")
    f = result.friedman
    ax.set_title(
        title
        if title is not None
        else f"{result.metric}: k = {k}, N = {result.n_datasets}, Friedman p = {f.p_value:.2g}, "
        f"Iman–Davenport p = {f.iman_davenport_p_value:.2g}",
        fontsize=9,
    )
    return ax
