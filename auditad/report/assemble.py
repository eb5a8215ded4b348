"""Assemble an audit: load inputs, run every applicable diagnostic, collect plain values, tables and figures.

The data flows one way: a :class:`~auditad.report.config.BenchmarkConfig`
(or the bundled example) becomes :class:`BenchmarkInputs` (arrays in memory),
:func:`audit_benchmark` runs the diagnostics of the computing modules
(:mod:`auditad.leakage`, :mod:`auditad.protocol`, :mod:`auditad.nulls`,
:mod:`auditad.landscapes`, :mod:`auditad.selection`) and returns a
:class:`BenchmarkAudit`: the JSON-safe ``summary`` (the content of
``summary.json``, see ``docs/report.md``), tables as DataFrames and figures
as deferred builders. :func:`run_audit` evaluates the gates
(:mod:`auditad.report.checks`), renders the HTML (:mod:`auditad.report.render`)
and writes everything into a temporary folder that is renamed into place
only when all of it succeeded.

Nothing here computes a statistic itself.
"""

from __future__ import annotations

import hashlib
import math
import platform
import re
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from .._json import json_safe
from ..errors import AuditadWarning, InvalidInputError

__all__ = [
    "SCHEMA_VERSION",
    "BenchmarkInputs",
    "BenchmarkAudit",
    "AuditRun",
    "TableSpec",
    "FigureSpec",
    "load_inputs",
    "example_inputs",
    "audit_benchmark",
    "run_audit",
]

#: Version of the summary.json layout (``auditad/schemas/summary.schema.json``).
SCHEMA_VERSION = "1.0"

#: Top-level sections of a summary that hold statistics (a gate path must start with one of these).
STAT_SECTIONS = ("dataset", "leakage", "protocol", "nulls", "landscapes", "selection")

_MARKER = ".auditad-report"
_PACKAGES = ("numpy", "scipy", "pandas", "scikit-learn", "matplotlib", "jinja2", "joblib", "pynndescent")


# --------------------------------------------------------------------------- data classes
@dataclass(frozen=True)
class BenchmarkInputs:
    """One benchmark's data in memory plus where it came from.

    Attributes
    ----------
    name : str
    benchmark : auditad.datasets.Benchmark
        Labels and representations.
    columns : dict of str -> ndarray
        Optional ``domain``, ``attribute`` (labels) and ``anomaly`` (0/1) columns.
    selection : auditad.selection.SelectionBenchmark or None
        Model-selection benchmark (from a manifest, or the demo's digits tasks).
    settings : dict
        Effective audit settings.
    gates : tuple of GateRule
    inputs : tuple of dict
        ``role``, ``path`` (as written in the config) and ``sha256`` of every input.
    config_text, config_name, config_sha256 : str, str or None, str
        The configuration shown in the reproducibility block.
    config_origin : str
        ``"file"`` (a TOML file), ``"flags"`` (command-line flags) or ``"demo"``.
    """

    name: str
    benchmark: Any
    columns: dict
    selection: Any
    settings: dict
    gates: tuple
    inputs: tuple
    config_text: str
    config_name: str | None
    config_sha256: str
    config_origin: str = "file"


@dataclass(frozen=True)
class TableSpec:
    """A table of the report: written to ``tables/`` (compact, also in the appendix) or ``data/`` (full)."""

    name: str
    caption: str
    frame: Any
    section: str
    compact: bool = True


@dataclass(frozen=True)
class FigureSpec:
    """A figure of the report, built on demand (inside the renderer's ``matplotlib.rc_context``)."""

    name: str
    caption: str
    build: Callable[[], Any]
    section: str


@dataclass(frozen=True)
class BenchmarkAudit:
    """Everything computed for one benchmark.

    Attributes
    ----------
    name : str
    summary : dict
        JSON-safe content of ``summary.json`` (gates and verdict filled in by :func:`run_audit`).
    tables : tuple of TableSpec
    figures : tuple of FigureSpec
    results : dict
        The result objects (``leakage`` per representation, ``protocol``, ``nulls``, ``landscape``,
        ``selection``) for programmatic use.
    gate_results : tuple of GateResult
    elapsed_seconds : float
    """

    name: str
    summary: dict
    tables: tuple
    figures: tuple
    results: dict = field(repr=False)
    gate_results: tuple = ()
    elapsed_seconds: float = float("nan")


@dataclass(frozen=True)
class AuditRun:
    """Outcome of :func:`run_audit`.

    Attributes
    ----------
    out : Path
        The output folder.
    audits : tuple of BenchmarkAudit
    exit_code : int
        0 when every gate at or above ``fail_on`` passed, 1 otherwise.
    verdict : str
        Worst verdict over the benchmarks (``pass``, ``warn``, ``fail``).
    elapsed_seconds : float
    """

    out: Path
    audits: tuple
    exit_code: int
    verdict: str
    elapsed_seconds: float

    @property
    def index(self) -> Path:
        """``out/index.html``."""
        return self.out / "index.html"

    def summary_table(self) -> str:
        """A plain-text table (one line per benchmark) for the terminal."""
        head = ("benchmark", "n", "classes", "reps", "L_k", "rho_dir", "rho_inv", "mean_auc", "gates", "verdict")
        rows = [head]
        for a in self.audits:
            s = a.summary
            prot = (s.get("protocol") or {}).get("mean") or {}
            gates = s.get("gates") or []
            passed = sum(1 for g in gates if g["passed"])
            rows.append((a.name, str(s["dataset"]["n"]), str(s["dataset"]["n_classes"]),
                         str(len(s["dataset"]["representations"])), _fmt3(s["leakage"]["L_k"]),
                         _fmt3(prot.get("rho_dir")), _fmt3(prot.get("rho_inv")), _fmt3(prot.get("mean_auc")),
                         f"{passed}/{len(gates)}", s["verdict"].upper()))
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        return "\n".join("  ".join(v.ljust(w) if i in (0, len(head) - 1) else v.rjust(w)
                                   for i, (v, w) in enumerate(zip(r, widths))).rstrip() for r in rows)


def _fmt3(v) -> str:
    return "-" if v is None or (isinstance(v, float) and not math.isfinite(v)) else f"{v:.3f}"


