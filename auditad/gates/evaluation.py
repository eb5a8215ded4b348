"""Gate evaluation: the value of a summary path, one comparison per (path, operator, threshold), the verdict.

Part of [`auditad.gates.checks`][auditad.gates.checks] (which re-exports every public name here).
"""

from __future__ import annotations

import difflib
import math
import numbers
from dataclasses import dataclass, replace
from typing import Iterable, Mapping

from .._format import FrameDisplay
from ..errors import InvalidInputError
from ..findings import Status
from ..findings import verdict as worst_status
from .rules import OPERATORS, GateRule, as_rules, check_level, format_number, rules_from_config

__all__ = ["GateResult", "is_number", "numeric_paths", "gate_value_text", "evaluate_gates", "verdict", "exit_code"]

#: Top-level keys of a summary that hold gate metadata, not statistics (left out of `numeric_paths`).
_META_KEYS = ("gates",)


@dataclass(frozen=True)
class GateResult(FrameDisplay):
    """Outcome of one gate on one summary.

    Attributes
    ----------
    rule : GateRule
    level : str
        The rule's level, ``"fail"`` or ``"warn"``.
    passed : bool
        Whether ``value op threshold`` holds; ``False`` when the value is null or NaN.
    value : float or None
        The statistic (``nan`` if it was NaN, ``None`` if it was null or missing under a null parent).
    message : str
        One line saying what was compared, or why the gate failed without a comparison.

    See Also
    --------
    - [`run_gates`][auditad.gates.checks.run_gates]: gates on summary files.
    - [`parse_rule`][auditad.gates.checks.parse_rule]: the rule syntax.
    - [`auditad.report.export.write_junit`][auditad.report.export.write_junit]: the results as JUnit XML.
    """

    rule: GateRule
    level: str
    passed: bool
    value: float | None
    message: str

    @property
    def status(self) -> Status:
        """[`Status`][auditad.findings.Status]: ``pass``, or the level of a gate that did not pass."""
        return Status.PASS if self.passed else Status(self.level)

    @property
    def finite_value(self) -> float | None:
        """The value, None when it is missing, NaN or infinite (what ``summary.json`` holds)."""
        return self.value if self.value is not None and math.isfinite(self.value) else None

    def to_dict(self) -> dict:
        """JSON-safe dict: the rule fields, ``passed``, ``status``, ``value``, ``message``.

        NaN and infinite values become None (the message keeps them).
        """
        out = self.rule.to_dict()
        out.update(passed=bool(self.passed), status=self.status.value, value=self.finite_value, message=self.message)
        return out

    def to_frame(self):
        """One-row table of `to_dict` (rule, level, passed, status, value, message)."""
        import pandas as pd

        return pd.DataFrame([self.to_dict()])

    @classmethod
    def from_dict(cls, data: Mapping) -> "GateResult":
        """The result stored by ``to_dict`` (e.g. in the ``gates`` list of ``summary.json``).

        Nothing is evaluated again: ``passed``, ``value`` and ``message`` are read as written.
        """
        (rule,) = rules_from_config([data], source="gate result")
        value = data.get("value")
        return cls(
            rule,
            rule.level,
            bool(data.get("passed")),
            None if value is None else float(value),
            str(data.get("message") or ""),
        )


