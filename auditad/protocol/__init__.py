r"""Class-split protocol audit: per-class AUROC, dispersion, near-random, inversion, direction instability.

A labelled benchmark with K semantic classes is turned into K anomaly-detection
tasks:

``leave_one_class_out`` ("K−1 vs 1")
    for each class c the anomalies are class c and the normals are all other
    classes; the detector is fitted on a train split of the normals and scores
    the held-out normals and the anomalies.
``one_class`` ("1 vs K−1")
    for each class c the normals are class c and the anomalies are all other
    classes.

Per (representation, detector) the K values AUROC(c) are summarised by their
dispersion and by three rates ([`instability_rates`][auditad.protocol.instability_rates]):

\[
d(c) = \begin{cases} 0 & |\mathrm{AUROC}(c) - \tfrac12| \le \varepsilon \\
\operatorname{sign}(\mathrm{AUROC}(c) - \tfrac12) & \text{otherwise} \end{cases}
\]

\[
\rho_{rnd}(\varepsilon) = \tfrac1K \sum_c \mathbb 1[|\mathrm{AUROC}(c) - \tfrac12| \le \varepsilon],\quad
\rho_{inv} = \tfrac1K \sum_c \mathbb 1[\mathrm{AUROC}(c) < \tfrac12],
\]

\[
\rho_{dir}(\varepsilon) = 1 - \tfrac1K \max(\#\{c: d(c)=+1\}, \#\{c: d(c)=-1\}).
\]

Modules: `rates` (the statistics, Spearman),
`detectors` (detectors, sign rules, resolution by name),
`neighbours` and `shared` (exact
neighbour lists, one pass for all tasks), `plan` (the split plan), `strategies` (the two protocols
as strategy objects: normals, anomalies, training rows, neighbour lists of task c), `runner`
([`audit_protocol`][auditad.protocol.audit_protocol]), `result` ([`ProtocolResult`][auditad.protocol.ProtocolResult]),
`summary` (its typed summaries, [`ProtocolSummary`][auditad.protocol.ProtocolSummary]).

References
----------
1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly
   Detection".
"""

from .detectors import (
    BACKENDS,
    BUILTIN_DETECTORS,
    BaseDetector,
    Detector,
    IsolationForestDetector,
    KNNDetector,
    LOFDetector,
    PYOD_DETECTORS,
    SIGN_RULES,
    detector_info,
    is_pyod_detector,
    make_detector,
    is_sklearn_outlier_detector,
    resolve_detectors,
)
from .rates import (
    DegenerateCorrelationWarning,
    InstabilityResult,
    SpearmanResult,
    check_epsilon,
    instability_rates,
    spearman_correlation,
)
from .result import MEAN, SUMMARY_KEYS, ProtocolResult
from .summary import RATE_NAMES, DetectorAverage, DetectorSummary, ProtocolSummary, WorstRate, WorstRates
from .plan import SplitPlan, SplitTask, class_split_plan
from .runner import DEFAULT_MAX_TEST_NORMALS, PROTOCOLS, audit_protocol

__all__ = [
    "PROTOCOLS",
    "BUILTIN_DETECTORS",
    "BACKENDS",
    "DEFAULT_MAX_TEST_NORMALS",
    "MEAN",
    "SUMMARY_KEYS",
    "BaseDetector",
    "KNNDetector",
    "IsolationForestDetector",
    "LOFDetector",
    "Detector",
    "PYOD_DETECTORS",
    "SIGN_RULES",
    "is_pyod_detector",
    "make_detector",
    "resolve_detectors",
    "detector_info",
    "is_sklearn_outlier_detector",
    "InstabilityResult",
    "instability_rates",
    "check_epsilon",
    "SpearmanResult",
    "spearman_correlation",
    "DegenerateCorrelationWarning",
    "ProtocolResult",
    "ProtocolSummary",
    "DetectorSummary",
    "DetectorAverage",
    "WorstRate",
    "WorstRates",
    "RATE_NAMES",
    "audit_protocol",
    "SplitPlan",
    "SplitTask",
    "class_split_plan",
]
