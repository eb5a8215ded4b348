"""The ``auditad`` commands that read audit outputs and tables: ``gate``, ``appendix``, ``results``, ``diff``.

Registered in `auditad.cli.COMMANDS` like every command: ``add_<name>`` declares the
arguments on an argparse sub-parser and ``run_<name>`` executes it and returns the exit code.
Heavy libraries are imported inside the ``run_*`` functions (``auditad --help`` stays fast).
"""

from __future__ import annotations

from pathlib import Path

from .._format import text_table
from ..errors import AuditadError
from ..gates.options import add_gate_arguments
from .terminal import EXIT_OK, dash_nan, format_value

__all__ = [
    "QUIET_HELP",
    "add_quiet",
    "add_json",
    "report_rules",
    "add_gate",
    "run_gate",
    "add_appendix",
    "run_appendix",
    "add_results",
    "run_results",
    "add_diff",
    "run_diff",
]


#: ``--quiet`` means the same on every command: no progress lines (and, for audit and demo, none of the
#: report's notes, which are in the report) on stderr; stdout, notes about the input and errors are unchanged.
QUIET_HELP = "no progress lines on stderr (the summary, notes on the input and errors are still printed)"


def add_quiet(p) -> None:
    """``--quiet``, accepted by every command (a script may pass it to any of them)."""
    p.add_argument("--quiet", action="store_true", help=QUIET_HELP)


def add_json(p, help: str = "write the full result as JSON to FILE") -> None:
    """``--json FILE``: the command's result as JSON (``to_dict()``), written atomically."""
    p.add_argument("--json", default=None, metavar="FILE", help=help)


def report_rules(args) -> list:
    """The ``--gate RULE`` arguments parsed into gate rules; a malformed rule's error names ``--gate``."""
    from ..gates.checks import parse_rule

    rules = []
    for text in args.gate or ():
        try:
            rules.append(parse_rule(text))
        except AuditadError as exc:
            raise type(exc)(f"--gate: {exc}") from None
    return rules


# --------------------------------------------------------------------------- gate, appendix (report/checks, report/export)
def add_gate(sub) -> None:
    p = sub.add_parser(
        "gate",
        help="evaluate pass/warn/fail gates on audit summaries (CI: exit 1 on a failed gate)",
        description="Evaluate the gates stored in each summary.json (key 'gates') plus --gate rules. "
        "Rule: '[warn:|fail:] METRIC OP THRESHOLD', METRIC a dotted path into the "
        "summary, OP one of < <= > >= == !=; the rule states when the gate passes. "
        "Exit 0: no gate at or above --fail-on failed; 1: one did; 2: bad input.",
    )
    p.add_argument("summaries", nargs="+", metavar="SUMMARY.json", help="summary.json written by 'auditad audit'")
    add_gate_arguments(p, command="gate")
    add_json(p, help="write every gate result, per benchmark, and the verdict as JSON to FILE")
    add_quiet(p)


def run_gate(args) -> int:
    from .._validation import check_output_file
    from ..errors import InvalidInputError
    from ..gates.checks import run_gates, verdict

    check_output_file(args.json, name="--json")
    check_output_file(args.junit, name="--junit")
    check_output_file(args.markdown, name="--markdown")
    try:
        run = run_gates(args.summaries, report_rules(args), fail_on=args.fail_on)
    except InvalidInputError as exc:
        raise InvalidInputError(str(exc).replace("no extra rules were given", "no --gate was given")) from None
    rows = [
        [
            r["benchmark"],
            {"pass": "pass", "warn": "WARN", "fail": "FAIL"}[r["status"]],
            r["level"],
            r["metric"],
            format_value(r["value"], r["threshold"]),
            r["condition"],
        ]
        for r in run.rows()
    ]
    print(text_table(rows, header=["benchmark", "status", "level", "metric", "value", "condition"]))
    for r in run.rows():
        if not r["passed"]:
            print(f"  {r['benchmark']}: {dash_nan(r['message'])}")
    for name, results in run.results.items():
        failed = sum(not r.passed for r in results)
        print(f"{name}: {verdict(results)} ({len(results)} gates, {failed} not passed)")
    print(f"verdict: {run.verdict} (exit {run.exit_code}, --fail-on {args.fail_on})")
    if args.junit:
        from ..report.export import write_junit

        write_junit(run.results, args.junit)
        print(f"wrote {args.junit}")
    if args.markdown:
        from ..report.export import write_markdown_summary

        write_markdown_summary(run.results, args.markdown)
        print(f"wrote {args.markdown}")
    if args.json:
        import json

        from .._io import write_text_atomic

        payload = {
            "verdict": str(run.verdict),
            "exit_code": run.exit_code,
            "fail_on": args.fail_on,
            "benchmarks": {name: [r.to_dict() for r in results] for name, results in run.results.items()},
        }
        write_text_atomic(args.json, json.dumps(payload, indent=2, allow_nan=False) + "\n")
        print(f"wrote {args.json}")
    return run.exit_code


