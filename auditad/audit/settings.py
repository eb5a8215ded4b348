"""One declaration per audit setting; everything else is generated from it.

`SETTINGS` declares every key of ``[settings]`` once: its type, default,
bounds, choices (taken from the computing modules' constants, e.g.
`auditad.protocol.BUILTIN_DETECTORS`, `auditad.selection.POOL_BY`),
help text and command-line flag. From it follow

* the validation of ``[settings]`` in a configuration file (`validate_settings`);
* the settings flags of ``auditad audit`` (`add_settings_arguments`,
  `settings_from_args`);
* the ``settings`` part of ``auditad/schemas/summary.schema.json``
  (`settings_json_schema`);
* the settings table of ``docs/config.md`` (`settings_markdown_table`).

``python -m auditad.audit.settings`` rewrites the last two from the
declaration; the tests check that the shipped files equal the generated ones.

The default gates (`DEFAULT_GATES`) come from the reading thresholds
declared once in `THRESHOLDS`: the report's readings and the default
gates use the same numbers. The gate and CI-output options (``--gate``, ``--fail-on``,
``--no-default-gates``, ``--junit``, ``--markdown``) are declared once in
`auditad.gates.options`; ``default_gates`` takes its flag and help from there, and
``python -m auditad.audit.settings`` also rewrites their table in ``docs/cli.md``.
"""

from __future__ import annotations

import copy
import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from .._validation import check_choice, check_float, check_int, describe
from ..errors import InvalidInputError
from ..gates.defaults import DEFAULT_GATES, THRESHOLDS
from ..gates.options import gate_option, gate_options_markdown

__all__ = ["Setting", "SETTINGS", "DEFAULT_SETTINGS", "THRESHOLDS", "DEFAULT_GATES", "validate_settings",
           "add_settings_arguments", "FLAG_GROUPS", "settings_from_args", "settings_to_flags", "settings_json_schema",
           "settings_markdown_table", "regenerate"]


# --------------------------------------------------------------------------- choices from the computing modules
def _metrics_choices() -> tuple:
    from ..neighbors import METRICS

    return tuple(METRICS)


def _backend_choices() -> tuple:
    from ..neighbors import BACKENDS

    return tuple(BACKENDS)


def _protocol_choices() -> tuple:
    from ..protocol import PROTOCOLS

    return tuple(PROTOCOLS)


def _detector_choices() -> tuple:
    from ..protocol import BUILTIN_DETECTORS, PYOD_DETECTORS

    return tuple(BUILTIN_DETECTORS) + tuple(f"pyod:{c}" for c in PYOD_DETECTORS)


def _metric_name_choices() -> tuple:
    from ..metrics import METRIC_NAMES

    return tuple(METRIC_NAMES)


def _pool_by_choices() -> tuple:
    from ..selection import POOL_BY

    return tuple(POOL_BY)


def _ratio_presets() -> tuple:
    from ..landscapes import PAPER_RATIOS

    return tuple(PAPER_RATIOS)


#: Null methods and random-prediction rates of `auditad.nulls.null_distribution`.
NULL_METHODS = ("auto", "exact", "monte_carlo")
NULL_Q_NAMES = ("coin", "prior")

#: Parameters each built-in detector accepts in ``detector_params`` (name -> accepted Python types).
DETECTOR_PARAMS = {"knn": {"k": int}, "iforest": {"n_estimators": int, "max_samples": (int, float, str)},
                   "lof": {"n_neighbors": int}}

#: Name of a detector defined by a table (``[detectors.NAME]`` / ``detector_params.NAME.detector``).
DETECTOR_NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$"


def _default_max_test_normals() -> int:
    from ..protocol import DEFAULT_MAX_TEST_NORMALS

    return int(DEFAULT_MAX_TEST_NORMALS)


#: The ``default_gates`` setting is one of the gate options (``--no-default-gates``).
_NO_DEFAULT_GATES = gate_option("default_gates")


