"""Time of a leaderboard audit (read + every check + ranking) at the sizes published leaderboards have.

Run:  python benchmarks/bench_leaderboards.py            (the table below, ~30 s on 2 shared cores)
      python benchmarks/bench_leaderboards.py --quick    (the 1 000-row case only)

Budget (issue #24): a 1 000-row leaderboard audits in at most 5 s, end to end through the command line
(``auditad results FILE --out DIR``: Python's start, the imports, reading, every check, the ranking, the
figures, the HTML page, the summary and the tables).

Data: generated ADBench-like files (the layout of ADBench's ``AUCROC_*.csv``:
an index ``"('dataset', 0.0, seed)"`` and one column per detector), one row per
(dataset, seed), AUROCs drawn around a per-method skill with seed noise, a few
blank cells (runs that never finished), one detector inverted on a tenth of the
datasets and one column of exact zeros (a failed detector), so that every check
has something to find.  Also a PyOD-like wide file with class counts (the
per-cell null tests) and an OpenOOD-like file with "mean ± std" cells.

Each line prints the rows × methods of the file, the number of cells, the time
of reading, of the whole audit (read included), of the command line end to end
(a fresh process writing the report folder) and the number of findings that
are not ``pass``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def adbench_like(path: Path, n_datasets: int, n_seeds: int, n_methods: int, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    methods = [f"M{j:02d}" for j in range(n_methods)]
    skill = rng.uniform(0.55, 0.85, n_methods)
    lines = ["," + ",".join(methods)]
    for d in range(n_datasets):
        shift = rng.normal(0, 0.08)
        for s in range(1, n_seeds + 1):
            vals = np.clip(skill + shift + rng.normal(0, 0.04, n_methods), 0.001, 0.999)
            if d % 10 == 3:
                vals[1] = 1 - vals[1]  # an inverted detector
            cells = [f"{v:.6f}" for v in vals]
            cells[-1] = "0.0"  # a failed detector: a zero column
            if rng.random() < 0.02:
                cells[rng.integers(0, n_methods - 1)] = ""  # a run that never finished
            lines.append(f"\"('data{d:04d}', 0.0, {s})\"," + ",".join(cells))
    path.write_text("\n".join(lines) + "\n")
    return path


def pyod_like(path: Path, n_datasets: int, n_methods: int, seed: int = 1) -> Path:
    rng = np.random.default_rng(seed)
    methods = [f"D{j:02d}" for j in range(n_methods)]
    lines = ["Data,#Samples,# Dimensions,Outlier Perc," + ",".join(methods)]
    for d in range(n_datasets):
        n = int(rng.integers(150, 50_000))
        pct = float(rng.uniform(1, 35))
        n_pos = max(1, round(n * pct / 100))
        vals = np.clip(rng.uniform(0.3, 0.95, n_methods), 0, 1)
        lines.append(
            f"set{d:04d},{n},{int(rng.integers(3, 300))},{100 * n_pos / n:.4f}," + ",".join(f"{v:.4f}" for v in vals)
        )
    path.write_text("\n".join(lines) + "\n")
    return path


def openood_like(path: Path, n_methods: int, seed: int = 2) -> Path:
    rng = np.random.default_rng(seed)
    lines = ["Training,Postprocessor,Near-OOD_AUROC,Far-OOD_AUROC,ID_Accuracy,Outlier_Data,Arch,Additional_Description"]
    for j in range(n_methods):
        near, far = rng.uniform(55, 95, 2)
        sd = rng.uniform(0, 2, 2).round(2)
        lines.append(
            f"CrossEntropy,P{j:03d},{near:.2f} ± {sd[0]:.2f},{far:.2f} ± {sd[1]:.2f},95.06 ± 0.30,No,"
            "ResNet18,100 epochs"
        )
    path.write_text("\n".join(lines) + "\n")
    return path


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def cli_seconds(path: Path, out: Path) -> float:
    """Wall time of ``auditad results PATH --out OUT`` in a fresh interpreter (exit 0 or 1: findings)."""
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "auditad", "results", str(path), "--out", str(out)], capture_output=True, text=True
    )
    elapsed = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"auditad results {path} exited {proc.returncode}: {proc.stderr[-2000:]}")
    return elapsed


def show_files(files, out: Path) -> None:
    """The findings block and the ranking of each real file, and its critical-difference diagram as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from auditad.leaderboards import audit_leaderboard, read_leaderboard
    from auditad.plotting import plot_critical_difference

    out.mkdir(parents=True, exist_ok=True)
    for path in files:
        t, audit = timed(lambda: audit_leaderboard(read_leaderboard(path)))
        print("=" * 100)
        print(f"{path} ({t:.2f} s)")
        print(audit.summary_text())
        for ranking in audit.rankings:
            metric = getattr(ranking, "metric", "metric")
            fig = Figure(figsize=(8, 4), layout="constrained")
            plot_critical_difference(ranking, ax=fig.add_subplot())
            png = out / f"cd_{path.stem}_{metric}.png"
            fig.savefig(png, dpi=120)
            print(f"critical-difference diagram: {png}")


def main(argv=None) -> None:
    from auditad.leaderboards import audit_leaderboard, read_leaderboard

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only the 1 000-row case")
    parser.add_argument(
        "--files",
        nargs="+",
        type=Path,
        default=(),
        help="published leaderboard files (e.g. ADBench result/AUCROC_*.csv, PyOD roc.csv, OpenOOD "
        "results/cifar10.csv, fetched by you): print each file's findings and ranking and write "
        "its critical-difference diagram next to --out",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("leaderboard-findings"), help="folder for the CD diagrams of --files (PNG)"
    )
    args = parser.parse_args(argv)
    if args.files:
        return show_files(args.files, args.out)
    folder = Path(tempfile.mkdtemp(prefix="bench-leaderboards-"))
    cases = [("ADBench-like", lambda: adbench_like(folder / "AUCROC_a.csv", 334, 3, 15))]
    if not args.quick:
        cases += [
            ("ADBench-like", lambda: adbench_like(folder / "AUCROC_b.csv", 57, 3, 30)),
            ("ADBench-like", lambda: adbench_like(folder / "AUCROC_c.csv", 1000, 3, 15)),
            ("PyOD-like", lambda: pyod_like(folder / "roc.csv", 1000, 34)),
            ("OpenOOD-like", lambda: openood_like(folder / "cifar10.csv", 1000)),
        ]
    print(f"{'file':<14}{'rows':>7}{'methods':>9}{'cells':>9}{'read s':>9}{'audit s':>9}{'cli s':>9}{'not pass':>10}")
    for k, (name, make) in enumerate(cases):
        path = make()
        t_read, board = timed(lambda: read_leaderboard(path))
        t_all, audit = timed(lambda: audit_leaderboard(read_leaderboard(path)))
        t_cli = cli_seconds(path, folder / f"report-{k}")
        rows = int(board.table["row"].max())
        bad = sum(f.status != "pass" for f in audit.findings)
        print(
            f"{name:<14}{rows:>7}{len(board.methods):>9}{board.table.shape[0]:>9}{t_read:>9.2f}{t_all:>9.2f}"
            f"{t_cli:>9.2f}{bad:>10}"
        )
    print("budget: a 1 000-row leaderboard (the first line: 1 002 rows) audits in <= 5 s end to end (cli s)")


if __name__ == "__main__":
    main()
