"""Comparison of two audits (auditad.diff) and the ``auditad diff`` command."""

import json

import pytest

from auditad import InvalidInputError
from auditad.cli import main
from auditad.diff import DiffResult, audited_set_changes, diff_audits, diff_markdown, diff_summaries, parse_diff_rule
from auditad.gates.checks import numeric_paths


def _summary(**over):
    s = {
        "schema_version": "1.0",
        "benchmark": "bench",
        "seed": 0,
        "leakage": {"L_k": 0.10, "k": 10, "chance": None},
        "protocol": {
            "mean": {"rho_dir": 0.2, "rho_inv": 0.1, "mean_auc": 0.8},
            "per_class": [{"class": "a", "auroc": 0.9}, {"class": "b", "auroc": 0.4}],
        },
        "gates": [{"rule": "leakage.L_k <= 0.5", "level": "fail"}],
        "verdict": "pass",
    }
    for key, value in over.items():
        s[key] = value
    return s


def _write(path, summary):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(summary))
    return path


@pytest.fixture
def pair(tmp_path):
    base = _summary()
    new = _summary(
        seed=1,
        leakage={"L_k": 0.135, "k": 10, "chance": 0.9},
        protocol={
            "mean": {"rho_dir": 0.3, "rho_inv": 0.1, "mean_auc": None, "rho_rnd": 0.0},
            "per_class": [{"class": "a", "auroc": 0.85}, {"class": "c", "auroc": 0.6}],
        },
    )
    return _write(tmp_path / "base" / "summary.json", base), _write(tmp_path / "new" / "summary.json", new)


def test_changes_one_sided_and_null_statistics(pair):
    res = diff_audits(*pair)
    p = res.pairs[0]
    rows = {r[0]: r[1:] for r in p.rows}
    assert rows["leakage.L_k"] == (0.10, 0.135, pytest.approx(0.035))
    assert rows["seed"] == (0, 1, 1) and isinstance(rows["seed"][2], int)
    assert rows["leakage.k"] == (10, 10, 0)
    assert rows["protocol.mean.rho_dir"][2] == pytest.approx(0.1)
    assert rows["leakage.chance"] == (None, 0.9, None)  # became a number: listed, no change computable
    assert rows["protocol.mean.mean_auc"] == (0.8, None, None)  # became null
    assert rows["protocol.per_class.a.auroc"][2] == pytest.approx(-0.05)
    # items are paired by their class, never by position: b is gone, c is new
    assert "protocol.per_class.b.auroc" not in rows and "protocol.per_class.c.auroc" not in rows
    assert p.removed == ("protocol.per_class[b]",) and p.added == ("protocol.per_class[c]",)
    assert p.unpaired == ()
    assert p.only_new == ("protocol.mean.rho_rnd", "protocol.per_class.c.auroc")
    assert p.only_base == ("protocol.per_class.b.auroc",)
    # every numeric value of either side is compared or one-sided: nothing is dropped
    for side, only in ((json.loads(pair[0].read_text()), p.only_base), (json.loads(pair[1].read_text()), p.only_new)):
        n_side = len(numeric_paths(side))
        n_rows = sum(1 for _, b, n, _ in p.rows if (b if only is p.only_base else n) is not None)
        assert n_side == n_rows + len(only)
    assert {r[0] for r in p.changed} >= {"leakage.L_k", "seed", "leakage.chance", "protocol.mean.mean_auc"}
    assert "leakage.k" not in {r[0] for r in p.changed}


