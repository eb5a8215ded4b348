"""``auditad.run_audit(embeddings, labels, **settings)``: the whole audit of arrays in one call.

References: the command line on the same data written to files (``auditad audit``), and the single-diagnostic
function ``auditad.leakage`` for the headline number.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.datasets import load_digits

import auditad
from auditad.cli import main
from auditad.errors import InvalidInputError

SETTINGS = dict(detectors=["knn"], null_runs=50, landscape_resolution=11, leakage_k=3, null_metrics=["auroc"])
FLAGS = ["--detector", "knn", "--null-runs", "50", "--landscape-resolution", "11", "--leakage-k", "3"]
FLAGS += ["--null-metric", "auroc", "--quiet"]


@pytest.fixture(scope="module")
def data():
    X, y = load_digits(return_X_y=True)
    keep = np.isin(y, [0, 1, 2, 3])
    return X[keep][:300, 20:36], y[keep][:300]


@pytest.fixture(scope="module")
def report(data):
    X, y = data
    return auditad.run_audit(X, y, name="digits", **SETTINGS)  # one array: the representation "embeddings"


def test_the_one_call_equals_the_command_line_on_the_same_data(data, report, tmp_path, capsys):
    X, y = data
    np.save(tmp_path / "X.npy", X)
    np.save(tmp_path / "y.npy", y)
    args = ["audit", "--embeddings", f"embeddings={tmp_path / 'X.npy'}", "--labels", str(tmp_path / "y.npy")]
    code = main([*args, "--name", "digits", "--out", str(tmp_path / "cli"), *FLAGS])
    assert code in (0, 1), capsys.readouterr().err
    cli = json.loads((tmp_path / "cli" / "digits" / "summary.json").read_text())
    for key in ("dataset", "leakage", "protocol", "nulls", "landscapes", "verdict", "gates"):
        assert report.summary[key] == cli[key], key
    assert report.verdict == cli["verdict"] and report.verdict in ("pass", "warn", "fail")
    assert report.summary["config"]["origin"] == "python"
    assert report.summary["settings"]["null_runs"] == 50
    assert list(report.summary["dataset"]["representations"]) == ["embeddings"]


def test_the_headline_number_is_the_leakage_function(data, report):
    X, y = data
    assert report.summary["leakage"]["L_k"] == pytest.approx(auditad.leakage(X, y, k=3).L_k, rel=1e-12)


def test_findings_come_failed_first_and_the_notebook_shows_them_first(report):
    order = {"fail": 0, "warn": 1, "info": 2, "pass": 3}
    ranks = [order[f.status] for f in report.findings]
    assert report.findings and ranks == sorted(ranks)
    html = report._repr_html_()
    assert html.index(report.verdict.upper()) < html.index("<table")
    first = report.findings[0]
    assert html.index(first.status.upper()) < html.index("Report:")
    assert report.summary_text().splitlines()[1].strip() == first.text()


def test_write_copies_the_report_folder(report, tmp_path):
    out = report.write(tmp_path / "rep")
    assert json.loads((out / "digits" / "summary.json").read_text()) == json.loads(
        (report.path / "summary.json").read_text()
    )
    assert (out / "digits" / "report.html").is_file() and (out / "index.html").is_file()
    report.write(tmp_path / "rep")  # an earlier auditad report is replaced
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "mine.txt").write_text("x")
    with pytest.raises(InvalidInputError):
        report.write(tmp_path / "other")
    assert (tmp_path / "other" / "mine.txt").read_text() == "x"


def test_out_is_the_report_folder_and_is_checked_before_any_work(data, tmp_path):
    X, y = data
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("x")
    with pytest.raises(InvalidInputError, match=r"out=.*not an auditad report"):
        auditad.run_audit({"pix": X}, y, out=tmp_path / "mine", **SETTINGS)
    assert sorted(p.name for p in (tmp_path / "mine").iterdir()) == ["notes.txt"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(null_runs=-1), r"settings\.null_runs"),
        (dict(no_such_setting=1), "no_such_setting"),
        (dict(gates=["leakage.L_k <="]), "leakage.L_k"),
    ],
)
def test_bad_settings_are_named(data, kwargs, match):
    X, y = data
    with pytest.raises(InvalidInputError, match=match):
        auditad.run_audit(X, y, **kwargs)


def test_bad_arrays_are_named(data):
    X, y = data
    with pytest.raises(InvalidInputError, match="labels"):
        auditad.run_audit(X, y[:-1])
    with pytest.raises(InvalidInputError, match="embeddings="):
        auditad.run_audit("X.npy", y)
    with pytest.raises(InvalidInputError, match="embeddings 'b'"):  # a mapping: every representation checked
        auditad.run_audit({"a": X, "b": X[:-1]}, y)
    with pytest.raises(InvalidInputError, match="name="):
        auditad.run_audit(X, y, name="a/b")


def test_dir_of_the_package_holds_only_public_names():
    names = dir(auditad)
    assert "run_audit" in names and "AuditReport" in names and "__version__" in names
    assert not {"annotations", "importlib", "sys", "types"} & set(names)
    assert all(not n.startswith("_") or n == "__version__" for n in names)
    assert all(hasattr(auditad, n) for n in names)
    from auditad.audit import run_audit as pipeline

    assert pipeline is not auditad.run_audit and pipeline.__module__ == "auditad.audit.runner"


def test_the_summary_validates_against_the_published_schema(report):
    import jsonschema

    from auditad.report import schema_path

    schema = json.loads(schema_path().read_text(encoding="utf-8"))
    jsonschema.validate(json.loads((report.path / "summary.json").read_text()), schema)
    assert report.summary["config"]["origin"] == "python" and "python" in json.dumps(schema)
