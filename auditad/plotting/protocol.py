"""Plots of the class-split protocol (re-exported by `auditad.plotting`).

The per-class figures scale with the number of classes K: the heatmap writes
its numbers and names its rows up to `MAX_HEATMAP_CLASSES` classes and
keeps a bounded height beyond; the leakage-vs-AUROC scatter labels every class
up to `MAX_LABELLED_CLASSES` and only the lowest-AUROC classes beyond;
the AUROC profile (sorted AUROC(c) per detector) draws at most
`MAX_PROFILE_POINTS` points per curve, whatever K is. The report uses
the heatmap up to `MAX_HEATMAP_CLASSES` classes and the profile above.

References
----------
1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly
   Detection" (the class-split protocol, ρ_inv, ρ_rnd, ρ_dir, leakage L_k(c)).
"""

from __future__ import annotations

from . import style as st
from .._format import count
from ..errors import InvalidInputError

__all__ = [
    "MAX_HEATMAP_CLASSES",
    "MAX_LABELLED_CLASSES",
    "MAX_PROFILE_POINTS",
    "plot_protocol_heatmap",
    "plot_leakage_vs_auroc",
    "plot_protocol_profile",
    "protocol_heatmap_figure",
    "leakage_vs_auroc_figure",
    "protocol_profile_figure",
]

#: Largest number of classes whose heatmap rows are named and annotated (and that the report draws as a heatmap).
MAX_HEATMAP_CLASSES = 40
#: Largest number of classes that the leakage-vs-AUROC scatter labels one by one.
MAX_LABELLED_CLASSES = 40
#: Beyond `MAX_LABELLED_CLASSES`, the number of lowest-AUROC classes the scatter labels.
LOWEST_LABELLED = 10
#: Most points drawn per curve of the AUROC profile (exact order statistics, evenly spaced in rank).
MAX_PROFILE_POINTS = 512


def _protocol_vectors(result, representation, detector):
    """(representation, AUROC(c), near_random(c), inverted(c)) from the result's accessors (no table rows)."""
    import numpy as np

    rep = result.representation_names[0] if representation is None else representation
    if rep not in result.representation_names:
        raise InvalidInputError(f"representation must be one of {list(result.representation_names)}, got {rep!r}")
    auroc = result.aurocs(rep, detector)
    rates = result.rates(rep, detector)
    none = np.zeros(auroc.shape, dtype=bool)
    if rates is None:
        return rep, auroc, none, none
    return rep, auroc, np.asarray(rates.near_random, dtype=bool), np.asarray(rates.inverted, dtype=bool)


def _heatmap_height(n_classes: int, pad: float) -> float:
    """Figure height of a heatmap: 0.3 in a row up to `MAX_HEATMAP_CLASSES` rows, then no taller."""
    return pad + 0.3 * min(n_classes, MAX_HEATMAP_CLASSES)


def _title(result, rep: str) -> str:
    """The per-detector rates averaged over the detectors, and the worst detector (never the ensemble's rates)."""
    avg, worst = result.detector_average(rep), result.worst(rep)
    text = f"{rep}: ε = {result.epsilon:g}, average of detectors ρ_inv = {avg['rho_inv']:.2f}, ρ_dir = {avg['rho_dir']:.2f}"
    if worst.get("rho_dir_detector"):
        text += f"; worst ρ_dir = {worst['rho_dir']:.2f} ({worst['rho_dir_detector']})"
    return text


