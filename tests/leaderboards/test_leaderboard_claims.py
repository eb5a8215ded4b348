"""Leaderboard claims are tests: inversions, label direction, near chance and rankings backed by p-values.

Expected values come from outside the code under test: scipy (normal and t tails, the binomial sign test,
Friedman), a Holm and a Benjamini–Hochberg step written out by hand, scikit-learn's average precision over
every placement of the anomalies, a Monte Carlo of ADBench's resample-and-split, and the worked number of
Campos et al. (2016) for the adjusted AP at 3 anomalies / 5 normals.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest, friedmanchisquare, norm, ttest_1samp
from sklearn.metrics import average_precision_score

from auditad.errors import InvalidInputError
from auditad.leaderboards import annotate_cells, audit_leaderboard, rank_methods, read_leaderboard
from auditad.leaderboards.adbench_counts import ADBENCH_DATASETS, adbench_test_counts
from auditad.leaderboards.chance_checks import bh_adjust


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def holm_by_hand(p):
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out, running = [0.0] * m, 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (m - step) * p[i]))
        out[i] = running
    return out


def bh_by_hand(p):
    """Benjamini–Hochberg (1995): the adjusted p of the i-th smallest is min over j >= i of m p_(j) / j."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    for rank, i in enumerate(order, start=1):
        out[i] = min(1.0, min(m * p[order[j - 1]] / j for j in range(rank, m + 1)))
    return out


# values of the public ADBench AUROC file quoted in the audit: SOGAAL on Lymphography and WBC (inverted),
# ECOD on WPBC and LOF on imgseg (below 1/2 on every seed, but within noise)
CELLS = {
    ("Lymphography", "SOGAAL"): (0.033771, 0.003775, 0.001072),
    ("Lymphography", "ECOD"): (0.995, 0.998, 0.990),
    ("Lymphography", "LOF"): (0.91, 0.95, 0.89),
    ("Lymphography", "IForest"): (0.996, 1.0, 1.0),
    ("WBC", "SOGAAL"): (0.021, 0.044, 0.012),
    ("WBC", "ECOD"): (0.99, 0.98, 0.99),
    ("WBC", "LOF"): (0.94, 0.92, 0.93),
    ("WBC", "IForest"): (0.99, 0.99, 0.98),
    ("WPBC", "SOGAAL"): (0.52, 0.47, 0.55),
    ("WPBC", "ECOD"): (0.499, 0.405, 0.496),
    ("WPBC", "LOF"): (0.51, 0.47, 0.49),
    ("WPBC", "IForest"): (0.52, 0.50, 0.49),
    ("imgseg", "SOGAAL"): (0.62, 0.58, 0.66),
    ("imgseg", "ECOD"): (0.72, 0.70, 0.73),
    ("imgseg", "LOF"): (0.489, 0.454, 0.481),
    ("imgseg", "IForest"): (0.75, 0.70, 0.74),
}
METHODS = ("SOGAAL", "ECOD", "LOF", "IForest")


def adbench_text():
    lines = ["," + ",".join(METHODS)]
    for d in dict.fromkeys(d for d, _ in CELLS):
        for s in range(3):
            lines.append(f"\"('{d}', 0.0, {s + 1})\"," + ",".join(str(CELLS[(d, m)][s]) for m in METHODS))
    return "\n".join(lines) + "\n"


def expected_tests():
    """p< of every cell: Stouffer at ADBench's counts where known, a one-sided t-test over the seeds otherwise."""
    p_less, p_greater = {}, {}
    for (d, m), vals in CELLS.items():
        found = adbench_test_counts(d)
        if found is None:
            p_less[(m, d)] = ttest_1samp(vals, 0.5, alternative="less").pvalue
            p_greater[(m, d)] = ttest_1samp(vals, 0.5, alternative="greater").pvalue
            continue
        n_pos, n_neg, _ = found
        sd0 = math.sqrt((n_pos + n_neg + 1) / (12 * n_pos * n_neg))
        z = sum((v - 0.5) / sd0 for v in vals) / math.sqrt(len(vals))  # Stouffer over the seeds
        p_less[(m, d)], p_greater[(m, d)] = norm.cdf(z), norm.sf(z)
    return p_less, p_greater


