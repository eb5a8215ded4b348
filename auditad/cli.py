"""Command-line interface: ``auditad <command> ...``.

Each command is a pair of functions registered in ``COMMANDS``: ``_add_<name>``
declares its arguments on an argparse sub-parser and ``_run_<name>`` executes
it and returns the process exit code.  A user mistake (bad input, missing file)
prints one line ``auditad: error: ...`` on stderr and exits with code 2; heavy
libraries are imported inside the ``_run_*`` functions so that ``auditad
--help`` stays fast.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from . import __version__
from .errors import AuditadError

__all__ = ["main"]

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose usage errors exit with code 2 and one line."""

    def error(self, message):  # noqa: D401 - argparse API
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"auditad: error: {message}\n")


def _write_json_atomic(path: str | os.PathLike, payload) -> None:
    """Write ``payload`` as JSON to a temporary name beside ``path``, then rename."""
    from ._io import write_text_atomic

    write_text_atomic(path, json.dumps(payload, indent=2, allow_nan=False, sort_keys=False) + "\n")


def _progress_enabled(args) -> bool:
    return not getattr(args, "quiet", False)


# --------------------------------------------------------------------------- leakage
def _add_leakage(sub) -> None:
    p = sub.add_parser("leakage", help="neighbourhood class leakage L_k of a labelled embedding set",
                       description="Neighbourhood class leakage L_k (SPEC §1, seed 002).")
    p.add_argument("--embeddings", required=True, help=".npy or .npz file with an (n, d) array")
    p.add_argument("--embeddings-key", default=None, help="array name inside an .npz file (default: the only array, or 'X')")
    p.add_argument("--labels", required=True, help=".npy, .csv or .parquet file with the class labels")
    p.add_argument("--label-column", default=None, help="column of a CSV/Parquet labels file (default: 'label', or the only column)")
    p.add_argument("--k", type=int, action="append", default=None, help="neighbour count; repeat for several (default 10)")
    p.add_argument("--metric", default="euclidean", choices=["euclidean", "cosine"])
    p.add_argument("--backend", default="auto", choices=["auto", "exact", "approximate"])
    p.add_argument("--seed", type=int, default=0, help="random seed (approximate backend)")
    p.add_argument("--json", default=None, help="write the full result as JSON to this file")


def _run_leakage(args) -> int:
    from .datasets import load_benchmark
    from .leakage import leakage

    bench = load_benchmark(args.embeddings, args.labels, embeddings_key=args.embeddings_key,
                           label_column=args.label_column)
    ks = args.k or [10]
    result = leakage(bench.X, bench.y, k=ks if len(ks) > 1 else ks[0], metric=args.metric,
                     backend=args.backend, random_state=args.seed)
    print(result.summary_text())
    if args.json:
        _write_json_atomic(args.json, result.to_dict())
        print(f"wrote {args.json}")
    return EXIT_OK


