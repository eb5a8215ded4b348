"""A leaderboard audit as an ``auditad results`` report: its gates and the files written.

[`audit_leaderboard`][auditad.leaderboards.audit_leaderboard] computes the findings and the rankings;
[`leaderboard_summary`][auditad.leaderboards.summary.leaderboard_summary] turns the
[`LeaderboardAudit`][auditad.leaderboards.LeaderboardAudit] into the ``summary.json`` every gate reads
(schema ``auditad/schemas/leaderboard.schema.json``); this module evaluates the gates (by default one per
finding, at the finding's level) and writes the report folder: ``report.html`` (findings first, then the
critical-difference diagram and the methods × datasets heatmap, then the tables; rendered by
`auditad.report.leaderboard_page`), ``summary.json``, ``tables/*.csv|.md|.tex`` and ``figures/*.svg``.
Its former names ``leaderboard_summary``, ``CHECK_KEYS``, ``RANKING_KEYS``, ``MAX_SUMMARY_ITEMS`` and
``LEADERBOARD_SCHEMA_VERSION`` are served from `auditad.leaderboards.summary` with a `DeprecationWarning`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from .._format import name_list
from .._validation import check_choice
from ..findings import verdict_text

__all__ = [
    "leaderboard_default_gates",
    "leaderboard_summary_with_gates",
    "LeaderboardRun",
    "write_leaderboard_report",
]

_OPS = {"number <= 0": "<=", "p <= threshold": "<=", "number > threshold": ">", "number <= threshold": "<="}


def leaderboard_default_gates(summary) -> list:
    """One gate per finding: ``by_metric.<metric>.<key> <op> <threshold>`` at the finding's level.

    A finding that passed gets the level its check has when it finds something (`CHECKS`), so
    that the gate would fail at that level on another table.
    """
    from ..gates.checks import GateRule
    from ..leaderboards import CHECKS

    rules = []
    for f in summary["findings"]:
        key = f["summary_key"]
        if key is None or f["metric"] is None:
            continue
        level = f["status"] if f["status"] != "pass" else CHECKS[f["check"]][0]
        op = _OPS.get(f["rule"], "<=")
        rules.append((f, GateRule(f"by_metric.{f['metric']}.{key}", op, float(f["threshold"]), level)))
    return rules


def leaderboard_summary_with_gates(
    audit, gates=(), *, default_gates: bool = True, benchmark: str | None = None, source: str | None = None
) -> tuple:
    """``(summary with "gates", "verdict", "verdict_reason", {group: [GateResult, ...]})``.

    Parameters
    ----------
    audit : LeaderboardAudit
    gates : iterable of str, dict or GateRule
        Rules on summary paths (``failed_runs == 0``, ``friedman_p <= 0.05``,
        ``by_metric.auroc.inverted_pairs <= 0``); evaluated with
        [`evaluate_gates`][auditad.gates.checks.evaluate_gates].
    default_gates : bool, default True
        Without ``gates``, one gate per finding at its level (`leaderboard_default_gates`), so that the
        verdict reads the findings; with ``default_gates=False`` and no gates the verdict is the findings'
        status all the same (never a pass that ignores them).
    """
    from ..gates.checks import evaluate_gates, rules_from_config, verdict
    from ..leaderboards.summary import leaderboard_summary

    summary = leaderboard_summary(audit, benchmark=benchmark, source=source)
    rules = rules_from_config(list(gates), source="gates")
    by_group: dict = {}
    dicts = []
    if rules:
        for res in evaluate_gates(summary, rules):
            by_group.setdefault("table", []).append(res)
            dicts.append({**res.to_dict(), "group": "table", "check": None})
        summary["default_gates"] = False
    elif default_gates:
        pairs = leaderboard_default_gates(summary)
        results = evaluate_gates(summary, [r for _, r in pairs])
        for (f, _), res in zip(pairs, results):
            by_group.setdefault(f["metric"], []).append(res)
            dicts.append({**res.to_dict(), "group": f["metric"], "check": f["check"]})
        summary["default_gates"] = True
    else:
        summary["default_gates"] = False
    every = [r for rs in by_group.values() for r in rs]
    summary["gates"] = dicts
    summary["verdict"] = verdict(every) if every else summary["status"]
    summary["verdict_reason"] = _verdict_reason(summary)
    return summary, by_group


def _verdict_reason(summary) -> str:
    """One sentence ([`verdict_text`][auditad.findings.verdict_text]): the failed gates (given), or the checks
    that failed and warned (no gate given)."""
    multi = len(summary["metrics"]) > 1

    def finding_text(f):
        names = name_list([it["name"] for it in f["items"]], limit=2)
        if f["n_items"] > len(f["items"]) and names:
            names = names.rsplit(" and ", 1)[0] + f" and {f['n_items'] - 2} more"
        label = f"{f['check']} [{f['metric']}]" if multi else f["check"]
        return f"{label} = {_number_text(f['number'])}" + (f" ({names})" if names else "")

    return verdict_text(
        summary["gates"], summary["findings"], default_gates=summary["default_gates"], finding_text=finding_text
    )


def _number_text(x) -> str:
    if x is None:
        return "–"
    if isinstance(x, float) and not math.isfinite(x):
        return "nan"
    return f"{x:g}" if float(x) == int(x) else f"{x:.3g}"


@dataclass(frozen=True, eq=False)
class LeaderboardRun:
    """What [`write_leaderboard_report`][auditad.results.leaderboard.write_leaderboard_report] wrote and decided.

    Attributes
    ----------
    out : Path or None
    summary : dict
    gate_results : dict
        ``{group: [GateResult, ...]}`` (the metric for default gates, ``"table"`` for given ones).
    exit_code : int
    verdict : str
    """

    out: Path | None
    summary: dict
    gate_results: dict
    exit_code: int
    verdict: str


def write_leaderboard_report(
    audit,
    out=None,
    *,
    gates=(),
    default_gates: bool = True,
    fail_on: str = "fail",
    json_path=None,
    junit=None,
    markdown=None,
    benchmark: str | None = None,
    source: str | None = None,
) -> LeaderboardRun:
    """Evaluate the gates on a leaderboard audit and write its report files (the folder atomically).

    Parameters
    ----------
    audit : LeaderboardAudit
    out : path, optional
        Folder to create (or replace, if it holds an earlier ``auditad results`` report): ``report.html``,
        ``summary.json``, ``tables/`` (findings, rankings, pairwise tests, cells: CSV, Markdown, LaTeX) and
        ``figures/`` (critical-difference diagrams and heatmaps, SVG).
    gates, default_gates
        See `leaderboard_summary_with_gates`.
    fail_on : {"fail", "warn"}
    json_path, junit, markdown : path, optional
        Also write the summary, the gates as JUnit XML, a Markdown page.
    benchmark, source : str, optional

    Returns
    -------
    LeaderboardRun
    """
    import json

    from ..gates.checks import exit_code
    from ..report.leaderboard_page import leaderboard_markdown, write_leaderboard_files
    from .pages import write_results_outputs

    fail_on = check_choice(fail_on, ("fail", "warn"), name="fail_on")
    summary, by_group = leaderboard_summary_with_gates(
        audit, gates, default_gates=default_gates, benchmark=benchmark, source=source
    )
    payload = json.dumps(summary, indent=2, allow_nan=False, ensure_ascii=False) + "\n"
    every = [r for rs in by_group.values() for r in rs]
    code = (
        exit_code(every, fail_on=fail_on)
        if every
        else (1 if summary["verdict"] == "fail" or (fail_on == "warn" and summary["verdict"] == "warn") else 0)
    )
    out_path = write_results_outputs(
        out,
        payload,
        lambda tmp: write_leaderboard_files(audit, summary, tmp),
        by_group,
        json_path=json_path,
        junit=junit,
        markdown=markdown,
        markdown_text=lambda: leaderboard_markdown(summary, by_group),
    )
    return LeaderboardRun(
        out=out_path, summary=summary, gate_results=by_group, exit_code=code, verdict=summary["verdict"]
    )
