"""NumPy's huge-page advice: turned off exactly on machines whose free memory is reported to a host."""

import numpy as np
import pytest

from auditad import _memory
from auditad._memory import configure_huge_pages as configure, slow_huge_page_faults


def _machine(tmp_path, policy="always [madvise] never", features=None):
    thp = tmp_path / "enabled"
    thp.write_text(policy + "\n")
    balloon = tmp_path / "virtio_balloon"
    balloon.mkdir()
    for i, flags in enumerate(features or []):
        (balloon / f"virtio{i}").mkdir()
        (balloon / f"virtio{i}" / "features").write_text(flags + "\n")
    return thp, balloon


REPORTING = "0110010100000000000000000000000010"  # a Firecracker balloon: bits 1, 2, 5 and 32
NO_REPORTING = "0110000100000000000000000000000010"  # the same without bit 5


@pytest.mark.parametrize(
    "policy, features, slow",
    [
        ("always [madvise] never", [REPORTING], True),
        ("always [madvise] never", [NO_REPORTING, REPORTING], True),  # any bound device
        ("always [madvise] never", [NO_REPORTING], False),
        ("always [madvise] never", [], False),  # no balloon
        ("[always] madvise never", [REPORTING], False),  # huge pages whatever NumPy advises
        ("always madvise [never]", [REPORTING], False),
        ("always madvise never", [REPORTING], False),  # unreadable choice
        ("always [madvise] never", ["0110"], False),  # too few flags to hold bit 5
    ],
)
def test_slow_huge_page_faults_reads_the_policy_and_the_balloon(tmp_path, policy, features, slow):
    thp, balloon = _machine(tmp_path, policy, features)
    assert slow_huge_page_faults(thp, balloon) is slow


def test_slow_huge_page_faults_without_the_files(tmp_path):
    assert slow_huge_page_faults(tmp_path / "missing", tmp_path / "nothing") is False
    thp, _ = _machine(tmp_path)
    assert slow_huge_page_faults(thp, tmp_path / "nothing") is False


def test_configure_turns_the_advice_off_and_tells_child_processes():
    calls, env = [], {}
    assert configure(env, slow=True, toggle=calls.append) == "off"
    assert calls == [False] and env == {"NUMPY_MADVISE_HUGEPAGE": "0"}


@pytest.mark.parametrize("value", ["0", "1"])
def test_configure_leaves_the_users_numpy_setting(value):
    calls, env = [], {"NUMPY_MADVISE_HUGEPAGE": value}
    assert configure(env, slow=True, toggle=calls.append) == "user"
    assert calls == [] and env == {"NUMPY_MADVISE_HUGEPAGE": value}


def test_configure_keeps_the_advice_elsewhere():
    calls, env = [], {}
    assert configure(env, slow=False, toggle=calls.append) == "kept"
    assert calls == [] and env == {}


def test_configure_without_a_numpy_switch(monkeypatch):
    monkeypatch.setattr(_memory, "_numpy_toggle", lambda: None)
    env = {}
    assert configure(env, slow=True) == "kept" and env == {}


def test_numpy_switch_is_found_and_round_trips():
    toggle = _memory._numpy_toggle()
    assert toggle is not None  # numpy >= 1.19 has it; the project needs >= 1.23
    before = toggle(False)
    try:
        assert toggle(before) is False
    finally:
        toggle(before)
    assert np.ones(1 << 21).sum() == 1 << 21


def test_every_command_configures_before_it_runs(monkeypatch, capsys):
    from auditad.cli import main

    seen = []
    monkeypatch.setattr(_memory, "configure_huge_pages", lambda *a, **k: seen.append("huge pages") or "kept")
    monkeypatch.setattr(_memory, "configure_arenas", lambda *a, **k: seen.append("arenas") or "kept")
    assert main(["nulls", "--n-pos", "5", "--n-neg", "7", "--metric", "auroc"]) == 0
    assert seen == ["huge pages", "arenas"]
    assert "auroc" in capsys.readouterr().out.lower()
