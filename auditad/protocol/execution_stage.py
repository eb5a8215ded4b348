"""Stage 3 of the class-split protocol run: the tasks executed, in this process or on an executor.

[`audit_protocol`][auditad.protocol.audit_protocol] hands its checked arguments and task plan (stages 1 and 2,
`auditad.protocol.runner`) to `execute_tasks`: the neighbour detectors (kNN, LOF) are scored from one
neighbour pass per (representation, repeat, metric/backend) group (`_neighbour_outputs`), the other detectors
are fitted per task (`_run_task`); all of it runs in this process (`_run_serially`, joblib with
``n_jobs != 1``) or on an executor (`_run_on_executor`), giving the same rows in the same order. The AUROC,
DeLong interval and p-values of every task are collected in a `TaskOutputs`.
"""

from __future__ import annotations

import threading
import warnings
from dataclasses import replace

import numpy as np

from ..execution import ExecutionError, distributed, map_in_threads, resolve_n_jobs
from .._progress import Progress
from .._validation import check_scores
from ..errors import InvalidInputError, UndefinedValueWarning
from .detectors import KNNDetector, LOFDetector, NeighbourDetector
from .neighbor_lists import prepare_rows, rescaled, to_distance
from .shared import SharedIndex

__all__ = ["CALLER_STACKLEVEL", "IndexCache", "TaskOutputs", "execute_tasks", "task_threads"]

#: ``stacklevel`` of a warning issued by a stage function that `audit_protocol` calls: the stage,
#: `audit_protocol`, the wrapper that accepts its former keyword names (`renamed_parameter`), then the caller.
CALLER_STACKLEVEL = 4

#: Held while the warning filters are changed (they are global to the process; tasks score on threads).
_WARNINGS_LOCK = threading.Lock()


# --------------------------------------------------------------------------- scoring
def _auroc_of(scores, y_test, confidence_level):
    from ..metrics import auroc_ci

    constant = bool(np.all(scores == scores[0]))
    if not constant:  # (no warning to silence: the filters, global to the process, are left alone by threads)
        res = auroc_ci(y_test, scores, confidence_level=confidence_level)
    else:
        with _WARNINGS_LOCK, warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedValueWarning)  # constant scores: reported by the caller
            res = auroc_ci(y_test, scores, confidence_level=confidence_level)
    return (res.auroc, res.ci_low, res.ci_high, res.p_value, constant, res.log10_p_value)


def _run_task(X, train_idx, test_idx, y_test, detector, seed, confidence_level, where=""):
    """Fit a fresh copy of ``detector`` on X[train_idx], score X[test_idx], return AUROC + CI."""
    det = detector.fresh(seed)
    for step, call in (
        ("fit", lambda: det.fit(det.take_rows(X, train_idx))),
        ("scoring", lambda: det.score_samples(det.take_rows(X, test_idx))),
    ):
        try:
            out = call()
        except InvalidInputError as exc:
            raise InvalidInputError(f"{exc}{where}") from exc
        except Exception as exc:
            raise InvalidInputError(
                f"detector {detector.name!r} raised {type(exc).__name__} in {step}{where}: {exc}"
            ) from exc
    scores = out
    scores = check_scores(scores, name=f"scores of detector {detector.name!r}{where}")
    if scores.shape[0] != test_idx.size:
        raise InvalidInputError(
            f"detector {detector.name!r} returned {scores.shape[0]} scores for {test_idx.size} samples{where}"
        )
    return _auroc_of(scores, y_test, confidence_level)


