"""Gate rules: the rule syntax, `GateRule` and reading rules from text and config lists.

Re-exported by [`auditad.gates.checks`][auditad.gates.checks] (import the public names from there), which
evaluates the rules on audit summaries; see that module for the rule syntax.

Examples
--------
>>> parse_rule("leakage.L_k <= 0.5").text
'fail: leakage.L_k <= 0.5'
"""

from __future__ import annotations

import math
import numbers
import operator
import re
from dataclasses import dataclass
from typing import Iterable, Mapping

from ..errors import InvalidInputError

__all__ = [
    "OPERATORS",
    "LEVELS",
    "MAX_RULE_LENGTH",
    "GateRule",
    "parse_rule",
    "rules_from_config",
    "check_level",
    "as_rules",
    "format_number",
]

OPERATORS = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}
LEVELS = ("fail", "warn")

#: Keys of a gate dict that record an earlier evaluation; ignored when reading rules back.
_RESULT_KEYS = frozenset({"passed", "value", "message", "status"})
_RULE_KEYS = frozenset({"rule", "metric", "op", "threshold", "level"})

_SYNTAX = (
    "expected 'METRIC OP THRESHOLD' with OP one of <, <=, >, >=, ==, != and an optional level "
    "prefix 'warn:' or 'fail:' (e.g. 'warn: protocol.mean.rho_dir <= 0.2')"
)
#: Longest accepted rule text (a longer one is refused with a named error, before any parsing).
MAX_RULE_LENGTH = 1000
_SEGMENT = re.compile(r"^[^\s<>=!\[\]:]+$")


def format_number(x: float) -> str:
    """Shortest text that reads back as the same float (``0.5``, ``1e-05``, ``3``)."""
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


@dataclass(frozen=True)
class GateRule:
    """One gate: ``path op threshold`` at severity ``level``.

    Attributes
    ----------
    path : str
        Dotted path of the statistic in the summary, e.g. ``"leakage.L_k"``.
    op : str
        One of ``<``, ``<=``, ``>``, ``>=``, ``==``, ``!=``; the gate passes when
        ``value op threshold`` holds.
    threshold : float
        Finite threshold.
    level : str
        ``"fail"`` (a failed gate fails the run) or ``"warn"`` (a failed gate is reported only).

    See Also
    --------
    - [`run_gates`][auditad.gates.checks.run_gates]: gates on summary files.
    - [`parse_rule`][auditad.gates.checks.parse_rule]: the rule syntax.
    - [`auditad.report.export.write_junit`][auditad.report.export.write_junit]: the results as JUnit XML.
    """

    path: str
    op: str
    threshold: float
    level: str = "fail"

    def __post_init__(self):
        if not isinstance(self.path, str) or not self.path:
            raise InvalidInputError(f"gate path must be a non-empty string, got {self.path!r}")
        bad = [s for s in self.path.split(".") if not _SEGMENT.match(s)]
        if bad:
            raise InvalidInputError(
                f"gate path {self.path!r} has an empty or invalid segment {bad[0]!r} "
                "(segments are separated by '.', without spaces or any of < > = ! [ ] :)"
            )
        if self.op not in OPERATORS:
            raise InvalidInputError(f"gate operator must be one of {list(OPERATORS)}, got {self.op!r}")
        if isinstance(self.threshold, bool) or not isinstance(self.threshold, numbers.Real):
            raise InvalidInputError(f"gate threshold must be a number, got {self.threshold!r}")
        if not math.isfinite(float(self.threshold)):
            raise InvalidInputError(f"gate threshold must be finite, got {self.threshold!r}")
        object.__setattr__(self, "threshold", float(self.threshold))
        if self.level not in LEVELS:
            raise InvalidInputError(f"gate level must be 'fail' or 'warn', got {self.level!r}")

    @property
    def expression(self) -> str:
        """``"leakage.L_k <= 0.5"`` (without the level)."""
        return f"{self.path} {self.op} {format_number(self.threshold)}"

    @property
    def text(self) -> str:
        """Canonical rule text, ``"fail: leakage.L_k <= 0.5"``; `parse_rule` reads it back."""
        return f"{self.level}: {self.expression}"

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> dict:
        """JSON-safe dict; [`rules_from_config`][auditad.gates.checks.rules_from_config] reads it back."""
        return {
            "rule": self.expression,
            "metric": self.path,
            "op": self.op,
            "threshold": self.threshold,
            "level": self.level,
        }


