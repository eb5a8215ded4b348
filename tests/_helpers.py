"""Helpers shared by the tests that run ``auditad`` in a child process (signals, faults).

``child_env`` makes the child import this checkout; ``default_sigint`` lets it be interrupted;
``write_tiny_benchmark`` writes the tiny benchmark and the cheapest audit settings those runs use.
"""

import os
import signal
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
#: The cheapest audit of the tiny benchmark of `write_tiny_benchmark`.
TINY_CONFIG = """version = 1
[settings]
leakage_k = [3]
detectors = ["knn"]
null_metrics = ["auroc"]
null_runs = 50
landscape_metrics = ["auroc"]
landscape_resolution = 11
[[benchmarks]]
name = "tiny"
labels = "y.npy"
embeddings = { x = "X.npy" }
"""


def child_env() -> dict:
    """The environment of a child ``python -m auditad``: this checkout first on the path, no debug traceback."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("AUDITAD_DEBUG", None)
    return env


def default_sigint():
    """``preexec_fn`` of a child that gets SIGINT: a test run started in the background of a script
    (``pytest &``) ignores SIGINT, and a child would inherit that and never be interrupted."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def write_tiny_benchmark(folder: Path) -> Path:
    """3 classes of 20 rows in 3 dimensions (``X.npy``, ``y.npy``) and ``audit.toml`` with `TINY_CONFIG`."""
    rng = np.random.default_rng(0)
    np.save(folder / "X.npy", np.vstack([rng.normal(3 * i, 1, (20, 3)) for i in range(3)]))
    np.save(folder / "y.npy", np.repeat(np.array(["a", "b", "c"]), 20))
    (folder / "audit.toml").write_text(TINY_CONFIG)
    return folder


def benchmark_inputs(name: str, representations: dict, y, settings: dict, gates=()):
    """`BenchmarkInputs` of an in-memory benchmark for `auditad.audit.runner.run_audit` (``settings`` validated)."""
    from auditad.audit.config import validate_settings
    from auditad.audit.loader import BenchmarkInputs
    from auditad.datasets import Benchmark

    bench = Benchmark(name=name, y=y, representations=representations, sources={})
    return BenchmarkInputs(
        name=name,
        benchmark=bench,
        columns={},
        selection=None,
        settings=validate_settings(settings),
        gates=tuple(gates),
        inputs=(),
        config_text="version = 1\n",
        config_name=f"{name}.toml",
        config_sha256="0" * 64,
        config_origin="file",
        command_line=(),
    )


def recording(monkeypatch, module, name: str) -> list:
    """Replace ``module.name`` by a wrapper that records what each call returned (the list returned here)."""
    calls = []
    real = getattr(module, name)

    def wrapped(*args, **kwargs):
        out = real(*args, **kwargs)
        calls.append(out)
        return out

    monkeypatch.setattr(module, name, wrapped)
    return calls


def meeting(n: int = 2, timeout: float = 120.0):
    """A function to call at the start of each unit of work run on a pool of ``n`` threads: the first call of each
    of the first ``n`` threads waits until all ``n`` have called it, so every thread of the pool takes part
    whatever the scheduling (on a loaded machine one thread could otherwise take every unit). Raises
    ``threading.BrokenBarrierError`` after ``timeout`` seconds if fewer than ``n`` threads run the units."""
    import threading

    barrier, seen, lock = threading.Barrier(n, timeout=timeout), set(), threading.Lock()

    def meet() -> None:
        ident = threading.get_ident()
        with lock:
            first = ident not in seen and len(seen) < n
            seen.add(ident)
        if first:
            barrier.wait()

    return meet
