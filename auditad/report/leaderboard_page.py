"""The pages of a leaderboard audit: the HTML report (findings first), its figures and tables, the Markdown page.

Presentation only: every number comes from the summary (`auditad.results.leaderboard.leaderboard_summary`)
or from the result objects of the audit (the rankings, the cell grid); the figures are drawn by
[`plot_critical_difference`][auditad.plotting.leaderboards.plot_critical_difference] and
[`plot_leaderboard_heatmap`][auditad.plotting.leaderboards.plot_leaderboard_heatmap] in auditad's figure
style and inlined as SVG (no script, no external resource).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Mapping

from .. import _format
from ..findings import sort_findings

__all__ = [
    "MAX_HTML_ITEMS",
    "MAX_CD_METHODS",
    "figure_name",
    "svg_bytes",
    "render_leaderboard_html",
    "leaderboard_markdown",
    "write_leaderboard_files",
]

#: Items of a finding listed in the HTML page (all of them are in ``tables/findings.csv``).
MAX_HTML_ITEMS = 40
#: Items of a finding named inline, next to its number.
INLINE_ITEMS = 4
#: Most rows of a table written as Markdown and LaTeX (the CSV has every row).
MAX_DOCUMENT_ROWS = 200
#: Most methods drawn in a critical-difference diagram (one labelled line each); beyond, the ranking table only.
MAX_CD_METHODS = 80
_OP_TEXT = {"<=": "≤", ">=": "≥", "<": "<", ">": ">", "==": "=", "!=": "≠"}
_RULE_OP = {"number <= 0": "≤", "p <= threshold": "≤", "number > threshold": ">", "number <= threshold": "≤"}


def figure_name(kind: str, metric: str) -> str:
    """File stem of a figure or table of one metric (``cd_auroc``): safe on every file system."""
    return f"{kind}_{re.sub(r'[^A-Za-z0-9_.-]+', '_', metric)}"


def svg_bytes(spec) -> bytes:
    """The SVG of a figure built in auditad's style, byte for byte the same for the same input (no date).

    SVG only: a vector file that browsers, Inkscape and LaTeX (``svg`` package) read; leaving out
    the PDF keeps a 1 000-row leaderboard within its 5 s budget.
    """
    import io

    from ..plotting.style import style_context

    with style_context():
        fig = spec.build()
        buf = io.BytesIO()
        fig.savefig(buf, format="svg", metadata={"Date": None})
    return buf.getvalue()


class _FigureSpec:
    """What `svg_bytes` builds: a callable returning a Figure."""

    def __init__(self, build):
        self.build = build


def _cd_figure(ranking):
    from ..plotting.leaderboards import critical_difference_size, plot_critical_difference
    from ..plotting.style import new_figure

    def build():
        w, h = critical_difference_size(ranking)
        fig, axes = new_figure(width=w, height=h)
        plot_critical_difference(ranking, ax=axes[0, 0])
        return fig

    return _FigureSpec(build)


def _heatmap_figure(grid):
    from ..plotting.leaderboards import plot_leaderboard_heatmap

    return _FigureSpec(lambda: plot_leaderboard_heatmap(grid).figure)


def _number_text(f: Mapping) -> str:
    n = f["number"]
    if f["check"] == "ranking_significance":
        return f"Iman–Davenport p = {_format.pvalue(n)}"
    if f["check"] == "ranking_size":
        return f"N = {_format.count(n)} datasets"
    return _format.count(n) if n is not None and float(n) == int(n) else _format.number(n)


def _threshold_text(f: Mapping) -> str:
    op = _RULE_OP.get(f["rule"], "≤")
    t = f["threshold"]
    return f"{op} {_format.number(t) if t is not None and float(t) != int(t) else _format.count(t)}"


def _finding_rows(summary: Mapping) -> tuple:
    multi = len(summary["metrics"]) > 1
    rows = []
    for f in summary["findings"]:
        names = [it["name"] for it in f["items"]]
        rows.append(
            {
                **f,
                "label": f["check"] + (f" [{f['metric']}]" if multi else ""),
                "number_text": _number_text(f),
                "threshold_text": _threshold_text(f),
                "sentence": (f["message"][:1].upper() + f["message"][1:]).rstrip(".") + ".",
                "named": "; ".join(names[:INLINE_ITEMS])
                + (f" and {f['n_items'] - INLINE_ITEMS} more" if f["n_items"] > INLINE_ITEMS else ""),
                "shown": f["items"][:MAX_HTML_ITEMS],
                "more": f["n_items"] - min(len(f["items"]), MAX_HTML_ITEMS),
            }
        )
    rows = sort_findings(rows)
    return [r for r in rows if r["status"] != "pass"], [r for r in rows if r["status"] == "pass"]


def render_leaderboard_html(summary: Mapping, figures: Mapping | None = None) -> str:
    """Self-contained HTML page of a leaderboard audit (autoescaped jinja2 template ``leaderboard.html.j2``).

    The page opens with the verdict and its reason, then the findings (status, number, threshold,
    the named methods, datasets and seeds, one sentence of meaning), then the critical-difference
    diagram and the heatmap, then the tables, the gates and the notes of the reader.

    Parameters
    ----------
    summary : dict
        With its gates (`auditad.results.leaderboard.leaderboard_summary_with_gates`).
    figures : dict, optional
        ``{"cd": [(metric, svg bytes), ...], "heatmap": [(metric, svg bytes), ...]}``.
    """
    from .. import __version__
    from .render import environment, inline_svg

    figures = figures or {}
    env = environment()
    bad, passed = _finding_rows(summary)
    rankings = []
    svgs = dict(figures.get("cd", ()))
    for k, r in enumerate(summary["rankings"]):
        ranks = sorted(r["average_ranks"].items(), key=lambda kv: kv[1])
        tied, near = set(r["tied_with_best"]), set(r["within_cd_of_best"])
        rankings.append(
            {
                **r,
                "rows": [
                    {"method": m, "rank": v, "score": r["mean_scores"].get(m), "tied": m in tied, "near": m in near}
                    for m, v in ranks
                ],
                "svg": inline_svg(svgs[r["metric"]], f"cd{k}", f"Critical-difference diagram of {r['metric']}")
                if r["metric"] in svgs
                else None,
                "csv": f"tables/{figure_name('ranking', r['metric'])}.csv",
                "pairwise_csv": f"tables/{figure_name('pairwise', r['metric'])}.csv",
                "file": f"figures/{figure_name('cd', r['metric'])}.svg",
            }
        )
    heatmaps = [
        {
            "metric": m,
            "svg": inline_svg(svg, f"hm{k}", f"Methods × datasets heatmap of {m}"),
            "file": f"figures/{figure_name('heatmap', m)}.svg",
            "csv": f"tables/{figure_name('grid', m)}.csv",
        }
        for k, (m, svg) in enumerate(figures.get("heatmap", ()))
    ]
    gates = [
        {**g, "value_text": _format.number(g["value"]), "level_rule": f"{g['level']}: {g['rule']}"}
        for g in summary["gates"]
    ]
    return env.get_template("leaderboard.html.j2").render(
        summary=summary,
        version=__version__,
        verdict=summary["verdict"],
        verdict_text=summary["verdict_reason"],
        bad=bad,
        passed=passed,
        skipped=summary["skipped"],
        rankings=rankings,
        heatmaps=heatmaps,
        gates=gates,
        seeds=", ".join(map(str, summary["seeds"])) or "none",
        metrics=", ".join(summary["metrics"]),
    )


def leaderboard_markdown(summary: Mapping, by_group: Mapping | None = None) -> str:
    """Markdown page of a leaderboard audit for a CI job summary: verdict, findings, ranking, gates."""
    from .export import markdown_summary, md_escape

    bad, passed = _finding_rows(summary)
    lines = [
        f"## auditad results: leaderboard {md_escape(summary['benchmark'])}",
        "",
        f"**{summary['verdict'].upper()}** — {md_escape(summary['verdict_reason'])}",
        "",
        "| status | check | number | threshold | named |",
        "| --- | --- | ---: | --- | --- |",
    ]
    for f in bad + passed:
        lines.append(
            f"| {f['status']} | {md_escape(f['label'])} | {md_escape(f['number_text'])} | "
            f"{md_escape(f['threshold_text'])} | {md_escape(f['named']) or '–'} |"
        )
    for r in summary["rankings"]:
        fr = r["friedman"]
        lines += [
            "",
            f"Ranking of {md_escape(r['metric'])}: k = {r['n_methods']}, N = {r['n_datasets']}; "
            f"Friedman p = {_format.pvalue(fr['p_value'])}, Iman–Davenport p = "
            f"{_format.pvalue(fr['iman_davenport_p_value'])}; Nemenyi CD = "
            f"{_format.real(r['critical_difference'])}; best {md_escape(r['best'])}, "
            f"{len(r['tied_with_best']) - 1} tied with it (Wilcoxon–Holm).",
        ]
    text = "\n".join(lines) + "\n"
    if by_group:
        text += "\n" + markdown_summary(by_group, title="gates")
    return text


def _write_long_table(frame, base: Path, caption: str, label: str) -> None:
    """``base.csv`` with every row; ``base.md`` and ``base.tex`` with the first `MAX_DOCUMENT_ROWS` (said so)."""
    from .._io import write_text_atomic
    from .tables import frame_to_csv, frame_to_latex, frame_to_markdown

    write_text_atomic(f"{base}.csv", frame_to_csv(frame))
    if frame.shape[0] > MAX_DOCUMENT_ROWS:
        caption += f" (the first {MAX_DOCUMENT_ROWS} of {frame.shape[0]} rows; all of them in {base.name}.csv)"
        frame = frame.head(MAX_DOCUMENT_ROWS)
    write_text_atomic(f"{base}.md", frame_to_markdown(frame))
    write_text_atomic(f"{base}.tex", frame_to_latex(frame, caption=caption, label=label))


def write_leaderboard_files(audit, summary: Mapping, folder: Path) -> None:
    """Write ``report.html``, ``tables/`` and ``figures/`` of a leaderboard audit into ``folder``.

    ``summary.json`` is written by `auditad.results.pages.write_results_outputs` (it writes every results
    folder).
    """
    from .._io import write_text_atomic, write_bytes_atomic
    from .tables import frame_to_csv

    folder = Path(folder)
    (folder / "tables").mkdir(parents=True, exist_ok=True)
    (folder / "figures").mkdir(parents=True, exist_ok=True)
    _write_long_table(
        audit.to_frame(),
        folder / "tables" / "findings",
        "Findings of the leaderboard audit, one row per named item",
        "tab:leaderboard-findings",
    )
    cells = audit.cells.drop(columns=["seed_key"], errors="ignore")
    write_text_atomic(folder / "tables" / "cells.csv", frame_to_csv(cells))
    figures: dict = {"cd": [], "heatmap": []}
    for r in audit.rankings:
        _write_long_table(
            r.to_frame(),
            folder / "tables" / figure_name("ranking", r.metric),
            f"Average ranks of {r.metric} (Friedman, Nemenyi, Wilcoxon–Holm)",
            f"tab:{figure_name('ranking', r.metric)}",
        )
        write_text_atomic(folder / "tables" / f"{figure_name('pairwise', r.metric)}.csv", frame_to_csv(r.pairwise))
        if r.n_methods > MAX_CD_METHODS:
            continue
        svg = svg_bytes(_cd_figure(r))
        write_bytes_atomic(folder / "figures" / f"{figure_name('cd', r.metric)}.svg", svg)
        figures["cd"].append((r.metric, svg))
    ranked = [r.metric for r in audit.rankings]
    for metric in summary["metrics"]:
        grid = audit.grid(metric)
        write_text_atomic(folder / "tables" / f"{figure_name('grid', metric)}.csv", frame_to_csv(grid.to_frame()))
        if metric not in ranked and len(grid.datasets) < 2:
            continue
        try:
            svg = svg_bytes(_heatmap_figure(grid))
        except ValueError:  # nothing to draw (no value at all)
            continue
        write_bytes_atomic(folder / "figures" / f"{figure_name('heatmap', metric)}.svg", svg)
        figures["heatmap"].append((metric, svg))
    write_text_atomic(folder / "report.html", render_leaderboard_html(summary, figures))
