"""The audit configuration: one TOML file describing benchmarks, settings and gates.

See ``docs/config.md`` for every field.  In short:

    version = 1
    # optional gates: rules over summary.json paths (auditad.gates.checks syntax; level fail by default)
    gates = ["leakage.L_k <= 0.5", "warn: protocol.mean.rho_dir <= 0.2"]

    [settings]                 # shared by every benchmark (all optional)
    seed = 0
    leakage_k = [10, 1, 5, 20] # leakage neighbour counts; the first is the primary k
    epsilon = 0.05
    detectors = ["knn", "iforest", "lof"]

    [detectors.pyod_knn]       # optional: a named detector (PyOD by name; parsed, never evaluated)
    detector = "pyod:KNN"      # then list it: detectors = ["knn", "pyod:ECOD", "pyod_knn"]
    n_neighbors = 10

    [execution]                # optional: where the work runs (never changes the report's bytes)
    scheduler = "local:2"      # "serial", "local[:N]" or a Dask scheduler address "tcp://host:8786"

    [[benchmarks]]
    name = "digits"
    labels = "labels.csv"
    embeddings = { pixels = "pixels.npy", pca16 = "pca16.npy" }
    # embedding_columns = ["f0", "f1"]  or  embedding_prefix = "f"   (CSV/Parquet embeddings; optional)
    manifest = "selection/manifest.toml"     # optional: anomaly-free model selection
    [benchmarks.columns]                      # optional columns of the labels table
    label = "label"
    domain = "domain"

Rules: unknown keys are errors naming the key; relative paths resolve against
the config file's folder and, after resolving symlinks, must stay inside it;
every input file must exist. Loading the configuration reads no array: that
happens in `auditad.audit.runner.load_inputs`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from .._toml import settings_to_toml, toml_value
from .._validation import describe
from ..errors import InvalidInputError

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = [
    "AuditConfig",
    "BenchmarkConfig",
    "DEFAULT_SETTINGS",
    "DEFAULT_GATES",
    "CONFIG_VERSION",
    "load_config",
    "config_from_paths",
    "check_embedding_columns",
    "validate_settings",
    "settings_to_toml",
]

CONFIG_VERSION = 1
#: Largest config file read (checked before reading; a config of hundreds of benchmarks is a few kB).
MAX_CONFIG_BYTES = 16 * 1024 * 1024

# Settings are declared once in auditad.audit.settings; these names stay importable from here.
from .settings import DEFAULT_GATES, DEFAULT_SETTINGS, check_detector_table, unknown_keys as _unknown  # noqa: E402
from .settings import validate_settings  # noqa: E402

# the gate keys come from the gate options' declaration (auditad.gates.options)
from ..gates.options import CONFIG_KEYS as _GATE_KEYS, gate_option as _gate_option  # noqa: E402

#: The configuration key of the gate rules (global, and per benchmark) and its command-line flag.
_GATES, _GATE_FLAG = _gate_option("gate").config, _gate_option("gate").flag
_TOP_KEYS = {"version", "settings", "benchmarks", "detectors", "execution", *_GATE_KEYS}
_EXECUTION_KEYS = {"scheduler"}
_BENCH_KEYS = {
    "name",
    "labels",
    "embeddings",
    "embeddings_key",
    "embedding_columns",
    "embedding_prefix",
    "columns",
    "manifest",
    "settings",
    *_GATE_KEYS,
}
_COLUMN_KEYS = ("label", "domain", "attribute", "anomaly")
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


@dataclass(frozen=True)
class BenchmarkConfig:
    """One benchmark of a configuration (paths already resolved and checked).

    Attributes
    ----------
    name : str
        Display name and output folder name.
    labels : Path
        Labels file (``.npy``, ``.npz``, ``.csv``, ``.parquet``).
    embeddings : dict of str -> Path
        Representation name -> embeddings file (``.npy`` / ``.npz``).
    embeddings_key : str or None
        Array name inside ``.npz`` embedding files.
    embedding_columns : tuple of str or None
        Embedding columns of CSV/Parquet embedding files (default: every numeric column but the labels table's).
    embedding_prefix : str or None
        Embedding columns of CSV/Parquet embedding files: those whose name starts with it.
    columns : dict of str -> str
        ``label`` / ``domain`` / ``attribute`` / ``anomaly`` -> column (CSV/Parquet) or array name (``.npz``).
    manifest : Path or None
        Selection manifest ([`auditad.manifest.load_manifest`][auditad.manifest.load_manifest]).
    settings : dict
        Effective settings (defaults < ``[settings]`` < ``[benchmarks.settings]`` < command-line flags).
    gates : tuple of GateRule
        Global rules, then the benchmark's, then the command line's (``--gate``).
    display_paths : dict
        How each input is named in the report (relative to the config folder).

    See Also
    --------
    - `run_audit`: the full audit of several benchmarks.
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: gates on written summaries.
    - [`auditad.report.export.write_appendix`][auditad.report.export.write_appendix]: the LaTeX appendix.
    """

    name: str
    labels: Path
    embeddings: dict
    embeddings_key: str | None = None
    embedding_columns: tuple | None = None
    embedding_prefix: str | None = None
    columns: dict = field(default_factory=dict)
    manifest: Path | None = None
    settings: dict = field(default_factory=dict)
    gates: tuple = ()
    display_paths: dict = field(default_factory=dict)


@dataclass(frozen=True)
class AuditConfig:
    """A parsed configuration: benchmarks plus where it came from.

    Attributes
    ----------
    benchmarks : tuple of BenchmarkConfig
    source : Path or None
        The TOML file (None when built from command-line flags).
    text : str
        The configuration as TOML text (the file verbatim, or a rendering of the flags),
        shown in the reproducibility block of the report.
    sha256 : str
        Hash of ``text``.
    command_line : tuple of str
        The command-line flags applied on top of a configuration file (settings overrides and
        ``--gate`` rules), shown next to the file in the report; empty when the flags are the
        configuration (then ``text`` holds them).
    scheduler : str or None
        ``[execution] scheduler`` (checked by `auditad.execution.parse_scheduler`); where the
        work runs, not a setting: it is not recorded in ``summary.json`` and never changes the report.

    See Also
    --------
    - `run_audit`: the full audit of several benchmarks.
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: gates on written summaries.
    - [`auditad.report.export.write_appendix`][auditad.report.export.write_appendix]: the LaTeX appendix.
    """

    benchmarks: tuple
    source: Path | None
    text: str
    sha256: str
    command_line: tuple = ()
    scheduler: str | None = None


# --------------------------------------------------------------------------- helpers
def _err(where: str, message: str) -> InvalidInputError:
    return InvalidInputError(f"{where}: {message}")


def _check_gates(raw, where: str) -> tuple:
    from ..gates.checks import rules_from_config

    if not isinstance(raw, list):
        raise _err(
            where,
            f'must be a list of rules like ["leakage.L_k <= 0.5", "warn: protocol.mean.rho_dir '
            f'<= 0.2"], got {describe(raw)}',
        )
    return tuple(rules_from_config(raw, source=where))


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class _Resolver:
    """Resolves paths of a config file against its folder; nothing may escape the folder."""

    def __init__(self, root: Path, where: str):
        self.root = root.resolve()
        self.where = where

    def file(self, value, key: str, folder_ok: bool = False) -> tuple[Path, str]:
        if not isinstance(value, str) or not value:
            raise _err(self.where, f"{key} must be a file path (a non-empty string), got {describe(value)}")
        raw = Path(value)
        full = (raw if raw.is_absolute() else self.root / raw).resolve()
        if full != self.root and self.root not in full.parents:
            raise _err(
                self.where,
                f"{key} = {value!r} points outside the config folder {str(self.root)!r}; "
                "put the config file next to (or above) its data",
            )
        if not full.exists():
            raise _err(self.where, f"{key} = {value!r}: file not found ({str(full)!r})")
        if full.is_dir() and not folder_ok:  # embeddings may be a folder of .npy shards
            raise _err(self.where, f"{key} = {value!r} is a folder, expected a file")
        return full, full.relative_to(self.root).as_posix()


# --------------------------------------------------------------------------- loading
def load_config(path, *, overrides: Mapping | None = None, extra_gates=None) -> AuditConfig:
    """Read and check an audit configuration file.

    Parameters
    ----------
    path : str or Path
        The TOML file.
    overrides : mapping, optional
        Settings that replace the file's (from command-line flags).
    extra_gates : sequence of GateRule, optional
        Rules added to every benchmark's gates (``--gate``).

    Returns
    -------
    AuditConfig

    Raises
    ------
    InvalidInputError
        Unreadable TOML, an unknown key, a bad value, a missing file, a path
        outside the config folder, duplicate benchmark names.

    See Also
    --------
    - `run_audit`: the full audit of several benchmarks.
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: gates on written summaries.
    - [`auditad.report.export.write_appendix`][auditad.report.export.write_appendix]: the LaTeX appendix.
    """
    from .._io import read_input_bytes

    path = Path(path)
    if not path.exists():
        raise InvalidInputError(f"config file {str(path)!r} does not exist")
    if path.is_dir():
        raise InvalidInputError(f"config path {str(path)!r} is a folder, expected a TOML file")
    data = read_input_bytes(path, what="config file", max_bytes=MAX_CONFIG_BYTES)  # no FIFO, no /dev/zero
    where = path.name
    try:
        text = data.decode("utf-8")
        raw = tomllib.loads(text)
    except UnicodeDecodeError:
        raise InvalidInputError(f"{where}: not a UTF-8 text file") from None
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInputError(f"{where}: invalid TOML: {exc}") from None
    _unknown(raw, _TOP_KEYS, where, "")
    version = raw.get("version", CONFIG_VERSION)
    if version != CONFIG_VERSION:
        raise _err(where, f"version must be {CONFIG_VERSION}, got {describe(version)}")
    scheduler = _execution(raw.get("execution", {}), where)
    settings = validate_settings(_with_detector_tables(raw, where), where=f"{where}: settings")
    gates = _check_gates(raw.get(_GATES, []), f"{where}: {_GATES}")
    benches = raw.get("benchmarks")
    if not isinstance(benches, list) or not benches or not all(isinstance(b, Mapping) for b in benches):
        raise _err(where, "needs at least one [[benchmarks]] table")
    resolver = _Resolver(path.parent if str(path.parent) else Path("."), where)
    out, seen = [], set()
    for i, b in enumerate(benches):
        bwhere = f"benchmarks[{i}]" + (f" ({b['name']})" if isinstance(b.get("name"), str) else "")
        _unknown(b, _BENCH_KEYS, where, f"{bwhere}.")
        if "labels" not in b:
            raise _err(where, f"{bwhere} is missing the required key 'labels'")
        if "embeddings" not in b:
            raise _err(where, f"{bwhere} is missing the required key 'embeddings'")
        labels, labels_rel = resolver.file(b["labels"], f"{bwhere}.labels")
        emb_raw = b["embeddings"]
        if isinstance(emb_raw, str):
            emb_raw = {Path(emb_raw).stem: emb_raw}
        if not isinstance(emb_raw, Mapping) or not emb_raw:
            raise _err(where, f"{bwhere}.embeddings must be a path or a table name = path, got {describe(emb_raw)}")
        embeddings, display = {}, {"labels": labels_rel}
        for rep, p in emb_raw.items():
            embeddings[rep], display[f"embeddings:{rep}"] = resolver.file(
                p, f"{bwhere}.embeddings.{rep}", folder_ok=True
            )
        manifest = None
        if "manifest" in b:
            manifest, display["manifest"] = resolver.file(b["manifest"], f"{bwhere}.manifest")
        columns = b.get("columns", {})
        if not isinstance(columns, Mapping):
            raise _err(where, f"{bwhere}.columns must be a table, got {describe(columns)}")
        _unknown(columns, _COLUMN_KEYS, where, f"{bwhere}.columns.")
        for ck, cv in columns.items():
            if not isinstance(cv, str) or not cv:
                raise _err(where, f"{bwhere}.columns.{ck} must be a column name, got {describe(cv)}")
        key = b.get("embeddings_key")
        if key is not None and not isinstance(key, str):
            raise _err(where, f"{bwhere}.embeddings_key must be a string, got {describe(key)}")
        emb_columns, emb_prefix = check_embedding_columns(
            b.get("embedding_columns"), b.get("embedding_prefix"), f"{where}: {bwhere}"
        )
        name = b.get("name", labels.stem)
        _check_name(name, f"{where}: {bwhere}.name")
        if name in seen:
            raise _err(where, f"two benchmarks are named {name!r}; names must be unique (they are folder names)")
        seen.add(name)
        bsettings = validate_settings(b.get("settings", {}), where=f"{where}: {bwhere}.settings", base=settings)
        if overrides:
            bsettings = validate_settings(overrides, where="command line", base=bsettings)
        bgates = _check_gates(b.get(_GATES, []), f"{where}: {bwhere}.{_GATES}")
        merged = gates + bgates + tuple(extra_gates or ())
        out.append(
            BenchmarkConfig(
                name=name,
                labels=labels,
                embeddings=embeddings,
                embeddings_key=key,
                embedding_columns=emb_columns,
                embedding_prefix=emb_prefix,
                columns=dict(columns),
                manifest=manifest,
                settings=bsettings,
                gates=merged,
                display_paths=display,
            )
        )
    from .settings import settings_to_flags

    flags = settings_to_flags(overrides or {}) + tuple(f"{_GATE_FLAG} '{r.text}'" for r in extra_gates or ())
    return AuditConfig(
        benchmarks=tuple(out), source=path, text=text, sha256=_sha256(data), command_line=flags, scheduler=scheduler
    )


def _execution(table, where: str) -> str | None:
    """``[execution]``: the scheduler as a canonical string (None when not given)."""
    from ..execution import parse_scheduler

    if not isinstance(table, Mapping):
        raise _err(where, f'execution must be a table like [execution] scheduler = "local:2", got {describe(table)}')
    _unknown(table, _EXECUTION_KEYS, where, "execution.")
    if "scheduler" not in table:
        return None
    try:
        return str(parse_scheduler(table["scheduler"]))
    except InvalidInputError as exc:
        raise _err(where, f"execution.{exc}") from None


def _with_detector_tables(raw: Mapping, where: str) -> dict:
    """``[settings]`` with every ``[detectors.NAME]`` table added to ``detector_params`` (checked there)."""
    settings = raw.get("settings", {})
    tables = raw.get("detectors")
    if tables is None or not isinstance(settings, Mapping):
        return settings
    if not isinstance(tables, Mapping) or not all(isinstance(t, Mapping) for t in tables.values()):
        raise _err(
            where, f'detectors must hold tables like [detectors.pyod_knn] detector = "pyod:KNN", got {describe(tables)}'
        )
    params = (
        dict(settings.get("detector_params", {}))
        if isinstance(settings.get("detector_params"), Mapping)
        else settings.get("detector_params", {})
    )
    if not isinstance(params, Mapping):
        return settings
    for name, table in tables.items():
        if name in params:
            raise _err(where, f"detector {name!r} is defined twice ([detectors.{name}] and settings.detector_params)")
        if "detector" not in table:
            raise _err(where, f'[detectors.{name}] needs detector = a name such as "pyod:KNN" or "knn"')
        params[name] = check_detector_table(name, table, f"{where}: detectors.{name}")
    return {**settings, "detector_params": params}


def check_embedding_columns(columns, prefix, where: str = "") -> tuple:
    """``(embedding_columns, embedding_prefix)`` of a benchmark, checked.

    ``embedding_columns`` must be a non-empty list of distinct column names and ``embedding_prefix``
    a non-empty string; at most one of them is given.  Whether the columns exist is checked when the
    table is read ([`auditad.datasets.load_representations`][auditad.datasets.load_representations]).

    Parameters
    ----------
    columns : list of str or None
    prefix : str or None
    where : str
        Put before the message (``"audit.toml: benchmarks[0] (digits)"``).

    Returns
    -------
    tuple
        ``(tuple of str or None, str or None)``.

    Raises
    ------
    InvalidInputError
        Naming the parameter (``embedding_columns`` / ``embedding_prefix``) and its value.

    See Also
    --------
    - [`auditad.datasets.load_representations`][auditad.datasets.load_representations]: reads the columns.
    - `load_config`: the configuration file.

    References
    ----------
    W. McKinney, "Data Structures for Statistical Computing in Python", SciPy 2010 (pandas tables).
    """
    lead = f"{where}: " if where else ""
    if columns is not None and prefix is not None:
        raise InvalidInputError(f"{lead}give either embedding_columns or embedding_prefix, not both")
    if columns is not None:
        if (
            not isinstance(columns, (list, tuple))
            or not columns
            or not all(isinstance(c, str) and c.strip() for c in columns)
        ):
            raise InvalidInputError(
                f"{lead}embedding_columns must be a non-empty list of column names like "
                f'["f0", "f1"], got {describe(columns)}'
            )
        twice = sorted({c for c in columns if list(columns).count(c) > 1})
        if twice:
            raise InvalidInputError(f"{lead}embedding_columns={list(columns)!r} names {twice} more than once")
        columns = tuple(columns)
    if prefix is not None and (not isinstance(prefix, str) or not prefix):
        raise InvalidInputError(
            f'{lead}embedding_prefix must be a non-empty string such as "f" (for f0, f1, ...), got {describe(prefix)}'
        )
    return columns, prefix


def _check_name(name, where: str) -> None:
    if not isinstance(name, str) or not _NAME_RE.match(name) or name in (".", ".."):
        raise InvalidInputError(
            f"{where} must be 1-64 letters, digits, '.', '_' or '-' (it names the output folder), got {describe(name)}"
        )


def config_from_paths(
    embeddings: Mapping,
    labels,
    *,
    name: str | None = None,
    embeddings_key: str | None = None,
    columns: Mapping | None = None,
    manifest=None,
    overrides: Mapping | None = None,
    gates=None,
    embedding_columns=None,
    embedding_prefix: str | None = None,
) -> AuditConfig:
    """A one-benchmark configuration from command-line paths (relative to the working directory).

    Parameters
    ----------
    embeddings : mapping of representation name -> path
    labels : path
    name : str, optional
        Benchmark name (default: the labels file's stem).
    embeddings_key, columns, manifest, embedding_columns, embedding_prefix
        As in the TOML ``[[benchmarks]]`` table.
    overrides : mapping, optional
        Settings (validated like ``[settings]``).
    gates : sequence of GateRule, optional

    See Also
    --------
    - `run_audit`: the full audit of several benchmarks.
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: gates on written summaries.
    - [`auditad.report.export.write_appendix`][auditad.report.export.write_appendix]: the LaTeX appendix.
    """

    def existing(p, what, folder_ok=False) -> Path:
        p = Path(p)
        if not p.exists():
            raise InvalidInputError(f"{what}{str(p)!r}: file does not exist")
        if p.is_dir() and not folder_ok:  # embeddings may be a folder of .npy shards
            raise InvalidInputError(f"{what}{str(p)!r} is a folder, expected a file")
        return p

    labels_p = existing(labels, "labels=")
    embs = {str(rep): existing(p, f"embeddings[{rep!r}]=", folder_ok=True) for rep, p in embeddings.items()}
    display = {"labels": labels_p.as_posix(), **{f"embeddings:{r}": p.as_posix() for r, p in embs.items()}}
    manifest_p = None
    if manifest is not None:
        manifest_p = existing(manifest, "manifest=")
        display["manifest"] = manifest_p.as_posix()
    name = name or labels_p.stem
    _check_name(name, "name")
    cols = {k: v for k, v in (columns or {}).items() if v is not None}
    settings = validate_settings(overrides or {}, where="command line")
    g = tuple(gates or ())
    emb_columns, emb_prefix = check_embedding_columns(
        list(embedding_columns) if isinstance(embedding_columns, tuple) else embedding_columns, embedding_prefix
    )
    bench = BenchmarkConfig(
        name=name,
        labels=labels_p,
        embeddings=embs,
        embeddings_key=embeddings_key,
        embedding_columns=emb_columns,
        embedding_prefix=emb_prefix,
        columns=cols,
        manifest=manifest_p,
        settings=settings,
        gates=g,
        display_paths=display,
    )
    text = _flags_toml(bench)
    return AuditConfig(benchmarks=(bench,), source=None, text=text, sha256=_sha256(text.encode("utf-8")))


def _flags_toml(bench: BenchmarkConfig) -> str:
    lines = ["# equivalent configuration of the command-line flags", f"version = {CONFIG_VERSION}"]
    if bench.gates:
        lines.append(f"{_GATES} = " + toml_value([r.text for r in bench.gates]))
    lines += ["", settings_to_toml(bench.settings)]
    lines += [
        "[[benchmarks]]",
        f"name = {toml_value(bench.name)}",
        f"labels = {toml_value(bench.display_paths['labels'])}",
        "embeddings = " + toml_value({r: bench.display_paths[f"embeddings:{r}"] for r in bench.embeddings}),
    ]
    if bench.embeddings_key:
        lines.append(f"embeddings_key = {toml_value(bench.embeddings_key)}")
    if bench.embedding_columns:
        lines.append(f"embedding_columns = {toml_value(list(bench.embedding_columns))}")
    if bench.embedding_prefix:
        lines.append(f"embedding_prefix = {toml_value(bench.embedding_prefix)}")
    if bench.manifest is not None:
        lines.append(f"manifest = {toml_value(bench.display_paths['manifest'])}")
    if bench.columns:
        lines.append("columns = " + toml_value(bench.columns))
    return "\n".join(lines) + "\n"
