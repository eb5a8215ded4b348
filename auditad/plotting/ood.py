"""Figures of an OOD audit: placement and ID share per OOD set, and detector AUROC against the placement.

Presentation only: every number comes from an [`OODAuditResult`][auditad.ood.OODAuditResult]; nothing is
computed here.

References
----------
J. Yang, P. Wang, D. Zou, et al., "OpenOOD v1.5: Enhanced Benchmark for Out-of-Distribution Detection",
arXiv:2306.09301, 2023 (near and far OOD groups).
"""

from __future__ import annotations

from . import style as st

__all__ = ["plot_ood_placement", "plot_ood_id_share", "plot_ood_difficulty", "ood_figure"]


def _set_rows(result, ax, intervals, *, threshold, xlabel, with_group=False):
    """One row per OOD set (given order, top down): ``(value, low, high)`` of each, coloured by group."""
    import numpy as np

    ax = st.axes_or_new(ax, height=0.45 * len(result.sets) + 1.4)
    names = [s.name if s.group is None or not with_group else f"{s.name} ({s.group})" for s in result.sets]
    ypos = np.arange(len(names))[::-1]
    for y, (v, lo, hi), c in zip(ypos, intervals, _colors(result)):
        ax.plot([lo, hi], [y, y], color=c, linewidth=2.2, solid_capstyle="butt")
        ax.plot([v], [y], marker="o", color=c, markersize=5)
    ax.axvline(threshold, color="black", linestyle=(0, (3, 2)), linewidth=1)
    ax.set_yticks(ypos, names)
    ax.set_xlabel(xlabel)
    ax.set_ylim(-0.6, len(names) - 0.4)
    return ax


def _colors(result):
    groups = sorted({s.group for s in result.sets if s.group is not None})
    return [st.PALETTE[groups.index(s.group) + 1] if s.group in groups else st.PALETTE[0] for s in result.sets]


def plot_ood_placement(result, *, ax=None):
    """λ (chance-normalised ID share of the neighbourhoods) per OOD set, its interval and the near threshold.

    Parameters
    ----------
    result : OODAuditResult
    ax : matplotlib Axes, optional

    Returns
    -------
    Axes

    See Also
    --------
    - [`placement`][auditad.ood.contamination.placement]: the statistic.

    Examples
    --------
    >>> ax = plot_ood_placement(audit)  # doctest: +SKIP
    """
    p = [s.placement for s in result.sets]
    ax = _set_rows(
        result,
        ax,
        [(x.ratio, x.ratio_low, x.ratio_high) for x in p],
        threshold=p[0].threshold,
        xlabel="λ = ID share of the neighbourhoods / chance (1 = mixed with ID, 0 = apart)",
        with_group=True,
    )
    ax.set_xlim(left=0)
    ax.set_title("Near/far placement (dashed: near threshold)", loc="left")
    return ax


def plot_ood_id_share(result, *, ax=None, threshold: float = 0.05):
    """Estimated ID share per OOD set with its interval, and the threshold of the check.

    Parameters
    ----------
    result : OODAuditResult
    ax : matplotlib Axes, optional
    threshold : float
        Drawn as a dashed line.

    Returns
    -------
    Axes

    See Also
    --------
    - [`contamination`][auditad.ood.contamination.contamination]: the estimate.

    Examples
    --------
    >>> ax = plot_ood_id_share(audit)  # doctest: +SKIP
    """
    c = [s.contamination for s in result.sets]
    ax = _set_rows(
        result,
        ax,
        [(x.estimate, x.ci_low, x.ci_high) for x in c],
        threshold=threshold,
        xlabel="estimated share of ID rows in the OOD set",
    )
    ax.set_xlim(0, 1)
    ax.set_title("ID share of each OOD set (dashed: check threshold)", loc="left")
    return ax


def plot_ood_difficulty(result, *, detector: str | None = None, ax=None):
    """AUROC of a detector per OOD set against the set's λ, with both intervals and the set names.

    Parameters
    ----------
    result : OODAuditResult
    detector : str, optional
        Default: the first detector.
    ax : matplotlib Axes, optional

    Returns
    -------
    Axes

    See Also
    --------
    - [`detection_metrics`][auditad.ood.detection.detection_metrics]

    Examples
    --------
    >>> ax = plot_ood_difficulty(audit, detector="knn")  # doctest: +SKIP
    """
    ax = st.axes_or_new(ax, height=3.2, width=st.CONTENT_WIDTH_IN / 2)
    name = detector or result.sets[0].detectors[0].detector
    colors = _colors(result)
    xy = []
    for s, c in zip(result.sets, colors):
        d = next(x for x in s.detectors if x.detector == name)
        p = s.placement
        ax.errorbar(
            [p.ratio],
            [d.auroc],
            xerr=[[max(0.0, p.ratio - p.ratio_low)], [max(0.0, p.ratio_high - p.ratio)]],
            yerr=[[max(0.0, d.auroc - d.auroc_low)], [max(0.0, d.auroc_high - d.auroc)]],
            fmt="o",
            color=c,
            markersize=5,
            capsize=2,
        )
        xy.append((p.ratio, d.auroc, s.name))
    for x, y, label in xy:
        ax.annotate(label, (x, y), xytext=(4, 4), textcoords="offset points", fontsize=st.SMALL_PT)
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xlabel("λ (placement)")
    ax.set_ylabel(f"AUROC of {name}")
    ax.set_title(f"Detector {name}: AUROC against placement", loc="left")
    return ax


def ood_figure(result, *, threshold: float = 0.05):
    """Placement and ID share side by side, at the report's width.

    Examples
    --------
    >>> fig = ood_figure(audit)  # doctest: +SKIP
    """
    with st.style_context():
        fig, axes = st.new_figure(1, 2, panel_height=0.45 * len(result.sets) + 1.6)
        plot_ood_placement(result, ax=axes[0, 0])
        plot_ood_id_share(result, ax=axes[0, 1], threshold=threshold)
    return fig
