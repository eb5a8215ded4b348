"""The analysis commands of ``auditad``: ``leakage``, ``protocol``, ``nulls``, ``landscape``, ``select``.

Each runs one diagnostic of the computing modules (`auditad.leakage`, `auditad.protocol`, `auditad.nulls`,
`auditad.landscape_study`, `auditad.selection`) on the given inputs, prints its summary and, with ``--json``
(or ``--out`` / ``--figure``), writes its result. Registered in `auditad.cli.COMMANDS` like every command:
``add_<name>`` declares the arguments on an argparse sub-parser and ``run_<name>`` executes it and returns the
exit code. Heavy libraries are imported inside the ``run_*`` functions (``auditad --help`` stays fast).
"""

from __future__ import annotations

import sys
from pathlib import Path

from .commands import add_json, add_quiet
from .shared import add_label_args, embedding_options, print_and_save, progress_enabled
from .terminal import EXIT_OK

__all__ = [
    "add_leakage",
    "run_leakage",
    "add_protocol",
    "run_protocol",
    "add_nulls",
    "run_nulls",
    "add_landscape",
    "run_landscape",
    "add_select",
    "run_select",
]


# --------------------------------------------------------------------------- leakage
def add_leakage(sub) -> None:
    p = sub.add_parser(
        "leakage",
        help="neighbourhood class leakage L_k of a labelled embedding set",
        description="Neighbourhood class leakage L_k (Testing the Test: Score-Direction Instability in "
        "Class-Split Anomaly Detection).",
    )
    p.add_argument(
        "--embeddings",
        required=True,
        metavar="FILE",
        help="embeddings: .npy, .npz, .mat, CSV/TSV or Parquet (an (n, d) array or table)",
    )
    add_label_args(p)
    p.add_argument(
        "--k", type=int, action="append", default=None, help="neighbour count; repeat for several (default 10)"
    )
    p.add_argument("--metric", default="euclidean", choices=["euclidean", "cosine"])
    p.add_argument("--backend", default="auto", choices=["auto", "exact", "approximate"])
    p.add_argument("--seed", type=int, default=0, help="random seed (approximate backend)")
    add_json(p)
    add_quiet(p)


def run_leakage(args) -> int:
    from .._validation import check_input_files, check_output_file, reading_inputs
    from ..datasets import load_benchmark
    from ..leakage import leakage

    check_output_file(args.json, name="--json")
    check_input_files({"--embeddings": args.embeddings, "--labels": args.labels})
    with reading_inputs([args.embeddings, args.labels], name="--embeddings/--labels"):
        bench = load_benchmark(
            args.embeddings,
            args.labels,
            embeddings_key=args.embeddings_key,
            label_column=args.label_column,
            **embedding_options(args),
        )
    ks = args.k or [10]
    n = bench.X.shape[0]
    result = leakage(
        bench.X,
        bench.y,
        k=ks if len(ks) > 1 else ks[0],
        metric=args.metric,
        backend=args.backend,
        random_state=args.seed,
        progress=progress_enabled(args) and n * n > 4e8,
    )  # only searches of several seconds
    print_and_save(result, args)
    return EXIT_OK


# --------------------------------------------------------------------------- protocol
def add_protocol(sub) -> None:
    p = sub.add_parser(
        "protocol",
        help="class-split protocol audit: per-class AUROC, inversion, direction instability",
        description="Class-split protocol audit (Testing the Test): K-1 vs 1 or 1 vs K-1 runs, "
        "per-class AUROC with DeLong intervals, sigma^2_AUC, rho_rnd, rho_inv, rho_dir.",
    )
    p.add_argument(
        "--embeddings",
        required=True,
        action="append",
        metavar="[NAME=]FILE",
        help="embeddings: .npy, .npz, .mat, CSV/TSV or Parquet; repeat (as NAME=FILE) to compare "
        "several representations of the same samples",
    )
    add_label_args(p)
    p.add_argument("--protocol", default="leave_one_class_out", choices=["leave_one_class_out", "one_class"])
    p.add_argument(
        "--detector",
        action="append",
        default=None,
        choices=["knn", "iforest", "lof"],
        help="detector; repeat for several (default: knn, iforest, lof)",
    )
    p.add_argument("--k", type=int, default=5, help="k of the kNN detector (default 5)")
    p.add_argument("--epsilon", type=float, default=0.05, help="near-random half-width, in [0, 0.5) (default 0.05)")
    p.add_argument("--train-fraction", type=float, default=0.8, help="share of the normals used for training")
    p.add_argument("--split", default=None, help="file with a train/test column (train/test, 1/0 or booleans)")
    p.add_argument("--split-column", default=None, help="column of a CSV/Parquet split file")
    p.add_argument("--contamination", type=float, default=None, help="subsample anomalies to this test share")
    p.add_argument("--repeats", type=int, default=1, help="number of random splits (default 1)")
    p.add_argument("--leakage-k", type=int, default=10, help="k of the per-class leakage L_k(c); 0 = skip")
    p.add_argument("--backend", default="auto", choices=["auto", "exact", "approximate"])
    p.add_argument(
        "--n-jobs",
        type=int,
        default=-1,
        help="per-task detector fits (processes) and kNN/LOF task scoring (threads) at once; -1 (default) = all cores",
    )
    p.add_argument("--seed", type=int, default=0)
    add_json(p)
    add_quiet(p)