def _neighbour_outputs(
    Xp,
    metric,
    y_idx,
    strategy,
    group,
    tasks_s,
    dets,
    backend,
    confidence_level,
    executor=None,
    seed=None,
    recalls=None,
    task_jobs=1,
    project_dim="auto",
    shared_index=None,
):
    """AUROC of every neighbour detector of ``group`` on every task of one repeat, from one neighbour pass
    of ``strategy`` (its exact searches' query blocks on ``executor`` when given; ``seed`` for approximate
    search). The measured recall of approximate lists, ``(recall, n_queries)``, is appended to ``recalls``.
    The tasks are scored on ``task_jobs`` threads (-1: one per CPU) when the pass allows it
    (``parallel_tasks``): each task reads the shared lists only, so the rows are the serial ones, bit for bit.
    ``project_dim``: the approximate backend's PCA projection (as in `auditad.neighbors.kneighbors`);
    ``shared_index``: the approximate index over every row that the passes of several draws share (`IndexCache`)."""
    kmax = max(dets[d].n_needed for d in group)
    need_train = any(isinstance(dets[d], LOFDetector) for d in group)  # LOF needs the training rows' own lists
    n_jobs = next((dets[d].n_jobs for d in group if dets[d].n_jobs is not None), None)
    tasks_s = [t for t in tasks_s if any(d in t.runnable for d in group)]
    if not tasks_s:
        return {}
    extra = {} if shared_index is None else {"shared_index": shared_index}
    lists = strategy.neighbour_pass(
        Xp,
        y_idx,
        tasks_s,
        kmax,
        need_train=need_train,
        metric=metric,
        backend=backend,
        n_jobs=n_jobs,
        seed=seed,
        executor=executor,
        recalls=recalls,
        project_dim=project_dim,
        **extra,
    )

    def score(t):  # one task: its lists, each detector's scores and AUROC
        q_i, q_d2 = lists.query_lists(t)
        q_d = to_distance(q_d2, metric)
        return [
            (d, _auroc_of(_neighbour_scores(dets[d], lists, t, q_d, q_i), t.y_test, confidence_level))
            for d in group
            if d in t.runnable
        ]

    workers = task_threads(task_jobs, len(tasks_s)) if getattr(lists, "parallel_tasks", False) else 1
    results = map_in_threads(score, tasks_s, workers)  # (numpy's sorts, gathers and sums release the GIL)
    return {(d, t.c): o for t, res in zip(tasks_s, results) for d, o in res}


def task_threads(n_jobs, n_tasks: int) -> int:
    """Threads that score ``n_tasks`` tasks for ``n_jobs`` (`auditad.execution.resolve_n_jobs`), at most one per task.

    See Also
    --------
    - `execute_tasks`: its neighbour detectors' tasks are scored on them.
    """
    return resolve_n_jobs(n_jobs, n_tasks)


def _neighbour_scores(det, lists, t, q_d, q_i) -> np.ndarray:
    """Scores of one kNN or LOF detector on task ``t`` from its test rows' lists."""
    if isinstance(det, KNNDetector):
        return det.score_from_neighbours(q_d)
    return det.score_from_neighbours(lists.lof_tables(t, q_i, det.n_needed), q_d, q_i)


# --------------------------------------------------------------------------- execution: serial
def _run_serially(a, tp, groups, generic, pass_seeds, recalls, providers):
    """Every unit of the audit in this process, as ``(r, d_i, c, s, out)`` rows in the serial order: per
    representation, the neighbour passes (one per metric/backend group and repeat), then the fits of the
    other detectors (joblib with ``n_jobs != 1``)."""
    for r, rep in enumerate(a.reps):
        yield from _serial_neighbour_rows(a, tp, r, a.reps[rep], groups, pass_seeds, recalls, providers)
        yield from _serial_fit_rows(a, tp, r, rep, generic)


def _serial_neighbour_rows(a, tp, r, X, groups, pass_seeds, recalls, providers):
    for (metric, nb_backend), group in groups.items():
        Xp = prepare_rows(X, metric)
        shared = providers(r, metric, Xp, pass_seeds[0])
        for s in range(a.repeats):
            tasks_s = [t for t in tp.tasks if t.s == s]
            outs = _neighbour_outputs(
                Xp,
                metric,
                tp.y_idx,
                a.strategy,
                group,
                tasks_s,
                a.dets,
                nb_backend,
                a.confidence_level,
                seed=pass_seeds[s],
                recalls=recalls.setdefault(r, []),
                task_jobs=a.n_jobs,
                project_dim=a.project_dim,
                shared_index=shared,
            )
            for (d_i, c), out in outs.items():
                yield r, d_i, c, s, out