# --------------------------------------------------------------------------- the declaration
@dataclass(frozen=True)
class Setting:
    """One audit setting.

    Attributes
    ----------
    name : str
        Key in ``[settings]`` and in ``summary.json["settings"]``.
    kind : str
        ``int``, ``float``, ``choice``, ``choices`` (list of choices), ``ints`` (an integer or a
        non-empty list), ``strings``, ``bool``, ``null_q``, ``ratios``, ``detectors`` (list of choices or
        names of detector tables) or ``detector_params``.
    default
        Default value (None: not set).
    help : str
        Meaning (docs table, ``--help``).
    choices : callable or None
        Returns the allowed values (from the computing module's constant).
    low, high : float or None
        Bounds; ``low_open`` / ``high_open`` exclude them.
    flag : str or None
        Command-line flag of ``auditad audit`` (None: config file only).
    repeat : bool
        The flag is repeated for a list.
    nonzero : bool
        An integer that must not be 0.
    unique : bool
        A list whose entries must differ.
    flag_help : str or None
        Help of a ``bool`` setting's flag, which sets the opposite of the default (``--no-default-gates``
        turns ``default_gates`` off); None: ``help``.
    group : str
        Argument group of the flag in ``auditad audit --help``.
    deprecated : tuple of str
        Former names of the key, still accepted (with a `FutureWarning` naming the new one) in a
        configuration file and, as ``--former-name``, on the command line.
    """

    name: str
    kind: str
    default: Any
    help: str
    choices: Callable[[], tuple] | None = None
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    flag: str | None = None
    repeat: bool = False
    nonzero: bool = False
    unique: bool = False
    flag_help: str | None = None
    group: str = "protocol"
    deprecated: tuple = ()

    def allowed(self) -> tuple:
        """The allowed values (empty when any value of the type is allowed)."""
        return tuple(self.choices()) if self.choices is not None else ()