def run_protocol(args) -> int:
    from .._validation import check_input_files, check_output_file, reading_inputs
    from ..datasets import load_benchmark, load_labels
    from ..errors import InvalidInputError
    from ..protocol import audit_protocol

    check_output_file(args.json, name="--json")
    paths = {}
    for item in args.embeddings:
        name, sep, path = item.partition("=")
        if not sep:
            name, path = Path(item).stem, item
        if name in paths:
            raise InvalidInputError(f"--embeddings: representation name {name!r} given twice; use NAME=PATH")
        paths[name] = path
    check_input_files(
        {
            **{f"--embeddings {name}": path for name, path in paths.items()},
            "--labels": args.labels,
            "--split": args.split,
        }
    )
    with reading_inputs([*paths.values(), args.labels, args.split], name="--embeddings/--labels/--split"):
        bench = load_benchmark(
            paths,
            args.labels,
            embeddings_key=args.embeddings_key,
            label_column=args.label_column,
            **embedding_options(args),
        )
        split = None
        if args.split is not None:
            split = load_labels(args.split, column=args.split_column, name="split")
    if args.leakage_k < 0:
        raise InvalidInputError(f"--leakage-k must be >= 0 (0 = skip), got {args.leakage_k}")
    result = audit_protocol(
        bench.representations,
        bench.y,
        protocol=args.protocol,
        detectors=tuple(args.detector or ("knn", "iforest", "lof")),
        k=args.k,
        epsilon=args.epsilon,
        train_fraction=args.train_fraction,
        split=split,
        contamination=args.contamination,
        repeats=args.repeats,
        leakage_k=args.leakage_k,
        backend=args.backend,
        n_jobs=args.n_jobs,
        progress=progress_enabled(args),
        random_state=args.seed,
    )
    print_and_save(result, args)  # a run with nothing evaluated was refused by audit_protocol (exit 2)
    return EXIT_OK


# --------------------------------------------------------------------------- nulls
def add_nulls(sub) -> None:
    p = sub.add_parser(
        "nulls",
        help="random-baseline (null) distributions of AUROC, AP, AUPR, F1, MCC",
        description="Distribution of each metric under random predictions at the given class counts "
        "(Hermary, Mejri and Aouada, An Insight on Evaluation Metrics Under the "
        "Imbalanced Case of Anomaly Detection, Sec. IV); places observed scores on their nulls.",
    )
    p.add_argument("--n-pos", type=int, default=None, help="number of anomalies (positives)")
    p.add_argument("--n-neg", type=int, default=None, help="number of normals (negatives)")
    p.add_argument("--ratio", type=float, default=None, help="anomaly ratio in (0, 1), with --n instead of the counts")
    p.add_argument("--n", type=int, default=None, help="test-set size, with --ratio")
    p.add_argument(
        "--metric",
        action="append",
        default=None,
        choices=["auroc", "ap", "aupr_trap", "f1", "mcc", "mcc_scaled"],
        help="metric; repeat for several (default: all)",
    )
    p.add_argument(
        "--observed",
        action="append",
        default=None,
        metavar="METRIC=VALUE",
        help="observed score to place on its null, e.g. auroc=0.71; repeatable",
    )
    p.add_argument(
        "--q",
        default="coin",
        help="positive rate of the random binary predictions for F1/MCC: coin (1/2), prior (pi) or a number",
    )
    p.add_argument("--method", default="auto", choices=["auto", "exact", "monte_carlo"])
    p.add_argument("--runs", type=int, default=10_000, help="Monte Carlo runs (default 10000)")
    p.add_argument("--seed", type=int, default=0)
    add_json(p)
    p.add_argument(
        "--figure",
        default=None,
        metavar="FILE",
        help="write a figure of the observed scores on their nulls (format from the suffix: .png, .svg, .pdf)",
    )
    add_quiet(p)


