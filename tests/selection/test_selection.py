"""Tests of auditad.selection: judgement metrics by hand, the runner against direct computation, bad input."""

import json
import warnings

import numpy as np
import pytest
from scipy.stats import spearmanr
from sklearn.metrics import roc_auc_score

from auditad.errors import InvalidInputError, SkippedItemWarning
from auditad.selection.pseudo import make_probe
from auditad.selection.scoring import knn_scores
from auditad.selection import (
    POOL_BY,
    Candidate,
    SelectionBenchmark,
    SelectionTask,
    TaskEmbeddings,
    estimate_candidate,
    pairwise_accuracy,
    pretty_label,
    rank_correlation,
    regret,
    run_selection,
)
from auditad.synthetic import digits_benchmark, make_selection_benchmark

AUC = [0.9, 0.7, 0.8, 0.6]


# --------------------------------------------------------------------------- judgement by hand
def test_judgement_metrics_on_a_hand_computed_table():
    est = [0.3, 0.1, 0.4, 0.2]
    # ranks: auc 4 2 3 1, est 3 1 4 2 -> sum d^2 = 4 -> rho = 1 - 6*4/(4*15) = 0.6
    assert rank_correlation(est, AUC) == pytest.approx(0.6)
    # pairs AB ok, AC wrong, AD ok, BC ok, BD wrong, CD ok -> 4/6
    assert pairwise_accuracy(est, AUC) == pytest.approx(4 / 6)
    # selects C (0.8), best 0.9
    assert regret(est, AUC) == pytest.approx(0.1)


def test_judgement_with_ties_and_constants():
    est = [0.3, 0.3, 0.1, 0.2]
    # A,B tied on top -> expected AUC (0.9 + 0.7) / 2 = 0.8
    assert regret(est, AUC) == pytest.approx(0.1)
    # AB tie 0.5, AC 1, AD 1, BC 0, BD 1, CD 0 -> 3.5 / 6
    assert pairwise_accuracy(est, AUC) == pytest.approx(3.5 / 6)
    assert rank_correlation(est, AUC) == pytest.approx(spearmanr(est, AUC).statistic)
    const = [1.0] * 4
    assert rank_correlation(const, AUC) == 0.0  # the paper's convention for constant predictions
    assert pairwise_accuracy(const, AUC) == 0.5
    assert regret(const, AUC) == pytest.approx(0.9 - np.mean(AUC))
    # nan estimates rank last and are never selected
    assert regret([np.nan, 0.1, 0.2, 0.0], AUC) == pytest.approx(0.1)
    assert np.isnan(regret([np.nan] * 4, AUC))
    assert np.isnan(pairwise_accuracy([1, 2], [0.5, 0.5]))


def test_rank_correlation_matches_scipy():
    rng = np.random.default_rng(0)
    for _ in range(20):
        e, a = rng.integers(0, 5, size=9).astype(float), rng.random(9)
        assert rank_correlation(e, a) == pytest.approx(spearmanr(e, a).statistic)


# --------------------------------------------------------------------------- runner
@pytest.fixture(scope="module")
def small_bench():
    return make_selection_benchmark(
        n_tasks=4,
        n_source=30,
        n_target=4,
        n_test=24,
        n_auxiliary=12,
        families=("clean",),
        vector_families=("noisy", "partial"),
        poolings=("mean", "max"),
        random_state=3,
    )


@pytest.fixture(scope="module")
def small_result(small_bench):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every probe has eligible samples here: no warning expected
        return run_selection(
            small_bench, estimators=["inlier_variance", "auc_bound", "pseudo_auc", "npd"], n_boot=300, random_state=11
        )


