"""Gates (auditad.gates.checks): rule syntax, path resolution, missing values, verdict and exit code.

Expected values are written out by hand (truth tables, path lists) rather than recomputed
with the module's own helpers.
"""

import json
import math

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

from auditad.errors import InvalidInputError
from auditad.gates.checks import (
    GateResult,
    GateRule,
    evaluate_gates,
    exit_code,
    load_summary,
    numeric_paths,
    parse_rule,
    rules_from_config,
    summary_rules,
    verdict,
)


def _summary():
    return {
        "schema_version": 1,
        "benchmark": "toy",
        "leakage": {"L_k": 0.07, "k": 10, "per_class": [0.1, None, 0.3]},
        "protocol": {
            "mean": {"rho_dir": 0.3, "mean_auc": float("nan"), "significant": True},
            "representations": {
                "pixels": {"detectors": {"knn": {"rho_inv": 0.0, "name": "kNN"}}},
                "resnet.v1": {"detectors": {"knn": {"rho_inv": 0.25}}},
            },
            "runs": [{"auroc": 0.91}, {"auroc": 0.42}],
        },
        "nulls": None,
        "gates": [{"rule": "leakage.L_k <= 0.5", "level": "fail", "passed": True, "value": 0.07}],
        "verdict": "pass",
    }


# --------------------------------------------------------------------------- parsing
@pytest.mark.parametrize(
    "text, expected",
    [
        ("leakage.L_k <= 0.5", GateRule("leakage.L_k", "<=", 0.5, "fail")),
        ("leakage.L_k<=0.5", GateRule("leakage.L_k", "<=", 0.5, "fail")),
        ("warn: protocol.mean.rho_dir <= 0.2", GateRule("protocol.mean.rho_dir", "<=", 0.2, "warn")),
        ("WARN:protocol.mean.rho_dir<=0.2", GateRule("protocol.mean.rho_dir", "<=", 0.2, "warn")),
        ("protocol.mean.rho_dir <= 0.2 [warn]", GateRule("protocol.mean.rho_dir", "<=", 0.2, "warn")),
        ("fail: x > -1.5 [fail]", GateRule("x", ">", -1.5, "fail")),
        ("  a.0.b >= 1e-3  ", GateRule("a.0.b", ">=", 0.001, "fail")),
        ("a < 2", GateRule("a", "<", 2.0, "fail")),
        ("a == 0", GateRule("a", "==", 0.0, "fail")),
        ("a != 3", GateRule("a", "!=", 3.0, "fail")),
        ("resnet-18.rho_inv < .5", GateRule("resnet-18.rho_inv", "<", 0.5, "fail")),
    ],
)
def test_parse_rule_accepts_both_level_syntaxes(text, expected):
    assert parse_rule(text) == expected


def test_default_level_and_canonical_text_round_trip():
    rule = parse_rule("leakage.L_k <= 0.5", default_level="warn")
    assert rule.level == "warn"
    assert rule.text == "warn: leakage.L_k <= 0.5" and str(rule) == rule.text
    assert rule.expression == "leakage.L_k <= 0.5"
    for text in ("a.b < 0.1", "warn: c.d >= 3", "e != -2.5e-07 [warn]"):
        assert parse_rule(parse_rule(text).text) == parse_rule(text)
    assert parse_rule("fail: c.d >= 0.1 [fail]").level == "fail"


