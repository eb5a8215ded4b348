"""High-dimensional approximate kNN: pynndescent in the full dimension vs a PCA projection + exact re-rank.

Run:  python benchmarks/bench_highdim.py                 (n = 50 000, d = 2048, k = 10; ~5 min on 2 cores)
      python benchmarks/bench_highdim.py --n 20000       (smaller, ~2 min)
      python benchmarks/bench_highdim.py --spectrum decay
            (a slowly decaying rank-256 spectrum instead of a flat rank-64 one: harder for a projection)
      python benchmarks/bench_highdim.py --methods
            (PCA vs Gaussian random projection: share of the true k nearest neighbours among the
             3k nearest in the projection, by exact search, on three embedding-like sets; ~1 min)
      python benchmarks/bench_highdim.py --cost-model
            (CPU seconds of the PCA fit, the projection and the re-rank: the constants of
             auditad.neighbors.projection's cost model; ~1 min)

Data: float32 rows = a rank-r Gaussian signal mapped linearly to d columns plus isotropic noise
(`make_data`). Both searches are ``auditad.neighbors.kneighbors(X, k=10, backend="approximate")``,
with ``project_dim=0`` (the NN-descent graph in 2048 dimensions) and with the default
``project_dim="auto"`` (graph of a 128-d PCA projection, 3k candidates re-ranked by exact distance in
the original space). numba's compilation is paid once, by a small warm-up search, and reported on its
own line. Recall of each against exact search on a sample of 2 000 queries (exact neighbours by a blocked
brute force in float64, self excluded).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

# measure this checkout, not whatever auditad happens to be installed
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def make_data(n, d=2048, rank=64, noise=0.3, spectrum="flat", seed=0):
    """Embedding-like float32 rows: ``Z diag(s) W + noise``, Z of shape (n, rank) standard normal, W a
    (rank, d) Gaussian map scaled to unit signal variance per column; ``s`` = 1 (flat) or
    ``j^(-1/2)`` normalised to the same total variance (decay). Generated in chunks of 10 000 rows."""
    rng = np.random.default_rng(seed)
    s = np.ones(rank) if spectrum == "flat" else np.arange(1, rank + 1) ** -0.5
    s = s * np.sqrt(rank / np.sum(s * s))
    W = (s[:, None] * rng.normal(size=(rank, d)) / np.sqrt(rank)).astype(np.float32)
    X = np.empty((n, d), dtype=np.float32)
    for a in range(0, n, 10_000):
        b = min(a + 10_000, n)
        X[a:b] = rng.standard_normal(size=(b - a, rank), dtype=np.float32) @ W
        X[a:b] += noise * rng.standard_normal(size=(b - a, d), dtype=np.float32)
    return X


def digits_up(d=2048, noise=0.5, seed=0):
    """scikit-learn's digits (1 797 x 64) mapped linearly to d columns plus isotropic noise, float32."""
    from sklearn.datasets import load_digits

    rng = np.random.default_rng(seed)
    X = load_digits().data @ (rng.normal(size=(64, d)) / 8)
    return (X + noise * rng.normal(size=X.shape)).astype(np.float32)


def exact_neighbours(X, pick, k, block=256, margin=20):
    """The k nearest rows of X (self excluded) of each row ``pick``: the ``k + margin`` nearest by float32
    products, then exact float64 distances of those, in blocks of queries (no float64 copy of X)."""
    xsq = np.einsum("ij,ij->i", X, X)
    out = np.empty((pick.size, k), dtype=np.int64)
    kth = np.empty(pick.size)
    for a in range(0, pick.size, block):
        rows = pick[a : a + block]
        d2 = xsq[None, :] - 2.0 * (X[rows] @ X.T)
        d2[np.arange(rows.size), rows] = np.inf
        part = np.argpartition(d2, k + margin, axis=1)[:, : k + margin]
        diff = X[part].astype(np.float64) - X[rows].astype(np.float64)[:, None, :]
        exact = np.einsum("bkd,bkd->bk", diff, diff)
        order = np.argsort(exact, axis=1, kind="stable")[:, :k]
        out[a : a + rows.size] = np.take_along_axis(part, order, axis=1)
        kth[a : a + rows.size] = np.sqrt(np.take_along_axis(exact, order, axis=1)[:, -1])
    return out, kth


def recall(found_dist, kth):
    """Share of the returned neighbours within rounding of the exact k-th distance (ties count as found)."""
    return float(np.mean(found_dist <= kth[:, None] * (1 + 1e-9) + 1e-12))