SETTINGS: tuple[Setting, ...] = (
    Setting("seed", "int", 0, "Seeds every random step (splits, detectors, Monte Carlo nulls, pseudo-anomalies, "
            "bootstrap). Same config and seed give the same bytes.", low=0, flag="--seed", group="common"),
    Setting("k", "ints", [10, 1, 5, 20], "Neighbour counts of the leakage L_k; the first is the primary k (also the "
            "k of the per-class leakage in the protocol).", low=1, flag="--k", repeat=True),
    Setting("metric", "choice", "euclidean", "Distance of the leakage.", choices=_metrics_choices, flag="--metric"),
    Setting("backend", "choice", "auto", "kNN search of the leakage and the kNN detector (auto: exact below a few "
            "10^5 samples).", choices=_backend_choices, flag="--backend"),
    Setting("protocol", "choice", "leave_one_class_out", "K-1 vs 1 (each class in turn is the anomaly) or 1 vs "
            "K-1.", choices=_protocol_choices, flag="--protocol"),
    Setting("detectors", "detectors", ["knn", "iforest", "lof"], "Detectors of the protocol audit: built-in names, "
            "PyOD detectors as pyod:NAME (decision_function, higher = more anomalous), or the name of a "
            "[detectors.NAME] table of the config.", choices=_detector_choices, flag="--detector", repeat=True,
            unique=True),
    Setting("detector_params", "detector_params", {}, "Parameters per detector: knn = { k = 5 }, iforest = "
            "{ n_estimators = 100, max_samples = \"auto\" }, lof = { n_neighbors = 20 }; a named detector table "
            "NAME = { detector = \"pyod:KNN\", n_neighbors = 10 } (written [detectors.NAME] in the config) "
            "(config file only)."),
    Setting("epsilon", "float", 0.05, "Near-random half-width epsilon of rho_rnd and rho_dir.", low=0.0, high=0.5,
            high_open=True, flag="--epsilon"),
    Setting("train_fraction", "float", 0.8, "Share of each normal class used to fit the detectors.", low=0.0,
            high=1.0, low_open=True, high_open=True, flag="--train-fraction"),
    Setting("repeats", "int", 1, "Random train/test splits; the split-to-split spread is reported.", low=1,
            flag="--repeats"),
    Setting("contamination", "float", None, "Subsample the anomalies to this share of each test set (default: all "
            "of them).", low=0.0, high=1.0, low_open=True, high_open=True, flag="--contamination"),
    Setting("max_test_normals", "int", _default_max_test_normals(), "Per class-split task, at most this many test "
            "normals are scored (a stratified subsample, recorded per task); 0 = every test normal.", low=0,
            flag="--max-test-normals"),
    Setting("confidence_level", "float", 0.95, "Confidence level of the DeLong intervals; rho_nonsig counts "
            "p >= 1 - confidence_level.", low=0.0, high=1.0, low_open=True, high_open=True,
            flag="--confidence-level", deprecated=("ci_level",)),
    Setting("n_jobs", "int", 1, "Parallel tasks of the protocol audit and the model selection (-1 = all cores); "
            "results do not depend on it.", nonzero=True, flag="--n-jobs", group="execution"),
    Setting("null_metrics", "choices", ["auroc", "ap", "aupr_trap", "f1", "mcc_scaled"], "Metrics whose "
            "random-baseline null is computed at each class's test counts. The AUROC null is always computed: the "
            "observed AUROC(c) is placed on it.", choices=_metric_name_choices, flag="--null-metric", group="nulls",
            repeat=True),
    Setting("null_q", "null_q", "coin", "Positive rate of the random binary predictions of the F1/MCC nulls: "
            "coin (1/2), prior (the anomaly share) or a number in [0, 1].", choices=lambda: NULL_Q_NAMES,
            low=0.0, high=1.0, flag="--null-q", group="nulls"),
    Setting("null_method", "choice", "auto", "Exact where feasible, else analytic/Monte Carlo.",
            choices=lambda: NULL_METHODS, flag="--null-method", group="nulls"),
    Setting("null_runs", "int", 2000, "Monte Carlo runs of the nulls that are simulated.", low=1,
            flag="--null-runs", group="nulls"),
    Setting("landscape_metrics", "choices", ["auroc", "aupr_trap", "f1", "mcc_scaled"], "Metrics of the "
            "landscapes.", choices=_metric_name_choices, flag="--landscape-metric", group="landscapes", repeat=True),
    Setting("landscape_resolution", "int", 101, "Grid points per axis of the TPR x TNR landscapes.", low=2,
            high=1001, flag="--landscape-resolution", group="landscapes"),
    Setting("landscape_reference", "float", 0.5, "Reference ratio of the difference maps and of the comparisons.",
            low=0.0, high=1.0, low_open=True, high_open=True, flag="--landscape-reference", group="landscapes"),
    Setting("landscape_ratios", "ratios", [], "Extra ratios to compare with: numbers in (0, 1) or preset names "
            "(Hermary, Mejri and Aouada, Table I).", choices=_ratio_presets, low=0.0, high=1.0, low_open=True,
            high_open=True, flag="--landscape-ratio", group="landscapes", repeat=True),
    Setting("selection_estimators", "strings", [], "Estimators of the model selection (empty: inlier_variance, "
            "auc_bound, pseudo_auc).", flag="--selection-estimator", group="selection", repeat=True),
    Setting("selection_probes", "strings", [], "Pseudo-anomaly probes of the model selection (empty: all that the "
            "metadata allows).", flag="--selection-probe", group="selection", repeat=True),
    Setting("selection_pool_by", "choice", None, "Candidate attribute that splits the candidates into separate "
            "selection pools.", choices=_pool_by_choices, flag="--selection-pool-by", group="selection"),
    Setting("selection_n_boot", "int", 1000, "Paired bootstrap replicates of the model selection (0 = none).",
            low=0, flag="--selection-n-boot", group="selection"),
    # declared with the other gate options (auditad.gates.options): flag, help and default come from there
    Setting("default_gates", "bool", _NO_DEFAULT_GATES.default, _NO_DEFAULT_GATES.config_help,
            flag=_NO_DEFAULT_GATES.flag, group="gates", flag_help=_NO_DEFAULT_GATES.help_for("audit")),
)

_BY_NAME = {s.name: s for s in SETTINGS}
#: Former name of a setting -> its setting.
_FORMER = {old: s for s in SETTINGS for old in s.deprecated}

