"""Inputs from disk: ``.npy`` files and stored ``.npz`` members memory-mapped, folders of ``.npy`` shards.

An embedding file is never read whole: float32 and float64 arrays stay memory-mapped (no copy), other
dtypes are converted once, block by block; checks run block by block; a folder of ``part-*.npy`` shards
is read as one array.  Small in-memory formats (CSV, compressed ``.npz``, ``.mat``) behave as before.
"""

import json
import re
import tracemalloc

import numpy as np
import pytest

from auditad import InvalidInputError
from auditad import _io
from auditad.datasets import Benchmark, load_benchmark, load_embeddings, load_labels


def _memmap_base(arr):
    """The ``np.memmap`` an array is a view of, or None."""
    while isinstance(arr, np.ndarray):
        if isinstance(arr, np.memmap):
            return arr
        arr = arr.base
    return None


@pytest.fixture
def X32():
    return np.random.default_rng(0).normal(size=(500, 16)).astype(np.float32)


def _shards(folder, X, cuts=(0, 120, 300, 500), dtype=None):
    folder.mkdir()
    for i, (a, b) in enumerate(zip(cuts[:-1], cuts[1:])):
        np.save(folder / f"part-{i:05d}.npy", X[a:b] if dtype is None else X[a:b].astype(dtype))
    return folder


# --------------------------------------------------------------------------- .npy and .npz
def test_a_float32_npy_is_memory_mapped_and_not_copied(tmp_path, X32):
    np.save(tmp_path / "x.npy", X32)
    A = load_embeddings(tmp_path / "x.npy")
    base = _memmap_base(A)
    assert base is not None and str(base.filename) == str((tmp_path / "x.npy").resolve())
    assert A.dtype == np.float32 and not A.flags.writeable and np.array_equal(A, X32)
    assert _io.is_mapped_array(A) and np.shares_memory(A, base)
    bench = Benchmark(name="b", y=np.arange(500) % 3, representations={"x": A})
    assert bench.X is A  # kept as it is: no float64 copy of a file on disk


def test_mapped_inputs_can_be_sent_to_workers_by_path(tmp_path, X32):
    # a .npy file and a stored .npz member are np.memmap objects of the file itself, so an executor can send
    # a token of a few bytes (the file, offset, dtype and shape) instead of the data
    diskarray = pytest.importorskip("auditad.diskarray")
    np.save(tmp_path / "x.npy", X32)
    np.savez(tmp_path / "s.npz", X=X32)
    for f in ("x.npy", "s.npz"):
        token = diskarray.memmap_token(load_embeddings(tmp_path / f))
        assert token is not None and np.array_equal(token.open(), X32)


def test_a_float64_npy_stays_mapped_without_any_copy(tmp_path, monkeypatch):
    monkeypatch.setattr(_io, "BLOCK_BYTES", 1 << 16)
    X = np.random.default_rng(1).normal(size=(4000, 64))
    np.save(tmp_path / "x.npy", X)
    tracemalloc.start()
    A = load_embeddings(tmp_path / "x.npy")
    bench = Benchmark(name="b", y=np.arange(4000) % 2, representations={"x": A})
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert A.dtype == np.float64 and _memmap_base(bench.X) is not None and np.array_equal(bench.X, X)
    assert peak < 0.1 * X.nbytes  # block-wise checks: no temporary of the data's size


@pytest.mark.parametrize("dtype", [np.float16, np.int16, np.uint8])
def test_narrow_dtypes_become_float32_once_without_a_float64_copy(tmp_path, monkeypatch, dtype):
    monkeypatch.setattr(_io, "BLOCK_BYTES", 1 << 16)
    X = (np.random.default_rng(2).normal(size=(6000, 50)) * 20).astype(dtype)
    np.save(tmp_path / "x.npy", X)
    f32 = X.size * 4
    tracemalloc.start()
    A = load_embeddings(tmp_path / "x.npy")
    Benchmark(name="b", y=np.arange(6000) % 2, representations={"x": A})
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert A.dtype == np.float32 and np.array_equal(A, X.astype(np.float32))  # exact
    assert _io.is_mapped_array(A) and not A.flags.writeable
    assert peak < 1.5 * f32  # never the 2x float32 size of a float64 copy


