"""The audit configuration (auditad.audit.config): parsing, defaults, path rules, errors; docs coverage."""

import os
import re
from pathlib import Path

import numpy as np
import pytest

from auditad.cli import main
from auditad.errors import InvalidInputError
from auditad.gates.checks import GateRule
from auditad.audit.config import (
    DEFAULT_GATES,
    DEFAULT_SETTINGS,
    config_from_paths,
    load_config,
    settings_to_toml,
    validate_settings,
)

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib

DOCS = Path(__file__).resolve().parents[2] / "docs"

GOOD = """\
version = 1
gates = ["leakage.L_k <= 0.5", "warn: protocol.mean.rho_dir <= 0.2"]

[settings]
seed = 7
leakage_k = [5, 1]
epsilon = 0.1
detectors = ["knn", "lof"]
detector_params = { lof = { n_neighbors = 10 } }

[[benchmarks]]
name = "first"
labels = "data/labels.csv"
embeddings = { raw = "data/raw.npy", pca = "data/pca.npy" }
gates = ["protocol.mean.rho_inv <= 0.3 [warn]"]
[benchmarks.columns]
label = "label"
domain = "domain"
[benchmarks.settings]
epsilon = 0.02

[[benchmarks]]
labels = "data/labels.csv"
embeddings = "data/raw.npy"
"""


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "cfg"
    (d / "data").mkdir(parents=True)
    np.save(d / "data" / "raw.npy", np.zeros((6, 2)))
    np.save(d / "data" / "pca.npy", np.zeros((6, 1)))
    (d / "data" / "labels.csv").write_text("label,domain\n0,a\n0,b\n1,a\n1,b\n2,a\n2,b\n")
    (tmp_path / "outside.npy").write_bytes((d / "data" / "raw.npy").read_bytes())
    return d


def write(folder, text, name="audit.toml"):
    path = folder / name
    path.write_text(text)
    return path


def test_full_config_is_parsed_with_defaults_overrides_and_resolved_paths(folder):
    cfg = load_config(write(folder, GOOD))
    assert cfg.source.name == "audit.toml" and cfg.text == GOOD
    first, second = cfg.benchmarks
    assert first.name == "first"
    assert second.name == "labels"  # default name: the labels file's stem
    assert first.embeddings == {"raw": (folder / "data/raw.npy").resolve(), "pca": (folder / "data/pca.npy").resolve()}
    assert second.embeddings == {"raw": (folder / "data/raw.npy").resolve()}
    assert first.display_paths == {
        "labels": "data/labels.csv",
        "embeddings:raw": "data/raw.npy",
        "embeddings:pca": "data/pca.npy",
    }
    assert first.columns == {"label": "label", "domain": "domain"}
    # defaults < [settings] < [benchmarks.settings]
    assert first.settings["seed"] == 7 and second.settings["seed"] == 7
    assert first.settings["epsilon"] == 0.02 and second.settings["epsilon"] == 0.1
    assert first.settings["leakage_k"] == [5, 1]
    assert first.settings["detector_params"] == {"lof": {"n_neighbors": 10}}
    assert first.settings["null_runs"] == DEFAULT_SETTINGS["null_runs"]
    # global gates, then the benchmark's
    assert [g.text for g in first.gates] == [
        "fail: leakage.L_k <= 0.5",
        "warn: protocol.mean.rho_dir <= 0.2",
        "warn: protocol.mean.rho_inv <= 0.3",
    ]
    assert [g.text for g in second.gates] == ["fail: leakage.L_k <= 0.5", "warn: protocol.mean.rho_dir <= 0.2"]


def test_command_line_overrides_and_extra_gates(folder):
    extra = (GateRule("leakage.L_k", "<", 0.9, "fail"),)
    cfg = load_config(write(folder, GOOD), overrides={"seed": 3, "leakage_k": [2]}, extra_gates=extra)
    for b in cfg.benchmarks:
        assert b.settings["seed"] == 3 and b.settings["leakage_k"] == [2]
        assert b.gates[-1] == extra[0]
    assert cfg.benchmarks[0].settings["epsilon"] == 0.02  # not overridden


