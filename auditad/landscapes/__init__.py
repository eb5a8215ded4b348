"""Metric landscapes over the TPR × TNR plane under class imbalance (Hermary et al. §V–VI).

A landscape is the value of a metric of binary predictions at every operating
point (TPR, TNR) of a grid, at a given anomaly ratio π (closed forms of
[`auditad.metrics.operating_point_metrics`][auditad.metrics.operating_point_metrics]). From the landscapes:

* [`landscape_difference`][auditad.landscapes.landscape_difference] -- the change against the balanced case (π = ½);
* [`landscape_regions`][auditad.landscapes.landscape_regions] -- mean and excess kurtosis in the regions R1–R5;
* [`minimal_tpr`][auditad.landscapes.minimal_tpr] -- the smallest TPR that reaches a score, and the TNR it then needs;
* [`landscape_coverage`][auditad.landscapes.landscape_coverage] -- the share of the landscape area per score bin;
* [`landscape_correlations`][auditad.landscapes.landscape_correlations] -- Pearson correlation of the landscapes and
Tucker
  congruence of their factor loadings, per ratio group (Low / Medium / High).

Grid convention: ``values[r, m, i, j]`` is metric ``m`` at ratio ``r``,
TPR = ``tpr[i]`` and TNR = ``tnr[j]``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from .._format import FrameDisplay
from .._validation import check_float, check_int, check_probability_array, describe
from ..errors import InvalidInputError, UndefinedValueWarning
from .._json import json_safe
from .grid import (
    EPS,
    LANDSCAPE_METRICS,
    PAPER_RATIOS,
    REGIONS,
    LandscapeResult,
    check_landscape_result,
    landscape,
    metric_index,
    metric_range,
    ratio_index,
    ratio_label,
)
from .relations import RATIO_GROUPS, MetricRelationsResult, landscape_correlations, ratio_group

__all__ = [
    "landscape",
    "landscape_difference",
    "landscape_regions",
    "minimal_tpr",
    "landscape_coverage",
    "landscape_correlations",
    "ratio_group",
    "LandscapeResult",
    "LandscapeDifferenceResult",
    "RegionStatsResult",
    "MinimalTprResult",
    "CoverageResult",
    "MetricRelationsResult",
    "PAPER_RATIOS",
    "RATIO_GROUPS",
    "REGIONS",
    "LANDSCAPE_METRICS",
    "metric_index",
    "metric_range",
    "ratio_index",
    "ratio_label",
]


# --------------------------------------------------------------------------- difference maps
@dataclass(frozen=True, eq=False)
class LandscapeDifferenceResult(FrameDisplay):
    """Landscapes minus the landscape at a reference ratio (see `landscape_difference`).

    ``values[r, m, i, j]`` = metric at ratio ``r`` minus metric at ``reference_ratio``;
    ``max_increase`` / ``max_decrease`` (R, M) summarise each map.
    """

    ratios: np.ndarray
    labels: tuple
    metrics: tuple
    tpr: np.ndarray
    tnr: np.ndarray
    reference_ratio: float
    values: np.ndarray
    mean_difference: np.ndarray
    max_increase: np.ndarray
    max_decrease: np.ndarray

    def get(self, metric: str, ratio) -> np.ndarray:
        """The (G, G) difference map of ``metric`` at ``ratio``."""
        return self.values[ratio_index(self.ratios, self.labels, ratio), metric_index(self.metrics, metric)]

    def to_frame(self):
        """Tidy summary: ratio, label, metric, mean_difference, max_increase, max_decrease."""
        import pandas as pd

        rows = [
            {
                "ratio": float(p),
                "label": lab,
                "metric": m,
                "reference_ratio": self.reference_ratio,
                "mean_difference": float(self.mean_difference[r, k]),
                "max_increase": float(self.max_increase[r, k]),
                "max_decrease": float(self.max_decrease[r, k]),
            }
            for r, (p, lab) in enumerate(zip(self.ratios, self.labels))
            for k, m in enumerate(self.metrics)
        ]
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """JSON-safe dict with the maps as nested lists."""
        return {
            "ratios": json_safe(self.ratios),
            "labels": list(self.labels),
            "metrics": list(self.metrics),
            "tpr": json_safe(self.tpr),
            "tnr": json_safe(self.tnr),
            "reference_ratio": self.reference_ratio,
            "values": json_safe(self.values),
            "summary": json_safe(self.to_frame().to_dict(orient="records")),
        }


def landscape_difference(result: LandscapeResult, *, reference: float = 0.5) -> LandscapeDifferenceResult:
    r"""Difference maps \(L_m(\text{TPR}, \text{TNR}; \pi) - L_m(\text{TPR}, \text{TNR}; \pi_{ref})\) (Hermary et al. §V-B, Figure 3).

    The reference landscape is computed on the same grid (balanced π = ½ by
    default). AUROC's map is identically 0: it does not depend on π.

    Parameters
    ----------
    result : LandscapeResult
    reference : float, default 0.5
        Reference anomaly ratio in (0, 1).

    Returns
    -------
    LandscapeDifferenceResult

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§V-B, Figure 3).

    See Also
    --------
    - [`landscape`][auditad.landscapes.landscape]

    Examples
    --------
    >>> d = landscape_difference(landscape(["UCR"], resolution=11))
    >>> float(abs(d.get("auroc", "UCR")).max())
    0.0
    """
    check_landscape_result(result)
    reference = check_float(reference, name="reference", low=0.0, high=1.0, low_open=True, high_open=True)
    ref = landscape([reference], metrics=result.metrics, resolution=result.tpr.size).values[0]
    diff = result.values - ref[None]
    return LandscapeDifferenceResult(
        ratios=result.ratios,
        labels=result.labels,
        metrics=result.metrics,
        tpr=result.tpr,
        tnr=result.tnr,
        reference_ratio=reference,
        values=diff,
        mean_difference=diff.mean(axis=(2, 3)),
        max_increase=diff.max(axis=(2, 3)),
        max_decrease=diff.min(axis=(2, 3)),
    )


# --------------------------------------------------------------------------- regions of interest
@dataclass(frozen=True, eq=False)
class RegionStatsResult(FrameDisplay):
    """Mean and excess kurtosis of each metric in each region (see `landscape_regions`).

    ``mean`` and ``excess_kurtosis`` have shape (R, M, number of regions).
    """

    ratios: np.ndarray
    labels: tuple
    metrics: tuple
    regions: tuple
    bounds: tuple
    mean: np.ndarray
    excess_kurtosis: np.ndarray
    n_points: np.ndarray

    def to_frame(self):
        """Tidy frame: ratio, label, metric, region, mean, excess_kurtosis, n_points."""
        import pandas as pd

        rows = [
            {
                "ratio": float(p),
                "label": lab,
                "metric": m,
                "region": g,
                "mean": float(self.mean[r, k, q]),
                "excess_kurtosis": float(self.excess_kurtosis[r, k, q]),
                "n_points": int(self.n_points[q]),
            }
            for r, (p, lab) in enumerate(zip(self.ratios, self.labels))
            for k, m in enumerate(self.metrics)
            for q, g in enumerate(self.regions)
        ]
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """JSON-safe dict: one record per (ratio, metric, region)."""
        return {
            "regions": {g: json_safe(b) for g, b in zip(self.regions, self.bounds)},
            "records": json_safe(self.to_frame().to_dict(orient="records")),
        }


def _region_masks(result: LandscapeResult, regions) -> tuple[tuple, tuple, list]:
    if not isinstance(regions, Mapping) or not regions:
        raise InvalidInputError(
            f"regions must be a non-empty mapping name -> ((tpr_lo, tpr_hi), (tnr_lo, tnr_hi)), got {describe(regions)}"
        )
    names, bounds, masks = [], [], []
    for name, b in regions.items():
        try:
            (t0, t1), (n0, n1) = b
        except (TypeError, ValueError):
            raise InvalidInputError(
                f"regions[{name!r}] must be ((tpr_lo, tpr_hi), (tnr_lo, tnr_hi)), got {describe(b)}"
            ) from None
        arr = check_probability_array([t0, t1, n0, n1], name=f"regions[{name!r}]")
        if arr[0] > arr[1] or arr[2] > arr[3]:
            raise InvalidInputError(f"regions[{name!r}] has a lower bound above its upper bound: {describe(b)}")
        ti = (result.tpr >= arr[0] - EPS) & (result.tpr <= arr[1] + EPS)
        tj = (result.tnr >= arr[2] - EPS) & (result.tnr <= arr[3] + EPS)
        mask = ti[:, None] & tj[None, :]
        if not mask.any():
            raise InvalidInputError(f"regions[{name!r}] contains no grid point; increase resolution")
        names.append(str(name))
        bounds.append(((float(arr[0]), float(arr[1])), (float(arr[2]), float(arr[3]))))
        masks.append(mask)
    return tuple(names), tuple(bounds), masks


def landscape_regions(result: LandscapeResult, *, regions: Mapping = REGIONS) -> RegionStatsResult:
    r"""Mean and excess kurtosis of every landscape inside regions of interest (Hermary et al. §V-D, Figures 5, 13, 14).

    Default regions (TPR range, TNR range, inclusive): R1 (0–10 %, 0–10 %),
    R2 (0–10, 90–100), R3 (90–100, 0–10), R4 (90–100, 90–100), R5 (45–55, 45–55).
    Over the grid points \(v_1..v_K\) inside a region,

    \[
    \bar v = \frac1K \sum_k v_k,\qquad
    \kappa_{excess} = \frac{\frac1K\sum_k (v_k-\bar v)^4}{\big(\frac1K\sum_k (v_k-\bar v)^2\big)^2} - 3.
    \]

    The kurtosis of a constant region is undefined: nan with an
    [`UndefinedValueWarning`][auditad.errors.UndefinedValueWarning].

    Parameters
    ----------
    result : LandscapeResult
    regions : mapping, default REGIONS
        name -> ((TPR low, TPR high), (TNR low, TNR high)).

    Returns
    -------
    RegionStatsResult

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§V-D, Figures 5, 13, 14).

    See Also
    --------
    - [`landscape`][auditad.landscapes.landscape]
    - `REGIONS`

    Examples
    --------
    >>> reg = landscape_regions(landscape([0.5], metrics=["auroc"]))
    >>> round(float(reg.mean[0, 0, 4]), 6)  # R5 of AUROC
    0.5
    """
    check_landscape_result(result)
    names, bounds, masks = _region_masks(result, regions)
    R, M = result.values.shape[:2]
    mean = np.empty((R, M, len(names)))
    kurt = np.empty((R, M, len(names)))
    undefined = []
    for q, mask in enumerate(masks):
        v = result.values[:, :, mask]  # (R, M, K)
        mu = v.mean(axis=2)
        d = v - mu[..., None]
        m2 = (d**2).mean(axis=2)
        m4 = (d**4).mean(axis=2)
        mean[:, :, q] = mu
        with np.errstate(invalid="ignore", divide="ignore"):
            k = np.where(m2 > 1e-24, m4 / np.where(m2 > 1e-24, m2, 1.0) ** 2 - 3.0, np.nan)
        kurt[:, :, q] = k
        for r, m in zip(*np.nonzero(np.isnan(k))):
            undefined.append(f"{result.metrics[m]} at {result.labels[r]} in {names[q]}")
    if undefined:
        warnings.warn(
            f"excess kurtosis undefined (constant landscape region) for: {', '.join(undefined)}",
            UndefinedValueWarning,
            stacklevel=2,
        )
    return RegionStatsResult(
        ratios=result.ratios,
        labels=result.labels,
        metrics=result.metrics,
        regions=names,
        bounds=bounds,
        mean=mean,
        excess_kurtosis=kurt,
        n_points=np.array([int(m.sum()) for m in masks]),
    )


# --------------------------------------------------------------------------- minimal TPR
@dataclass(frozen=True, eq=False)
class MinimalTprResult(FrameDisplay):
    """Smallest TPR reaching each score and the TNR then needed (see `minimal_tpr`).

    ``min_tpr`` and ``tnr_needed`` have shape (R, M, S); nan where the score is not reached on the grid.
    """

    ratios: np.ndarray
    labels: tuple
    metrics: tuple
    scores: np.ndarray
    min_tpr: np.ndarray
    tnr_needed: np.ndarray

    def to_frame(self):
        """Tidy frame: ratio, label, metric, score, min_tpr, tnr_needed."""
        import pandas as pd

        rows = [
            {
                "ratio": float(p),
                "label": lab,
                "metric": m,
                "score": float(s),
                "min_tpr": float(self.min_tpr[r, k, i]),
                "tnr_needed": float(self.tnr_needed[r, k, i]),
            }
            for r, (p, lab) in enumerate(zip(self.ratios, self.labels))
            for k, m in enumerate(self.metrics)
            for i, s in enumerate(self.scores)
        ]
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """JSON-safe dict: one record per (ratio, metric, score)."""
        return {"records": json_safe(self.to_frame().to_dict(orient="records"))}


def minimal_tpr(result: LandscapeResult, *, scores=None) -> MinimalTprResult:
    r"""Minimal TPR needed to reach a score, and the TNR it then requires (Hermary et al. §V-C, Figure 4).

    \[
    \mathrm{TPR}^*(s) = \min\{\mathrm{TPR} : \exists\,\mathrm{TNR},\ L(\mathrm{TPR},\mathrm{TNR}) \ge s\},\qquad
    \mathrm{TNR}^*(s) = \min\{\mathrm{TNR} : L(\mathrm{TPR}^*(s),\mathrm{TNR}) \ge s\},
    \]

    searched on the grid of ``result`` (so exact to the grid step). For AUROC
    \(\mathrm{TPR}^* = \max(0, 2s-1)\); for the trapezoid AUPR no positive
    needs detecting up to \((1+\pi)/2\) (with TNR = 1); scaled MCC reaches ½
    at TPR = 0.

    Parameters
    ----------
    result : LandscapeResult
    scores : array-like, optional
        Target scores; default 0.05, 0.10, …, 1.00 (0.05 steps; for raw ``mcc``
        the same targets are used on its [-1, 1] scale).

    Returns
    -------
    MinimalTprResult

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§V-C, Figure 4).

    See Also
    --------
    - [`landscape`][auditad.landscapes.landscape]
    - [`landscape_coverage`][auditad.landscapes.landscape_coverage]

    Examples
    --------
    >>> mt = minimal_tpr(landscape([0.5], metrics=["auroc"]), scores=[0.5, 0.8])
    >>> mt.min_tpr[0, 0].tolist(), mt.tnr_needed[0, 0].tolist()
    ([0.0, 0.6], [1.0, 1.0])
    """
    check_landscape_result(result)
    if scores is None:
        scores = np.round(np.arange(1, 21) * 0.05, 10)
    s = np.asarray(scores, dtype=np.float64).ravel()
    if s.size == 0 or not np.all(np.isfinite(s)):
        raise InvalidInputError(f"scores must be finite numbers, got {describe(scores)}")
    R, M, G, H = result.values.shape
    min_t = np.full((R, M, s.size), np.nan)
    tnr_n = np.full((R, M, s.size), np.nan)
    for i, target in enumerate(s):
        reach = result.values >= target - EPS  # (R, M, G, H)
        any_row = reach.any(axis=3)  # (R, M, G): some TNR reaches the score at this TPR
        ok = any_row.any(axis=2)
        first = np.argmax(any_row, axis=2)  # smallest TPR index
        row = np.take_along_axis(reach, first[:, :, None, None], axis=2)[:, :, 0, :]  # (R, M, H)
        first_tnr = np.argmax(row, axis=2)
        min_t[:, :, i] = np.where(ok, result.tpr[first], np.nan)
        tnr_n[:, :, i] = np.where(ok, result.tnr[first_tnr], np.nan)
    return MinimalTprResult(
        ratios=result.ratios, labels=result.labels, metrics=result.metrics, scores=s, min_tpr=min_t, tnr_needed=tnr_n
    )


# --------------------------------------------------------------------------- coverage
@dataclass(frozen=True, eq=False)
class CoverageResult(FrameDisplay):
    """Share of the landscape area per score bin (see `landscape_coverage`).

    ``coverage`` has shape (R, M, bins); ``bin_edges`` (M, bins + 1) per metric.
    """

    ratios: np.ndarray
    labels: tuple
    metrics: tuple
    bin_edges: np.ndarray
    coverage: np.ndarray

    def to_frame(self):
        """Tidy frame: ratio, label, metric, bin_low, bin_high, bin_center, coverage."""
        import pandas as pd

        rows = [
            {
                "ratio": float(p),
                "label": lab,
                "metric": m,
                "bin_low": float(self.bin_edges[k, b]),
                "bin_high": float(self.bin_edges[k, b + 1]),
                "bin_center": float((self.bin_edges[k, b] + self.bin_edges[k, b + 1]) / 2),
                "coverage": float(self.coverage[r, k, b]),
            }
            for r, (p, lab) in enumerate(zip(self.ratios, self.labels))
            for k, m in enumerate(self.metrics)
            for b in range(self.coverage.shape[2])
        ]
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """JSON-safe dict: one record per (ratio, metric, bin)."""
        return {"records": json_safe(self.to_frame().to_dict(orient="records"))}


def _area_weights(grid: np.ndarray) -> np.ndarray:
    """Trapezoid-rule weights of a 1-D grid (sum = grid span)."""
    w = np.zeros_like(grid)
    d = np.diff(grid)
    w[:-1] += d / 2
    w[1:] += d / 2
    return w


def landscape_coverage(result: LandscapeResult, *, bins: int = 20) -> CoverageResult:
    r"""Share of the TPR × TNR area on which each metric falls in each score bin (Hermary et al. App. B, Figure 8).

    \[
    C_b = \frac{\iint \mathbb 1[L(\mathrm{TPR},\mathrm{TNR}) \in B_b]\,d\mathrm{TPR}\,d\mathrm{TNR}}
    {\iint d\mathrm{TPR}\,d\mathrm{TNR}},
    \]

    with ``bins`` equal bins over the metric's range ([0, 1]; [-1, 1] for raw
    ``mcc``; 20 bins of width 0.05 by default, the last closed on the right).
    The integral is the trapezoid rule on the grid (edge points weigh ½,
    corners ¼), so the shares sum to 1.

    Parameters
    ----------
    result : LandscapeResult
    bins : int, default 20

    Returns
    -------
    CoverageResult

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (App. B, Figure 8).

    See Also
    --------
    - [`landscape`][auditad.landscapes.landscape]
    - [`minimal_tpr`][auditad.landscapes.minimal_tpr]

    Examples
    --------
    >>> cov = landscape_coverage(landscape([0.5], metrics=["auroc"]))
    >>> int(np.argmax(cov.coverage[0, 0]))  # AUROC: the bin [0.50, 0.55) covers the most area
    10
    """
    check_landscape_result(result)
    bins = check_int(bins, name="bins", low=1, high=10_000)
    w = np.outer(_area_weights(result.tpr), _area_weights(result.tnr))
    w = (w / w.sum()).ravel()
    R, M = result.values.shape[:2]
    edges = np.empty((M, bins + 1))
    cov = np.empty((R, M, bins))
    for k, m in enumerate(result.metrics):
        lo, hi = metric_range(m)
        edges[k] = np.linspace(lo, hi, bins + 1)
        for r in range(R):
            v = result.values[r, k].ravel()
            idx = np.clip(np.floor((v - lo) / (hi - lo) * bins + EPS).astype(int), 0, bins - 1)
            cov[r, k] = np.bincount(idx, weights=w, minlength=bins)
    return CoverageResult(
        ratios=result.ratios, labels=result.labels, metrics=result.metrics, bin_edges=edges, coverage=cov
    )
