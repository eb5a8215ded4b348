"""The class-split protocol run: splits, tasks, one neighbour pass per repeat, AUROC with DeLong intervals.

[`audit_protocol`][auditad.protocol.audit_protocol] runs in named stages: its arguments are checked once
(`_audit_protocol_iv`, a frozen `_ProtocolArgs`); the task plan is drawn
([`class_split_plan`][auditad.protocol.class_split_plan]) and the tasks a detector cannot run are set aside
(`_task_plan`); the tasks run in this process or on an executor (`auditad.protocol.execution_stage`); the
per-class leakage is attached (`_attach_leakage`) and the result assembled (`_assemble`). What differs between
the two protocols is asked of their strategy objects (`auditad.protocol.strategies`).

References
----------
1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly
   Detection", §2.
2. E. R. DeLong, D. M. DeLong, D. L. Clarke-Pearson, "Comparing the areas
   under two or more correlated receiver operating characteristic curves:
   a nonparametric approach", Biometrics 44(3), 837–845, 1988.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from typing import Mapping

import numpy as np

from .._rng import check_random_state
from .._validation import (
    check_choice,
    check_embeddings,
    check_int,
    check_k,
    check_labels,
    check_n_jobs,
    check_off_or_int,
    check_probability,
    check_same_length,
    check_split,
    describe,
    renamed_parameter,
)
from ..errors import AuditadWarning, InvalidInputError, SkippedItemWarning
from .confirmation import confirm, confirms
from .detectors import (
    BACKENDS,
    BUILTIN_DETECTORS,
    Detector,
    KNNDetector,
    LOFDetector,
    detector_info,
    resolve_detectors,
)
from .execution_stage import CALLER_STACKLEVEL, IndexCache, TaskOutputs, execute_tasks
from .plan import (
    DEFAULT_MAX_TEST_NORMALS,
    SplitPlan,
    SplitTask,
    check_plan_arguments,
    class_split_plan,
    stratified_assignment,
    stratified_subsample,
)
from .rates import DegenerateCorrelationWarning, check_epsilon
from .result import MEAN, ProtocolResult
from .strategies import PROTOCOLS, ClassSplitProtocol, protocol_strategy

__all__ = [
    "PROTOCOLS",
    "DEFAULT_MAX_TEST_NORMALS",
    "audit_protocol",
    "check_representations",
    "check_split",
    "stratified_assignment",
    "stratified_subsample",
]

_TOO_FEW_TRAINING = "too few training normals for the detector"


@dataclass(frozen=True)
class _Task:
    """One planned task and the detectors (indices) that can run on it."""

    split: SplitTask
    runnable: tuple

    @property
    def class_index(self) -> int:
        """Index of the task's class in the sorted classes."""
        return self.split.c

    @property
    def split_index(self) -> int:
        """Index of the task's split draw (its repeat)."""
        return self.split.repeat

    # the former short names, still read by the execution stage and the neighbour strategies
    c = class_index
    s = split_index

    @property
    def test_idx(self) -> np.ndarray:
        return self.split.test_idx

    @property
    def y_test(self) -> np.ndarray:
        return self.split.y_test

    @property
    def seed(self) -> int:
        return self.split.seed

    @property
    def train_idx(self) -> np.ndarray:
        return self.split.train_idx

    @property
    def shared_pool(self):
        """The repeat's whole pool when the training rows are the pool minus class c, else None."""
        return self.split.shared_pool

    @property
    def training_rows(self):
        """The training rows as the protocol holds them (`SplitTask.training_rows`)."""
        return self.split.training_rows


