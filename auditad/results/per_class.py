"""The audit of one per-class AUROC table: `audit_results`, its `ResultsAudit` and `ResultsGroup`, the
Hanley–McNeil interval of one AUROC (`hanley_mcneil_se`, `auroc_interval`). Re-exported by
[`auditad.results`][auditad.results]."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._json import json_safe
from ..findings import BELOW_UNTESTED, BELOW_WITHIN_NOISE, SIGNIFICANCE, SIGNIFICANTLY_INVERTED
from .reading import classify, per_class_findings
from .table import check_table, to_long
from .._validation import check_choice, check_float, renamed_parameter
from ..errors import InvalidInputError


__all__ = [
    "LAYOUTS",
    "RESULTS_SCHEMA_VERSION",
    "hanley_mcneil_se",
    "auroc_interval",
    "ResultsGroup",
    "ResultsAudit",
    "audit_results",
]

LAYOUTS = ("auto", "long", "wide")
#: 1.1: per-class significance, std and interval method; findings, status and default gates.
RESULTS_SCHEMA_VERSION = "1.1"


# --------------------------------------------------------------------------- Hanley–McNeil interval
def hanley_mcneil_se(auroc, n_pos, n_neg):
    r"""Standard error of an AUROC from the class counts alone (Hanley and McNeil, 1982).

    \[
    Q_1 = \frac{A}{2 - A},\qquad Q_2 = \frac{2A^2}{1 + A},\qquad
    \mathrm{SE}^2(A) = \frac{A(1-A) + (n_+ - 1)(Q_1 - A^2) + (n_- - 1)(Q_2 - A^2)}{n_+\, n_-},
    \]

    with \(n_+\) anomalies (the "abnormal" group of the paper) and
    \(n_-\) normals.  \(Q_1, Q_2\) are the exponential-model values;
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
    - [`auroc_interval`][auditad.results.auroc_interval]: the Wald interval A ± z·SE built on it.

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


