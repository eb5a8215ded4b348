"""The one figure style of auditad: sizes, fonts, colours, legend placement and label de-overlap.

Every figure of `auditad.plotting` and of the HTML report takes its look
from here, so that a figure drawn at the report's content width shows its
text at the size it was set in (1 pt = 4/3 CSS px at 100 % zoom):

* `CONTENT_WIDTH_PX` is the width the report's stylesheet gives a
  figure (``templates/report.css``: ``body`` max-width 72 rem, padding
  1.25 rem each side); `new_figure` makes figures exactly that wide.
* Fonts are at least `MIN_FONT_PT` (7.5 pt = 10 px) everywhere.
* Legends go outside the data (`legend_outside`), labels of points are
  placed without overlaps (`place_labels`), text over colour gets a
  contrasting box (`boxed_text`).

matplotlib settings are only ever applied with `style_context` (a
``matplotlib.rc_context``): importing auditad changes no global state.
"""

from __future__ import annotations


__all__ = [
    "RC",
    "CONTENT_WIDTH_PX",
    "CONTENT_WIDTH_IN",
    "PX_PER_IN",
    "MIN_FONT_PT",
    "FONT_PT",
    "SMALL_PT",
    "TITLE_PT",
    "PALETTE",
    "MARKERS",
    "style_context",
    "new_figure",
    "legend_outside",
    "boxed_text",
    "place_labels",
    "clip_free",
    "unit_interval",
    "nonnegative",
    "axes_or_new",
    "NEAR_RANDOM_FRAME",
]

#: CSS pixels per inch (a figure of w inches is w x 96 px wide in the page at 100 % zoom).
PX_PER_IN = 96
#: Width of a figure in the report: the content box of the page at a 1280 px window (1152 px - 2 x 20 px).
CONTENT_WIDTH_PX = 1104
CONTENT_WIDTH_IN = CONTENT_WIDTH_PX / PX_PER_IN
#: Smallest font in any figure: 7.5 pt = 10 CSS px.
MIN_FONT_PT = 7.5
#: Body text of figures (axis labels, legends): 9 pt = 12 px; tick labels and annotations 8 pt = 10.7 px.
FONT_PT = 9.0
SMALL_PT = 8.0
TITLE_PT = 10.0
#: Colour-blind safe qualitative palette (Okabe & Ito), in the order series are given.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
#: Marker per series, so that series stay apart when points coincide or colours are hard to tell apart.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")

#: matplotlib settings of every auditad figure (applied with `style_context` only).
RC = {
    "svg.hashsalt": "auditad",
    "svg.fonttype": "path",
    "pdf.fonttype": 42,
    "text.parse_math": False,
    "figure.dpi": PX_PER_IN,
    "savefig.dpi": PX_PER_IN,
    "font.size": FONT_PT,
    "axes.titlesize": TITLE_PT,
    "axes.labelsize": FONT_PT,
    "legend.fontsize": SMALL_PT + 0.5,
    "legend.title_fontsize": SMALL_PT + 0.5,
    "xtick.labelsize": SMALL_PT,
    "ytick.labelsize": SMALL_PT,
    "figure.titlesize": TITLE_PT,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "legend.borderaxespad": 0.3,
    "lines.linewidth": 1.6,
    "lines.markersize": 5.0,
    "axes.axisbelow": True,
    "grid.color": "0.9",
    "grid.linewidth": 0.6,
    "image.interpolation": "nearest",
}


def _rc() -> dict:
    from cycler import cycler

    rc = dict(RC)
    rc["axes.prop_cycle"] = cycler(color=list(PALETTE))
    return rc


def style_context():
    """``with style_context(): ...`` — draw inside auditad's figure style (a ``matplotlib.rc_context``)."""
    import matplotlib

    return matplotlib.rc_context(_rc())