# --------------------------------------------------------------------------- input handling
def check_representations(representations) -> dict:
    """``representations`` (array or mapping name -> array) as a dict of checked float arrays.

    In-memory arrays are checked as float64 copies; a memory-mapped array (a ``.npy`` file opened by
    `auditad.datasets.load_embeddings`) is checked block by block and kept as it is (float32 or float64), so
    that data larger than memory is never copied whole: every consumer gathers its rows in the precision it
    computes in.
    """
    if isinstance(representations, Mapping):
        if len(representations) == 0:
            raise InvalidInputError("representations is an empty mapping: give at least one (n, d) array")
        out = {}
        for name, X in representations.items():
            if not isinstance(name, str):
                raise InvalidInputError(f"representation names must be strings, got {describe(name)}")
            out[name] = _checked(X, f"representations[{name!r}]")
        return out
    return {"X": _checked(representations, "representations")}


def _checked(X, name: str) -> np.ndarray:
    from .._io import check_disk_embeddings, is_mapped_array

    if is_mapped_array(X):
        return check_disk_embeddings(X, name=name)  # any magnitude: the tasks rescale extreme rows exactly
    return check_embeddings(X, name=name)


def _need_param(det) -> str:
    if isinstance(det, KNNDetector):
        return f"k={det.k}"
    if isinstance(det, LOFDetector):
        return f"n_neighbors={det.n_neighbors}"
    if isinstance(det, Detector):
        return f"min_train_size={det.min_train_size}"
    return f"min_train_size={det.min_train_size}"


# --------------------------------------------------------------------------- stage 1: the checked arguments
@dataclass(frozen=True)
class _ProtocolArgs:
    """The arguments of `audit_protocol`, checked (scipy.stats' ``_xxx_iv`` pattern)."""

    reps: dict
    y: np.ndarray
    strategy: ClassSplitProtocol
    dets: list
    k: int
    epsilon: float
    train_fraction: float
    split: np.ndarray | None
    contamination: float | None
    max_test_normals: int | None
    repeats: int
    leakage_k: int | None
    leakage_results: Mapping | None
    confidence_level: float
    backend: str
    n_jobs: int
    progress: bool
    rng: np.random.Generator
    random_state: object
    executor: object
    exclude_test_copies: object
    confirm_repeats: int = 0
    project_dim: object = "auto"

    @property
    def rep_names(self) -> tuple:
        return tuple(self.reps)

    @property
    def det_names(self) -> tuple:
        return tuple(d.name for d in self.dets)


def _audit_protocol_iv(
    representations,
    y,
    *,
    protocol,
    detectors,
    k,
    epsilon,
    train_fraction,
    split,
    contamination,
    max_test_normals,
    repeats,
    leakage_k,
    leakage_results,
    confidence_level,
    backend,
    n_jobs,
    progress,
    random_state,
    executor,
    exclude_test_copies,
    confirm_repeats=0,
    project_dim="auto",
) -> _ProtocolArgs:
    """Every argument of `audit_protocol` checked, in the order of its messages."""
    reps = check_representations(representations)
    y = check_labels(y, name="y", min_classes=2)
    n = y.shape[0]
    for name, X in reps.items():
        check_same_length(
            X, y, names=(f"representations[{name!r}]" if len(reps) > 1 or name != "X" else "representations", "y")
        )
    strategy = protocol_strategy(protocol)
    epsilon = check_epsilon(epsilon)
    k = check_int(k, name="k", low=1)
    check_choice(backend, BACKENDS, name="backend")
    train_fraction, contamination, max_test_normals, repeats = check_plan_arguments(
        train_fraction, contamination, max_test_normals, repeats
    )
    leakage_k = check_off_or_int(leakage_k, name="leakage_k", off="no leakage")
    if leakage_k is not None:
        leakage_k = check_k(leakage_k, n, name="leakage_k")
    confidence_level = check_probability(confidence_level, name="confidence_level", open_interval=True)
    n_jobs = check_n_jobs(n_jobs)
    if not isinstance(progress, (bool, np.bool_)):
        raise InvalidInputError(f"progress must be True or False, got {describe(progress)}")
    user_split = None if split is None else check_split(split, n=n)
    dets = resolve_detectors(detectors, k=k, backend=backend)
    rng = check_random_state(random_state)
    confirm_repeats = check_int(confirm_repeats, name="confirm_repeats", low=0)
    if not (isinstance(project_dim, str) and project_dim == "auto"):
        project_dim = check_int(project_dim, name="project_dim", low=0)
    return _ProtocolArgs(
        reps=reps,
        y=y,
        strategy=strategy,
        dets=dets,
        k=k,
        epsilon=epsilon,
        train_fraction=train_fraction,
        split=user_split,
        contamination=contamination,
        max_test_normals=max_test_normals,
        repeats=repeats,
        leakage_k=leakage_k,
        leakage_results=leakage_results,
        confidence_level=confidence_level,
        backend=backend,
        n_jobs=n_jobs,
        progress=progress,
        rng=rng,
        random_state=random_state,
        executor=executor,
        exclude_test_copies=exclude_test_copies,
        confirm_repeats=confirm_repeats,
        project_dim=project_dim,
    )