@pytest.mark.parametrize(
    "text, match",
    [
        ("versoin = 1\n", r"unknown key 'versoin'; did you mean 'version'\?"),
        ("[settings]\nepsilonn = 0.1\n", r"settings: unknown key 'epsilonn'; did you mean 'epsilon'\?"),
        (
            "[[benchmarks]]\nlabels = 'data/labels.csv'\nembeddings = 'data/raw.npy'\nlabel = 'x'\n",
            r"unknown key benchmarks\[0\]\.'label'",
        ),
        (
            "[[benchmarks]]\nlabels = 'data/labels.csv'\nembeddings = 'data/raw.npy'\n[benchmarks.columns]\ndomian = 'd'\n",
            r"unknown key benchmarks\[0\]\.columns\.'domian'; did you mean 'domain'",
        ),
        ("[settings]\ndetector_params = { iforest = { n_trees = 5 } }\n", r"detector_params\.iforest.*'n_trees'"),
    ],
)
def test_unknown_keys_are_errors_naming_the_key(folder, text, match):
    if "[[benchmarks]]" not in text:
        text += "\n[[benchmarks]]\nlabels = 'data/labels.csv'\nembeddings = 'data/raw.npy'\n"
    with pytest.raises(InvalidInputError, match=match):
        load_config(write(folder, text))


@pytest.mark.parametrize(
    "labels, embeddings, match",
    [
        ("'data/nope.csv'", "'data/raw.npy'", r"labels = 'data/nope.csv': file not found"),
        ("'data/labels.csv'", "'../outside.npy'", r"points outside the config folder"),
        ("'data'", "'data/raw.npy'", r"is a folder, expected a file"),  # labels: a file; embeddings: shards allowed
    ],
)
def test_missing_files_and_paths_outside_the_folder(folder, labels, embeddings, match):
    with pytest.raises(InvalidInputError, match=match):
        load_config(write(folder, f"[[benchmarks]]\nlabels = {labels}\nembeddings = {embeddings}\n"))


def test_an_embeddings_folder_is_read_as_shards_when_loaded(folder):
    """A folder is accepted as embeddings (``.npy`` shards); one that holds other files is refused when loaded."""
    from auditad.audit import load_inputs

    cfg = load_config(write(folder, "[[benchmarks]]\nlabels = 'data/labels.csv'\nembeddings = 'data'\n"))
    with pytest.raises(InvalidInputError, match=r"not a \.npy shard"):
        load_inputs(cfg.benchmarks[0], cfg)


def test_absolute_path_and_symlink_outside_the_folder_are_rejected(folder):
    outside = (folder.parent / "outside.npy").resolve()
    with pytest.raises(InvalidInputError, match="outside the config folder"):
        load_config(write(folder, f"[[benchmarks]]\nlabels = 'data/labels.csv'\nembeddings = '{outside}'\n"))
    try:
        os.symlink(outside, folder / "data" / "link.npy")
    except OSError:  # pragma: no cover - no symlinks on this file system
        pytest.skip("symlinks not supported")
    with pytest.raises(InvalidInputError, match="outside the config folder"):
        load_config(write(folder, "[[benchmarks]]\nlabels = 'data/labels.csv'\nembeddings = 'data/link.npy'\n"))
    # an absolute path inside the folder is fine
    inside = (folder / "data" / "raw.npy").resolve()
    cfg = load_config(write(folder, f"[[benchmarks]]\nlabels = 'data/labels.csv'\nembeddings = '{inside}'\n"))
    assert cfg.benchmarks[0].display_paths["embeddings:raw"] == "data/raw.npy"


@pytest.mark.parametrize(
    "text, match",
    [
        ("version = 2\n", r"version must be 1"),
        ("[settings]\nepsilon = 0.7\n", r"settings\.epsilon must be < 0\.5"),
        ("[settings]\ndetectors = ['knn', 'svm']\n", r"settings\.detectors must be one of"),
        ("[settings]\nleakage_k = []\n", r"settings\.leakage_k must be an integer or a non-empty list"),
        ("[settings]\nn_jobs = 0\n", r"settings\.n_jobs must be a non-zero integer"),
        ("[settings]\nnull_q = 'always'\n", r"settings\.null_q must be one of"),
        ("[settings]\nlandscape_ratios = ['Atlantis']\n", r"settings\.landscape_ratios must be one of"),
        ("gates = ['leakage.L_k <<= 0.5']\n", r"gates\[0\].*malformed gate rule"),
        ("gates = 'leakage.L_k <= 0.5'\n", r"gates: must be a list of rules"),
        ("x = [1,\n", r"invalid TOML"),
    ],
)
def test_bad_values_name_the_setting(folder, text, match):
    text += "\n[[benchmarks]]\nlabels = 'data/labels.csv'\nembeddings = 'data/raw.npy'\n"
    with pytest.raises(InvalidInputError, match=match):
        load_config(write(folder, text))


