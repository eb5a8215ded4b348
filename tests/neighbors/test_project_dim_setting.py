"""``project_dim`` is a setting: the configuration key and ``--project-dim`` reach every neighbour search of the
audit (the leakage and the protocol), with the results of the library functions called with it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from auditad.cli import main


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("pdim")
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(size=(150, 40)), rng.normal(size=(150, 40)) + 0.6, rng.normal(size=(150, 40)) - 0.6]
    y = np.repeat(np.arange(3), 150)
    np.save(d / "X.npy", X.astype(np.float32))
    np.save(d / "y.npy", y)
    return d, X.astype(np.float32), y


def _audit(d, out, *flags):
    code = main(
        ["audit", "--embeddings", str(d / "X.npy"), "--labels", str(d / "y.npy"), "--out", str(out), "--quiet",
         "--backend", "approximate", "--detector", "knn", "--leakage-k", "5", "--null-runs", "50",
         "--landscape-resolution", "11", *flags]
    )  # fmt: skip
    assert code in (0, 1)
    return json.loads((out / "y" / "summary.json").read_text(encoding="utf-8"))


def test_project_dim_reaches_the_leakage_and_the_protocol(data, tmp_path):
    """One representation: the audit's leakage and protocol read one index over every row (built by the
    leakage at the protocol's graph degree), so the reference calls share one index too."""
    from auditad import leakage
    from auditad.protocol import audit_protocol
    from auditad.protocol.execution_stage import IndexCache

    d, X, y = data
    s = _audit(d, tmp_path / "p8", "--project-dim", "8")
    assert s["settings"]["project_dim"] == 8

    def reference(project_dim):  # the independent reference: the library functions called with the same projection
        cache = IndexCache()
        get = cache.provider(("X", "euclidean"), X, 0, project_dim, degree=16)  # knn, k = 5: 1.25 * 10 / 0.8
        lists = lambda k: get(k).self_lists(X, k)  # noqa: E731
        leak = leakage(X, y, k=[5], backend="approximate", random_state=0, project_dim=project_dim, self_lists=lists)
        return leak, cache

    ref, cache = reference(8)
    assert s["leakage"]["L_k"] == pytest.approx(ref.L_k, abs=0)
    ref0, _ = reference(0)
    assert ref.L_k != ref0.L_k  # a projection to 8 of 40 columns changes the approximate lists: the test can fail
    prot = audit_protocol(
        X,
        y,
        detectors=["knn"],
        backend="approximate",
        leakage_k=5,
        random_state=0,
        project_dim=8,
        confirm_repeats=5,
        index_cache=cache,
    )
    rows = s["protocol"]["representations"]["X"]["per_class"]
    got = [r["auroc"] for r in rows if r["detector"] == "knn"]
    assert got == pytest.approx(list(prot.aurocs("X", "knn")), abs=0)


@pytest.mark.parametrize("value", ["-1", "many"])
def test_bad_project_dim_is_one_line_naming_the_setting(data, tmp_path, capsys, value):
    d, _, _ = data
    code = main(["audit", "--embeddings", str(d / "X.npy"), "--labels", str(d / "y.npy"), "--out",
                 str(tmp_path / "bad"), "--quiet", "--project-dim", value])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "project-dim" in err.replace("_", "-") and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "bad").exists()
