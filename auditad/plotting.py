"""Plots of auditad results: each function takes a Result (+ ``ax=None``) and returns an Axes.

Plotting never computes statistics; matplotlib is imported inside the
functions, and without ``ax`` a new :class:`matplotlib.figure.Figure` is made
(no pyplot state is touched).
"""

from __future__ import annotations


# --------------------------------------------------------------------------- protocol (class-split audit, SPEC §2)
def _protocol_rows(result, representation, detector=None):
    rep = result.representation_names[0] if representation is None else representation
    if rep not in result.representation_names:
        from .errors import InvalidInputError

        raise InvalidInputError(f"representation must be one of {list(result.representation_names)}, got {rep!r}")
    rows = [r for r in result.per_class_rows if r["representation"] == rep
            and (detector is None or r["detector"] == detector)]
    return rep, rows


def plot_protocol_heatmap(result, *, representation=None, ax=None, annotate=True):
    """Class × detector heatmap of AUROC(c) from a :class:`~auditad.protocol.ProtocolResult`.

    Rows are the held-out classes, columns the detectors plus their mean; the
    diverging colour scale is centred at AUROC = ½ (blue above, red below =
    inverted). Cells inside the near-random band ``|AUROC − ½| ≤ ε`` are
    hatched. The title gives ε and the detector-averaged ρ_inv and ρ_dir.

    Parameters
    ----------
    result : ProtocolResult
    representation : str, optional
        Default: the first representation.
    ax : matplotlib Axes, optional
    annotate : bool, default True
        Write the AUROC into each cell.

    Returns
    -------
    matplotlib.axes.Axes
    """
    import numpy as np
    from matplotlib.patches import Rectangle

    ax = _protocol_axes(ax, figsize=(1.2 + 1.1 * (len(result.detector_names) + 1),
                                     1.2 + 0.45 * len(result.classes)))
    rep, rows = _protocol_rows(result, representation)
    dets = list(result.detector_names) + ["mean"]
    classes = [c.item() for c in result.classes]
    grid = np.full((len(classes), len(dets)), np.nan)
    near = np.zeros_like(grid, dtype=bool)
    for row in rows:
        i, j = classes.index(row["class"]), dets.index(row["detector"])
        grid[i, j] = row["auroc"]
        near[i, j] = row["near_random"]
    im = ax.imshow(np.ma.masked_invalid(grid), cmap="RdBu", vmin=0.0, vmax=1.0, aspect="auto")
    ax.figure.colorbar(im, ax=ax, label="AUROC(c)")
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            if near[i, j]:
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="//", edgecolor="0.4", lw=0))
            if annotate:
                text = "n/a" if np.isnan(grid[i, j]) else f"{grid[i, j]:.2f}"
                dark = np.isfinite(grid[i, j]) and abs(grid[i, j] - 0.5) > 0.3
                ax.text(j, i, text, ha="center", va="center", fontsize=8, color="white" if dark else "black")
    ax.set_xticks(range(len(dets)), dets)
    ax.set_yticks(range(len(classes)), [str(c) for c in classes])
    ax.set_xlabel("detector")
    ax.set_ylabel("held-out class" if result.protocol == "leave_one_class_out" else "normal class")
    mean = result.summary(rep, "mean")
    ax.set_title(f"{rep}: AUROC per class (ε = {result.epsilon:g}, ρ_inv = {mean['rho_inv']:.2f}, "
                 f"ρ_dir = {mean['rho_dir']:.2f})", fontsize=9)
    return ax


