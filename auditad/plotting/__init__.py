"""Plots of auditad results.

Two levels:

* ``plot_*(result, ..., ax=None) -> Axes`` draws one panel on a given Axes
  (or on a new figure of the report's width);
* ``*_figure(...) -> Figure`` composes the panels of one report figure at the
  report's content width (a row or grid of small multiples), inside the
  figure style of `auditad.plotting.style`.

Plotting never computes statistics; matplotlib is imported inside the
functions, and no pyplot state is touched (figures are
`matplotlib.figure.Figure` objects).

References
----------
1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly
   Detection" (leakage, class-split protocol).
2. R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under
   the Imbalanced Case of Anomaly Detection" (nulls, landscapes).
3. K. Wilkinghoff, Z.-H. Tan, "Can We Predict Anomaly Detection Performance
   from Embedding-Space Geometry?" (anomaly-free model selection).
"""

from __future__ import annotations

from . import style as st
from .protocol import (
    leakage_vs_auroc_figure,
    plot_leakage_vs_auroc,
    plot_protocol_heatmap,
    plot_protocol_profile,
    protocol_heatmap_figure,
    protocol_profile_figure,
)
from .leaderboards import leaderboard_heatmap_figure, plot_leaderboard_heatmap

__all__ = [
    "plot_protocol_heatmap",
    "plot_leakage_vs_auroc",
    "plot_protocol_profile",
    "plot_landscape",
    "plot_landscape_difference",
    "plot_null_sweep",
    "plot_null",
    "plot_minimal_tpr",
    "plot_coverage",
    "plot_estimator_vs_auc",
    "plot_bound_vs_auc",
    "plot_leakage_curve",
    "leakage_curves_figure",
    "protocol_heatmap_figure",
    "protocol_profile_figure",
    "leakage_vs_auroc_figure",
    "nulls_figure",
    "landscapes_figure",
    "landscape_differences_figure",
    "minimal_tpr_figure",
    "selection_figure",
    "plot_leaderboard_heatmap",
    "leaderboard_heatmap_figure",
]

_METRIC_LABELS = {
    "auroc": "AUROC",
    "ap": "AP",
    "aupr_trap": "AUPR (trapezoid)",
    "f1": "F1",
    "mcc": "MCC",
    "mcc_scaled": "MCC (scaled)",
}


def _label(metric: str) -> str:
    return _METRIC_LABELS.get(metric, metric)


def _axes(ax, *, height: float = 3.4, width: float | None = None):
    """The given Axes, or one on a new figure in the auditad style."""
    return st.axes_or_new(ax, height=height, width=width)


def _invalid(message: str):
    from ..errors import InvalidInputError

    return InvalidInputError(message)


def _metric_index(result, metric) -> int:
    """Position of ``metric`` in a landscape-type result (`auditad.landscapes.metric_index`)."""
    from ..landscapes import metric_index

    return metric_index(tuple(result.metrics), metric)


def _metric_range(metric: str) -> tuple[float, float]:
    from ..landscapes import metric_range

    return metric_range(metric)


def _pick_ratio(result, ratio) -> int:
    """Position of a ratio (value or label; None: the first) (`auditad.landscapes.ratio_index`)."""
    if ratio is None:
        return 0
    from ..landscapes import ratio_index

    return ratio_index(result.ratios, tuple(result.labels), ratio)


# --------------------------------------------------------------------------- class-split protocol [1]
# --------------------------------------------------------------------------- landscapes and nulls [2]
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

    ax = _axes(ax, height=3.6, width=4.2)
    r = _pick_ratio(result, ratio)
    values = result.values[r, _metric_index(result, metric)]
    lo, hi = _metric_range(metric)
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
    ax.set_title(f"{_label(metric)} at π = {result.labels[r]}")
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

    ax = _axes(ax, height=3.6, width=4.2)
    r = _pick_ratio(result, ratio)
    values = result.values[r, _metric_index(result, metric)]
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
    ax.set_title(f"{_label(metric)}: π = {result.labels[r]} − π = {result.reference_ratio:g}")
    return ax


