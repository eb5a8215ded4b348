"""The landscape grid: anomaly ratios, the metrics on a TPR × TNR grid and its result type.

Part of [`auditad.landscapes`][auditad.landscapes] (which re-exports every public name here). The derived
statistics ([`auditad.landscapes`][auditad.landscapes] itself) and the relations between landscapes
(`auditad.landscapes.relations`) both build on it.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from .._validation import check_choice, check_float, check_int, check_probability_array, describe
from ..errors import InvalidInputError
from .._json import json_safe
from ..metrics import METRIC_NAMES, check_metric_names, operating_point_values

__all__ = [
    "PAPER_RATIOS",
    "REGIONS",
    "LANDSCAPE_METRICS",
    "EPS",
    "LandscapeResult",
    "landscape",
    "check_landscape_result",
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

EPS = 1e-12


def metric_range(metric: str) -> tuple[float, float]:
    """Range of a metric's values: (-1, 1) for raw ``mcc``, (0, 1) otherwise.

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§III-B).

    See Also
    --------
    - [`landscape_coverage`][auditad.landscapes.landscape_coverage]

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
    - [`landscape`][auditad.landscapes.landscape]
    - `PAPER_RATIOS`

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
    - [`LandscapeResult.ratio_index`][auditad.landscapes.LandscapeResult.ratio_index]
    - [`metric_index`][auditad.landscapes.metric_index]

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
    - [`ratio_index`][auditad.landscapes.ratio_index]

    Examples
    --------
    >>> metric_index(("auroc", "f1"), "f1")
    1
    """
    if metric not in metrics:
        raise InvalidInputError(f"metric {describe(metric)} is not in this result; available: {list(metrics)}")
    return metrics.index(metric)


def check_landscape_result(result, cls=None, name: str = "result"):
    """A named error for anything that is not a landscape result (e.g. ``minimal_tpr(None)``)."""
    cls = cls or LandscapeResult
    if not isinstance(result, cls):
        raise InvalidInputError(f"{name} must be a {cls.__name__} (from landscape()), got {describe(result)}")
    return result


# --------------------------------------------------------------------------- landscape
@dataclass(frozen=True, eq=False)
class LandscapeResult:
    """Metric values over a TPR × TNR grid at several anomaly ratios (see `landscape`).

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
    - [`landscape`][auditad.landscapes.landscape]: computes it.
    - [`landscape_difference`][auditad.landscapes.landscape_difference],
      [`landscape_regions`][auditad.landscapes.landscape_regions], [`minimal_tpr`][auditad.landscapes.minimal_tpr],
      [`landscape_coverage`][auditad.landscapes.landscape_coverage]: what is derived from it.

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
        from .._validation import check_probability

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
        return pd.DataFrame(
            {
                "ratio": np.repeat(self.ratios, M * G * H),
                "label": np.repeat(np.array(self.labels, dtype=object), M * G * H),
                "metric": np.tile(np.repeat(np.array(self.metrics, dtype=object), G * H), R),
                "tpr": np.tile(ti.ravel(), R * M),
                "tnr": np.tile(tj.ravel(), R * M),
                "value": self.values.ravel(),
            }
        )

    def _repr_html_(self) -> str:
        """Notebook display: per ratio and metric, the landscape's mean, range and value at TPR = TNR = 0.5."""
        from .._format import html_block, html_table

        mid = self.at(0.5, 0.5)  # (R, M)
        rows = [
            {
                "ratio": label,
                "metric": m,
                "mean": float(np.mean(self.values[r, j])),
                "min": float(np.min(self.values[r, j])),
                "max": float(np.max(self.values[r, j])),
                "at TPR = TNR = 0.5": float(mid[r, j]),
            }
            for r, label in enumerate(self.labels)
            for j, m in enumerate(self.metrics)
        ]
        g = self.tpr.size
        return html_block(
            f"Metric landscapes: {len(self.metrics)} metric(s) at {len(self.labels)} anomaly ratio(s) "
            f"on a {g} × {g} TPR × TNR grid",
            html_table(rows, max_rows=60),
            note="A random detector sits at TPR + TNR = 1; plot one with auditad.plotting.plot_landscape.",
        )

    def to_dict(self) -> dict:
        """JSON-safe dict (the values as nested lists indexed ``[ratio][metric][tpr][tnr]``)."""
        return {
            "ratios": json_safe(self.ratios),
            "labels": list(self.labels),
            "metrics": list(self.metrics),
            "tpr": json_safe(self.tpr),
            "tnr": json_safe(self.tnr),
            "values": json_safe(self.values),
        }


def landscape(ratios="paper", *, metrics=LANDSCAPE_METRICS, resolution: int = 101) -> LandscapeResult:
    r"""Every metric over a TPR × TNR grid for each anomaly ratio (Hermary et al. §V-A, Figure 2).

    At ratio π and operating point (TPR, TNR) the confusion-matrix shares are
    \(TP = \pi\,TPR\), \(FN = \pi(1-TPR)\), \(FP = (1-\pi)(1-TNR)\),
    \(TN = (1-\pi)\,TNR\), and the metrics follow the closed forms of
    [`operating_point_metrics`][auditad.metrics.operating_point_metrics] (conventions there for the
    corner TPR = 0, TNR = 1 where nothing is predicted positive).

    Parameters
    ----------
    ratios : "paper", float, str or sequence, default "paper"
        Anomaly ratios in (0, 1), preset names from `PAPER_RATIOS`
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
    - [`landscape_difference`][auditad.landscapes.landscape_difference]
    - [`minimal_tpr`][auditad.landscapes.minimal_tpr]
    - [`landscape_coverage`][auditad.landscapes.landscape_coverage]
    - [`landscape_correlations`][auditad.landscapes.landscape_correlations]
    - [`LandscapeResult.at`][auditad.landscapes.LandscapeResult.at]

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
