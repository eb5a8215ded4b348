"""Figures of the TPR × TNR landscapes: one metric, the difference of two, the minimal TPR and the coverage.

References
----------
R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case of Anomaly
Detection".
"""

from __future__ import annotations

from . import style as st
from .common import metric_label, landscape_metric_index, metric_range, ratio_position

__all__ = [
    "plot_landscape",
    "plot_landscape_difference",
    "plot_minimal_tpr",
    "plot_coverage",
    "landscapes_figure",
    "landscape_differences_figure",
    "minimal_tpr_figure",
]


def plot_landscape(result, *, metric="auroc", ratio=None, ax=None, regions=False, colorbar=True, cmap="viridis"):
    """Landscape of one metric over TPR (x) × TNR (y) at one ratio, from a `LandscapeResult`.

    Labelled contours at ¼, ½ and ¾ of the metric's range; with ``regions``
    the regions R1–R5 of Hermary et al. (§V-D) are outlined and labelled on
    white boxes.

    Parameters
    ----------
    result : LandscapeResult
    metric : str, default "auroc"
    ratio : float or str, optional
        Ratio value or label (default: the first ratio of the result).
    ax : matplotlib Axes, optional
    regions : bool, default False
    colorbar : bool, default True
    cmap : str, default "viridis"

    Returns
    -------
    matplotlib.axes.Axes
    """
    from matplotlib import patheffects

    from ..landscapes import REGIONS

    ax = st.axes_or_new(ax, height=3.6, width=4.2)
    r = ratio_position(result, ratio)
    values = result.values[r, landscape_metric_index(result, metric)]
    lo, hi = metric_range(metric)
    im = ax.imshow(
        values.T,
        origin="lower",
        extent=(0, 1, 0, 1),
        vmin=lo,
        vmax=hi,
        cmap=cmap,
        aspect="equal",
        interpolation="nearest",
    )
    levels = [lo + (hi - lo) * f for f in (0.25, 0.5, 0.75)]
    cs = ax.contour(result.tpr, result.tnr, values.T, levels=levels, colors="white", linewidths=0.9)
    halo = [patheffects.withStroke(linewidth=2.2, foreground="black")]
    spots = []  # one label per contour, 35 % along it: away from the corner regions and from R5
    for path in cs.get_paths():
        if len(path.vertices):
            spots.append(tuple(path.vertices[int(0.35 * (len(path.vertices) - 1))]))
    for t in ax.clabel(
        cs, fmt=lambda v: f"{v:.2f}", fontsize=st.MIN_FONT_PT, inline=True, inline_spacing=2, manual=spots
    ):
        t.set_path_effects(halo)
    if regions:
        from matplotlib.patches import Rectangle

        for name, ((t0, t1), (n0, n1)) in REGIONS.items():
            ax.add_patch(
                Rectangle(
                    (t0, n0),
                    t1 - t0,
                    n1 - n0,
                    fill=False,
                    edgecolor="white",
                    linewidth=1.4,
                    path_effects=[patheffects.withStroke(linewidth=2.6, foreground="black")],
                )
            )
            cx, cy = (t0 + t1) / 2, (n0 + n1) / 2
            # corner regions: label beside the box, towards the middle; R5: label above its box
            dx = 0.0 if abs(cx - 0.5) < 0.2 else (0.14 if cx < 0.5 else -0.14)
            dy = 0.13 if abs(cy - 0.5) < 0.2 else (0.0 if dx else (0.14 if cy < 0.5 else -0.14))
            st.boxed_text(ax, cx + dx, cy + dy, name)
    if colorbar:
        ax.figure.colorbar(im, ax=ax, shrink=0.85)
    ax.set_xlabel("TPR")
    ax.set_ylabel("TNR")
    ax.set_title(f"{metric_label(metric)} at π = {result.labels[r]}")
    return ax


def plot_landscape_difference(result, *, metric="aupr_trap", ratio=None, ax=None, colorbar=True):
    """Difference map (ratio − reference) of one metric from a `LandscapeDifferenceResult`.

    Diverging colours centred at 0 (red = lower than at the reference ratio),
    with the zero contour drawn and labelled.

    Returns
    -------
    matplotlib.axes.Axes
    """
    import numpy as np

    ax = st.axes_or_new(ax, height=3.6, width=4.2)
    r = ratio_position(result, ratio)
    values = result.values[r, landscape_metric_index(result, metric)]
    vmax = max(float(np.max(np.abs(values))), 1e-6)
    im = ax.imshow(
        values.T,
        origin="lower",
        extent=(0, 1, 0, 1),
        vmin=-vmax,
        vmax=vmax,
        cmap="RdBu",
        aspect="equal",
        interpolation="nearest",
    )
    if min((values < 0).mean(), (values > 0).mean()) > 0.02:  # a zero line inside the map, not along its edge
        cs = ax.contour(result.tpr, result.tnr, values.T, levels=[0.0], colors="0.15", linewidths=0.9)
        ax.clabel(cs, fmt=lambda v: "0", fontsize=st.MIN_FONT_PT, inline=True)
    if colorbar:
        ax.figure.colorbar(im, ax=ax, shrink=0.85)
    ax.set_xlabel("TPR")
    ax.set_ylabel("TNR")
    ax.set_title(f"{metric_label(metric)}: π = {result.labels[r]} − π = {result.reference_ratio:g}")
    return ax


