"""Command-line interface: ``auditad <command> ...``.

Each command is a pair of functions registered in ``COMMANDS``: ``_add_<name>``
declares its arguments on an argparse sub-parser and ``_run_<name>`` executes
it and returns the process exit code. The analysis commands -- ``leakage``, ``protocol``,
``nulls``, ``landscape``, ``select`` -- are in `auditad.cli.analyses` and the commands that read audit
outputs and tables -- ``gate``, ``appendix``, ``results``, ``diff`` -- in `auditad.cli.commands`, as
``add_<name>`` / ``run_<name>`` (``duplicates`` in `auditad.cli.duplicates`); the argument and output
helpers they share are in `auditad.cli.shared`. Heavy libraries are imported inside the
run functions so that ``auditad --help`` stays fast and a Ctrl-C while
they load is handled like any other.

Exit codes: 0 gates passed, 1 a gate failed, 2 bad input or usage, 3 internal error,
130/143 on SIGINT/SIGTERM; `auditad.cli.terminal.exit_status` maps every exception
(contract in ``docs/cli.md``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .. import __version__
from . import analyses as _analyses
from . import commands as _commands
from . import duplicates as _duplicates
from . import timeseries as _timeseries
from . import ood as _ood
from ..errors import AuditadError
from .shared import column_list, progress_enabled
from .terminal import EXIT_USAGE, SafeStream

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose usage errors exit with code 2 and one line."""

    def error(self, message):  # noqa: D401 - argparse API
        """One line ``auditad: error: ...`` and exit code 2 (no usage block: ``--help`` shows it)."""
        hint = f" (see {self.prog} --help)" if self.prog != "auditad" else " (see auditad --help)"
        self.exit(EXIT_USAGE, f"auditad: error: {' '.join(str(message).split())}{hint}\n")

    def format_help(self):
        describe = getattr(self, "describe", None)  # a description computed only when --help asks for it
        if describe is not None:
            self.description = describe()
        return super().format_help()


class _LinesFormatter(argparse.HelpFormatter):
    """Help formatter that keeps the line breaks of descriptions and epilogs (each line filled on its own)."""

    def _fill_text(self, text, width, indent):
        import textwrap

        def fill(line):
            lead = line[: len(line) - len(line.lstrip())]  # an indented line (an example) wraps further indented
            return textwrap.fill(
                " ".join(line.split()),
                width,
                initial_indent=indent + lead,
                subsequent_indent=indent + lead + ("    " if lead else ""),
            )

        return "\n".join(fill(line) if line.strip() else "" for line in text.splitlines())


# --------------------------------------------------------------------------- audit, demo (report/config, assemble, render)
def _add_report_flags(p, group=None, *, command: str) -> None:
    """The gate and CI-output flags of ``audit`` and ``demo`` (into ``group`` when given): the declared gate
    options (`auditad.gates.options`), then ``--timestamp``."""
    from ..gates.options import add_gate_arguments

    g = group if group is not None else p.add_argument_group("gates and CI outputs")
    add_gate_arguments(g, command=command)
    g.add_argument(
        "--timestamp",
        action="store_true",
        help="record the UTC time and run time in the report (then runs no longer give identical bytes)",
    )


#: The usage line of ``auditad audit`` (argparse's generated one lists all 40 flags).
AUDIT_USAGE = "%(prog)s [options] (CONFIG.toml | --embeddings FILE --labels FILE) --out DIR"


