"""Loading benchmarks from files, and the bundled example."""

import numpy as np
import pandas as pd
import pytest

from auditad import InvalidInputError
from auditad.datasets import (
    Benchmark,
    load_anomaly_dataset,
    load_anomaly_example,
    load_benchmark,
    load_embeddings,
    load_example,
    load_labels,
)


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4)).astype(np.float32)
    y = np.repeat(["cat", "dog", "owl"], 10)
    np.save(tmp_path / "X.npy", X)
    np.savez(tmp_path / "emb.npz", X=X, other=np.zeros(3))
    np.save(tmp_path / "y.npy", np.repeat([0, 1, 2], 10))
    pd.DataFrame({"label": y, "extra": 1}).to_csv(tmp_path / "y.csv", index=False)
    pd.DataFrame({"cls": y}).to_parquet(tmp_path / "y.parquet")
    return tmp_path, X, y


def test_load_npy_npz_csv_parquet(files):
    d, X, y = files
    np.testing.assert_array_equal(load_embeddings(d / "X.npy"), X)
    np.testing.assert_array_equal(load_embeddings(d / "emb.npz"), X)
    assert load_labels(d / "y.csv").tolist() == y.tolist()
    assert load_labels(d / "y.parquet").tolist() == y.tolist()
    assert load_labels(d / "y.parquet", column="cls").tolist() == y.tolist()
    b = load_benchmark(d / "X.npy", d / "y.npy")
    assert isinstance(b, Benchmark) and b.n == 30 and b.X.shape == (30, 4)
    b2 = load_benchmark({"a": d / "X.npy", "b": d / "emb.npz"}, d / "y.csv")
    assert list(b2.representations) == ["a", "b"]


def test_bad_files(files, tmp_path):
    d, X, y = files
    with pytest.raises(InvalidInputError, match="does not exist"):
        load_embeddings(d / "missing.npy")
    (d / "empty.npy").write_bytes(b"")
    with pytest.raises(InvalidInputError, match="is empty"):
        load_embeddings(d / "empty.npy")
    (d / "empty.csv").write_text("")
    with pytest.raises(InvalidInputError, match="is empty"):
        load_labels(d / "empty.csv")
    (d / "header.csv").write_text("label\n")
    with pytest.raises(InvalidInputError, match="no rows"):
        load_labels(d / "header.csv")
    np.save(d / "obj.npy", np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    with pytest.raises(InvalidInputError, match="pickled"):
        load_embeddings(d / "obj.npy")
    with pytest.raises(InvalidInputError, match="no column 'klass'"):
        load_labels(d / "y.csv", column="klass")
    pd.DataFrame({"a": [1, 2], "b": [3, 4]}).to_csv(d / "two.csv", index=False)
    with pytest.raises(InvalidInputError, match="several columns"):
        load_labels(d / "two.csv")
    with pytest.raises(InvalidInputError, match="has no array 'Z'"):
        load_embeddings(d / "emb.npz", key="Z")
    np.save(d / "y_short.npy", np.arange(29) % 3)
    with pytest.raises(InvalidInputError, match="same length"):
        load_benchmark(d / "X.npy", d / "y_short.npy")
    np.save(d / "X1d.npy", np.arange(30.0))
    with pytest.raises(InvalidInputError, match="must be 2-D"):
        load_embeddings(d / "X1d.npy")
    np.save(d / "one.npy", np.zeros(30, dtype=int))
    with pytest.raises(InvalidInputError, match="at least 2 classes"):
        load_benchmark(d / "X.npy", d / "one.npy")
    with pytest.raises(InvalidInputError, match="unsupported file type"):
        load_labels(d / "X.json") if (d / "X.json").write_text("{}") else None


def test_example_is_digits_with_two_representations():
    b = load_example()
    assert b.name == "digits" and b.n == 1797 and len(b.classes) == 10
    assert b.representations["pixels"].shape == (1797, 64)
    pca = b.representations["pca16"]
    assert pca.shape == (1797, 16)
    # PCA components are uncorrelated with decreasing variance
    cov = np.cov(pca.T)
    assert np.allclose(cov - np.diag(np.diag(cov)), 0, atol=1e-8)
    assert np.all(np.diff(np.diag(cov)) <= 0)
    np.testing.assert_array_equal(load_example().representations["pca16"], pca)


# --------------------------------------------------------------------------- missing labels
@pytest.mark.parametrize(
    "text,rows,lines",
    [
        ("label,extra\ncat,1\n,2\ndog,3\n,4\n", "2, 4", "3, 5"),  # empty cells of a 2-column CSV
        ("label\ncat\n\ndog\n", "2", "3"),  # a blank line of a 1-column CSV
        ("label\n0\n1\n\n2\n1\n", "3", "4"),  # integer labels with a blank line
    ],
)
def test_missing_labels_in_csv_are_named_errors_with_rows(tmp_path, text, rows, lines):
    (tmp_path / "y.csv").write_text(text)
    with pytest.raises(InvalidInputError, match=rf"missing label\(s\).*data row\(s\) {rows} \(file lines {lines}"):
        load_labels(tmp_path / "y.csv")
    np.save(tmp_path / "X.npy", np.zeros((text.count("\n") - 1, 2)))
    with pytest.raises(InvalidInputError, match="missing label"):
        load_benchmark(tmp_path / "X.npy", tmp_path / "y.csv")


def test_missing_labels_in_parquet_and_float_arrays(tmp_path):
    pd.DataFrame({"label": ["a", None, "b", "a"]}).to_parquet(tmp_path / "y.parquet")
    with pytest.raises(InvalidInputError, match=r"data row\(s\) 2;"):
        load_labels(tmp_path / "y.parquet")
    np.save(tmp_path / "y.npy", np.array([0.0, 1.0, np.nan, 1.0, np.nan]))
    with pytest.raises(InvalidInputError, match=r"missing labels \(NaN\) at row\(s\) 3, 5"):
        load_labels(tmp_path / "y.npy")


def test_nan_markers_are_missing_labels_not_a_class(tmp_path):
    # np.savetxt writes a missing float label as "nan": it must not become a class named "nan"
    (tmp_path / "y.csv").write_text("label\n0\nnan\n1\nNA\n1\n")
    with pytest.raises(InvalidInputError, match=r"data row\(s\) 2, 4 \(file lines 3, 5"):
        load_labels(tmp_path / "y.csv")


# --------------------------------------------------------------------------- formats
def test_odds_mat_files(tmp_path):
    import scipy.io
    import scipy.sparse

    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 5))
    y = (np.arange(40) % 8 == 0).astype(float)[:, None]  # ODDS stores y as an (n, 1) column
    scipy.io.savemat(tmp_path / "odds.mat", {"X": X, "y": y})
    np.testing.assert_array_equal(load_embeddings(tmp_path / "odds.mat"), X)
    assert load_labels(tmp_path / "odds.mat").tolist() == y[:, 0].astype(int).tolist()
    d = load_anomaly_dataset(tmp_path / "odds.mat")
    np.testing.assert_array_equal(d.X, X)
    assert d.n_anomalies == 5 and d.anomaly_ratio == 5 / 40 and d.name == "odds"
    scipy.io.savemat(tmp_path / "sparse.mat", {"X": scipy.sparse.csr_matrix(X), "y": y})
    np.testing.assert_array_equal(load_anomaly_dataset(tmp_path / "sparse.mat").X, X)


