"""Render an audit as self-contained HTML (jinja2 templates) and its figures as SVG / PDF.

* Templates live in the top-level ``templates/`` folder of the source tree,
  shipped in the wheel as the package ``auditad._templates``; they are
  rendered with autoescape on and ``StrictUndefined``.
* Figures are drawn by :mod:`auditad.plotting` inside a
  ``matplotlib.rc_context`` (no global rcParams change) with a fixed SVG hash
  salt and no dates in the metadata, so the same audit gives the same bytes.
  They are inlined into the HTML (XML prolog and metadata stripped, element
  ids prefixed per figure so that figures never share an id).
* The plain-language readings of each section are built here from the
  summary numbers; they are text (escaped by the templates), never HTML.

No JavaScript, no web fonts, no request to another host.
"""

from __future__ import annotations

import io
import math
import re
from pathlib import Path
from typing import Mapping

from ..errors import AuditadError

__all__ = ["template_dir", "environment", "figure_files", "inline_svg", "render_report", "render_index",
           "readings", "MPL_RC"]

#: matplotlib settings used for every report figure (applied with ``matplotlib.rc_context`` only).
MPL_RC = {
    "svg.hashsalt": "auditad",
    "svg.fonttype": "path",
    "pdf.fonttype": 42,
    "font.size": 8,
    "axes.titlesize": 9,
    "axes.labelsize": 8,
    "legend.fontsize": 7,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "text.parse_math": False,
    "figure.dpi": 100,
}

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
    raise AuditadError("auditad report templates not found: neither the package 'auditad._templates' nor "
                       f"{str(base)!r} holds report.html.j2 (reinstall auditad)")