def plot_null_sweep(result, *, metrics=None, ax=None):
    """Null mean ± std (band) and mean + mean positive deviation (dotted) against the anomaly ratio.

    The x axis runs from positive-majority (left) to negative-majority (right),
    as in Figure 1 of Hermary et al. Takes a [`NullSweepResult`][auditad.nulls.NullSweepResult].

    Returns
    -------
    matplotlib.axes.Axes
    """
    import numpy as np

    ax = _axes(ax, height=3.8)
    names = result.results[0].metrics if metrics is None else tuple(metrics)
    x = np.array([r.ratio for r in result.results])
    order = np.argsort(x)
    x = x[order]
    for k, name in enumerate(names):
        nulls = [result.results[i][name] for i in order]
        mean = np.array([n.mean for n in nulls])
        std = np.array([n.std for n in nulls])
        mpd = np.array([n.mean_positive_deviation for n in nulls])
        color = st.PALETTE[k % len(st.PALETTE)]
        ax.plot(x, mean, color=color, label=_label(name))
        ax.fill_between(x, mean - std, mean + std, color=color, alpha=0.18, linewidth=0)
        ax.plot(x, mean + mpd, color=color, linestyle=":", linewidth=1.0)
    ax.set_xlim(x.max(), x.min())
    ax.set_xlabel("anomaly ratio π (positive share)")
    ax.set_ylabel("score under random predictions")
    ax.set_title(f"Random baselines, n = {result.n} (band: ± std, dotted: mean + mean positive deviation)")
    st.legend_outside(ax)
    return ax


def _null_lines(null):
    from .._format import stat
    from ..nulls import format_p_value

    lines = [
        (null.mean, {"color": "black", "linewidth": 1.0}, "null mean"),
        (null.q95, {"color": st.PALETTE[1], "linestyle": "--", "linewidth": 1.2}, "95 % quantile"),
        (null.q99, {"color": st.PALETTE[5], "linestyle": "--", "linewidth": 1.2}, "99 % quantile"),
    ]
    obs = None
    if null.observed == null.observed:
        p = format_p_value(null.p_value, null.log10_p, null.p_upper_bound)
        obs = f"observed {stat(null.observed)}, p {p if p.startswith(('<', '≤')) else '= ' + p}"
        lines.append((null.observed, {"color": st.PALETTE[0], "linewidth": 2.2}, "observed"))
    return lines, obs


def plot_null(result, *, metric="auroc", ax=None, legend=True):
    """An observed score placed on its null distribution (a `NullResult` or ``MetricNull``).

    Filled steps: the null's probability mass per bin; lines: mean, 95 % and
    99 % quantiles and the observed score (its value and p-value in the
    title). The score axis stays inside the metric's range.

    Returns
    -------
    matplotlib.axes.Axes
    """
    import numpy as np

    null = result[metric] if hasattr(result, "nulls") else result
    ax = _axes(ax, height=3.0, width=6.0)
    edges, prob = np.asarray(null.hist_edges), np.asarray(null.hist_prob)
    ax.stairs(
        prob,
        edges,
        fill=True,
        color="0.72",
        label=f"null ({null.method}{', ' + str(null.runs) + ' runs' if null.runs else ''})",
    )
    lines, obs = _null_lines(null)
    for x, kw, label in lines:
        ax.axvline(x, label=label, **kw)
    xs = [edges[0], edges[-1]] + [x for x, _, _ in lines]
    span = max(xs) - min(xs)
    lo, hi = _metric_range(null.metric)
    ax.set_xlim(max(lo, min(xs) - 0.05 * span), min(hi, max(xs) + 0.05 * span))
    ax.set_ylim(0, float(prob.max()) * 1.08 if prob.size else 1)
    ax.set_xlabel(_label(null.metric))
    ax.set_ylabel("probability")
    if obs:
        ax.set_title(obs)
    if legend:
        st.legend_outside(ax)
    return ax