def test_runner_matches_direct_computation(small_bench, small_result):
    """True AUC, inlier variance and Pseudo AUC of one candidate recomputed by hand."""
    task = small_bench.tasks[1]
    emb = task.embeddings["noisy-vec"]
    z_in = knn_scores(emb.reference, backend="exact").scores
    z_test = knn_scores(emb.reference, emb.test, backend="exact").scores
    cands = small_result.candidates_frame().set_index(["task", "candidate"])
    assert cands.loc[(task.name, "noisy-vec-knn"), "true_auc"] == pytest.approx(roc_auc_score(task.test_labels, z_test))
    est = small_result.to_frame().set_index(["task", "candidate", "estimator"])["value"]
    assert est[(task.name, "noisy-vec-knn", "inlier_variance")] == pytest.approx(1 / z_in.var())
    probe = make_probe(
        "cross_class",
        emb.reference,
        reference_meta=task.reference_meta,
        auxiliary_meta=task.auxiliary_meta,
        n_auxiliary=len(emb.auxiliary),
        home=task.home,
    )
    z_p = knn_scores(emb.reference, probe.embeddings(emb.reference, emb.auxiliary), backend="exact").scores
    y = np.r_[np.zeros(z_in.size), np.ones(z_p.size)]
    assert est[(task.name, "noisy-vec-knn", "pseudo_auc[cross_class]")] == pytest.approx(
        roc_auc_score(y, np.r_[z_in, z_p])
    )
    mu = z_p.mean() - z_in.mean()
    assert est[(task.name, "noisy-vec-knn", "auc_bound[cross_class]")] == pytest.approx(
        mu**2 / (z_p.var() + z_in.var() + mu**2)
    )


def _brute_pair(e, a):
    """A_pair by a double loop over candidate pairs (nan estimates rank last, estimate ties count 1/2)."""
    e = [-np.inf if np.isnan(x) else x for x in e]
    score, n = 0.0, 0
    for i in range(len(a)):
        for j in range(i + 1, len(a)):
            if a[i] == a[j]:
                continue
            n += 1
            score += 0.5 if e[i] == e[j] else float((e[i] > e[j]) == (a[i] > a[j]))
    return score / n if n else np.nan


def _brute_regret(e, a):
    """Best AUC minus the mean AUC of the candidates tied for the largest (non-nan) estimate."""
    ok = [i for i in range(len(a)) if not np.isnan(e[i])]
    top = max(e[i] for i in ok)
    chosen = [a[i] for i in ok if e[i] == top]
    return max(a) - sum(chosen) / len(chosen)


def test_baselines_and_units(small_result):
    """Every unit of every selector against scipy's Spearman and brute-force loops over the raw values."""
    cands = small_result.candidates_frame()
    units = small_result.units_frame().set_index(["task", "selector"])
    est = small_result.to_frame()
    n_checked = 0
    for task, sub in cands.groupby("task"):
        names = sub["candidate"].tolist()
        a = sub["true_auc"].tolist()
        assert units.loc[(task, "random"), "regret"] == pytest.approx(max(a) - sum(a) / len(a), abs=1e-15)
        assert units.loc[(task, "oracle"), "regret"] == 0.0
        assert units.loc[(task, "oracle"), "rho_rank"] == pytest.approx(spearmanr(a, a).statistic)
        for label in small_result.config["estimators"]:
            e = est[(est.task == task) & (est.estimator == label)].set_index("candidate")["value"].reindex(names)
            e = e.to_numpy(dtype=float)
            row = units.loc[(task, label)]
            rho = 0.0 if np.all(e == e[0]) else spearmanr(e, a).statistic
            assert row["rho_rank"] == pytest.approx(rho, abs=1e-12), (task, label)
            assert row["a_pair"] == pytest.approx(_brute_pair(e, a), abs=1e-12), (task, label)
            assert row["regret"] == pytest.approx(_brute_regret(e, a), abs=1e-12), (task, label)
            assert row["selected_auc"] == pytest.approx(max(a) - _brute_regret(e, a), abs=1e-12)
            n_checked += 1
        # NPD ranks exactly like the AUC bound because bound = 2 NPD / (1 + 2 NPD) (npd_eps = 0)
        for p in ("feature", "diverse"):
            npd = est[(est.task == task) & (est.estimator == f"npd[{p}]")].set_index("candidate")["value"]
            bound = est[(est.task == task) & (est.estimator == f"auc_bound[{p}]")].set_index("candidate")["value"]
            np.testing.assert_allclose(
                bound.reindex(names), 2 * npd.reindex(names) / (1 + 2 * npd.reindex(names)), rtol=1e-12
            )
    assert n_checked == 4 * len(small_result.config["estimators"])
    # Fixed selection: best mean development AUC per group, applied to evaluation tasks
    for group, g in cands.groupby("group"):
        dev = g[g.split == "development"].groupby("candidate")["true_auc"].mean()
        choice = dev.idxmax()
        for task in g[g.split == "evaluation"]["task"].unique():
            sub = g[g.task == task].set_index("candidate")["true_auc"]
            assert units.loc[(task, "fixed"), "selected"] == choice
            assert units.loc[(task, "fixed"), "regret"] == pytest.approx(sub.max() - sub[choice])