def environment():
    """The jinja2 environment: autoescape on, ``StrictUndefined``, templates from :func:`template_dir`."""
    import jinja2

    base = template_dir()

    def load(name: str):
        path = base.joinpath(name)
        if not path.is_file():
            return None
        return path.read_text(encoding="utf-8"), None, lambda: True

    env = jinja2.Environment(loader=jinja2.FunctionLoader(load), autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["num"] = fmt
    env.filters["pct"] = pct
    return env


# --------------------------------------------------------------------------- numbers
def fmt(value, digits: int = 3) -> str:
    """Display form of a value: 3 decimals, scientific for tiny numbers, '–' for missing."""
    if value is None:
        return "\u2013"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return "\u2013"
        if value != 0 and abs(value) < 10 ** (-digits):
            return f"{value:.2e}"
        if abs(value) >= 1e5:
            return f"{value:.3e}"
        return f"{value:.{digits}f}"
    try:  # numpy scalars
        import numpy as np

        if isinstance(value, np.generic):
            return fmt(value.item(), digits)
    except ImportError:  # pragma: no cover
        pass
    return str(value)


def pct(value, digits: int = 1) -> str:
    """A share as a percentage (``0.0345`` -> ``3.5%``)."""
    if value is None or not math.isfinite(float(value)):
        return "\u2013"
    return f"{100 * float(value):.{digits}f}%"


def _pval(p) -> str:
    if p is None or not math.isfinite(p):
        return "\u2013"
    if p == 0:
        return "< 2e-16"
    return f"{p:.2g}"


# --------------------------------------------------------------------------- figures
def figure_files(spec) -> tuple[bytes, bytes]:
    """Build a :class:`~auditad.report.assemble.FigureSpec` and return its (SVG, PDF) bytes, deterministically."""
    import matplotlib

    with matplotlib.rc_context(MPL_RC):
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
    text = _HREF_REF.sub(lambda m: f'{m.group(1)}="#{prefix}-{m.group(2)}"' if m.group(2) in ids else m.group(0),
                         text)
    m = _ROOT.search(text)
    if m is None:
        raise AuditadError("matplotlib returned an SVG without an <svg> element")
    attrs = m.group(1)
    size = dict(_SIZE.findall(attrs))
    attrs = _SIZE.sub("", attrs)
    style = f' style="max-width:{size["width"]}pt"' if "width" in size else ""
    root = f'<svg{attrs} class="figure-svg" role="img" aria-labelledby="{prefix}-title"{style}>' \
           f'<title id="{prefix}-title">{escape(title)}</title>'
    text = text[:m.start()] + root + text[m.end():]
    return Markup(text.strip())


# --------------------------------------------------------------------------- tables
_P_COLUMN = re.compile(r"^(p |p_value)")


def _table_context(spec, folder: str = "tables") -> dict:
    frame = spec.frame
    cols = [str(c) for c in frame.columns]
    numeric = [frame[c].dtype.kind in "iuf" for c in frame.columns]
    rows = []
    for rec in frame.itertuples(index=False, name=None):
        cells = []
        for col, v in zip(cols, rec):
            if hasattr(v, "item"):
                v = v.item()
            cells.append(_pval(v) if _P_COLUMN.match(col) and isinstance(v, float) else fmt(v))
        rows.append(cells)
    return {"name": spec.name, "caption": spec.caption, "columns": cols, "numeric": numeric, "rows": rows,
            "csv": f"{folder}/{spec.name}.csv"}


# --------------------------------------------------------------------------- readings
def _leakage_reading(s: Mapping) -> str:
    lk = s["leakage"]
    L, chance, k, rep = lk["L_k"], lk["chance"], lk["k"], lk["representation"]
    ratio = lk["ratio_to_chance"]
    text = (f"In the {rep} representation, on average {pct(L)} of each sample's {k} nearest neighbours carry "
            f"another class label (L_k = {fmt(L)}); neighbours drawn at random would give {pct(chance)}, so L_k is "
            f"{fmt(ratio, 2)} times the chance level (1 would mean the geometry does not separate the classes at "
            "all). ")
    if L <= 0.3:
        text += ("The classes occupy well separated regions, like Fashion-MNIST (L_k ≈ 0.24) in seed 002: a "
                 "class-split protocol on this representation probes semantic novelty, and the per-class AUROCs "
                 "below can be read that way. ")
    elif L <= 0.6:
        text += ("The classes overlap noticeably: part of what a class-split protocol measures here is how far "
                 "a held-out class sits from overlapping neighbours rather than semantic novelty, so expect AUROC "
                 "to vary from class to class. ")
    else:
        text += ("The classes overlap about as much as CIFAR-10 or Imagenette (L_k > 0.76 in seed 002), where the "
                 "score direction of detectors flipped between held-out classes: per-class AUROCs on this "
                 "representation say little about novelty detection. ")
    reps = lk["representations"]
    if len(reps) > 1:
        text += "Across representations: " + ", ".join(f"{r} {fmt(v['L_k'])}" for r, v in reps.items()) + ". "
    per = reps[rep]["per_class"]
    if per:
        worst = max(per, key=lambda p: p["leakage"])
        text += (f"The most mixed class is {worst['class']} (L_k(c) = {fmt(worst['leakage'])}, chance "
                 f"{fmt(worst['chance'])}).")
    for col, v in (lk.get("columns") or {}).items():
        if v:
            text += (f" The {col} column mixes with L_k = {fmt(v['L_k'])} (chance {fmt(v['chance'])}): "
                     + ("its values are well separated in the embedding." if v["ratio_to_chance"] is not None
                        and v["ratio_to_chance"] < 0.5 else "its values are hard to tell apart in the embedding."))
    return text.strip()


def _protocol_reading(s: Mapping) -> str:
    p = s["protocol"]
    m = p["mean"]
    K = m["n_classes"]
    rep = p["representation_names"][0]
    eps = p["epsilon"]
    kind = "held out as anomalies (K−1 vs 1)" if p["protocol"] == "leave_one_class_out" else \
        "taken as the normal class (1 vs K−1)"
    text = (f"Each of the {K} classes was {kind} in turn. In {rep}, averaged over the detectors, AUROC(c) has mean "
            f"{fmt(m['mean_auc'])} and spread σ²_AUC = {fmt(m['sigma2_auc'], 4)} (range {fmt(m['range_auc'])}); "
            f"{pct(m['rho_inv'], 0)} of the classes are inverted (AUROC < ½), {pct(m['rho_rnd'], 0)} are near random "
            f"(|AUROC − ½| ≤ ε = {eps:g}) and the direction instability is ρ_dir = {fmt(m['rho_dir'])}. ")
    rho = m["rho_dir"]
    if rho is None:
        text += "The rates are undefined (no class could be evaluated). "
    elif rho <= 0.1:
        text += "The score direction is consistent across classes: the benchmark ranks detectors in a stable way. "
    elif rho <= 0.3:
        text += ("Some classes behave unlike the rest: check the heatmap before averaging AUROC over classes. ")
    else:
        text += ("The detectors' score direction flips between held-out classes, as on CIFAR-10 and Imagenette in "
                 "seed 002 (ρ_dir up to 63 %): an AUROC averaged over classes hides opposite behaviours. ")
    dets = p["representations"][rep]["detectors"]
    if dets:
        worst = max(dets.items(), key=lambda kv: -1 if kv[1]["rho_dir"] is None else kv[1]["rho_dir"])
        text += f"The least stable detector is {worst[0]} (ρ_dir = {fmt(worst[1]['rho_dir'])}). "
    sp = m.get("spearman_leakage_auroc")
    if sp is not None:
        text += (f"The Spearman correlation between a class's leakage L_k(c) and its AUROC(c) is {fmt(sp, 2)}"
                 + (": classes that mix more with the others are harder to detect." if sp < -0.3 else
                    ": leakage and AUROC are positively related across classes." if sp > 0.3 else
                    ": leakage explains little of the class-to-class variation."))
    return text.strip()


def _nulls_reading(s: Mapping) -> str:
    n = s["nulls"]
    pcs = n["per_class"]
    if not pcs:
        return "No class-split task could be evaluated, so no null was computed."
    npos = [pc["n_pos"] for pc in pcs]
    nneg = [pc["n_neg"] for pc in pcs]
    ratios = [pc["ratio"] for pc in pcs]
    first = pcs[0]["nulls"]
    text = (f"Each held-out class gives a test set of {min(npos)}–{max(npos)} anomalies and {min(nneg)}–{max(nneg)} "
            f"normals (anomaly share {pct(min(ratios))}–{pct(max(ratios))}). At these counts a detector that scores "
            f"at random gets AUROC ½ ± {fmt(first['auroc']['std'])} (99 % quantile {fmt(first['auroc']['q99'])})")
    if "ap" in first:
        text += f", AP ≈ {fmt(first['ap']['mean'])} (the anomaly share, not 0)"
    if "f1" in first:
        text += f" and F1 ≈ {fmt(first['f1']['mean'])} with coin-flip predictions"
    text += ". "
    k = n["n_observed"]
    if k:
        above = round(n["share_above_q99"] * k)
        text += (f"{above} of {k} observed AUROC(c) ({n['representation']}, mean over detectors) exceed the 99 % "
                 "quantile of their null")
        weak = [str(pc["class"]) for pc in pcs
                if pc["observed"][n["representation"]]["above_q95"] is False]
        text += (f"; class{'es' if len(weak) > 1 else ''} {', '.join(weak)} cannot be told apart from a random "
                 "detector at the 5 % level." if weak else "; every class is clearly above the random baseline.")
    return text


def _landscape_reading(s: Mapping) -> str:
    ls = s["landscapes"]
    pi, ref = ls["ratio"], ls["reference"]
    text = (f"This benchmark's anomaly ratio is π = {pct(pi)} ({ls['ratio_source']}). The landscapes show what "
            "each metric gives every operating point (TPR, TNR) at this ratio. ")
    at = ls["at_ratio"]
    if "aupr_trap" in at:
        a = at["aupr_trap"]
        text += (f"A detector that flags nothing (TPR 0, TNR 1) already gets a trapezoid AUPR of "
                 f"{fmt(a['flag_nothing'])} here ({fmt(a['flag_nothing_at_reference'])} at π = {ref:g}), and around "
                 f"a random detector (region R5) AUPR averages {fmt(a['regions']['R5']['mean'])} "
                 f"({fmt(a['regions']['R5']['mean_at_reference'])} at π = {ref:g}). ")
    for m, name in (("f1", "F1"), ("aupr_trap", "AUPR"), ("mcc_scaled", "scaled MCC")):
        row = next((r for r in at.get(m, {}).get("minimal_tpr", []) if abs(r["score"] - 0.8) < 1e-9), None)
        if row and row["min_tpr"] is not None and row["min_tpr_at_reference"] is not None \
                and abs(row["min_tpr"] - row["min_tpr_at_reference"]) >= 0.01:
            text += (f"Reaching {name} = 0.8 needs TPR ≥ {fmt(row['min_tpr'], 2)} here against "
                     f"{fmt(row['min_tpr_at_reference'], 2)} at π = {ref:g}. ")
            break
    text += ("AUROC does not depend on π; AUPR, F1 and MCC do, so their values on this benchmark cannot be compared "
             "with values on benchmarks at other ratios.")
    return text


def _selection_reading(s: Mapping) -> str:
    sel = s["selection"]
    by = sel["by_selector"]
    rnd = by.get("random")
    best = sel["best"]
    text = (f"Anomaly-free model selection was judged over {sel['n_tasks']} tasks × {sel['n_candidates']} "
            "candidates, against the true test AUC. ")
    if rnd:
        text += (f"Picking a candidate at random costs {fmt(100 * rnd['regret'], 2)} AUC points on average against the "
                 "best one (the oracle). ")
    if best:
        text += (f"The best estimator, {best['name']}, ranks candidates with Spearman ρ = {fmt(best['rho_rank'], 2)} "
                 f"and pairwise accuracy {fmt(best['a_pair'], 2)}, and loses {fmt(100 * best['regret'], 2)} points. ")
    iv = by.get("inlier_variance")
    if iv:
        text += f"The inlier variance alone loses {fmt(100 * iv['regret'], 2)} points. "
    text += ("For reference, seed 001 reports on DCASE 2022–25 a random-selection regret of about 7.9 points, "
             "5.5 for the inlier variance and 3.8 for Diverse Pseudo AUC.")
    return text


def readings(summary: Mapping) -> dict:
    """The plain-language reading of each section of a summary (``{section id: text}``)."""
    out = {"leakage": _leakage_reading(summary), "protocol": _protocol_reading(summary),
           "nulls": _nulls_reading(summary), "landscapes": _landscape_reading(summary)}
    if summary.get("selection"):
        out["selection"] = _selection_reading(summary)
    return out


# --------------------------------------------------------------------------- pages
_SECTIONS = (  # id, title, short name (table of contents)
    ("leakage", "Neighbourhood class leakage", "Leakage"),
    ("protocol", "Class-split protocol: per-class AUROC and direction instability", "Protocol"),
    ("nulls", "Random baselines at this benchmark's class counts", "Random baselines"),
    ("landscapes", "Metric landscapes at this benchmark's anomaly ratio", "Landscapes"),
    ("selection", "Anomaly-free model selection", "Model selection"),
)


def _verdict_text(summary: Mapping) -> str:
    gates = summary["gates"]
    if not gates:
        return "No gate was set."
    bad = [g for g in gates if not g["passed"]]
    if not bad:
        return f"All {len(gates)} gate{'s' * (len(gates) != 1)} passed."
    return (f"{len(bad)} of {len(gates)} gate{'s' * (len(gates) != 1)} did not pass: "
            + "; ".join(g["message"] for g in bad) + ".")


def _glance(summary: Mapping) -> list:
    d, lk = summary["dataset"], summary["leakage"]
    m = summary["protocol"]["mean"]
    items = [("samples", fmt(d["n"])), ("classes", fmt(d["n_classes"])),
             ("representations", ", ".join(d["representations"])),
             (f"leakage L_k (k = {lk['k']})", fmt(lk["L_k"])),
             ("mean AUROC", fmt(m["mean_auc"])), ("ρ_inv", fmt(m["rho_inv"])), ("ρ_dir", fmt(m["rho_dir"])),
             ("anomaly ratio π", pct(summary["landscapes"]["ratio"]))]
    if summary.get("selection") and summary["selection"].get("best"):
        b = summary["selection"]["best"]
        items.append(("best selector", f"{b['name']} (regret {fmt(100 * b['regret'], 2)} pts)"))
    return [{"label": a, "value": b} for a, b in items]


def render_report(audit, svgs: Mapping[str, bytes]) -> str:
    """HTML of one benchmark's report.

    Parameters
    ----------
    audit : auditad.report.assemble.BenchmarkAudit
        With gates evaluated.
    svgs : dict of figure name -> SVG bytes
    """
    from .. import __version__

    s = audit.summary
    texts = readings(s)
    sections = []
    fig_no = 0
    for sid, title, short in _SECTIONS:
        if sid not in texts:
            continue
        figs = []
        for spec in audit.figures:
            if spec.section == sid:
                fig_no += 1
                figs.append({"name": spec.name, "caption": spec.caption, "svg": inline_svg(svgs[spec.name],
                             f"f{fig_no}", spec.caption), "files": [f"figures/{spec.name}.svg",
                                                                    f"figures/{spec.name}.pdf"]})
        tables = [_table_context(t) for t in audit.tables if t.section == sid and t.compact]
        data = [f"data/{t.name}.csv" for t in audit.tables if t.section == sid and not t.compact]
        sections.append({"id": sid, "title": title, "short": short, "reading": texts[sid], "figures": figs,
                         "tables": tables, "data": data})
    from .config import settings_to_toml

    ctx = {
        "name": audit.name,
        "version": __version__,
        "summary": s,
        "verdict": s["verdict"],
        "verdict_text": _verdict_text(s),
        "gates": [{"rule": f"{g['level']}: {g['rule']}", "status": g["status"], "value": fmt(g["value"]),
                   "message": g["message"]} for g in s["gates"]],
        "glance": _glance(s),
        "sections": sections,
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

    rows = []
    for a in audits:
        s = a.summary
        m = s["protocol"]["mean"]
        gates = s["gates"]
        rows.append({"name": a.name, "href": f"{a.name}/report.html", "verdict": s["verdict"],
                     "n": fmt(s["dataset"]["n"]), "classes": fmt(s["dataset"]["n_classes"]),
                     "representations": ", ".join(s["dataset"]["representations"]),
                     "L_k": fmt(s["leakage"]["L_k"]), "rho_dir": fmt(m["rho_dir"]), "rho_inv": fmt(m["rho_inv"]),
                     "mean_auc": fmt(m["mean_auc"]), "ratio": pct(s["landscapes"]["ratio"]),
                     "gates": f"{sum(g['passed'] for g in gates)}/{len(gates)}",
                     "verdict_text": _verdict_text(s)})
    order = {"fail": 0, "warn": 1, "pass": 2}
    worst = min((r["verdict"] for r in rows), key=lambda v: order[v]) if rows else "pass"
    stamp = audits[0].summary["run"]["timestamp"] if timestamp and audits else None
    return environment().get_template("index.html.j2").render(rows=rows, verdict=worst, version=__version__,
                                                              timestamp=stamp)