# --------------------------------------------------------------------------- protocol
def _add_protocol(sub) -> None:
    p = sub.add_parser("protocol", help="class-split protocol audit: per-class AUROC, inversion, direction instability",
                       description="Class-split protocol audit (SPEC §2, seed 002): K-1 vs 1 or 1 vs K-1 runs, "
                                   "per-class AUROC with DeLong intervals, sigma^2_AUC, rho_rnd, rho_inv, rho_dir.")
    p.add_argument("--embeddings", required=True, action="append",
                   help=".npy or .npz file with an (n, d) array; repeat (optionally as NAME=PATH) to compare "
                        "several representations of the same samples")
    p.add_argument("--embeddings-key", default=None, help="array name inside .npz files")
    p.add_argument("--labels", required=True, help=".npy, .csv or .parquet file with the class labels")
    p.add_argument("--label-column", default=None, help="column of a CSV/Parquet labels file")
    p.add_argument("--protocol", default="leave_one_class_out", choices=["leave_one_class_out", "one_class"])
    p.add_argument("--detector", action="append", default=None, choices=["knn", "iforest", "lof"],
                   help="detector; repeat for several (default: knn, iforest, lof)")
    p.add_argument("--k", type=int, default=5, help="k of the kNN detector (default 5)")
    p.add_argument("--epsilon", type=float, default=0.05, help="near-random half-width, in [0, 0.5) (default 0.05)")
    p.add_argument("--train-fraction", type=float, default=0.8, help="share of the normals used for training")
    p.add_argument("--split", default=None, help="file with a train/test column (train/test, 1/0 or booleans)")
    p.add_argument("--split-column", default=None, help="column of a CSV/Parquet split file")
    p.add_argument("--contamination", type=float, default=None, help="subsample anomalies to this test share")
    p.add_argument("--repeats", type=int, default=1, help="number of random splits (default 1)")
    p.add_argument("--leakage-k", type=int, default=10, help="k of the per-class leakage L_k(c); 0 = skip")
    p.add_argument("--backend", default="auto", choices=["auto", "exact", "approximate"])
    p.add_argument("--n-jobs", type=int, default=1, help="parallel tasks (-1 = all cores)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", default=None, help="write the full result as JSON to this file")
    p.add_argument("--quiet", action="store_true", help="no progress output")


def _run_protocol(args) -> int:
    from .datasets import load_benchmark, load_labels
    from .errors import InvalidInputError
    from .protocol import audit_protocol

    paths = {}
    for item in args.embeddings:
        name, sep, path = item.partition("=")
        if not sep:
            name, path = Path(item).stem, item
        if name in paths:
            raise InvalidInputError(f"--embeddings: representation name {name!r} given twice; use NAME=PATH")
        paths[name] = path
    bench = load_benchmark(paths, args.labels, embeddings_key=args.embeddings_key, label_column=args.label_column)
    split = None
    if args.split is not None:
        split = load_labels(args.split, column=args.split_column, name="split")
    if args.leakage_k < 0:
        raise InvalidInputError(f"--leakage-k must be >= 0 (0 = skip), got {args.leakage_k}")
    result = audit_protocol(bench.representations, bench.y, protocol=args.protocol,
                            detectors=tuple(args.detector or ("knn", "iforest", "lof")), k=args.k,
                            epsilon=args.epsilon, train_fraction=args.train_fraction, split=split,
                            contamination=args.contamination, repeats=args.repeats,
                            leakage_k=args.leakage_k or None, backend=args.backend, n_jobs=args.n_jobs,
                            progress=_progress_enabled(args), random_state=args.seed)
    print(result.summary_text())
    if args.json:
        _write_json_atomic(args.json, result.to_dict())
        print(f"wrote {args.json}")
    return EXIT_OK


# --------------------------------------------------------------------------- demo
def _add_demo(sub) -> None:
    p = sub.add_parser("demo", help="audit the bundled example benchmark (scikit-learn's digits)")
    p.add_argument("--out", default="auditad-demo", help="output folder")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quiet", action="store_true", help="no progress output")


def _run_demo(args) -> int:
    from .datasets import load_example
    from .leakage import leakage

    bench = load_example()
    result = leakage(bench.X, bench.y, k=[10, 1, 5, 20], backend="exact")
    print(f"Example benchmark: {bench.name} ({bench.X.shape[0]} samples, {bench.X.shape[1]} dims, "
          f"{len(set(bench.y.tolist()))} classes)")
    print(result.summary_text())
    return EXIT_OK


# --------------------------------------------------------------------------- registry
# name -> (add_arguments, run). Add new commands here.
COMMANDS = {
    "leakage": (_add_leakage, _run_leakage),
    "demo": (_add_demo, _run_demo),
    "protocol": (_add_protocol, _run_protocol),
}


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="auditad", description="Audit the evaluation protocol of an anomaly-detection benchmark.")
    parser.add_argument("--version", action="version", version=f"auditad {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for add, _ in COMMANDS.values():
        add(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``auditad`` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    _, run = COMMANDS[args.command]
    try:
        return int(run(args))
    except (AuditadError, FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError) as exc:
        print(f"auditad: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("auditad: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
