r"""Audit a published per-class AUROC table: dispersion, near-random, inversion and direction instability.

Papers on class-split anomaly detection report one AUROC per held-out (or
normal) class and per method.  From such a table alone, :func:`audit_results`
computes, per (benchmark, representation, method), the statistics of
"Testing the Test" -- mean, population variance σ²_AUC, minimum and maximum,
the near-random rate ρ_rnd(ε), the inversion rate ρ_inv and the direction
instability ρ_dir(ε), each with the classes behind it -- by calling
:func:`auditad.protocol.instability_rates`.  When the table gives the test
counts of a class (``n_pos`` anomalies, ``n_neg`` normals), each AUROC is also
placed on its null distribution (:func:`auditad.nulls.null_distribution`;
exact Mann–Whitney where feasible) and given a Hanley–McNeil interval.

Layouts (``docs/results.md``): *long*, one row per method and class with the
columns ``method`` (or ``detector``), ``class``, ``auroc`` and optionally
``benchmark``, ``representation``, ``n_pos``, ``n_neg``, ``epsilon``; *wide*,
one row per class with one column per method.  Percentages need
``percent=True``; values above 1 without it are refused, never guessed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import numpy as np

from .._json import json_safe
from .table import check_table, read_results_table, to_long
from .._validation import check_choice, check_float
from ..errors import InvalidInputError

__all__ = [
    "LAYOUTS",
    "RESULTS_SCHEMA_VERSION",
    "GROUP_STATISTICS",
    "hanley_mcneil_se",
    "auroc_interval",
    "read_results_table",
    "ResultsGroup",
    "ResultsAudit",
    "audit_results",
    "summary_with_gates",
    "render_results_html",
    "results_markdown",
    "ResultsRun",
    "write_results_report",
]

LAYOUTS = ("auto", "long", "wide")
RESULTS_SCHEMA_VERSION = "1.0"
#: Numeric statistics of one (benchmark, representation, method) group; a gate naming one of them
#: (``"rho_dir <= 0.2"``) is evaluated on every group.
GROUP_STATISTICS = ("epsilon", "n_classes", "mean_auc", "sigma2_auc", "std_auc", "min_auc", "max_auc", "range_auc",
                    "rho_rnd", "rho_inv", "rho_dir", "n_up", "n_down", "n_near", "n_tested",
                    "n_significant_above", "n_significant_below")


# --------------------------------------------------------------------------- Hanley–McNeil interval
def hanley_mcneil_se(auroc, n_pos, n_neg):
    r"""Standard error of an AUROC from the class counts alone (Hanley and McNeil, 1982).

    .. math::

        Q_1 = \frac{A}{2 - A},\qquad Q_2 = \frac{2A^2}{1 + A},\qquad
        \mathrm{SE}^2(A) = \frac{A(1-A) + (n_+ - 1)(Q_1 - A^2) + (n_- - 1)(Q_2 - A^2)}{n_+\, n_-},

    with :math:`n_+` anomalies (the "abnormal" group of the paper) and
    :math:`n_-` normals.  :math:`Q_1, Q_2` are the exponential-model values;
    they make the formula usable without the scores, which is all a published
    table offers.  It is exact for the Mann–Whitney estimator when both score
    distributions are exponential and an approximation otherwise.

    Parameters
    ----------
    auroc : float or array-like
        AUROC values in [0, 1].
    n_pos, n_neg : int or array-like
        Numbers of anomalies and normals (>= 1).

    Returns
    -------
    float or ndarray

    References
    ----------
    J. A. Hanley and B. J. McNeil, "The meaning and use of the area under a
    receiver operating characteristic (ROC) curve", Radiology 143(1), 29–36, 1982.

    See Also
    --------
    auroc_interval : the Wald interval A ± z·SE built on it.

    Examples
    --------
    >>> round(float(hanley_mcneil_se(0.5, 100, 100)), 5)
    0.04093
    """
    a = np.asarray(auroc, dtype=np.float64)
    p = np.asarray(n_pos, dtype=np.float64)
    q = np.asarray(n_neg, dtype=np.float64)
    q1 = a / (2.0 - a)
    q2 = 2.0 * a * a / (1.0 + a)
    var = (a * (1.0 - a) + (p - 1.0) * (q1 - a * a) + (q - 1.0) * (q2 - a * a)) / (p * q)
    se = np.sqrt(np.maximum(var, 0.0))
    return float(se) if se.ndim == 0 else se


def auroc_interval(auroc, n_pos, n_neg, *, confidence: float = 0.95):
    r"""Wald interval :math:`A \pm z_{(1+c)/2}\,\mathrm{SE}_{HM}(A)` of an AUROC, clipped to [0, 1].

    The standard error is Hanley and McNeil's (:func:`hanley_mcneil_se`), the
    one interval computable from a published AUROC and the two class counts.

    Parameters
    ----------
    auroc : float or array-like
    n_pos, n_neg : int or array-like
    confidence : float, default 0.95
        Coverage level c in (0, 1).

    Returns
    -------
    (low, high) : tuple of float or of ndarray

    References
    ----------
    J. A. Hanley and B. J. McNeil, "The meaning and use of the area under a
    receiver operating characteristic (ROC) curve", Radiology 143(1), 29–36, 1982.

    See Also
    --------
    hanley_mcneil_se

    Examples
    --------
    >>> [round(v, 4) for v in auroc_interval(0.8, 50, 50)]
    [0.7128, 0.8872]
    """
    from scipy.stats import norm

    confidence = check_float(confidence, name="confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    z = float(norm.ppf(0.5 + confidence / 2.0))
    a = np.asarray(auroc, dtype=np.float64)
    se = np.asarray(hanley_mcneil_se(a, n_pos, n_neg))
    low, high = np.clip(a - z * se, 0.0, 1.0), np.clip(a + z * se, 0.0, 1.0)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


# --------------------------------------------------------------------------- results
@dataclass(frozen=True, eq=False)
class ResultsGroup:
    """Statistics of one (benchmark, representation, method) over its classes.

    Attributes
    ----------
    benchmark, representation, method : str
    instability : auditad.protocol.InstabilityResult
        Rates and dispersion on the classes common to every method of the benchmark.
    dropped_classes : tuple of str
        Classes of this method left out because another method of the same
        benchmark has no value for them.
    n_tested, n_significant_above, n_significant_below : int
        Classes with counts (and hence a null p-value), and those whose AUROC is
        above / below ½ at the two-sided level 1 − confidence.

    See Also
    --------
    audit_results : the audit of a per-class AUROC table.
    write_results_report : its report, summary and gates.
    auditad.diff.diff_audits : compare two summaries.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
    2. J. A. Hanley, B. J. McNeil, "The meaning and use of the area under a receiver operating
       characteristic (ROC) curve", Radiology 143(1), 1982.
    3. R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
       of Anomaly Detection".
    """

    benchmark: str
    representation: str
    method: str
    instability: object
    dropped_classes: tuple = ()
    n_tested: int = 0
    n_significant_above: int = 0
    n_significant_below: int = 0

    @property
    def label(self) -> str:
        """``"benchmark / representation / method"`` (empty parts left out)."""
        return " / ".join(p for p in (self.benchmark, self.representation, self.method) if p)

    def to_dict(self) -> dict:
        """JSON-safe dict: the statistics and the class lists behind each rate."""
        r = self.instability
        cls = [str(c) for c in r.classes]
        up = [c for c, d in zip(cls, r.directions) if d == 1]
        down = [c for c, d in zip(cls, r.directions) if d == -1]
        near = [c for c, f in zip(cls, r.near_random) if f]
        majority = 1 if r.n_up >= r.n_down else -1
        dissent = [c for c, d in zip(cls, r.directions) if d != majority]
        return json_safe({
            "benchmark": self.benchmark, "representation": self.representation, "method": self.method,
            **r.stats(),
            "n_tested": self.n_tested, "n_significant_above": self.n_significant_above,
            "n_significant_below": self.n_significant_below,
            "classes": cls,
            "near_random_classes": near,
            "inverted_classes": [c for c, f in zip(cls, r.inverted) if f],
            "up_classes": up, "down_classes": down,
            "majority_direction": majority,
            "dissenting_classes": dissent,
            "dropped_classes": list(self.dropped_classes),
        })


@dataclass(frozen=True, eq=False)
class ResultsAudit:
    """Audit of a per-class AUROC table (see :func:`audit_results`).

    Attributes
    ----------
    groups : tuple of ResultsGroup
        One per (benchmark, representation, method), in table order.
    per_class : pandas.DataFrame
        One row per table row: benchmark, representation, method, class, auroc,
        n_pos, n_neg, epsilon, direction, near_random, inverted, in_common, and
        with counts p_greater = P(AUROC_null ≥ a), p_less = P(AUROC_null ≤ a),
        p_two_sided, null_method, se_hanley_mcneil, ci_low, ci_high.
    epsilon, confidence : float
    layout : str
        ``"long"`` or ``"wide"`` (as read).
    percent : bool
    notes : tuple of str
        Statements about the table (classes missing for some method, ...).
    source : str or None
        The file the table came from.

    See Also
    --------
    audit_results : the audit of a per-class AUROC table.
    write_results_report : its report, summary and gates.
    auditad.diff.diff_audits : compare two summaries.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
    2. J. A. Hanley, B. J. McNeil, "The meaning and use of the area under a receiver operating
       characteristic (ROC) curve", Radiology 143(1), 1982.
    3. R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
       of Anomaly Detection".
    """

    groups: tuple
    per_class: object
    epsilon: float
    confidence: float
    layout: str
    percent: bool
    notes: tuple = ()
    source: str | None = None
    benchmarks: tuple = field(default=())

    def to_frame(self):
        """Tidy table, one row per group, with the scalar statistics (full precision)."""
        import pandas as pd

        rows = [{"benchmark": g.benchmark, "representation": g.representation, "method": g.method,
                 **g.instability.stats(), "n_tested": g.n_tested, "n_significant_above": g.n_significant_above,
                 "n_significant_below": g.n_significant_below} for g in self.groups]
        return pd.DataFrame(rows)

    def group(self, method: str, *, benchmark: str | None = None, representation: str | None = None) -> ResultsGroup:
        """The group of ``method`` (and of ``benchmark`` / ``representation`` when the table has several)."""
        found = [g for g in self.groups if g.method == method and (benchmark is None or g.benchmark == benchmark)
                 and (representation is None or g.representation == representation)]
        if len(found) != 1:
            raise KeyError(f"{len(found)} groups match method={method!r}, benchmark={benchmark!r}, "
                           f"representation={representation!r}; groups: {[g.label for g in self.groups]}")
        return found[0]

    def to_dict(self) -> dict:
        """JSON-safe dict with the layout of ``summary.json`` (without gates)."""
        from .. import __version__

        per = self.per_class.copy()
        per["class"] = per["class"].astype(str)
        records = per.to_dict(orient="records")
        for rec in records:
            for key in ("n_pos", "n_neg"):
                rec[key] = None if math.isnan(rec[key]) else int(rec[key])
        return json_safe({
            "schema_version": RESULTS_SCHEMA_VERSION,
            "kind": "results",
            "benchmark": self.benchmarks[0] if len(self.benchmarks) == 1 else " + ".join(self.benchmarks),
            "benchmarks": list(self.benchmarks),
            "source": self.source,
            "settings": {"epsilon": self.epsilon, "confidence": self.confidence, "layout": self.layout,
                         "percent": self.percent},
            "n_groups": len(self.groups),
            "groups": [g.to_dict() for g in self.groups],
            "per_class": records,
            "notes": list(self.notes),
            "environment": {"auditad": __version__},
        })

    def summary_text(self) -> str:
        """A plain-text table for the command line."""
        lines = [f"Per-class AUROC audit: {len(self.groups)} group(s), epsilon = {self.epsilon:g}",
                 f"{'group':<36}{'K':>4}{'mean':>8}{'sigma2':>9}{'min':>7}{'max':>7}{'rho_rnd':>9}{'rho_inv':>9}"
                 f"{'rho_dir':>9}"]
        for g in self.groups:
            r = g.instability
            lines.append(f"{g.label[:35]:<36}{r.n_classes:>4}{r.mean_auc:>8.3f}{r.sigma2_auc:>9.4f}{r.min_auc:>7.3f}"
                         f"{r.max_auc:>7.3f}{r.rho_rnd:>9.3f}{r.rho_inv:>9.3f}{r.rho_dir:>9.3f}")
        for n in self.notes:
            lines.append(f"note: {n}")
        return "\n".join(lines)


# --------------------------------------------------------------------------- the audit
def _null_p_values(auroc: float, n_pos: int, n_neg: int, cache: dict):
    from ..nulls import null_distribution

    key = (n_pos, n_neg, auroc)
    if key not in cache:
        up = null_distribution(n_pos, n_neg, metrics=("auroc",), observed={"auroc": auroc})["auroc"]
        # the null of AUROC is symmetric about 1/2: P(S <= a) = P(S >= 1 - a)
        down = null_distribution(n_pos, n_neg, metrics=("auroc",), observed={"auroc": 1.0 - auroc})["auroc"]
        cache[key] = (up.p_value, down.p_value, up.method)
    return cache[key]


def audit_results(frame, *, epsilon: float = 0.05, layout: str = "auto", percent: bool = False,
                  confidence: float = 0.95, benchmark: str | None = None, source: str | None = None
                  ) -> ResultsAudit:
    r"""Dispersion, instability rates and per-class significance of a published per-class AUROC table.

    For each (benchmark, representation, method) with K classes common to all
    methods of its benchmark (and representation), :func:`auditad.protocol.instability_rates`
    gives

    .. math::

        \rho_{rnd}(\varepsilon) = \tfrac1K\sum_c \mathbb 1[|A(c)-\tfrac12|\le\varepsilon],\quad
        \rho_{inv} = \tfrac1K\sum_c \mathbb 1[A(c)<\tfrac12],\quad
        \rho_{dir}(\varepsilon) = 1-\tfrac1K\max(n_\uparrow, n_\downarrow),

    with :math:`n_\uparrow, n_\downarrow` the classes above ½ + ε and below
    ½ − ε, and the mean, σ²_AUC (ddof 0), minimum and maximum of A(c).  With
    counts, each A(c) gets :math:`p_> = P(A_0 \ge A(c))`, :math:`p_< = P(A_0 \le A(c))`
    and :math:`p = \min(1, 2\min(p_>, p_<))` under the random-ranking null
    :math:`A_0` (:func:`auditad.nulls.null_distribution`: exact Mann–Whitney
    where feasible, else normal; the method is recorded), and the interval of
    :func:`auroc_interval` (Hanley–McNeil standard error).

    Parameters
    ----------
    frame : pandas.DataFrame
        Long or wide table (see the module documentation).
    epsilon : float, default 0.05
        Half-width of the near-random band, for rows without an ``epsilon`` column value.
    layout : {"auto", "long", "wide"}
        ``auto``: long when the frame has an ``auroc`` column.
    percent : bool, default False
        The AUROC values are percentages (0–100).
    confidence : float, default 0.95
        Level of the intervals; significance is judged at 1 − confidence.
    benchmark : str, optional
        Name of the benchmark when the table has no ``benchmark`` column (default ``"results"``).
    source : str, optional
        Where the table came from (recorded in the result).

    Returns
    -------
    ResultsAudit

    Raises
    ------
    InvalidInputError
        Missing columns, an AUROC that is missing, not a number or outside
        [0, 1], duplicate (method, class) rows, counts that are not positive
        whole numbers, an epsilon that differs within one method.

    References
    ----------
    "Testing the Test: Score-Direction Instability in Class-Split Anomaly
    Detection" (near-random, inversion and direction-instability rates).
    J. A. Hanley and B. J. McNeil, "The meaning and use of the area under a
    receiver operating characteristic (ROC) curve", Radiology 143(1), 29–36, 1982.

    See Also
    --------
    auditad.protocol.instability_rates, auditad.nulls.null_distribution, auroc_interval

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"method": "m", "class": list("abcde"), "auroc": [0.9, 0.3, 0.52, 0.48, 0.7]})
    >>> g = audit_results(table).groups[0].instability
    >>> round(g.rho_rnd, 3), round(g.rho_inv, 3), round(g.rho_dir, 3)
    (0.4, 0.4, 0.6)
    """
    import pandas as pd

    from ..protocol import instability_rates

    if not isinstance(frame, pd.DataFrame):
        raise InvalidInputError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    epsilon = check_float(epsilon, name="epsilon", low=0.0, high=0.5, high_open=True)
    confidence = check_float(confidence, name="confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    layout = check_choice(layout, LAYOUTS, name="layout")
    if not isinstance(percent, bool):
        raise InvalidInputError(f"percent must be True or False, got {percent!r}")
    long, layout = to_long(frame, layout)
    cols = check_table(long, percent=percent, epsilon=epsilon, benchmark=benchmark)
    n = len(cols["method"])
    notes: list[str] = []
    alpha = 1.0 - confidence

    # groups in table order; classes in table order
    order: dict = {}
    for i in range(n):
        order.setdefault((cols["benchmark"][i], cols["representation"][i]), {}).setdefault(cols["method"][i], []).append(i)
    in_common = np.zeros(n, dtype=bool)
    direction = np.zeros(n, dtype=np.int64)
    near = np.zeros(n, dtype=bool)
    inverted = np.zeros(n, dtype=bool)
    groups = []
    for (bench, rep), methods in order.items():
        class_sets = {m: [cols["class"][i] for i in idx] for m, idx in methods.items()}
        common = set.intersection(*(set(v) for v in class_sets.values()))
        where = f"benchmark {bench!r}" + (f", representation {rep!r}" if rep else "")
        if not common:
            raise InvalidInputError(f"{where}: the methods {list(methods)} share no class, so their rates cannot be "
                                    "compared; check the class names")
        for m, idx in methods.items():
            eps = {float(cols["epsilon"][i]) for i in idx}
            if len(eps) > 1:
                raise InvalidInputError(f"{where}, method {m!r}: epsilon differs between its rows ({sorted(eps)}); "
                                        "one method uses one epsilon")
            dropped = tuple(c for c in class_sets[m] if c not in common)
            if dropped:
                notes.append(f"{where}: class(es) {', '.join(dropped)} of method {m!r} are missing for another "
                             f"method; the rates use the {len(common)} classes common to all methods")
            keep = [i for i in idx if cols["class"][i] in common]
            res = instability_rates(cols["auroc"][keep], epsilon=eps.pop(), classes=np.array(
                [cols["class"][i] for i in keep], dtype=object))
            in_common[keep] = True
            direction[keep] = res.directions
            near[keep] = res.near_random
            inverted[keep] = res.inverted
            groups.append([bench, rep, m, res, dropped, keep])

    # per-class nulls and intervals (only where counts are given)
    p_gt = np.full(n, np.nan)
    p_lt = np.full(n, np.nan)
    null_method = np.array([None] * n, dtype=object)
    have = ~np.isnan(cols["n_pos"])
    cache: dict = {}
    for i in np.flatnonzero(have):
        p_gt[i], p_lt[i], null_method[i] = _null_p_values(float(cols["auroc"][i]), int(cols["n_pos"][i]),
                                                          int(cols["n_neg"][i]), cache)
    p_two = np.minimum(1.0, 2.0 * np.minimum(p_gt, p_lt))
    se = np.full(n, np.nan)
    low = np.full(n, np.nan)
    high = np.full(n, np.nan)
    if have.any():
        se[have] = hanley_mcneil_se(cols["auroc"][have], cols["n_pos"][have], cols["n_neg"][have])
        low[have], high[have] = auroc_interval(cols["auroc"][have], cols["n_pos"][have], cols["n_neg"][have],
                                               confidence=confidence)
    sig_above = have & (p_two <= alpha) & (cols["auroc"] > 0.5)
    sig_below = have & (p_two <= alpha) & (cols["auroc"] < 0.5)
    if not have.all() and have.any():
        notes.append(f"{int((~have).sum())} row(s) have no n_pos/n_neg: no p-value or interval for them")

    result_groups = tuple(
        ResultsGroup(benchmark=b, representation=r, method=m, instability=res, dropped_classes=d,
                     n_tested=int(have[keep].sum()), n_significant_above=int(sig_above[keep].sum()),
                     n_significant_below=int(sig_below[keep].sum()))
        for b, r, m, res, d, keep in groups)
    per_class = pd.DataFrame({
        "benchmark": cols["benchmark"], "representation": cols["representation"], "method": cols["method"],
        "class": cols["class"], "auroc": cols["auroc"], "n_pos": cols["n_pos"], "n_neg": cols["n_neg"],
        "epsilon": cols["epsilon"], "direction": direction, "near_random": near, "inverted": inverted,
        "in_common": in_common, "p_greater": p_gt, "p_less": p_lt, "p_two_sided": p_two,
        "null_method": null_method, "se_hanley_mcneil": se, "ci_low": low, "ci_high": high,
        "significant_above": sig_above, "significant_below": sig_below,
    })
    benchmarks = tuple(dict.fromkeys(cols["benchmark"]))
    return ResultsAudit(groups=result_groups, per_class=per_class, epsilon=epsilon, confidence=confidence,
                        layout=layout, percent=percent, notes=tuple(notes), source=source, benchmarks=benchmarks)


def summary_with_gates(audit: ResultsAudit, rules) -> tuple[dict, dict]:
    """``(summary dict with "gates" and "verdict", {group label: [GateResult, ...]})``.

    A rule whose metric is a bare statistic name of :data:`GROUP_STATISTICS`
    (``"rho_dir <= 0.2"``) is evaluated on every group; any other metric is a
    dotted path into the summary (``"groups.0.rho_dir <= 0.2"``).

    See Also
    --------
    auditad.gates.checks.evaluate_gates : the evaluation of one rule on one summary.
    write_results_report : writes the summary, the report and the CI files.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
    2. J. A. Hanley, B. J. McNeil, "The meaning and use of the area under a receiver operating
       characteristic (ROC) curve", Radiology 143(1), 1982.
    3. R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
       of Anomaly Detection".
    """
    from ..gates.checks import evaluate_gates, rules_from_config, verdict

    summary = audit.to_dict()
    rules = rules_from_config(list(rules), source="gates")
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
    summary["verdict"] = verdict([r for _, r in every])
    return summary, by_group


def _fmt_p(p) -> str:
    if p is None or (isinstance(p, float) and not math.isfinite(p)):
        return "\u2013"
    return "< 1e-300" if p == 0 else f"{p:.2g}"


def render_results_html(summary: Mapping) -> str:
    """Self-contained HTML page of a results audit (autoescaped jinja2 template ``results.html.j2``).

    See Also
    --------
    auditad.report.render.environment : the autoescaped jinja2 environment used.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
    2. J. A. Hanley, B. J. McNeil, "The meaning and use of the area under a receiver operating
       characteristic (ROC) curve", Radiology 143(1), 1982.
    3. R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
       of Anomaly Detection".
    """
    from .. import __version__
    from ..report.render import environment

    env = environment()
    num = env.filters["num"]
    groups = [{**g, "label": " / ".join(p for p in (g["benchmark"], g["representation"], g["method"]) if p)}
              for g in summary["groups"]]
    per = []
    for r in summary["per_class"]:
        per.append({**r, "auroc_s": num(r["auroc"]), "ci": (f"{num(r['ci_low'])}–{num(r['ci_high'])}"
                                                          if r["ci_low"] is not None else "\u2013"),
                    "p_s": _fmt_p(r["p_two_sided"]), "p_gt": _fmt_p(r["p_greater"]), "p_lt": _fmt_p(r["p_less"])})
    bad = [g for g in summary["gates"] if not g["passed"]]
    verdict_text = ("No gate was set." if not summary["gates"] else
                    f"All {len(summary['gates'])} gate(s) passed." if not bad else
                    f"{len(bad)} of {len(summary['gates'])} gate(s) did not pass: "
                    + "; ".join(f"{g['group']}: {g['message']}" for g in bad) + ".")
    return env.get_template("results.html.j2").render(
        summary=summary, groups=groups, per_class=per, version=__version__, verdict=summary["verdict"],
        verdict_text=verdict_text, has_counts=any(r["n_pos"] is not None for r in summary["per_class"]))


def results_markdown(summary: Mapping, by_group: Mapping | None = None) -> str:
    """Markdown page of a results audit for a CI job summary: one row per group, then the gates.

    See Also
    --------
    auditad.report.export.markdown_summary : the gate section.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
    2. J. A. Hanley, B. J. McNeil, "The meaning and use of the area under a receiver operating
       characteristic (ROC) curve", Radiology 143(1), 1982.
    3. R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
       of Anomaly Detection".
    """
    from ..report.export import markdown_summary, md_escape as _md_escape

    def f(x, d=3):
        return "\u2013" if x is None else f"{x:.{d}f}"

    lines = [f"## auditad results: {_md_escape(summary['benchmark'])}", "",
             f"ε = {summary['settings']['epsilon']:g}; rates from \"Testing the Test\" (near random: "
             "|AUROC − ½| ≤ ε; inverted: AUROC < ½).", "",
             "| group | K | mean | σ² | min | max | ρ_rnd | ρ_inv | ρ_dir | against the majority direction |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for g in summary["groups"]:
        label = " / ".join(p for p in (g["benchmark"], g["representation"], g["method"]) if p)
        lines.append(f"| {_md_escape(label)} | {g['n_classes']} | {f(g['mean_auc'])} | {f(g['sigma2_auc'], 4)} | "
                     f"{f(g['min_auc'])} | {f(g['max_auc'])} | {f(g['rho_rnd'])} | {f(g['rho_inv'])} | "
                     f"{f(g['rho_dir'])} | {_md_escape(', '.join(g['dissenting_classes'])) or '–'} |")
    for note in summary["notes"]:
        lines += ["", f"Note: {_md_escape(note)}"]
    text = "\n".join(lines) + "\n"
    if by_group:
        text += "\n" + markdown_summary(by_group, title="gates")
    return text


@dataclass(frozen=True, eq=False)
class ResultsRun:
    """What :func:`write_results_report` wrote and decided.

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
    audit_results : the audit of a per-class AUROC table.
    write_results_report : its report, summary and gates.
    auditad.diff.diff_audits : compare two summaries.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
    2. J. A. Hanley, B. J. McNeil, "The meaning and use of the area under a receiver operating
       characteristic (ROC) curve", Radiology 143(1), 1982.
    3. R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
       of Anomaly Detection".
    """

    out: Path | None
    summary: dict
    gate_results: dict
    exit_code: int
    verdict: str


_MARKER = ".auditad-results"


def write_results_report(audit: ResultsAudit, out=None, *, gates=(), fail_on: str = "fail", json_path=None,
                         junit=None, markdown=None) -> ResultsRun:
    """Evaluate gates on a :class:`ResultsAudit` and write its report files (each atomically).

    Parameters
    ----------
    audit : ResultsAudit
    out : path, optional
        Folder to create (or replace, if it holds an earlier results report) with
        ``report.html``, ``summary.json`` (schema ``auditad/schemas/results.schema.json``)
        and ``tables/groups.csv``, ``tables/per_class.csv``.
    gates : iterable of str, dict or GateRule
        See :func:`summary_with_gates`.
    fail_on : {"fail", "warn"}
    json_path, junit, markdown : path, optional
        Also write the summary JSON, the gates as JUnit XML, a Markdown page.

    Returns
    -------
    ResultsRun

    See Also
    --------
    audit_results, summary_with_gates, results_markdown

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
    2. J. A. Hanley, B. J. McNeil, "The meaning and use of the area under a receiver operating
       characteristic (ROC) curve", Radiology 143(1), 1982.
    3. R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
       of Anomaly Detection".
    """
    import json
    import shutil

    from .._io import prepare_output_dir, replace_dir_atomic, write_text_atomic
    from ..gates.checks import exit_code

    fail_on = check_choice(fail_on, ("fail", "warn"), name="fail_on")
    summary, by_group = summary_with_gates(audit, gates)
    payload = json.dumps(summary, indent=2, allow_nan=False, ensure_ascii=False) + "\n"
    every = [r for rs in by_group.values() for r in rs]
    out_path = None
    if out is not None:
        out_path = Path(out)
        if out_path.is_dir() and any(out_path.iterdir()) and not (out_path / _MARKER).is_file():
            raise InvalidInputError(f"out={str(out_path)!r} is a non-empty folder that is not an auditad results "
                                    "report; choose a new or empty folder (it would be replaced)")
        out_path, tmp = prepare_output_dir(out_path)
        try:
            (tmp / "tables").mkdir()
            write_text_atomic(tmp / "summary.json", payload)
            write_text_atomic(tmp / "report.html", render_results_html(summary))
            write_text_atomic(tmp / "tables" / "groups.csv", audit.to_frame().to_csv(index=False))
            write_text_atomic(tmp / "tables" / "per_class.csv", audit.per_class.to_csv(index=False))
            write_text_atomic(tmp / _MARKER, "Written by 'auditad results'; the next run into this folder "
                                             "replaces it.\n")
            replace_dir_atomic(tmp, out_path)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    if json_path is not None:
        write_text_atomic(json_path, payload)
    if junit is not None:
        from ..report.export import write_junit

        write_junit(by_group, junit, name="auditad results gates")
    if markdown is not None:
        write_text_atomic(markdown, results_markdown(summary, by_group))
    return ResultsRun(out=out_path, summary=summary, gate_results=by_group,
                      exit_code=exit_code(every, fail_on=fail_on), verdict=summary["verdict"])
