"""Gates: pass/warn/fail conditions attached to the statistics of an audit summary.

The audit (``auditad audit``) computes statistics and writes them, as a nested
dict, to ``summary.json``.  A *gate* is a condition attached to one of those
statistics afterwards, in the spirit of Deepchecks' checks with separately
attached conditions: the statistic is computed once, and any number of
conditions with their own severity can be evaluated on it.

Rule syntax (one line):

    [LEVEL:] METRIC OP THRESHOLD [[LEVEL]]

    leakage.L_k <= 0.5                       # level "fail" (the default)
    warn: protocol.mean.rho_dir <= 0.2       # documented form of a warning gate
    protocol.mean.rho_dir <= 0.2 [warn]      # accepted as well

``METRIC`` is a dotted path into the summary (dict keys; an integer segment
indexes a list: ``protocol.per_class.0.auroc``), ``OP`` one of ``< <= > >= ==
!=``, ``THRESHOLD`` a finite number and ``LEVEL`` ``fail`` or ``warn``.  The rule
states the condition under which the gate *passes*.  A statistic that is null
(not computed, undefined) or NaN makes its gate fail: a gate never passes
silently on a missing number.

Examples
--------
>>> from auditad.gates.checks import evaluate_gates, parse_rule, verdict
>>> summary = {"leakage": {"L_k": 0.07}, "protocol": {"mean": {"rho_dir": 0.3}}}
>>> results = evaluate_gates(summary, ["leakage.L_k <= 0.5", "warn: protocol.mean.rho_dir <= 0.2"])
>>> [str(r.status) for r in results], str(verdict(results))
(['pass', 'warn'], 'warn')
>>> parse_rule("protocol.mean.rho_dir <= 0.2 [warn]") == parse_rule("warn: protocol.mean.rho_dir <= 0.2")
True
"""

from __future__ import annotations

import difflib
import json
import math
import numbers
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Mapping

from ..errors import InvalidInputError
from ..findings import Status
from ..findings import verdict as worst_status
from .rules import LEVELS, MAX_RULE_LENGTH, OPERATORS, GateRule, parse_rule, rules_from_config
from .rules import as_rules as _as_rules, check_level as _check_level, format_number as _fmt_number

__all__ = [
    "OPERATORS",
    "LEVELS",
    "GateRule",
    "GateStatus",
    "GateResult",
    "parse_rule",
    "rules_from_config",
    "evaluate_gates",
    "verdict",
    "exit_code",
    "numeric_paths",
    "summary_rules",
    "load_summary",
    "check_schema_version",
    "GateRun",
    "run_gates",
    "MAX_RULE_LENGTH",
]

#: Top-level keys of a summary that hold gate metadata, not statistics (left out of `numeric_paths`).
_META_KEYS = ("gates",)

#: Major version of the summary.json layout that this module reads; another major is refused.
SUMMARY_SCHEMA_MAJOR = 1
#: Deepest nesting accepted in a summary file (the audit writes fewer than 10 levels).
MAX_SUMMARY_DEPTH = 64
#: Longest integer (in digits) accepted in a summary file.
MAX_SUMMARY_INT_DIGITS = 40
#: Largest ``summary.json`` read (checked before reading; an audit of thousands of classes writes a few MB).
MAX_SUMMARY_BYTES = 256 * 1024 * 1024


#: The status of a gate: [`Status`][auditad.findings.Status] (``pass < info < warn < fail``), the one status
#: of every finding; the former name is kept (``GateStatus.WARN.severity`` is still 1).
GateStatus = Status


@dataclass(frozen=True)
class GateResult:
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
def _is_number(value) -> bool:
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
            if _is_number(cur) or (include_null and cur is None):
                out.append(pre)
                if limit is not None and len(out) >= limit:
                    return False
            continue
        stack.extend((f"{pre}.{k}" if pre else k, v) for k, v in reversed(items))
    return True


def numeric_paths(summary: Mapping, *, include_null: bool = False) -> list[str]:
    """All dotted paths of ``summary`` that lead to a number, in document order.

    Booleans are not numbers here; the top-level ``gates`` list (gate metadata) is
    left out.  ``include_null=True`` also lists paths whose value is null (a statistic
    that was not computed), which a gate may name and will then fail on.

    See Also
    --------
    - [`run_gates`][auditad.gates.checks.run_gates]: gates on summary files.
    - [`parse_rule`][auditad.gates.checks.parse_rule]: the rule syntax.
    - [`auditad.report.export.write_junit`][auditad.report.export.write_junit]: the results as JUnit XML.


    Examples
    --------
    >>> numeric_paths({"leakage": {"L_k": 0.1, "k": 10}, "runs": [{"auc": 0.9}], "benchmark": "x"})
    ['leakage.L_k', 'leakage.k', 'runs.0.auc']
    """
    if not isinstance(summary, Mapping):
        raise InvalidInputError(f"summary must be a dict, got {type(summary).__name__}")
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
    need = f"required {rule.op} {_fmt_number(rule.threshold)}"
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
    if not _is_number(found):
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
    if not isinstance(summary, Mapping):
        raise InvalidInputError(f"summary must be a dict, got {type(summary).__name__}")
    done: dict = {}  # each comparison once: rules that differ only in their level share it
    out = []
    for rule in _as_rules(rules):
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
    fail_on = _check_level(fail_on, name="fail_on")
    v = verdict(results)
    return 1 if v == "fail" or (fail_on == "warn" and v == "warn") else 0


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
    text = str(version) if _is_number(version) or isinstance(version, str) else ""
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


