"""The ``auditad duplicates`` command: exact and near duplicates, conflicting labels, train/test overlap.

Registered in `auditad.cli.COMMANDS` like every command: `add_duplicates` declares the
arguments on an argparse sub-parser and `run_duplicates` executes it and returns the exit code.
The computation is [`auditad.duplicates.find_duplicates`][auditad.duplicates.find_duplicates]; this
module only reads the files, translates the flags and prints.
"""

from __future__ import annotations

import json

from ..errors import InvalidInputError
from .commands import add_json, add_quiet
from .terminal import EXIT_OK

__all__ = ["add_duplicates", "run_duplicates"]


def add_duplicates(sub) -> None:
    p = sub.add_parser(
        "duplicates",
        help="exact and near duplicate rows, conflicting labels and train/test overlap",
        description="Group the identical rows of an embedding (or feature) file, count the groups "
        "whose rows carry different labels, find near duplicates (distance below 0.13 x "
        "the median nearest-neighbour distance, or --near-threshold) and, with a split "
        "column, the test rows that have a copy among the training rows. Exit 0: done; "
        "2: bad input. See docs/methods/duplicates.md.",
    )
    p.add_argument(
        "--embeddings",
        required=True,
        metavar="FILE",
        help="rows: .npy, .npz, .mat, CSV/TSV or Parquet (an (n, d) array or table)",
    )
    p.add_argument(
        "--embeddings-key",
        default=None,
        metavar="KEY",
        help="array name inside .npz/.mat files (default: the only array, or X)",
    )
    p.add_argument(
        "--embedding-columns",
        default=None,
        metavar="C1,C2,...",
        help="embedding columns of a CSV/Parquet file, comma-separated (default: every numeric column but "
        "the named label, anomaly and split columns)",
    )
    p.add_argument(
        "--labels",
        default=None,
        metavar="FILE",
        help="file of the label, anomaly and split columns (default: the embeddings file)",
    )
    p.add_argument(
        "--label-column",
        default=None,
        metavar="COL",
        help="class labels: a column of a CSV/Parquet labels file, or an array of a .npz/.mat file",
    )
    p.add_argument(
        "--anomaly-column",
        default=None,
        metavar="COL",
        help="0/1 anomaly flags (1 = anomaly): rows labelled both ways, and the AUROC ceiling when there is "
        "no --label-column (an ADBench .npz: --anomaly-column y)",
    )
    p.add_argument(
        "--near-threshold",
        default="auto",
        metavar="X",
        help="distance below which two distinct rows are near duplicates: a number > 0, 'auto' (0.13 x the "
        "median nearest-neighbour distance, default) or 'none' (exact duplicates only)",
    )
    p.add_argument(
        "--k", type=int, default=10, help="neighbours per distinct row searched for near duplicates (default 10)"
    )
    p.add_argument("--metric", default="euclidean", choices=["euclidean", "cosine"])
    p.add_argument("--backend", default="auto", choices=["auto", "exact", "approximate"])
    p.add_argument("--seed", type=int, default=0, help="random seed (approximate backend)")
    p.add_argument(
        "--split-column",
        default=None,
        metavar="COL",
        help="train/test column: the share of test rows with an identical (or near) training row",
    )
    p.add_argument("--split-train", default="train", metavar="VALUE", help="value of a training row (default 'train')")
    p.add_argument("--split-test", default="test", metavar="VALUE", help="value of a test row (default 'test')")
    p.add_argument(
        "--test-embeddings",
        default=None,
        metavar="FILE",
        help="a separate file of test rows (same columns as --embeddings, which then holds the training "
        "rows): prints how many test rows have an identical (and a near) training row",
    )
    add_json(p)
    add_quiet(p)


def _near_threshold(text: str):
    """``--near-threshold`` as find_duplicates' ``near_threshold``: 'auto', None or a number (checked there)."""
    word = text.strip().lower()
    if word in ("auto", "none"):
        return None if word == "none" else "auto"
    try:
        return float(text)
    except ValueError:
        raise InvalidInputError(f"--near-threshold must be a number > 0, 'auto' or 'none', got {text!r}") from None


def _typed(value: str, column):
    """A flag's text as a value of ``column``'s type (``--split-train 1`` for an integer column)."""
    kind = getattr(column, "dtype", None) is not None and column.dtype.kind
    try:
        if kind in ("i", "u"):
            return int(value)
        if kind == "f":
            return float(value)
    except ValueError:
        return value
    if kind == "b" and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return value


