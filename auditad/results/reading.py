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
[`SIGNIFICANCE`][auditad.results.reading.SIGNIFICANCE]; a class at 0.492 (p = 0.41) is not read like
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

__all__ = [
    "SIGNIFICANCE",
    "GROUP_STATISTICS",
    "DEFAULT_RESULTS_GATES",
    "classify",
    "per_class_findings",
    "verdict_reason",
]

#: The reading of one class of one method, most serious first.
SIGNIFICANCE = ("significantly inverted", "below 1/2, untested", "below 1/2 within noise", "near random", "above 1/2")
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
        SIGNIFICANCE[0],
        np.where(
            near,
            SIGNIFICANCE[3],
            np.where(a < 0.5, np.where(tested, SIGNIFICANCE[2], SIGNIFICANCE[1]), SIGNIFICANCE[4]),
        ),
    )
    return out.astype(object)


def _fmt(x) -> str:
    from .._format import stat

    return stat(x)


def _class_text(r: Mapping) -> str:
    from .._format import pvalue

    text = f"{r['class']} ({_fmt(r['auroc'])}"
    if r.get("ci_low") is not None and r.get("ci_high") is not None:
        text += f" [{_fmt(r['ci_low'])}, {_fmt(r['ci_high'])}]"
    if r.get("p_holm") is not None:
        text += f", Holm p = {pvalue(r['p_holm'])}"
    return text + ")"


def _label(g: Mapping) -> str:
    return " / ".join(p for p in (g["benchmark"], g["representation"], g["method"]) if p)


def _finding(check, status, number, threshold, group, items, meaning, named) -> dict:
    return {
        "check": check,
        "status": status,
        "number": number,
        "threshold": threshold,
        "group": group,
        "items": list(items),
        "named": named,
        "meaning": meaning,
    }


def per_class_findings(summary: Mapping) -> list[dict]:
    """The findings of a per-class summary, fail first, then warn, info and pass (one dict each).

    Each has ``check``, ``status``, ``number``, ``threshold``, ``group`` (the method's label), ``items``
    (the classes), ``named`` (the classes with AUROC, interval and p) and ``meaning`` (one sentence).
    """
    out = []
    limit = _rho_dir_threshold()
    rows_of: dict = {}
    for r in summary["per_class"]:
        rows_of.setdefault((r["benchmark"], r["representation"], r["method"]), []).append(r)
    for g in summary["groups"]:
        label = _label(g)
        rows = rows_of.get((g["benchmark"], g["representation"], g["method"]), [])
        by = {s: sorted((r for r in rows if r["significance"] == s), key=lambda r: r["auroc"]) for s in SIGNIFICANCE}
        sig, untested, noise = by[SIGNIFICANCE[0]], by[SIGNIFICANCE[1]], by[SIGNIFICANCE[2]]
        if sig:
            out.append(
                _finding(
                    "significantly inverted classes",
                    "warn",
                    len(sig),
                    0,
                    label,
                    [r["class"] for r in sig],
                    "The method ranks these classes' anomalies below the normals beyond noise (Holm-corrected over its "
                    "classes): its average over classes mixes opposite behaviours; report it per class, or check the "
                    "class definitions and the score direction.",
                    "; ".join(_class_text(r) for r in sig[:6]),
                )
            )
        if untested:
            out.append(
                _finding(
                    "classes below ½ − ε, untested",
                    "warn",
                    len(untested),
                    0,
                    label,
                    [r["class"] for r in untested],
                    "Below the near-random band, but the table gives neither the class counts (n_pos, n_neg) nor a "
                    "std to tell an inversion from noise; add them.",
                    "; ".join(_class_text(r) for r in untested[:6]),
                )
            )
        if g["rho_dir"] is not None and g["rho_dir"] > limit:
            out.append(
                _finding(
                    "direction instability",
                    "warn",
                    g["rho_dir"],
                    limit,
                    label,
                    g["dissenting_classes"],
                    "The score direction differs between classes (\u201cTesting the Test\u201d): ρ_dir is the share of "
                    "classes near random or against the majority direction; read the classes, not the mean.",
                    ", ".join(g["dissenting_classes"][:8])
                    + (f" and {len(g['dissenting_classes']) - 8} more" if len(g["dissenting_classes"]) > 8 else ""),
                )
            )
        if noise:
            out.append(
                _finding(
                    "classes below ½ within noise",
                    "info",
                    len(noise),
                    None,
                    label,
                    [r["class"] for r in noise],
                    "Below ½, but not significantly at these counts or this spread: not evidence of an inversion.",
                    "; ".join(_class_text(r) for r in noise[:6]),
                )
            )
    if not any(f["status"] in ("fail", "warn") for f in out):
        out.append(
            _finding(
                "per-class checks",
                "pass",
                0,
                0,
                "every method",
                [],
                f"No method inverts a class beyond noise or below ½ − ε untested, and ρ_dir ≤ {limit:g} for every "
                "method.",
                "",
            )
        )
    order = {"fail": 0, "warn": 1, "info": 2, "pass": 3}
    out.sort(key=lambda f: order[f["status"]])
    return out


def _finding_text(f: Mapping) -> str:
    from .._format import stat

    if f["check"] == "direction instability":
        return f"ρ_dir = {stat(f['number'])} > {f['threshold']:g} ({f['named']})"
    return f"{f['check']}: {f['number']} ({f['named']})"


def verdict_reason(summary: Mapping) -> str:
    """One sentence on the verdict: the failed gates (given or default) with the methods and classes behind them."""
    gates = summary["gates"]
    bad = [g for g in gates if not g["passed"]]
    if summary.get("default_gates"):
        if not bad:
            return (
                f"No gate was set; the {len(gates)} default check(s) passed: no method inverts a class beyond "
                "noise and ρ_dir stays within the threshold."
            )
        warned = [f for f in summary.get("findings", ()) if f["status"] in ("fail", "warn")]
        return (
            f"No gate was set; {len(bad)} of {len(gates)} default check(s) warn: "
            + "; ".join(f"{f['group']}: {_finding_text(f)}" for f in warned[:4])
            + (f"; {len(warned) - 4} more below" if len(warned) > 4 else "")
            + "."
        )
    if not gates:
        warned = [f for f in summary.get("findings", ()) if f["status"] in ("fail", "warn")]
        return (
            "No gate was set and the default checks were switched off; the findings: "
            + ("; ".join(f"{f['group']}: {f['check']}" for f in warned) if warned else "none")
            + "."
        )
    if not bad:
        return f"All {len(gates)} gate(s) passed."
    return (
        f"{len(bad)} of {len(gates)} gate(s) did not pass: "
        + "; ".join(f"{g['group']}: {g['message']}" for g in bad)
        + "."
    )