def _parse_observed(items) -> dict:
    from ..errors import InvalidInputError

    out = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        try:
            number = float(value)
        except ValueError:
            number = None
        if not sep or number is None:
            raise InvalidInputError(f"--observed must look like METRIC=VALUE (e.g. auroc=0.71), got {item!r}")
        out[key.strip()] = number
    return out


def _parse_q(text):
    if text in ("coin", "prior"):
        return text
    try:
        return float(text)
    except ValueError:
        from ..errors import InvalidInputError

        raise InvalidInputError(f"--q must be 'coin', 'prior' or a number in [0, 1], got {text!r}") from None


def _save_figure(fig, path) -> None:
    import io

    from .._io import write_bytes_atomic

    buf = io.BytesIO()
    fig.savefig(buf, format=Path(path).suffix.lstrip(".").lower() or "png", dpi=120)
    write_bytes_atomic(path, buf.getvalue())


def run_nulls(args) -> int:
    from .._validation import check_figure_path, check_output_file
    from ..nulls import null_distribution

    check_output_file(args.json, name="--json")
    check_figure_path(args.figure, name="--figure")
    observed = _parse_observed(args.observed)
    result = null_distribution(
        args.n_pos,
        args.n_neg,
        ratio=args.ratio,
        n=args.n,
        metrics=tuple(args.metric) if args.metric else ("auroc", "ap", "aupr_trap", "f1", "mcc", "mcc_scaled"),
        q=_parse_q(args.q),
        method=args.method,
        runs=args.runs,
        observed=observed or None,
        random_state=args.seed,
    )
    print_and_save(result, args)
    if args.figure:
        from matplotlib.figure import Figure

        from ..plotting import plot_null

        shown = [m for m in result.metrics if m in observed] or list(result.metrics)
        fig = Figure(figsize=(4.8 * len(shown), 3.4), layout="constrained")
        for ax, m in zip(fig.subplots(1, len(shown), squeeze=False)[0], shown):
            plot_null(result, metric=m, ax=ax)
        _save_figure(fig, args.figure)
        print(f"wrote {args.figure}")
    return EXIT_OK


# --------------------------------------------------------------------------- landscape
def add_landscape(sub) -> None:
    p = sub.add_parser(
        "landscape",
        help="metric landscapes over TPR x TNR at given anomaly ratios (figures + CSV)",
        description="Metric landscapes under class imbalance (Hermary, Mejri and Aouada, Sec. V-VI): landscapes, "
        "difference maps against a reference ratio, regions R1-R5, minimal TPR, "
        "coverage, Pearson/Tucker between metrics per ratio group.",
    )
    p.add_argument(
        "--ratio",
        action="append",
        default=None,
        help="anomaly ratio in (0, 1) or a preset name (UCR, WaDi, PUMP, SWaT, PSM, CIFAR-10, VisA, "
        "'VisA (L)', MVTec, 'MVTec (L)'); repeatable (default: all presets of Hermary et al., Table I)",
    )
    p.add_argument(
        "--metric",
        action="append",
        default=None,
        choices=["auroc", "ap", "aupr_trap", "f1", "mcc", "mcc_scaled"],
        help="metric; repeat for several (default: auroc, aupr_trap, f1, mcc_scaled)",
    )
    p.add_argument("--resolution", type=int, default=101, help="grid points per axis (default 101)")
    p.add_argument("--reference", type=float, default=0.5, help="reference ratio of the difference maps (default 0.5)")
    p.add_argument(
        "--out", required=True, metavar="DIR", help="output folder (created if missing; files in it are overwritten)"
    )
    p.add_argument("--no-figures", action="store_true", help="write the CSV files only")
    add_quiet(p)


def run_landscape(args) -> int:
    from ..landscape_study import check_out_folder, landscape_study, parse_ratios, write_landscape_study
    from ..landscapes import LANDSCAPE_METRICS

    check_out_folder(args.out)  # before the work
    study = landscape_study(
        parse_ratios(args.ratio),
        metrics=tuple(args.metric or LANDSCAPE_METRICS),
        resolution=args.resolution,
        reference=args.reference,
    )
    written = write_landscape_study(study, args.out, figures=not args.no_figures)
    for note in study.notes:
        print(f"auditad: note: {note}", file=sys.stderr)
    print(study.summary_text())
    print(f"wrote {len(written)} files to {args.out}: {', '.join(written)}")
    return EXIT_OK


