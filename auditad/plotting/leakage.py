"""Figures of the neighbourhood class leakage L_k.

References
----------
"Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
"""

from __future__ import annotations

from . import style as st

__all__ = ["plot_leakage_curve", "leakage_curves_figure"]


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

    ax = st.axes_or_new(ax, height=3.0)
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
