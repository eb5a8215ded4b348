r"""Anomaly-free model selection: estimators for candidate systems and their judgement across tasks.

From K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
Performance from Embedding-Space Geometry?" (Sec. 4, 5.3 and Table 1).

A *selection benchmark* is a set of tasks (one detection problem each: normal
reference data, optionally a labelled test set) and a set of candidate systems
(an embedding, optionally a sequence pooling, and a kNN/LDN scoring). For every
(task, candidate) the runner computes the leave-one-out inlier scores, the
scores of pseudo-anomalies, and from them anomaly-free estimators:

* ``inlier_variance``: \(1/\mathrm{Var}(z_{in})\);
* ``auc_bound[p]``: Eq. 1 with the moments of the pseudo-outlier scores of probe p;
* ``robust_bound[p]``: App. A.1 with the same moments;
* ``pseudo_auc[p]``: AUROC of the inlier scores vs the pseudo-outlier scores;
* ``npd[p]``: AutoUAD's NPD (ranks exactly like ``auc_bound[p]``).

When a task has labelled test data, the true AUC of every candidate is known
and each estimator is judged per *selection unit* (a task, or a task × a
candidate pool, e.g. per scoring function as in Table 1) by

* Spearman's \(\rho_{rank}\) between estimator and true AUC over the
  candidates (0 when either is constant);
* pairwise accuracy \(A_{pair}\): the share of candidate pairs with
  different true AUC that the estimator orders the same way (an estimator tie
  counts ½);
* regret \(R = \mathrm{AUC}_{best} - \mathrm{AUC}_{selected}\), where a tie
  for the largest estimate selects uniformly among the tied candidates (the
  expected AUC is used).

An estimator value that is undefined for a candidate (nan, e.g. an empty
probe) ranks that candidate last; an estimator undefined for every candidate
of a unit is not judged on that unit (``n_units`` says on how many it was).
Baselines: Oracle (R = 0), Random selection (expected R = best − mean, ρ = 0,
A_pair = ½) and Fixed selection (per group of tasks, the candidate with the
best mean development AUC, applied to the evaluation tasks). Differences in
selected AUC between selectors get paired bootstrap 95 % CIs over units.

Modules (the data flows down the list):

* `choices`: the choice lists (``POOL_BY``, ``ESTIMATOR_KINDS``, ...);
* `data`: [`Candidate`][auditad.selection.Candidate], [`TaskEmbeddings`][auditad.selection.TaskEmbeddings],
  [`SelectionTask`][auditad.selection.SelectionTask], [`SelectionBenchmark`][auditad.selection.SelectionBenchmark]
  (validated); files are
  read by [`auditad.manifest.load_manifest`][auditad.manifest.load_manifest];
* `estimators`: [`estimate_candidate`][auditad.selection.estimate_candidate];
* `judgement`: [`rank_correlation`][auditad.selection.rank_correlation],
  [`pairwise_accuracy`][auditad.selection.pairwise_accuracy], [`regret`][auditad.selection.regret], baselines and the
  bootstrap;
* `result`: [`SelectionResult`][auditad.selection.SelectionResult] (summaries on
  demand, [`SelectionResult.best`][auditad.selection.SelectionResult.best]) and
  [`pretty_label`][auditad.selection.pretty_label];
* `runner`: [`run_selection`][auditad.selection.run_selection].
"""

from .choices import (
    BACKENDS,
    BASELINES,
    BEST_CRITERIA,
    DEFAULT_ESTIMATORS,
    ESTIMATOR_KINDS,
    LDN_FORMS,
    METRICS,
    POOL_BY,
    POOLING_METHODS,
    PROBE_ESTIMATORS,
    PROBE_KINDS,
    SCORINGS,
    SPLITS,
    SUMMARY_BY,
)
from .data import Candidate, SelectionBenchmark, SelectionTask, TaskEmbeddings
from .estimators import CandidateEstimates, check_estimator_name, estimate_candidate, parse_estimator_label
from .judgement import pairwise_accuracy, rank_correlation, regret
from .result import SelectionResult, SelectorSummary, pretty_label
from .runner import run_selection

__all__ = [
    "Candidate",
    "TaskEmbeddings",
    "SelectionTask",
    "SelectionBenchmark",
    "CandidateEstimates",
    "estimate_candidate",
    "parse_estimator_label",
    "check_estimator_name",
    "run_selection",
    "SelectionResult",
    "SelectorSummary",
    "pretty_label",
    "rank_correlation",
    "pairwise_accuracy",
    "regret",
    "ESTIMATOR_KINDS",
    "PROBE_ESTIMATORS",
    "DEFAULT_ESTIMATORS",
    "PROBE_KINDS",
    "POOL_BY",
    "SUMMARY_BY",
    "BEST_CRITERIA",
    "BASELINES",
    "SPLITS",
    "SCORINGS",
    "LDN_FORMS",
    "METRICS",
    "POOLING_METHODS",
    "BACKENDS",
]
