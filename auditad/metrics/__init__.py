"""Evaluation metrics of anomaly detectors: from scores and from an operating point.

Scores follow one convention everywhere: **higher = more anomalous**, and the
anomaly label 1 is the positive class (Hermary et al.).

From scores (vectorised: a 2-D ``(n, m)`` array holds ``m`` score columns):

* [`auroc`][auditad.metrics.auroc] -- area under the ROC curve, ties count ½ (Mann–Whitney U / (n_pos·n_neg));
* [`auroc_ci`][auditad.metrics.auroc_ci] -- AUROC with a DeLong confidence interval and a test of AUROC = ½;
* [`average_precision`][auditad.metrics.average_precision] -- step-wise AP (scikit-learn's ``average_precision_score``);
* [`aupr_trapezoid`][auditad.metrics.aupr_trapezoid] -- trapezoid area under the PR curve that starts at
  (recall 0, precision 1) (scikit-learn's ``auc(recall, precision)``);
* [`f1_at_threshold`][auditad.metrics.f1_at_threshold], [`mcc_at_threshold`][auditad.metrics.mcc_at_threshold] -- at a
threshold, with
  "predicted positive = score >= threshold";
* [`best_f1`][auditad.metrics.best_f1] -- the largest F1 over all thresholds;
* [`scaled_mcc`][auditad.metrics.scaled_mcc] -- (MCC + 1) / 2.

From an operating point (TPR, TNR) at anomaly ratio π:
[`operating_point_metrics`][auditad.metrics.operating_point_metrics].

Modules: `scores` (threshold-free metrics), `thresholded` (F1 and MCC at a threshold), `summary`
([`score_metrics`][auditad.metrics.score_metrics]), `names` (the metric names), `_delong` (DeLong intervals),
`_operating_point` (metrics of an operating point), `multiple_testing` (Holm, Benjamini–Hochberg).
"""

from ._binary import binary_targets
from ._delong import AurocCIResult, auroc_ci
from ._operating_point import (
    OperatingPointResult,
    f1_cells,
    mcc_cells,
    operating_point_metrics,
    operating_point_values,
)
from .names import METRIC_NAMES, check_metric_names
from .scores import aupr_trapezoid, auroc, average_precision, best_f1
from .summary import ScoreMetricsResult, score_metrics
from .thresholded import f1_at_threshold, mcc_at_threshold, scaled_mcc

__all__ = [
    "auroc",
    "auroc_ci",
    "AurocCIResult",
    "average_precision",
    "aupr_trapezoid",
    "f1_at_threshold",
    "mcc_at_threshold",
    "scaled_mcc",
    "best_f1",
    "score_metrics",
    "ScoreMetricsResult",
    "operating_point_metrics",
    "OperatingPointResult",
    "METRIC_NAMES",
    "binary_targets",
    "f1_cells",
    "mcc_cells",
    "operating_point_values",
    "check_metric_names",
]