def plot_leakage_vs_auroc(result, *, representation=None, detector="mean", ax=None):
    """Per-class leakage L_k(c) against AUROC(c) from a :class:`~auditad.protocol.ProtocolResult`.

    One point per class (labelled), the chance line AUROC = ½ with its
    near-random band ±ε, and the Spearman rank correlation in the title.
    Needs a result computed with ``leakage_k`` set.

    Parameters
    ----------
    result : ProtocolResult
    representation : str, optional
    detector : str, default "mean"
        A detector name or ``"mean"`` (detector-averaged AUROC).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    import numpy as np

    from .errors import InvalidInputError

    if result.leakage_k is None:
        raise InvalidInputError("the result has no leakage: run audit_protocol with leakage_k set")
    if detector not in list(result.detector_names) + ["mean"]:
        raise InvalidInputError(f"detector must be one of {list(result.detector_names) + ['mean']}, got {detector!r}")
    ax = _protocol_axes(ax, figsize=(5.0, 4.0))
    rep, rows = _protocol_rows(result, representation, detector)
    L = np.array([r["leakage"] for r in rows], dtype=float)
    A = np.array([r["auroc"] for r in rows], dtype=float)
    eps = result.epsilon
    ax.axhspan(0.5 - eps, 0.5 + eps, color="0.85", zorder=0, label=f"near random (±ε = {eps:g})")
    ax.axhline(0.5, color="0.4", lw=0.8, ls="--")
    colors = ["tab:red" if r["inverted"] else "tab:blue" for r in rows]
    ax.scatter(L, A, c=colors, zorder=2)
    for r, x, yv in zip(rows, L, A):
        if np.isfinite(x) and np.isfinite(yv):
            ax.annotate(str(r["class"]), (x, yv), textcoords="offset points", xytext=(4, 3), fontsize=8)
    ax.set_xlabel(f"per-class leakage L_k(c), k = {result.leakage_k}")
    ax.set_ylabel(f"AUROC(c) [{detector}]")
    ax.set_ylim(-0.02, 1.02)
    rho = result.summary(rep, detector)["spearman_leakage_auroc"]
    ax.set_title(f"{rep}: leakage vs AUROC (Spearman {rho:.2f})" if np.isfinite(rho)
                 else f"{rep}: leakage vs AUROC", fontsize=9)
    ax.legend(loc="lower left", fontsize=8)
    return ax


def _protocol_axes(ax, figsize):
    if ax is not None:
        return ax
    from matplotlib.figure import Figure

    return Figure(figsize=figsize).add_subplot()


# --------------------------------------------------------------------------- metrics, nulls, landscapes (SPEC §3, seed 003)
_METRIC_LABELS = {"auroc": "AUROC", "ap": "AP", "aupr_trap": "AUPR (trapezoid)", "f1": "F1", "mcc": "MCC",
                  "mcc_scaled": "MCC (scaled)"}


def _new_axes(ax, figsize=(4.2, 3.6)):
    if ax is not None:
        return ax
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, layout="constrained").add_subplot()


def _pick_ratio(result, ratio):
    from .landscapes import _ratio_index

    return 0 if ratio is None else _ratio_index(result.ratios, result.labels, ratio)


def plot_landscape(result, *, metric="auroc", ratio=None, ax=None, regions=False, colorbar=True, cmap="viridis"):
    """Landscape of one metric over TPR (x) × TNR (y) at one ratio, from a :class:`~auditad.landscapes.LandscapeResult`.

    Parameters
    ----------
    result : LandscapeResult
    metric : str, default "auroc"
    ratio : float or str, optional
        Ratio value or label (default: the first ratio of the result).
    ax : matplotlib Axes, optional
    regions : bool, default False
        Outline the regions R1–R5 of seed 003 §V-D.
    colorbar : bool, default True
    cmap : str, default "viridis"

    Returns
    -------
    matplotlib.axes.Axes
    """
    from .landscapes import REGIONS, _metric_index, _metric_range

    ax = _new_axes(ax)
    r = _pick_ratio(result, ratio)
    values = result.values[r, _metric_index(result.metrics, metric)]
    lo, hi = _metric_range(metric)
    im = ax.imshow(values.T, origin="lower", extent=(0, 1, 0, 1), vmin=lo, vmax=hi, cmap=cmap, aspect="equal",
                   interpolation="nearest")
    levels = [lo + (hi - lo) * f for f in (0.25, 0.5, 0.75)]
    ax.contour(result.tpr, result.tnr, values.T, levels=levels, colors="white", linewidths=0.6, alpha=0.8)
    if regions:
        from matplotlib.patches import Rectangle

        for name, ((t0, t1), (n0, n1)) in REGIONS.items():
            ax.add_patch(Rectangle((t0, n0), t1 - t0, n1 - n0, fill=False, edgecolor="red", linewidth=0.8))
            ax.text((t0 + t1) / 2, (n0 + n1) / 2, name, color="red", fontsize=6, ha="center", va="center")
    if colorbar:
        ax.figure.colorbar(im, ax=ax, shrink=0.8)
    ax.set_xlabel("TPR")
    ax.set_ylabel("TNR")
    ax.set_title(f"{_METRIC_LABELS.get(metric, metric)} at π = {result.labels[r]}", fontsize=9)
    return ax


def plot_landscape_difference(result, *, metric="aupr_trap", ratio=None, ax=None, colorbar=True):
    """Difference map (ratio − reference) of one metric from a :class:`~auditad.landscapes.LandscapeDifferenceResult`.

    Diverging colours centred at 0 (red = lower than at the reference ratio).

    Returns
    -------
    matplotlib.axes.Axes
    """
    import numpy as np

    from .landscapes import _metric_index

    ax = _new_axes(ax)
    r = _pick_ratio(result, ratio)
    values = result.values[r, _metric_index(result.metrics, metric)]
    vmax = max(float(np.max(np.abs(values))), 1e-6)
    im = ax.imshow(values.T, origin="lower", extent=(0, 1, 0, 1), vmin=-vmax, vmax=vmax, cmap="RdBu",
                   aspect="equal", interpolation="nearest")
    if colorbar:
        ax.figure.colorbar(im, ax=ax, shrink=0.8)
    ax.set_xlabel("TPR")
    ax.set_ylabel("TNR")
    ax.set_title(f"{_METRIC_LABELS.get(metric, metric)}: π = {result.labels[r]} minus π = "
                 f"{result.reference_ratio:g}", fontsize=9)
    return ax


def plot_null_sweep(result, *, metrics=None, ax=None):
    """Null mean ± std (band) and mean + mean positive deviation (dotted) against the anomaly ratio (seed 003, Figure 1).

    The x axis runs from positive-majority (left) to negative-majority (right),
    as in the paper. Takes a :class:`~auditad.nulls.NullSweepResult`.

    Returns
    -------
    matplotlib.axes.Axes
    """
    import numpy as np

    ax = _new_axes(ax, figsize=(6.0, 3.8))
    names = result.results[0].metrics if metrics is None else tuple(metrics)
    x = np.array([r.ratio for r in result.results])
    order = np.argsort(x)
    x = x[order]
    for k, name in enumerate(names):
        nulls = [result.results[i][name] for i in order]
        mean = np.array([n.mean for n in nulls])
        std = np.array([n.std for n in nulls])
        mpd = np.array([n.mean_positive_deviation for n in nulls])
        color = f"C{k}"
        ax.plot(x, mean, color=color, label=_METRIC_LABELS.get(name, name), linewidth=1.4)
        ax.fill_between(x, mean - std, mean + std, color=color, alpha=0.18, linewidth=0)
        ax.plot(x, mean + mpd, color=color, linestyle=":", linewidth=1.0)
    ax.set_xlim(x.max(), x.min())
    ax.set_xlabel("anomaly ratio π (positive share)")
    ax.set_ylabel("score under random predictions")
    ax.set_title(f"Random baselines, n = {result.n} (band: ± std, dotted: mean + mean positive deviation)",
                 fontsize=8)
    ax.legend(fontsize=7, ncol=2)
    return ax


def plot_null(result, *, metric="auroc", ax=None):
    """An observed score placed on its null distribution (a :class:`~auditad.nulls.NullResult` or ``MetricNull``).

    Bars: the null's probability mass per bin; lines: mean, 95 % and 99 %
    quantiles, and the observed score with its p-value.

    Returns
    -------
    matplotlib.axes.Axes
    """
    import math

    import numpy as np

    null = result[metric] if hasattr(result, "nulls") else result
    ax = _new_axes(ax, figsize=(4.8, 3.2))
    edges, prob = np.asarray(null.hist_edges), np.asarray(null.hist_prob)
    ax.bar(edges[:-1], prob, width=np.diff(edges), align="edge", color="0.7", edgecolor="0.5", linewidth=0.3,
           label=f"null ({null.method}{', ' + str(null.runs) + ' runs' if null.runs else ''})")
    ax.axvline(null.mean, color="k", linewidth=1.0, label=f"mean {null.mean:.3f}")
    ax.axvline(null.q95, color="C1", linestyle="--", linewidth=1.0, label=f"95 % {null.q95:.3f}")
    ax.axvline(null.q99, color="C3", linestyle="--", linewidth=1.0, label=f"99 % {null.q99:.3f}")
    if not math.isnan(null.observed):
        p = "< 2e-16" if null.p_value == 0 else f"= {null.p_value:.3g}"
        ax.axvline(null.observed, color="C0", linewidth=2.0, label=f"observed {null.observed:.3f} (p {p})")
        lo, hi = ax.get_xlim()
        pad = 0.05 * (max(hi, null.observed) - min(lo, null.observed))
        ax.set_xlim(min(lo, null.observed - pad), max(hi, null.observed + pad))
    ax.set_xlabel(_METRIC_LABELS.get(null.metric, null.metric))
    ax.set_ylabel("probability")
    ax.legend(fontsize=7)
    return ax


def plot_minimal_tpr(result, *, metric="auroc", ax=None):
    """Minimal TPR (solid) and the TNR it needs (dashed) against the target score, per ratio (seed 003, Figure 4).

    Takes a :class:`~auditad.landscapes.MinimalTprResult`.

    Returns
    -------
    matplotlib.axes.Axes
    """
    from .landscapes import _metric_index

    ax = _new_axes(ax)
    k = _metric_index(result.metrics, metric)
    for r, label in enumerate(result.labels):
        ax.plot(result.scores, result.min_tpr[r, k], color=f"C{r % 10}", label=label, linewidth=1.2)
        ax.plot(result.scores, result.tnr_needed[r, k], color=f"C{r % 10}", linestyle="--", linewidth=0.9)
    ax.set_xlabel(f"target {_METRIC_LABELS.get(metric, metric)}")
    ax.set_ylabel("minimal TPR (solid) / TNR needed (dashed)")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=6, ncol=2)
    return ax


def plot_coverage(result, *, metric="auroc", ax=None):
    """Share of the landscape area per score bin, per ratio (seed 003, App. B, Figure 8); a ``CoverageResult``.

    Returns
    -------
    matplotlib.axes.Axes
    """
    from .landscapes import _metric_index

    ax = _new_axes(ax)
    k = _metric_index(result.metrics, metric)
    centers = (result.bin_edges[k, :-1] + result.bin_edges[k, 1:]) / 2
    for r, label in enumerate(result.labels):
        ax.plot(centers, 100 * result.coverage[r, k], marker="o", markersize=2.5, linewidth=1.0,
                color=f"C{r % 10}", label=label)
    ax.set_xlabel(f"{_METRIC_LABELS.get(metric, metric)} bin")
    ax.set_ylabel("share of the landscape area (%)")
    ax.legend(fontsize=6, ncol=2)
    return ax


# --------------------------------------------------------------------------- anomaly-free model selection (SPEC §4, seeds 000/001)
def _family_colours(families):
    order = list(dict.fromkeys(families))
    return {f: f"C{i % 10}" for i, f in enumerate(order)}


def plot_estimator_vs_auc(result, *, estimator=None, ax=None, per_task=False):
    """Estimator against true AUC per candidate, coloured by representation family (seed 001, Figure 2).

    Parameters
    ----------
    result : auditad.selection.SelectionResult
    estimator : str, optional
        Estimator label, e.g. ``"pseudo_auc[diverse]"`` (default: the last estimator of the run).
    ax : matplotlib Axes, optional
    per_task : bool, default False
        False: one point per candidate (means over tasks, from
        :meth:`~auditad.selection.SelectionResult.candidate_summary_frame`);
        True: one point per (task, candidate).

    Returns
    -------
    matplotlib.axes.Axes
    """
    from .errors import InvalidInputError
    from .selection import pretty_label

    estimator = estimator or result.config["estimators"][-1]
    if estimator not in result.config["estimators"]:
        raise InvalidInputError(f"estimator {estimator!r} is not in this result: {result.config['estimators']}")
    ax = _new_axes(ax)
    if per_task:
        rows = [r for r in result.estimates if r["estimator"] == estimator]
        data = [(r["family"], r["value"], r["true_auc"]) for r in rows]
    else:
        frame = result.candidate_summary_frame()
        data = list(zip(frame["family"], frame[estimator], frame["true_auc"]))
    colours = _family_colours([d[0] for d in data])
    for fam, col in colours.items():
        pts = [(x, y) for f, x, y in data if f == fam]
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=14 if per_task else 24, color=col, label=fam,
                   alpha=0.6 if per_task else 0.9, edgecolors="none")
    if estimator == "inlier_variance":
        ax.set_xscale("log")
    ax.set_xlabel(pretty_label(estimator) + (" (per task)" if per_task else " (mean over tasks)"))
    ax.set_ylabel("true AUC" + (" (per task)" if per_task else " (mean over tasks)"))
    ax.legend(fontsize=7, title="family", title_fontsize=7)
    return ax


def plot_bound_vs_auc(result, *, robust=False, ax=None):
    """Eq. 1 bound (or the robust App. A.1 bound) of the true test scores against the empirical AUC.

    One point per (task, candidate) with labelled test data, coloured by
    family; with population moments every point with :math:`\\mu_\\Delta > 0`
    lies on or below the diagonal. Points with :math:`\\mu_\\Delta \\le 0`
    (where the bound says nothing) are drawn hollow.

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = _new_axes(ax)
    key = "true_robust_bound" if robust else "true_bound"
    rows = [r for r in result.candidates if r.get("true_auc") is not None and r["true_auc"] == r["true_auc"]]
    colours = _family_colours([r["family"] for r in rows])
    for fam, col in colours.items():
        pos = [r for r in rows if r["family"] == fam and r["true_mu_delta"] > 0]
        neg = [r for r in rows if r["family"] == fam and r["true_mu_delta"] <= 0]
        ax.scatter([r["true_auc"] for r in pos], [r[key] for r in pos], s=14, color=col, label=fam,
                   edgecolors="none", alpha=0.8)
        if neg:
            ax.scatter([r["true_auc"] for r in neg], [r[key] for r in neg], s=14, facecolors="none",
                       edgecolors=col)
    ax.plot([0, 1], [0, 1], color="0.5", linewidth=0.8, linestyle="--")
    ax.set_xlim(0, 1.01)
    ax.set_ylim(0, 1.01)
    ax.set_xlabel("empirical AUC (test set)")
    ax.set_ylabel("robust bound (App. A.1)" if robust else "AUC bound (Eq. 1)")
    ax.legend(fontsize=7, title="family", title_fontsize=7)
    return ax