def test_wide_integers_become_float64_exactly(tmp_path):
    X = np.arange(2**40, 2**40 + 300, dtype=np.int64).reshape(100, 3)
    np.save(tmp_path / "x.npy", X)
    A = load_embeddings(tmp_path / "x.npy")
    assert A.dtype == np.float64 and np.array_equal(A, X.astype(np.float64))


def test_an_uncompressed_npz_member_is_mapped_and_a_compressed_one_still_read(tmp_path, X32):
    y = np.arange(500) % 4
    np.savez(tmp_path / "s.npz", X=X32, y=y)
    np.savez_compressed(tmp_path / "c.npz", X=X32, y=y)
    S = load_embeddings(tmp_path / "s.npz")
    C = load_embeddings(tmp_path / "c.npz")
    assert _memmap_base(S) is not None and not S.flags.writeable and np.array_equal(S, X32)
    assert _memmap_base(C) is None and not _io.is_mapped_array(C) and np.array_equal(C, X32)
    for f in ("s.npz", "c.npz"):  # labels are small: read into memory as before
        lab = load_labels(tmp_path / f, key="y")
        assert lab.flags.writeable and _memmap_base(lab) is None and np.array_equal(lab, y)


def test_a_fortran_and_a_big_endian_npy_read_right(tmp_path, X32):
    np.save(tmp_path / "f.npy", np.asfortranarray(X32))
    np.save(tmp_path / "b.npy", X32.astype(">f4"))
    assert np.array_equal(load_embeddings(tmp_path / "f.npy"), X32)
    B = load_embeddings(tmp_path / "b.npy")
    assert np.array_equal(B, X32) and B.dtype.isnative


def test_in_memory_formats_keep_their_float64_benchmark(tmp_path, X32):
    # compressed .npz and CSV are read into memory; the Benchmark holds float64 as before
    np.savez_compressed(tmp_path / "c.npz", X=X32)
    np.save(tmp_path / "y.npy", np.arange(500) % 3)
    assert load_benchmark(tmp_path / "c.npz", tmp_path / "y.npy").X.dtype == np.float64
    np.save(tmp_path / "x.npy", X32)
    mapped = load_benchmark(tmp_path / "x.npy", tmp_path / "y.npy").X
    assert mapped.dtype == np.float32 and _io.is_mapped_array(mapped)


def test_non_finite_values_are_found_block_by_block(tmp_path, monkeypatch, X32):
    from auditad._validation import check_embeddings

    monkeypatch.setattr(_io, "BLOCK_BYTES", 1024)  # 16 rows per block
    X = X32.copy()
    X[200, 3], X[201, 0], X[450, 7] = np.nan, np.inf, -np.inf
    np.save(tmp_path / "x.npy", X)
    with pytest.raises(InvalidInputError) as disk:
        load_embeddings(tmp_path / "x.npy")
    with pytest.raises(InvalidInputError) as memory:
        check_embeddings(X, name="embeddings (x.npy)", dtype=None)
    assert str(disk.value) == str(memory.value)  # the same message: first at (200, 3), 3 entries
    assert "(200, 3)" in str(disk.value) and "3 entries" in str(disk.value)
    with pytest.raises(InvalidInputError, match="overflow float64"):
        _io.check_disk_embeddings(np.full((40, 2), 1e200), name="X", max_abs=1e150)