# --------------------------------------------------------------------------- helpers
def _key(label: str) -> str:
    """A gate-path-safe key: letters, digits, '_' and '-' (``pseudo_auc[diverse]`` -> ``pseudo_auc_diverse``)."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", str(label)).strip("_") or "item"


def _slug(label: str, taken: set) -> str:
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", str(label)).strip("_.") or "rep"
    slug, i = base, 2
    while slug in taken:
        slug, i = f"{base}_{i}", i + 1
    taken.add(slug)
    return slug


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _sha256_array(arr: np.ndarray) -> str:
    arr = np.ascontiguousarray(arr)
    h = hashlib.sha256(f"{arr.dtype.str}{arr.shape}".encode())
    if arr.dtype.kind in "US":
        h.update("\x00".join(map(str, arr.tolist())).encode("utf-8"))
    else:
        h.update(arr.tobytes())
    return h.hexdigest()


def _versions() -> dict:
    from importlib import metadata

    from .. import __version__

    pkgs = {}
    for name in _PACKAGES:
        try:
            pkgs[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pkgs[name] = None
    return {"python": platform.python_version(), "auditad": __version__, "packages": pkgs}


# --------------------------------------------------------------------------- inputs
def _read_column(path: Path, column: str | None, *, name: str) -> np.ndarray:
    from ..datasets import load_labels

    suffix = path.suffix.lower()
    if suffix == ".npz":
        return load_labels(path, key=column, name=name)
    if suffix == ".npy":
        if column is not None and name != "labels":
            raise InvalidInputError(f"columns.{name} = {column!r} needs a CSV, Parquet or .npz labels file; "
                                    f"{str(path)!r} is a single .npy array")
        return load_labels(path, name=name)
    return load_labels(path, column=column, name=name)


def load_inputs(bench_cfg, config) -> BenchmarkInputs:
    """Read the arrays of one configured benchmark (labels, optional columns, embeddings, manifest).

    Parameters
    ----------
    bench_cfg : auditad.report.config.BenchmarkConfig
    config : auditad.report.config.AuditConfig

    Raises
    ------
    InvalidInputError
        Unreadable files, mismatched lengths, fewer than two classes, a non-binary anomaly column.
    """
    from .._validation import check_binary_labels, check_same_length
    from ..datasets import Benchmark, load_embeddings

    where = f"benchmark {bench_cfg.name!r}"
    try:
        y = _read_column(bench_cfg.labels, bench_cfg.columns.get("label"), name="labels")
        columns = {}
        for col in ("domain", "attribute", "anomaly"):
            if col in bench_cfg.columns:
                arr = _read_column(bench_cfg.labels, bench_cfg.columns[col], name=col)
                check_same_length(arr, y, names=(f"column {col!r}", "labels"))
                if col == "anomaly":
                    arr = check_binary_labels(arr, name=f"column {bench_cfg.columns[col]!r} (anomaly)")
                columns[col] = arr
        reps = {rep: load_embeddings(p, key=bench_cfg.embeddings_key, name=f"embeddings {rep!r}")
                for rep, p in bench_cfg.embeddings.items()}
        for rep, X in reps.items():
            check_same_length(X, y, names=(f"embeddings {rep!r} ({X.shape[0]} rows)", f"labels ({y.shape[0]} rows)"))
        bench = Benchmark(name=bench_cfg.name, y=y, representations=reps,
                          sources={k: v for k, v in bench_cfg.display_paths.items()})
        selection = None
        if bench_cfg.manifest is not None:
            from ..manifest import load_manifest

            selection = load_manifest(bench_cfg.manifest)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where}: {exc}") from None
    files = [("labels", bench_cfg.labels, bench_cfg.display_paths["labels"])]
    files += [(f"embeddings:{rep}", p, bench_cfg.display_paths[f"embeddings:{rep}"])
              for rep, p in bench_cfg.embeddings.items()]
    if bench_cfg.manifest is not None:
        files.append(("manifest", bench_cfg.manifest, bench_cfg.display_paths["manifest"]))
    inputs = tuple({"role": role, "path": shown, "sha256": _sha256_file(p)} for role, p, shown in files)
    return BenchmarkInputs(name=bench_cfg.name, benchmark=bench, columns=columns, selection=selection,
                           settings=dict(bench_cfg.settings), gates=tuple(bench_cfg.gates), inputs=inputs,
                           config_text=config.text, config_name=config.source.name if config.source else None,
                           config_sha256=config.sha256, config_origin="file" if config.source else "flags")


#: Settings of ``auditad demo``: the defaults with lighter Isolation Forest, null Monte Carlo and bootstrap.
DEMO_SETTINGS = {
    "detector_params": {"iforest": {"n_estimators": 50}},
    "null_runs": 1000,
    "selection_n_boot": 500,
}


def example_inputs(*, seed: int = 0, selection: bool = True, gates=()) -> BenchmarkInputs:
    """The bundled example (:func:`auditad.datasets.load_example`: digits as pixels and pca16) as audit inputs.

    With ``selection=True`` the model-selection section runs on
    :func:`auditad.synthetic.digits_benchmark` (one task per digit: normal =
    that digit, anomalies = the others; candidates = pixels / l2 / PCA
    embeddings × kNN / LDN scoring).
    """
    from ..datasets import load_example
    from .config import CONFIG_VERSION, settings_to_toml, validate_settings

    settings = validate_settings({**DEMO_SETTINGS, "seed": int(seed)}, where="demo settings")
    bench = load_example()
    sel = None
    if selection:
        from ..synthetic import digits_benchmark

        sel = digits_benchmark(random_state=int(seed))
    inputs = [{"role": "labels", "path": "sklearn.datasets.load_digits (target)", "sha256": _sha256_array(bench.y)}]
    inputs += [{"role": f"embeddings:{rep}", "path": f"auditad.datasets.load_example ({rep})",
                "sha256": _sha256_array(X)} for rep, X in bench.representations.items()]
    if sel is not None:
        inputs.append({"role": "selection", "path": f"auditad.synthetic.digits_benchmark(random_state={int(seed)})",
                       "sha256": None})
    text = ("# auditad demo: the bundled example benchmark (no files), with these settings\n"
            f"version = {CONFIG_VERSION}\n" + ("gates = [" + ", ".join(f'"{g.text}"' for g in gates) + "]\n"
                                               if gates else "")
            + "\n" + settings_to_toml(settings))
    return BenchmarkInputs(name=bench.name, benchmark=bench, columns={}, selection=sel, settings=settings,
                           gates=tuple(gates), inputs=tuple(inputs), config_text=text, config_name=None,
                           config_sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(), config_origin="demo")


# --------------------------------------------------------------------------- the audit of one benchmark
def _detectors(settings: Mapping) -> tuple[list, int]:
    from ..protocol import IsolationForestDetector, LOFDetector

    params = settings["detector_params"]
    out = []
    for name in settings["detectors"]:
        p = params.get(name, {})
        if name == "iforest" and p:
            out.append(IsolationForestDetector(**p))
        elif name == "lof" and p:
            out.append(LOFDetector(**p))
        else:  # "knn" keeps its name so that audit_protocol applies k, backend and threading
            out.append(name)
    k = params.get("knn", {}).get("k", 5)
    return out, int(k)


def audit_benchmark(inputs: BenchmarkInputs, *, progress: bool = False) -> BenchmarkAudit:
    """Run every applicable diagnostic on one benchmark.

    Sections: leakage (every representation; also of the ``domain`` and
    ``attribute`` columns), the class-split protocol, the random-baseline
    nulls at each held-out class's test counts (observed AUROC(c) placed on
    them), metric landscapes at the benchmark's anomaly ratio, and
    anomaly-free model selection when ``inputs.selection`` is set.

    Parameters
    ----------
    inputs : BenchmarkInputs
    progress : bool
        Progress bars on stderr.

    Returns
    -------
    BenchmarkAudit
        ``summary["gates"]`` is empty and ``summary["verdict"]`` is ``"pass"`` until :func:`run_audit`
        evaluates the gates.
    """
    from .._progress import Progress

    t0 = time.perf_counter()
    s = inputs.settings
    bench = inputs.benchmark
    has_sel = inputs.selection is not None
    stages = 4 + int(has_sel)
    tables: list[TableSpec] = []
    figures: list[FigureSpec] = []
    results: dict = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", AuditadWarning)
        with Progress(stages, f"audit {inputs.name}", enabled=progress) as bar:
            leak = _leakage_section(inputs, tables, figures, results)
            bar.update()
            prot = _protocol_section(inputs, tables, figures, results, progress=progress)
            bar.update()
            nulls = _nulls_section(inputs, tables, figures, results)
            bar.update()
            land = _landscape_section(inputs, nulls, tables, figures, results)
            bar.update()
            sel = None
            if has_sel:
                sel = _selection_section(inputs, tables, figures, results, progress=progress)
                bar.update()
    notes = []
    for w in caught:
        if issubclass(w.category, AuditadWarning):
            text = f"{w.category.__name__}: {w.message}"
            if text not in notes:
                notes.append(text)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)

    classes, sizes = np.unique(bench.y, return_counts=True)
    dataset = {
        "n": bench.n,
        "n_classes": int(classes.size),
        "classes": [c.item() for c in classes],
        "class_sizes": [int(v) for v in sizes],
        "representations": {rep: {"dim": int(X.shape[1])} for rep, X in bench.representations.items()},
        "columns": sorted(inputs.columns),
        "anomaly_ratio": (float(np.mean(inputs.columns["anomaly"])) if "anomaly" in inputs.columns else None),
    }
    summary = {
        "schema_version": SCHEMA_VERSION,
        "benchmark": inputs.name,
        "dataset": dataset,
        "inputs": list(inputs.inputs),
        "config": {"origin": inputs.config_origin, "file": inputs.config_name, "sha256": inputs.config_sha256,
                   "text": inputs.config_text},
        "settings": dict(inputs.settings),
        "seed": int(s["seed"]),
        "environment": _versions(),
        "run": {"timestamp": None, "elapsed_seconds": None},
        "leakage": leak,
        "protocol": prot,
        "nulls": nulls,
        "landscapes": land,
        "selection": sel,
        "warnings": notes,
        "captions": {t.name: t.caption for t in tables if t.compact} | {f.name: f.caption for f in figures},
        "gates": [],
        "verdict": "pass",
    }
    return BenchmarkAudit(name=inputs.name, summary=json_safe(summary, other=str), tables=tuple(tables),
                          figures=tuple(figures), results=results, elapsed_seconds=time.perf_counter() - t0)


# ---- leakage (SPEC §1)
def _leakage_section(inputs, tables, figures, results) -> dict:
    import pandas as pd

    from ..leakage import leakage

    s, bench = inputs.settings, inputs.benchmark
    per_rep = {}
    for rep, X in bench.representations.items():
        per_rep[rep] = leakage(X, bench.y, k=s["k"], metric=s["metric"], backend=s["backend"],
                               random_state=s["seed"])
    results["leakage"] = per_rep
    first = next(iter(per_rep))
    main = per_rep[first]
    out = {key: main.to_dict()[key] for key in ("k", "L_k", "chance", "ratio_to_chance", "by_k", "metric",
                                                  "backend", "recall")}
    out["representation"] = first
    out["representations"] = {rep: r.to_dict() for rep, r in per_rep.items()}
    out["max_L_k"] = max(r.L_k for r in per_rep.values())
    # other label columns: how much the domains / attributes mix in each representation
    cols = {}
    for col in ("domain", "attribute"):
        if col not in inputs.columns:
            continue
        values = inputs.columns[col]
        if np.unique(values).size < 2:
            cols[col] = None
            warnings.warn(f"column {col!r} has a single value; its leakage is not defined", AuditadWarning)
            continue
        col_res = {rep: leakage(X, values, k=s["k"][0], metric=s["metric"], backend=s["backend"],
                                random_state=s["seed"]) for rep, X in bench.representations.items()}
        r0 = col_res[first]
        cols[col] = {"k": r0.k, "L_k": r0.L_k, "chance": r0.chance, "ratio_to_chance": r0.ratio_to_chance,
                     "n_values": int(r0.classes.size),
                     "representations": {rep: {"L_k": r.L_k, "chance": r.chance,
                                               "ratio_to_chance": r.ratio_to_chance}
                                         for rep, r in col_res.items()}}
        results[f"leakage_{col}"] = col_res
    out["columns"] = cols

    frame = pd.concat([r.to_frame().assign(representation=rep) for rep, r in per_rep.items()], ignore_index=True)
    frame = frame[["representation", "k", "leakage", "chance", "ratio_to_chance"]]
    tables.append(TableSpec("leakage", f"{inputs.name}: neighbourhood class leakage L_k per representation and k "
                                       "(chance = L_k of randomly drawn neighbours)", frame, "leakage"))
    wide = None
    for rep, r in per_rep.items():
        f = pd.DataFrame({"class": [c.item() for c in r.classes], "n": r.class_sizes.astype(int),
                          "chance": r.chance_per_class, f"L_k(c) {rep}": r.per_class_leakage})
        wide = f if wide is None else wide.merge(f[["class", f"L_k(c) {rep}"]], on="class")
    tables.append(TableSpec("leakage_per_class", f"{inputs.name}: per-class leakage L_k(c) at k = {main.k}",
                            wide, "leakage", compact=wide.shape[0] <= 40))
    tables.append(TableSpec("leakage_per_class_all_k", f"{inputs.name}: per-class leakage at every k",
                            pd.concat([r.per_class_frame().assign(representation=rep) for rep, r in per_rep.items()],
                                      ignore_index=True), "leakage", compact=False))
    if any(v is not None for v in cols.values()):
        rows = [{"column": col, "representation": rep, "k": v["k"], "leakage": rv["L_k"], "chance": rv["chance"],
                 "ratio_to_chance": rv["ratio_to_chance"]}
                for col, v in cols.items() if v is not None for rep, rv in v["representations"].items()]
        tables.append(TableSpec("leakage_columns", f"{inputs.name}: leakage of the other label columns "
                                                   "(share of neighbours with another value)",
                                pd.DataFrame(rows), "leakage"))

    def build():
        from matplotlib.figure import Figure

        from ..plotting import plot_leakage_curve

        fig = Figure(figsize=(5.2, 3.4), layout="constrained")
        ax = fig.add_subplot()
        for i, (rep, r) in enumerate(per_rep.items()):
            plot_leakage_curve(r, ax=ax, label=rep, color=f"C{i % 10}", chance=(i == 0))
        return fig

    figures.append(FigureSpec("leakage_vs_k", f"{inputs.name}: leakage L_k against k per representation; "
                                              "dotted: chance level", build, "leakage"))
    return out


# ---- class-split protocol (SPEC §2)
def _protocol_section(inputs, tables, figures, results, *, progress) -> dict:
    from ..protocol import audit_protocol

    s, bench = inputs.settings, inputs.benchmark
    dets, knn_k = _detectors(s)
    res = audit_protocol(bench.representations, bench.y, protocol=s["protocol"], detectors=dets, k=knn_k,
                         epsilon=s["epsilon"], train_fraction=s["train_fraction"],
                         contamination=s["contamination"], repeats=s["repeats"], leakage_k=s["k"][0],
                         leakage_results=results.get("leakage"),
                         ci_level=s["ci_level"], backend=s["backend"], n_jobs=s["n_jobs"], progress=progress,
                         random_state=s["seed"])
    results["protocol"] = res
    out = res.to_dict()
    cols = ["representation", "detector", "mean_auc", "sigma2_auc", "range_auc", "rho_rnd", "rho_inv", "rho_dir",
            "rho_nonsig", "spearman_leakage_auroc"]
    tables.append(TableSpec("protocol_summary", f"{inputs.name}: class-split protocol ({res.protocol}, "
                                                f"epsilon = {res.epsilon:g}) per representation and detector",
                            res.to_frame("summary")[cols], "protocol"))
    per_class = res.to_frame("per_class")
    wide = per_class[(per_class["representation"] == res.representation_names[0])
                     & (per_class["detector"] == "mean")][["class", "n_pos", "n_neg"]].reset_index(drop=True)
    for rep in res.representation_names:
        for det in list(res.detector_names) + ["mean"]:
            sub = per_class[(per_class["representation"] == rep) & (per_class["detector"] == det)]
            wide[f"{rep}/{det}"] = sub["auroc"].to_numpy()
    tables.append(TableSpec("protocol_auroc", f"{inputs.name}: AUROC(c) per held-out class, representation/detector",
                            wide, "protocol", compact=wide.shape[0] <= 40))
    tables.append(TableSpec("protocol_per_class", f"{inputs.name}: per-class protocol results (long form)",
                            per_class, "protocol", compact=False))
    taken: set = set()
    for rep in res.representation_names:
        slug = _slug(rep, taken)

        def heat(rep=rep):
            from matplotlib.figure import Figure

            from ..plotting import plot_protocol_heatmap

            fig = Figure(figsize=(1.6 + 1.0 * (len(res.detector_names) + 1), 1.5 + 0.32 * len(res.classes)),
                         layout="constrained")
            plot_protocol_heatmap(res, representation=rep, ax=fig.add_subplot())
            return fig

        def scatter(rep=rep):
            from matplotlib.figure import Figure

            from ..plotting import plot_leakage_vs_auroc

            fig = Figure(figsize=(5.0, 3.8), layout="constrained")
            plot_leakage_vs_auroc(res, representation=rep, ax=fig.add_subplot())
            return fig

        figures.append(FigureSpec(f"protocol_heatmap_{slug}", f"{inputs.name}, {rep}: AUROC per held-out class and "
                                  f"detector (hatched: near random, |AUROC - 0.5| <= {res.epsilon:g})", heat,
                                  "protocol"))
        figures.append(FigureSpec(f"leakage_vs_auroc_{slug}", f"{inputs.name}, {rep}: per-class leakage L_k(c) "
                                  "against the detector-mean AUROC(c)", scatter, "protocol"))
    return out


# ---- random-baseline nulls (SPEC §3)
def _nulls_section(inputs, tables, figures, results) -> dict:
    import pandas as pd

    from ..nulls import null_distribution

    s = inputs.settings
    res = results["protocol"]
    rows = [r for r in res.per_class_rows if r["detector"] == "mean"]
    observed = {rep: {r["class"]: r["auroc"] for r in rows if r["representation"] == rep}
                for rep in res.representation_names}
    reps = list(res.representation_names)
    counts = {r["class"]: (r["n_pos"], r["n_neg"]) for r in rows if r["representation"] == reps[0]}
    rng = np.random.default_rng([int(s["seed"]), 3])
    others = tuple(m for m in s["null_metrics"] if m != "auroc")  # the AUROC null is always computed
    cache: dict = {}  # (n_pos, n_neg) -> nulls of the other metrics (classes of equal size share them)
    per_class, primary, table_rows, long = [], {}, [], []
    for c in [cc.item() for cc in res.classes]:
        n_pos, n_neg = counts[c]
        if n_pos < 1 or n_neg < 1:
            continue
        if (n_pos, n_neg) not in cache:
            cache[(n_pos, n_neg)] = null_distribution(
                n_pos, n_neg, metrics=others, q=s["null_q"], method=s["null_method"], runs=s["null_runs"],
                random_state=rng) if others else None
        rest = cache[(n_pos, n_neg)]
        obs_by_rep = {}
        for rep in reps:
            a = observed[rep].get(c, float("nan"))
            obs = {"auroc": a} if math.isfinite(a) else None
            nr = null_distribution(n_pos, n_neg, metrics=("auroc",), method=s["null_method"], runs=s["null_runs"],
                                   observed=obs, random_state=rng)
            primary.setdefault(c, nr)
            an = nr["auroc"]
            obs_by_rep[rep] = {"auroc": a if obs else None, "p_value": an.p_value if obs else None,
                               "above_q95": bool(a > an.q95) if obs else None,
                               "above_q99": bool(a > an.q99) if obs else None}
        metric_nulls = list(primary[c].nulls) + (list(rest.nulls) if rest is not None else [])
        per_class.append({"class": c, "n_pos": int(n_pos), "n_neg": int(n_neg), "ratio": primary[c].ratio,
                          "q": rest.q if rest is not None else None,
                          "nulls": {m.metric: {k: v for k, v in m.to_dict().items() if not k.startswith("hist_")
                                               and k not in ("observed", "p_value")}
                                    for m in metric_nulls},
                          "observed": obs_by_rep})
        row = {"class": c, "n_pos": int(n_pos), "n_neg": int(n_neg), "ratio": primary[c].ratio}
        for m in metric_nulls:
            row[f"{m.metric} mean"] = m.mean
            if m.metric == "auroc":
                row["auroc q99"] = m.q99
        for rep in reps:
            row[f"AUROC {rep}"] = obs_by_rep[rep]["auroc"]
            row[f"p {rep}"] = obs_by_rep[rep]["p_value"]
        table_rows.append(row)
        long.append(primary[c].to_frame().assign(**{"class": c}))
        if rest is not None:
            long.append(rest.to_frame().assign(**{"class": c}))
    results["nulls"] = primary

    def shares(rep):
        obs = [pc["observed"][rep] for pc in per_class if pc["observed"][rep]["auroc"] is not None]
        if not obs:
            return {"n_observed": 0, "share_above_q95": None, "share_above_q99": None, "max_p_value": None}
        return {"n_observed": len(obs), "share_above_q95": float(np.mean([o["above_q95"] for o in obs])),
                "share_above_q99": float(np.mean([o["above_q99"] for o in obs])),
                "max_p_value": float(max(o["p_value"] for o in obs))}

    out = {"representation": reps[0], "metrics": ["auroc", *others],
           "prediction": next(iter(primary.values())).prediction if primary else None,
           **shares(reps[0]),
           "representations": {rep: shares(rep) for rep in reps},
           "per_class": per_class, "anomaly_split": None}
    if "anomaly" in inputs.columns:
        a = inputs.columns["anomaly"]
        n_pos, n_neg = int(a.sum()), int(a.size - a.sum())
        nr = null_distribution(n_pos, n_neg, metrics=("auroc",) + others, q=s["null_q"], method=s["null_method"],
                               runs=s["null_runs"], random_state=rng)
        results["nulls_anomaly"] = nr
        out["anomaly_split"] = {"n_pos": n_pos, "n_neg": n_neg, "ratio": nr.ratio,
                                "nulls": {m.metric: {k: v for k, v in m.to_dict().items()
                                                     if not k.startswith("hist_") and k not in ("observed", "p_value")}
                                          for m in nr.nulls}}
        tables.append(TableSpec("nulls_anomaly_split", f"{inputs.name}: random baselines at the anomaly column's "
                                f"counts ({n_pos} anomalies, {n_neg} normals)",
                                nr.to_frame().drop(columns=["observed", "p_value"]), "nulls"))
    frame = pd.DataFrame(table_rows)
    tables.append(TableSpec("nulls", f"{inputs.name}: random-baseline means at each held-out class's test counts, "
                                     "observed detector-mean AUROC(c) and its p-value P(AUROC_null >= observed)",
                            frame, "nulls", compact=frame.shape[0] <= 40))
    if primary:
        tables.append(TableSpec("nulls_per_class_all_metrics", f"{inputs.name}: null distributions per class "
                                "(all statistics)", pd.concat(long, ignore_index=True), "nulls", compact=False))

        shown = list(primary.items())[:12]

        def build():
            from matplotlib.figure import Figure

            from ..plotting import plot_null

            ncol = min(4, len(shown))
            nrow = -(-len(shown) // ncol)
            fig = Figure(figsize=(2.6 * ncol, 2.2 * nrow), layout="constrained")
            axes = fig.subplots(nrow, ncol, squeeze=False).ravel()
            for i, (c, nr) in enumerate(shown):
                ax = plot_null(nr, metric="auroc", ax=axes[i])
                ax.set_title(f"class {c} (n+ = {nr.n_pos}, n- = {nr.n_neg})", fontsize=8)
                ax.set_ylabel("")
                if i:
                    ax.get_legend().remove()
                else:
                    ax.legend(fontsize=6, loc="upper left")
            for ax in axes[len(shown):]:
                ax.set_visible(False)
            return fig

        more = f" (first {len(shown)} of {len(primary)} classes)" if len(primary) > len(shown) else ""
        figures.append(FigureSpec("nulls_auroc", f"{inputs.name}, {reps[0]}: exact/Monte Carlo null of AUROC at each "
                                  f"held-out class's test counts with the observed detector-mean AUROC(c){more}",
                                  build, "nulls"))
    return out


# ---- metric landscapes (SPEC §3)
def _landscape_section(inputs, nulls, tables, figures, results) -> dict:
    import pandas as pd

    from ..landscapes import (PAPER_RATIOS, landscape, landscape_coverage, landscape_difference,
                              landscape_regions, minimal_tpr)

    s = inputs.settings
    if "anomaly" in inputs.columns:
        ratio = float(np.mean(inputs.columns["anomaly"]))
        source = "share of anomalies in the anomaly column"
    else:
        ratios = [pc["ratio"] for pc in nulls["per_class"]]
        if ratios:
            ratio = float(np.mean(ratios))
            source = "mean anomaly share of the class-split test sets"
        else:  # no class-split task could be evaluated (every class skipped)
            ratio = float(np.clip(1.0 / inputs.benchmark.classes.size, 1e-6, 1 - 1e-6))
            source = "1 / number of classes (no class-split task could be evaluated)"
    label = f"{100 * ratio:.3g}%"
    ref = float(s["landscape_reference"])
    ratio_map = {label: ratio}
    for extra in s["landscape_ratios"]:
        name = extra if isinstance(extra, str) else f"{100 * extra:.3g}%"
        if name not in ratio_map:
            ratio_map[name] = PAPER_RATIOS[extra] if isinstance(extra, str) else float(extra)
    ref_label = f"{100 * ref:.3g}%"
    if ref_label in ratio_map:
        ref_label = f"reference {ref_label}"
    ratio_map[ref_label] = ref
    land = landscape(ratio_map, metrics=tuple(s["landscape_metrics"]), resolution=s["landscape_resolution"])
    diff = landscape_difference(land, reference=ref)
    reg = landscape_regions(land)
    targets = np.round(np.arange(1, 21) * 0.05, 10)
    mt = minimal_tpr(land, scores=targets)
    cov = landscape_coverage(land)
    results["landscape"] = {"landscape": land, "difference": diff, "regions": reg, "minimal_tpr": mt,
                            "coverage": cov}
    r0, rr = land.ratio_index(label), land.ratio_index(ref_label)
    at_ratio = {}
    for m_i, m in enumerate(land.metrics):
        values = land.values[r0, m_i]
        at_ratio[m] = {
            "flag_nothing": float(values[0, -1]),
            "flag_nothing_at_reference": float(land.values[rr, m_i][0, -1]),
            "flag_everything": float(values[-1, 0]),
            "mean_difference": float(diff.mean_difference[r0, m_i]),
            "max_increase": float(diff.max_increase[r0, m_i]),
            "max_decrease": float(diff.max_decrease[r0, m_i]),
            "regions": {g: {"mean": float(reg.mean[r0, m_i, q]),
                            "excess_kurtosis": float(reg.excess_kurtosis[r0, m_i, q]),
                            "mean_at_reference": float(reg.mean[rr, m_i, q])}
                        for q, g in enumerate(reg.regions)},
            "minimal_tpr": [{"score": float(sc), "min_tpr": float(mt.min_tpr[r0, m_i, i]),
                             "tnr_needed": float(mt.tnr_needed[r0, m_i, i]),
                             "min_tpr_at_reference": float(mt.min_tpr[rr, m_i, i])}
                            for i, sc in enumerate(targets)],
        }
    out = {"ratio": ratio, "ratio_source": source, "label": label, "reference": ref,
           "metrics": list(land.metrics), "resolution": int(land.tpr.size),
           "ratios": [{"label": lab, "ratio": float(v)} for lab, v in zip(land.labels, land.ratios)],
           "at_ratio": at_ratio}

    rows = []
    for m_i, m in enumerate(land.metrics):
        for q, g in enumerate(reg.regions):
            rows.append({"metric": m, "region": g, "mean": reg.mean[r0, m_i, q],
                         "excess_kurtosis": reg.excess_kurtosis[r0, m_i, q], "mean at reference": reg.mean[rr, m_i, q]})
    tables.append(TableSpec("landscape_regions", f"{inputs.name}: metric landscapes at pi = {100 * ratio:.3g}% in the "
                            f"regions R1-R5 (seed 003), with the mean at the reference ratio {ref:g}",
                            pd.DataFrame(rows), "landscapes"))
    rows = []
    for m_i, m in enumerate(land.metrics):
        for i, sc in enumerate(targets):
            if round(sc * 100) % 10 or sc < 0.5 or sc > 0.95:
                continue  # the compact table shows 0.5, 0.6, ..., 0.9
            rows.append({"metric": m, "score": sc, "min_tpr": mt.min_tpr[r0, m_i, i],
                         "tnr_needed": mt.tnr_needed[r0, m_i, i], "min_tpr at reference": mt.min_tpr[rr, m_i, i]})
    tables.append(TableSpec("landscape_minimal_tpr", f"{inputs.name}: minimal TPR to reach a score (and the TNR it "
                            f"then needs) at pi = {100 * ratio:.3g}% and at the reference ratio {ref:g}",
                            pd.DataFrame(rows), "landscapes"))
    tables.append(TableSpec("landscape_minimal_tpr_all", f"{inputs.name}: minimal TPR, every ratio and target",
                            mt.to_frame(), "landscapes", compact=False))
    tables.append(TableSpec("landscape_regions_all", f"{inputs.name}: region statistics, every ratio",
                            reg.to_frame(), "landscapes", compact=False))
    tables.append(TableSpec("landscape_coverage", f"{inputs.name}: share of the landscape area per score bin",
                            cov.to_frame(), "landscapes", compact=False))
    M = len(land.metrics)

    def build_land():
        from matplotlib.figure import Figure

        from ..plotting import plot_landscape

        fig = Figure(figsize=(3.0 * M, 3.0), layout="constrained")
        for ax, m in zip(fig.subplots(1, M, squeeze=False)[0], land.metrics):
            plot_landscape(land, metric=m, ratio=label, ax=ax, regions=(m == "auroc"))
        return fig

    varying = [m for m in land.metrics if m != "auroc"]  # AUROC does not depend on the ratio: its map is 0

    def build_diff():
        from matplotlib.figure import Figure

        from ..plotting import plot_landscape_difference

        fig = Figure(figsize=(3.6 * max(len(varying), 1), 3.1), layout="constrained")
        for ax, m in zip(fig.subplots(1, len(varying), squeeze=False)[0], varying):
            plot_landscape_difference(diff, metric=m, ratio=label, ax=ax)
        return fig

    def build_mt():
        from matplotlib.figure import Figure

        from ..plotting import plot_minimal_tpr

        fig = Figure(figsize=(3.0 * M, 3.0), layout="constrained")
        for ax, m in zip(fig.subplots(1, M, squeeze=False)[0], land.metrics):
            plot_minimal_tpr(mt, metric=m, ax=ax)
            ax.set_title(m, fontsize=9)
        return fig

    figures.append(FigureSpec("landscapes", f"{inputs.name}: metric landscapes over TPR x TNR at the benchmark's "
                              f"anomaly ratio {100 * ratio:.3g}% (red boxes on AUROC: regions R1-R5)", build_land,
                              "landscapes"))
    if varying:
        figures.append(FigureSpec("landscape_differences", f"{inputs.name}: landscape at {100 * ratio:.3g}% minus the "
                                  f"landscape at the reference ratio {ref:g} (AUROC is left out: it does not depend "
                                  "on the ratio)", build_diff, "landscapes"))
    figures.append(FigureSpec("minimal_tpr", f"{inputs.name}: minimal TPR (solid) and the TNR it then needs (dashed) "
                              "to reach each score, per ratio", build_mt, "landscapes"))
    return out


# ---- anomaly-free model selection (SPEC §4)
def _selection_section(inputs, tables, figures, results, *, progress) -> dict:
    from ..selection import pretty_label, run_selection

    s = inputs.settings
    n_jobs = s["n_jobs"]
    if n_jobs < 1:
        import os

        n_jobs = max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    res = run_selection(inputs.selection, estimators=s["selection_estimators"] or None,
                        probes=s["selection_probes"] or None, pool_by=s["selection_pool_by"],
                        n_boot=s["selection_n_boot"], n_jobs=n_jobs, progress=progress, random_state=s["seed"])
    results["selection"] = res
    full = res.to_dict()
    summary = res.summary_frame()
    by_selector = {}
    for label, row in summary.iterrows():
        by_selector[_key(label)] = {"label": label, "name": pretty_label(label), "kind": row["kind"],
                                    "probe": row["probe"], "rho_rank": row["rho_rank"], "a_pair": row["a_pair"],
                                    "regret": row["regret"], "n_units": int(row["n_units"])}
    estimators = [lab for lab in res.config["estimators"] if lab in summary.index]
    finite = [lab for lab in estimators if np.isfinite(summary.loc[lab, "regret"])]
    best = min(finite, key=lambda lab: (summary.loc[lab, "regret"], estimators.index(lab))) if finite else None
    out = {"benchmark": res.benchmark, "n_tasks": res.config["n_tasks"], "n_candidates": res.config["n_candidates"],
           "n_units": res.config["n_units"], "estimators": list(res.config["estimators"]),
           "probes": list(res.config["probes"]), "pool_by": res.config["pool_by"],
           "n_boot": res.config["n_boot"],
           "best": None if best is None else {"key": _key(best), "label": best, "name": pretty_label(best),
                                              "regret": summary.loc[best, "regret"],
                                              "rho_rank": summary.loc[best, "rho_rank"],
                                              "a_pair": summary.loc[best, "a_pair"]},
           "by_selector": by_selector,
           "summary": full["summary"], "bootstrap": full["bootstrap"], "candidates": full["candidates"],
           "units": full["units"], "skipped": full["skipped"]}
    frame = summary.reset_index()
    frame.insert(1, "name", [pretty_label(lab) for lab in frame["estimator"]])
    frame = frame[["name", "rho_rank", "a_pair", "regret", "n_units"]].rename(columns={"name": "selector"})
    tables.append(TableSpec("selection", f"{inputs.name}: anomaly-free model selection over "
                            f"{res.config['n_tasks']} tasks x {res.config['n_candidates']} candidates: mean Spearman "
                            "rho_rank, pairwise accuracy A_pair and regret (AUC, best minus selected)",
                            frame, "selection"))
    tables.append(TableSpec("selection_candidates", f"{inputs.name}: true AUC and bound per task and candidate",
                            res.candidates_frame(), "selection", compact=False))
    tables.append(TableSpec("selection_units", f"{inputs.name}: selection per task and selector",
                            res.units_frame(), "selection", compact=False))
    tables.append(TableSpec("selection_estimates", f"{inputs.name}: estimator values per task and candidate",
                            res.to_frame(), "selection", compact=False))
    if res.bootstrap:
        tables.append(TableSpec("selection_bootstrap",
                                f"{inputs.name}: paired bootstrap of differences in selected AUC",
                                res.bootstrap_frame(), "selection", compact=False))

    def build():
        from matplotlib.figure import Figure

        from ..plotting import plot_bound_vs_auc, plot_estimator_vs_auc

        fig = Figure(figsize=(9.0, 3.8), layout="constrained")
        left, right = fig.subplots(1, 2)
        plot_estimator_vs_auc(res, estimator=best, ax=left)
        plot_bound_vs_auc(res, ax=right)
        return fig

    figures.append(FigureSpec("selection", f"{inputs.name}: {pretty_label(best) if best else 'estimator'} against the "
                              "true AUC per candidate (left) and the Eq. 1 bound of the true test scores against the "
                              "empirical AUC (right)", build, "selection"))
    return out


# --------------------------------------------------------------------------- the whole run
def _check_gate_paths(rules, where: str) -> None:
    for rule in rules:
        head = rule.path.split(".", 1)[0]
        if head not in STAT_SECTIONS:
            raise InvalidInputError(f"{where}: unknown gate metric {rule.path!r}: a path starts with one of "
                                    f"{list(STAT_SECTIONS)}")


def _effective_gates(inputs: BenchmarkInputs) -> tuple:
    from .checks import parse_rule
    from .config import DEFAULT_GATES

    if inputs.gates:
        return tuple(inputs.gates)
    if inputs.settings.get("default_gates", True):
        return tuple(parse_rule(g) for g in DEFAULT_GATES)
    return ()


def _check_out(out: Path, sources: list[Path]) -> None:
    """Refuse to replace a folder that is not an earlier auditad report, or one holding the inputs."""
    if out.exists() and out.is_dir() and any(out.iterdir()) and not (out / _MARKER).is_file():
        raise InvalidInputError(f"--out {str(out)!r} is a non-empty folder that is not an auditad report; "
                                "choose a new or empty folder (it would be replaced)")
    o = out.resolve()
    for p in sources:
        p = Path(p).resolve()
        if o == p or o in p.parents:
            raise InvalidInputError(f"--out {str(out)!r} contains the input {str(p)!r}; choose another folder")


def run_audit(inputs_list, out, *, fail_on: str = "fail", timestamp: bool = False, progress: bool = False,
              junit=None, markdown=None, sources=(), on_benchmark: Callable | None = None) -> AuditRun:
    """Audit every benchmark, evaluate the gates and write the report folder atomically.

    Parameters
    ----------
    inputs_list : sequence of BenchmarkInputs
    out : str or Path
        Output folder; created, or replaced if it holds an earlier auditad report.
    fail_on : {"fail", "warn"}
        Which failed gates make the exit code 1.
    timestamp : bool
        Record the UTC time and run times (the report then differs between runs).
    progress : bool
        Progress bars on stderr.
    junit, markdown : path, optional
        Also write the gate results as JUnit XML / a Markdown CI summary
        (:func:`auditad.report.export.write_junit`, :func:`~auditad.report.export.write_markdown_summary`).
    sources : sequence of Path
        Input files that the output folder must not contain.
    on_benchmark : callable, optional
        Called with each finished :class:`BenchmarkAudit` (e.g. to print progress).

    Returns
    -------
    AuditRun

    Raises
    ------
    InvalidInputError
        Bad output folder, an unknown gate metric. Nothing is written then.
    """
    from .._io import discard_output_dir, prepare_output_dir, replace_dir_atomic
    from .._validation import check_choice
    from .checks import evaluate_gates, exit_code, verdict

    t0 = time.perf_counter()
    fail_on = check_choice(fail_on, ("fail", "warn"), name="--fail-on")
    for flag, path in (("--junit", junit), ("--markdown", markdown)):
        if path is not None:
            path = Path(path)
            parent = path.parent if str(path.parent) else Path(".")
            if path.is_dir() or not parent.is_dir():
                raise InvalidInputError(f"{flag} {str(path)!r}: " + ("is a folder, expected a file name" if
                                        path.is_dir() else "its folder does not exist"))
    inputs_list = list(inputs_list)
    if not inputs_list:
        raise InvalidInputError("nothing to audit: no benchmark given")
    gates = {}
    for inp in inputs_list:
        gates[inp.name] = _effective_gates(inp)
        _check_gate_paths(gates[inp.name], f"benchmark {inp.name!r}")
    out_path = Path(out)
    _check_out(out_path, list(sources))
    out_path, tmp = prepare_output_dir(out_path)
    try:
        audits = []
        for inp in inputs_list:
            audit = audit_benchmark(inp, progress=progress)
            try:
                gate_results = evaluate_gates(audit.summary, gates[inp.name])
            except InvalidInputError as exc:
                raise InvalidInputError(f"benchmark {inp.name!r}: {exc}") from None
            audit.summary["gates"] = [g.to_dict() for g in gate_results]
            audit.summary["verdict"] = verdict(gate_results)
            if timestamp:
                from datetime import datetime, timezone

                audit.summary["run"] = {"timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                                        "elapsed_seconds": audit.elapsed_seconds}
            audit = BenchmarkAudit(name=audit.name, summary=audit.summary, tables=audit.tables,
                                   figures=audit.figures, results=audit.results, gate_results=tuple(gate_results),
                                   elapsed_seconds=audit.elapsed_seconds)
            _write_benchmark(audit, tmp / audit.name, progress=progress)
            audits.append(audit)
            if on_benchmark is not None:
                on_benchmark(audit)
        from .render import render_index

        from .._io import write_text_atomic

        write_text_atomic(tmp / "index.html", render_index(audits, timestamp=timestamp))
        write_text_atomic(tmp / _MARKER, "Written by 'auditad audit'; the next run into this folder replaces it.\n")
        by_bench = {a.name: list(a.gate_results) for a in audits}
        replace_dir_atomic(tmp, out_path)
    except BaseException:
        discard_output_dir(tmp)
        raise
    if junit is not None or markdown is not None:
        from . import export

        if junit is not None:
            export.write_junit(by_bench, junit)
        if markdown is not None:
            export.write_markdown_summary(by_bench, markdown)
    every = [g for a in audits for g in a.gate_results]
    return AuditRun(out=out_path, audits=tuple(audits), exit_code=exit_code(every, fail_on=fail_on),
                    verdict=verdict(every), elapsed_seconds=time.perf_counter() - t0)


def _write_benchmark(audit: BenchmarkAudit, folder: Path, *, progress: bool = False) -> None:
    """Write summary.json, tables, figures and report.html of one benchmark into ``folder``."""
    import json

    from .._io import write_bytes_atomic, write_text_atomic
    from .._progress import Progress
    from .render import figure_files, render_report

    (folder / "tables").mkdir(parents=True)
    (folder / "figures").mkdir()
    write_text_atomic(folder / "summary.json",
                      json.dumps(audit.summary, indent=2, allow_nan=False, ensure_ascii=False) + "\n")
    if any(not t.compact for t in audit.tables):
        (folder / "data").mkdir()
    _write_tables(audit.tables, folder)
    svgs = {}
    with Progress(len(audit.figures), f"figures {audit.name}", enabled=progress) as bar:
        for spec in audit.figures:
            svg, pdf = figure_files(spec)
            write_bytes_atomic(folder / "figures" / f"{spec.name}.svg", svg)
            write_bytes_atomic(folder / "figures" / f"{spec.name}.pdf", pdf)
            svgs[spec.name] = svg
            bar.update()
    write_text_atomic(folder / "report.html", render_report(audit, svgs))


def _write_tables(tables, folder: Path) -> None:
    from .._io import write_text_atomic
    from .export import write_table

    for t in tables:
        if t.compact:
            write_table(t.frame, folder / "tables" / t.name, caption=t.caption, label=f"tab:{_key(t.name)}")
        else:
            write_text_atomic(folder / "data" / f"{t.name}.csv", t.frame.to_csv(index=False))