def plot_protocol_heatmap(result, *, representation=None, ax=None, annotate=None, colorbar=True):
    """Class × detector heatmap of AUROC(c) from a [`ProtocolResult`][auditad.protocol.ProtocolResult].

    Rows are the held-out classes, columns the detectors plus their mean; the
    diverging colour scale is centred at AUROC = ½ (blue above, red below =
    inverted). Cells inside the near-random band ``|AUROC − ½| ≤ ε`` get a
    dashed frame (the number inside stays readable). The title gives ε, the
    per-detector ρ_inv and ρ_dir averaged over the detectors, and the least stable detector. Above `MAX_HEATMAP_CLASSES`
    classes the rows are not named, the cells carry neither numbers nor frames
    and a new figure is no taller than at `MAX_HEATMAP_CLASSES` classes;
    `plot_protocol_profile` reads better there.

    Parameters
    ----------
    result : ProtocolResult
    representation : str, optional
        Default: the first representation.
    ax : matplotlib Axes, optional
    annotate : bool, optional
        Write the AUROC into each cell (default: up to `MAX_HEATMAP_CLASSES` classes).
    colorbar : bool, default True

    Returns
    -------
    matplotlib.axes.Axes

    References
    ----------
    "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection" (class-split protocol).

    See Also
    --------
    - `plot_protocol_profile`
    - `protocol_heatmap_figure`
    """
    import numpy as np
    from matplotlib.patches import Rectangle

    K = len(result.classes)
    few = K <= MAX_HEATMAP_CLASSES
    annotate = few if annotate is None else bool(annotate)
    ax = st.axes_or_new(ax, height=_heatmap_height(K, 1.3), width=6.0)
    dets = list(result.detector_names) + ["ensemble"]
    columns = [_protocol_vectors(result, representation, det) for det in dets]
    rep = columns[0][0]
    grid = np.column_stack([c[1] for c in columns]).astype(float)
    near = np.column_stack([c[2] for c in columns])
    im = ax.imshow(np.ma.masked_invalid(grid), cmap="RdBu", vmin=0.0, vmax=1.0, aspect="auto", interpolation="nearest")
    if colorbar:
        ax.figure.colorbar(im, ax=ax, label="AUROC(c)", shrink=0.9)
    if few:
        for i, j in zip(*np.nonzero(near)):
            ax.add_patch(Rectangle((j - 0.44, i - 0.40), 0.88, 0.80, **st.NEAR_RANDOM_FRAME))
    if annotate:
        for i in range(grid.shape[0]):
            for j in range(grid.shape[1]):
                v = grid[i, j]
                dark = np.isfinite(v) and abs(v - 0.5) > 0.3
                ax.text(
                    j,
                    i,
                    "–" if np.isnan(v) else f"{v:.2f}",
                    ha="center",
                    va="center",
                    fontsize=st.SMALL_PT,
                    color="white" if dark else "black",
                )
    ax.set_xticks(range(len(dets)), dets)
    if few:
        ax.set_yticks(range(K), [str(c.item() if hasattr(c, "item") else c) for c in result.classes])
    else:
        ax.set_yticks([])
    ax.tick_params(length=0)
    for side in ("top", "right", "left", "bottom"):
        ax.spines[side].set_visible(False)
    ax.set_xlabel("detector")
    role = "held-out class" if result.protocol == "leave_one_class_out" else "normal class"
    ax.set_ylabel(role if few else f"{role} ({count(K)} rows, in the result's class order)")
    ax.set_title(_title(result, rep))
    return ax


