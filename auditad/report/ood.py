"""The report of an OOD audit: ``report.html``, ``summary.json``, figures and tables, written atomically.

Presentation only: the numbers and the findings come from an [`OODAuditResult`][auditad.ood.OODAuditResult];
the gates are evaluated once on its summary; the page (template ``ood.html.j2``) reads both.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

__all__ = ["OODRun", "ood_summary", "ood_tables", "render_ood_html", "write_ood_report", "MAX_LISTED_ROWS", "CAPTIONS"]

#: Rows listed per OOD set in the page's tables of copies and of the most ID-like rows (the CSV holds all).
MAX_LISTED_ROWS = 20


@dataclass(frozen=True)
class OODRun:
    """What `write_ood_report` wrote and decided.

    Attributes
    ----------
    out : Path
        The report folder.
    summary : dict
        ``summary.json``.
    verdict : str
        Worst status of the findings and the gates.
    exit_code : int
        1 when the verdict reaches ``fail_on``, else 0.
    """

    out: Path
    summary: dict
    verdict: str
    exit_code: int


def ood_summary(result, rules=(), *, fail_on: str = "fail") -> tuple[dict, int]:
    """``summary.json`` of an OOD audit with its gates evaluated, and the exit code.

    The verdict is the worst status of the findings and the gates; the exit code is 1 when it is
    ``fail``, or ``warn`` with ``fail_on="warn"``.

    See Also
    --------
    - [`auditad.gates.checks.evaluate_gates`][auditad.gates.checks.evaluate_gates]
    """
    from ..findings import Status
    from ..gates.checks import evaluate_gates

    summary = result.to_dict()
    summary["captions"] = dict(CAPTIONS)
    gates = evaluate_gates(summary, list(rules)) if rules else []
    summary["gates"] = [g.to_dict() for g in gates]
    worst = Status.worst([result.verdict, *(g.status.value for g in gates)])
    summary["verdict"] = worst.value
    summary["fail_on"] = fail_on
    code = 1 if worst == Status.FAIL or (fail_on == "warn" and worst == Status.WARN) else 0
    summary["exit_code"] = code
    return summary, code


def _figures(result) -> dict:
    from ..plotting.ood import ood_figure, plot_ood_difficulty
    from ..plotting.style import style_context
    from .render import figure_files
    from .sections import FigureSpec

    def difficulty():
        with style_context():
            return plot_ood_difficulty(result).figure

    specs = (
        FigureSpec("ood_placement", CAPTIONS["ood_placement"], lambda: ood_figure(result), "ood"),
        FigureSpec("ood_difficulty", CAPTIONS["ood_difficulty"], difficulty, "ood"),
    )
    return {f.name: (f.caption, figure_files(f)) for f in specs}


#: Captions of the tables and figures for papers (``summary.json`` ``captions``; ``auditad appendix`` typesets
#: these tables and figures, and names the other tables of the folder).
CAPTIONS = {
    "ood_overview": "Copies of ID rows, estimated ID share and near/far placement per OOD set",
    "ood_detectors": "Detectors fitted on the ID rows: held-out ID rows against each OOD set",
    "ood_nearest_classes": "Nearest ID classes of each OOD set's rows (the five most frequent)",
    "ood_id_like": "The most ID-like rows of each OOD set",
    "ood_copies": "OOD rows that copy an ID row, with the ID row and its class",
    "ood_placement": "Near/far placement (lambda) and estimated ID share per OOD set, with their intervals",
    "ood_difficulty": "Detector AUROC against the placement statistic per OOD set",
}


def _with_interval(value, low, high) -> str:
    """``0.912 [0.901, 0.922]`` (three decimals; the numbers at full precision are in ``ood_sets.csv``)."""
    from .._format import stat

    return f"{stat(value, target='text')} [{stat(low, target='text')}, {stat(high, target='text')}]"


def _copy_table(rows):
    """One line per copied OOD row: the kind of copy, the ID row and its class, the distance."""
    import numpy as np
    import pandas as pd

    exact = rows["exact_copy"].to_numpy(dtype=bool)
    return pd.DataFrame(
        {
            "row": rows["row"],
            "copy": np.where(exact, "exact", "near"),
            "id_row": np.where(exact, rows["exact_id_row"], rows["near_id_row"]),
            "id_class": np.where(exact, rows["exact_id_class"], rows["nearest_id_class"]),
            "distance": np.where(exact, 0.0, rows["nearest_id_distance"]),
        }
    )


def ood_tables(result) -> dict:
    """``{file stem: frame}`` of the tables written for papers (captions in `CAPTIONS`).

    ``ood_overview`` (one row per set), ``ood_detectors`` (per set and detector), ``ood_nearest_classes``,
    ``ood_id_like`` (the most ID-like rows per set) and ``ood_copies`` (every row with an ID copy); all read
    from the result, nothing is computed. Estimates with their interval are one text cell,
    ``0.912 [0.901, 0.922]`` (``ood_sets.csv`` holds every number at full precision).

    See Also
    --------
    - [`write_ood_report`][auditad.report.ood.write_ood_report]
    """
    import pandas as pd

    place, dets, classes, like, copies = [], [], [], [], []
    for s in result.sets:
        c, p, cp = s.contamination, s.placement, s.copies
        place.append(
            {
                "ood_set": s.name,
                "group": s.group or "",
                "n": s.n,
                "exact_copies": cp.n_exact,
                "near_copies": cp.n_near,
                "id_share": _with_interval(c.estimate, c.ci_low, c.ci_high),
                "lambda": _with_interval(p.ratio, p.ratio_low, p.ratio_high),
                "placement": p.placement + (" (against group)" if s.contradicts_group else ""),
            }
        )
        dets += [
            {
                "ood_set": s.name,
                "detector": d.detector,
                "auroc": _with_interval(d.auroc, d.auroc_low, d.auroc_high),
                "auroc_null95": d.auroc_null95,
                "aupr_in": d.aupr_in,
                "aupr_out": d.aupr_out,
                "fpr95": _with_interval(d.fpr95, d.fpr95_low, d.fpr95_high),
            }
            for d in s.detectors
        ]
        classes += [{"ood_set": s.name, **r} for r in s.nearest_classes[:5]]
        cols = ["row", "id_likeness", "nearest_id_class", "nearest_id_distance"]
        like.append(s.most_id_like(MAX_LISTED_ROWS // 2)[cols].assign(ood_set=s.name))
        copies.append(_copy_table(s.copy_rows()).assign(ood_set=s.name))

    def first(frames):
        f = pd.concat(frames, ignore_index=True)
        return f[["ood_set", *[c for c in f.columns if c != "ood_set"]]]

    return {
        "ood_overview": pd.DataFrame(place),
        "ood_detectors": pd.DataFrame(dets),
        "ood_nearest_classes": pd.DataFrame(classes),
        "ood_id_like": first(like),
        "ood_copies": first(copies),
    }


def _rows(frame, n: int) -> list:
    return [dict(r) for r in frame.head(n).to_dict(orient="records")]


def render_ood_html(result, summary: dict, svgs: dict, files: dict) -> str:
    """The self-contained HTML page of an OOD audit (autoescaped jinja2 template ``ood.html.j2``).

    See Also
    --------
    - `auditad.report.render.environment`: the autoescaped jinja2 environment used.
    """
    from .. import __version__
    from .render import environment, inline_svg

    env = environment()
    sets = []
    for s in result.sets:
        sets.append(
            {
                "name": s.name,
                "file": files[s.name],
                "d": summary["ood"][s.name],
                "copies": _rows(s.copy_rows(), MAX_LISTED_ROWS),
                "n_copy_rows": int((s.samples["exact_copy"] | s.samples["near_copy"]).sum()),
                "id_like": _rows(s.most_id_like(MAX_LISTED_ROWS // 2), MAX_LISTED_ROWS // 2),
                "classes": list(s.nearest_classes[:5]),
                "detectors": [d.to_dict() for d in s.detectors],
            }
        )
    figures = [
        {"name": name, "caption": caption, "svg": inline_svg(svg, name, caption)}
        for name, (caption, svg) in svgs.items()
    ]
    return env.get_template("ood.html.j2").render(
        summary=summary,
        sets=sets,
        findings=summary["findings"],
        figures=figures,
        version=__version__,
        verdict=summary["verdict"],
        max_rows=MAX_LISTED_ROWS,
    )


def write_ood_report(result, out, *, rules=(), fail_on: str = "fail") -> OODRun:
    """Write the report of an OOD audit into folder ``out`` (replaced atomically; nothing half-written).

    Files: ``report.html``, ``summary.json``, ``figures/<name>.svg`` and ``.pdf``, ``tables/ood_sets``
    (``.csv``, ``.md``, ``.tex``; one row per set and detector, every number), the tables for papers of
    `ood_tables` (captioned in ``summary.json``, typeset by ``auditad appendix``) and
    ``tables/ood_<name>_samples.csv`` (one row per OOD row: ID-likeness, nearest ID class, copy flags).

    Parameters
    ----------
    result : OODAuditResult
    out : path
    rules : sequence of GateRule
        Gates evaluated on the summary (e.g. ``ood.svhn.id_share <= 0.05``).
    fail_on : {"fail", "warn"}

    Returns
    -------
    OODRun

    See Also
    --------
    - [`audit_ood`][auditad.ood.audit_ood]: the audit.
    """
    from .._io import discard_output_dir, prepare_output_dir, replace_dir_atomic, write_bytes_atomic, write_text_atomic
    from .._validation import check_choice
    from ._slug import unique_slug
    from .tables import frame_to_csv, write_table

    fail_on = check_choice(fail_on, ("fail", "warn"), name="fail_on")
    summary, code = ood_summary(result, rules, fail_on=fail_on)
    taken: set = set()
    files = {s.name: f"tables/ood_{unique_slug(s.name, taken)}_samples.csv" for s in result.sets}
    figures = _figures(result)
    html = render_ood_html(result, summary, {k: (c, f[0]) for k, (c, f) in figures.items()}, files)
    final, tmp = prepare_output_dir(out)
    try:
        (tmp / "tables").mkdir()
        (tmp / "figures").mkdir()
        write_text_atomic(tmp / "summary.json", json.dumps(summary, indent=2, allow_nan=False) + "\n")
        write_text_atomic(tmp / "report.html", html)
        for name, (_, (svg, pdf)) in figures.items():
            write_bytes_atomic(tmp / "figures" / f"{name}.svg", svg)
            write_bytes_atomic(tmp / "figures" / f"{name}.pdf", pdf)
        write_table(result.to_frame(), tmp / "tables" / "ood_sets", caption="OOD sets", label="tab:ood-sets")
        for stem, frame in ood_tables(result).items():
            write_table(frame, tmp / "tables" / stem, caption=CAPTIONS[stem], label=f"tab:{stem}", human_headers=True)
        for s in result.sets:
            write_text_atomic(tmp / files[s.name], frame_to_csv(s.samples))
    except BaseException:
        discard_output_dir(tmp)
        raise
    replace_dir_atomic(tmp, final)
    return OODRun(out=final, summary=summary, verdict=summary["verdict"], exit_code=code)
