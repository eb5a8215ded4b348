"""The outputs of a per-class AUROC audit: its summary with gates and the files written.

The summary is [`ResultsAudit.to_dict`][auditad.results.ResultsAudit.to_dict] with the findings
(`auditad.results.reading.per_class_findings`), the gates and the verdict; its HTML and Markdown pages are
rendered by `auditad.report.results_page`
([`render_results_html`][auditad.report.results_page.render_results_html],
[`results_markdown`][auditad.report.results_page.results_markdown]).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .._validation import check_choice
from ..report.results_page import render_results_html, results_markdown
from .reading import DEFAULT_RESULTS_GATES, GROUP_STATISTICS, verdict_reason

__all__ = ["summary_with_gates", "ResultsRun", "write_results_report"]


def summary_with_gates(audit, rules, *, default_gates: bool = True) -> tuple[dict, dict]:
    """``(summary dict with "gates", "verdict" and "verdict_reason", {group label: [GateResult, ...]})``.

    A rule whose metric is a bare statistic name of `GROUP_STATISTICS`
    (``"rho_dir <= 0.2"``) is evaluated on every group; any other metric is a
    dotted path into the summary (``"groups.0.rho_dir <= 0.2"``). Without rules
    (and with ``default_gates=True``), the warn-level
    `auditad.results.reading.DEFAULT_RESULTS_GATES` are evaluated on every
    group, so that the verdict reads the findings (a significantly inverted class warns); with
    ``default_gates=False`` and no rules, the verdict is the findings' status.

    See Also
    --------
    - [`auditad.gates.checks.evaluate_gates`][auditad.gates.checks.evaluate_gates]: the evaluation of one rule on one
      summary.
    - [`write_results_report`][auditad.results.write_results_report]: writes the summary, the report and the CI files.
    """
    from ..gates.checks import evaluate_gates, rules_from_config, verdict

    summary = audit.to_dict()
    rules = rules_from_config(list(rules), source="gates")
    summary["default_gates"] = not rules and bool(default_gates)
    if summary["default_gates"]:
        rules = rules_from_config(list(DEFAULT_RESULTS_GATES), source="default gates")
    by_group: dict = {}
    every = []
    for rule in rules:
        if rule.path in GROUP_STATISTICS:
            for g, gd in zip(audit.groups, summary["groups"]):
                res = evaluate_gates(gd, [rule])[0]
                by_group.setdefault(g.label, []).append(res)
                every.append((g.label, res))
        else:
            res = evaluate_gates(summary, [rule])[0]
            by_group.setdefault("table", []).append(res)
            every.append(("table", res))
    gates = []
    for label, res in every:
        d = res.to_dict()
        d["group"] = label
        gates.append(d)
    summary["gates"] = gates
    summary["verdict"] = verdict([r for _, r in every]) if every else summary["status"]
    summary["verdict_reason"] = verdict_reason(summary)
    return summary, by_group


@dataclass(frozen=True, eq=False)
class ResultsRun:
    """What [`write_results_report`][auditad.results.write_results_report] wrote and decided.

    Attributes
    ----------
    out : Path or None
        The report folder (``report.html``, ``summary.json``, ``tables/``).
    summary : dict
        The summary with its ``gates`` and ``verdict``.
    gate_results : dict
        ``{group label: [GateResult, ...]}``.
    exit_code : int
        1 when a gate at or above ``fail_on`` failed, else 0.
    verdict : str

    See Also
    --------
    - [`audit_results`][auditad.results.audit_results]: the audit of a per-class AUROC table.
    - [`write_results_report`][auditad.results.write_results_report]: its report, summary and gates.
    - [`auditad.diff.diff_audits`][auditad.diff.diff_audits]: compare two summaries.
    """

    out: Path | None
    summary: dict
    gate_results: dict
    exit_code: int
    verdict: str


_MARKER = ".auditad-results"


def write_results_outputs(
    out, payload: str, fill, by_group, *, json_path=None, junit=None, markdown=None, markdown_text=None
):
    """Write a results report folder atomically, then the ``--json``, ``--junit`` and ``--markdown`` files.

    ``fill(tmp)`` writes the folder's files into the temporary folder (``summary.json`` is ``payload``); the
    folder is renamed into place only when everything succeeded, and a non-empty folder that is not an earlier
    results report is refused. ``markdown_text()`` gives the Markdown summary (called only with ``markdown``).
    Returns the report folder's path (None without ``out``). Shared by the per-class and the leaderboard audits.

    See Also
    --------
    - [`write_results_report`][auditad.results.write_results_report]: the per-class report.
    """
    from .._io import write_text_atomic
    from ..report.folder import write_report_folder

    def fill_with_summary(tmp: Path) -> None:
        write_text_atomic(tmp / "summary.json", payload)
        fill(tmp)

    out_path = None
    if out is not None:
        out_path = write_report_folder(out, fill_with_summary, marker=_MARKER, command="results", kind="results report")
    if json_path is not None:
        write_text_atomic(json_path, payload)
    if junit is not None:
        from ..report.export import write_junit

        write_junit(by_group, junit, name="auditad results gates")
    if markdown is not None:
        write_text_atomic(markdown, markdown_text())
    return out_path


def write_results_report(
    audit,
    out=None,
    *,
    gates=(),
    fail_on: str = "fail",
    json_path=None,
    junit=None,
    markdown=None,
    default_gates: bool = True,
) -> ResultsRun:
    """Evaluate gates on a `ResultsAudit` and write its report files (each atomically).

    Parameters
    ----------
    audit : ResultsAudit
    out : path, optional
        Folder to create (or replace, if it holds an earlier results report) with
        ``report.html``, ``summary.json`` (schema ``auditad/schemas/results.schema.json``)
        and ``tables/groups`` and ``tables/per_class`` (``.csv``, ``.md``, ``.tex``).
    gates : iterable of str, dict or GateRule
        See [`summary_with_gates`][auditad.results.summary_with_gates].
    default_gates : bool, default True
        Without ``gates``, evaluate the warn-level default gates (the findings) on every method.
    fail_on : {"fail", "warn"}
    json_path, junit, markdown : path, optional
        Also write the summary JSON, the gates as JUnit XML, a Markdown page.

    Returns
    -------
    ResultsRun

    See Also
    --------
    - [`audit_results`][auditad.results.audit_results]
    - [`summary_with_gates`][auditad.results.summary_with_gates]
    - [`results_markdown`][auditad.report.results_page.results_markdown]
    """
    import json

    from .._io import write_text_atomic
    from ..gates.checks import exit_code
    from ..report.tables import write_table

    fail_on = check_choice(fail_on, ("fail", "warn"), name="fail_on")
    summary, by_group = summary_with_gates(audit, gates, default_gates=default_gates)
    payload = json.dumps(summary, indent=2, allow_nan=False, ensure_ascii=False) + "\n"
    every = [r for rs in by_group.values() for r in rs]

    def fill(tmp):
        (tmp / "tables").mkdir()
        write_text_atomic(tmp / "report.html", render_results_html(summary))
        write_table(
            audit.to_frame(),
            tmp / "tables" / "groups",
            caption="Dispersion and instability per method",
            label="tab:results-groups",
        )
        write_table(
            audit.per_class,
            tmp / "tables" / "per_class",
            caption="Per class: AUROC, interval, p-values and reading",
            label="tab:results-per-class",
        )

    out_path = write_results_outputs(
        out,
        payload,
        fill,
        by_group,
        json_path=json_path,
        junit=junit,
        markdown=markdown,
        markdown_text=lambda: results_markdown(summary, by_group),
    )
    return ResultsRun(
        out=out_path,
        summary=summary,
        gate_results=by_group,
        exit_code=exit_code(every, fail_on=fail_on),
        verdict=summary["verdict"],
    )
