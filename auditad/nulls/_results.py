"""Result objects of [`auditad.nulls`][auditad.nulls] and the p-value of an observed score on a null.

Kept apart from the computations so that [`auditad.nulls`][auditad.nulls] stays one readable
file; every name here is re-exported there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace

import numpy as np

from ..metrics import _mann_whitney as _mw
from .._json import json_safe
from .._validation import check_float, describe
from ..errors import InvalidInputError

#: Exact-method limits (above them ``method="auto"`` switches to analytic / Monte Carlo).
#: Additions of the exact Mann-Whitney counts (``_mann_whitney.work``) allowed for ``method="auto"``:
#: 1.5e8 takes 0.11 s on an idle core, ≈ 0.3 s on a loaded one (the whole pmf at 160 × 160, 120 × 200 or 20 × 1000). Above it the AUROC
#: null is the normal approximation and a p-value is exact only in the tail whose counts fit the budget.
EXACT_AUROC_WORK = 150_000_000
#: Limit of ``method="exact"`` for AUROC (≈ 5 s).
EXACT_AUROC_WORK_MAX = 2_500_000_000
EXACT_RANKINGS = 20_000  # number of rankings C(n, n_pos) enumerated for AP / AUPR
EXACT_GRID = 4_000_000  # (TP, FP) cells enumerated for F1 / MCC
HIST_BINS = 50
_TAIL = 1e-16  # binomial mass left out of the F1/MCC enumeration on each side
TOL = 1e-12
#: p-values below this are stored as this upper bound (``p_upper_bound``); ``log10_p`` keeps the value.
P_FLOOR = 1e-300
#: The AUROC normal approximation is reported as a p-value only at or above this; below, a Chernoff bound.
NORMAL_P_MIN = 1e-3


# --------------------------------------------------------------------------- results
@dataclass(frozen=True, eq=False)
class MetricNull:
    r"""The null distribution of one metric.

    Attributes
    ----------
    metric : str
        ``auroc``, ``ap``, ``aupr_trap``, ``f1``, ``mcc`` or ``mcc_scaled``.
    method : str
        How the distribution was obtained: ``"exact"``, ``"analytic"`` (AUROC:
        exact mean and variance, normal shape) or ``"monte_carlo"``.
    runs : int
        Number of Monte Carlo runs (0 for exact / analytic).
    mean, std : float
        Mean and standard deviation of the metric under the null.
    mean_positive_deviation : float
        \(E[S - \bar S \mid S > \bar S]\) (0 when the null is a single value).
    q95, q99 : float
        95 % and 99 % quantiles (smallest value whose CDF reaches the level).
    observed : float
        The observed score placed on this null (nan if none).
    p_value : float
        \(P(S \ge \text{observed})\) under the null (nan without observed
        score). When ``p_upper_bound`` is True it is an upper bound, not an estimate.
    q : float
        Positive-prediction rate of the random binary predictions (nan for threshold-free metrics).
    hist_edges, hist_prob : numpy.ndarray
        A histogram of the null for plotting (probability mass per bin over its
        central 99.98 %).
    p_method : str
        How ``p_value`` was computed: ``"exact"`` (sum of the exact pmf; for the
        AUROC exact down to 1e-300 and beyond in ``log10_p``), ``"exact_tail"``
        (AUROC under the normal approximation, but the observed value is far
        enough in the tail for its exact count to be cheap), ``"normal"``
        (continuity-corrected normal approximation, used only for p ≥ 1e-3),
        ``"normal_tie_corrected"`` (the same with scipy's tie-corrected
        variance), ``"chernoff_bound"`` (an upper bound, for smaller p when no
        exact tail is affordable), ``"monte_carlo"`` ((b+1)/(R+1)), ``"exact_bound"``
        (F1/MCC enumeration below 1e-14: the dropped binomial tails make it an
        upper bound) or ``""`` without observed score.
    log10_p : float
        \(\log_{10}\) of ``p_value`` (of the exact value even when it is
        below the float range; of the bound when ``p_upper_bound``).
    p_upper_bound : bool
        True when ``p_value`` is an upper bound (below 1e-300, a Chernoff
        bound, or the F1/MCC enumeration floor).
    values, probabilities : numpy.ndarray
        The full distribution: support and probabilities (exact), or the
        sorted Monte Carlo draws with weight 1/R each; empty for ``analytic``.
    """

    metric: str
    method: str
    runs: int
    mean: float
    std: float
    mean_positive_deviation: float
    q95: float
    q99: float
    observed: float
    p_value: float
    q: float
    hist_edges: np.ndarray
    hist_prob: np.ndarray
    p_method: str = ""
    log10_p: float = float("nan")
    p_upper_bound: bool = False
    values: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False)
    probabilities: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False)

    def to_dict(self) -> dict:
        """JSON-safe dict (nan -> None) without the full distribution (``values``, ``probabilities``)."""
        return {f.name: json_safe(getattr(self, f.name)) for f in fields(self) if f.name not in _BULK}

    def summary_row(self) -> dict:
        """Plain values without the histogram (one row of `NullResult.to_frame`)."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if not f.name.startswith("hist_") and f.name not in _BULK
        }

    def quantile(self, level: float) -> float:
        """Smallest value whose null CDF reaches ``level`` (normal quantile for ``analytic``).

        Examples
        --------
        >>> from auditad.nulls import null_distribution
        >>> null_distribution(5, 15, metrics=["auroc"])["auroc"].quantile(0.5)  # 37/75: the U lattice
        0.49333333333333335
        """
        level = check_float(level, name="level", low=0.0, high=1.0)
        if self.values.size == 0:
            from scipy.stats import norm

            return float(self.mean + self.std * norm.ppf(level))
        cdf = np.cumsum(self.probabilities)
        return float(self.values[min(np.searchsorted(cdf, level - TOL), self.values.size - 1)])


