"""Out-of-distribution benchmark audit: copies, ID share, near/far placement and detectors per OOD set.

An OOD benchmark pairs an in-distribution (ID) set with OOD test sets, often grouped as near and far.
`audit_ood` measures, from embeddings, what the benchmark assumes about each OOD set:

* exact and near copies of ID rows in the set, with the ID row and class of each copy;
* its ID share: the ID-likeness of every OOD row (the kNN posterior of ID with the size imbalance
  removed) and the adjusted-count estimate of the share with an interval;
* its near/far placement by the chance-normalised ID share of its rows' neighbourhoods, against the
  group the user declared;
* what detectors see: AUROC, AUPR-in/out and FPR@95TPR with intervals and random nulls, and how the
  sets' difficulty follows the placement (Spearman).

Modules: `neighbourhood` (the neighbour pass), `contamination` (ID-likeness, ID share, placement),
`detection` (the detector metrics), `checks` (the declared checks and findings), `result`, `audit`.
Definitions: ``docs/methods/ood.md``.
"""

from .audit import DEFAULT_TEST_ROWS, GROUP_PLACEMENTS, audit_ood
from .checks import CHECKS, ID_SHARE_MAX, NEAR_RATIO, ood_findings
from .contamination import ContaminationResult, PlacementResult, contamination, id_likeness, placement
from .detection import DetectionResult, detection_metrics, fpr_at_tpr, rank_correlation
from .result import SCHEMA, OODAuditResult, OODSetResult

__all__ = [
    "audit_ood",
    "OODAuditResult",
    "OODSetResult",
    "ContaminationResult",
    "PlacementResult",
    "DetectionResult",
    "contamination",
    "placement",
    "id_likeness",
    "detection_metrics",
    "fpr_at_tpr",
    "rank_correlation",
    "ood_findings",
    "CHECKS",
    "NEAR_RATIO",
    "ID_SHARE_MAX",
    "DEFAULT_TEST_ROWS",
    "GROUP_PLACEMENTS",
    "SCHEMA",
]