def plot_leakage_vs_auroc(result, *, representation=None, detector="ensemble", ax=None, legend=True):
    """Per-class leakage L_k(c) against AUROC(c) from a [`ProtocolResult`][auditad.protocol.ProtocolResult].

    One point per class, labelled without overlaps (classes whose points
    coincide share one label), the chance line AUROC = ½ with its near-random
    band ±ε, and the Spearman rank correlation in the title. The leakage axis
    starts at 0, the AUROC axis spans [0, 1]. Above `MAX_LABELLED_CLASSES`
    classes only the ten classes of lowest AUROC(c) are labelled (the legend says
    so) and the markers are smaller. Needs a result computed with ``leakage_k`` set.

    Parameters
    ----------
    result : ProtocolResult
    representation : str, optional
    detector : str, default "ensemble"
        A detector name or ``"ensemble"`` (the detector-mean AUROC(c)).
    ax : matplotlib Axes, optional
    legend : bool, default True
        A legend to the right of the axes.

    Returns
    -------
    matplotlib.axes.Axes

    References
    ----------
    "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection" (leakage and AUROC per class).

    See Also
    --------
    - `leakage_vs_auroc_figure`
    - `plot_protocol_heatmap`
    """
    import numpy as np
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    if result.leakage_k is None:
        raise InvalidInputError("the result has no leakage: run audit_protocol with leakage_k set")
    if detector not in list(result.detector_names) + ["ensemble"]:
        raise InvalidInputError(f"detector must be one of {list(result.detector_names) + ['mean']}, got {detector!r}")
    rep, A, _, inverted = _protocol_vectors(result, representation, detector)
    ax = st.axes_or_new(ax, height=3.6, width=7.0)
    L = np.asarray(result.class_leakage[result.representation_names.index(rep)], dtype=float)
    K = L.size
    few = K <= MAX_LABELLED_CLASSES
    eps = result.epsilon
    ax.axhspan(0.5 - eps, 0.5 + eps, color="0.88", zorder=0, linewidth=0)
    ax.axhline(0.5, color="0.45", lw=0.8, ls="--", zorder=1)
    handles = [Patch(color="0.88", label=f"near random (½ ± {eps:g})")]
    size, edge = (30, 0.5) if few else ((14, 0.3) if K <= 1000 else (6, 0.0))
    for mask, colour, marker, name in (
        (~inverted, st.PALETTE[0], "o", "AUROC(c) ≥ ½"),
        (inverted, st.PALETTE[5], "v", "inverted (AUROC(c) < ½)"),
    ):
        if mask.any():
            st.clip_free(
                ax.scatter(L[mask], A[mask], color=colour, marker=marker, s=size, edgecolors="white", linewidths=edge)
            )
            handles.append(Line2D([], [], color=colour, marker=marker, linestyle="none", label=name))
    st.nonnegative(ax, "x", values=L, margin=0.12, floor_top=0.02)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel(f"per-class leakage L_k(c), k = {result.leakage_k}")
    ax.set_ylabel(f"AUROC(c) [{detector}]")
    rho = result.summary(rep, detector)["spearman_leakage_auroc"]
    ax.set_title(f"{rep}: Spearman ρ = {rho:.2f}" if np.isfinite(rho) else f"{rep}: Spearman ρ undefined")
    names = [c.item() if hasattr(c, "item") else c for c in result.classes]
    if few:
        shown = np.arange(K)
    else:  # the lowest AUROC(c) first, ties by class position; NaN never labelled
        order = np.lexsort((np.arange(K), np.where(np.isfinite(A), A, np.inf)))
        shown = np.sort(order[:LOWEST_LABELLED][np.isfinite(A[order[:LOWEST_LABELLED]])])
        handles.append(
            Line2D(
                [], [], linestyle="none", label=f"labelled: the {shown.size} classes of lowest AUROC(c) of {count(K)}"
            )
        )
    if legend:
        st.legend_outside(ax, handles=handles, labels=[h.get_label() for h in handles])
    st.place_labels(ax, L[shown], A[shown], [names[i] for i in shown])
    return ax


def plot_protocol_profile(result, *, representation=None, ax=None, legend=True):
    """AUROC profile: each detector's AUROC(c) sorted over the classes, against the share of classes.

    One curve per detector plus the detector mean (bold): the point at share s
    is the AUROC(c) that a fraction s of the classes fall at or below, so the
    share where a curve crosses ½ is that detector's ρ_inv and the share
    inside the grey band ``½ ± ε`` its ρ_rnd. Readable at any number of
    classes: a curve holds at most `MAX_PROFILE_POINTS` exact order
    statistics, evenly spaced in rank, always including the lowest and the
    highest AUROC(c). Classes with an undefined AUROC are left out (their
    number is in the legend).

    Parameters
    ----------
    result : ProtocolResult
    representation : str, optional
        Default: the first representation.
    ax : matplotlib Axes, optional
    legend : bool, default True

    Returns
    -------
    matplotlib.axes.Axes

    References
    ----------
    "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection" (ρ_inv, ρ_rnd, ρ_dir).

    See Also
    --------
    - `protocol_profile_figure`
    - `plot_protocol_heatmap`
    """
    import numpy as np
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    ax = st.axes_or_new(ax, height=3.6, width=7.0)
    eps = result.epsilon
    ax.axhspan(0.5 - eps, 0.5 + eps, color="0.88", zorder=0, linewidth=0)
    ax.axhline(0.5, color="0.45", lw=0.8, ls="--", zorder=1)
    handles = [Patch(color="0.88", label=f"near random (½ ± {eps:g})")]
    dets = list(result.detector_names) + ["ensemble"]
    rep = None
    for i, det in enumerate(dets):
        rep, A, _, _ = _protocol_vectors(result, representation, det)
        values = np.sort(A[np.isfinite(A)])
        m = values.size
        if m == 0:
            continue
        pick = np.unique(np.round(np.linspace(0, m - 1, min(m, MAX_PROFILE_POINTS))).astype(int))
        share = (pick + 0.5) / m
        mean = det == "ensemble"
        colour = "black" if mean else st.PALETTE[i % len(st.PALETTE)]
        ax.plot(
            share,
            values[pick],
            color=colour,
            lw=2.0 if mean else 1.2,
            drawstyle="steps-mid",
            marker=None if m > 40 else st.MARKERS[i % len(st.MARKERS)],
            ms=3.5,
            zorder=3 if mean else 2,
        )
        missing = A.size - m
        handles.append(
            Line2D(
                [],
                [],
                color=colour,
                lw=2.0 if mean else 1.2,
                label=f"{det}" + (f" ({missing} undefined)" if missing else ""),
            )
        )
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel(f"share of the {count(len(result.classes))} classes (sorted by AUROC(c))")
    ax.set_ylabel("AUROC(c)")
    if rep is None:
        rep = result.representation_names[0] if representation is None else representation
    ax.set_title(_title(result, rep))
    if legend:
        st.legend_outside(ax, handles=handles, labels=[h.get_label() for h in handles])
    return ax


