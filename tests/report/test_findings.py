"""One vocabulary for findings: one Status order, one Finding record, one verdict sentence, checks declared once."""

import json
import math

import pytest

from auditad.findings import Check, Finding, FindingItem, Status, sort_findings, status_of, verdict, verdict_text


def test_status_order_is_defined_once_and_read_everywhere():
    from auditad.gates.checks import GateStatus, verdict as gate_verdict
    from auditad.leaderboards.finding_records import STATUSES

    assert sorted(["fail", "pass", "warn", "info"], key=lambda s: Status(s).rank) == ["pass", "info", "warn", "fail"]
    assert GateStatus is Status and STATUSES == ("pass", "warn", "fail")
    assert [Status(s).severity for s in ("pass", "info", "warn", "fail")] == [0, 0, 1, 2]
    assert gate_verdict([]) is Status.PASS
    rows = [
        {"status": "pass", "n": 0},
        {"status": "fail", "n": 1},
        {"status": "info", "n": 2},
        {"status": "warn", "n": 3},
    ]
    assert [r["n"] for r in sort_findings(rows)] == [1, 3, 2, 0]
    assert verdict(rows) is Status.FAIL and status_of(rows[2]) is Status.INFO


def _brute_verdict(statuses):
    """Independent oracle: the worst by an explicit list, best first."""
    order = ["pass", "info", "warn", "fail"]
    return order[max((order.index(s) for s in statuses), default=0)]


@pytest.mark.parametrize("statuses", [[], ["info"], ["pass", "warn"], ["warn", "info", "fail", "pass"], ["info"] * 3])
def test_verdict_matches_a_brute_force_worst(statuses):
    assert verdict(statuses).value == _brute_verdict(statuses)


def test_verdict_text_words_gates_and_checks():
    ok, bad = {"passed": True, "message": "a"}, {"passed": False, "message": "L_k = 0.8 > 0.5"}
    assert verdict_text([]) == "No gate was set."
    assert verdict_text([ok]) == "All 1 gate passed."
    assert verdict_text([ok, ok]) == "All 2 gates passed."
    assert verdict_text([ok, bad]) == "1 of 2 gates did not pass: L_k = 0.8 > 0.5."
    checks = [{"status": "warn", "check": "w"}, {"status": "fail", "check": "f"}, {"status": "pass", "check": "p"}]
    assert verdict_text([ok, bad], checks) == (
        "1 of 2 gates did not pass: L_k = 0.8 > 0.5. The checks (not gated): 1 check failed and 1 warned."
    )
    assert (
        verdict_text([], checks)
        == "1 check failed and 1 warned (no gate was given, so the checks are the gates): f; w."
    )
    assert verdict_text([], checks[2:]).startswith("Every check passed (1 check;")
    many = [{"status": "warn", "check": str(i)} for i in range(5)]
    assert verdict_text([], many, max_shown=2).endswith(": 0; 1; 3 more below.")


def test_check_gives_its_status_above_the_threshold_and_keeps_evidence():
    check = Check("c", Status.WARN, "title", "meaning", threshold=0.2)
    assert check.finding(0.2, sentence="s").status is Status.PASS
    f = check.finding(0.3, sentence="s", evidence={"n": 3}, items=[FindingItem("x", value=0.1)])
    assert f.status is Status.WARN and f.evidence == {"n": 3}
    d = json.loads(json.dumps(f.to_dict()))
    assert d["evidence"] == {"n": 3} and d["items"][0]["name"] == "x"
    assert "evidence" not in check.finding(0.0, sentence="s").to_dict()
    assert check.finding(math.nan, sentence="s").status is Status.PASS


def test_leaderboard_records_are_the_shared_ones():
    from auditad.leaderboards.finding_records import CHECKS, DECLARED_CHECKS, FindingItem as LItem, make_finding

    it = LItem(method="LODA", dataset="x", seed=3, value=0.0, detail="exactly 0")
    f = make_finding("failed_runs", "auroc", [it], message="failed runs.")
    assert isinstance(f, Finding) and isinstance(it, FindingItem)
    assert f.status is Status.FAIL and f.message == f.sentence and f.metric == f.subject == "auroc"
    assert it.name == "LODA on x, seed 3" and it.to_dict() == {
        "method": "LODA",
        "dataset": "x",
        "seed": 3,
        "value": 0.0,
        "detail": "exactly 0",
    }
    assert make_finding("failed_runs", "auroc", [], message="none").status == "pass"
    assert set(DECLARED_CHECKS) == set(CHECKS) and DECLARED_CHECKS["near_chance"].status is Status.WARN


def test_gate_meanings_are_declared_next_to_their_thresholds():
    from auditad.gates.defaults import DEFAULT_CHECKS, DEFAULT_GATES, GATE_CHECKS, NEAR_RANDOM_CHECK, THRESHOLDS

    assert list(DEFAULT_CHECKS) == list(THRESHOLDS)
    for name, (path, op, thr) in THRESHOLDS.items():
        c = DEFAULT_CHECKS[name]
        assert (
            (c.id, c.threshold) == (path, thr)
            and c.title
            and c.meaning
            and f"warn: {path} {op} {thr:g}" in DEFAULT_GATES
        )
        assert GATE_CHECKS[path] is c
    assert NEAR_RANDOM_CHECK.threshold == THRESHOLDS["protocol"][2]


