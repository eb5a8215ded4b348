"""Bad input to every command: exit code 2, one line naming the parameter or file, no traceback, no debris.

Each case runs ``auditad.cli.main`` in-process.  ``{d}`` is a folder of inputs (good and
damaged files), ``{o}`` an output folder's parent; after each case both hold exactly what
they held before (no partial output, no temporary file, no lock file).
"""

import json
import os
import time
import zipfile

import numpy as np
import pytest

from auditad.cli import main

SUMMARY = {
    "schema_version": "1.0",
    "benchmark": "b",
    "leakage": {"L_k": 0.1, "k": 10},
    "gates": [{"rule": "leakage.L_k <= 0.5", "level": "fail"}],
}


@pytest.fixture(scope="module")
def d(tmp_path_factory):
    d = tmp_path_factory.mktemp("inputs")
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(3 * i, 1, (20, 4)) for i in range(3)])
    y = np.repeat([0, 1, 2], 20)
    np.save(d / "X.npy", X)
    np.save(d / "y.npy", y)
    np.save(d / "y_short.npy", y[:-1])
    np.save(d / "y_one.npy", np.zeros(60, dtype=int))
    np.save(d / "X1d.npy", X[:, 0])
    Xn = X.copy()
    Xn[5, 2] = np.nan
    np.save(d / "Xnan.npy", Xn)
    np.save(d / "pickled.npy", np.array([{"a": 1}] * 60, dtype=object), allow_pickle=True)
    np.savez(d / "two.npz", a=X, b=X)
    np.savez_compressed(d / "good.npz", X=X)
    raw = (d / "good.npz").read_bytes()
    (d / "trunc.npz").write_bytes(raw[: len(raw) // 2])
    head = (d / "X.npy").read_bytes()
    (d / "badheader.npy").write_bytes(
        head[:10] + b"{'descr': '<f8', 'fortran_order': False, 'shape': (60, 4" + head[10 + 53 :]
    )
    (d / "badheader2.npy").write_bytes(
        head[:10] + b"{'descr': '<f8', 'fortran_order': False, 'shape': ((((((" + head[10 + 55 :]
    )
    (d / "truncdata.npy").write_bytes(head[: len(head) // 2])
    (d / "empty.npy").write_bytes(b"")
    (d / "notnpy.npy").write_text("hello, I am text\n")
    with zipfile.ZipFile(d / "crc.npz", "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("X.npy", head)
    crc = bytearray((d / "crc.npz").read_bytes())
    crc[60] ^= 0xFF  # damage the compressed data: CRC / inflate error at load time
    (d / "crc.npz").write_bytes(bytes(crc))
    (d / "labels.csv").write_text("label\n" + "\n".join(map(str, y)) + "\n")
    (d / "latin1.csv").write_bytes(("label\n" + "\n".join(["caf\xe9"] * 30 + ["th\xe9"] * 30) + "\n").encode("latin-1"))
    (d / "labels.txt").write_text("0\n1\n")
    (d / "split.csv").write_text("split\n" + "\n".join(["train"] * 60) + "\n")
    (d / "folder").mkdir()
    # summaries
    (d / "summary.json").write_text(json.dumps(SUMMARY))
    (d / "nogates.json").write_text(json.dumps({"schema_version": "1.0", "leakage": {"L_k": 0.1}}))
    (d / "v99.json").write_text(json.dumps(dict(SUMMARY, schema_version="99.0")))
    (d / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (d / "deepobj.json").write_text('{"schema_version": "1.0", "a": ' + "[" * 500 + "]" * 500 + "}")
    (d / "bigint.json").write_text('{"schema_version": "1.0", "leakage": {"L_k": ' + "9" * 400 + "}}")
    (d / "notjson.json").write_text("{not json")
    (d / "list.json").write_text("[1, 2]")
    (d / "latin1.json").write_bytes('{"benchmark": "caf\xe9"}'.encode("latin-1"))
    big = dict(
        SUMMARY,
        leakage={
            "L_k": 0.1,
            "per_class": [{"class": i, "leakage": 0.5} for i in range(20000)],
            "confusion": [[0.0] * 300 for _ in range(300)],
        },
    )
    (d / "huge.json").write_text(json.dumps(big))
    # configs
    (d / "bad.toml").write_text("version = 1\n[settings\n")
    (d / "unknown.toml").write_text(
        'version = 1\nfoo = 1\n[[benchmarks]]\nname = "b"\nlabels = "y.npy"\nembeddings = { x = "X.npy" }\n'
    )
    (d / "corrupt.toml").write_text(
        'version = 1\n[[benchmarks]]\nname = "b"\nlabels = "y.npy"\nembeddings = { x = "badheader.npy" }\n'
    )
    (d / "manifest_missing.toml").write_text("[[tasks]]\n")
    (d / "manifest_corrupt.toml").write_text(
        '[benchmark]\nname = "m"\n[[candidates]]\nname = "c"\nembedding = "vec"\n[[tasks]]\nname = "t"\n'
        'split = "development"\ntest_labels = "y.npy"\n[tasks.embeddings.vec]\nreference = "X.npy"\n'
        'test = "trunc.npz"\n'
    )
    # an audit folder for appendix
    (d / "audit" / "b").mkdir(parents=True)
    (d / "audit" / "b" / "summary.json").write_text(json.dumps(SUMMARY))
    (d / "emptyaudit").mkdir()
    (d / "afile").write_text("keep")
    _hostile_inputs(d, X, y)
    return d


def _hostile_inputs(d, X, y):
    """Inputs of issue #27: each broke the exit-code contract (exit 3, a hang, or a silent wrong number)."""
    import pandas as pd
    import scipy.io
    import scipy.sparse as sp

    # a PyOD detector table whose parameter PyOD itself refuses (ValueError in __init__)
    (d / "pyod_bad.toml").write_text(
        'version = 1\n[settings]\ndetectors = ["x"]\n[detectors.x]\n'
        'detector = "pyod:ECOD"\ncontamination = 5.0\n[[benchmarks]]\nname = "b"\n'
        'labels = "y.npy"\nembeddings = { x = "X.npy" }\n'
    )
    # 288 bytes declaring a (2**31 - 1) x 10 sparse matrix (160 GB once dense)
    bomb = sp.csc_matrix((np.ones(3), ([0, 5, 2**31 - 2], [0, 3, 9])), shape=(2**31 - 1, 10))
    scipy.io.savemat(d / "bomb.mat", {"X": bomb}, do_compression=False)
    # a data element whose type code is damaged (0x8009): scipy's reader indexes a table with it and crashes
    scipy.io.savemat(d / "badtype.mat", {"X": X}, do_compression=False)
    raw = (d / "badtype.mat").read_bytes()
    at = raw.index(b"\x09\x00\x00\x00" + (X.size * 8).to_bytes(4, "little"))
    (d / "badtype.mat").write_bytes(raw[:at] + b"\x09\x80" + raw[at + 2 :])
    # results tables that pandas would silently reinterpret
    (d / "wide_dup.csv").write_text("class,OC-SVM,OC-SVM,KDE\na,0.6,0.7,0.5\nb,0.4,0.3,0.6\nc,0.5,0.55,0.7\n")
    (d / "wide_empty.csv").write_text("class,,KDE\na,0.6,0.5\nb,0.4,0.6\nc,0.5,0.7\n")
    (d / "wide_bool.csv").write_text("class,OC-SVM,KDE\na,True,0.5\nb,False,0.6\nc,True,0.7\n")
    (d / "long_bool.csv").write_text("method,class,auroc\nm,a,True\nm,b,False\nm,c,True\n")
    # labels and embeddings
    pd.DataFrame({"label": [[int(v)] for v in y]}).to_parquet(d / "labels_lists.parquet")
    (d / "labels_none.csv").write_text("label\n" + "\n".join(["None"] * 20 + ["a"] * 40) + "\n")
    (d / "labels_1e300.csv").write_text("label\n" + "\n".join(["1e300"] * 20 + ["2e300"] * 20 + ["0"] * 20) + "\n")
    np.save(d / "X1e300.npy", X * 1e299)
    # an audit folder whose table is a FIFO (the appendix would block reading it)
    (d / "audit_fifo" / "b" / "tables").mkdir(parents=True)
    (d / "audit_fifo" / "b" / "summary.json").write_text(json.dumps(SUMMARY))
    os.mkfifo(d / "audit_fifo" / "b" / "tables" / "leakage.csv")
    # a summary larger than any audit writes: a sparse file (no disk blocks), refused before reading
    with open(d / "sparse_huge.json", "wb") as fh:
        fh.truncate(300 * 1024 * 1024)


@pytest.fixture
def o(tmp_path):
    out = tmp_path / "outparent"
    out.mkdir()
    (out / "notreport").mkdir()
    (out / "notreport" / "precious.txt").write_text("keep")
    os.mkfifo(out / "fifo")
    return out


L = ["leakage", "--backend", "exact", "--quiet"]
GOOD = ["--embeddings", "{d}/X.npy", "--labels", "{d}/y.npy"]
P = ["protocol", "--detector", "knn", "--leakage-k", "0", "--quiet"]
A = ["audit", "--quiet", "--out", "{o}/rep"]
CASES = {
    # ------------------------------------------------------------------ leakage
    "leakage-missing-embeddings": (L + ["--embeddings", "{d}/nope.npy", "--labels", "{d}/y.npy"], "nope.npy"),
    "leakage-embeddings-folder": (L + ["--embeddings", "{d}/folder", "--labels", "{d}/y.npy"], "directory"),
    "leakage-truncated-npz": (L + ["--embeddings", "{d}/trunc.npz", "--labels", "{d}/y.npy"], "trunc.npz"),
    "leakage-corrupted-npy-header": (
        L + ["--embeddings", "{d}/badheader.npy", "--labels", "{d}/y.npy"],
        "badheader.npy",
    ),
    "leakage-corrupted-npy-header-tokens": (
        L + ["--embeddings", "{d}/badheader2.npy", "--labels", "{d}/y.npy"],
        "badheader2.npy",
    ),
    "leakage-pickled-npy": (L + ["--embeddings", "{d}/pickled.npy", "--labels", "{d}/y.npy"], "pickled"),
    "leakage-truncated-npy-data": (L + ["--embeddings", "{d}/truncdata.npy", "--labels", "{d}/y.npy"], "truncdata.npy"),
    "leakage-empty-file": (L + ["--embeddings", "{d}/empty.npy", "--labels", "{d}/y.npy"], "empty.npy"),
    "leakage-text-as-npy": (L + ["--embeddings", "{d}/notnpy.npy", "--labels", "{d}/y.npy"], "notnpy.npy"),
    "leakage-crc-damaged-npz": (L + ["--embeddings", "{d}/crc.npz", "--labels", "{d}/y.npy"], "crc.npz"),
    "leakage-npz-two-arrays": (L + ["--embeddings", "{d}/two.npz", "--labels", "{d}/y.npy"], "two.npz"),
    "leakage-npz-missing-key": (
        L + ["--embeddings", "{d}/good.npz", "--embeddings-key", "Z", "--labels", "{d}/y.npy"],
        "'Z'",
    ),
    "leakage-1d-embeddings": (L + ["--embeddings", "{d}/X1d.npy", "--labels", "{d}/y.npy"], "2-D"),
    "leakage-nan-embeddings": (L + ["--embeddings", "{d}/Xnan.npy", "--labels", "{d}/y.npy"], "non-finite"),
    "leakage-labels-length": (L + ["--embeddings", "{d}/X.npy", "--labels", "{d}/y_short.npy"], "labels"),
    "leakage-one-class": (L + ["--embeddings", "{d}/X.npy", "--labels", "{d}/y_one.npy"], "2 classes"),
    "leakage-labels-not-utf8": (L + ["--embeddings", "{d}/X.npy", "--labels", "{d}/latin1.csv"], "latin1.csv"),
    "leakage-labels-text-one-row": (L + ["--embeddings", "{d}/X.npy", "--labels", "{d}/labels.txt"], "labels (1 rows)"),
    "leakage-labels-pickled": (L + ["--embeddings", "{d}/X.npy", "--labels", "{d}/pickled.npy"], "pickled"),
    "leakage-k-zero": (L + GOOD + ["--k", "0"], "k must be >= 1"),
    "leakage-k-too-large": (L + GOOD + ["--k", "60"], "k must be smaller"),
    "leakage-k-not-int": (L + GOOD + ["--k", "ten"], "--k"),
    "leakage-metric-choice": (L + GOOD + ["--metric", "manhattan"], "--metric"),
    "leakage-json-folder": (L + GOOD + ["--json", "{o}"], "--json"),
    "leakage-json-missing-folder": (L + GOOD + ["--json", "{o}/nope/r.json"], "--json"),
    "leakage-json-device": (L + GOOD + ["--json", "/dev/null"], "special file"),
    "leakage-json-fifo": (L + GOOD + ["--json", "{o}/fifo"], "special file"),
    # ------------------------------------------------------------------ protocol
    "protocol-detector-choice": (P + GOOD + ["--detector", "svm"], "--detector"),
    "protocol-epsilon": (P + GOOD + ["--epsilon", "0.7"], "epsilon"),
    "protocol-train-fraction": (P + GOOD + ["--train-fraction", "1.5"], "--train-fraction"),
    "protocol-repeats": (P + GOOD + ["--repeats", "0"], "repeats"),
    "protocol-leakage-k": (P + GOOD + ["--leakage-k", "-1"], "--leakage-k"),
    "protocol-same-name-twice": (P + GOOD + ["--embeddings", "{d}/X.npy"], "given twice"),
    "protocol-split-missing": (P + GOOD + ["--split", "{d}/nope.csv"], "nope.csv"),
    "protocol-k-too-large": (P + GOOD + ["--k", "500"], "--k"),
    "protocol-contamination": (P + GOOD + ["--contamination", "2"], "contamination"),
    "protocol-corrupted-npz": (P + ["--embeddings", "{d}/trunc.npz", "--labels", "{d}/y.npy"], "trunc.npz"),
    "protocol-json-device": (P + GOOD + ["--json", "/dev/null"], "--json"),
    # ------------------------------------------------------------------ nulls
    "nulls-negative-count": (["nulls", "--n-pos", "-1", "--n-neg", "10"], "--n-pos must be >= 1"),
    "nulls-missing-count": (["nulls", "--n-pos", "5"], "both --n-pos and --n-neg"),
    "nulls-ratio-out-of-range": (["nulls", "--ratio", "1.5", "--n", "100"], "ratio"),
    "nulls-observed-syntax": (["nulls", "--n-pos", "5", "--n-neg", "10", "--observed", "auroc"], "--observed"),
    "nulls-q": (["nulls", "--n-pos", "5", "--n-neg", "10", "--q", "maybe"], "--q"),
    "nulls-figure-format": (["nulls", "--n-pos", "5", "--n-neg", "10", "--figure", "{o}/f.xyz"], "--figure"),
    "nulls-runs": (["nulls", "--n-pos", "5", "--n-neg", "10", "--method", "monte_carlo", "--runs", "0"], "runs"),
    "nulls-metric-choice": (["nulls", "--n-pos", "5", "--n-neg", "10", "--metric", "accuracy"], "--metric"),
    "nulls-json-folder": (["nulls", "--n-pos", "5", "--n-neg", "10", "--json", "{o}"], "--json"),
    # ------------------------------------------------------------------ landscape
    "landscape-ratio-range": (["landscape", "--ratio", "2", "--out", "{o}/land"], "ratio"),
    "landscape-ratio-preset": (["landscape", "--ratio", "Atlantis", "--out", "{o}/land"], "Atlantis"),
    "landscape-resolution": (["landscape", "--resolution", "1", "--out", "{o}/land"], "resolution"),
    "landscape-out-file": (["landscape", "--out", "{d}/afile"], "--out"),
    "landscape-out-missing-parent": (["landscape", "--out", "{o}/nope/land"], "--out"),
    "landscape-reference": (["landscape", "--reference", "0", "--out", "{o}/land"], "reference"),
    "landscape-metric-choice": (["landscape", "--metric", "accuracy", "--out", "{o}/land"], "--metric"),
    # ------------------------------------------------------------------ audit
    "audit-config-missing": (A + ["{d}/nope.toml"], "nope.toml"),
    "audit-config-not-toml": (A + ["{d}/bad.toml"], "bad.toml"),
    "audit-config-unknown-key": (A + ["{d}/unknown.toml"], "foo"),
    "audit-config-corrupted-input": (A + ["{d}/corrupt.toml"], "badheader.npy"),
    "audit-config-and-flags": (A + ["{d}/unknown.toml", "--labels", "{d}/y.npy"], "--labels"),
    "audit-embeddings-without-labels": (A + ["--embeddings", "{d}/X.npy"], "--labels"),
    "audit-corrupted-npy": (A + ["--embeddings", "{d}/badheader.npy", "--labels", "{d}/y.npy"], "badheader.npy"),
    "audit-truncated-npz": (A + ["--embeddings", "{d}/trunc.npz", "--labels", "{d}/y.npy"], "trunc.npz"),
    "audit-pickled-labels": (A + ["--embeddings", "{d}/X.npy", "--labels", "{d}/pickled.npy"], "pickled"),
    "audit-gate-syntax": (A + GOOD + ["--gate", "leakage.L_k <<= 0.5"], "--gate"),
    "audit-gate-too-long": (A + GOOD + ["--gate", "leakage.L_k " + " " * 30_000 + "<= 0.5"], "at most 1000"),
    "audit-gate-unknown-metric": (A + GOOD + ["--gate", "leakage.L_kk <= 0.5"], "leakage.L_kk"),
    "audit-out-not-a-report": (["audit", "--quiet", "--out", "{o}/notreport"] + GOOD, "notreport"),
    "audit-out-is-input-folder": (["audit", "--quiet", "--out", "{d}"] + GOOD, "--out"),
    "audit-out-is-file": (["audit", "--quiet", "--out", "{d}/afile"] + GOOD, "afile"),
    "audit-junit-missing-folder": (A + GOOD + ["--junit", "{o}/nope/j.xml"], "--junit"),
    "audit-seed": (A + GOOD + ["--seed", "-3"], "seed"),
    "audit-fail-on-choice": (A + GOOD + ["--fail-on", "sometimes"], "--fail-on"),
    # ------------------------------------------------------------------ demo
    "demo-seed": (["demo", "--quiet", "--out", "{o}/demo", "--seed", "-1"], "--seed"),
    "demo-out-file": (["demo", "--quiet", "--out", "{d}/afile"], "afile"),
    "demo-gate": (["demo", "--quiet", "--out", "{o}/demo", "--gate", "nonsense"], "--gate"),
    "demo-out-missing-parent": (["demo", "--quiet", "--out", "{o}/nope/demo"], "nope"),
    # ------------------------------------------------------------------ select
    "select-nothing": (["select", "--quiet"], "MANIFEST"),
    "select-both": (["select", "--quiet", "{d}/manifest_missing.toml", "--example", "digits"], "MANIFEST"),
    "select-manifest-missing": (["select", "--quiet", "{d}/nope.toml"], "nope.toml"),
    "select-manifest-invalid": (["select", "--quiet", "{d}/bad.toml"], "bad.toml"),
    "select-manifest-corrupted-npz": (["select", "--quiet", "{d}/manifest_corrupt.toml"], "trunc.npz"),
    "select-lam": (["select", "--quiet", "--example", "synthetic", "--lam", "abc"], "--lam"),
    "select-figure-format": (["select", "--quiet", "--example", "synthetic", "--figure", "{o}/f.xyz"], "--figure"),
    "select-pool-by-choice": (["select", "--quiet", "--example", "synthetic", "--pool-by", "x"], "--pool-by"),
    # ------------------------------------------------------------------ gate
    "gate-missing-summary": (["gate", "{d}/nope.json"], "nope.json"),
    "gate-not-json": (["gate", "{d}/notjson.json"], "notjson.json"),
    "gate-nested-100000": (["gate", "{d}/deep.json"], "deep.json"),
    "gate-nested-500-in-object": (["gate", "{d}/deepobj.json"], "deepobj.json"),
    "gate-400-digit-integer": (["gate", "{d}/bigint.json"], "bigint.json"),
    "gate-schema-99": (["gate", "{d}/v99.json"], "schema_version"),
    "gate-not-an-object": (["gate", "{d}/list.json"], "list.json"),
    "gate-not-utf8": (["gate", "{d}/latin1.json"], "latin1.json"),
    "gate-no-gates": (["gate", "{d}/nogates.json"], "--gate"),
    "gate-rule-30000": (["gate", "{d}/summary.json", "--gate", "a" * 30_000 + " <= 1"], "--gate"),
    "gate-rule-backtracking": (["gate", "{d}/summary.json", "--gate", "x" + " " * 30_000], "--gate"),
    "gate-unknown-metric-huge": (["gate", "{d}/huge.json", "--gate", "leakage.L_kk <= 1"], "leakage.L_kk"),
    "gate-junit-folder": (["gate", "{d}/summary.json", "--junit", "{o}"], "--junit"),
    "gate-fail-on-choice": (["gate", "{d}/summary.json", "--fail-on", "x"], "--fail-on"),
    "gate-summary-folder": (["gate", "{d}/folder"], "folder"),
    # ------------------------------------------------------------------ issue #27: hostile and malformed input
    "audit-pyod-parameter-refused-by-pyod": (A + ["{d}/pyod_bad.toml"], "contamination = 5.0"),
    "audit-config-fifo": (A + ["{o}/fifo"], "not a regular file"),
    "audit-config-dev-zero": (A + ["/dev/zero"], "not a regular file"),
    "gate-summary-fifo": (["gate", "{o}/fifo"], "not a regular file"),
    "gate-summary-dev-zero": (["gate", "/dev/zero"], "not a regular file"),
    "gate-summary-300-mb": (["gate", "{d}/sparse_huge.json"], "bytes accepted"),
    "diff-fifo": (["diff", "{o}/fifo", "{d}/summary.json"], "not a regular file"),
    "diff-dev-zero": (["diff", "{d}/summary.json", "/dev/zero"], "/dev/zero"),
    "select-manifest-fifo": (["select", "--quiet", "{o}/fifo"], "fifo"),
    "leakage-mat-declares-160-gb": (
        L + ["--embeddings", "{d}/bomb.mat", "--labels", "{d}/y.npy"],
        "declares variable 'X' of shape (2147483647, 10)",
    ),
    "leakage-mat-damaged-type-code": (
        L + ["--embeddings", "{d}/badtype.mat", "--labels", "{d}/y.npy"],
        "unknown data type",
    ),
    "leakage-labels-parquet-lists": (
        L + ["--embeddings", "{d}/X.npy", "--labels", "{d}/labels_lists.parquet"],
        "integers or strings",
    ),
    "leakage-labels-reading-none": (
        L + ["--embeddings", "{d}/X.npy", "--labels", "{d}/labels_none.csv"],
        "the cells read ['None']",
    ),
    "leakage-labels-1e300": (L + ["--embeddings", "{d}/X.npy", "--labels", "{d}/labels_1e300.csv"], "2**53"),
    "results-two-columns-one-name": (["results", "{d}/wide_dup.csv"], "two columns named 'OC-SVM'"),
    "results-empty-header": (["results", "{d}/wide_empty.csv"], "column 2 has an empty header"),
    "results-boolean-auroc-wide": (["results", "{d}/wide_bool.csv"], "boolean True"),
    "results-boolean-auroc-long": (["results", "{d}/long_bool.csv"], "boolean True"),
    "appendix-fifo-table": (["appendix", "{d}/audit_fifo", "--out", "{o}/app"], "not a regular file"),
    "nulls-exact-at-a-million": (
        ["nulls", "--n-pos", "1000000", "--n-neg", "1000000", "--method", "exact"],
        "--method 'exact'",
    ),
    # ------------------------------------------------------------------ appendix
    "appendix-missing": (["appendix", "{d}/nope", "--out", "{o}/app"], "nope"),
    "appendix-no-benchmark": (["appendix", "{d}/emptyaudit", "--out", "{o}/app"], "emptyaudit"),
    "appendix-out-is-audit": (["appendix", "{d}/audit", "--out", "{d}/audit"], "--out"),
    "appendix-out-file": (["appendix", "{d}/audit", "--out", "{d}/afile"], "afile"),
    "appendix-out-missing-parent": (["appendix", "{d}/audit", "--out", "{o}/nope/app"], "nope"),
}


def _snapshot(*folders):
    return {
        str(f): sorted((str(p.relative_to(f)), p.stat().st_size if p.is_file() else -1) for p in f.rglob("*"))
        for f in folders
    }


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_exits_2_with_a_named_one_line_error(name, d, o, capsys):
    args, expected = CASES[name]
    argv = [a.format(d=d, o=o) for a in args]
    before = _snapshot(d, o, o.parent)
    t0 = time.perf_counter()
    code = main(argv)
    elapsed = time.perf_counter() - t0
    out, err = capsys.readouterr()
    assert code == 2, f"{name}: exit {code}\n{err}"
    last = err.strip().splitlines()[-1]
    assert last.startswith("auditad: error:"), err
    assert expected in last, f"{name}: {expected!r} not in {last!r}"
    assert "Traceback" not in err + out and "Warning:" not in err
    assert len(last) < 2000 and "\x1b" not in err
    assert _snapshot(d, o, o.parent) == before, f"{name} left files behind"
    assert elapsed < 30, f"{name} took {elapsed:.1f} s"


def test_the_table_covers_every_command():
    commands = {args[0] for args, _ in CASES.values()}
    assert commands == {
        "leakage",
        "protocol",
        "nulls",
        "landscape",
        "audit",
        "demo",
        "select",
        "gate",
        "appendix",
        "diff",
        "results",
    }
    assert len(CASES) >= 60


# --------------------------------------------------------------------------- issue #27: beyond the table
def _run(argv, capsys):
    t0 = time.perf_counter()
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err, time.perf_counter() - t0


def test_diff_of_representations_whose_names_contain_a_dot(tmp_path, capsys):
    """``X`` and ``X.v2`` side by side: the change tree keeps the keys (was exit 3, TypeError in diff.py)."""

    def summary(lk_x, lk_v2):
        reps = {"X": {"L_k": lk_x, "k": 10}, "X.v2": {"L_k": lk_v2, "k": 10}}
        return {
            "schema_version": "1.0",
            "benchmark": "b",
            "leakage": {"L_k": max(lk_x, lk_v2), "representations": reps},
        }

    (tmp_path / "base.json").write_text(json.dumps(summary(0.10, 0.20)))
    (tmp_path / "new.json").write_text(json.dumps(summary(0.10, 0.50)))
    code, out, err, _ = _run(
        [
            "diff",
            tmp_path / "base.json",
            tmp_path / "new.json",
            "--all",
            "--gate",
            "delta leakage.representations.X.L_k <= 0",
            "--gate",
            "delta leakage.representations.X.v2.L_k <= 0.1",
        ],
        capsys,
    )
    assert code == 1, err  # X unchanged (passes), X.v2 grew by 0.3 (fails): both paths resolved
    assert "Traceback" not in err and "internal error" not in err
    assert "leakage.representations.X.v2.L_k" in out and "+0.3" in out
    assert "delta.leakage.representations.X.L_k = 0.000" in out
    from auditad.diff import diff_summaries

    tree = diff_summaries(summary(0.1, 0.2), summary(0.1, 0.5)).delta_tree
    assert tree["leakage"]["representations"]["X.v2"]["L_k"] == pytest.approx(0.3)
    assert tree["leakage"]["representations"]["X"]["L_k"] == 0


def test_a_million_per_class_falls_back_to_the_normal_approximation(tmp_path, capsys):
    """n+ = n- = 10**6: the exact Mann-Whitney table would need 3.5 EiB (was exit 3, MemoryError)."""
    from auditad.errors import InvalidInputError
    from auditad.nulls import mann_whitney_pmf, null_distribution

    r = null_distribution(10**6, 10**6, metrics=["auroc"], observed={"auroc": 0.501})
    assert r["auroc"].method == "analytic" and 0 < r["auroc"].p_value < 1
    with pytest.raises(InvalidInputError, match=r"n_pos=1000000, n_neg=1000000 needs"):
        mann_whitney_pmf(10**6, 10**6)
    table = tmp_path / "big.csv"
    table.write_text(
        "method,class,auroc,n_pos,n_neg\nm,a,0.6,1000000,1000000\nm,b,0.4,1000000,1000000\nm,c,0.5,1000000,1000000\n"
    )
    code, out, err, elapsed = _run(["results", table, "--json", tmp_path / "r.json"], capsys)
    assert code == 0 and "Traceback" not in err and elapsed < 30, err
    per_class = json.loads((tmp_path / "r.json").read_text())["per_class"]
    assert {row["null_method"] for row in per_class} == {"analytic"}  # named in the result
    code, out, err, elapsed = _run(["nulls", "--n-pos", "1000000", "--n-neg", "1000000", "--metric", "auroc"], capsys)
    assert code == 0 and "analytic" in out and elapsed < 30, err


def test_scheduler_address_that_is_not_dask(d, o, capsys):
    """An HTTP server says nothing, a garbage server declares an absurd message: exit 2 naming the address and
    what it answered, within the documented 10 s (was: a hang, and exit 3 'Maximum allowed dimension exceeded')."""
    import http.server
    import socket
    import threading

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    garbage = socket.socket()
    garbage.bind(("127.0.0.1", 0))
    garbage.listen(4)

    def feed():
        while True:
            try:
                conn, _ = garbage.accept()
            except OSError:
                return
            try:
                conn.sendall(b"\xff" * 4096 + b"not dask")
                time.sleep(2)
            except OSError:
                pass
            finally:
                conn.close()

    threading.Thread(target=feed, daemon=True).start()
    try:
        for port, said in (
            (garbage.getsockname()[1], "answered b'\\xff\\xff"),
            (httpd.server_address[1], "sent nothing within 10 s"),
        ):
            address = f"tcp://127.0.0.1:{port}"
            before = _snapshot(d, o, o.parent)
            code, out, err, elapsed = _run(
                [
                    "audit",
                    "--quiet",
                    "--out",
                    o / "rep",
                    "--embeddings",
                    d / "X.npy",
                    "--labels",
                    d / "y.npy",
                    "--scheduler",
                    address,
                ],
                capsys,
            )
            last = err.strip().splitlines()[-1]
            assert code == 2, err
            assert last.startswith("auditad: error: --scheduler") and address in last and said in last, last
            assert "is not a Dask scheduler" in last and "Traceback" not in err
            assert elapsed < 20, f"{address}: {elapsed:.1f} s"
            assert _snapshot(d, o, o.parent) == before
    finally:
        httpd.shutdown()
        httpd.server_close()
        garbage.close()


SPREADSHEET = ("=cmd|' /C calc'!A0", "@SUM(1+1)", "+1+1", "-2+3*cmd", "\tTAB")


def _formula_cells(folder):
    """Every CSV cell under ``folder`` that a spreadsheet would run as a formula (a plain number is not one)."""
    import csv
    import re

    number = re.compile(r"^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$")
    bad = []
    for path in sorted(folder.rglob("*.csv")):
        with open(path, newline="", encoding="utf-8") as fh:
            for row in csv.reader(fh):
                bad += [
                    (path.name, c)
                    for c in row
                    if c[:1] in ("=", "+", "-", "@", "\t", "\r") and len(c) > 1 and not number.match(c)
                ]
    return bad


def test_csv_tables_are_spreadsheet_safe(tmp_path, capsys):
    """Method and class names like ``=cmd|' /C calc'!A0`` reached the CSV tables unchanged (formula injection)."""
    import pandas as pd

    from auditad.report.tables import csv_escape, frame_to_csv

    assert csv_escape(SPREADSHEET[0]) == "'" + SPREADSHEET[0] and csv_escape("-0.25") == "-0.25"
    text = frame_to_csv(pd.DataFrame({"method": [SPREADSHEET[0], "LOF"], "auroc": [-0.25, 0.5]}))
    assert text.splitlines() == ["method,auroc", "'=cmd|' /C calc'!A0,-0.25", "LOF,0.5"]  # -0.25 stays a number
    # results tables: method and class names from a published table
    table = tmp_path / "t.csv"
    pd.DataFrame(
        [
            {"method": m, "class": c, "auroc": a}
            for m in SPREADSHEET[:2]
            for c, a in zip(SPREADSHEET[2:] + ("ok",), (0.61, 0.42, 0.55, 0.7))
        ]
    ).to_csv(table, index=False)
    code, _, err, _ = _run(["results", table, "--out", tmp_path / "res", "--quiet"], capsys)
    assert code in (0, 1), err
    assert list((tmp_path / "res").rglob("*.csv")) and _formula_cells(tmp_path / "res") == []
    assert "'=cmd|' /C calc'!A0" in (tmp_path / "res" / "tables" / "groups.csv").read_text()
    # an audit: class names reach tables/ and data/ (the pipeline's own CSV writer)
    rng = np.random.default_rng(0)
    np.save(tmp_path / "X.npy", np.vstack([rng.normal(3 * i, 1, (12, 3)) for i in range(3)]))
    (tmp_path / "y.csv").write_text("label\n" + "\n".join(c for c in SPREADSHEET[:3] for _ in range(12)) + "\n")
    (tmp_path / "a.toml").write_text(
        'version = 1\n[settings]\nleakage_k = [3]\ndetectors = ["knn"]\nnull_metrics = ["auroc"]\n'
        'null_runs = 50\nlandscape_metrics = ["auroc"]\nlandscape_resolution = 11\n'
        '[[benchmarks]]\nname = "b"\nlabels = "y.csv"\nembeddings = { x = "X.npy" }\n'
    )
    code, _, err, _ = _run(["audit", tmp_path / "a.toml", "--out", tmp_path / "rep", "--quiet"], capsys)
    assert code in (0, 1), err
    assert len(list((tmp_path / "rep").rglob("*.csv"))) > 3 and _formula_cells(tmp_path / "rep") == []
    assert any("'=cmd|" in p.read_text() for p in (tmp_path / "rep").rglob("*.csv"))


def test_labels_and_scores_of_the_api_are_named_errors_or_defined_values(tmp_path):
    """{0, 2}, empty and bytes labels: named errors; all-tied scores: AUROC ½ and p = 1 (was ZeroDivisionError)."""
    from auditad.errors import InvalidInputError
    from auditad.metrics import auroc, auroc_ci
    from auditad.nulls import auroc_null

    s = np.array([0.1, 0.9, 0.2, 0.8])
    with pytest.raises(InvalidInputError, match=r"labels \[0, 2\]: give pos_label"):
        auroc(np.array([0, 2, 0, 2]), s)
    assert auroc(np.array([0, 2, 0, 2]), s, pos_label=2) == 1.0
    with pytest.raises(InvalidInputError, match="y_true is empty"):
        auroc(np.array([]), np.array([]))
    with pytest.raises(InvalidInputError, match="y_true is empty"):
        auroc_ci([], [])
    for y in (np.array([b"0", b"1", b"0", b"1"]), np.array([b"a", b"b", b"a", b"b"], dtype=object)):
        with pytest.raises(InvalidInputError, match="holds bytes"):
            auroc(y, s)
    for y in ([1, 1, 1, 0, 0, 0], [1] + [0] * 30):  # a detector that gives every sample the same score
        r = auroc_null(y, np.ones(len(y)))["auroc"]
        assert r.observed == 0.5 and r.p_value == 1.0
    from auditad.datasets import load_labels

    with pytest.raises(InvalidInputError, match="1e\\+300 at index 0"):
        load_labels(_labels_file(tmp_path, 1e300))


def _labels_file(folder, value):
    np.save(folder / "y_huge.npy", np.array([value, 0.0, 1.0]))
    return folder / "y_huge.npy"
