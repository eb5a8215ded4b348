"""Random-baseline (null) distributions of evaluation metrics (SPEC §3, seed 003 §IV).

For a test set of ``n_pos`` anomalies and ``n_neg`` normals, the null of a
metric is its distribution under predictions that carry no information:

* threshold-free metrics (``auroc``, ``ap``, ``aupr_trap``): i.i.d. continuous
  random scores, i.e. a uniformly random ranking of the n samples;
* thresholded metrics (``f1``, ``mcc``, ``mcc_scaled``): i.i.d. random binary
  predictions with positive rate ``q`` -- ``"coin"`` (q = ½, seed 003's
  choice), ``"prior"`` (q = π = n_pos / n) or a number in [0, 1]. Then
  TP ~ Binomial(n_pos, q) and FP ~ Binomial(n_neg, q) independently.

Each metric null is computed by the most exact method available and the result
says which one: ``"exact"`` (the full distribution: Mann–Whitney U for AUROC,
enumeration of all rankings for AP/AUPR when there are few, enumeration of the
binomial (TP, FP) grid for F1/MCC), ``"analytic"`` (AUROC for large n: exact
mean ½ and variance :math:`(n+1)/(12 n_+ n_-)`, normal shape), or
``"monte_carlo"`` (seeded, vectorised, chunked simulation).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, fields
from typing import Mapping

import numpy as np

from ._rng import check_random_state, spawn
from ._validation import check_choice, check_float, check_int, describe
from .errors import InvalidInputError
from ._json import json_safe
from .metrics import METRIC_NAMES, _f1_cells, _mcc_cells, check_metric_names

__all__ = [
    "null_distribution",
    "null_sweep",
    "expected_average_precision",
    "auroc_null_moments",
    "mann_whitney_pmf",
    "class_counts",
    "MetricNull",
    "NullResult",
    "NullSweepResult",
    "PAPER_SWEEP_RATIOS",
]

THRESHOLD_FREE = ("auroc", "ap", "aupr_trap")
THRESHOLDED = ("f1", "mcc", "mcc_scaled")

#: Anomaly ratios (positive share) of the sweep of seed 003, Figure 1: 99:1 ... 1:99 (positive:negative).
PAPER_SWEEP_RATIOS = (0.99, 0.95, 0.90, 0.80, 0.70, 0.60, 0.50, 0.40, 0.30, 0.20, 0.10, 0.05, 0.01)

#: Exact-method limits (above them ``method="auto"`` switches to analytic / Monte Carlo).
EXACT_AUROC_WORK = 30_000_000  # n_pos * n_neg * min(n_pos, n_neg)
EXACT_RANKINGS = 20_000  # number of rankings C(n, n_pos) enumerated for AP / AUPR
EXACT_GRID = 4_000_000  # (TP, FP) cells enumerated for F1 / MCC
_MC_CHUNK_ELEMENTS = 4_000_000  # runs * n per Monte Carlo chunk (bounds memory to ~100 MB)
_HIST_BINS = 50
_TAIL = 1e-16  # binomial mass left out of the F1/MCC enumeration on each side
_TOL = 1e-12


# --------------------------------------------------------------------------- results
@dataclass(frozen=True, eq=False)
class MetricNull:
    """The null distribution of one metric.

    Attributes
    ----------
    metric : str
        ``auroc``, ``ap``, ``aupr_trap``, ``f1``, ``mcc`` or ``mcc_scaled``.
    method : str
        ``"exact"``, ``"analytic"`` or ``"monte_carlo"``.
    runs : int
        Number of Monte Carlo runs (0 for exact / analytic).
    mean, std : float
        Mean and standard deviation of the metric under the null.
    mean_positive_deviation : float
        :math:`E[S - \\bar S \\mid S > \\bar S]` (0 when the null is a single value).
    q95, q99 : float
        95 % and 99 % quantiles (smallest value whose CDF reaches the level).
    observed : float
        The observed score placed on this null (nan if none).
    p_value : float
        :math:`P(S \\ge \\text{observed})` under the null: exact, normal with
        continuity correction (analytic), or :math:`(b+1)/(R+1)` with ``b`` runs
        at or above the observed value (Monte Carlo). nan without observed score.
        The F1/MCC enumeration drops binomial tails of mass < 1e-16, so an exact
        p-value of 0.0 there means "below 2e-16".
    q : float
        Positive-prediction rate of the random binary predictions (nan for threshold-free metrics).
    hist_edges, hist_prob : numpy.ndarray
        A histogram of the null for plotting (probability mass per bin over its
        central 99.98 %).
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

    def to_dict(self) -> dict:
        """JSON-safe dict (nan -> None)."""
        return {f.name: json_safe(getattr(self, f.name)) for f in fields(self)}

    def summary_row(self) -> dict:
        """Plain values without the histogram (one row of :meth:`NullResult.to_frame`)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if not f.name.startswith("hist_")}


@dataclass(frozen=True, eq=False)
class NullResult:
    """Null distributions of several metrics at one (n_pos, n_neg) (see :func:`null_distribution`)."""

    n_pos: int
    n_neg: int
    ratio: float
    prediction: str
    q: float
    nulls: tuple

    @property
    def metrics(self) -> tuple:
        """Names of the metrics, in order."""
        return tuple(m.metric for m in self.nulls)

    def __getitem__(self, metric: str) -> MetricNull:
        for m in self.nulls:
            if m.metric == metric:
                return m
        raise KeyError(f"no null for metric {metric!r}; available: {list(self.metrics)}")

    def to_frame(self):
        """Tidy frame: one row per metric with the class counts and the summary statistics."""
        import pandas as pd

        rows = [{"n_pos": self.n_pos, "n_neg": self.n_neg, "ratio": self.ratio, "prediction": self.prediction,
                 **m.summary_row()} for m in self.nulls]
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """JSON-safe dict."""
        return {"n_pos": self.n_pos, "n_neg": self.n_neg, "ratio": json_safe(self.ratio),
                "prediction": self.prediction, "q": json_safe(self.q),
                "nulls": {m.metric: m.to_dict() for m in self.nulls}}

    def summary_text(self) -> str:
        """A plain-text table for the command line."""
        lines = [f"Random-baseline nulls: n_pos={self.n_pos}, n_neg={self.n_neg}, ratio={self.ratio:.4%}, "
                 f"binary predictions: {self.prediction} (q={self.q:.4g})",
                 f"{'metric':<11}{'method':<13}{'runs':>7}{'mean':>9}{'std':>9}{'mpd':>9}{'q95':>9}{'q99':>9}"
                 f"{'observed':>10} {'p_value':>10}"]
        for m in self.nulls:
            obs = "" if math.isnan(m.observed) else f"{m.observed:.4f}"
            if math.isnan(m.p_value):
                p = ""
            elif m.p_value == 0.0:
                p = "<2e-16"
            else:
                p = f"{m.p_value:.3g}"
            lines.append(f"{m.metric:<11}{m.method:<13}{m.runs:>7}{m.mean:>9.4f}{m.std:>9.4f}"
                         f"{m.mean_positive_deviation:>9.4f}{m.q95:>9.4f}{m.q99:>9.4f}{obs:>10} {p:>10}")
        return "\n".join(lines)


@dataclass(frozen=True, eq=False)
class NullSweepResult:
    """Nulls over a list of anomaly ratios at a fixed n (seed 003, Figure 1; see :func:`null_sweep`)."""

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
        return {"ratios": json_safe(self.ratios), "n": self.n, "prediction": self.prediction,
                "results": [r.to_dict() for r in self.results]}


# --------------------------------------------------------------------------- input helpers
def class_counts(n_pos=None, n_neg=None, *, ratio=None, n=None) -> tuple[int, int]:
    """Resolve (n_pos, n_neg) from the counts or from an anomaly ratio and a total n.

    With ``ratio`` and ``n``: ``n_pos = round(ratio * n)`` clipped to [1, n - 1].

    Examples
    --------
    >>> class_counts(ratio=0.0019, n=10_000)
    (19, 9981)
    """
    if n_pos is not None or n_neg is not None:
        if ratio is not None or n is not None:
            raise InvalidInputError("give either n_pos and n_neg, or ratio and n, not both")
        if n_pos is None or n_neg is None:
            raise InvalidInputError(f"both n_pos and n_neg are needed, got n_pos={n_pos!r}, n_neg={n_neg!r}")
        return check_int(n_pos, name="n_pos", low=1), check_int(n_neg, name="n_neg", low=1)
    if ratio is None or n is None:
        raise InvalidInputError("give n_pos and n_neg, or ratio and n")
    ratio = check_float(ratio, name="ratio", low=0.0, high=1.0, low_open=True, high_open=True)
    n = check_int(n, name="n", low=2)
    n_pos = min(max(int(round(ratio * n)), 1), n - 1)
    return n_pos, n - n_pos


def _resolve_q(q, n_pos: int, n_neg: int) -> tuple[str, float]:
    if isinstance(q, str):
        check_choice(q, ("coin", "prior"), name="q")
        return q, (0.5 if q == "coin" else n_pos / (n_pos + n_neg))
    return "fixed", check_float(q, name="q", low=0.0, high=1.0)


def _resolve_metrics(metrics, observed) -> tuple[tuple, dict]:
    metrics = list(check_metric_names(metrics))
    obs = {}
    if observed is not None:
        if not isinstance(observed, Mapping):
            raise InvalidInputError(f"observed must be a mapping metric -> value, got {describe(observed)}")
        for key, value in observed.items():
            check_choice(key, METRIC_NAMES, name="observed metric")
            low = -1.0 if key == "mcc" else 0.0
            obs[key] = check_float(value, name=f"observed[{key!r}]", low=low, high=1.0)
            if key not in metrics:
                metrics.append(key)
    ordered = tuple(m for m in METRIC_NAMES if m in metrics)
    return ordered, obs


# --------------------------------------------------------------------------- summaries
def _histogram(values: np.ndarray, weights: np.ndarray, cdf_values: np.ndarray, cdf: np.ndarray):
    lo = float(cdf_values[min(np.searchsorted(cdf, 1e-4 - _TOL), cdf.size - 1)])
    hi = float(cdf_values[min(np.searchsorted(cdf, 1 - 1e-4 - _TOL), cdf.size - 1)])
    if hi - lo < 1e-9:
        lo, hi = lo - 0.01, hi + 0.01
    edges = np.linspace(lo, hi, _HIST_BINS + 1)
    prob, _ = np.histogram(values, bins=edges, weights=weights)
    return edges, prob


def _summarize(metric, values, weights, *, method, runs, observed, q):
    """Summary of a discrete distribution (exact support + pmf, or Monte Carlo samples with weights 1/R)."""
    values = np.asarray(values, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    weights = weights / weights.sum()
    mean = float(np.dot(values, weights))
    var = float(np.dot((values - mean) ** 2, weights))
    above = values > mean + _TOL * max(1.0, abs(mean))
    w_above = weights[above].sum()
    mpd = float(np.dot(values[above] - mean, weights[above]) / w_above) if w_above > 0 else 0.0
    order = np.argsort(values, kind="stable")
    sv, cdf = values[order], np.cumsum(weights[order])
    quant = [float(sv[min(np.searchsorted(cdf, level - _TOL), sv.size - 1)]) for level in (0.95, 0.99)]
    if observed is None:
        p = float("nan")
        obs = float("nan")
    else:
        obs = float(observed)
        hit = values >= obs - _TOL
        if method == "monte_carlo":
            p = (int(hit.sum()) + 1) / (runs + 1)
        else:
            p = float(min(weights[hit].sum(), 1.0))
    edges, prob = _histogram(values, weights, sv, cdf)
    return MetricNull(metric=metric, method=method, runs=int(runs), mean=mean, std=math.sqrt(max(var, 0.0)),
                      mean_positive_deviation=mpd, q95=quant[0], q99=quant[1], observed=obs, p_value=p, q=q,
                      hist_edges=edges, hist_prob=prob)


# --------------------------------------------------------------------------- AUROC: exact and analytic
def auroc_null_moments(n_pos: int, n_neg: int) -> tuple[float, float]:
    r"""Exact mean and standard deviation of AUROC under random scores (no ties).

    .. math::

        E[\mathrm{AUROC}] = \tfrac12,\qquad
        \mathrm{Var}[\mathrm{AUROC}] = \frac{n_+ + n_- + 1}{12\,n_+ n_-}

    (Mann–Whitney; SPEC §3).

    Examples
    --------
    >>> auroc_null_moments(1, 99)
    (0.5, 0.29157646512850627)
    """
    n_pos = check_int(n_pos, name="n_pos", low=1)
    n_neg = check_int(n_neg, name="n_neg", low=1)
    return 0.5, math.sqrt((n_pos + n_neg + 1) / (12.0 * n_pos * n_neg))


def mann_whitney_pmf(n_pos: int, n_neg: int) -> np.ndarray:
    r"""Exact null distribution of the Mann–Whitney U statistic (no ties).

    ``pmf[u] = P(U = u)`` for ``u = 0 .. n_pos·n_neg``, where U counts the
    (positive, negative) pairs ranked correctly, so AUROC = U / (n_pos n_neg).
    The counts of the :math:`\binom{n}{n_+}` equally likely rankings are the
    coefficients of the Gaussian binomial coefficient

    .. math::

        \binom{n_+ + n_-}{n_+}_q = \prod_{i=1}^{n_+} \frac{1 - q^{n_- + i}}{1 - q^{i}},

    built one factor at a time (a multiplication by :math:`1 - q^{a}` and a
    division by :math:`1 - q^{i}`, i.e. a strided cumulative sum), renormalised
    at each step. Cost :math:`O(\min(n_+, n_-)\, n_+ n_-)`.

    Examples
    --------
    >>> mann_whitney_pmf(2, 2).tolist()  # 6 rankings: U = 0, 1, 2, 2, 3, 4
    [0.16666666666666666, 0.16666666666666666, 0.3333333333333333, 0.16666666666666666, 0.16666666666666666]
    """
    m = check_int(n_pos, name="n_pos", low=1)
    n = check_int(n_neg, name="n_neg", low=1)
    # the distribution of U is symmetric in the two group sizes; a report asks for the same
    # counts once per representation and per class of equal size, so the result is cached
    return _mann_whitney_pmf(min(m, n), max(m, n)).copy()


@functools.lru_cache(maxsize=64)
def _mann_whitney_pmf(m: int, n: int) -> np.ndarray:
    """:func:`mann_whitney_pmf` for ``m <= n`` (cached; callers must not modify the array)."""
    size = m * n + 1
    c = np.zeros(size)
    c[0] = 1.0
    for i in range(1, m + 1):
        a = n + i
        if a < size:
            c[a:] -= c[: size - a].copy()
        # divide by (1 - q^i): c[k] += c[k - i] for increasing k, i.e. a cumulative sum with stride i
        pad = (-size) % i
        block = np.concatenate([c, np.zeros(pad)]).reshape(-1, i)
        c = np.cumsum(block, axis=0).ravel()[:size]
        c /= c.sum()
    c = np.clip(c, 0.0, None)
    pmf = c / c.sum()
    pmf = (pmf + pmf[::-1]) / 2.0  # the distribution is symmetric about m n / 2; remove rounding asymmetry
    pmf.flags.writeable = False  # shared by the cache
    return pmf


def _auroc_exact(n_pos, n_neg, observed):
    pmf = mann_whitney_pmf(n_pos, n_neg)
    values = np.arange(pmf.size) / (n_pos * n_neg)
    return _summarize("auroc", values, pmf, method="exact", runs=0, observed=observed, q=float("nan"))


def _auroc_analytic(n_pos, n_neg, observed):
    from scipy.stats import norm

    mean, sd = auroc_null_moments(n_pos, n_neg)
    mn = n_pos * n_neg
    sd_u = sd * mn
    z95, z99 = norm.ppf(0.95), norm.ppf(0.99)
    # quantiles of U rounded up to the lattice of U (continuity correction: U >= u  <=>  Z >= (u - 0.5 - mn/2)/sd_u)
    q95 = min(math.ceil(mn / 2 + z95 * sd_u + 0.5 - 1e-9), mn) / mn
    q99 = min(math.ceil(mn / 2 + z99 * sd_u + 0.5 - 1e-9), mn) / mn
    if observed is None:
        obs, p = float("nan"), float("nan")
    else:
        obs = float(observed)
        u = math.ceil(obs * mn - 1e-9)  # smallest attainable U at or above the observed value
        p = float(norm.sf((u - 0.5 - mn / 2) / sd_u))
    edges = np.linspace(0.5 - 4 * sd, 0.5 + 4 * sd, _HIST_BINS + 1)
    prob = np.diff(norm.cdf((edges - 0.5) / sd))
    return MetricNull(metric="auroc", method="analytic", runs=0, mean=mean, std=sd,
                      mean_positive_deviation=sd * math.sqrt(2.0 / math.pi), q95=q95, q99=q99, observed=obs,
                      p_value=p, q=float("nan"), hist_edges=edges, hist_prob=prob)


# --------------------------------------------------------------------------- threshold-free metrics from rankings
def _ranking_metrics(lab: np.ndarray, n_pos: int, n_neg: int) -> dict[str, np.ndarray]:
    """AUROC, AP and AUPR-trapezoid of rankings given as label rows (r, n), best first, without ties.

    With the k-th positive at position j (1-based) and tp(j) positives in the top j:
    AUROC = Σ (n_neg − (j − tp(j))) / (n_pos n_neg), AP = Σ tp(j)/j / n_pos and
    AUPR = Σ [tp(j)/j + (tp(j) − 1)/(j − 1)] / (2 n_pos) with (tp − 1)/(j − 1) := 1 at j = 1.
    """
    n = lab.shape[1]
    j = np.arange(1, n + 1, dtype=np.float64)
    tp = np.cumsum(lab, axis=1, dtype=np.float64)
    w = lab.astype(np.float64)
    prec = tp / j
    prev = np.empty_like(prec)
    prev[:, 0] = 1.0
    prev[:, 1:] = (tp[:, 1:] - 1.0) / j[:-1]
    return {
        "auroc": (w * (n_neg - (j - tp))).sum(axis=1) / (n_pos * n_neg),
        "ap": (w * prec).sum(axis=1) / n_pos,
        "aupr_trap": (w * (prec + prev)).sum(axis=1) / (2.0 * n_pos),
    }


def _exact_rankings(n_pos, n_neg):
    from itertools import combinations

    n = n_pos + n_neg
    combos = np.array(list(combinations(range(n), n_pos)), dtype=np.int64)
    lab = np.zeros((combos.shape[0], n), dtype=np.int8)
    np.put_along_axis(lab, combos, 1, axis=1)
    return _ranking_metrics(lab, n_pos, n_neg)


def _random_subsets(n: int, s: int, r: int, rng) -> np.ndarray:
    """Sorted 1-based positions of ``r`` independent uniformly random ``s``-subsets of {1..n}, shape (r, s).

    For s <= n/5, Floyd's algorithm vectorised over the rows: for t = n − s .. n − 1
    draw u ∈ {0..t}; take u unless already taken, else take t (O(r s) draws plus an
    (r, n) boolean mask). Otherwise the positions of the s smallest of n uniform
    keys. Either way every s-subset is equally likely.
    """
    mask = np.zeros((r, n), dtype=bool)
    if s <= n // 5:
        rows = np.arange(r)
        for t in range(n - s, n):
            u = rng.integers(0, t + 1, size=r)
            taken = mask[rows, u]
            mask[rows, np.where(taken, t, u)] = True
    else:  # many draws: the s smallest of n uniform keys are a uniform s-subset as well
        idx = np.argpartition(rng.random((r, n)), s - 1, axis=1)[:, :s]
        np.put_along_axis(mask, idx, True, axis=1)
    return (np.nonzero(mask)[1].reshape(r, s) + 1).astype(np.float64)


def _metrics_from_positive_positions(j: np.ndarray, n_pos: int, n_neg: int) -> dict[str, np.ndarray]:
    """AUROC/AP/AUPR from the sorted 1-based positions (r, n_pos) of the positives in a ranking."""
    k = np.arange(1, n_pos + 1, dtype=np.float64)
    prec = k / j
    with np.errstate(divide="ignore", invalid="ignore"):
        prev = np.where(j > 1, (k - 1.0) / np.maximum(j - 1.0, 1.0), 1.0)
    return {
        "auroc": (n_neg - (j - k)).sum(axis=1) / (n_pos * n_neg),
        "ap": prec.sum(axis=1) / n_pos,
        "aupr_trap": (prec + prev).sum(axis=1) / (2.0 * n_pos),
    }


def _metrics_from_negative_positions(g: np.ndarray, n_pos: int, n_neg: int, harmonic: np.ndarray):
    """AUROC/AP/AUPR from the sorted 1-based positions (r, n_neg) of the negatives in a ranking.

    The positives fill the gaps: the i-th gap (after i negatives) holds positions
    j in [g_i + 1, g_{i+1} − 1] with tp(j) = j − i, so sums of 1/j become
    differences of harmonic numbers H.
    """
    r = g.shape[0]
    n = n_pos + n_neg
    gi = g.astype(np.int64)
    nxt = np.hstack([gi[:, 1:], np.full((r, 1), n + 1)])  # g_{i+1} for i = 1..L
    i = np.arange(1, n_neg + 1, dtype=np.float64)
    h1 = harmonic[nxt - 1] - harmonic[gi]  # sum over the gap of 1/j
    h2 = harmonic[nxt - 2] - harmonic[gi - 1]  # sum over the gap of 1/(j − 1)
    lengths = (nxt - gi - 1).astype(np.float64)
    len0 = gi[:, 0] - 1.0  # positives before the first negative (i = 0)
    u = n_neg * len0 + ((n_neg - i) * lengths).sum(axis=1)
    return {
        "auroc": u / (n_pos * n_neg),
        "ap": 1.0 - (i * h1).sum(axis=1) / n_pos,
        "aupr_trap": 1.0 - (i * (h1 + h2)).sum(axis=1) / (2.0 * n_pos),
    }


def _mc_rankings(n_pos, n_neg, runs, rng):
    """Monte Carlo AUROC/AP/AUPR of uniformly random rankings, drawing the positions of the smaller class."""
    n = n_pos + n_neg
    s = min(n_pos, n_neg)
    harmonic = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, n + 1))]) if s == n_neg < n_pos else None
    chunk = max(1, _MC_CHUNK_ELEMENTS // n)
    parts: dict[str, list] = {k: [] for k in THRESHOLD_FREE}
    for start in range(0, runs, chunk):
        r = min(chunk, runs - start)
        pos = _random_subsets(n, s, r, rng)
        if s == n_pos:
            vals = _metrics_from_positive_positions(pos, n_pos, n_neg)
        else:
            vals = _metrics_from_negative_positions(pos, n_pos, n_neg, harmonic)
        for k, v in vals.items():
            parts[k].append(v)
    return {k: np.concatenate(v) for k, v in parts.items()}


def expected_average_precision(n_pos: int, n_neg: int) -> float:
    r"""Exact mean of AP under a uniformly random ranking.

    .. math::

        E[\mathrm{AP}] = \frac{1}{n}\Big[H_n + \frac{n_+ - 1}{n - 1}\,(n - H_n)\Big],

    with :math:`n = n_+ + n_-` and :math:`H_n` the n-th harmonic number (from
    :math:`E[\mathrm{AP}] = \frac{1}{n_+}\sum_j P(\text{positive at } j)\,E[tp(j)/j \mid \text{positive at } j]`).
    It tends to π = n_+/n as n grows (seed 003, §IV: "the AUPR baseline varies
    approximately linearly with the anomaly proportion").

    Examples
    --------
    >>> round(expected_average_precision(50, 9950), 5)
    0.00587
    """
    n_pos = check_int(n_pos, name="n_pos", low=1)
    n_neg = check_int(n_neg, name="n_neg", low=1)
    n = n_pos + n_neg
    h = float(np.sum(1.0 / np.arange(1, n + 1)))
    return (h + (n_pos - 1) / (n - 1) * (n - h)) / n


# --------------------------------------------------------------------------- thresholded metrics
def _cell_metrics(tp, fp, n_pos, n_neg) -> dict[str, np.ndarray]:
    tp = np.asarray(tp, dtype=np.float64)
    fp = np.asarray(fp, dtype=np.float64)
    fn = n_pos - tp
    tn = n_neg - fp
    mcc = _mcc_cells(tp, fp, fn, tn)
    return {"f1": _f1_cells(tp, fp, fn), "mcc": mcc, "mcc_scaled": (mcc + 1.0) / 2.0}


def _binomial_support(n: int, q: float):
    from scipy.stats import binom

    lo = int(binom.ppf(_TAIL, n, q))
    hi = int(binom.isf(_TAIL, n, q))
    lo, hi = max(0, min(lo, n)), max(0, min(hi, n))
    k = np.arange(lo, hi + 1)
    return k, binom.pmf(k, n, q)


def _thresholded_grid_size(n_pos, n_neg, q):
    k1, _ = _binomial_support(n_pos, q)
    k2, _ = _binomial_support(n_neg, q)
    return k1.size * k2.size


def _exact_thresholded(n_pos, n_neg, q):
    k1, p1 = _binomial_support(n_pos, q)
    k2, p2 = _binomial_support(n_neg, q)
    tp, fp = np.meshgrid(k1, k2, indexing="ij")
    weights = (p1[:, None] * p2[None, :]).ravel()
    return _cell_metrics(tp.ravel(), fp.ravel(), n_pos, n_neg), weights


def _mc_thresholded(n_pos, n_neg, q, runs, rng):
    tp = rng.binomial(n_pos, q, size=runs)
    fp = rng.binomial(n_neg, q, size=runs)
    return _cell_metrics(tp, fp, n_pos, n_neg)


# --------------------------------------------------------------------------- public API
def null_distribution(n_pos=None, n_neg=None, *, ratio=None, n=None, metrics=METRIC_NAMES, q="coin",
                      method: str = "auto", runs: int = 10_000, observed: Mapping[str, float] | None = None,
                      random_state=None) -> NullResult:
    r"""Distribution of each metric under random predictions at (n_pos, n_neg) (SPEC §3, seed 003 §IV).

    Threshold-free metrics use a uniformly random ranking (i.i.d. continuous
    scores); F1 and MCC use random binary predictions with positive rate q, so
    :math:`TP \sim \mathrm{Bin}(n_+, q)`, :math:`FP \sim \mathrm{Bin}(n_-, q)`,
    :math:`F_1 = 2TP/(TP + FP + n_+)`. For large n the coin null of F1 tends to

    .. math::

        F_1 \to \frac{2\pi q}{q + \pi} \overset{q=1/2}{=} \frac{\pi}{\pi + 1/2}

    (0.664 at π = 0.99: the ≈0.66–0.70 F1 baseline of seed 003, Figure 1).
    Reported per metric: mean, std, mean positive deviation
    :math:`E[S-\bar S \mid S > \bar S]`, 95 %/99 % quantiles and, for an observed
    score, :math:`p = P(S \ge s_{obs})` (Monte Carlo: :math:`(b+1)/(R+1)`).

    Methods (``method="auto"`` picks the first that applies; the result says which):

    * AUROC: ``exact`` Mann–Whitney distribution (:func:`mann_whitney_pmf`) when
      :math:`n_+ n_- \min(n_+, n_-) \le 3\cdot10^7`, else ``analytic`` (exact mean
      and variance, normal quantiles and p-value with continuity correction);
    * AP, AUPR-trapezoid: ``exact`` enumeration of all :math:`\binom{n}{n_+}`
      rankings when there are at most 20 000, else ``monte_carlo``;
    * F1, MCC: ``exact`` enumeration of the binomial (TP, FP) grid (tails of mass
      < 1e-16 dropped) when it has at most 4·10⁶ cells, else ``monte_carlo``.

    ``method="monte_carlo"`` forces simulation for every metric;
    ``method="exact"`` raises if a requested metric has no feasible exact method.

    Parameters
    ----------
    n_pos, n_neg : int, optional
        Numbers of anomalies (positives) and normals, each >= 1.
    ratio, n : float and int, optional
        Alternative to the counts: anomaly ratio in (0, 1) and total size
        (``n_pos = round(ratio n)`` clipped to [1, n − 1]).
    metrics : sequence of str, default all
        Any of ``auroc``, ``ap``, ``aupr_trap``, ``f1``, ``mcc``, ``mcc_scaled``.
    q : "coin", "prior" or float, default "coin"
        Positive rate of the random binary predictions: ½, π, or the number.
    method : {"auto", "exact", "monte_carlo"}, default "auto"
    runs : int, default 10000
        Monte Carlo runs (used only by metrics computed by simulation).
    observed : mapping metric -> float, optional
        Observed scores to place on their nulls (a metric named here is added to ``metrics``).
    random_state : None, int or numpy.random.Generator
        Seed of the Monte Carlo runs.

    Returns
    -------
    NullResult

    Examples
    --------
    >>> r = null_distribution(5, 15, observed={"auroc": 0.9}, metrics=["auroc", "f1"])
    >>> r["auroc"].method, round(r["auroc"].std, 4), round(r["auroc"].p_value, 4)
    ('exact', 0.1528, 0.0027)
    """
    n_pos, n_neg = class_counts(n_pos, n_neg, ratio=ratio, n=n)
    metrics, obs = _resolve_metrics(metrics, observed)
    check_choice(method, ("auto", "exact", "monte_carlo"), name="method")
    runs = check_int(runs, name="runs", low=1)
    prediction, q_value = _resolve_q(q, n_pos, n_neg)
    rng_free, rng_thr = spawn(check_random_state(random_state), 2)
    total = n_pos + n_neg
    out: dict[str, MetricNull] = {}

    if "auroc" in metrics:
        exact_ok = n_pos * n_neg * min(n_pos, n_neg) <= EXACT_AUROC_WORK
        if method == "exact" and not exact_ok:
            raise InvalidInputError(
                f"method='exact': the exact AUROC null is limited to n_pos*n_neg*min(n_pos, n_neg) <= "
                f"{EXACT_AUROC_WORK}, got n_pos={n_pos}, n_neg={n_neg}; use method='auto' (analytic) or 'monte_carlo'"
            )
        if method in ("auto", "exact") and exact_ok:
            out["auroc"] = _auroc_exact(n_pos, n_neg, obs.get("auroc"))
        elif method == "auto":
            out["auroc"] = _auroc_analytic(n_pos, n_neg, obs.get("auroc"))

    free = [m for m in THRESHOLD_FREE if m in metrics and m not in out]
    if free:
        n_rankings = math.comb(total, n_pos)
        exact_ok = n_rankings <= EXACT_RANKINGS
        if method == "exact" and not exact_ok and any(m != "auroc" for m in free):
            raise InvalidInputError(
                f"method='exact': AP / AUPR nulls are exact only when C(n, n_pos) <= {EXACT_RANKINGS} rankings, "
                f"got n_pos={n_pos}, n_neg={n_neg}; use method='auto' or 'monte_carlo'"
            )
        if method != "monte_carlo" and exact_ok:
            vals = _exact_rankings(n_pos, n_neg)
            weights = np.full(n_rankings, 1.0 / n_rankings)
            for m in free:
                out[m] = _summarize(m, vals[m], weights, method="exact", runs=0, observed=obs.get(m), q=float("nan"))
        else:
            vals = _mc_rankings(n_pos, n_neg, runs, rng_free)
            weights = np.full(runs, 1.0 / runs)
            for m in free:
                out[m] = _summarize(m, vals[m], weights, method="monte_carlo", runs=runs, observed=obs.get(m),
                                    q=float("nan"))

    thr = [m for m in THRESHOLDED if m in metrics]
    if thr:
        exact_ok = _thresholded_grid_size(n_pos, n_neg, q_value) <= EXACT_GRID
        if method == "exact" and not exact_ok:
            raise InvalidInputError(
                f"method='exact': the F1/MCC enumeration is limited to {EXACT_GRID} (TP, FP) cells, got "
                f"n_pos={n_pos}, n_neg={n_neg}, q={q_value}; use method='auto' or 'monte_carlo'"
            )
        if method != "monte_carlo" and exact_ok:
            vals, weights = _exact_thresholded(n_pos, n_neg, q_value)
            for m in thr:
                out[m] = _summarize(m, vals[m], weights, method="exact", runs=0, observed=obs.get(m), q=q_value)
        else:
            vals = _mc_thresholded(n_pos, n_neg, q_value, runs, rng_thr)
            weights = np.full(runs, 1.0 / runs)
            for m in thr:
                out[m] = _summarize(m, vals[m], weights, method="monte_carlo", runs=runs, observed=obs.get(m),
                                    q=q_value)

    return NullResult(n_pos=n_pos, n_neg=n_neg, ratio=n_pos / total, prediction=prediction, q=q_value,
                      nulls=tuple(out[m] for m in metrics))


def null_sweep(ratios=PAPER_SWEEP_RATIOS, *, n: int = 100, metrics=METRIC_NAMES, q="coin", method: str = "auto",
               runs: int = 10_000, random_state=None) -> NullSweepResult:
    r"""Nulls of every metric over a range of anomaly ratios at a fixed test-set size (seed 003, Figure 1).

    For each ratio π, :func:`null_distribution` at ``n_pos = round(π n)``; the
    sweep shows how the random baseline of AP/AUPR and F1 moves with π while
    AUROC and MCC stay centred on ½ (scaled MCC), and how large a favourable
    random run can be (mean positive deviation).

    Seed 003 does not state its n; its AUROC mean positive deviation of about
    0.25 at the extreme ratios is what n = 100 gives (at 99:1 AUROC is uniform
    on {0, 1/99, …, 1}), hence the default. Its 100 runs per ratio are
    reproduced with ``method="monte_carlo", runs=100``.

    Parameters
    ----------
    ratios : sequence of float, default :data:`PAPER_SWEEP_RATIOS`
        Anomaly ratios in (0, 1) (99:1 … 1:99 positive:negative).
    n : int, default 100
        Test-set size.
    metrics, q, method, runs, random_state
        As in :func:`null_distribution`; each ratio gets its own child random generator.

    Returns
    -------
    NullSweepResult

    Examples
    --------
    >>> s = null_sweep([0.99, 0.5], n=200, metrics=["f1"])
    >>> [round(r["f1"].mean, 3) for r in s.results]
    [0.664, 0.499]
    """
    from ._validation import check_probability_array

    arr = check_probability_array(ratios, name="ratios", open_interval=True)
    if arr.ndim != 1:
        raise InvalidInputError(f"ratios must be a 1-D sequence, got shape {arr.shape}")
    n = check_int(n, name="n", low=2)
    children = spawn(check_random_state(random_state), arr.size)
    results = tuple(
        null_distribution(ratio=float(r), n=n, metrics=metrics, q=q, method=method, runs=runs, random_state=g)
        for r, g in zip(arr, children)
    )
    return NullSweepResult(ratios=arr, n=n, prediction=results[0].prediction if results else str(q), results=results)