def test_best_selector_rule(small_result):
    """best(): smallest mean regret among the estimators (never a baseline), ties to the first listed."""
    units = small_result.units_frame()
    mean = units.groupby("selector")["regret"].mean()
    estimators = small_result.config["estimators"]
    want = sorted(estimators, key=lambda lab: (mean[lab], estimators.index(lab)))[0]
    best = small_result.best()
    assert best.label == want and best.regret == pytest.approx(mean[want])
    assert best.name == pretty_label(want) and best.n_units == 4
    rho = units.groupby("selector")["rho_rank"].mean()
    assert small_result.best(criterion="rho_rank").label == max(
        estimators, key=lambda lab: (rho[lab], -estimators.index(lab))
    )
    summaries = small_result.selector_summaries()
    assert [s.label for s in summaries] == small_result.summary_frame().index.tolist()
    rnd = small_result.selector_summary("random")
    assert rnd.probe is None and rnd.a_pair == 0.5 and json.dumps(rnd.to_dict(), allow_nan=False)
    with pytest.raises(InvalidInputError, match="criterion"):
        small_result.best(criterion="auc")
    with pytest.raises(InvalidInputError, match="not judged"):
        small_result.selector_summary("robust_bound[feature]")


def test_best_is_none_without_labelled_tasks():
    rng = np.random.default_rng(2)
    bench = SelectionBenchmark([_task(rng.normal(size=(12, 3)))], [Candidate("a", "e"), Candidate("b", "e", k=2)])
    res = run_selection(bench, estimators=["inlier_variance"], n_boot=0)
    assert res.best() is None and res.selector_summaries() == []


def test_summary_tables(small_result):
    s = small_result.summary_frame()
    assert list(s.index[:3]) == ["oracle", "random", "fixed"]
    assert {"rho_rank", "a_pair", "regret", "n_units", "kind", "probe"} <= set(s.columns)
    units = small_result.units_frame()
    assert s.loc["pseudo_auc[diverse]", "regret"] == pytest.approx(
        units[units.selector == "pseudo_auc[diverse]"]["regret"].mean()
    )
    assert s.loc["random", "a_pair"] == 0.5 and s.loc["fixed", "n_units"] == 2
    by = small_result.summary_frame(by="split")
    assert set(by["split"]) == {"development", "evaluation"}
    t1 = small_result.table1_frame()
    assert t1.columns[0] == ("overall", "rho_rank") and ("all/evaluation", "regret") in t1.columns
    assert "Pseudo AUC (Diverse)" in small_result.summary_text()


def test_bootstrap_rows(small_result):
    boot = small_result.bootstrap_frame()
    units = small_result.units_frame().set_index(["task", "selector"])["selected_auc"]
    row = boot[(boot.selector_a == "random") & (boot.selector_b == "pseudo_auc[diverse]")].iloc[0]
    diffs = [units[(t, "random")] - units[(t, "pseudo_auc[diverse]")] for t in units.index.get_level_values(0).unique()]
    assert row["mean_diff"] == pytest.approx(np.mean(diffs)) and row["n_units"] == 4
    assert row["ci_low"] <= row["mean_diff"] <= row["ci_high"]
    fixed = boot[(boot.selector_a == "random") & (boot.selector_b == "fixed")].iloc[0]
    assert fixed["n_units"] == 2  # Fixed exists on evaluation tasks only


def test_same_seed_identical_tables_and_json_safe(small_bench, small_result):
    again = run_selection(
        small_bench, estimators=["inlier_variance", "auc_bound", "pseudo_auc", "npd"], n_boot=300, random_state=11
    )
    text = json.dumps(small_result.to_dict(), allow_nan=False, sort_keys=True)
    assert text == json.dumps(again.to_dict(), allow_nan=False, sort_keys=True)
    other = run_selection(small_bench, estimators=["pseudo_auc[feature]"], n_boot=0, random_state=12)
    a = small_result.to_frame().query("estimator == 'pseudo_auc[feature]'")["value"].to_numpy()
    assert not np.allclose(a, other.to_frame()["value"].to_numpy())


