"""Figures of anomaly-free model selection: estimators and bounds against the AUROC.

References
----------
K. Wilkinghoff, Z.-H. Tan, "Can We Predict Anomaly Detection Performance from Embedding-Space Geometry?".
"""

from __future__ import annotations

from . import style as st
from .common import invalid_input

__all__ = ["plot_estimator_vs_auc", "plot_bound_vs_auc", "selection_figure"]


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
        raise invalid_input(f"estimator {estimator!r} is not in this result: {list(result.config['estimators'])}")
    ax = st.axes_or_new(ax, height=3.6, width=6.0)
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

    ax = st.axes_or_new(ax, height=3.6, width=6.0)
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
