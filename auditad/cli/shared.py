"""Argument and output helpers shared by the ``auditad`` commands.

The input arguments of a labelled embedding set (`add_label_args`, `column_list`, `embedding_options`),
``--quiet`` (`progress_enabled`) and the printed and ``--json`` output of a result (`print_and_save`).
"""

from __future__ import annotations

import json

from .terminal import dash_nan

__all__ = ["print_and_save", "add_label_args", "column_list", "embedding_options", "progress_enabled"]


def print_and_save(result, args, *, extra: str | None = None) -> None:
    """Print a result's text summary and, with ``--json FILE``, write its ``to_dict()`` atomically."""
    from .._io import write_text_atomic

    print(dash_nan(result.summary_text()))
    if extra:
        print(extra)
    if args.json:
        write_text_atomic(args.json, json.dumps(result.to_dict(), indent=2, allow_nan=False) + "\n")
        print(f"wrote {args.json}")


def add_label_args(p) -> None:
    """The input arguments (but --embeddings) shared by the single-benchmark commands."""
    p.add_argument(
        "--embeddings-key",
        default=None,
        metavar="KEY",
        help="array name inside .npz/.mat embedding files (default: the only array, else X or embeddings)",
    )
    p.add_argument(
        "--embedding-columns",
        default=None,
        metavar="C1,C2,...",
        type=column_list,
        help="embedding columns of CSV/Parquet embeddings, comma-separated (default: every numeric "
        "column but the label column)",
    )
    p.add_argument(
        "--embedding-prefix",
        default=None,
        metavar="PREFIX",
        help="embedding columns of CSV/Parquet embeddings: those whose name starts with PREFIX",
    )
    p.add_argument(
        "--labels",
        required=True,
        metavar="FILE",
        help="class labels: .npy, .npz, .mat, CSV/TSV or Parquet (may be the embeddings table)",
    )
    p.add_argument(
        "--label-column",
        default=None,
        metavar="COL",
        help="column of a CSV/Parquet labels file (default: 'label', or the only column)",
    )


def column_list(text: str) -> list:
    """``--embedding-columns a,b,c`` -> ``["a", "b", "c"]`` (empty names are kept, and refused by the check)."""
    return [c.strip() for c in str(text).split(",")]


def embedding_options(args) -> dict:
    """``embedding_columns=`` / ``embedding_prefix=`` of `auditad.datasets.load_benchmark`, checked."""
    from ..audit.config import check_embedding_columns

    columns, prefix = check_embedding_columns(args.embedding_columns, args.embedding_prefix)
    return {"embedding_columns": columns, "embedding_prefix": prefix}


def progress_enabled(args) -> bool:
    """Whether the command draws progress lines on stderr (not with ``--quiet``)."""
    return not getattr(args, "quiet", False)
