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

The declaration itself is in `auditad.audit.settings_declaration`, the command-line flags in
`auditad.audit.settings_flags`, the schema and the docs tables in `auditad.audit.settings_docs`; this
module validates the settings and re-exports every name, so import them from here.

The default gates (`DEFAULT_GATES`) come from the reading thresholds
declared once in `THRESHOLDS`: the report's readings and the default
gates use the same numbers. The gate and CI-output options (``--gate``, ``--fail-on``,
``--no-default-gates``, ``--junit``, ``--markdown``) are declared once in
`auditad.gates.options`; ``default_gates`` takes its flag and help from there, and
``python -m auditad.audit.settings`` also rewrites their table in ``docs/cli.md``.
"""

from __future__ import annotations

import copy
import re
import warnings
from pathlib import Path
from typing import Mapping

from .._validation import check_choice, check_float, check_int, describe
from ..errors import InvalidInputError
from ..gates.defaults import DEFAULT_GATES, THRESHOLDS
from .settings_declaration import (
    DEFAULT_SETTINGS,
    DETECTOR_NAME_PATTERN,
    DETECTOR_PARAMS,
    FORMER_NAMES,
    SETTINGS,
    SETTINGS_BY_NAME,
    Setting,
    detector_choices,
)
from .settings_declaration import NULL_METHODS, NULL_Q_NAMES  # noqa: F401 - re-exported (importable from here)
from .settings_docs import regenerate, settings_json_schema, settings_markdown_table
from .settings_flags import FLAG_GROUPS, add_settings_arguments, settings_from_args, settings_to_flags

__all__ = [
    "Setting",
    "SETTINGS",
    "DEFAULT_SETTINGS",
    "THRESHOLDS",
    "DEFAULT_GATES",
    "validate_settings",
    "add_settings_arguments",
    "FLAG_GROUPS",
    "settings_from_args",
    "settings_to_flags",
    "settings_json_schema",
    "settings_markdown_table",
    "regenerate",
]


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
    unknown_keys(raw, SETTINGS_BY_NAME, where, "")
    for key, value in raw.items():
        setting = SETTINGS_BY_NAME[key]
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
    if not any(key in FORMER_NAMES for key in raw):
        return raw
    out = {}
    for key, value in raw.items():
        s = FORMER_NAMES.get(key)
        if s is None:
            out[key] = value
            continue
        prefix = where.rpartition(": ")[2]  # "audit.toml: settings" -> "settings" in the names
        old, new = (
            ("--" + key.replace("_", "-"), s.flag)
            if where == "command line"
            else (f"{prefix}.{key}", f"{prefix}.{s.name}")
        )
        if s.name in raw:
            raise InvalidInputError(f"{where}: give {new} only: {old} is its former (deprecated) name")
        lead = f"{where.rpartition(': ')[0]}: " if ": " in where else ""
        warnings.warn(f"{lead}{old} is deprecated: use {new} (same meaning)", FutureWarning, stacklevel=3)
        out[s.name] = value
    return out


def _check_detectors_defined(settings: Mapping, where: str) -> None:
    """Every entry of ``detectors`` is a built-in name, ``pyod:NAME`` or a detector table of ``detector_params``."""
    s = SETTINGS_BY_NAME["detectors"]
    tables = [k for k, v in settings["detector_params"].items() if "detector" in v]
    for name in settings["detectors"]:
        if name not in s.allowed() and name not in tables:
            flag = s.flag if where == "command line" else f"{where}.detectors"
            raise InvalidInputError(
                f"{flag} must be one of {list(s.allowed())} or the name of a [detectors.NAME] table"
                + (f" ({tables})" if tables else "")
                + f", got unknown detector {name!r}"
            )


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
    if s.kind == "auto_int":  # "auto" or an integer >= low
        if isinstance(value, str):
            return check_choice(value, ("auto",), name=name)
        return check_int(value, name=name, low=None if s.low is None else int(s.low))
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

    if not isinstance(name, str) or not re.match(DETECTOR_NAME_PATTERN, name) or name in detector_choices():
        raise InvalidInputError(
            f"{where}: a detector table needs a name of letters, digits, '_', '.', '-' that is "
            f"not a built-in or pyod:NAME detector, got {describe(name)}"
        )
    kind = table.get("detector")
    if not isinstance(kind, str) or kind not in detector_choices():
        raise InvalidInputError(f"{where}.detector must be one of {list(detector_choices())}, got {describe(kind)}")
    if "name" in table:
        raise InvalidInputError(f"{where}: the table's name is the detector's name; remove the key 'name'")
    try:
        make_detector(dict(table))
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where}: {exc}") from None
    return dict(table)


if __name__ == "__main__":  # pragma: no cover - maintenance command
    for path in regenerate(Path(__file__).resolve().parents[2]):
        print(f"wrote {path}")
