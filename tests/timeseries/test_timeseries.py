"""auditad.timeseries: every metric against a brute-force oracle written here, the nulls against full simulations
of uniform random scores, and the command ``auditad timeseries`` end to end on generated label structures."""

from __future__ import annotations

import json

import numpy as np
import pytest

from auditad.errors import InvalidInputError
from auditad.timeseries import (
    best_range_f1,
    label_structure,
    pa_k_area,
    range_precision_recall,
    segments,
    threshold_curve,
)
from auditad.timeseries.nulls import (
    fixed_threshold_null,
    pa_expected_counts,
    prediction_metrics,
    random_null,
    random_range_null,
    trivial_baselines,
)


# --------------------------------------------------------------------------- oracles
def _runs(y):
    """(start, end exclusive) of the runs of 1, by a plain loop."""
    out, start = [], None
    for i, v in enumerate(list(y) + [0]):
        if v and start is None:
            start = i
        if not v and start is not None:
            out.append((start, i))
            start = None
    return out


def _adjust(y, pred, k):
    """Kim et al.'s PA%K adjustment, as their published loop: a segment is set to 1 when more than k % of it is."""
    pred = np.array(pred, dtype=int)
    for a, b in _runs(y):
        if pred[a:b].sum() > k / 100 * (b - a):
            pred[a:b] = 1
    return pred


def _f1(y, pred):
    tp = int(((pred == 1) & (y == 1)).sum())
    fp = int(((pred == 1) & (y == 0)).sum())
    fn = int(((pred == 0) & (y == 1)).sum())
    return 0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn)


def _best(y, s, metric):
    """Best over every distinct threshold (and predicting nothing), brute force."""
    return max([0.0] + [metric(y, (s >= t).astype(int)) for t in np.unique(s)])


def _composite(y, pred):
    tp = int(((pred == 1) & (y == 1)).sum())
    fp = int(((pred == 1) & (y == 0)).sum())
    p = tp / (tp + fp) if tp + fp else 0.0
    r = np.mean([pred[a:b].any() for a, b in _runs(y)])
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def _range_pr(y, pred, alpha=0.0, reciprocal=False):
    """Tatbul et al.'s range-based precision and recall, flat bias, one range at a time."""

    def side(a_ranges, b_ranges, b, alpha):
        vals = []
        for s, e in a_ranges:
            cover = sum(b[s:e]) / (e - s)
            n_over = sum(1 for bs, be in b_ranges if bs < e and be > s)
            gamma = 1.0 / n_over if (reciprocal and n_over > 1) else 1.0
            vals.append(alpha * (cover > 0) + (1 - alpha) * gamma * cover)
        return float(np.mean(vals)) if vals else 0.0

    ry, rp = _runs(y), _runs(pred)
    return side(rp, ry, list(y), 0.0), side(ry, rp, list(pred), alpha)


def _labels(rng, n=400, n_seg=6, max_len=25):
    y = np.zeros(n, dtype=int)
    for _ in range(n_seg):
        a = int(rng.integers(0, n - max_len))
        y[a : a + int(rng.integers(1, max_len))] = 1
    if y.sum() == 0:
        y[0] = 1
    return y