@pytest.mark.parametrize(
    "bench, match",
    [
        ("", r"needs at least one \[\[benchmarks\]\] table"),
        ("[[benchmarks]]\nembeddings = 'data/raw.npy'\n", r"missing the required key 'labels'"),
        ("[[benchmarks]]\nlabels = 'data/labels.csv'\n", r"missing the required key 'embeddings'"),
        (
            "[[benchmarks]]\nname = 'a/b'\nlabels = 'data/labels.csv'\nembeddings = 'data/raw.npy'\n",
            r"name must be 1-64 letters",
        ),
        (
            "[[benchmarks]]\nname = 'x'\nlabels = 'data/labels.csv'\nembeddings = 'data/raw.npy'\n" * 2,
            r"two benchmarks are named 'x'",
        ),
    ],
)
def test_benchmark_table_errors(folder, bench, match):
    with pytest.raises(InvalidInputError, match=match):
        load_config(write(folder, "version = 1\n" + bench))


def test_missing_config_file(tmp_path):
    with pytest.raises(InvalidInputError, match="does not exist"):
        load_config(tmp_path / "nope.toml")
    with pytest.raises(InvalidInputError, match="is a folder"):
        load_config(tmp_path)


def test_config_from_paths_builds_an_equivalent_toml(folder, monkeypatch):
    monkeypatch.chdir(folder)
    cfg = config_from_paths(
        {"raw": "data/raw.npy"},
        "data/labels.csv",
        columns={"domain": "domain", "anomaly": None},
        overrides={"epsilon": 0.1},
        gates=(GateRule("leakage.L_k", "<=", 0.5, "warn"),),
    )
    (b,) = cfg.benchmarks
    assert b.name == "labels" and b.columns == {"domain": "domain"} and b.settings["epsilon"] == 0.1
    # the rendered TOML is a valid config that loads to the same benchmark
    again = load_config(write(folder, cfg.text, "again.toml"))
    (b2,) = again.benchmarks
    assert b2.settings == b.settings and b2.columns == b.columns and b2.gates == b.gates
    assert b2.display_paths == b.display_paths
    with pytest.raises(InvalidInputError, match="--epsilon must be < 0.5"):
        config_from_paths({"raw": "data/raw.npy"}, "data/labels.csv", overrides={"epsilon": 0.6})
    with pytest.raises(InvalidInputError, match="labels='nope.csv': file does not exist"):
        config_from_paths({"raw": "data/raw.npy"}, "nope.csv")


def test_settings_toml_round_trip():
    settings = validate_settings(
        {
            "detector_params": {"iforest": {"n_estimators": 50}},
            "contamination": 0.1,
            "landscape_ratios": ["UCR", 0.2],
            "selection_pool_by": "scoring",
        }
    )
    back = validate_settings(tomllib.loads(settings_to_toml(settings))["settings"])
    assert back == settings
    # None values are left out (TOML has no null) and come back as the default None
    assert "contamination" not in settings_to_toml(DEFAULT_SETTINGS)


def test_default_gates_parse_and_are_warnings():
    from auditad.gates.checks import parse_rule

    rules = [parse_rule(g) for g in DEFAULT_GATES]
    assert {r.level for r in rules} == {"warn"}
    assert {r.path for r in rules} == {
        "leakage.L_k",
        "protocol.worst.rho_dir",
        "protocol.worst.rho_inv_sig",
        "protocol.inverted_detectors",
        "duplicates.conflicting_rows",
        "duplicates.train_test_overlap",
    }


