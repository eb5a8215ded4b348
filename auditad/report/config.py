"""The audit configuration: one TOML file describing benchmarks, settings and gates.

See ``docs/config.md`` for every field.  In short::

    version = 1
    # optional gates: rules over summary.json paths (auditad.report.checks syntax; level fail by default)
    gates = ["leakage.L_k <= 0.5", "warn: protocol.mean.rho_dir <= 0.2"]

    [settings]                 # shared by every benchmark (all optional)
    seed = 0
    k = [10, 1, 5, 20]         # leakage neighbour counts; the first is the primary k
    epsilon = 0.05
    detectors = ["knn", "iforest", "lof"]

    [[benchmarks]]
    name = "digits"
    labels = "labels.csv"
    embeddings = { pixels = "pixels.npy", pca16 = "pca16.npy" }
    manifest = "selection/manifest.toml"     # optional: anomaly-free model selection
    [benchmarks.columns]                      # optional columns of the labels table
    label = "label"
    domain = "domain"

Rules: unknown keys are errors naming the key; relative paths resolve against
the config file's folder and, after resolving symlinks, must stay inside it;
every input file must exist. Loading the configuration reads no array: that
happens in :func:`auditad.report.assemble.load_inputs`.
"""

from __future__ import annotations

import copy
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from .._validation import check_choice, check_float, check_int, describe
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
    "validate_settings",
    "settings_to_toml",
]

CONFIG_VERSION = 1

#: Audit settings and their defaults (``docs/config.md`` documents each one).
DEFAULT_SETTINGS: dict[str, Any] = {
    "seed": 0,
    "k": [10, 1, 5, 20],
    "metric": "euclidean",
    "backend": "auto",
    "protocol": "leave_one_class_out",
    "detectors": ["knn", "iforest", "lof"],
    "detector_params": {},
    "epsilon": 0.05,
    "train_fraction": 0.8,
    "repeats": 1,
    "contamination": None,
    "ci_level": 0.95,
    "n_jobs": 1,
    "null_metrics": ["auroc", "ap", "aupr_trap", "f1", "mcc_scaled"],
    "null_q": "coin",
    "null_method": "auto",
    "null_runs": 2000,
    "landscape_metrics": ["auroc", "aupr_trap", "f1", "mcc_scaled"],
    "landscape_resolution": 101,
    "landscape_reference": 0.5,
    "landscape_ratios": [],
    "selection_estimators": [],
    "selection_probes": [],
    "selection_pool_by": None,
    "selection_n_boot": 1000,
    "default_gates": True,
}

#: WARN-level gates used when neither the config nor ``--gate`` defines any (and ``default_gates`` is true).
#: Thresholds follow seed 002: Fashion-MNIST (stable) has L_k ≈ 0.24, CIFAR-10 / Imagenette (unstable) L_k > 0.76
#: and direction instability up to 63 %.
DEFAULT_GATES: tuple[str, ...] = ("warn: leakage.L_k <= 0.5", "warn: protocol.mean.rho_dir <= 0.2")

_TOP_KEYS = {"version", "settings", "gates", "benchmarks"}
_BENCH_KEYS = {"name", "labels", "embeddings", "embeddings_key", "columns", "manifest", "settings", "gates"}
_COLUMN_KEYS = ("label", "domain", "attribute", "anomaly")
_DETECTOR_PARAMS = {"knn": {"k": int}, "iforest": {"n_estimators": int, "max_samples": (int, float, str)},
                    "lof": {"n_neighbors": int}}
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_METRICS = ("auroc", "ap", "aupr_trap", "f1", "mcc", "mcc_scaled")


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
    columns : dict of str -> str
        ``label`` / ``domain`` / ``attribute`` / ``anomaly`` -> column (CSV/Parquet) or array name (``.npz``).
    manifest : Path or None
        Selection manifest (:func:`auditad.manifest.load_manifest`).
    settings : dict
        Effective settings (defaults < ``[settings]`` < ``[benchmarks.settings]`` < command-line flags).
    gates : tuple of GateRule
        Global rules, then the benchmark's, then the command line's (``--gate``).
    display_paths : dict
        How each input is named in the report (relative to the config folder).
    """

    name: str
    labels: Path
    embeddings: dict
    embeddings_key: str | None = None
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
    """

    benchmarks: tuple
    source: Path | None
    text: str
    sha256: str