@renamed_parameter("confidence", "confidence_level")
def auroc_interval(auroc, n_pos, n_neg, *, confidence_level: float = 0.95):
    r"""Wald interval \(A \pm z_{(1+c)/2}\,\mathrm{SE}_{HM}(A)\) of an AUROC, clipped to [0, 1].

    The standard error is Hanley and McNeil's ([`hanley_mcneil_se`][auditad.results.hanley_mcneil_se]), the
    one interval computable from a published AUROC and the two class counts.

    Parameters
    ----------
    auroc : float or array-like
    n_pos, n_neg : int or array-like
    confidence_level : float, default 0.95
        Coverage level c in (0, 1). Its former name ``confidence`` is still accepted, with a `DeprecationWarning`.

    Returns
    -------
    (low, high) : tuple of float or of ndarray

    References
    ----------
    J. A. Hanley and B. J. McNeil, "The meaning and use of the area under a
    receiver operating characteristic (ROC) curve", Radiology 143(1), 29–36, 1982.

    See Also
    --------
    - [`hanley_mcneil_se`][auditad.results.hanley_mcneil_se]

    Examples
    --------
    >>> [round(v, 4) for v in auroc_interval(0.8, 50, 50)]
    [0.7128, 0.8872]
    """
    from scipy.stats import norm

    confidence_level = check_float(
        confidence_level, name="confidence_level", low=0.0, high=1.0, low_open=True, high_open=True
    )
    z = float(norm.ppf(0.5 + confidence_level / 2.0))
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
        above / below ½ at the two-sided level 1 − confidence_level (uncorrected).
    significance : tuple of str
        The reading of each class of ``instability.classes`` (one of
        `SIGNIFICANCE`): Holm-corrected over the method's
        classes at known counts, the interval with a std, the near-random band otherwise.
    where : dict of str to str
        The classes behind ``n_inverted_significant``, ``n_inverted_untested``,
        ``n_below_within_noise`` and ``rho_dir``, with AUROC, interval and p (gate messages name them).

    See Also
    --------
    - [`ResultsAudit`][auditad.results.ResultsAudit]: holds one group per (benchmark, representation, method).
    - [`auditad.protocol.instability_rates`][auditad.protocol.instability_rates]: the rates of ``instability``.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
    2. J. A. Hanley, B. J. McNeil, "The meaning and use of the area under a receiver operating
       characteristic (ROC) curve", Radiology 143(1), 1982.
    """

    benchmark: str
    representation: str
    method: str
    instability: object
    dropped_classes: tuple = ()
    n_tested: int = 0
    n_significant_above: int = 0
    n_significant_below: int = 0
    significance: tuple = ()
    where: dict = field(default_factory=dict)

    def classes_read(self, category: str) -> list:
        """The classes (of the rates) whose reading is ``category`` (one of `SIGNIFICANCE`)."""
        return [str(c) for c, s in zip(self.instability.classes, self.significance) if s == category]

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
        read = {s: self.classes_read(s) for s in SIGNIFICANCE}
        return json_safe(
            {
                "benchmark": self.benchmark,
                "representation": self.representation,
                "method": self.method,
                **r.stats(),
                "n_tested": self.n_tested,
                "n_significant_above": self.n_significant_above,
                "n_significant_below": self.n_significant_below,
                "n_inverted_significant": len(read[SIGNIFICANTLY_INVERTED]),
                "n_inverted_untested": len(read[BELOW_UNTESTED]),
                "n_below_within_noise": len(read[BELOW_WITHIN_NOISE]),
                "inverted_significant_classes": read[SIGNIFICANTLY_INVERTED],
                "inverted_untested_classes": read[BELOW_UNTESTED],
                "below_within_noise_classes": read[BELOW_WITHIN_NOISE],
                **{f"{k}_where": v for k, v in self.where.items()},
                "classes": cls,
                "near_random_classes": near,
                "inverted_classes": [c for c, f in zip(cls, r.inverted) if f],
                "up_classes": up,
                "down_classes": down,
                "majority_direction": majority,
                "dissenting_classes": dissent,
                "dropped_classes": list(self.dropped_classes),
            }
        )


@dataclass(frozen=True, eq=False)
class ResultsAudit:
    """Audit of a per-class AUROC table (see [`audit_results`][auditad.results.audit_results]).

    Attributes
    ----------
    groups : tuple of ResultsGroup
        One per (benchmark, representation, method), in table order.
    per_class : pandas.DataFrame
        One row per table row: benchmark, representation, method, class, auroc,
        n_pos, n_neg, epsilon, direction, near_random, inverted, in_common, and
        with counts p_greater = P(AUROC_null ≥ a), p_less = P(AUROC_null ≤ a),
        p_two_sided, null_method, se_hanley_mcneil, ci_low, ci_high.
    epsilon, confidence_level : float
        Near-random half-width and the level of the intervals (``confidence`` is the former name of
        ``confidence_level``, a read-only alias).
    layout : str
        ``"long"`` or ``"wide"`` (as read).
    percent : bool
    notes : tuple of str
        Statements about the table (classes missing for some method, ...).
    source : str or None
        The file the table came from.

    See Also
    --------
    - [`audit_results`][auditad.results.audit_results]: the audit of a per-class AUROC table.
    - [`write_results_report`][auditad.results.write_results_report]: its report, summary and gates.
    - [`auditad.diff.diff_audits`][auditad.diff.diff_audits]: compare two summaries.

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
    confidence_level: float
    layout: str
    percent: bool
    notes: tuple = ()
    source: str | None = None
    benchmarks: tuple = field(default=())

    @property
    def confidence(self) -> float:
        """Former name of `confidence_level` (read-only)."""
        return self.confidence_level

    def to_frame(self):
        """Tidy table, one row per group, with the scalar statistics (full precision)."""
        import pandas as pd

        rows = [
            {
                "benchmark": g.benchmark,
                "representation": g.representation,
                "method": g.method,
                **g.instability.stats(),
                "n_tested": g.n_tested,
                "n_significant_above": g.n_significant_above,
                "n_significant_below": g.n_significant_below,
                "n_inverted_significant": len(g.classes_read(SIGNIFICANTLY_INVERTED)),
                "n_inverted_untested": len(g.classes_read(BELOW_UNTESTED)),
                "n_below_within_noise": len(g.classes_read(BELOW_WITHIN_NOISE)),
            }
            for g in self.groups
        ]
        return pd.DataFrame(rows)

    def group(self, method: str, *, benchmark: str | None = None, representation: str | None = None) -> ResultsGroup:
        """The group of ``method`` (and of ``benchmark`` / ``representation`` when the table has several)."""
        found = [
            g
            for g in self.groups
            if g.method == method
            and (benchmark is None or g.benchmark == benchmark)
            and (representation is None or g.representation == representation)
        ]
        if len(found) != 1:
            raise KeyError(
                f"{len(found)} groups match method={method!r}, benchmark={benchmark!r}, "
                f"representation={representation!r}; groups: {[g.label for g in self.groups]}"
            )
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
        out = json_safe(
            {
                "schema_version": RESULTS_SCHEMA_VERSION,
                "kind": "results",
                "benchmark": self.benchmarks[0] if len(self.benchmarks) == 1 else " + ".join(self.benchmarks),
                "benchmarks": list(self.benchmarks),
                "source": self.source,
                "settings": {
                    "epsilon": self.epsilon,
                    "confidence": self.confidence_level,
                    "layout": self.layout,
                    "percent": self.percent,
                },
                "n_groups": len(self.groups),
                "groups": [g.to_dict() for g in self.groups],
                "per_class": records,
                "notes": list(self.notes),
                "environment": {"auditad": __version__},
            }
        )
        out["findings"] = per_class_findings(out)
        statuses = [f["status"] for f in out["findings"]]
        out["status"] = "fail" if "fail" in statuses else "warn" if "warn" in statuses else "pass"
        return out

    def summary_text(self) -> str:
        """A plain-text table for the command line."""
        from .._format import text_table

        rows = []
        for g in self.groups:
            r = g.instability
            rows.append(
                [
                    g.label[:35],
                    r.n_classes,
                    f"{r.mean_auc:.3f}",
                    f"{r.sigma2_auc:.4f}",
                    f"{r.min_auc:.3f}",
                    f"{r.max_auc:.3f}",
                    f"{r.rho_rnd:.3f}",
                    f"{r.rho_inv:.3f}",
                    f"{r.rho_dir:.3f}",
                ]
            )
        lines = [
            f"Per-class AUROC audit: {len(self.groups)} group(s), epsilon = {self.epsilon:g}",
            text_table(
                rows,
                header=("group", "K", "mean", "sigma2", "min", "max", "rho_rnd", "rho_inv", "rho_dir"),
                align="lr",
                sep="",
                widths=(36, 4, 8, 9, 7, 7, 9, 9, 9),
            ),
        ]
        for n in self.notes:
            lines.append(f"note: {n}")
        return "\n".join(lines)


