"""Labels travel with rows: an embeddings file that carries its own labels must agree with the audited labels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from auditad.audit.loader import check_labels_travel
from auditad.cli import main
from auditad.errors import InvalidInputError


@pytest.fixture
def shuffled(tmp_path):
    """Two ADBench-like .npz files of the same rows in different orders (as ADBench's 20news BERT/RoBERTa)."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 40)
    X = rng.normal(size=(120, 4)) + y[:, None]
    order = rng.permutation(120)
    np.savez(tmp_path / "bert.npz", X=X, y=y)
    np.savez(tmp_path / "roberta.npz", X=X[order], y=y[order])
    return tmp_path, y, order


def test_a_shuffled_second_representation_is_exit_2_naming_it(shuffled, capsys):
    d, y, order = shuffled
    code = main(
        [
            "audit",
            "--embeddings",
            f"bert={d / 'bert.npz'}",
            "--embeddings",
            f"roberta={d / 'roberta.npz'}",
            "--labels",
            str(d / "bert.npz"),
            "--out",
            str(d / "out"),
            "--quiet",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    differ = int((y[order] != y).sum())
    assert "roberta.npz" in err and f"on {differ} of 120 rows" in err
    first = int(np.flatnonzero(y[order] != y)[0])
    assert f"first: row {first}" in err
    assert len(err.strip().splitlines()) == 1
    assert not (d / "out").exists()


def test_same_order_and_files_without_labels_pass(shuffled):
    d, y, order = shuffled
    check_labels_travel(d / "bert.npz", y, labels_path=d / "roberta.npz")  # its own labels equal the audited ones
    np.save(d / "X.npy", np.zeros((120, 2)))
    check_labels_travel(d / "X.npy", y[order], labels_path=d / "roberta.npz")  # no labels of its own
    check_labels_travel(d / "roberta.npz", y[order], labels_path=d / "roberta.npz")  # the labels file itself


def test_python_api_and_tables_raise_a_named_error(tmp_path):
    y = np.array(["a", "b", "a", "b"])
    pd.DataFrame({"f0": [0.1, 0.2, 0.3, 0.4], "label": ["b", "b", "a", "b"]}).to_csv(tmp_path / "e.csv", index=False)
    with pytest.raises(InvalidInputError, match=r"differ from the labels .* on 1 of 4 rows \(first: row 0, b vs a\)"):
        check_labels_travel(tmp_path / "e.csv", y, labels_path=tmp_path / "y.csv", rep="e")


@pytest.mark.parametrize("carried", [["b", "b", "a", "b"], None])
def test_a_table_of_embeddings_is_read_once_with_its_label_column(tmp_path, monkeypatch, capsys, carried):
    # the loader compares the label column it read with the embeddings: the table is not opened a second time
    import auditad.inputfiles as inputfiles

    frame = pd.DataFrame({"f0": [0.1, 0.2, 0.3, 0.4], "f1": [1.0, 0.0, 1.0, 0.0]})
    if carried is not None:
        frame["label"] = carried
    frame.to_csv(tmp_path / "e.csv", index=False)
    np.save(tmp_path / "y.npy", np.array(["a", "b", "a", "b"]))
    reads = []
    real = inputfiles.read_table
    monkeypatch.setattr(inputfiles, "read_table", lambda path, **kw: reads.append(path.name) or real(path, **kw))
    monkeypatch.setattr("auditad.datasets.read_table", inputfiles.read_table)
    args = ["audit", "--embeddings", f"e={tmp_path / 'e.csv'}", "--labels", str(tmp_path / "y.npy")]
    code = main([*args, "--out", str(tmp_path / "out"), "--quiet"])
    assert reads == ["e.csv"]
    err = capsys.readouterr().err
    if carried is not None:  # the column read with the embeddings still disagrees with the audited labels
        assert code == 2 and "on 1 of 4 rows (first: row 0, b vs a)" in err
