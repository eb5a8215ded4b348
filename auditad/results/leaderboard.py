"""A leaderboard audit as an ``auditad results`` report: its summary, its gates and the files written.

[`audit_leaderboard`][auditad.leaderboards.audit_leaderboard] computes the findings and the rankings;
this module turns a [`LeaderboardAudit`][auditad.leaderboards.LeaderboardAudit] into the
``summary.json`` every gate reads (schema ``auditad/schemas/leaderboard.schema.json``), evaluates the
gates (by default one per finding, at the finding's level) and writes the report folder:
``report.html`` (findings first, then the critical-difference diagram and the methods × datasets
heatmap, then the tables), ``summary.json``, ``tables/*.csv|.md|.tex`` and ``figures/*.svg``.

Each finding's number sits at a summary path named after its check (`CHECK_KEYS`), totalled
over the metrics at the top level (``failed_runs``, ``single_run_rows``, ...) and per metric under
``by_metric.<metric>``, each with a sibling ``<key>_where`` naming the methods, datasets and seeds
behind it, so that a gate message names them too.  The ranking of the first score metric (AUROC when
there is one) gives ``friedman_p``, ``iman_davenport_p``, ``critical_difference`` and the counts of
the ranked datasets and methods.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from .._format import name_list
from .._json import json_safe
from .._validation import check_choice
from ..errors import InvalidInputError
from ..findings import verdict as verdict_of
from ..findings import verdict_text

__all__ = [
    "LEADERBOARD_SCHEMA_VERSION",
    "CHECK_KEYS",
    "RANKING_KEYS",
    "MAX_SUMMARY_ITEMS",
    "leaderboard_summary",
    "leaderboard_default_gates",
    "leaderboard_summary_with_gates",
    "LeaderboardRun",
    "write_leaderboard_report",
]

LEADERBOARD_SCHEMA_VERSION = "1.0"
#: check id -> the summary key of its number (a count, except ``ranking_significance`` (a p-value) and
#: ``ranking_size`` (N)); a gate names the key: ``failed_runs == 0``, ``by_metric.auroc.inverted_pairs <= 0``.
CHECK_KEYS = {
    "failed_runs": "failed_runs",
    "missing_runs": "missing_runs",
    "single_run": "single_run_rows",
    "no_spread": "no_spread_values",
    "inverted": "inverted_pairs",
    "below_half_untested": "untested_below_half_pairs",
    "label_direction": "reversed_datasets",
    "near_chance": "near_chance_pairs",
    "seed_variance": "seed_variance_pairs",
    "rank_flips": "rank_flips",
    "below_chance_level": "below_chance_pairs",
    "ranking_significance": "iman_davenport_p",
    "ranking_size": "n_ranked_datasets",
    "tied_with_best": "n_tied_with_best",
    "ranking_coverage": "ranking_left_out",
}
#: Keys of a ranking in the summary (top level: the first ranked metric; ``by_metric.<metric>``: each).
RANKING_KEYS = (
    "friedman_statistic",
    "friedman_p",
    "iman_davenport_p",
    "critical_difference",
    "n_ranked_datasets",
    "n_ranked_methods",
    "n_tied_with_best",
    "n_within_cd_of_best",
)
#: Items of one finding kept in ``summary.json`` (all of them are in ``tables/findings.csv``).
MAX_SUMMARY_ITEMS = 100
_OPS = {"number <= 0": "<=", "p <= threshold": "<=", "number > threshold": ">", "number <= threshold": "<="}
_RANKING_CHECKS = ("ranking_significance", "ranking_size", "tied_with_best", "ranking_coverage")
#: The numbers with a sibling ``<key>_where`` naming who is behind them.
_WHERE_KEYS = tuple(k for c, k in CHECK_KEYS.items() if c not in _RANKING_CHECKS[:3]) + (
    "friedman_p",
    "iman_davenport_p",
    "n_tied_with_best",
)


def _names(labels, limit: int = 4) -> str:
    return name_list(labels, limit=limit)


def _count(x):
    """An item count as an int (a finding's number is a float); other numbers unchanged."""
    return int(x) if isinstance(x, float) and math.isfinite(x) and x == int(x) else x


def _item_dict(it) -> dict:
    d = it.to_dict()
    label = it.label() if (it.method, it.dataset, it.seed) != (None, None, None) else (it.detail or it.label())
    return {"name": label, **d}


def _ranking_numbers(r) -> dict:
    f = r.friedman
    return {
        "friedman_statistic": f.statistic,
        "friedman_p": f.p_value,
        "iman_davenport_p": f.iman_davenport_p_value,
        "critical_difference": r.critical_difference,
        "n_ranked_datasets": r.n_datasets,
        "n_ranked_methods": r.n_methods,
        "n_tied_with_best": len(r.tied_with_best) - 1,
        "n_within_cd_of_best": len(r.within_cd_of_best()) - 1,
        "best_method": r.best,
        "friedman_p_where": f"{r.metric}: k = {r.n_methods} methods over N = {r.n_datasets} datasets",
        "iman_davenport_p_where": f"{r.metric}: k = {r.n_methods} methods over N = {r.n_datasets} datasets",
        "n_tied_with_best_where": _names(r.tied_with_best[1:])
        + (f" (tied with {r.best})" if len(r.tied_with_best) > 1 else ""),
    }


def _ranking_dict(r) -> dict:
    d = r.to_dict()
    frame = r.to_frame()
    for key in ("methods", "pairwise", "datasets"):
        d.pop(key, None)
    d["average_ranks"] = dict(zip(frame["method"], frame["average_rank"]))
    d["mean_scores"] = dict(zip(frame["method"], frame["mean_score"]))
    d["datasets"] = [str(x) for x in r.datasets]
    return d


def leaderboard_summary(audit, *, benchmark: str | None = None, source: str | None = None) -> dict:
    """The ``summary.json`` of a leaderboard audit, without gates (JSON-safe, full precision).

    Parameters
    ----------
    audit : LeaderboardAudit
    benchmark : str, optional
        Name of the leaderboard (default: the file's stem); `auditad diff` pairs audits by it.
    source : str, optional
        The file as recorded (default: the board's source).

    Returns
    -------
    dict
    """
    from .. import __version__
    from ..leaderboards import CHECKS, LeaderboardAudit

    if not isinstance(audit, LeaderboardAudit):
        raise InvalidInputError(f"audit must be a LeaderboardAudit, got {type(audit).__name__}")
    b = audit.board
    metrics = list(dict.fromkeys(audit.cells["metric"].tolist())) or list(b.metrics)
    if benchmark is None:
        benchmark = " + ".join(Path(s).stem for s in str(b.source).split(" + ")) if b.source else "leaderboard"
    order = {c: i for i, c in enumerate(CHECKS)}
    metric_order = {m: i for i, m in enumerate(metrics)}
    findings = sorted(audit.findings, key=lambda f: (metric_order.get(f.metric, 99), order.get(f.check, 99)))
    by_metric: dict = {m: {} for m in metrics}
    totals: dict = {}
    for f in findings:
        key = CHECK_KEYS.get(f.check)
        if key is None or f.metric not in by_metric:
            continue
        where = _names([it.label() for it in f.items])
        number = _count(f.number) if f.check not in ("ranking_significance",) else f.number
        if f.check not in _RANKING_CHECKS:
            by_metric[f.metric][key] = number
            by_metric[f.metric][f"{key}_where"] = where
            t = totals.setdefault(key, [0, []])
            t[0] += number
            t[1].extend(it.label() + (f" [{f.metric}]" if len(metrics) > 1 else "") for it in f.items)
        elif f.check == "ranking_coverage":
            by_metric[f.metric][key] = number
            by_metric[f.metric][f"{key}_where"] = where
    for r in audit.rankings:
        by_metric.setdefault(r.metric, {}).update(_ranking_numbers(r))
    for m, d in by_metric.items():
        for key in tuple(CHECK_KEYS.values()) + RANKING_KEYS + ("best_method",):
            d.setdefault(key, None)
        for key in _WHERE_KEYS:
            d.setdefault(f"{key}_where", "")
        d["status"] = verdict_of(f for f in findings if f.metric == m).value
    out = {
        "schema_version": LEADERBOARD_SCHEMA_VERSION,
        "kind": "leaderboard",
        "benchmark": benchmark,
        "source": source if source is not None else b.source,
        "format": b.format,
        "status": audit.status,
        "metrics": metrics,
        "primary_metric": audit.rankings[0].metric if audit.rankings else metrics[0],
        "n_datasets": len(b.datasets),
        "n_methods": len(b.methods),
        "n_cells": int(b.table.shape[0]),
        "seeds": [s if isinstance(s, (int, float)) else str(s) for s in b.seeds],
        "scales": {m: s for m, s in b.scales},
        "settings": dict(audit.settings),
        "n_fail_findings": sum(f.status == "fail" for f in findings),
        "n_warn_findings": sum(f.status == "warn" for f in findings),
    }
    for check, key in CHECK_KEYS.items():
        if check in _RANKING_CHECKS:
            continue
        t = totals.get(key)
        out[key] = None if t is None else t[0]
        out[f"{key}_where"] = "" if t is None else _names(t[1])
    first = audit.rankings[0] if audit.rankings else None
    numbers = _ranking_numbers(first) if first is not None else {}
    for key in RANKING_KEYS:
        out[key] = numbers.get(key)
    out["best_method"] = numbers.get("best_method")
    out["friedman_p_where"] = numbers.get("friedman_p_where", "")
    out["iman_davenport_p_where"] = numbers.get("iman_davenport_p_where", "")
    out["n_tied_with_best_where"] = numbers.get("n_tied_with_best_where", "")
    out["ranking_left_out"] = by_metric[first.metric]["ranking_left_out"] if first is not None else None
    out["ranking_left_out_where"] = by_metric[first.metric]["ranking_left_out_where"] if first is not None else ""
    out["by_metric"] = by_metric
    out["findings"] = [
        {
            "name": f"{f.check} [{f.metric}]",
            "check": f.check,
            "metric": f.metric,
            "status": f.status,
            "number": f.number if f.check == "ranking_significance" else _count(f.number),
            "threshold": f.threshold,
            "rule": f.rule,
            "summary_key": CHECK_KEYS.get(f.check),
            "message": f.message,
            "meaning": CHECKS.get(f.check, ("", ""))[1],
            "n_items": len(f.items),
            "items": [_item_dict(it) for it in f.items[:MAX_SUMMARY_ITEMS]],
        }
        for f in findings
    ]
    out["rankings"] = [_ranking_dict(r) for r in audit.rankings]
    out["skipped"] = [{"check": c, "metric": m, "reason": r} for c, m, r in audit.skipped]
    out["notes"] = list(b.notes)
    out["environment"] = {"auditad": __version__}
    return json_safe(out, other=str)


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
        names = _names([it["name"] for it in f["items"]], 2)
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
