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

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "AuditadError",
    "InvalidInputError",
    "AuditadWarning",
    "UndefinedValueWarning",
    "ApproximationWarning",
    "SkippedItemWarning",
]
