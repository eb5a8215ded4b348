"""The outputs of a per-class AUROC audit: its summary with gates, the HTML page, the Markdown page, the files.

The summary is [`ResultsAudit.to_dict`][auditad.results.ResultsAudit.to_dict] with the findings
(`auditad.results.reading.per_class_findings`), the gates and the verdict; the page opens with the
verdict and its reason and the findings, then the rates per method and the per-class table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from .._validation import check_choice
from .reading import DEFAULT_RESULTS_GATES, GROUP_STATISTICS, verdict_reason

__all__ = ["summary_with_gates", "render_results_html", "results_markdown", "ResultsRun", "write_results_report"]


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


def _fmt_p(p) -> str:
    if p is None or (isinstance(p, float) and not math.isfinite(p)):
        return "\u2013"
    return "< 1e-300" if p == 0 else f"{p:.2g}"


def render_results_html(summary: Mapping) -> str:
    """Self-contained HTML page of a results audit (autoescaped jinja2 template ``results.html.j2``).

    See Also
    --------
    - `auditad.report.render.environment`: the autoescaped jinja2 environment used.
    """
    from .. import __version__
    from ..report.render import environment

    env = environment()
    num = env.filters["num"]
    groups = [
        {**g, "label": " / ".join(p for p in (g["benchmark"], g["representation"], g["method"]) if p)}
        for g in summary["groups"]
    ]
    per = []
    for r in summary["per_class"]:
        per.append(
            {
                **r,
                "auroc_s": num(r["auroc"]),
                "ci": (f"{num(r['ci_low'])}–{num(r['ci_high'])}" if r["ci_low"] is not None else "\u2013"),
                "p_s": _fmt_p(r["p_two_sided"]),
                "p_gt": _fmt_p(r["p_greater"]),
                "p_lt": _fmt_p(r["p_less"]),
                "p_h": _fmt_p(r["p_holm"]),
                "std_s": num(r["std"]) if r["std"] is not None else "\u2013",
            }
        )
    findings = [
        {
            **f,
            "number_text": num(f["number"]) if isinstance(f["number"], float) else str(f["number"]),
            "threshold_text": _threshold_text(f["threshold"], num),
        }
        for f in summary["findings"]
    ]
    return env.get_template("results.html.j2").render(
        summary=summary,
        groups=groups,
        per_class=per,
        version=__version__,
        verdict=summary["verdict"],
        verdict_text=summary["verdict_reason"],
        findings=findings,
        has_counts=any(r["n_pos"] is not None for r in summary["per_class"]),
        has_std=any(r["std"] is not None for r in summary["per_class"]),
        has_interval=any(r["ci_low"] is not None for r in summary["per_class"]),
    )


def _threshold_text(threshold, num) -> str:
    """``"≤ 0"`` for a count, ``"≤ 0.200"`` for a rate (a float), ``""`` without a threshold."""
    if threshold is None:
        return ""
    return f"≤ {num(threshold)}" if isinstance(threshold, float) else f"≤ {threshold}"


def results_markdown(summary: Mapping, by_group: Mapping | None = None) -> str:
    """Markdown page of a results audit for a CI job summary: one row per group, then the gates.

    See Also
    --------
    - [`auditad.report.export.markdown_summary`][auditad.report.export.markdown_summary]: the gate section.
    """
    from ..report.export import markdown_summary, md_escape as _md_escape

    def f(x, d=3):
        return "\u2013" if x is None else f"{x:.{d}f}"

    lines = [
        f"## auditad results: {_md_escape(summary['benchmark'])}",
        "",
        f"**{summary['verdict'].upper()}** — {_md_escape(summary['verdict_reason'])}",
        "",
    ]
    for fd in summary["findings"]:
        lines.append(
            f"- {fd['status']}: {_md_escape(fd['check'])}, {_md_escape(fd['group'])}: {fd['number']}"
            + (f" ({_md_escape(fd['named'])})" if fd["named"] else "")
            + f". {_md_escape(fd['meaning'])}"
        )
    lines += [
        "",
        f'ε = {summary["settings"]["epsilon"]:g}; rates from "Testing the Test" (near random: '
        "|AUROC − ½| ≤ ε; inverted: AUROC < ½).",
        "",
        "| group | K | mean | σ² | min | max | ρ_rnd | ρ_inv | ρ_dir | against the majority direction |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for g in summary["groups"]:
        label = " / ".join(p for p in (g["benchmark"], g["representation"], g["method"]) if p)
        lines.append(
            f"| {_md_escape(label)} | {g['n_classes']} | {f(g['mean_auc'])} | {f(g['sigma2_auc'], 4)} | "
            f"{f(g['min_auc'])} | {f(g['max_auc'])} | {f(g['rho_rnd'])} | {f(g['rho_inv'])} | "
            f"{f(g['rho_dir'])} | {_md_escape(', '.join(g['dissenting_classes'])) or '–'} |"
        )
    for note in summary["notes"]:
        lines += ["", f"Note: {_md_escape(note)}"]
    text = "\n".join(lines) + "\n"
    if by_group:
        text += "\n" + markdown_summary(by_group, title="gates")
    return text


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
    - [`results_markdown`][auditad.results.results_markdown]
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
