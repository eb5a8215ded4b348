"""Tests of auditad.nulls: brute-force enumeration, scikit-learn, scipy and Hermary et al. §IV."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from scipy.stats import mannwhitneyu
from sklearn.metrics import (
    auc,
    average_precision_score,
    f1_score,
    matthews_corrcoef,
    precision_recall_curve,
    roc_auc_score,
)

from auditad.errors import InvalidInputError
from auditad.nulls import (
    NullResult,
    auroc_null,
    auroc_null_moments,
    class_counts,
    expected_average_precision,
    mann_whitney_pmf,
    null_distribution,
    null_sweep,
)


def _all_rankings(n_pos, n_neg):
    """Every ranking of n_pos positives among n samples as (labels, scores) with scores = n - position."""
    n = n_pos + n_neg
    scores = np.arange(n, 0, -1, dtype=float)
    for combo in itertools.combinations(range(n), n_pos):
        y = np.zeros(n, int)
        y[list(combo)] = 1
        yield y, scores


def _weighted_summary(values, weights):
    values, weights = np.asarray(values, float), np.asarray(weights, float)
    mean = np.dot(values, weights)
    std = math.sqrt(np.dot((values - mean) ** 2, weights))
    above = values > mean + 1e-12
    mpd = np.dot(values[above] - mean, weights[above]) / weights[above].sum()
    return mean, std, mpd


# --------------------------------------------------------------------------- Mann-Whitney
@pytest.mark.parametrize("n_pos, n_neg", [(1, 1), (2, 3), (3, 4), (5, 2), (1, 7)])
def test_mann_whitney_pmf_equals_enumeration(n_pos, n_neg):
    counts = np.zeros(n_pos * n_neg + 1)
    for y, s in _all_rankings(n_pos, n_neg):
        counts[round(roc_auc_score(y, s) * n_pos * n_neg)] += 1
    np.testing.assert_allclose(mann_whitney_pmf(n_pos, n_neg), counts / counts.sum(), atol=1e-15)


@pytest.mark.parametrize("n_pos, n_neg, u", [(8, 11, 70), (12, 9, 80), (20, 30, 420), (3, 40, 100)])
def test_mann_whitney_tail_equals_scipy_exact(n_pos, n_neg, u):
    # data with exactly U = u: positives at 0-based ascending positions p_i with U = sum(p_i - i);
    # scipy's exact one-sided p-value is P(U >= u)
    pmf = mann_whitney_pmf(n_pos, n_neg)
    ranks, need = np.arange(n_pos), u
    for i in range(n_pos - 1, -1, -1):  # push the highest positives up first
        step = min(need, n_neg)
        ranks[i] += step
        need -= step
    assert need == 0
    x = ranks.astype(float)
    y = np.setdiff1d(np.arange(n_pos + n_neg), ranks).astype(float)
    res = mannwhitneyu(x, y, alternative="greater", method="exact")
    assert res.statistic == u
    assert pmf[u:].sum() == pytest.approx(res.pvalue, rel=1e-9)


@pytest.mark.parametrize("n_pos, n_neg", [(4, 9), (30, 70), (50, 400)])
def test_exact_auroc_moments(n_pos, n_neg):
    pmf = mann_whitney_pmf(n_pos, n_neg)
    values = np.arange(pmf.size) / (n_pos * n_neg)
    mean, sd = auroc_null_moments(n_pos, n_neg)
    assert np.dot(values, pmf) == pytest.approx(0.5, abs=1e-12)
    assert math.sqrt(np.dot((values - 0.5) ** 2, pmf)) == pytest.approx(sd, rel=1e-9)
    assert sd == pytest.approx(math.sqrt((n_pos + n_neg + 1) / (12 * n_pos * n_neg)))


def test_auroc_monte_carlo_matches_exact_moments():
    r = null_distribution(30, 70, metrics=["auroc"], method="monte_carlo", runs=20000, random_state=1)["auroc"]
    ex = null_distribution(30, 70, metrics=["auroc"])["auroc"]
    mean, sd = auroc_null_moments(30, 70)
    assert (r.method, r.runs, ex.method) == ("monte_carlo", 20000, "exact")
    assert abs(r.mean - mean) < 4 * sd / math.sqrt(20000)
    assert r.std == pytest.approx(sd, rel=0.03)
    assert r.q95 == pytest.approx(ex.q95, abs=0.01)
    assert r.mean_positive_deviation == pytest.approx(ex.mean_positive_deviation, rel=0.05)


def test_auroc_analytic_close_to_exact():
    """Large-n normal approximation vs the exact distribution where both are available."""
    from auditad.nulls.closed_form import normal_auroc_null

    ex = null_distribution(60, 200, metrics=["auroc"], observed={"auroc": 0.62})["auroc"]
    an = normal_auroc_null(60, 200, 0.62)
    assert ex.method == "exact" and an.method == "analytic"
    assert an.std == pytest.approx(ex.std, rel=1e-9)
    assert an.q95 == pytest.approx(ex.q95, abs=2e-3)
    assert an.p_value == pytest.approx(ex.p_value, rel=0.1)


def test_auroc_auto_switches_to_analytic():
    r = null_distribution(5000, 5000, metrics=["auroc"], observed={"auroc": 0.51})["auroc"]
    assert r.method == "analytic" and r.runs == 0
    assert r.std == pytest.approx(math.sqrt(10001 / (12 * 5000 * 5000)))
    assert 0.0 < r.p_value < 0.1


# --------------------------------------------------------------------------- AP / AUPR
@pytest.mark.parametrize("n_pos, n_neg", [(3, 7), (6, 3)])
def test_exact_ap_aupr_equal_sklearn_over_all_rankings(n_pos, n_neg):
    aps, auprs = [], []
    for y, s in _all_rankings(n_pos, n_neg):
        aps.append(average_precision_score(y, s))
        p, rc, _ = precision_recall_curve(y, s)
        auprs.append(auc(rc, p))
    w = np.full(len(aps), 1 / len(aps))
    r = null_distribution(n_pos, n_neg, metrics=["ap", "aupr_trap"])
    for name, vals in (("ap", aps), ("aupr_trap", auprs)):
        mean, std, mpd = _weighted_summary(vals, w)
        assert r[name].method == "exact"
        assert r[name].mean == pytest.approx(mean, abs=1e-12)
        assert r[name].std == pytest.approx(std, abs=1e-12)
        assert r[name].mean_positive_deviation == pytest.approx(mpd, abs=1e-12)
        assert r[name].q95 == pytest.approx(np.quantile(vals, 0.95, method="inverted_cdf"), abs=1e-12)
    assert r["ap"].mean == pytest.approx(expected_average_precision(n_pos, n_neg), abs=1e-12)


@pytest.mark.parametrize("n_pos, n_neg", [(5, 12), (12, 5), (9, 9)])
def test_monte_carlo_rankings_match_exact(n_pos, n_neg):
    """Both Monte Carlo paths (positions of the positives / of the negatives) against enumeration."""
    ex = null_distribution(n_pos, n_neg, metrics=["auroc", "ap", "aupr_trap"])
    mc = null_distribution(
        n_pos, n_neg, metrics=["auroc", "ap", "aupr_trap"], method="monte_carlo", runs=20000, random_state=3
    )
    for m in ("auroc", "ap", "aupr_trap"):
        assert mc[m].method == "monte_carlo"
        assert abs(mc[m].mean - ex[m].mean) < 4.5 * ex[m].std / math.sqrt(20000)
        assert mc[m].std == pytest.approx(ex[m].std, rel=0.04)


def _floyd_per_step(n, s, r, rng):
    """Floyd's algorithm one step at a time (one draw per step and row, a boolean mask): the oracle."""
    mask = np.zeros((r, n), dtype=bool)
    rows = np.arange(r)
    for t in range(n - s, n):
        u = rng.integers(0, t + 1, size=r)
        mask[rows, np.where(mask[rows, u], t, u)] = True
    return (np.nonzero(mask)[1].reshape(r, s) + 1).astype(np.float64)