def run_table(args):
    from auditad.neighbors import kneighbors

    X = make_data(args.n, args.d, rank=args.rank, spectrum=args.spectrum)
    pick = np.sort(np.random.default_rng(1).choice(args.n, min(args.queries, args.n), replace=False))
    t = time.perf_counter()
    _, kth = exact_neighbours(X, pick, args.k)
    t_exact = time.perf_counter() - t
    t = time.perf_counter()
    kneighbors(X[:1000, :64], k=args.k, backend="approximate", random_state=0, recall_sample=0)
    t_compile = time.perf_counter() - t
    rows = []
    for label, p in (("full dimension (project_dim=0)", 0), ("PCA projection + re-rank", "auto")):
        t0, c0 = time.perf_counter(), time.process_time()
        res = kneighbors(X, k=args.k, backend="approximate", random_state=0, recall_sample=0, project_dim=p)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        rows.append((label, res.project_dim or args.d, wall, cpu, recall(res.distances[pick], kth)))
    print(
        f"n = {args.n}, d = {args.d}, k = {args.k}, {args.spectrum} rank-{args.rank} signal + noise, float32; "
        f"recall on {pick.size} queries"
    )
    print(f"numba compilation (warm-up search): {t_compile:.1f} s; exact neighbours of the sample: {t_exact:.1f} s")
    print(f"| search | graph dim | wall s | CPU s | recall |\n|---|---|---|---|---|")
    for label, dim, wall, cpu, rec in rows:
        print(f"| {label} | {dim} | {wall:.1f} | {cpu:.1f} | {rec:.4f} |")
    print(f"speed-up (wall): {rows[0][2] / rows[1][2]:.1f}x")


def run_methods(args):
    """PCA vs Gaussian random projection: share of the true k-NN among the 3k projected nearest."""
    from sklearn.neighbors import NearestNeighbors
    from sklearn.utils.extmath import randomized_svd

    k, c, p = args.k, 3, 128
    sets = [
        ("rank-64 flat + noise", make_data(6000, 2048)),
        ("rank-256 decay + noise", make_data(6000, 2048, rank=256, noise=0.2, spectrum="decay")),
        ("digits -> 2048 + noise", digits_up()),
    ]
    print(f"| data | method | fit + projection s | share of true {k}-NN in {c * k} candidates |\n|---|---|---|---|")
    for name, X in sets:
        _, true = NearestNeighbors(n_neighbors=k, algorithm="brute").fit(X).kneighbors()
        for method in ("PCA", "random projection"):
            t = time.perf_counter()
            if method == "PCA":
                S = X[np.sort(np.random.default_rng(0).choice(len(X), min(4096, len(X)), replace=False))]
                mu = S.mean(axis=0)
                _, _, vt = randomized_svd(S - mu, p, n_iter=4, power_iteration_normalizer="LU", random_state=0)
                P = (X - mu) @ vt.T.astype(np.float32)
            else:
                P = X @ (np.random.default_rng(0).normal(size=(X.shape[1], p)) / np.sqrt(p)).astype(np.float32)
            seconds = time.perf_counter() - t
            _, cand = NearestNeighbors(n_neighbors=c * k, algorithm="brute").fit(P).kneighbors()
            share = np.mean([len(set(a) & set(b)) for a, b in zip(true, cand)]) / k
            print(f"| {name} | {method} | {seconds:.2f} | {share:.4f} |")


def run_cost_model(args):
    """CPU seconds per unit of each term of auditad.neighbors.projection.projection_seconds."""
    from auditad.neighbors import projection as pj
    from auditad.neighbors.exact import Frame, chunk_rows

    n, d, k, p = args.n, args.d, args.k, pj.DEFAULT_PROJECT_DIM
    X = make_data(n, d)
    frame = Frame(X, None, chunk_rows(d))
    c = time.process_time()
    proj = pj.Projection(X, frame, p, seed=0)
    fit = time.process_time() - c
    c = time.process_time()
    proj.transform(X)
    project = time.process_time() - c
    cand = np.random.default_rng(0).integers(0, n, size=(n, pj.n_candidates(k, n)))
    c = time.process_time()
    pj.rerank(X, X, frame, cand, k)
    rr = time.process_time() - c
    ops = min(n, pj.PCA_SAMPLE_ROWS) * d * (p + pj.PCA_OVERSAMPLES) * (2 * pj.PCA_POWER_ITERATIONS + 2)
    print(f"PCA fit: {fit:.2f} CPU s -> {fit / ops:.2e} CPU s per op (wall = CPU / 2 on 2 cores)")
    print(f"projection: {project:.2f} CPU s -> {project / (n * d * (p + 16)):.2e} CPU s per op (wall = CPU / 2)")
    print(f"re-rank: {rr:.2f} CPU s -> {rr / (n * cand.shape[1] * d):.2e} CPU s per op (one thread: wall = CPU)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=50_000)
    ap.add_argument("--d", type=int, default=2048)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--rank", type=int, default=64)
    ap.add_argument("--spectrum", choices=("flat", "decay"), default="flat")
    ap.add_argument("--queries", type=int, default=2000)
    ap.add_argument("--methods", action="store_true")
    ap.add_argument("--cost-model", action="store_true")
    args = ap.parse_args(argv)
    if args.methods:
        run_methods(args)
    elif args.cost_model:
        run_cost_model(args)
    else:
        run_table(args)


if __name__ == "__main__":
    main()