# --------------------------------------------------------------------------- ADBench counts
def test_adbench_counts_follow_the_readme_and_the_split():
    assert ADBENCH_DATASETS["Lymphography"] == (148, 6) and ADBENCH_DATASETS["WPBC"] == (198, 47)
    # between 1 000 and 10 000 points: 30 % of each class (stratified)
    assert adbench_test_counts("optdigits") == (round(0.3 * 150), round(0.3 * 5066), "split")
    # above 10 000: 30 % of a 10 000-point subsample at the data set's prevalence
    pos = round(3000 * 2747 / 286048)
    assert adbench_test_counts("10_cover") == (pos, round(3000 - 3000 * 2747 / 286048), "subsampled")
    assert adbench_test_counts("CIFAR10_3") == (round(0.3 * 263), round(0.3 * 5000), "split")
    assert adbench_test_counts("imgseg") is None and adbench_test_counts("MVTec-AD_bottle") is None
    # the first public result files name the ELKI / Emmott et al. variants; another variant is never guessed
    assert adbench_test_counts("Lymphography_withoutdupl_idf") == adbench_test_counts("21_Lymphography")
    assert adbench_test_counts("imgseg.diff") == (round(0.3 * 990), round(0.3 * 1320), "split")
    assert adbench_test_counts("Wilt_withoutdupl_02") is None


@pytest.mark.parametrize("name", ["Lymphography", "WBC", "WPBC"])
def test_effective_counts_of_a_resampled_small_data_set_match_a_monte_carlo(name):
    # ADBench: resample to 1 000 with replacement, split 30 % stratified; the null variance of AUROC with copies
    # is that of (sum c)^2 / sum c^2 distinct points per class (c = copies of a point in the test set)
    n, n_anom = ADBENCH_DATASETS[name]
    rng = np.random.default_rng(0)
    eff = {0: [], 1: []}
    y = np.r_[np.ones(n_anom, dtype=int), np.zeros(n - n_anom, dtype=int)]
    for _ in range(300):
        draw = rng.integers(0, n, 1000)
        for label in (0, 1):
            mine = draw[y[draw] == label]
            test = rng.choice(mine, round(0.3 * mine.size), replace=False)
            c = np.bincount(test)
            eff[label].append(c.sum() ** 2 / np.sum(c.astype(float) ** 2))
    n_pos, n_neg, how = adbench_test_counts(name)
    assert how == "effective"
    assert abs(n_pos - np.mean(eff[1])) <= 0.6 + 0.05 * n_pos
    assert abs(n_neg - np.mean(eff[0])) <= 0.05 * n_neg


# --------------------------------------------------------------------------- inverted: a test per cell
def test_adbench_inverted_cells_are_tested_at_the_test_counts_with_holm(tmp_path):
    audit = audit_leaderboard(write(tmp_path, "AUCROC_look.csv", adbench_text()))
    p_less, _ = expected_tests()
    keys = list(p_less)
    adj = dict(zip(keys, holm_by_hand([p_less[k] for k in keys])))
    means = {(m, d): float(np.mean(v)) for (d, m), v in CELLS.items()}
    want = {k for k, q in adj.items() if q <= 0.05 and means[k] < 0.5}
    inv = audit.finding("inverted")
    got = {(it.method, it.dataset) for it in inv.items}
    assert got == want == {("SOGAAL", "Lymphography"), ("SOGAAL", "WBC")}
    for it in inv.items:  # every item carries its p and its Holm-adjusted p
        k = (it.method, it.dataset)
        assert f"p< = {p_less[k]:.2g}" in it.detail and f"Holm {adj[k]:.2g}" in it.detail
    # below 1/2 on all three seeds, yet within noise: not inverted
    assert ("ECOD", "WPBC") not in got and ("LOF", "imgseg") not in got
    tests = audit.tests.set_index(["method", "dataset"])
    assert tests.loc[("LOF", "imgseg"), "basis"] == "seeds" and tests.loc[("ECOD", "WPBC"), "basis"] == "counts"
    assert tests.loc[("LOF", "imgseg"), "p_less"] == pytest.approx(p_less[("LOF", "imgseg")], rel=1e-9)
    assert tests.loc[("ECOD", "WPBC"), "p_less_adj"] == pytest.approx(adj[("ECOD", "WPBC")], rel=1e-9)
    assert "Holm over 16 tested cells" in inv.message
    assert any("imgseg" in n and "weaker" in n for n in audit.board.notes)