# --------------------------------------------------------------------------- metrics against the oracles
@pytest.mark.parametrize("seed", range(6))
def test_threshold_curve_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    y = _labels(rng, n=150)
    s = np.round(rng.random(y.size), 1 if seed % 2 else 6)  # ties on odd seeds
    c = threshold_curve(y, s)
    assert c.best("f1")[0] == pytest.approx(_best(y, s, _f1))
    assert c.best("pa_f1")[0] == pytest.approx(_best(y, s, lambda y, p: _f1(y, _adjust(y, p, 0))))
    assert c.best("composite_f1")[0] == pytest.approx(_best(y, s, _composite))
    for i in (0, len(c.thresholds) // 2, len(c.thresholds) - 1):  # every threshold, not only the best
        pred = (s >= c.thresholds[i]).astype(int)
        assert c.f1("pa_f1")[i] == pytest.approx(_f1(y, _adjust(y, pred, 0)))


def test_point_wise_best_f1_matches_scikit_learn():
    from sklearn.metrics import precision_recall_curve

    rng = np.random.default_rng(7)
    y = _labels(rng, n=2000, n_seg=20)
    s = rng.normal(size=y.size) + y
    p, r, _ = precision_recall_curve(y, s)
    f = np.where(p + r > 0, 2 * p * r / np.maximum(p + r, 1e-300), 0)
    assert threshold_curve(y, s).best("f1")[0] == pytest.approx(f.max())


@pytest.mark.parametrize("seed", range(4))
def test_pa_k_matches_the_published_adjustment_loop(seed):
    rng = np.random.default_rng(seed)
    y = _labels(rng, n=120, max_len=30)
    s = rng.random(y.size)
    ks = [0, 10, 33, 50, 90, 100]
    _, f1, area = pa_k_area(y, s, ks=ks)
    want = [_best(y, s, lambda y, p, k=k: _f1(y, _adjust(y, p, k))) for k in ks]
    assert f1 == pytest.approx(want)
    assert f1[0] == pytest.approx(threshold_curve(y, s).best("pa_f1")[0])  # K = 0 is point adjustment
    assert f1[-1] == pytest.approx(threshold_curve(y, s).best("f1")[0])  # K = 100 is point-wise
    assert area == pytest.approx(np.trapezoid(want, ks) / 100)


def test_pa_worked_example():
    """Xu et al.'s adjustment on one segment of 5: one point over the threshold counts as 5 true positives."""
    y = np.array([0, 0, 1, 1, 1, 1, 1, 0, 0, 0])
    s = np.array([0.1, 0.2, 0.1, 0.9, 0.1, 0.1, 0.1, 0.3, 0.1, 0.1])
    c = threshold_curve(y, s)
    assert c.best("pa_f1") == (1.0, 0.9)  # TP 5, FP 0
    i = int(np.flatnonzero(c.thresholds == 0.3)[0])
    assert (c.tp[i], c.tp_pa[i], c.fp[i]) == (1, 5, 1)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("reciprocal", [False, True])
@pytest.mark.parametrize("alpha", [0.0, 0.4])
def test_range_based_matches_the_definition(seed, reciprocal, alpha):
    rng = np.random.default_rng(seed)
    y = _labels(rng, n=100, max_len=15)
    pred = (rng.random(y.size) < 0.3).astype(int)
    got = range_precision_recall(y, pred, alpha=alpha, cardinality="reciprocal" if reciprocal else "one")
    assert got == pytest.approx(_range_pr(y, pred, alpha=alpha, reciprocal=reciprocal))


def test_range_based_worked_example():
    """One real range of 4, covered half by a prediction that is half inside it: P = R = 1/2 per range."""
    y = np.array([0, 1, 1, 1, 1, 0, 0, 0])
    pred = np.array([0, 0, 0, 1, 1, 1, 1, 0])
    assert range_precision_recall(y, pred) == (0.5, 0.5)
    assert best_range_f1(y, np.array([0, 1, 1, 1, 1, 0, 0, 0.0]))[0] == 1.0


def test_flag_all_is_two_p_over_one_plus_p_under_every_metric():
    rng = np.random.default_rng(3)
    y = _labels(rng, n=1000, n_seg=12)
    p = y.mean()
    b = trivial_baselines(y)
    for m in ("f1", "pa_f1", "composite_f1", "pa_k_area", "range_f1"):
        assert b["flag_all"][m] == pytest.approx(2 * p / (1 + p)), m
        assert b["flag_none"][m] == 0.0
    period = b["periodic"]["period"]
    pred = (np.arange(y.size) % period == 0).astype(int)
    assert b["periodic"]["pa_f1"] == pytest.approx(_f1(y, _adjust(y, pred, 0)))
    assert prediction_metrics(y, pred)["f1"] == pytest.approx(_f1(y, pred))


def test_label_structure():
    y = np.array([1, 1, 0, 0, 1, 0, 0, 0, 0, 0])
    s = label_structure(y)
    assert s.lengths.tolist() == [2, 1] and s.touches_end and s.n_segments == 2 and s.ratio == 0.3
    assert [tuple(x) for x in zip(*segments(y))] == _runs(y)


# --------------------------------------------------------------------------- nulls against full simulations
def _msl_like(seed=0, n=20_000, n_seg=12, ratio=0.105):
    """A series with the shape of NASA MSL's test labels: few long segments, about 10 % anomalous."""
    rng = np.random.default_rng(seed)
    lengths = rng.lognormal(np.log(120), 1.0, n_seg)
    lengths = np.maximum(5, np.round(lengths / lengths.sum() * ratio * n)).astype(int)
    y = np.zeros(n, dtype=np.int8)
    gaps = rng.multinomial(n - lengths.sum() - n_seg, np.ones(n_seg + 1) / (n_seg + 1)) + 1
    pos = 0
    for g, L in zip(gaps, lengths):
        pos += g
        y[pos : pos + L] = 1
        pos += L
    return y


def test_random_null_matches_a_full_simulation_of_uniform_scores():
    """The order-statistics sampler against scoring every point with a uniform and taking the best threshold."""
    rng = np.random.default_rng(11)
    y = _labels(rng, n=600, n_seg=8, max_len=40)
    n_draws = 400
    fast = random_null(y, n_draws=n_draws, random_state=1)
    full = {m: [] for m in ("f1", "pa_f1", "composite_f1", "pa_k_area")}
    for _ in range(n_draws):
        c = threshold_curve(y, rng.random(y.size))
        full["f1"].append(c.best("f1")[0])
        full["pa_f1"].append(c.best("pa_f1")[0])
        full["composite_f1"].append(c.best("composite_f1")[0])
    for _ in range(100):
        full["pa_k_area"].append(pa_k_area(y, rng.random(y.size))[2])
    for m, values in full.items():
        se = np.hypot(np.std(values) / np.sqrt(len(values)), fast[m].mc_error)
        assert abs(fast[m].mean - np.mean(values)) < 4 * se + 1e-9, m


def test_random_pa_f1_is_high_on_msl_like_labels():
    """Random scores with the best threshold reach a PA-F1 near 0.9 on MSL-shaped labels (89.88 % reported on
    MSL in OmniAnomaly's issue tracker; Kim et al. 2022 report the same effect), while point-wise F1 stays at
    the flag-all value 2p/(1+p)."""
    y = _msl_like()
    nulls = random_null(y, n_draws=200, random_state=0)
    p = y.mean()
    assert 0.8 < nulls["pa_f1"].mean < 0.97
    assert nulls["f1"].mean == pytest.approx(2 * p / (1 + p), abs=0.01)
    assert nulls["pa_f1"].p_value(0.5) == 1.0 and nulls["pa_f1"].p_value(1.0) < 0.01


def test_fixed_threshold_null_closed_form():
    rng = np.random.default_rng(5)
    y = _labels(rng, n=3000, n_seg=15, max_len=60)
    _, lengths = np.unique(np.cumsum(np.diff(np.concatenate(([0], y))) == 1)[y == 1], return_counts=True)
    rate = 0.05
    e_tp, e_fp = pa_expected_counts(lengths, int((y == 0).sum()), rate)
    draws = rng.random((4000, y.size)) < rate  # the full simulation
    tp_pa = [sum(L for (a, b), L in zip(_runs(y), lengths) if d[a:b].any()) for d in draws[:400]]
    assert np.mean(tp_pa) == pytest.approx(e_tp, rel=0.05)
    assert draws[:, y == 0].sum(axis=1).mean() == pytest.approx(e_fp, rel=0.02)
    nulls = fixed_threshold_null(y, rate=rate, n_draws=2000, random_state=0)
    assert nulls["pa_f1"].mean == pytest.approx(nulls["pa_f1"].exact, abs=0.02)
    assert nulls["f1"].exact == pytest.approx(2 * rate * y.sum() / (rate * y.size + y.sum()))


def test_nulls_are_reproducible_and_range_null_runs():
    y = _msl_like(n=3000, n_seg=5)
    a, b = random_null(y, n_draws=30, random_state=4), random_null(y, n_draws=30, random_state=4)
    assert all(np.array_equal(a[m].draws, b[m].draws) for m in a)
    r = random_range_null(y, n_draws=5, n_thresholds=10, random_state=0)
    assert r.draws.size == 5 and 0 < r.mean < 1 and r.to_dict()["n_draws"] == 5


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "y, s, match",
    [
        ([0, 1, 2], [0, 1, 2], "other than 0 and 1"),
        ([], [], "empty"),
        ([0, 0, 0], [0, 1, 2], "no anomalous point"),
        ([1, 1], [0, 1], "every point anomalous"),
        ([0, 1, 0], [0, 1], "3"),
        ([0, 1, 0], [0, np.nan, 1], "NaN or inf"),
        ([0, 1, 0], [0, np.inf, 1], "NaN or inf"),
    ],
)
def test_bad_input(y, s, match):
    with pytest.raises(InvalidInputError, match=match):
        threshold_curve(np.asarray(y), np.asarray(s, dtype=float))