def test_delta_gates(pair, tmp_path):
    res = diff_audits(
        *pair,
        gates=[
            "delta leakage.L_k <= 0.02",
            "warn: delta protocol.mean.rho_dir <= 0",
            "delta protocol.mean.rho_inv <= 0",
            "leakage.L_k <= 0.5",
        ],
    )
    status = [(r.rule.path, r.status) for r in res.gate_results["bench"]]
    assert status == [
        ("delta.leakage.L_k", "fail"),
        ("delta.protocol.mean.rho_dir", "warn"),
        ("delta.protocol.mean.rho_inv", "pass"),
        ("leakage.L_k", "pass"),
    ]
    assert res.verdict == "fail" and res.exit_code() == 1
    assert diff_audits(*pair, gates=["delta leakage.L_k <= 0.05"]).exit_code() == 0
    # a change that cannot be computed fails its gate
    r = diff_audits(*pair, gates=["delta protocol.mean.mean_auc <= 1"]).gate_results["bench"][0]
    assert not r.passed and "null" in r.message
    with pytest.raises(InvalidInputError, match="unknown gate metric 'delta.protocol.mean.rho_rnd'"):
        diff_audits(*pair, gates=["delta protocol.mean.rho_rnd <= 0"])
    assert parse_diff_rule("Delta leakage.L_k <= 0.02 [warn]").text == "warn: delta.leakage.L_k <= 0.02"


def test_refusals(tmp_path, pair):
    other = _write(tmp_path / "o" / "summary.json", _summary(benchmark="cifar10"))
    with pytest.raises(InvalidInputError, match="BASE is benchmark 'bench' and NEW is benchmark 'cifar10'"):
        diff_audits(pair[0], other)
    res = _write(tmp_path / "r" / "summary.json", _summary(kind="results"))
    with pytest.raises(InvalidInputError, match="'audit' summary and NEW a 'results' summary"):
        diff_audits(pair[0], res)
    v2 = _write(tmp_path / "v2" / "summary.json", _summary(schema_version="2.0"))
    with pytest.raises(InvalidInputError, match="schema_version '2.0' is not supported"):
        diff_audits(pair[0], v2)
    nover = _write(tmp_path / "nv" / "summary.json", {"benchmark": "bench", "x": 1})
    with pytest.raises(InvalidInputError, match="no 'schema_version'"):
        diff_audits(pair[0], nover)
    with pytest.raises(InvalidInputError, match="share no numeric statistic"):
        diff_summaries({"schema_version": "1.0", "a": 1}, {"schema_version": "1.0", "b": 2})
    with pytest.raises(InvalidInputError, match="does not exist"):
        diff_audits(tmp_path / "nothing", pair[1])
    (tmp_path / "empty").mkdir()
    with pytest.raises(InvalidInputError, match="holds no summary.json"):
        diff_audits(tmp_path / "empty", pair[1])


def test_minor_schema_versions_compare_the_keys_that_map(tmp_path, pair):
    renamed = _summary(schema_version="1.1", leakage={"L_k_primary": 0.11, "k": 10, "chance": None})
    res = diff_audits(pair[0], _write(tmp_path / "m" / "summary.json", renamed))
    p = res.pairs[0]
    assert "leakage.L_k" in p.only_base and "leakage.L_k_primary" in p.only_new
    assert any("schema versions 1.0 (BASE) and 1.1 (NEW)" in n for n in res.notes)


def test_audit_folders_pair_benchmarks_by_name(tmp_path):
    for side, names in (("A", ["x", "y"]), ("B", ["y", "z"])):
        for n in names:
            _write(tmp_path / side / n / "summary.json", _summary(benchmark=n))
    res = diff_audits(tmp_path / "A", tmp_path / "B")
    assert [p.benchmark for p in res.pairs] == ["y"]
    assert res.only_base_benchmarks == ("x",) and res.only_new_benchmarks == ("z",)
    for n in ("w", "z"):
        _write(tmp_path / "D" / n / "summary.json", _summary(benchmark=n))
    with pytest.raises(InvalidInputError, match=r"BASE holds benchmark\(s\) \['x', 'y'\] and NEW holds \['w', 'z'\]"):
        diff_audits(tmp_path / "A", tmp_path / "D")