# --------------------------------------------------------------------------- parsing
def check_level(level, *, name: str) -> str:
    """``level`` (``"fail"`` or ``"warn"``, any case, spaces ignored) in lower case; else an error naming ``name``."""
    if not isinstance(level, str) or level.strip().lower() not in LEVELS:
        raise InvalidInputError(f"{name} must be 'fail' or 'warn', got {level!r}")
    return level.strip().lower()


def parse_rule(text: str, *, default_level: str = "fail") -> GateRule:
    """Parse one rule ``[LEVEL:] METRIC OP THRESHOLD [[LEVEL]]`` into a [`GateRule`][auditad.gates.checks.GateRule].

    Parameters
    ----------
    text : str
        E.g. ``"leakage.L_k <= 0.5"``, ``"warn: protocol.mean.rho_dir <= 0.2"`` or
        ``"protocol.mean.rho_dir <= 0.2 [warn]"``.  The level is case-insensitive;
        prefix and suffix may both be given only if they agree.
    default_level : {"fail", "warn"}
        Level of a rule that names none.

    Returns
    -------
    GateRule

    Raises
    ------
    InvalidInputError
        The rule is malformed; the message quotes the rule.

    See Also
    --------
    - [`run_gates`][auditad.gates.checks.run_gates]: gates on summary files.
    - [`auditad.report.export.write_junit`][auditad.report.export.write_junit]: the results as JUnit XML.


    Examples
    --------
    >>> parse_rule("warn: protocol.mean.rho_dir <= 0.2")
    GateRule(path='protocol.mean.rho_dir', op='<=', threshold=0.2, level='warn')
    """
    default_level = check_level(default_level, name="default_level")
    if isinstance(text, GateRule):
        return text
    if not isinstance(text, str):
        raise InvalidInputError(f"a gate rule must be a string, got {text!r}")
    if len(text) > MAX_RULE_LENGTH:
        raise InvalidInputError(
            f"gate rule is {len(text)} characters long, at most {MAX_RULE_LENGTH} are accepted "
            f"(it starts {text[:40]!r})"
        )
    where = f"malformed gate rule {text!r}"
    body, levels = text.strip(), []
    colon = body.find(":")  # prefix 'LEVEL:' (one scan; metric paths never contain ':')
    if colon >= 0:
        head = body[:colon].strip()
        if head and head.isascii() and head.isalpha():
            if head.lower() not in LEVELS:
                raise InvalidInputError(f"{where}: unknown level {head!r} (use 'fail' or 'warn')")
            levels.append(head.lower())
            body = body[colon + 1 :].strip()
    if body.endswith("]"):  # suffix '[LEVEL]'
        bracket = body.rfind("[")
        inner = body[bracket + 1 : -1].strip() if bracket >= 0 else None
        if inner is not None and (not inner or (inner.isascii() and inner.isalpha())):
            if inner.lower() not in LEVELS:
                raise InvalidInputError(f"{where}: unknown level {inner!r} (use 'fail' or 'warn')")
            levels.append(inner.lower())
            body = body[:bracket].rstrip()
    if len(set(levels)) > 1:
        raise InvalidInputError(f"{where}: contradictory levels {levels[0]!r} and {levels[1]!r}")
    op, at = _find_operator(body)
    path = body[:at].strip() if op else ""
    thr = body[at + len(op) :].strip() if op else ""
    if not op or not path or not thr:
        raise InvalidInputError(f"{where}: {_SYNTAX}")
    if any(not _SEGMENT.match(seg) for seg in path.split(".")):
        raise InvalidInputError(
            f"{where}: metric {path!r} is not a dotted path "
            f"(segments separated by '.', no spaces or operators); {_SYNTAX}"
        )
    try:
        threshold = float(thr)
    except ValueError:
        raise InvalidInputError(f"{where}: threshold {thr!r} is not a number") from None
    if not math.isfinite(threshold):
        raise InvalidInputError(f"{where}: threshold must be finite, got {thr!r}")
    return GateRule(path, op, threshold, levels[0] if levels else default_level)


def _find_operator(body: str) -> tuple[str, int]:
    """Leftmost comparison operator in ``body`` (two-character ones first at a position); ("", -1) if none.

    One left-to-right scan: linear in the length of the rule.
    """
    for i, ch in enumerate(body):
        if ch in "<>=!":
            two = body[i : i + 2]
            if two in ("<=", ">=", "==", "!="):
                return two, i
            if ch in "<>":
                return ch, i
    return "", -1