def protocol_heatmap_figure(result, *, representations=None):
    """Report figure: one AUROC(c) heatmap per representation side by side, one colour bar.

    Parameters
    ----------
    result : ProtocolResult
    representations : sequence of str, optional
        Default: every representation of the result (up to three per row).

    Returns
    -------
    matplotlib.figure.Figure

    References
    ----------
    "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection" (class-split protocol).

    See Also
    --------
    - `plot_protocol_heatmap`
    - `protocol_profile_figure`
    """
    reps = list(representations or result.representation_names)
    with st.style_context():
        fig, axes = st.new_figure(1, len(reps), height=_heatmap_height(len(result.classes), 1.6))
        for ax, rep in zip(axes[0], reps):
            plot_protocol_heatmap(result, representation=rep, ax=ax, colorbar=False)
        import matplotlib.cm as cm
        from matplotlib.colors import Normalize
        from matplotlib.patches import Rectangle

        fig.colorbar(
            cm.ScalarMappable(Normalize(0, 1), "RdBu"), ax=list(axes[0]), label="AUROC(c)", shrink=0.9, aspect=30
        )
        if len(result.classes) <= MAX_HEATMAP_CLASSES:
            fig.legend(
                [Rectangle((0, 0), 1, 1, **st.NEAR_RANDOM_FRAME)],
                [f"near random: |AUROC(c) − ½| ≤ {result.epsilon:g}"],
                loc="outside lower center",
                frameon=False,
            )
    return fig


def protocol_profile_figure(result, *, representations=None):
    """Report figure: the AUROC profile (`plot_protocol_profile`) of each representation, one legend.

    Returns
    -------
    matplotlib.figure.Figure

    References
    ----------
    "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection" (ρ_inv, ρ_rnd, ρ_dir).

    See Also
    --------
    - `plot_protocol_profile`
    - `protocol_heatmap_figure`
    """
    reps = list(representations or result.representation_names)
    with st.style_context():
        fig, axes = st.new_figure(1, len(reps), height=3.8)
        for i, (ax, rep) in enumerate(zip(axes[0], reps)):
            plot_protocol_profile(result, representation=rep, ax=ax, legend=(i == len(reps) - 1))
    return fig


def leakage_vs_auroc_figure(result, *, representations=None, detector="ensemble"):
    """Report figure: per-class leakage against AUROC(c), one panel per representation, one legend.

    Returns
    -------
    matplotlib.figure.Figure

    References
    ----------
    "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection" (leakage and AUROC per class).

    See Also
    --------
    - `plot_leakage_vs_auroc`
    """
    reps = list(representations or result.representation_names)
    with st.style_context():
        fig, axes = st.new_figure(1, len(reps), height=3.8)
        for i, (ax, rep) in enumerate(zip(axes[0], reps)):
            plot_leakage_vs_auroc(result, representation=rep, detector=detector, ax=ax, legend=(i == len(reps) - 1))
    return fig