def plot_minimal_tpr(result, *, metric="auroc", ax=None, legend=True):
    """Minimal TPR (solid) and the TNR it needs (dashed) against the target score, per ratio (Hermary et al., Fig. 4).

    Takes a [`MinimalTprResult`][auditad.landscapes.MinimalTprResult].

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = _axes(ax, height=3.2, width=6.0)
    k = _metric_index(result, metric)
    for r, label in enumerate(result.labels):
        colour = st.PALETTE[r % len(st.PALETTE)]
        for line in (
            ax.plot(result.scores, result.min_tpr[r, k], color=colour, label=f"π = {label}")[0],
            ax.plot(result.scores, result.tnr_needed[r, k], color=colour, linestyle="--", linewidth=1.1)[0],
        ):
            st.clip_free(line)
    ax.set_xlabel(f"target {_label(metric)}")
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
    ax = _axes(ax, height=3.2, width=6.0)
    k = _metric_index(result, metric)
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
    ax.set_xlabel(f"{_label(metric)} bin")
    ax.set_ylabel("share of the area (%)")
    ax.set_ylim(bottom=0)
    st.legend_outside(ax)
    return ax


def nulls_figure(nulls, *, metric="auroc", max_panels=12, ncol=4):
    """Report figure: a grid of null distributions (one panel per class), one legend above.

    Parameters
    ----------
    nulls : mapping of class -> NullResult
    metric : str, default "auroc"
    max_panels : int, default 12
        Only the first ``max_panels`` classes are drawn.
    ncol : int, default 4

    Returns
    -------
    matplotlib.figure.Figure
    """
    items = list(nulls.items())[:max_panels]
    ncol = max(1, min(ncol, len(items)))
    nrow = -(-len(items) // ncol)
    with st.style_context():
        fig, axes = st.new_figure(nrow, ncol, panel_height=2.35, height=2.35 * nrow + 0.6)
        flat = axes.ravel()
        for i, (c, nr) in enumerate(items):
            ax = plot_null(nr, metric=metric, ax=flat[i], legend=False)
            obs = ax.get_title()
            ax.set_title(
                f"class {c}: n+ = {nr.n_pos}, n− = {nr.n_neg}" + (f"\n{obs}" if obs else ""), fontsize=st.SMALL_PT
            )
            if i % ncol:
                ax.set_ylabel("")
        for ax in flat[len(items) :]:
            ax.set_visible(False)
        handles, labels = flat[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside upper center", ncol=len(handles), frameon=False)
    return fig


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

        lo, hi = _metric_range(metrics[0])
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
            ax.set_title(_label(m))
            ax.set_xlabel(f"target {_label(m)}")
            if i:
                ax.set_ylabel("")
        handles, labels = axes[0, 0].get_legend_handles_labels()
        handles += [Line2D([], [], color="0.3"), Line2D([], [], color="0.3", linestyle="--")]
        labels += ["minimal TPR", "TNR it then needs"]
        fig.legend(handles, labels, loc="outside upper center", ncol=len(handles), frameon=False)
    return fig


# --------------------------------------------------------------------------- anomaly-free model selection [3]
def _families(values) -> dict:
    """Family -> (colour, marker), in order of first appearance."""
    order = list(dict.fromkeys(values))
    return {f: (st.PALETTE[i % len(st.PALETTE)], st.MARKERS[i % len(st.MARKERS)]) for i, f in enumerate(order)}


def _scatter_families(ax, data, *, size):
    """Scatter (family, x, y) triples: the most numerous family first, so that smaller ones stay visible on top."""
    import numpy as np

    style = _families([d[0] for d in data])
    counts = {f: sum(1 for d in data if d[0] == f) for f in style}
    for fam in sorted(style, key=lambda f: -counts[f]):
        colour, marker = style[fam]
        pts = np.array([(x, y) for f, x, y in data if f == fam], dtype=float).reshape(-1, 2)
        pts = pts[np.isfinite(pts).all(axis=1)]
        if len(pts):  # families with nothing to draw get no legend entry
            st.clip_free(
                ax.scatter(
                    pts[:, 0],
                    pts[:, 1],
                    s=size,
                    color=colour,
                    marker=marker,
                    label=fam,
                    alpha=0.75,
                    edgecolors="white",
                    linewidths=0.4,
                )
            )
    handles, labels = ax.get_legend_handles_labels()
    order = [labels.index(f) for f in style if f in labels]  # legend in first-appearance order
    return [handles[i] for i in order], [labels[i] for i in order]


def plot_estimator_vs_auc(result, *, estimator=None, ax=None, per_task=False, legend=True):
    """Estimator against true AUC per candidate, by representation family (Wilkinghoff & Tan, Fig. 2).

    Families differ in colour and marker; the legend lists only the families
    drawn. The AUC axis stays inside [0, 1].

    Parameters
    ----------
    result : auditad.selection.SelectionResult
    estimator : str, optional
        Estimator label, e.g. ``"pseudo_auc[diverse]"`` (default: the last estimator of the run).
    ax : matplotlib Axes, optional
    per_task : bool, default False
        False: one point per candidate (means over tasks, from
        [`candidate_summary_frame`][auditad.selection.SelectionResult.candidate_summary_frame]);
        True: one point per (task, candidate).
    legend : bool, default True

    Returns
    -------
    matplotlib.axes.Axes
    """
    from ..selection import pretty_label

    estimator = estimator or result.config["estimators"][-1]
    if estimator not in result.config["estimators"]:
        raise _invalid(f"estimator {estimator!r} is not in this result: {list(result.config['estimators'])}")
    ax = _axes(ax, height=3.6, width=6.0)
    if per_task:
        rows = [r for r in result.estimates if r["estimator"] == estimator]
        data = [(r["family"], r["value"], r["true_auc"]) for r in rows]
    else:
        frame = result.candidate_summary_frame()
        data = list(zip(frame["family"], frame[estimator], frame["true_auc"]))
    handles, labels = _scatter_families(ax, data, size=18 if per_task else 32)
    if estimator == "inlier_variance":
        ax.set_xscale("log")
    st.unit_interval(ax, "y", values=[d[2] for d in data])
    ax.set_xlabel(pretty_label(estimator) + (" (per task)" if per_task else " (mean over tasks)"))
    ax.set_ylabel("true AUC" + (" (per task)" if per_task else " (mean over tasks)"))
    if legend:
        st.legend_outside(ax, handles=handles, labels=labels, title="family")
    return ax


def plot_bound_vs_auc(result, *, robust=False, ax=None, legend=True):
    r"""Eq. 1 bound (or the robust App. A.1 bound) of the true test scores against the empirical AUC.

    One point per (task, candidate) with labelled test data, by family; with
    population moments every point with \(\mu_\Delta > 0\) lies on or
    below the diagonal. Points with \(\mu_\Delta \le 0\) (where the
    bound says nothing) are drawn hollow. Both axes stay inside [0, 1].

    Returns
    -------
    matplotlib.axes.Axes
    """
    import numpy as np

    ax = _axes(ax, height=3.6, width=6.0)
    key = "true_robust_bound" if robust else "true_bound"
    rows = [r for r in result.candidates if r.get("true_auc") is not None and r["true_auc"] == r["true_auc"]]
    handles, labels = _scatter_families(
        ax, [(r["family"], r["true_auc"], r[key]) for r in rows if r["true_mu_delta"] > 0], size=18
    )
    style = _families([r["family"] for r in rows])
    neg = [r for r in rows if r["true_mu_delta"] <= 0]
    for fam, (colour, marker) in style.items():
        pts = [(r["true_auc"], r[key]) for r in neg if r["family"] == fam]
        if pts:
            ax.scatter(*zip(*pts), s=18, facecolors="none", edgecolors=colour, marker=marker)
    vals = np.array([[r["true_auc"], r[key]] for r in rows], dtype=float).reshape(-1, 2)
    vals = vals[np.isfinite(vals)]
    lo = max(0.0, float(vals.min()) - 0.05) if vals.size else 0.0
    ax.plot([lo, 1], [lo, 1], color="0.5", linewidth=0.8, linestyle="--", label="bound = AUC")
    ax.set_xlim(lo, 1.0)
    ax.set_ylim(lo, 1.0)
    ax.set_xlabel("empirical AUC (test set)")
    ax.set_ylabel("robust bound (App. A.1)" if robust else "AUC bound (Eq. 1)")
    if legend:
        st.legend_outside(ax, handles=handles, labels=labels, title="family")
    return ax


def selection_figure(result, *, estimator=None):
    """Report figure: estimator vs true AUC (left) and the Eq. 1 bound vs the empirical AUC (right), one legend.

    Returns
    -------
    matplotlib.figure.Figure
    """
    with st.style_context():
        fig, axes = st.new_figure(1, 2, height=3.9)
        plot_estimator_vs_auc(result, estimator=estimator, ax=axes[0, 0], legend=False)
        plot_bound_vs_auc(result, ax=axes[0, 1], legend=True)
    return fig


# --------------------------------------------------------------------------- leakage [1]
def plot_leakage_curve(result, *, ax=None, label=None, color=None, chance=True):
    """Leakage L_k against k from a [`LeakageResult`][auditad.leakage.LeakageResult].

    Call it once per representation on the same ``ax`` to compare them. The
    y axis starts at exactly 0 and curves are drawn over the axis, so that
    L_k = 0 stays visible; the chance level (the L_k of randomly drawn
    neighbours) is a dotted line when it is within 3 times the largest L_k
    drawn, else it is named in the legend only (it would flatten the curves).

    Parameters
    ----------
    result : LeakageResult
        Computed with several ``k``.
    ax : matplotlib Axes, optional
    label : str, optional
        Legend label of the curve (default: "L_k").
    color : str, optional
    chance : bool, default True

    Returns
    -------
    matplotlib.axes.Axes
    """
    import numpy as np
    from matplotlib.lines import Line2D

    ax = _axes(ax, height=3.0)
    order = np.argsort(np.asarray(result.ks))
    ks = np.asarray(result.ks)[order]
    values = np.asarray(result.L, dtype=float)[order]
    n = len(ax.lines)
    (line,) = ax.plot(
        ks, values, marker=st.MARKERS[n % len(st.MARKERS)], markersize=5, color=color, label=label or "L_k"
    )
    st.clip_free(line)
    line.set_zorder(4)
    drawn = (
        np.concatenate([np.asarray(ln.get_ydata(), dtype=float) for ln in ax.lines if not ln.get_gid() == "chance"])
        if ax.lines
        else values
    )
    top = float(np.nanmax(drawn)) if np.isfinite(drawn).any() else 0.0
    if chance:
        if result.chance <= 3 * max(top, 0.01):
            ax.axhline(
                result.chance,
                color="0.35",
                linestyle=":",
                linewidth=1.2,
                label=f"chance {result.chance:.3f}",
                gid="chance",
            )
        else:
            ax.add_line(
                Line2D(
                    [],
                    [],
                    color="0.35",
                    linestyle=":",
                    label=f"chance {result.chance:.3f} (above the axis)",
                    gid="chance",
                )
            )
    shown = [ln.get_ydata()[0] for ln in ax.lines if ln.get_gid() == "chance" and len(ln.get_ydata())]
    st.nonnegative(ax, "y", values=list(drawn) + [float(v) for v in shown], floor_top=0.05, margin=0.15)
    ax.set_xlabel("k (neighbours)")
    ax.set_ylabel("leakage L_k")
    ax.set_xticks(sorted(set(int(t) for ln in ax.lines if ln.get_gid() != "chance" for t in ln.get_xdata())))
    ax.grid(axis="y")
    handles, labels = ax.get_legend_handles_labels()
    order = sorted(range(len(labels)), key=lambda i: labels[i].startswith("chance"))  # curves first, chance last
    st.legend_outside(ax, handles=[handles[i] for i in order], labels=[labels[i] for i in order])
    return ax


def leakage_curves_figure(results):
    """Report figure: L_k against k for every representation (a mapping name -> LeakageResult), full width.

    Returns
    -------
    matplotlib.figure.Figure
    """
    with st.style_context():
        fig, axes = st.new_figure(1, 1, height=3.0)
        for i, (rep, r) in enumerate(results.items()):
            plot_leakage_curve(r, ax=axes[0, 0], label=rep, color=st.PALETTE[i % len(st.PALETTE)], chance=(i == 0))
    return fig