_BULK = ("values", "probabilities")
#: ``p_method`` values whose p-value (and log10 p) is an upper bound rather than a value.
BOUND_METHODS = ("chernoff_bound", "exact_bound")


@dataclass(frozen=True, eq=False)
class NullResult:
    r"""Null distributions of several metrics at one (n_pos, n_neg) (see `null_distribution`).

    Attributes
    ----------
    n_pos, n_neg : int
        Class counts (anomalies, normals).
    ratio : float
        n_pos / (n_pos + n_neg).
    prediction : str
        ``"coin"``, ``"prior"`` or ``"fixed"``: how q of the thresholded metrics was chosen.
    q : float
        Positive rate of the random binary predictions.
    nulls : tuple of MetricNull
        One per metric, each with its full distribution.
    tie_term : float
        \(\sum_g (t_g^3 - t_g)\) over the groups of tied scores (0 without ties),
        used by the AUROC normal approximation.

    See Also
    --------
    - [`auditad.nulls.null_distribution`][auditad.nulls.null_distribution]: computes it.
    - [`NullSweepResult`][auditad.nulls.NullSweepResult]: over several class counts.

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
    of Anomaly Detection".
    """

    n_pos: int
    n_neg: int
    ratio: float
    prediction: str
    q: float
    nulls: tuple
    tie_term: float = 0.0

    @property
    def metrics(self) -> tuple:
        """Names of the metrics, in order."""
        return tuple(m.metric for m in self.nulls)

    def __getitem__(self, metric: str) -> MetricNull:
        for m in self.nulls:
            if m.metric == metric:
                return m
        raise KeyError(f"no null for metric {metric!r}; available: {list(self.metrics)}")

    def _null(self, metric) -> MetricNull:
        if metric not in self.metrics:
            raise InvalidInputError(f"metric {describe(metric)} is not in this result; available: {list(self.metrics)}")
        return self[metric]

    def p_value(self, x: float, metric: str = "auroc") -> float:
        r"""One-sided p-value \(P(S \ge x)\) of an observed score ``x`` on this null.

        Computed as at construction (see `MetricNull.p_method`): exact,
        normal approximation, Chernoff upper bound, or \((b+1)/(R+1)\).
        [`p_value_details`][auditad.nulls.NullResult.p_value_details] also returns log10 p and whether it is a bound.

        Examples
        --------
        >>> from auditad.nulls import null_distribution
        >>> r = null_distribution(5, 15, metrics=["auroc"])
        >>> round(r.p_value(0.9), 4)
        0.0027
        """
        return self.p_value_details(x, metric)[0]

    def p_value_details(self, x: float, metric: str = "auroc") -> tuple[float, float, str, bool]:
        """``(p_value, log10_p, p_method, p_upper_bound)`` of the observed score ``x`` (see `p_value`)."""
        null = self._null(metric)
        low = -1.0 if metric == "mcc" else 0.0
        x = check_float(x, name="x", low=low, high=1.0)
        return _p_details(null, x, self.n_pos, self.n_neg, self.tie_term)

    def quantile(self, level: float, metric: str = "auroc") -> float:
        """Quantile of the null of ``metric`` (see [`MetricNull.quantile`][auditad.nulls.MetricNull.quantile])."""
        return self._null(metric).quantile(level)

    def to_frame(self):
        """Tidy frame: one row per metric with the class counts and the summary statistics."""
        import pandas as pd

        rows = [
            {
                "n_pos": self.n_pos,
                "n_neg": self.n_neg,
                "ratio": self.ratio,
                "prediction": self.prediction,
                **m.summary_row(),
            }
            for m in self.nulls
        ]
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """JSON-safe dict (summaries, methods and histograms; not the full distributions)."""
        return {
            "n_pos": self.n_pos,
            "n_neg": self.n_neg,
            "ratio": json_safe(self.ratio),
            "prediction": self.prediction,
            "q": json_safe(self.q),
            "tie_term": json_safe(self.tie_term),
            "nulls": {m.metric: m.to_dict() for m in self.nulls},
        }

    def _repr_html_(self) -> str:
        """Notebook display: one row per metric; the null of the first observed metric (else the first) drawn."""
        from .._format import html_block, html_table, percent, svg_histogram

        rows = [
            {
                "metric": m.metric,
                "method": m.method,
                "runs": m.runs,
                "mean": m.mean,
                "std": m.std,
                "q95": m.q95,
                "q99": m.q99,
                "observed": m.observed,
                "p_value": ""
                if math.isnan(m.p_value)
                else format_p_value(m.p_value, m.log10_p, m.p_method in BOUND_METHODS),
            }
            for m in self.nulls
        ]
        shown = next((m for m in self.nulls if not math.isnan(m.observed)), None) or self.nulls[0]
        figure = svg_histogram(
            shown.hist_edges,
            shown.hist_prob,
            marker=None if math.isnan(shown.observed) else shown.observed,
            title=f"null distribution of {shown.metric}",
        )
        return html_block(
            f"Random-baseline nulls at n_pos = {self.n_pos}, n_neg = {self.n_neg} "
            f"(anomaly ratio {percent(self.ratio)}; binary predictions: {self.prediction}, "
            f"q = {self.q:.4g})",
            html_table(rows, kinds={"observed": "stat", "p_value": "text"}),
            figure,
            note=f"Histogram: the null of {shown.metric}"
            + ("" if math.isnan(shown.observed) else ", the red line the observed score")
            + ".",
        )

    def summary_text(self) -> str:
        """A plain-text table for the command line."""
        from .._format import text_table

        rows = []
        for m in self.nulls:
            obs = "" if math.isnan(m.observed) else f"{m.observed:.4f}"
            p = "" if math.isnan(m.p_value) else format_p_value(m.p_value, m.log10_p, m.p_method in BOUND_METHODS)
            rows.append(
                (
                    m.metric,
                    m.method,
                    m.runs,
                    *(f"{v:.4f}" for v in (m.mean, m.std, m.mean_positive_deviation, m.q95, m.q99)),
                    obs,
                    p,
                    f"  {m.p_method}",
                )
            )
        head = ("metric", "method", "runs", "mean", "std", "mpd", "q95", "q99", "observed", "p_value", "  p from")
        return "\n".join(
            [
                f"Random-baseline nulls: n_pos={self.n_pos}, n_neg={self.n_neg}, ratio={self.ratio:.4%}, "
                f"binary predictions: {self.prediction} (q={self.q:.4g})",
                text_table(rows, header=head, align="llrrrrrrrrl", sep="", widths=(11, 13, 7, 9, 9, 9, 9, 9, 10, 11)),
            ]
        )


