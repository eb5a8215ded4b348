"""The choice lists of anomaly-free model selection, declared once.

Every setting of [`auditad.selection.run_selection`][auditad.selection.run_selection] and of the data
model that takes one of a fixed set of values reads its list from here, and
so should the configuration file, the command line, the JSON Schema and the
documentation (instead of retyping the values).

=====================  =====================================================  =================================
constant               values                                                 used by
=====================  =====================================================  =================================
``ESTIMATOR_KINDS``    inlier_variance, auc_bound, robust_bound, pseudo_auc,  ``run_selection(estimators=)``
                       npd
``PROBE_ESTIMATORS``   the kinds crossed with a probe (all but                estimator labels ``kind[probe]``
                       inlier_variance)
``DEFAULT_ESTIMATORS`` inlier_variance, auc_bound, pseudo_auc                 ``estimators=None``
``PROBE_KINDS``        random, feature, sequence, element, cross_domain,      ``run_selection(probes=)``
                       cross_class, cross_attribute, diverse
``POOL_BY``            scoring, family, embedding, pooling, metric, ldn_form  ``run_selection(pool_by=)``
``SUMMARY_BY``         split, pool, group                                     ``SelectionResult.summary_frame(by=)``
``BEST_CRITERIA``      regret, rho_rank, a_pair                               ``SelectionResult.best(criterion=)``
``BASELINES``          oracle, random, fixed                                  rows of every summary
``SPLITS``             development, evaluation                                ``SelectionTask(split=)``
``SCORINGS``           knn, ldn                                               ``Candidate(scoring=)``
``LDN_FORMS``          reference, query                                       ``Candidate(ldn_form=)``
``METRICS``            euclidean, cosine                                      ``Candidate(metric=)``
``POOLING_METHODS``    mean, max, gem, rdp                                    ``Candidate(pooling=)``
``BACKENDS``           auto, exact, approximate                               ``run_selection(backend=)``
=====================  =====================================================  =================================

Examples
--------
>>> from auditad.selection import POOL_BY, ESTIMATOR_KINDS
>>> POOL_BY
('scoring', 'family', 'embedding', 'pooling', 'metric', 'ldn_form')
>>> ESTIMATOR_KINDS[0]
'inlier_variance'
"""

from __future__ import annotations

from ..neighbors import BACKENDS, METRICS
from .pseudo import PROBE_KINDS
from .scoring import LDN_FORMS, POOLING_METHODS, SCORINGS

__all__ = [
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

#: estimator kinds; every kind but ``inlier_variance`` is computed per pseudo-anomaly probe
ESTIMATOR_KINDS = ("inlier_variance", "auc_bound", "robust_bound", "pseudo_auc", "npd")
#: the estimator kinds that need a probe (labels ``kind[probe]``)
PROBE_ESTIMATORS = ESTIMATOR_KINDS[1:]
#: estimators judged when ``estimators=None``
DEFAULT_ESTIMATORS = ("inlier_variance", "auc_bound", "pseudo_auc")
#: candidate attributes that can split the candidates into separate selection pools
POOL_BY = ("scoring", "family", "embedding", "pooling", "metric", "ldn_form")
#: grouping columns of `SelectionResult.summary_frame`
SUMMARY_BY = ("split", "pool", "group")
#: criteria of `SelectionResult.best` (regret is minimised, the others maximised)
BEST_CRITERIA = ("regret", "rho_rank", "a_pair")
#: baseline selectors reported next to the estimators
BASELINES = ("oracle", "random", "fixed")
#: values of `SelectionTask.split`
SPLITS = ("development", "evaluation")