def test_markdown_and_cli(pair, tmp_path, capsys):
    res = diff_audits(*pair, gates=["delta leakage.L_k <= 0.02"])
    md = diff_markdown(res)
    assert md.startswith("## auditad diff:") and "| leakage.L\\_k | 0.1 | 0.135 | +0.035 |" in md
    assert "Only in NEW: `protocol.mean.rho_rnd`" in md and "FAIL" in md
    args = ["diff", str(pair[0]), str(pair[1])]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "only in NEW: protocol.mean.rho_rnd" in out and "leakage.L_k" in out
    code = main(
        args
        + [
            "--gate",
            "delta leakage.L_k <= 0.02",
            "--junit",
            str(tmp_path / "d.xml"),
            "--markdown",
            str(tmp_path / "d.md"),
            "--json",
            str(tmp_path / "d.json"),
        ]
    )
    assert code == 1
    assert 'failures="1"' in (tmp_path / "d.xml").read_text()
    data = json.loads((tmp_path / "d.json").read_text())
    assert data["verdict"] == "fail" and data["benchmarks"][0]["only_new"] == [
        "protocol.mean.rho_rnd",
        "protocol.per_class.c.auroc",
    ]
    assert main(args + ["--gate", "warn: delta leakage.L_k <= 0.02"]) == 0
    assert main(args + ["--gate", "warn: delta leakage.L_k <= 0.02", "--fail-on", "warn"]) == 1
    assert main(args + ["--gate", "delta nothing.here <= 0"]) == 2
    assert "unknown gate metric" in capsys.readouterr().err
    assert main(["diff", str(pair[0]), str(tmp_path / "missing.json")]) == 2


# --------------------------------------------------------------------------- two real demo audits
@pytest.fixture(scope="module")
def demo_pair(tmp_path_factory):
    import dataclasses

    from auditad.audit.runner import audit_benchmark, example_inputs
    from auditad.audit.config import validate_settings

    root = tmp_path_factory.mktemp("demos")
    small = {
        "leakage_k": [10],
        "detectors": ["knn", "iforest"],
        "null_metrics": ["auroc", "f1"],
        "null_runs": 200,
        "landscape_metrics": ["auroc", "f1"],
        "landscape_resolution": 21,
    }
    for seed in (0, 1):  # the bundled demo (digits, pixels and pca16) with lighter settings
        inputs = example_inputs(seed=seed, selection=False)
        settings = validate_settings(
            {**{k: v for k, v in inputs.settings.items() if v is not None}, **small}, where="test settings"
        )
        audit = audit_benchmark(dataclasses.replace(inputs, settings=settings))  # the summary, without figures
        _write(root / f"seed{seed}" / audit.name / "summary.json", audit.summary)
    return root / "seed0", root / "seed1"


def _lookup(summary, path):
    node = summary
    for seg in path.split("."):
        node = node[int(seg)] if isinstance(node, list) else node[seg]
    return node


def _identity_paths(summary):
    """index path (numeric_paths) -> identity path (diff), built from the same document order."""
    from auditad.diff import _numeric_leaves

    paths = [".".join(p) for p in _numeric_leaves({k: v for k, v in summary.items() if k != "gates"}, ())]
    index_paths = numeric_paths(summary)
    assert len(paths) == len(index_paths)
    return dict(zip(index_paths, paths))


def test_two_demo_audits_with_different_seeds(demo_pair, tmp_path, capsys):
    base_dir, new_dir = demo_pair
    base = json.loads((base_dir / "digits" / "summary.json").read_text())
    new = json.loads((new_dir / "digits" / "summary.json").read_text())
    res = diff_audits(base_dir, new_dir)
    p = res.pairs[0]
    assert p.benchmark == "digits" and not p.only_base and not p.only_new and not p.unpaired
    rows = {r[0]: r for r in p.rows}
    # every statistic that is a number on both sides is there, with delta = new - base computed here
    # (list items are named by who they are: map each index path of numeric_paths to its identity path)
    by_index_b, by_index_n = _identity_paths(base), _identity_paths(new)
    shared = set(numeric_paths(base)) & set(numeric_paths(new))
    assert {by_index_b[p] for p in shared} <= set(rows)
    for path in shared:
        b, n = _lookup(base, path), _lookup(new, path)
        assert by_index_b[path] == by_index_n[path]
        assert rows[by_index_b[path]][3] == pytest.approx(n - b, abs=1e-15)
    assert rows["seed"][3] == 1
    assert rows["leakage.L_k"][3] == 0  # the kNN leakage does not depend on the seed
    d = rows["protocol.mean.mean_auc"][3]
    assert d != 0  # the protocol's train/test split does
    args = ["diff", str(base_dir), str(new_dir), "--markdown", str(tmp_path / "ci.md")]
    assert (
        main(args + ["--gate", "delta leakage.L_k <= 0.02", "--gate", f"delta protocol.mean.mean_auc <= {d + 1e-9!r}"])
        == 0
    )
    assert (
        main(args + ["--gate", "delta leakage.L_k <= 0.02", "--gate", f"delta protocol.mean.mean_auc <= {d - 1e-6!r}"])
        == 1
    )
    md = (tmp_path / "ci.md").read_text()
    assert "### digits" in md and "| protocol.mean.mean\\_auc |" in md and "Verdict: **fail**" in md
    capsys.readouterr()