@dataclass(frozen=True, eq=False)
class NullSweepResult:
    """Nulls over a list of anomaly ratios at a fixed n (Hermary et al., Figure 1; see `null_sweep`).

    See Also
    --------
    - [`auditad.nulls.null_sweep`][auditad.nulls.null_sweep]: computes it.
    - [`NullResult`][auditad.nulls.NullResult]: at one class count.

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
    of Anomaly Detection".
    """

    ratios: np.ndarray
    n: int
    prediction: str
    results: tuple

    def to_frame(self):
        """Tidy frame: one row per (ratio, metric); ``ratio`` is the realised n_pos / n."""
        import pandas as pd

        frames = [r.to_frame().assign(requested_ratio=float(rq)) for rq, r in zip(self.ratios, self.results)]
        return pd.concat(frames, ignore_index=True)

    def to_dict(self) -> dict:
        """JSON-safe dict."""
        return {
            "ratios": json_safe(self.ratios),
            "n": self.n,
            "prediction": self.prediction,
            "results": [r.to_dict() for r in self.results],
        }

    def _repr_html_(self) -> str:
        """Notebook display: per ratio and metric, the null's mean, std and 95 % quantile."""
        from .._format import html_block, html_table

        rows = [
            {
                "ratio": float(rq),
                "n_pos": r.n_pos,
                "n_neg": r.n_neg,
                "metric": m.metric,
                "method": m.method,
                "mean": m.mean,
                "std": m.std,
                "q95": m.q95,
            }
            for rq, r in zip(self.ratios, self.results)
            for m in r.nulls
        ]
        return html_block(
            f"Random-baseline nulls over {len(self.results)} anomaly ratios at n = {self.n} "
            f"(binary predictions: {self.prediction})",
            html_table(rows, kinds={"ratio": "real"}, max_rows=60),
        )