@pytest.mark.parametrize(
    "text, match",
    [
        ("leakage.L_k = 0.5", "expected 'METRIC OP THRESHOLD'"),
        ("leakage.L_k =< 0.5", "not a dotted path"),
        ("leakage.L_k <= ", "expected 'METRIC OP THRESHOLD'"),
        ("<= 0.5", "expected 'METRIC OP THRESHOLD'"),
        ("leakage.L_k <= abc", "threshold 'abc' is not a number"),
        ("leakage.L_k <= nan", "threshold must be finite"),
        ("leakage.L_k <= inf", "threshold must be finite"),
        ("error: leakage.L_k <= 0.5", "unknown level 'error'"),
        ("leakage.L_k <= 0.5 [info]", "unknown level 'info'"),
        ("warn: leakage.L_k <= 0.5 [fail]", "contradictory levels"),
        ("leakage..L_k <= 0.5", "not a dotted path"),
        ("leakage L_k <= 0.5", "not a dotted path"),
        (".leakage <= 0.5", "not a dotted path"),
        ("", "expected 'METRIC OP THRESHOLD'"),
    ],
)
def test_malformed_rules_raise_naming_the_rule(text, match):
    with pytest.raises(InvalidInputError, match=match) as exc:
        parse_rule(text)
    assert repr(text) in str(exc.value)
    assert isinstance(exc.value, ValueError)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(path="a", op="=~", threshold=1.0), "operator"),
        (dict(path="a", op="<", threshold=float("nan")), "finite"),
        (dict(path="a", op="<", threshold="1"), "number"),
        (dict(path="a", op="<", threshold=True), "number"),
        (dict(path="a", op="<", threshold=1.0, level="error"), "level"),
        (dict(path="a..b", op="<", threshold=1.0), "segment"),
    ],
)
def test_gate_rule_validates_its_fields(kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        GateRule(**kwargs)


def test_non_string_rule_and_bad_default_level():
    with pytest.raises(InvalidInputError, match="must be a string"):
        parse_rule(0.5)
    with pytest.raises(InvalidInputError, match="default_level"):
        parse_rule("a < 1", default_level="error")


# --------------------------------------------------------------------------- config lists
def test_rules_from_toml_config_list():
    config = tomllib.loads("""
gates = [
  "leakage.L_k <= 0.5",
  "warn: protocol.mean.rho_dir <= 0.2",
  { metric = "protocol.runs.0.auroc", op = ">=", threshold = 0.6 },
  { metric = "leakage.k", op = "==", threshold = 10, level = "warn" },
  { rule = "nulls.x < 1", level = "warn" },
]
""")
    rules = rules_from_config(config["gates"])
    assert rules == [
        GateRule("leakage.L_k", "<=", 0.5, "fail"),
        GateRule("protocol.mean.rho_dir", "<=", 0.2, "warn"),
        GateRule("protocol.runs.0.auroc", ">=", 0.6, "fail"),
        GateRule("leakage.k", "==", 10.0, "warn"),
        GateRule("nulls.x", "<", 1.0, "warn"),
    ]
    # to_dict reads back
    assert rules_from_config([r.to_dict() for r in rules]) == rules


def test_summary_gates_with_recorded_results_read_back():
    assert summary_rules(_summary()) == [GateRule("leakage.L_k", "<=", 0.5, "fail")]
    assert summary_rules({"benchmark": "no gates"}) == []
    # an evaluated GateResult.to_dict() (what the audit stores) reads back as its rule
    res = evaluate_gates(_summary(), ["warn: leakage.L_k < 0.01"])[0]
    assert rules_from_config([res.to_dict()]) == [res.rule]


@pytest.mark.parametrize(
    "items, match",
    [
        ([{"metric": "a", "op": "<", "treshold": 1}], r"gates\[0\]: unknown key\(s\) \['treshold'\]"),
        ([{"metric": "a", "op": "<"}], r"missing 'threshold'"),
        ([{"metric": "a", "op": "<", "threshold": "x"}], "not a number"),
        ([{"metric": "a", "op": "=", "threshold": 1}], "operator"),
        (["a < 1", {"rule": "warn: a < 1", "level": "fail"}], r"gates\[1\]: level 'fail' contradicts"),
        ([{"rule": "a < 1", "threshold": 2}], "contradict"),
        ([{"rule": "a < 1", "level": "severe"}], "level must be 'fail' or 'warn'"),
        (["a < 1", "b <<= 2"], r"gates\[1\]: malformed gate rule 'b <<= 2'"),
        ([3], r"gates\[0\] must be a rule string"),
        ("a < 1", "must be a list"),
        ({"metric": "a"}, "must be a list"),
    ],
)
def test_bad_config_items(items, match):
    with pytest.raises(InvalidInputError, match=match):
        rules_from_config(items)


# --------------------------------------------------------------------------- resolution
@pytest.mark.parametrize(
    "rule, value, passed",
    [
        ("leakage.L_k <= 0.5", 0.07, True),
        ("leakage.L_k > 0.07", 0.07, False),
        ("leakage.k == 10", 10.0, True),
        ("leakage.per_class.0 < 0.2", 0.1, True),
        ("leakage.per_class.2 < 0.2", 0.3, False),
        ("protocol.runs.1.auroc >= 0.5", 0.42, False),
        ("protocol.representations.pixels.detectors.knn.rho_inv == 0", 0.0, True),
        ("protocol.representations.resnet.v1.detectors.knn.rho_inv < 0.2", 0.25, False),  # key with a dot
        ("schema_version == 1", 1.0, True),
    ],
)
def test_dotted_paths_resolve_dicts_lists_and_dotted_keys(rule, value, passed):
    (res,) = evaluate_gates(_summary(), [rule])
    assert res.value == value and res.passed is passed
    assert res.status == ("pass" if passed else "fail")


@pytest.mark.parametrize(
    "op, truth",
    [
        # value 0.5 against thresholds 0.4, 0.5, 0.6, worked out by hand
        ("<", (False, False, True)),
        ("<=", (False, True, True)),
        (">", (True, False, False)),
        (">=", (True, True, False)),
        ("==", (False, True, False)),
        ("!=", (True, False, True)),
    ],
)
def test_operator_truth_table(op, truth):
    got = tuple(evaluate_gates({"x": 0.5}, [f"x {op} {t}"])[0].passed for t in (0.4, 0.5, 0.6))
    assert got == truth


@pytest.mark.parametrize(
    "path, match, suggestion",
    [
        ("leakage.Lk", "unknown gate metric 'leakage.Lk'", "leakage.L_k"),
        ("protocol.mean.rho", "unknown gate metric 'protocol.mean.rho'", "protocol.mean.rho_dir"),
        ("leakage.per_class.7", "unknown gate metric 'leakage.per_class.7'", "leakage.per_class.0"),
        ("protocol.runs.x.auroc", "unknown gate metric", "protocol.runs.0.auroc"),
        (
            "protocol.representations.pixels.detectors.knn",
            "is a dict, not a number",
            "protocol.representations.pixels.detectors.knn.rho_inv",
        ),
        ("leakage.per_class", "is a list, not a number", "leakage.per_class.0"),
        ("leakage.L_k.x", "unknown gate metric", "leakage.L_k"),
    ],
)
def test_unknown_paths_raise_with_nearest_numeric_paths(path, match, suggestion):
    with pytest.raises(InvalidInputError, match=match) as exc:
        evaluate_gates(_summary(), [f"{path} < 1"])
    message = str(exc.value)
    assert suggestion in message.split("\u2014", 1)[1]
    assert "gates.0" not in message  # gate metadata is not offered as a metric


def test_text_value_is_not_a_number():
    with pytest.raises(InvalidInputError, match="not a number: 'kNN'"):
        evaluate_gates(_summary(), ["protocol.representations.pixels.detectors.knn.name == 1"])
    with pytest.raises(InvalidInputError, match="not a number: True"):
        evaluate_gates(_summary(), ["protocol.mean.significant == 1"])


@pytest.mark.parametrize("op", ["<", "<=", ">", ">=", "==", "!="])
@pytest.mark.parametrize(
    "path, expect_value, words",
    [
        ("leakage.per_class.1", None, "is null"),
        ("protocol.mean.mean_auc", "nan", "is NaN"),
        ("nulls.auroc.p_value", None, "because 'nulls' is null"),
    ],
)
def test_null_and_nan_values_fail_for_every_operator(op, path, expect_value, words):
    for level in ("fail", "warn"):
        (res,) = evaluate_gates(_summary(), [f"{level}: {path} {op} 0.5"])
        assert res.passed is False and res.status == level
        assert words in res.message and "fails" in res.message
        if expect_value is None:
            assert res.value is None
        else:
            assert math.isnan(res.value)
        assert res.to_dict()["value"] is None and res.to_dict()["passed"] is False


def test_evaluate_gates_input_checks():
    with pytest.raises(InvalidInputError, match="summary must be a dict"):
        evaluate_gates([1, 2], ["a < 1"])
    # a single rule string is one rule, not a sequence of characters
    assert len(evaluate_gates({"a": 0}, "a < 1")) == 1
    assert evaluate_gates({"a": 0}, []) == []


def test_numeric_paths_lists_numbers_only_in_document_order():
    assert numeric_paths(_summary()) == [
        "schema_version",
        "leakage.L_k",
        "leakage.k",
        "leakage.per_class.0",
        "leakage.per_class.2",
        "protocol.mean.rho_dir",
        "protocol.mean.mean_auc",
        "protocol.representations.pixels.detectors.knn.rho_inv",
        "protocol.representations.resnet.v1.detectors.knn.rho_inv",
        "protocol.runs.0.auroc",
        "protocol.runs.1.auroc",
    ]
    with_null = numeric_paths(_summary(), include_null=True)
    assert "leakage.per_class.1" in with_null and "nulls" in with_null
    # every listed path resolves through evaluate_gates
    for path in with_null:
        evaluate_gates(_summary(), [f"{path} < 1"])


# --------------------------------------------------------------------------- verdict / exit code
def _result(level, passed):
    return GateResult(GateRule("x", "<", 1.0, level), level, passed, 0.0, "")


@pytest.mark.parametrize(
    "outcomes, expected_verdict, code_fail, code_warn",
    [
        ([], "pass", 0, 0),
        ([("fail", True), ("warn", True)], "pass", 0, 0),
        ([("fail", True), ("warn", False)], "warn", 0, 1),
        ([("warn", False), ("fail", False)], "fail", 1, 1),
        ([("fail", False)], "fail", 1, 1),
        ([("warn", False), ("warn", False)], "warn", 0, 1),
    ],
)
def test_verdict_and_exit_code(outcomes, expected_verdict, code_fail, code_warn):
    results = [_result(level, passed) for level, passed in outcomes]
    assert verdict(results) == expected_verdict
    assert exit_code(results) == code_fail
    assert exit_code(results, fail_on="fail") == code_fail
    assert exit_code(results, fail_on="warn") == code_warn


def test_exit_code_rejects_unknown_level():
    with pytest.raises(InvalidInputError, match="fail_on"):
        exit_code([], fail_on="error")


def test_load_summary_errors(tmp_path):
    with pytest.raises(InvalidInputError, match="does not exist"):
        load_summary(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text('{"a": 1,,}')
    with pytest.raises(InvalidInputError, match=r"not valid JSON: .*line 1"):
        load_summary(tmp_path / "bad.json")
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(InvalidInputError, match="JSON object"):
        load_summary(tmp_path / "list.json")
    with pytest.raises(InvalidInputError, match="directory"):
        load_summary(tmp_path)


# --------------------------------------------------------------------------- hostile input: size, depth, versions
def test_rule_parsing_is_linear_and_length_is_capped():
    import time

    from auditad.gates.checks import MAX_RULE_LENGTH

    # inputs that made the 0.1 regexes backtrack quadratically (26 s at 30 000 characters)
    worst = [
        "a" + " " * (MAX_RULE_LENGTH - 2) + "<",
        "warn:" + " " * (MAX_RULE_LENGTH - 10) + "[x",
        "x" * (MAX_RULE_LENGTH - 1) + "]",
        "a <" + " " * (MAX_RULE_LENGTH - 6) + " 1]",
    ]
    for text in worst:
        t0 = time.perf_counter()
        with pytest.raises(InvalidInputError):
            parse_rule(text)
        assert time.perf_counter() - t0 < 0.05
    t0 = time.perf_counter()
    with pytest.raises(InvalidInputError, match=f"30000 characters long, at most {MAX_RULE_LENGTH}"):
        parse_rule("a" * 29_996 + " < 1")
    assert time.perf_counter() - t0 < 0.05
    long_ok = "x." * 400 + "y <= 1"
    assert parse_rule(long_ok).path == "x." * 400 + "y"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("a<=1", ("a", "<=", 1.0)),
        ("a=<1", None),
        ("a = = 1", None),
        ("a !1", None),
        ("a<>1", None),
        ("a <= -1e-3 [ WARN ]", ("a", "<=", -0.001)),
        ("a.b.c>=2", ("a.b.c", ">=", 2.0)),
        ("a==2", ("a", "==", 2.0)),
        ("a!=2", ("a", "!=", 2.0)),
        ("a>2", ("a", ">", 2.0)),
        ("fail:a<2[fail]", ("a", "<", 2.0)),
    ],
)
def test_operator_scan_matches_the_grammar(text, expected):
    if expected is None:
        with pytest.raises(InvalidInputError, match="malformed gate rule"):
            parse_rule(text)
    else:
        r = parse_rule(text)
        assert (r.path, r.op, r.threshold) == expected