def test_parallel_and_progress_give_the_same_result(small_bench, capsys):
    kw = dict(estimators=["pseudo_auc[feature]", "auc_bound[cross_attribute]"], n_boot=0, random_state=4)
    one = run_selection(small_bench, **kw)
    two = run_selection(small_bench, n_jobs=2, progress=True, **kw)
    assert json.dumps(one.to_dict(), allow_nan=False) == json.dumps(two.to_dict(), allow_nan=False)
    err = capsys.readouterr().err
    assert "selection" in err and f"{4 * len(small_bench.candidates)}/{4 * len(small_bench.candidates)}" in err


def test_all_cores_give_the_same_result_and_zero_workers_is_refused(small_bench, monkeypatch):
    from auditad.cli import build_parser

    kw = dict(estimators=["pseudo_auc[feature]"], n_boot=0, random_state=4)
    one = run_selection(small_bench, **kw)
    monkeypatch.setattr("os.cpu_count", lambda: 2)  # (-1: one per CPU, here two workers)
    every = run_selection(small_bench, n_jobs=-1, **kw)
    assert json.dumps(one.to_dict(), allow_nan=False) == json.dumps(every.to_dict(), allow_nan=False)
    for bad in (0, 1.5, True, "2"):
        with pytest.raises(InvalidInputError, match="n_jobs must be a non-zero integer"):
            run_selection(small_bench, n_jobs=bad, **kw)
    assert build_parser().parse_args(["select", "--example", "digits"]).n_jobs == -1  # the command's default


def test_pool_by_scoring_and_sequence_probes():
    bench = make_selection_benchmark(
        n_tasks=2,
        n_source=20,
        n_target=2,
        n_test=12,
        n_auxiliary=0,
        families=("partial",),
        poolings=("mean", "max", "gem:2", "rdp:1"),
        random_state=0,
    )
    with pytest.warns(SkippedItemWarning):
        res = run_selection(bench, pool_by="scoring", n_boot=0, probes=["sequence", "element", "cross_class"])
    units = res.units_frame()
    assert set(units["pool"]) == {"knn", "ldn"} and set(units["n_candidates"]) == {4}
    probes = res.probes_frame()
    seq = probes[probes.probe == "sequence"]
    assert (seq["n_pseudo"] == 22).all() and not seq["skipped"].any()
    cc = probes[probes.probe == "cross_class"]
    assert cc["skipped"].all() and "no normal sample" in cc["reason"].iloc[0]
    assert {s["probe"] for s in res.skipped} == {"cross_class"}
    # the estimator that is undefined everywhere is not judged
    assert "auc_bound[cross_class]" not in set(units["selector"])
    # default probes of an all-sequence benchmark include sequence and element
    with pytest.warns(SkippedItemWarning, match="skipped for 2 task"):
        default = run_selection(bench, n_boot=0)  # Cross-* probes have no eligible sample here
    assert {"sequence", "element"} <= set(default.config["probes"])


def test_digits_selection_run():
    bench = digits_benchmark(embeddings=("pixels", "pca2", "pca8"), scorings=("knn",))
    res = run_selection(
        bench, estimators=["inlier_variance", "pseudo_auc"], probes=["feature", "cross_class"], n_boot=0
    )
    s = res.summary_frame()
    assert s.loc["oracle", "regret"] == 0.0 and s.loc["oracle", "n_units"] == 10
    assert s.loc["pseudo_auc[cross_class]", "rho_rank"] > 0.5  # other digits are the anomalies here
    assert s.loc["pseudo_auc[cross_class]", "regret"] < s.loc["random", "regret"]
    assert res.config["dropped_probes"] == [] and res.config["n_units"] == 10


def test_estimate_candidate():
    est = estimate_candidate([0.0, 1.0, 2.0], {"a": [3.0, 4.0], "b": None})
    assert est.value("inlier_variance") == pytest.approx(1.5)
    assert est.value("pseudo_auc[a]") == 1.0
    assert np.isnan(est.value("auc_bound[b]"))
    assert est.to_frame().shape[0] == 2 and json.dumps(est.to_dict(), allow_nan=False)
    with pytest.raises(InvalidInputError, match="z_in"):
        estimate_candidate([1.0])


# --------------------------------------------------------------------------- bad input
def _task(ref, test=None, labels=None, name="t", **kw):
    return SelectionTask(
        name=name, embeddings={"e": TaskEmbeddings(reference=ref, test=test)}, test_labels=labels, **kw
    )