# --------------------------------------------------------------------------- stage 2: the task plan
@dataclass(frozen=True)
class _TaskPlan:
    """The drawn plan, its runnable tasks, the per-task counts and what was skipped (and why)."""

    plan: SplitPlan
    classes: np.ndarray
    y_idx: np.ndarray
    tasks: tuple  # of _Task
    n_pos: np.ndarray  # (K, S)
    n_neg: np.ndarray  # (K, S)
    n_neg_available: np.ndarray  # (K, S)
    max_train: np.ndarray  # (D,): the largest training set of the tasks
    skipped: tuple  # of {"representation", "detector", "class", "repeat", "reason"}
    skip_reasons: dict  # reason -> labels of the classes skipped for it


def _task_plan(a: _ProtocolArgs, class_positions=None) -> _TaskPlan:
    """Draw every split, subsample and seed up front (results do not depend on ``n_jobs``), then keep for each
    task the detectors with enough training normals; only the tasks of ``class_positions`` (default: every
    class), which are the same tasks as in the full plan."""
    classes, y_idx = np.unique(a.y, return_inverse=True)
    K, D, S = classes.size, len(a.dets), a.repeats
    plan = class_split_plan(
        a.y,
        protocol=a.strategy.name,
        train_fraction=a.train_fraction,
        split=a.split,
        contamination=a.contamination,
        max_test_normals=a.max_test_normals or 0,
        repeats=S,
        random_state=a.rng,
        exclude_test_copies=a.exclude_test_copies,
        class_positions=class_positions,
    )
    n_pos, n_neg, n_neg_avail = (np.zeros((K, S), dtype=np.int64) for _ in range(3))
    max_train = np.zeros(D, dtype=np.int64)
    skipped, reasons = [], {}

    def skip(c, s, reason, dets_=range(D)):
        skipped.extend(
            {
                "representation": r_name,
                "detector": a.det_names[d_i],
                "class": classes[c].item(),
                "repeat": s,
                "reason": reason,
            }
            for d_i in dets_
            for r_name in a.rep_names
        )
        reasons.setdefault(reason, []).append(classes[c].item())

    planned = {(t.repeat, t.c): t for t in plan.tasks}
    not_planned = {(s, c): reason for c, s, reason in plan.skipped}
    tasks = []
    drawn = sorted({t.c for t in plan.tasks} | {c for c, _, _ in plan.skipped})  # the classes the plan drew
    for s, c in ((s, c) for s in range(S) for c in drawn):
        if (s, c) in not_planned:
            skip(c, s, not_planned[s, c])
            continue
        st = planned[s, c]
        n_pos[c, s] = int(st.y_test.sum())
        n_neg[c, s], n_neg_avail[c, s] = st.y_test.size - n_pos[c, s], st.n_neg_available
        max_train = np.maximum(max_train, st.n_train)
        too_small = [d_i for d_i, det in enumerate(a.dets) if st.n_train < det.min_train_size]
        if too_small:
            skip(c, s, _TOO_FEW_TRAINING, too_small)
        runnable = tuple(d_i for d_i in range(D) if d_i not in too_small)
        if runnable:
            tasks.append(_Task(st, runnable))
    return _TaskPlan(
        plan=plan,
        classes=classes,
        y_idx=y_idx,
        tasks=tuple(tasks),
        n_pos=n_pos,
        n_neg=n_neg,
        n_neg_available=n_neg_avail,
        max_train=max_train,
        skipped=tuple(skipped),
        skip_reasons=reasons,
    )