def test_unknown_metric_on_a_huge_summary_is_fast():
    import time

    K = 2000  # a 2 000-class summary: per-class rows and a K x K confusion (72 MB as JSON in 0.1)
    summary = {
        "leakage": {
            "L_k": 0.2,
            "per_class": [{"class": i, "leakage": 0.1, "by_k": {"10": 0.1}} for i in range(K)],
            "confusion": [[0.0] * K for _ in range(K)],
        }
    }
    t0 = time.perf_counter()
    with pytest.raises(InvalidInputError, match="unknown gate metric 'leakage.L_kk'.*leakage.L_k"):
        evaluate_gates(summary, ["leakage.L_kk <= 0.5"])
    assert time.perf_counter() - t0 < 1.0
    # a list element that exists is still found, one past the end is unknown (suggesting element 0)
    assert evaluate_gates(summary, ["leakage.per_class.1999.leakage <= 0.5"])[0].passed
    with pytest.raises(InvalidInputError, match="leakage.per_class.0.leakage"):
        evaluate_gates(summary, ["leakage.per_class.2000.leakage <= 0.5"])


@pytest.mark.parametrize(
    "version, ok",
    [
        ("1.0", True),
        ("1.7", True),
        (1, True),
        (1.2, True),
        ("99.0", False),
        ("2.0", False),
        (0, False),
        ("one", False),
        (None, False),
        ("", False),
    ],
)
def test_schema_version_major(tmp_path, version, ok):
    from auditad.gates.checks import check_schema_version

    path = tmp_path / "summary.json"
    path.write_text(json.dumps({"schema_version": version, "leakage": {"L_k": 0.1}}))
    if ok:
        check_schema_version(load_summary(path))
    else:
        with pytest.raises(InvalidInputError, match="schema_version"):
            load_summary(path)


