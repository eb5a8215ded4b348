"""Time, peak memory and the planted ID share of ``audit_ood`` at the sizes users run.

Run:  python benchmarks/bench_ood.py                       (ID 50 000 x 512, three OOD sets of 10 000)

Measured (2 shared cores, load average 10 to 18 from other jobs): 94.8 CPU s (385 s wall), peak 792 MB; the
exact backend was chosen (estimated 15.7 s against 54.7 s for the approximate one); ``planted`` (truth 10.2 %)
estimated 10.2 % [9.5, 11.0], its rows ranked by the ID-likeness with AUROC 1.000.
      python benchmarks/bench_ood.py --n 20000 --m 4000    (smaller)
      python benchmarks/bench_ood.py --adbench DIR         (the ADBench ResNet-18 CIFAR-10 / SVHN case)

Synthetic data: ID rows of 10 classes, each a Gaussian around its own centre in a rank-64 subspace plus
isotropic noise (embedding-like); OOD set ``far`` is drawn around other centres far away; ``between``
around the midpoints of pairs of ID centres (measured far: the midpoints lie outside the classes); ``planted`` is ``far`` with 10 % of its rows replaced by fresh ID
rows (not copies) and 20 exact ID copies. Printed: wall and CPU seconds, peak resident memory, the
backend of the main search and its recall, and per set the placement, the ID share (truth for
``planted``: 10 % + 20 copies) and the kNN AUROC.

``--adbench DIR`` reads ``CIFAR10_{0,4,6}.npz`` and ``SVHN_{0,8,9}.npz`` of DIR (ADBench's ResNet-18
embeddings): the normals of the three CIFAR-10 files are a 3-class ID set (500 of them held out), their
anomalies (other CIFAR-10 classes) the near set, the SVHN normals the far set, and ``planted`` 4 500
SVHN normals with the 500 held-out CIFAR-10 normals (10 %).
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

import numpy as np


def synthetic(n: int, m: int, d: int, rng):
    basis = np.linalg.qr(rng.standard_normal((d, 64)))[0].T  # 64 x d orthonormal rows

    def draw(centres, count):
        c = rng.integers(0, len(centres), count)
        return ((centres[c] + rng.standard_normal((count, 64))) @ basis + 0.3 * rng.standard_normal((count, d))).astype(
            np.float32
        ), c

    centres = rng.normal(0, 3, (10, 64))
    X, y = draw(centres, n)
    far, _ = draw(rng.normal(0, 3, (5, 64)) + 12, m)
    near, _ = draw((centres[:5] + centres[5:]) / 2, m)
    planted = far.copy()
    fresh, _ = draw(centres, m // 10)
    planted[: m // 10] = fresh
    planted[m // 10 : m // 10 + 20] = X[rng.choice(n, 20, replace=False)]
    return X, y, {"far": far[::-1].copy(), "between": near, "planted": planted}, (m // 10 + 20) / m


def adbench(folder: Path, rng):
    Xs, ys, an = [], [], []
    for c in (0, 4, 6):
        f = np.load(folder / f"CIFAR10_{c}.npz")
        Xs.append(f["X"][f["y"] == 0])
        ys.append(np.full(int((f["y"] == 0).sum()), c))
        an.append(f["X"][f["y"] == 1])
    X, y = np.vstack(Xs), np.concatenate(ys)
    svhn = np.vstack(
        [np.load(folder / f"SVHN_{c}.npz")["X"][np.load(folder / f"SVHN_{c}.npz")["y"] == 0] for c in (0, 8, 9)]
    )
    perm = rng.permutation(len(X))
    hold, rest = perm[:500], np.sort(perm[500:])
    sets = {"cifar_other": np.vstack(an), "svhn": svhn[4500:], "planted": np.vstack([svhn[:4500], X[hold]])}
    return X[rest], y[rest], sets, 0.1


def main() -> None:
    from auditad.ood import audit_ood

    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=50_000)
    ap.add_argument("--m", type=int, default=10_000)
    ap.add_argument("--d", type=int, default=512)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--adbench", type=Path, default=None)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    if args.adbench:
        X, y, sets, truth = adbench(args.adbench, rng)
        groups = {"near": ["cifar_other"], "far": ["svhn", "planted"]}
    else:
        X, y, sets, truth = synthetic(args.n, args.m, args.d, rng)
        groups = {"far": ["far", "between", "planted"]}
    t0, c0 = time.perf_counter(), time.process_time()
    res = audit_ood(X, y, sets, groups=groups, backend=args.backend, random_state=0)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"ID {X.shape[0]} x {X.shape[1]}, OOD sets {[len(v) for v in sets.values()]}")
    print(f"wall {wall:.1f} s, CPU {cpu:.1f} s, peak {peak:.0f} MB; search {res.neighbors}")
    for s in res.sets:
        c, p, k = s.contamination, s.placement, s.detectors[0]
        print(
            f"  {s.name:12} exact {s.copies.n_exact:5d} near {s.copies.n_near:5d}  lambda {p.ratio:.3f} "
            f"[{p.ratio_low:.3f}, {p.ratio_high:.3f}] {p.placement:10}  ID share {c.estimate:.3f} "
            f"[{c.ci_low:.3f}, {c.ci_high:.3f}]  kNN AUROC {k.auroc:.3f} [{k.auroc_low:.3f}, {k.auroc_high:.3f}]"
        )
    planted = res["planted"]
    n_plant = round(truth * planted.n)
    from sklearn.metrics import roc_auc_score

    is_id = np.zeros(planted.n)
    is_id[:n_plant] = 1 if not args.adbench else 0
    if args.adbench:
        is_id[-500:] = 1
    print(
        f"planted: truth {truth:.3f}, AUROC of the ID-likeness for the planted rows {roc_auc_score(is_id, planted.samples['id_likeness']):.4f}"
    )


if __name__ == "__main__":
    main()
