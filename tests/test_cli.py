"""The command-line interface: leakage command, exit codes, error messages."""

import json

import numpy as np
import pytest
from sklearn.datasets import load_digits

from auditad.cli import main
from auditad.leakage import leakage


@pytest.fixture
def digits_files(tmp_path):
    X, y = load_digits(return_X_y=True)
    np.save(tmp_path / "X.npy", X[:400])
    np.save(tmp_path / "y.npy", y[:400])
    return tmp_path, X[:400], y[:400]


def test_leakage_command_prints_table_and_writes_json(digits_files, capsys):
    d, X, y = digits_files
    code = main(["leakage", "--embeddings", str(d / "X.npy"), "--labels", str(d / "y.npy"),
                 "--k", "10", "--k", "3", "--backend", "exact", "--json", str(d / "out.json")])
    assert code == 0
    out = capsys.readouterr().out
    assert "Neighbourhood class leakage" in out and "L_k" in out
    payload = json.loads((d / "out.json").read_text())
    assert payload["L_k"] == pytest.approx(leakage(X, y, k=10, backend="exact").L_k, abs=1e-15)
    assert set(payload["by_k"]) == {"10", "3"}
    assert not list(d.glob(".out.json.*"))  # no temporary left behind


@pytest.mark.parametrize("args, match", [
    (["--embeddings", "{d}/missing.npy", "--labels", "{d}/y.npy"], "does not exist"),
    (["--embeddings", "{d}/X.npy", "--labels", "{d}/y.npy", "--k", "400"], "k must be smaller"),
    (["--embeddings", "{d}/X.npy", "--labels", "{d}/y.npy", "--label-column", "x", "--json", "{d}"], "directory"),
])
def test_user_mistakes_exit_2_with_one_line(digits_files, capsys, args, match):
    d, _, _ = digits_files
    code = main(["leakage"] + [a.format(d=d) for a in args] + ["--backend", "exact"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("auditad: error:") and match in err and "Traceback" not in err


def test_usage_errors_exit_2(capsys):
    assert main(["leakage", "--k", "3"]) == 2  # argparse's SystemExit becomes a return value
    assert "required: --embeddings" in capsys.readouterr().err
    assert main([]) == 2
    assert main(["--version"]) == 0
