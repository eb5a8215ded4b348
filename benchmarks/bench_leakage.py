"""Time and memory of L_k: auditad's exact and approximate kNN vs scikit-learn brute force.

Run:  python benchmarks/bench_leakage.py            (full table, ~20 min on 2 cores)
      python benchmarks/bench_leakage.py --quick    (n = 5k and 20k only, ~1 min)
      python benchmarks/bench_leakage.py --lk-target [--lk-n 1000000]
            (the scale target: approximate L_k at 1M x 128 in <= 3 min wall including numba
             compilation, |dL_k| <= 0.001 against exact search on a 20k-query sample; ~5 min)
      python benchmarks/bench_leakage.py --cost-model
            (measures the constants of auditad.neighbors' backend="auto" cost model; ~3 min)

Reference: scikit-learn ``NearestNeighbors(algorithm="brute")`` on the same
float32 data, computing the same L_k.  Every run happens in a fresh process
(peak RSS above the loaded data is reported; pynndescent's numba compilation is included).
Data: see make_data (10 overlapping classes on a 12-d latent subspace, L_10 ≈ 0.25).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path

import numpy as np

# measure this checkout, not whatever auditad happens to be installed
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def make_data(n, d, seed=0, latent=12):
    """Embedding-like data: a 10-class Gaussian mixture in a 12-dimensional latent space, mapped
    linearly into d dimensions plus small isotropic noise (real embeddings have a low intrinsic
    dimension; isotropic noise in 128-d is a worst case that no embedding model produces).
    Class overlap gives L_10 ≈ 0.25. Generated in float32 chunks so no large temporary inflates
    the measured peak memory."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(10, latent))
    W = (np.linalg.qr(rng.normal(size=(d, latent)))[0].T * 3).astype(np.float32)
    y = rng.integers(0, 10, n)
    X = np.empty((n, d), dtype=np.float32)
    for a in range(0, n, 10000):
        b = min(a + 10000, n)
        Z = (centers[y[a:b]] + rng.normal(size=(b - a, latent))).astype(np.float32)
        X[a:b] = Z @ W + 0.1 * rng.standard_normal(size=(b - a, d), dtype=np.float32)
    return X, y


def lk_from_indices(idx, y):
    return float((y[idx] != y[:, None]).mean())


def run_sklearn(X, y, k):
    from sklearn.neighbors import NearestNeighbors

    t = time.perf_counter()
    _, idx = NearestNeighbors(n_neighbors=k, algorithm="brute").fit(X).kneighbors()
    return time.perf_counter() - t, lk_from_indices(idx, y)


def run_auditad(X, y, k, backend):
    from auditad.leakage import leakage

    t = time.perf_counter()
    res = leakage(X, y, k=k, backend=backend, random_state=0, recall_sample=200 if backend == "approximate" else 0)
    return time.perf_counter() - t, res.L_k, res.recall


def _child(kind, n, d, k, queue):
    import resource

    X, y = make_data(n, d)
    import auditad.leakage  # noqa: F401  (imports outside the timed region)
    import sklearn.neighbors  # noqa: F401

    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if kind == "sklearn":
        t, lk = run_sklearn(X, y, k)
        rec = None
    else:
        t, lk, rec = run_auditad(X, y, k, kind)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    queue.put((t, lk, rec, (peak - base) / 1024.0))


def in_fresh_process(kind, n, d, k):
    """Run one measurement in a new interpreter: returns (call seconds, L_k, recall, extra peak RSS MB).

    A fresh process per run makes the peak-memory figure honest (ru_maxrss only
    grows) and includes pynndescent's numba compilation in the approximate time.
    """
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(kind, n, d, k, q))
    p.start()
    out = q.get()
    p.join()
    return out


DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "adbench-resnet18"


def real_data_leakage(data_dir: Path, k: int) -> None:
    """L_k of the real 3-class sets: the normals of CIFAR10_{0,4,6} and SVHN_{0,8,9}, labelled by file."""
    from auditad.leakage import leakage

    if not data_dir.is_dir():
        print(f"(real-data L_k skipped: {data_dir} not found)\n")
        return
    print(f"L_k (k={k}, exact, euclidean and cosine) of the real ResNet-18 3-class benchmarks")
    print(f"{'dataset':>8} {'n':>6} | {'L_k eucl':>8} {'L_k cos':>8} {'chance':>7} | per class (euclidean)")
    for dataset, files in (("CIFAR10", ("0", "4", "6")), ("SVHN", ("0", "8", "9"))):
        Xs, ys = [], []
        for f in files:
            with np.load(data_dir / f"{dataset}_{f}.npz") as npz:
                keep = npz["y"] == 0
                Xs.append(npz["X"][keep])
                ys.append(np.full(int(keep.sum()), int(f)))
        X, y = np.vstack(Xs), np.concatenate(ys)
        e = leakage(X, y, k=k, backend="exact")
        c = leakage(X, y, k=k, backend="exact", metric="cosine")
        per = ", ".join(f"{cl}: {v:.3f}" for cl, v in zip(e.classes, e.per_class_leakage))
        print(f"{dataset:>8} {len(y):>6} | {e.L_k:8.4f} {c.L_k:8.4f} {e.chance:7.4f} | {per}", flush=True)
    print()