def format_p_value(p: float, log10_p: float = float("nan"), upper_bound: bool = False) -> str:
    """A p-value for display: ``"≤ …"`` for a bound, the value from ``log10_p`` below the float range.

    ``upper_bound`` says that the number itself is a bound (Chernoff, enumeration
    floor), not merely stored as the floor 1e-300 (`P_FLOOR`) with an exact ``log10_p``.

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§IV).

    See Also
    --------
    - [`auditad.nulls.NullResult.p_value_details`][auditad.nulls.NullResult.p_value_details]

    Examples
    --------
    >>> format_p_value(0.0123), format_p_value(1e-300, -600.31), format_p_value(3e-5, upper_bound=True)
    ('0.0123', '4.9e-601', '≤ 3e-05')
    """
    if math.isnan(p):
        return ""
    if math.isfinite(log10_p) and log10_p < -300:  # below the float range: the exact value from log10 p
        e = math.floor(log10_p)
        return f"{10 ** (log10_p - e):.2g}e{e}"
    text = f"{p:.3g}"
    return f"≤ {text}" if upper_bound else text


def with_observed(null: MetricNull, observed, n_pos=0, n_neg=0, tie_term=0.0) -> MetricNull:
    """``null`` with the observed score and its p-value filled in."""
    if observed is None:
        return null
    p, log10p, how, bound = _p_details(null, float(observed), n_pos, n_neg, tie_term)
    return replace(null, observed=float(observed), p_value=p, log10_p=log10p, p_method=how, p_upper_bound=bound)