#: Audit settings and their defaults.
DEFAULT_SETTINGS: dict[str, Any] = {s.name: copy.deepcopy(s.default) for s in SETTINGS}



# --------------------------------------------------------------------------- validation
def _err(where: str, message: str) -> InvalidInputError:
    return InvalidInputError(f"{where}: {message}")


def unknown_keys(table: Mapping, allowed, where: str, label: str) -> None:
    """Raise for the first key of ``table`` not in ``allowed`` (with the nearest valid key)."""
    extra = sorted(set(map(str, table)) - set(allowed))
    if extra:
        import difflib

        more = f" (and {len(extra) - 1} more)" if len(extra) > 1 else ""
        close = difflib.get_close_matches(extra[0], sorted(allowed), n=1)
        hint = f"did you mean {close[0]!r}?" if close else f"allowed keys: {sorted(allowed)}"
        raise _err(where, f"unknown key {label}{extra[0]!r}{more}; {hint}")


def _str_list(value, key: str, where: str) -> list:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _err(where, f"{key} must be a list of strings, got {describe(value)}")
    return list(value)


def validate_settings(raw: Mapping, *, where: str = "settings", base: Mapping | None = None) -> dict:
    """Merge ``raw`` over ``base`` (default `DEFAULT_SETTINGS`) and check every value against `SETTINGS`.

    Raises
    ------
    InvalidInputError
        Unknown key or a bad value; the message names ``where.key`` and the value.
    """
    out = copy.deepcopy(dict(DEFAULT_SETTINGS if base is None else base))
    if not isinstance(raw, Mapping):
        raise _err(where, f"must be a table, got {describe(raw)}")
    raw = _renamed_former_keys(raw, where)
    unknown_keys(raw, _BY_NAME, where, "")
    for key, value in raw.items():
        setting = _BY_NAME[key]
        if where == "command line":
            name = setting.flag if setting.flag and setting.kind != "bool" else "--" + key.replace("_", "-")
        else:
            name = f"{where}.{key}"
        try:
            out[key] = check_setting(setting, value, name)
        except InvalidInputError as exc:
            msg = str(exc)
            raise InvalidInputError(msg if msg.startswith(name) else f"{name}: {msg}") from None
    _check_detectors_defined(out, where)
    return out


def _renamed_former_keys(raw: Mapping, where: str) -> Mapping:
    """``raw`` with each former (deprecated) key renamed to its setting's name, with a `FutureWarning` each.

    A `FutureWarning`, not a `DeprecationWarning`: the readers are the users of a configuration file or
    of the command line, whom Python shows only the former."""
    if not any(key in _FORMER for key in raw):
        return raw
    out = {}
    for key, value in raw.items():
        s = _FORMER.get(key)
        if s is None:
            out[key] = value
            continue
        old, new = (("--" + key.replace("_", "-"), s.flag) if where == "command line"
                    else (f"{where}.{key}", f"{where}.{s.name}"))
        if s.name in raw:
            raise InvalidInputError(f"{where}: give {new} only: {old} is its former (deprecated) name")
        warnings.warn(f"{old} is deprecated: use {new} (same meaning)", FutureWarning, stacklevel=3)
        out[s.name] = value
    return out


def _check_detectors_defined(settings: Mapping, where: str) -> None:
    """Every entry of ``detectors`` is a built-in name, ``pyod:NAME`` or a detector table of ``detector_params``."""
    s = _BY_NAME["detectors"]
    tables = [k for k, v in settings["detector_params"].items() if "detector" in v]
    for name in settings["detectors"]:
        if name not in s.allowed() and name not in tables:
            flag = s.flag if where == "command line" else f"{where}.detectors"
            raise InvalidInputError(
                f"{flag} must be one of {list(s.allowed())} or the name of a [detectors.NAME] table"
                + (f" ({tables})" if tables else "") + f", got unknown detector {name!r}")


def _float(s: Setting, value, name: str) -> float:
    return check_float(value, name=name, low=s.low, high=s.high, low_open=s.low_open, high_open=s.high_open)


