"""Time of the time-series metrics and nulls, and the nulls of NASA MSL's and SMAP's labels.

Run:  python benchmarks/bench_timeseries.py                        (1 000 000 points, 1 000 segments)
      python benchmarks/bench_timeseries.py --quick                (100 000 points, 100 segments)
      python benchmarks/bench_timeseries.py --telemanom FILE       (the nulls of MSL and SMAP built from
                                                                    telemanom's labeled_anomalies.csv)

Speed. One score array (N(0, 1) noise, +1 on the anomalous points) of a series with ``--segments``
segments of random lengths (about 10 % anomalous): every metric over every threshold (point-wise,
point-adjusted and composite F1 from one sort, PA%K at 11 K, range-based F1 at 50 thresholds (flat, and
middle bias with reciprocal cardinality), AUC-ROC, AUC-PR, VUS-ROC/PR and range-AUC (window 100, 250
thresholds), affiliation F1 at 100 thresholds), then the nulls with ``--draws`` draws. The references are
straightforward loops -- for PA-F1 one pass over the series per threshold, the adjustment applied segment by
segment (timed on 200 thresholds, scaled to the distinct thresholds); for VUS TSB-AD's loop over windows and
thresholds, one pass over the series each (timed on 3 windows x 5 thresholds, scaled to 101 x 250); for
affiliation the affiliation-metrics package's event loop as transcribed in
``tests/timeseries/test_timeseries_affiliation.py`` (quadratic in the events: timed on a 100 000-point series with 100
segments at 3 thresholds, scaled to 100, against ours at that size); the table prints both and their ratio.

With ``--telemanom``, ``auditad timeseries`` also runs on MSL's labels with one score array and the published
Anomaly-Transformer row, and the score array's best-threshold F1 and PA-F1 are checked against a brute-force
count over every cut.

MSL / SMAP. telemanom's ``labeled_anomalies.csv`` (Hundman et al., KDD 2018) lists the anomalous index
ranges (inclusive) of every channel; the test labels are the channels of one spacecraft concatenated in
file order (MSL: 27 channels, 73 729 points, 36 segments, 10.53 % anomalous). The file is read from disk;
nothing is downloaded.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

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


def reference_vus_cell(y, s, thr, window, starts, ends):
    """One (window, threshold) cell of TSB-AD's VUS loop: widen the labels, predict, count over the series."""
    n = y.size
    ext = y.astype(float)
    for a, b in zip(starts, ends - 1):
        x1 = np.arange(b + 1, min(b + window // 2 + 1, n))
        ext[x1] += np.sqrt(1 - (x1 - b) / window)
        x2 = np.arange(max(a - window // 2, 0), a)
        ext[x2] += np.sqrt(1 - (a - x2) / window)
    ext = np.minimum(ext, 1.0)
    pred = s >= thr
    lab = np.where(y == 1, 1.0, ext * pred)
    tp = float(np.dot(lab, pred))
    existence = sum(bool(pred[max(a - window // 2, 0) : b + window // 2].any()) for a, b in zip(starts, ends))
    return tp, existence


def reference_affiliation(y, s, thresholds) -> float:
    """Best affiliation F1 with the affiliation-metrics package's loop (its transcription in the tests)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "tests" / "test_timeseries_affiliation.py"
    spec = importlib.util.spec_from_file_location("affiliation_reference", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    gt = mod.convert_vector_to_events(y)
    best = 0.0
    for t in thresholds:
        r = mod.pr_from_events(mod.convert_vector_to_events(s > t), gt, (0, y.size))
        p, rc = r["Affiliation_Precision"], r["Affiliation_Recall"]
        best = max(best, 2 * p * rc / (p + rc))
    return best


def timed(f):
    """(wall seconds, CPU seconds of this process) of ``f()``: the CPU time is what a quiet machine would take."""
    w, c = time.perf_counter(), time.process_time()
    f()
    return time.perf_counter() - w, time.process_time() - c


def speed(n: int, n_seg: int, draws: int, seed: int) -> None:
    from auditad.metrics import auroc, average_precision
    from auditad.timeseries import (
        best_affiliation_f1,
        best_range_f1,
        fixed_threshold_null,
        pa_k_area,
        random_affiliation_null,
        random_null,
        random_range_null,
        random_vus_null,
        segments,
        threshold_curve,
        vus,
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
        ("VUS-ROC/PR + range-AUC (window 100, 250 thresholds)", timed(lambda: vus(y, s))),
        ("affiliation F1 at 100 thresholds", timed(lambda: best_affiliation_f1(y, s))),
        (
            "range-based F1, middle bias, reciprocal, 50 thresholds",
            timed(lambda: best_range_f1(y, s, n_thresholds=50, bias="middle", cardinality="reciprocal")),
        ),
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
    st, en = segments(y)
    desc = np.sort(s)[::-1]
    cells = [(w_, desc[i]) for w_ in (0, 50, 100) for i in np.linspace(0, n - 1, 5).astype(int)]
    w, cpu = timed(lambda: [reference_vus_cell(y, s, t_, w_, st, en) for w_, t_ in cells])
    scale = 101 * 250 / len(cells)
    fast = rows[4][1][1]
    print(
        f"  {'reference VUS loop (15 cells, scaled to 101 x 250)':52s} {w * scale:9.0f} {cpu * scale:9.0f}   ratio {cpu * scale / max(fast, 1e-9):,.0f}x (CPU)"
    )
    # the package's event loop is O(events x zones): measured on a 100 000-point series with 100 segments
    ys = series(100_000, 100, rng)
    ss = rng.standard_normal(ys.size) + ys
    ts = np.linspace(ss.min(), ss.max(), 100)[[60, 75, 90]]
    w, cpu = timed(lambda: reference_affiliation(ys, ss, ts))
    _, fast = timed(lambda: best_affiliation_f1(ys, ss))
    print(
        f"  {'reference affiliation loop, 10^5 points (3 thr., scaled)':52s} {w * 100 / 3:9.0f} {cpu * 100 / 3:9.0f}"
        f"   ratio {cpu * 100 / 3 / max(fast, 1e-9):,.0f}x (CPU; ours {fast:.2f} s at that size)"
    )
    for name, f in (
        ("VUS / range-AUC null", lambda: random_vus_null(y, n_draws=2, random_state=seed)),
        ("affiliation null", lambda: random_affiliation_null(y, n_draws=2, random_state=seed)),
    ):
        w, cpu = timed(f)
        print(f"  {name}: {cpu / 2:.2f} CPU s ({w / 2:.2f} wall s) per draw")


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


def benchmark_nulls(path, draws, seed, vus_draws=50, affiliation_draws=30, crafts="MSL,SMAP") -> None:
    from auditad.timeseries import (
        affiliation_precision_recall,
        fixed_threshold_null,
        label_structure,
        random_affiliation_null,
        random_null,
        random_vus_null,
        trivial_baselines,
        vus,
    )

    for craft, y in telemanom_labels(path).items():
        if craft not in crafts.split(","):
            continue
        st = label_structure(y)
        best = random_null(y, n_draws=draws, random_state=seed)
        fixed = fixed_threshold_null(y, n_draws=draws, random_state=seed)
        triv = trivial_baselines(y)
        triv["flag_all"].update(vus(y, np.zeros(y.size)).to_dict())  # a constant score flags every point
        triv["flag_all"]["affiliation_f1"] = affiliation_precision_recall(y, np.ones(y.size, dtype=int)).f1
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
        slow = random_vus_null(y, n_draws=vus_draws, random_state=seed)
        slow["affiliation_f1"] = random_affiliation_null(y, n_draws=affiliation_draws, random_state=seed)
        for m, n in slow.items():
            print(
                f"  random scores ({n.kind}, {n.draws.size} draws): {m:14s} mean {n.mean:.4f} +- {n.mc_error:.4f} "
                f"(q95 {n.quantile(0.95):.4f}); flag-all {triv['flag_all'].get(m, float('nan')):.4f}"
            )


def _brute_best_f1(y, s) -> tuple[float, float]:
    """Best point-wise F1 and best PA-F1 over every cut ``s >= t`` (t a distinct score), by direct counting: the
    prediction of each cut is built, point-adjusted segment by segment, and counted (an independent check)."""
    starts = np.flatnonzero(np.diff(np.r_[0, y]) == 1)
    stops = np.flatnonzero(np.diff(np.r_[y, 0]) == -1) + 1
    best_f1 = best_pa = 0.0
    for thr in np.unique(s):
        pred = s >= thr
        adjusted = pred.copy()
        for a, b in zip(starts, stops):
            if pred[a:b].any():
                adjusted[a:b] = True
        for p_, store in ((pred, "f1"), (adjusted, "pa")):
            tp = int(np.sum(p_ & (y == 1)))
            fp, fn = int(np.sum(p_ & (y == 0))), int(np.sum(~p_ & (y == 1)))
            f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
            if store == "f1":
                best_f1 = max(best_f1, f1)
            else:
                best_pa = max(best_pa, f1)
    return best_f1, best_pa


def msl_command(path, draws: int, seed: int) -> None:
    """``auditad timeseries`` on MSL's labels with one score array and the Anomaly-Transformer row (F1 0.0209,
    F1-PA 0.9500, its issue #34): the random and flag-all baselines, and the score array's best-threshold F1 and
    PA-F1 against a brute-force count over every cut."""
    import subprocess
    import sys
    import tempfile

    y = telemanom_labels(path)["MSL"].astype(np.int8)
    rng = np.random.default_rng(seed)
    # a detector's scores on 100 distinct levels (a smoothed noise with a bump on the anomalies): 100 cuts to count
    raw = np.convolve(rng.normal(size=y.size), np.ones(25) / 25, mode="same") + 0.15 * y
    s = np.digitize(raw, np.quantile(raw, np.linspace(0, 1, 101)[1:-1])).astype(float) / 100
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        np.save(tmp / "msl.npy", y)
        np.save(tmp / "scores.npy", s)
        (tmp / "at.csv").write_text("method,dataset,F1,F1-PA\nAnomalyTransformer,MSL,0.0209,0.9500\n")
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "auditad", "timeseries", "--labels", f"MSL={tmp / 'msl.npy'}",
             "--scores", f"detector={tmp / 'scores.npy'}", "--results", str(tmp / "at.csv"),
             "--draws", str(draws), "--seed", str(seed), "--out", str(tmp / "out"), "--quiet"],
            capture_output=True, text=True,
        )  # fmt: skip
        wall = time.perf_counter() - t0
        summary = json.loads((tmp / "out" / "summary.json").read_text(encoding="utf-8"))
    print(f"auditad timeseries on MSL: exit {proc.returncode} in {wall:.0f} s")
    nulls = summary["series"]["MSL"]["nulls"]["best_threshold"]
    flag_all = summary["series"]["MSL"]["trivial"]["flag_all"]["f1"]
    print(f"  random scores, best threshold: PA-F1 {nulls['pa_f1']['mean']:.4f} (q95 {nulls['pa_f1']['q95']:.4f}); "
          f"flag-all F1 {flag_all:.4f}")  # fmt: skip
    (det,) = summary["detectors"]
    f1, pa = _brute_best_f1(y, s)
    print(f"  score array: best F1 {det['f1']:.6f} (brute force {f1:.6f}), best PA-F1 {det['pa_f1']:.6f} "
          f"(brute force {pa:.6f}): equal {det['f1'] == f1 and det['pa_f1'] == pa}")  # fmt: skip
    for row in summary["results"]:
        print(
            f"  AnomalyTransformer {row['column']}: {row['value']:.4f}; flag-all {row['flag_all']:.4f}, random mean "
            f"{row['random_mean']:.4f} (q95 {row['random_q95']:.4f}), p = {row['p_random']:.3g}"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--points", type=int, default=1_000_000)
    p.add_argument("--segments", type=int, default=1000)
    p.add_argument("--draws", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--vus-draws", type=int, default=50)
    p.add_argument("--affiliation-draws", type=int, default=30)
    p.add_argument("--crafts", default="MSL,SMAP", help="spacecraft of --telemanom to run (default MSL,SMAP)")
    p.add_argument("--telemanom", default=None, metavar="FILE", help="telemanom's labeled_anomalies.csv")
    args = p.parse_args()
    if args.telemanom:
        benchmark_nulls(args.telemanom, args.draws, args.seed, args.vus_draws, args.affiliation_draws, args.crafts)
        if "MSL" in args.crafts.split(","):
            msl_command(args.telemanom, args.draws, args.seed)
        return
    n, n_seg = (100_000, 100) if args.quick else (args.points, args.segments)
    speed(n, n_seg, args.draws, args.seed)


if __name__ == "__main__":
    main()