def _add_audit(sub, *, settings: bool = True) -> None:
    p = sub.add_parser(
        "audit",
        usage=AUDIT_USAGE,
        add_help=False,
        help="full audit of one or more benchmarks: HTML report, summary.json, figures, tables, gates",
        description="Run every applicable diagnostic (leakage, class-split protocol, nulls at the "
        "benchmark's class counts, landscapes at its anomaly ratio, model selection when a "
        "manifest is given) and write DIR/index.html and DIR/<benchmark>/{report.html, "
        "summary.json, figures/, tables/}. Exit 0: every gate at or above --fail-on "
        "passed; 1: a gate failed; 2: bad input.",
        formatter_class=_LinesFormatter,
        epilog="examples:\n  auditad audit audit.toml --out report\n"
        "  auditad audit --embeddings X.npy --labels y.csv --out report\n"
        "  auditad audit --embeddings t.csv --labels t.csv --embedding-prefix f --out out\n"
        "\nMore: docs/cli.md, docs/config.md (the configuration file), docs/report.md.",
    )
    common = p.add_argument_group("common options")
    common.add_argument(
        "config",
        nargs="?",
        default=None,
        metavar="CONFIG.toml",
        help="audit configuration (docs/config.md); or describe one benchmark with --embeddings and --labels",
    )
    common.add_argument(
        "--embeddings",
        action="append",
        default=None,
        metavar="[NAME=]FILE",
        help="embeddings: .npy, .npz, .mat, CSV/TSV or Parquet (rows aligned with the labels); "
        "repeat as NAME=FILE for several representations",
    )
    common.add_argument(
        "--labels",
        default=None,
        metavar="FILE",
        help="class labels: .npy, .npz, .mat, CSV/TSV or Parquet (may be the embeddings table)",
    )
    common.add_argument(
        "--out",
        required=True,
        metavar="DIR",
        help="output folder (created; an earlier auditad report there is replaced)",
    )
    g = p.add_argument_group("input columns (without a config file; in a config, the [[benchmarks]] keys)")
    g.add_argument("--name", default=None, help="benchmark name (default: the labels file's stem)")
    g.add_argument(
        "--embeddings-key",
        default=None,
        metavar="KEY",
        help="array name inside .npz/.mat embedding files (default: the only array, else X or embeddings)",
    )
    g.add_argument(
        "--embedding-columns",
        default=None,
        metavar="C1,C2,...",
        type=column_list,
        help="embedding columns of CSV/Parquet embeddings, comma-separated (default: every numeric "
        "column but the label columns)",
    )
    g.add_argument(
        "--embedding-prefix",
        default=None,
        metavar="PREFIX",
        help="embedding columns of CSV/Parquet embeddings: those whose name starts with PREFIX",
    )
    g.add_argument(
        "--label-column",
        default=None,
        metavar="COL",
        help="class label column of a CSV/Parquet labels file, or array of an .npz (default: label)",
    )
    g.add_argument("--domain-column", default=None, metavar="COL", help="optional domain column of the labels file")
    g.add_argument(
        "--attribute-column", default=None, metavar="COL", help="optional attribute column of the labels file"
    )
    g.add_argument(
        "--anomaly-column", default=None, metavar="COL", help="optional 0/1 anomaly column of the labels file"
    )
    g.add_argument("--manifest", default=None, metavar="FILE", help="model-selection manifest (TOML, docs/manifest.md)")
    groups = {"common": common, "gates": p.add_argument_group("gates and CI outputs")}
    _add_report_flags(p, groups["gates"], command="audit")
    if settings:  # the settings' choices come from the computing modules (NumPy and co.): only when needed
        from ..audit.settings import FLAG_GROUPS, add_settings_arguments

        groups.update({k: p.add_argument_group(t) for k, t in FLAG_GROUPS.items() if k not in groups})
        add_settings_arguments(p, groups=groups)  # --seed goes to the common options
    _commands.add_quiet(common)
    common.add_argument("-h", "--help", action="help", help="show this help and exit")
    execution = groups.get("execution") or p.add_argument_group("execution")
    execution.add_argument(
        "--scheduler",
        default=None,
        metavar="SCHEDULER",
        help="where the work runs: serial (default), local[:N] (a Dask LocalCluster with N "
        "worker processes) or a Dask scheduler address tcp://host:8786; overrides the "
        "config's [execution]; the report is the same bytes",
    )


def _print_notes(audit, args, shown=()) -> None:
    if args.quiet:
        return
    for note in audit.summary["warnings"]:
        if note in shown:  # the notes on reading the inputs, printed already
            continue
        print(f"auditad: note: {audit.name}: {note}", file=sys.stderr)


def _finish_report(run, args, *, show: Path) -> int:
    print(run.summary_table())
    print(
        f"verdict: {run.verdict} (exit {run.exit_code}, --fail-on {args.fail_on}); "
        f"{len(run.audits)} benchmark(s) in {run.elapsed_seconds:.1f} s"
    )
    if args.junit:
        print(f"wrote {args.junit}")
    if args.markdown:
        print(f"wrote {args.markdown}")
    print(f"report: {show.resolve()}")
    return run.exit_code