def check_setting(s: Setting, value, name: str):
    """Check one value of setting ``s``; return it in canonical form. ``name`` is used in the messages."""
    if s.kind == "int":
        v = check_int(value, name=name, low=None if s.low is None else int(s.low))
        if s.nonzero and v == 0:
            raise InvalidInputError(f"{name} must be a non-zero integer (-1 = all cores), got 0")
        if s.high is not None and v > s.high:
            raise InvalidInputError(f"{name} must be at most {int(s.high)}, got {v}")
        return v
    if s.kind == "ints":
        ks = value if isinstance(value, list) else [value]
        if not ks:
            raise InvalidInputError(f"{name} must be an integer or a non-empty list of integers, got []")
        return [check_int(v, name=name, low=int(s.low)) for v in ks]
    if s.kind == "float":
        return _float(s, value, name)
    if s.kind == "choice":
        return check_choice(value, s.allowed(), name=name)
    if s.kind == "choices":
        items = _str_list(value, s.name, name.rsplit(".", 1)[0])
        if not items:
            raise InvalidInputError(f"{name} must name at least one value of {list(s.allowed())}")
        for v in items:
            check_choice(v, s.allowed(), name=name)
        if s.unique and len(set(items)) != len(items):
            raise InvalidInputError(f"{name} lists a value twice: {items}")
        return list(dict.fromkeys(items))
    if s.kind == "strings":
        return _str_list(value, s.name, name.rsplit(".", 1)[0])
    if s.kind == "bool":
        if not isinstance(value, bool):
            raise InvalidInputError(f"{name} must be true or false, got {describe(value)}")
        return value
    if s.kind == "null_q":
        if isinstance(value, str):
            return check_choice(value, s.allowed(), name=name)
        return _float(s, value, name)
    if s.kind == "ratios":
        if not isinstance(value, list):
            raise InvalidInputError(f"{name} must be a list of ratios in (0, 1) or preset names, got {describe(value)}")
        return [check_choice(v, s.allowed(), name=name) if isinstance(v, str) else _float(s, v, name) for v in value]
    if s.kind == "detectors":
        items = _str_list(value, s.name, name.rsplit(".", 1)[0])
        if not items:
            raise InvalidInputError(f"{name} must name at least one detector of {list(s.allowed())}")
        for v in items:
            if v.startswith("pyod:") or not re.match(DETECTOR_NAME_PATTERN, v):
                check_choice(v, s.allowed(), name=name)
        if s.unique and len(set(items)) != len(items):
            raise InvalidInputError(f"{name} lists a value twice: {items}")
        return list(items)
    if s.kind == "detector_params":
        return _check_detector_params(value, name)
    raise InvalidInputError(f"{name}: setting kind {s.kind!r} is not known")


def _check_detector_params(value, name: str) -> dict:
    if not isinstance(value, Mapping):
        raise InvalidInputError(f"{name} must be a table like {{ iforest = {{ n_estimators = 50 }} }}")
    out = {}
    for det, params in value.items():
        if not isinstance(params, Mapping):
            raise InvalidInputError(f"{name}.{det} must be a table, got {describe(params)}")
        if "detector" in params:
            out[det] = check_detector_table(det, params, f"{name}.{det}")
            continue
        unknown_keys({det: None}, DETECTOR_PARAMS, name, "")
        unknown_keys(params, DETECTOR_PARAMS[det], f"{name}.{det}", "")
        for p, v in params.items():
            typ = DETECTOR_PARAMS[det][p]
            if isinstance(v, bool) or not isinstance(v, typ):
                raise InvalidInputError(f"{name}.{det}.{p} has the wrong type: {describe(v)}")
            if isinstance(v, int) and v < 1:
                raise InvalidInputError(f"{name}.{det}.{p} must be >= 1, got {v}")
        out[det] = dict(params)
    return out