def add_appendix(sub) -> None:
    p = sub.add_parser(
        "appendix",
        help="LaTeX appendix (findings, booktabs tables, PDF figures) from an audit, ood or timeseries folder",
        description="Write APPENDIX_DIR/appendix.tex (one \\section, a \\subsection per benchmark) "
        "with the verdict and findings, booktabs tables from DIR/<benchmark>/tables/*.csv and the PDF figures "
        "from DIR/<benchmark>/figures/; needs \\usepackage{booktabs} and "
        "\\usepackage{graphicx}. Reads the outputs of 'auditad audit', 'auditad ood' and 'auditad timeseries' "
        "(the latter two with their stored findings and gates).",
    )
    p.add_argument(
        "audit_dir",
        metavar="DIR",
        help="output folder of 'auditad audit', 'auditad ood' or 'auditad timeseries' (or a folder of them)",
    )
    p.add_argument("--out", required=True, metavar="APPENDIX_DIR", help="folder to create (replaced if it exists)")
    p.add_argument("--title", default="Evaluation-protocol audit", help="section title")
    add_quiet(p)


def run_appendix(args) -> int:
    from ..report.export import write_appendix

    res = write_appendix(args.audit_dir, args.out, title=args.title)
    print(
        f"wrote {res.path}: {len(res.benchmarks)} benchmark(s), {len(res.tables)} table(s), "
        f"{len(res.figures)} figure(s)"
    )
    print(
        f"use: \\usepackage{{booktabs}} \\usepackage{{graphicx}} in the preamble, "
        f"\\input{{{Path(args.out).name}/appendix.tex}} in the body"
    )
    return EXIT_OK


# --------------------------------------------------------------------------- results, diff (auditad/results.py, auditad/diff.py)
def add_results(sub) -> None:
    p = sub.add_parser(
        "results",
        help="audit a published per-class AUROC table: dispersion, rho_rnd, rho_inv, "
        "rho_dir, per-class null p-values and intervals",
        description="Audit a per-class AUROC table (CSV or Parquet; long: method|detector, class, "
        "auroc [, benchmark, representation, n_pos, n_neg, epsilon]; or wide: class plus "
        "one column per method). Per method: mean, sigma^2, min/max, rho_rnd, rho_inv, "
        "rho_dir with their classes; with n_pos/n_neg, each AUROC's null p-value and "
        "Hanley-McNeil interval. Exit 0: gates passed; 1: a gate failed; 2: bad input. "
        "See docs/results.md.",
    )
    p.add_argument("table", metavar="TABLE", help="CSV or Parquet file")
    p.add_argument(
        "--format",
        default=None,
        choices=["per-class", "adbench", "pyod", "openood", "anomalib", "long", "wide"],
        help="force the table's format (default: a per-class table when it has a 'class' column and "
        "only per-class columns, else the first leaderboard format that matches; docs/leaderboards.md)",
    )
    p.add_argument(
        "--layout",
        default="auto",
        choices=["auto", "long", "wide"],
        help="table layout (default: long when the table has an 'auroc' column)",
    )
    p.add_argument("--percent", action="store_true", help="the AUROC values are percentages (0-100)")
    p.add_argument("--epsilon", type=float, default=0.05, help="near-random half-width in [0, 0.5) (default 0.05)")
    p.add_argument(
        "--confidence-level",
        "--confidence",
        dest="confidence_level",
        type=float,
        default=0.95,
        help="confidence level of the intervals and tests (default 0.95; --confidence is its former name)",
    )
    p.add_argument("--benchmark", default=None, help="benchmark name when the table has no 'benchmark' column")
    p.add_argument(
        "--metric",
        default=None,
        help="leaderboards: the metric of the values when the file name does not say it (e.g. auroc)",
    )
    p.add_argument(
        "--test-fraction",
        type=float,
        default=None,
        metavar="F",
        help="leaderboards: scale the class counts to a test split of this share (PyOD: 0.4)",
    )
    p.add_argument(
        "--missing",
        default="drop_datasets",
        choices=["drop_datasets", "drop_methods"],
        help="leaderboards: leave out the datasets (default) or the methods with a missing value before ranking",
    )
    p.add_argument("--out", default=None, metavar="DIR", help="write DIR/report.html, summary.json and tables/")
    add_json(p, help="write the summary JSON to FILE")
    add_gate_arguments(p, command="results")
    add_quiet(p)