def test_every_setting_and_key_is_documented():
    text = (DOCS / "config.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\|\s*`([a-z_]+)`", text, flags=re.M))
    missing = set(DEFAULT_SETTINGS) - documented
    assert not missing, f"settings missing from docs/config.md: {sorted(missing)}"
    for key in (
        "name",
        "labels",
        "embeddings",
        "embeddings_key",
        "columns",
        "manifest",
        "gates",
        "version",
        "label",
        "domain",
        "attribute",
        "anomaly",
    ):
        assert f"`{key}`" in text, key


def test_cli_bad_config_exits_2_with_one_line_and_writes_nothing(folder, capsys):
    path = write(folder, "[setings]\nseed = 1\n")
    out = folder.parent / "report"
    before = sorted(p.name for p in folder.parent.iterdir())
    assert main(["audit", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("auditad: error: audit.toml: unknown key 'setings'")
    assert sorted(p.name for p in folder.parent.iterdir()) == before


def test_cli_config_and_data_flags_are_exclusive(folder, capsys):
    path = write(folder, GOOD)
    assert main(["audit", str(path), "--labels", "x.csv", "--out", str(folder / "o")]) == 2
    assert "not both" in capsys.readouterr().err
    assert main(["audit", "--out", str(folder / "o")]) == 2
    assert "give CONFIG.toml, or --embeddings and --labels" in capsys.readouterr().err


# --------------------------------------------------------------------------- one declaration per setting
ROOT = Path(__file__).resolve().parents[2]


def test_shipped_schema_and_docs_equal_the_generated_ones():
    """`python -m auditad.audit.settings` regenerates them; a stale copy fails here."""
    from auditad.audit.settings import regenerate

    generated = regenerate(ROOT, write=False)
    # the settings part of the schema and of docs/config.md, the gate options' table of docs/cli.md
    assert {p.relative_to(ROOT).as_posix() for p in generated} == {
        "auditad/schemas/summary.schema.json",
        "docs/config.md",
        "docs/cli.md",
    }
    for path, text in generated.items():
        assert path.read_text(encoding="utf-8") == text, f"{path} is stale: run python -m auditad.audit.settings"


def test_choice_lists_are_the_computing_modules_constants():
    from auditad import landscapes, metrics, protocol, selection
    from auditad.neighbors import BACKENDS, METRICS
    from auditad.audit.settings import SETTINGS

    by = {s.name: s.allowed() for s in SETTINGS}
    assert by["metric"] == METRICS and by["backend"] == BACKENDS
    assert by["protocol"] == protocol.PROTOCOLS
    assert by["detectors"] == protocol.BUILTIN_DETECTORS + tuple(f"pyod:{c}" for c in protocol.PYOD_DETECTORS)
    assert by["null_metrics"] == by["landscape_metrics"] == metrics.METRIC_NAMES
    assert by["selection_pool_by"] == selection.POOL_BY and len(selection.POOL_BY) == 6
    assert by["landscape_ratios"] == tuple(landscapes.PAPER_RATIOS)
    assert list(DEFAULT_SETTINGS) == [s.name for s in SETTINGS]


@pytest.mark.parametrize("pool_by", ["scoring", "family", "embedding", "pooling", "metric", "ldn_form"])
def test_every_pool_by_of_the_selection_is_accepted(pool_by):
    # the config accepted 4 of the 6 values of selection.POOL_BY before the settings were declared once
    assert validate_settings({"selection_pool_by": pool_by})["selection_pool_by"] == pool_by


# a non-default valid value per flag, written by hand (the expected settings are independent of the code)
FLAGS = [
    "--project-dim",
    "16",
    "--seed",
    "4",
    "--leakage-k",
    "7",
    "--leakage-k",
    "2",
    "--metric",
    "cosine",
    "--backend",
    "exact",
    "--protocol",
    "one_class",
    "--detector",
    "lof",
    "--detector",
    "knn",
    "--detector",
    "pyod:ECOD",
    "--epsilon",
    "0.1",
    "--max-test-normals",
    "0",
    "--train-fraction",
    "0.6",
    "--repeats",
    "3",
    "--confirm-repeats",
    "7",
    "--contamination",
    "0.2",
    "--confidence-level",
    "0.9",
    "--n-jobs",
    "-1",
    "--null-metric",
    "f1",
    "--null-q",
    "0.3",
    "--null-method",
    "exact",
    "--null-runs",
    "50",
    "--landscape-metric",
    "mcc",
    "--landscape-resolution",
    "11",
    "--landscape-reference",
    "0.4",
    "--landscape-ratio",
    "UCR",
    "--landscape-ratio",
    "0.25",
    "--selection-estimator",
    "npd",
    "--selection-probe",
    "random",
    "--selection-pool-by",
    "metric",
    "--selection-n-boot",
    "0",
    "--no-default-gates",
]
EXPECTED = {
    "project_dim": 16,
    "seed": 4,
    "leakage_k": [7, 2],
    "metric": "cosine",
    "backend": "exact",
    "protocol": "one_class",
    "detectors": ["lof", "knn", "pyod:ECOD"],
    "max_test_normals": 0,
    "epsilon": 0.1,
    "train_fraction": 0.6,
    "repeats": 3,
    "confirm_repeats": 7,
    "contamination": 0.2,
    "confidence_level": 0.9,
    "n_jobs": -1,
    "null_metrics": ["f1"],
    "null_q": 0.3,
    "null_method": "exact",
    "null_runs": 50,
    "landscape_metrics": ["mcc"],
    "landscape_resolution": 11,
    "landscape_reference": 0.4,
    "landscape_ratios": ["UCR", 0.25],
    "selection_estimators": ["npd"],
    "selection_probes": ["random"],
    "selection_pool_by": "metric",
    "selection_n_boot": 0,
    "default_gates": False,
}


def _parser():
    import argparse

    from auditad.audit.settings import add_settings_arguments

    parser = argparse.ArgumentParser()
    add_settings_arguments(parser)
    return parser


def test_every_setting_but_detector_params_has_a_generated_flag():
    from auditad.audit.settings import settings_from_args

    given = settings_from_args(_parser().parse_args(FLAGS))
    assert validate_settings(given, where="command line") == {**DEFAULT_SETTINGS, **EXPECTED}
    assert set(DEFAULT_SETTINGS) - set(given) == {"detector_params"}
    assert settings_from_args(_parser().parse_args([])) == {}


def test_settings_to_flags_reads_back_through_the_parser():
    import shlex

    from auditad.audit.settings import settings_from_args, settings_to_flags

    flags = [t for f in settings_to_flags(EXPECTED) for t in shlex.split(f)]
    assert settings_from_args(_parser().parse_args(flags)) == EXPECTED


def test_cli_flag_errors_name_the_flag():
    with pytest.raises(InvalidInputError, match=r"^--null-runs must be"):
        validate_settings({"null_runs": 0}, where="command line")
    with pytest.raises(InvalidInputError, match=r"^--landscape-resolution must be at most 1001"):
        validate_settings({"landscape_resolution": 5000}, where="command line")


def test_default_gates_and_reading_thresholds_are_one_number():
    from auditad.gates.checks import parse_rule
    from auditad.report.sections import threshold

    rules = {r.path: r for r in map(parse_rule, DEFAULT_GATES)}
    assert rules["leakage.L_k"].threshold == threshold("leakage") == 0.5
    assert rules["protocol.worst.rho_dir"].threshold == threshold("protocol") == 0.2
    assert rules["duplicates.conflicting_rows"].threshold == threshold("duplicates") == 0
    assert rules["duplicates.train_test_overlap"].threshold == 0.01


def test_command_line_flags_on_top_of_a_file_are_recorded(folder):
    from auditad.gates.checks import parse_rule

    cfg = load_config(
        write(folder, GOOD),
        overrides={"seed": 3, "leakage_k": [5, 2]},
        extra_gates=[parse_rule("warn: leakage.L_k <= 0.1")],
    )
    assert cfg.command_line == ("--seed 3", "--leakage-k 5 --leakage-k 2", "--gate 'warn: leakage.L_k <= 0.1'")
    flags_only = config_from_paths(
        {"raw": folder / "data" / "raw.npy"}, folder / "data" / "labels.csv", overrides={"seed": 3}
    )
    assert flags_only.command_line == () and "seed = 3" in flags_only.text