# --------------------------------------------------------------------------- the audit
def _class_text(cls, auroc, low, high, p_holm) -> str:
    """``"frog (0.429 [0.410, 0.448], Holm p = 2.4e-13)"``: a class as the findings and gate messages name it."""
    from .._format import pvalue, stat

    text = f"{cls} ({stat(auroc)}"
    if np.isfinite(low) and np.isfinite(high):
        text += f" [{stat(low)}, {stat(high)}]"
    if np.isfinite(p_holm):
        text += f", Holm p = {pvalue(p_holm)}"
    return text + ")"


def _null_p_values(auroc: float, n_pos: int, n_neg: int, cache: dict):
    from ..nulls import null_distribution

    key = (n_pos, n_neg, auroc)
    if key not in cache:
        up = null_distribution(n_pos, n_neg, metrics=("auroc",), observed={"auroc": auroc})["auroc"]
        # the null of AUROC is symmetric about 1/2: P(S <= a) = P(S >= 1 - a)
        down = null_distribution(n_pos, n_neg, metrics=("auroc",), observed={"auroc": 1.0 - auroc})["auroc"]
        cache[key] = (up.p_value, down.p_value, up.method)
    return cache[key]


def _rates_by_group(cols: dict, notes: list) -> tuple:
    """`instability_rates` of every (benchmark, representation, method) on the classes common to the methods of
    its (benchmark, representation), in table order; notes on the dropped classes are appended to ``notes``.

    Returns ``(groups, in_common, direction, near, inverted)``: ``groups`` lists ``[benchmark, representation,
    method, rates, dropped classes, kept rows, rows]``, the arrays give each table row's part in its rates.
    """
    from ..protocol import instability_rates

    n = len(cols["method"])
    order: dict = {}  # groups in table order; classes in table order
    for i in range(n):
        order.setdefault((cols["benchmark"][i], cols["representation"][i]), {}).setdefault(
            cols["method"][i], []
        ).append(i)
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
            raise InvalidInputError(
                f"{where}: the methods {list(methods)} share no class, so their rates cannot be "
                "compared; check the class names"
            )
        for m, idx in methods.items():
            eps = {float(cols["epsilon"][i]) for i in idx}
            if len(eps) > 1:
                raise InvalidInputError(
                    f"{where}, method {m!r}: epsilon differs between its rows ({sorted(eps)}); "
                    "one method uses one epsilon"
                )
            dropped = tuple(c for c in class_sets[m] if c not in common)
            if dropped:
                notes.append(
                    f"{where}: class(es) {', '.join(dropped)} of method {m!r} are missing for another "
                    f"method; the rates use the {len(common)} classes common to all methods"
                )
            keep = [i for i in idx if cols["class"][i] in common]
            res = instability_rates(
                cols["auroc"][keep], epsilon=eps.pop(), classes=np.array([cols["class"][i] for i in keep], dtype=object)
            )
            in_common[keep] = True
            direction[keep] = res.directions
            near[keep] = res.near_random
            inverted[keep] = res.inverted
            groups.append([bench, rep, m, res, dropped, keep, idx])
    return groups, in_common, direction, near, inverted


