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
]