# --------------------------------------------------------------------------- paths
def is_number(value) -> bool:
    """Whether a summary value is a number a gate can compare (booleans are not)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and type(value).__name__ != "bool_"


def _walk(
    node, prefix: str, out: list, include_null: bool, *, limit: int | None = None, lists_first_only: bool = False
) -> bool:
    """Append the numeric paths under ``node`` to ``out`` in document order (iterative, any depth).

    Stops after ``limit`` paths (returns False then); ``lists_first_only`` visits only the first
    element of each list (enough to suggest a path, and bounded on per-class tables).
    """
    stack = [(prefix, node)]
    while stack:
        pre, cur = stack.pop()
        if isinstance(cur, Mapping):
            items = [(str(k), v) for k, v in cur.items() if pre or str(k) not in _META_KEYS]
        elif isinstance(cur, (list, tuple)):
            items = [(str(i), v) for i, v in enumerate(cur[:1] if lists_first_only else cur)]
        else:
            if is_number(cur) or (include_null and cur is None):
                out.append(pre)
                if limit is not None and len(out) >= limit:
                    return False
            continue
        stack.extend((f"{pre}.{k}" if pre else k, v) for k, v in reversed(items))
    return True


def _check_summary(summary) -> None:
    """Refuse a summary that is not a mapping (a JSON list, a number, ...)."""
    if not isinstance(summary, Mapping):
        raise InvalidInputError(f"summary must be a dict, got {type(summary).__name__}")


def numeric_paths(summary: Mapping, *, include_null: bool = False) -> list[str]:
    """All dotted paths of ``summary`` that lead to a number, in document order.

    Booleans are not numbers here; the top-level ``gates`` list (gate metadata) is
    left out.  ``include_null=True`` also lists paths whose value is null (a statistic
    that was not computed), which a gate may name and will then fail on.

    See Also
    --------
    - [`evaluate_gates`][auditad.gates.checks.evaluate_gates]: a gate names one of these paths.
    - [`parse_rule`][auditad.gates.checks.parse_rule]: the rule syntax.

    Examples
    --------
    >>> numeric_paths({"leakage": {"L_k": 0.1, "k": 10}, "runs": [{"auc": 0.9}], "benchmark": "x"})
    ['leakage.L_k', 'leakage.k', 'runs.0.auc']
    """
    _check_summary(summary)
    out: list[str] = []
    _walk(summary, "", out, include_null)
    return out


_MISSING = object()


def _steps(node, segments: list[str], i: int):
    """The ways to resolve one step at ``segments[i]``: (value, number of segments consumed), shortest first.

    A dict key that itself contains dots is matched by joining the following segments; when both
    ``X`` and ``X.v2`` are keys, both are candidates and the caller keeps the one that resolves.
    """
    if isinstance(node, Mapping):
        keys = {str(k): k for k in node}
        name = segments[i]
        for j in range(i + 1, len(segments) + 1):
            if j > i + 1:
                name = f"{name}.{segments[j - 1]}"
            if name in keys:
                yield node[keys[name]], j - i
        return
    if isinstance(node, (list, tuple)) and segments[i].isdigit():
        idx = int(segments[i])
        if idx < len(node):
            yield node[idx], 1


def _resolve(summary: Mapping, path: str):
    """Return ("value", v) | ("null", prefix) | ("unknown", resolved_prefix).

    Depth first over the ways dotted keys can split ``path`` (each state is a distinct node of
    the summary, so the search is bounded by its size); a number wins over a null, a null over
    an unknown path, and an unknown path reports its longest resolved prefix.
    """
    segments = path.split(".")
    stack = [(summary, 0)]
    null_at = None
    deepest = 0
    while stack:
        node, i = stack.pop()
        deepest = max(deepest, i)
        if i == len(segments):
            if node is not None:
                return "value", node
            null_at = path if null_at is None else null_at
            continue
        if node is None:
            null_at = ".".join(segments[:i]) if null_at is None else null_at
            continue
        stack.extend(reversed([(value, i + used) for value, used in _steps(node, segments, i)]))
    if null_at is not None:
        return "null", null_at
    return "unknown", ".".join(segments[:deepest])


#: Paths considered when suggesting a replacement for an unknown gate metric (keeps huge summaries fast).
_SUGGEST_LIMIT = 20_000


def _unknown_metric_error(
    summary: Mapping, path: str, prefix: str, *, container: str | None = None
) -> InvalidInputError:
    """Error for a path that does not lead to a number; lists the nearest numeric paths (difflib).

    Candidates are the numeric paths with only the first element of each list visited,
    at most ``_SUGGEST_LIMIT`` of them, so the message is quick even for a summary with
    thousands of per-class rows.
    """
    paths: list[str] = []
    complete = _walk(summary, "", paths, True, limit=_SUGGEST_LIMIT, lists_first_only=True)
    if container is not None:  # the path leads to a dict/list: suggest the numbers inside it
        close = [p for p in paths if p.startswith(path + ".")][:6]
        head = f"gate metric {path!r} is a {container}, not a number"
    else:
        close = difflib.get_close_matches(path, paths, n=6, cutoff=0.5)
        if not close and prefix:
            close = [p for p in paths if p.startswith(prefix + ".")][:6]
        head = f"unknown gate metric {path!r}"
    shown = close or paths[:6]
    listing = ", ".join(shown) if shown else "none (the summary holds no numbers)"
    total = ""
    if shown:
        total = (
            f" ({len(paths)}{'' if complete else '+'} numeric paths, list elements after the first not "
            "counted; auditad.gates.checks.numeric_paths lists them all)"
        )
    return InvalidInputError(f"{head} \u2014 {'nearest' if close else 'available'}: {listing}{total}")


# --------------------------------------------------------------------------- evaluation
def gate_value_text(x: float, threshold: float | None = None) -> str:
    """A gate's value as the report shows numbers (`auditad._format.number`, plain text).

    When that rounding would make a value look equal to the threshold it is
    compared with (e.g. 0.5004 against ``<= 0.5``), just enough significant
    digits are added to tell them apart.
    """
    from .._format import number

    text = number(float(x), target="text")
    if threshold is None or not math.isfinite(x) or x == threshold:
        return text
    try:
        looks_equal = float(text) == threshold
    except ValueError:  # scientific or grouped text: compare the value as printed
        looks_equal = False
    sig = 4
    while looks_equal and sig <= 17:
        text = f"{x:.{sig}g}"
        looks_equal = float(text) == threshold
        sig += 1
    return text


def _evaluate_one(summary: Mapping, rule: GateRule) -> GateResult:
    kind, found = _resolve(summary, rule.path)
    need = f"required {rule.op} {format_number(rule.threshold)}"
    if kind == "unknown":
        raise _unknown_metric_error(summary, rule.path, found)
    if kind == "null":
        where = "is null" if found == rule.path else f"is missing because {found!r} is null"
        return GateResult(
            rule,
            rule.level,
            False,
            None,
            f"{rule.path} {where} (statistic not computed or undefined; {need}): a gate on a missing value fails",
        )
    if not is_number(found):
        kind_name = type(found).__name__
        if isinstance(found, (Mapping, list, tuple)):
            raise _unknown_metric_error(
                summary, rule.path, rule.path, container="dict" if isinstance(found, Mapping) else "list"
            )
        raise InvalidInputError(f"gate metric {rule.path!r} is not a number: {found!r} ({kind_name})")
    try:
        value = float(found)
    except OverflowError:
        raise InvalidInputError(
            f"gate metric {rule.path!r} is an integer too large for a number: "
            f"{str(found)[:20]}... ({len(str(found))} digits)"
        ) from None
    if math.isnan(value):
        return GateResult(
            rule,
            rule.level,
            False,
            value,
            f"{rule.path} is NaN (undefined statistic; {need}): a gate on an undefined value fails",
        )
    passed = bool(OPERATORS[rule.op](value, rule.threshold))
    who = _where_of(summary, rule.path)
    return GateResult(
        rule,
        rule.level,
        passed,
        value,
        f"{rule.path} = {_count_text(found) or gate_value_text(value, rule.threshold)}{who} ({need})"
        f"{'' if passed else ': violated'}",
    )


def _count_text(found) -> str:
    """A whole-number statistic (a count) as written in the summary (``3``, not ``3.000``); else ``""``."""
    return str(int(found)) if isinstance(found, numbers.Integral) and not isinstance(found, bool) else ""


def _where_of(summary: Mapping, path: str) -> str:
    """`` (iforest on resnet18)`` when the statistic has a sibling ``<name>_where`` naming who has it, else ``""``."""
    head, _, name = path.rpartition(".")
    kind, parent = _resolve(summary, head) if head else ("ok", summary)
    if kind != "unknown" and isinstance(parent, Mapping):
        where = parent.get(f"{name}_where")
        if isinstance(where, str) and where:
            return f" ({where})"
    return ""


def evaluate_gates(summary: Mapping, rules) -> list[GateResult]:
    """Evaluate gate rules on an audit summary.

    Parameters
    ----------
    summary : dict
        The nested summary (``json.load`` of ``summary.json``).
    rules : iterable of str, dict or GateRule
        Rules in any form accepted by [`rules_from_config`][auditad.gates.checks.rules_from_config].

    Returns
    -------
    list of GateResult
        One per rule, in order.  A null or NaN statistic gives ``passed=False``.  Each comparison
        (metric, operator, threshold) is made once; rules that differ only in their level share it.

    Raises
    ------
    InvalidInputError
        A malformed rule, or a metric path that does not exist in ``summary`` (the message
        lists the nearest numeric paths), or a path that leads to text.

    See Also
    --------
    - [`run_gates`][auditad.gates.checks.run_gates]: gates on summary files.
    - [`parse_rule`][auditad.gates.checks.parse_rule]: the rule syntax.
    - [`auditad.report.export.write_junit`][auditad.report.export.write_junit]: the results as JUnit XML.


    Examples
    --------
    >>> r = evaluate_gates({"leakage": {"L_k": None}}, ["leakage.L_k <= 0.5"])[0]
    >>> r.passed, r.value
    (False, None)
    """
    _check_summary(summary)
    done: dict = {}  # each comparison once: rules that differ only in their level share it
    out = []
    for rule in as_rules(rules):
        key = (rule.path, rule.op, rule.threshold)
        if key not in done:
            done[key] = _evaluate_one(summary, rule)
        first = done[key]
        out.append(first if first.rule == rule else replace(first, rule=rule, level=rule.level))
    return out


def verdict(results: Iterable[GateResult]) -> Status:
    """``"fail"`` if a fail-level gate failed, else ``"warn"`` if a warn-level gate failed, else ``"pass"``.

    The worst [`Status`][auditad.findings.Status] of the results
    ([`auditad.findings.verdict`][auditad.findings.verdict]); no gates at all give ``"pass"``.

    See Also
    --------
    - [`run_gates`][auditad.gates.checks.run_gates]: gates on summary files.
    - [`parse_rule`][auditad.gates.checks.parse_rule]: the rule syntax.
    - [`auditad.report.export.write_junit`][auditad.report.export.write_junit]: the results as JUnit XML.
    """
    return worst_status(results)


def exit_code(results: Iterable[GateResult], *, fail_on: str = "fail") -> int:
    """Process exit code of a gate run: 1 if a gate at or above ``fail_on`` failed, else 0.

    Parameters
    ----------
    results : iterable of GateResult
    fail_on : {"fail", "warn"}
        ``"fail"``: only failed fail-level gates count; ``"warn"``: any failed gate counts.

    See Also
    --------
    - [`run_gates`][auditad.gates.checks.run_gates]: gates on summary files.
    - [`parse_rule`][auditad.gates.checks.parse_rule]: the rule syntax.
    - [`auditad.report.export.write_junit`][auditad.report.export.write_junit]: the results as JUnit XML.
    """
    fail_on = check_level(fail_on, name="fail_on")
    v = verdict(results)
    return 1 if v == "fail" or (fail_on == "warn" and v == "warn") else 0
