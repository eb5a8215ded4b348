"""Metric landscapes over the TPR × TNR plane under class imbalance (Hermary et al. §V–VI).

A landscape is the value of a metric of binary predictions at every operating
point (TPR, TNR) of a grid, at a given anomaly ratio π (closed forms of
:func:`auditad.metrics.operating_point_metrics`). From the landscapes:

* :func:`landscape_difference` -- the change against the balanced case (π = ½);
* :func:`landscape_regions` -- mean and excess kurtosis in the regions R1–R5;
* :func:`minimal_tpr` -- the smallest TPR that reaches a score, and the TNR it then needs;
* :func:`landscape_coverage` -- the share of the landscape area per score bin;
* :func:`landscape_correlations` -- Pearson correlation of the landscapes and Tucker
  congruence of their factor loadings, per ratio group (Low / Medium / High).

Grid convention: ``values[r, m, i, j]`` is metric ``m`` at ratio ``r``,
TPR = ``tpr[i]`` and TNR = ``tnr[j]``.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from ._validation import check_choice, check_float, check_int, check_probability_array, describe
from .errors import InvalidInputError, UndefinedValueWarning
from ._json import json_safe
from ._landscape_relations import RATIO_GROUPS, MetricRelationsResult, landscape_correlations, ratio_group
from .metrics import METRIC_NAMES, check_metric_names, operating_point_values

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

#: Anomaly ratios of the benchmarks of Hermary et al. Table I (test-set anomaly share).
PAPER_RATIOS = {
    "UCR": 0.0019,
    "WaDi": 0.0577,
    "PUMP": 0.1005,
    "SWaT": 0.1214,
    "PSM": 0.2776,
    "CIFAR-10": 0.90,
    "VisA": 0.555,
    "VisA (L)": 0.0061,
    "MVTec": 0.7293,
    "MVTec (L)": 0.0333,
}


#: Regions of interest of Hermary et al. §V-D: name -> ((TPR low, TPR high), (TNR low, TNR high)), inclusive.
REGIONS = {
    "R1": ((0.0, 0.1), (0.0, 0.1)),
    "R2": ((0.0, 0.1), (0.9, 1.0)),
    "R3": ((0.9, 1.0), (0.0, 0.1)),
    "R4": ((0.9, 1.0), (0.9, 1.0)),
    "R5": ((0.45, 0.55), (0.45, 0.55)),
}

#: The four metrics of Hermary et al. (its AUPR is the trapezoid one, its MCC the scaled one).
LANDSCAPE_METRICS = ("auroc", "aupr_trap", "f1", "mcc_scaled")

_EPS = 1e-12


def metric_range(metric: str) -> tuple[float, float]:
    """Range of a metric's values: (-1, 1) for raw ``mcc``, (0, 1) otherwise.

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§III-B).

    See Also
    --------
    landscape_coverage

    Examples
    --------
    >>> metric_range("mcc"), metric_range("aupr_trap")
    ((-1.0, 1.0), (0.0, 1.0))
    """
    check_choice(metric, METRIC_NAMES, name="metric")
    return (-1.0, 1.0) if metric == "mcc" else (0.0, 1.0)


def ratio_label(ratio: float) -> str:
    """Display label of an anomaly ratio given as a number: its percentage (never a preset name).

    A preset name (e.g. ``"UCR"``) labels a ratio only when the user asked for the preset by name.

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (Table I: the presets).

    See Also
    --------
    landscape, PAPER_RATIOS

    Examples
    --------
    >>> ratio_label(0.0019), ratio_label(0.5)
    ('0.19%', '50%')
    """
    return f"{100 * ratio:.4g}%"


def _resolve_ratios(ratios) -> tuple[np.ndarray, tuple[str, ...]]:
    """Ratios as floats plus display labels; accepts numbers, preset names, "paper", or a mapping label -> ratio."""
    if ratios is None or (isinstance(ratios, str) and ratios == "paper"):
        return np.array(list(PAPER_RATIOS.values())), tuple(PAPER_RATIOS)
    if isinstance(ratios, Mapping):
        labels = tuple(str(k) for k in ratios)
        values = check_probability_array(list(ratios.values()), name="ratios", open_interval=True)
        return values.ravel(), labels
    if isinstance(ratios, (str, numbers.Real)):
        ratios = [ratios]
    values, labels = [], []
    for item in ratios:
        if isinstance(item, str):
            if item not in PAPER_RATIOS:
                raise InvalidInputError(
                    f"ratios: unknown preset {item!r}; presets are {list(PAPER_RATIOS)} (or give a number in (0, 1))"
                )
            values.append(PAPER_RATIOS[item])
            labels.append(item)
        else:
            v = check_float(item, name="ratios", low=0.0, high=1.0, low_open=True, high_open=True)
            values.append(v)
            labels.append(ratio_label(v))
    if not values:
        raise InvalidInputError("ratios must contain at least one anomaly ratio")
    return np.array(values, dtype=np.float64), tuple(labels)


def ratio_index(ratios: np.ndarray, labels: tuple, ratio) -> int:
    """Position of a ratio given by label (str) or by value (within 1e-9) in a result's ``ratios``/``labels``.

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (Table I).

    See Also
    --------
    LandscapeResult.ratio_index, metric_index

    Examples
    --------
    >>> ratio_index(np.array([0.0019, 0.5]), ("UCR", "50%"), 0.5), ratio_index(np.array([0.0019]), ("UCR",), "UCR")
    (1, 0)
    """
    if isinstance(ratio, str):
        if ratio in labels:
            return labels.index(ratio)
        raise InvalidInputError(f"ratio {ratio!r} is not in this result; available labels: {list(labels)}")
    value = check_float(ratio, name="ratio")
    hit = np.flatnonzero(np.abs(ratios - value) < 1e-9)
    if hit.size == 0:
        raise InvalidInputError(f"ratio {ratio!r} is not in this result; available: {ratios.tolist()}")
    return int(hit[0])


def metric_index(metrics: tuple, metric) -> int:
    """Position of ``metric`` in a result's ``metrics`` (named error if absent).

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§V).

    See Also
    --------
    ratio_index

    Examples
    --------
    >>> metric_index(("auroc", "f1"), "f1")
    1
    """
    if metric not in metrics:
        raise InvalidInputError(f"metric {describe(metric)} is not in this result; available: {list(metrics)}")
    return metrics.index(metric)


def _check_result(result, cls=None, name: str = "result"):
    """A named error for anything that is not a landscape result (e.g. ``minimal_tpr(None)``)."""
    cls = cls or LandscapeResult
    if not isinstance(result, cls):
        raise InvalidInputError(f"{name} must be a {cls.__name__} (from landscape()), got {describe(result)}")
    return result


# --------------------------------------------------------------------------- landscape
@dataclass(frozen=True, eq=False)
class LandscapeResult:
    """Metric values over a TPR × TNR grid at several anomaly ratios (see :func:`landscape`).

    Attributes
    ----------
    ratios : numpy.ndarray of shape (R,)
        Anomaly ratios π.
    labels : tuple of str
        Display names of the ratios (preset names or percentages).
    metrics : tuple of str
        Metric names.
    tpr, tnr : numpy.ndarray of shape (G,)
        Grid axes.
    values : numpy.ndarray of shape (R, M, G, G)
        ``values[r, m, i, j]`` = metric ``m`` at ratio ``r``, TPR ``tpr[i]``, TNR ``tnr[j]``.

    See Also
    --------
    landscape : computes it.
    landscape_difference, landscape_regions, minimal_tpr, landscape_coverage : what is derived from it.

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
    of Anomaly Detection".
    """

    ratios: np.ndarray
    labels: tuple
    metrics: tuple
    tpr: np.ndarray
    tnr: np.ndarray
    values: np.ndarray

    def ratio_index(self, ratio) -> int:
        """Position of a ratio given by label (e.g. ``"UCR"``) or by value."""
        return ratio_index(self.ratios, self.labels, ratio)

    def get(self, metric: str, ratio) -> np.ndarray:
        """The (G, G) landscape of ``metric`` at ``ratio`` (rows: TPR, columns: TNR)."""
        return self.values[self.ratio_index(ratio), metric_index(self.metrics, metric)]

    def at(self, tpr: float, tnr: float, *, metric: str | None = None, ratio=None):
        """Metric values at the operating point (tpr, tnr), from the closed forms (not snapped to the grid).

        Returns a float when ``metric`` and ``ratio`` are both given, else an array
        over the ratios (R,), the metrics (M,) or both (R, M). At a grid point it
        equals ``values[r, m, i, j]``.

        Examples
        --------
        >>> r = landscape([0.5, 0.0019], metrics=["auroc", "aupr_trap"], resolution=11)
        >>> r.at(0.0, 1.0, metric="aupr_trap", ratio=0.5), r.at(0.3, 0.9).shape
        (0.75, (2, 2))
        """
        from ._validation import check_probability

        tpr = check_probability(tpr, name="tpr")
        tnr = check_probability(tnr, name="tnr")
        vals = operating_point_values(np.full(self.ratios.shape, tpr), np.full(self.ratios.shape, tnr), self.ratios)
        out = np.stack([vals[m] for m in self.metrics], axis=1)  # (R, M)
        if ratio is not None:
            out = out[self.ratio_index(ratio)]
        if metric is not None:
            out = out[..., metric_index(self.metrics, metric)]
        return float(out) if np.ndim(out) == 0 else out

    def to_frame(self):
        """Tidy frame: ratio, label, metric, tpr, tnr, value (one row per grid point)."""
        import pandas as pd

        R, M, G, H = self.values.shape
        ti, tj = np.meshgrid(self.tpr, self.tnr, indexing="ij")
        return pd.DataFrame({
            "ratio": np.repeat(self.ratios, M * G * H),
            "label": np.repeat(np.array(self.labels, dtype=object), M * G * H),
            "metric": np.tile(np.repeat(np.array(self.metrics, dtype=object), G * H), R),
            "tpr": np.tile(ti.ravel(), R * M),
            "tnr": np.tile(tj.ravel(), R * M),
            "value": self.values.ravel(),
        })

    def to_dict(self) -> dict:
        """JSON-safe dict (the values as nested lists indexed ``[ratio][metric][tpr][tnr]``)."""
        return {"ratios": json_safe(self.ratios), "labels": list(self.labels), "metrics": list(self.metrics),
                "tpr": json_safe(self.tpr), "tnr": json_safe(self.tnr), "values": json_safe(self.values)}


def landscape(ratios="paper", *, metrics=LANDSCAPE_METRICS, resolution: int = 101) -> LandscapeResult:
    r"""Every metric over a TPR × TNR grid for each anomaly ratio (Hermary et al. §V-A, Figure 2).

    At ratio π and operating point (TPR, TNR) the confusion-matrix shares are
    :math:`TP = \pi\,TPR`, :math:`FN = \pi(1-TPR)`, :math:`FP = (1-\pi)(1-TNR)`,
    :math:`TN = (1-\pi)\,TNR`, and the metrics follow the closed forms of
    :func:`~auditad.metrics.operating_point_metrics` (conventions there for the
    corner TPR = 0, TNR = 1 where nothing is predicted positive).

    Parameters
    ----------
    ratios : "paper", float, str or sequence, default "paper"
        Anomaly ratios in (0, 1), preset names from :data:`PAPER_RATIOS`
        (Hermary et al. Table I), ``"paper"`` for all of them, or a mapping label -> ratio.
    metrics : sequence of str, default ("auroc", "aupr_trap", "f1", "mcc_scaled")
        The paper's four metrics; ``ap`` and ``mcc`` are available too.
    resolution : int, default 101
        Grid points per axis (101 gives steps of 0.01 including 0 and 1).

    Returns
    -------
    LandscapeResult

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§V-A, Figure 2; Table I for the presets).

    See Also
    --------
    landscape_difference, minimal_tpr, landscape_coverage, landscape_correlations, LandscapeResult.at

    Examples
    --------
    >>> r = landscape([0.5, "UCR"], resolution=11)
    >>> r.values.shape, r.labels
    ((2, 4, 11, 11), ('50%', 'UCR'))
    >>> float(r.get("aupr_trap", 0.5)[0, -1])  # TPR 0, TNR 1, balanced
    0.75
    """
    values, labels = _resolve_ratios(ratios)
    metrics = check_metric_names(metrics)
    resolution = check_int(resolution, name="resolution", low=2, high=5001)
    grid = np.linspace(0.0, 1.0, resolution)
    tpr, tnr = np.meshgrid(grid, grid, indexing="ij")
    out = np.empty((values.size, len(metrics), resolution, resolution))
    for r, pi in enumerate(values):
        vals = operating_point_values(tpr, tnr, np.full_like(tpr, pi))
        for m, name in enumerate(metrics):
            out[r, m] = vals[name]
    return LandscapeResult(ratios=values, labels=labels, metrics=metrics, tpr=grid, tnr=grid.copy(), values=out)


# --------------------------------------------------------------------------- difference maps
@dataclass(frozen=True, eq=False)
class LandscapeDifferenceResult:
    """Landscapes minus the landscape at a reference ratio (see :func:`landscape_difference`).

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

        rows = [{"ratio": float(p), "label": lab, "metric": m, "reference_ratio": self.reference_ratio,
                 "mean_difference": float(self.mean_difference[r, k]),
                 "max_increase": float(self.max_increase[r, k]), "max_decrease": float(self.max_decrease[r, k])}
                for r, (p, lab) in enumerate(zip(self.ratios, self.labels)) for k, m in enumerate(self.metrics)]
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """JSON-safe dict with the maps as nested lists."""
        return {"ratios": json_safe(self.ratios), "labels": list(self.labels), "metrics": list(self.metrics),
                "tpr": json_safe(self.tpr), "tnr": json_safe(self.tnr),
                "reference_ratio": self.reference_ratio, "values": json_safe(self.values),
                "summary": json_safe(self.to_frame().to_dict(orient="records"))}