@pytest.mark.parametrize(
    "n, s, r, seed", [(11000, 1000, 363, 0), (50, 10, 1000, 1), (20, 4, 5000, 2), (5, 1, 100, 3), (30, 6, 20000, 5)]
)
def test_random_subsets_equal_floyd_one_step_at_a_time(n, s, r, seed):
    """The vectorised collision resolution takes the same subsets from the same stream as the per-step loop
    (chains of collisions included: at n = 30, s = 6 many rows have them); the generator ends in the same state."""
    from auditad.nulls._kernels import _random_subsets

    a, b = np.random.default_rng(seed), np.random.default_rng(seed)
    assert np.array_equal(_random_subsets(n, s, r, a), _floyd_per_step(n, s, r, b))
    assert a.random() == b.random()


def test_ap_null_mean_is_about_the_ratio():
    # Hermary et al. §IV: the AP/AUPR baseline follows the anomaly proportion
    for n_pos, n_neg in [(100, 900), (900, 100), (50, 9950)]:
        r = null_distribution(n_pos, n_neg, metrics=["ap"], runs=4000, random_state=0)["ap"]
        e = expected_average_precision(n_pos, n_neg)
        assert r.method == "monte_carlo"
        assert abs(r.mean - e) < 4 * r.std / math.sqrt(4000)
        assert r.mean == pytest.approx(n_pos / (n_pos + n_neg), abs=0.012)
    assert expected_average_precision(10_000, 90_000) == pytest.approx(0.1, abs=1e-3)