# --------------------------------------------------------------------------- the command
def _run(*argv):
    from auditad.cli import main

    return main(["timeseries", *map(str, argv)])


@pytest.fixture(scope="module")
def ts_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("ts")
    y = _msl_like(n=4000, n_seg=8)
    rng = np.random.default_rng(0)
    np.save(d / "y.npy", y)
    np.save(d / "good.npy", y + rng.normal(0, 0.3, y.size))
    np.save(d / "rand.npy", rng.random(y.size))
    np.savez(d / "two.npz", a=y, b=np.roll(y, 500))
    np.savez(d / "two_scores.npz", a=rng.random(y.size), b=rng.random(y.size))
    (d / "table.csv").write_text("method,dataset,F1,F1-PA\nAT,MSL,2.09,95.00\nGood,MSL,40.0,90.0\n")
    return d, y


def test_command_writes_a_report_with_findings_and_exact_baselines(ts_files, tmp_path, capsys):
    d, y = ts_files
    out = tmp_path / "out"
    code = _run(
        "--labels", f"MSL={d / 'y.npy'}", "--scores", f"good={d / 'good.npy'}", "--scores", f"rand={d / 'rand.npy'}",
        "--results", d / "table.csv", "--out", out, "--draws", 40, "--range-draws", 2, "--vus-draws", 3,
        "--affiliation-draws", 3, "--vus-window", 20,
    )  # fmt: skip
    assert code == 0, capsys.readouterr()
    s = json.loads((out / "summary.json").read_text())
    assert s["schema_version"] == "1.1" and s["verdict"] == "warn"
    p = y.mean()
    assert s["series"]["MSL"]["trivial"]["flag_all"]["f1"] == pytest.approx(2 * p / (1 + p))
    checks = {f["check"]: f for f in s["findings"]}
    assert checks["pa_inflation"]["status"] == "warn"
    below = [it["evidence"]["who"] for it in checks["below_flag_all"]["items"] if it["evidence"]["metric"] == "f1"]
    assert below == ["AT"]  # 0.0209 < 2p/(1+p); Good's 0.40 is above it
    good = next(r for r in s["detectors"] if r["detector"] == "good")
    scores = np.load(d / "good.npy")
    assert good["pa_f1"] == pytest.approx(_best(y, scores, lambda y, p: _f1(y, _adjust(y, p, 0))))
    assert good["p_pa_f1"] < 0.05
    html = (out / "report.html").read_text()
    assert "Findings" in html and "<script" not in html and html.index("Findings") < html.index("table-series")
    assert (out / "figures" / "nulls.svg").is_file() and (out / "tables" / "series.csv").is_file()
    gate = ["--gate", "series.MSL.nulls.best_threshold.pa_f1.mean <= 0.01"]  # a fail-level gate that fails
    fast = ("--draws", 20, "--range-draws", 0, "--vus-draws", 0, "--affiliation-draws", 0)
    assert _run("--labels", f"MSL={d / 'y.npy'}", "--out", out, *fast, *gate) == 1
    assert json.loads((out / "summary.json").read_text())["verdict"] == "fail"


