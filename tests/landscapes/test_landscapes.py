"""Tests of auditad.landscapes: closed forms, brute-force numpy/scipy oracles and Hermary et al. checks."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from scipy.stats import kurtosis

from auditad.errors import InvalidInputError, SkippedItemWarning, UndefinedValueWarning
from auditad.landscapes import (
    PAPER_RATIOS,
    REGIONS,
    landscape,
    landscape_correlations,
    landscape_coverage,
    landscape_difference,
    landscape_regions,
    minimal_tpr,
    ratio_group,
)
from auditad.metrics import operating_point_metrics


@pytest.fixture(scope="module")
def paper():
    return landscape("paper", metrics=["auroc", "ap", "aupr_trap", "f1", "mcc", "mcc_scaled"])


def test_landscape_equals_operating_point_metrics():
    L = landscape([0.03, 0.7], metrics=["auroc", "ap", "aupr_trap", "f1", "mcc"], resolution=13)
    t = np.linspace(0, 1, 13)
    for r, pi in enumerate((0.03, 0.7)):
        op = operating_point_metrics(t[:, None], t[None, :], pi)
        for m, name in enumerate(L.metrics):
            np.testing.assert_array_equal(L.values[r, m], getattr(op, name))
    assert L.get("f1", 0.7).shape == (13, 13)


def test_paper_presets_and_labels(paper):
    assert paper.labels == tuple(PAPER_RATIOS)
    assert paper.values.shape == (10, 6, 101, 101)
    assert paper.ratio_index("UCR") == paper.ratio_index(0.0019) == 0


def test_auroc_landscape_identical_at_all_ratios(paper):
    # Hermary et al. §V-B: "AUROC shows no change, reflecting its invariance to class imbalance"
    au = paper.values[:, 0]
    assert np.all(au == au[0])
    d = landscape_difference(paper)
    assert np.all(d.values[:, 0] == 0)


def test_paper_point_checks(paper):
    bal = landscape([0.5], resolution=101)
    assert bal.get("aupr_trap", 0.5)[0, 100] == pytest.approx(0.75, abs=1e-15)  # TPR 0, TNR 1 (§V-C)
    assert round(float(paper.get("mcc_scaled", "UCR")[0, 10]), 3) == 0.435  # TPR 0, TNR 0.1 (§V-C)


def test_difference_against_reference(paper):
    d = landscape_difference(paper, reference=0.5)
    ref = landscape([0.5], metrics=paper.metrics).values[0]
    np.testing.assert_allclose(d.values, paper.values - ref[None], atol=0)
    np.testing.assert_allclose(d.max_decrease, (paper.values - ref[None]).min(axis=(2, 3)))
    # Hermary et al. §V-B (5:95): most of the AUPR landscape decreases by at least 0.2
    d5 = landscape_difference(landscape([0.05], metrics=["aupr_trap"]))
    assert np.mean(d5.get("aupr_trap", 0.05) <= -0.2) > 0.5
    self_diff = landscape_difference(landscape([0.3]), reference=0.3)
    assert np.all(self_diff.values == 0)
    assert len(d.to_frame()) == 60


def test_regions_against_numpy_scipy(paper):
    reg = landscape_regions(paper)
    t = paper.tpr
    for q, (name, ((a, b), (c, e))) in enumerate(REGIONS.items()):
        mask = ((t >= a - 1e-12) & (t <= b + 1e-12))[:, None] & ((t >= c - 1e-12) & (t <= e + 1e-12))[None, :]
        for r in (0, 5, 9):
            for m in range(len(paper.metrics)):
                v = paper.values[r, m][mask]
                assert reg.mean[r, m, q] == pytest.approx(v.mean(), abs=1e-12)
                assert reg.excess_kurtosis[r, m, q] == pytest.approx(kurtosis(v, fisher=True, bias=True), abs=1e-9)
    # AUROC means are (TPR + TNR) / 2 averaged over the region: R1 .05, R2 .5, R3 .5, R4 .95, R5 .5
    np.testing.assert_allclose(reg.mean[:, 0, :], np.tile([0.05, 0.5, 0.5, 0.95, 0.5], (10, 1)), atol=1e-12)
    assert set(reg.to_frame().columns) >= {"region", "mean", "excess_kurtosis"}
    assert reg.n_points.tolist() == [121] * 5


def test_regions_bad_input():
    L = landscape([0.5], resolution=11)
    with pytest.raises(InvalidInputError, match="regions"):
        landscape_regions(L, regions={"X": (0.1, 0.2)})
    with pytest.raises(InvalidInputError, match="lower bound"):
        landscape_regions(L, regions={"X": ((0.5, 0.2), (0, 1))})
    with pytest.raises(InvalidInputError, match="no grid point"):
        landscape_regions(L, regions={"X": ((0.01, 0.02), (0, 1))})


def test_minimal_tpr_closed_forms(paper):
    mt = minimal_tpr(paper)
    s = mt.scores
    assert s.tolist() == pytest.approx(np.arange(1, 21) * 0.05)
    au = paper.metrics.index("auroc")
    for r in range(10):
        # AUROC: TPR* = max(0, 2s - 1); at TPR* = 0 the TNR needed is 2s, else 1
        np.testing.assert_allclose(mt.min_tpr[r, au], np.maximum(0, 2 * s - 1), atol=1e-12)
        np.testing.assert_allclose(mt.tnr_needed[r, au], np.where(s <= 0.5, 2 * s, 1.0), atol=1e-12)
    bal = minimal_tpr(landscape([0.5], metrics=["aupr_trap", "mcc_scaled"]))
    # Hermary et al. §V-C: balanced AUPR needs no detected positive up to 0.75, but then TNR = 1
    ok = bal.scores <= 0.75 + 1e-12
    assert np.all(bal.min_tpr[0, 0][ok] == 0) and np.all(bal.min_tpr[0, 0][~ok] > 0)
    assert np.all(bal.tnr_needed[0, 0][(bal.scores > 0.25 + 1e-12) & ok] == 1.0)
    # ... and MCC (scaled) needs no detected positive up to 0.5
    ok = bal.scores <= 0.5 + 1e-12
    assert np.all(bal.min_tpr[0, 1][ok] == 0) and np.all(bal.min_tpr[0, 1][~ok] > 0)


def test_minimal_tpr_unreachable_is_nan():
    mt = minimal_tpr(landscape([0.5], metrics=["f1"], resolution=11), scores=[0.5, 1.5])
    assert mt.min_tpr[0, 0, 0] == pytest.approx(0.4) and np.isnan(mt.min_tpr[0, 0, 1])
    d = mt.to_dict()
    assert d["records"][1]["min_tpr"] is None
    with pytest.raises(InvalidInputError, match="scores"):
        minimal_tpr(landscape([0.5], resolution=11), scores=[np.nan])


def test_coverage_auroc_triangular():
    cov = landscape_coverage(landscape([0.2, 0.8], metrics=["auroc", "mcc", "f1"], resolution=401))
    np.testing.assert_allclose(cov.coverage.sum(axis=2), 1.0, atol=1e-12)
    # (TPR + TNR)/2 with TPR, TNR uniform has the triangular density 4 - 8|x - 1/2| on [0, 1]
    e = cov.bin_edges[0]

    def cdf(x):
        return np.where(x <= 0.5, 2 * x**2, 1 - 2 * (1 - x) ** 2)

    np.testing.assert_allclose(cov.coverage[0, 0], np.diff(cdf(e)), atol=3e-3)
    np.testing.assert_allclose(cov.bin_edges[1, [0, -1]], [-1, 1])  # raw MCC on [-1, 1]
    assert len(cov.to_frame()) == 2 * 3 * 20


def test_coverage_cifar_aupr_concentrated(paper):
    # Hermary et al. App. B: at the CIFAR-10 ratio more than 40 % of the AUPR landscape is near 0.95
    cov = landscape_coverage(paper)
    k, r = paper.metrics.index("aupr_trap"), paper.ratio_index("CIFAR-10")
    assert cov.coverage[r, k, -2:].sum() > 0.4


def test_correlations_pearson_and_tucker(paper):
    sub = landscape("paper", metrics=["auroc", "aupr_trap", "f1", "mcc_scaled"], resolution=51)
    with pytest.warns(UndefinedValueWarning, match="medium.*n_factors=2"):
        rel = landscape_correlations(sub)
    assert rel.groups == ("low", "medium", "high")
    # Medium: one factor reaches the 90 % cut -> congruence would be sign(L_a L_b) = 1 for every pair
    assert rel.tucker_degenerate == (False, True, False) and rel.n_factors[1] == 1
    off = ~np.eye(4, dtype=bool)
    assert np.all(np.isnan(rel.tucker[1][off])) and np.all(np.isfinite(rel.tucker[[0, 2]][:, off]))
    fixed = landscape_correlations(sub, n_factors=2)
    assert fixed.factor_rule == "fixed: n_factors=2" and not any(fixed.tucker_degenerate)
    assert np.all(np.abs(fixed.tucker[1][off]) < 1.0 - 1e-6)  # informative again
    assert rel.members[0] == ("UCR", "WaDi", "VisA (L)", "MVTec (L)")
    idx = [sub.ratio_index(x) for x in rel.members[2]]
    X = sub.values[idx].transpose(0, 2, 3, 1).reshape(-1, 4)
    np.testing.assert_allclose(rel.pearson[2], np.corrcoef(X, rowvar=False), atol=1e-12)
    # with every factor kept, Tucker's congruence equals the correlation
    full = landscape_correlations(sub, variance=1.0)
    np.testing.assert_allclose(full.tucker, full.pearson, atol=1e-9)
    assert np.all(rel.explained >= 0.9 - 1e-12)
    # Hermary et al. §VI, High regime: AUROC-MCC Tucker 0.997 and Pearson 0.983
    full_grid = landscape_correlations(landscape(["CIFAR-10", "VisA", "MVTec"], metrics=sub.metrics))
    assert full_grid.pearson[0, 0, 3] == pytest.approx(0.983, abs=0.005)
    assert full_grid.tucker[0, 0, 3] == pytest.approx(0.997, abs=0.005)
    assert json.dumps(rel.to_dict(), allow_nan=False)
    assert len(rel.to_frame()) == 3 * 6


def test_correlation_groups():
    L = landscape([0.0019, 0.5, 0.9], resolution=21)
    with pytest.warns(SkippedItemWarning, match="50%"):
        rel = landscape_correlations(L)
    assert rel.groups == ("low", "high")
    # a ratio given as a number is labelled by its value, never by a preset name (issue: 0.0019 became "UCR")
    with pytest.warns(UndefinedValueWarning, match="group.s. 50%"):  # one factor at π = ½
        assert landscape_correlations(L, groups="each").groups == ("0.19%", "50%", "90%")
    assert landscape_correlations(L, groups="all").members == (("0.19%", "50%", "90%"),)
    assert landscape([0.0019, "UCR"], resolution=3).labels == ("0.19%", "UCR")
    with pytest.warns(SkippedItemWarning, match="0.19%, 90%"), pytest.warns(UndefinedValueWarning, match="mid"):
        mid = landscape_correlations(L, groups={"mid": (0.4, 0.6)}, variance=0.5)
    assert mid.members == (("50%",),)
    with pytest.raises(InvalidInputError, match="no ratio"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SkippedItemWarning)
            landscape_correlations(L, groups={"none": (0.6, 0.7)})
    with pytest.raises(InvalidInputError, match="two metrics"):
        landscape_correlations(landscape([0.5], metrics=["f1"], resolution=5))
    assert (ratio_group(0.0577), ratio_group(0.1005), ratio_group(0.2776), ratio_group(0.555)) == (
        "low",
        "medium",
        "medium",
        "high",
    )


def test_result_serialisation():
    L = landscape(["UCR", 0.25], metrics=["f1", "mcc"], resolution=5)
    frame = L.to_frame()
    assert len(frame) == 2 * 2 * 25 and list(frame.columns) == ["ratio", "label", "metric", "tpr", "tnr", "value"]
    row = frame[(frame.label == "25%") & (frame.metric == "mcc") & (frame.tpr == 1.0) & (frame.tnr == 0.5)]
    assert row["value"].item() == pytest.approx(operating_point_metrics(1.0, 0.5, 0.25).mcc)
    assert json.dumps(L.to_dict(), allow_nan=False)
    assert json.dumps(landscape_difference(L).to_dict(), allow_nan=False)
    assert L.labels == ("UCR", "25%")
    assert landscape({"mine": 0.3}, resolution=3).labels == ("mine",)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(ratios=[0.0]), "ratios"),
        (dict(ratios=[1.0]), "ratios"),
        (dict(ratios=[-0.2]), "ratios"),
        (dict(ratios=["Nope"]), "preset"),
        (dict(ratios=[]), "at least one"),
        (dict(ratios=[0.5], metrics=["accuracy"]), "metrics"),
        (dict(ratios=[0.5], resolution=1), "resolution"),
    ],
)
def test_landscape_bad_input(kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        landscape(**kwargs)


def test_get_bad_keys():
    L = landscape([0.5], resolution=3)
    with pytest.raises(InvalidInputError, match="ratio"):
        L.get("auroc", 0.3)
    with pytest.raises(InvalidInputError, match="metric"):
        L.get("ap", 0.5)
    with pytest.raises(InvalidInputError, match="reference"):
        landscape_difference(L, reference=1.0)


# --------------------------------------------------------------------------- plots and CLI
def test_landscape_plots_return_axes():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.axes import Axes

    from auditad.plotting import plot_coverage, plot_landscape, plot_landscape_difference, plot_minimal_tpr

    L = landscape(["UCR", 0.5], resolution=21)
    ax = plot_landscape(L, metric="f1", ratio="UCR", regions=True)
    assert isinstance(ax, Axes) and "UCR" in ax.get_title()
    np.testing.assert_array_equal(ax.images[0].get_array(), L.get("f1", "UCR").T)  # x = TPR, y = TNR
    ax = plot_landscape_difference(landscape_difference(L), metric="aupr_trap", ratio=0.0019)
    assert ax.images[0].get_clim()[0] == -ax.images[0].get_clim()[1]
    assert isinstance(plot_minimal_tpr(minimal_tpr(L), metric="mcc_scaled"), Axes)
    assert len(plot_coverage(landscape_coverage(L), metric="auroc").get_lines()) == 2


def test_cli_landscape(tmp_path, capsys):
    from auditad.cli import main

    out = tmp_path / "land"
    code = main(["landscape", "--ratio", "0.0019", "--ratio", "0.5", "--resolution", "21", "--out", str(out)])
    assert code == 0
    cap = capsys.readouterr()
    assert "50%" in cap.err  # the balanced ratio is outside every group (note on stderr)
    names = {p.name for p in out.iterdir()}
    assert {
        "landscape.csv",
        "regions.csv",
        "minimal_tpr.csv",
        "coverage.csv",
        "correlations.csv",
        "differences.csv",
        "landscape_0.19pct.png",
        "difference_50pct.png",
        "minimal_tpr.png",
    } <= names
    assert not any("UCR" in name for name in names)  # the user gave a number, not the preset
    import pandas as pd

    frame = pd.read_csv(out / "landscape.csv")
    assert len(frame) == 2 * 4 * 21 * 21
    code = main(
        [
            "landscape",
            "--ratio",
            "MVTec",
            "--metric",
            "f1",
            "--no-figures",
            "--resolution",
            "11",
            "--out",
            str(out / "sub"),
        ]
    )
    assert code == 0 and not list((out / "sub").glob("*.png"))


@pytest.mark.parametrize(
    "args, match",
    [
        (["--ratio", "1.5"], "--ratio must be < 1.0"),  # the library says ratios=, the CLI --ratio
        (["--ratio", "Nope"], "preset"),
        (["--ratio", "0.2", "--resolution", "1"], "resolution"),
    ],
)
def test_cli_landscape_user_mistakes(tmp_path, args, match, capsys):
    from auditad.cli import main

    assert main(["landscape", *args, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("auditad: error:") and match in err[0]
    assert not (tmp_path / "o").exists()


def test_at_equals_grid_values_and_closed_forms():
    L = landscape([0.0019, 0.5, 0.9], resolution=11)
    for i in (0, 3, 10):
        for j in (0, 7, 10):
            np.testing.assert_allclose(L.at(L.tpr[i], L.tnr[j]), L.values[:, :, i, j], rtol=0, atol=1e-15)
    # off the grid: the closed form of operating_point_metrics (Hermary et al. §V-C: UCR, TPR 0, TNR 0.1)
    assert L.at(0.0, 0.1, metric="mcc_scaled", ratio=0.0019) == pytest.approx(0.435, abs=5e-4)
    assert L.at(0.0, 1.0, metric="aupr_trap", ratio=0.5) == 0.75
    assert L.at(0.33, 0.71, ratio=0.9).shape == (4,) and L.at(0.33, 0.71, metric="auroc").tolist() == [0.52] * 3
    with pytest.raises(InvalidInputError, match="tpr"):
        L.at(1.5, 0.2)


@pytest.mark.parametrize(
    "fn", [minimal_tpr, landscape_coverage, landscape_regions, landscape_difference, landscape_correlations]
)
@pytest.mark.parametrize("bad", [None, "UCR", np.zeros((2, 2))])
def test_functions_refuse_a_non_landscape(fn, bad):
    with pytest.raises(InvalidInputError, match="result must be a LandscapeResult"):
        fn(bad)


def test_public_index_helpers():
    from auditad import landscapes as mod

    L = landscape(["UCR", 0.25], resolution=3)
    assert mod.ratio_index(L.ratios, L.labels, "UCR") == 0 and mod.ratio_index(L.ratios, L.labels, 0.25) == 1
    assert mod.metric_index(L.metrics, "f1") == 2 and mod.metric_range("mcc") == (-1.0, 1.0)
    assert not hasattr(mod, "_ratio_index") and not hasattr(mod, "_metric_index")  # the old private aliases are gone


def test_methods_page_numbers():
    """Every number stated in docs/methods/landscapes.md, recomputed on the 101-point grid."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "methods" / "landscapes.md").read_text()
    L = landscape("paper")
    # coverage of AUPR-trapezoid at π = 90 % (CIFAR-10): the old page said "> 60 % near 0.95"
    cov = landscape_coverage(L)
    k, r = L.metrics.index("aupr_trap"), L.ratio_index("CIFAR-10")
    top, top2 = cov.coverage[r, k, -1], cov.coverage[r, k, -2:].sum()
    assert f"[0.95, 1.00] on {100 * top:.1f} % of the landscape and in [0.90, 1.00] on {100 * top2:.1f} %" in page
    assert (round(100 * top, 1), round(100 * top2, 1)) == (32.4, 66.4)
    # minimal TPR: UCR scaled MCC 0.4 needs no detected anomaly and TNR 0.05; balanced AUPR 0.75 needs TPR 0, TNR 1
    mt = minimal_tpr(L, scores=[0.4, 0.75])
    m, u = L.metrics.index("mcc_scaled"), L.ratio_index("UCR")
    assert (mt.min_tpr[u, m, 0], mt.tnr_needed[u, m, 0]) == (0.0, 0.05)
    assert "scaled MCC of 0.4 needs no detected anomaly\n  and only 5 % of normals right" in page
    bal = minimal_tpr(landscape([0.5], metrics=["aupr_trap"]), scores=[0.75])
    assert (bal.min_tpr[0, 0, 0], bal.tnr_needed[0, 0, 0]) == (0.0, 1.0)
    # metric relations per group
    with pytest.warns(UndefinedValueWarning):
        rel = landscape_correlations(L)
    assert tuple(rel.n_factors) == (3, 1, 2)
    assert [round(100 * e, 1) for e in rel.explained] == [97.6, 91.0, 94.7]
    assert "one factor explains 91.0 %; the Low group keeps 3 factors, 97.6 %,\n  the High group 2, 94.7 %" in page
    a, mc, ap = 0, L.metrics.index("mcc_scaled"), L.metrics.index("aupr_trap")
    assert (round(rel.pearson[2, a, mc], 3), round(rel.tucker[2, a, mc], 3)) == (0.983, 0.998)
    assert "(Pearson 0.983, Tucker 0.998 vs 0.997 reported)" in page
    two = landscape_correlations(L, n_factors=2)
    assert (round(two.tucker[1, a, mc], 4), round(two.tucker[1, a, ap], 3), round(two.pearson[1, a, ap], 3)) == (
        0.9997,
        0.851,
        0.841,
    )
    assert "congruence is 1.000 (0.9997) and its AUROC–AUPR congruence 0.851, next to Pearson 0.841" in page
    assert L.tpr.size == 101 and np.allclose(np.diff(L.tpr), 0.01)