# --------------------------------------------------------------------------- F1 / MCC
@pytest.mark.parametrize("q", ["coin", "prior", 0.3])
def test_exact_f1_mcc_equal_brute_force(q):
    n_pos, n_neg = 3, 5
    y = np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]
    qv = {"coin": 0.5, "prior": n_pos / 8}.get(q, q)
    f1s, mccs, ws = [], [], []
    for pred in itertools.product([0, 1], repeat=8):
        pred = np.array(pred)
        ws.append(qv ** pred.sum() * (1 - qv) ** (8 - pred.sum()))
        f1s.append(f1_score(y, pred, zero_division=0))
        mccs.append(matthews_corrcoef(y, pred))
    r = null_distribution(n_pos, n_neg, metrics=["f1", "mcc", "mcc_scaled"], q=q, observed={"f1": 0.6})
    assert r.q == pytest.approx(qv)
    for name, vals in (("f1", f1s), ("mcc", mccs)):
        mean, std, mpd = _weighted_summary(vals, ws)
        assert r[name].method == "exact"
        assert r[name].mean == pytest.approx(mean, abs=1e-12)
        assert r[name].std == pytest.approx(std, abs=1e-12)
        assert r[name].mean_positive_deviation == pytest.approx(mpd, abs=1e-12)
    assert r["f1"].p_value == pytest.approx(sum(w for v, w in zip(f1s, ws) if v >= 0.6 - 1e-12), abs=1e-12)
    assert r["mcc_scaled"].mean == pytest.approx((r["mcc"].mean + 1) / 2, abs=1e-12)


def test_thresholded_monte_carlo_matches_exact():
    ex = null_distribution(40, 160, metrics=["f1", "mcc"])
    mc = null_distribution(40, 160, metrics=["f1", "mcc"], method="monte_carlo", runs=20000, random_state=2)
    for m in ("f1", "mcc"):
        assert abs(mc[m].mean - ex[m].mean) < 4.5 * ex[m].std / math.sqrt(20000)
        assert mc[m].std == pytest.approx(ex[m].std, rel=0.04)


def test_coin_f1_null_mean_tends_to_paper_baseline():
    # Hermary et al. §IV / Figure 1: coin F1 baseline -> pi / (pi + 1/2); 0.664 at pi = 0.99
    r = null_distribution(9900, 100, metrics=["f1"])["f1"]
    assert r.method == "exact"
    assert r.mean == pytest.approx(0.99 / 1.49, abs=1e-3)
    assert round(r.mean, 3) == 0.664
    prior = null_distribution(9900, 100, metrics=["f1"], q="prior")["f1"]
    assert prior.mean == pytest.approx(0.99, abs=1e-3)  # 2 pi q / (q + pi) with q = pi


def test_degenerate_q_zero():
    r = null_distribution(5, 5, metrics=["f1", "mcc"], q=0.0, observed={"mcc": 0.0})
    assert r["f1"].mean == 0.0 and r["f1"].std == 0.0 and r["f1"].mean_positive_deviation == 0.0
    assert r["mcc"].p_value == pytest.approx(1.0)


