"""Audit of per-class AUROC tables (auditad.results) and the ``auditad results`` command."""

import itertools
import json
import math
from html.parser import HTMLParser
from importlib.resources import files

import jsonschema
import numpy as np
import pandas as pd
import pytest
from scipy.stats import mannwhitneyu, norm

from auditad import InvalidInputError
from auditad.cli import main
from auditad.results import (
    audit_results,
    auroc_interval,
    hanley_mcneil_se,
    read_results_table,
    write_results_report,
)

SCHEMA = json.loads(files("auditad").joinpath("schemas", "results.schema.json").read_text(encoding="utf-8"))

# L. Ruff, R. A. Vandermeulen, N. Görnitz, L. Deecke, S. A. Siddiqui, A. Binder, E. Müller, M. Kloft,
# "Deep One-Class Classification", ICML 2018, Table 1, CIFAR-10 rows (mean AUROC in %, the ± std left out):
# one-class setting, the named class is normal, the other nine are anomalies (test set: 1000 normal and
# 9000 anomalous images).  Columns OC-SVM, KDE, IF and one-class Deep SVDD.
RUFF_CLASSES = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"]
RUFF_2018 = {
    "OC-SVM": [61.6, 63.8, 50.0, 55.9, 66.0, 62.4, 74.7, 62.6, 74.9, 75.9],
    "KDE": [61.2, 64.0, 50.1, 56.4, 66.2, 62.4, 74.9, 62.6, 75.1, 76.0],
    "IF": [60.1, 50.8, 49.2, 55.1, 49.8, 58.5, 42.9, 55.1, 74.2, 58.9],
    "Deep SVDD": [61.7, 65.9, 50.8, 59.1, 60.9, 65.7, 67.7, 67.3, 75.9, 73.1],
}
# Read off the table by hand at epsilon = 0.05 (|AUROC - 1/2| <= 0.05 is near random; 55.1 is not):
# (rho_rnd, rho_inv, rho_dir, near-random classes, inverted classes)
RUFF_EXPECTED = {
    "OC-SVM": (0.1, 0.0, 0.1, ["bird"], []),
    "KDE": (0.1, 0.0, 0.1, ["bird"], []),
    "IF": (0.3, 0.3, 0.4, ["automobile", "bird", "deer"], ["bird", "deer", "frog"]),
    "Deep SVDD": (0.1, 0.0, 0.1, ["bird"], []),
}


def ruff_wide() -> pd.DataFrame:
    return pd.DataFrame({"class": RUFF_CLASSES, **RUFF_2018})


# --------------------------------------------------------------------------- the rates
def test_worked_example_hand_numbers():
    table = pd.DataFrame({"method": "m", "class": ["a", "b", "c", "d", "e"], "auroc": [0.9, 0.3, 0.52, 0.48, 0.7]})
    g = audit_results(table, epsilon=0.05).groups[0]
    r = g.instability
    assert (r.rho_rnd, r.rho_inv, r.rho_dir) == pytest.approx((0.4, 0.4, 0.6), abs=1e-15)
    d = g.to_dict()
    assert d["near_random_classes"] == ["c", "d"]
    assert d["inverted_classes"] == ["b", "d"]
    assert d["up_classes"] == ["a", "e"] and d["down_classes"] == ["b"]
    assert d["dissenting_classes"] == ["b", "c", "d"]
    assert d["mean_auc"] == pytest.approx(0.58) and d["sigma2_auc"] == pytest.approx(
        np.var([0.9, 0.3, 0.52, 0.48, 0.7])
    )
    assert (d["min_auc"], d["max_auc"]) == (0.3, 0.9)


def _oracle_rates(values, eps):
    """Brute-force rates written from the definitions (independent of auditad.protocol)."""
    K = len(values)
    near = [abs(v - 0.5) <= eps + 1e-12 for v in values]
    up = sum(1 for v, n in zip(values, near) if not n and v > 0.5)
    down = sum(1 for v, n in zip(values, near) if not n and v < 0.5)
    mean = sum(values) / K
    return (
        sum(near) / K,
        sum(v < 0.5 for v in values) / K,
        1 - max(up, down) / K,
        sum((v - mean) ** 2 for v in values) / K,
    )


