"""L_k of a real 3-class benchmark at extreme magnitudes: the exact kNN engine must give the same answer.

Reads the normals of the three ADBench ResNet-18 files of one dataset (e.g. CIFAR10_{0,4,6}.npz,
each with arrays X and y, y = 0 the file's normal class) and prints L_k (k = 10, exact backend)
of the data as is, multiplied by 2**66 and by 2**-84 (exact in floating point), and shifted by 1e8.
Scaling by a power of two must not change L_k at all; the shift changes the float64 rounding of
the coordinates, so only near-ties may move.

    python benchmarks/bench_magnitudes.py --data ../shared/data/adbench-resnet18 --dataset CIFAR10 --classes 0 4 6
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from auditad import leakage


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True, help="folder with the ADBench .npz files")
    ap.add_argument("--dataset", default="CIFAR10")
    ap.add_argument("--classes", nargs="+", default=["0", "4", "6"])
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args()
    xs, ys = [], []
    for c in args.classes:
        with np.load(args.data / f"{args.dataset}_{c}.npz", allow_pickle=False) as f:
            X, y = f["X"], f["y"]
        xs.append(X[y == 0].astype(np.float64))
        ys.append(np.full(int((y == 0).sum()), c))
    X, y = np.concatenate(xs), np.concatenate(ys)
    print(f"{args.dataset} normals of classes {', '.join(args.classes)}: n = {len(y)}, d = {X.shape[1]}, k = {args.k}")
    print(f"{'data':>14} | {'L_k':>18} | {'time s':>7}")
    ref = None
    for name, Z in (("as is", X), ("x 2^66", np.ldexp(X, 66)), ("x 2^-84", np.ldexp(X, -84)), ("+ 1e8", X + 1e8)):
        t0 = time.perf_counter()
        r = leakage(Z, y, k=args.k, backend="exact")
        dt = time.perf_counter() - t0
        ref = r.L_k if ref is None else ref
        print(f"{name:>14} | {r.L_k:.16f} | {dt:7.2f}   (difference {r.L_k - ref:+.1e})")


if __name__ == "__main__":
    main()