# --------------------------------------------------------------------------- audit report (leakage curve)
def plot_leakage_curve(result, *, ax=None, label=None, color=None, chance=True):
    """Leakage L_k against k from a :class:`~auditad.leakage.LeakageResult` (SPEC §1, seed 002).

    Call it once per representation on the same ``ax`` to compare them.

    Parameters
    ----------
    result : LeakageResult
        Computed with several ``k``.
    ax : matplotlib Axes, optional
    label : str, optional
        Legend label of the curve (default: "L_k").
    color : str, optional
    chance : bool, default True
        Draw the chance level (the L_k of randomly drawn neighbours) as a dotted line.

    Returns
    -------
    matplotlib.axes.Axes
    """
    import numpy as np

    ax = _new_axes(ax, figsize=(5.0, 3.4))
    order = np.argsort(np.asarray(result.ks))
    ks = np.asarray(result.ks)[order]
    values = np.asarray(result.L)[order]
    ax.plot(ks, values, marker="o", markersize=4, linewidth=1.4, color=color, label=label or "L_k")
    if chance:
        ax.axhline(result.chance, color="0.4", linestyle=":", linewidth=1.0, label=f"chance {result.chance:.2f}")
    ax.set_xlabel("k (neighbours)")
    ax.set_ylabel("leakage L_k")
    ax.set_ylim(0.0, max(1.0, float(np.nanmax(values)) * 1.05))
    ax.set_xticks(ks)
    ax.legend(fontsize=7)
    return ax