# --------------------------------------------------------------------------- p-values, seeds, results
def test_monte_carlo_p_value_formula():
    r = null_distribution(50, 950, metrics=["ap"], runs=999, random_state=0, observed={"ap": 0.99})["ap"]
    assert r.p_value == pytest.approx(1 / 1000)  # (b + 1) / (R + 1) with b = 0
    r = null_distribution(50, 950, metrics=["ap"], runs=999, random_state=0, observed={"ap": 0.0})["ap"]
    assert r.p_value == 1.0


def test_exact_auroc_p_value_matches_scipy():
    rng = np.random.default_rng(5)
    x, y = rng.normal(0.8, 1, 9), rng.normal(0, 1, 14)
    labels = np.r_[np.ones(9, int), np.zeros(14, int)]
    obs = roc_auc_score(labels, np.r_[x, y])
    r = null_distribution(9, 14, metrics=["auroc"], observed={"auroc": obs})["auroc"]
    assert r.p_value == pytest.approx(mannwhitneyu(x, y, alternative="greater", method="exact").pvalue, rel=1e-9)


def test_seeded_reproducibility():
    a = null_distribution(30, 300, metrics=["ap", "f1"], method="monte_carlo", runs=500, random_state=7)
    b = null_distribution(30, 300, metrics=["ap", "f1"], method="monte_carlo", runs=500, random_state=7)
    c = null_distribution(30, 300, metrics=["ap", "f1"], method="monte_carlo", runs=500, random_state=8)
    assert a.to_dict() == b.to_dict()
    assert a["ap"].mean != c["ap"].mean
    # the threshold-free stream does not depend on which thresholded metrics are requested
    d = null_distribution(30, 300, metrics=["ap"], method="monte_carlo", runs=500, random_state=7)
    assert d["ap"].mean == a["ap"].mean


def test_result_containers():
    r = null_distribution(ratio=0.1, n=200, observed={"auroc": 0.7}, metrics=["auroc", "f1"], runs=200, random_state=0)
    assert isinstance(r, NullResult) and (r.n_pos, r.n_neg) == (20, 180)
    assert r.metrics == ("auroc", "f1")
    frame = r.to_frame()
    assert list(frame["metric"]) == ["auroc", "f1"] and "mean_positive_deviation" in frame.columns
    text = json.dumps(r.to_dict(), allow_nan=False)
    assert '"p_value": null' in text  # f1 has no observed score
    assert abs(sum(r["auroc"].hist_prob) - 1) < 1e-3
    assert "auroc" in r.summary_text()
    with pytest.raises(KeyError, match="ap"):
        r["ap"]


def test_class_counts():
    assert class_counts(3, 7) == (3, 7)
    assert class_counts(ratio=0.0019, n=1000) == (2, 998)
    assert class_counts(ratio=0.0001, n=100) == (1, 99)  # clipped to at least one anomaly


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(n_pos=0, n_neg=10), "n_pos"),
        (dict(n_pos=5, n_neg=0), "n_neg"),
        (dict(n_pos=5), "n_neg"),
        (dict(ratio=0.0, n=100), "ratio"),
        (dict(ratio=1.0, n=100), "ratio"),
        (dict(ratio=1.5, n=100), "ratio"),
        (dict(n_pos=5, n_neg=5, ratio=0.5), "not both"),
        (dict(n_pos=5, n_neg=5, metrics=["accuracy"]), "metrics"),
        (dict(n_pos=5, n_neg=5, q="half"), "q"),
        (dict(n_pos=5, n_neg=5, q=1.5), "q"),
        (dict(n_pos=5, n_neg=5, runs=0), "runs"),
        (dict(n_pos=5, n_neg=5, method="bootstrap"), "method"),
        (dict(n_pos=5, n_neg=5, observed={"auroc": 1.2}), "observed"),
        (dict(n_pos=5, n_neg=5, observed={"auroc": float("nan")}), "observed"),
        (dict(n_pos=5, n_neg=5, observed={"accuracy": 0.5}), "observed metric"),
        (dict(n_pos=500, n_neg=500, metrics=["ap"], method="exact"), "exact"),
        (dict(n_pos=5000, n_neg=5000, metrics=["auroc"], method="exact"), "exact"),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        null_distribution(**kwargs)


