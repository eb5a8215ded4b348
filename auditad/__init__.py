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

from .leakage import LeakageResult, leakage
from .datasets import Benchmark, load_benchmark, load_example
from ._neighbors import NeighborsResult, kneighbors

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
from .scoring import KNNScorer, ScoreResult, knn_scores, pool_sequences
from .pseudo import PseudoAnomalies, make_probe
from .bounds import (
    AUCBoundResult,
    DomainMomentsResult,
    LIDResult,
    auc_bound,
    domain_moments,
    local_intrinsic_dimension,
)
from .selection import (
    Candidate,
    SelectionBenchmark,
    SelectionResult,
    SelectionTask,
    TaskEmbeddings,
    estimate_candidate,
    run_selection,
)
from .synthetic import digits_benchmark, make_selection_benchmark
from .manifest import load_manifest, write_manifest

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "AuditadError",
    "InvalidInputError",
    "AuditadWarning",
    "UndefinedValueWarning",
    "ApproximationWarning",
    "SkippedItemWarning",
    "leakage",
    "LeakageResult",
    "kneighbors",
    "NeighborsResult",
    "Benchmark",
    "load_benchmark",
    "load_example",
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
    "KNNScorer",
    "ScoreResult",
    "knn_scores",
    "pool_sequences",
    "PseudoAnomalies",
    "make_probe",
    "auc_bound",
    "AUCBoundResult",
    "domain_moments",
    "DomainMomentsResult",
    "local_intrinsic_dimension",
    "LIDResult",
    "Candidate",
    "TaskEmbeddings",
    "SelectionTask",
    "SelectionBenchmark",
    "SelectionResult",
    "estimate_candidate",
    "run_selection",
    "digits_benchmark",
    "make_selection_benchmark",
    "load_manifest",
    "write_manifest",
]
