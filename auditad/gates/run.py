"""`GateRun`: gates evaluated on several ``summary.json`` files (``auditad gate``), with the verdict and exit code.

Part of [`auditad.gates.checks`][auditad.gates.checks] (which re-exports every public name here).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import InvalidInputError
from ..findings import Status
from .evaluation import evaluate_gates, exit_code, verdict
from .rules import GateRule, as_rules, check_level, format_number
from .summaries import load_summary, summary_rules

__all__ = ["GateRun", "run_gates"]


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
                        "condition": f"{r.rule.op} {format_number(r.rule.threshold)}",
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
    fail_on = check_level(fail_on, name="fail_on")
    extra = as_rules(list(rules)) if rules else []
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