def test_the_inverted_count_is_the_same_in_the_finding_the_summary_and_the_text(tmp_path):
    from auditad.results.leaderboard import leaderboard_summary_with_gates

    audit = audit_leaderboard(write(tmp_path, "AUCROC_look.csv", adbench_text()))
    inv = audit.finding("inverted")
    summary, _ = leaderboard_summary_with_gates(audit)[:2]
    assert inv.number == len(inv.items) == 2
    assert summary["inverted_pairs"] == summary["by_metric"]["auroc"]["inverted_pairs"] == 2
    assert "FAIL inverted [auroc]: 2 (method, dataset) cell(s)" in audit.summary_text()
    assert (audit.tests["decision"] == "inverted").sum() == 2


def test_bh_option_matches_the_step_up_by_hand(tmp_path):
    p = [0.001, 0.04, 0.03, 0.5, 0.012, 0.2]
    assert bh_adjust(p) == pytest.approx(bh_by_hand(p), rel=1e-12)
    audit = audit_leaderboard(write(tmp_path, "AUCROC_look.csv", adbench_text()), correction="bh")
    p_less, _ = expected_tests()
    keys = list(p_less)
    adj = dict(zip(keys, bh_by_hand([p_less[k] for k in keys])))
    tests = audit.tests.set_index(["method", "dataset"])
    for k in keys:
        assert tests.loc[k, "p_less_adj"] == pytest.approx(adj[k], rel=1e-9)
    assert "Benjamini–Hochberg over 16 tested cells" in audit.finding("inverted").message
    with pytest.raises(InvalidInputError, match="correction"):
        audit_leaderboard(write(tmp_path, "AUCROC_look.csv", adbench_text()), correction="bonferroni")


def test_single_values_below_half_without_a_test_are_their_own_category(tmp_path):
    text = "dataset,A,B,C\nd1,0.45,0.80,0.70\nd2,0.30,0.85,0.90\nd3,0.75,0.49,0.66\n"
    audit = audit_leaderboard(write(tmp_path, "wide.csv", text))
    inv = audit.finding("inverted")
    assert inv.status == "pass" and inv.number == 0
    untested = audit.finding("below_half_untested")
    assert untested.status == "warn" and untested.number == 3
    assert {(it.method, it.dataset) for it in untested.items} == {("A", "d1"), ("A", "d2"), ("B", "d3")}
    assert all("untested" in it.detail for it in untested.items)
    # with counts the same cells are tested: A on d2 (0.30 at n+ = 200, n- = 800) is inverted
    counted = audit_leaderboard(
        read_leaderboard(write(tmp_path, "wide.csv", text), counts={d: (200, 800) for d in ("d1", "d2", "d3")})
    )
    sd0 = math.sqrt(1001 / (12 * 200 * 800))
    p = [norm.cdf((v - 0.5) / sd0) for v in (0.45, 0.80, 0.70, 0.30, 0.85, 0.90, 0.75, 0.49, 0.66)]
    adj = holm_by_hand(p)
    names = [(m, d) for d in ("d1", "d2", "d3") for m in "ABC"]
    want = {k for k, q, pp in zip(names, adj, p) if q <= 0.05 and pp < 0.5}
    assert {(it.method, it.dataset) for it in counted.finding("inverted").items} == want == {("A", "d2")}
    assert not any(f.check == "below_half_untested" for f in counted.findings)


# --------------------------------------------------------------------------- near chance and label direction
def test_near_chance_is_a_two_sided_test_at_the_counts(tmp_path):
    audit = audit_leaderboard(write(tmp_path, "AUCROC_look.csv", adbench_text()))
    p_less, p_greater = expected_tests()
    p_two = {k: min(1.0, 2 * min(p_less[k], p_greater[k])) for k in p_less}
    near = {(it.method, it.dataset) for it in audit.finding("near_chance").items}
    assert near == {k for k, p in p_two.items() if p > 0.05}
    assert ("ECOD", "WPBC") in near and ("LOF", "imgseg") in near