def new_figure(
    nrows: int = 1,
    ncols: int = 1,
    *,
    height: float | None = None,
    width: float = CONTENT_WIDTH_IN,
    panel_height: float = 3.4,
    **subplot_kw,
):
    """A constrained-layout figure ``width`` inches wide (default: the report's content width) with its axes.

    Must be called inside `style_context` for the fonts to apply.

    Parameters
    ----------
    nrows, ncols : int
        Grid of axes.
    height : float, optional
        Figure height in inches (default ``panel_height * nrows`` plus room for the title row).
    width : float
        Figure width in inches.
    panel_height : float
        Height of one row of axes in inches.
    **subplot_kw
        Passed to `matplotlib.figure.Figure.subplots`.

    Returns
    -------
    fig : matplotlib.figure.Figure
    axes : numpy.ndarray of Axes, shape ``(nrows, ncols)``
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height if height is not None else panel_height * nrows + 0.3), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, **subplot_kw)
    return fig, axes


def axes_or_new(ax, *, height: float = 3.4, width: float | None = None):
    """The given Axes, or the one Axes of a new figure (``width`` default: the content width) in the auditad style."""
    if ax is not None:
        return ax
    with style_context():
        _, axes = new_figure(height=height, width=width or CONTENT_WIDTH_IN)
    return axes[0, 0]


#: Frame of a near-random heatmap cell (``|AUROC − ½| ≤ ε``): dashed, unfilled.
NEAR_RANDOM_FRAME = {"facecolor": "none", "edgecolor": "black", "linewidth": 1.3, "linestyle": (0, (2.5, 1.5))}


def legend_outside(ax, *, where: str = "right", handles=None, labels=None, ncol: int | None = None, **kw):
    """A legend outside the axes (``where`` = "right", "below" or "above"), so that it never covers data.

    Takes the axes' own handles unless given; returns the Legend, or None when
    there is nothing to show.
    """
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    if where == "right":
        opts = {"loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "ncol": ncol or 1}
    elif where == "below":
        opts = {"loc": "upper center", "bbox_to_anchor": (0.5, -0.18), "ncol": ncol or min(len(handles), 4)}
    elif where == "above":
        opts = {"loc": "lower center", "bbox_to_anchor": (0.5, 1.02), "ncol": ncol or min(len(handles), 4)}
    else:
        from ..errors import InvalidInputError

        raise InvalidInputError(f"where must be 'right', 'below' or 'above', got {where!r}")
    opts.update(kw)
    return ax.legend(handles, labels, borderaxespad=0.0, **opts)


def boxed_text(ax, x, y, text, *, size: float = SMALL_PT, color: str = "black", box: str = "white", **kw):
    """Text on a contrasting rounded box (legible over any colour map); returns the Text."""
    return ax.text(
        x,
        y,
        text,
        fontsize=size,
        color=color,
        ha=kw.pop("ha", "center"),
        va=kw.pop("va", "center"),
        bbox={"boxstyle": "round,pad=0.2", "facecolor": box, "edgecolor": "0.25", "linewidth": 0.6, "alpha": 0.92},
        **kw,
    )


def clip_free(*artists) -> None:
    """Let markers and lines on the edge of the axes (e.g. a value of exactly 0 or 1) draw in full."""
    for a in artists:
        a.set_clip_on(False)
        a.set_zorder(max(a.get_zorder(), 3))


def unit_interval(ax, axis: str = "y", *, values=None, pad: float = 0.02) -> None:
    """Limit an axis to a statistic on [0, 1]: zoom to the values when given, never outside [0, 1]."""
    import numpy as np

    lo, hi = 0.0, 1.0
    if values is not None:
        v = np.asarray(values, dtype=float)
        v = v[np.isfinite(v)]
        if v.size:
            span = max(float(v.max() - v.min()), 0.1)
            lo = max(0.0, float(v.min()) - 0.08 * span)
            hi = min(1.0, float(v.max()) + 0.08 * span)
    (ax.set_ylim if axis == "y" else ax.set_xlim)(lo, hi)


def nonnegative(ax, axis: str = "x", *, values=(), floor_top: float = 0.05, margin: float = 0.08) -> None:
    """Start an axis at exactly 0 for a statistic that cannot be negative (leakage, shares)."""
    import numpy as np

    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    top = max(float(v.max()) * (1 + margin) if v.size else 0.0, floor_top)
    (ax.set_xlim if axis == "x" else ax.set_ylim)(0.0, top)


# --------------------------------------------------------------------------- label placement
def _renderer(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not hasattr(fig.canvas, "get_renderer"):
        FigureCanvasAgg(fig)
    return fig.canvas.get_renderer()


def _groups(xy, radius: float) -> list[list[int]]:
    """Single-linkage groups of points closer than ``radius`` (display pixels)."""
    import numpy as np

    n = len(xy)
    parent = list(range(n))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(n):
        for j in range(i + 1, n):
            if np.hypot(*(xy[i] - xy[j])) < radius:
                parent[find(i)] = find(j)
    out: dict = {}
    for i in range(n):
        out.setdefault(find(i), []).append(i)
    return sorted(out.values(), key=lambda g: min(g))


def _offsets(gap: float):
    """Candidate label offsets (points): 8 spots around the point, farther rings, then a spiral outwards."""
    import math

    for scale in (1.0, 2.5, 4.0):
        for dx, dy, ha, va in _CANDIDATES:
            yield (dx * gap * scale, dy * gap * scale), ha, va, True
    for ring in range(2, 14):
        r = gap * 1.5 * ring
        for step in range(16):
            a = 2 * math.pi * step / 16
            dx, dy = math.cos(a), math.sin(a)
            yield (
                (r * dx, r * dy),
                "left" if dx > 0.3 else "right" if dx < -0.3 else "center",
                "bottom" if dy > 0.3 else "top" if dy < -0.3 else "center",
                False,
            )


def _group_text(names, max_group: int, per_line: int = 4) -> str:
    """``0, 6, 7``; a run of consecutive integers as ``0–7``; ``per_line`` names a line; beyond ``max_group`` shortened."""
    try:
        ints = sorted(int(n) for n in names)
        if len(ints) > 2 and all(str(n) == str(int(n)) for n in names) and ints == list(range(ints[0], ints[-1] + 1)):
            return f"{ints[0]}\u2013{ints[-1]}"
    except (TypeError, ValueError):
        pass
    names = [str(n) for n in names]
    if len(names) > max_group:
        names = names[: max_group - 1] + [f"\u2026 (+{len(names) - max_group + 1})"]
    lines = [", ".join(names[i : i + per_line]) for i in range(0, len(names), per_line)]
    return ",\n".join(lines)


_CANDIDATES = (
    (1, 0, "left", "center"),
    (0, 1, "center", "bottom"),
    (-1, 0, "right", "center"),
    (0, -1, "center", "top"),
    (1, 1, "left", "bottom"),
    (-1, 1, "right", "bottom"),
    (1, -1, "left", "top"),
    (-1, -1, "right", "top"),
)


def place_labels(
    ax, x, y, labels, *, size: float = SMALL_PT, group_radius: float = 9.0, gap: float = 5.0, max_group: int = 24
):
    """Label points without overlaps.

    Points closer than ``group_radius`` pixels share one label (``"0, 6, 7"``,
    four names a line, a run of integers as ``"0–7"``; beyond ``max_group``
    names as ``"…, (+n)"``); each label then takes the
    first of eight positions around its point (at ``gap``, then 2.5 and 4
    times ``gap`` points away, with a leader line) whose box stays inside the
    axes and overlaps neither an earlier label nor a point. Call it after the
    axes limits are final. Returns the list of Text objects.
    """
    import numpy as np

    fig = ax.figure
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    idx = np.flatnonzero(ok)
    if idx.size == 0:
        return []
    renderer = _renderer(fig)
    fig.draw_without_rendering()  # runs the layout engine: axes positions are final
    to_px = ax.transData.transform
    pts = to_px(np.column_stack([x[idx], y[idx]]))
    groups = _groups(pts, group_radius)
    axbox = ax.get_window_extent(renderer)
    dpi_scale = fig.dpi / 72.0
    marker_r = 4.0 * dpi_scale
    point_boxes = [(p[0] - marker_r, p[1] - marker_r, p[0] + marker_r, p[1] + marker_r) for p in pts]
    placed: list = []
    texts = []

    def overlaps(b, boxes):
        return any(b[0] < c[2] and c[0] < b[2] and b[1] < c[3] and c[1] < b[3] for c in boxes)

    for g in groups:
        text = _group_text([labels[idx[i]] for i in g], max_group)
        cx, cy = pts[g].mean(axis=0)
        anchor = ax.transData.inverted().transform((cx, cy))
        best = None
        for off, ha, va, strict in _offsets(gap):
            t = ax.annotate(
                text, anchor, xytext=off, textcoords="offset points", ha=ha, va=va, fontsize=size, annotation_clip=False
            )
            b = t.get_window_extent(renderer)
            box = (b.x0 - 1, b.y0 - 1, b.x1 + 1, b.y1 + 1)
            inside = box[0] >= axbox.x0 and box[2] <= axbox.x1 and box[1] >= axbox.y0 and box[3] <= axbox.y1
            others = [pb for k, pb in enumerate(point_boxes) if k not in g]
            # near spots: a leader line's span (point to label) must be free of other labels too
            far = abs(off[0]) + abs(off[1]) > 2 * gap
            span = (min(box[0], cx), min(box[1], cy), max(box[2], cx), max(box[3], cy)) if far and strict else box
            if inside and not overlaps(span, placed) and not overlaps(box, others):
                best = (t, box, 2.0 if far else 1.0)
                break
            t.remove()
        if best is None:  # nowhere free inside the axes: beside the point, never hidden
            t = ax.annotate(
                text,
                anchor,
                xytext=(gap, gap),
                textcoords="offset points",
                ha="left",
                va="bottom",
                fontsize=size,
                annotation_clip=False,
            )
            b = t.get_window_extent(renderer)
            best = (t, (b.x0, b.y0, b.x1, b.y1), 1.0)
        t, box, scale = best
        if scale > 1.0:
            t.arrow_patch = None
            t.remove()
            t = ax.annotate(
                text,
                anchor,
                xytext=t.xyann,
                textcoords="offset points",
                ha=t.get_ha(),
                va=t.get_va(),
                fontsize=size,
                annotation_clip=False,
                arrowprops={"arrowstyle": "-", "color": "0.5", "linewidth": 0.6, "shrinkA": 1, "shrinkB": 3},
            )
        t.set_in_layout(False)
        placed.append(box)
        texts.append(t)
    return texts
