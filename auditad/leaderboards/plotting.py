"""The critical-difference diagram of Demšar (2006) for a [`RankingResult`][auditad.leaderboards.RankingResult].

Presentation only: every number comes from the result (average ranks, CD,
[`cliques`][auditad.leaderboards.RankingResult.cliques]).
"""

from __future__ import annotations

import math

from ..errors import InvalidInputError
from .ranking import RankingResult

__all__ = ["plot_critical_difference", "critical_difference_size"]


def critical_difference_size(result: RankingResult) -> tuple:
    """(width, height) in inches of a new figure of `plot_critical_difference` (rows for labels and bars)."""
    k = result.n_methods
    n_rows = max(math.ceil(k / 2), k - math.ceil(k / 2))
    return 9.0, 1.6 + 0.28 * (n_rows + len(result.cliques()))


def plot_critical_difference(result: RankingResult, *, ax=None, title: str | None = None):
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
    >>> ax = plot_critical_difference(rank_methods(table))
    >>> sorted(t.get_text().split(" (")[0] for t in ax.texts if t.get_gid() == "method-label")
    ['A', 'B', 'C']
    """
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
