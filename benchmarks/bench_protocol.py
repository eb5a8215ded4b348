"""Class-split protocol audit on load_digits and on real ResNet-18 embeddings (CIFAR-10, SVHN).

Run as ``python benchmarks/bench_protocol.py [--data DIR] [--repeats 3] [--n-jobs 1]``, or
``python benchmarks/bench_protocol.py --scale 20000,64,100`` for the scale run (3.).

1. Summary tables of :func:`auditad.protocol.audit_protocol` (K−1 vs 1, kNN /
   Isolation Forest / LOF, ε = 0.05) on scikit-learn's digits (pixels and
   PCA-16) and on the two real 3-class sets in
   ``../shared/data/adbench-resnet18/`` (the normals ``y == 0`` of the three
   files of one dataset, labelled by file; representations: the 512-d
   ResNet-18 features and their first 32 principal components), with run times.
2. Timing against a reference implementation: a plain scikit-learn loop
   (``NearestNeighbors`` k-th distance + ``roc_auc_score``) over the same
   held-out classes and the same user split, for the kNN detector only; the
   AUROCs must agree to 1e-12.
3. ``--scale n,d,K``: the default protocol (kNN, Isolation Forest, LOF,
   leakage k = 10, one repeat) on synthetic overlapping Gaussian classes (K
   class means on a 12-d latent subspace of R^d, unit noise), printing wall
   and CPU time. The same function runs on an older auditad (set PYTHONPATH to
   its tree) for a before/after comparison.
4. ``--tasks n,d,K[,k]``: the per-task scoring of the neighbour detectors (kNN and LOF, K−1 vs 1, one
   repeat, no leakage) at ``n_jobs`` 1 and 2, interleaved, best of ``--runs``: the shared neighbour pass
   is computed once and reused, so only the scoring of the K tasks is timed; the AUROCs of both must be
   identical.

The data files are read from disk only here (never in the tests) and are
never copied into the repository.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

from auditad.datasets import load_example
from auditad.protocol import audit_protocol

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "adbench-resnet18"
COLS = [
    "representation",
    "detector",
    "mean_auc",
    "sigma2_auc",
    "range_auc",
    "rho_rnd",
    "rho_inv",
    "rho_dir",
    "rho_nonsig",
    "rho_dir_split_std",
    "leakage_L_k",
    "spearman_leakage_auroc",
]


def load_real(data_dir: Path, dataset: str, files: tuple[str, ...]):
    """Stack the normals (y == 0) of the files of one dataset, labelled by the file's class."""
    Xs, ys = [], []
    for f in files:
        with np.load(data_dir / f"{dataset}_{f}.npz") as npz:
            keep = npz["y"] == 0
            Xs.append(npz["X"][keep].astype(np.float64))
            ys.append(np.full(int(keep.sum()), int(f)))
    return np.vstack(Xs), np.concatenate(ys)


def pca(X, n):
    Xc = X - X.mean(axis=0)
    _, _, vt = np.linalg.svd(Xc, full_matrices=False)
    return Xc @ vt[:n].T