def rules_from_config(items: Iterable, *, default_level: str = "fail", source: str = "gates") -> list[GateRule]:
    """Read gate rules from a config list (TOML ``gates = [...]``, or the ``gates`` key of a summary).

    Each item is a rule string (see [`parse_rule`][auditad.gates.checks.parse_rule]), a
    [`GateRule`][auditad.gates.checks.GateRule], or a dict with
    either ``rule`` (rule text) or ``metric``, ``op`` and ``threshold``, plus an optional
    ``level``.  Keys recording an earlier evaluation (``passed``, ``value``, ``message``,
    ``status``) are ignored, so the ``gates`` list of a ``summary.json`` reads back; any other
    key is an error (a typo such as ``treshold`` must not drop a gate silently).

    Parameters
    ----------
    items : iterable of str, dict or GateRule
    default_level : {"fail", "warn"}
        Level of an item that names none.
    source : str
        Name used in error messages, e.g. the config file.

    Returns
    -------
    list of GateRule

    See Also
    --------
    - [`run_gates`][auditad.gates.checks.run_gates]: gates on summary files.
    - [`parse_rule`][auditad.gates.checks.parse_rule]: the rule syntax.
    - [`auditad.report.export.write_junit`][auditad.report.export.write_junit]: the results as JUnit XML.


    Examples
    --------
    TOML:

        gates = [
          "leakage.L_k <= 0.5",
          { metric = "protocol.mean.rho_dir", op = "<=", threshold = 0.2, level = "warn" },
        ]

    >>> rules_from_config(["leakage.L_k <= 0.5",
    ...                    {"metric": "protocol.mean.rho_dir", "op": "<=", "threshold": 0.2, "level": "warn"}])[1].text
    'warn: protocol.mean.rho_dir <= 0.2'
    """
    default_level = check_level(default_level, name="default_level")
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Iterable):
        raise InvalidInputError(f"{source} must be a list of rules, got {type(items).__name__}")
    rules = []
    for i, item in enumerate(items):
        where = f"{source}[{i}]"
        if isinstance(item, GateRule):
            rules.append(item)
        elif isinstance(item, str):
            try:
                rules.append(parse_rule(item, default_level=default_level))
            except InvalidInputError as exc:
                raise InvalidInputError(f"{where}: {exc}") from None
        elif isinstance(item, Mapping):
            rules.append(_rule_from_dict(item, where=where, default_level=default_level))
        else:
            raise InvalidInputError(f"{where} must be a rule string or a table/dict, got {item!r}")
    return rules


def _rule_from_dict(item: Mapping, *, where: str, default_level: str) -> GateRule:
    unknown = sorted(set(map(str, item)) - _RULE_KEYS - _RESULT_KEYS)
    if unknown:
        raise InvalidInputError(
            f"{where}: unknown key(s) {unknown}; a gate has 'rule' or 'metric'/'op'/'threshold', and optionally 'level'"
        )
    level = None
    if item.get("level") is not None:
        level = check_level(item["level"], name=f"{where}.level")
    parts = {k: item[k] for k in ("metric", "op", "threshold") if item.get(k) is not None}
    if item.get("rule") is not None:
        try:
            rule = parse_rule(item["rule"], default_level=level or default_level)
        except InvalidInputError as exc:
            raise InvalidInputError(f"{where}: {exc}") from None
        if level is not None and rule.level != level:
            raise InvalidInputError(f"{where}: level {level!r} contradicts the level of rule {item['rule']!r}")
        given = GateRule(
            parts.get("metric", rule.path),
            parts.get("op", rule.op),
            _threshold(parts.get("threshold", rule.threshold), where),
            rule.level,
        )
        if given != rule:
            raise InvalidInputError(f"{where}: 'metric'/'op'/'threshold' contradict rule {item['rule']!r}")
        return rule
    missing = [k for k in ("metric", "op", "threshold") if k not in parts]
    if missing:
        raise InvalidInputError(
            f"{where}: missing {', '.join(repr(k) for k in missing)} "
            "(give 'rule' text or all of 'metric', 'op', 'threshold')"
        )
    try:
        return GateRule(
            str(parts["metric"]).strip(),
            str(parts["op"]).strip(),
            _threshold(parts["threshold"], where),
            level or default_level,
        )
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where}: {exc}") from None


def _threshold(value, where: str) -> float:
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise InvalidInputError(f"{where}: threshold {value!r} is not a number") from None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidInputError(f"{where}: threshold must be a number, got {value!r}")
    return float(value)


def as_rules(rules) -> list[GateRule]:
    """One rule (text, dict or `GateRule`) or an iterable of them, as a list of `GateRule`."""
    if isinstance(rules, (str, GateRule, Mapping)):
        rules = [rules]
    return rules_from_config(rules, source="rules")
