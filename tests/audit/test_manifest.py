"""Tests of auditad.manifest: the TOML manifest format, its path rules and its error messages."""

import json
import os

import numpy as np
import pytest

from auditad.errors import InvalidInputError
from auditad.manifest import load_manifest, write_manifest
from auditad.selection import run_selection
from auditad.synthetic import make_selection_benchmark


def _write(folder, text):
    p = folder / "manifest.toml"
    p.write_text(text)
    return p


@pytest.fixture
def files(tmp_path):
    """A hand-written benchmark folder: two tasks sharing one auxiliary file."""
    rng = np.random.default_rng(0)
    d = tmp_path / "bench"
    (d / "a").mkdir(parents=True)
    np.save(d / "a" / "ref.npy", rng.normal(size=(12, 3)))
    np.savez(
        d / "a" / "test.npz",
        X=rng.normal(size=(6, 3)) + np.r_[np.zeros(3), np.full(3, 3.0)][:, None],
        y=np.r_[np.zeros(3), np.ones(3)].astype(np.int8),
    )
    np.save(d / "aux.npy", rng.normal(size=(5, 3)) + 4)
    np.save(d / "aux_class.npy", np.array(["p", "p", "q", "x", "q"]))
    np.save(d / "ref_class.npy", np.array(["x"] * 12))
    np.savez(d / "a" / "seq.npz", seq=rng.normal(size=(12, 4, 3)))
    np.save(d / "a" / "seq_test.npy", rng.normal(size=(6, 4, 3)))
    np.save(d / "seq_aux.npy", rng.normal(size=(5, 4, 3)))
    return d


GOOD = """
[benchmark]
name = "hand"

[[candidates]]
name = "v-knn"
embedding = "vec"

[[candidates]]
name = "s-max-ldn"
embedding = "seq"
pooling = "max"
scoring = "ldn"
family = "sequences"

[[tasks]]
name = "one"
split = "development"
group = "g"
test_labels = "a/test.npz#y"
reference_meta = { class = "ref_class.npy" }
auxiliary_meta = { class = "aux_class.npy" }
home = { class = "x" }
[tasks.embeddings.vec]
reference = "a/ref.npy"
test = "a/test.npz#X"
auxiliary = "aux.npy"
[tasks.embeddings.seq]
reference = "a/seq.npz"
test = "a/seq_test.npy"
auxiliary = "seq_aux.npy"
"""


def test_hand_written_manifest(files):
    bench = load_manifest(_write(files, GOOD))
    assert bench.name == "hand" and [c.name for c in bench.candidates] == ["v-knn", "s-max-ldn"]
    t = bench.tasks[0]
    assert t.embeddings["seq"].reference.shape == (12, 4, 3) and t.test_labels.tolist() == [0, 0, 0, 1, 1, 1]
    assert t.auxiliary_meta["class"].tolist() == ["p", "p", "q", "x", "q"] and t.home == {"class": "x"}
    assert bench.candidates[1].family == "sequences" and bench.candidates[1].pooling == "max"


def test_a_file_used_twice_is_read_once(files):
    text = GOOD[: GOOD.index("[tasks.embeddings.seq]")]
    text = text.replace('pooling = "max"\n', "").replace('embedding = "seq"', 'embedding = "vec"')
    text += text[text.index("[[tasks]]") :].replace('name = "one"', 'name = "two"')
    bench = load_manifest(_write(files, text))
    a, b = bench.tasks[0].embeddings["vec"], bench.tasks[1].embeddings["vec"]
    assert a.auxiliary is b.auxiliary and a.reference is b.reference


def test_round_trip_gives_the_same_selection(tmp_path):
    bench = make_selection_benchmark(
        n_tasks=2,
        n_source=20,
        n_target=3,
        n_test=12,
        n_auxiliary=9,
        families=("clean",),
        vector_families=("noisy",),
        poolings=("mean",),
        random_state=1,
    )
    path = write_manifest(bench, tmp_path / "out")
    loaded = load_manifest(path)
    assert loaded.info["latent_dim"] == bench.info["latent_dim"]
    for t0, t1 in zip(bench.tasks, loaded.tasks):
        for e in t0.embeddings:
            for part in ("reference", "test", "auxiliary"):
                np.testing.assert_array_equal(getattr(t0.embeddings[e], part), getattr(t1.embeddings[e], part))
        assert t0.home == t1.home and t0.split == t1.split
    kw = dict(estimators=["pseudo_auc"], probes=["feature", "cross_attribute"], n_boot=50, random_state=0)
    assert json.dumps(run_selection(bench, **kw).to_dict()) == json.dumps(run_selection(loaded, **kw).to_dict())