def run_duplicates(args) -> int:
    import numpy as np

    from .._io import write_text_atomic
    from .._validation import check_input_files, check_output_file, check_same_length, reading_inputs
    from ..datasets import load_embeddings, load_labels
    from ..duplicates import check_split_column, find_duplicates

    check_output_file(args.json, name="--json")
    near = _near_threshold(args.near_threshold)
    source = args.labels or args.embeddings
    named = {
        flag: col
        for flag, col in (
            ("--label-column", args.label_column),
            ("--anomaly-column", args.anomaly_column),
            ("--split-column", args.split_column),
        )
        if col is not None
    }
    if args.labels is not None and not named:
        raise InvalidInputError("--labels names no column: give --label-column, --anomaly-column or --split-column")
    check_input_files(
        {
            "--embeddings": args.embeddings,
            **({"--labels": args.labels} if args.labels else {}),
            **({"--test-embeddings": args.test_embeddings} if args.test_embeddings else {}),
        }
    )
    if args.test_embeddings is not None and args.split_column is not None:
        raise InvalidInputError("give either --split-column or --test-embeddings, not both")
    columns = [c.strip() for c in args.embedding_columns.split(",")] if args.embedding_columns else None
    with reading_inputs([args.embeddings] + ([args.labels] if args.labels else []), name="--embeddings/--labels"):
        X = load_embeddings(
            args.embeddings,
            key=args.embeddings_key,
            name="--embeddings",
            columns=columns,
            exclude=tuple(named.values()),
        )
        cols = {flag: load_labels(source, column=col, key=col, name=f"{flag} {col!r}") for flag, col in named.items()}
    for flag, values in cols.items():
        check_same_length(X, values, names=(f"--embeddings ({X.shape[0]} rows)", f"{flag} ({values.shape[0]} rows)"))
    y = cols.get("--label-column", cols.get("--anomaly-column"))
    anomaly = 1 if "--anomaly-column" in cols and "--label-column" not in cols else None
    is_train = None
    if "--split-column" in cols:
        split = cols["--split-column"]
        is_train = check_split_column(
            split,
            train=_typed(args.split_train, split),
            test=_typed(args.split_test, split),
            name=f"--split-column {args.split_column!r}",
        )
    res = find_duplicates(
        X,
        y,
        anomaly=anomaly,
        near_threshold=near,
        k=args.k,
        metric=args.metric,
        backend=args.backend,
        random_state=args.seed,
        progress=not args.quiet and X.shape[0] > 200_000,
    )
    print(res.summary_text())
    out = {"duplicates": res.to_dict()}
    if "--label-column" in cols and "--anomaly-column" in cols:
        flags = res.group_conflicts(cols["--anomaly-column"])
        out["mixed"] = {"n_groups": int(flags.sum()), "n_rows": int(res.group_sizes[flags].sum())}
        print(f"  {'mixed normal/anomaly rows':<26} {out['mixed']['n_rows']:>12}  (by --anomaly-column)")
    if args.test_embeddings is not None:
        from ..duplicates import train_test_overlap

        with reading_inputs([args.test_embeddings], name="--test-embeddings"):
            X_test = load_embeddings(
                args.test_embeddings, key=args.embeddings_key, name="--test-embeddings", columns=columns
            )
        if X_test.shape[1] != X.shape[1]:
            raise InvalidInputError(f"--test-embeddings has {X_test.shape[1]} columns, --embeddings {X.shape[1]}")
        ov = train_test_overlap(
            X, X_test, near_threshold=near, metric=args.metric, backend=args.backend, random_state=args.seed
        )
        out["overlap"] = ov.to_dict()
        near_text = "" if ov.n_near is None else f"; {ov.n_near} ({ov.near_share:.2%}) more have a near copy"
        print(
            f"\nTrain/test overlap ({ov.n_train} training rows in --embeddings, {ov.n_test} test rows in "
            f"--test-embeddings)\n  {ov.n_exact} test rows ({ov.exact_share:.2%}) have an identical training "
            f"row{near_text}"
        )
    if is_train is not None:
        ov = res.overlap(np.flatnonzero(is_train), np.flatnonzero(~is_train))
        out["overlap"] = ov.to_dict()
        near_text = "" if ov.n_near is None else f"; {ov.n_near} ({ov.near_share:.2%}) more have a near copy"
        print(
            f"\nTrain/test overlap ({ov.n_train} training rows, {ov.n_test} test rows)\n"
            f"  {ov.n_exact} test rows ({ov.exact_share:.2%}) have an identical training row{near_text}"
        )
        if y is not None:
            print(ov.to_frame().to_string(index=False))
    if args.json:
        write_text_atomic(args.json, json.dumps(out, indent=2, allow_nan=False) + "\n")
        print(f"wrote {args.json}")
    return EXIT_OK
