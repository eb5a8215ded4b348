"""The outputs of a time-series evaluation audit: ``summary.json`` with findings, gates and verdict, the HTML page
(``templates/timeseries.html.j2``), the figure and the tables, written into a folder atomically.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from .._validation import check_choice

__all__ = ["TimeSeriesRun", "timeseries_summary", "render_timeseries_html", "write_timeseries_report"]

_MARKER = ".auditad-timeseries"
_VERDICT_OF = {"pass": "pass", "info": "pass", "warn": "warn", "fail": "fail"}

#: Captions of the tables and figures by file stem, recorded in ``summary.json`` (``captions``) as ``auditad audit``
#: records its own, so that ``auditad appendix`` can caption them.
CAPTIONS = {
    "series": "Label structure of every series, with the flag-all F1 and the mean and 95 % quantile of what "
    "uniformly random scores reach at their best threshold under each metric",
    "random_nulls": "Random-score nulls per series and metric: kind (best threshold, fixed threshold, threshold free), "
    "Monte Carlo draws, seed, mean, Monte Carlo error of the mean, 95 % and 99 % quantiles, closed form where one "
    "exists",
    "detectors": "Metrics of the given scores with the random null's mean and p-value and the flag-all baseline",
    "results": "Published values set against the flag-all baseline and the random null of their dataset",
    "nulls_figure": "Random nulls and trivial baselines per series and metric",
}


def _outputs(audit) -> tuple[list, list]:
    """The stems of the tables and figures the report folder holds."""
    tables = (
        ["series", "random_nulls"] + (["detectors"] if audit.detectors else []) + (["results"] if audit.results else [])
    )
    return tables, ["nulls"]


def timeseries_summary(audit, rules=()) -> tuple[dict, list]:
    """``(summary dict with "gates", "verdict" and "verdict_reason", [GateResult, ...])``.

    The verdict is the worst of the findings (``info`` counts as ``pass``) and of the gates; a gate's metric is a
    dotted path into the summary (``"series.MSL.nulls.best_threshold.pa_f1.mean <= 0.5"``).

    See Also
    --------
    - [`write_timeseries_report`][auditad.report.timeseries.write_timeseries_report]
    - [`auditad.gates.checks.evaluate_gates`][auditad.gates.checks.evaluate_gates]
    """
    from ..findings import Status
    from ..gates.checks import evaluate_gates, rules_from_config

    summary = audit.to_dict()
    tables, figures = _outputs(audit)
    summary["tables"], summary["figures"] = tables, figures
    summary["captions"] = {t: CAPTIONS[t] for t in tables} | {f: CAPTIONS[f"{f}_figure"] for f in figures}
    rules = rules_from_config(list(rules), source="gates")
    results = evaluate_gates(summary, rules) if rules else []
    summary["gates"] = [r.to_dict() for r in results]
    worst = Status.worst([_VERDICT_OF[f.status.value] for f in audit.findings] + [r.status.value for r in results])
    summary["verdict"] = worst.value
    bad = [f for f in audit.findings if _VERDICT_OF[f.status.value] == worst.value and worst.value != "pass"]
    failed = [r for r in results if r.status.value == worst.value and worst.value != "pass"]
    reason = " ".join([f.sentence for f in bad] + [f"Gate: {r.message}." for r in failed])
    summary["verdict_reason"] = reason or "no finding and no failed gate"
    return summary, results


def _figure(audit):
    """(svg bytes, pdf bytes) of the nulls figure."""
    from ..plotting.timeseries import timeseries_nulls_figure
    from .render import figure_files

    class _Spec:
        def build(self):
            return timeseries_nulls_figure(audit)

    return figure_files(_Spec())


def render_timeseries_html(summary: Mapping, svg: bytes | None = None) -> str:
    """The self-contained HTML page of a time-series audit (autoescaped jinja2 template ``timeseries.html.j2``).

    See Also
    --------
    - [`write_timeseries_report`][auditad.report.timeseries.write_timeseries_report]
    """
    from .. import __version__
    from ..timeseries.findings import METRIC_LABELS
    from .render import environment, inline_svg

    env = environment()
    figure = inline_svg(svg, "nulls", "Random nulls and baselines per series") if svg else None
    return env.get_template("timeseries.html.j2").render(
        summary=summary,
        version=__version__,
        verdict=summary["verdict"],
        verdict_text=summary["verdict_reason"],
        findings=summary["findings"],
        figure=figure,
        labels=METRIC_LABELS,
    )


@dataclass(frozen=True, eq=False)
class TimeSeriesRun:
    """What [`write_timeseries_report`][auditad.report.timeseries.write_timeseries_report] wrote and decided.

    Attributes
    ----------
    out : Path or None
    summary : dict
    gate_results : list of GateResult
    exit_code : int
        1 when the verdict is at or above ``fail_on``, else 0.
    verdict : str

    See Also
    --------
    - [`auditad.timeseries.audit_timeseries`][auditad.timeseries.audit_timeseries]
    """

    out: Path | None
    summary: dict
    gate_results: list
    exit_code: int
    verdict: str


def _fill(tmp: Path, audit, summary: dict, payload: str) -> None:
    import pandas as pd

    from .._io import write_bytes_atomic, write_text_atomic
    from .tables import write_table

    svg, pdf = _figure(audit)
    (tmp / "figures").mkdir()
    (tmp / "tables").mkdir()
    write_bytes_atomic(tmp / "figures" / "nulls.svg", svg)
    write_bytes_atomic(tmp / "figures" / "nulls.pdf", pdf)
    write_text_atomic(tmp / "summary.json", payload)
    frames = {"series": audit.to_frame(), "random_nulls": audit.nulls_frame()}
    if audit.detectors:
        frames["detectors"] = pd.DataFrame(audit.detectors)
    if audit.results:
        frames["results"] = pd.DataFrame(audit.results)
    for stem, frame in frames.items():
        write_table(frame, tmp / "tables" / stem, caption=CAPTIONS[stem], label=f"tab:timeseries-{stem}")
    write_text_atomic(tmp / "report.html", render_timeseries_html(summary, svg))


def write_timeseries_report(
    audit, out=None, *, gates=(), fail_on: str = "fail", json_path=None, junit=None, markdown=None
) -> TimeSeriesRun:
    """Evaluate the gates on a `TimeSeriesAudit` and write its report folder (atomically) and CI files.

    Parameters
    ----------
    audit : TimeSeriesAudit
    out : path, optional
        Folder to create (or replace, if it holds an earlier time-series report) with ``report.html``,
        ``summary.json``, ``figures/nulls.{svg,pdf}`` and ``tables/`` (``series``, ``random_nulls``, ``detectors``,
        ``results``; each ``.csv``, ``.md`` and ``.tex``), their captions in ``summary.json`` (``captions``).
    gates : iterable of str
        Gate rules on the summary's paths.
    fail_on : {"fail", "warn"}
    json_path, junit, markdown : path, optional
        Also write the summary JSON, the gates as JUnit XML, a Markdown list of the findings.

    Returns
    -------
    TimeSeriesRun

    See Also
    --------
    - [`timeseries_summary`][auditad.report.timeseries.timeseries_summary]
    """
    from .._io import write_text_atomic
    from .folder import write_report_folder

    fail_on = check_choice(fail_on, ("fail", "warn"), name="fail_on")
    summary, results = timeseries_summary(audit, gates)
    payload = json.dumps(summary, indent=2, allow_nan=False, ensure_ascii=False) + "\n"
    out_path = None
    if out is not None:
        out_path = write_report_folder(
            out,
            lambda tmp: _fill(tmp, audit, summary, payload),
            marker=_MARKER,
            command="timeseries",
            kind="time-series report",
        )
    if json_path is not None:
        write_text_atomic(json_path, payload)
    if junit is not None:
        from .export import write_junit

        write_junit({"timeseries": results}, junit, name="auditad timeseries gates")
    if markdown is not None:
        write_text_atomic(markdown, _markdown(summary))
    v = summary["verdict"]
    code = 1 if v == "fail" or (fail_on == "warn" and v == "warn") else 0
    return TimeSeriesRun(out=out_path, summary=summary, gate_results=results, exit_code=code, verdict=v)


def _markdown(summary: Mapping) -> str:
    from .export import md_escape

    lines = [f"## auditad timeseries: {summary['verdict'].upper()}", "", md_escape(summary["verdict_reason"]), ""]
    for f in summary["findings"]:
        lines.append(f"- {f['status']}: **{md_escape(f['title'])}**: {md_escape(f['sentence'])}")
    return "\n".join(lines) + "\n"
