"""Shared test configuration: the order in which the test files reach the parallel workers.

The suite runs on two pytest-xdist workers, each given whole files (``-n 2 --dist loadfile
--no-loadscope-reorder`` in ``pyproject.toml``), in the order collected here. The files that hold a test
marked ``slow`` (a wheel build, the docs site, clusters of subprocesses, the first approximate-search
compilation) are handed out first, so that no worker starts one of them while the other has nothing
left to do; the order of the tests within a file does not change.
"""

from __future__ import annotations


def pytest_collection_modifyitems(session, config, items):
    slow_files = {item.path for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.path not in slow_files)  # stable: each file's tests stay together, in order