def _audit_like(detectors, classes, *, order=None):
    """A summary shaped like an audit's: per-class rows per detector, detectors listed by name."""
    rows = [
        {"representation": "r", "detector": d, "class": c, "auroc": 0.5 + 0.01 * i + 0.01 * len(d)}
        for d in detectors
        for i, c in enumerate(classes)
    ]
    if order is not None:
        rows = [rows[i] for i in order]
    return {
        "schema_version": "1.0",
        "benchmark": "b",
        "settings": {"detectors": list(detectors), "seed": 0},
        "dataset": {"classes": list(classes), "representations": {"r": {"dim": 4}}},
        "protocol": {
            "detectors": [{"name": d} for d in detectors],
            "mean": {"rho_inv": 0.1 * len(detectors), "n_detectors": len(detectors)},
            "per_class": rows,
        },
    }


def test_list_items_are_paired_by_identity_not_position():
    base = _audit_like(["knn", "iforest"], [0, 1, 2])
    new = _audit_like(["knn", "iforest"], [0, 1, 2], order=[5, 4, 3, 2, 1, 0])
    d = diff_summaries(base, new)
    assert d.changed == () and d.added == () and d.removed == () and d.audited_set == ()
    # paths name the item: detector/class, not a list position
    assert "protocol.per_class.2/r/iforest.auroc" in {r[0] for r in d.rows}


def test_a_change_of_detector_set_is_reported_first():
    base = _audit_like(["knn", "iforest", "lof"], [0, 1])
    new = _audit_like(["iforest"], [0, 1])
    d = diff_summaries(base, new)
    assert d.audited_set[0] == "detectors removed: knn, lof"
    assert "setting detectors: ['knn', 'iforest', 'lof'] -> ['iforest']" in d.audited_set
    # the iforest rows are compared with the iforest rows; the others are removed, never paired with iforest
    compared = {r[0] for r in d.rows if r[0].startswith("protocol.per_class.")}
    assert compared and all("iforest" in p for p in compared)
    assert all(r[3] == 0 for r in d.rows if r[0] in compared)
    assert len(d.removed) == 6 and d.added == ()  # 2 detectors and their 4 per-class rows
    res = DiffResult(base="b", new="n", pairs=(d,))
    text = res.summary_text()
    lines = text.splitlines()
    first_stat = next(i for i, line in enumerate(lines) if "rho_inv" in line)
    assert lines.index("  audited set: detectors removed: knn, lof") < first_stat
    assert res.to_dict()["benchmarks"][0]["audited_set"][0] == "detectors removed: knn, lof"
    assert "What was audited changed" in diff_markdown(res)


def test_representations_classes_and_inputs_changes():
    base = _audit_like(["knn"], [0, 1, 2])
    new = _audit_like(["knn"], [0, 1])
    new["dataset"]["representations"] = {"r": {"dim": 4}, "vit": {"dim": 8}}
    base["inputs"] = [{"role": "labels", "sha256": "aa"}]
    new["inputs"] = [{"role": "labels", "sha256": "bb"}]
    changes = audited_set_changes(base, new)
    assert changes[:2] == ("representation added: vit", "class removed: 2")
    assert "input labels changed (its SHA-256 differs)" in changes
