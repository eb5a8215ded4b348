"""The class-split protocol run: splits, tasks, one neighbour pass per repeat, AUROC with DeLong intervals.

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
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from ..execution import ExecutionError, distributed
from .._progress import Progress
from .._rng import check_random_state
from .._validation import (
    check_choice,
    check_embeddings,
    check_int,
    check_k,
    check_labels,
    check_probability,
    check_same_length,
    check_scores,
    describe,
)
from ..errors import AuditadWarning, InvalidInputError, SkippedItemWarning, UndefinedValueWarning
from .detectors import (
    BACKENDS,
    BUILTIN_DETECTORS,
    Detector,
    KNNDetector,
    LOFDetector,
    NeighbourDetector,
    detector_info,
    resolve_detectors,
)
from .neighbours import lof_tables, prepare_rows, to_distance
from .plan import (DEFAULT_MAX_TEST_NORMALS, SplitTask, check_plan_arguments, check_split, class_split_plan,
                   stratified_assignment, stratified_subsample)
from .rates import DegenerateCorrelationWarning, check_epsilon
from .result import MEAN, ProtocolResult
from .shared import LeaveOneOutLists, one_class_lists

__all__ = ["PROTOCOLS", "DEFAULT_MAX_TEST_NORMALS", "audit_protocol", "check_representations", "check_split",
           "stratified_assignment", "stratified_subsample"]

PROTOCOLS = ("leave_one_class_out", "one_class")

@dataclass
class _Task:
    c: int
    s: int
    split: SplitTask  # the task's rows (training rows built on demand)
    test_idx: np.ndarray
    y_test: np.ndarray
    seed: int
    runnable: tuple  # detector indices

    @property
    def train_idx(self) -> np.ndarray:
        return self.split.train_idx

    @property
    def shared_pool(self):
        """The repeat's whole pool when the training rows are the pool minus class c, else None."""
        return self.split.shared_pool


# --------------------------------------------------------------------------- input handling
def check_representations(representations) -> dict:
    """``representations`` (array or mapping name -> array) as a dict of checked float64 arrays."""
    if isinstance(representations, Mapping):
        if len(representations) == 0:
            raise InvalidInputError("representations is an empty mapping: give at least one (n, d) array")
        out = {}
        for name, X in representations.items():
            if not isinstance(name, str):
                raise InvalidInputError(f"representation names must be strings, got {describe(name)}")
            out[name] = check_embeddings(X, name=f"representations[{name!r}]")
        return out
    return {"X": check_embeddings(representations, name="representations")}


def _need_param(det) -> str:
    if isinstance(det, KNNDetector):
        return f"k={det.k}"
    if isinstance(det, LOFDetector):
        return f"n_neighbors={det.n_neighbors}"
    if isinstance(det, Detector):
        return f"min_train_size={det.min_train_size}"
    return f"min_train_size={det.min_train_size}"


