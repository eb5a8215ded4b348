"""auditad: audit the evaluation protocols of anomaly-detection benchmarks."""

from __future__ import annotations

from .errors import (
    ApproximationWarning,
    AuditadError,
    AuditadWarning,
    InvalidInputError,
    SkippedItemWarning,
    UndefinedValueWarning,
)

from .protocol import (
    Detector,
    InstabilityResult,
    IsolationForestDetector,
    KNNDetector,
    LOFDetector,
    ProtocolResult,
    audit_protocol,
    instability_rates,
)

from .metrics import (
    AurocCIResult,
    OperatingPointResult,
    ScoreMetricsResult,
    aupr_trapezoid,
    auroc,
    auroc_ci,
    average_precision,
    best_f1,
    f1_at_threshold,
    mcc_at_threshold,
    operating_point_metrics,
    scaled_mcc,
    score_metrics,
)
from .nulls import NullResult, NullSweepResult, null_distribution, null_sweep
from .landscapes import (
    PAPER_RATIOS,
    LandscapeResult,
    landscape,
    landscape_correlations,
    landscape_coverage,
    landscape_difference,
    landscape_regions,
    minimal_tpr,
)

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "AuditadError",
    "InvalidInputError",
    "AuditadWarning",
    "UndefinedValueWarning",
    "ApproximationWarning",
    "SkippedItemWarning",
    "audit_protocol",
    "instability_rates",
    "ProtocolResult",
    "InstabilityResult",
    "KNNDetector",
    "IsolationForestDetector",
    "LOFDetector",
    "Detector",
    "auroc",
    "auroc_ci",
    "AurocCIResult",
    "average_precision",
    "aupr_trapezoid",
    "best_f1",
    "f1_at_threshold",
    "mcc_at_threshold",
    "scaled_mcc",
    "score_metrics",
    "ScoreMetricsResult",
    "operating_point_metrics",
    "OperatingPointResult",
    "null_distribution",
    "null_sweep",
    "NullResult",
    "NullSweepResult",
    "landscape",
    "landscape_difference",
    "landscape_regions",
    "minimal_tpr",
    "landscape_coverage",
    "landscape_correlations",
    "LandscapeResult",
    "PAPER_RATIOS",
]
