"""The confidence level has one name, ``confidence_level``; its former names keep working, with a warning.

Former names: ``level`` (`auditad.metrics.auroc_ci`), ``ci_level`` (`auditad.protocol.audit_protocol`, the
``[settings]`` key and ``--ci-level`` of ``auditad audit``), ``confidence`` (`auditad.results.audit_results`,
`auditad.results.auroc_interval`). Each gives a warning naming the new name and the same result; giving both
names is an error.
"""

import argparse
import inspect
import warnings

import numpy as np
import pandas as pd
import pytest

from auditad.errors import InvalidInputError
from auditad.metrics import auroc_ci
from auditad.protocol import audit_protocol
from auditad.results import audit_results, auroc_interval

Y = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
S = np.array([0.1, 0.4, 0.35, 0.8, 0.2, 0.7, 0.9, 0.3, 0.65, 0.95])
TABLE = pd.DataFrame({"method": "m", "class": list("abcd"), "auroc": [0.9, 0.3, 0.52, 0.7], "n_pos": 20, "n_neg": 80})


def _protocol_data():
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1, 2], 30)
    return rng.normal(size=(90, 4)) + y[:, None], y


def _equal_values(a, b) -> bool:
    return a == b if not isinstance(a, np.ndarray) else np.array_equal(a, b, equal_nan=True)


@pytest.mark.parametrize(
    "call, old, check",
    [
        (lambda **kw: auroc_ci(Y, S, **kw), "level", lambda r: (r.confidence_level, r.level, r.ci_low, r.ci_high)),
        (lambda **kw: auroc_interval(0.8, 50, 50, **kw), "confidence", lambda r: r),
        (
            lambda **kw: audit_results(TABLE, **kw),
            "confidence",
            lambda r: (r.confidence_level, r.confidence, tuple(r.per_class["ci_low"]), tuple(r.groups[0].significance)),
        ),
        (
            lambda **kw: audit_protocol(*_protocol_data(), detectors=["knn"], leakage_k=0, random_state=0, **kw),
            "ci_level",
            lambda r: (r.confidence_level, r.ci_level, r.ci_low, r.ci_high, r.to_dict()["ci_level"]),
        ),
    ],
)
def test_former_keyword_warns_and_gives_the_same_result(call, old, check):
    new = check(call(confidence_level=0.9))
    with pytest.warns(DeprecationWarning, match=rf"{old}= is deprecated: use confidence_level="):
        former = check(call(**{old: 0.9}))
    assert len(new) == len(former) and all(_equal_values(a, b) for a, b in zip(new, former))
    with pytest.raises(InvalidInputError, match=rf"give confidence_level= only: {old}= is its former"):
        call(**{old: 0.9, "confidence_level": 0.9})


@pytest.mark.parametrize(
    "func, old",
    [(auroc_ci, "level"), (auroc_interval, "confidence"), (audit_results, "confidence"), (audit_protocol, "ci_level")],
)
def test_signatures_show_only_the_new_name(func, old):
    params = inspect.signature(func).parameters
    assert params["confidence_level"].default == 0.95 and old not in params
    assert "confidence_level : float, default 0.95" in func.__doc__


