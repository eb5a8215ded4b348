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

SUMMARY = {"schema_version": "1.0", "benchmark": "b", "leakage": {"L_k": 0.1, "k": 10},
           "gates": [{"rule": "leakage.L_k <= 0.5", "level": "fail"}]}


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
    (d / "badheader.npy").write_bytes(head[:10] + b"{'descr': '<f8', 'fortran_order': False, 'shape': (60, 4" +
                                      head[10 + 53:])
    (d / "badheader2.npy").write_bytes(head[:10] + b"{'descr': '<f8', 'fortran_order': False, 'shape': ((((((" +
                                       head[10 + 55:])
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
    big = dict(SUMMARY, leakage={"L_k": 0.1, "per_class": [{"class": i, "leakage": 0.5} for i in range(20000)],
                                 "confusion": [[0.0] * 300 for _ in range(300)]})
    (d / "huge.json").write_text(json.dumps(big))
    # configs
    (d / "bad.toml").write_text("version = 1\n[settings\n")
    (d / "unknown.toml").write_text('version = 1\nfoo = 1\n[[benchmarks]]\nname = "b"\nlabels = "y.npy"\n'
                                    'embeddings = { x = "X.npy" }\n')
    (d / "corrupt.toml").write_text('version = 1\n[[benchmarks]]\nname = "b"\nlabels = "y.npy"\n'
                                    'embeddings = { x = "badheader.npy" }\n')
    (d / "manifest_missing.toml").write_text("[[tasks]]\n")
    (d / "manifest_corrupt.toml").write_text(
        '[benchmark]\nname = "m"\n[[candidates]]\nname = "c"\nembedding = "vec"\n[[tasks]]\nname = "t"\n'
        'split = "development"\ntest_labels = "y.npy"\n[tasks.embeddings.vec]\nreference = "X.npy"\n'
        'test = "trunc.npz"\n')
    # an audit folder for appendix
    (d / "audit" / "b").mkdir(parents=True)
    (d / "audit" / "b" / "summary.json").write_text(json.dumps(SUMMARY))
    (d / "emptyaudit").mkdir()
    (d / "afile").write_text("keep")
    return d


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
    "leakage-corrupted-npy-header": (L + ["--embeddings", "{d}/badheader.npy", "--labels", "{d}/y.npy"],
                                     "badheader.npy"),
    "leakage-corrupted-npy-header-tokens": (L + ["--embeddings", "{d}/badheader2.npy", "--labels", "{d}/y.npy"],
                                            "badheader2.npy"),
    "leakage-pickled-npy": (L + ["--embeddings", "{d}/pickled.npy", "--labels", "{d}/y.npy"], "pickled"),
    "leakage-truncated-npy-data": (L + ["--embeddings", "{d}/truncdata.npy", "--labels", "{d}/y.npy"],
                                   "truncdata.npy"),
    "leakage-empty-file": (L + ["--embeddings", "{d}/empty.npy", "--labels", "{d}/y.npy"], "empty.npy"),
    "leakage-text-as-npy": (L + ["--embeddings", "{d}/notnpy.npy", "--labels", "{d}/y.npy"], "notnpy.npy"),
    "leakage-crc-damaged-npz": (L + ["--embeddings", "{d}/crc.npz", "--labels", "{d}/y.npy"], "crc.npz"),
    "leakage-npz-two-arrays": (L + ["--embeddings", "{d}/two.npz", "--labels", "{d}/y.npy"], "two.npz"),
    "leakage-npz-missing-key": (L + ["--embeddings", "{d}/good.npz", "--embeddings-key", "Z", "--labels",
                                     "{d}/y.npy"], "'Z'"),
    "leakage-1d-embeddings": (L + ["--embeddings", "{d}/X1d.npy", "--labels", "{d}/y.npy"], "2-D"),
    "leakage-nan-embeddings": (L + ["--embeddings", "{d}/Xnan.npy", "--labels", "{d}/y.npy"], "non-finite"),
    "leakage-labels-length": (L + ["--embeddings", "{d}/X.npy", "--labels", "{d}/y_short.npy"], "labels"),
    "leakage-one-class": (L + ["--embeddings", "{d}/X.npy", "--labels", "{d}/y_one.npy"], "2 classes"),
    "leakage-labels-not-utf8": (L + ["--embeddings", "{d}/X.npy", "--labels", "{d}/latin1.csv"], "latin1.csv"),
    "leakage-labels-text-one-row": (L + ["--embeddings", "{d}/X.npy", "--labels", "{d}/labels.txt"],
                                    "labels (1 rows)"),
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
    # ------------------------------------------------------------------ appendix
    "appendix-missing": (["appendix", "{d}/nope", "--out", "{o}/app"], "nope"),
    "appendix-no-benchmark": (["appendix", "{d}/emptyaudit", "--out", "{o}/app"], "emptyaudit"),
    "appendix-out-is-audit": (["appendix", "{d}/audit", "--out", "{d}/audit"], "--out"),
    "appendix-out-file": (["appendix", "{d}/audit", "--out", "{d}/afile"], "afile"),
    "appendix-out-missing-parent": (["appendix", "{d}/audit", "--out", "{o}/nope/app"], "nope"),
}


def _snapshot(*folders):
    return {str(f): sorted((str(p.relative_to(f)), p.stat().st_size if p.is_file() else -1)
                           for p in f.rglob("*")) for f in folders}


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
    assert commands == {"leakage", "protocol", "nulls", "landscape", "audit", "demo", "select", "gate", "appendix"}
    assert len(CASES) >= 60