# --------------------------------------------------------------------------- sweep (Hermary et al. Figure 1)
def test_null_sweep_reproduces_figure_1_trends():
    s = null_sweep(n=100, runs=2000, random_state=0)
    frame = s.to_frame()
    assert set(frame["metric"]) == {"auroc", "ap", "aupr_trap", "f1", "mcc", "mcc_scaled"}
    assert len(frame) == 13 * 6
    au = frame[frame.metric == "auroc"]
    np.testing.assert_allclose(au["mean"], 0.5, atol=1e-12)  # exact at n = 100
    # AUROC mean positive deviation reaches ~0.25 at 99:1 (exact: uniform on {0, 1/99, ..., 1})
    assert au.set_index("requested_ratio").loc[0.99, "mean_positive_deviation"] == pytest.approx(
        np.mean(np.arange(50, 100) / 99) - 0.5, abs=1e-12
    )
    mc = frame[frame.metric == "mcc_scaled"]
    np.testing.assert_allclose(mc["mean"], 0.5, atol=5e-3)
    f1 = frame[frame.metric == "f1"].sort_values("ratio")
    assert np.all(np.diff(f1["mean"]) > 0)  # F1 baseline rises with the anomaly share
    ap = frame[frame.metric == "ap"]
    np.testing.assert_allclose(ap["mean"], ap["ratio"], atol=0.06)
    assert np.corrcoef(ap["mean"], ap["ratio"])[0, 1] > 0.99  # "varies approximately linearly"


def test_null_sweep_bad_ratios():
    with pytest.raises(InvalidInputError, match="ratios"):
        null_sweep([0.5, 1.0])


# --------------------------------------------------------------------------- plots and CLI
def test_null_plots_return_axes():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.axes import Axes

    from auditad.plotting import plot_null, plot_null_sweep

    r = null_distribution(20, 180, observed={"auroc": 0.8}, runs=300, random_state=0)
    ax = plot_null(r, metric="auroc")
    assert isinstance(ax, Axes) and any("observed" in t.get_text() for t in ax.get_legend().get_texts())
    assert isinstance(plot_null(r["f1"]), Axes)
    s = null_sweep([0.9, 0.5, 0.1], n=50, runs=200, random_state=0, metrics=["auroc", "f1"])
    ax = plot_null_sweep(s)
    assert len(ax.get_lines()) == 4  # mean and mean + MPD per metric
    assert ax.get_xlim()[0] > ax.get_xlim()[1]  # positive-majority on the left, as in Hermary et al. Figure 1


