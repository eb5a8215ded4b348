"""Figures of the time-series evaluation audit: each metric's random null at a series' own labels, with the
trivial baselines and the observed or published values drawn against it.

Presentation only: the quantiles and baselines come from the audit's result objects
([`SeriesAudit`][auditad.timeseries.SeriesAudit], `MetricNull`).

References
----------
S. Kim, K. Choi, H.-S. Choi, B. Lee, S. Yoon, "Towards a Rigorous Evaluation of Time-Series Anomaly
Detection", AAAI 2022 (random scores under point adjustment).
"""

from __future__ import annotations

from . import style as st
from ..timeseries.findings import METRIC_LABELS

__all__ = ["plot_series_nulls", "timeseries_nulls_figure", "MAX_SERIES_PANELS"]

#: Most series drawn in the report's figure (the first ones, in the order of the labels).
MAX_SERIES_PANELS = 12

#: The metrics drawn, in order (their null is in the audit).
_DRAWN = ("f1", "pa_f1", "pa_k_area", "composite_f1", "range_f1", "vus_roc", "vus_pr", "affiliation_f1")


def plot_series_nulls(series_audit, values=(), *, ax=None):
    """One series: per metric, the random null (1–99 % range, 5–95 % bar, mean) and the flag-all value.

    Parameters
    ----------
    series_audit : SeriesAudit
    values : sequence of (label, metric, value)
        Observed or published values to mark (e.g. ``("AnomalyTransformer", "pa_f1", 0.95)``).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    See Also
    --------
    - [`timeseries_nulls_figure`][auditad.plotting.timeseries.timeseries_nulls_figure]
    - [`auditad.timeseries.random_null`][auditad.timeseries.random_null]

    Examples
    --------
    >>> import numpy as np
    >>> from auditad.timeseries import audit_timeseries
    >>> y = np.zeros(500, dtype=int); y[100:150] = 1
    >>> a = audit_timeseries({"toy": y}, n_draws=20, range_draws=0)
    >>> ax = plot_series_nulls(a.series["toy"], [("mine", "pa_f1", 0.9)])
    >>> [t.get_text() for t in ax.get_yticklabels()][:2]
    ['F1 (point-wise)', 'PA-F1']
    """
    ax = st.axes_or_new(ax, height=2.6)
    metrics = [m for m in _DRAWN if m in series_audit.best]
    flag_all = series_audit.trivial["flag_all"]
    for i, m in enumerate(metrics):
        n = series_audit.best[m]
        ax.plot([n.quantile(0.01), n.quantile(0.99)], [i, i], color=st.PALETTE[0], lw=1.2)
        ax.plot(
            [n.quantile(0.05), n.quantile(0.95)], [i, i], color=st.PALETTE[0], lw=5, alpha=0.55, solid_capstyle="butt"
        )
        ax.plot(
            [n.mean],
            [i],
            marker="|",
            color=st.PALETTE[0],
            ms=12,
            mew=2,
            label="random scores, best threshold" if i == 0 else None,
        )
        ax.plot(
            [flag_all[m]],
            [i],
            marker="D",
            ls="none",
            color=st.PALETTE[1],
            ms=6,
            label="flag every point" if i == 0 else None,
        )
    seen = {}
    for label, metric, value in values:
        if metric not in metrics:
            continue
        first = label not in seen
        j = seen.setdefault(label, len(seen))
        marks = [m for m in st.MARKERS if m != "D"]  # the diamond is flag-all's
        ax.plot(
            [value],
            [metrics.index(metric) + 0.22],
            marker=marks[(2 + j) % len(marks)],
            ls="none",
            color=st.PALETTE[(2 + j) % len(st.PALETTE)],
            ms=6,
            label=label if first else None,
        )
    ax.set_yticks(range(len(metrics)), [METRIC_LABELS[m] for m in metrics])
    ax.set_ylim(len(metrics) - 0.5, -0.6)
    ax.set_xlim(0, 1.0)
    ax.set_xlabel("metric value")
    ax.set_title(
        f"{series_audit.name}: p = {series_audit.structure.ratio:.3f}, {series_audit.structure.n_segments} segments"
    )
    ax.grid(axis="x", alpha=0.3)
    return ax


def timeseries_nulls_figure(audit, *, max_series: int = MAX_SERIES_PANELS):
    """The report's figure: one panel per series (at most ``max_series``) with the detectors' and published values.

    See Also
    --------
    - [`plot_series_nulls`][auditad.plotting.timeseries.plot_series_nulls]

    Examples
    --------
    >>> import numpy as np
    >>> from auditad.timeseries import audit_timeseries
    >>> y = np.zeros(500, dtype=int); y[100:150] = 1
    >>> fig = timeseries_nulls_figure(audit_timeseries({"toy": y}, n_draws=20, range_draws=0))
    >>> len(fig.axes)
    1
    """
    names = list(audit.series)[:max_series]
    with st.style_context():
        fig, axes = st.new_figure(len(names), 1, panel_height=2.3)
        for ax, name in zip(axes[:, 0], names):
            values = [
                (d["detector"], m, d[m]) for d in audit.detectors if d["series"] == name for m in _DRAWN if m in d
            ]
            values += [(r["method"], r["metric"], r["value"]) for r in audit.results if r["dataset"] == name]
            plot_series_nulls(audit.series[name], values, ax=ax)
            st.legend_outside(ax, where="right")
    return fig