def _where_texts(cols: dict, keep: list, res, significance, low, high, p_holm) -> dict:
    """`ResultsGroup.where`: the classes behind a group's counts and its ρ_dir, as gate messages name them."""
    where = {}
    for key, cat in (
        ("n_inverted_significant", SIGNIFICANTLY_INVERTED),
        ("n_inverted_untested", BELOW_UNTESTED),
        ("n_below_within_noise", BELOW_WITHIN_NOISE),
    ):
        rows = sorted((i for i in keep if significance[i] == cat), key=lambda i: cols["auroc"][i])
        where[key] = "; ".join(
            _class_text(cols["class"][i], cols["auroc"][i], low[i], high[i], p_holm[i]) for i in rows[:5]
        ) + (f" and {len(rows) - 5} more" if len(rows) > 5 else "")
    majority = 1 if res.n_up >= res.n_down else -1
    dissent = [str(c) for c, dd in zip(res.classes, res.directions) if dd != majority]
    where["rho_dir"] = (
        (
            "against the majority or near random: "
            + ", ".join(dissent[:8])
            + (f" and {len(dissent) - 8} more" if len(dissent) > 8 else "")
        )
        if dissent
        else ""
    )
    return where


def _class_tests(cols: dict, confidence: float) -> dict:
    """Per row: the p-values against the AUROC null at its counts (where n_pos/n_neg are given) and the
    interval (Hanley–McNeil from the counts, the std over runs, or both: independent sources of spread)."""
    from scipy.stats import norm

    n = len(cols["method"])
    p_gt = np.full(n, np.nan)
    p_lt = np.full(n, np.nan)
    null_method = np.array([None] * n, dtype=object)
    have = ~np.isnan(cols["n_pos"])
    cache: dict = {}
    for i in np.flatnonzero(have):
        p_gt[i], p_lt[i], null_method[i] = _null_p_values(
            float(cols["auroc"][i]), int(cols["n_pos"][i]), int(cols["n_neg"][i]), cache
        )
    p_two = np.minimum(1.0, 2.0 * np.minimum(p_gt, p_lt))
    se = np.full(n, np.nan)
    if have.any():
        se[have] = hanley_mcneil_se(cols["auroc"][have], cols["n_pos"][have], cols["n_neg"][have])
    # the interval: Hanley–McNeil from the counts, the std over runs, or both (independent sources of spread)
    std = cols["std"]
    has_std = np.isfinite(std)
    se_total = np.where(have & has_std, np.sqrt(se * se + std * std), np.where(have, se, std))
    interval_method = np.where(
        have & has_std, "hanley_mcneil+std", np.where(have, "hanley_mcneil", np.where(has_std, "std", ""))
    ).astype(object)
    interval_method[interval_method == ""] = None

    z = float(norm.ppf(0.5 + confidence / 2.0))
    with np.errstate(invalid="ignore"):
        low = np.clip(cols["auroc"] - z * se_total, 0.0, 1.0)
        high = np.clip(cols["auroc"] + z * se_total, 0.0, 1.0)
    return {
        "p_gt": p_gt,
        "p_lt": p_lt,
        "p_two": p_two,
        "null_method": null_method,
        "se": se,
        "se_total": se_total,
        "interval_method": interval_method,
        "low": low,
        "high": high,
        "have": have,
        "has_std": has_std,
    }