#: Fits of the per-task detectors run in ``n_jobs`` processes when their tasks hold at least this many training
#: and test rows in total (about a second of fitting and scoring); below it they run here, one after another
#: (starting processes would cost more than it saves). The results are the same either way.
PROCESS_FIT_MIN_ROWS = 2_000_000

#: Process fits are sent in this many chunks of consecutive units per process (a chunk sends the training rows
#: as the protocol holds them, e.g. the repeat's pool, once for all of its tasks, and builds each task's rows
#: there: one pickled 700 000-row index per task took a third of the fits' time at 1M rows, K = 1 000).
FIT_CHUNKS_PER_PROCESS = 4


def _fit_units(X, units, confidence_level):
    """`_run_task` of each ``(training rows, test_idx, y_test, detector, seed, where)`` unit, in order (one
    process's chunk; the training rows are built here from the protocol's `TrainingRows`)."""
    return [
        _run_task(X, rows.rows(), test_idx, y_test, det, seed, confidence_level, where)
        for rows, test_idx, y_test, det, seed, where in units
    ]


def _serial_fit_rows(a, tp, r, rep, generic):
    X = a.reps[rep]
    units = [(t, d_i) for t in tp.tasks for d_i in generic if d_i in t.runnable]
    args = [
        (
            t.training_rows,
            t.test_idx,
            t.y_test,
            a.dets[d_i],
            t.seed,
            f" (representation {rep!r}, class {tp.classes[t.c].item()!r}, repeat {t.s})",
        )
        for t, d_i in units
    ]
    rows = sum(t.split.n_train + t.test_idx.size for t, _ in units)
    if a.n_jobs == 1 or len(units) <= 1 or rows < PROCESS_FIT_MIN_ROWS:  # (small work: no process to start)
        outputs = (_fit_units(X, [x], a.confidence_level)[0] for x in args)  # (one task's rows at a time)
    else:
        from joblib import Parallel, delayed

        n_jobs = resolve_n_jobs(a.n_jobs)
        size = -(-len(args) // min(len(args), FIT_CHUNKS_PER_PROCESS * n_jobs))
        chunks = Parallel(n_jobs=n_jobs, return_as="generator")(
            delayed(_fit_units)(X, args[i : i + size], a.confidence_level) for i in range(0, len(args), size)
        )
        outputs = (out for chunk in chunks for out in chunk)
    for (t, d_i), out in zip(units, outputs):
        yield r, d_i, t.c, t.s, out


# --------------------------------------------------------------------------- execution: executor (Dask)
def _protocol_unit(
    unit,
    *,
    reps,
    y_idx,
    strategy,
    groups,
    tasks,
    dets,
    confidence_level,
    classes,
    executor=None,
    pass_seeds=None,
    recalls=None,
    project_dim="auto",
    providers=None,
):
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
            Xp = prepare_rows(reps[list(reps)[r]], metric)
            shared = None if providers is None else providers(r, metric, Xp, pass_seeds[0])
            outs = _neighbour_outputs(
                Xp,
                metric,
                y_idx,
                strategy,
                group,
                [t for t in tasks if t.s == s],
                dets,
                key[1],
                confidence_level,
                executor=executor,
                seed=pass_seeds[s],
                recalls=recalls.setdefault(r, []),
                project_dim=project_dim,
                shared_index=shared,
            )
            rows = [(r, d_i, c, s, out) for (d_i, c), out in outs.items()]
        else:
            _, r, t_i, d_i = unit
            t = tasks[t_i]
            rep = list(reps)[r]
            out = _run_task(
                reps[rep],
                t.train_idx,
                t.test_idx,
                t.y_test,
                dets[d_i],
                t.seed,
                confidence_level,
                f" (representation {rep!r}, class {classes[t.c].item()!r}, repeat {t.s})",
            )
            rows = [(r, d_i, t.c, t.s, out)]
    return rows, [(w.category, str(w.message)) for w in caught]


def _run_on_executor(a, tp, groups, generic, pass_seeds, recalls, providers):
    """Every unit of the audit, in the serial order; the (r, d_i, c, s, out) rows in that order.

    The fits of the generic detectors are tasks on ``a.executor``, started first at a low priority; a
    neighbour pass (one per representation, neighbour group and repeat, a large search that would run on one
    single-threaded worker) then runs here with its exact searches' query blocks spread over the executor
    ahead of the fits still waiting.
    """
    executor, reps, tasks = a.executor, a.reps, list(tp.tasks)
    units, nb_units = [], []
    for r in range(len(reps)):
        nb_units += [("nb", r, key, s) for key in groups for s in range(a.repeats)]
        units += [("gen", r, t_i, d_i) for t_i, t in enumerate(tasks) for d_i in generic if d_i in t.runnable]
    common = dict(
        y_idx=tp.y_idx,
        strategy=a.strategy,
        groups=groups,
        dets=a.dets,
        confidence_level=a.confidence_level,
        classes=tp.classes,
    )
    # the fits start first, at low priority: the workers run them while this process computes (re-ranking,
    # LOF tables, AUROCs) and the passes' own query blocks overtake them
    batch = executor.submit_ordered(
        _protocol_unit, units, priority=-1, reps=executor.share(reps), tasks=executor.share(tasks), **common
    )
    try:
        nb_parts = {
            u: _protocol_unit(
                u,
                reps=reps,
                tasks=tasks,
                executor=executor,
                pass_seeds=pass_seeds,
                recalls=recalls,
                project_dim=a.project_dim,
                providers=providers,
                **common,
            )
            for u in nb_units
        }
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
    for r in range(len(reps)):
        order += [u for u in nb_units if u[1] == r] + [u for u in units if u[1] == r]
    rows = []
    for part, caught in (nb_parts[u] if u[0] == "nb" else gen_parts[u] for u in order):
        for category, message in caught:  # stacklevel: this function, execute_tasks, audit_protocol, ...
            warnings.warn(message, category, stacklevel=CALLER_STACKLEVEL + 1)
        rows += part
    return rows


# --------------------------------------------------------------------------- the stage: outputs of every task
class TaskOutputs:
    """Per-task AUROC, DeLong interval and p-values, indexed ``[representation, detector, class, repeat]``.

    Built from the checked arguments ``a`` and the task plan ``tp`` of
    [`audit_protocol`][auditad.protocol.audit_protocol]; filled row by row by `store`.

    See Also
    --------
    - `execute_tasks`: fills it.
    """

    def __init__(self, a, tp):
        shape = (len(a.reps), len(a.dets), tp.classes.size, a.repeats)
        self.auroc, self.ci_low, self.ci_high, self.p_value, self.log10_p = (np.full(shape, np.nan) for _ in range(5))
        self.constant: list[tuple] = []  # (representation, detector, class, repeat) of constant scores
        self.recalls: dict[int, list] = {}  # representation -> [(recall, n_queries)] of its approximate passes
        self._names = (a.rep_names, a.det_names, tp.classes)

    def store(self, r, d_i, c, s, out) -> None:
        """Store the ``(auroc, ci_low, ci_high, p_value, constant, log10_p)`` of one task."""
        at = (r, d_i, c, s)
        self.auroc[at], self.ci_low[at], self.ci_high[at], self.p_value[at] = out[:4]
        self.log10_p[at] = out[5]
        if out[4]:
            rep_names, det_names, classes = self._names
            self.constant.append((rep_names[r], det_names[d_i], classes[c].item(), s))


class IndexCache:
    """The `SharedIndex` of the (representation, metric) whose passes run now, kept across calls of
    `execute_tasks` (the audit's own draw and the rounds of the confirmation) and built once per key: one at a time
    (the passes of one key run one after another), so that a multi-representation audit holds one index, not one
    per representation. An audit also hands it from its leakage stage to its protocol stage
    (`auditad.audit.sections.run_leakage`): the leakage's self search reads the same index's lists."""

    def __init__(self):
        self._key, self._index = None, None

    def provider(self, key, Xp, seed, project_dim, degree=None, n_jobs=1, executor=None):
        """``shared_index(k)`` for the passes of ``key`` on the prepared rows ``Xp``: the index, built at the
        first call with graph degree ``degree`` (default: that call's ``k``), ``seed`` and ``project_dim``; its
        wider queries on ``n_jobs`` forked processes, or on one when a Dask ``executor`` runs in this process.

        ``key`` names the rows, ``(representation name, metric)``: the callers vouch that one key means the same
        prepared rows (rows rescaled for their magnitude are never passed, `_providers`)."""

        def get(k):
            if self._key != key:
                self._key, self._index = None, None  # (the previous key's index is freed before the build)
                jobs = 1 if distributed(executor) else n_jobs
                self._index = SharedIndex(Xp, degree or k, random_state=seed, project_dim=project_dim, n_jobs=jobs)
                self._key = key
            return self._index

        return get


def _providers(a, index_cache, original):
    """``providers(r, metric, Xp, seed)``: the ``shared_index`` of representation ``r``'s passes from
    ``index_cache`` (keyed by the representation's name and the metric), or None without a cache or for rows
    rescaled for their magnitude (not the rows an index of the same name was built on): each pass then builds an
    index over its own pool."""
    names = a.rep_names

    def providers(r, metric, Xp, seed):
        if index_cache is None or a.reps[names[r]] is not original[names[r]]:
            return None
        return index_cache.provider((names[r], metric), Xp, seed, a.project_dim, n_jobs=a.n_jobs, executor=a.executor)

    return providers


def _neighbour_groups(dets) -> tuple[dict, list]:
    """Neighbour detectors grouped by the lists they can share (metric, backend), and the other detectors."""
    groups: dict[tuple, list[int]] = {}
    for d_i, det in enumerate(dets):
        if isinstance(det, NeighbourDetector):
            groups.setdefault(det.neighbour_key(), []).append(d_i)
    generic = [d_i for d_i, det in enumerate(dets) if not isinstance(det, NeighbourDetector)]
    return groups, generic


def execute_tasks(a, tp, *, index_cache: "IndexCache | None" = None) -> TaskOutputs:
    """Run every task: neighbour detectors from one pass per (representation, repeat, metric/backend), the
    others fitted per task, in this process or on ``a.executor`` (the same rows in the same order).

    ``index_cache`` (an `IndexCache`): the approximate passes of all repeats of one (representation,
    metric/backend) share one index over every row (`auditad.protocol.shared.SharedIndex`, built at the first
    pass that needs it, from that call's first repeat seed, and kept in the cache for later calls) instead of one
    index over each repeat's pool: the confirmatory draws, whose five pools would otherwise cost five index builds
    over most of the rows.

    ``a`` are the checked arguments and ``tp`` the task plan of [`audit_protocol`][auditad.protocol.audit_protocol]
    (stages 1 and 2 of `auditad.protocol.runner`).

    See Also
    --------
    - `TaskOutputs`: what it returns.
    """
    outputs = TaskOutputs(a, tp)
    # rows of extreme magnitude (beyond 2**±100) times a power of two, exactly: the same AUROCs, no overflow
    original = a.reps
    a = replace(a, reps={name: rescaled(X) for name, X in a.reps.items()})
    providers = _providers(a, index_cache, original)
    groups, generic = _neighbour_groups(a.dets)
    n_units = sum(len(t.runnable) for t in tp.tasks) * len(a.reps)
    seeds = tp.plan.repeat_seeds  # approximate neighbour passes: one seed per repeat (index construction, recall)
    pass_seeds = [int(np.random.default_rng([int(seeds[s]), 2]).integers(0, 2**31 - 1)) for s in range(a.repeats)]
    run = _run_on_executor if distributed(a.executor) else _run_serially
    with Progress(n_units, "audit_protocol", enabled=bool(a.progress)) as bar:
        for r, d_i, c, s, out in run(a, tp, groups, generic, pass_seeds, outputs.recalls, providers):
            outputs.store(r, d_i, c, s, out)
            bar.update()
    if outputs.constant:
        warnings.warn(
            f"audit_protocol: constant scores in {len(outputs.constant)} task(s) (e.g. representation, "
            f"detector, class, repeat = {outputs.constant[0]}); their AUROC is 0.5 by the ties-count-½ "
            "convention and the interval is nan",
            UndefinedValueWarning,
            stacklevel=CALLER_STACKLEVEL,
        )
    return outputs