# --------------------------------------------------------------------------- helpers
def _err(where: str, message: str) -> InvalidInputError:
    return InvalidInputError(f"{where}: {message}")


def _unknown(table: Mapping, allowed, where: str, label: str) -> None:
    extra = sorted(set(map(str, table)) - set(allowed))
    if extra:
        import difflib

        more = f" (and {len(extra) - 1} more)" if len(extra) > 1 else ""
        close = difflib.get_close_matches(extra[0], sorted(allowed), n=1)
        hint = f"did you mean {close[0]!r}?" if close else f"allowed keys: {sorted(allowed)}"
        raise _err(where, f"unknown key {label}{extra[0]!r}{more}; {hint}")


def _str_list(value, key: str, where: str, *, allow_scalar: bool = False) -> list:
    if allow_scalar and isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _err(where, f"{key} must be a list of strings, got {describe(value)}")
    return list(value)


def validate_settings(raw: Mapping, *, where: str = "settings", base: Mapping | None = None) -> dict:
    """Merge ``raw`` over ``base`` (default :data:`DEFAULT_SETTINGS`) and check every value.

    Raises
    ------
    InvalidInputError
        Unknown key or a bad value; the message names ``where.key`` and the value.
    """
    out = copy.deepcopy(dict(DEFAULT_SETTINGS if base is None else base))
    if not isinstance(raw, Mapping):
        raise _err(where, f"must be a table, got {describe(raw)}")
    _unknown(raw, DEFAULT_SETTINGS, where, "")
    for key, value in raw.items():
        name = "--" + key.replace("_", "-") if where == "command line" else f"{where}.{key}"
        try:
            out[key] = _check_setting(key, value, name)
        except InvalidInputError as exc:
            msg = str(exc)
            raise InvalidInputError(msg if msg.startswith(name) else f"{name}: {msg}") from None
    return out


def _check_setting(key: str, value, name: str):
    if key in ("seed", "repeats", "n_jobs", "null_runs", "landscape_resolution", "selection_n_boot"):
        low = {"seed": 0, "repeats": 1, "null_runs": 1, "landscape_resolution": 2, "selection_n_boot": 0}.get(key)
        v = check_int(value, name=name, low=low)
        if key == "n_jobs" and v == 0:
            raise InvalidInputError(f"{name} must be a non-zero integer (-1 = all cores), got 0")
        if key == "landscape_resolution" and v > 1001:
            raise InvalidInputError(f"{name} must be at most 1001, got {v}")
        return v
    if key == "k":
        ks = value if isinstance(value, list) else [value]
        if not ks:
            raise InvalidInputError(f"{name} must be an integer or a non-empty list of integers, got []")
        return [check_int(v, name=name, low=1) for v in ks]
    if key in ("metric", "backend", "protocol", "null_method"):
        choices = {"metric": ("euclidean", "cosine"), "backend": ("auto", "exact", "approximate"),
                   "protocol": ("leave_one_class_out", "one_class"),
                   "null_method": ("auto", "exact", "monte_carlo")}[key]
        return check_choice(value, choices, name=name)
    if key == "detectors":
        dets = _str_list(value, "detectors", name.rsplit(".", 1)[0], allow_scalar=True)
        if not dets:
            raise InvalidInputError(f"{name} must name at least one detector")
        for d in dets:
            check_choice(d, tuple(_DETECTOR_PARAMS), name=name)
        if len(set(dets)) != len(dets):
            raise InvalidInputError(f"{name} lists a detector twice: {dets}")
        return dets
    if key == "detector_params":
        if not isinstance(value, Mapping):
            raise InvalidInputError(f"{name} must be a table like {{ iforest = {{ n_estimators = 50 }} }}")
        _unknown(value, _DETECTOR_PARAMS, name, "")
        out = {}
        for det, params in value.items():
            if not isinstance(params, Mapping):
                raise InvalidInputError(f"{name}.{det} must be a table, got {describe(params)}")
            _unknown(params, _DETECTOR_PARAMS[det], f"{name}.{det}", "")
            for p, v in params.items():
                typ = _DETECTOR_PARAMS[det][p]
                if isinstance(v, bool) or not isinstance(v, typ):
                    raise InvalidInputError(f"{name}.{det}.{p} has the wrong type: {describe(v)}")
                if isinstance(v, int) and v < 1:
                    raise InvalidInputError(f"{name}.{det}.{p} must be >= 1, got {v}")
            out[det] = dict(params)
        return out
    if key == "epsilon":
        return check_float(value, name=name, low=0.0, high=0.5, high_open=True)
    if key in ("train_fraction", "ci_level", "contamination"):
        return check_float(value, name=name, low=0.0, high=1.0, low_open=True, high_open=True)
    if key in ("null_metrics", "landscape_metrics"):
        metrics = _str_list(value, key, name.rsplit(".", 1)[0], allow_scalar=True)
        if not metrics:
            raise InvalidInputError(f"{name} must name at least one metric")
        for m in metrics:
            check_choice(m, _METRICS, name=name)
        return list(dict.fromkeys(metrics))
    if key == "null_q":
        if isinstance(value, str):
            return check_choice(value, ("coin", "prior"), name=name)
        return check_float(value, name=name, low=0.0, high=1.0)
    if key == "landscape_reference":
        return check_float(value, name=name, low=0.0, high=1.0, low_open=True, high_open=True)
    if key == "landscape_ratios":
        if not isinstance(value, list):
            raise InvalidInputError(f"{name} must be a list of ratios in (0, 1) or preset names, got {describe(value)}")
        from ..landscapes import PAPER_RATIOS

        out = []
        for v in value:
            if isinstance(v, str):
                check_choice(v, tuple(PAPER_RATIOS), name=name)
                out.append(v)
            else:
                out.append(check_float(v, name=name, low=0.0, high=1.0, low_open=True, high_open=True))
        return out
    if key in ("selection_estimators", "selection_probes"):
        return _str_list(value, key, name.rsplit(".", 1)[0], allow_scalar=True)
    if key == "selection_pool_by":
        return check_choice(value, ("scoring", "family", "embedding", "pooling"), name=name)
    if key == "default_gates":
        if not isinstance(value, bool):
            raise InvalidInputError(f"{name} must be true or false, got {describe(value)}")
        return value
    raise InvalidInputError(f"{name}: unknown setting")  # unreachable: keys are checked first