# --------------------------------------------------------------------------- gate runs over summary files
_ROW_KEYS = ("benchmark", "status", "level", "metric", "value", "condition", "passed", "message")


@dataclass(frozen=True)
class GateRun:
    """Gates evaluated on one or more summary files (what ``auditad gate`` reports).

    Attributes
    ----------
    results : dict of str -> list of GateResult
        Per benchmark (its ``benchmark`` key, or the file's folder or stem), in file order.
    fail_on : str
        ``"fail"`` or ``"warn"``: the lowest failed level that makes
        [`exit_code`][auditad.gates.checks.GateRun.exit_code] 1.

    See Also
    --------
    - [`run_gates`][auditad.gates.checks.run_gates]: gates on summary files.
    - [`parse_rule`][auditad.gates.checks.parse_rule]: the rule syntax.
    - [`auditad.report.export.write_junit`][auditad.report.export.write_junit]: the results as JUnit XML.
    """

    results: dict
    fail_on: str = "fail"

    @property
    def every(self) -> list:  # all gate results, in order
        return [r for rs in self.results.values() for r in rs]

    @property
    def verdict(self) -> Status:
        """Worst outcome over every gate (see [`verdict`][auditad.gates.checks.GateRun.verdict])."""
        return verdict(self.every)

    @property
    def exit_code(self) -> int:
        """1 if a gate at or above ``fail_on`` failed, else 0 (see `exit_code`)."""
        return exit_code(self.every, fail_on=self.fail_on)

    def rows(self) -> list[dict]:
        """One dict per gate: benchmark, status, level, metric, value (float or None), condition, message."""
        out = []
        for name, results in self.results.items():
            for r in results:
                out.append(
                    {
                        "benchmark": name,
                        "status": r.status.value,
                        "level": r.level,
                        "metric": r.rule.path,
                        "value": r.value,
                        "condition": f"{r.rule.op} {_fmt_number(r.rule.threshold)}",
                        "threshold": r.rule.threshold,
                        "passed": r.passed,
                        "message": r.message,
                    }
                )
        return out

    def to_frame(self):
        """[`rows`][auditad.gates.checks.GateRun.rows] as a DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.rows(), columns=list(_ROW_KEYS))


def run_gates(summaries, rules=(), *, fail_on: str = "fail") -> GateRun:
    """Evaluate the gates stored in each summary file plus extra ``rules``.

    Parameters
    ----------
    summaries : sequence of path
        ``summary.json`` files written by an audit (read with [`load_summary`][auditad.gates.checks.load_summary]).
    rules : iterable of str, dict or GateRule
        Extra rules added to every summary's own ``gates`` (duplicates dropped).
    fail_on : {"fail", "warn"}
        Lowest level of a failed gate that makes the exit code 1.

    Returns
    -------
    GateRun

    Raises
    ------
    InvalidInputError
        An unreadable summary, a malformed rule, an unknown metric (the message names the
        file), or no gate at all to evaluate.

    See Also
    --------
    - [`evaluate_gates`][auditad.gates.checks.evaluate_gates]: the same on one summary dict.
    """
    fail_on = _check_level(fail_on, name="fail_on")
    extra = _as_rules(list(rules)) if rules else []
    by_bench: dict = {}
    paths = [Path(p) for p in ([summaries] if isinstance(summaries, (str, Path)) else summaries)]
    if not paths:
        raise InvalidInputError("summaries must name at least one summary.json file")
    for path in paths:
        summary = load_summary(path)
        name = str(
            summary.get("benchmark")
            or (path.parent.name if path.name == "summary.json" and path.parent.name else path.stem)
        )
        if name in by_bench:
            name = f"{name} [{path}]"
        merged: list[GateRule] = []
        for rule in summary_rules(summary, source=str(path)) + extra:
            if rule not in merged:
                merged.append(rule)
        try:
            by_bench[name] = evaluate_gates(summary, merged)
        except InvalidInputError as exc:
            raise InvalidInputError(f"{path}: {exc}") from None
    run = GateRun(by_bench, fail_on)
    if not run.every:
        raise InvalidInputError("no gates to evaluate: the summaries have no 'gates' and no extra rules were given")
    return run