def test_bad_benchmarks():
    rng = np.random.default_rng(0)
    R, T = rng.normal(size=(10, 3)), rng.normal(size=(6, 3))
    y = np.r_[np.zeros(3), np.ones(3)]
    cand = [Candidate("c", "e")]
    SelectionBenchmark([_task(R, T, y)], cand)  # valid
    with pytest.raises(InvalidInputError, match="reference set has 1 sample"):
        SelectionBenchmark([_task(R[:1], T, y)], cand)
    with pytest.raises(InvalidInputError, match="test has 4 dimensions but the reference has 3"):
        SelectionBenchmark([_task(R, rng.normal(size=(6, 4)), y)], cand)
    bad = R.copy()
    bad[2, 1] = np.nan
    with pytest.raises(InvalidInputError, match="NaN"):
        SelectionBenchmark([_task(bad, T, y)], cand)
    with pytest.raises(InvalidInputError, match="test_labels has 5"):
        SelectionBenchmark([_task(R, T, y[:5])], cand)
    with pytest.raises(InvalidInputError, match="no embeddings 'f'"):
        SelectionBenchmark([_task(R, T, y)], [Candidate("c", "f")])
    with pytest.raises(InvalidInputError, match="needs a pooling"):
        SelectionBenchmark([_task(rng.normal(size=(10, 4, 3)))], cand)
    with pytest.raises(InvalidInputError, match="has pooling"):
        SelectionBenchmark([_task(R)], [Candidate("c", "e", pooling="max")])
    with pytest.raises(InvalidInputError, match="unique"):
        SelectionBenchmark([_task(R)], [Candidate("c", "e"), Candidate("c", "e", scoring="ldn")])
    with pytest.raises(InvalidInputError, match="split"):
        SelectionBenchmark([_task(R, split="test")], cand)
    with pytest.raises(InvalidInputError, match="scoring"):
        Candidate("c", "e", scoring="lof")
    with pytest.raises(InvalidInputError, match="estimator"):
        run_selection(SelectionBenchmark([_task(R, T, y)], cand), estimators=["auc"])


def test_cross_probe_without_samples_is_reported_not_raised():
    rng = np.random.default_rng(1)
    tasks = [
        _task(
            rng.normal(size=(12, 3)),
            rng.normal(size=(6, 3)),
            np.r_[np.zeros(3), np.ones(3)],
            name=f"t{i}",
            reference_meta={"class": ["x"] * 12},
        )
        for i in range(2)
    ]
    bench = SelectionBenchmark(tasks, [Candidate("a", "e"), Candidate("b", "e", scoring="ldn")])
    with pytest.warns(SkippedItemWarning, match="cross_class.*2 task"):
        res = run_selection(bench, n_boot=0)
    assert res.config["probes"] == ["random", "feature", "cross_class", "diverse"]
    assert [s["task"] for s in res.skipped] == ["t0", "t1"]
    assert res.summary_frame().loc["pseudo_auc[diverse]", "n_units"] == 2  # Diverse falls back to Feature


def test_plots(small_result):
    import matplotlib

    matplotlib.use("Agg")
    from auditad.plotting import plot_bound_vs_auc, plot_estimator_vs_auc

    ax = plot_estimator_vs_auc(small_result, estimator="pseudo_auc[diverse]")
    fams = {t.get_text() for t in ax.get_legend().get_texts()}
    assert fams == {"clean", "noisy-vec", "partial-vec"}
    n_points = sum(len(c.get_offsets()) for c in ax.collections)
    assert n_points == len(small_result.config["candidates"])
    ax = plot_estimator_vs_auc(small_result, estimator="inlier_variance", per_task=True)
    assert sum(len(c.get_offsets()) for c in ax.collections) == len(small_result.candidates)
    ax = plot_bound_vs_auc(small_result)
    for c in ax.collections:
        xy = np.asarray(c.get_offsets())
        assert np.all(xy[:, 1] <= xy[:, 0] + 1e-12) or c.get_facecolors().size == 0
    with pytest.raises(InvalidInputError, match="not in this result"):
        plot_estimator_vs_auc(small_result, estimator="npd[random]x")