@pytest.mark.parametrize(
    "text, match",
    [
        ("[" * 100_000 + "]" * 100_000, "nested"),
        ('{"a": ' + "[" * 200 + "]" * 200 + "}", "nested deeper than 64"),
        ('{"a": ' + "7" * 400 + "}", "400 digits"),
        ('{"a": ' + "7" * 5000 + "}", "5000 digits"),
    ],
)
def test_hostile_summaries_are_refused_naming_the_file(tmp_path, text, match):
    path = tmp_path / "hostile.json"
    path.write_text(text)
    with pytest.raises(InvalidInputError, match=match) as exc:
        load_summary(path)
    assert "hostile.json" in str(exc.value)


def test_huge_integer_in_a_summary_dict_is_a_named_error():
    with pytest.raises(InvalidInputError, match="too large"):
        evaluate_gates({"a": 10**400}, ["a <= 1"])


def test_run_gates_over_files(tmp_path):
    from auditad.gates.checks import run_gates

    a, b = tmp_path / "a" / "summary.json", tmp_path / "b.json"
    a.parent.mkdir()
    a.write_text(
        json.dumps(
            {"benchmark": "alpha", "leakage": {"L_k": 0.7}, "gates": [{"rule": "leakage.L_k <= 0.5", "level": "warn"}]}
        )
    )
    b.write_text(json.dumps({"leakage": {"L_k": 0.1}}))
    run = run_gates([a, b], ["leakage.L_k <= 0.5"])
    assert list(run.results) == ["alpha", "b"]
    # alpha: its own warn gate and the extra fail gate on the same path (different levels: both kept)
    assert [(r.rule.level, r.passed) for r in run.results["alpha"]] == [("warn", False), ("fail", False)]
    assert [r.passed for r in run.results["b"]] == [True]
    assert run.verdict == "fail" and run.exit_code == 1
    assert run_gates([b], ["leakage.L_k <= 0.5"], fail_on="warn").exit_code == 0
    frame = run.to_frame()
    assert frame["status"].tolist() == ["warn", "fail", "pass"] and frame["condition"].tolist() == ["<= 0.5"] * 3
    with pytest.raises(InvalidInputError, match="no gates to evaluate"):
        run_gates([b])
    with pytest.raises(InvalidInputError, match="fail_on"):
        run_gates([b], ["leakage.L_k <= 1"], fail_on="--warn")