@renamed_parameter("confidence", "confidence_level")
def audit_results(
    frame,
    *,
    epsilon: float = 0.05,
    layout: str = "auto",
    percent: bool = False,
    confidence_level: float = 0.95,
    benchmark: str | None = None,
    source: str | None = None,
) -> ResultsAudit:
    r"""Dispersion, instability rates and per-class significance of a published per-class AUROC table.

    For each (benchmark, representation, method) with K classes common to all
    methods of its benchmark (and representation),
    [`auditad.protocol.instability_rates`][auditad.protocol.instability_rates]
    gives

    \[
    \rho_{rnd}(\varepsilon) = \tfrac1K\sum_c \mathbb 1[|A(c)-\tfrac12|\le\varepsilon],\quad
    \rho_{inv} = \tfrac1K\sum_c \mathbb 1[A(c)<\tfrac12],\quad
    \rho_{dir}(\varepsilon) = 1-\tfrac1K\max(n_\uparrow, n_\downarrow),
    \]

    with \(n_\uparrow, n_\downarrow\) the classes above ½ + ε and below
    ½ − ε, and the mean, σ²_AUC (ddof 0), minimum and maximum of A(c).  With
    counts, each A(c) gets \(p_> = P(A_0 \ge A(c))\), \(p_< = P(A_0 \le A(c))\)
    and \(p = \min(1, 2\min(p_>, p_<))\) under the random-ranking null
    \(A_0\) ([`auditad.nulls.null_distribution`][auditad.nulls.null_distribution]: exact Mann–Whitney
    where feasible, else normal; the method is recorded), and the interval of
    [`auroc_interval`][auditad.results.auroc_interval] (Hanley–McNeil standard error).

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
    confidence_level : float, default 0.95
        Level of the intervals; significance is judged at 1 − confidence_level. Its former name
        ``confidence`` is still accepted, with a `DeprecationWarning`.
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
    - [`auditad.protocol.instability_rates`][auditad.protocol.instability_rates]
    - [`auditad.nulls.null_distribution`][auditad.nulls.null_distribution]
    - [`auroc_interval`][auditad.results.auroc_interval]

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"method": "m", "class": list("abcde"), "auroc": [0.9, 0.3, 0.52, 0.48, 0.7]})
    >>> g = audit_results(table).groups[0].instability
    >>> round(g.rho_rnd, 3), round(g.rho_inv, 3), round(g.rho_dir, 3)
    (0.4, 0.4, 0.6)
    """
    import pandas as pd

    from ..metrics.multiple_testing import holm_adjust

    if not isinstance(frame, pd.DataFrame):
        raise InvalidInputError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    epsilon = check_float(epsilon, name="epsilon", low=0.0, high=0.5, high_open=True)
    confidence = check_float(
        confidence_level, name="confidence_level", low=0.0, high=1.0, low_open=True, high_open=True
    )
    layout = check_choice(layout, LAYOUTS, name="layout")
    if not isinstance(percent, bool):
        raise InvalidInputError(f"percent must be True or False, got {percent!r}")
    long, layout = to_long(frame, layout)
    cols = check_table(long, percent=percent, epsilon=epsilon, benchmark=benchmark)
    n = len(cols["method"])
    notes: list[str] = []
    alpha = 1.0 - confidence

    groups, in_common, direction, near, inverted = _rates_by_group(cols, notes)

    t = _class_tests(cols, confidence)  # per-class nulls and intervals (only where counts are given)
    have, has_std, low, high, p_two = t["have"], t["has_std"], t["low"], t["high"], t["p_two"]
    sig_above = have & (p_two <= alpha) & (cols["auroc"] > 0.5)
    sig_below = have & (p_two <= alpha) & (cols["auroc"] < 0.5)
    if not have.all() and have.any():
        notes.append(
            f"{int((~have).sum())} row(s) have no n_pos/n_neg: no p-value or interval for them"
            if not has_std.any()
            else f"{int((~have).sum())} row(s) have no n_pos/n_neg: no p-value for them"
        )
    if has_std.any() and not has_std.all():
        notes.append(f"{int((~has_std).sum())} row(s) have no std: their interval, if any, is the counts' alone")
    # Holm over each method's tested classes, and the reading of every class
    p_holm = np.full(n, np.nan)
    for *_, idx in groups:
        p_holm[idx] = holm_adjust(p_two[idx])
    significance = classify(
        cols["auroc"], epsilon=cols["epsilon"], p_holm=p_holm, ci_high=np.where(has_std, high, np.nan), alpha=alpha
    )

    result_groups = []
    for b, r, m, res, d, keep, _ in groups:
        result_groups.append(
            ResultsGroup(
                benchmark=b,
                representation=r,
                method=m,
                instability=res,
                dropped_classes=d,
                n_tested=int(have[keep].sum()),
                n_significant_above=int(sig_above[keep].sum()),
                n_significant_below=int(sig_below[keep].sum()),
                significance=tuple(significance[keep]),
                where=_where_texts(cols, keep, res, significance, low, high, p_holm),
            )
        )
    per_class = pd.DataFrame(
        {
            "benchmark": cols["benchmark"],
            "representation": cols["representation"],
            "method": cols["method"],
            "class": cols["class"],
            "auroc": cols["auroc"],
            "std": cols["std"],
            "n_pos": cols["n_pos"],
            "n_neg": cols["n_neg"],
            "epsilon": cols["epsilon"],
            "direction": direction,
            "near_random": near,
            "inverted": inverted,
            "in_common": in_common,
            "p_greater": t["p_gt"],
            "p_less": t["p_lt"],
            "p_two_sided": p_two,
            "p_holm": p_holm,
            "null_method": t["null_method"],
            "se_hanley_mcneil": t["se"],
            "se": t["se_total"],
            "interval_method": t["interval_method"],
            "ci_low": low,
            "ci_high": high,
            "significant_above": sig_above,
            "significant_below": sig_below,
            "significance": significance,
        }
    )
    benchmarks = tuple(dict.fromkeys(cols["benchmark"]))
    return ResultsAudit(
        groups=tuple(result_groups),
        per_class=per_class,
        epsilon=epsilon,
        confidence_level=confidence,
        layout=layout,
        percent=percent,
        notes=tuple(notes),
        source=source,
        benchmarks=benchmarks,
    )