def _check_evaluable(a: _ProtocolArgs, tp: _TaskPlan) -> None:
    """Nothing to evaluate for a detector is bad input, not an all-nan table."""
    for d_i, det in enumerate(a.dets):
        if any(d_i in t.runnable for t in tp.tasks):
            continue
        reasons = sorted({row["reason"] for row in tp.skipped if row["detector"] == det.name})
        if reasons == [_TOO_FEW_TRAINING]:
            raise InvalidInputError(
                f"audit_protocol: detector {det.name!r} could not be evaluated on any class: it needs at least "
                f"{det.min_train_size} training normals ({_need_param(det)}) and the largest training set has "
                f"{int(tp.max_train[d_i])}; use a smaller value"
            )
        raise InvalidInputError(
            f"audit_protocol: no class-split task could be evaluated for detector {det.name!r}: {'; '.join(reasons)}"
        )


def _warn_skipped(a: _ProtocolArgs, tp: _TaskPlan) -> None:
    """One warning per reason a class was skipped, and one for tasks short of anomalies."""
    for reason, cls in tp.skip_reasons.items():
        uniq = sorted(set(cls), key=lambda v: (str(type(v)), v))
        warnings.warn(
            f"audit_protocol: skipped class(es) {describe(uniq)}: {reason}; their AUROC is nan and they "
            "are left out of the rates",
            SkippedItemWarning,
            stacklevel=CALLER_STACKLEVEL,
        )
    short_anomalies = tp.plan.short_anomalies
    if short_anomalies:
        c0, have, want = short_anomalies[0]
        warnings.warn(
            f"audit_protocol: contamination={a.contamination} needs more anomalies than available for "
            f"{len(short_anomalies)} task(s) (e.g. class {c0!r}: {have} < {want}); all anomalies were used",
            AuditadWarning,
            stacklevel=CALLER_STACKLEVEL,
        )


# --------------------------------------------------------------------------- stage 4: leakage and the result
def _attach_leakage(a: _ProtocolArgs, tp: _TaskPlan) -> tuple[np.ndarray, np.ndarray]:
    """``(class_leakage (R, K), L_k (R,))``: the given leakage results where they fit, else computed; nan
    without ``leakage_k``."""
    K = tp.classes.size
    class_leakage = np.full((len(a.reps), K), np.nan)
    leakage_L_k = np.full(len(a.reps), np.nan)
    if a.leakage_k is None:
        return class_leakage, leakage_L_k
    from ..leakage import leakage as _leakage

    given = dict(a.leakage_results or {})
    for r, name in enumerate(a.rep_names):
        lr = given.get(name)
        if lr is None or a.leakage_k not in lr.ks or int(lr.class_sizes.sum()) != len(a.y):
            lr = _leakage(
                a.reps[name], a.y, k=a.leakage_k, backend=a.backend, random_state=int(tp.plan.repeat_seeds[0] % (2**31))
            )
        j = lr.ks.index(a.leakage_k)
        leakage_L_k[r] = float(lr.L[j])
        pos = {v.item() if hasattr(v, "item") else v: i for i, v in enumerate(np.asarray(lr.classes))}
        per = np.asarray(lr.per_class[:, j], dtype=np.float64)
        for c in range(K):
            i = pos.get(tp.classes[c].item())
            if i is not None:
                class_leakage[r, c] = per[i]
    return class_leakage, leakage_L_k