def _audit_inputs(config, args) -> dict:
    """{what: path} of every input file of an audit, named by flag (or by benchmark for a config)."""
    named = {}
    for b in config.benchmarks:
        where = "" if args.config is None else f"benchmark {b.name!r} "
        named[f"{where}{'--labels' if args.config is None else 'labels'}"] = b.labels
        for rep, path in ((r, p) for r, p in b.embeddings.items() if not Path(p).is_dir()):  # shards: at load
            named[f"{where}{'--embeddings' if args.config is None else 'embeddings'} {rep}"] = path
        if getattr(b, "manifest", None) is not None:
            named[f"{where}{'--manifest' if args.config is None else 'manifest'}"] = b.manifest
    return named


#: Suffixes of data files: given where CONFIG.toml is expected, the user meant --embeddings.
DATA_SUFFIXES = (".csv", ".tsv", ".txt", ".parquet", ".pq", ".npy", ".npz", ".mat")


def _refuse_data_file_as_config(path) -> None:
    """``auditad audit bench.csv``: a data file where the TOML configuration goes -> a did-you-mean error."""
    from ..errors import InvalidInputError

    if Path(path).suffix.lower() in DATA_SUFFIXES:
        labels = path if Path(path).suffix.lower() in (".csv", ".tsv", ".parquet", ".pq") else "LABELS"
        raise InvalidInputError(
            f"CONFIG.toml {str(path)!r} is a data file, not a TOML configuration; did you mean "
            f"--embeddings {path} --labels {labels}?"
        )


def _run_audit(args) -> int:
    from .._validation import check_input_files, reading_inputs
    from ..errors import InvalidInputError
    from ..audit.runner import load_inputs, run_audit
    from ..audit.config import config_from_paths, load_config

    data_flags = [
        f
        for f in (
            "embeddings",
            "labels",
            "name",
            "embeddings_key",
            "embedding_columns",
            "embedding_prefix",
            "label_column",
            "domain_column",
            "attribute_column",
            "anomaly_column",
            "manifest",
        )
        if getattr(args, f) is not None
    ]
    if args.config is not None and data_flags:
        raise InvalidInputError(
            f"give either CONFIG.toml or --embeddings/--labels, not both "
            f"(got CONFIG.toml and --{data_flags[0].replace('_', '-')})"
        )
    from ..audit.settings import settings_from_args

    overrides = settings_from_args(args)
    rules = _commands.report_rules(args)
    if args.scheduler is not None:
        from ..execution import parse_scheduler

        try:
            parse_scheduler(args.scheduler)
        except InvalidInputError as exc:
            raise InvalidInputError(str(exc).replace("scheduler=", "--scheduler", 1)) from None
    if args.config is not None:
        _refuse_data_file_as_config(args.config)
        config = load_config(args.config, overrides=overrides, extra_gates=rules)
        sources = [args.config, *(p for b in config.benchmarks for p in (b.labels, *b.embeddings.values()))]
    else:
        if not args.embeddings or not args.labels:
            raise InvalidInputError("give CONFIG.toml, or --embeddings and --labels for a one-benchmark audit")
        paths = {}
        for item in args.embeddings:
            name, sep, path = item.partition("=")
            if not sep:
                name, path = Path(item).stem, item
            if name in paths:
                raise InvalidInputError(f"--embeddings: representation name {name!r} given twice; use NAME=PATH")
            paths[name] = path
        columns = {
            "label": args.label_column,
            "domain": args.domain_column,
            "attribute": args.attribute_column,
            "anomaly": args.anomaly_column,
        }
        config = config_from_paths(
            paths,
            args.labels,
            name=args.name,
            embeddings_key=args.embeddings_key,
            columns=columns,
            manifest=args.manifest,
            overrides=overrides,
            gates=rules,
            embedding_columns=args.embedding_columns,
            embedding_prefix=args.embedding_prefix,
        )
        sources = [args.labels, *paths.values()]
    check_input_files(_audit_inputs(config, args))
    with reading_inputs([p for p in sources if p is not None], name="input"):
        inputs = [load_inputs(b, config) for b in config.benchmarks]
    from ..audit.loader import anomaly_label_note

    for note in filter(None, map(anomaly_label_note, inputs)):
        print(f"auditad: note: {note}", file=sys.stderr)
    for b in inputs:  # e.g. a row-index column left out of a table (listed in the report too)
        for note in b.notes:
            print(f"auditad: note: {b.name}: {note}", file=sys.stderr)
    shown = {note for b in inputs for note in b.notes}
    scheduler = args.scheduler if args.scheduler is not None else config.scheduler
    try:
        run = run_audit(
            inputs,
            args.out,
            fail_on=args.fail_on,
            timestamp=args.timestamp,
            progress=progress_enabled(args),
            junit=args.junit,
            markdown=args.markdown,
            sources=sources,
            on_benchmark=lambda a: _print_notes(a, args, shown),
            scheduler=scheduler,
        )
    except InvalidInputError as exc:
        if not str(exc).startswith("scheduler="):
            raise
        where = "--scheduler" if args.scheduler is not None else "[execution] scheduler"
        raise InvalidInputError(str(exc).replace("scheduler=", where, 1)) from None
    show = run.out / run.audits[0].name / "report.html" if len(run.audits) == 1 else run.index
    return _finish_report(run, args, show=show)


