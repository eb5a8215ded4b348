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
