"""Wall time, CPU time and peak memory of the default ``auditad audit``, in exact-kNN-search units.

Each measurement runs in a fresh Python process (so peak RSS and numba
compilation are honest): first the default audit of a synthetic benchmark
(``python -m auditad audit --embeddings emb=X.npy --labels y.npy``), then one
exact kNN self-search (``auditad.neighbors.kneighbors(X, k=10,
backend="exact")``) of the same data with the same code, in the same run of this
script, so that the ratio audit / kNN is comparable across loaded machines.

Data: synthetic 128-d "embeddings", K overlapping Gaussian classes on a 12-d
latent subspace mapped linearly into d dimensions plus small isotropic noise
(float32), the setting of the scale issue's measurements.

Run (2 cores; sizes of the scale targets; each is long, run one at a time):

    python benchmarks/bench_audit.py --n 5000 --classes 10               # smoke test, ~1-2 min
    python benchmarks/bench_audit.py --n 100000 --d 128 --classes 10     # target: <= 3 min wall
    python benchmarks/bench_audit.py --n 60000 --d 64 --classes 100      # target: <= 12 kNN units
    python benchmarks/bench_audit.py --n 1000000 --d 128 --classes 1000 --skip-knn --phases \\
        --audit-args "--backend approximate"                             # target: <= 10 min, <= 4 GB
    # ImageNet-sized input from disk (10.5 GB, written block by block and read memory-mapped; the recall of
    # the approximate pass, in the original 2048 dimensions, measured on 2 000 queries):
    python benchmarks/bench_audit.py --n 1280000 --d 2048 --classes 1000 --skip-knn --phases --mmap-data \\
        --recall-sample 2000 --audit-args "--backend approximate"        # target: peak RSS <= 12 GB
    # (--skip-knn: the exact reference search alone would take about an hour at 1M x 128; with --workdir W,
    #  --reuse-data keeps the data an earlier run with the same --n --d --classes --seed wrote there)
    # Dask vs serial (same output bytes, overhead <= 15 %); give both the same --workdir (the report
    # records the input paths), move the first report away and compare with diff -r:
    python benchmarks/bench_audit.py --n 20000 --classes 10 --workdir W --audit-args "--scheduler serial"
    python benchmarks/bench_audit.py --n 20000 --classes 10 --workdir W --skip-knn --audit-args "--scheduler local:2"
    # the 0.1.0 code path, from a git worktree (or a plain export) of commit d112a33:
    git worktree add /tmp/auditad-0.1.0 d112a33      # or: mkdir /tmp/auditad-0.1.0 &&
                                                     #     git archive d112a33 | tar -x -C /tmp/auditad-0.1.0
    python benchmarks/bench_audit.py --n 100000 --classes 10 --code /tmp/auditad-0.1.0
    # where the time goes (cProfile of the audit process, top 25 by cumulative time):
    python benchmarks/bench_audit.py --n 100000 --classes 10 --profile

Columns: ``wall s`` and ``cpu s`` (user + system of the audit process and its
children), ``peak MB`` (maximum resident set size of the audit process, including the file pages of a
memory-mapped input), ``anon MB`` (peak anonymous memory: the same without those file pages, sampled
every 0.2 s from ``/proc/self/status``; Linux),
``knn s`` (wall time of the single exact self-search) and ``units`` = wall / knn.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

# Runs inside the fresh child process: argv = [mode, json settings].
_CHILD = r"""
import json, os, resource, sys, time
mode, cfg = sys.argv[1], json.loads(sys.argv[2])
def usage():
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime
import numpy as np
import auditad
import threading
anon = [0.0]  # peak anonymous memory (MB): the RSS without the file pages of memory-mapped inputs (Linux)
def sample_anon():
    while True:
        try:
            with open("/proc/self/status") as fh:
                kb = next((int(line.split()[1]) for line in fh if line.startswith("RssAnon:")), 0)
            anon[0] = max(anon[0], kb / 1024.0)
        except OSError:
            return
        time.sleep(0.2)
