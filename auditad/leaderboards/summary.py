"""The ``summary.json`` of a leaderboard audit: every finding's number at a path named after its check.

[`leaderboard_summary`][auditad.leaderboards.summary.leaderboard_summary] turns a
[`LeaderboardAudit`][auditad.leaderboards.LeaderboardAudit] into the JSON-safe summary every gate reads
(schema ``auditad/schemas/leaderboard.schema.json``). Each finding's number sits at a summary path named
after its check (`CHECK_KEYS`), totalled over the metrics at the top level (``failed_runs``,
``single_run_rows``, ...) and per metric under ``by_metric.<metric>``, each with a sibling ``<key>_where``
naming the methods, datasets and seeds behind it, so that a gate message names them too.  The ranking of
the first score metric (AUROC when there is one) gives ``friedman_p``, ``iman_davenport_p``,
``critical_difference`` and the counts of the ranked datasets and methods. The gates on it and the files
written are `auditad.results.leaderboard`; its pages `auditad.report.leaderboard_page`.
"""

from __future__ import annotations

import math
from pathlib import Path

from .._format import name_list
from .._json import json_safe
from ..errors import InvalidInputError
from ..findings import verdict as verdict_of

__all__ = ["LEADERBOARD_SCHEMA_VERSION", "CHECK_KEYS", "RANKING_KEYS", "MAX_SUMMARY_ITEMS", "leaderboard_summary"]

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
    from .audit import LeaderboardAudit
    from .findings import CHECKS

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
