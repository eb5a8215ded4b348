"""The ``auditad ood`` command: copies, ID share, near/far placement and detectors per OOD set.

Registered in `auditad.cli.COMMANDS` like every command: `add_ood` declares the arguments on an argparse
sub-parser and `run_ood` executes it and returns the exit code. The computation is
[`auditad.ood.audit_ood`][auditad.ood.audit_ood], the files are written by
[`auditad.report.ood.write_ood_report`][auditad.report.ood.write_ood_report]; this module reads the inputs
with the loaders of ``auditad audit``, translates the flags and prints.
"""

from __future__ import annotations

import re
import sys

from ..errors import InvalidInputError
from .commands import add_quiet, report_rules
from .shared import column_list

__all__ = ["add_ood", "run_ood"]

_NAME = re.compile(r"^[A-Za-z0-9_-]+$")


def add_ood(sub) -> None:
    p = sub.add_parser(
        "ood",
        help="OOD benchmark audit: ID copies, ID share, near/far placement and detectors per OOD set",
        description="Audit the OOD sets of an out-of-distribution benchmark against its ID set, from "
        "embeddings: exact and near copies of ID rows in each OOD set, the estimated share of ID rows in "
        "it, its near/far placement (against the groups given with --ood-group), and what detectors "
        "fitted on the ID rows see on it. Writes DIR/{report.html, summary.json, figures/, tables/}. "
        "Exit 0: no finding or gate at or above --fail-on; 1: one is; 2: bad input. See docs/methods/ood.md.",
        epilog="example:\n  auditad ood --embeddings id.npz --labels id.npz --label-column y "
        "--ood svhn=svhn.npy --ood cifar100=c100.npy --ood-group near=cifar100 --ood-group far=svhn --out ood",
    )
    p.add_argument("--embeddings", required=True, metavar="FILE", help="ID embeddings (.npy, .npz, .mat, CSV, Parquet)")
    p.add_argument("--labels", default=None, metavar="FILE", help="ID class labels (default: the embeddings file)")
    p.add_argument("--label-column", default=None, metavar="COL", help="class label column, or array of an .npz")
    p.add_argument("--embeddings-key", default=None, metavar="KEY", help="array name inside .npz/.mat files")
    p.add_argument("--embedding-columns", default=None, metavar="C1,C2,...", type=column_list)
    p.add_argument("--embedding-prefix", default=None, metavar="PREFIX")
    p.add_argument(
        "--ood",
        action="append",
        required=True,
        metavar="NAME=FILE",
        help="an OOD set (same columns as the ID embeddings); repeatable; NAME of letters, digits, _ and -",
    )
    p.add_argument(
        "--ood-group",
        action="append",
        default=None,
        metavar="GROUP=NAME,NAME",
        help="declare a group of OOD sets; a group named near or far is checked against the measured placement",
    )
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (replaced atomically)")
    p.add_argument("--k", type=int, default=10, help="neighbours of the ID-likeness and the placement (default 10)")
    p.add_argument("--detector-k", type=int, default=5, help="k of the kNN detector (default 5)")
    p.add_argument(
        "--detectors", default="knn", type=column_list, metavar="D1,D2", help="knn, lof, iforest or pyod:NAME"
    )
    p.add_argument("--metric", default="euclidean", choices=["euclidean", "cosine"])
    p.add_argument("--backend", default="auto", choices=["auto", "exact", "approximate"])
    p.add_argument("--n-test", type=int, default=None, metavar="N", help="held-out ID rows (default 20%%, <= 20000)")
    p.add_argument("--near-ratio", type=float, default=None, metavar="X", help="placement threshold on lambda (0.5)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    from ..gates.options import gate_option

    for name in ("gate", "fail_on"):
        opt = gate_option(name)
        kw = {"dest": opt.name, "default": opt.default, "help": opt.help_for("ood"), "metavar": opt.metavar}
        if opt.repeat:
            kw["action"] = "append"
        if opt.choices:
            kw["choices"] = list(opt.choices)
        p.add_argument(opt.flag, **kw)
    add_quiet(p)


def _named_paths(items) -> dict:
    paths = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep or not path:
            raise InvalidInputError(f"--ood must be NAME=FILE, got {item!r}")
        if not _NAME.match(name):
            raise InvalidInputError(f"--ood: the name {name!r} must hold only letters, digits, '_' and '-'")
        if name in paths:
            raise InvalidInputError(f"--ood: OOD set {name!r} named twice")
        paths[name] = path
    return paths


def _groups(items) -> dict | None:
    if not items:
        return None
    out = {}
    for item in items:
        g, sep, names = item.partition("=")
        members = [n.strip() for n in names.split(",") if n.strip()]
        if not sep or not g.strip() or not members:
            raise InvalidInputError(f"--ood-group must be GROUP=NAME,NAME, got {item!r}")
        if g in out:
            raise InvalidInputError(f"--ood-group: group {g!r} given twice")
        out[g.strip()] = members
    return out


def _load(args, paths):
    from .._validation import check_input_files, check_same_length, reading_inputs
    from ..datasets import load_embeddings, load_labels

    labels = args.labels or args.embeddings
    check_input_files(
        {"--embeddings": args.embeddings, "--labels": labels, **{f"--ood {n}": p for n, p in paths.items()}}
    )
    with reading_inputs([args.embeddings, labels, *paths.values()], name="input"):
        label_col = args.label_column
        X = load_embeddings(
            args.embeddings,
            key=args.embeddings_key,
            name="--embeddings",
            columns=args.embedding_columns,
            prefix=args.embedding_prefix,
            exclude=(label_col,) if label_col else (),
        )
        y = load_labels(labels, column=label_col, key=label_col, name="--labels")
        check_same_length(X, y, names=(f"--embeddings ({X.shape[0]} rows)", f"--labels ({y.shape[0]} rows)"))
        sets = {}
        for name, path in paths.items():
            sets[name] = load_embeddings(
                path,
                key=args.embeddings_key,
                name=f"--ood {name}",
                columns=args.embedding_columns,
                prefix=args.embedding_prefix,
                exclude=(label_col,) if label_col else (),
            )
    return X, y, sets


def run_ood(args) -> int:
    from ..ood import NEAR_RATIO, audit_ood
    from ..report.ood import write_ood_report

    paths = _named_paths(args.ood)
    groups = _groups(args.ood_group)
    rules = report_rules(args)
    X, y, sets = _load(args, paths)
    try:
        res = audit_ood(
            X,
            y,
            sets,
            groups=groups,
            k=args.k,
            detector_k=args.detector_k,
            detectors=tuple(args.detectors),
            metric=args.metric,
            backend=args.backend,
            n_test=args.n_test,
            near_ratio=NEAR_RATIO if args.near_ratio is None else args.near_ratio,
            random_state=args.seed,
            progress=not args.quiet and X.shape[0] > 200_000,
        )
    except InvalidInputError as exc:
        text = re.sub(r"ood_sets\['([^']*)'\]", r"--ood \1", str(exc))
        text = re.sub(r"groups\[(?:'([^']*)'|([^\]]*))\]", r"--ood-group \1\2", text)
        text = text.replace("the ID embeddings X_id", "--embeddings").replace("X_id", "--embeddings")
        raise InvalidInputError(text) from None
    run = write_ood_report(res, args.out, rules=rules, fail_on=args.fail_on)
    if not args.quiet:
        for f in res.findings:
            print(f.text(max_items=4))
    print(f"verdict: {run.verdict} (exit {run.exit_code}, --fail-on {args.fail_on})")
    print(f"report: {(run.out / 'report.html').resolve()}", file=sys.stdout)
    return run.exit_code