def landscape_difference(result: LandscapeResult, *, reference: float = 0.5) -> LandscapeDifferenceResult:
    r"""Difference maps :math:`L_m(\text{TPR}, \text{TNR}; \pi) - L_m(\text{TPR}, \text{TNR}; \pi_{ref})` (Hermary et al. §V-B, Figure 3).

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
    landscape

    Examples
    --------
    >>> d = landscape_difference(landscape(["UCR"], resolution=11))
    >>> float(abs(d.get("auroc", "UCR")).max())
    0.0
    """
    _check_result(result)
    reference = check_float(reference, name="reference", low=0.0, high=1.0, low_open=True, high_open=True)
    ref = landscape([reference], metrics=result.metrics, resolution=result.tpr.size).values[0]
    diff = result.values - ref[None]
    return LandscapeDifferenceResult(
        ratios=result.ratios, labels=result.labels, metrics=result.metrics, tpr=result.tpr, tnr=result.tnr,
        reference_ratio=reference, values=diff, mean_difference=diff.mean(axis=(2, 3)),
        max_increase=diff.max(axis=(2, 3)), max_decrease=diff.min(axis=(2, 3)),
    )


# --------------------------------------------------------------------------- regions of interest
@dataclass(frozen=True, eq=False)
class RegionStatsResult:
    """Mean and excess kurtosis of each metric in each region (see :func:`landscape_regions`).

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

        rows = [{"ratio": float(p), "label": lab, "metric": m, "region": g,
                 "mean": float(self.mean[r, k, q]), "excess_kurtosis": float(self.excess_kurtosis[r, k, q]),
                 "n_points": int(self.n_points[q])}
                for r, (p, lab) in enumerate(zip(self.ratios, self.labels))
                for k, m in enumerate(self.metrics) for q, g in enumerate(self.regions)]
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """JSON-safe dict: one record per (ratio, metric, region)."""
        return {"regions": {g: json_safe(b) for g, b in zip(self.regions, self.bounds)},
                "records": json_safe(self.to_frame().to_dict(orient="records"))}


def _region_masks(result: LandscapeResult, regions) -> tuple[tuple, tuple, list]:
    if not isinstance(regions, Mapping) or not regions:
        raise InvalidInputError(f"regions must be a non-empty mapping name -> ((tpr_lo, tpr_hi), (tnr_lo, tnr_hi)), "
                                f"got {describe(regions)}")
    names, bounds, masks = [], [], []
    for name, b in regions.items():
        try:
            (t0, t1), (n0, n1) = b
        except (TypeError, ValueError):
            raise InvalidInputError(f"regions[{name!r}] must be ((tpr_lo, tpr_hi), (tnr_lo, tnr_hi)), got {describe(b)}") from None
        arr = check_probability_array([t0, t1, n0, n1], name=f"regions[{name!r}]")
        if arr[0] > arr[1] or arr[2] > arr[3]:
            raise InvalidInputError(f"regions[{name!r}] has a lower bound above its upper bound: {describe(b)}")
        ti = (result.tpr >= arr[0] - _EPS) & (result.tpr <= arr[1] + _EPS)
        tj = (result.tnr >= arr[2] - _EPS) & (result.tnr <= arr[3] + _EPS)
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
    Over the grid points :math:`v_1..v_K` inside a region,

    .. math::

        \bar v = \frac1K \sum_k v_k,\qquad
        \kappa_{excess} = \frac{\frac1K\sum_k (v_k-\bar v)^4}{\big(\frac1K\sum_k (v_k-\bar v)^2\big)^2} - 3.

    The kurtosis of a constant region is undefined: nan with an
    :class:`~auditad.errors.UndefinedValueWarning`.

    Parameters
    ----------
    result : LandscapeResult
    regions : mapping, default :data:`REGIONS`
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
    landscape, REGIONS

    Examples
    --------
    >>> reg = landscape_regions(landscape([0.5], metrics=["auroc"]))
    >>> round(float(reg.mean[0, 0, 4]), 6)  # R5 of AUROC
    0.5
    """
    _check_result(result)
    names, bounds, masks = _region_masks(result, regions)
    R, M = result.values.shape[:2]
    mean = np.empty((R, M, len(names)))
    kurt = np.empty((R, M, len(names)))
    undefined = []
    for q, mask in enumerate(masks):
        v = result.values[:, :, mask]  # (R, M, K)
        mu = v.mean(axis=2)
        d = v - mu[..., None]
        m2 = (d ** 2).mean(axis=2)
        m4 = (d ** 4).mean(axis=2)
        mean[:, :, q] = mu
        with np.errstate(invalid="ignore", divide="ignore"):
            k = np.where(m2 > 1e-24, m4 / np.where(m2 > 1e-24, m2, 1.0) ** 2 - 3.0, np.nan)
        kurt[:, :, q] = k
        for r, m in zip(*np.nonzero(np.isnan(k))):
            undefined.append(f"{result.metrics[m]} at {result.labels[r]} in {names[q]}")
    if undefined:
        warnings.warn(f"excess kurtosis undefined (constant landscape region) for: {', '.join(undefined)}",
                      UndefinedValueWarning, stacklevel=2)
    return RegionStatsResult(ratios=result.ratios, labels=result.labels, metrics=result.metrics, regions=names,
                             bounds=bounds, mean=mean, excess_kurtosis=kurt,
                             n_points=np.array([int(m.sum()) for m in masks]))