DEMO_DESCRIPTION = (
    "Audit scikit-learn's digits (1797 images, 10 classes; as pixels and pca16): leakage, "
    "class-split protocol (knn, iforest, lof), nulls, landscapes and anomaly-free model selection "
    "over the digit tasks; prints the path of the report.\n"
    "The demo runs lighter settings than 'auditad audit' ({settings}), so 'auditad audit' on the "
    "same data gives slightly different numbers (mean AUROC 0.897 instead of the demo's 0.893)."
)


def _demo_description() -> str:
    from ..audit.loader import demo_settings_text

    return DEMO_DESCRIPTION.format(settings=demo_settings_text())


def _add_demo(sub) -> None:
    p = sub.add_parser(
        "demo",
        help="full audit of the bundled example (digits in two representations) with an HTML report",
        formatter_class=_LinesFormatter,
        description=DEMO_DESCRIPTION.format(settings="see --help"),
    )
    p.describe = _demo_description  # the settings' text imports the pipeline: only when --help is asked for
    p.add_argument("--out", default="auditad-demo", metavar="DIR", help="output folder (default: auditad-demo)")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="random seed (default: 0)")
    p.add_argument("--no-selection", action="store_true", help="skip the model-selection section")
    _commands.add_quiet(p)
    _add_report_flags(p, command="demo")


def _run_demo(args) -> int:
    from ..audit.runner import example_inputs, run_audit

    if args.seed < 0:
        from ..errors import InvalidInputError

        raise InvalidInputError(f"--seed must be >= 0, got {args.seed}")
    inputs = example_inputs(seed=args.seed, selection=not args.no_selection, gates=_commands.report_rules(args))
    run = run_audit(
        [inputs],
        args.out,
        fail_on=args.fail_on,
        timestamp=args.timestamp,
        progress=progress_enabled(args),
        junit=args.junit,
        markdown=args.markdown,
        on_benchmark=lambda a: _print_notes(a, args),
    )
    return _finish_report(run, args, show=run.out / inputs.name / "report.html")


# --------------------------------------------------------------------------- registry
# name -> (add_arguments, run). Add new commands here.
COMMANDS = {
    "leakage": (_analyses.add_leakage, _analyses.run_leakage),
    "audit": (_add_audit, _run_audit),
    "demo": (_add_demo, _run_demo),
    "protocol": (_analyses.add_protocol, _analyses.run_protocol),
    "nulls": (_analyses.add_nulls, _analyses.run_nulls),
    "landscape": (_analyses.add_landscape, _analyses.run_landscape),
    "select": (_analyses.add_select, _analyses.run_select),
    "gate": (_commands.add_gate, _commands.run_gate),
    "appendix": (_commands.add_appendix, _commands.run_appendix),
    "results": (_commands.add_results, _commands.run_results),
    "diff": (_commands.add_diff, _commands.run_diff),
    "duplicates": (_duplicates.add_duplicates, _duplicates.run_duplicates),
    "timeseries": (_timeseries.add_timeseries, _timeseries.run_timeseries),
    "ood": (_ood.add_ood, _ood.run_ood),
}


