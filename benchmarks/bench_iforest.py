"""Isolation Forest fit + score: auditad's per-subsample trees against scikit-learn's ``IsolationForest``.

scikit-learn hands each of its T trees the whole training set (the ψ = 256 drawn rows as
non-zero sample weights), so a fit touches T·n rows; auditad's
``IsolationForestDetector`` fits each tree on its own ψ rows (the same trees, see
``docs/methods/protocol.md``). For each training size n this prints the wall time of

* ``sklearn``: ``IsolationForest(n_estimators=T, random_state=s).fit(X32)`` + ``score_samples(Q)``
  on float32 rows (what the detector did before);
* ``ours``: ``IsolationForestDetector(T, random_state=s).fit(X32)`` + ``score_samples(Q)`` (the
  array form checks every training row for NaN once);
* ``ours (protocol)``: the form the protocol uses, ``fit(take_rows(X64, rows))`` on a float64
  matrix with the task's training rows selected, against the former protocol path (gathering
  the rows as float32, then scikit-learn), which adds one n × d gather per fit;

the ratios sklearn / ours (``fit x``: fits only; ``total x``: fit + score), whether the scores are the same bits as scikit-learn's at the same seed,
and the Spearman rank correlation with a scikit-learn forest at *another* seed (the agreement of
the model, not of shared random numbers; ``--no-other-seed`` skips that extra scikit-learn fit).

Data: synthetic 128-d float32 "embeddings", 10 Gaussian classes on a 12-d latent subspace plus
isotropic noise (the setting of the scale measurements); queries: 10 000 rows of the same law.

Run (2 cores):

    python benchmarks/bench_iforest.py                       # n = 50k, 200k: well under 2 min
    python benchmarks/bench_iforest.py --sizes 200000,800000 # the scale sizes (~0.9 GB of rows at 800k)
    python benchmarks/bench_iforest.py --sizes 20000 --trees 300 --d 32
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.stats import spearmanr

from auditad.protocol import IsolationForestDetector
from auditad.protocol.neighbor_lists import gather32


def make_data(n: int, d: int, m: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` training and ``m`` query rows (float32) of 10 overlapping Gaussian classes in ``d`` dimensions."""
    rng = np.random.default_rng(seed)
    basis = rng.normal(size=(12, d)).astype(np.float32) / np.sqrt(12)
    centres = rng.normal(scale=2.0, size=(10, 12)).astype(np.float32)

    def draw(k):
        z = centres[rng.integers(0, 10, size=k)] + rng.normal(size=(k, 12)).astype(np.float32)
        return z @ basis + 0.1 * rng.normal(size=(k, d)).astype(np.float32)

    return draw(n), draw(m)


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def fit_and_score(make, X_fit, X_score) -> tuple[np.ndarray, float, float]:
    """Scores (higher = more anomalous), fit seconds, score seconds of a fresh estimator from ``make``."""
    est, t_fit = timed(lambda: make().fit(X_fit))
    scores, t_score = timed(lambda: est.score_samples(X_score))
    return (scores if isinstance(est, IsolationForestDetector) else -scores), t_fit, t_score


def run_size(n: int, d: int, m: int, trees: int, seed: int, other_seed: bool) -> dict:
    """The timings and agreements of one training size."""
    from sklearn.ensemble import IsolationForest

    def sklearn(rs=seed):
        return IsolationForest(n_estimators=trees, random_state=rs)

    X, Q = make_data(n, d, m, seed=n)
    ref, sk_fit, sk_score = fit_and_score(sklearn, X, Q)
    ours, our_fit, our_score = fit_and_score(lambda: IsolationForestDetector(trees, random_state=seed), X, Q)
    # the protocol's form: a float64 representation, a task's training rows, the queries as rows of it
    X64 = np.vstack([X, Q]).astype(np.float64)
    train_rows, query_rows = np.arange(n), np.arange(n, n + m)
    det = IsolationForestDetector(trees, random_state=seed)
    proto, t_proto = timed(
        lambda: det.fit(det.take_rows(X64, train_rows)).score_samples(det.take_rows(X64, query_rows))
    )
    before, t_before = timed(lambda: -sklearn().fit(gather32(X64, train_rows)).score_samples(gather32(X64, query_rows)))
    row = {
        "n": n,
        "sk_fit": sk_fit,
        "sk_score": sk_score,
        "our_fit": our_fit,
        "our_score": our_score,
        "fit_ratio": sk_fit / our_fit,
        "ratio": (sk_fit + sk_score) / (our_fit + our_score),
        "proto_before_s": t_before,
        "proto_ours_s": t_proto,
        "proto_ratio": t_before / t_proto,
        "same_bits": bool(np.array_equal(ours, ref) and np.array_equal(proto, before)),
        "rho_same_seed": float(spearmanr(ours, ref)[0]),
        "rho_other_seed": float("nan"),
    }
    if other_seed:
        row["rho_other_seed"] = float(spearmanr(ours, -sklearn(seed + 1).fit(X).score_samples(Q))[0])
    return row


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__
    )
    ap.add_argument("--sizes", default="50000,200000", help="training sizes n, comma-separated")
    ap.add_argument("--d", type=int, default=128, help="dimension (default 128)")
    ap.add_argument("--queries", type=int, default=10000, help="rows scored (default 10 000)")
    ap.add_argument("--trees", type=int, default=100, help="trees T (default 100)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-other-seed", action="store_true", help="skip the correlation at another seed")
    args = ap.parse_args(argv)
    print(f"T = {args.trees} trees, ψ = 256, d = {args.d}, {args.queries} queries, float32 rows; seconds")
    print(
        f"{'n':>9} | {'sklearn fit':>11} {'score':>6} | {'ours fit':>8} {'score':>6} | {'fit x':>6} "
        f"{'total x':>7} | {'before':>7} {'protocol':>8} {'x':>5} | {'same bits':>9} {'rho same':>8} "
        f"{'rho other':>9}"
    )
    for n in (int(s) for s in args.sizes.split(",")):
        r = run_size(n, args.d, args.queries, args.trees, args.seed, not args.no_other_seed)
        print(
            f"{r['n']:>9} | {r['sk_fit']:>11.2f} {r['sk_score']:>6.2f} | {r['our_fit']:>8.2f} {r['our_score']:>6.2f} | "
            f"{r['fit_ratio']:>6.1f} {r['ratio']:>7.1f} | {r['proto_before_s']:>7.2f} {r['proto_ours_s']:>8.2f} "
            f"{r['proto_ratio']:>5.1f} | {r['same_bits']!s:>9} {r['rho_same_seed']:>8.4f} "
            f"{r['rho_other_seed']:>9.4f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
