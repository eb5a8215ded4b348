"""The ``auditad timeseries`` command: metric nulls at the labels' own segments, point-adjust inflation and
thresholds chosen on the test labels.

Registered in `auditad.cli.COMMANDS`: `add_timeseries` declares the arguments, `run_timeseries` reads the files
([`auditad.timeseries.io`][auditad.timeseries.io.read_labels]), runs
[`audit_timeseries`][auditad.timeseries.audit_timeseries] and writes the report
([`write_timeseries_report`][auditad.report.timeseries.write_timeseries_report]).
"""

from __future__ import annotations

from .commands import add_json, add_quiet, report_rules

__all__ = ["add_timeseries", "run_timeseries"]

DESCRIPTION = (
    "For every labelled series: what uniformly random scores (threshold chosen on the test labels, and fixed) and "
    "trivial detectors (flag all: F1 = 2p/(1+p); flag none; periodic) reach under point-wise F1, point-adjusted "
    "F1, PA%K, composite F1, range-based F1, VUS-ROC/PR, range-AUC and affiliation F1, at the series' own segments. With --scores, each detector's "
    "metrics against those nulls; with --results, each published value. Writes DIR/report.html, summary.json, "
    "figures/ and tables/. Exit 0: no finding at or above --fail-on; 1: one is; 2: bad input. "
    "See docs/methods/timeseries.md."
)


def add_timeseries(sub) -> None:
    from ..gates.options import add_report_gate_arguments

    p = sub.add_parser(
        "timeseries",
        help="time-series metrics: random and trivial nulls at the labels' segments, point-adjust inflation",
        description=DESCRIPTION,
        epilog="examples:\n  auditad timeseries --labels MSL=msl_labels.npy --out ts-report\n"
        "  auditad timeseries --labels MSL=msl.npy --scores lstm=lstm_scores.npy --results table.csv --out out",
    )
    p.add_argument(
        "--labels",
        action="append",
        required=True,
        metavar="NAME=PATH",
        help="0/1 labels of one series (.npy), or several (.npz arrays, or CSV/Parquet columns: the 'label' column "
        "if any, else every column, named NAME/member); repeatable",
    )
    p.add_argument(
        "--scores",
        action="append",
        default=None,
        metavar="DETECTOR=PATH",
        help="anomaly scores (higher = more anomalous) of one detector, with the labels' lengths: one array for "
        "one series, else arrays or columns named like the series; repeatable",
    )
    p.add_argument(
        "--results",
        default=None,
        metavar="TABLE",
        help="published values (CSV/Parquet): method, dataset and metric columns (F1, F1-PA, PA%%K, AUC-PR, "
        "VUS-PR, ...) or long method, dataset, metric, value; datasets named as --labels",
    )
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created; an earlier report replaced)")
    p.add_argument("--draws", type=int, default=1000, metavar="N", help="Monte Carlo draws of the nulls (default 1000)")
    p.add_argument(
        "--range-draws",
        type=int,
        default=50,
        metavar="N",
        help="draws of the range-based null, which scores every point 50 times per draw (default 50; 0 skips it)",
    )
    p.add_argument(
        "--vus-draws",
        type=int,
        default=50,
        metavar="N",
        help="draws of the VUS-ROC / VUS-PR / range-AUC null, one VUS of random scores each (default 50; 0 skips it)",
    )
    p.add_argument(
        "--affiliation-draws",
        type=int,
        default=30,
        metavar="N",
        help="draws of the affiliation-F1 null, 100 thresholds of random scores each (default 30; 0 skips it)",
    )
    p.add_argument(
        "--vus-window",
        type=int,
        default=100,
        metavar="L",
        help="largest buffer width of VUS, and the width of the range-AUC (default 100, as TSB-AD)",
    )
    p.add_argument("--seed", type=int, default=0, metavar="N", help="random seed (default 0)")
    add_report_gate_arguments(p, command="timeseries")  # the gate and CI-output flags, declared once
    add_json(p, help="also write summary.json to FILE")
    add_quiet(p)


def run_timeseries(args) -> int:
    from pathlib import Path

    from .._validation import check_output_file
    from ..errors import InvalidInputError
    from ..report.timeseries import write_timeseries_report
    from ..timeseries import audit_timeseries
    from ..timeseries.io import match_scores, read_labels, read_results_table

    if args.draws < 1:
        raise InvalidInputError(f"--draws must be >= 1, got {args.draws}")
    for flag in ("range_draws", "vus_draws", "affiliation_draws", "vus_window"):
        if getattr(args, flag) < 0:
            raise InvalidInputError(f"--{flag.replace('_', '-')} must be >= 0, got {getattr(args, flag)}")
    if args.seed < 0:
        raise InvalidInputError(f"--seed must be >= 0, got {args.seed}")
    check_output_file(args.json, name="--json")
    rules = report_rules(args)
    labels = read_labels(args.labels, flag="--labels")
    scores = match_scores(args.scores, labels, flag="--scores") if args.scores else None
    results = read_results_table(args.results, labels, name="--results") if args.results else None
    audit = audit_timeseries(
        labels,
        scores,
        results,
        n_draws=args.draws,
        range_draws=args.range_draws,
        vus_draws=args.vus_draws,
        affiliation_draws=args.affiliation_draws,
        window=args.vus_window,
        random_state=args.seed,
    )
    run = write_timeseries_report(
        audit,
        args.out,
        gates=rules,
        fail_on=args.fail_on,
        json_path=args.json,
        junit=args.junit,
        markdown=args.markdown,
    )
    print(audit.summary_text())
    for r in run.gate_results:
        print(f"gate {r.status.upper():<4} {r.message}")
    print(f"verdict: {run.verdict} (exit {run.exit_code}, --fail-on {args.fail_on})")
    for path in (args.json, args.junit, args.markdown):
        if path:
            print(f"wrote {path}")
    print(f"report: {(Path(run.out) / 'report.html').resolve()}")
    return run.exit_code