@pytest.mark.parametrize(
    "value,threshold,text",
    [
        (0.0348915, 0.5, "0.035"),  # the report's 3 decimals, not 6-7 digits
        (0.5004, 0.5, "0.5004"),  # rounding would make it look equal to the threshold
        (0.49999999, 0.5, "0.49999999"),
        (0.5, 0.5, "0.500"),
        (1.7e-4, 0.01, "1.70e-04"),
        (float("nan"), 0.5, "–"),
    ],
)
def test_gate_value_text_never_hides_the_comparison(value, threshold, text):
    from auditad.gates.checks import gate_value_text

    assert gate_value_text(value, threshold) == text
    if value == value and value != threshold:
        assert float(text) != threshold


# --------------------------------------------------------------------------- status, stored results, evaluation once
def test_gate_status_is_a_string_enum_json_and_templates_see_the_text():
    from auditad.findings import Status
    from auditad.gates.checks import GateStatus

    # one status for gates and findings: the former name is the shared enum, ordered pass < info < warn < fail
    assert GateStatus is Status and [s.value for s in GateStatus] == ["pass", "info", "warn", "fail"]
    assert GateStatus.WARN == "warn" and str(GateStatus.FAIL) == "fail" and f"{GateStatus.PASS:>6}" == "  pass"
    assert json.dumps({"status": GateStatus.WARN}) == '{"status": "warn"}'
    assert {"pass": 0, "warn": 1}[GateStatus.WARN] == 1 and GateStatus.FAIL.upper() == "FAIL"
    assert [s.severity for s in (GateStatus.PASS, GateStatus.WARN, GateStatus.FAIL)] == [0, 1, 2]
    assert GateStatus.INFO.severity == 0  # information never fails a gate
    # the status of a result follows its level; to_dict keeps plain text
    passed, warned, failed = (_result("fail", True), _result("warn", False), _result("fail", False))
    assert (passed.status, warned.status, failed.status) == (GateStatus.PASS, GateStatus.WARN, GateStatus.FAIL)
    assert type(warned.to_dict()["status"]) is str and warned.to_dict()["status"] == "warn"
    assert verdict([passed, warned]) is GateStatus.WARN and verdict([]) is GateStatus.PASS