@pytest.mark.parametrize("K", [2, 5, 10, 15, 30, 100])
@pytest.mark.parametrize("eps", [0.0, 0.01, 0.05, 0.1, 0.25])
def test_rates_match_oracle_over_grid(K, eps):
    rng = np.random.default_rng(K * 1000 + int(eps * 100))
    rows = []
    vals = {}
    for m in ("a", "b", "c"):
        v = np.round(rng.uniform(0.2, 0.8, size=K), 3)
        vals[m] = v.tolist()
        rows += [{"detector": m, "class": f"c{i}", "auroc": x} for i, x in enumerate(v)]
    audit = audit_results(pd.DataFrame(rows), epsilon=eps)
    for g in audit.groups:
        exp = _oracle_rates(vals[g.method], eps)
        r = g.instability
        assert (r.rho_rnd, r.rho_inv, r.rho_dir, r.sigma2_auc) == pytest.approx(exp, abs=1e-12)


def test_ruff_2018_table_1_cifar10():
    audit = audit_results(ruff_wide(), percent=True, benchmark="CIFAR-10 one-class")
    assert audit.layout == "wide" and [g.method for g in audit.groups] == list(RUFF_2018)
    for method, (rnd, inv, rdir, near, inverted) in RUFF_EXPECTED.items():
        g = audit.group(method)
        assert (g.instability.rho_rnd, g.instability.rho_inv, g.instability.rho_dir) == pytest.approx(
            (rnd, inv, rdir), abs=1e-12
        )
        assert g.to_dict()["near_random_classes"] == near
        assert g.to_dict()["inverted_classes"] == inverted
        assert g.instability.mean_auc == pytest.approx(np.mean(RUFF_2018[method]) / 100)
    # the published averages: Deep SVDD (one-class) 64.81, IF 55.46 (mean of the column)
    assert audit.group("Deep SVDD").instability.mean_auc == pytest.approx(0.6481, abs=1e-12)


def test_long_and_wide_layouts_agree_and_percent_is_explicit():
    wide = ruff_wide()
    long = wide.melt(id_vars="class", var_name="method", value_name="auroc")
    a, b = audit_results(wide, percent=True), audit_results(long, percent=True)
    assert b.layout == "long"
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())
    with pytest.raises(InvalidInputError, match="look like percentages: pass percent=True"):
        audit_results(wide)
    frac = wide.assign(**{m: np.array(v) / 100 for m, v in RUFF_2018.items()})
    pd.testing.assert_frame_equal(audit_results(frac).to_frame(), a.to_frame())


# --------------------------------------------------------------------------- p-values and intervals
def _u_pmf_bruteforce(n_pos, n_neg):
    counts = {}
    n = n_pos + n_neg
    for pos in itertools.combinations(range(n), n_pos):  # positions of the positives, 0 = lowest score
        u = sum(p - i for i, p in enumerate(pos))  # negatives below each positive
        counts[u] = counts.get(u, 0) + 1
    total = math.comb(n, n_pos)
    return {u: c / total for u, c in counts.items()}


@pytest.mark.parametrize("n_pos,n_neg", [(3, 5), (4, 6), (6, 4), (2, 9), (5, 5)])
def test_p_values_equal_enumeration_of_all_rankings(n_pos, n_neg):
    pmf = _u_pmf_bruteforce(n_pos, n_neg)
    mn = n_pos * n_neg
    us = list(range(0, mn + 1))
    table = pd.DataFrame(
        {"method": "m", "class": [f"c{u}" for u in us], "auroc": [u / mn for u in us], "n_pos": n_pos, "n_neg": n_neg}
    )
    per = audit_results(table).per_class
    for u, row in zip(us, per.itertuples()):
        p_gt = sum(p for v, p in pmf.items() if v >= u)
        p_lt = sum(p for v, p in pmf.items() if v <= u)
        assert row.p_greater == pytest.approx(p_gt, rel=1e-9, abs=1e-15)
        assert row.p_less == pytest.approx(p_lt, rel=1e-9, abs=1e-15)
        assert row.p_two_sided == pytest.approx(min(1.0, 2 * min(p_gt, p_lt)), rel=1e-9, abs=1e-15)
        assert row.null_method == "exact"