def test_label_direction_rests_on_significant_cells_and_a_sign_test(tmp_path):
    # d_rev: 7 of 8 methods far below 1/2 at n+ = 50, n- = 500; d_noise: 8 of 8 below 1/2 but within noise;
    # d_few: 5 of 6 far below, 1 far above: a sign test over 6 decided cells cannot reject (p = 7/64)
    rows = ["dataset,method,auroc,n_pos,n_neg"]
    rev = {"a": 0.20, "b": 0.25, "c": 0.22, "d": 0.30, "e": 0.28, "f": 0.80, "g": 0.21, "h": 0.26}
    noise = {"a": 0.49, "b": 0.47, "c": 0.48, "d": 0.46, "e": 0.495, "f": 0.45, "g": 0.48, "h": 0.49}
    few = {"a": 0.20, "b": 0.25, "c": 0.22, "d": 0.30, "e": 0.28, "f": 0.80}
    good = {m: 0.9 for m in rev}
    for d, vals in (("d_rev", rev), ("d_noise", noise), ("d_good", good), ("d_few", few)):
        rows += [f"{d},{m},{v},50,500" for m, v in vals.items()]
    audit = audit_leaderboard(write(tmp_path, "long.csv", "\n".join(rows) + "\n"))
    direction = audit.finding("label_direction")
    assert [it.dataset for it in direction.items] == ["d_rev"]
    sign = binomtest(7, 8, 0.5, alternative="greater").pvalue  # 7 significantly below, 1 significantly above
    assert sign <= 0.05 < binomtest(5, 6, 0.5, alternative="greater").pvalue
    assert f"sign test p = {sign:.2g}" in direction.items[0].detail
    assert "7 of 8 methods significantly below ½, 1 significantly above" in direction.items[0].detail


# --------------------------------------------------------------------------- PyOD split
def test_pyod_scores_are_tested_at_the_40_percent_split_by_default(tmp_path):
    text = "Data,#Samples,# Dimensions,Outlier Perc,A,B,C\n" + "".join(
        f"d{i},500,5,10.0,{a},{b},{c}\n" for i, (a, b, c) in enumerate([(0.36, 0.9, 0.8), (0.37, 0.7, 0.6)] * 3)
    )
    path = write(tmp_path, "roc.csv", text)
    default, whole = audit_leaderboard(path), audit_leaderboard(read_leaderboard(path, test_fraction=1))
    assert (default.tests["n_pos"] == 20).all() and (whole.tests["n_pos"] == 50).all()  # 40 % of 50 anomalies
    for audit, (n_pos, n_neg) in ((default, (20, 180)), (whole, (50, 450))):
        sd0 = math.sqrt((n_pos + n_neg + 1) / (12 * n_pos * n_neg))
        z = (audit.tests["mean"] - 0.5) / sd0
        assert audit.tests["p_less"].to_numpy() == pytest.approx(norm.cdf(z), rel=1e-9)
    # at the whole data set's counts A looks inverted on all six; at the 40 % split PyOD scored, on none
    assert (default.finding("inverted").number, whole.finding("inverted").number) == (0, 6)


# --------------------------------------------------------------------------- ranking significance
OPENOOD_100 = """Training,Postprocessor,Near-OOD_AUROC,Far-OOD_AUROC,ID_Accuracy,Outlier_Data,Arch,Additional_Description
CrossEntropy,OpenMax,76.41 ± 0.36,78.10 ± 0.36,77.25 ± 0.10,No,ResNet18,100 epochs
CrossEntropy,MSP,80.27 ± 0.40,81.20 ± 0.44,77.25 ± 0.10,No,ResNet18,100 epochs
CrossEntropy,MLS,81.05 ± 0.07,82.50 ± 0.57,77.25 ± 0.10,No,ResNet18,100 epochs
CrossEntropy,ReAct,80.77 ± 0.05,82.00 ± 0.49,77.25 ± 0.10,No,ResNet18,100 epochs
CrossEntropy,KNN,80.18 ± 0.15,80.90 ± 0.17,77.25 ± 0.10,No,ResNet18,100 epochs
CrossEntropy,VIM,74.98 ± 0.13,77.00 ± 0.62,77.25 ± 0.10,No,ResNet18,100 epochs
CrossEntropy,ODIN,79.90 ± 0.11,80.30 ± 0.21,77.25 ± 0.10,No,ResNet18,100 epochs
"""