def _settings(a: _ProtocolArgs, tp: _TaskPlan, outputs: TaskOutputs) -> dict:
    """The protocol settings recorded in the result."""
    recalls = outputs.recalls
    settings = {
        "protocol": a.strategy.name,
        "epsilon": a.epsilon,
        "ci_level": a.confidence_level,
        "train_fraction": a.train_fraction,
        "split": "user" if a.split is not None else "random_stratified",
        "contamination": a.contamination,
        "max_test_normals": a.max_test_normals,
        "n_tasks_subsampled": int(np.sum(tp.n_neg_available > tp.n_neg)),
        "repeats": a.repeats,
        "k": a.k,
        "leakage_k": a.leakage_k,
        "backend": a.backend,
        # approximate kNN/LOF neighbour lists: their lowest measured recall per representation (None: exact)
        "neighbour_recall": {
            name: (min(v for v, _ in recalls[r]) if recalls.get(r) else None) for r, name in enumerate(a.rep_names)
        },
        "neighbour_recall_queries": max((n_q for v in recalls.values() for _, n_q in v), default=0),
        "random_state": a.random_state if isinstance(a.random_state, (int, np.integer)) else None,
        "n_samples": int(a.y.shape[0]),
        "n_features": {name: int(X.shape[1]) for name, X in a.reps.items()},
    }
    if a.exclude_test_copies is not None:  # only then: a plain audit's settings keep their keys
        settings["excluded_test_copies"] = int(sum(t.n_excluded for t in tp.plan.tasks))
    return settings


def _assemble(a: _ProtocolArgs, tp: _TaskPlan, outputs: TaskOutputs, leakage: tuple) -> ProtocolResult:
    """The `ProtocolResult`, with a warning for the Spearman correlations that cannot be stated."""
    class_leakage, leakage_L_k = leakage
    result = ProtocolResult(
        protocol=a.strategy.name,
        epsilon=a.epsilon,
        confidence_level=a.confidence_level,
        classes=tp.classes,
        representation_names=a.rep_names,
        detector_names=a.det_names,
        auroc=outputs.auroc,
        ci_low=outputs.ci_low,
        ci_high=outputs.ci_high,
        p_value=outputs.p_value,
        n_pos=tp.n_pos,
        n_neg=tp.n_neg,
        class_leakage=class_leakage,
        leakage_L_k=leakage_L_k,
        leakage_k=a.leakage_k,
        settings=_settings(a, tp, outputs),
        detector_info=tuple(detector_info(d) for d in a.dets),
        skipped=tp.skipped,
        n_neg_available=tp.n_neg_available,
        log10_p_value=outputs.log10_p,
        plan=tp.plan,
    )
    if a.leakage_k is not None:
        degenerate = [
            (rep, det, result.spearman(rep, det).reason)
            for rep in a.rep_names
            for det in (*a.det_names, MEAN)
            if result.spearman(rep, det).reason
        ]
        if degenerate:
            rep, det, why = degenerate[0]
            warnings.warn(
                f"audit_protocol: the Spearman correlation of L_k(c) and AUROC(c) is not stated (nan) for "
                f"{len(degenerate)} (representation, detector) pair(s), e.g. ({rep!r}, {det!r}): {why}",
                DegenerateCorrelationWarning,
                stacklevel=CALLER_STACKLEVEL,
            )
    return result