def test_a_stored_result_reads_back_without_evaluating_again():
    summary = _summary()
    for res in evaluate_gates(
        summary, ["leakage.L_k <= 0.5", "warn: protocol.mean.rho_dir <= 0.2", "protocol.mean.mean_auc > 0.5"]
    ):
        back = GateResult.from_dict(json.loads(json.dumps(res.to_dict())))
        assert back.rule == res.rule and back.status == res.status and back.message == res.message
        assert back.value == res.finite_value  # NaN is stored as null
    # what was stored is what reads back, even when the summary's number says otherwise
    stored = {"rule": "leakage.L_k <= 0.5", "level": "warn", "passed": False, "value": 0.07, "message": "m"}
    assert GateResult.from_dict(stored).status == "warn"


def test_each_comparison_is_evaluated_once(monkeypatch):
    from auditad.gates import evaluation

    seen = []
    original = evaluation._evaluate_one
    monkeypatch.setattr(
        evaluation, "_evaluate_one", lambda summary, rule: seen.append(rule.expression) or original(summary, rule)
    )
    results = evaluate_gates(
        _summary(), ["leakage.L_k <= 0.5", "warn: leakage.L_k <= 0.5", "leakage.L_k <= 0.5", "leakage.k == 10"]
    )
    assert seen == ["leakage.L_k <= 0.5", "leakage.k == 10"]
    assert [(r.level, r.status) for r in results] == [
        ("fail", "pass"),
        ("warn", "pass"),
        ("fail", "pass"),
        ("fail", "pass"),
    ]
    assert results[1].rule.level == "warn" and results[1].message == results[0].message