def test_corrupted_and_pickled_npy_files_are_named_errors(tmp_path, X32):
    np.save(tmp_path / "x.npy", X32)
    data = (tmp_path / "x.npy").read_bytes()
    (tmp_path / "t.npy").write_bytes(data[:-100])
    with pytest.raises(InvalidInputError, match=r"embeddings file '.*t\.npy' is truncated"):
        load_embeddings(tmp_path / "t.npy")
    np.save(tmp_path / "o.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(InvalidInputError, match="pickled"):
        load_embeddings(tmp_path / "o.npy")


# --------------------------------------------------------------------------- shard folders
def test_a_shards_folder_equals_the_concatenation_of_its_parts(tmp_path, X32):
    folder = _shards(tmp_path / "emb", X32)
    (folder / ".DS_Store").write_bytes(b"hidden files are ignored")
    A = load_embeddings(folder)
    assert A.dtype == np.float32 and np.array_equal(A, X32) and not A.flags.writeable
    assert _io.is_mapped_array(A)  # one anonymous map: kept float32 by the Benchmark
    assert Benchmark(name="b", y=np.arange(500) % 3, representations={"x": A}).X is A


def test_shards_are_read_in_name_order(tmp_path, X32):
    folder = tmp_path / "emb"
    folder.mkdir()
    for i in (2, 0, 1):  # written out of order
        np.save(folder / f"part-{i:05d}.npy", X32[i * 100 : (i + 1) * 100])
    assert np.array_equal(load_embeddings(folder), X32[:300])


def test_large_shards_go_to_an_unlinked_temporary_file(tmp_path, monkeypatch, X32):
    monkeypatch.setenv("AUDITAD_SHARDS_MEMORY_BYTES", "1000")
    monkeypatch.setenv("AUDITAD_TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    A = load_embeddings(_shards(tmp_path / "emb", X32, dtype=np.float16))
    assert A.dtype == np.float32 and np.array_equal(A, X32.astype(np.float16).astype(np.float32))
    assert _memmap_base(A) is not None and list((tmp_path / "tmp").iterdir()) == []  # nothing left behind


@pytest.mark.parametrize(
    "case, match",
    [
        ("empty", "is empty"),
        ("columns", "shard 'part-00001.npy' has 8 columns, 'part-00000.npy' 16"),
        ("dtypes", "shard 'part-00001.npy' has dtype float64, 'part-00000.npy' float32"),
        ("strings", "must hold a real numeric array, got dtype <U"),
        ("other", "holds 'notes.txt', not a .npy shard"),
        ("truncated", r"shard file '.*part-00001\.npy' is truncated"),
        ("onedim", "shard 'part-00000.npy' is 1-D"),
    ],
)
def test_bad_shard_folders_are_named_errors(tmp_path, X32, case, match):
    folder = tmp_path / "emb"
    folder.mkdir()
    if case != "empty":
        first = {"strings": np.array([["a", "b"]]), "onedim": X32[:, 0]}.get(case, X32[:10])
        np.save(folder / "part-00000.npy", first)
    second = {"columns": X32[:5, :8], "dtypes": X32[:5].astype(np.float64)}.get(case)
    if second is not None:
        np.save(folder / "part-00001.npy", second)
    if case == "other":
        (folder / "notes.txt").write_text("x")
    if case == "truncated":
        np.save(folder / "part-00001.npy", X32[:50])
        data = (folder / "part-00001.npy").read_bytes()
        (folder / "part-00001.npy").write_bytes(data[:-64])
    with pytest.raises(InvalidInputError, match=match) as err:
        load_embeddings(folder, name="embeddings 'emb'")
    assert "embeddings 'emb'" in str(err.value) and str(folder) in str(err.value)


# --------------------------------------------------------------------------- end to end
def _normalised(text: str, shown: str) -> str:
    """A report without what names the input: its path as shown, and every SHA-256 (files, configuration)."""
    return re.sub(r"\b[0-9a-f]{64}\b", "HASH", text.replace(shown, "EMBEDDINGS"))


def test_an_audit_of_shards_matches_the_audit_of_one_npy(tmp_path, monkeypatch, capsys):
    from sklearn.datasets import load_digits

    from auditad.cli import main

    X, y = load_digits(return_X_y=True)
    X = (X[:240] / 7).astype(np.float32)
    monkeypatch.chdir(tmp_path)
    np.save("y.npy", y[:240])
    np.save("one.npy", X)
    _shards(tmp_path / "parts", X, cuts=(0, 100, 170, 240))
    light = [
        "--detector",
        "knn",
        "--null-runs",
        "50",
        "--landscape-resolution",
        "11",
        "--null-metric",
        "auroc",
        "--landscape-metric",
        "auroc",
        "--quiet",
    ]
    for emb, out in (("one.npy", "out1"), ("parts", "out2")):
        assert main(["audit", "--embeddings", f"emb={emb}", "--labels", "y.npy", "--out", out, *light]) in (0, 1)
    capsys.readouterr()
    html = [
        _normalised((tmp_path / out / "y" / "report.html").read_text(), shown)
        for out, shown in (("out1", "one.npy"), ("out2", "parts"))
    ]
    assert html[0] == html[1]
    one, parts = (json.loads((tmp_path / out / "y" / "summary.json").read_text()) for out in ("out1", "out2"))
    assert [i["path"] for i in parts["inputs"]] == ["y.npy", "parts"]
    for s in (one, parts):
        s.pop("inputs"), s.pop("config"), s.pop("run", None)
    assert one == parts


def test_the_protocol_and_the_leakage_keep_a_mapped_array_without_a_copy(tmp_path):
    """A memory-mapped representation is checked block by block and never copied whole (no float64 copy, no
    whole-array isfinite temporary), and gives the same numbers as the same data in memory."""
    from auditad.leakage import leakage
    from auditad.protocol import audit_protocol

    rng = np.random.default_rng(3)
    y = np.repeat(np.arange(4), 150)
    X = (rng.normal(size=(y.size, 16)) + 0.5 * y[:, None]).astype(np.float32)
    np.save(tmp_path / "X.npy", X)
    M = load_embeddings(tmp_path / "X.npy")
    assert isinstance(M, np.memmap)
    kw = dict(detectors=["knn", "iforest", "lof"], backend="exact", leakage_k=5, random_state=0)
    assert audit_protocol(M, y, **kw).to_dict() == audit_protocol(X, y, **kw).to_dict()
    assert leakage(M, y, k=5, backend="exact").to_dict() == leakage(X, y, k=5, backend="exact").to_dict()
    big = np.lib.format.open_memmap(tmp_path / "big.npy", mode="w+", dtype=np.float32, shape=(200_000, 64))
    big[:] = 1.0
    big.flush()
    del big
    B = load_embeddings(tmp_path / "big.npy")  # 51 MB on disk
    from auditad.protocol.runner import check_representations

    tracemalloc.start()
    checked = check_representations({"big": B})["big"]
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert checked.dtype == np.float32 and np.shares_memory(checked, B) and peak < 0.4 * B.nbytes  # blocks only


@pytest.mark.parametrize(
    "variable, value, match",
    [
        (
            "AUDITAD_SHARDS_MEMORY_BYTES",
            "lots",
            "AUDITAD_SHARDS_MEMORY_BYTES must be a whole number of bytes, got 'lots'",
        ),
        ("AUDITAD_SHARDS_MEMORY_BYTES", "-5", "AUDITAD_SHARDS_MEMORY_BYTES must be a whole number of bytes, got '-5'"),
        ("AUDITAD_TMPDIR", "/no/such/folder", "AUDITAD_TMPDIR must name an existing folder, got '/no/such/folder'"),
    ],
)
def test_bad_shard_settings_in_the_environment_are_named_errors(tmp_path, monkeypatch, X32, variable, value, match):
    """A mistyped byte count or temporary folder is refused by name, never silently replaced or a traceback."""
    monkeypatch.setenv("AUDITAD_SHARDS_MEMORY_BYTES", "1000")  # (the temporary file: AUDITAD_TMPDIR is read)
    monkeypatch.setenv(variable, value)
    with pytest.raises(InvalidInputError, match=re.escape(match)):
        load_embeddings(_shards(tmp_path / "emb", X32, dtype=np.float16))
