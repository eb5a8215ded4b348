"""Helpers shared by the figure modules of `auditad.plotting`: metric labels, landscape lookups, input errors."""

from __future__ import annotations

__all__ = ["METRIC_LABELS", "metric_label", "invalid_input", "landscape_metric_index", "metric_range", "ratio_position"]

#: Axis labels of the metrics.
METRIC_LABELS = {
    "auroc": "AUROC",
    "ap": "AP",
    "aupr_trap": "AUPR (trapezoid)",
    "f1": "F1",
    "mcc": "MCC",
    "mcc_scaled": "MCC (scaled)",
}


def metric_label(metric: str) -> str:
    """The axis label of a metric (``"AUROC"`` for ``"auroc"``; other names unchanged)."""
    return METRIC_LABELS.get(metric, metric)


def invalid_input(message: str):
    """An [`InvalidInputError`][auditad.errors.InvalidInputError] with ``message`` (imported when needed)."""
    from ..errors import InvalidInputError

    return InvalidInputError(message)


def landscape_metric_index(result, metric) -> int:
    """Position of ``metric`` in a landscape-type result (`auditad.landscapes.metric_index`)."""
    from ..landscapes import metric_index

    return metric_index(tuple(result.metrics), metric)


def metric_range(metric: str) -> tuple[float, float]:
    """The value range of a metric (`auditad.landscapes.metric_range`)."""
    from ..landscapes import metric_range as landscape_range

    return landscape_range(metric)


def ratio_position(result, ratio) -> int:
    """Position of a ratio (value or label; None: the first) (`auditad.landscapes.ratio_index`)."""
    if ratio is None:
        return 0
    from ..landscapes import ratio_index

    return ratio_index(result.ratios, tuple(result.labels), ratio)
