"""The pages of a per-class AUROC audit (`auditad results`): the HTML page and the Markdown page.

Presentation only: every number comes from the summary with its gates
([`summary_with_gates`][auditad.results.summary_with_gates]); the page opens with the verdict and its reason
and the findings, then the rates per method and the per-class table.
"""

from __future__ import annotations

import math
from typing import Mapping

__all__ = ["render_results_html", "results_markdown"]


def _fmt_p(p) -> str:
    if p is None or (isinstance(p, float) and not math.isfinite(p)):
        return "\u2013"
    return "< 1e-300" if p == 0 else f"{p:.2g}"


def render_results_html(summary: Mapping) -> str:
    """Self-contained HTML page of a results audit (autoescaped jinja2 template ``results.html.j2``).

    Parameters
    ----------
    summary : dict
        The summary with its gates ([`summary_with_gates`][auditad.results.summary_with_gates]).

    Returns
    -------
    str

    See Also
    --------
    - `auditad.report.render.environment`: the autoescaped jinja2 environment used.
    """
    from .. import __version__
    from .render import environment

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
    from .export import markdown_summary, md_escape as _md_escape

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