def build_parser(*, settings: bool = True) -> argparse.ArgumentParser:
    """The ``auditad`` parser; ``settings=False`` leaves out the audit's settings flags, whose choice
    lists import the computing modules (used for every command line but ``auditad audit ...``)."""
    parser = _Parser(prog="auditad", description="Audit the evaluation protocol of an anomaly-detection benchmark.")
    parser.add_argument("--version", action="version", version=f"auditad {__version__}")
    parser.add_argument(
        "--debug",
        action="store_true",
        help="on an internal error, print the traceback (also AUDITAD_DEBUG=1); accepted anywhere",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (add, _) in COMMANDS.items():
        add(sub, settings=settings) if name == "audit" else add(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``auditad`` console script; returns the exit code.

    Every outcome maps to one code: 0 all gates passed, 1 a gate failed, 2 bad input
    or usage (one line naming the parameter or file), 3 internal error (one line; the
    traceback with ``--debug`` or ``AUDITAD_DEBUG=1``), 130 on SIGINT, 143 on SIGTERM.
    Everything printed is sanitised of terminal control characters.

    Signals (`auditad.cli.terminal.SignalGuard`) are recorded, never raised from their handler:
    the command stops at its next safe point (a progress step, a section, a file, a line on stdout;
    [`check_stop`][auditad._progress.check_stop]) and unwinds through its clean-ups; a second signal
    ends the process at once.
    """
    import warnings

    from .terminal import EXIT_PIPE, SignalGuard, debug_requested, print_warnings, quiet_children

    program = argv is None  # run as the program: the handlers stay until the process exits
    if program:
        import atexit

        from .terminal import ignore_late_signals

        atexit.register(ignore_late_signals)  # the last to run: no signal kills the interpreter's exit
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = debug_requested(argv)
    out_stream, err_stream = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeStream(out_stream, check=True), SafeStream(err_stream)  # stdout: a safe point
    quiet_children()  # the resource tracker of a local Dask cluster: no warnings after our last line
    try:
        with SignalGuard(_fileno(err_stream), keep=program) as guard:
            with warnings.catch_warnings(record=True) as caught:  # each shown once, as one line, at the end
                code, message = _run_command(argv, debug)
            guard.ending = True  # from here on a signal is only recorded: the outcome is being reported
            sys.stdout = SafeStream(out_stream)
            print_warnings(caught, debug)
            if message:
                print(message, file=sys.stderr)
            try:
                sys.stdout.flush()
            except BrokenPipeError:
                code = EXIT_PIPE
            if code == EXIT_PIPE:  # the reader went away: no "Exception ignored" at interpreter exit
                try:
                    os.dup2(os.open(os.devnull, os.O_WRONLY), out_stream.fileno())
                except (OSError, ValueError, AttributeError):
                    pass
            return code
    finally:
        sys.stdout, sys.stderr = out_stream, err_stream


def _run_command(argv: list[str], debug: bool) -> tuple[int, str]:
    """Run the command line ``argv``: (exit code, the line to print last) for every way it can end."""
    from .._progress import check_stop
    from .terminal import EXIT_SIGINT, EXIT_SIGTERM, exit_status, flag_names, forget_unhandled_interrupt
    from .terminal import quiet_shutdown, speak_cli

    command: dict = {}
    try:
        code = _dispatch(argv, command)
        check_stop()  # a signal after the command's last safe point: honour it
        return code, ""
    except BaseException as exc:  # noqa: B036 - the exit-code contract routes every exception
        code, message = exit_status(exc)
        if isinstance(exc, AuditadError) and "parser" in command:  # library errors speak Python
            message = speak_cli(message, flag_names(command["parser"]))
        if code in (EXIT_SIGINT, EXIT_SIGTERM):
            forget_unhandled_interrupt()
            quiet_shutdown()  # no Dask exit-handler traceback after the last line
        if debug and not isinstance(exc, SystemExit):
            import traceback

            traceback.print_exception(exc, file=sys.stderr)
        return code, message


def _fileno(stream) -> int:
    """The file descriptor of ``stream`` (2 when it has none, e.g. a test's captured stream)."""
    try:
        return int(stream.fileno())
    except (AttributeError, OSError, ValueError):
        return 2


def _dispatch(argv: list[str], command: dict | None = None) -> int:
    """Parse ``argv`` and run its command; ``command["parser"]`` is set to the command's sub-parser."""
    command_name = next((a for a in argv if not a.startswith("-")), None)  # top-level options take no value
    parser = build_parser(settings=command_name == "audit")
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    if command is not None:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        command["parser"] = sub.choices[args.command]
    _, run = COMMANDS[args.command]
    from .. import _memory
    from .._progress import check_stop

    # NumPy's huge pages off on a VM whose huge-page faults wait for its host; one malloc arena, so that blocks
    # freed by one thread are reused by the others (no value changes)
    _memory.configure()

    check_stop()  # a signal while the command line loaded: nothing has started yet
    return int(run(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