threading.Thread(target=sample_anon, daemon=True).start()
if mode == "audit":
    from auditad.cli import main
    argv = ["audit", "--embeddings", "emb=" + cfg["X"], "--labels", cfg["y"], "--name", "synthetic",
            "--out", cfg["out"], "--quiet"] + cfg["extra"]
    phases = []
    if cfg.get("recall_sample"):  # the leakage's measured recall of the approximate pass on this many queries
        import importlib
        importlib.import_module("auditad.leakage").leakage.__kwdefaults__["recall_sample"] = cfg["recall_sample"]
    if cfg.get("phases"):  # wall time and peak RSS after each stage of the audit, in the order they ran
        import auditad.audit.loader as loader, auditad.audit.runner as runner
        from auditad.report.sections import REGISTRY, section_module
        def timed(inner, label):
            def wrapper(*a, **kw):
                t = time.perf_counter()
                try:
                    return inner(*a, **kw)
                finally:
                    phases.append((label, time.perf_counter() - t,
                                   resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, anon[0]))
            return wrapper
        runner.load_inputs = timed(runner.load_inputs, "load inputs")
        try:  # the statistics of each section: auditad.audit.sections.RUNS, or each section module's run (0.2)
            from auditad.audit.sections import RUNS
        except ImportError:
            RUNS = None
        for info in REGISTRY:
            if info.statistics and RUNS is not None:
                RUNS[info.id] = timed(RUNS[info.id], info.id)
            elif info.statistics:
                section_module(info.id).run = timed(section_module(info.id).run, info.id)
        runner._write_benchmark = timed(runner._write_benchmark, "write report")
    c0, t0 = usage(), time.perf_counter()
    if cfg["profile"]:
        import cProfile, pstats, io
        prof = cProfile.Profile()
        code = prof.runcall(main, argv)
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(25)
        sys.stderr.write(buf.getvalue())
    else:
        code = main(argv)
    wall = time.perf_counter() - t0
else:
    from auditad.neighbors import kneighbors
    X = np.load(cfg["X"], mmap_mode=None)
    c0, t0 = usage(), time.perf_counter()
    kneighbors(X, k=cfg["k"], backend="exact")
    wall, code = time.perf_counter() - t0, 0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
print(json.dumps({"wall": wall, "cpu": usage() - c0, "peak_mb": peak, "exit": code,
                  "auditad": os.path.dirname(auditad.__file__), "phases": phases if mode == "audit" else [], "peak_anon_mb": anon[0]}))