def _tiny_inputs(gates=()):
    import numpy as np

    from auditad.audit.config import validate_settings
    from auditad.audit.loader import BenchmarkInputs
    from auditad.datasets import Benchmark

    rng = np.random.default_rng(1)
    y = np.repeat(np.arange(3), 12)
    X = rng.normal(size=(y.size, 2)) + 100.0 * y[:, None]
    s = validate_settings(
        {
            "detectors": ["knn"],
            "null_runs": 50,
            "landscape_resolution": 11,
            "null_metrics": ["auroc", "ap"],
            "landscape_metrics": ["auroc"],  # one landscape figure, not four: faster
            "leakage_k": [3, 1],
        }
    )
    bench = Benchmark(name="tiny", y=y, representations={"raw": X}, sources={})
    return BenchmarkInputs(
        name="tiny",
        benchmark=bench,
        columns={},
        selection=None,
        settings=s,
        gates=tuple(gates),
        inputs=(),
        config_text="version = 1\n",
        config_name="tiny.toml",
        config_sha256="0" * 64,
        config_origin="file",
        command_line=(),
    )


@pytest.mark.parametrize("gates", [(), ("fail: leakage.L_k <= 0.1",)])
def test_run_audit_evaluates_the_gates_once_before_the_readings_and_never_changes_an_audit(
    monkeypatch, tmp_path, gates
):
    from auditad.audit import runner
    from auditad.gates import checks

    events, built = [], []
    evaluate, reading, audit_one = checks.evaluate_gates, runner.section_reading, runner._audit_with_rules

    def counting_evaluate(summary, rules):
        events.append("gates")
        return evaluate(summary, rules)

    def recording_reading(section_id, *args, **kwargs):
        events.append(f"reading {section_id}")
        return reading(section_id, *args, **kwargs)

    def keeping(*args, **kwargs):
        built.append(audit_one(*args, **kwargs))
        return built[-1]

    monkeypatch.setattr(checks, "evaluate_gates", counting_evaluate)
    monkeypatch.setattr(runner, "section_reading", recording_reading)
    monkeypatch.setattr(runner, "_audit_with_rules", keeping)
    run = runner.run_audit([_tiny_inputs([parse_rule(g) for g in gates])], tmp_path / "out", timestamp=True)
    # one evaluation per benchmark, before every reading (the user's gates and the default gates' conditions at once)
    assert events[0] == "gates" and events.count("gates") == 1
    assert {e for e in events[1:]} >= {"reading leakage", "reading protocol", "reading nulls"}
    audit = run.audits[0]
    assert [r.rule.text for r in audit.gate_results] == (
        list(gates) or [parse_rule(g).text for g in checks.summary_rules({"gates": audit.summary["gates"]})]
    )
    # the readings state the default gate's result even when other gates are given
    leak = next(sec for sec in audit.sections if sec.id == "leakage")
    assert "L_k is at most 0.5, the threshold of the default gate" in leak.reading
    # the summary's gates, the verdict and the findings are the stored results
    assert audit.summary["gates"] == [r.to_dict() for r in audit.gate_results]
    assert audit.summary["verdict"] == verdict(audit.gate_results)
    # the timestamp made a new audit; the one built first is unchanged
    assert audit is not built[0] and built[0].summary["run"]["timestamp"] is None
    assert audit.summary["run"]["timestamp"] is not None and audit.gate_results == built[0].gate_results