def check_detector_table(name, table: Mapping, where: str) -> dict:
    """Check a named detector table (``detector = "pyod:KNN"`` plus constructor parameters).

    The detector is built once by [`auditad.protocol.make_detector`][auditad.protocol.make_detector] (allow-listed
    names, scalar
    parameters; nothing is evaluated), so an unknown detector or parameter is reported at load time.
    """
    from ..protocol import make_detector

    if not isinstance(name, str) or not re.match(DETECTOR_NAME_PATTERN, name) or name in _detector_choices():
        raise InvalidInputError(f"{where}: a detector table needs a name of letters, digits, '_', '.', '-' that is "
                                f"not a built-in or pyod:NAME detector, got {describe(name)}")
    kind = table.get("detector")
    if not isinstance(kind, str) or kind not in _detector_choices():
        raise InvalidInputError(f"{where}.detector must be one of {list(_detector_choices())}, got {describe(kind)}")
    if "name" in table:
        raise InvalidInputError(f"{where}: the table's name is the detector's name; remove the key 'name'")
    try:
        make_detector(dict(table))
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where}: {exc}") from None
    return dict(table)


# --------------------------------------------------------------------------- command line
def _dest(s: Setting) -> str:
    return "setting_" + s.name


def _number_or_name(text: str):
    try:
        return float(text)
    except ValueError:
        return text


#: Titles of the argument groups of the settings flags (``Setting.group``), in ``--help`` order.
FLAG_GROUPS = {"common": "common options", "protocol": "leakage and protocol settings (override the config's "
               "[settings])", "nulls": "null distributions", "landscapes": "landscapes", "selection": "model selection",
               "gates": "gates and CI outputs", "execution": "execution"}

_METAVARS = {"int": "N", "ints": "N", "float": "X", "null_q": "Q", "ratios": "RATIO", "strings": "NAME",
             "detectors": "DETECTOR"}


def _flag_help(s: Setting) -> str:
    """The ``--help`` text of a setting's flag: what it does, the choices, the default."""
    text = (s.flag_help or s.help) if s.kind == "bool" else s.help.rstrip(".")
    if s.kind == "bool":
        return text[0].lower() + text[1:]
    if s.kind == "detectors":  # the 20 PyOD names once, not 20 times "pyod:"
        builtin = [c for c in s.allowed() if not c.startswith("pyod:")]
        pyod = [c.removeprefix("pyod:") for c in s.allowed() if c.startswith("pyod:")]
        text = (f"Detector of the protocol audit: {', '.join(builtin)}, pyod:NAME (NAME one of {', '.join(pyod)}; "
                "decision_function, higher = more anomalous) or the name of a [detectors.NAME] table of the config")
    elif s.kind in ("choice", "choices"):
        text += f"; one of {', '.join(map(str, s.allowed()))}"
    if text[:1].isupper() and text[1:2].islower():  # "Seeds every ..." -> "seeds every ...", not "k-1"
        text = text[0].lower() + text[1:]
    if "(default" not in text and not (s.default == [] and "(empty:" in text):
        default = " ".join(map(str, s.default)) if isinstance(s.default, list) else s.default
        default = "none" if default in (None, "") else default
        text += f" (default: {default})"
    return text + ("; repeat for several" if s.repeat else "")


def add_settings_arguments(parser, *, groups: Mapping | None = None) -> None:
    """Add one flag per declared setting (those with a ``flag``) to an argparse parser.

    ``groups`` maps a `Setting.group` to an argparse argument group; the missing groups are
    created on ``parser`` with the titles of `FLAG_GROUPS`.
    """
    groups = dict(groups or {})
    for s in SETTINGS:
        if s.flag is None:
            continue
        if s.group not in groups:
            groups[s.group] = parser.add_argument_group(FLAG_GROUPS.get(s.group, s.group))
        group = groups[s.group]
        if s.kind == "bool":
            group.add_argument(s.flag, dest=_dest(s), action="store_const", const=not s.default, default=None,
                               help=_flag_help(s))
            continue
        kw: dict = {"dest": _dest(s), "default": None, "help": _flag_help(s)}
        if s.repeat:
            kw["action"] = "append"
        if s.kind in ("int", "ints"):
            kw["type"] = int
        elif s.kind == "float":
            kw["type"] = float
        elif s.kind in ("null_q", "ratios"):
            kw["type"] = _number_or_name
        if s.kind in ("choice", "choices"):
            kw["choices"] = s.allowed()
            kw["metavar"] = s.flag.lstrip("-").split("-")[-1].upper()
        else:
            kw["metavar"] = _METAVARS.get(s.kind, "VALUE")
        group.add_argument(s.flag, **kw)
        for old in s.deprecated:  # the former name: its own destination, renamed (with a warning) when validated
            group.add_argument("--" + old.replace("_", "-"), **dict(kw, dest="setting_" + old,
                                                                    help=f"deprecated name of {s.flag}"))


