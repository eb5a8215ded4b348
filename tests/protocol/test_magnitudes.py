"""Embeddings of any magnitude: the protocol's AUROCs and the leakage do not change when the rows are scaled.

A kNN distance, LOF without its 1e-10 floor and an Isolation Forest keep their order when every coordinate
is multiplied by the same power of two, so the protocol's AUROCs at 2**900 and 2**-900 times the rows must
equal those of the rows themselves, bit for bit (before, 2**900 was refused as overflowing and 2**-900
underflowed to ties).
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from auditad.cli import main
from auditad.protocol import audit_protocol
from auditad.protocol.neighbor_lists import magnitude_exponent, prepare_rows, rescaled

SCALES = (2.0**900, 2.0**-900)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    n, d, K = 240, 6, 3
    y = rng.integers(0, K, n)
    X = rng.normal(size=(n, d)) + y[:, None] * 0.8
    return X, y


def _frame(X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = audit_protocol(X, y, detectors=("knn", "lof", "iforest"), k=5, random_state=3, **kw)
    return res.to_frame()


@pytest.fixture(scope="module")
def unscaled(data):
    return _frame(*data)


@pytest.mark.parametrize("scale", SCALES)
def test_protocol_aurocs_do_not_depend_on_the_magnitude(data, unscaled, scale):
    X, y = data
    got = _frame(X * scale, y)
    assert np.isfinite(unscaled["auroc"]).all()
    np.testing.assert_array_equal(got["auroc"].to_numpy(), unscaled["auroc"].to_numpy())
    assert got.equals(unscaled)


@pytest.mark.parametrize("scale", SCALES)
def test_cosine_unit_rows_at_any_magnitude(data, scale):
    X, _ = data
    ref = X / np.linalg.norm(X, axis=1)[:, None]
    np.testing.assert_array_equal(prepare_rows(X * scale, "cosine"), prepare_rows(X, "cosine"))
    np.testing.assert_allclose(prepare_rows(X, "cosine"), ref, rtol=1e-15, atol=1e-16)


def test_ordinary_rows_are_not_rescaled(data):
    X, _ = data
    assert magnitude_exponent(X) == 0 and rescaled(X) is X
    assert magnitude_exponent(np.zeros((3, 2))) == 0
    e = magnitude_exponent(X * 2.0**900)
    big = rescaled(X * 2.0**900)
    assert 0.5 <= np.abs(big).max() < 1.0
    np.testing.assert_array_equal(np.ldexp(big, e - 900), X)


def test_protocol_cli_on_1e300_embeddings(tmp_path, data, capsys):
    X, y = data
    np.save(tmp_path / "y.npy", y)
    out = {}
    for name, Z in (("plain", X), ("big", X * 1e300)):
        np.save(tmp_path / f"{name}.npy", Z)
        argv = ["protocol", "--embeddings", f"emb={tmp_path / name}.npy", "--labels", str(tmp_path / "y.npy")]
        code = main([*argv, "--detector", "knn", "--leakage-k", "5", "--json", str(tmp_path / f"{name}.json")])
        assert code == 0, capsys.readouterr().err
        out[name] = json.loads((tmp_path / f"{name}.json").read_text())
    capsys.readouterr()
    plain, big = (out[n]["representations"]["emb"] for n in ("plain", "big"))
    assert json.dumps(plain, sort_keys=True) == json.dumps(big, sort_keys=True)


@pytest.mark.parametrize("scale", (1.0, *SCALES))
def test_unit_rows_formed_as_read_equal_the_whole_copy(data, scale):
    from auditad.errors import InvalidInputError
    from auditad.neighbors.exact import UnitRows
    from auditad.neighbors.search import _unit_rows

    X, _ = data
    whole = _unit_rows(X, "X")  # the exact engine's whole copy
    U = UnitRows((X * scale).astype(np.float64))
    idx = np.random.default_rng(0).integers(0, X.shape[0], size=(9, 4))
    np.testing.assert_array_equal(U[5:50], whole[5:50])
    np.testing.assert_array_equal(U[idx], whole[idx])
    Z = X.copy()
    Z[17] = 0.0
    with pytest.raises(InvalidInputError, match="index 17"):
        UnitRows(Z, "X")