def test_domain_weighted_bound_estimator(small_bench):
    """lam: inlier moments by Eqs. 4-6 with the reference domains (pseudo-outlier moments pooled)."""
    from auditad.selection.bounds import auc_bound

    res = run_selection(small_bench, estimators=["auc_bound[cross_domain]"], lam=0.5, n_boot=0)
    task = small_bench.tasks[0]
    emb = task.embeddings["partial-vec"]
    z_in = knn_scores(emb.reference, backend="exact").scores
    probe = make_probe(
        "cross_domain",
        emb.reference,
        reference_meta=task.reference_meta,
        auxiliary_meta=task.auxiliary_meta,
        n_auxiliary=len(emb.auxiliary),
        home=task.home,
    )
    z_p = np.r_[
        z_in[probe.reference_index],
        knn_scores(emb.reference, emb.auxiliary[probe.auxiliary_index], backend="exact").scores,
    ]
    expected = auc_bound(z_in, z_p, domain_in=task.reference_meta["domain"], lam=0.5).bound
    got = res.to_frame().set_index(["task", "candidate"])["value"][(task.name, "partial-vec-knn")]
    assert got == pytest.approx(expected)
    assert expected != pytest.approx(auc_bound(z_in, z_p).bound)  # the weighting matters here
    with pytest.raises(InvalidInputError, match="domain"):
        run_selection(
            SelectionBenchmark([_task(np.zeros((3, 2)) + np.arange(3)[:, None])], [Candidate("c", "e")]), lam=0.5
        )


def test_approximate_backend_in_the_runner(small_bench, small_result):
    """backend= reaches the scores: pynndescent's neighbours against the exact run, with the recall column."""
    kw = dict(estimators=["inlier_variance", "auc_bound", "pseudo_auc", "npd"], n_boot=0, random_state=11)
    approx = run_selection(small_bench, backend="approximate", recall_sample=20, **kw)
    assert approx.config["backend"] == "approximate" and approx.config["recall_sample"] == 20
    a = approx.candidates_frame().set_index(["task", "candidate"])
    e = small_result.candidates_frame().set_index(["task", "candidate"])
    assert set(a["backend"]) == {"approximate"} and "knn_recall" not in e.columns
    # measured on these 34-row reference sets (pynndescent queries miss some nearest neighbours even
    # here): recall 0.80-1.00, median 1.00; |delta true AUC| <= 0.08, mean 0.006
    assert a["knn_recall"].between(0.7, 1.0).all() and a["knn_recall"].median() >= 0.95
    diff = np.abs(a["true_auc"] - e.loc[a.index, "true_auc"])
    assert diff.max() <= 0.1 and diff.mean() <= 0.02 and np.mean(diff < 1e-12) >= 0.5
    with pytest.raises(InvalidInputError, match="recall_sample"):
        run_selection(small_bench, recall_sample=-1, **kw)


@pytest.mark.parametrize("pool_by", POOL_BY)
def test_every_pool_by_value_splits_by_that_candidate_attribute(small_bench, pool_by):
    """Every value of the POOL_BY constant (the one list config and CLI should offer) runs and pools correctly."""
    res = run_selection(small_bench, estimators=["inlier_variance"], pool_by=pool_by, n_boot=0)
    cands = {c.name: c for c in small_bench.candidates}
    rows = res.candidates_frame()
    want = {c: "none" if getattr(cand, pool_by) is None else str(getattr(cand, pool_by)) for c, cand in cands.items()}
    assert [want[c] for c in rows["candidate"]] == rows["pool"].tolist()
    units = res.units_frame()
    n_pools = len(set(want.values()))
    assert units[units.selector == "oracle"].shape[0] == 4 * n_pools  # 4 tasks, all labelled


def test_check_estimator_name_without_a_benchmark():
    from auditad.selection import ESTIMATOR_KINDS, PROBE_ESTIMATORS, PROBE_KINDS, check_estimator_name

    for kind in ESTIMATOR_KINDS:
        assert check_estimator_name(kind) == kind
    for kind in PROBE_ESTIMATORS:
        for probe in PROBE_KINDS:
            assert check_estimator_name(f"{kind}[{probe}]") == f"{kind}[{probe}]"
    for bad, match in [
        ("auc", "estimator"),
        ("pseudo_auc[nope]", "probe"),
        ("inlier_variance[feature]", "kind"),
        ("pseudo_auc[feature", "kind\\[probe\\]"),
        (3, "string"),
    ]:
        with pytest.raises(InvalidInputError, match=match):
            check_estimator_name(bad, name_of="selection_estimators[0]")