def test_openood_near_and_far_of_one_id_set_are_not_ranked_as_independent(tmp_path):
    audit = audit_leaderboard(write(tmp_path, "cifar100.csv", OPENOOD_100))
    res = audit.ranking("auroc")
    assert res.n_datasets == 2 and res.n_independent == 1
    assert res.blocks == (("cifar100", ("cifar100/Near-OOD", "cifar100/Far-OOD")),)
    sig = audit.finding("ranking_significance", "auroc")
    # both columns order the methods alike, so the tests "reject" (Iman–Davenport p = 0): still no pass
    assert res.friedman.iman_davenport_p_value <= 0.05
    assert sig.status == "warn" and sig.message.startswith("too few datasets to rank")
    assert "do not apply" in sig.message and sig.threshold == 0.0


def test_block_means_carry_the_friedman_test_and_small_n_is_never_a_pass():
    rng = np.random.default_rng(3)
    X = rng.uniform(0.5, 1.0, (12, 4)) + np.array([0.3, 0.2, 0.1, 0.0])
    frame = pd.DataFrame(X, columns=list("ABCD"), index=[f"id{i // 2}/{('near', 'far')[i % 2]}" for i in range(12)])
    blocks = {d: d.split("/")[0] for d in frame.index}
    res = rank_methods(frame, blocks=blocks)
    assert res.n_independent == 6 and res.n_datasets == 12
    means = frame.groupby([blocks[d] for d in frame.index], sort=False).mean()
    want = friedmanchisquare(*means.to_numpy().T)
    assert res.block_friedman.statistic == pytest.approx(want.statistic, rel=1e-12)
    assert res.significance.p_value == pytest.approx(want.pvalue, rel=1e-12)
    from auditad.leaderboards.findings import ranking_findings

    # N = 4 independent datasets with a clear order: p < 0.05, but fewer than min_datasets = 5
    small = rank_methods(pd.DataFrame(X[:4], columns=list("ABCD")))
    sig = ranking_findings(small)[0]
    assert sig.status == "warn" and "too few datasets" in sig.message
    assert ranking_findings(small, min_datasets=4)[0].status == (
        "pass" if small.friedman.iman_davenport_p_value <= 0.05 else "warn"
    )


def test_ranking_coverage_counts_and_names_every_dataset_left_out(tmp_path):
    lines = ["dataset,A,B,C"]
    lines += [f"ok{i},0.{6 + i % 3},0.{7 - i % 2},0.8{i}" for i in range(6)]
    lines += [f"notrun{i},,," for i in range(5)]  # never run
    lines += ["part1,0.7,,0.6", "part2,,0.5,0.9"]  # a missing cell each
    audit = audit_leaderboard(write(tmp_path, "wide.csv", "\n".join(lines) + "\n"))
    cov = audit.finding("ranking_coverage")
    assert cov.number == len(cov.items) == 7 == len(audit.ranking().dropped_datasets)
    assert {it.dataset for it in cov.items} == {f"notrun{i}" for i in range(5)} | {"part1", "part2"}
    from auditad.leaderboards.summary import leaderboard_summary

    s = leaderboard_summary(audit)
    assert s["ranking_left_out"] == 7
    json.dumps(s)


# --------------------------------------------------------------------------- Campos-adjusted AP and zeros
def test_adjusted_ap_follows_campos_and_the_exact_variant_has_its_own_column(tmp_path):
    text = "dataset,method,ap,n_pos,n_neg\nx,A,0.8,3,5\n"
    cells = annotate_cells(read_leaderboard(write(tmp_path, "long.csv", text))).iloc[0]
    # Campos et al. (2016, §2.3): E[AP] = π = 3/8, so (0.8 − 0.375)/(1 − 0.375) = 0.680
    assert cells["adjusted"] == pytest.approx(0.68, abs=1e-12)
    # the exact E[AP]: mean of scikit-learn's AP over the 56 placements of 3 anomalies among 8
    aps = []
    for pos in itertools.combinations(range(8), 3):
        y = np.zeros(8, dtype=int)
        y[list(pos)] = 1
        aps.append(average_precision_score(y, -np.arange(8.0)))
    e_ap = float(np.mean(aps))
    assert cells["chance"] == pytest.approx(e_ap, rel=1e-12)
    assert cells["exact_adjusted"] == pytest.approx((0.8 - e_ap) / (1 - e_ap), rel=1e-12)
    assert round(cells["exact_adjusted"], 3) == 0.576


