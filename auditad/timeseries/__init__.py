"""Time-series anomaly-detection evaluation: metrics over thresholds and their nulls at the labels' structure.

* [`threshold_curve`][auditad.timeseries.threshold_curve] -- point-wise F1, point-adjusted F1 (Xu et al., WWW
  2018) and composite F1 (Garg et al., IEEE TNNLS 2022) at every threshold;
* [`pa_k_area`][auditad.timeseries.pa_k_area] -- PA%K and its area (Kim et al., AAAI 2022);
* [`range_precision_recall`][auditad.timeseries.range_precision_recall] -- range-based precision and recall
  (Tatbul et al., NeurIPS 2018) with positional bias and cardinality;
* [`detector_metrics`][auditad.timeseries.detector_metrics] -- every metric of one score array;
* [`vus`][auditad.timeseries.vus] -- range-AUC and VUS-ROC / VUS-PR (Paparrizos et al., PVLDB 2022);
* [`affiliation_precision_recall`][auditad.timeseries.affiliation_precision_recall] -- affiliation precision and
  recall (Huet et al., KDD 2022);
* [`random_null`][auditad.timeseries.random_null], [`trivial_baselines`][auditad.timeseries.trivial_baselines]
  -- what uniformly random scores and trivial detectors reach at the labels' own segment structure;
* [`audit_timeseries`][auditad.timeseries.audit_timeseries] -- the audit behind ``auditad timeseries``.
"""

from __future__ import annotations

from .structure import LabelStructure, check_series_labels, check_series_scores, label_structure, segments
from .metrics import (
    CURVE_METRICS,
    ThresholdCurve,
    adjusted_weights,
    best_f1_of,
    f1_counts,
    pa_k_area,
    segment_ids,
    threshold_curve,
)
from .ranges import BIASES, CARDINALITIES, best_range_f1, range_precision_recall
from .volume import VUSResult, vus
from .affiliation import AffiliationResult, affiliation_precision_recall, best_affiliation_f1
from .nulls import (
    NULL_METRICS,
    MetricNull,
    fixed_threshold_null,
    pa_expected_counts,
    prediction_metrics,
    random_null,
    random_range_null,
    trivial_baselines,
    VUS_METRICS,
    random_affiliation_null,
    random_vus_null,
)
from .audit import CHECKS, SeriesAudit, TimeSeriesAudit, audit_timeseries, detector_metrics

__all__ = [
    "LabelStructure",
    "check_series_labels",
    "check_series_scores",
    "label_structure",
    "segments",
    "CURVE_METRICS",
    "ThresholdCurve",
    "adjusted_weights",
    "best_f1_of",
    "f1_counts",
    "pa_k_area",
    "segment_ids",
    "threshold_curve",
    "CARDINALITIES",
    "BIASES",
    "best_range_f1",
    "range_precision_recall",
    "VUSResult",
    "vus",
    "AffiliationResult",
    "affiliation_precision_recall",
    "best_affiliation_f1",
    "NULL_METRICS",
    "MetricNull",
    "fixed_threshold_null",
    "pa_expected_counts",
    "prediction_metrics",
    "random_null",
    "random_range_null",
    "trivial_baselines",
    "VUS_METRICS",
    "random_affiliation_null",
    "random_vus_null",
    "CHECKS",
    "SeriesAudit",
    "TimeSeriesAudit",
    "audit_timeseries",
    "detector_metrics",
]