def test_command_is_reproducible_and_matches_series_by_name(ts_files, tmp_path):
    d, _ = ts_files
    args = (
        "--labels",
        f"S={d / 'two.npz'}",
        "--scores",
        f"r={d / 'two_scores.npz'}",
        "--draws",
        30,
        "--range-draws",
        0,
        "--vus-draws",
        2,
        "--affiliation-draws",
        2,
        "--vus-window",
        10,
    )
    assert _run(*args, "--out", tmp_path / "a") == 0  # warnings only
    assert _run(*args, "--out", tmp_path / "b", "--fail-on", "warn") == 1
    a, b = ((tmp_path / x / "summary.json").read_bytes() for x in "ab")
    assert a == b
    assert set(json.loads(a)["series"]) == {"S/a", "S/b"}


@pytest.mark.parametrize(
    "make, flag, match",
    [
        (lambda d: np.zeros(10), "scores", "10 points, the labels 4000"),
        (lambda d: np.r_[np.zeros(3999), np.nan], "scores", "NaN or inf"),
        (lambda d: np.r_[np.zeros(3999), 2], "labels", "other than 0 and 1"),
        (lambda d: np.zeros(4000), "labels", "no anomalous point"),
        (lambda d: np.ones(4000), "labels", "every point anomalous"),
        (lambda d: np.zeros(0), "labels", "empty"),
    ],
)
def test_command_bad_input_is_one_line_exit_2(ts_files, tmp_path, capsys, make, flag, match):
    d, _ = ts_files
    bad = tmp_path / "bad.npy"
    np.save(bad, make(d))
    labels = bad if flag == "labels" else d / "y.npy"
    argv = ["--labels", f"MSL={labels}", "--out", tmp_path / "out", "--draws", 5, "--vus-draws", 0]
    argv += ["--affiliation-draws", 0]
    if flag == "scores":
        argv += ["--scores", f"x={bad}"]
    assert _run(*argv) == 2
    err = capsys.readouterr().err.strip()
    assert match in err and len(err.splitlines()) == 1 and "bad.npy" in err
    assert not (tmp_path / "out").exists()


def test_command_refuses_a_dataset_not_among_the_labels(ts_files, tmp_path, capsys):
    d, _ = ts_files
    table = tmp_path / "t.csv"
    table.write_text("method,dataset,F1\nA,SMD,0.5\n")
    fast = ("--draws", 5, "--vus-draws", 0, "--affiliation-draws", 0)
    assert _run("--labels", f"MSL={d / 'y.npy'}", "--results", table, "--out", tmp_path / "o", *fast) == 2
    err = capsys.readouterr().err
    assert "SMD" in err and "t.csv" in err and not (tmp_path / "o").exists()
