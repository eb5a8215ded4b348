"""TOML text of settings and values (the reproducibility block of the report, the equivalent config of flags).

TOML has no writer in the standard library; this writes the small subset the audit configuration uses.
"""

from __future__ import annotations

import re
from typing import Mapping

from ._validation import describe
from .errors import InvalidInputError

__all__ = ["toml_value", "toml_key", "settings_to_toml"]


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        if not v:
            return "{}"
        return "{ " + ", ".join(f"{toml_key(k)} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise InvalidInputError(f"cannot write {describe(v)} as TOML")


def toml_key(k: str) -> str:
    return k if re.match(r"^[A-Za-z0-9_-]+$", k) else toml_value(k)


def settings_to_toml(settings: Mapping, *, table: str = "settings") -> str:
    """The settings as a TOML table (keys whose value is None are left out, as TOML has no null)."""
    lines = [f"[{table}]"]
    for k, v in settings.items():
        if v is None:
            continue
        lines.append(f"{toml_key(k)} = {toml_value(v)}")
    return "\n".join(lines) + "\n"
