"""Time of the time-series metrics and nulls, and the nulls of NASA MSL's and SMAP's labels.

Run:  python benchmarks/bench_timeseries.py                        (1 000 000 points, 1 000 segments)
      python benchmarks/bench_timeseries.py --quick                (100 000 points, 100 segments)
      python benchmarks/bench_timeseries.py --telemanom FILE       (the nulls of MSL and SMAP built from
                                                                    telemanom's labeled_anomalies.csv)

Speed. One score array (N(0, 1) noise, +1 on the anomalous points) of a series with ``--segments``
segments of random lengths (about 10 % anomalous): every metric over every threshold (point-wise,
point-adjusted and composite F1 from one sort, PA%K at 11 K, range-based F1 at 50 thresholds, AUC-ROC,
AUC-PR), then the nulls with ``--draws`` draws. The reference is the straightforward loop -- one pass over
the series per threshold, the adjustment applied segment by segment -- timed on 200 thresholds and scaled
to the number of distinct thresholds; the table prints both and their ratio.

MSL / SMAP. telemanom's ``labeled_anomalies.csv`` (Hundman et al., KDD 2018) lists the anomalous index
ranges (inclusive) of every channel; the test labels are the channels of one spacecraft concatenated in
file order (MSL: 27 channels, 73 729 points, 36 segments, 10.53 % anomalous). The file is read from disk;
nothing is downloaded.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def series(n: int, n_seg: int, rng: np.random.Generator) -> np.ndarray:
    """0/1 labels with ``n_seg`` segments of log-normal lengths, about 10 % anomalous."""
    lengths = rng.lognormal(0.0, 1.0, n_seg)
    lengths = np.maximum(1, np.round(lengths / lengths.sum() * 0.1 * n)).astype(int)
    gaps = rng.multinomial(n - lengths.sum() - n_seg, np.ones(n_seg + 1) / (n_seg + 1)) + 1
    y = np.zeros(n, dtype=np.int8)
    pos = 0
    for g, L in zip(gaps, lengths):
        pos += g
        y[pos : pos + L] = 1
        pos += L
    return y


def reference_pa_f1(y, s, thresholds) -> float:
    """Best PA-F1 over ``thresholds`` with the plain loop: predict, adjust every segment, count."""
    d = np.diff(np.concatenate(([0], y, [0])))
    starts, ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
    best = 0.0
    for t in thresholds:
        pred = (s >= t).astype(np.int8)
        for a, b in zip(starts, ends):
            if pred[a:b].any():
                pred[a:b] = 1
        tp = int((pred & y).sum())
        fp = int(pred.sum()) - tp
        best = max(best, 2 * tp / (tp + fp + int(y.sum())))
    return best


def timed(f):
    """(wall seconds, CPU seconds of this process) of ``f()``: the CPU time is what a quiet machine would take."""
    w, c = time.perf_counter(), time.process_time()
    f()
    return time.perf_counter() - w, time.process_time() - c


def speed(n: int, n_seg: int, draws: int, seed: int) -> None:
    from auditad.metrics import auroc, average_precision
    from auditad.timeseries import (
        best_range_f1,
        fixed_threshold_null,
        pa_k_area,
        random_null,
        random_range_null,
        threshold_curve,
    )

    rng = np.random.default_rng(seed)
    y = series(n, n_seg, rng)
    s = rng.standard_normal(n) + y
    c = threshold_curve(y, s)
    rows = [
        ("point-wise + PA + composite F1, every threshold", timed(lambda: threshold_curve(y, s))),
        ("PA%K at 11 K, every threshold", timed(lambda: pa_k_area(y, s))),
        ("range-based F1 at 50 thresholds", timed(lambda: best_range_f1(y, s, n_thresholds=50))),
        ("AUC-ROC + AUC-PR", timed(lambda: (auroc(y, s), average_precision(y, s)))),
    ]
    rows.append(("all metrics of one score array", tuple(map(sum, zip(*(r[1] for r in rows))))))
    sub = c.thresholds[:: max(1, c.thresholds.size // 200)][:200]
    w, cpu = timed(lambda: reference_pa_f1(y, s, sub))
    scale = c.thresholds.size / sub.size
    print(f"series: {n} points, {int(y.sum())} anomalous, {c.n_segments} segments, {c.thresholds.size} thresholds")
    print(f"  {'':52s} {'wall s':>9s} {'CPU s':>9s}")
    for name, (w_, c_) in rows:
        print(f"  {name:52s} {w_:9.2f} {c_:9.2f}")
    print(
        f"  {'reference loop, PA-F1 alone (200 thresholds, scaled)':52s} {w * scale:9.0f} {cpu * scale:9.0f}"
        f"   ratio {cpu * scale / max(rows[0][1][1], 1e-9):,.0f}x (CPU)"
    )
    print(
        f"  {f'random nulls, best threshold ({draws} draws)':52s} {'%9.2f %9.2f' % timed(lambda: random_null(y, n_draws=draws, random_state=seed))}"
    )
    print(
        f"  {f'random nulls, fixed threshold ({draws} draws)':52s} {'%9.2f %9.2f' % timed(lambda: fixed_threshold_null(y, n_draws=draws, random_state=seed))}"
    )
    r = random_range_null(y, n_draws=3, random_state=seed)
    w, cpu = timed(lambda: random_range_null(y, n_draws=3, random_state=seed))
    print(f"  range-based null: {cpu / 3:.2f} CPU s per draw (Monte Carlo error of 3 draws: {r.mc_error:.4f})")


def telemanom_labels(path) -> dict:
    """{spacecraft: concatenated 0/1 labels} from telemanom's labeled_anomalies.csv."""
    import pandas as pd

    frame = pd.read_csv(path)
    out = {}
    for craft, rows in frame.groupby("spacecraft", sort=False):
        parts = []
        for _, r in rows.iterrows():
            y = np.zeros(int(r["num_values"]), dtype=np.int8)
            for a, b in json.loads(r["anomaly_sequences"]):
                y[a : b + 1] = 1
            parts.append(y)
        out[craft] = np.concatenate(parts)
    return out