def test_warnings_of_the_renamed_functions_still_point_at_the_caller():
    """The renaming wrapper is one more frame: the functions' own warnings count it, so they name this file."""
    y = np.r_[np.repeat([0, 1], 20), [2]]
    X = np.random.default_rng(0).normal(size=(y.size, 3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        audit_protocol(X, y, protocol="one_class", detectors=["knn"], leakage_k=0, random_state=0)
        auroc_ci([0, 1, 0, 1], [1.0, 1.0, 1.0, 1.0])
    mine = [w for w in caught if "skipped class" in str(w.message) or "constant" in str(w.message)]
    assert len(mine) == 2 and {w.filename for w in mine} == {__file__}


def test_former_settings_key_and_flag_are_renamed_with_a_warning():
    from auditad.audit.settings import add_settings_arguments, settings_from_args, validate_settings

    with pytest.warns(FutureWarning, match=r"settings\.ci_level is deprecated: use settings\.confidence_level"):
        s = validate_settings({"ci_level": 0.9})
    assert s["confidence_level"] == 0.9 and "ci_level" not in s
    with pytest.raises(InvalidInputError, match="give settings.confidence_level only"):
        validate_settings({"ci_level": 0.9, "confidence_level": 0.9})
    parser = argparse.ArgumentParser()
    add_settings_arguments(parser)
    with pytest.warns(FutureWarning, match="--ci-level is deprecated: use --confidence-level"):
        s = validate_settings(settings_from_args(parser.parse_args(["--ci-level", "0.8"])), where="command line")
    assert s["confidence_level"] == 0.8
    assert (
        validate_settings(settings_from_args(parser.parse_args(["--confidence-level", "0.8"])), where="command line")
        == s
    )
    with pytest.raises(InvalidInputError, match="give --confidence-level only"):
        validate_settings(
            settings_from_args(parser.parse_args(["--ci-level", "0.8", "--confidence-level", "0.8"])),
            where="command line",
        )


# --------------------------------------------------------------------------- one name, one "off" value (issue #28)
def test_zero_is_the_one_off_value_and_none_is_deprecated():
    """0 switches leakage_k / max_test_normals off in the API, as in a configuration file and on the command line."""
    X, y = _protocol_data()
    off = audit_protocol(X, y, detectors=["knn"], leakage_k=0, max_test_normals=0, random_state=0)
    assert off.leakage_k is None and off.settings["max_test_normals"] is None
    with pytest.warns(DeprecationWarning, match=r"leakage_k=None is deprecated: use leakage_k=0") as rec:
        former = audit_protocol(X, y, detectors=["knn"], leakage_k=None, max_test_normals=0, random_state=0)
    assert {w.filename for w in rec if "leakage_k=None" in str(w.message)} == {__file__}  # points at the caller
    assert np.array_equal(former.auroc, off.auroc, equal_nan=True) and former.to_dict() == off.to_dict()
    with pytest.warns(DeprecationWarning, match=r"max_test_normals=None is deprecated: use max_test_normals=0"):
        audit_protocol(X, y, detectors=["knn"], leakage_k=0, max_test_normals=None, random_state=0)
    from auditad.protocol import class_split_plan

    with pytest.warns(DeprecationWarning, match=r"max_test_normals=None is deprecated"):
        a = class_split_plan(y, max_test_normals=None, random_state=0)
    b = class_split_plan(y, max_test_normals=0, random_state=0)
    assert [t.test_idx.tolist() for t in a.tasks] == [t.test_idx.tolist() for t in b.tasks]
    for name in ("leakage_k", "max_test_normals"):
        with pytest.raises(InvalidInputError, match=rf"{name} must be an integer >= 1, or 0 \(.*\), got -1"):
            audit_protocol(X, y, detectors=["knn"], random_state=0, **{name: -1})


def test_the_leakage_neighbour_counts_are_leakage_k_everywhere():
    """The setting was ``k`` in a configuration file and ``--k`` on ``auditad audit`` while ``k`` is the kNN
    detector's k in the API; it is now ``leakage_k`` / ``--leakage-k``, as in `audit_protocol`."""
    from auditad.audit.settings import add_settings_arguments, settings_from_args, validate_settings

    with pytest.warns(FutureWarning, match=r"settings\.k is deprecated: use settings\.leakage_k"):
        s = validate_settings({"k": [5, 1]})
    assert s["leakage_k"] == [5, 1] and "k" not in s
    parser = argparse.ArgumentParser()
    add_settings_arguments(parser)
    with pytest.warns(FutureWarning, match="--k is deprecated: use --leakage-k"):
        s = validate_settings(settings_from_args(parser.parse_args(["--k", "5", "--k", "1"])), where="command line")
    assert s["leakage_k"] == [5, 1]
    assert "leakage_k" in inspect.signature(audit_protocol).parameters


# --------------------------------------------------------------------------- one home per figure and per page
MOVED_NAMES = [
    ("auditad.leaderboards", "plot_critical_difference", "auditad.plotting.leaderboards"),
    ("auditad.results", "render_results_html", "auditad.report.results_page"),
    ("auditad.results", "results_markdown", "auditad.report.results_page"),
    ("auditad.results.leaderboard", "leaderboard_summary", "auditad.leaderboards.summary"),
    ("auditad.results.leaderboard", "CHECK_KEYS", "auditad.leaderboards.summary"),
]
MOVED_MODULES = [
    ("auditad.leaderboards.plotting", "auditad.plotting.leaderboards"),
    ("auditad.results.leaderboard_page", "auditad.report.leaderboard_page"),
]


def _fresh(monkeypatch):
    """Forget which old paths already warned, and the old module paths imported, in this process."""
    import sys

    import auditad

    monkeypatch.setattr(auditad, "_WARNED", set())
    for old, _ in MOVED_MODULES:
        monkeypatch.delitem(sys.modules, old, raising=False)


@pytest.mark.parametrize("package, name, new", MOVED_NAMES)
def test_moved_names_warn_once_and_are_the_same_object(monkeypatch, package, name, new):
    import importlib

    _fresh(monkeypatch)
    with pytest.warns(DeprecationWarning, match=rf"{package}\.{name} is deprecated: use {new}\.{name}") as rec:
        old = getattr(importlib.import_module(package), name)
    assert old is getattr(importlib.import_module(new), name)
    assert {w.filename for w in rec} == {__file__}  # points at the caller
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert getattr(importlib.import_module(package), name) is old  # once
    assert name not in importlib.import_module(package).__all__


@pytest.mark.parametrize("old, new", MOVED_MODULES)
def test_moved_modules_warn_once_and_are_the_same_module(monkeypatch, old, new):
    import importlib

    _fresh(monkeypatch)
    with pytest.warns(DeprecationWarning, match=rf"{old} is deprecated: use {new}"):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)


def test_statistics_and_pipeline_packages_do_not_define_the_moved_figure_and_pages():
    from pathlib import Path

    import auditad

    root = Path(auditad.__file__).parent
    assert not (root / "leaderboards" / "plotting.py").exists()
    assert not (root / "results" / "leaderboard_page.py").exists()
    assert "def render_results_html" not in (root / "results" / "pages.py").read_text(encoding="utf-8")
    assert "def leaderboard_summary(" not in (root / "results" / "leaderboard.py").read_text(encoding="utf-8")