def _summary(n_near: int, n_classes: int = 10) -> dict:
    rows = [
        {"detector": "knn", "class": i, "auroc": 0.5 if i < n_near else 0.9, "significance": "near random"}
        if i < n_near
        else {"detector": "knn", "class": i, "auroc": 0.9, "significance": "above 1/2"}
        for i in range(n_classes)
    ]
    rows[-1] = {
        "detector": "knn",
        "class": "cat",
        "auroc": 0.2,
        "ci_low": 0.1,
        "ci_high": 0.3,
        "significance": "significantly inverted",
    }
    return {
        "protocol": {"epsilon": 0.05, "representations": {"pix": {"per_class": rows, "detectors": {"knn": {}}}}},
        "gates": [],
    }


@pytest.mark.parametrize("n_near, shown", [(2, False), (3, True)])
def test_report_findings_read_the_declared_near_random_threshold(n_near, shown):
    from auditad.gates.defaults import THRESHOLDS
    from auditad.report.findings import finding_rows, findings

    found = findings(_summary(n_near))
    assert all(isinstance(f, Finding) for f in found)
    near = [f for f in found if f.check == "near_random_classes"]
    assert bool(near) is shown is (n_near / 10 > THRESHOLDS["protocol"][2])
    inverted = next(f for f in found if f.check == "significantly_inverted_classes")
    assert inverted.status is Status.WARN and [it.name for it in inverted.items] == ["cat"]
    rows = finding_rows(found)
    assert rows[0]["check"] == "significantly inverted classes" and rows[0]["number"].startswith("1 of 10 classes")
    assert rows[0]["subject"] == "knn on pix inverts class cat: 0.200 [0.100, 0.300]."


def test_near_random_finding_names_the_classes_that_still_differ_from_random():
    """Near random is |AUROC − ½| ≤ ε, not "cannot be told from random": a class within ε whose stored decision is
    distinguishable (Holm) is named as such, one that is not is not; read from rows inline or from a CSV file
    (where the flag comes back as text)."""
    from auditad.report.findings import finding_rows, findings

    summary = _summary(4)
    rows = summary["protocol"]["representations"]["pix"]["per_class"]
    rows[0].update(auroc=0.549, ci_low=0.530, ci_high=0.568, distinguishable=True)
    rows[1].update(distinguishable=False)
    rows[2].update(distinguishable="True")  # a CSV cell
    near = next(f for f in findings(summary) if f.check == "near_random_classes")
    assert near.sentence.endswith("Of these, 2 differ from a random detector (Holm-corrected), by less than ε: 0, 2.")
    meaning = next(r["meaning"] for r in finding_rows([near]))
    assert "weakly or not at all" in meaning and "cannot tell" not in meaning
    for r in rows:
        r.pop("distinguishable", None)
    near = next(f for f in findings(summary) if f.check == "near_random_classes")
    assert "differ from a random detector" not in near.sentence


@pytest.mark.parametrize(
    "delta, words",
    [(0.009, "changes every per-class AUROC by at most 0.009: no measurable inflation"), (0.2, "up to 0.200")],
)
def test_overlap_wording_follows_the_auroc_change(delta, words):
    from auditad.gates.checks import evaluate_gates
    from auditad.report.findings import finding_rows, findings

    summary = {"duplicates": {"train_test_overlap": 0.05, "max_abs_delta_auroc": delta}}
    gates = evaluate_gates(summary, ["warn: duplicates.train_test_overlap <= 0.01"])
    rows = finding_rows(findings(summary, gates))
    meaning = next(r["meaning"] for r in rows if "overlap" in r["check"])
    assert words in meaning
    assert ("inflated by leakage" in meaning) == (delta > 0.01)


def test_anomaly_labelled_first_screen_leads_with_each_detectors_auroc_and_both_shares():
    from auditad.report.render import _glance

    row = dict(representation="r", class_="normal", n_pos=50, n_neg=323, auroc=0.96, ci_low=0.917, ci_high=0.981)
    rows = [
        {**row, "detector": "knn", "p_value": 1e-25},
        {**row, "detector": "ensemble", "p_value": None, "ci_low": None, "ci_high": None},
    ]
    summary = {
        "dataset": {"n": 1667, "n_classes": 2, "representations": {"r": {}}, "anomaly_ratio": 0.03},
        "leakage": {"k": 10, "L_k": 0.009},
        "protocol": {
            "setting": "semi_supervised",
            "detectors": [{"name": "knn"}],
            "representations": {"r": {"per_class": rows}},
            "mean": {"rho_inv": 0.0},
        },
        "landscapes": {"ratio": 0.134},
    }
    labels = {item["label"]: item["value"] for item in _glance(summary)}
    assert labels["AUROC of knn"].startswith("0.960 [0.917, 0.981], p < ") and labels["AUROC of knn"].endswith(
        "vs random"
    )
    assert labels["anomaly share π, whole data"] == "3.0%"
    assert labels["anomaly share π, test set scored"].startswith("13.4% (50 anomalies, 323 normals)")
    assert not any("ρ" in label or "classes" in label or "ensemble" in label for label in labels)