def test_malformed_mat_files(tmp_path):
    # a MATLAB v7.3 file: 128-byte MAT header announcing version 0x0200, then HDF5
    header = b"MATLAB 7.3 MAT-file, Platform: GLNXA64, HDF5 schema 1.00 .".ljust(116, b" ") + b"\0" * 8 + b"\0\2IM"
    (tmp_path / "v73.mat").write_bytes(header + b"\0" * 384 + b"\x89HDF\r\n\x1a\n" + b"\0" * 64)
    with pytest.raises(InvalidInputError, match=r"v73.mat.* is a MATLAB v7.3 file \(HDF5\)"):
        load_anomaly_dataset(tmp_path / "v73.mat")
    (tmp_path / "junk.mat").write_bytes(b"not a matlab file " * 20)
    with pytest.raises(InvalidInputError, match="junk.mat.*could not be read as a MATLAB"):
        load_embeddings(tmp_path / "junk.mat")
    import scipy.io

    scipy.io.savemat(tmp_path / "ok.mat", {"X": np.ones((50, 4)), "y": np.zeros((50, 1))})
    data = (tmp_path / "ok.mat").read_bytes()
    (tmp_path / "cut.mat").write_bytes(data[: len(data) // 2])
    with pytest.raises(InvalidInputError, match="cut.mat"):
        load_embeddings(tmp_path / "cut.mat")


def test_truncated_npz_and_corrupted_npy_are_named_errors(tmp_path):
    rng = np.random.default_rng(2)
    np.savez(tmp_path / "adbench.npz", X=rng.normal(size=(200, 8)), y=(np.arange(200) % 10 == 0).astype(int))
    data = (tmp_path / "adbench.npz").read_bytes()
    (tmp_path / "cut.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(InvalidInputError, match=r"cut.npz.*(truncated|corrupted)"):
        load_embeddings(tmp_path / "cut.npz")
    with pytest.raises(InvalidInputError, match=r"cut.npz"):
        load_anomaly_dataset(tmp_path / "cut.npz")
    np.savez_compressed(tmp_path / "z.npz", X=rng.normal(size=(200, 8)))
    raw = bytearray((tmp_path / "z.npz").read_bytes())
    mid = len(raw) // 2
    raw[mid : mid + 64] = bytes(64)  # damage the deflate stream of the member
    (tmp_path / "bad.npz").write_bytes(bytes(raw))
    with pytest.raises(InvalidInputError, match=r"bad.npz"):
        load_embeddings(tmp_path / "bad.npz")
    np.save(tmp_path / "X.npy", rng.normal(size=(10, 3)))
    raw = (tmp_path / "X.npy").read_bytes()
    (tmp_path / "hdr.npy").write_bytes(raw.replace(b"'descr'", b"'dexxx'"))
    with pytest.raises(InvalidInputError, match=r"hdr.npy.*not a valid .npy"):
        load_embeddings(tmp_path / "hdr.npy")
    (tmp_path / "short.npy").write_bytes(raw[:40])
    with pytest.raises(InvalidInputError, match="short.npy"):
        load_embeddings(tmp_path / "short.npy")


def test_adbench_npz_loads(tmp_path):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(100, 6))
    y = np.zeros(100, dtype=int)
    y[:7] = 1
    np.savez(tmp_path / "mnist.npz", X=X, y=y)
    d = load_anomaly_dataset(tmp_path / "mnist.npz")
    np.testing.assert_array_equal(d.X, X)
    assert d.n_anomalies == 7 and d.anomaly_ratio == 0.07
    np.savez(tmp_path / "classes.npz", X=X, y=np.arange(100) % 3)
    with pytest.raises(InvalidInputError, match=r"0 \(normal\) and 1 \(anomaly\) only, got the values \[0, 1, 2\]"):
        load_anomaly_dataset(tmp_path / "classes.npz")
    np.savez(tmp_path / "normals.npz", X=X, y=np.zeros(100))
    with pytest.raises(InvalidInputError, match="both normals"):
        load_anomaly_dataset(tmp_path / "normals.npz")
    np.savez(tmp_path / "short.npz", X=X, y=y[:90])
    with pytest.raises(InvalidInputError, match="same length"):
        load_anomaly_dataset(tmp_path / "short.npz")


def test_tables_with_named_embedding_columns(tmp_path):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 4))
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(4)])
    frame.insert(0, "id", [f"s{i}" for i in range(30)])
    frame["weight"] = 1.5
    frame["y"] = (np.arange(30) % 6 == 0).astype(int)
    frame.to_csv(tmp_path / "t.csv", index=False)
    frame.to_parquet(tmp_path / "t.parquet")
    for f in ("t.csv", "t.parquet"):
        np.testing.assert_allclose(load_embeddings(tmp_path / f, prefix="f"), X, rtol=1e-15)
        np.testing.assert_allclose(load_embeddings(tmp_path / f, columns=["f2", "f0"]), X[:, [2, 0]], rtol=1e-15)
        d = load_anomaly_dataset(tmp_path / f, prefix="f")
        np.testing.assert_allclose(d.X, X, rtol=1e-15)
        assert d.n_anomalies == 5
    assert load_anomaly_dataset(tmp_path / "t.csv").X.shape == (30, 5)  # every numeric column but y
    for kwargs, match in (
        ({"columns": ["f0", "g"]}, r"no column\(s\) \['g'\]"),
        ({"prefix": "z"}, "starting with 'z'"),
        ({"columns": ["id"]}, "not numeric"),
        ({"columns": "f0"}, "list of column names"),
        ({"columns": ["f0"], "prefix": "f"}, "not both"),
    ):
        with pytest.raises(InvalidInputError, match=match):
            load_embeddings(tmp_path / "t.csv", **kwargs)
    np.save(tmp_path / "X.npy", X)
    with pytest.raises(InvalidInputError, match="apply to CSV/Parquet"):
        load_embeddings(tmp_path / "X.npy", prefix="f")
    (tmp_path / "gap.csv").write_text("f0,f1\n1,2\n3,\n")
    with pytest.raises(InvalidInputError, match=r"empty embedding values at data row\(s\) 2"):
        load_embeddings(tmp_path / "gap.csv")
    frame.assign(y=[None] + [0] * 29).to_csv(tmp_path / "ymiss.csv", index=False)
    with pytest.raises(InvalidInputError, match=r"missing anomaly labels at data row\(s\) 1"):
        load_anomaly_dataset(tmp_path / "ymiss.csv", prefix="f")


