"""Scale-out and interop of the audit: Dask schedulers (same bytes as serial), PyOD detectors by name in the
config and on the command line, anomaly-labelled benchmarks end to end.

The expected values are independent of the code under test: the serial run's files (for the Dask run),
scikit-learn's / PyOD's own scores and a hand-computed AUROC per task (for the PyOD detectors), and the
true anomaly share of the data written by the test (for anomaly-labelled benchmarks).
"""

from __future__ import annotations

import filecmp
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.metrics import roc_auc_score

from auditad.execution import ExecutionError, open_executor
from auditad.cli import main
from auditad.errors import InvalidInputError


def _digits(n_per_class=30, classes=4, dim=8):
    X, y = load_digits(return_X_y=True)
    keep = np.concatenate([np.flatnonzero(y == c)[:n_per_class] for c in range(classes)])
    X, y = X[keep], y[keep]
    Xc = X - X.mean(0)
    pca = Xc @ np.linalg.svd(Xc, full_matrices=False)[2][:dim].T  # floats: no distance ties
    return X, pca, y


def _tree(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _write_config(folder: Path, *, execution: str | None = None, extra: str = "") -> Path:
    X, pca, y = _digits()
    data = folder / "data"
    data.mkdir()
    np.save(data / "pixels.npy", X)
    np.save(data / "pca.npy", pca)
    np.save(data / "labels.npy", y)
    np.save(data / "labels_b.npy", y[::-1].copy())
    np.save(data / "pca_b.npy", pca[::-1].copy())
    text = (
        "version = 1\n" + extra + "\n[settings]\nseed = 3\nnull_runs = 100\nlandscape_resolution = 11\n"
        'selection_n_boot = 0\nrepeats = 2\nnull_metrics = ["auroc", "f1"]\nlandscape_metrics = ["auroc", "f1"]\ndetectors = ["knn", "iforest", "lof"]\n'
        "detector_params = { iforest = { n_estimators = 10 }, lof = { n_neighbors = 5 } }\n"
        + (f'\n[execution]\nscheduler = "{execution}"\n' if execution else "")
        + '\n[[benchmarks]]\nname = "a"\nlabels = "data/labels.npy"\n'
        'embeddings = { pixels = "data/pixels.npy", pca = "data/pca.npy" }\n'
        '\n[[benchmarks]]\nname = "b"\nlabels = "data/labels_b.npy"\nembeddings = "data/pca_b.npy"\n'
    )
    cfg = folder / "audit.toml"
    cfg.write_text(text, encoding="utf-8")
    return cfg


# --------------------------------------------------------------------------- Dask: same bytes as serial
def test_dask_local_cluster_writes_the_same_bytes_as_serial(tmp_path, capsys):
    # two benchmarks x two representations x two repeats; knn/lof on the shared neighbour pass,
    # iforest per task; the config's [execution] runs a LocalCluster with 2 worker processes
    cfg = _write_config(tmp_path, execution="local:2")
    assert main(["audit", str(cfg), "--out", str(tmp_path / "dask"), "--quiet"]) == 0
    assert main(["audit", str(cfg), "--out", str(tmp_path / "serial"), "--quiet", "--scheduler", "serial"]) == 0
    dask, serial = _tree(tmp_path / "dask"), _tree(tmp_path / "serial")
    assert len(serial) > 30 and set(dask) == set(serial)
    assert [f for f in serial if dask[f] != serial[f]] == []
    summary = json.loads(serial["a/summary.json"])
    assert "scheduler" not in json.dumps(summary["settings"])  # where the work ran is not a setting
    assert summary["protocol"]["representation_names"] == ["pixels", "pca"]


@pytest.mark.parametrize("value", ["local:0", "local:two", "dask", "tcp://", "tcp://host:99999", "http://h:8786"])
def test_malformed_scheduler_exits_2_and_writes_nothing(tmp_path, capsys, value):
    cfg = _write_config(tmp_path)
    out = tmp_path / "out"
    assert main(["audit", str(cfg), "--out", str(out), "--scheduler", value]) == 2
    err = capsys.readouterr().err
    assert "--scheduler" in err and repr(value) in err
    assert not out.exists()


def test_malformed_execution_table_is_a_config_error(tmp_path):
    from auditad.audit.config import load_config

    cfg = _write_config(tmp_path, execution="local:-1")
    with pytest.raises(InvalidInputError, match=r"audit.toml: execution\.scheduler= must be .*'local:-1'"):
        load_config(cfg)
    cfg.write_text(cfg.read_text().replace('scheduler = "local:-1"', "workers = 2"))
    with pytest.raises(InvalidInputError, match=r"unknown key execution\.'workers'"):
        load_config(cfg)
    cfg.write_text(cfg.read_text().replace("workers = 2", 'scheduler = "tcp://10.1.2.3:8786"'))
    assert load_config(cfg).scheduler == "tcp://10.1.2.3:8786"


def test_unreachable_scheduler_exits_2_naming_it_and_writes_nothing(tmp_path, capsys):
    cfg = _write_config(tmp_path)
    out = tmp_path / "out"
    address = "tcp://127.0.0.1:9"  # discard port: nothing listens
    assert main(["audit", str(cfg), "--out", str(out), "--scheduler", address]) == 2
    err = capsys.readouterr().err
    assert f"--scheduler '{address}' could not be reached" in err
    assert not out.exists() and not list(tmp_path.glob(".out*"))


class _KillWorker:
    """A detector whose fit kills the process it runs in (a worker dying mid-run)."""

    def fit(self, X):
        os._exit(13)

    def score_samples(self, X):  # pragma: no cover - never reached
        return np.zeros(len(X))


@pytest.fixture(scope="module")
def cluster():
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import the tests folder
    with open_executor("local:2", allowed_failures=0) as ex:
        yield ex


def test_protocol_on_the_cluster_equals_serial_with_pyod_and_warnings(cluster):
    from auditad.protocol import audit_protocol

    _, pca, y = _digits(n_per_class=30, classes=6)
    y = y.copy()
    y[:30] = 0  # class 0 stays; a tiny class 5 with 2 samples gives a skipped-class warning
    keep = np.concatenate([np.arange(170), np.flatnonzero(y == 5)[:2]])
    kw = dict(
        detectors=["knn", "lof", "iforest", "pyod:COPOD"], repeats=2, random_state=7, leakage_k=5, protocol="one_class"
    )
    with pytest.warns(Warning) as w_serial:
        serial = audit_protocol(pca[keep], y[keep], **kw)
    with pytest.warns(Warning) as w_dask:
        dask = audit_protocol(pca[keep], y[keep], executor=cluster, **kw)
    np.testing.assert_array_equal(serial.auroc, dask.auroc)
    np.testing.assert_array_equal(serial.ci_low, dask.ci_low)
    assert serial.to_dict() == dask.to_dict() or json.dumps(serial.to_dict(), default=str) == json.dumps(
        dask.to_dict(), default=str
    )
    assert [str(x.message) for x in w_serial] == [str(x.message) for x in w_dask]


def test_worker_dying_mid_run_is_a_named_error_and_keeps_the_old_report(tmp_path, cluster):
    from auditad.protocol import Detector
    from auditad.audit.runner import run_audit
    from auditad.audit.config import load_config
    from auditad.audit.loader import load_inputs

    cfg = _write_config(tmp_path)
    config = load_config(cfg)
    inputs = [load_inputs(b, config) for b in config.benchmarks]
    out = tmp_path / "out"
    run_audit(inputs[1:], out, scheduler=cluster)
    before = _tree(out)
    killer = Detector(_KillWorker(), higher_is_anomalous=True, name="killer")
    bad = inputs[0].__class__(
        **{**inputs[0].__dict__, "settings": {**inputs[0].settings, "detectors": ["knn", killer]}}
    )
    with pytest.raises(ExecutionError, match=r"'local:2'.*_protocol_unit|_protocol_unit.*'local:2'"):
        run_audit([bad], out, scheduler=cluster)
    assert _tree(out) == before  # the earlier report, byte for byte; no partial folder next to it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["audit.toml", "data", "out"]


def test_lost_connection_while_sharing_is_a_named_error(cluster, monkeypatch):
    from distributed.comm.core import CommClosedError

    def closed(*args, **kwargs):
        raise CommClosedError("in <TCP (closed) ConnectionPool.scatter>: Stream is closed")

    monkeypatch.setattr(cluster.client, "scatter", closed)
    with pytest.raises(
        ExecutionError,
        match=r"^the Dask cluster 'local:2' failed while sharing data with the "
        r"workers: CommClosedError: .*Stream is closed",
    ):
        cluster.share(np.zeros(3))
    with pytest.raises(
        ExecutionError,
        match=r"'local:2' failed while sharing data with the workers: "
        r"CommClosedError: .*\(while starting abs\)",
    ):
        cluster.submit_ordered(abs, [1, 2], offset=np.zeros(3))


def test_stream_closed_by_a_dying_worker_during_the_neighbour_pass_names_the_fit(tmp_path, cluster, monkeypatch):
    # the race seen on a loaded machine: the fit kills its worker while the client is sending the pass's rows,
    # and the scatter fails with a closed stream before the scheduler has marked the fit failed
    from distributed.comm.core import CommClosedError

    from auditad.protocol import Detector
    from auditad.audit.runner import run_audit
    from auditad.audit.config import load_config
    from auditad.audit.loader import load_inputs

    cfg = _write_config(tmp_path)
    config = load_config(cfg)
    inp = load_inputs(config.benchmarks[1], config)
    killer = Detector(_KillWorker(), higher_is_anomalous=True, name="killer")
    bad = inp.__class__(**{**inp.__dict__, "settings": {**inp.settings, "detectors": ["knn", killer]}})
    scatter, submit_ordered, started = cluster.client.scatter, cluster.submit_ordered, []

    def submit_and_note(fn, items, **kwargs):
        batch = submit_ordered(fn, items, **kwargs)
        started.append(fn.__name__)  # after its own data was sent: the fits run
        return batch

    def closed_for_rows(data, *args, **kwargs):
        pieces = data if isinstance(data, list) else [data]  # the executor scatters [obj] (one piece)
        if "_protocol_unit" in started and any(isinstance(p, np.ndarray) for p in pieces):  # the pass's rows
            raise CommClosedError("in <TCP (closed) ConnectionPool.scatter>: Stream is closed")
        return scatter(data, *args, **kwargs)

    monkeypatch.setattr(cluster, "submit_ordered", submit_and_note)
    monkeypatch.setattr(cluster.client, "scatter", closed_for_rows)
    with pytest.raises(ExecutionError, match=r"\(_protocol_unit\) failed on 'local:2': KilledWorker") as info:
        run_audit([bad], tmp_path / "out", scheduler=cluster)
    assert "sharing data with the workers: CommClosedError" in str(info.value.__cause__)
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------- PyOD detectors by name
def test_pyod_detectors_from_a_config_table_and_by_name(tmp_path):
    from pyod.models.ecod import ECOD
    from pyod.models.knn import KNN

    extra = '\n[detectors.pyod_knn]\ndetector = "pyod:KNN"\nn_neighbors = 5\n'
    cfg = _write_config(tmp_path, extra=extra)
    text = cfg.read_text().replace(
        'detectors = ["knn", "iforest", "lof"]', 'detectors = ["knn", "pyod:ECOD", "pyod_knn"]'
    )
    cfg.write_text(text)
    out = tmp_path / "out"
    assert main(["audit", str(cfg), "--out", str(out), "--quiet"]) == 0
    s = json.loads((out / "a" / "summary.json").read_text())
    dets = {d["name"]: d for d in s["protocol"]["detectors"]}
    assert list(dets) == ["knn", "pyod_ecod", "pyod_knn"]
    assert (
        dets["pyod_ecod"]["rule"]
        == dets["pyod_knn"]["rule"]
        == "PyOD detector: decision_function, higher = more anomalous"
    )
    assert dets["pyod_knn"]["method"] == "decision_function" and dets["pyod_knn"]["score_sign"] == 1
    assert dets["knn"]["rule"].startswith("built-in")
    assert s["settings"]["detector_params"]["pyod_knn"] == {"detector": "pyod:KNN", "n_neighbors": 5}
    per = s["protocol"]["representations"]["pca"]
    from auditad.audit.config import load_config
    from auditad.audit.loader import load_inputs
    from auditad.audit.sections import run_protocol
    from auditad.report.sections import Context

    inp = load_inputs(load_config(cfg).benchmarks[0], load_config(cfg))
    res = run_protocol(Context(inp))
    # oracle: fit PyOD by hand on each task's train normals, AUROC by scikit-learn
    from auditad.protocol.runner import stratified_assignment

    X = inp.benchmark.representations["pca"]
    yv = inp.benchmark.y
    classes, y_idx = np.unique(yv, return_inverse=True)
    seeds = np.random.default_rng(3).integers(0, 2**63 - 1, size=2, dtype=np.int64)
    for s_i in range(2):
        is_train = stratified_assignment(y_idx, classes.size, 0.8, np.random.default_rng(int(seeds[s_i])))
        for c in range(classes.size):
            train = (y_idx != c) & is_train
            test = ~train
            lab = (y_idx[test] == c).astype(int)
            for det_name, model in (("pyod_knn", KNN(n_neighbors=5)), ("pyod_ecod", ECOD())):
                expected = roc_auc_score(lab, model.fit(X[train]).decision_function(X[test]))
                got = res.auroc[res.representation_names.index("pca"), res.detector_names.index(det_name), c, s_i]
                assert got == pytest.approx(expected, abs=1e-12), (det_name, c, s_i)
    # PyOD's KNN(n_neighbors=5, method="largest") is the built-in knn (k = 5): the same AUROC(c)
    np.testing.assert_allclose(
        res.auroc[:, res.detector_names.index("pyod_knn")],
        res.auroc[:, res.detector_names.index("knn")],
        rtol=0,
        atol=1e-12,
    )
    assert per["detectors"]["pyod_knn"]["mean_auc"] == pytest.approx(per["detectors"]["knn"]["mean_auc"], abs=1e-12)


@pytest.mark.parametrize(
    "table, match",
    [
        ('detector = "pyod:Nope"', r"detectors\.x\.detector must be one of \['knn', 'iforest', 'lof', 'pyod:ABOD'"),
        (
            'detector = "pyod:KNN"\nn_neighbours = 3',
            r"detectors\.x: detector 'pyod:KNN': parameter n_neighbours = 3 refused by PyOD KNN",
        ),
        ('detector = "pyod:KNN"\nn_neighbors = [3]', r"parameter 'n_neighbors' must be a number"),
        ("n_neighbors = 3", r"\[detectors\.x\] needs detector ="),
    ],
)
def test_bad_detector_tables_are_config_errors(tmp_path, table, match):
    from auditad.audit.config import load_config

    cfg = _write_config(tmp_path, extra=f"\n[detectors.x]\n{table}\n")
    with pytest.raises(InvalidInputError, match=match):
        load_config(cfg)


def test_unknown_detector_exits_2_listing_the_allowed_ones(tmp_path, capsys):
    cfg = _write_config(tmp_path)
    assert main(["audit", str(cfg), "--out", str(tmp_path / "o"), "--detector", "pyod:Nope"]) == 2
    err = capsys.readouterr().err
    assert "--detector must be one of" in err and "'pyod:ECOD'" in err and "'knn'" in err and "'pyod:Nope'" in err
    text = cfg.read_text().replace('detectors = ["knn", "iforest", "lof"]', 'detectors = ["knn", "mystery"]')
    cfg.write_text(text)
    assert main(["audit", str(cfg), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "settings.detectors must be one of" in err and "'mystery'" in err
    assert not (tmp_path / "o").exists()


# --------------------------------------------------------------------------- anomaly-labelled benchmarks
def _anomaly_files(tmp_path):
    import pandas as pd

    from auditad.datasets import load_anomaly_example

    d = load_anomaly_example(per_class=2)
    np.save(tmp_path / "X.npy", d.X)
    pd.DataFrame({"is_anomaly": d.y}).to_csv(tmp_path / "y.csv", index=False)
    np.save(tmp_path / "y01.npy", d.y)
    return d


def test_anomaly_labelled_benchmark_end_to_end(tmp_path, capsys):
    d = _anomaly_files(tmp_path)
    out = tmp_path / "out"
    assert (
        main(
            [
                "audit",
                "--embeddings",
                str(tmp_path / "X.npy"),
                "--labels",
                str(tmp_path / "y.csv"),
                "--anomaly-column",
                "is_anomaly",
                "--out",
                str(out),
                "--quiet",
                "--null-runs",
                "100",
                "--landscape-resolution",
                "11",
            ]
        )
        == 0
    )
    assert "audited as two semantic classes" not in capsys.readouterr().err
    s = json.loads((out / "y" / "summary.json").read_text())
    share = 18 / 196  # 2 anomalies of each digit 1-9 among the 178 zeros
    assert d.y.sum() == 18 and d.n == 196
    assert s["dataset"]["kind"] == "anomaly" and s["dataset"]["anomaly_ratio"] == pytest.approx(share, abs=1e-15)
    # the detectors run in the semi-supervised setting: every detector gets an observed AUROC
    assert s["protocol"]["setting"] == "semi_supervised"
    dets = {r["detector"] for r in s["protocol"]["representations"]["X"]["per_class"] if r["auroc"] is not None}
    assert {"knn", "iforest", "lof"} <= dets
    assert s["landscapes"]["ratio"] == pytest.approx(share, abs=1e-15)
    # leakage between normals and anomalies: the classes of the leakage are the anomaly flag
    from auditad.leakage import leakage

    assert s["leakage"]["L_k"] == pytest.approx(leakage(d.X, d.y, k=10, backend="exact").L_k, abs=1e-15)
    assert s["dataset"]["classes"] == [0, 1] and s["dataset"]["class_sizes"] == [178, 18]


def test_zero_one_labels_without_anomaly_column_print_a_note_and_keep_their_meaning(tmp_path, capsys):
    _anomaly_files(tmp_path)
    out = tmp_path / "out"
    assert (
        main(
            [
                "audit",
                "--embeddings",
                str(tmp_path / "X.npy"),
                "--labels",
                str(tmp_path / "y01.npy"),
                "--out",
                str(out),
                "--quiet",
                "--detector",
                "knn",
                "--null-runs",
                "100",
                "--landscape-resolution",
                "11",
            ]
        )
        == 0
    )
    err = capsys.readouterr().err
    assert "the labels are 0/1 with 9.2% ones; they are audited as two semantic classes" in err
    assert "--anomaly-column" in err
    s = json.loads((out / "y01" / "summary.json").read_text())
    assert s["dataset"]["kind"] == "classes" and s["protocol"].get("status", "ok") != "not_applicable"


@pytest.mark.parametrize(
    "labels, note",
    [
        ([0, 1, 0, 0], True),
        ([0, 1, 1, 1], False),
        ([0, 1, 0, 1], False),
        ([0, 1, 2, 0], False),
        ([0.0, 1.0, 0.0, 0.0], True),
        (["0", "1", "0", "0"], False),
    ],
)
def test_anomaly_label_note_only_for_zero_one_with_ones_in_the_minority(labels, note):
    from auditad.datasets import Benchmark
    from auditad.audit.loader import BenchmarkInputs, anomaly_label_note

    y = np.array(labels * 5)
    bench = Benchmark(name="b", y=y, representations={"x": np.arange(y.size, dtype=float)[:, None]})
    inp = BenchmarkInputs(
        name="b",
        benchmark=bench,
        columns={},
        selection=None,
        settings={},
        gates=(),
        inputs=(),
        config_text="",
        config_name=None,
        config_sha256="",
    )
    assert (anomaly_label_note(inp) is not None) == note
