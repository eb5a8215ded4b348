r"""Anomaly-free model selection: estimators for candidate systems and their judgement across tasks.

SPEC §4 (seeds 000/001, Wilkinghoff & Tan, Sec. 4 and 5.3, Table 1).

A *selection benchmark* is a set of tasks (one detection problem each: normal
reference data, optionally a labelled test set) and a set of candidate systems
(an embedding, optionally a sequence pooling, and a kNN/LDN scoring). For every
(task, candidate) the runner computes the leave-one-out inlier scores, the
scores of pseudo-anomalies, and from them anomaly-free estimators:

* ``inlier_variance``: :math:`1/\mathrm{Var}(z_{in})`;
* ``auc_bound[p]``: Eq. 1 with the moments of the pseudo-outlier scores of probe p;
* ``robust_bound[p]``: App. A.1 with the same moments;
* ``pseudo_auc[p]``: AUROC of the inlier scores vs the pseudo-outlier scores;
* ``npd[p]``: AutoUAD's NPD (ranks exactly like ``auc_bound[p]``).

When a task has labelled test data, the true AUC of every candidate is known
and each estimator is judged per *selection unit* (a task, or a task × a
candidate pool, e.g. per scoring function as in Table 1) by

* Spearman's :math:`\rho_{rank}` between estimator and true AUC over the
  candidates (0 when either is constant);
* pairwise accuracy :math:`A_{pair}`: the share of candidate pairs with
  different true AUC that the estimator orders the same way (an estimator tie
  counts ½);
* regret :math:`R = \mathrm{AUC}_{best} - \mathrm{AUC}_{selected}`, where a tie
  for the largest estimate selects uniformly among the tied candidates (the
  expected AUC is used).

An estimator value that is undefined for a candidate (nan, e.g. an empty
probe) ranks that candidate last; an estimator undefined for every candidate
of a unit is not judged on that unit (``n_units`` says on how many it was).
Baselines: Oracle (R = 0), Random selection (expected R = best − mean, ρ = 0,
A_pair = ½) and Fixed selection (per group of tasks, the candidate with the
best mean development AUC, applied to the evaluation tasks). Differences in
selected AUC between selectors get paired bootstrap 95 % CIs over units.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field, fields
from typing import Mapping

import numpy as np

from ._rng import check_random_state
from ._validation import check_binary_labels, check_choice, check_embeddings, check_int
from .bounds import auc_bound
from .errors import InvalidInputError, SkippedItemWarning
from ._json import json_safe
from .pseudo import (CROSS_KINDS, GENERATED_KINDS, PROBE_KINDS, SEQUENCE_KINDS, PseudoAnomalies,
                     check_metadata, cross_probe, diverse_probe, make_probe)
from .scoring import LDN_FORMS, SCORINGS, KNNScorer, parse_pooling, pool_sequences

__all__ = [
    "Candidate",
    "TaskEmbeddings",
    "SelectionTask",
    "SelectionBenchmark",
    "CandidateEstimates",
    "estimate_candidate",
    "run_selection",
    "SelectionResult",
    "rank_correlation",
    "pairwise_accuracy",
    "regret",
    "ESTIMATOR_KINDS",
]

ESTIMATOR_KINDS = ("inlier_variance", "auc_bound", "robust_bound", "pseudo_auc", "npd")
PROBE_ESTIMATORS = ESTIMATOR_KINDS[1:]
DEFAULT_ESTIMATORS = ("inlier_variance", "auc_bound", "pseudo_auc")
POOL_BY = ("scoring", "family", "embedding", "pooling", "metric", "ldn_form")
SPLITS = ("development", "evaluation")
_PROBE_CODE = {k: i for i, k in enumerate(PROBE_KINDS)}
_PRETTY_KIND = {"inlier_variance": "Inlier Variance", "auc_bound": "AUC Bound", "robust_bound": "Robust Bound",
                "pseudo_auc": "Pseudo AUC", "npd": "NPD", "oracle": "Oracle", "random": "Random Selection",
                "fixed": "Fixed Selection"}
_PRETTY_PROBE = {"random": "Random", "feature": "Feature", "sequence": "Sequence", "element": "Element",
                 "cross_domain": "Cross-Domain", "cross_class": "Cross-Class",
                 "cross_attribute": "Cross-Attribute", "diverse": "Diverse"}


# =========================================================================== data model
@dataclass(frozen=True)
class Candidate:
    """A candidate system: an embedding (by name), an optional sequence pooling and a scoring function.

    Parameters
    ----------
    name : str
        Unique name of the candidate.
    embedding : str
        Key of the embeddings in every task (:attr:`SelectionTask.embeddings`).
    pooling : str, optional
        Pooling spec (``"mean"``, ``"max"``, ``"gem:3"``, ``"rdp:2"``) for
        sequence embeddings (n, T, d); must be None for (n, d) embeddings.
    scoring : {"knn", "ldn"}
    k, K : int
        Neighbour rank and LDN neighbourhood (defaults 1 and 2, as in the paper).
    ldn_form : {"reference", "query"}
    metric : {"euclidean", "cosine"}
    family : str, optional
        Representation family for figures (default: ``embedding``).
    """

    name: str
    embedding: str
    pooling: str | None = None
    scoring: str = "knn"
    k: int = 1
    K: int = 2
    ldn_form: str = "reference"
    metric: str = "euclidean"
    family: str | None = None

    def __post_init__(self):
        for attr in ("name", "embedding"):
            if not isinstance(getattr(self, attr), str) or not getattr(self, attr):
                raise InvalidInputError(f"candidate {attr} must be a non-empty string, got {getattr(self, attr)!r}")
        check_choice(self.scoring, SCORINGS, name=f"candidate {self.name!r} scoring")
        check_choice(self.ldn_form, LDN_FORMS, name=f"candidate {self.name!r} ldn_form")
        check_choice(self.metric, ("euclidean", "cosine"), name=f"candidate {self.name!r} metric")
        object.__setattr__(self, "k", check_int(self.k, name=f"candidate {self.name!r} k", low=1))
        object.__setattr__(self, "K", check_int(self.K, name=f"candidate {self.name!r} K", low=1))
        if self.pooling is not None:
            name, param = parse_pooling(self.pooling)
            object.__setattr__(self, "pooling", name if param is None else f"{name}:{param:g}")
        if self.family is None:
            object.__setattr__(self, "family", self.embedding)

    def to_dict(self) -> dict:
        return {f.name: json_safe(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True)
class TaskEmbeddings:
    """The embeddings of one task in one representation.

    ``reference`` (n, d) or sequences (n, T, d) of normal data; ``test`` the
    test samples in the same representation (rows aligned with the task's
    ``test_labels``); ``auxiliary`` the auxiliary pool of other normals (rows
    aligned with the task's ``auxiliary_meta``) used by the Cross-* probes.
    """

    reference: np.ndarray
    test: np.ndarray | None = None
    auxiliary: np.ndarray | None = None


@dataclass(frozen=True)
class SelectionTask:
    """One model-selection task (e.g. one machine type / section, or one normal class).

    Parameters
    ----------
    name : str
    embeddings : mapping of str -> TaskEmbeddings
        One entry per embedding used by the candidates.
    test_labels : array-like of shape (m,), optional
        1 = anomaly; needed for the true AUC (and so for judging estimators).
    reference_meta, auxiliary_meta : mapping of column -> labels, optional
        ``"domain"``, ``"class"``, ``"attribute"`` labels of the reference rows and
        of the auxiliary rows.
    home : mapping, optional
        Declared home values of the metadata columns (default: most frequent in
        the reference, see :func:`auditad.pseudo.home_values`).
    split : {"development", "evaluation"}, optional
        Used by the Fixed-selection baseline.
    group : str, optional
        Dataset the task belongs to; Fixed selection is per group.
    """

    name: str
    embeddings: Mapping[str, TaskEmbeddings]
    test_labels: np.ndarray | None = None
    reference_meta: Mapping[str, np.ndarray] = field(default_factory=dict)
    auxiliary_meta: Mapping[str, np.ndarray] = field(default_factory=dict)
    home: Mapping[str, str] | None = None
    split: str | None = None
    group: str | None = None

    @property
    def has_truth(self) -> bool:
        return self.test_labels is not None


@dataclass(frozen=True)
class SelectionBenchmark:
    """Tasks × candidates, validated on construction (see :func:`run_selection`).

    ``info`` is free JSON-safe information (e.g. the ground truth of a synthetic benchmark).
    """

    tasks: tuple
    candidates: tuple
    name: str = "benchmark"
    info: Mapping = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "tasks", tuple(self.tasks))
        object.__setattr__(self, "candidates", tuple(self.candidates))
        _validate_benchmark(self)

    @property
    def n_tasks(self) -> int:
        return len(self.tasks)


def _validate_benchmark(bench: SelectionBenchmark) -> None:
    if not bench.tasks:
        raise InvalidInputError("the benchmark has no tasks")
    if not bench.candidates:
        raise InvalidInputError("the benchmark has no candidates")
    for c in bench.candidates:
        if not isinstance(c, Candidate):
            raise InvalidInputError(f"candidates must be Candidate objects, got {type(c).__name__}")
    names = [c.name for c in bench.candidates]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise InvalidInputError(f"candidate names must be unique, repeated: {dup}")
    tnames = [t.name for t in bench.tasks]
    dup = sorted({n for n in tnames if tnames.count(n) > 1})
    if dup:
        raise InvalidInputError(f"task names must be unique, repeated: {dup}")
    used = sorted({c.embedding for c in bench.candidates})
    pooled = {c.embedding: c for c in bench.candidates if c.pooling is not None}
    unpooled = {c.embedding: c for c in bench.candidates if c.pooling is None}
    for t in bench.tasks:
        if not isinstance(t, SelectionTask):
            raise InvalidInputError(f"tasks must be SelectionTask objects, got {type(t).__name__}")
        where = f"task {t.name!r}"
        if t.split is not None and t.split not in SPLITS:
            raise InvalidInputError(f"{where}: split must be one of {list(SPLITS)} or None, got {t.split!r}")
        labels = None
        if t.test_labels is not None:
            labels = check_binary_labels(t.test_labels, name=f"{where} test_labels")
            object.__setattr__(t, "test_labels", labels)
        n_ref = n_aux = None
        embs = dict(t.embeddings)
        for e in used:
            if e not in embs:
                raise InvalidInputError(f"{where} has no embeddings {e!r} (used by candidate(s) "
                                        f"{[c.name for c in bench.candidates if c.embedding == e]})")
            te = embs[e]
            if not isinstance(te, TaskEmbeddings):
                raise InvalidInputError(f"{where} embeddings {e!r} must be a TaskEmbeddings, got {type(te).__name__}")
            ref = np.asarray(te.reference)
            ndim = ref.ndim if ref.ndim in (2, 3) else 2
            R = check_embeddings(ref, name=f"{where} embeddings {e!r} reference", ndim=ndim)
            if R.shape[0] < 2:
                raise InvalidInputError(f"{where} embeddings {e!r}: the reference set has {R.shape[0]} sample(s); "
                                        "at least 2 are needed (leave-one-out inlier scores)")
            if ndim == 3 and e in unpooled:
                raise InvalidInputError(f"{where} embeddings {e!r} are sequences {R.shape}; candidate "
                                        f"{unpooled[e].name!r} needs a pooling")
            if ndim == 2 and e in pooled:
                raise InvalidInputError(f"{where} embeddings {e!r} are vectors {R.shape}; candidate "
                                        f"{pooled[e].name!r} has pooling {pooled[e].pooling!r}")
            parts = {"reference": R}
            for part in ("test", "auxiliary"):
                A = getattr(te, part)
                if A is None:
                    continue
                A = check_embeddings(A, name=f"{where} embeddings {e!r} {part}", ndim=ndim)
                if A.shape[-1] != R.shape[-1]:
                    raise InvalidInputError(f"{where} embeddings {e!r}: {part} has {A.shape[-1]} dimensions but "
                                            f"the reference has {R.shape[-1]}")
                parts[part] = A
            if n_ref is None:
                n_ref = R.shape[0]
            elif R.shape[0] != n_ref:
                raise InvalidInputError(f"{where}: reference sets of different embeddings must have the same rows "
                                        f"(metadata is shared), got {R.shape[0]} for {e!r} and {n_ref} before")
            if labels is not None:
                if "test" not in parts:
                    raise InvalidInputError(f"{where} has test_labels but embeddings {e!r} have no test set")
                if parts["test"].shape[0] != labels.size:
                    raise InvalidInputError(f"{where} embeddings {e!r}: test has {parts['test'].shape[0]} rows but "
                                            f"test_labels has {labels.size}")
            if "auxiliary" in parts:
                if n_aux is None:
                    n_aux = parts["auxiliary"].shape[0]
                elif parts["auxiliary"].shape[0] != n_aux:
                    raise InvalidInputError(f"{where}: auxiliary pools of different embeddings differ in size")
            embs[e] = TaskEmbeddings(reference=parts["reference"], test=parts.get("test"),
                                     auxiliary=parts.get("auxiliary"))
        object.__setattr__(t, "embeddings", embs)
        object.__setattr__(t, "reference_meta", check_metadata(t.reference_meta or {}, n_ref,
                                                               name=f"{where} reference_meta"))
        aux_meta = t.auxiliary_meta or {}
        if aux_meta and n_aux is None:
            raise InvalidInputError(f"{where} has auxiliary_meta but no auxiliary embeddings")
        if n_aux is not None and not aux_meta:
            raise InvalidInputError(f"{where} has auxiliary embeddings but no auxiliary_meta to say what they are")
        object.__setattr__(t, "auxiliary_meta", check_metadata(aux_meta, n_aux or 0, name=f"{where} auxiliary_meta"))
        if n_aux is not None:
            missing = [e for e in used if embs[e].auxiliary is None]
            if missing:
                raise InvalidInputError(f"{where}: embeddings {missing} have no auxiliary pool while others do")


# =========================================================================== one candidate
@dataclass(frozen=True)
class CandidateEstimates:
    """Anomaly-free estimators of one candidate system (see :func:`estimate_candidate`).

    Attributes
    ----------
    inlier_mean, inlier_var : float
        Mean and population variance of the inlier (leave-one-out) scores.
    inlier_variance : float
        The estimator :math:`1/\\mathrm{Var}(z_{in})` (∞ for constant scores).
    n_inlier : int
    probes : tuple of dict
        One dict per probe: ``probe``, ``n_pseudo``, ``mean_out``, ``var_out``,
        ``mu_delta``, ``mu_delta_sign``, ``auc_bound``, ``robust_bound``, ``npd``,
        ``pseudo_auc`` (nan for a skipped probe).
    """

    inlier_mean: float
    inlier_var: float
    inlier_variance: float
    n_inlier: int
    probes: tuple = ()

    def value(self, estimator: str) -> float:
        """Value of an estimator label such as ``"inlier_variance"`` or ``"pseudo_auc[feature]"``."""
        kind, probe = _split_label(estimator, any_probe=True)
        if kind == "inlier_variance":
            return self.inlier_variance
        for row in self.probes:
            if row["probe"] == probe:
                return row[kind]
        raise InvalidInputError(f"no probe {probe!r} in these estimates (have {[r['probe'] for r in self.probes]})")

    def to_frame(self):
        """One row per probe with the inlier statistics repeated."""
        import pandas as pd

        rows = [dict(row, inlier_mean=self.inlier_mean, inlier_var=self.inlier_var,
                     inlier_variance=self.inlier_variance, n_inlier=self.n_inlier) for row in self.probes]
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        return {f.name: json_safe(getattr(self, f.name)) for f in fields(self)}


_NAN_PROBE = dict(n_pseudo=0, mean_out=np.nan, var_out=np.nan, mu_delta=np.nan, mu_delta_sign=0,
                  auc_bound=np.nan, robust_bound=np.nan, npd=np.nan, pseudo_auc=np.nan)


def estimate_candidate(z_in, pseudo_scores: Mapping[str, np.ndarray | None] | None = None, *, domain_in=None,
                       lam=None, source=None, npd_eps: float = 0.0) -> CandidateEstimates:
    r"""Anomaly-free estimators of one candidate from its inlier and pseudo-outlier scores (seed 001, Sec. 4).

    .. math::

        \widehat{V} = \frac{1}{\mathrm{Var}(z_{in})},\qquad
        \widehat{B}_p = \frac{\mu_{\Delta,p}^2}{\mathrm{Var}(z_p) + \mathrm{Var}(z_{in}) + \mu_{\Delta,p}^2},\qquad
        \widehat{\mathrm{AUC}}_p = \mathrm{AUROC}(z_{in}\ \text{vs}\ z_p)

    with :math:`z_p` the scores of the pseudo-anomalies of probe p and
    :math:`\mu_{\Delta,p} = E[z_p] - E[z_{in}]`; also the robust bound and NPD.

    Parameters
    ----------
    z_in : array-like of shape (n,)
        Leave-one-out inlier scores of the reference set.
    pseudo_scores : mapping of probe name -> scores, optional
        None (or an empty array) for a skipped probe gives nan estimates.
    domain_in, lam, source
        Optional domain weighting of the inlier moments (Eqs. 4–6, see
        :func:`auditad.bounds.auc_bound`).
    npd_eps : float
        ε of NPD.

    Examples
    --------
    >>> est = estimate_candidate([0.0, 1.0, 0.5], {"feature": [1.0, 2.0]})
    >>> est.value("pseudo_auc[feature]"), round(est.value("inlier_variance"), 4)
    (0.9166666666666666, 6.0)
    """
    zi = np.asarray(z_in, dtype=np.float64)
    if zi.ndim != 1 or zi.size < 2 or not np.all(np.isfinite(zi)):
        raise InvalidInputError(f"z_in must be a finite 1-D array with at least 2 scores, got shape {zi.shape}")
    var = float(zi.var())
    rows = []
    for probe, zp in (pseudo_scores or {}).items():
        zp = None if zp is None else np.asarray(zp, dtype=np.float64)
        if zp is None or zp.size == 0:
            rows.append(dict(_NAN_PROBE, probe=probe))
            continue
        r = auc_bound(zi, zp, domain_in=domain_in, lam=lam, source=source, npd_eps=npd_eps)
        rows.append(dict(probe=probe, n_pseudo=int(zp.size), mean_out=r.mean_out, var_out=r.var_out,
                         mu_delta=r.mu_delta, mu_delta_sign=r.mu_delta_sign, auc_bound=r.bound,
                         robust_bound=r.robust_bound, npd=r.npd, pseudo_auc=r.empirical_auc))
    return CandidateEstimates(inlier_mean=float(zi.mean()), inlier_var=var,
                              inlier_variance=float(np.inf) if var == 0 else 1.0 / var, n_inlier=int(zi.size),
                              probes=tuple(rows))


# =========================================================================== judgement
def _clean(estimates, aucs):
    e = np.asarray(estimates, dtype=np.float64)
    a = np.asarray(aucs, dtype=np.float64)
    if e.shape != a.shape or e.ndim != 1:
        raise InvalidInputError(f"estimates and aucs must be 1-D of the same length, got {e.shape} and {a.shape}")
    if not np.all(np.isfinite(a)):
        raise InvalidInputError("aucs must be finite")
    return np.where(np.isnan(e), -np.inf, e), a


def rank_correlation(estimates, aucs) -> float:
    r"""Spearman's :math:`\rho_{rank}` between estimates and true AUCs (seed 001, Sec. 5.3).

    Pearson correlation of the average ranks; 0 when either vector is
    constant (the paper's convention for constant predictions). nan
    estimates rank last.

    Examples
    --------
    >>> rank_correlation([1, 2, 3], [0.6, 0.7, 0.8]), rank_correlation([1, 1, 1], [0.6, 0.7, 0.8])
    (1.0, 0.0)
    """
    from scipy.stats import rankdata

    e, a = _clean(estimates, aucs)
    if e.size < 2 or np.all(e == e[0]) or np.all(a == a[0]):
        return 0.0
    re, ra = rankdata(e), rankdata(a)
    re -= re.mean()
    ra -= ra.mean()
    return float(np.dot(re, ra) / np.sqrt(np.dot(re, re) * np.dot(ra, ra)))


def pairwise_accuracy(estimates, aucs) -> float:
    r"""Pairwise ranking accuracy :math:`A_{pair}` (seed 001, Sec. 5.3).

    .. math::

        A_{pair} = \frac{1}{|P|}\sum_{(i,j)\in P} \Big(\mathbb 1[\operatorname{sign}(e_i - e_j)
        = \operatorname{sign}(a_i - a_j)] + \tfrac12\,\mathbb 1[e_i = e_j]\Big),
        \quad P = \{i<j: a_i \ne a_j\}

    nan estimates rank last (tied with each other). Undefined (nan) when all
    true AUCs are equal.

    Examples
    --------
    >>> pairwise_accuracy([3, 2, 1], [0.9, 0.8, 0.85])
    0.6666666666666666
    """
    e, a = _clean(estimates, aucs)
    i, j = np.triu_indices(e.size, k=1)
    valid = a[i] != a[j]
    if not valid.any():
        return float("nan")
    i, j = i[valid], j[valid]
    sa = np.sign(a[i] - a[j])
    se = np.where(e[i] > e[j], 1.0, np.where(e[i] < e[j], -1.0, 0.0))
    score = np.where(se == 0, 0.5, (se == sa).astype(float))
    return float(score.mean())


def _selected_auc(e: np.ndarray, a: np.ndarray) -> float:
    top = e == e.max()
    return float(a[top].mean())


def regret(estimates, aucs) -> float:
    r"""Regret :math:`R = \mathrm{AUC}_{best} - \mathrm{AUC}_{selected}` (seed 001, Sec. 5.3).

    The selected candidate has the largest estimate; ties select uniformly among
    the tied candidates (their mean AUC is used). nan estimates are never
    selected unless all are nan (then the regret is nan).

    Examples
    --------
    >>> regret([0.1, 0.9, 0.5], [0.8, 0.7, 0.9]), regret([1, 1, 0], [0.8, 0.6, 0.9])
    (0.20000000000000007, 0.20000000000000007)
    """
    e, a = _clean(estimates, aucs)
    if np.all(np.isneginf(e)):
        return float("nan")
    return float(a.max() - _selected_auc(e, a))


# =========================================================================== runner helpers
def _split_label(label: str, *, any_probe: bool = False) -> tuple[str, str | None]:
    if "[" in label:
        if not label.endswith("]"):
            raise InvalidInputError(f"estimator {label!r}: expected the form kind[probe], e.g. 'pseudo_auc[feature]'")
        kind, probe = label[:-1].split("[", 1)
        check_choice(kind, PROBE_ESTIMATORS, name=f"estimator {label!r} kind")
        if not any_probe:
            check_choice(probe, PROBE_KINDS, name=f"estimator {label!r} probe")
        return kind, probe
    check_choice(label, ("inlier_variance",), name="estimator")
    return label, None


def _resolve_estimators(estimators, probes, bench) -> tuple[list[str], list[str], list[str]]:
    """Return (estimator labels, probes to compute, default probes dropped for lack of data)."""
    estimators = DEFAULT_ESTIMATORS if estimators is None else tuple(estimators)
    if isinstance(estimators, str) or not estimators:
        raise InvalidInputError(f"estimators must be a non-empty list of names, got {estimators!r}")
    dropped = []
    if probes is None:
        all_seq = all(c.pooling is not None for c in bench.candidates)
        probes = [p for p in PROBE_KINDS if all_seq or p not in SEQUENCE_KINDS]
        for kind, column in CROSS_KINDS.items():
            if not any(column in t.reference_meta or column in t.auxiliary_meta or column in (t.home or {})
                       for t in bench.tasks):
                probes.remove(kind)
                dropped.append(kind)
    else:
        if isinstance(probes, str):
            probes = [probes]
        probes = list(dict.fromkeys(probes))
        for p in probes:
            check_choice(p, PROBE_KINDS, name="probe")
    labels, needed = [], []
    for est in estimators:
        if "[" in est:
            kind, probe = _split_label(est)
            labels.append(est)
            needed.append(probe)
        elif est == "inlier_variance":
            labels.append(est)
        else:
            check_choice(est, ESTIMATOR_KINDS, name="estimator")
            if not probes:
                raise InvalidInputError(f"estimator {est!r} needs at least one probe")
            labels.extend(f"{est}[{p}]" for p in probes)
            needed.extend(probes)
    labels = list(dict.fromkeys(labels))
    return labels, [p for p in PROBE_KINDS if p in set(needed)], dropped


def _probe_seed(base: int, task_index: int, kind: str) -> np.random.Generator:
    """Generator for (task, probe kind): the same for every candidate of the task (common random numbers)."""
    return np.random.default_rng([base, task_index, _PROBE_CODE[kind]])


def _pool(A, candidate: Candidate):
    if A is None or candidate.pooling is None:
        return A
    return pool_sequences(A, method=candidate.pooling)


def _evaluate_unit(t_idx, task_name, labels, ref_meta_domain, emb: TaskEmbeddings, cand: Candidate,
                   cross: dict, probes: list, base_seed: int, cfg: dict) -> dict:
    """Scores and estimators of one (task, candidate): runs in a worker."""
    R = _pool(emb.reference, cand)
    scorer = KNNScorer(scoring=cand.scoring, k=cand.k, K=cand.K, ldn_form=cand.ldn_form, metric=cand.metric,
                       backend=cfg["backend"], n_jobs=cfg["knn_jobs"],
                       random_state=base_seed).fit(R)
    inl = scorer.score_reference()
    z_in = inl.scores
    # probes: generated ones per candidate (seeded per task and kind), cross ones shared by the task
    made: dict[str, PseudoAnomalies] = {}
    seq = emb.reference if cand.pooling is not None else None
    for kind in probes:
        if kind in GENERATED_KINDS or (kind == "diverse" and "feature" not in made):
            gk = "feature" if kind == "diverse" else kind
            made[gk] = make_probe(gk, R, sequences=seq, random_state=_probe_seed(base_seed, t_idx, gk), warn=False)
    for kind in probes:
        if kind in CROSS_KINDS or kind == "diverse":
            for ck in (CROSS_KINDS if kind == "diverse" else (kind,)):
                made.setdefault(ck, cross[ck])
    if "diverse" in probes:
        made["diverse"] = diverse_probe([made["feature"], cross["cross_domain"], cross["cross_class"],
                                         cross["cross_attribute"]])
    # one kNN search for every query: test, needed auxiliary rows, generated probes
    blocks, spans = [], {}

    def add(key, X):
        start = sum(b.shape[0] for b in blocks)
        blocks.append(X)
        spans[key] = (start, start + X.shape[0])

    if labels is not None:
        add("test", _pool(emb.test, cand))
    aux_rows = np.unique(np.concatenate([p.auxiliary_index for p in made.values()] + [np.zeros(0, np.int64)]))
    if aux_rows.size:
        add("aux", _pool(emb.auxiliary[aux_rows], cand))
    for kind in GENERATED_KINDS:
        p = made.get(kind)
        if p is not None and not p.skipped:
            add(kind, _pool(p.X, cand) if kind in SEQUENCE_KINDS else p.X)
    q = scorer.score(np.concatenate(blocks, axis=0)) if blocks else None
    part = {key: q.scores[a:b] for key, (a, b) in spans.items()}
    pseudo = {}
    for kind in probes:
        p = made[kind]
        if p.skipped:
            pseudo[kind] = None
            continue
        pieces = []
        if kind in GENERATED_KINDS:
            pieces.append(part[kind])
        elif kind == "diverse" and "feature" in p.parts:
            pieces.append(part["feature"])
        pieces.append(z_in[p.reference_index])
        if p.auxiliary_index.size:
            pieces.append(part["aux"][np.searchsorted(aux_rows, p.auxiliary_index)])
        pseudo[kind] = np.concatenate(pieces)
    est = estimate_candidate(z_in, pseudo, domain_in=ref_meta_domain if cfg["lam"] is not None else None,
                             lam=cfg["lam"], npd_eps=cfg["npd_eps"])
    row = dict(task=task_name, candidate=cand.name, n_reference=int(R.shape[0]), n_floored=inl.n_floored,
               inlier_mean=est.inlier_mean, inlier_var=est.inlier_var, backend=inl.backend)
    if labels is not None:
        zt = part["test"]
        b = auc_bound(zt[labels == 0], zt[labels == 1])
        row.update(true_auc=b.empirical_auc, true_mu_delta=b.mu_delta, true_bound=b.bound,
                   true_robust_bound=b.robust_bound, n_test=int(labels.size))
    else:
        row.update(true_auc=np.nan, true_mu_delta=np.nan, true_bound=np.nan, true_robust_bound=np.nan, n_test=0)
    probe_rows = []
    for prow in est.probes:
        p = made[prow["probe"]]
        probe_rows.append(dict(prow, task=task_name, candidate=cand.name, skipped=p.skipped, reason=p.reason,
                               source=p.source))
    return {"candidate": row, "probes": probe_rows, "inlier_variance": est.inlier_variance}


# =========================================================================== result
@dataclass(frozen=True)
class SelectionResult:
    """Result of :func:`run_selection`.

    Attributes
    ----------
    benchmark : str
    config : dict
        Settings of the run (estimators, probes, pool_by, seeds, ...).
    candidates : list of dict
        One row per (task, candidate): true AUC, the bound with the true test
        scores, inlier statistics.
    probes : list of dict
        One row per (task, candidate, probe): size, provenance, moments and estimates.
    estimates : list of dict
        Tidy: one row per (task, candidate, estimator) with ``value`` and ``true_auc``.
    units : list of dict
        One row per (selection unit, selector): ``rho_rank``, ``a_pair``,
        ``regret``, the selected candidate and its AUC.
    bootstrap : list of dict
        Paired bootstrap of differences in selected AUC between selectors.
    skipped : list of dict
        Probes skipped per task, with the reason.
    elapsed_seconds : float
        Wall time of the run (not part of :meth:`to_dict`, which is reproducible).
    """

    benchmark: str
    config: dict
    candidates: list
    probes: list
    estimates: list
    units: list
    bootstrap: list
    skipped: list
    elapsed_seconds: float = float("nan")

    # ------------------------------------------------------------------ frames
    def to_frame(self):
        """The tidy results table: one row per (task, candidate, estimator)."""
        import pandas as pd

        return pd.DataFrame(self.estimates)

    def candidates_frame(self):
        import pandas as pd

        return pd.DataFrame(self.candidates)

    def probes_frame(self):
        import pandas as pd

        return pd.DataFrame(self.probes)

    def units_frame(self):
        import pandas as pd

        return pd.DataFrame(self.units)

    def bootstrap_frame(self):
        import pandas as pd

        return pd.DataFrame(self.bootstrap)

    def candidate_summary_frame(self):
        """One row per candidate: mean true AUC, mean Eq. 1 bound of the true scores and mean of every
        estimator over the tasks (the data of Figure 2 of seed 001)."""
        import pandas as pd

        cands = pd.DataFrame(self.candidates)
        keys = ["candidate", "family", "embedding", "pooling", "scoring"]
        out = cands.groupby("candidate", sort=False).agg(
            family=("family", "first"), embedding=("embedding", "first"), pooling=("pooling", "first"),
            scoring=("scoring", "first"), true_auc=("true_auc", "mean"), true_bound=("true_bound", "mean"),
            n_tasks=("task", "count"))
        est = pd.DataFrame(self.estimates)
        if not est.empty:
            wide = est.pivot_table(index="candidate", columns="estimator", values="value", aggfunc="mean",
                                   dropna=False)
            out = out.join(wide[[c for c in self.config["estimators"] if c in wide.columns]])
        return out.reset_index()[keys + [c for c in out.columns if c not in keys]]

    def summary_frame(self, by=None):
        """Mean ρ_rank, A_pair and regret per selector over the judged units (like Table 1 of seed 001).

        Rows: Oracle, Random Selection, Fixed Selection (when the tasks have
        development/evaluation splits; its regret is over evaluation units
        only, ρ and A_pair are not defined), then the estimators. ``by``
        (``"split"``, ``"pool"``, ``"group"`` or a list of them) adds grouping columns.
        The index is the selector label.
        """
        import pandas as pd

        units = pd.DataFrame(self.units)
        keys = [] if by is None else ([by] if isinstance(by, str) else list(by))
        for k in keys:
            check_choice(k, ("split", "pool", "group"), name="by")
        order = {lab: i for i, lab in enumerate(self.config["selectors"])}
        cols = ["rho_rank", "a_pair", "regret"]
        if units.empty:
            return pd.DataFrame(columns=["kind", "probe", *cols, "n_units"]).rename_axis("estimator")
        g = units.groupby(["selector", *keys], dropna=False, sort=False)
        out = g[cols].mean()
        out["n_units"] = g["regret"].count()
        out = out.reset_index()
        meta = {r["selector"]: (r["kind"], r["probe"]) for r in self.units}
        out.insert(1, "kind", [meta[s][0] for s in out["selector"]])
        out.insert(2, "probe", [meta[s][1] for s in out["selector"]])
        out["_o"] = out["selector"].map(order)
        out = out.sort_values(["_o", *keys], kind="stable").drop(columns="_o")
        return out.rename(columns={"selector": "estimator"}).set_index("estimator")

    def table1_frame(self):
        """Wide table in the layout of Table 1 of seed 001: overall, then per pool × split."""
        import pandas as pd

        overall = self.summary_frame()[["rho_rank", "a_pair", "regret"]]
        overall.columns = pd.MultiIndex.from_product([["overall"], overall.columns])
        parts = [overall]
        units = pd.DataFrame(self.units)
        if not units.empty and (units["pool"].nunique() > 1 or units["split"].nunique() > 1):
            by = self.summary_frame(by=["pool", "split"]).reset_index()
            for (pool, split), sub in by.groupby(["pool", "split"], dropna=False, sort=True):
                sub = sub.set_index("estimator")[["rho_rank", "a_pair", "regret"]]
                sub.columns = pd.MultiIndex.from_product([[f"{pool}/{split}"], sub.columns])
                parts.append(sub)
        return pd.concat(parts, axis=1).reindex(overall.index)

    # ------------------------------------------------------------------ dict / text
    def to_dict(self) -> dict:
        """JSON-safe dict (nan -> None); includes the overall summary as ``summary``."""
        summary = self.summary_frame().reset_index()
        return {
            "benchmark": self.benchmark,
            "config": json_safe(self.config),
            "summary": json_safe(summary.to_dict(orient="records")),
            "candidates": json_safe(self.candidates),
            "probes": json_safe(self.probes),
            "estimates": json_safe(self.estimates),
            "units": json_safe(self.units),
            "bootstrap": json_safe(self.bootstrap),
            "skipped": json_safe(self.skipped),
        }

    def summary_text(self) -> str:
        """Plain-text summary table (regret in percentage points)."""
        s = self.summary_frame()
        lines = [f"Anomaly-free model selection on {self.benchmark}: {self.config['n_tasks']} tasks x "
                 f"{self.config['n_candidates']} candidates, {self.config['n_units']} judged unit(s)"
                 + (f", pools by {self.config['pool_by']}" if self.config["pool_by"] else ""),
                 f"{'estimator':<34} {'rho_rank':>8} {'A_pair':>7} {'R (pp)':>7} {'units':>5}"]

        def fmt(v, spec):
            return "-" if v is None or not np.isfinite(v) else format(v, spec)

        for label, r in s.iterrows():
            lines.append(f"{pretty_label(label):<34} {fmt(r.rho_rank, '8.2f'):>8} {fmt(r.a_pair, '7.2f'):>7} "
                         f"{fmt(100 * r.regret, '7.2f'):>7} {int(r.n_units):>5}")
        if self.skipped:
            kinds = sorted({s['probe'] for s in self.skipped})
            lines.append(f"skipped probes (no eligible samples in some tasks): {', '.join(kinds)}")
        return "\n".join(lines)


def pretty_label(label: str) -> str:
    """Display name of a selector label, e.g. ``pseudo_auc[diverse]`` -> ``Pseudo AUC (Diverse)``."""
    if "[" in label:
        kind, probe = label[:-1].split("[", 1)
        return f"{_PRETTY_KIND.get(kind, kind)} ({_PRETTY_PROBE.get(probe, probe)})"
    return _PRETTY_KIND.get(label, label)


# =========================================================================== runner
def run_selection(benchmark: SelectionBenchmark, *, estimators=None, probes=None, pool_by: str | None = None,
                  lam=None, n_boot: int = 2000, backend: str = "exact",
                  npd_eps: float = 0.0, n_jobs: int = 1, progress: bool = False,
                  random_state=0) -> SelectionResult:
    r"""Run anomaly-free model selection over a benchmark and judge every estimator (seed 001, Sec. 5.3).

    For each task and candidate: leave-one-out inlier scores of the
    reference, scores of the pseudo-anomalies of every probe, the estimators
    (see the module docstring) and, when test labels exist, the true AUC and
    the Eq. 1 bound of the true test scores. Then per selection unit:
    :math:`\rho_{rank}`, :math:`A_{pair}`, regret; the Oracle, Random and
    Fixed baselines; paired bootstrap CIs of differences in selected AUC.

    Parameters
    ----------
    benchmark : SelectionBenchmark
        In memory (see :func:`auditad.manifest.load_manifest` for files,
        :func:`auditad.synthetic.digits_benchmark` and
        :func:`auditad.synthetic.make_selection_benchmark` for examples).
    estimators : list of str, optional
        Kinds (``"inlier_variance"``, ``"auc_bound"``, ``"robust_bound"``,
        ``"pseudo_auc"``, ``"npd"``; every kind but the first is crossed with
        every probe) or explicit labels such as ``"pseudo_auc[diverse]"``.
        Default: inlier_variance, auc_bound, pseudo_auc.
    probes : list of str, optional
        Pseudo-anomaly kinds (:data:`auditad.pseudo.PROBE_KINDS`). Default:
        every kind whose metadata exists somewhere in the benchmark; sequence
        and element only when every candidate is a pooled sequence candidate.
    pool_by : str, optional
        Candidate attribute that splits the candidates into separate selection
        pools (``"scoring"`` reproduces Table 1, where kNN and LDN candidates
        are selected among themselves). None: all candidates compete.
    lam : None, "empirical", float or mapping
        Domain weighting of the inlier moments in the bound estimators
        (Eqs. 4–6, needs reference ``domain`` metadata).
    n_boot : int, default 2000
        Bootstrap replicates (0 = no bootstrap).
    backend : {"exact", "auto", "approximate"}, default "exact"
        kNN backend. Per-task reference sets are usually small, where exact
        search is fastest and deterministic.
    npd_eps : float
        ε of NPD.
    n_jobs : int, default 1
        joblib workers over (task, candidate) units.
    progress : bool, default False
        Draw a progress bar on stderr.
    random_state : None, int or Generator, default 0
        Seeds the probes (per task and probe kind, shared by all candidates
        of a task) and the bootstrap. The same seed gives identical tables.

    Returns
    -------
    SelectionResult

    Examples
    --------
    >>> from auditad.synthetic import make_selection_benchmark
    >>> bench = make_selection_benchmark(n_tasks=4, n_source=30, n_target=3, n_test=20, random_state=0)
    >>> res = run_selection(bench, estimators=["pseudo_auc[feature]"], n_boot=0)
    >>> list(res.summary_frame().index)
    ['oracle', 'random', 'fixed', 'pseudo_auc[feature]']
    """
    from ._progress import Progress

    if not isinstance(benchmark, SelectionBenchmark):
        raise InvalidInputError(f"benchmark must be a SelectionBenchmark, got {type(benchmark).__name__}")
    if pool_by is not None:
        check_choice(pool_by, POOL_BY, name="pool_by")
    n_boot = check_int(n_boot, name="n_boot", low=0)
    n_jobs = check_int(n_jobs, name="n_jobs", low=1)
    check_choice(backend, ("auto", "exact", "approximate"), name="backend")
    labels, probe_list, dropped = _resolve_estimators(estimators, probes, benchmark)
    rng = check_random_state(random_state)
    base_seed = int(rng.integers(0, 2**62))
    boot_rng = np.random.default_rng([base_seed, 2**31])
    t0 = time.perf_counter()

    # task-level cross probes (metadata only), computed once per task
    tasks = benchmark.tasks
    present = {col for t in tasks for col in (*t.reference_meta, *t.auxiliary_meta, *(t.home or {}))}
    cross_by_task, skipped = [], []
    for t in tasks:
        n_ref = len(next(iter(t.embeddings.values())).reference)
        aux = next(iter(t.embeddings.values())).auxiliary
        n_aux = 0 if aux is None else len(aux)
        cross = {ck: cross_probe(ck, t.reference_meta, auxiliary_meta=t.auxiliary_meta, n_reference=n_ref,
                                 n_auxiliary=n_aux, home=t.home, warn=False) for ck in CROSS_KINDS}
        cross_by_task.append(cross)
        for ck, p in cross.items():
            # a part of Diverse whose column exists nowhere in the benchmark is not a skip, just absent
            if p.skipped and (ck in probe_list or ("diverse" in probe_list and CROSS_KINDS[ck] in present)):
                skipped.append(dict(task=t.name, probe=ck, reason=p.reason,
                                    used_by=ck if ck in probe_list else "diverse"))
    for kind in probe_list:
        if kind in SEQUENCE_KINDS:
            bad = [c.name for c in benchmark.candidates if c.pooling is None]
            if bad:
                skipped.append(dict(task="*", probe=kind, reason=f"candidates without sequence embeddings: {bad}",
                                    used_by=kind))

    cfg = dict(backend=backend, lam=lam, npd_eps=float(npd_eps), knn_jobs=1 if n_jobs > 1 else None)
    jobs = []
    for ti, t in enumerate(tasks):
        dom = t.reference_meta.get("domain")
        if lam is not None and dom is None:
            raise InvalidInputError(f"lam={lam!r} needs 'domain' metadata of the reference set; task {t.name!r} has none")
        for c in benchmark.candidates:
            jobs.append((ti, t.name, t.test_labels, dom, t.embeddings[c.embedding], c, cross_by_task[ti],
                         probe_list, base_seed, cfg))
    outputs = []
    with Progress(len(jobs), "selection", enabled=progress) as bar:
        if n_jobs == 1:
            for job in jobs:
                outputs.append(_evaluate_unit(*job))
                bar.update()
        else:
            from joblib import Parallel, delayed

            for out in Parallel(n_jobs=n_jobs, return_as="generator")(delayed(_evaluate_unit)(*j) for j in jobs):
                outputs.append(out)
                bar.update()

    for kind in sorted({s["probe"] for s in skipped}):
        which = [s["task"] for s in skipped if s["probe"] == kind]
        reason = next(s["reason"] for s in skipped if s["probe"] == kind)
        warnings.warn(f"pseudo-anomaly probe {kind!r} skipped for {len(which)} task(s) ({', '.join(which[:5])}"
                      f"{', ...' if len(which) > 5 else ''}): {reason}", SkippedItemWarning, stacklevel=2)

    result = _judge(benchmark, outputs, labels, probe_list, pool_by, n_boot, boot_rng)
    config = dict(n_tasks=len(tasks), n_candidates=len(benchmark.candidates), estimators=labels,
                  probes=probe_list, dropped_probes=dropped, pool_by=pool_by, lam=lam, n_boot=n_boot,
                  backend=backend, npd_eps=cfg["npd_eps"],
                  random_state=random_state if isinstance(random_state, (int, type(None))) else "Generator",
                  selectors=result["selectors"], n_units=result["n_units"],
                  candidates=[c.to_dict() for c in benchmark.candidates], info=dict(benchmark.info))
    return SelectionResult(benchmark=benchmark.name, config=config, candidates=result["candidates"],
                           probes=result["probes"], estimates=result["estimates"], units=result["units"],
                           bootstrap=result["bootstrap"], skipped=skipped,
                           elapsed_seconds=time.perf_counter() - t0)


def _judge(bench, outputs, labels, probe_list, pool_by, n_boot, boot_rng) -> dict:
    """Assemble tables, judge estimators and baselines per selection unit, bootstrap differences."""
    tasks = {t.name: t for t in bench.tasks}
    cands = {c.name: c for c in bench.candidates}
    cand_rows, probe_rows, est_rows = [], [], []
    values = {}  # (task, candidate) -> {label: value}
    for out in outputs:
        row = out["candidate"]
        t, c = tasks[row["task"]], cands[row["candidate"]]
        info = dict(task=t.name, split=t.split, group=t.group,
                    pool=getattr(c, pool_by) if pool_by else "all", candidate=c.name, embedding=c.embedding,
                    family=c.family, pooling=c.pooling, scoring=c.scoring)
        cand_rows.append({**info, **{k: v for k, v in row.items() if k not in ("task", "candidate")}})
        vals = {"inlier_variance": out["inlier_variance"]}
        for pr in out["probes"]:
            probe_rows.append({**info, **{k: v for k, v in pr.items() if k not in ("task", "candidate")}})
            for kind in PROBE_ESTIMATORS:
                vals[f"{kind}[{pr['probe']}]"] = pr[kind]
        values[(t.name, c.name)] = vals
        for lab in labels:
            kind, probe = _split_label(lab)
            est_rows.append({**info, "true_auc": row["true_auc"], "estimator": lab, "kind": kind, "probe": probe,
                             "value": vals[lab]})

    selectors = ["oracle", "random"]
    has_fixed = any(t.split == "evaluation" for t in bench.tasks) and any(t.split == "development"
                                                                          for t in bench.tasks)
    if has_fixed:
        selectors.append("fixed")
    selectors += labels

    # selection units: (task, pool) with truth
    by_unit: dict[tuple, list[str]] = {}
    for r in cand_rows:
        if np.isfinite(r["true_auc"]):
            by_unit.setdefault((r["task"], r["pool"]), []).append(r["candidate"])
    auc_of = {(r["task"], r["candidate"]): r["true_auc"] for r in cand_rows}

    # Fixed selection: per (group, pool), best mean development AUC
    fixed_choice = {}
    if has_fixed:
        dev: dict[tuple, dict[str, list]] = {}
        for (tn, pool), names in by_unit.items():
            t = tasks[tn]
            if t.split == "development":
                for n in names:
                    dev.setdefault((t.group, pool), {}).setdefault(n, []).append(auc_of[(tn, n)])
        for key, per in dev.items():
            means = {n: float(np.mean(v)) for n, v in per.items()}
            fixed_choice[key] = max(sorted(means), key=lambda n: means[n])

    units = []
    for (tn, pool), names in by_unit.items():
        t = tasks[tn]
        a = np.array([auc_of[(tn, n)] for n in names])
        base = dict(task=tn, split=t.split, group=t.group, pool=pool, n_candidates=len(names),
                    best_auc=float(a.max()), best_candidate=names[int(np.argmax(a))])
        for sel in selectors:
            kind, probe = (sel, None) if sel in ("oracle", "random", "fixed") else _split_label(sel)
            r = dict(base, selector=sel, kind=kind, probe=probe)
            if sel == "oracle":
                r.update(rho_rank=rank_correlation(a, a), a_pair=pairwise_accuracy(a, a), regret=0.0,
                         selected=base["best_candidate"], selected_auc=float(a.max()))
            elif sel == "random":
                r.update(rho_rank=0.0, a_pair=0.5 if np.unique(a).size > 1 else np.nan,
                         regret=float(a.max() - a.mean()), selected=None, selected_auc=float(a.mean()))
            elif sel == "fixed":
                choice = fixed_choice.get((t.group, pool)) if t.split == "evaluation" else None
                if choice is None or choice not in names:
                    continue
                sa = auc_of[(tn, choice)]
                r.update(rho_rank=np.nan, a_pair=np.nan, regret=float(a.max() - sa), selected=choice,
                         selected_auc=float(sa))
            else:
                e = np.array([values[(tn, n)][sel] for n in names], dtype=np.float64)
                if np.all(np.isnan(e)):
                    continue
                ee = np.where(np.isnan(e), -np.inf, e)
                top = np.flatnonzero(ee == ee.max())
                r.update(rho_rank=rank_correlation(e, a), a_pair=pairwise_accuracy(e, a), regret=regret(e, a),
                         selected=names[int(top[0])] if top.size == 1 else None,
                         selected_auc=_selected_auc(ee, a), n_tied=int(top.size))
            units.append(r)

    boot = _bootstrap(units, selectors, n_boot, boot_rng) if n_boot else []
    return dict(candidates=cand_rows, probes=probe_rows, estimates=est_rows, units=units, bootstrap=boot,
                selectors=selectors, n_units=len(by_unit))


def _bootstrap(units, selectors, n_boot, rng) -> list:
    """Paired bootstrap over units of differences in selected AUC (percentile 95 % CI)."""
    sel_auc: dict[str, dict] = {}
    for u in units:
        sel_auc.setdefault(u["selector"], {})[(u["task"], u["pool"])] = u["selected_auc"]
    order = [s for s in selectors if s != "oracle" and s in sel_auc]
    rows = []
    for i, sa in enumerate(order):
        for sb in order[i + 1:]:
            keys = sorted(set(sel_auc[sa]) & set(sel_auc[sb]), key=str)
            if not keys:
                continue
            d = np.array([sel_auc[sa][k] - sel_auc[sb][k] for k in keys])
            idx = rng.integers(0, d.size, size=(n_boot, d.size))
            means = d[idx].mean(axis=1)
            lo, hi = np.quantile(means, [0.025, 0.975])
            rows.append(dict(selector_a=sa, selector_b=sb, mean_diff=float(d.mean()), ci_low=float(lo),
                             ci_high=float(hi), n_units=int(d.size), significant=bool(lo > 0 or hi < 0)))
    return rows
