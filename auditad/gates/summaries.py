"""Reading ``summary.json`` files for the gates: size, depth and number limits, the schema version, stored rules.

Part of [`auditad.gates.checks`][auditad.gates.checks] (which re-exports every public name here).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping

from ..errors import InvalidInputError
from .evaluation import is_number
from .rules import GateRule, rules_from_config

__all__ = [
    "SUMMARY_SCHEMA_MAJOR",
    "MAX_SUMMARY_DEPTH",
    "MAX_SUMMARY_INT_DIGITS",
    "MAX_SUMMARY_BYTES",
    "summary_rules",
    "check_schema_version",
    "load_summary",
]


#: Major version of the summary.json layout that this module reads; another major is refused.
SUMMARY_SCHEMA_MAJOR = 1


#: Deepest nesting accepted in a summary file (the audit writes fewer than 10 levels).
MAX_SUMMARY_DEPTH = 64


#: Longest integer (in digits) accepted in a summary file.
MAX_SUMMARY_INT_DIGITS = 40


#: Largest ``summary.json`` read (checked before reading; an audit of thousands of classes writes a few MB).
MAX_SUMMARY_BYTES = 256 * 1024 * 1024


def summary_rules(summary: Mapping, *, source: str = "summary") -> list[GateRule]:
    """The rules stored in ``summary["gates"]`` (a list of dicts with ``rule`` and ``level``; may be absent).

    See Also
    --------
    - [`run_gates`][auditad.gates.checks.run_gates]: gates on summary files.
    - [`parse_rule`][auditad.gates.checks.parse_rule]: the rule syntax.
    - [`auditad.report.export.write_junit`][auditad.report.export.write_junit]: the results as JUnit XML.
    """
    if not isinstance(summary, Mapping):
        raise InvalidInputError(f"{source} must be a JSON object, got {type(summary).__name__}")
    gates = summary.get("gates")
    if gates is None:
        return []
    return rules_from_config(gates, source=f"{source}: gates")


def _depth_exceeds(node, limit: int) -> bool:
    """Whether ``node`` nests dicts/lists deeper than ``limit`` (iterative)."""
    stack = [(node, 1)]
    while stack:
        cur, depth = stack.pop()
        children = cur.values() if isinstance(cur, dict) else cur
        if depth > limit:
            return True
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


def check_schema_version(summary: Mapping, *, source: str = "summary") -> None:
    """Refuse a summary whose ``schema_version`` has a major version other than ``SUMMARY_SCHEMA_MAJOR``.

    A summary without ``schema_version`` (hand-written, or from a test) is accepted.

    Raises
    ------
    InvalidInputError
        The version is not a number or ``"MAJOR.MINOR"`` text, or its major differs.

    See Also
    --------
    - [`run_gates`][auditad.gates.checks.run_gates]: gates on summary files.
    - [`parse_rule`][auditad.gates.checks.parse_rule]: the rule syntax.
    - [`auditad.report.export.write_junit`][auditad.report.export.write_junit]: the results as JUnit XML.
    """
    if not isinstance(summary, Mapping) or "schema_version" not in summary:
        return
    version = summary["schema_version"]
    text = str(version) if is_number(version) or isinstance(version, str) else ""
    major = text.split(".", 1)[0].strip()
    if not (major.isascii() and major.isdigit() and len(major) < 6):
        raise InvalidInputError(f'{source}: schema_version must be a version like "1.0", got {version!r}')
    if int(major) != SUMMARY_SCHEMA_MAJOR:
        raise InvalidInputError(
            f"{source}: schema_version {version!r} is not supported: this auditad reads "
            f"summaries of schema version {SUMMARY_SCHEMA_MAJOR}.x (re-run the audit with "
            "this version, or use the auditad version that wrote the file)"
        )


def _parse_int(text: str) -> int:  # json's int parser, refusing numbers no audit writes
    digits = len(text.lstrip("-"))
    if digits > MAX_SUMMARY_INT_DIGITS:
        raise InvalidInputError(f"an integer with {digits} digits (at most {MAX_SUMMARY_INT_DIGITS} accepted)")
    return int(text)


def load_summary(path) -> dict:
    """Read a ``summary.json``; refuse what no audit writes.

    Raises
    ------
    InvalidInputError
        A missing file or folder, a device, FIFO or socket, a file larger than
        ``MAX_SUMMARY_BYTES``, text that is not UTF-8 or not JSON, a non-object, nesting
        deeper than ``MAX_SUMMARY_DEPTH``, an integer longer than ``MAX_SUMMARY_INT_DIGITS``
        digits, or an unsupported ``schema_version`` (see
        [`check_schema_version`][auditad.gates.checks.check_schema_version]).
        The message names the file.

    See Also
    --------
    - [`run_gates`][auditad.gates.checks.run_gates]: gates on summary files.
    - [`parse_rule`][auditad.gates.checks.parse_rule]: the rule syntax.
    - [`auditad.report.export.write_junit`][auditad.report.export.write_junit]: the results as JUnit XML.
    """
    from .._io import check_regular_input, read_input_bytes

    path = Path(path)
    where = f"summary file {str(path)!r}"
    if path.is_dir():
        raise InvalidInputError(f"{where} is a directory, expected a summary.json file")
    check_regular_input(path, what="summary file")  # a FIFO blocks, /dev/zero never ends: refused unopened
    try:
        text = read_input_bytes(path, what="summary file", max_bytes=MAX_SUMMARY_BYTES).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"{where} is not UTF-8 text: {exc.reason}") from None
    try:
        summary = json.loads(text, parse_int=_parse_int)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where} holds {exc}") from None
    except json.JSONDecodeError as exc:
        raise InvalidInputError(
            f"{where} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except RecursionError:
        raise InvalidInputError(
            f"{where} is nested too deeply to be an audit summary (at most {MAX_SUMMARY_DEPTH} levels)"
        ) from None
    except (ValueError, OverflowError) as exc:
        raise InvalidInputError(f"{where} is not a valid summary: {exc}") from None
    if not isinstance(summary, dict):
        raise InvalidInputError(f"{where} must hold a JSON object, got {type(summary).__name__}")
    if _depth_exceeds(summary, MAX_SUMMARY_DEPTH):
        raise InvalidInputError(f"{where} is nested deeper than {MAX_SUMMARY_DEPTH} levels; no audit summary is")
    check_schema_version(summary, source=where)
    return summary
