"""Figures of the random-baseline (null) distributions.

References
----------
R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case of Anomaly
Detection".
"""

from __future__ import annotations

from . import style as st
from .common import metric_label, metric_range

__all__ = ["plot_null_sweep", "plot_null", "nulls_figure"]


def plot_null_sweep(result, *, metrics=None, ax=None):
    """Null mean ± std (band) and mean + mean positive deviation (dotted) against the anomaly ratio.

    The x axis runs from positive-majority (left) to negative-majority (right),
    as in Figure 1 of Hermary et al. Takes a [`NullSweepResult`][auditad.nulls.NullSweepResult].

    Returns
    -------
    matplotlib.axes.Axes
    """
    import numpy as np

    ax = st.axes_or_new(ax, height=3.8)
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
        ax.plot(x, mean, color=color, label=metric_label(name))
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
    ax = st.axes_or_new(ax, height=3.0, width=6.0)
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
    lo, hi = metric_range(null.metric)
    ax.set_xlim(max(lo, min(xs) - 0.05 * span), min(hi, max(xs) + 0.05 * span))
    ax.set_ylim(0, float(prob.max()) * 1.08 if prob.size else 1)
    ax.set_xlabel(metric_label(null.metric))
    ax.set_ylabel("probability")
    if obs:
        ax.set_title(obs)
    if legend:
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