def _lk_target_child(n, d, k, sample, queue):
    """Approximate L_k of n x d (fresh process: compilation included), then exact L_k of a query sample."""
    import resource

    X, y = make_data(n, d)
    from auditad.neighbors import kneighbors
    from auditad.leakage import leakage

    def cpu():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t, c = time.perf_counter(), cpu()
    res = leakage(X, y, k=k, backend="approximate", random_state=0)
    wall, cpu_s = time.perf_counter() - t, cpu() - c
    peak = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024.0
    # exact neighbours of a random query sample among all other rows (k + 1, then drop the row itself)
    rng = np.random.default_rng(1)
    pick = np.sort(rng.choice(n, size=min(sample, n), replace=False))
    t = time.perf_counter()
    ex = kneighbors(X, X[pick], k=k + 1, backend="exact")
    t_exact = time.perf_counter() - t
    is_self = ex.indices == pick[:, None]
    drop = np.where(is_self.any(axis=1), is_self.argmax(axis=1), k)
    keep = np.ones(ex.indices.shape, dtype=bool)
    keep[np.arange(len(pick)), drop] = False
    nbr = ex.indices[keep].reshape(len(pick), k)
    lk_exact = float((y[nbr] != y[pick][:, None]).mean())
    lk_approx_sample = float(res.per_sample[pick, 0].mean())
    queue.put((wall, cpu_s, peak, res.L_k, res.recall, lk_approx_sample, lk_exact, t_exact))


def lk_target(n, d, k, sample):
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_lk_target_child, args=(n, d, k, sample, q))
    p.start()
    wall, cpu_s, peak, lk, rec, lk_s, lk_e, t_e = q.get()
    p.join()
    print(f"L_k target: approximate L_{k} of {n} x {d} in a fresh process (numba compilation included)")
    print(
        f"  wall {wall:.1f} s (target <= 180 s), CPU {cpu_s:.1f} s, extra peak RSS {peak:.0f} MB, "
        f"L_k {lk:.5f}, recall {rec:.4f}"
    )
    print(
        f"  {sample}-query sample: approximate {lk_s:.5f}, exact {lk_e:.5f}, "
        f"|dL_k| = {abs(lk_s - lk_e):.5f} (target <= 0.001); exact sample search {t_e:.1f} s"
    )


def _cost_model_child(queue):
    """Wall and CPU seconds of each term of auditad.neighbors.estimate_seconds, in one fresh process."""
    import resource

    from auditad.neighbors import kneighbors

    def cpu():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    def timed(*args, **kw):
        c, w = cpu(), time.perf_counter()
        kneighbors(*args, **kw)
        return np.array([time.perf_counter() - w, cpu() - c])  # (wall, CPU)

    def best(*args, repeats=2, **kw):  # the faster of two runs (wall), with its CPU seconds
        return min((timed(*args, **kw) for _ in range(repeats)), key=lambda t: t[0])

    out = {}
    small, _ = make_data(2000, 128)
    out["build_compile"] = timed(small, k=10, backend="approximate", random_state=0, recall_sample=0)
    out["build_compile"] -= timed(small, k=10, backend="approximate", random_state=0, recall_sample=0)
    q_small = make_data(500, 128, seed=1)[0]
    out["query_compile"] = timed(small, q_small, k=10, backend="approximate", random_state=0, recall_sample=0)
    out["query_compile"] -= timed(small, q_small, k=10, backend="approximate", random_state=0, recall_sample=0)
    X, _ = make_data(50000, 128)
    build = best(X, k=10, backend="approximate", random_state=0, recall_sample=0)
    out["build_per_unit"] = build / (50000 * (128 + 32))
    Q = make_data(12500, 128, seed=1)[0]
    both = best(X, Q, k=10, backend="approximate", random_state=0, recall_sample=0)
    out["query_per_unit"] = (both - build) / (12500 * (128 + 32))
    out["exact_per_op"] = np.mean(
        [best(X[:n], k=10, backend="exact") / (float(n) * n * (128 + 64)) for n in (20000, 40000)], axis=0
    )
    queue.put(out)


