r"""What a random or trivial detector scores under each time-series metric, at the labels' own segments.

**Random scores, threshold chosen on the test labels.** With iid uniform scores, the best threshold of every
metric here lies at the score of an anomalous point, and the number of normal points at or above each such
threshold is a multinomial count of the gaps between them. A draw therefore needs the \(P + 1\) spacings of the
anomalous points' sorted scores (Dirichlet), one multinomial draw and one permutation, \(O(P)\), whatever the
number of normal points -- the same distribution as scoring all \(n\) points, at a fraction of the cost.

**Random scores, fixed threshold** (each point flagged with probability \(r\), e.g. the anomaly ratio):
segment \(j\) has \(C_j \sim \mathrm{Bin}(L_j, r)\) detected points and is detected by point adjustment with
probability \(1 - (1 - r)^{L_j}\), so in closed form

\[ E[TP_{PA}] = \sum_j L_j \big(1 - (1 - r)^{L_j}\big), \qquad E[FP] = N r. \]

**Trivial detectors**: flag every point (point-wise F1 \(= 2p/(1+p)\), exact), flag none (0), and a periodic
detector that flags every \(k\)-th point, \(k\) chosen on the test labels.

References
----------
1. S. Kim, K. Choi, H.-S. Choi, B. Lee, S. Yoon, "Towards a Rigorous Evaluation of Time-Series Anomaly
   Detection", AAAI 2022 (random scores and point adjustment).
2. R. Wu, E. J. Keogh, "Current Time Series Anomaly Detection Benchmarks are Flawed and are Creating the
   Illusion of Progress", IEEE TKDE 2021.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._json import json_safe
from .._rng import check_random_state
from .._validation import check_float, check_int
from .metrics import PA_K_GRID, f1_counts, k_area, pak_from_counts, segment_ids
from .affiliation import best_affiliation_f1
from .ranges import range_precision_recall
from .volume import vus
from .structure import check_series_labels

__all__ = [
    "NULL_METRICS",
    "MetricNull",
    "random_null",
    "fixed_threshold_null",
    "random_range_null",
    "VUS_METRICS",
    "random_vus_null",
    "random_affiliation_null",
    "prediction_metrics",
    "trivial_baselines",
    "pa_expected_counts",
]

#: Metrics of the random nulls: point-wise F1, point-adjusted F1, composite F1, area under F1 over PA%K.
NULL_METRICS = ("f1", "pa_f1", "composite_f1", "pa_k_area")


@dataclass(frozen=True)
class MetricNull:
    """Monte Carlo distribution of one metric under a random detector.

    Attributes
    ----------
    metric : str
    kind : str
        ``"best threshold"`` (chosen on the test labels) or ``"fixed threshold"``.
    draws : ndarray
        The metric's value in every draw.
    seed : int or None
        The seed that reproduces the draws.
    exact : float
        A closed-form value where one exists (the F1 of the expected counts at a fixed threshold), else nan.

    See Also
    --------
    - [`random_null`][auditad.timeseries.random_null]
    - [`fixed_threshold_null`][auditad.timeseries.fixed_threshold_null]

    Examples
    --------
    >>> m = MetricNull("f1", "best threshold", np.array([0.1, 0.2, 0.3]), seed=0)
    >>> round(m.mean, 2), m.p_value(0.25)
    (0.2, 0.5)
    """

    metric: str
    kind: str
    draws: np.ndarray
    seed: int | None = None
    exact: float = float("nan")

    @property
    def mean(self) -> float:
        """Mean over the draws."""
        return float(np.mean(self.draws))

    @property
    def mc_error(self) -> float:
        """Monte Carlo standard error of the mean, \\(s / \\sqrt{B}\\)."""
        return float(np.std(self.draws, ddof=1) / np.sqrt(self.draws.size)) if self.draws.size > 1 else float("nan")

    def quantile(self, q: float) -> float:
        """The ``q`` quantile of the draws."""
        return float(np.quantile(self.draws, q))

    def p_value(self, observed: float) -> float:
        """One-sided Monte Carlo p-value \\((1 + \\#\\{b : x_b \\ge x\\}) / (1 + B)\\): random does as well."""
        return float((1 + np.count_nonzero(self.draws >= observed - 1e-12)) / (1 + self.draws.size))

    def to_dict(self) -> dict:
        """JSON-safe summary (not the draws)."""
        return json_safe(
            {
                "metric": self.metric,
                "kind": self.kind,
                "n_draws": int(self.draws.size),
                "seed": self.seed,
                "mean": self.mean,
                "mc_error": self.mc_error,
                "q95": self.quantile(0.95),
                "q99": self.quantile(0.99),
                "max": float(np.max(self.draws)),
                "exact": self.exact,
            }
        )


def _seed(random_state):
    return int(random_state) if isinstance(random_state, (int, np.integer)) else None


def _best_draw(ids, lengths, offsets, n_neg, rng, ks) -> dict:
    r"""Best-threshold values of one draw of iid uniform scores, in descending score order.

    The anomalous points' scores, sorted, split [0, 1] into \(P + 1\) Dirichlet(1, ..., 1) spacings (exponentials
    over their sum); the normal points fall into the spacings multinomially; which segment holds the k-th highest
    anomalous score is a random permutation of the points' segment ids. \(O(P)\) per draw.
    """
    n_pos = ids.size
    e = rng.standard_exponential(n_pos + 1)
    fp = np.cumsum(rng.multinomial(n_neg, e / e.sum())[:-1])
    seg = rng.permutation(ids)  # segment of the k-th highest anomalous score
    by_seg = np.argsort(seg, kind="stable")  # grouped by segment, descending score within
    ranks = np.empty(n_pos, dtype=np.int64)
    ranks[by_seg] = np.arange(n_pos) - offsets[seg[by_seg]] + 1
    seg_len = lengths[seg]
    tp_point = np.arange(1, n_pos + 1)
    out = {"f1": float(f1_counts(tp_point, fp, n_pos).max())}
    pak = []
    for k in ks:
        m = np.floor(k * seg_len / 100.0).astype(np.int64) + 1
        w = np.where(ranks < m, 1, np.where(ranks == m, seg_len - m + 1, 0))
        pak.append(float(f1_counts(np.cumsum(w), fp, n_pos).max()))
    first = ranks == 1
    out["pa_f1"] = pak[0] if ks[0] == 0 else float(f1_counts(np.cumsum(np.where(first, seg_len, 0)), fp, n_pos).max())
    out["pa_k_area"] = k_area(np.asarray(ks), np.asarray(pak))
    det = np.cumsum(first) / lengths.size
    prec = tp_point / (tp_point + fp)
    out["composite_f1"] = float(np.max(2 * prec * det / (prec + det)))
    return out


def random_null(y, *, n_draws: int = 1000, ks=PA_K_GRID, random_state=0) -> dict:
    """Distribution of each metric of `NULL_METRICS` for iid uniform scores, each at its best threshold.

    The threshold that maximises the metric is chosen on the test labels, draw by draw, as most papers
    choose theirs; the result is the bar a method has to clear before its best-threshold score means anything.

    Parameters
    ----------
    y : array-like of 0/1, shape (n,)
    n_draws : int, default 1000
    ks : sequence of float, default `PA_K_GRID`
        K grid of the PA%K area (percent).
    random_state : None, int or Generator, default 0

    Returns
    -------
    dict of str -> MetricNull

    See Also
    --------
    - [`fixed_threshold_null`][auditad.timeseries.fixed_threshold_null]
    - [`trivial_baselines`][auditad.timeseries.trivial_baselines]

    References
    ----------
    1. S. Kim et al., "Towards a Rigorous Evaluation of Time-Series Anomaly Detection", AAAI 2022.

    Examples
    --------
    >>> y = np.zeros(1000, dtype=int); y[100:150] = 1; y[600:700] = 1
    >>> nulls = random_null(y, n_draws=50, random_state=0)
    >>> nulls["pa_f1"].mean > nulls["f1"].mean
    True
    """
    y = check_series_labels(y, name="y")
    n_draws = check_int(n_draws, name="n_draws", low=1)
    rng = check_random_state(random_state)
    ids, lengths = segment_ids(y)
    n_pos = int(lengths.sum())
    n_neg = int(y.size - n_pos)
    ks = tuple(float(k) for k in ks)
    offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    rows = [_best_draw(ids, lengths, offsets, n_neg, rng, ks) for _ in range(n_draws)]
    seed = _seed(random_state)
    return {m: MetricNull(m, "best threshold", np.array([r[m] for r in rows]), seed=seed) for m in NULL_METRICS}


def pa_expected_counts(lengths, n_neg: int, rate: float) -> tuple[float, float]:
    r"""Expected point-adjusted true positives and false positives when each point is flagged with ``rate``.

    \[ E[TP_{PA}] = \sum_j L_j \big(1 - (1 - r)^{L_j}\big), \qquad E[FP] = N r \]

    See Also
    --------
    - [`fixed_threshold_null`][auditad.timeseries.fixed_threshold_null]

    References
    ----------
    1. H. Xu et al., "Unsupervised Anomaly Detection via Variational Auto-Encoder for Seasonal KPIs in Web
       Applications", WWW 2018 (point adjustment).

    Examples
    --------
    >>> pa_expected_counts([2], 10, 0.5)
    (1.5, 5.0)
    """
    lengths = np.asarray(lengths, dtype=np.float64)
    rate = check_float(rate, name="rate", low=0.0, high=1.0)
    return float(np.sum(lengths * (1.0 - (1.0 - rate) ** lengths))), float(n_neg * rate)


def fixed_threshold_null(y, *, rate=None, n_draws: int = 1000, ks=PA_K_GRID, random_state=0) -> dict:
    """Distribution of each metric when every point is flagged independently with probability ``rate``.

    This is uniform random scores with a threshold fixed in advance (not chosen on the test labels);
    ``rate`` defaults to the anomaly ratio. ``MetricNull.exact`` holds the F1 of the expected counts (point-wise
    and point-adjusted: `pa_expected_counts`).

    See Also
    --------
    - [`random_null`][auditad.timeseries.random_null]: the threshold chosen on the test labels.

    References
    ----------
    1. S. Kim et al., "Towards a Rigorous Evaluation of Time-Series Anomaly Detection", AAAI 2022.

    Examples
    --------
    >>> y = np.zeros(1000, dtype=int); y[100:200] = 1
    >>> round(fixed_threshold_null(y, n_draws=20)["f1"].exact, 3)
    0.1
    """
    y = check_series_labels(y, name="y")
    n_draws = check_int(n_draws, name="n_draws", low=1)
    rng = check_random_state(random_state)
    _, lengths = segment_ids(y)
    n_pos = int(lengths.sum())
    n_neg = int(y.size - n_pos)
    rate = n_pos / y.size if rate is None else check_float(rate, name="rate", low=0.0, high=1.0)
    c = rng.binomial(lengths, rate, size=(n_draws, lengths.size))
    fp = rng.binomial(n_neg, rate, size=n_draws)
    tp = c.sum(axis=1)
    tp_pa = (lengths * (c > 0)).sum(axis=1)
    prec = np.divide(tp, tp + fp, out=np.zeros(n_draws), where=(tp + fp) > 0)
    rec_e = (c > 0).mean(axis=1)
    comp = np.divide(2 * prec * rec_e, prec + rec_e, out=np.zeros(n_draws), where=(prec + rec_e) > 0)
    ks_arr = np.asarray(ks, dtype=np.float64)
    f1_k = np.stack([f1_counts(np.where(c > k * lengths / 100.0, lengths, c).sum(axis=1), fp, n_pos) for k in ks_arr])
    area = np.array([k_area(ks_arr, f1_k[:, b]) for b in range(n_draws)])
    e_tp_pa, e_fp = pa_expected_counts(lengths, n_neg, rate)
    exact = {
        "f1": float(f1_counts(n_pos * rate, n_neg * rate, n_pos)),
        "pa_f1": float(f1_counts(e_tp_pa, e_fp, n_pos)),
    }
    values = {"f1": f1_counts(tp, fp, n_pos), "pa_f1": f1_counts(tp_pa, fp, n_pos), "composite_f1": comp}
    values["pa_k_area"] = area
    seed = _seed(random_state)
    return {
        m: MetricNull(m, "fixed threshold", values[m], seed=seed, exact=exact.get(m, float("nan")))
        for m in NULL_METRICS
    }


def random_range_null(y, *, n_draws: int = 50, n_thresholds: int = 50, random_state=0) -> MetricNull:
    """Range-based F1 (Tatbul et al., flat bias, cardinality one) of uniform random scores at the best threshold.

    Each draw scores all \\(n\\) points and tries ``n_thresholds`` rates \\(j / n_{thr}\\); \\(O(n\\,n_{thr})\\) per
    draw, so the default takes fewer draws than the other nulls (`MetricNull.mc_error` states the error).

    See Also
    --------
    - [`auditad.timeseries.best_range_f1`][auditad.timeseries.best_range_f1]

    References
    ----------
    1. N. Tatbul et al., "Precision and Recall for Time Series", NeurIPS 2018.

    Examples
    --------
    >>> y = np.zeros(300, dtype=int); y[50:80] = 1
    >>> 0 < random_range_null(y, n_draws=5, n_thresholds=10).mean < 1
    True
    """
    y = check_series_labels(y, name="y")
    n_draws = check_int(n_draws, name="n_draws", low=1)
    n_thresholds = check_int(n_thresholds, name="n_thresholds", low=1)
    rng = check_random_state(random_state)
    rates = np.arange(1, n_thresholds + 1) / n_thresholds
    draws = np.empty(n_draws)
    for b in range(n_draws):
        u = rng.random(y.size)
        best = 0.0
        for r in rates:
            p, rc = range_precision_recall(y, (u >= 1.0 - r).astype(np.int8))
            best = max(best, 0.0 if p + rc == 0 else 2 * p * rc / (p + rc))
        draws[b] = best
    return MetricNull("range_f1", "best threshold", draws, seed=_seed(random_state))


#: The threshold-free range metrics of `random_vus_null`.
VUS_METRICS = ("vus_roc", "vus_pr", "range_auc_roc", "range_auc_pr")


def random_vus_null(y, *, n_draws: int = 50, window: int = 100, n_thresholds: int = 250, random_state=0) -> dict:
    """VUS-ROC, VUS-PR, range-AUC-ROC and range-AUC-PR of iid uniform random scores (Monte Carlo).

    These metrics have no threshold to choose, but no closed form either at a given segment structure: each
    draw scores all \\(n\\) points and runs [`vus`][auditad.timeseries.vus] (one sort, \\(O(n \\log n)\\)),
    so the default takes 50 draws; `MetricNull.mc_error` states the Monte Carlo error of the mean.

    Returns
    -------
    dict of str -> MetricNull
        Keyed by `VUS_METRICS`, kind ``"threshold free"``.

    See Also
    --------
    - [`random_affiliation_null`][auditad.timeseries.random_affiliation_null]
    - [`random_null`][auditad.timeseries.random_null]

    References
    ----------
    1. J. Paparrizos et al., "Volume Under the Surface: A New Accuracy Evaluation Measure for Time-Series Anomaly
       Detection", PVLDB 15(11), 2022.

    Examples
    --------
    >>> y = np.zeros(500, dtype=int); y[100:130] = 1
    >>> nulls = random_vus_null(y, n_draws=3, window=10, n_thresholds=50)
    >>> 0.3 < nulls["vus_roc"].mean < 0.7
    True
    """
    y = check_series_labels(y, name="y")
    n_draws = check_int(n_draws, name="n_draws", low=1)
    window = check_int(window, name="window", low=0)
    n_thresholds = check_int(n_thresholds, name="n_thresholds", low=2)
    rng = check_random_state(random_state)
    rows = [vus(y, rng.random(y.size), window=window, n_thresholds=n_thresholds) for _ in range(n_draws)]
    seed = _seed(random_state)
    return {m: MetricNull(m, "threshold free", np.array([getattr(r, m) for r in rows]), seed=seed) for m in VUS_METRICS}


def random_affiliation_null(y, *, n_draws: int = 30, n_thresholds: int = 100, random_state=0) -> MetricNull:
    """Affiliation F1 (Huet et al. 2022) of iid uniform random scores at the best of ``n_thresholds`` thresholds.

    Each draw scores all \\(n\\) points and evaluates ``n_thresholds`` predictions, \\(O(n)\\) each; the
    default takes 30 draws (`MetricNull.mc_error` states the error).

    See Also
    --------
    - [`best_affiliation_f1`][auditad.timeseries.best_affiliation_f1]
    - [`random_vus_null`][auditad.timeseries.random_vus_null]

    References
    ----------
    1. A. Huet, J. M. Navarro, D. Rossi, "Local Evaluation of Time Series Anomaly Detection Algorithms", KDD 2022.

    Examples
    --------
    >>> y = np.zeros(500, dtype=int); y[100:130] = 1
    >>> random_affiliation_null(y, n_draws=3, n_thresholds=20).mean > 0.5
    True
    """
    y = check_series_labels(y, name="y")
    n_draws = check_int(n_draws, name="n_draws", low=1)
    n_thresholds = check_int(n_thresholds, name="n_thresholds", low=1)
    rng = check_random_state(random_state)
    draws = np.array([best_affiliation_f1(y, rng.random(y.size), n_thresholds=n_thresholds)[0] for _ in range(n_draws)])
    return MetricNull("affiliation_f1", "best threshold", draws, seed=_seed(random_state))


def prediction_metrics(y, pred, *, ks=PA_K_GRID) -> dict:
    """Every metric of one 0/1 prediction: ``f1``, ``pa_f1``, ``composite_f1``, ``pa_k_area``, ``range_f1``.

    See Also
    --------
    - [`trivial_baselines`][auditad.timeseries.trivial_baselines]

    References
    ----------
    1. H. Xu et al., "Unsupervised Anomaly Detection via Variational Auto-Encoder for Seasonal KPIs in Web
       Applications", WWW 2018.

    Examples
    --------
    >>> m = prediction_metrics([0, 1, 1, 0], [1, 1, 1, 1])
    >>> round(m["f1"], 4), round(m["pa_f1"], 4)
    (0.6667, 0.6667)
    """
    y = check_series_labels(y, name="y")
    pred = np.asarray(pred).astype(np.int64)
    ids, lengths = segment_ids(y)
    n_pos = int(lengths.sum())
    c = np.bincount(ids, weights=pred[y == 1], minlength=lengths.size).astype(np.int64)
    fp = int(pred[y == 0].sum())
    tp = int(c.sum())
    prec = tp / (tp + fp) if tp + fp else 0.0
    rec_e = float(np.mean(c > 0))
    ks_arr = np.asarray(ks, dtype=np.float64)
    p, r = range_precision_recall(y, pred)
    return {
        "f1": float(f1_counts(tp, fp, n_pos)),
        "pa_f1": float(f1_counts(int((lengths * (c > 0)).sum()), fp, n_pos)),
        "composite_f1": 0.0 if prec + rec_e == 0 else 2 * prec * rec_e / (prec + rec_e),
        "pa_k_area": k_area(ks_arr, pak_from_counts(c, lengths, fp, ks_arr)),
        "range_f1": 0.0 if p + r == 0 else 2 * p * r / (p + r),
    }


#: Periods tried by the periodic detector of `trivial_baselines`.
PERIODS = (2, 3, 5, 10, 20, 50, 100, 200, 500, 1000)


def trivial_baselines(y, *, ks=PA_K_GRID) -> dict:
    """Metrics of trivial detectors: flag all (exact: \\(F1 = 2p/(1+p)\\)), flag none, and periodic.

    The periodic detector flags every \\(k\\)-th point; \\(k\\) of `PERIODS` (below the series length) is chosen
    on the test labels for the best point-adjusted F1, as a threshold would be.

    Returns
    -------
    dict
        ``{"flag_all": {...}, "flag_none": {...}, "periodic": {..., "period": k}}``, each of
        `prediction_metrics`.

    See Also
    --------
    - [`prediction_metrics`][auditad.timeseries.prediction_metrics]

    References
    ----------
    1. S. Kim et al., "Towards a Rigorous Evaluation of Time-Series Anomaly Detection", AAAI 2022.

    Examples
    --------
    >>> y = np.zeros(100, dtype=int); y[10:30] = 1
    >>> b = trivial_baselines(y)
    >>> round(b["flag_all"]["f1"], 4) == round(2 * 0.2 / 1.2, 4)
    True
    """
    y = check_series_labels(y, name="y")
    out = {
        "flag_all": prediction_metrics(y, np.ones(y.size, dtype=np.int8), ks=ks),
        "flag_none": {m: 0.0 for m in (*NULL_METRICS, "range_f1")},
    }
    best = None
    for k in (p for p in PERIODS if p < y.size):
        pred = (np.arange(y.size) % k == 0).astype(np.int8)
        m = prediction_metrics(y, pred, ks=ks)
        if best is None or m["pa_f1"] > best["pa_f1"]:
            best = {**m, "period": k}
    if best is not None:
        out["periodic"] = best
    return out