# --------------------------------------------------------------------------- select (anomaly-free model selection)
def add_select(sub) -> None:
    p = sub.add_parser(
        "select",
        help="judge anomaly-free model-selection estimators over tasks x candidates",
        description="Anomaly-free model selection (Wilkinghoff and Tan, Can We Predict Anomaly Detection "
        "Performance from Embedding-Space Geometry?): inlier variance, AUC "
        "bound and Pseudo AUC with pseudo-anomaly probes, judged by rho_rank, A_pair "
        "and regret against the true AUC, with Oracle/Random/Fixed baselines.",
    )
    p.add_argument("manifest", nargs="?", default=None, help="TOML manifest of the benchmark (see docs/manifest.md)")
    p.add_argument(
        "--example",
        choices=["digits", "synthetic"],
        default=None,
        help="use a built-in benchmark instead of a manifest",
    )
    p.add_argument(
        "--estimator",
        action="append",
        default=None,
        help="inlier_variance, auc_bound, robust_bound, pseudo_auc, npd, or KIND[PROBE]; repeat "
        "(default: inlier_variance, auc_bound, pseudo_auc)",
    )
    p.add_argument(
        "--pseudo",
        action="append",
        default=None,
        help="pseudo-anomaly probe: random, feature, sequence, element, cross_domain, cross_class, "
        "cross_attribute, diverse; repeat (default: every probe the metadata allows)",
    )
    p.add_argument(
        "--pool-by",
        default=None,
        choices=["scoring", "family", "embedding", "pooling"],
        help="select separately within each value of this candidate attribute (scoring = Table 1)",
    )
    p.add_argument("--lam", default=None, help="domain weighting of the inlier moments: 'empirical' or a number")
    p.add_argument("--n-boot", type=int, default=2000, help="paired bootstrap replicates (0 = none)")
    p.add_argument("--backend", default="exact", choices=["auto", "exact", "approximate"])
    p.add_argument(
        "--n-jobs", type=int, default=-1, help="parallel (task, candidate) units; -1 (default) = one per CPU"
    )
    p.add_argument("--seed", type=int, default=0)
    add_json(p)
    p.add_argument(
        "--figure", default=None, metavar="FILE", help="write estimator-vs-AUC and bound-vs-AUC plots to this image"
    )
    p.add_argument("--figure-estimator", default=None, help="estimator shown in --figure (default: the last one)")
    add_quiet(p)


def run_select(args) -> int:
    from .._validation import check_figure_path, check_output_file
    from ..errors import InvalidInputError
    from ..selection import run_selection

    if (args.manifest is None) == (args.example is None):
        raise InvalidInputError("give either a MANIFEST.toml or --example digits|synthetic (not both)")
    check_output_file(args.json, name="--json")
    check_figure_path(args.figure, name="--figure")
    if args.example == "digits":
        from ..synthetic import digits_benchmark

        bench = digits_benchmark(random_state=args.seed)
    elif args.example == "synthetic":
        from ..synthetic import make_selection_benchmark

        bench = make_selection_benchmark(random_state=args.seed)
    else:
        from .._validation import reading_inputs
        from ..manifest import load_manifest

        with reading_inputs([args.manifest], name="MANIFEST"):
            bench = load_manifest(args.manifest)
    lam = args.lam
    if lam is not None and lam != "empirical":
        try:
            lam = float(lam)
        except ValueError:
            raise InvalidInputError(f"--lam must be 'empirical' or a number in [0, 1], got {args.lam!r}") from None
    result = run_selection(
        bench,
        estimators=args.estimator,
        probes=args.pseudo,
        pool_by=args.pool_by,
        lam=lam,
        n_boot=args.n_boot,
        backend=args.backend,
        n_jobs=args.n_jobs,
        progress=progress_enabled(args),
        random_state=args.seed,
    )
    print_and_save(result, args, extra=f"run time {result.elapsed_seconds:.1f} s")
    if args.figure:
        from matplotlib.figure import Figure

        from ..plotting import plot_bound_vs_auc, plot_estimator_vs_auc

        fig = Figure(figsize=(9.0, 3.8), layout="constrained")
        left, right = fig.subplots(1, 2)
        plot_estimator_vs_auc(result, estimator=args.figure_estimator, ax=left)
        plot_bound_vs_auc(result, ax=right)
        _save_figure(fig, args.figure)
        print(f"wrote {args.figure}")
    return EXIT_OK
