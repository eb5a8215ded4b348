"""How a per-class AUROC audit reads: each class's significance, the findings and the default gates.

Each AUROC of a method on a class is read with what the table allows:

* with the class counts (``n_pos``, ``n_neg``): the two-sided p-value of AUROC = ½ under a random
  ranking, Holm-adjusted over the method's tested classes (``p_holm``);
* with a std over runs (``61.7 ± 1.1`` cells or a ``std`` column): the interval A ± z·SE at the
  confidence c (z the (1 + c)/2 normal quantile), with SE the std, or with the counts too
  √(SE_HM² + std²): the test-set sampling (Hanley–McNeil) and the run-to-run spread together;
* with neither: only the near-random band |A − ½| ≤ ε.

A class is then *significantly inverted* (A < ½, ``p_holm`` ≤ 1 − confidence when the counts are
known, and the interval's upper end below ½ when a std is known), *near random*
(|A − ½| ≤ ε), *below 1/2 within noise* (below ½ but not significantly),
*below 1/2, untested* (below ½ − ε with neither counts nor std) or *above 1/2* — the categories of
[`SIGNIFICANCE`][auditad.findings.SIGNIFICANCE]; a class at 0.492 (p = 0.41) is not read like
one at 0.005.

The findings of a summary (`per_class_findings`) list, per method, the significantly inverted
classes, the untested ones and a direction instability ρ_dir above the report's threshold (warnings),
then the classes below ½ within noise (information). Without gates, the default gates
(`DEFAULT_RESULTS_GATES`, at the warn level) check the same on every method, so the verdict reads the
findings: never a pass that ignores them.

References
----------
1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection" (ρ_dir and its
   0.2 reading threshold).
2. S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian Journal of
   Statistics 6(2), 65–70, 1979.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from ..findings import (
    ABOVE_HALF,
    BELOW_UNTESTED,
    BELOW_WITHIN_NOISE,
    NEAR_RANDOM,
    SIGNIFICANCE,
    SIGNIFICANTLY_INVERTED,
    Check,
    Finding,
    FindingItem,
    Status,
    sort_findings,
    verdict,
    verdict_text,
)

__all__ = [
    "RESULTS_CHECKS",
    "SIGNIFICANCE",
    "GROUP_STATISTICS",
    "DEFAULT_RESULTS_GATES",
    "classify",
    "per_class_findings",
    "verdict_reason",
]

# SIGNIFICANCE (the reading of one class of one method, most serious first) is auditad.findings.SIGNIFICANCE,
# shared with the protocol audit; a published table never gives "not evaluated".
#: Numeric statistics of one (benchmark, representation, method) group; a gate naming one of them
#: (``"rho_dir <= 0.2"``) is evaluated on every group.
GROUP_STATISTICS = (
    "epsilon",
    "n_classes",
    "mean_auc",
    "sigma2_auc",
    "std_auc",
    "min_auc",
    "max_auc",
    "range_auc",
    "rho_rnd",
    "rho_inv",
    "rho_dir",
    "n_up",
    "n_down",
    "n_near",
    "n_tested",
    "n_significant_above",
    "n_significant_below",
    "n_inverted_significant",
    "n_inverted_untested",
    "n_below_within_noise",
)


def _rho_dir_threshold() -> float:
    from ..gates.defaults import THRESHOLDS

    return float(THRESHOLDS["protocol"][2])


#: Gates evaluated on every method when none is given: the findings at the warn level.
DEFAULT_RESULTS_GATES = (
    "warn: n_inverted_significant <= 0",
    "warn: n_inverted_untested <= 0",
    f"warn: rho_dir <= {_rho_dir_threshold():g}",
)


def classify(auroc, *, epsilon, p_holm, ci_high, alpha: float):
    """The `SIGNIFICANCE` category of each class (arrays of equal length; NaN where unknown).

    Examples
    --------
    >>> classify([0.005, 0.492, 0.40, 0.70], epsilon=0.05, p_holm=[1e-9, 0.41, np.nan, 1e-4],
    ...          ci_high=[0.02, 0.51, np.nan, 0.75], alpha=0.05).tolist()
    ['significantly inverted', 'near random', 'below 1/2, untested', 'above 1/2']
    """
    a = np.asarray(auroc, dtype=np.float64)
    eps = np.broadcast_to(np.asarray(epsilon, dtype=np.float64), a.shape)
    p = np.asarray(p_holm, dtype=np.float64)
    hi = np.asarray(ci_high, dtype=np.float64)
    counted, spread = np.isfinite(p), np.isfinite(hi)
    tested = counted | spread
    with np.errstate(invalid="ignore"):
        sig = (a < 0.5) & tested & (~counted | (p <= alpha)) & (~spread | (hi < 0.5))
        near = np.abs(a - 0.5) <= eps
    out = np.where(
        sig,
        SIGNIFICANTLY_INVERTED,
        np.where(
            near,
            NEAR_RANDOM,
            np.where(a < 0.5, np.where(tested, BELOW_WITHIN_NOISE, BELOW_UNTESTED), ABOVE_HALF),
        ),
    )
    return out.astype(object)


def _stat_text(x) -> str:
    from .._format import stat

    return stat(x)


def _class_text(r: Mapping) -> str:
    from .._format import pvalue

    text = f"{r['class']} ({_stat_text(r['auroc'])}"
    if r.get("ci_low") is not None and r.get("ci_high") is not None:
        text += f" [{_stat_text(r['ci_low'])}, {_stat_text(r['ci_high'])}]"
    if r.get("p_holm") is not None:
        text += f", Holm p = {pvalue(r['p_holm'])}"
    return text + ")"


def _label(g: Mapping) -> str:
    return " / ".join(p for p in (g["benchmark"], g["representation"], g["method"]) if p)


def _check(cid: str, status: Status, title: str, meaning: str, threshold: float = 0.0) -> Check:
    return Check(cid, status, title, meaning, threshold=threshold)


#: The checks of a per-class table, declared once (id, status when found, title, meaning, threshold).
RESULTS_CHECKS: dict[str, Check] = {
    c.id: c
    for c in (
        _check(
            "significantly_inverted_classes",
            Status.WARN,
            "significantly inverted classes",
            "The method ranks these classes' anomalies below the normals beyond noise (Holm-corrected over its "
            "classes): its average over classes mixes opposite behaviours; report it per class, or check the "
            "class definitions and the score direction.",
        ),
        _check(
            "classes_below_half_untested",
            Status.WARN,
            "classes below ½ − ε, untested",
            "Below the near-random band, but the table gives neither the class counts (n_pos, n_neg) nor a "
            "std to tell an inversion from noise; add them.",
        ),
        _check(
            "direction_instability",
            Status.WARN,
            "direction instability",
            "The score direction differs between classes (\u201cTesting the Test\u201d): ρ_dir is the share of "
            "classes near random or against the majority direction; read the classes, not the mean.",
            threshold=_rho_dir_threshold(),
        ),
        _check(
            "classes_below_half_within_noise",
            Status.INFO,
            "classes below ½ within noise",
            "Below ½, but not significantly at these counts or this spread: not evidence of an inversion.",
        ),
        _check("per_class_checks", Status.WARN, "per-class checks", "Every method passed the per-class checks."),
    )
}
_INVERTED, _UNTESTED, _DIRECTION, _NOISE, _ALL_PASS = RESULTS_CHECKS.values()


def _summary_dict(f: Finding) -> dict:
    """A finding as ``summary.json`` holds it (``check`` is the title; counts are integers)."""
    number = f.number if f.check == _DIRECTION.id else int(f.number)
    threshold = {_DIRECTION.id: f.threshold, _NOISE.id: None}.get(f.check, int(f.threshold))
    return {
        "check": f.title,
        "status": f.status.value,
        "number": number,
        "threshold": threshold,
        "group": f.subject,
        "items": [it.name for it in f.items],
        "named": f.evidence["named"],
        "meaning": f.sentence,
    }


def _class_findings(g: Mapping, rows: list) -> list[Finding]:
    """The findings of one method (group ``g``) from its per-class rows."""
    label = _label(g)
    by = {s: sorted((r for r in rows if r["significance"] == s), key=lambda r: r["auroc"]) for s in SIGNIFICANCE}
    out = []
    for check, found in ((_INVERTED, by[SIGNIFICANTLY_INVERTED]), (_UNTESTED, by[BELOW_UNTESTED])):
        if found:
            named = "; ".join(_class_text(r) for r in found[:6])
            items = [FindingItem(str(r["class"]), value=r["auroc"], detail=_class_text(r)) for r in found]
            out.append(
                check.finding(len(found), sentence=check.meaning, items=items, subject=label, evidence={"named": named})
            )
    dissent = g["dissenting_classes"]
    if g["rho_dir"] is not None and g["rho_dir"] > _DIRECTION.threshold:
        named = ", ".join(dissent[:8]) + (f" and {len(dissent) - 8} more" if len(dissent) > 8 else "")
        items = [FindingItem(str(c)) for c in dissent]
        out.append(
            _DIRECTION.finding(
                g["rho_dir"], sentence=_DIRECTION.meaning, items=items, subject=label, evidence={"named": named}
            )
        )
    noise = by[BELOW_WITHIN_NOISE]
    if noise:
        named = "; ".join(_class_text(r) for r in noise[:6])
        items = [FindingItem(str(r["class"]), value=r["auroc"], detail=_class_text(r)) for r in noise]
        out.append(
            _NOISE.finding(len(noise), sentence=_NOISE.meaning, items=items, subject=label, evidence={"named": named})
        )
    return out


def per_class_findings(summary: Mapping) -> list[dict]:
    """The findings of a per-class summary, fail first, then warn, info and pass (one dict each).

    Each has ``check``, ``status``, ``number``, ``threshold``, ``group`` (the method's label), ``items``
    (the classes), ``named`` (the classes with AUROC, interval and p) and ``meaning`` (one sentence): the
    shared [`Finding`][auditad.findings.Finding] records of `RESULTS_CHECKS`, as ``summary.json`` holds them.
    """
    out: list[Finding] = []
    rows_of: dict = {}
    for r in summary["per_class"]:
        rows_of.setdefault((r["benchmark"], r["representation"], r["method"]), []).append(r)
    for g in summary["groups"]:
        out.extend(_class_findings(g, rows_of.get((g["benchmark"], g["representation"], g["method"]), [])))
    if verdict(out) not in (Status.FAIL, Status.WARN):
        sentence = (
            f"No method inverts a class beyond noise or below ½ − ε untested, and ρ_dir ≤ {_DIRECTION.threshold:g} "
            "for every method."
        )
        out.append(_ALL_PASS.finding(0, sentence=sentence, subject="every method", evidence={"named": ""}))
    return [_summary_dict(f) for f in sort_findings(out)]


def _finding_text(f: Mapping) -> str:
    from .._format import stat

    if f["check"] == _DIRECTION.title:
        return f"ρ_dir = {stat(f['number'])} > {f['threshold']:g} ({f['named']})"
    return f"{f['check']}: {f['number']} ({f['named']})"


def verdict_reason(summary: Mapping) -> str:
    """One sentence on the verdict ([`verdict_text`][auditad.findings.verdict_text]): the failed gates (given or
    default) with the methods and classes behind them."""
    return verdict_text(
        summary["gates"],
        summary.get("findings", ()),
        default_gates=bool(summary.get("default_gates")),
        gate_text=lambda g: f"{g['group']}: {g['message']}",
        finding_text=lambda f: f"{f['group']}: {_finding_text(f)}",
        max_shown=4,
    )