# --------------------------------------------------------------------------- main entry point
@renamed_parameter("ci_level", "confidence_level")
def audit_protocol(
    representations,
    y,
    *,
    protocol: str = "leave_one_class_out",
    detectors=BUILTIN_DETECTORS,
    k: int = 5,
    epsilon: float = 0.05,
    train_fraction: float = 0.8,
    split=None,
    contamination: float | None = None,
    max_test_normals: int = DEFAULT_MAX_TEST_NORMALS,
    repeats: int = 1,
    leakage_k: int = 10,
    leakage_results=None,
    confidence_level: float = 0.95,
    backend: str = "auto",
    n_jobs: int = 1,
    progress: bool = False,
    random_state=None,
    executor=None,
    exclude_test_copies=None,
    confirm_repeats: int = 0,
    classes=None,
    project_dim="auto",
    index_cache=None,
) -> ProtocolResult:
    r"""Audit a class-split anomaly-detection protocol: per-class AUROC and its instability.

    For every class c:

    * ``protocol="leave_one_class_out"`` ("K−1 vs 1"): normals = all samples
      not in c, anomalies = class c;
    * ``protocol="one_class"`` ("1 vs K−1"): normals = class c, anomalies = the rest.

    The normals are split into train and test (a random split stratified by
    class with ``train_fraction``, or the user's ``split``); each detector is
    fitted on the train normals and scores the test normals and the anomalies,
    giving AUROC(c) with a DeLong interval and a two-sided test of AUROC = ½
    ([`auditad.metrics.auroc_ci`][auditad.metrics.auroc_ci]). With a random split the anomalies are
    every sample of the anomalous class(es) (they are never trained on); with a
    user ``split`` only its test samples are used. ``contamination`` subsamples
    the anomalies to that share of the test set, ``max_test_normals`` caps the
    test normals of a task (stratified by class). With ``repeats > 1`` new
    splits (and subsamples and detector seeds) are drawn; AUROC(c) is the mean
    over repeats and the split-to-split spread is reported. Per (representation,
    detector), and for the detector-mean AUROC(c) (``"mean"``):

    \[
    \sigma^2_{AUC} = \tfrac1K\sum_c(\mathrm{AUROC}(c)-\overline{\mathrm{AUROC}})^2,\quad
    \rho_{rnd}(\varepsilon),\ \rho_{inv},\ \rho_{dir}(\varepsilon)\ \text{(see } instability\_rates\text{)},
    \]

    plus the per-class leakage \(L_k(c)\) next to AUROC(c) and their
    Spearman rank correlation over classes.

    The kNN and LOF detectors of all K tasks of a (representation, repeat)
    are served by one shared exact neighbour pass
    (`auditad.protocol.shared`); the result equals fitting each task's
    detector separately (same distances, ties by index).

    Parameters
    ----------
    representations : array-like of shape (n, d) or dict of str -> array-like
        One or several representations of the same n samples (e.g. pixels and
        PCA), audited on the same splits and compared side by side.
    y : array-like of shape (n,)
        Semantic class labels (at least 2 classes).
    protocol : {"leave_one_class_out", "one_class"}
    detectors : sequence
        Built-in names ``"knn"``, ``"iforest"``, ``"lof"``, detector objects
        ([`KNNDetector`][auditad.protocol.KNNDetector],
        [`IsolationForestDetector`][auditad.protocol.IsolationForestDetector],
        [`LOFDetector`][auditad.protocol.LOFDetector],
        [`Detector`][auditad.protocol.Detector]), or any object with ``fit(X)`` / ``score_samples(X)``
        (see [`resolve_detectors`][auditad.protocol.resolve_detectors] for the sign rules; the sign used is
        recorded in ``detector_info``).
    k : int, default 5
        k of the built-in ``"knn"`` detector.
    epsilon : float, default 0.05
        Near-random half-width ε in [0, ½).
    train_fraction : float, default 0.8
        Share of each normal class used for training (random split).
    split : array-like of shape (n,), optional
        User split: booleans (True = train), 0/1 (1 = train) or "train"/"test".
        Repeats then vary only the subsamples and the detector seeds.
    contamination : float in (0, 1), optional
        Target share of anomalies in each test set; anomalies are subsampled to
        ``round(contamination / (1 - contamination) * n_test_normals)`` (at least 1).
        Too few anomalies -> all are used, with a warning.
    max_test_normals : int, default 10 000
        Per task, at most this many test normals are scored: a subsample
        stratified by class, drawn from the seed; ``n_neg`` and the DeLong
        intervals refer to the subsample and ``n_neg_available`` keeps the
        full count. 0 scores every test normal (as in a configuration file and
        on the command line; ``None``, its former value, is deprecated). See
        `DEFAULT_MAX_TEST_NORMALS` for the choice of the default.
    repeats : int, default 1
    leakage_k : int, default 10
        k of the per-class leakage L_k(c); 0 skips the leakage (as in a
        configuration file and on the command line; ``None``, its former value,
        is deprecated).
    leakage_results : mapping of representation name -> LeakageResult, optional
        Leakage already computed on the same samples with ``leakage_k`` among
        its ``ks``; used instead of a second neighbour search.
    confirm_repeats : int, default 0
        Confirmatory draws of the candidate claims of a one-draw audit (``repeats=1``; ``auditad audit`` uses 5):
        the triples ``auditad.protocol.decision.confirmation_candidates`` and ``pooled_candidates`` select are
        re-run on this many new splits with new detector seeds, and each decision combines its draws (Rubin's
        rules; draws on both sides of ½ make it *seed-sensitive*); every detector on a random split, the
        detectors fitted per task with a user ``split``. 0 = none: a one-draw interval covers the test samples only.
    confidence_level : float, default 0.95
        Confidence level; ``rho_nonsig`` is the share of classes whose p-value
        is ≥ 1 − confidence_level (AUROC(c) not distinguishable from ½). Its former name ``ci_level`` is
        still accepted, with a `DeprecationWarning`.
    backend : {"auto", "exact", "approximate"}
        kNN backend of the ``"knn"`` and ``"lof"`` detectors and of the leakage.
    n_jobs : int, default 1
        Parallel tasks (joblib) of the detectors without shared neighbours;
        -1 = all cores. Results do not depend on it.
    progress : bool, default False
        Print a progress line on stderr.
    random_state : None, int or Generator
    executor : executor, optional
        An open executor of `auditad.execution.open_executor` (e.g. a
        Dask ``LocalCluster`` or a remote scheduler). Every (representation,
        repeat) neighbour pass and every (representation, task, detector) fit
        of the other detectors then runs on it as one task; results are
        gathered in input order, so the result equals the serial one bit for
        bit. ``n_jobs`` is ignored then.
    exclude_test_copies : array-like of shape (n,) of int, optional
        Copy id of every sample: samples with the same id are identical (e.g.
        ``find_duplicates(X).value_ids`` of
        [`auditad.duplicates.find_duplicates`][auditad.duplicates.find_duplicates]).
        Each task's test rows whose id occurs among the task's training rows are
        left out before scoring (the rest of the split is unchanged, see
        [`class_split_plan`][auditad.protocol.plan.class_split_plan]): the AUROC(c)
        of an evaluation without train/test copies. ``settings`` then holds
        ``excluded_test_copies``, the number of test rows left out.
    project_dim : "auto" or int, default "auto"
        The approximate backend's random PCA projection before its exact re-rank (as in
        [`auditad.neighbors.kneighbors`][auditad.neighbors.kneighbors]): ``"auto"`` projects rows of more than
        256 columns to 128, ``0`` never projects, an integer ``p`` projects to ``p`` columns.
    classes : sequence of labels, optional
        Run only the tasks of these classes (labels of ``y``, in the order given) and return the result
        restricted to them (as [`ProtocolResult.subset`][auditad.protocol.ProtocolResult.subset] would,
        with the same numbers: the splits and seeds of every class are drawn as usual), e.g. ``["normal"]``
        for the one task of anomaly-labelled data under ``protocol="one_class"``; the other tasks are
        never fitted.
    index_cache : auditad.protocol.execution_stage.IndexCache, optional
        Approximate backend, one representation: the index over every row that an earlier stage built on the
        same representation (keyed by its name and the metric; `auditad.run_audit` hands its leakage stage's
        on). The audit's own draw and its confirmatory draws read their lists from it instead of building
        their own. Without it, a one-representation audit that confirms its claims builds one for both.

    Returns
    -------
    ProtocolResult

    Raises
    ------
    InvalidInputError
        Bad input (ε outside [0, ½), a detector without ``score_samples``, ...),
        or a detector that could not be evaluated on any task (e.g. ``k=500``
        with fewer than 500 training normals per task).

    Warns
    -----
    SkippedItemWarning
        A class too small to split, or too few training normals for a
        detector: that AUROC is nan and the class is left out of the rates.
    UndefinedValueWarning
        A detector gave constant scores (AUROC = ½ by the ties convention).
    DegenerateCorrelationWarning
        L_k(c) or AUROC(c) has fewer than 3 distinct values: the Spearman
        correlation is nan with a reason.

    See Also
    --------
    - [`instability_rates`][auditad.protocol.instability_rates]: the statistics of one AUROC vector.
    - [`ProtocolResult`][auditad.protocol.ProtocolResult]: the result and its summaries.
    - [`auditad.leakage.leakage`][auditad.leakage.leakage]: the per-class leakage L_k(c).

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly
       Detection", §2.
    2. E. R. DeLong, D. M. DeLong, D. L. Clarke-Pearson, "Comparing the
       areas under two or more correlated receiver operating characteristic
       curves: a nonparametric approach", Biometrics 44(3), 837–845, 1988.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> X, y = load_digits(return_X_y=True)
    >>> res = audit_protocol(X[:400], y[:400], detectors=["knn"], leakage_k=0, random_state=0)
    >>> 0.0 <= res.to_dict()["mean"]["rho_dir"] <= 1.0
    True
    """
    a = _audit_protocol_iv(
        representations,
        y,
        protocol=protocol,
        detectors=detectors,
        k=k,
        epsilon=epsilon,
        train_fraction=train_fraction,
        split=split,
        contamination=contamination,
        max_test_normals=max_test_normals,
        repeats=repeats,
        leakage_k=leakage_k,
        leakage_results=leakage_results,
        confidence_level=confidence_level,
        backend=backend,
        n_jobs=n_jobs,
        progress=progress,
        random_state=random_state,
        executor=executor,
        exclude_test_copies=exclude_test_copies,
        confirm_repeats=confirm_repeats,
        project_dim=project_dim,
    )
    tp = _task_plan(a)
    _check_evaluable(a, tp)
    _warn_skipped(a, tp)
    if classes is not None:  # the other tasks are planned (the same draws) but never run
        wanted = _task_classes(classes, tp.classes)
        tp = replace(tp, tasks=tuple(t for t in tp.tasks if t.c in wanted))
    # one approximate index over every row for the audit's own draw and its confirmatory draws (one
    # representation: with several, each index would be evicted by the next before the confirmation reads it)
    if index_cache is not None and not isinstance(index_cache, IndexCache):
        raise InvalidInputError(f"index_cache must be an IndexCache or None, got {describe(index_cache)}")
    cache = None
    if len(a.reps) == 1 and (index_cache is not None or confirms(a)):
        cache = IndexCache() if index_cache is None else index_cache
    outputs = execute_tasks(a, tp, index_cache=cache)
    result = _assemble(a, tp, outputs, _attach_leakage(a, tp))
    result = confirm(a, result, _task_plan, cache)
    return result if classes is None else result.subset(classes)


def _task_classes(classes, labels: np.ndarray) -> set:
    """Class indices of the labels ``classes`` (each must be a label of ``y``)."""
    have = [c.item() if hasattr(c, "item") else c for c in labels]
    wanted = list(classes) if not isinstance(classes, str) else [classes]
    missing = [c for c in wanted if c not in have]
    if missing or not wanted:
        raise InvalidInputError(f"classes must be a non-empty subset of the labels {have}, got {describe(classes)}")
    return {have.index(c) for c in wanted}
