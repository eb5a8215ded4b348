"""Anomaly-labelled data is one task (normals vs labelled anomalies), not a class split: its summary, gates,
findings, tables, section titles and terminal line say so."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _audit(tmp_path: Path, X: np.ndarray, y: np.ndarray):
    from auditad.audit.config import config_from_paths
    from auditad.audit.loader import load_inputs
    from auditad.audit.runner import run_audit

    np.savez(tmp_path / "data.npz", X=X, y=y)
    cfg = config_from_paths(
        {"raw": tmp_path / "data.npz"},
        tmp_path / "data.npz",
        name="adb",
        embeddings_key="X",
        columns={"anomaly": "y"},
        overrides={"null_runs": 50, "landscape_resolution": 11, "leakage_k": [5], "detectors": ["knn"]},
    )
    run = run_audit([load_inputs(cfg.benchmarks[0], cfg)], tmp_path / "out")
    return run, json.loads((run.out / "adb" / "summary.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def inverted(tmp_path_factory):
    """Anomalies packed at the centre of the normals: the kNN detector (fitted on normals) scores them as the
    most normal rows, an AUROC far below ½."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(size=(200, 3)), rng.normal(scale=0.02, size=(20, 3))]
    y = np.r_[np.zeros(200, int), np.ones(20, int)]
    return _audit(tmp_path_factory.mktemp("inverted"), X, y)


def test_one_task_summary_has_no_class_split_rate(inverted):
    run, s = inverted
    schema = json.loads((ROOT / "auditad" / "schemas" / "summary.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(s, schema)
    prot = s["protocol"]
    assert prot["setting"] == "semi_supervised"
    for key in ("rho_dir", "rho_inv", "rho_inv_sig", "rho_rnd", "sigma2_auc"):
        assert prot["worst"][key]["status"] == "not_applicable", key
        assert prot["mean"][key] is None, key
    (row,) = [r for r in prot["representations"]["raw"]["per_class"] if r["detector"] == "knn"]
    # the independent reference: scikit-learn's AUROC far below 1/2, and the stored decision says inverted
    assert row["auroc"] < 0.2 and row["significance"] == "significantly inverted"
    assert prot["inverted_detectors"] == 1
    # the terminal line shows no class count and no class-split rate
    line = run.summary_table().splitlines()[1].split()
    assert line[0] == "adb" and line[2] == "-" and line[5] == "-" and line[6] == "-"


def test_one_task_gates_and_findings_use_one_task_words(inverted):
    from auditad.report.findings import finding_rows, findings

    run, s = inverted
    metrics = [g["metric"] for g in s["gates"]]
    assert "protocol.inverted_detectors" in metrics
    assert not [m for m in metrics if m.startswith("protocol.worst.")]
    assert s["verdict"] == "warn"
    rows = {r["check"]: r for r in finding_rows(findings(s))}
    assert rows["anomalies scored below normals"]["status"] == "warn"
    assert "leakage between normals and anomalies" in rows and "class leakage" not in rows
    assert "point away from the labels" in rows["anomalies scored below normals"]["meaning"]
    html = (run.out / "adb" / "report.html").read_text(encoding="utf-8")
    assert "Neighbourhood leakage between normals and labelled anomalies" in html
    assert "Random baselines at this benchmark&#39;s counts (normals vs labelled anomalies)" in html
    assert "class counts" not in html and "Class-split protocol" not in html


def test_one_task_tables_name_the_task(inverted):
    run, _ = inverted
    tables = run.out / "adb" / "tables"
    summary = pd.read_csv(tables / "protocol_summary.csv")
    assert list(summary.columns[:5]) == ["representation", "detector", "task", "n_anomalies", "n_normals"]
    assert set(summary["task"]) == {"normals vs labelled anomalies"}
    knn = summary[summary["detector"] == "knn"].iloc[0]
    assert knn["significance"] == "significantly inverted" and knn["ci_high"] < 0.5
    wide = pd.read_csv(tables / "protocol_auroc.csv")
    assert "class" not in wide.columns and wide["task"].tolist() == ["normals vs labelled anomalies"]


def test_class_split_summary_marks_the_one_task_count_not_applicable(tmp_path):
    from auditad import run_audit

    rng = np.random.default_rng(1)
    X = np.r_[rng.normal(size=(40, 3)), rng.normal(size=(40, 3)) + 6, rng.normal(size=(40, 3)) - 6]
    y = np.repeat(np.arange(3), 40)
    report = run_audit(X, y, detectors=["knn"], null_runs=50, landscape_resolution=11)
    prot = report.summary["protocol"]
    assert prot["inverted_detectors"]["status"] == "not_applicable"
    metrics = [g["metric"] for g in report.summary["gates"]]
    assert "protocol.worst.rho_inv_sig" in metrics and "protocol.inverted_detectors" not in metrics