def _scipy_case(n_pos, n_neg):
    """(auditad p_greater, scipy's exact Mann-Whitney p) at a grid of U values including both extremes."""
    rng = np.random.default_rng(n_pos + n_neg)
    mn = n_pos * n_neg
    aurocs, expected = [], []
    for u in sorted({0, mn // 2, int(0.6 * mn), int(0.75 * mn), int(0.9 * mn), mn, *rng.integers(0, mn, 4)}):
        # scores with exactly u (positive, negative) pairs in order: negatives 1..n, positive i above c_i of them
        c = np.full(n_pos, u // n_pos)
        c[: u % n_pos] += 1
        x = c + 0.5 + np.arange(n_pos) * 1e-6
        y = np.arange(1, n_neg + 1, dtype=float)
        aurocs.append(u / mn)
        expected.append(mannwhitneyu(x, y, alternative="greater", method="exact").pvalue)
    table = pd.DataFrame(
        {"method": "m", "class": [f"c{i}" for i in range(len(aurocs))], "auroc": aurocs, "n_pos": n_pos, "n_neg": n_neg}
    )
    per = audit_results(table).per_class
    return per["p_greater"].to_numpy(), np.array(expected)


@pytest.mark.parametrize("n_pos,n_neg", [(30, 40), (50, 50), (20, 120), (100, 60)])
def test_p_values_equal_scipy_exact_mann_whitney(n_pos, n_neg):
    got, expected = _scipy_case(n_pos, n_neg)
    body = expected >= 1e-6
    np.testing.assert_allclose(got[body], expected[body], rtol=1e-7)


@pytest.mark.parametrize("n_pos,n_neg", [(30, 40), (50, 50), (100, 60)])
def test_far_tail_p_values_equal_scipy_exact(n_pos, n_neg):
    got, expected = _scipy_case(n_pos, n_neg)
    np.testing.assert_allclose(got, expected, rtol=1e-9)


@pytest.mark.parametrize("A", [0.55, 0.7, 0.9])
@pytest.mark.parametrize("n_pos,n_neg", [(40, 60), (200, 50)])
def test_hanley_mcneil_se_matches_monte_carlo_under_exponential_scores(A, n_pos, n_neg):
    # Hanley & McNeil's Q1, Q2 are exact for exponential score distributions: normals ~ Exp(1),
    # anomalies ~ Exp(scale theta) with P(anomaly > normal) = theta / (1 + theta) = A.
    rng = np.random.default_rng(7)
    theta = A / (1 - A)
    reps = 4000
    pos = rng.exponential(theta, size=(reps, n_pos))
    neg = rng.exponential(1.0, size=(reps, n_neg))
    scores = np.concatenate([pos, neg], axis=1)
    ranks = scores.argsort(axis=1).argsort(axis=1) + 1
    u = ranks[:, :n_pos].sum(axis=1) - n_pos * (n_pos + 1) / 2
    auc = u / (n_pos * n_neg)
    se = hanley_mcneil_se(A, n_pos, n_neg)
    assert np.std(auc) == pytest.approx(se, rel=0.05)
    low, high = auroc_interval(auc, n_pos, n_neg, confidence_level=0.95)
    coverage = np.mean((low <= A) & (A <= high))
    assert 0.92 <= coverage <= 0.97


def test_interval_and_se_values():
    # A = 1/2: SE^2 = [1/4 + (n+ - 1)(1/3 - 1/4) + (n- - 1)(1/3 - 1/4)] / (n+ n-) = (n+ + n- + 1) / (12 n+ n-)
    for n_pos, n_neg in [(10, 10), (100, 900), (9000, 1000)]:
        assert hanley_mcneil_se(0.5, n_pos, n_neg) == pytest.approx(
            math.sqrt((n_pos + n_neg + 1) / (12 * n_pos * n_neg))
        )
    lo, hi = auroc_interval(1.0, 5, 5)
    assert (lo, hi) == (1.0, 1.0)
    with pytest.raises(InvalidInputError, match="confidence"):
        auroc_interval(0.7, 5, 5, confidence_level=1.0)


def test_ruff_table_with_counts_large_n():
    wide = ruff_wide().assign(n_pos=9000, n_neg=1000)
    audit = audit_results(wide, percent=True)
    per = audit.per_class
    frog_if = per[(per["method"] == "IF") & (per["class"] == "frog")].iloc[0]
    # AUROC 0.429 at 9000 x 1000: far below 1/2, the interval excludes 1/2
    # at these counts the far tail is a Chernoff upper bound (the normal approximation is not trusted below
    # 1e-3); the normal value would be about 8e-14
    assert frog_if.significant_below and frog_if.ci_high < 0.5 and frog_if.p_less < 1e-11
    bird_oc = per[(per["method"] == "OC-SVM") & (per["class"] == "bird")].iloc[0]
    assert bird_oc.auroc == 0.5 and bird_oc.p_two_sided == pytest.approx(1.0, abs=0.02)
    assert bird_oc.ci_low < 0.5 < bird_oc.ci_high
    assert set(per["null_method"]) <= {"exact", "analytic"}
    g = audit.group("IF").to_dict()
    assert g["n_tested"] == 10 and g["n_significant_below"] >= 1


# --------------------------------------------------------------------------- bad input
def _long(**cols):
    base = {"method": ["a", "a", "b", "b"], "class": ["x", "y", "x", "y"], "auroc": [0.6, 0.7, 0.4, 0.8]}
    base.update(cols)
    return pd.DataFrame(base)


@pytest.mark.parametrize(
    "frame,match",
    [
        (_long().drop(columns="auroc").assign(score=1.0), r"missing \['auroc'\]"),
        (_long(score=1.0), r"unknown column\(s\) \['score'\]"),
        (_long().drop(columns="class"), "no 'class' column"),
        (_long(auroc=[0.6, 1.2, 0.4, 0.8]), r"must lie in \[0, 1\].*data row 2"),
        (_long(auroc=[0.6, -0.1, 0.4, 0.8]), r"must lie in \[0, 1\]"),
        (_long(auroc=[0.6, np.nan, 0.4, 0.8]), r"missing.*row\(s\) 2"),
        (_long(auroc=[0.6, "high", 0.4, 0.8]), "must be a number.*data row 2 holds 'high' for method 'a'"),
        (
            pd.DataFrame({"class": ["x", "y"], "OC-SVM": ["61.6 (high)", "63.8"]}),
            r"data row 1 holds '61.6 \(high\)' for method 'OC-SVM'",
        ),
        (pd.DataFrame({"class": ["x", "y"], "OC-SVM": ["0.616 ± 0.9", "0.638 ± 0.1"]}), r"std must lie in \[0, 0.5\]"),
        (_long(std=[0.01, -0.02, 0.01, 0.01]), "std must be a number >= 0, got -0.02 in data row 2"),
        (pd.DataFrame({"class": ["x", "y"], "a": ["0.6 ± 0.01", "0.7"], "std": [0.02, None]}), "gives a std twice"),
        (_long(**{"class": ["x", "x", "x", "y"]}), "duplicate row for method 'a', class 'x': data rows 1 and 2"),
        (_long(n_pos=[10, 0, 10, 10], n_neg=5), "n_pos must be a positive whole number"),
        (_long(n_pos=10, n_neg=[5, 5, -3, 5]), "n_neg must be a positive whole number"),
        (_long(n_pos=10.5, n_neg=5), "n_pos must be a positive whole number"),
        (_long(n_pos=[10, np.nan, 10, 10], n_neg=5), "given together"),
        (_long(epsilon=[0.05, 0.1, 0.05, 0.05]), "epsilon differs"),
        (_long(detector="z"), "both a 'method' and a 'detector'"),
        (pd.DataFrame({"method": [], "class": [], "auroc": []}), "no rows"),
    ],
)
def test_bad_tables_are_named_errors(frame, match):
    with pytest.raises(InvalidInputError, match=match):
        audit_results(frame)


def test_class_missing_for_one_method_is_noted_and_rates_use_common_classes():
    t = pd.DataFrame(
        {
            "method": ["a"] * 4 + ["b"] * 3,
            "class": ["w", "x", "y", "z", "w", "x", "y"],
            "auroc": [0.9, 0.3, 0.7, 0.2, 0.6, 0.52, 0.8],
        }
    )
    audit = audit_results(t)
    assert any("z" in n and "'a'" in n and "3 classes common" in n for n in audit.notes)
    a = audit.group("a")
    assert a.instability.n_classes == 3 and a.dropped_classes == ("z",)
    assert a.instability.rho_inv == pytest.approx(1 / 3)
    per = audit.per_class
    assert not per.loc[per["class"] == "z", "in_common"].item()
    # a wide table with an empty cell: the same
    wide = pd.DataFrame({"class": ["w", "x", "y", "z"], "a": [0.9, 0.3, 0.7, 0.2], "b": [0.6, 0.52, 0.8, None]})
    pd.testing.assert_frame_equal(audit_results(wide).to_frame(), audit.to_frame())
    with pytest.raises(InvalidInputError, match="share no class"):
        audit_results(pd.DataFrame({"method": ["a", "b"], "class": ["x", "y"], "auroc": [0.6, 0.7]}))


def test_gates_on_summary_paths_and_per_group():
    from auditad.results import summary_with_gates

    audit = audit_results(ruff_wide(), percent=True)
    summary, by_group = summary_with_gates(audit, ["groups.2.rho_dir <= 0.3", "warn: min_auc >= 0.45"])
    assert by_group["table"][0].value == pytest.approx(0.4) and not by_group["table"][0].passed
    warned = [g["group"] for g in summary["gates"] if g["status"] == "warn"]
    assert warned == ["results / IF"] and summary["verdict"] == "fail"
    with pytest.raises(InvalidInputError, match="unknown gate metric 'groups.9.rho_dir'"):
        summary_with_gates(audit, ["groups.9.rho_dir <= 0.3"])


def test_benchmarks_and_representations_are_separate_groups():
    t = pd.concat(
        [
            _long(benchmark="b1", representation="pix"),
            _long(benchmark="b1", representation="vae"),
            _long(benchmark="b2"),
        ]
    )
    audit = audit_results(t)
    assert [g.label for g in audit.groups] == [
        "b1 / pix / a",
        "b1 / pix / b",
        "b1 / vae / a",
        "b1 / vae / b",
        "b2 / a",
        "b2 / b",
    ]
    assert audit.to_dict()["benchmark"] == "b1 + b2"


def test_read_results_table_files(tmp_path):
    ruff_wide().to_csv(tmp_path / "t.csv", index=False)
    ruff_wide().to_parquet(tmp_path / "t.parquet")
    pd.testing.assert_frame_equal(read_results_table(tmp_path / "t.csv"), read_results_table(tmp_path / "t.parquet"))
    (tmp_path / "e.csv").write_text("")
    (tmp_path / "t.json").write_text("{}")
    for name, match in (("missing.csv", "does not exist"), ("e.csv", "is empty"), ("t.json", "unsupported")):
        with pytest.raises(InvalidInputError, match=match):
            read_results_table(tmp_path / name)


# --------------------------------------------------------------------------- outputs and CLI
class _Tables(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.rows, self._table, self.scripts = [], {}, None, 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self._table = a.get("id")
            self.rows[self._table] = 0
        if tag == "tr" and self._table:
            self.rows[self._table] += 1
        if tag == "script":
            self.scripts += 1


def test_report_folder_schema_html_and_determinism(tmp_path):
    t = ruff_wide().assign(n_pos=9000, n_neg=1000)
    t["<script>alert(1)</script>"] = 70.0
    audit = audit_results(t, percent=True, source="t.csv")
    run = write_results_report(audit, tmp_path / "out", gates=["rho_dir <= 0.2", "warn: rho_inv <= 0.1"])
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    jsonschema.validate(summary, SCHEMA)
    assert run.exit_code == 1 and run.verdict == "fail"
    failed = [g["group"] for g in summary["gates"] if g["status"] == "fail"]
    assert failed == ["results / IF"]
    html = (tmp_path / "out" / "report.html").read_text()
    p = _Tables()
    p.feed(html)
    assert p.scripts == 0 and "&lt;script&gt;" in html
    assert p.rows["table-groups"] == 1 + 5 and p.rows["table-per-class"] == 1 + 50
    first = (tmp_path / "out" / "summary.json").read_bytes(), html
    write_results_report(audit, tmp_path / "out", gates=["rho_dir <= 0.2", "warn: rho_inv <= 0.1"])
    assert ((tmp_path / "out" / "summary.json").read_bytes(), (tmp_path / "out" / "report.html").read_text()) == first
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "keep.txt").write_text("x")
    with pytest.raises(InvalidInputError, match="not an auditad results report"):
        write_results_report(audit, tmp_path / "other")


def test_cli_results_exit_codes_and_outputs(tmp_path, capsys):
    ruff_wide().assign(n_pos=9000, n_neg=1000).to_csv(tmp_path / "ruff.csv", index=False)
    args = ["results", str(tmp_path / "ruff.csv"), "--percent", "--benchmark", "CIFAR-10"]
    assert main(args + ["--gate", "rho_dir <= 0.5"]) == 0
    code = main(
        args
        + [
            "--gate",
            "rho_dir <= 0.2",
            "--out",
            str(tmp_path / "o"),
            "--json",
            str(tmp_path / "s.json"),
            "--junit",
            str(tmp_path / "g.xml"),
            "--markdown",
            str(tmp_path / "g.md"),
        ]
    )
    assert code == 1
    out = capsys.readouterr().out
    assert "CIFAR-10 / IF" in out and "verdict: fail" in out
    assert "| CIFAR-10 / IF | 10 | 0.555 |" in (tmp_path / "g.md").read_text()
    assert 'failures="1"' in (tmp_path / "g.xml").read_text()
    jsonschema.validate(json.loads((tmp_path / "s.json").read_text()), SCHEMA)
    assert main(args + ["--gate", "warn: rho_dir <= 0.2"]) == 0
    assert main(args + ["--gate", "warn: rho_dir <= 0.2", "--fail-on", "warn"]) == 1
    # bad input: exit 2 with a one-line error
    assert main(["results", str(tmp_path / "ruff.csv")]) == 2
    assert "pass --percent" in capsys.readouterr().err
    pd.DataFrame({"method": ["a", "a"], "class": ["x", "x"], "auroc": [0.5, 0.6]}).to_csv(
        tmp_path / "d.csv", index=False
    )
    assert main(["results", str(tmp_path / "d.csv")]) == 2
    assert "duplicate row" in capsys.readouterr().err
    assert main(args + ["--gate", "no_such_stat <= 1"]) == 2


# --------------------------------------------------------------------------- issue #22 item 7: std, significance, findings
def test_mean_std_cells_give_intervals_from_the_std():
    """Ruff et al. print "61.7 ± 1.1": the std over runs makes the interval A ± z·std (z from scipy)."""
    t = pd.DataFrame(
        {
            "class": ["airplane", "bird", "frog"],
            "IF": ["60.1 ± 1.1", "49.2 ± 0.8", "42.9 ± 2.9"],
            "OC-SVM": ["61.6 ± 0.9", "50.0 ± 0.0", "74.7 ± 0.6"],
        }
    )
    per = audit_results(t, percent=True).per_class.set_index(["method", "class"])
    z = norm.ppf(0.975)
    frog = per.loc[("IF", "frog")]
    assert frog["std"] == pytest.approx(0.029) and frog.interval_method == "std" and frog.se == pytest.approx(0.029)
    assert (frog.ci_low, frog.ci_high) == pytest.approx((0.429 - z * 0.029, 0.429 + z * 0.029))
    # 0.429 ± 1.96 × 0.029 reaches 0.486 < 1/2: an inversion beyond the run-to-run spread
    assert frog.significance == "significantly inverted"
    assert per.loc[("IF", "bird"), "significance"] == "near random"
    # with the counts too: the test-set sampling and the spread of runs add up
    counted = audit_results(t.assign(n_pos=9000, n_neg=1000), percent=True).per_class.set_index(["method", "class"])
    row = counted.loc[("IF", "frog")]
    se_hm = hanley_mcneil_se(0.429, 9000, 1000)
    assert row.interval_method == "hanley_mcneil+std" and row.se == pytest.approx(math.hypot(se_hm, 0.029))
    # a long table with a std column reads the same as the "±" cells
    long = pd.DataFrame(
        {"method": "IF", "class": ["airplane", "bird", "frog"], "auroc": [60.1, 49.2, 42.9], "std": [1.1, 0.8, 2.9]}
    )
    a = audit_results(long, percent=True).per_class
    b = audit_results(t[["class", "IF"]], percent=True).per_class
    assert a["std"].tolist() == pytest.approx(b["std"].tolist()) and a["ci_high"].tolist() == pytest.approx(
        b["ci_high"].tolist()
    )


def _holm(p):
    """Holm's step-down adjustment written out (Holm 1979): sort, multiply by m - i, running maximum."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    out, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        out[i] = running
    return out


def test_a_class_at_0492_is_not_read_like_one_at_0005():
    """At 9000 × 1000 a class at 0.492 (p ≈ 0.4) is near random; one at 0.005 is significantly inverted."""
    t = pd.DataFrame(
        {"method": "m", "class": list("abcd"), "auroc": [0.005, 0.492, 0.47, 0.8], "n_pos": 9000, "n_neg": 1000}
    )
    audit = audit_results(t, epsilon=0.005)
    per = audit.per_class.set_index("class")
    assert per["p_holm"].tolist() == pytest.approx(_holm(per["p_two_sided"].tolist()))
    assert per.loc["a", "significance"] == "significantly inverted"
    assert per.loc["b", "significance"] == "below 1/2 within noise" and per.loc["b", "p_two_sided"] > 0.3
    assert per.loc["d", "significance"] == "above 1/2"
    g = audit.groups[0].to_dict()
    assert g["inverted_classes"] == ["a", "b", "c"]  # rho_inv keeps its definition
    assert g["inverted_significant_classes"] == ["a", "c"] and g["below_within_noise_classes"] == ["b"]
    findings = audit.to_dict()["findings"]
    warn = [f for f in findings if f["status"] == "warn"]
    assert [f["check"] for f in warn] == ["significantly inverted classes", "direction instability"]
    assert warn[0]["items"] == ["a", "c"] and "Holm p" in warn[0]["named"]
    info = [f for f in findings if f["status"] == "info"]
    assert info[0]["items"] == ["b"]
    # without counts nor std nothing is tested: below 1/2 - epsilon is "untested", near 1/2 is near random
    bare = audit_results(t.drop(columns=["n_pos", "n_neg"]), epsilon=0.05).per_class.set_index("class")
    assert bare.loc["a", "significance"] == "below 1/2, untested" and bare.loc["b", "significance"] == "near random"


def test_without_gates_the_banner_reads_the_findings(tmp_path, capsys):
    """Issue #22 item 7: no gate -> the default (warn) gates, never a green "no gate was set" pass."""
    ruff_wide().assign(n_pos=9000, n_neg=1000).to_csv(tmp_path / "ruff.csv", index=False)
    assert main(["results", str(tmp_path / "ruff.csv"), "--percent", "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "gate WARN results / IF: n_inverted_significant = 1 (frog (0.429 [0.410, 0.448]" in out
    assert "PASS" not in out and "no --gate given" in out
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    jsonschema.validate(summary, SCHEMA)
    assert summary["default_gates"] and summary["verdict"] == "warn" and summary["status"] == "warn"
    assert "frog" in summary["verdict_reason"] and "ρ_dir = 0.400 > 0.2" in summary["verdict_reason"]
    html = (tmp_path / "o" / "report.html").read_text()
    assert 'class="banner warn"' in html and "no gate was given, so the checks are the gates" in html
    assert html.index('id="verdict"') < html.index('id="findings"') < html.index('id="groups"')
    assert main(["results", str(tmp_path / "ruff.csv"), "--percent", "--fail-on", "warn"]) == 1
    # a table where every check passes: PASS, and the banner says which checks passed
    clean = pd.DataFrame({"class": list("abc"), "m": [0.9, 0.8, 0.85]})
    run = write_results_report(audit_results(clean), tmp_path / "c")
    assert run.verdict == "pass" and "Every check passed" in run.summary["verdict_reason"]
    # default gates switched off and no gate: the verdict is the findings' status
    s = write_results_report(audit_results(ruff_wide(), percent=True), default_gates=False).summary
    assert s["gates"] == [] and s["verdict"] == "warn"


def test_per_class_tables_are_written_as_csv_markdown_latex_and_formulas_are_inert(tmp_path):
    t = ruff_wide().rename(columns={"IF": "=cmd|' /C calc'!A0"})
    write_results_report(audit_results(t, percent=True), tmp_path / "o")
    csv_text = (tmp_path / "o" / "tables" / "groups.csv").read_text()
    assert "'=cmd|' /C calc'!A0" in csv_text
    assert not any(cell.startswith("=") for line in csv_text.splitlines() for cell in line.split(","))
    assert {p.name for p in (tmp_path / "o" / "tables").iterdir()} == {
        f"{n}.{e}" for n in ("groups", "per_class") for e in ("csv", "md", "tex")
    }


def test_auditad_results_detects_the_per_class_table_first(tmp_path):
    """A Ruff-like table ("class" + one column per method) stays a per-class table, not a wide leaderboard."""
    ruff_wide().to_csv(tmp_path / "t.csv", index=False)
    from auditad.results.detect import per_class_mismatch, read_results_file

    assert per_class_mismatch(tmp_path / "t.csv") is None
    assert read_results_file(tmp_path / "t.csv", percent=True)[0] == "per-class"
    assert read_results_file(tmp_path / "t.csv", format="wide")[0] == "wide"
    pd.DataFrame({"class": ["a"], "method": ["m"], "seed": [1], "auroc": [0.7]}).to_csv(tmp_path / "s.csv", index=False)
    assert "belong to a leaderboard" in per_class_mismatch(tmp_path / "s.csv")
    assert read_results_file(tmp_path / "s.csv")[0] == "long"


def test_results_refuses_a_fifo_by_name(tmp_path, capsys):
    import os

    fifo = tmp_path / "table.csv"
    os.mkfifo(fifo)
    assert main(["results", str(fifo), "--out", str(tmp_path / "out")]) == 2
    assert "is not a regular file (a device, FIFO or socket)" in capsys.readouterr().err


def test_absurd_counts_take_the_normal_approximation_not_all_memory(tmp_path, capsys):
    table = tmp_path / "huge.csv"
    big = 10**15
    table.write_text(f"method,class,auroc,n_pos,n_neg\nm,a,0.6,{big},{big}\nm,b,0.4,{big},{big}\nm,c,0.55,10,20\n")
    assert main(["results", str(table), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    rows = {r["class"]: r for r in summary["per_class"]}
    # AUROC 0.4 at 10^15 vs 10^15 is significantly inverted; its p sits at the floor, never 0
    assert rows["b"]["significance"] == "significantly inverted" and 0 < rows["b"]["p_less"] <= 1e-300
    assert rows["c"]["n_pos"] == 10 and rows["c"]["p_two_sided"] > 0.05
