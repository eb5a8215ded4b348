"""The JSON Schema and the documentation tables of the audit settings, and their regeneration.

Generated from the declaration `auditad.audit.settings.SETTINGS`: the ``settings`` part of
``auditad/schemas/summary.schema.json`` (`settings_json_schema`), the settings table of ``docs/config.md``
(`settings_markdown_table`) and, with the gate options' table of ``docs/cli.md``
(`auditad.gates.options`), the rewrite of the three files by ``python -m auditad.audit.settings``
(`regenerate`). The names are re-exported by `auditad.audit.settings`.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import InvalidInputError
from ..gates.options import gate_options_markdown
from .settings_declaration import DETECTOR_NAME_PATTERN, DETECTOR_PARAMS, SETTINGS, Setting, detector_choices

__all__ = ["settings_json_schema", "settings_markdown_table", "regenerate"]


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
    if s.kind == "auto_int":
        return {"anyOf": [{"enum": ["auto"]}, num({"type": "integer"})]}
    if s.kind == "ratios":
        return {"type": "array", "items": {"anyOf": [{"enum": list(s.allowed())}, num({"type": "number"})]}}
    if s.kind == "detectors":
        return {
            "type": "array",
            "minItems": 1,
            "items": {"anyOf": [{"enum": list(s.allowed())}, {"type": "string", "pattern": DETECTOR_NAME_PATTERN}]},
        }
    if s.kind == "detector_params":
        return {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["detector"],
                "properties": {"detector": {"enum": list(detector_choices())}},
                "additionalProperties": {"type": ["integer", "number", "string", "boolean"]},
            },
            "properties": {
                d: {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        p: {"type": ["integer", "number", "string"] if isinstance(t, tuple) else "integer"}
                        for p, t in ps.items()
                    },
                }
                for d, ps in DETECTOR_PARAMS.items()
            },
        }
    raise InvalidInputError(f"setting kind {s.kind!r} is not known")


def settings_json_schema() -> dict:
    """The JSON Schema of ``summary.json["settings"]``, generated from `SETTINGS`."""
    props = {}
    for s in SETTINGS:
        props[s.name] = {**_schema_of(s), "description": s.help}
    return {
        "type": "object",
        "properties": props,
        "required": [s.name for s in SETTINGS],
        "additionalProperties": False,
        "description": "effective audit settings (docs/config.md)",
    }


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
        "auto_int": f'`"auto"` / integer{_bounds(s)}',
        "ratios": f"list of floats{_bounds(s)} or {opts}",
        "detector_params": "table",
        "detectors": f"list of {opts} or names of `[detectors.NAME]` tables",
    }[s.kind]


def settings_markdown_table() -> str:
    """The ``[settings]`` table of ``docs/config.md``, generated from `SETTINGS`."""
    lines = ["| key | type | default | flag | meaning |", "|---|---|---|---|---|"]
    for s in SETTINGS:
        flag = f"`{s.flag}`" if s.flag else "–"
        former = "".join(
            f" Formerly `{old}` (`--{old.replace('_', '-')}`): deprecated, still accepted." for old in s.deprecated
        )
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
    out = {
        schema_file: json.dumps(schema, indent=2, ensure_ascii=False) + "\n",
        config_doc: _between_markers(config_doc, settings_markdown_table()),
        cli_doc: _between_markers(cli_doc, gate_options_markdown()),
    }
    if write:
        from .._io import write_text_atomic

        for path, text in out.items():
            write_text_atomic(path, text)
    return out