def run_results(args) -> int:
    from ..results import audit_results, write_results_report
    from ..results.detect import PER_CLASS, read_results_file

    rules = report_rules(args)
    fmt, frame = read_results_file(
        args.table, format=args.format, percent=args.percent, metric=args.metric, test_fraction=args.test_fraction
    )
    if fmt != PER_CLASS:
        return _run_leaderboard_results(args, frame, rules)
    audit = audit_results(
        frame,
        epsilon=args.epsilon,
        layout=args.layout,
        percent=args.percent,
        confidence_level=args.confidence_level,
        benchmark=args.benchmark,
        source=Path(args.table).name,
    )
    run = write_results_report(
        audit,
        args.out,
        gates=rules,
        fail_on=args.fail_on,
        json_path=args.json,
        junit=args.junit,
        markdown=args.markdown,
    )
    print(audit.summary_text())
    default = run.summary["default_gates"]
    for label, results in run.gate_results.items():
        for r in results:
            if not default or not r.passed:  # default gates: only the findings that warn
                print(f"gate {r.status.upper():<4} {label}: {r.message}")
    if run.gate_results:
        print(
            f"verdict: {run.verdict} (exit {run.exit_code}, --fail-on {args.fail_on})"
            + (": no --gate given, the default checks (warn level) ran on every method" if default else "")
        )
    for flag, path in (("json", args.json), ("junit", args.junit), ("markdown", args.markdown)):
        if path:
            print(f"wrote {path}")
    if run.out is not None:
        print(f"report: {(run.out / 'report.html').resolve()}")
    return run.exit_code


def _run_leaderboard_results(args, board, rules) -> int:
    """``auditad results`` on a leaderboard file: findings, ranking, gates (auditad/results/leaderboard.py)."""
    from ..leaderboards import audit_leaderboard
    from ..results.leaderboard import write_leaderboard_report

    audit = audit_leaderboard(board, alpha=round(1.0 - args.confidence_level, 12), missing=args.missing)
    run = write_leaderboard_report(
        audit,
        args.out,
        gates=rules,
        fail_on=args.fail_on,
        json_path=args.json,
        junit=args.junit,
        markdown=args.markdown,
        benchmark=args.benchmark,
        source=Path(args.table).name,
    )
    print(audit.summary_text())
    print()
    for label, results in run.gate_results.items():
        for r in results:
            if not run.summary["default_gates"]:  # default gates repeat the findings printed above
                print(f"gate {r.status.upper():<4} {label}: {r.message}")
    print(
        f"verdict: {run.verdict} (exit {run.exit_code}, --fail-on {args.fail_on})"
        + (": no --gate given, the checks are the gates" if run.summary["default_gates"] else "")
    )
    for path in (args.json, args.junit, args.markdown):
        if path:
            print(f"wrote {path}")
    if run.out is not None:
        print(f"report: {(run.out / 'report.html').resolve()}")
    return run.exit_code


def add_diff(sub) -> None:
    p = sub.add_parser(
        "diff",
        help="compare two audits (summary.json files or audit folders): every statistic's change, gates on changes",
        description="Every numeric statistic present in both BASE and NEW with its change; statistics "
        "present in one side only are listed. Gates on changes: 'delta leakage.L_k <= "
        "0.02'; without 'delta' a gate reads NEW. Exit 0: gates passed; 1: a gate failed; "
        "2: bad input (unrelated benchmarks, incompatible summaries). See docs/diff.md.",
    )
    p.add_argument("base", metavar="BASE", help="summary.json or audit folder of the accepted audit")
    p.add_argument("new", metavar="NEW", help="summary.json or audit folder of the new audit")
    add_gate_arguments(p, command="diff")
    p.add_argument(
        "--tolerance",
        type=float,
        default=0.0,
        help="changes of at most this size count as unchanged in the listing (default 0)",
    )
    p.add_argument("--all", action="store_true", help="print every compared statistic, not only the changed ones")
    add_json(p, help="write the comparison as JSON to FILE")
    add_quiet(p)


def run_diff(args) -> int:
    from ..diff import diff_audits, write_diff_outputs

    result = diff_audits(args.base, args.new, gates=args.gate or (), tolerance=args.tolerance)
    print(result.summary_text(show_all=args.all))
    code = result.exit_code(fail_on=args.fail_on)
    if result.gate_results:
        print(f"verdict: {result.verdict} (exit {code}, --fail-on {args.fail_on})")
    for path in write_diff_outputs(result, json_path=args.json, junit=args.junit, markdown=args.markdown):
        print(f"wrote {path}")
    return code
