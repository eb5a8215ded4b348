"""Time of auditad's vectorised metrics and Monte Carlo nulls against a scikit-learn loop.

Run:  python benchmarks/bench_metrics.py            (full table, ~4 min on 2 shared cores)
      python benchmarks/bench_metrics.py --quick    (200 columns, 1000 runs, ~40 s)
      python benchmarks/bench_metrics.py --nulls    (only the AUROC-null table below, ~10 s)

The AUROC-null table gives, per (n_pos, n_neg), the method ``method="auto"`` chooses,
its time, the std against the closed form sqrt((n+1)/(12 n_pos n_neg)), q99 and the
p-value of a perfect AUROC against the exact 1/C(n, n_pos) (Python integers), plus the
time of the 10 000-run AUROC null at n = 10 000 with 5 % anomalies (budget < 2 s).

Reference: a Python loop of scikit-learn calls, one per score column / per
null run (``roc_auc_score``, ``average_precision_score``, ``auc`` of
``precision_recall_curve``) on the same data. Every row also reports the
largest absolute difference between the two (columns) or the agreement of the
null moments with the exact ones (nulls).

Data: n = 10 000 labels with 5 % anomalies; 1000 score columns N(0, 1) + 0.5·y
(the columns of a protocol run or of many detectors). Nulls: 10 000 runs of
random scores at n = 10 000 (the threshold-free metrics' null). The AUROC-only
null is timed against the full 10 000-run scikit-learn loop; for the
three-metric null the scikit-learn loop is timed on 2000 runs and scaled
linearly (it is a plain loop of identical calls), which the table says.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def bench_columns(n, m, seed=0):
    from sklearn.metrics import auc, average_precision_score, precision_recall_curve, roc_auc_score

    from auditad.metrics import aupr_trapezoid, auroc, average_precision

    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.05).astype(int)
    S = rng.normal(size=(n, m)) + 0.5 * y[:, None]

    def sk_aupr(col):
        p, r, _ = precision_recall_curve(y, col)
        return auc(r, p)

    rows = []
    for name, ours, ref in (
        ("AUROC", auroc, roc_auc_score),
        ("AP", average_precision, average_precision_score),
        ("AUPR trapezoid", aupr_trapezoid, lambda yy, c: sk_aupr(c)),
    ):
        t_ours, a = _timed(lambda: ours(y, S))
        t_ref, b = _timed(lambda: np.array([ref(y, S[:, j]) for j in range(m)]))
        rows.append((f"{name}, {m} columns", f"n={n}", t_ours, t_ref, f"max|diff| {np.max(np.abs(a - b)):.1e}"))
    return rows


def bench_nulls(n, runs, ratio, seed=0, ref_cap=2000):
    from sklearn.metrics import auc, average_precision_score, precision_recall_curve, roc_auc_score

    from auditad.nulls import auroc_null_moments, expected_average_precision, null_distribution

    n_pos = int(round(ratio * n))
    n_neg = n - n_pos
    y = np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]
    mean, sd = auroc_null_moments(n_pos, n_neg)
    rows = []

    t_ours, res = _timed(
        lambda: null_distribution(n_pos, n_neg, metrics=["auroc"], method="monte_carlo", runs=runs, random_state=seed)
    )

    def sk_auroc_loop():
        rng = np.random.default_rng(seed)
        return np.array([roc_auc_score(y, rng.random(n)) for _ in range(runs)])

    t_ref, vals = _timed(sk_auroc_loop)
    r = res["auroc"]
    rows.append(
        (
            f"AUROC null, {runs} runs",
            f"n={n}, pi={ratio:g}",
            t_ours,
            t_ref,
            f"sd ours {r.std:.5f} / sklearn {vals.std():.5f} / exact {sd:.5f}",
        )
    )

    t_ours, res = _timed(
        lambda: null_distribution(
            n_pos, n_neg, metrics=["auroc", "ap", "aupr_trap"], method="monte_carlo", runs=runs, random_state=seed
        )
    )

    ref_runs = min(runs, ref_cap)

    def sk_all_loop():
        rng = np.random.default_rng(seed)
        out = np.empty((ref_runs, 3))
        for i in range(ref_runs):
            s = rng.random(n)
            p, rc, _ = precision_recall_curve(y, s)
            out[i] = roc_auc_score(y, s), average_precision_score(y, s), auc(rc, p)
        return out

    t_ref, vals = _timed(sk_all_loop)
    e_ap = expected_average_precision(n_pos, n_neg)
    star = "" if ref_runs == runs else f" (sklearn: {ref_runs} runs timed, scaled x{runs / ref_runs:g})"
    rows.append(
        (
            f"AUROC+AP+AUPR null, {runs} runs",
            f"n={n}, pi={ratio:g}",
            t_ours,
            t_ref * runs / ref_runs,
            f"AP mean ours {res['ap'].mean:.5f} / sklearn {vals[:, 1].mean():.5f} / exact {e_ap:.5f}{star}",
        )
    )
    return rows


def bench_auroc_null_table():
    """Method, time, std vs closed form, q99 and p(AUROC = 1) vs exact at a few class counts."""
    import math

    from auditad.nulls import null_distribution

    print(
        f"{'(n_pos, n_neg)':<16}{'method':<10}{'time s':>8}{'std':>11}{'closed':>11}{'q99':>8}"
        f"{'p(AUROC=1)':>13}{'exact':>13}  p from"
    )
    for m, n in [(160, 160), (229, 223), (300, 700), (1000, 1000), (2000, 60), (2000, 2000)]:
        t, r = _timed(lambda: null_distribution(m, n, metrics=["auroc"], observed={"auroc": 1.0}))
        a = r["auroc"]
        exact = -math.log10(math.comb(m + n, m))
        shown = f"1e{a.log10_p:.2f}"
        print(
            f"{str((m, n)):<16}{a.method:<10}{t:>8.3f}{a.std:>11.7f}{math.sqrt((m + n + 1) / (12 * m * n)):>11.7f}"
            f"{a.q99:>8.4f}{shown:>13}{f'1e{exact:.2f}':>13}  {a.p_method}"
        )
    for label, kw in (("auto", {}), ("monte_carlo", {"method": "monte_carlo"})):
        t, r = _timed(
            lambda: null_distribution(ratio=0.05, n=10_000, metrics=["auroc"], runs=10_000, random_state=0, **kw)
        )
        print(f"10k-run AUROC null, n=1e4, 5 % anomalies, method={label}: {t:.3f} s ({r['auroc'].method})")
    t, r = _timed(lambda: null_distribution(ratio=0.05, n=10_000, runs=10_000, random_state=0))
    print(f"all six nulls, n=1e4, 5 % anomalies, 10k runs: {t:.3f} s")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 columns and 1000 null runs")
    parser.add_argument("--nulls", action="store_true", help="only the AUROC-null table")
    args = parser.parse_args(argv)
    if args.nulls:
        import scipy.stats  # noqa: F401  (imports outside the timed region)

        bench_auroc_null_table()
        return 0
    n = 10_000
    m, runs = (200, 1000) if args.quick else (1000, 10_000)
    import sklearn.metrics  # noqa: F401  (imports outside the timed region)

    import auditad.nulls  # noqa: F401

    rows = bench_columns(n, m)
    for ratio in (0.01, 0.5):
        rows += bench_nulls(n, runs, ratio)

    from auditad.nulls import null_distribution

    t_auto, res = _timed(lambda: null_distribution(100, 9900, random_state=0, runs=runs))
    methods = ", ".join(f"{x.metric}:{x.method}" for x in res.nulls)

    head = f"{'task':<34}{'size':<18}{'auditad s':>10}{'sklearn s':>11}{'speed-up':>10}  check"
    print(head)
    print("-" * len(head))
    for task, size, t_ours, t_ref, check in rows:
        print(f"{task:<34}{size:<18}{t_ours:>10.2f}{t_ref:>11.2f}{t_ref / t_ours:>9.1f}x  {check}")
    print(f"{'all six nulls, method=auto':<34}{'n=1e4, pi=0.01':<18}{t_auto:>10.2f}{'':>11}{'':>10}  {methods}")
    print(
        "\nreference: a Python loop of scikit-learn calls (one per column / per run); speed-up = sklearn s / auditad s"
    )
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