# --------------------------------------------------------------------------- minimal TPR
@dataclass(frozen=True, eq=False)
class MinimalTprResult:
    """Smallest TPR reaching each score and the TNR then needed (see :func:`minimal_tpr`).

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

        rows = [{"ratio": float(p), "label": lab, "metric": m, "score": float(s),
                 "min_tpr": float(self.min_tpr[r, k, i]), "tnr_needed": float(self.tnr_needed[r, k, i])}
                for r, (p, lab) in enumerate(zip(self.ratios, self.labels))
                for k, m in enumerate(self.metrics) for i, s in enumerate(self.scores)]
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """JSON-safe dict: one record per (ratio, metric, score)."""
        return {"records": json_safe(self.to_frame().to_dict(orient="records"))}


def minimal_tpr(result: LandscapeResult, *, scores=None) -> MinimalTprResult:
    r"""Minimal TPR needed to reach a score, and the TNR it then requires (Hermary et al. §V-C, Figure 4).

    .. math::

        \mathrm{TPR}^*(s) = \min\{\mathrm{TPR} : \exists\,\mathrm{TNR},\ L(\mathrm{TPR},\mathrm{TNR}) \ge s\},\qquad
        \mathrm{TNR}^*(s) = \min\{\mathrm{TNR} : L(\mathrm{TPR}^*(s),\mathrm{TNR}) \ge s\},

    searched on the grid of ``result`` (so exact to the grid step). For AUROC
    :math:`\mathrm{TPR}^* = \max(0, 2s-1)`; for the trapezoid AUPR no positive
    needs detecting up to :math:`(1+\pi)/2` (with TNR = 1); scaled MCC reaches ½
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
    landscape, landscape_coverage

    Examples
    --------
    >>> mt = minimal_tpr(landscape([0.5], metrics=["auroc"]), scores=[0.5, 0.8])
    >>> mt.min_tpr[0, 0].tolist(), mt.tnr_needed[0, 0].tolist()
    ([0.0, 0.6], [1.0, 1.0])
    """
    _check_result(result)
    if scores is None:
        scores = np.round(np.arange(1, 21) * 0.05, 10)
    s = np.asarray(scores, dtype=np.float64).ravel()
    if s.size == 0 or not np.all(np.isfinite(s)):
        raise InvalidInputError(f"scores must be finite numbers, got {describe(scores)}")
    R, M, G, H = result.values.shape
    min_t = np.full((R, M, s.size), np.nan)
    tnr_n = np.full((R, M, s.size), np.nan)
    for i, target in enumerate(s):
        reach = result.values >= target - _EPS  # (R, M, G, H)
        any_row = reach.any(axis=3)  # (R, M, G): some TNR reaches the score at this TPR
        ok = any_row.any(axis=2)
        first = np.argmax(any_row, axis=2)  # smallest TPR index
        row = np.take_along_axis(reach, first[:, :, None, None], axis=2)[:, :, 0, :]  # (R, M, H)
        first_tnr = np.argmax(row, axis=2)
        min_t[:, :, i] = np.where(ok, result.tpr[first], np.nan)
        tnr_n[:, :, i] = np.where(ok, result.tnr[first_tnr], np.nan)
    return MinimalTprResult(ratios=result.ratios, labels=result.labels, metrics=result.metrics, scores=s,
                            min_tpr=min_t, tnr_needed=tnr_n)


# --------------------------------------------------------------------------- coverage
@dataclass(frozen=True, eq=False)
class CoverageResult:
    """Share of the landscape area per score bin (see :func:`landscape_coverage`).

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

        rows = [{"ratio": float(p), "label": lab, "metric": m, "bin_low": float(self.bin_edges[k, b]),
                 "bin_high": float(self.bin_edges[k, b + 1]),
                 "bin_center": float((self.bin_edges[k, b] + self.bin_edges[k, b + 1]) / 2),
                 "coverage": float(self.coverage[r, k, b])}
                for r, (p, lab) in enumerate(zip(self.ratios, self.labels))
                for k, m in enumerate(self.metrics) for b in range(self.coverage.shape[2])]
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

    .. math::

        C_b = \frac{\iint \mathbb 1[L(\mathrm{TPR},\mathrm{TNR}) \in B_b]\,d\mathrm{TPR}\,d\mathrm{TNR}}
                   {\iint d\mathrm{TPR}\,d\mathrm{TNR}},

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
    landscape, minimal_tpr

    Examples
    --------
    >>> cov = landscape_coverage(landscape([0.5], metrics=["auroc"]))
    >>> int(np.argmax(cov.coverage[0, 0]))  # AUROC: the bin [0.50, 0.55) covers the most area
    10
    """
    _check_result(result)
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
            idx = np.clip(np.floor((v - lo) / (hi - lo) * bins + _EPS).astype(int), 0, bins - 1)
            cov[r, k] = np.bincount(idx, weights=w, minlength=bins)
    return CoverageResult(ratios=result.ratios, labels=result.labels, metrics=result.metrics, bin_edges=edges,
                          coverage=cov)
