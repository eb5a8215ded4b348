"""A table's leading row-index column (pandas' ``to_csv()`` of a named or unnamed index, an id or a key).

The reference is the same table written without the index (``index=False``): the loaders and the audit
must read exactly those columns, name the column they left out, and use it when the columns are named.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from auditad.cli import main
from auditad.datasets import load_anomaly_dataset, load_benchmark, load_embeddings
from auditad.errors import SkippedItemWarning
from auditad.inputfiles import index_column_reason

LIGHT = ["--detector", "knn", "--null-runs", "50", "--landscape-resolution", "11", "--leakage-k", "3"]
LIGHT += ["--null-metric", "auroc", "--quiet"]


def _frame(n=60, d=6, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(n, d)), columns=[f"f{i}" for i in range(d)])
    frame["label"] = np.arange(n) % 3
    return frame


@pytest.mark.parametrize("name", ["sample_id", "id", "index", "ID", " Index "])
def test_a_named_index_written_by_to_csv_is_left_out_with_a_note(tmp_path, name):
    frame = _frame()
    frame.index = 1000 + np.random.default_rng(1).permutation(len(frame))  # ids, not positions
    frame.index.name = name
    frame.to_csv(tmp_path / "t.csv")
    frame.to_csv(tmp_path / "ref.csv", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        want = load_embeddings(tmp_path / "ref.csv", exclude=["label"])
    with pytest.warns(SkippedItemWarning, match=rf"t\.csv: the leading column '{name}' \(named '{name.strip()}'\)"):
        got = load_embeddings(tmp_path / "t.csv", exclude=["label"])
    np.testing.assert_array_equal(got, want)
    assert got.shape == (60, 6)


@pytest.mark.parametrize(
    ("values", "reason"),
    [
        (np.arange(40), "values 0..39"),
        (np.arange(1, 41), "values 1..40"),
        (np.random.default_rng(2).permutation(40), "values 0..39"),  # shuffled rows keep their positions
        (np.random.default_rng(3).choice(10**6, size=40, replace=False), "distinct integers"),
        (np.arange(40) // 2, None),  # repeated values: a feature
        (np.arange(40) + 0.5, None),  # not integers
        (np.arange(40).astype(float), None),  # float column: a feature even when it counts
    ],
)
def test_an_unnamed_key_is_recognised_by_its_values(values, reason):
    assert index_column_reason(pd.Series(values, name="row")) == reason


def test_few_distinct_small_integers_are_no_key():
    # below MIN_KEY_ROWS rows, distinct integers are likely by chance (e.g. 5 grey levels)
    assert index_column_reason(pd.Series([7, 3, 9, 4, 12], name="g")) is None


def test_naming_the_columns_overrides_the_detection(tmp_path):
    frame = _frame()
    frame.index.name = "sample_id"
    frame.to_csv(tmp_path / "t.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = load_embeddings(tmp_path / "t.csv", columns=["sample_id", "f0", "f1"])
        np.testing.assert_array_equal(got[:, 0], np.arange(60))
        assert load_embeddings(tmp_path / "t.csv", prefix="f").shape == (60, 6)


def test_parquet_with_an_id_column_and_the_other_loaders(tmp_path):
    frame = _frame().reset_index(names="id")
    frame.to_parquet(tmp_path / "t.parquet", index=False)
    with pytest.warns(SkippedItemWarning, match="'id'"):
        bench = load_benchmark(tmp_path / "t.parquet", tmp_path / "t.parquet", label_column="label")
    assert bench.representations["t"].shape == (60, 6)
    frame["y"] = (np.arange(60) % 10 == 0).astype(int)
    frame.drop(columns="label").to_csv(tmp_path / "ad.csv", index=False)
    with pytest.warns(SkippedItemWarning, match="'id'"):
        data = load_anomaly_dataset(tmp_path / "ad.csv")
    np.testing.assert_array_equal(data.X, frame[[f"f{i}" for i in range(6)]].to_numpy())


def test_the_audit_of_a_named_index_csv_reads_the_features_only(tmp_path, capsys):
    """The audit of ``df.index.name = "sample_id"; df.to_csv()``: 8 dimensions, the leakage of the 8 features
    (``auditad.leakage`` on the frame's own values), the note on stderr and in the report."""
    import auditad
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    frame = pd.DataFrame(X[:240, 20:28], columns=[f"f{i}" for i in range(8)])
    frame["label"] = y[:240]
    frame.index.name = "sample_id"
    frame.to_csv(tmp_path / "bench.csv")
    path = str(tmp_path / "bench.csv")
    code = main(["audit", "--embeddings", path, "--labels", path, "--out", str(tmp_path / "out"), *LIGHT])
    err = capsys.readouterr().err
    assert code in (0, 1), err
    summary = json.loads((tmp_path / "out" / "bench" / "summary.json").read_text())
    assert summary["dataset"]["representations"] == {"bench": {"dim": 8}}
    want = auditad.leakage(frame[[f"f{i}" for i in range(8)]].to_numpy(), y[:240], k=3).L_k
    assert summary["leakage"]["L_k"] == pytest.approx(want, rel=1e-12)
    with_index = auditad.leakage(frame.reset_index().drop(columns="label").to_numpy(float), y[:240], k=3).L_k
    assert abs(with_index - want) > 0.05  # what the index column would have done to the headline number
    notes = [line for line in err.splitlines() if "sample_id" in line]
    assert len(notes) == 1 and notes[0].startswith("auditad: note: bench: SkippedItemWarning: bench.csv:")
    assert [w for w in summary["warnings"] if "sample_id" in w]
    assert "sample_id" in (tmp_path / "out" / "bench" / "report.html").read_text()
