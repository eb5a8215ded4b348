"""Loading benchmarks from files, and the bundled example."""

import numpy as np
import pandas as pd
import pytest

from auditad import InvalidInputError
from auditad.datasets import Benchmark, load_benchmark, load_embeddings, load_example, load_labels


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
        load_labels(d / "X.json")  if (d / "X.json").write_text("{}") else None


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
