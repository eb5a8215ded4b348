"""The pages of memory-mapped inputs leave the resident set past a budget; the values read never change."""

from __future__ import annotations

import sys
import time

import numpy as np
import pytest

from auditad import InvalidInputError

from auditad import _mapped_pages
from auditad.inputfiles import open_npy

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or _mapped_pages.file_resident_bytes() is None,
    reason="RssFile of /proc/self/status and MADV_DONTNEED are Linux's",
)

MB = 1 << 20


def _big(tmp_path, rows=8192, cols=1024):  # 32 MB of float32
    path = tmp_path / "X.npy"
    data = np.random.default_rng(0).standard_normal((rows, cols), dtype=np.float32)
    np.save(path, data)
    return path, data


def test_release_unmaps_the_pages_and_keeps_the_values(tmp_path, monkeypatch):
    monkeypatch.setenv("AUDITAD_MAPPED_RESIDENT_BYTES", "0")  # the watcher never releases: only the call below
    path, data = _big(tmp_path)
    X = open_npy(path, name="embeddings")
    before = _mapped_pages.file_resident_bytes()
    total = float(np.asarray(X, dtype=np.float64).sum())  # touches every page
    touched = _mapped_pages.file_resident_bytes()
    assert touched - before > 24 * MB
    assert _mapped_pages.release() >= 1
    released = _mapped_pages.file_resident_bytes()
    assert touched - released > 24 * MB  # the file's pages are no longer counted in the resident set
    assert float(np.asarray(X, dtype=np.float64).sum()) == total  # read again (from the page cache): same values
    np.testing.assert_array_equal(np.asarray(X), data)


def test_the_watcher_keeps_the_file_pages_under_the_budget(tmp_path, monkeypatch):
    monkeypatch.setenv("AUDITAD_MAPPED_RESIDENT_BYTES", str(4 * MB))
    path, data = _big(tmp_path, rows=16384)  # 64 MB
    X = open_npy(path, name="embeddings")
    base = _mapped_pages.file_resident_bytes()
    peak = 0
    for a in range(0, X.shape[0], 2048):  # 8 MB per block, slowly enough for the watcher to look in between
        np.testing.assert_array_equal(X[a : a + 2048], data[a : a + 2048])
        time.sleep(3 * _mapped_pages.POLL_SECONDS)
        peak = max(peak, _mapped_pages.file_resident_bytes() - base)
    assert peak < 40 * MB  # without the watcher the whole 64 MB would stay mapped


def test_a_control_without_budget_keeps_every_page(tmp_path, monkeypatch):
    monkeypatch.setenv("AUDITAD_MAPPED_RESIDENT_BYTES", "0")
    path, _ = _big(tmp_path, rows=16384)
    X = open_npy(path, name="embeddings")
    base = _mapped_pages.file_resident_bytes()
    for a in range(0, X.shape[0], 1024):
        X[a : a + 1024].sum()
    time.sleep(3 * _mapped_pages.POLL_SECONDS)
    assert _mapped_pages.file_resident_bytes() - base > 56 * MB


@pytest.mark.parametrize("value", ["lots", "-1", "1.5e9"])
def test_a_budget_that_is_not_a_number_of_bytes_is_an_error_naming_the_variable(value, tmp_path, monkeypatch):
    monkeypatch.setenv("AUDITAD_MAPPED_RESIDENT_BYTES", value)
    path, _ = _big(tmp_path, rows=16, cols=4)
    with pytest.raises(
        InvalidInputError, match=f"AUDITAD_MAPPED_RESIDENT_BYTES must be a whole number of bytes.*{value!r}"
    ):
        open_npy(path, name="embeddings")
