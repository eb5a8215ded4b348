"""OOD benchmark audit (`auditad.ood`, ``auditad ood``): planted copies and planted ID rows of known share,
checked against brute-force oracles, scikit-learn and SciPy."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from scipy.stats import binomtest, spearmanr
from sklearn.metrics import average_precision_score, roc_auc_score, roc_curve

from auditad.cli import main
from auditad.errors import InvalidInputError
from auditad.findings import Status
from auditad.nulls import null_distribution
from auditad.ood import (
    CHECKS,
    audit_ood,
    contamination,
    detection_metrics,
    fpr_at_tpr,
    id_likeness,
    placement,
    rank_correlation,
)
from auditad.ood.contamination import wilson_interval
from auditad.ood.neighbourhood import merge_lists, set_neighbourhood

D = 12


def _id_set(rng, n_per=400, classes=3):
    centres = rng.normal(0, 4, size=(classes, D))
    X = np.vstack([rng.normal(c, 1.0, size=(n_per, D)) for c in centres])
    return X, np.repeat(np.arange(classes), n_per), centres


def _draw_id(rng, centres, n):
    c = rng.integers(0, len(centres), n)
    return rng.normal(centres[c], 1.0), c


@pytest.fixture(scope="module")
def bench():
    """ID: 3 Gaussian classes. far: a distant blob with 10 % fresh ID rows (not copies), 6 exact and 4 near
    copies of ID rows; near: rows drawn like the ID rows (indistinguishable)."""
    rng = np.random.default_rng(7)
    X, y, centres = _id_set(rng)
    far = rng.normal(25, 1.0, size=(540, D))
    planted, _ = _draw_id(rng, centres, 60)
    exact_rows = np.array([3, 50, 401, 402, 900, 1100])
    near_rows = np.array([10, 500, 800, 1000])
    near = X[near_rows] + rng.normal(0, 1e-4, size=(4, D))
    far_set = np.vstack([far, planted, X[exact_rows], near])  # 610 rows
    same, _ = _draw_id(rng, centres, 300)
    res = audit_ood(
        X,
        y,
        {"far": far_set, "same": same},
        groups={"far": ["far", "same"]},
        backend="exact",
        n_boot=30,
        detectors=("knn", "iforest"),
        random_state=0,
    )
    return {"X": X, "y": y, "far": far_set, "res": res, "exact_rows": exact_rows, "near_rows": near_rows}


def test_planted_id_share_estimated_within_3_points(bench):
    s = bench["res"]["far"]
    truth = (60 + 6 + 4) / 610  # fresh ID rows and both kinds of copies are ID rows
    assert abs(s.contamination.estimate - truth) <= 0.03
    assert s.contamination.ci_low <= truth <= s.contamination.ci_high
    is_id = np.r_[np.zeros(540), np.ones(70)]
    assert roc_auc_score(is_id, s.samples["id_likeness"]) > 0.97  # the per-sample score finds the planted rows


def test_copies_match_brute_force_with_id_row_and_class(bench):
    X, y, far = bench["X"], bench["y"], bench["far"]
    s = bench["res"]["far"]
    exact = np.array([np.flatnonzero((X == r).all(axis=1))[:1] for r in far], dtype=object)
    oracle_exact = np.array([e.size > 0 for e in exact])
    assert s.copies.n_exact == oracle_exact.sum() == 6
    rows = s.copy_rows()
    ex = rows[rows["exact_copy"]]
    assert sorted(ex["exact_id_row"]) == sorted(bench["exact_rows"])
    assert (ex["exact_id_class"].to_numpy() == y[ex["exact_id_row"].to_numpy()]).all()
    nr = rows[rows["near_copy"]]
    assert sorted(nr["near_id_row"]) == sorted(bench["near_rows"])
    tau = bench["res"].id_summary["near_threshold"]
    d = cdist(far, X).min(axis=1)
    assert s.copies.n_near == int(((d < tau) & ~oracle_exact).sum()) == 4


def test_neighbourhood_share_matches_brute_force_pool():
    rng = np.random.default_rng(1)
    Xtr, Xte, Xo = rng.normal(size=(80, 3)), rng.normal(size=(20, 3)), rng.normal(0.5, 1, size=(30, 3))
    k = 7
    d_o = np.sort(cdist(Xo, Xtr), axis=1)
    d_t = np.sort(cdist(Xte, Xtr), axis=1)
    hood = set_neighbourhood(Xo, Xte, d_o, d_t, k=k, metric="euclidean", backend="exact", random_state=0, n_train=80)
    pool = np.vstack([Xtr, Xo])
    is_id = np.r_[np.ones(80, bool), np.zeros(30, bool)]
    dist = cdist(Xo, pool)
    dist[np.arange(30), 80 + np.arange(30)] = np.inf  # itself excluded
    oracle = is_id[np.argsort(dist, axis=1, kind="stable")[:, :k]].mean(axis=1)
    np.testing.assert_allclose(hood.id_share_ood, oracle)
    oracle_t = is_id[np.argsort(cdist(Xte, pool), axis=1, kind="stable")[:, :k]].mean(axis=1)
    np.testing.assert_allclose(hood.id_share_test, oracle_t)
    assert hood.chance_ood == 80 / 109 and hood.chance_test == 80 / 110


def test_merge_lists_is_the_union_order():
    a, b = np.array([[0.1, 0.4, 0.9]]), np.array([[0.2, 0.3, 0.5]])
    assert merge_lists(a, b, 4).tolist() == [[True, False, False, True]]


@pytest.mark.parametrize("p,n", [(0.0, 50), (0.3, 200), (1.0, 40), (0.07, 1000)])
def test_wilson_interval_matches_scipy(p, n):
    ci = binomtest(round(p * n), n).proportion_ci(confidence_level=0.9, method="wilson")
    np.testing.assert_allclose(wilson_interval(p, n, 0.9), (ci.low, ci.high), atol=1e-12)


def test_id_likeness_and_adjusted_count():
    # s = pi gives exactly 1/2 (chance); s = 1 is certain ID
    np.testing.assert_allclose(id_likeness([0.75, 1.0, 0.0], 0.75), [0.5, 1.0, 0.0])
    res = contamination(np.r_[np.ones(20), np.zeros(80)], 0.5, np.r_[np.ones(80), np.zeros(20)], 0.5)
    assert res.share_flagged == 0.2 and res.recognised == 0.8 and res.estimate == 0.25
    assert res.ci_low < 0.25 < res.ci_high


def test_detection_metrics_match_sklearn():
    rng = np.random.default_rng(3)
    ids, ood = rng.normal(0, 1, 300), rng.normal(1, 1, 200)
    r = detection_metrics(ids, ood, n_boot=50, random_state=0)
    y = np.r_[np.zeros(300), np.ones(200)]
    s = np.r_[ids, ood]
    assert r.auroc == pytest.approx(roc_auc_score(y, s))
    assert r.aupr_out == pytest.approx(average_precision_score(y, s))
    assert r.aupr_in == pytest.approx(average_precision_score(1 - y, -s))
    fpr, tpr, _ = roc_curve(1 - y, -s)  # ID positive, higher = more ID: FPR = OOD accepted as ID
    assert r.fpr95 == pytest.approx(fpr[np.argmax(tpr >= 0.95)])
    assert r.auroc_low < r.auroc < r.auroc_high and r.fpr95_low <= r.fpr95 <= r.fpr95_high
    exact = null_distribution(200, 300, metrics=["auroc"]).quantile(0.95, "auroc")  # exact Mann-Whitney quantile
    assert r.auroc_null95 == pytest.approx(exact, abs=0.005) and r.aupr_out_null == pytest.approx(0.4, abs=0.01)


@pytest.mark.parametrize("decimals", [None, 1])
def test_aupr_pair_matches_sklearn_with_and_without_ties(decimals):
    from auditad.ood.detection import aupr_pair

    rng = np.random.default_rng(3)
    A, O = rng.normal(size=(300, 6)), rng.normal(0.5, size=(120, 6))
    if decimals is not None:
        A, O = A.round(decimals), O.round(decimals)
    ap_in, ap_out = aupr_pair(A, O)
    y = np.r_[np.zeros(300), np.ones(120)]
    for j in range(6):
        s = np.r_[A[:, j], O[:, j]]
        assert ap_out[j] == pytest.approx(average_precision_score(y, s), abs=1e-12)
        assert ap_in[j] == pytest.approx(average_precision_score(1 - y, -s), abs=1e-12)


def test_fpr_at_tpr_random_is_about_095():
    rng = np.random.default_rng(0)
    assert fpr_at_tpr(rng.random(20000), rng.random(20000)) == pytest.approx(0.95, abs=0.01)


def test_rank_correlation_matches_scipy():
    x, y = [0.1, 0.5, 0.3, 0.9, 0.7], [0.9, 0.6, 0.8, 0.55, 0.7]
    c = rank_correlation(x, y)
    assert c["rho"] == pytest.approx(spearmanr(x, y).statistic)
    assert c["low"] < c["rho"] < c["high"]
    assert np.isnan(rank_correlation([1, 2, 3], [3, 2, 1])["low"])


def test_placement_near_far_and_group_contradiction(bench):
    res = bench["res"]
    assert res["same"].placement.placement == "near" and res["same"].placement.ratio > 0.8
    assert res["far"].placement.placement == "far"
    assert res["same"].contradicts_group and not res["far"].contradicts_group
    by = {f.check: f for f in res.findings}
    assert by["ood.group_contradiction"].status == Status.WARN
    assert [it.name for it in by["ood.group_contradiction"].items] == ["same"]
    assert by["ood.exact_copies"].status == Status.FAIL and by["ood.exact_copies"].number == 6
    assert by["ood.near_copies"].number == 4
    assert res.verdict == Status.FAIL
    assert placement(np.zeros(1000), 0.8, threshold=0.5).placement == "far"


def test_detectors_per_set(bench):
    res = bench["res"]
    far = {d.detector: d for d in res["far"].detectors}
    same = {d.detector: d for d in res["same"].detectors}
    assert set(far) == {"knn", "iforest"}
    # the far set is separable but for its 70 ID rows (AUROC about 540/610 + the ID rows' half); the set drawn
    # like the ID rows is at chance for both detectors, and the finding names exactly those two pairs
    assert far["knn"].auroc > 0.85 and far["knn"].auroc_low > 0.5
    assert same["knn"].auroc_low < 0.5 < same["knn"].auroc_high
    by = {f.check: f for f in res.findings}
    named = sorted(it.name for it in by["ood.detector_at_chance"].items)
    assert named == sorted(f"{d} on same" for d in same if same[d].auroc_low <= 0.5 <= same[d].auroc_high)
    assert "knn on same" in named and not any(n.endswith("on far") for n in named)


def test_result_to_dict_is_json_and_frame_is_tidy(bench):
    res = bench["res"]
    d = json.loads(json.dumps(res.to_dict(), allow_nan=False))
    assert d["ood"]["far"]["exact_copies"] == 6 and d["findings"][0]["check"] == "ood.exact_copies"
    assert set(CHECKS) == {f["check"] for f in d["findings"]}
    frame = res.to_frame()
    assert len(frame) == 4 and {"ood_set", "detector", "auroc", "id_share", "ratio"} <= set(frame.columns)
    with pytest.raises(AttributeError):
        res.sets[0].name = "x"


@pytest.mark.parametrize(
    "sets,match",
    [
        ({"a": np.zeros((5, 3))}, "columns"),
        ({"a": np.full((5, D), np.nan)}, "NaN"),
        ({"a": np.empty((0, D))}, "empty"),
        ({}, "non-empty"),
    ],
)
def test_bad_input(sets, match):
    X = np.random.default_rng(0).normal(size=(50, D))
    with pytest.raises(InvalidInputError, match=match):
        audit_ood(X, np.repeat([0, 1], 25), sets, backend="exact")


def test_identical_set_and_unknown_group_refused():
    X = np.random.default_rng(0).normal(size=(50, D))
    y = np.repeat([0, 1], 25)
    with pytest.raises(InvalidInputError, match="identical to the ID set"):
        audit_ood(X, y, {"a": X.copy()}, backend="exact")
    with pytest.raises(InvalidInputError, match="not an OOD set"):
        audit_ood(X, y, {"a": X[:10] + 5}, groups={"near": ["b"]}, backend="exact")


def test_figures_draw_one_row_per_set(bench):
    from auditad.plotting.ood import ood_figure, plot_ood_difficulty

    fig = ood_figure(bench["res"])
    left, right = fig.axes
    pos = {t.get_text(): t.get_position()[1] for t in left.get_yticklabels()}
    assert set(pos) == {"far (far)", "same (far)"} and pos["far (far)"] > pos["same (far)"]  # given order, top down
    assert len(right.lines) == 2 * 2 + 1  # an interval and a point per set, the threshold line
    ax = plot_ood_difficulty(bench["res"], detector="iforest")
    assert sorted(t.get_text() for t in ax.texts) == ["far", "same"]


class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.text, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        self.ids.update(v for k, v in attrs if k == "id")

    def handle_data(self, data):
        self.text.append(data)


def _write_inputs(tmp_path, copies: bool):
    rng = np.random.default_rng(5)
    X, y, centres = _id_set(rng, n_per=150)
    np.savez(tmp_path / "id.npz", X=X, y=y)
    far = rng.normal(25, 1, size=(200, D))
    if copies:
        far = np.vstack([far, X[:3]])
    np.save(tmp_path / "far.npy", far)
    np.save(tmp_path / "near.npy", _draw_id(rng, centres, 100)[0])
    return ["ood", "--embeddings", str(tmp_path / "id.npz"), "--embeddings-key", "X", "--label-column", "y"]


def test_cli_writes_report_and_exit_codes(tmp_path, capsys):
    base = _write_inputs(tmp_path, copies=True)
    out = tmp_path / "out"
    argv = [*base, "--ood", f"far={tmp_path / 'far.npy'}", "--ood", f"near={tmp_path / 'near.npy'}"]
    code = main([*argv, "--ood-group", "near=near", "--ood-group", "far=far", "--backend", "exact", "--out", str(out)])
    assert code == 1  # three exact copies: a fail finding
    summary = json.loads((out / "summary.json").read_text())
    assert summary["ood"]["far"]["exact_copies"] == 3 and summary["exit_code"] == 1
    assert summary["ood"]["near"]["placement"] == "near" and summary["ood"]["far"]["placement"] == "far"
    samples = (out / "tables" / "ood_far_samples.csv").read_text().splitlines()
    assert len(samples) == 204 and samples[0].startswith("row,id_likeness")
    page = _Text()
    page.feed((out / "report.html").read_text())
    assert {"findings", "sets", "copies", "detectors", "gates"} <= page.ids
    assert "ood.exact_copies" in "".join(page.text)
    assert (out / "figures" / "ood_placement.svg").is_file()
    base = _write_inputs(tmp_path, copies=False)
    argv = [*base, "--ood", f"far={tmp_path / 'far.npy'}", "--backend", "exact", "--out", str(out)]
    assert main(argv) == 0
    assert main([*argv, "--gate", "ood.far.ratio >= 0.5"]) == 1


@pytest.mark.parametrize(
    "extra,match",
    [
        (["--ood", "far={far}", "--ood", "far={far}"], "named twice"),
        (["--ood", "far={bad}"], "columns"),
        (["--ood", "far={id}"], "identical"),
        (["--ood", "far={far}", "--ood-group", "near=nope"], "not an OOD set"),
        (["--ood", "f/x={far}"], "letters, digits"),
        (["--ood", "far={empty}"], "--ood far"),
        (["--ood", "far={nan}"], "NaN"),
        (["--ood", "far={id32}"], "identical to the ID set"),
    ],
)
def test_cli_bad_input_one_line_nothing_written(tmp_path, capsys, extra, match):
    base = _write_inputs(tmp_path, copies=False)
    np.save(tmp_path / "bad.npy", np.zeros((5, 3)))
    X = np.load(tmp_path / "id.npz")["X"]
    np.save(tmp_path / "idx.npy", X)
    np.save(tmp_path / "id32.npy", X.astype(np.float32))  # the ID set saved again in single precision
    np.save(tmp_path / "empty.npy", np.empty((0, X.shape[1])))
    nan = np.load(tmp_path / "far.npy")
    nan[7, 2] = np.nan
    np.save(tmp_path / "nan.npy", nan)
    names = {"far": tmp_path / "far.npy", "bad": tmp_path / "bad.npy", "id": tmp_path / "idx.npy"}
    names.update(id32=tmp_path / "id32.npy", empty=tmp_path / "empty.npy", nan=tmp_path / "nan.npy")
    extra = [e.format(**names) for e in extra]
    out = tmp_path / "out"
    code = main([*base, *extra, "--backend", "exact", "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and match in err[0] and "Traceback" not in err[0]
    assert not out.exists()


def test_same_seed_same_bytes_and_set_order_does_not_matter(tmp_path, bench):
    base = _write_inputs(tmp_path, copies=True)
    a, b = tmp_path / "a", tmp_path / "b"
    far, near = f"far={tmp_path / 'far.npy'}", f"near={tmp_path / 'near.npy'}"
    assert main([*base, "--ood", far, "--ood", near, "--backend", "exact", "--out", str(a), "--quiet"]) == 1
    assert main([*base, "--ood", near, "--ood", far, "--backend", "exact", "--out", str(b), "--quiet"]) == 1
    sa, sb = (json.loads((p / "summary.json").read_text()) for p in (a, b))
    assert sa["ood"]["far"] == sb["ood"]["far"] and sa["ood"]["near"] == sb["ood"]["near"]
    assert main([*base, "--ood", far, "--ood", near, "--backend", "exact", "--out", str(b), "--quiet"]) == 1
    for name in ("summary.json", "report.html", "figures/ood_placement.svg", "tables/ood_far_samples.csv"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_summary_follows_the_shipped_json_schema(bench):
    import copy
    from importlib.resources import files

    import jsonschema

    from auditad.gates.checks import rules_from_config
    from auditad.report.ood import ood_summary

    schema = json.loads(files("auditad.schemas").joinpath("ood.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    summary, _ = ood_summary(bench["res"], rules_from_config(["ood.far.id_share <= 0.05"], source="test"))
    summary = json.loads(json.dumps(summary, allow_nan=False))
    assert summary["schema_version"] == "1.0" and summary["kind"] == "ood"
    jsonschema.validate(summary, schema)
    for path, value in (
        (("ood", "far", "placement"), "middle"),
        (("ood", "far", "id_share"), 1.5),
        (("findings", 0, "status"), "error"),
        (("schema_version",), "2.0"),
    ):
        bad = copy.deepcopy(summary)
        node = bad
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
    del summary["findings"]
    with pytest.raises(jsonschema.ValidationError, match="findings"):
        jsonschema.validate(summary, schema)


def test_reference_lists_drop_held_out_rows_like_a_search_among_training_rows():
    """One search among all ID rows, the held-out rows dropped (and short lists searched again), equals the
    brute-force k nearest training rows; the unfiltered lists are the nearest ID rows of any kind."""
    from auditad.ood.neighbourhood import id_reference_lists

    rng = np.random.default_rng(11)
    X = rng.normal(size=(300, 5))
    is_test = np.zeros(300, dtype=bool)
    is_test[rng.choice(300, 180, replace=False)] = True  # 60 % held out: many lists come back short
    Q = np.vstack([X[is_test][:40], rng.normal(size=(30, 5))])
    lists = id_reference_lists(X, is_test, Q, k=7, metric="euclidean", backend="exact", random_state=0)
    train = np.flatnonzero(~is_test)
    D = cdist(Q, X[train])
    order = np.argsort(D, axis=1, kind="stable")[:, :7]
    np.testing.assert_array_equal(lists.train_idx, train[order])
    np.testing.assert_allclose(lists.train_dist, np.take_along_axis(D, order, 1), rtol=1e-12, atol=1e-12)
    whole = cdist(Q, X)
    np.testing.assert_allclose(lists.whole_dist, np.sort(whole, axis=1)[:, : lists.whole_dist.shape[1]], atol=1e-12)
    assert (lists.whole_dist[:40, 0] == 0).all()  # a held-out query finds itself among all the ID rows
