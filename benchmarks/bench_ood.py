"""Time, peak memory and the planted ID share of ``audit_ood`` at the sizes users run.

Run:  python benchmarks/bench_ood.py                       (ID 50 000 x 512, three OOD sets of 10 000)

Measured on 2 otherwise idle cores: 27.5 s wall, 51.1 CPU s, peak 742 MB; ``auto`` chose the approximate
backend, an exact search in the 128-d projection (recall 0.992). ``planted`` (truth 10.2 %) estimated 10.2 %
[9.5, 11.0], its rows ranked by the ID-likeness with AUROC 1.000. At ImageNet-1k size (the last command below):
516.7 s wall for the audit, 865.7 CPU s, peak 9.08 GB, recall 0.893; planted 0.102 [0.097, 0.106] for a truth
of 0.101.
      python benchmarks/bench_ood.py --n 20000 --m 4000    (smaller)
      python benchmarks/bench_ood.py --adbench DIR         (the ADBench ResNet-18 CIFAR-10 / SVHN case)
      python benchmarks/bench_ood.py --n 128000 --d 2048 --sets 5 --mmap TMPDIR   (memory-mapped, approximate)
      python benchmarks/bench_ood.py --n 1280000 --d 2048 --m 30000 --sets 5 --mmap TMPDIR --backend approximate
                                                           (ImageNet-1k size; the ID rows written block by block)

Synthetic data: ID rows of 10 classes, each a Gaussian around its own centre in a rank-64 subspace plus
isotropic noise (embedding-like); OOD set ``far`` is drawn around other centres far away; ``between``
around the midpoints of pairs of ID centres (measured far: the midpoints lie outside the classes);
``planted`` is ``far`` with 10 % of its rows replaced by fresh ID rows (not copies) and 20 exact ID copies;
``--sets N`` adds far sets ``far3``, ... around their own centres. Printed: wall and CPU seconds, peak
resident memory, the
backend of the main search and its recall, and per set the placement, the ID share (truth for
``planted``: 10 % + 20 copies) and the kNN AUROC.

``--adbench DIR`` reads ``CIFAR10_{0,4,6}.npz`` and ``SVHN_{0,8,9}.npz`` of DIR (ADBench's ResNet-18
embeddings): the normals of the three CIFAR-10 files are a 3-class ID set (500 of them held out), their
anomalies (other CIFAR-10 classes) the near set, the SVHN normals the far set, and ``planted`` 4 500
SVHN normals with the 500 held-out CIFAR-10 normals (10 %).
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from pathlib import Path

import numpy as np


def synthetic(n: int, m: int, d: int, rng, n_sets: int = 3, out: Path | None = None):
    """The synthetic ID set and OOD sets; with ``out``, the ID rows are written to ``out`` (a ``.npy``) block by
    block and returned memory-mapped (1.28M x 2048 float32 is 10.5 GB: never held whole, nor its float64 draws)."""
    basis = np.linalg.qr(rng.standard_normal((d, 64)))[0].T  # 64 x d orthonormal rows

    def draw(centres, count):
        c = rng.integers(0, len(centres), count)
        return ((centres[c] + rng.standard_normal((count, 64))) @ basis + 0.3 * rng.standard_normal((count, d))).astype(
            np.float32
        ), c

    centres = rng.normal(0, 3, (10, 64))
    if out is None:
        X, y = draw(centres, n)
    else:
        X = np.lib.format.open_memmap(out, mode="w+", dtype=np.float32, shape=(n, d))
        y = np.empty(n, dtype=np.int64)
        for a in range(0, n, 50_000):  # (the same distribution, drawn in blocks)
            X[a : a + 50_000], y[a : a + 50_000] = draw(centres, min(50_000, n - a))
        X.flush()
    far, _ = draw(rng.normal(0, 3, (5, 64)) + 12, m)
    near, _ = draw((centres[:5] + centres[5:]) / 2, m)
    planted = far.copy()
    fresh, _ = draw(centres, m // 10)
    planted[: m // 10] = fresh
    planted[m // 10 : m // 10 + 20] = X[rng.choice(n, 20, replace=False)]
    sets = {"far": far[::-1].copy(), "between": near, "planted": planted}
    for j in range(3, n_sets):  # more far sets, around their own centres
        sets[f"far{j}"] = draw(rng.normal(0, 3, (5, 64)) - 12 + 4 * j, m)[0]
    return X, y, sets, (m // 10 + 20) / m


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
    ap.add_argument("--sets", type=int, default=3, help="synthetic OOD sets (at least 3)")
    ap.add_argument("--detectors", default="knn", help="comma-separated, e.g. knn,lof,iforest")
    ap.add_argument("--mmap", type=Path, default=None, help="write the ID rows to DIR/id.npy and memory-map them")
    ap.add_argument("--adbench", type=Path, default=None)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    if args.adbench:
        X, y, sets, truth = adbench(args.adbench, rng)
        groups = {"near": ["cifar_other"], "far": ["svhn", "planted"]}
    else:
        big = args.mmap is not None and args.n * args.d > 2**28  # (blocks straight to disk: no copy in memory)
        if args.mmap is not None:
            args.mmap.mkdir(parents=True, exist_ok=True)
        X, y, sets, truth = synthetic(
            args.n, args.m, args.d, rng, max(3, args.sets), out=args.mmap / "id.npy" if big else None
        )
        groups = {"far": list(sets)}
    if args.mmap is not None:  # the ID rows read from disk through a memory map (only touched pages resident)
        if not isinstance(X, np.memmap):
            args.mmap.mkdir(parents=True, exist_ok=True)
            np.save(args.mmap / "id.npy", X)
        del X
        from auditad.inputfiles import open_npy

        X = open_npy(args.mmap / "id.npy", name="--mmap")  # as the command line reads it (pages released)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    try:  # Linux: reset the peak resident set, so that VmHWM is the audit's own peak (not the data generation's)
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass
    t0, c0 = time.perf_counter(), time.process_time()
    res = audit_ood(
        X, y, sets, groups=groups, backend=args.backend, detectors=args.detectors.split(","), random_state=0
    )
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    status = Path("/proc/self/status")
    if status.is_file():
        fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        peak = int(fields["VmHWM"].split()[0]) / 1024 if "VmHWM" in fields else peak
    print(f"ID {X.shape[0]} x {X.shape[1]}, OOD sets {[len(v) for v in sets.values()]}, load {os.getloadavg()[0]:.1f}")
    print(
        f"wall {wall:.1f} s, CPU {cpu:.1f} s, peak RSS of the audit {peak:.0f} MB (of the data generation {base:.0f} MB)"
    )
    print(f"search {res.neighbors}")
    for s in res.sets:
        c, p = s.contamination, s.placement
        aurocs = "  ".join(
            f"{d.detector} AUROC {d.auroc:.3f} [{d.auroc_low:.3f}, {d.auroc_high:.3f}]" for d in s.detectors
        )
        print(
            f"  {s.name:12} exact {s.copies.n_exact:5d} near {s.copies.n_near:5d}  lambda {p.ratio:.3f} "
            f"[{p.ratio_low:.3f}, {p.ratio_high:.3f}] {p.placement:10}  ID share {c.estimate:.3f} "
            f"[{c.ci_low:.3f}, {c.ci_high:.3f}]  {aurocs}"
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
