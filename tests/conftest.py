"""Shared test configuration: the work units of the parallel workers, their order, and the shared demo run.

The suite runs on two pytest-xdist workers (``-n 2 --dist loadgroup --no-loadscope-reorder`` in
``pyproject.toml``). Each worker is given whole work units: a unit is one test file (a module's fixtures,
such as its Dask cluster or its built docs site, are made once), except the files of one of the `GROUPS`,
which form one unit that runs in one process:

- ``approximate-search``: the files that build NN-descent graphs (pynndescent). numba compiles
  pynndescent's functions once per process (30-40 CPU s): once in one worker, not once in each.
- ``demo-report``: the files that read ``auditad demo --quiet`` (`quiet_demo`): the demo runs once.

The units are handed out in the order collected here, the costliest first (`HEAVY`, measured costs in
seconds on an idle machine, then the units that hold a test marked ``slow``): no worker starts a long unit
while the other has nothing left to do. The order of the tests within a file does not change.
"""

from __future__ import annotations

import contextlib
import io

import pytest

#: Files that share one work unit, by unit name.
GROUPS = {
    "approximate-search": (
        "tests/neighbors/test_neighbors.py",
        "tests/neighbors/test_projection.py",
        "tests/neighbors/test_project_dim_setting.py",
        "tests/neighbors/test_query_blocks.py",
        "tests/protocol/test_protocol.py",
        "tests/selection/test_bounds.py",
        "tests/selection/test_scoring.py",
        "tests/selection/test_selection.py",
    ),
    "demo-report": ("tests/report/test_report.py", "tests/report/test_browser.py", "tests/cli/test_cli.py"),
}
#: The costliest units, costliest first (wall seconds of a unit alone on an idle 2-core machine, rounded); a file's
#: unit is its path under tests/ without ``.py``.
HEAVY = (
    "demo-report",  # ~130
    "approximate-search",  # ~90
    "project/test_docs",  # ~70
    "execution/test_scale",  # ~60
    "execution/test_cluster_loss",  # ~55
    "protocol/test_scale_classes",  # ~50
    "cli/test_signals",  # ~45
    "project/test_docs_site",  # ~35
    "cli/test_faults",  # ~30
    "project/test_install",  # ~20
)
_FILE_GROUP = {path: name for name, paths in GROUPS.items() for path in paths}


def _unit(item, root) -> str:
    try:
        rel = item.path.relative_to(root).as_posix()
    except ValueError:  # a file outside the root directory: its own unit
        rel = str(item.path)
    return _FILE_GROUP.get(rel, rel.removeprefix("tests/").removesuffix(".py"))  # (appended to the test ids)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the xdist_group marks
def pytest_collection_modifyitems(session, config, items):
    units = {item: _unit(item, config.rootpath) for item in items}
    for item, unit in units.items():
        item.add_marker(pytest.mark.xdist_group(unit))
    slow = {unit for item, unit in units.items() if item.get_closest_marker("slow") is not None}
    rank = {unit: i for i, unit in enumerate(HEAVY)}
    # stable: each file's tests stay together, in order
    items.sort(key=lambda item: rank.get(units[item], len(HEAVY) + (units[item] not in slow)))


@pytest.fixture(scope="session")
def quiet_demo(tmp_path_factory):
    """``auditad demo --quiet`` run once per process (in-process): (output folder, exit code, stdout, stderr).

    Tests read the folder and never write into it (copy it first to change it).
    """
    from auditad.cli import main

    out = tmp_path_factory.mktemp("demo") / "report"
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(["demo", "--out", str(out), "--quiet"])
    return out, code, stdout.getvalue(), stderr.getvalue()
