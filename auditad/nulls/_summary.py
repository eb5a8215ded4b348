"""The summary of a discrete null distribution (mean, spread, quantiles, histogram) as a `MetricNull`."""

from __future__ import annotations

import math

import numpy as np

from ._results import (
    HIST_BINS,
    TOL,
    MetricNull,
    with_observed,
)


def _histogram(values: np.ndarray, weights: np.ndarray, cdf_values: np.ndarray, cdf: np.ndarray):
    lo = float(cdf_values[min(np.searchsorted(cdf, 1e-4 - TOL), cdf.size - 1)])
    hi = float(cdf_values[min(np.searchsorted(cdf, 1 - 1e-4 - TOL), cdf.size - 1)])
    if hi - lo < 1e-9:
        lo, hi = lo - 0.01, hi + 0.01
    edges = np.linspace(lo, hi, HIST_BINS + 1)
    prob, _ = np.histogram(values, bins=edges, weights=weights)
    return edges, prob


def summarize_distribution(metric, values, weights, *, method, runs, observed, q):
    """Summary of a discrete distribution (exact support + pmf, or Monte Carlo samples with weights 1/R)."""
    values = np.asarray(values, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    weights = weights / weights.sum()
    # weighted sums by numpy's pairwise summation, not a BLAS dot product: a multi-threaded BLAS splits
    # long dot products by its thread count, and a null must have the same bits wherever it is computed
    mean = float(np.sum(values * weights))
    var = float(np.sum((values - mean) ** 2 * weights))
    above = values > mean + TOL * max(1.0, abs(mean))
    w_above = weights[above].sum()
    mpd = float(np.sum((values[above] - mean) * weights[above]) / w_above) if w_above > 0 else 0.0
    order = np.argsort(values, kind="stable")
    sv, sw = values[order], weights[order]
    cdf = np.cumsum(sw)
    quant = [float(sv[min(np.searchsorted(cdf, level - TOL), sv.size - 1)]) for level in (0.95, 0.99)]
    edges, prob = _histogram(values, weights, sv, cdf)
    null = MetricNull(
        metric=metric,
        method=method,
        runs=int(runs),
        mean=mean,
        std=math.sqrt(max(var, 0.0)),
        mean_positive_deviation=mpd,
        q95=quant[0],
        q99=quant[1],
        observed=float("nan"),
        p_value=float("nan"),
        q=q,
        hist_edges=edges,
        hist_prob=prob,
        values=sv,
        probabilities=sw,
    )
    return with_observed(null, observed)