def benchmark_nulls(path, draws: int, seed: int) -> None:
    from auditad.timeseries import fixed_threshold_null, label_structure, random_null, trivial_baselines

    for craft, y in telemanom_labels(path).items():
        st = label_structure(y)
        best = random_null(y, n_draws=draws, random_state=seed)
        fixed = fixed_threshold_null(y, n_draws=draws, random_state=seed)
        triv = trivial_baselines(y)
        print(f"{craft}: {st.n} points, {st.n_segments} segments, {st.ratio:.2%} anomalous")
        print(f"  flag every point: F1 = 2p/(1+p) = {triv['flag_all']['f1']:.4f}")
        for m, n in best.items():
            print(
                f"  random scores, best threshold: {m:13s} mean {n.mean:.4f} +- {n.mc_error:.4f} "
                f"(q95 {n.quantile(0.95):.4f}, q99 {n.quantile(0.99):.4f})"
            )
        print(
            f"  random, fixed threshold r = p: PA-F1 mean {fixed['pa_f1'].mean:.4f} (exact F1 of E[counts] "
            f"{fixed['pa_f1'].exact:.4f})"
        )
        print(
            f"  periodic detector (every {triv['periodic']['period']}th point): PA-F1 {triv['periodic']['pa_f1']:.4f}"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--points", type=int, default=1_000_000)
    p.add_argument("--segments", type=int, default=1000)
    p.add_argument("--draws", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--telemanom", default=None, metavar="FILE", help="telemanom's labeled_anomalies.csv")
    args = p.parse_args()
    if args.telemanom:
        benchmark_nulls(args.telemanom, args.draws, args.seed)
        return
    n, n_seg = (100_000, 100) if args.quick else (args.points, args.segments)
    speed(n, n_seg, args.draws, args.seed)


if __name__ == "__main__":
    main()