# --------------------------------------------------------------------------- scoring
def _auroc_of(scores, y_test, ci_level):
    from ..metrics import auroc_ci

    constant = bool(np.all(scores == scores[0]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedValueWarning)  # constant scores: reported by the caller
        res = auroc_ci(y_test, scores, level=ci_level)
    return (res.auroc, res.ci_low, res.ci_high, res.p_value, constant, res.log10_p_value)


def _run_task(X, train_idx, test_idx, y_test, detector, seed, ci_level, where=""):
    """Fit a fresh copy of ``detector`` on X[train_idx], score X[test_idx], return AUROC + CI."""
    det = detector.fresh(seed)
    for step, call in (("fit", lambda: det.fit(det.take_rows(X, train_idx))),
                       ("scoring", lambda: det.score_samples(det.take_rows(X, test_idx)))):
        try:
            out = call()
        except InvalidInputError as exc:
            raise InvalidInputError(f"{exc}{where}") from exc
        except Exception as exc:
            raise InvalidInputError(f"detector {detector.name!r} raised {type(exc).__name__} in {step}{where}: "
                                    f"{exc}") from exc
    scores = out
    scores = check_scores(scores, name=f"scores of detector {detector.name!r}{where}")
    if scores.shape[0] != test_idx.size:
        raise InvalidInputError(
            f"detector {detector.name!r} returned {scores.shape[0]} scores for {test_idx.size} samples{where}")
    return _auroc_of(scores, y_test, ci_level)


def _lof_tables_reached(get_rows, get_kth, q_nb, k, metric, n_total):
    """LOF tables (k-distance, lrd) of the training rows that the queries' lists reach.

    lrd(o) needs o's own list and the k-distances of o's neighbours, so two
    rings around the queries suffice; every value equals the one computed from
    all training rows (`lof_tables`). ``get_rows(rows)`` gives the
    rows' lists (idx, d2), ``get_kth(rows, j)`` only their column j of d2 (the second ring needs no more).
    """
    from .neighbours import LOFTables

    mark = np.zeros(n_total, dtype=bool)  # sorted unique indices by marking: O(n + entries), no sort
    mark[q_nb[q_nb >= 0]] = True
    ring1 = np.flatnonzero(mark)
    i1, d1 = get_rows(ring1)
    i1, d1 = i1[:, :k], to_distance(d1[:, :k], metric)
    mark2 = np.zeros(n_total, dtype=bool)
    mark2[i1[i1 >= 0]] = True
    mark2[ring1] = False
    ring2 = np.flatnonzero(mark2)
    kdist = np.full(n_total, np.nan)
    kdist[ring1] = d1[:, -1]
    if ring2.size:  # only their k-th distance is needed
        kdist[ring2] = to_distance(get_kth(ring2, k - 1), metric)
    lrd = np.full(n_total, np.nan)
    lrd[ring1] = 1.0 / (np.mean(np.maximum(d1, kdist[i1]), axis=1) + 1e-10)
    return LOFTables(kdist, lrd)


def _neighbour_outputs(Xp, metric, y_idx, protocol, group, tasks_s, dets, backend, ci_level, executor=None,
                       seed=None, recalls=None):
    """AUROC of every neighbour detector of ``group`` on every task of one repeat, from one neighbour pass
    (its exact searches' query blocks on ``executor`` when given; ``seed`` for approximate search). The
    measured recall of approximate lists, ``(recall, n_queries)``, is appended to ``recalls``."""
    kmax = max(dets[d].n_needed for d in group)
    need_train = any(isinstance(dets[d], LOFDetector) for d in group)  # LOF needs the training rows' own lists
    n_jobs = next((dets[d].n_jobs for d in group if dets[d].n_jobs is not None), None)
    tasks_s = [t for t in tasks_s if any(d in t.runnable for d in group)]
    if not tasks_s:
        return {}
    out, shared_rows = {}, None
    if protocol == "leave_one_class_out":
        # the union of the tasks' training sets: the whole pool once two classes remain (a row of class c'
        # trains every task c != c'), else the one task's pool minus its class
        pool = tasks_s[0].shared_pool if len(tasks_s) >= 2 else tasks_s[0].train_idx
        normals = [t.test_idx[t.y_test == 0] for t in tasks_s]
        rows = np.concatenate(normals + ([pool] if need_train else []))
        anomalies = {t.c: t.test_idx[t.y_test == 1] for t in tasks_s}
        lists = LeaveOneOutLists(Xp, y_idx, pool, rows, anomalies, kmax, backend=backend, n_jobs=n_jobs,
                                 random_state=seed, executor=executor)
        get = lists.lists
        if lists.recall is not None and recalls is not None:
            recalls.append((lists.recall, lists.n_recall_queries))
    for t in tasks_s:
        if protocol == "leave_one_class_out":
            q_i, q_d2 = get(t.c, t.test_idx)
            tr = None
        else:
            rows = np.concatenate([t.test_idx, t.train_idx]) if need_train else t.test_idx
            # the rows travel to a cluster once for all tasks' exact searches ("auto" may pick exact per task)
            if shared_rows is None and backend != "approximate" and distributed(executor):
                shared_rows = executor.share(Xp)
            a_i, a_d2 = one_class_lists(Xp, t.train_idx, rows, kmax, backend=backend, n_jobs=n_jobs,
                                        random_state=seed, executor=executor, shared_rows=shared_rows,
                                        recalls=recalls)
            m = t.test_idx.size
            q_i, q_d2 = a_i[:m], a_d2[:m]
            tr = (a_i[m:], a_d2[m:]) if need_train else None
        q_d = to_distance(q_d2, metric)
        for d in group:
            if d not in t.runnable:
                continue
            det = dets[d]
            if isinstance(det, KNNDetector):
                scores = det.score_from_neighbours(q_d)
            else:
                k = det.n_needed
                if tr is None:  # K-1 vs 1: lrd only of the training rows the queries reach (same numbers)
                    tables = _lof_tables_reached(lambda rows, c=t.c: get(c, rows),
                                                 lambda rows, j, c=t.c: lists.kth_d2(c, rows, j), q_i[:, :k], k,
                                                 metric, Xp.shape[0])
                else:
                    tables = lof_tables(Xp.shape[0], t.train_idx, to_distance(tr[1][:, :k], metric), tr[0][:, :k])
                scores = det.score_from_neighbours(tables, q_d, q_i)
            out[(d, t.c)] = _auroc_of(scores, t.y_test, ci_level)
    return out


# --------------------------------------------------------------------------- executor (Dask) path
def _protocol_unit(unit, *, reps, y_idx, protocol, groups, tasks, dets, ci_level, classes, executor=None,
                   pass_seeds=None, recalls=None):
    """One unit of work: a neighbour pass of one (representation, group, repeat) (run in the client, its
    exact searches' query blocks on ``executor``), or one (representation, task, detector) fit (a task on
    the executor). Returns ``([(r, d_i, c, s, out), ...], [(category, message), ...])``;
    warnings are returned (a worker's warnings would otherwise be lost) and re-issued by the caller in order."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if unit[0] == "nb":
            _, r, key, s = unit
            group = groups[key]
            metric = key[0]
            X = reps[list(reps)[r]]
            outs = _neighbour_outputs(prepare_rows(X, metric), metric, y_idx, protocol, group,
                                      [t for t in tasks if t.s == s], dets, key[1], ci_level, executor=executor,
                                      seed=pass_seeds[s], recalls=recalls.setdefault(r, []))
            rows = [(r, d_i, c, s, out) for (d_i, c), out in outs.items()]
        else:
            _, r, t_i, d_i = unit
            t = tasks[t_i]
            rep = list(reps)[r]
            out = _run_task(reps[rep], t.train_idx, t.test_idx, t.y_test, dets[d_i], t.seed, ci_level,
                            f" (representation {rep!r}, class {classes[t.c].item()!r}, repeat {t.s})")
            rows = [(r, d_i, t.c, t.s, out)]
    return rows, [(w.category, str(w.message)) for w in caught]


def _run_on_executor(executor, reps, rep_names, y_idx, protocol, groups, generic, tasks, dets, S, ci_level,
                     classes, pass_seeds, recalls):
    """Every unit of the audit, in the serial order; the (r, d_i, c, s, out) rows in that order.

    The fits of the generic detectors are tasks on ``executor``, started first at a low priority; a
    neighbour pass (one per representation, neighbour group and repeat, a large search that would run on one
    single-threaded worker) then runs here with its exact searches' query blocks spread over the executor
    ahead of the fits still waiting.
    """
    units, nb_units = [], []
    for r in range(len(rep_names)):
        nb_units += [("nb", r, key, s) for key in groups for s in range(S)]
        units += [("gen", r, t_i, d_i) for t_i, t in enumerate(tasks) for d_i in generic if d_i in t.runnable]
    common = dict(y_idx=y_idx, protocol=protocol, groups=groups, dets=dets, ci_level=ci_level, classes=classes)
    # the fits start first, at low priority: the workers run them while this process computes (re-ranking,
    # LOF tables, AUROCs) and the passes' own query blocks overtake them
    batch = executor.submit_ordered(_protocol_unit, units, priority=-1, reps=executor.share(reps),
                                    tasks=executor.share(tasks), **common)
    try:
        nb_parts = {u: _protocol_unit(u, reps=reps, tasks=tasks, executor=executor, pass_seeds=pass_seeds,
                                      recalls=recalls, **common) for u in nb_units}
        gen_parts = dict(zip(units, batch.results()))
    except ExecutionError as exc:
        # a fit that killed its worker also loses data the passes' blocks needed: name the fit, the cause
        cause = batch.failure(wait=10.0)
        if cause is not None and str(cause) != str(exc):
            raise cause from exc
        raise
    finally:
        batch.cancel()
    order = []
    for r in range(len(rep_names)):
        order += [u for u in nb_units if u[1] == r] + [u for u in units if u[1] == r]
    parts = [nb_parts[u] if u[0] == "nb" else gen_parts[u] for u in order]
    rows = []
    for part, caught in parts:
        for category, message in caught:
            warnings.warn(message, category, stacklevel=3)
        rows += part
    return rows


# --------------------------------------------------------------------------- main entry point
def audit_protocol(representations, y, *, protocol: str = "leave_one_class_out",
                   detectors=BUILTIN_DETECTORS, k: int = 5, epsilon: float = 0.05,
                   train_fraction: float = 0.8, split=None, contamination: float | None = None,
                   max_test_normals: int | None = DEFAULT_MAX_TEST_NORMALS,
                   repeats: int = 1, leakage_k: int | None = 10, leakage_results=None, ci_level: float = 0.95,
                   backend: str = "auto", n_jobs: int = 1, progress: bool = False,
                   random_state=None, executor=None, exclude_test_copies=None) -> ProtocolResult:
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
    max_test_normals : int or None, default 10 000
        Per task, at most this many test normals are scored: a subsample
        stratified by class, drawn from the seed; ``n_neg`` and the DeLong
        intervals refer to the subsample and ``n_neg_available`` keeps the
        full count. None scores every test normal. See
        `DEFAULT_MAX_TEST_NORMALS` for the choice of the default.
    repeats : int, default 1
    leakage_k : int or None, default 10
        k of the per-class leakage L_k(c); ``None`` skips the leakage.
    leakage_results : mapping of representation name -> LeakageResult, optional
        Leakage already computed on the same samples with ``leakage_k`` among
        its ``ks``; used instead of a second neighbour search.
    ci_level : float, default 0.95
        Confidence level; ``rho_nonsig`` is the share of classes whose p-value
        is ≥ 1 − ci_level (AUROC(c) not distinguishable from ½).
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
    >>> res = audit_protocol(X[:400], y[:400], detectors=["knn"], leakage_k=None, random_state=0)
    >>> 0.0 <= res.to_dict()["mean"]["rho_dir"] <= 1.0
    True
    """
    reps = check_representations(representations)
    y = check_labels(y, name="y", min_classes=2)
    n = y.shape[0]
    for name, X in reps.items():
        check_same_length(X, y, names=(f"representations[{name!r}]" if len(reps) > 1 or name != "X"
                                       else "representations", "y"))
    check_choice(protocol, PROTOCOLS, name="protocol")
    epsilon = check_epsilon(epsilon)
    k = check_int(k, name="k", low=1)
    check_choice(backend, BACKENDS, name="backend")
    train_fraction, contamination, max_test_normals, repeats = check_plan_arguments(train_fraction, contamination,
                                                                                     max_test_normals, repeats)
    if leakage_k is not None:
        leakage_k = check_k(leakage_k, n, name="leakage_k")
    ci_level = check_probability(ci_level, name="ci_level", open_interval=True)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0:
        raise InvalidInputError(f"n_jobs must be a non-zero integer (-1 = all cores), got {describe(n_jobs)}")
    if not isinstance(progress, (bool, np.bool_)):
        raise InvalidInputError(f"progress must be True or False, got {describe(progress)}")
    user_split = None if split is None else check_split(split, n)
    dets = resolve_detectors(detectors, k=k, backend=backend)
    rng = check_random_state(random_state)

    classes, y_idx = np.unique(y, return_inverse=True)
    K, R, D, S = classes.size, len(reps), len(dets), repeats
    rep_names = tuple(reps)
    det_names = tuple(d.name for d in dets)

    # ---- draw every split, subsample and seed up front (results do not depend on n_jobs)
    plan = class_split_plan(y, protocol=protocol, train_fraction=train_fraction, split=user_split,
                            contamination=contamination, max_test_normals=max_test_normals, repeats=S,
                            random_state=rng, exclude_test_copies=exclude_test_copies)
    repeat_seeds = plan.repeat_seeds
    tasks: list[_Task] = []
    n_pos = np.zeros((K, S), dtype=np.int64)
    n_neg = np.zeros((K, S), dtype=np.int64)
    n_neg_avail = np.zeros((K, S), dtype=np.int64)
    max_train = np.zeros(D, dtype=np.int64)
    skipped: list[dict] = []
    skip_warnings: dict[str, list] = {}
    short_anomalies = list(plan.short_anomalies)

    def skip(c, s, reason, dets_=None):
        for d_i in (range(D) if dets_ is None else dets_):
            for r_name in rep_names:
                skipped.append({"representation": r_name, "detector": det_names[d_i], "class": classes[c].item(),
                                "repeat": s, "reason": reason})
        skip_warnings.setdefault(reason, []).append(classes[c].item())

    planned = {(t.repeat, t.c): t for t in plan.tasks}
    not_planned = {(s, c): reason for c, s, reason in plan.skipped}
    for s in range(S):
        for c in range(K):
            if (s, c) in not_planned:
                skip(c, s, not_planned[s, c])
                continue
            st = planned[s, c]
            n_pos[c, s] = int(st.y_test.sum())
            n_neg[c, s], n_neg_avail[c, s] = st.y_test.size - n_pos[c, s], st.n_neg_available
            max_train = np.maximum(max_train, st.n_train)
            too_small = [d_i for d_i, det in enumerate(dets) if st.n_train < det.min_train_size]
            if too_small:
                skip(c, s, "too few training normals for the detector", too_small)
            runnable = tuple(d_i for d_i in range(D) if d_i not in too_small)
            if runnable:
                tasks.append(_Task(c, s, st, st.test_idx, st.y_test, st.seed, runnable))

    # ---- nothing to evaluate is bad input, not an all-nan table
    for d_i, det in enumerate(dets):
        if not any(d_i in t.runnable for t in tasks):
            reasons = sorted({row["reason"] for row in skipped if row["detector"] == det.name})
            if reasons == ["too few training normals for the detector"]:
                raise InvalidInputError(
                    f"audit_protocol: detector {det.name!r} could not be evaluated on any class: it needs at least "
                    f"{det.min_train_size} training normals ({_need_param(det)}) and the largest training set has "
                    f"{int(max_train[d_i])}; use a smaller value")
            raise InvalidInputError(f"audit_protocol: no class-split task could be evaluated for detector "
                                    f"{det.name!r}: {'; '.join(reasons)}")
    for reason, cls in skip_warnings.items():
        uniq = sorted(set(cls), key=lambda v: (str(type(v)), v))
        warnings.warn(f"audit_protocol: skipped class(es) {describe(uniq)}: {reason}; their AUROC is nan and they "
                      "are left out of the rates", SkippedItemWarning, stacklevel=2)
    if short_anomalies:
        c0, have, want = short_anomalies[0]
        warnings.warn(f"audit_protocol: contamination={contamination} needs more anomalies than available for "
                      f"{len(short_anomalies)} task(s) (e.g. class {c0!r}: {have} < {want}); all anomalies were used",
                      AuditadWarning, stacklevel=2)

    # ---- run the tasks: neighbour detectors from one pass per (representation, repeat, metric/backend)
    shape = (R, D, K, S)
    auroc = np.full(shape, np.nan)
    ci_low = np.full(shape, np.nan)
    ci_high = np.full(shape, np.nan)
    p_value = np.full(shape, np.nan)
    log10_p = np.full(shape, np.nan)
    constant = []
    groups: dict[tuple, list[int]] = {}
    for d_i, det in enumerate(dets):
        if isinstance(det, NeighbourDetector):
            groups.setdefault(det.neighbour_key(), []).append(d_i)
    generic = [d_i for d_i, det in enumerate(dets) if not isinstance(det, NeighbourDetector)]
    n_units = sum(len(t.runnable) for t in tasks) * R

    def store(r, d_i, c, s, out):
        auroc[r, d_i, c, s], ci_low[r, d_i, c, s], ci_high[r, d_i, c, s], p_value[r, d_i, c, s] = out[:4]
        log10_p[r, d_i, c, s] = out[5]
        if out[4]:
            constant.append((rep_names[r], det_names[d_i], classes[c].item(), s))

    # approximate neighbour passes: one seed per repeat (index construction, recall sample)
    pass_seeds = [int(np.random.default_rng([int(repeat_seeds[s]), 2]).integers(0, 2**31 - 1)) for s in range(S)]
    recalls: dict[int, list] = {}  # representation -> [(recall, n_queries)] of its approximate passes
    on_cluster = distributed(executor)
    with Progress(n_units, "audit_protocol", enabled=bool(progress)) as bar:
        if on_cluster:
            for r, d_i, c, s, out in _run_on_executor(executor, reps, rep_names, y_idx, protocol, groups, generic,
                                                      tasks, dets, S, ci_level, classes, pass_seeds, recalls):
                store(r, d_i, c, s, out)
                bar.update()
        for r, rep in enumerate(rep_names if not on_cluster else ()):
            X = reps[rep]
            for (metric, nb_backend), group in groups.items():
                Xp = prepare_rows(X, metric)
                for s in range(S):
                    tasks_s = [t for t in tasks if t.s == s]
                    outs = _neighbour_outputs(Xp, metric, y_idx, protocol, group, tasks_s, dets, nb_backend, ci_level,
                                              seed=pass_seeds[s], recalls=recalls.setdefault(r, []))
                    for (d_i, c), out in outs.items():
                        store(r, d_i, c, s, out)
                        bar.update()
            units = [(t, d_i) for t in tasks for d_i in generic if d_i in t.runnable]
            args = ((X, t.train_idx, t.test_idx, t.y_test, dets[d_i], t.seed, ci_level,  # one task's rows at a time
                     f" (representation {rep!r}, class {classes[t.c].item()!r}, repeat {t.s})") for t, d_i in units)
            if n_jobs == 1 or len(units) <= 1:
                outputs = (_run_task(*a) for a in args)
            else:
                from joblib import Parallel, delayed

                outputs = Parallel(n_jobs=int(n_jobs), return_as="generator")(delayed(_run_task)(*a) for a in args)
            for (t, d_i), out in zip(units, outputs):
                store(r, d_i, t.c, t.s, out)
                bar.update()
    if constant:
        warnings.warn(f"audit_protocol: constant scores in {len(constant)} task(s) (e.g. representation, detector, "
                      f"class, repeat = {constant[0]}); their AUROC is 0.5 by the ties-count-½ convention and the "
                      "interval is nan", UndefinedValueWarning, stacklevel=2)

    # ---- leakage
    class_leakage = np.full((R, K), np.nan)
    leakage_L_k = np.full(R, np.nan)
    if leakage_k is not None:
        from ..leakage import leakage as _leakage

        given = dict(leakage_results or {})
        for r, name in enumerate(rep_names):
            lr = given.get(name)
            if lr is None or leakage_k not in lr.ks or int(lr.class_sizes.sum()) != len(y):
                lr = _leakage(reps[name], y, k=leakage_k, backend=backend,
                              random_state=int(repeat_seeds[0] % (2**31)))
            j = lr.ks.index(leakage_k)
            leakage_L_k[r] = float(lr.L[j])
            pos = {v.item() if hasattr(v, "item") else v: i for i, v in enumerate(np.asarray(lr.classes))}
            per = np.asarray(lr.per_class[:, j], dtype=np.float64)
            for c in range(K):
                i = pos.get(classes[c].item())
                if i is not None:
                    class_leakage[r, c] = per[i]

    settings = {
        "protocol": protocol, "epsilon": epsilon, "ci_level": ci_level, "train_fraction": train_fraction,
        "split": "user" if user_split is not None else "random_stratified", "contamination": contamination,
        "max_test_normals": max_test_normals, "n_tasks_subsampled": int(np.sum(n_neg_avail > n_neg)),
        "repeats": S, "k": k, "leakage_k": leakage_k, "backend": backend,
        # approximate kNN/LOF neighbour lists: their lowest measured recall per representation (None: exact)
        "neighbour_recall": {name: (min(v for v, _ in recalls[r]) if recalls.get(r) else None)
                             for r, name in enumerate(rep_names)},
        "neighbour_recall_queries": max((n_q for v in recalls.values() for _, n_q in v), default=0),
        "random_state": random_state if isinstance(random_state, (int, np.integer)) else None,
        "n_samples": n, "n_features": {name: int(X.shape[1]) for name, X in reps.items()},
    }
    if exclude_test_copies is not None:  # only then: a plain audit's settings keep their keys
        settings["excluded_test_copies"] = int(sum(t.n_excluded for t in plan.tasks))
    result = ProtocolResult(
        protocol=protocol, epsilon=epsilon, ci_level=ci_level, classes=classes,
        representation_names=rep_names, detector_names=det_names,
        auroc=auroc, ci_low=ci_low, ci_high=ci_high, p_value=p_value, n_pos=n_pos, n_neg=n_neg,
        class_leakage=class_leakage, leakage_L_k=leakage_L_k, leakage_k=leakage_k, settings=settings,
        detector_info=tuple(detector_info(d) for d in dets), skipped=tuple(skipped), n_neg_available=n_neg_avail,
        log10_p_value=log10_p,
    )
    if leakage_k is not None:
        degenerate = [(rep, det, result.spearman(rep, det).reason) for rep in rep_names
                      for det in (*det_names, MEAN) if result.spearman(rep, det).reason]
        if degenerate:
            rep, det, why = degenerate[0]
            warnings.warn(f"audit_protocol: the Spearman correlation of L_k(c) and AUROC(c) is not stated (nan) for "
                          f"{len(degenerate)} (representation, detector) pair(s), e.g. ({rep!r}, {det!r}): {why}",
                          DegenerateCorrelationWarning, stacklevel=2)
    return result