def cost_model():
    from auditad import neighbors as nb

    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_cost_model_child, args=(q,))
    p.start()
    out = q.get()
    p.join()
    print(f"Cost model of backend='auto' (one fresh process, {os.cpu_count()} CPUs; wall seconds are what the model")
    print("estimates, CPU seconds for comparison; the faster of two runs):")
    rows = [
        ("EXACT_SECONDS_PER_OP", out["exact_per_op"], nb.EXACT_SECONDS_PER_OP),
        ("NUMBA_BUILD_COMPILE_SECONDS", out["build_compile"], nb.NUMBA_BUILD_COMPILE_SECONDS),
        ("NUMBA_QUERY_COMPILE_SECONDS", out["query_compile"], nb.NUMBA_QUERY_COMPILE_SECONDS),
        ("APPROX_BUILD_SECONDS_PER_UNIT", out["build_per_unit"], nb.APPROX_BUILD_SECONDS_PER_UNIT),
        ("APPROX_QUERY_SECONDS_PER_UNIT", out["query_per_unit"], nb.APPROX_QUERY_SECONDS_PER_UNIT),
    ]
    print(f"{'constant':>30} {'wall':>10} {'CPU':>10} {'in code':>10} {'code/wall':>10}")
    for name, (wall, cpu), cur in rows:
        print(f"{name:>30} {wall:10.3g} {cpu:10.3g} {cur:10.3g} {cur / wall if wall > 0 else float('nan'):10.2f}")
    print("(compilation figures depend on numba's on-disk cache: the first run on a machine pays more)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument(
        "--data",
        type=Path,
        default=DEFAULT_DATA,
        help="folder with the ADBench ResNet-18 files (real-data L_k; skipped when absent)",
    )
    ap.add_argument(
        "--lk-target",
        action="store_true",
        help="only the L_k scale target (approximate L_k at --lk-n x 128 vs exact on a query sample)",
    )
    ap.add_argument("--lk-n", type=int, default=1_000_000, help="rows of the --lk-target run (default 1e6)")
    ap.add_argument("--lk-sample", type=int, default=20_000, help="exact query sample of --lk-target")
    ap.add_argument("--cost-model", action="store_true", help="only measure the backend='auto' cost constants")
    args = ap.parse_args()
    k = args.k
    if args.lk_target:
        lk_target(args.lk_n, 128, k, args.lk_sample)
        return
    if args.cost_model:
        cost_model()
        return
    real_data_leakage(args.data, k)
    sizes = [(5000, 128), (5000, 512), (20000, 128), (20000, 512)]
    if not args.quick:
        sizes += [(100000, 128), (100000, 512)]
    print("Exact backend vs scikit-learn brute force (same L_k, k=%d)" % k)
    print(
        f"{'n':>7} {'d':>4} | {'sklearn s':>9} {'auditad s':>9} {'ratio':>6} | {'peak MB skl':>11} {'peak MB aud':>11} | {'|dL_k|':>8}"
    )
    for n, d in sizes:
        ts, lks, _, ms = in_fresh_process("sklearn", n, d, k)
        ta, lka, _, ma = in_fresh_process("exact", n, d, k)
        print(
            f"{n:>7} {d:>4} | {ts:9.2f} {ta:9.2f} {ta / ts:6.3f} | {ms:11.0f} {ma:11.0f} | {abs(lka - lks):8.1e}",
            flush=True,
        )

    approx_sizes = [(20000, 128)] if args.quick else [(100000, 128), (300000, 128)]
    print(
        "\nApproximate (pynndescent, numba compile included: first call in a fresh process) vs exact backend, k=%d" % k
    )
    print(
        f"{'n':>7} {'d':>4} | {'exact s':>8} {'approx s':>8} {'speed-up':>8} | {'recall':>7} {'|dL_k|':>8} | {'peak MB ex':>10} {'peak MB ap':>10}"
    )
    for n, d in approx_sizes:
        te, lke, _, me = in_fresh_process("exact", n, d, k)
        tp, lkp, rec, mp_ = in_fresh_process("approximate", n, d, k)
        print(
            f"{n:>7} {d:>4} | {te:8.1f} {tp:8.1f} {te / tp:8.2f} | {rec:7.4f} {abs(lkp - lke):8.1e} | {me:10.0f} {mp_:10.0f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