def settings_from_args(args) -> dict:
    """The settings given on the command line (``{name: value}``; flags not given are left out, not validated)."""
    out = {}
    for s in SETTINGS:
        if s.flag is None:
            continue
        v = getattr(args, _dest(s), None)
        if v is not None:
            out[s.name] = v
        for old in s.deprecated:
            if getattr(args, "setting_" + old, None) is not None:
                out[old] = getattr(args, "setting_" + old)
    return out


def settings_to_flags(settings: Mapping) -> tuple[str, ...]:
    """The command-line flags that give ``settings`` (``{"seed": 3, "k": [5, 1]}`` -> ``("--seed 3", "--k 5 --k 1")``)."""
    out = []
    for name, value in settings.items():
        s = _BY_NAME[name]
        flag = s.flag or "--" + name.replace("_", "-")
        if s.kind == "bool":
            if value != s.default:
                out.append(flag)
            continue
        values = value if isinstance(value, list) else [value]
        out.append(" ".join(f"{flag} {v!r}" if isinstance(v, float) else f"{flag} {v}" for v in values))
    return tuple(out)


# --------------------------------------------------------------------------- schema and docs
def _schema_of(s: Setting) -> dict:
    def num(base: dict) -> dict:
        if s.low is not None:
            base["exclusiveMinimum" if s.low_open else "minimum"] = s.low
        if s.high is not None:
            base["exclusiveMaximum" if s.high_open else "maximum"] = s.high
        return base

    if s.kind == "int":
        out = num({"type": "integer"})
        if s.low is not None:
            out["minimum"] = int(s.low)
        if s.high is not None:
            out["maximum"] = int(s.high)
        return out
    if s.kind == "ints":
        return {"type": "array", "items": {"type": "integer", "minimum": int(s.low)}, "minItems": 1}
    if s.kind == "float":
        out = num({"type": "number"})
        return {"anyOf": [out, {"type": "null"}]} if s.default is None else out
    if s.kind == "choice":
        return {"enum": list(s.allowed()) + ([None] if s.default is None else [])}
    if s.kind == "choices":
        return {"type": "array", "items": {"enum": list(s.allowed())}, "minItems": 1}
    if s.kind == "strings":
        return {"type": "array", "items": {"type": "string"}}
    if s.kind == "bool":
        return {"type": "boolean"}
    if s.kind == "null_q":
        return {"anyOf": [{"enum": list(s.allowed())}, num({"type": "number"})]}
    if s.kind == "ratios":
        return {"type": "array", "items": {"anyOf": [{"enum": list(s.allowed())}, num({"type": "number"})]}}
    if s.kind == "detectors":
        return {"type": "array", "minItems": 1, "items": {"anyOf": [
            {"enum": list(s.allowed())}, {"type": "string", "pattern": DETECTOR_NAME_PATTERN}]}}
    if s.kind == "detector_params":
        return {"type": "object", "additionalProperties": {
                    "type": "object", "required": ["detector"],
                    "properties": {"detector": {"enum": list(_detector_choices())}},
                    "additionalProperties": {"type": ["integer", "number", "string", "boolean"]}},
                "properties": {d: {"type": "object", "additionalProperties": False,
                                   "properties": {p: {"type": ["integer", "number", "string"] if isinstance(t, tuple)
                                                      else "integer"} for p, t in ps.items()}}
                               for d, ps in DETECTOR_PARAMS.items()}}
    raise InvalidInputError(f"setting kind {s.kind!r} is not known")