def run(name, reps, y, *, repeats, n_jobs):
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = audit_protocol(reps, y, repeats=repeats, n_jobs=n_jobs, random_state=0, progress=False)
    dt = time.perf_counter() - t0
    print(
        f"\n## {name}: n = {y.size}, K = {len(np.unique(y))}, repeats = {repeats}, epsilon = {res.epsilon}, "
        f"run time {dt:.1f} s"
    )
    print(res.to_frame("summary")[COLS].to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    per_class = res.to_frame().query("detector != 'mean'")
    if len(np.unique(y)) <= 4:
        print(
            per_class[
                [
                    "representation",
                    "detector",
                    "class",
                    "n_pos",
                    "n_neg",
                    "auroc",
                    "auroc_split_std",
                    "ci_low",
                    "ci_high",
                    "p_value",
                    "leakage",
                ]
            ].to_string(index=False, float_format=lambda v: f"{v:.3g}")
        )
    for w in caught:
        print(f"warning: {w.category.__name__}: {w.message}")
    return dt


def reference_loop(X, y, split, k):
    """Plain scikit-learn K−1 vs 1 kNN loop (the reference implementation)."""
    from sklearn.metrics import roc_auc_score
    from sklearn.neighbors import NearestNeighbors

    out = []
    for c in np.unique(y):
        train = (y != c) & split
        tn, an = (y != c) & ~split, (y == c) & ~split
        Z = np.vstack([X[tn], X[an]])
        lab = np.r_[np.zeros(tn.sum()), np.ones(an.sum())]
        s = NearestNeighbors(n_neighbors=k).fit(X[train]).kneighbors(Z)[0][:, -1]
        out.append(roc_auc_score(lab, s))
    return np.array(out)


def timing(name, X, y, k=5):
    split = np.random.default_rng(0).random(y.size) < 0.8
    t0 = time.perf_counter()
    ref = reference_loop(X, y, split, k)
    t_ref = time.perf_counter() - t0
    t0 = time.perf_counter()
    res = audit_protocol(X, y, detectors=["knn"], k=k, split=split, leakage_k=0, random_state=0)
    t_us = time.perf_counter() - t0
    diff = float(np.max(np.abs(res.auroc[0, 0, :, 0] - ref)))
    return f"| {name} | {y.size} | {X.shape[1]} | {t_us:.2f} | {t_ref:.2f} | {t_us / t_ref:.2f} | {diff:.1e} |"


def gaussian_classes(n, d, K, seed=0):
    """K overlapping Gaussian classes: means on a 12-d latent subspace of R^d, unit isotropic noise."""
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.normal(size=(d, 12)))[0]
    means = rng.normal(scale=1.5, size=(K, 12)) @ basis.T
    y = np.repeat(np.arange(K), -(-n // K))[:n]
    return means[y] + rng.normal(size=(n, d)), y


def scale(n, d, K):
    import auditad

    X, y = gaussian_classes(n, d, K)
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = audit_protocol(X, y, random_state=0)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    m = res.summary()
    print(
        f"scale run (auditad from {Path(auditad.__file__).parent}): n = {n}, d = {d}, K = {K}: wall {wall:.1f} s, "
        f"CPU {cpu:.1f} s; mean rho_inv {m['rho_inv']:.3f}, rho_dir {m['rho_dir']:.3f}, "
        f"mean AUROC {m['mean_auc']:.4f}"
    )
    return res


def tasks_phase(n, d, K, k=10, runs=3):
    """Wall seconds of the per-task scoring at n_jobs 1 and 2 (interleaved, best of ``runs``)."""
    from auditad.protocol import execution_stage
    from auditad.protocol.strategies import LeaveOneClassOut

    X, y = gaussian_classes(n, d, K)
    cache, timer = {}, {"pass": 0.0, "all": 0.0}
    pass_of = LeaveOneClassOut.neighbour_pass

    def cached_pass(self, X, y_idx, tasks, k, **kw):  # the shared pass once, reused by every run
        key = (id(X), k, len(tasks), kw["metric"], kw["backend"])
        if key not in cache:
            t0 = time.perf_counter()
            cache[key] = pass_of(self, X, y_idx, tasks, k, **kw)
            print(f"shared neighbour pass: {time.perf_counter() - t0:.1f} s (computed once)")
        return cache[key]

    outputs = execution_stage._neighbour_outputs

    def timed(*args, **kw):
        t0 = time.perf_counter()
        try:
            return outputs(*args, **kw)
        finally:
            timer["all"] += time.perf_counter() - t0

    LeaveOneClassOut.neighbour_pass, execution_stage._neighbour_outputs = cached_pass, timed
    best, aurocs = {1: np.inf, 2: np.inf}, {}
    try:
        for _ in range(runs + 1):  # (the first run builds the pass: not timed)
            for jobs in (1, 2):
                timer["all"] = 0.0
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = audit_protocol(X, y, detectors=("knn", "lof"), k=k, leakage_k=0, n_jobs=jobs, random_state=0)
                if cache and aurocs.get(jobs) is not None:
                    best[jobs] = min(best[jobs], timer["all"])
                aurocs[jobs] = res.auroc
    finally:
        LeaveOneClassOut.neighbour_pass, execution_stage._neighbour_outputs = pass_of, outputs
    same = np.array_equal(aurocs[1], aurocs[2], equal_nan=True)
    print(
        f"per-task scoring (kNN + LOF, k = {k}), n = {n}, d = {d}, K = {K}: n_jobs 1 {best[1]:.2f} s, "
        f"n_jobs 2 {best[2]:.2f} s (x{best[1] / best[2]:.2f}); AUROCs identical: {same}"
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--scale", default=None, help="n,d,K: time the default protocol on synthetic classes")
    ap.add_argument("--save", type=Path, default=None, help="with --scale: save the AUROC array (.npy)")
    ap.add_argument("--tasks", default=None, help="n,d,K[,k]: time the per-task scoring at n_jobs 1 and 2")
    ap.add_argument("--runs", type=int, default=3, help="with --tasks: runs per n_jobs (best is kept)")
    args = ap.parse_args()
    if args.tasks:
        tasks_phase(*(int(v) for v in args.tasks.split(",")), runs=args.runs)
        return
    if args.scale:
        n, d, K = (int(v) for v in args.scale.split(","))
        res = scale(n, d, K)
        if args.save is not None:
            np.save(args.save, res.auroc)
        return

    bench = load_example()
    total = run("digits (load_digits)", bench.representations, bench.y, repeats=args.repeats, n_jobs=args.n_jobs)
    timings = [timing("digits pixels", bench.representations["pixels"], bench.y)]
    real = {"CIFAR10": ("0", "4", "6"), "SVHN": ("0", "8", "9")}
    if (args.data / "CIFAR10_0.npz").exists():
        for dataset, files in real.items():
            X, y = load_real(args.data, dataset, files)
            reps = {"resnet18": X, "pca32": pca(X, 32)}
            total += run(
                f"{dataset} ResNet-18 normals of classes {', '.join(files)}",
                reps,
                y,
                repeats=args.repeats,
                n_jobs=args.n_jobs,
            )
            timings.append(timing(f"{dataset} resnet18", X, y))
    else:
        print(f"\n(real data not found in {args.data}; skipped)")
    print("\n## kNN K-1 vs 1 loop: auditad vs scikit-learn reference (NearestNeighbors + roc_auc_score)")
    print("| data | n | d | auditad s | sklearn s | ratio | max |ΔAUROC| |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(timings))
    print(f"\ntotal audit time {total:.1f} s")


if __name__ == "__main__":
    main()