def test_cli_nulls(tmp_path, capsys):
    from auditad.cli import main

    out = tmp_path / "n.json"
    fig = tmp_path / "n.png"
    code = main(
        [
            "nulls",
            "--n-pos",
            "20",
            "--n-neg",
            "980",
            "--observed",
            "auroc=0.71",
            "--observed",
            "f1=0.2",
            "--runs",
            "500",
            "--json",
            str(out),
            "--figure",
            str(fig),
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "auroc" in text and "exact" in text
    payload = json.loads(out.read_text())
    ref = null_distribution(20, 980, observed={"auroc": 0.71, "f1": 0.2}, runs=500, random_state=0)
    assert payload["nulls"]["auroc"]["p_value"] == pytest.approx(ref["auroc"].p_value)
    assert payload["nulls"]["ap"]["runs"] == 500
    assert fig.stat().st_size > 1000


@pytest.mark.parametrize(
    "args, match",
    [
        (["--n-pos", "0", "--n-neg", "10"], "--n-pos must be >= 1"),  # the library says n_pos, the CLI --n-pos
        (["--n-pos", "5", "--n-neg", "10", "--observed", "auroc"], "METRIC=VALUE"),
        (["--n-pos", "5", "--n-neg", "10", "--observed", "auroc=1.7"], "observed"),
        (["--n-pos", "5", "--n-neg", "10", "--q", "half"], "--q"),
        (["--ratio", "1.2", "--n", "100"], "ratio"),
    ],
)
def test_cli_nulls_user_mistakes(args, match, capsys):
    from auditad.cli import main

    assert main(["nulls", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("auditad: error:") and match in err[0]


# --------------------------------------------------------------------------- the methods page's numbers
def test_methods_page_numbers():
    """Every number stated in docs/methods/metrics_nulls.md, recomputed (the page must say what the code gives)."""
    from pathlib import Path

    from auditad.metrics import operating_point_metrics

    page = (Path(__file__).resolve().parents[2] / "docs" / "methods" / "metrics_nulls.md").read_text()

    def stated(text):
        assert text in page, f"the methods page no longer states {text!r}"

    for (m, n), p1 in {
        (160, 160): "1.05e-95",
        (229, 223): "2.39e-135",
        (300, 700): "1.84e-264",
        (2000, 60): "2.92e-117",
    }.items():
        r = null_distribution(m, n, metrics=["auroc"], observed={"auroc": 1.0})
        a = r["auroc"]
        exact = 1 / math.comb(m + n, m)
        assert a.p_value == pytest.approx(exact, rel=1e-9)
        row = (
            f"| ({m}, {n}) | {a.method} | {a.std:.7f} ({math.sqrt((m + n + 1) / (12 * m * n)):.7f}) | "
            f"{a.q99:.4f} | {p1} (`{a.p_method}`) | {p1} |"
        )
        stated(row)
        assert f"{a.p_value:.3g}" == p1
    big = null_distribution(1000, 1000, metrics=["auroc"], observed={"auroc": 1.0})["auroc"]
    assert (big.p_value, big.p_upper_bound, round(big.log10_p, 2)) == (1e-300, True, -600.31)
    assert big.log10_p == pytest.approx(-math.log10(math.comb(2000, 1000)), abs=1e-9)
    stated(f"| (1000, 1000) | analytic | {big.std:.7f} ({big.std:.7f}) | {big.q99:.4f} | 4.9e-601")
    # AUROC 0.71 at (50, 9950) and (3, 97)
    r = null_distribution(50, 9950, metrics=["auroc"], observed={"auroc": 0.71})["auroc"]
    assert r.p_method == "chernoff_bound" and r.p_upper_bound
    stated(f"p ≤ {r.p_value:.2g} under random scores".replace("e-07", "e-7"))
    small = null_distribution(3, 97, metrics=["auroc"], observed={"auroc": 0.71})["auroc"]
    stated(f"the exact p = {small.p_value:.3f}, not significant")
    # ties: x = [1, 2, 3] vs y = [2]
    tied = auroc_null([1, 1, 1, 0], [1, 2, 3, 2])["auroc"]
    plain = null_distribution(3, 1, metrics=["auroc"], observed={"auroc": 0.5})["auroc"]
    stated(
        f"AUROC {tied.observed:g}, p = {tied.p_value:.3f} (0.673 without the\ntie correction, "
        f"{plain.p_value:g} from the untied exact null)"
    )
    # coin-flip F1 and the sweep
    sweep = null_sweep([0.99, 0.01], n=100, metrics=["auroc", "f1"])
    stated(f"(0.663 at π = 0.99 with n = 100, 0.664 for large n)")
    assert round(sweep.results[0]["f1"].mean, 3) == 0.663 and round(0.99 / 1.49, 3) == 0.664
    assert round(sweep.results[1]["f1"].mean, 3) == 0.020 and "(0.020 at π = 0.01, n = 100)" in page
    assert round(sweep.results[0]["auroc"].mean_positive_deviation, 4) == 0.2525 and "MPD = 0.2525" in page
    # paper checks of the operating-point closed forms
    assert operating_point_metrics(0.0, 1.0, 0.5).aupr_trap == 0.75
    assert round(operating_point_metrics(0.0, 0.1, 0.0019).mcc_scaled, 3) == 0.435
    stated("TNR 0.1 → scaled MCC = 0.435")


@pytest.mark.parametrize(
    "ties, expected",
    [
        ([1, 2, 3, 2], 0.6813),  # x = [1, 2, 3], y = [2]: scipy's tie-corrected asymptotic p-value
    ],
)
def test_tie_corrected_auroc_null_small_example(ties, expected):
    r = auroc_null([1, 1, 1, 0], ties)["auroc"]
    ref = mannwhitneyu([1, 2, 3], [2], alternative="greater", method="asymptotic", use_continuity=True)
    assert r.p_value == pytest.approx(ref.pvalue, rel=1e-12) and round(r.p_value, 4) == expected
    assert r.std == pytest.approx(math.sqrt((5 - 6 / 12) / 36), rel=1e-12)  # Var(U)/(mn)^2 with one tie pair


def test_heavily_tied_scores_match_scipy_not_the_untied_null():
    rng = np.random.default_rng(3)
    y = np.r_[np.ones(60, int), np.zeros(140, int)]
    s = np.r_[rng.integers(1, 4, 60), rng.integers(0, 3, 140)].astype(float)  # 4 levels, heavy ties
    r = auroc_null(y, s)
    ref = mannwhitneyu(s[y == 1], s[y == 0], alternative="greater", method="asymptotic", use_continuity=True)
    assert r["auroc"].p_value == pytest.approx(ref.pvalue, rel=1e-9)
    untied = null_distribution(60, 140, metrics=["auroc"], observed={"auroc": r["auroc"].observed})["auroc"]
    _, t = np.unique(s, return_counts=True)
    var_u = 60 * 140 / 12 * (201 - np.sum(t**3 - t) / (200 * 199))  # tie-corrected Var(U), by hand
    assert r["auroc"].std == pytest.approx(math.sqrt(var_u) / (60 * 140), rel=1e-12)
    assert r["auroc"].std < 0.96 * untied.std  # ties shrink the null
    assert r.tie_term > 0 and r.p_value(r["auroc"].observed) == r["auroc"].p_value


def test_null_result_keeps_its_distribution():
    r = null_distribution(20, 30, metrics=["auroc", "f1"], random_state=0)
    a = r["auroc"]
    assert a.probabilities.sum() == pytest.approx(1.0, abs=1e-12) and a.values.size == 601
    for x in (0.3, 0.5, 0.77, 0.95, 1.0):
        assert r.p_value(x) == pytest.approx(a.probabilities[a.values >= x - 1e-12].sum(), rel=1e-12)
    assert r.quantile(0.95) == a.q95 and r.quantile(0.99, "f1") == r["f1"].q99
    assert "values" not in a.to_dict() and "probabilities" not in json.dumps(r.to_dict())
    with pytest.raises(InvalidInputError, match="metric"):
        r.p_value(0.5, metric="ap")
    with pytest.raises(InvalidInputError, match="x"):
        r.p_value(1.5)


def test_no_global_cache():
    import importlib
    import pkgutil

    import auditad.nulls as package

    modules = [package] + [
        importlib.import_module(f"auditad.nulls.{m.name}") for m in pkgutil.iter_modules(package.__path__)
    ]
    assert not any(hasattr(getattr(mod, name), "cache_info") for mod in modules for name in dir(mod))
    a, b = mann_whitney_pmf(7, 9), mann_whitney_pmf(7, 9)
    a[0] = 99.0  # callers own their arrays
    assert b[0] != 99.0 and mann_whitney_pmf(7, 9)[0] != 99.0


def test_a_null_has_the_same_bits_with_one_blas_thread_or_several():
    # the report's nulls run in the client or on single-threaded Dask workers and must agree bit for bit;
    # a BLAS dot product over the exact F1/MCC support (10^4 values here) is split by the thread count
    from threadpoolctl import threadpool_limits

    def moments():
        res = null_distribution(
            10074, 10000, metrics=("f1", "mcc_scaled"), runs=200, random_state=np.random.default_rng(1)
        )
        return [(m.mean, m.std, m.mean_positive_deviation) for m in res.nulls]

    with threadpool_limits(limits=4, user_api="blas"):
        many = moments()
    with threadpool_limits(limits=1, user_api="blas"):
        one = moments()
    assert many == one


# --------------------------------------------------------------------------- observed AUROCs on their nulls
@pytest.mark.parametrize("n_pos,n_neg", [(4, 6), (7, 5)])
def test_place_observed_matches_scipy_and_the_enumerated_quantiles(n_pos, n_neg):
    from auditad.nulls import place_observed

    from sklearn.metrics import roc_auc_score

    null = null_distribution(n_pos, n_neg, metrics=["auroc"])
    # the null by enumeration of every ranking: its 95 % and 99 % quantiles (smallest value whose CDF reaches them)
    # (on the Mann-Whitney lattice U = AUROC * n_pos * n_neg, so that equal values compare equal)
    mn = n_pos * n_neg
    values = np.sort([round(roc_auc_score(y, s) * mn) for y, s in _all_rankings(n_pos, n_neg)])
    cdf = np.arange(1, values.size + 1) / values.size
    q95, q99 = (values[np.searchsorted(cdf, q - 1e-12)] for q in (0.95, 0.99))
    rng = np.random.default_rng(n_pos)
    for _ in range(20):
        pos, neg = rng.normal(0.8, 1, n_pos), rng.normal(0, 1, n_neg)
        a = roc_auc_score(np.r_[np.ones(n_pos), np.zeros(n_neg)], np.r_[pos, neg])
        o = place_observed(null, a)
        assert o.evaluated and o.auroc == a and o.p_method == "exact" and not o.p_upper_bound
        ref = mannwhitneyu(pos, neg, alternative="greater", method="exact").pvalue
        assert o.p_value == pytest.approx(ref, rel=1e-9) and o.log10_p_value == pytest.approx(math.log10(ref))
        assert (o.above_q95, o.above_q99) == (round(a * mn) > q95, round(a * mn) > q99)
        assert json.dumps(o.to_dict(), allow_nan=False)
    empty = place_observed(null, float("nan"))
    assert not empty.evaluated and set(empty.to_dict().values()) == {None}


def test_protocol_aurocs_placed_on_the_nulls_of_their_class_counts():
    from auditad.nulls import class_test_counts, observed_shares, place_protocol_aurocs
    from auditad.protocol import audit_protocol

    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(c, 1.0, (40, 3)) for c in range(4)])
    y = np.repeat([0, 1, 2, 3], 40)
    res = audit_protocol({"a": X, "b": X[:, :2]}, y, detectors=["knn", "lof"], leakage_k=0, random_state=0)
    counted = class_test_counts(res)
    per_class = res.per_class("a")
    assert [(lab, n_pos, n_neg) for _, lab, n_pos, n_neg in counted] == [
        (r["class"], r["n_pos"], r["n_neg"]) for r in per_class
    ]
    nulls = {(n_pos, n_neg): null_distribution(n_pos, n_neg, metrics=["auroc"]) for _, _, n_pos, n_neg in counted}
    classes = place_protocol_aurocs(res, nulls)
    assert [cn.label for cn in classes] == [0, 1, 2, 3]
    for i, cn in enumerate(classes):
        assert set(cn.observed) == {(rep, det) for rep in ("a", "b") for det in ("knn", "lof")}
        assert cn.null is nulls[(cn.n_pos, cn.n_neg)]
        for (rep, det), o in cn.observed.items():
            a = res.aurocs(rep, det)[i]
            ref = null_distribution(cn.n_pos, cn.n_neg, metrics=["auroc"], observed={"auroc": a})["auroc"]
            # one p per AUROC: the two-sided p of the audit's decision (the protocol tables' number); without ties
            # and with the exact null it is twice the exact one-sided tail P(AUROC_null >= a) for a > 1/2
            dec = res.significance(rep, det)
            assert (o.auroc, o.p_value, o.p_method) == (a, dec["p_value"][i], "two-sided, mann_whitney")
            assert o.status == dec["category"][i] and o.distinguishable == dec["distinguishable"][i]
            if a > 0.5 and ref.p_method == "exact":
                assert o.p_value == pytest.approx(min(1.0, 2 * ref.p_value), rel=1e-9)
            assert o.above_q95 == (a > ref.q95 + 1e-12)
        det, low = cn.lowest("b")
        assert low.auroc == min(res.aurocs("b", d)[i] for d in ("knn", "lof")) and low is cn.observed[("b", det)]
    shares = observed_shares(classes, "a")
    obs = [cn.observed[("a", det)] for cn in classes for det in ("knn", "lof")]
    assert shares.n_observed == 8
    q99 = [cn.null["auroc"].q99 for cn in classes for _ in ("knn", "lof")]
    assert shares.share_above_q99 == sum(o.auroc > q + 1e-12 for o, q in zip(obs, q99)) / 8
    assert shares.max_p_value == max(o.p_value for o in obs)
    none = observed_shares([], "a")
    assert none.n_observed == 0 and none.to_dict()["max_p_value"] is None
