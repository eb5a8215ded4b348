"""Anomaly-free model selection on load_digits, the synthetic generator and real ResNet-18 embeddings.

Run as ``python benchmarks/bench_selection.py [--data DIR] [--n-jobs 1] [--skip-real]``.

1. Summary tables (estimators × ρ_rank, A_pair, regret with Oracle / Random /
   Fixed rows) of :func:`auditad.selection.run_selection` with its default
   estimators and probes, and the run times, on

   * :func:`auditad.synthetic.digits_benchmark` (10 tasks × 10 candidates),
   * :func:`auditad.synthetic.make_selection_benchmark` (8 tasks × 18 sequence
     candidates, kNN and LDN selected separately as in Table 1 of Wilkinghoff & Tan),
   * six real tasks from ``../shared/data/adbench-resnet18/`` (each file: 1000
     normal references, the 5 % anomalies + as many held-out normals as test,
     300 normals of each other file of the same dataset as auxiliary pool;
     candidates raw-512 / l2 / pca16 / pca64 × kNN / LDN; CIFAR-10 and SVHN are
     the two Fixed-selection groups).

2. Timing against a reference implementation: a plain scikit-learn / NumPy loop
   (``NearestNeighbors`` for kNN with leave-one-out by dropping self, dense
   ``pairwise_distances`` and explicit deletion of each reference for the
   leave-one-out reference-form LDN, ``roc_auc_score``) that computes the true
   AUC, inlier variance and Pseudo AUC (Feature, Cross-Class) of every digits
   candidate; both must agree to 1e-9.

The real data are read from disk only here (never in the tests) and never copied into the repository.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

from auditad.selection.pseudo import PROBE_KINDS, cross_probe, feature_probe
from auditad.selection import Candidate, SelectionBenchmark, SelectionTask, TaskEmbeddings, run_selection
from auditad.synthetic import digits_benchmark, make_selection_benchmark

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "adbench-resnet18"


def show(title, res, *, table1=False):
    print(f"\n## {title}: run time {res.elapsed_seconds:.2f} s")
    print(res.summary_text())
    if table1:
        import pandas as pd

        t1 = res.table1_frame()
        with pd.option_context("display.width", 250, "display.max_columns", 30):
            print((t1 * np.array([1, 1, 100] * (t1.shape[1] // 3))).round(2))  # regret in pp


def real_benchmark(data: Path, *, seed=0) -> SelectionBenchmark:
    rng = np.random.default_rng(seed)
    files = {"CIFAR10": ("0", "4", "6"), "SVHN": ("0", "8", "9")}
    raw = {}
    for ds, classes in files.items():
        for c in classes:
            with np.load(data / f"{ds}_{c}.npz") as z:
                X, y = z["X"].astype(np.float64), z["y"]
            normals = rng.permutation(np.flatnonzero(y == 0))
            anomalies = np.flatnonzero(y == 1)
            raw[(ds, c)] = dict(
                X=X,
                ref=normals[:1000],
                test_norm=normals[1000 : 1000 + anomalies.size],
                aux=normals[-300:],
                anom=anomalies,
            )
    # unsupervised transforms fitted on all reference sets
    allref = np.vstack([r["X"][r["ref"]] for r in raw.values()])
    mean = allref.mean(axis=0)
    _, _, vt = np.linalg.svd(allref - mean, full_matrices=False)
    reps = {
        "raw": lambda A: A,
        "l2": lambda A: A / np.linalg.norm(A, axis=1, keepdims=True),
        "pca16": lambda A: (A - mean) @ vt[:16].T,
        "pca64": lambda A: (A - mean) @ vt[:64].T,
    }
    tasks = []
    for (ds, c), r in raw.items():
        others = [(ds2, c2) for (ds2, c2) in raw if ds2 == ds and c2 != c]
        aux = np.vstack([raw[o]["X"][raw[o]["aux"]] for o in others])
        test = np.vstack([r["X"][r["test_norm"]], r["X"][r["anom"]]])
        labels = np.r_[np.zeros(r["test_norm"].size, np.int8), np.ones(r["anom"].size, np.int8)]
        embs = {
            name: TaskEmbeddings(reference=f(r["X"][r["ref"]]), test=f(test), auxiliary=f(aux))
            for name, f in reps.items()
        }
        tasks.append(
            SelectionTask(
                name=f"{ds}_{c}",
                embeddings=embs,
                test_labels=labels,
                reference_meta={"class": np.full(r["ref"].size, c)},
                auxiliary_meta={"class": np.concatenate([np.full(300, o[1]) for o in others])},
                split="development" if c == files[ds][0] else "evaluation",
                group=ds,
            )
        )
    cands = [
        Candidate(f"{e}-{s}", e, scoring=s, family="pca" if e.startswith("pca") else e)
        for e in reps
        for s in ("knn", "ldn")
    ]
    return SelectionBenchmark(tasks, cands, name="adbench-resnet18")


# --------------------------------------------------------------------------- reference implementation
def reference_loop(bench, *, seed=0):
    """scikit-learn / NumPy loop: true AUC, inlier variance, Pseudo AUC (feature, cross_class)."""
    from sklearn.metrics import pairwise_distances, roc_auc_score
    from sklearn.neighbors import NearestNeighbors

    base = int(np.random.default_rng(seed).integers(0, 2**62))  # same probe seeds as run_selection
    out = {}
    for ti, task in enumerate(bench.tasks):
        for cand in bench.candidates:
            emb = task.embeddings[cand.embedding]
            R = emb.reference
            fr = feature_probe(R, random_state=np.random.default_rng([base, ti, PROBE_KINDS.index("feature")])).X
            cp = cross_probe(
                "cross_class",
                task.reference_meta,
                auxiliary_meta=task.auxiliary_meta,
                n_reference=len(R),
                n_auxiliary=len(emb.auxiliary),
                home=task.home,
                warn=False,
            )
            Q = {"test": emb.test, "feature": fr, "cross": emb.auxiliary[cp.auxiliary_index]}
            if cand.scoring == "knn":
                nn = NearestNeighbors(n_neighbors=2).fit(R)
                z_in = np.log(np.maximum(nn.kneighbors(R, 2)[0][:, 1], 1e-12))
                z = {k: np.log(np.maximum(nn.kneighbors(v, 1)[0][:, 0], 1e-12)) for k, v in Q.items()}
            else:
                D = pairwise_distances(R)
                np.fill_diagonal(D, np.inf)
                rho = np.sort(D, axis=1)[:, :2].mean(axis=1)
                z = {k: np.log(np.min(np.maximum(pairwise_distances(v, R), 1e-12) / rho, axis=1)) for k, v in Q.items()}
                z_in = np.empty(len(R))
                for i in range(len(R)):  # leave-one-out: delete r_i, recompute every scale
                    Di = np.delete(np.delete(D, i, axis=0), i, axis=1)
                    rho_i = np.sort(Di, axis=1)[:, :2].mean(axis=1)
                    z_in[i] = np.log(np.min(np.maximum(np.delete(D[i], i), 1e-12) / rho_i))
            y_in = np.zeros(z_in.size)
            out[(task.name, cand.name)] = {
                "true_auc": roc_auc_score(task.test_labels, z["test"]),
                "inlier_variance": 1.0 / z_in.var(),
                "pseudo_auc[feature]": roc_auc_score(
                    np.r_[y_in, np.ones(z["feature"].size)], np.r_[z_in, z["feature"]]
                ),
                "pseudo_auc[cross_class]": roc_auc_score(
                    np.r_[y_in, np.ones(z["cross"].size)], np.r_[z_in, z["cross"]]
                ),
            }
    return out


def compare_with_reference(bench, n_jobs):
    t0 = time.perf_counter()
    ref = reference_loop(bench)
    t_ref = time.perf_counter() - t0
    res = run_selection(
        bench,
        estimators=["inlier_variance", "pseudo_auc"],
        probes=["feature", "cross_class"],
        n_boot=0,
        n_jobs=n_jobs,
        random_state=0,
    )
    diffs = []
    for row in res.estimates:
        diffs.append(abs(row["value"] - ref[(row["task"], row["candidate"])][row["estimator"]]))
    for row in res.candidates:
        diffs.append(abs(row["true_auc"] - ref[(row["task"], row["candidate"])]["true_auc"]))
    worst = max(diffs)
    print(
        "\n## Timing against the reference implementation (digits, 10 tasks x 10 candidates; true AUC, inlier "
        "variance, Pseudo AUC Feature / Cross-Class)"
    )
    print(f"{'implementation':<58} {'time (s)':>9} {'ratio':>7}")
    print(f"{'scikit-learn NearestNeighbors + dense NumPy loop (reference)':<58} {t_ref:9.2f} {1.0:7.2f}")
    print(
        f"{f'auditad run_selection (n_jobs={n_jobs})':<58} {res.elapsed_seconds:9.2f} "
        f"{t_ref / res.elapsed_seconds:7.2f}"
    )
    print(f"largest absolute difference of {len(diffs)} values: {worst:.2e}")
    if worst > 1e-9:
        raise SystemExit("auditad and the reference implementation disagree")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--skip-real", action="store_true")
    args = ap.parse_args()
    warnings.simplefilter("ignore")

    t0 = time.perf_counter()
    digits = digits_benchmark()
    print(f"digits benchmark built in {time.perf_counter() - t0:.2f} s")
    show("load_digits", run_selection(digits, n_jobs=args.n_jobs))
    t0 = time.perf_counter()
    synth = make_selection_benchmark()
    print(f"\nsynthetic benchmark built in {time.perf_counter() - t0:.2f} s")
    show("synthetic (pool_by = scoring)", run_selection(synth, pool_by="scoring", n_jobs=args.n_jobs), table1=True)
    if not args.skip_real:
        if args.data.is_dir():
            t0 = time.perf_counter()
            real = real_benchmark(args.data)
            print(f"\nreal benchmark built in {time.perf_counter() - t0:.2f} s")
            show("ADBench ResNet-18 (CIFAR-10, SVHN)", run_selection(real, n_jobs=args.n_jobs))
        else:
            print(f"\n(real data not found at {args.data}; skipped)")
    compare_with_reference(digits, args.n_jobs)


if __name__ == "__main__":
    main()
