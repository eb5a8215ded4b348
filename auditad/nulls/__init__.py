r"""Random-baseline (null) distributions of evaluation metrics (Hermary et al. §IV).

For a test set of ``n_pos`` anomalies and ``n_neg`` normals, the null of a
metric is its distribution under predictions that carry no information:

* threshold-free metrics (``auroc``, ``ap``, ``aupr_trap``): i.i.d. continuous
  random scores, i.e. a uniformly random ranking of the n samples;
* thresholded metrics (``f1``, ``mcc``, ``mcc_scaled``): i.i.d. random binary
  predictions with positive rate ``q`` -- ``"coin"`` (q = ½, Hermary et al.'s
  choice), ``"prior"`` (q = π = n_pos / n) or a number in [0, 1]. Then
  TP ~ Binomial(n_pos, q) and FP ~ Binomial(n_neg, q) independently.

Each metric null is computed by the most exact method available and the result
says which one: ``"exact"`` (the full distribution: Mann–Whitney U for AUROC,
enumeration of all rankings for AP/AUPR when there are few, enumeration of the
binomial (TP, FP) grid for F1/MCC), ``"analytic"`` (AUROC for large n: exact
mean ½ and variance \((n+1)/(12 n_+ n_-)\), normal shape), or
``"monte_carlo"`` (seeded, vectorised, chunked simulation).

An observed AUROC is placed on its null by [`place_observed`][auditad.nulls.place_observed]; the
per-class AUROCs of a class-split audit on the nulls of their own test counts by
[`place_protocol_aurocs`][auditad.nulls.place_protocol_aurocs].

Modules: `distribution` ([`null_distribution`][auditad.nulls.null_distribution], [`auroc_null`][auditad.nulls.auroc_null]),
`closed_form` (exact Mann–Whitney counts, the AUROC moments, E[AP]), `sweep`
([`null_sweep`][auditad.nulls.null_sweep]), `observed` (observed AUROCs on their nulls), `_results` (the result
types), `_kernels` (enumeration and Monte Carlo), `_summary` (a distribution's summary).
"""

from ._results import (  # noqa: F401  (the limits are read as auditad.nulls.EXACT_GRID, ...)
    EXACT_AUROC_WORK,
    EXACT_AUROC_WORK_MAX,
    EXACT_GRID,
    EXACT_RANKINGS,
    NORMAL_P_MIN,
    P_FLOOR,
    MetricNull,
    NullResult,
    NullSweepResult,
    format_p_value,
)
from .closed_form import auroc_null_moments, expected_average_precision, mann_whitney_pmf
from .distribution import THRESHOLD_FREE, THRESHOLDED, auroc_null, class_counts, null_distribution  # noqa: F401
from .observed import (
    ClassNullResult,
    ObservedResult,
    ObservedSharesResult,
    class_test_counts,
    observed_shares,
    place_observed,
    place_protocol_aurocs,
)
from .sweep import PAPER_SWEEP_RATIOS, null_sweep

__all__ = [
    "null_distribution",
    "null_sweep",
    "auroc_null",
    "format_p_value",
    "expected_average_precision",
    "auroc_null_moments",
    "mann_whitney_pmf",
    "class_counts",
    "MetricNull",
    "NullResult",
    "NullSweepResult",
    "PAPER_SWEEP_RATIOS",
    "ObservedResult",
    "ClassNullResult",
    "ObservedSharesResult",
    "place_observed",
    "class_test_counts",
    "place_protocol_aurocs",
    "observed_shares",
]