@pytest.mark.parametrize(
    "edit,match",
    [
        (("[benchmark]", "colour = 1\n[benchmark]"), "unknown key 'colour'"),
        (('family = "sequences"', 'family = "sequences"\nwindow = 3'), r"unknown key candidates\[1\].'window'"),
        (('split = "development"', 'split = "development"\nseed = 1'), r"unknown key tasks\[0\] \(one\).'seed'"),
        (('auxiliary = "aux.npy"', 'auxiliary = "aux.npy"\nval = "a/ref.npy"'), r"embeddings.vec.'val'"),
        (('home = { class = "x" }', 'home = { machine = "x" }'), r"home.'machine'"),
        (
            ('reference_meta = { class = "ref_class.npy" }', 'reference_meta = { section = "ref_class.npy" }'),
            r"reference_meta.'section'",
        ),
    ],
)
def test_unknown_keys_are_errors_naming_the_key(files, edit, match):
    with pytest.raises(InvalidInputError, match=match):
        load_manifest(_write(files, GOOD.replace(*edit)))


@pytest.mark.parametrize(
    "ref,match",
    [
        ("../outside.npy", "escapes the manifest's folder"),
        ("a/../../outside.npy", "escapes the manifest's folder"),
        ("/etc/passwd", "absolute path"),
        ("a/missing.npy", "file not found"),
        ("a/test.npz", r"holds \['X', 'y'\]"),
        ("a/test.npz#Z", "no array 'Z'"),
        ("ref_class.npy#k", "inside an .npz"),
    ],
)
def test_bad_paths(files, ref, match):
    (files.parent / "outside.npy").write_bytes(b"")
    with pytest.raises(InvalidInputError, match=match):
        load_manifest(_write(files, GOOD.replace('reference = "a/ref.npy"', f'reference = "{ref}"')))


def test_symlink_escaping_the_folder_is_rejected(files, tmp_path):
    np.save(tmp_path / "secret.npy", np.zeros((12, 3)))
    os.symlink(tmp_path / "secret.npy", files / "link.npy")
    with pytest.raises(InvalidInputError, match="escapes"):
        load_manifest(_write(files, GOOD.replace('reference = "a/ref.npy"', 'reference = "link.npy"')))


def test_pickled_arrays_are_refused(files):
    np.save(files / "a" / "obj.npy", np.array([{"a": 1}] * 12, dtype=object), allow_pickle=True)
    with pytest.raises(InvalidInputError, match="without pickle"):
        load_manifest(_write(files, GOOD.replace('reference = "a/ref.npy"', 'reference = "a/obj.npy"')))


def test_invalid_content(files):
    with pytest.raises(InvalidInputError, match="not valid TOML"):
        load_manifest(_write(files, "[[tasks]\nname = 1"))
    with pytest.raises(InvalidInputError, match="version"):
        load_manifest(_write(files, GOOD.replace('name = "hand"', 'name = "hand"\nversion = 2')))
    with pytest.raises(InvalidInputError, match="missing the required key 'embedding'"):
        load_manifest(_write(files, GOOD.replace('embedding = "vec"\n', "")))
    with pytest.raises(InvalidInputError, match="manifest file not found"):
        load_manifest(files / "nope.toml")
    bad = np.random.default_rng(0).normal(size=(12, 3))
    bad[4, 0] = np.nan
    np.save(files / "a" / "ref.npy", bad)
    with pytest.raises(InvalidInputError, match="NaN"):
        load_manifest(_write(files, GOOD))


# --------------------------------------------------------------------------- CLI: auditad select
def test_cli_select_manifest(files, tmp_path, capsys):
    from auditad.cli import main

    out = tmp_path / "sel.json"
    fig = tmp_path / "sel.png"
    code = main(
        [
            "select",
            str(_write(files, GOOD)),
            "--estimator",
            "pseudo_auc",
            "--pseudo",
            "feature",
            "--pseudo",
            "cross_class",
            "--n-boot",
            "20",
            "--json",
            str(out),
            "--figure",
            str(fig),
            "--quiet",
        ]
    )
    captured = capsys.readouterr()
    assert code == 0 and "Pseudo AUC (Cross-Class)" in captured.out and captured.err == ""
    payload = json.loads(out.read_text())
    assert payload["config"]["estimators"] == ["pseudo_auc[feature]", "pseudo_auc[cross_class]"]
    assert [r["estimator"] for r in payload["summary"]][:2] == ["oracle", "random"]
    assert fig.stat().st_size > 1000


@pytest.mark.parametrize(
    "argv,match",
    [
        (["select"], "either a MANIFEST.toml or --example"),
        (["select", "missing.toml"], "manifest file not found"),
        (["select", "--example", "digits", "--lam", "half"], "--lam"),
    ],
)
def test_cli_select_errors_are_one_line(argv, match, capsys):
    from auditad.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("auditad: error:") and match in err[0]


def test_cli_select_escaping_path(files, capsys):
    from auditad.cli import main

    path = _write(files, GOOD.replace('reference = "a/ref.npy"', 'reference = "../x.npy"'))
    assert main(["select", str(path), "--quiet"]) == 2
    assert "escapes the manifest's folder" in capsys.readouterr().err