def plot_minimal_tpr(result, *, metric="auroc", ax=None, legend=True):
    """Minimal TPR (solid) and the TNR it needs (dashed) against the target score, per ratio (Hermary et al., Fig. 4).

    Takes a [`MinimalTprResult`][auditad.landscapes.MinimalTprResult].

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = st.axes_or_new(ax, height=3.2, width=6.0)
    k = landscape_metric_index(result, metric)
    for r, label in enumerate(result.labels):
        colour = st.PALETTE[r % len(st.PALETTE)]
        for line in (
            ax.plot(result.scores, result.min_tpr[r, k], color=colour, label=f"π = {label}")[0],
            ax.plot(result.scores, result.tnr_needed[r, k], color=colour, linestyle="--", linewidth=1.1)[0],
        ):
            st.clip_free(line)
    ax.set_xlabel(f"target {metric_label(metric)}")
    ax.set_ylabel("min. TPR (solid), TNR (dashed)")
    ax.set_ylim(0.0, 1.0)
    if legend:
        st.legend_outside(ax)
    return ax


def plot_coverage(result, *, metric="auroc", ax=None):
    """Share of the landscape area per score bin, per ratio (Hermary et al., App. B, Fig. 8); a ``CoverageResult``.

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = st.axes_or_new(ax, height=3.2, width=6.0)
    k = landscape_metric_index(result, metric)
    centers = (result.bin_edges[k, :-1] + result.bin_edges[k, 1:]) / 2
    for r, label in enumerate(result.labels):
        st.clip_free(
            ax.plot(
                centers,
                100 * result.coverage[r, k],
                marker="o",
                markersize=3,
                linewidth=1.2,
                color=st.PALETTE[r % len(st.PALETTE)],
                label=f"π = {label}",
            )[0]
        )
    ax.set_xlabel(f"{metric_label(metric)} bin")
    ax.set_ylabel("share of the area (%)")
    ax.set_ylim(bottom=0)
    st.legend_outside(ax)
    return ax


def landscapes_figure(result, *, ratio=None, regions_on="auroc"):
    """Report figure: every metric's landscape at one ratio in a row; regions R1–R5 on ``regions_on``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    metrics = list(result.metrics)
    with st.style_context():
        fig, axes = st.new_figure(1, len(metrics), height=st.CONTENT_WIDTH_IN / len(metrics) + 0.5)
        for ax, m in zip(axes[0], metrics):
            plot_landscape(result, metric=m, ratio=ratio, ax=ax, regions=(m == regions_on), colorbar=False)
        import matplotlib.cm as cm
        from matplotlib.colors import Normalize

        lo, hi = metric_range(metrics[0])
        fig.colorbar(cm.ScalarMappable(Normalize(lo, hi), "viridis"), ax=list(axes[0]), shrink=0.8, aspect=25)
    return fig


def landscape_differences_figure(result, *, ratio=None, metrics=None):
    """Report figure: difference maps (ratio − reference) of the metrics that depend on the ratio, in a row.

    Returns
    -------
    matplotlib.figure.Figure
    """
    metrics = [m for m in (metrics or result.metrics) if m != "auroc"] or list(result.metrics)
    with st.style_context():
        fig, axes = st.new_figure(1, len(metrics), height=min(st.CONTENT_WIDTH_IN / len(metrics) - 0.6, 3.6) + 0.4)
        for ax, m in zip(axes[0], metrics):
            plot_landscape_difference(result, metric=m, ratio=ratio, ax=ax)
    return fig


def minimal_tpr_figure(result):
    """Report figure: minimal TPR and needed TNR per metric in a row, one legend above.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.lines import Line2D

    metrics = list(result.metrics)
    with st.style_context():
        fig, axes = st.new_figure(1, len(metrics), height=3.3)
        for i, (ax, m) in enumerate(zip(axes[0], metrics)):
            plot_minimal_tpr(result, metric=m, ax=ax, legend=False)
            ax.set_title(metric_label(m))
            ax.set_xlabel(f"target {metric_label(m)}")
            if i:
                ax.set_ylabel("")
        handles, labels = axes[0, 0].get_legend_handles_labels()
        handles += [Line2D([], [], color="0.3"), Line2D([], [], color="0.3", linestyle="--")]
        labels += ["minimal TPR", "TNR it then needs"]
        fig.legend(handles, labels, loc="outside upper center", ncol=len(handles), frameon=False)
    return fig