def test_zeros_in_a_dataframe_follow_the_rule_of_files(tmp_path):
    text = "dataset,A,B,C\nd1,0.8,0.7,0.6\nd2,0.9,0.0,0.5\nd3,0.7,0.6,0.65\nd4,0.75,0.7,0.72\n"
    board = read_leaderboard(write(tmp_path, "wide.csv", text))
    frame = pd.read_csv(write(tmp_path, "wide.csv", text)).set_index("dataset")
    from_board, from_frame = rank_methods(board), rank_methods(frame)
    assert from_board.datasets == from_frame.datasets == ("d1", "d3", "d4")  # the exact 0 is a failed run
    assert any("zeros_are_failures=False" in n for n in from_frame.notes)
    kept = rank_methods(frame, zeros_are_failures=False)
    assert kept.datasets == ("d1", "d2", "d3", "d4")
    assert rank_methods(board, zeros_are_failures=False).datasets == kept.datasets


# --------------------------------------------------------------------------- effect sizes and the reading
def test_best_vs_rest_matches_scipy_bootstrap_and_wilcoxon_holm():
    from scipy.stats import bootstrap, rankdata, wilcoxon

    from auditad.leaderboards import best_vs_rest

    rng = np.random.default_rng(7)
    X = rng.uniform(0.5, 0.9, (30, 4)) + np.array([0.08, 0.05, 0.0, -0.02])
    frame = pd.DataFrame(X, columns=list("ABCD"))
    res = rank_methods(frame)
    eff = best_vs_rest(res, n_resamples=20000, random_state=1)
    ranks = rankdata(-X, axis=1)
    best = list(frame.columns).index(res.best)
    p = []
    for row in eff.itertuples(index=False):
        j = list(frame.columns).index(row.method)
        d = ranks[:, j] - ranks[:, best]
        assert row.rank_difference == pytest.approx(d.mean(), rel=1e-12)
        ci = bootstrap((d,), np.mean, n_resamples=20000, method="percentile", random_state=2).confidence_interval
        assert row.ci_low == pytest.approx(ci.low, abs=0.03) and row.ci_high == pytest.approx(ci.high, abs=0.03)
        p.append(wilcoxon(X[:, best], X[:, j]).pvalue)
    assert eff["p_value"].to_numpy() == pytest.approx(p, rel=1e-9)
    assert eff["p_holm"].to_numpy() == pytest.approx(holm_by_hand(p), rel=1e-9)
    assert (eff["distinguishable"] == (eff["p_holm"] <= 0.05) & (eff["ci_low"] > 0)).all()


def test_ranking_reading_says_what_the_data_support(tmp_path):
    from auditad.leaderboards import best_vs_rest, ranking_reading

    text = ranking_reading(audit_leaderboard(write(tmp_path, "cifar100.csv", OPENOOD_100)).ranking("auroc"))
    assert text.startswith("With 1 independent dataset (2 columns) the order of the 7 methods cannot be tested")
    rng = np.random.default_rng(5)
    X = rng.uniform(0.5, 0.7, (25, 3)) + np.array([0.3, 0.0, 0.01])
    res = rank_methods(pd.DataFrame(X, columns=["strong", "b", "c"]))
    eff = best_vs_rest(res)
    reading = ranking_reading(res, effects=eff)
    assert "strong has the best average rank" in reading
    assert f"from {int(eff['distinguishable'].sum())} of the 2 others" in reading
    flat = rank_methods(pd.DataFrame(rng.uniform(0.5, 0.7, (25, 3)), columns=list("xyz")))
    if flat.friedman.iman_davenport_p_value > 0.05:
        assert "do not differ significantly" in ranking_reading(flat)
    with pytest.raises(InvalidInputError, match="RankingResult"):
        best_vs_rest(None)
