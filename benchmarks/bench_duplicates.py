"""Time and counts of ``find_duplicates`` (exact groups) against ``np.unique(X, axis=0)``.

Run:  python benchmarks/bench_duplicates.py                 (1 000 000 x 128 float32 and two more shapes)
      python benchmarks/bench_duplicates.py --quick         (100 000 rows)
      python benchmarks/bench_duplicates.py --adbench DIR   (counts of every ADBench/ODDS ``*.npz`` in DIR)
      python benchmarks/bench_duplicates.py --adbench DIR --near   (their near duplicates, exact kNN)

Reference: ``np.unique(X, axis=0, return_inverse=True, return_counts=True)``, which sorts the
rows lexicographically (O(n log n) row comparisons). ``find_duplicates`` hashes each row's bytes
to 64 bits (O(n)), groups the hashes with a hash table and verifies every member of a group
against its first row. Both must give the same number of distinct rows, groups, rows in groups
and extra copies (and, with labels, conflicting groups and rows); the table prints both times
and their ratio.

Data: ``n`` rows of N(0, 1) values; 10 % of the rows are replaced by copies of other rows (each
copy keeps or changes its label at random, so some groups carry two labels), and one value is
copied 1000 times. Labels are 0/1 with 5 % ones. Each timing is the best of ``--repeat`` runs
in this process, after the data are built.

``--adbench DIR`` reads ``X`` and ``y`` of each ``*.npz`` file (ADBench's ``Classical`` folder
layout, 1 = anomaly) and prints, per file, the counts of ``find_duplicates`` beside those of
``np.unique`` (files are read from DIR; nothing is downloaded).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np


def planted(n: int, d: int, dtype, rng: np.random.Generator):
    """Rows with planted exact copies and 0/1 labels (some copies change label)."""
    X = rng.standard_normal((n, d), dtype=np.float32 if dtype == np.float32 else np.float64).astype(dtype, copy=False)
    y = (rng.random(n) < 0.05).astype(np.int64)
    m = n // 10
    dst = rng.choice(n, size=m, replace=False)
    src = rng.integers(0, n, size=m)
    X[dst] = X[src]
    flip = rng.random(m) < 0.2
    y[dst] = np.where(flip, 1 - y[src], y[src])
    big = dst[: min(1000, m // 2)]
    X[big] = X[dst[0]]
    return X, y


def unique_counts(X, y=None) -> dict:
    """Counts from np.unique(X, axis=0) (the reference); conflicts from (value, label) pairs."""
    _, inv, counts = np.unique(X, axis=0, return_inverse=True, return_counts=True)
    inv = inv.ravel()
    out = {
        "n_distinct": int(counts.size),
        "n_groups": int(np.sum(counts > 1)),
        "n_rows_in_groups": int(counts[counts > 1].sum()),
        "n_extra_copies": int(X.shape[0] - counts.size),
    }
    if y is not None:
        codes = np.unique(y, return_inverse=True)[1].ravel()
        pairs = np.unique(np.stack([inv, codes], axis=1), axis=0)
        n_labels = np.bincount(pairs[:, 0], minlength=counts.size)
        conflicting = n_labels >= 2
        out["n_conflicting_groups"] = int(conflicting.sum())
        out["n_conflicting_rows"] = int(counts[conflicting].sum())
    return out


def ours_counts(res) -> dict:
    out = {
        "n_distinct": res.n_distinct,
        "n_groups": res.n_groups,
        "n_rows_in_groups": res.n_rows_in_groups,
        "n_extra_copies": res.n_extra_copies,
    }
    if res.labels is not None:
        out["n_conflicting_groups"] = res.n_conflicting_groups
        out["n_conflicting_rows"] = res.n_conflicting_rows
    return out


def best_of(fn, repeat: int):
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def bench_synthetic(shapes, repeat: int) -> None:
    from auditad.duplicates import find_duplicates

    print(
        "| n | d | dtype | find_duplicates | np.unique(axis=0) | ratio | counts agree | groups | rows in groups "
        "| extra copies | conflicting rows |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for n, d, dtype in shapes:
        X, y = planted(n, d, dtype, np.random.default_rng(0))
        t_ours, res = best_of(lambda: find_duplicates(X, y, near_threshold=None), repeat)
        t_ref, ref = best_of(lambda: unique_counts(X, y), 1)
        ours = ours_counts(res)
        print(
            f"| {n:,} | {d} | {np.dtype(dtype).name} | {t_ours:.2f} s | {t_ref:.2f} s | {t_ref / t_ours:.1f} | "
            f"{'yes' if ours == ref else 'NO: ' + str((ours, ref))} | {ours['n_groups']:,} | "
            f"{ours['n_rows_in_groups']:,} | {ours['n_extra_copies']:,} | {ours['n_conflicting_rows']:,} |",
            flush=True,
        )


def bench_adbench_near(folder: Path, max_distinct: int) -> None:
    """Near duplicates (auto threshold, exact search over the distinct rows, k = 10) of each file."""
    from auditad.duplicates import find_duplicates

    print(
        "| data set | distinct rows | nn distance median | near threshold | near pairs | rows in near groups "
        "| near groups | conflicting near groups | rows in conflicting near groups | time |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for path in _files(folder):
        with np.load(path, allow_pickle=False) as data:
            X, y = np.asarray(data["X"]), np.asarray(data["y"]).ravel()
        exact = find_duplicates(X, y, near_threshold=None)
        if exact.n_distinct > max_distinct:
            print(
                f"| {path.stem} | {exact.n_distinct:,} | skipped (more than {max_distinct:,} distinct rows) "
                "| | | | | | | |",
                flush=True,
            )
            continue
        t = time.perf_counter()
        res = find_duplicates(X, y, backend="exact")
        t = time.perf_counter() - t
        print(
            f"| {path.stem} | {res.n_distinct:,} | {res.nn_distance_median:.4g} | {res.near_threshold:.4g} | "
            f"{res.n_near_pairs:,} | {res.n_near_rows:,} | {res.n_near_groups:,} | "
            f"{res.n_near_conflicting_groups:,} | {res.n_near_conflicting_rows:,} | {t:.1f} s |",
            flush=True,
        )


def _files(folder: Path) -> list:
    return sorted(folder.glob("*.npz"), key=lambda p: (int(p.name.split("_")[0]) if p.name[0].isdigit() else 0, p.name))


def bench_adbench(folder: Path) -> None:
    from auditad.duplicates import find_duplicates

    find_duplicates(np.zeros((2, 1)), [0, 1], near_threshold=None)  # imports (pandas) outside the timings

    files = _files(folder)
    print(
        "| data set | n | d | dtype | anomalies | rows in groups | extra copies | groups | conflicting rows "
        "| conflicting groups | largest group | AUROC ceiling | np.unique agrees | time | np.unique time |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for path in files:
        with np.load(path, allow_pickle=False) as data:
            X, y = np.asarray(data["X"]), np.asarray(data["y"]).ravel()
        t_ours, res = best_of(lambda: find_duplicates(X, y, near_threshold=None), 1)
        t_ref, ref = best_of(lambda: unique_counts(X, y), 1)
        ceiling = res.auroc_ceiling() if res.anomaly_labels is not None else float("nan")
        agree = "yes" if ours_counts(res) == ref else f"NO {ref}"
        print(
            f"| {path.stem} | {res.n_samples:,} | {res.n_features} | {res.dtype} | {int(res.is_anomaly.sum()):,} | "
            f"{res.n_rows_in_groups:,} | {res.n_extra_copies:,} | {res.n_groups:,} | {res.n_conflicting_rows:,} | "
            f"{res.n_conflicting_groups:,} | {res.largest_group:,} | {ceiling:.6f} | {agree} | {t_ours:.2f} s | "
            f"{t_ref:.2f} s |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="100 000 rows instead of 1 000 000")
    parser.add_argument("--repeat", type=int, default=3, help="timings of find_duplicates: best of this many runs")
    parser.add_argument("--adbench", type=Path, default=None, help="folder of ADBench/ODDS *.npz files (X, y)")
    parser.add_argument("--near", action="store_true", help="with --adbench: near duplicates instead (exact kNN)")
    parser.add_argument(
        "--max-distinct",
        type=int,
        default=60_000,
        help="with --near: skip files with more distinct rows (exact search cost)",
    )
    args = parser.parse_args()
    if args.adbench is not None:
        if args.near:
            bench_adbench_near(args.adbench, args.max_distinct)
        else:
            bench_adbench(args.adbench)
        return
    n = 100_000 if args.quick else 1_000_000
    bench_synthetic([(n, 128, np.float32), (n, 10, np.float64), (n // 10, 1555, np.float64)], args.repeat)


if __name__ == "__main__":
    main()