def test_anomaly_example_is_digit_zero_against_a_few_others():
    from sklearn.datasets import load_digits

    d = load_anomaly_example()
    digits = load_digits()
    assert (d.n, d.n_anomalies) == (187, 9) and d.anomaly_ratio == pytest.approx(9 / 187)
    np.testing.assert_array_equal(d.X[d.y == 0], digits.data[digits.target == 0])
    first = [int(np.flatnonzero(digits.target == k)[0]) for k in range(1, 10)]
    np.testing.assert_array_equal(d.X[d.y == 1], digits.data[sorted(first)])
    assert load_anomaly_example(per_class=3).n_anomalies == 27
    with pytest.raises(InvalidInputError, match="per_class"):
        load_anomaly_example(per_class=0)


# --------------------------------------------------------------------------- pandas' to_csv() index, shared tables
@pytest.fixture
def to_csv_table(tmp_path):
    """A table written by pandas' default ``to_csv()``: an unnamed leading index column 0..n-1."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(24, 8))
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(8)])
    frame["label"] = np.repeat([0, 1, 2], 8)
    frame.to_csv(tmp_path / "t.csv")  # index=True, the default
    return tmp_path / "t.csv", X, frame


def test_the_index_column_of_to_csv_is_dropped_with_a_note(to_csv_table):
    from auditad.errors import SkippedItemWarning

    path, X, _ = to_csv_table
    assert path.read_text().startswith(",f0,f1")  # pandas writes an empty header cell
    with pytest.warns(SkippedItemWarning, match=r"t\.csv: the first column has an empty header \(values 0\.\.23\)"):
        got = load_embeddings(path, exclude=["label"])
    np.testing.assert_allclose(got, X, rtol=1e-15)  # 8 columns, not 9 (index) or 10 (and the label)
    with pytest.warns(SkippedItemWarning):
        np.testing.assert_array_equal(load_labels(path), np.repeat([0, 1, 2], 8))


def test_an_unnamed_first_column_is_dropped_even_when_it_does_not_count_from_zero(to_csv_table, tmp_path):
    from auditad.errors import SkippedItemWarning

    _, X, frame = to_csv_table
    frame.iloc[::2].to_csv(tmp_path / "filtered.csv")  # index 0, 2, 4, ...
    with pytest.warns(SkippedItemWarning, match="no header"):
        assert load_embeddings(tmp_path / "filtered.csv", prefix="f").shape == (12, 8)
    frame.set_axis(np.arange(24) // 2).to_csv(tmp_path / "named.csv", index_label="row")  # 0, 0, 1, 1, ...
    import warnings

    with warnings.catch_warnings():  # a named first column that is no row index (repeated values): data, kept
        warnings.simplefilter("error")
        assert load_embeddings(tmp_path / "named.csv", exclude=["label"]).shape == (24, 9)


def test_load_benchmark_leaves_the_label_column_of_a_shared_table_out(to_csv_table):
    path, X, _ = to_csv_table
    with pytest.warns(UserWarning):
        bench = load_benchmark(path, path)
    np.testing.assert_allclose(bench.X, X, rtol=1e-15)
    np.testing.assert_array_equal(bench.y, np.repeat([0, 1, 2], 8))
    with pytest.warns(UserWarning):
        assert load_benchmark(path, path, embedding_columns=["f3", "f1"]).X.shape == (24, 2)
    with pytest.warns(UserWarning):
        np.testing.assert_allclose(load_benchmark(path, path, embedding_prefix="f").X, X, rtol=1e-15)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"embedding_columns": ["f0", "g7"]}, r"^embedding_columns=\['f0', 'g7'\]: .*has no column\(s\) \['g7'\]"),
        ({"embedding_prefix": "emb_"}, r"^embedding_prefix='emb_': .*no column starting with 'emb_'"),
        ({"embedding_prefix": ""}, r"^embedding_prefix='': .*non-empty"),
        ({"embedding_columns": []}, r"^embedding_columns=\[\]"),
    ],
)
def test_bad_embedding_columns_name_the_parameter_and_the_value(to_csv_table, kwargs, match):
    path, _, _ = to_csv_table
    with pytest.warns(UserWarning), pytest.raises(InvalidInputError, match=match):
        load_benchmark(path, path, **kwargs)


def test_a_long_column_list_is_shortened_in_messages(tmp_path):
    pd.DataFrame(np.zeros((3, 40)), columns=[f"c{i}" for i in range(40)]).to_csv(tmp_path / "w.csv", index=False)
    with pytest.raises(InvalidInputError, match=r"\.\.\.\] \(40 in total\)") as info:
        load_embeddings(tmp_path / "w.csv", prefix="z")
    assert "c39" not in str(info.value)
