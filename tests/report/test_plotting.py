"""What the figures draw (Agg backend): domains of the axes, legends outside the data, labels that do not overlap,
one mark per data point, fonts of at least 10 px at the report's width, visible zero lines."""

import itertools

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402
from matplotlib.text import Annotation, Text  # noqa: E402

from auditad.plotting import style as st  # noqa: E402
from auditad import plotting  # noqa: E402


# --------------------------------------------------------------------------- data
def _blobs(n_classes=8, per_class=40, dim=6, spread=None, seed=0):
    """Classes as Gaussian blobs; ``spread[c]`` scales class c (big spread = mixes with the others)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n_classes, dim)) * 30
    spread = spread if spread is not None else [1.0] * n_classes
    X = np.vstack([centres[c] + spread[c] * rng.normal(size=(per_class, dim)) for c in range(n_classes)])
    y = np.repeat(np.arange(n_classes), per_class)
    return X, y


@pytest.fixture(scope="module")
def separated():
    """Every class far from the others: L_k(c) = 0 and AUROC(c) = 1 for all, i.e. all points coincide."""
    from auditad.protocol import audit_protocol

    X, y = _blobs()
    return audit_protocol({"emb": X}, y, detectors=["knn"], leakage_k=5, random_state=0)


@pytest.fixture(scope="module")
def mixed():
    """Some classes spread into the others, some identical, some near random."""
    from auditad.protocol import audit_protocol

    X, y = _blobs(n_classes=10, spread=[1, 1, 1, 1, 25, 40, 60, 1, 80, 1], seed=3)
    return audit_protocol({"a": X, "b": X[:, :3]}, y, detectors=["knn", "lof"], leakage_k=5, random_state=0)


def _draw(fig):
    fig.draw_without_rendering()
    return fig.canvas.get_renderer() if hasattr(fig.canvas, "get_renderer") else st._renderer(fig)


def _boxes_overlap(a, b):
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def _point_labels(ax):
    return [t for t in ax.texts if isinstance(t, Annotation)]


def _all_texts(fig):
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


# --------------------------------------------------------------------------- leakage vs AUROC
def test_coincident_points_share_one_label_and_axes_respect_the_domains(separated):
    fig = Figure(figsize=(6, 4), layout="constrained")
    ax = plotting.plot_leakage_vs_auroc(separated, ax=fig.add_subplot())
    renderer = _draw(fig)
    rows = [r for r in separated.per_class_rows if r["detector"] == "ensemble"]
    assert all(r["leakage"] == 0 and r["auroc"] == 1 for r in rows)  # the degenerate case this test is about
    labels = _point_labels(ax)
    assert len(labels) == 1  # one group label, not eight labels printed over each other
    assert labels[0].get_text() == "0\u20137"  # the run of classes 0..7 as one range
    assert ax.get_xlim()[0] == 0.0 and ax.get_xlim()[1] > 0  # never negative leakage
    assert ax.get_ylim() == (0.0, 1.0)
    offsets = np.vstack([c.get_offsets() for c in ax.collections if len(c.get_offsets())])
    assert len(offsets) == len(rows)  # one point per class
    legend = ax.get_legend()
    assert not _boxes_overlap(legend.get_window_extent(renderer), ax.get_window_extent(renderer))
    assert all(not c.get_clip_on() for c in ax.collections if len(c.get_offsets()))  # points on the edge drawn


@pytest.mark.parametrize("rep", ["a", "b"])
def test_scatter_labels_never_overlap_each_other_or_leave_the_axes(mixed, rep):
    fig = plotting.leakage_vs_auroc_figure(mixed, representations=[rep])
    renderer = _draw(fig)
    ax = fig.axes[0]
    labels = _point_labels(ax)
    named = []
    for t in labels:
        for part in t.get_text().replace(",\n", ", ").split(", "):
            a, _, b = part.partition("\u2013")
            named += [str(c) for c in range(int(a), int(b or a) + 1)]
    assert sorted(named, key=int) == [str(c) for c in range(10)]  # every class named exactly once
    boxes = [Text.get_window_extent(t, renderer) for t in labels]  # the text, without a leader line
    for a, b in itertools.combinations(boxes, 2):
        assert not _boxes_overlap(a, b)
    axbox = ax.get_window_extent(renderer)
    for b in boxes:
        assert axbox.x0 - 1 <= b.x0 and b.x1 <= axbox.x1 + 1 and axbox.y0 - 1 <= b.y0 and b.y1 <= axbox.y1 + 1
    assert ax.get_xlim()[0] == 0.0 and ax.get_ylim() == (0.0, 1.0)


def test_selection_legend_lists_only_what_is_drawn():
    class Stub:  # plotting reads rows only; it computes nothing
        candidates = [
            {"family": "pixels", "true_auc": 0.9, "true_bound": 0.7, "true_mu_delta": 1.0},
            {"family": "pixels", "true_auc": 0.8, "true_bound": 0.6, "true_mu_delta": 1.0},
            {"family": "l2", "true_auc": 0.95, "true_bound": float("nan"), "true_mu_delta": 1.0},
            {"family": "pca", "true_auc": 0.7, "true_bound": 0.3, "true_mu_delta": 0.5},
        ]

    fig = Figure(figsize=(6, 4), layout="constrained")
    ax = plotting.plot_bound_vs_auc(Stub(), ax=fig.add_subplot())
    renderer = _draw(fig)
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["pixels", "pca"]  # l2 has no finite point
    assert not _boxes_overlap(legend.get_window_extent(renderer), ax.get_window_extent(renderer))
    drawn = sum(len(c.get_offsets()) for c in ax.collections)
    assert drawn == 3
    assert 0.0 <= ax.get_xlim()[0] and ax.get_xlim()[1] <= 1.0 and 0.0 <= ax.get_ylim()[0]
    markers = {tuple(np.round(c.get_paths()[0].vertices[:4].ravel(), 3)) for c in ax.collections}
    assert len(markers) == 2  # families differ by marker, not only by colour


# --------------------------------------------------------------------------- heatmap
def test_near_random_cells_are_framed_not_hatched_and_every_cell_has_its_number(mixed):
    fig = plotting.protocol_heatmap_figure(mixed, representations=["a"])
    _draw(fig)
    ax = fig.axes[0]
    rows = [r for r in mixed.per_class_rows if r["representation"] == "a"]
    near = sum(bool(r["near_random"]) for r in rows)
    frames = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_linestyle() != "solid"]
    assert len(frames) == near
    assert all(not p.get_hatch() for p in ax.patches)
    numbers = [t for t in ax.texts if t.get_text() != ""]
    assert len(numbers) == len(rows)  # classes x (detectors + mean)
    assert [t.get_text() for t in fig.legends[0].get_texts()][0].startswith("near random")


# --------------------------------------------------------------------------- leakage curve
def test_zero_leakage_curve_stays_visible():
    from auditad.leakage import leakage

    X, y = _blobs()
    res = leakage(X, y, k=[1, 5, 10])
    assert np.all(np.asarray(res.L) == 0)
    fig = plotting.leakage_curves_figure({"emb": res, "copy": res})
    _draw(fig)
    ax = fig.axes[0]
    curves = [ln for ln in ax.lines if ln.get_gid() != "chance"]
    assert len(curves) == 2
    assert ax.get_ylim()[0] == 0.0 and ax.get_ylim()[1] > 0
    for ln in curves:
        assert not ln.get_clip_on() and ln.get_zorder() > max(s.get_zorder() for s in ax.spines.values())
        assert np.all(ln.get_ydata() == 0)
    assert len({ln.get_marker() for ln in curves}) == 2  # overlapping curves stay apart by marker
    # chance (n - n_c) / (n - 1) = 280 / 319 is far above L_k = 0: named in the legend, not drawn
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(t.startswith(f"chance {280 / 319:.3f}") and "above" in t for t in texts)
    assert not [ln for ln in ax.lines if ln.get_gid() == "chance" and len(ln.get_ydata())]


# --------------------------------------------------------------------------- landscapes and nulls
@pytest.fixture(scope="module")
def land():
    from auditad.landscapes import landscape, landscape_difference, minimal_tpr

    res = landscape([0.05, 0.5], resolution=41)
    return res, landscape_difference(res, reference=0.5), minimal_tpr(res)


def test_region_labels_are_boxed_and_contours_labelled(land):
    fig = plotting.landscapes_figure(land[0], ratio=0.05)
    renderer = _draw(fig)
    ax = fig.axes[0]
    regions = [t for t in ax.texts if t.get_text() in {"R1", "R2", "R3", "R4", "R5"}]
    assert sorted(t.get_text() for t in regions) == ["R1", "R2", "R3", "R4", "R5"]
    assert all(t.get_bbox_patch() is not None and t.get_bbox_patch().get_facecolor()[:3] == (1, 1, 1) for t in regions)
    boxes = [t.get_window_extent(renderer) for t in regions]
    assert not any(_boxes_overlap(a, b) for a, b in itertools.combinations(boxes, 2))
    for a in fig.axes[: len(land[0].metrics)]:
        levels = [t.get_text() for t in a.texts if t.get_text() in {"0.25", "0.50", "0.75"}]
        assert len(levels) >= 2  # contours carry their values


def test_null_panels_one_legend_outside_and_domain(land):
    from auditad.nulls import null_distribution

    nulls = {
        c: null_distribution(20 + 5 * c, 200, metrics=("auroc",), observed={"auroc": 0.5 + 0.08 * c}) for c in range(5)
    }
    fig = plotting.nulls_figure(nulls, ncol=4)
    renderer = _draw(fig)
    visible = [a for a in fig.axes if a.get_visible()]
    assert len(visible) == 5
    legend = fig.legends[0]
    lb = legend.get_window_extent(renderer)
    assert not any(_boxes_overlap(lb, a.get_window_extent(renderer)) for a in visible)
    for a, (c, nr) in zip(visible, nulls.items()):
        lo, hi = a.get_xlim()
        assert 0.0 <= lo < hi <= 1.0
        assert nr["auroc"].observed == pytest.approx([ln.get_xdata()[0] for ln in a.lines][-1])
        assert a.get_legend() is None


# --------------------------------------------------------------------------- fonts and width
def _figures(separated, mixed, land):
    from auditad.leakage import leakage

    X, y = _blobs()
    yield plotting.leakage_curves_figure({"emb": leakage(X, y, k=[1, 5])})
    yield plotting.protocol_heatmap_figure(mixed)
    yield plotting.leakage_vs_auroc_figure(mixed)
    yield plotting.landscapes_figure(land[0], ratio=0.05)
    yield plotting.landscape_differences_figure(land[1], ratio=0.05)
    yield plotting.minimal_tpr_figure(land[2])


def test_report_figures_fill_the_content_width_with_text_of_at_least_10px(separated, mixed, land):
    for fig in _figures(separated, mixed, land):
        _draw(fig)
        assert fig.get_figwidth() == pytest.approx(st.CONTENT_WIDTH_IN)
        sizes = [t.get_fontsize() for t in _all_texts(fig)]
        assert sizes and min(sizes) * 4 / 3 >= 10.0  # pt -> CSS px at 100 % zoom (the SVG is shown 1:1)


def test_style_changes_no_global_state():
    before = dict(matplotlib.rcParams)
    with st.style_context():
        assert matplotlib.rcParams["font.size"] == st.FONT_PT
    assert dict(matplotlib.rcParams) == before


def test_bad_arguments_name_the_parameter(mixed):
    from auditad.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="representation"):
        plotting.plot_protocol_heatmap(mixed, representation="nope")
    with pytest.raises(InvalidInputError, match="detector"):
        plotting.plot_leakage_vs_auroc(mixed, detector="nope")
    with pytest.raises(InvalidInputError, match="where"):
        st.legend_outside(Figure().add_subplot(), where="inside", handles=[object()], labels=["x"])


# --------------------------------------------------------------------------- many classes
@pytest.fixture(scope="module")
def many():
    """300 classes of 4 samples: past every per-class figure limit."""
    from auditad.protocol import audit_protocol

    rng = np.random.default_rng(5)
    K = 300
    X = np.repeat(rng.normal(size=(K, 8)), 4, axis=0) + 0.3 * rng.normal(size=(4 * K, 8))
    y = np.repeat(np.arange(K), 4)
    return audit_protocol({"emb": X}, y, detectors=["knn", "lof"], k=3, leakage_k=3, repeats=1, random_state=0)


def test_heatmap_of_many_classes_keeps_a_bounded_size_and_no_per_cell_text(many):
    from auditad.plotting.protocol import MAX_HEATMAP_CLASSES

    fig = plotting.protocol_heatmap_figure(many)
    assert fig.get_figheight() == pytest.approx(1.6 + 0.3 * MAX_HEATMAP_CLASSES)
    _draw(fig)
    ax = fig.axes[0]
    assert len(ax.texts) == 0 and len(ax.get_yticks()) == 0 and len(ax.patches) == 0
    assert ax.images[0].get_array().shape == (300, 3)  # every class is still a row
    assert "300 rows" in ax.get_ylabel()


def test_scatter_of_many_classes_labels_only_the_lowest_auroc_classes(many):
    from auditad.protocol import MEAN

    fig = plotting.leakage_vs_auroc_figure(many)
    _draw(fig)
    ax = fig.axes[0]
    offsets = np.vstack([c.get_offsets() for c in ax.collections if len(c.get_offsets())])
    assert len(offsets) == 300  # every class drawn
    named = []
    for t in _point_labels(ax):
        for part in t.get_text().replace(",\n", ", ").split(", "):
            a, _, b = part.partition("\u2013")
            named += list(range(int(a), int(b or a) + 1))
    A = many.aurocs("emb", MEAN)
    lowest = sorted(np.lexsort((np.arange(300), A))[:10].tolist())
    assert sorted(named) == lowest
    assert any("lowest" in t.get_text() for t in ax.get_legend().get_texts())


def test_profile_curves_are_the_sorted_aurocs_and_cross_one_half_at_rho_inv(many):
    from auditad.protocol import MEAN

    ax = plotting.plot_protocol_profile(many)
    lines = [ln for ln in ax.get_lines() if len(ln.get_xdata()) > 2]
    assert len(lines) == 3  # knn, lof, mean
    for ln, det in zip(lines, ["knn", "lof", MEAN]):
        A = many.aurocs("emb", det)
        values = np.sort(A[np.isfinite(A)])
        np.testing.assert_array_equal(ln.get_ydata(), values)  # 300 <= MAX_PROFILE_POINTS: every class
        share_below = np.mean(values < 0.5)
        x, yv = np.asarray(ln.get_xdata()), np.asarray(ln.get_ydata())
        assert np.mean(x[yv < 0.5] <= share_below + 1e-12) == 1.0
        rates = many.rates("emb", det)
        assert share_below == pytest.approx(np.mean(rates.inverted))
    assert ax.get_xlim() == (0.0, 1.0) and ax.get_ylim() == (0.0, 1.0)


def test_profile_thins_long_curves_to_exact_order_statistics():
    from auditad.plotting.protocol import MAX_PROFILE_POINTS

    class Stub:  # the profile reads only these accessors
        epsilon = 0.05
        protocol = "leave_one_class_out"
        representation_names = ("r",)
        detector_names = ("d",)
        classes = np.arange(5000)
        values = np.random.default_rng(1).uniform(size=5000)

        def aurocs(self, rep, det):
            return self.values

        def rates(self, rep, det):
            return None

        def summary(self, rep, det):
            return {"rho_inv": 0.5, "rho_dir": 0.5}

        def detector_average(self, rep):
            return {"rho_inv": 0.5, "rho_dir": 0.5}

        def worst(self, rep):
            return {"rho_dir": 0.5, "rho_dir_detector": "d"}

    s = Stub()
    ax = plotting.plot_protocol_profile(s)
    ln = [ln for ln in ax.get_lines() if len(ln.get_xdata()) > 2][0]
    y = np.asarray(ln.get_ydata())
    assert len(y) <= MAX_PROFILE_POINTS
    srt = np.sort(s.values)
    assert y[0] == srt[0] and y[-1] == srt[-1] and np.isin(y, srt).all() and np.all(np.diff(y) >= 0)