def settings_json_schema() -> dict:
    """The JSON Schema of ``summary.json["settings"]``, generated from `SETTINGS`."""
    props = {}
    for s in SETTINGS:
        props[s.name] = {**_schema_of(s), "description": s.help}
    return {"type": "object", "properties": props, "required": [s.name for s in SETTINGS],
            "additionalProperties": False, "description": "effective audit settings (docs/config.md)"}


def _md(v) -> str:
    if v is None:
        return "none"
    return "`" + json.dumps(v) + "`"


def _bounds(s: Setting) -> str:
    if s.low is None and s.high is None:
        return ""
    lo = "" if s.low is None else ("(" if s.low_open else "[") + f"{s.low:g}"
    hi = "" if s.high is None else f"{s.high:g}" + (")" if s.high_open else "]")
    if s.low is not None and s.high is not None:
        return f" in {lo}, {hi}"
    return f" > {s.low:g}" if s.low_open else (f" ≥ {s.low:g}" if s.low is not None else f" ≤ {s.high:g}")


def _type_text(s: Setting) -> str:
    opts = " / ".join(f"`{json.dumps(c)}`" for c in s.allowed())
    return {
        "int": "integer" + (" ≠ 0" if s.nonzero else "") + _bounds(s),
        "ints": f"integer or list of integers{_bounds(s)}",
        "float": f"float{_bounds(s)}",
        "choice": opts,
        "choices": f"list of {opts}",
        "strings": "list of strings",
        "bool": "boolean",
        "null_q": f"{opts} / float{_bounds(s)}",
        "ratios": f"list of floats{_bounds(s)} or {opts}",
        "detector_params": "table",
        "detectors": f"list of {opts} or names of `[detectors.NAME]` tables",
    }[s.kind]


def settings_markdown_table() -> str:
    """The ``[settings]`` table of ``docs/config.md``, generated from `SETTINGS`."""
    lines = ["| key | type | default | flag | meaning |", "|---|---|---|---|---|"]
    for s in SETTINGS:
        flag = f"`{s.flag}`" if s.flag else "–"
        former = "".join(f" Formerly `{old}` (`--{old.replace('_', '-')}`): deprecated, still accepted." for old in
                         s.deprecated)
        lines.append(f"| `{s.name}` | {_type_text(s)} | {_md(s.default)} | {flag} | {s.help}{former} |")
    return "\n".join(lines) + "\n"


_DOC_START = "<!-- generated by python -m auditad.audit.settings: start -->\n"
_DOC_END = "<!-- generated by python -m auditad.audit.settings: end -->\n"


def _between_markers(path: Path, table: str) -> str:
    """The text of ``path`` with the part between the generated-table markers replaced by ``table``."""
    docs = path.read_text(encoding="utf-8")
    head, sep, rest = docs.partition(_DOC_START)
    if not sep or _DOC_END not in rest:
        raise InvalidInputError(f"{str(path)!r} has no generated-table markers")
    return head + _DOC_START + table + _DOC_END + rest.partition(_DOC_END)[2]


def regenerate(root, *, write: bool = True) -> dict:
    """Regenerate the settings part of the shipped schema and of ``docs/config.md``, and the gate options'
    table of ``docs/cli.md`` (`auditad.gates.options`), under ``root``.

    Returns ``{path: new text}``; with ``write=False`` nothing is written (the tests compare).
    """
    root = Path(root)
    schema_file = root / "auditad" / "schemas" / "summary.schema.json"
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    schema["properties"]["settings"] = settings_json_schema()
    config_doc, cli_doc = root / "docs" / "config.md", root / "docs" / "cli.md"
    out = {schema_file: json.dumps(schema, indent=2, ensure_ascii=False) + "\n",
           config_doc: _between_markers(config_doc, settings_markdown_table()),
           cli_doc: _between_markers(cli_doc, gate_options_markdown())}
    if write:
        from .._io import write_text_atomic

        for path, text in out.items():
            write_text_atomic(path, text)
    return out


if __name__ == "__main__":  # pragma: no cover - maintenance command
    for path in regenerate(Path(__file__).resolve().parents[2]):
        print(f"wrote {path}")