def _check_gates(raw, where: str) -> tuple:
    from .checks import rules_from_config

    if not isinstance(raw, list):
        raise _err(where, f"must be a list of rules like [\"leakage.L_k <= 0.5\", \"warn: protocol.mean.rho_dir "
                          f"<= 0.2\"], got {describe(raw)}")
    return tuple(rules_from_config(raw, source=where))


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class _Resolver:
    """Resolves paths of a config file against its folder; nothing may escape the folder."""

    def __init__(self, root: Path, where: str):
        self.root = root.resolve()
        self.where = where

    def file(self, value, key: str) -> tuple[Path, str]:
        if not isinstance(value, str) or not value:
            raise _err(self.where, f"{key} must be a file path (a non-empty string), got {describe(value)}")
        raw = Path(value)
        full = (raw if raw.is_absolute() else self.root / raw).resolve()
        if full != self.root and self.root not in full.parents:
            raise _err(self.where, f"{key} = {value!r} points outside the config folder {str(self.root)!r}; "
                                   "put the config file next to (or above) its data")
        if not full.exists():
            raise _err(self.where, f"{key} = {value!r}: file not found ({str(full)!r})")
        if full.is_dir():
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
    """
    path = Path(path)
    if not path.exists():
        raise InvalidInputError(f"config file {str(path)!r} does not exist")
    if path.is_dir():
        raise InvalidInputError(f"config path {str(path)!r} is a folder, expected a TOML file")
    data = path.read_bytes()
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
    settings = validate_settings(raw.get("settings", {}), where=f"{where}: settings")
    gates = _check_gates(raw.get("gates", []), f"{where}: gates")
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
            embeddings[rep], display[f"embeddings:{rep}"] = resolver.file(p, f"{bwhere}.embeddings.{rep}")
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
        name = b.get("name", labels.stem)
        _check_name(name, f"{where}: {bwhere}.name")
        if name in seen:
            raise _err(where, f"two benchmarks are named {name!r}; names must be unique (they are folder names)")
        seen.add(name)
        bsettings = validate_settings(b.get("settings", {}), where=f"{where}: {bwhere}.settings", base=settings)
        if overrides:
            bsettings = validate_settings(overrides, where="command line", base=bsettings)
        bgates = _check_gates(b.get("gates", []), f"{where}: {bwhere}.gates")
        merged = gates + bgates + tuple(extra_gates or ())
        out.append(BenchmarkConfig(name=name, labels=labels, embeddings=embeddings, embeddings_key=key,
                                   columns=dict(columns), manifest=manifest, settings=bsettings, gates=merged,
                                   display_paths=display))
    return AuditConfig(benchmarks=tuple(out), source=path, text=text, sha256=_sha256(data))


def _check_name(name, where: str) -> None:
    if not isinstance(name, str) or not _NAME_RE.match(name) or name in (".", ".."):
        raise InvalidInputError(f"{where} must be 1-64 letters, digits, '.', '_' or '-' (it names the output "
                                f"folder), got {describe(name)}")


def config_from_paths(embeddings: Mapping, labels, *, name: str | None = None, embeddings_key: str | None = None,
                      columns: Mapping | None = None, manifest=None, overrides: Mapping | None = None,
                      gates=None) -> AuditConfig:
    """A one-benchmark configuration from command-line paths (relative to the working directory).

    Parameters
    ----------
    embeddings : mapping of representation name -> path
    labels : path
    name : str, optional
        Benchmark name (default: the labels file's stem).
    embeddings_key, columns, manifest
        As in the TOML ``[[benchmarks]]`` table.
    overrides : mapping, optional
        Settings (validated like ``[settings]``).
    gates : sequence of GateRule, optional
    """
    def existing(p, what) -> Path:
        p = Path(p)
        if not p.exists():
            raise InvalidInputError(f"{what} file {str(p)!r} does not exist")
        if p.is_dir():
            raise InvalidInputError(f"{what} path {str(p)!r} is a folder, expected a file")
        return p

    labels_p = existing(labels, "--labels")
    embs = {str(rep): existing(p, "--embeddings") for rep, p in embeddings.items()}
    display = {"labels": labels_p.as_posix(), **{f"embeddings:{r}": p.as_posix() for r, p in embs.items()}}
    manifest_p = None
    if manifest is not None:
        manifest_p = existing(manifest, "--manifest")
        display["manifest"] = manifest_p.as_posix()
    name = name or labels_p.stem
    _check_name(name, "--name")
    cols = {k: v for k, v in (columns or {}).items() if v is not None}
    settings = validate_settings(overrides or {}, where="command line")
    g = tuple(gates or ())
    bench = BenchmarkConfig(name=name, labels=labels_p, embeddings=embs, embeddings_key=embeddings_key,
                            columns=cols, manifest=manifest_p, settings=settings, gates=g, display_paths=display)
    text = _flags_toml(bench)
    return AuditConfig(benchmarks=(bench,), source=None, text=text, sha256=_sha256(text.encode("utf-8")))


# --------------------------------------------------------------------------- TOML rendering (reproducibility block)
def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        if not v:
            return "{}"
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise InvalidInputError(f"cannot write {describe(v)} as TOML")


def _toml_key(k: str) -> str:
    return k if re.match(r"^[A-Za-z0-9_-]+$", k) else _toml_value(k)


def settings_to_toml(settings: Mapping, *, table: str = "settings") -> str:
    """The settings as a TOML table (keys whose value is None are left out, as TOML has no null)."""
    lines = [f"[{table}]"]
    for k, v in settings.items():
        if v is None:
            continue
        lines.append(f"{_toml_key(k)} = {_toml_value(v)}")
    return "\n".join(lines) + "\n"


def _flags_toml(bench: BenchmarkConfig) -> str:
    lines = ["# equivalent configuration of the command-line flags", f"version = {CONFIG_VERSION}"]
    if bench.gates:
        lines.append("gates = " + _toml_value([r.text for r in bench.gates]))
    lines += ["", settings_to_toml(bench.settings)]
    lines += ["[[benchmarks]]", f"name = {_toml_value(bench.name)}",
              f"labels = {_toml_value(bench.display_paths['labels'])}",
              "embeddings = " + _toml_value({r: bench.display_paths[f"embeddings:{r}"] for r in bench.embeddings})]
    if bench.embeddings_key:
        lines.append(f"embeddings_key = {_toml_value(bench.embeddings_key)}")
    if bench.manifest is not None:
        lines.append(f"manifest = {_toml_value(bench.display_paths['manifest'])}")
    if bench.columns:
        lines.append("columns = " + _toml_value(bench.columns))
    return "\n".join(lines) + "\n"