"""


def make_data(n: int, d: int, n_classes: int, *, seed: int = 0, latent: int = 12, out: Path | None = None):
    """K overlapping Gaussian classes on a ``latent``-dimensional subspace of R^d (float32), labels 0..K-1.

    Class centres are standard normal in the latent space (so classes overlap
    more as K grows), each point is its centre plus standard normal latent
    noise, mapped by a random orthonormal ``latent × d`` map times 3, plus
    isotropic noise of standard deviation 0.1. Generated in chunks of 10 000 rows; with ``out`` they are
    written straight into the ``.npy`` file ``out`` (memory-mapped: data larger than memory) and the
    memory map is returned.
    """
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(n_classes, latent))
    W = (np.linalg.qr(rng.normal(size=(d, latent)))[0].T * 3).astype(np.float32)
    y = rng.integers(0, n_classes, n)
    X = (
        np.empty((n, d), dtype=np.float32)
        if out is None
        else np.lib.format.open_memmap(out, mode="w+", dtype=np.float32, shape=(n, d))
    )
    for a in range(0, n, 10000):
        b = min(a + 10000, n)
        Z = (centers[y[a:b]] + rng.normal(size=(b - a, latent))).astype(np.float32)
        X[a:b] = Z @ W + 0.1 * rng.standard_normal(size=(b - a, d), dtype=np.float32)
    return X, y.astype(np.int64)


def _data_key(args) -> dict:
    return {"n": args.n, "d": args.d, "classes": args.classes, "seed": args.seed}


def _same_data(work: Path, args) -> bool:
    """True when ``work`` holds the data of an earlier run with the same sizes and seed (``--reuse-data``)."""
    try:
        return json.loads((work / "data.json").read_text()) == _data_key(args) and (work / "y.npy").is_file()
    except (OSError, ValueError):
        return False


def run_child(mode: str, cfg: dict, code: Path) -> dict:
    """Run one measurement in a fresh interpreter importing auditad from ``code``."""
    env = dict(os.environ, PYTHONPATH=str(code) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, mode, json.dumps(cfg)], env=env, cwd=cfg["cwd"], capture_output=True, text=True
    )
    if cfg.get("profile") and proc.stderr:
        print(proc.stderr, file=sys.stderr)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"{mode} run failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads(lines[-1])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__
    )
    ap.add_argument("--n", type=int, default=5000, help="samples (default 5000)")
    ap.add_argument("--d", type=int, default=128, help="dimensions (default 128)")
    ap.add_argument("--classes", type=int, default=10, help="number of classes K (default 10)")
    ap.add_argument("--seed", type=int, default=0, help="data seed")
    ap.add_argument("--k", type=int, default=10, help="k of the reference exact kNN self-search (default 10)")
    ap.add_argument(
        "--code",
        type=Path,
        default=ROOT,
        help="source tree whose auditad is measured (default: this checkout), "
        "e.g. a git worktree of the 0.1.0 commit d112a33",
    )
    ap.add_argument(
        "--audit-args", default="", help="extra arguments for 'auditad audit', e.g. '--backend approximate'"
    )
    ap.add_argument("--workdir", type=Path, default=None, help="where data and reports go (default: a temp dir)")
    ap.add_argument("--skip-knn", action="store_true", help="do not time the reference kNN search")
    ap.add_argument("--profile", action="store_true", help="print a cProfile of the audit (top 25, cumulative)")
    ap.add_argument(
        "--phases",
        action="store_true",
        help="print the wall time and peak RSS after each stage of the audit (loading, each section, "
        "writing the report)",
    )
    ap.add_argument(
        "--recall-sample",
        type=int,
        default=0,
        help="queries on which the leakage measures the recall of the approximate pass against exact search in "
        "the original space (default: the library's 200); printed from summary.json",
    )
    ap.add_argument(
        "--mmap-data",
        action="store_true",
        help="write the data straight into X.npy, block by block (data larger than memory); the audit "
        "then reads it memory-mapped",
    )
    ap.add_argument(
        "--reuse-data",
        action="store_true",
        help="with --workdir: keep the X.npy / y.npy of an earlier run with the same --n --d --classes --seed",
    )
    args = ap.parse_args(argv)
    code = args.code.resolve()
    if not (code / "auditad" / "__init__.py").is_file():
        raise SystemExit(f"--code {code}: no auditad package there")

    with tempfile.TemporaryDirectory(prefix="bench_audit_") as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        if args.reuse_data and _same_data(work, args):
            print(f"reusing {work / 'X.npy'} (written by an earlier run with the same --n --d --classes --seed)")
        else:
            if args.mmap_data:
                X, y = make_data(args.n, args.d, args.classes, seed=args.seed, out=work / "X.npy")
                X.flush()
            else:
                X, y = make_data(args.n, args.d, args.classes, seed=args.seed)
                np.save(work / "X.npy", X)
            np.save(work / "y.npy", y)
            (work / "data.json").write_text(json.dumps(_data_key(args)))
            del X
        cfg = {
            "X": str(work / "X.npy"),
            "y": str(work / "y.npy"),
            "out": str(work / "report"),
            "extra": shlex.split(args.audit_args),
            "k": args.k,
            "profile": args.profile,
            "cwd": str(work),
            "phases": args.phases,
            "recall_sample": args.recall_sample,
        }
        audit = run_child("audit", cfg, code)
        summary = work / "report" / "synthetic" / "summary.json"
        leak = json.loads(summary.read_text()).get("leakage", {}) if summary.is_file() else {}
        recall = (leak.get("representations") or {}).get("emb", {}).get("recall")
        knn = None if args.skip_knn else run_child("knn", cfg, code)

    print(
        f"auditad from {audit['auditad']}; audit args: {args.audit_args or '(defaults)'}; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    print(
        f"{'n':>8} {'d':>4} {'K':>5} | {'wall s':>8} {'cpu s':>8} {'peak MB':>8} {'anon MB':>8} | {'knn s':>7} "
        f"{'units':>6} | exit"
    )
    knn_s = knn["wall"] if knn else float("nan")
    print(
        f"{args.n:>8} {args.d:>4} {args.classes:>5} | {audit['wall']:8.1f} {audit['cpu']:8.1f} "
        f"{audit['peak_mb']:8.0f} {audit['peak_anon_mb']:8.0f} | {knn_s:7.2f} {audit['wall'] / knn_s:6.1f} | "
        f"{audit['exit']}"
    )
    if recall is not None:
        print(f"recall of the approximate neighbour lists (leakage, original space): {recall}")
    if audit["phases"]:
        print(
            f"\n{'phase':<16} {'wall s':>8} {'peak MB':>8} {'anon MB':>8}   (peaks of the audit process so far; "
            "anon: without the file pages of memory-mapped inputs)"
        )
        for label, seconds, peak_mb, anon_mb in audit["phases"]:
            print(f"{label:<16} {seconds:8.1f} {peak_mb:8.0f} {anon_mb:8.0f}")


if __name__ == "__main__":
    main()
