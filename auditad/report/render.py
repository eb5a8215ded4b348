"""Render an audit as self-contained HTML (jinja2 templates) and its figures as SVG / PDF.

* Templates live in the top-level ``templates/`` folder of the source tree,
  shipped in the wheel as the package ``auditad._templates``; they are
  rendered with autoescape on and ``StrictUndefined``.
* Figures are drawn by `auditad.plotting` inside the figure style of
  `auditad.plotting.style` (a ``matplotlib.rc_context``: no global rcParams change) with a fixed SVG hash
  salt and no dates in the metadata, so the same audit gives the same bytes.
  They are inlined into the HTML (XML prolog and metadata stripped, element
  ids prefixed per figure so that figures never share an id).
* The plain-language readings are built by the section modules
  (`auditad.report.sections`) after the gates were evaluated; they are text (escaped by the templates),
  never HTML.

One small inline script (sortable tables; the page reads without it), no web fonts, no request to another host.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Mapping

from ..errors import AuditadError
from .. import _format
from ..plotting.style import RC as MPL_RC

__all__ = [
    "template_dir",
    "environment",
    "figure_files",
    "inline_svg",
    "render_report",
    "render_index",
    "readings",
    "MPL_RC",
]


_TEMPLATE_PACKAGE = "auditad._templates"


# --------------------------------------------------------------------------- templates
def template_dir():
    """The folder of the report templates: inside the installed package, else ``templates/`` of a source checkout."""
    try:
        from importlib.resources import files

        base = files(_TEMPLATE_PACKAGE)
        if base.joinpath("report.html.j2").is_file():
            return base
    except ModuleNotFoundError:
        pass
    base = Path(__file__).resolve().parents[2] / "templates"
    if (base / "report.html.j2").is_file():
        return base
    raise AuditadError(
        "auditad report templates not found: neither the package 'auditad._templates' nor "
        f"{str(base)!r} holds report.html.j2 (reinstall auditad)"
    )


def environment():
    """The jinja2 environment: autoescape on, ``StrictUndefined``, templates from `template_dir`."""
    import jinja2

    base = template_dir()

    def load(name: str):
        path = base.joinpath(name)
        if not path.is_file():
            return None
        return path.read_text(encoding="utf-8"), None, lambda: True

    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(load),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(_format.jinja_filters())
    return env


# --------------------------------------------------------------------------- figures
def figure_files(spec) -> tuple[bytes, bytes]:
    """Build a `FigureSpec` and return its (SVG, PDF) bytes, deterministically."""
    from ..plotting.style import style_context

    with style_context():
        fig = spec.build()
        svg, pdf = io.BytesIO(), io.BytesIO()
        fig.savefig(svg, format="svg", metadata={"Date": None})
        fig.savefig(pdf, format="pdf", metadata={"CreationDate": None, "ModDate": None})
    return svg.getvalue(), pdf.getvalue()


_ID_ATTR = re.compile(r'\bid="([^"]+)"')
_URL_REF = re.compile(r"url\(#([^)]+)\)")
_HREF_REF = re.compile(r'((?:xlink:)?href)="#([^"]+)"')
_ROOT = re.compile(r"<svg\b([^>]*)>")
_SIZE = re.compile(r'\s(width|height)="([\d.]+)pt"')


def inline_svg(svg: bytes | str, prefix: str, title: str):
    """SVG bytes from matplotlib -> markup to inline in HTML.

    Removes the XML prolog, DOCTYPE, metadata and the document-wide ``<style>``;
    prefixes every ``id`` (and the ``url(#...)`` / ``href="#..."`` references to
    it) with ``prefix`` so that several figures never share an id (a repeated id
    within the figure gets a number; references keep the first); replaces the
    fixed size by a responsive one; adds an escaped ``<title>``.
    """
    from markupsafe import Markup, escape

    text = svg.decode("utf-8") if isinstance(svg, bytes) else svg
    text = re.sub(r"<\?xml[^>]*\?>\s*", "", text)
    text = re.sub(r"<!DOCTYPE[^>]*>\s*", "", text, flags=re.S)
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, flags=re.S)
    text = re.sub(r'\s*<style type="text/css">[^<]*</style>', "", text)
    ids = set(_ID_ATTR.findall(text))
    seen: dict = {}

    def rename(m):  # matplotlib may give two identical images of one figure the same id: number the repeats
        n = seen[m.group(1)] = seen.get(m.group(1), 0) + 1
        return f'id="{prefix}-{m.group(1)}"' if n == 1 else f'id="{prefix}-{m.group(1)}-{n}"'

    text = _ID_ATTR.sub(rename, text)
    text = _URL_REF.sub(lambda m: f"url(#{prefix}-{m.group(1)})" if m.group(1) in ids else m.group(0), text)
    text = _HREF_REF.sub(lambda m: f'{m.group(1)}="#{prefix}-{m.group(2)}"' if m.group(2) in ids else m.group(0), text)
    m = _ROOT.search(text)
    if m is None:
        raise AuditadError("matplotlib returned an SVG without an <svg> element")
    attrs = m.group(1)
    size = dict(_SIZE.findall(attrs))
    attrs = _SIZE.sub("", attrs)
    style = f' style="max-width:{size["width"]}pt"' if "width" in size else ""
    root = (
        f'<svg{attrs} class="figure-svg" role="img" aria-labelledby="{prefix}-title"{style}>'
        f'<title id="{prefix}-title">{escape(title)}</title>'
    )
    text = text[: m.start()] + root + text[m.end() :]
    return Markup(text.strip())


# --------------------------------------------------------------------------- tables
def _table_context(spec, folder: str = "tables") -> dict:
    frame = spec.frame
    from .headers import header

    cols, kinds, rows = _format.format_frame(frame, bounds=spec.bounds)
    numeric = [kind != "text" for kind in kinds]
    return {
        "name": spec.name,
        "caption": spec.caption,
        "columns": [header(c) for c in cols],
        "codes": cols,
        "numeric": numeric,
        "rows": rows,
        "csv": f"{folder}/{spec.name}.csv",
    }


# --------------------------------------------------------------------------- readings
def readings(summary: Mapping, conditions: Mapping | None = None) -> dict:
    """The plain-language reading of each statistics section of a summary (``{section id: text}``).

    The same texts as the sections' readings (`auditad.report.sections.section_reading`); sections
    that are not applicable (no data in the summary) are left out. ``conditions`` are the default gates'
    results by threshold name; None takes those stored in ``summary["gates"]``
    ([`reading_conditions`][auditad.gates.defaults.reading_conditions]) -- a threshold whose gate was not
    stored is not stated.
    """
    from ..gates.checks import GateResult
    from ..gates.defaults import reading_conditions
    from .sections import REGISTRY, section_reading

    if conditions is None:
        conditions = reading_conditions(GateResult.from_dict(g) for g in summary.get("gates") or ())
    kind = summary["dataset"].get("kind", "classes")
    out = {}
    for info in REGISTRY:
        part = summary.get(info.id) if info.statistics else None
        if part and part.get("status", "ok") == "ok":
            out[info.id] = section_reading(info.id, part, conditions=conditions, kind=kind)
    return out


# --------------------------------------------------------------------------- pages
def _glance(summary: Mapping) -> list:
    if summary["protocol"].get("setting") == "semi_supervised":
        items = _glance_anomaly_labelled(summary)
    else:
        items = _glance_class_split(summary)
    if summary.get("selection") and summary["selection"].get("best"):
        b = summary["selection"]["best"]
        items.append(("best selector", f"{b['name']} (regret {_format.pp(b['regret'])})"))
    return [{"label": a, "value": b} for a, b in items]


def _glance_class_split(summary: Mapping) -> list:
    """First-screen numbers of a class-split benchmark: leakage, the detectors' average and worst rates."""
    d, lk = summary["dataset"], summary["leakage"]
    m = summary["protocol"].get("mean") or {}
    w = summary["protocol"].get("worst") or {}
    stat, count = _format.stat, _format.count

    def worst(key):
        return stat(w.get(key)) + (f" ({w[key + '_where']})" if w.get(key + "_where") else "")

    several = len(d["representations"]) > 1
    leak_label = f"leakage L_k (k = {lk['k']})"
    if several and lk.get("representation"):
        leak_label += f", largest: {lk['representation']}"
    items = [
        ("samples", count(d["n"])),
        ("classes", count(d["n_classes"])),
        ("representations", ", ".join(d["representations"])),
        (leak_label, stat(lk["L_k"])),
    ]
    if m:
        rep = summary["protocol"].get("representation")
        on = f" ({rep}: lowest AUROC)" if several and rep else ""
        items += [
            (f"AUROC, average of detectors{on}", stat(m.get("mean_auc"))),
            (f"ρ_inv, average of detectors{on}", stat(m.get("rho_inv"))),
            ("ρ_inv, worst detector", worst("rho_inv")),
            ("ρ_dir, worst detector", worst("rho_dir")),
        ]
    items.append(
        ("anomaly share π (test set of the nulls and landscapes)", _format.percent(summary["landscapes"]["ratio"]))
    )
    return items


def _glance_anomaly_labelled(summary: Mapping) -> list:
    """First-screen numbers of an anomaly-labelled benchmark: one task (normals vs labelled anomalies), each
    detector's AUROC with its interval and its place on the random null at the test counts, and both shares π."""
    d, p = summary["dataset"], summary["protocol"]
    stat, count = _format.stat, _format.count
    items = [
        ("samples", count(d["n"])),
        ("setting", "semi-supervised: fitted on normals only"),
        ("representations", ", ".join(d["representations"])),
    ]
    n_pos = n_neg = None
    detectors = [x.get("name") for x in p.get("detectors") or [] if isinstance(x, Mapping)]
    for rep, part in (p.get("representations") or {}).items():
        rows = part.get("per_class") if isinstance(part, Mapping) else None
        for r in rows if isinstance(rows, list) else []:
            if r.get("detector") not in detectors:  # the detector-mean row has no test of its own
                continue
            n_pos, n_neg = r.get("n_pos"), r.get("n_neg")
            on = f" on {rep}" if len(d["representations"]) > 1 else ""
            value = f"{stat(r.get('auroc'))} [{stat(r.get('ci_low'))}, {stat(r.get('ci_high'))}]"
            if r.get("p_value") is not None:
                ptext = _format.pvalue(r["p_value"])
                value += f", p {ptext if ptext.startswith('<') else '= ' + ptext} vs random"
            items.append((f"AUROC of {r['detector']}{on}", value))
    if d.get("anomaly_ratio") is not None:
        items.append(("anomaly share π, whole data", _format.percent(d["anomaly_ratio"])))
    if n_pos is not None and n_neg is not None and n_pos + n_neg > 0:
        items.append(
            (
                "anomaly share π, test set scored",
                f"{_format.percent(n_pos / (n_pos + n_neg))} ({count(n_pos)} anomalies, {count(n_neg)} normals)",
            )
        )
    return items


def render_report(audit, svgs: Mapping[str, bytes]) -> str:
    """HTML of one benchmark's report.

    Parameters
    ----------
    audit : auditad.audit.runner.BenchmarkAudit
        With gates evaluated.
    svgs : dict of figure name -> SVG bytes
    """
    from .. import __version__

    from .sections import bibliography, info
    from .sections.gates import table_rows, verdict_text
    from .sections.reproducibility import configuration_text
    from .._toml import settings_to_toml

    s = audit.summary
    built = [sec for sec in audit.sections if info(sec.id).statistics]
    sections = []
    fig_no = 0
    for sec in built:
        figs = []
        for spec in sec.figures:
            fig_no += 1
            figs.append(
                {
                    "name": spec.name,
                    "caption": spec.caption,
                    "svg": inline_svg(svgs[spec.name], f"f{fig_no}", spec.caption),
                    "files": [f"figures/{spec.name}.svg", f"figures/{spec.name}.pdf"],
                }
            )
        tables = [_table_context(t) for t in sec.tables if t.compact]
        data = [f"data/{t.name}.csv" for t in sec.tables if not t.compact]
        sections.append(
            {
                "id": sec.id,
                "title": sec.title,
                "short": info(sec.id).short,
                "status": sec.status,
                "reason": sec.reason,
                "reading": sec.reading if sec.status == "ok" else f"Not applicable: {sec.reason}.",
                "figures": figs,
                "tables": tables,
                "data": data,
                "references": [
                    {**r, "where": r["cited"][sec.id]} for r in bibliography(audit.sections) if sec.id in r["cited"]
                ],
            }
        )
    from .findings import finding_rows, findings, representation_rows

    ctx = {
        "name": audit.name,
        "version": __version__,
        "summary": s,
        "findings": finding_rows(findings(s, audit.gate_results, tables=audit.summary_files)),
        # the class-split rates per representation; an anomaly-labelled audit (one task) has none to show
        "rep_rows": [] if (s.get("protocol") or {}).get("setting") == "semi_supervised" else representation_rows(s),
        "verdict": s["verdict"],
        "verdict_text": verdict_text(s["gates"]),
        "gates": table_rows(s["gates"]),
        "glance": _glance(s),
        "sections": sections,
        "references": bibliography(audit.sections),
        "config_text": configuration_text(s["config"]),
        "settings_toml": settings_to_toml({k: v for k, v in s["settings"].items()}),
        "inputs": s["inputs"],
        "environment": s["environment"],
        "run": s["run"],
        "warnings": s["warnings"],
    }
    return environment().get_template("report.html.j2").render(**ctx)


def render_index(audits, *, timestamp: bool = False) -> str:
    """HTML of ``index.html``: every benchmark with its verdict and key numbers."""
    from .. import __version__
    from ..findings import verdict
    from .sections.gates import verdict_text

    rows = []
    for a in audits:
        s = a.summary
        m = s["protocol"].get("mean") or {}
        gates = s["gates"]
        rows.append(
            {
                "name": a.name,
                "href": f"{a.name}/report.html",
                "verdict": s["verdict"],
                "n": _format.count(s["dataset"]["n"]),
                "classes": _format.count(s["dataset"]["n_classes"]),
                "representations": ", ".join(s["dataset"]["representations"]),
                "L_k": _format.stat(s["leakage"]["L_k"]),
                "rho_dir": _format.stat(m.get("rho_dir")),
                "rho_inv": _format.stat(m.get("rho_inv")),
                "mean_auc": _format.stat(m.get("mean_auc")),
                "ratio": _format.percent(s["landscapes"]["ratio"]),
                "gates": f"{sum(g['passed'] for g in gates)}/{len(gates)}",
                "verdict_text": verdict_text(s["gates"]),
            }
        )
    worst = verdict(r["verdict"] for r in rows).value
    stamp = audits[0].summary["run"]["timestamp"] if timestamp and audits else None
    return (
        environment()
        .get_template("index.html.j2")
        .render(rows=rows, verdict=worst, version=__version__, timestamp=stamp)
    )
