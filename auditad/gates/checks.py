"""Gates: pass/warn/fail conditions attached to the statistics of an audit summary.

The public names of the gates, from three modules: `evaluation` (values, comparisons, verdict, exit code),
`summaries` (reading ``summary.json`` files) and `run` (`GateRun`, gates on several files); the rule
syntax is `rules`.

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

from ..findings import Status
from .evaluation import GateResult, evaluate_gates, exit_code, gate_value_text, numeric_paths, verdict
from .rules import LEVELS, MAX_RULE_LENGTH, OPERATORS, GateRule, parse_rule, rules_from_config
from .run import GateRun, run_gates
from .summaries import (
    MAX_SUMMARY_BYTES,
    MAX_SUMMARY_DEPTH,
    MAX_SUMMARY_INT_DIGITS,
    SUMMARY_SCHEMA_MAJOR,
    check_schema_version,
    load_summary,
    summary_rules,
)

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
    "gate_value_text",
    "SUMMARY_SCHEMA_MAJOR",
    "MAX_SUMMARY_DEPTH",
    "MAX_SUMMARY_INT_DIGITS",
    "MAX_SUMMARY_BYTES",
]

#: The status of a gate: [`Status`][auditad.findings.Status] (``pass < info < warn < fail``), the one status
#: of every finding; the former name is kept (``GateStatus.WARN.severity`` is still 1).
GateStatus = Status