def _floor(p: float, log10p: float, how: str, bound: bool):
    """Below 1e-300 the p-value is stored as the bound 1e-300; log10_p keeps the value."""
    if p < P_FLOOR:
        return P_FLOOR, log10p, how, True
    return p, log10p, how, bound


def _log10(p: float) -> float:
    return math.log10(p) if p > 0 else -math.inf


def _p_details(null: MetricNull, x: float, n_pos: int, n_neg: int, tie_term: float):
    """(p, log10 p, p_method, is_upper_bound) of P(S >= x) under ``null``."""
    if null.method == "analytic":
        return _auroc_normal_p(x, n_pos, n_neg, null.std, tie_term)
    hit = null.values >= x - TOL
    if null.method == "monte_carlo":
        p = (int(hit.sum()) + 1) / (null.runs + 1)
        return p, _log10(p), "monte_carlo", False
    p = float(min(null.probabilities[hit].sum(), 1.0))
    if null.metric == "auroc":  # exact Mann-Whitney: relative accuracy down to 1e-300, exact log10 beyond
        mn = n_pos * n_neg
        u = math.ceil(x * mn - 1e-7)
        if p < 1e-290:
            p, log10p = _mw.upper_tail(n_pos, n_neg, u)
            return _floor(p, log10p, "exact", False)
        return p, _log10(p), "exact", False
    if not math.isnan(null.q) and p < 1e-14:  # F1/MCC enumeration without tails of mass < 1e-16 each
        p = p + 4 * _TAIL
        return p, _log10(p), "exact_bound", True
    return p, _log10(p), "exact", False


def _auroc_normal_p(x, n_pos, n_neg, sd, tie_term):
    """p-value of an AUROC on the analytic null: exact tail, normal (p >= 1e-3) or Chernoff bound.

    A null of zero spread (every score tied: the AUROC is ½ whatever the ranking) gives p = 1.
    """
    from scipy.stats import norm

    mn = n_pos * n_neg
    if not sd > 0:  # every score tied: U = mn/2 surely (AUROC ½), so P(U >= observed) = 1
        return 1.0, 0.0, "normal_tie_corrected" if tie_term > 0 else "normal", False
    if tie_term > 0:  # U lives on the half-integers; scipy's continuity correction subtracts ½
        u = math.ceil(2 * x * mn - 1e-7) / 2
    else:
        u = math.ceil(x * mn - 1e-7)  # smallest attainable U at or above the observed value
        if 2 * u >= mn and _mw.work(n_pos, n_neg, mn - u) <= EXACT_AUROC_WORK:
            p, log10p = _mw.upper_tail(n_pos, n_neg, u)
            return _floor(p, log10p, "exact_tail", False)
    p = float(norm.sf((u - 0.5 - mn / 2) / (sd * mn)))
    if tie_term > 0:
        return _floor(p, _log10(p), "normal_tie_corrected", False)
    if p >= NORMAL_P_MIN:
        return p, _log10(p), "normal", False
    if min(n_pos, n_neg) > _mw.CHERNOFF_MAX_TERMS:  # the bound's product has min(n_pos, n_neg) factors
        log10p = float(norm.logsf((u - 0.5 - mn / 2) / (sd * mn))) / math.log(10)
        return _floor(10.0**log10p, log10p, "normal", False)
    log10p = _mw.log10_chernoff_upper_tail(n_pos, n_neg, u)
    return _floor(10.0**log10p, log10p, "chernoff_bound", True)
