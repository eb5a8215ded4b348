r"""The runner of anomaly-free model selection: scores, pseudo-anomalies and estimators of every (task, candidate).

For every task and candidate, [`run_selection`][auditad.selection.run_selection] computes the leave-one-out
inlier scores of the reference set, the scores of the pseudo-anomalies of
every probe and the estimators (`auditad.selection.estimators`), the
true AUC when the task has labelled test data, and then judges every
estimator across the tasks (`auditad.selection.judgement`), as in
K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection Performance
from Embedding-Space Geometry?", Sec. 5.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from .._rng import check_random_state
from .._validation import check_choice, check_int, check_n_jobs
from ..execution import resolve_n_jobs
from .bounds import auc_bound
from ..errors import InvalidInputError, SkippedItemWarning
from .pseudo import (
    CROSS_KINDS,
    GENERATED_KINDS,
    SEQUENCE_KINDS,
    PseudoAnomalies,
    cross_probe,
    diverse_probe,
    make_probe,
)
from .scoring import KNNScorer, pool_sequences
from .choices import BACKENDS, DEFAULT_ESTIMATORS, ESTIMATOR_KINDS, POOL_BY, PROBE_KINDS
from .data import Candidate, SelectionBenchmark, TaskEmbeddings
from .estimators import estimate_candidate, parse_estimator_label
from .judgement import judge_outputs
from .result import SelectionResult

__all__ = ["run_selection"]

_PROBE_CODE = {k: i for i, k in enumerate(PROBE_KINDS)}


def run_selection(
    benchmark: SelectionBenchmark,
    *,
    estimators=None,
    probes=None,
    pool_by: str | None = None,
    lam=None,
    n_boot: int = 2000,
    backend: str = "exact",
    recall_sample: int = 0,
    npd_eps: float = 0.0,
    n_jobs: int = 1,
    progress: bool = False,
    random_state=0,
) -> SelectionResult:
    r"""Run anomaly-free model selection over a benchmark and judge every estimator.

    For each task and candidate: leave-one-out inlier scores of the
    reference, scores of the pseudo-anomalies of every probe, the estimators

    \[
    \frac{1}{\mathrm{Var}(z_{in})},\qquad
    \frac{\mu_{\Delta,p}^2}{\mathrm{Var}(z_p) + \mathrm{Var}(z_{in}) + \mu_{\Delta,p}^2},\qquad
    \mathrm{AUROC}(z_{in}\ \text{vs}\ z_p), \dots
    \]

    (see [`estimate_candidate`][auditad.selection.estimate_candidate]) and, when test labels
    exist, the true AUC and the Eq. 1 bound of the true test scores. Then per
    selection unit \(u\): \(\rho_{rank}\), \(A_{pair}\) and the regret
    \(R = \max_c \mathrm{AUC}_c - \mathrm{AUC}_{\text{selected}}\); the
    Oracle, Random and Fixed baselines; paired bootstrap CIs of differences
    in selected AUC.

    Parameters
    ----------
    benchmark : SelectionBenchmark
        In memory (see [`auditad.manifest.load_manifest`][auditad.manifest.load_manifest] for files,
        [`auditad.synthetic.digits_benchmark`][auditad.synthetic.digits_benchmark] and
        [`auditad.synthetic.make_selection_benchmark`][auditad.synthetic.make_selection_benchmark] for examples).
    estimators : list of str, optional
        Kinds (`ESTIMATOR_KINDS`: ``"inlier_variance"``,
        ``"auc_bound"``, ``"robust_bound"``, ``"pseudo_auc"``, ``"npd"``; every
        kind but the first is crossed with every probe) or explicit labels
        such as ``"pseudo_auc[diverse]"``. Default
        (`DEFAULT_ESTIMATORS`): inlier_variance,
        auc_bound, pseudo_auc.
    probes : list of str, optional
        Pseudo-anomaly kinds (`PROBE_KINDS`). Default:
        every kind whose metadata exists somewhere in the benchmark; sequence
        and element only when every candidate is a pooled sequence candidate.
    pool_by : str, optional
        Candidate attribute (`POOL_BY`: scoring,
        family, embedding, pooling, metric, ldn_form) that splits the
        candidates into separate selection pools (``"scoring"`` reproduces Table 1, where kNN and LDN candidates
        are selected among themselves). None: all candidates compete.
    lam : None, "empirical", float or mapping
        Domain weighting of the inlier moments in the bound estimators
        (Eqs. 4–6, needs reference ``domain`` metadata).
    n_boot : int, default 2000
        Bootstrap replicates (0 = no bootstrap).
    backend : {"exact", "auto", "approximate"}, default "exact"
        kNN backend of the scores (`BACKENDS`,
        passed to [`auditad.neighbors.kneighbors`][auditad.neighbors.kneighbors]). Per-task reference
        sets are usually small, where exact search is fastest and
        deterministic; ``"auto"`` picks the approximate search (pynndescent)
        only for searches whose cost exceeds
        `auditad.neighbors.AUTO_EXACT_MAX_COST`. The reference-form
        LDN takes its scales \(\rho_K\) from this search; its ratio
        search is always exact.
    recall_sample : int, default 0
        With the approximate backend, the number of queries per kNN search
        whose neighbours are checked against exact search; the smallest
        recall of a (task, candidate) is reported in the column
        ``knn_recall`` of [`SelectionResult.candidates_frame`][auditad.selection.SelectionResult.candidates_frame] (the
        column exists only when ``recall_sample > 0``).
    npd_eps : float, default 0
        ε of NPD.
    n_jobs : int, default 1
        joblib workers over (task, candidate) units; -1 = one per CPU, -2 all but one, ... (as scikit-learn). The
        result does not depend on it. (The command line's ``auditad select --n-jobs`` defaults to -1.)
    progress : bool, default False
        Draw a progress bar on stderr.
    random_state : None, int or Generator, default 0
        Seeds the probes (per task and probe kind, shared by all candidates
        of a task) and the bootstrap. The same seed gives identical tables.

    Returns
    -------
    SelectionResult

    Raises
    ------
    auditad.errors.InvalidInputError
        ``benchmark`` not a [`SelectionBenchmark`][auditad.selection.SelectionBenchmark]; an
        unknown estimator, probe, ``pool_by`` or backend; ``n_boot``,
        ``recall_sample`` < 0 or ``n_jobs`` < 1; ``lam`` without reference
        ``domain`` metadata.

    Warns
    -----
    auditad.errors.SkippedItemWarning
        A probe with no eligible sample in some tasks (once per probe kind;
        listed in ``SelectionResult.skipped``).

    See Also
    --------
    - [`auditad.selection.SelectionResult`][auditad.selection.SelectionResult]: the tables,
      [`summary_frame`][auditad.selection.SelectionResult.summary_frame]
      and [`best`][auditad.selection.SelectionResult.best].
    - [`auditad.selection.estimate_candidate`][auditad.selection.estimate_candidate]: the estimators of one candidate.
    - [`auditad.selection.rank_correlation`][auditad.selection.rank_correlation]
    - [`auditad.selection.pairwise_accuracy`][auditad.selection.pairwise_accuracy]
    - [`auditad.selection.regret`][auditad.selection.regret]
    - [`auditad.manifest.load_manifest`][auditad.manifest.load_manifest]: a benchmark from files.

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 4, 5.3 and Table 1.

    Examples
    --------
    >>> from auditad.synthetic import make_selection_benchmark
    >>> bench = make_selection_benchmark(n_tasks=4, n_source=30, n_target=3, n_test=20, random_state=0)
    >>> res = run_selection(bench, estimators=["pseudo_auc[feature]"], n_boot=0)
    >>> list(res.summary_frame().index)
    ['oracle', 'random', 'fixed', 'pseudo_auc[feature]']
    """
    if not isinstance(benchmark, SelectionBenchmark):
        raise InvalidInputError(f"benchmark must be a SelectionBenchmark, got {type(benchmark).__name__}")
    if pool_by is not None:
        check_choice(pool_by, POOL_BY, name="pool_by")
    n_boot = check_int(n_boot, name="n_boot", low=0)
    n_jobs = resolve_n_jobs(check_n_jobs(n_jobs))
    check_choice(backend, BACKENDS, name="backend")
    recall_sample = check_int(recall_sample, name="recall_sample", low=0)
    labels, probe_list, dropped = _resolve_estimators(estimators, probes, benchmark)
    rng = check_random_state(random_state)
    base_seed = int(rng.integers(0, 2**62))
    boot_rng = np.random.default_rng([base_seed, 2**31])
    t0 = time.perf_counter()

    tasks = benchmark.tasks
    cross_by_task, skipped = _task_cross_probes(benchmark, probe_list)
    cfg = dict(
        backend=backend,
        lam=lam,
        npd_eps=float(npd_eps),
        knn_jobs=1 if n_jobs > 1 else None,
        recall_sample=recall_sample,
    )
    jobs = _unit_jobs(benchmark, cross_by_task, probe_list, base_seed, cfg)
    outputs = _run_units(jobs, n_jobs, progress)
    _warn_skipped(skipped)

    result = judge_outputs(benchmark, outputs, labels, probe_list, pool_by, n_boot, boot_rng)
    config = dict(
        n_tasks=len(tasks),
        n_candidates=len(benchmark.candidates),
        estimators=labels,
        probes=probe_list,
        dropped_probes=dropped,
        pool_by=pool_by,
        lam=lam,
        n_boot=n_boot,
        backend=backend,
        recall_sample=recall_sample,
        npd_eps=cfg["npd_eps"],
        random_state=random_state if isinstance(random_state, (int, type(None))) else "Generator",
        selectors=result["selectors"],
        n_units=result["n_units"],
        candidates=[c.to_dict() for c in benchmark.candidates],
        info=dict(benchmark.info),
    )
    return SelectionResult(
        benchmark=benchmark.name,
        config=config,
        candidates=result["candidates"],
        probes=result["probes"],
        estimates=result["estimates"],
        units=result["units"],
        bootstrap=result["bootstrap"],
        skipped=skipped,
        elapsed_seconds=time.perf_counter() - t0,
    )


def _task_cross_probes(benchmark: SelectionBenchmark, probe_list: list) -> tuple[list[dict], list[dict]]:
    """The cross probes of every task (metadata only, computed once per task) and the skipped probes."""
    # task-level cross probes (metadata only), computed once per task
    tasks = benchmark.tasks
    present = {col for t in tasks for col in (*t.reference_meta, *t.auxiliary_meta, *(t.home or {}))}
    cross_by_task, skipped = [], []
    for t in tasks:
        n_ref = len(next(iter(t.embeddings.values())).reference)
        aux = next(iter(t.embeddings.values())).auxiliary
        n_aux = 0 if aux is None else len(aux)
        cross = {
            ck: cross_probe(
                ck,
                t.reference_meta,
                auxiliary_meta=t.auxiliary_meta,
                n_reference=n_ref,
                n_auxiliary=n_aux,
                home=t.home,
                warn=False,
            )
            for ck in CROSS_KINDS
        }
        cross_by_task.append(cross)
        for ck, p in cross.items():
            # a part of Diverse whose column exists nowhere in the benchmark is not a skip, just absent
            if p.skipped and (ck in probe_list or ("diverse" in probe_list and CROSS_KINDS[ck] in present)):
                skipped.append(
                    dict(task=t.name, probe=ck, reason=p.reason, used_by=ck if ck in probe_list else "diverse")
                )
    for kind in probe_list:
        if kind in SEQUENCE_KINDS:
            bad = [c.name for c in benchmark.candidates if c.pooling is None]
            if bad:
                skipped.append(
                    dict(task="*", probe=kind, reason=f"candidates without sequence embeddings: {bad}", used_by=kind)
                )
    return cross_by_task, skipped


def _unit_jobs(
    benchmark: SelectionBenchmark, cross_by_task: list, probe_list: list, base_seed: int, cfg: dict
) -> list[tuple]:
    """The arguments of `_evaluate_unit` for every (task, candidate)."""
    lam = cfg["lam"]
    jobs = []
    for ti, t in enumerate(benchmark.tasks):
        dom = t.reference_meta.get("domain")
        if lam is not None and dom is None:
            raise InvalidInputError(
                f"lam={lam!r} needs 'domain' metadata of the reference set; task {t.name!r} has none"
            )
        for c in benchmark.candidates:
            jobs.append(
                (
                    ti,
                    t.name,
                    t.test_labels,
                    dom,
                    t.embeddings[c.embedding],
                    c,
                    cross_by_task[ti],
                    probe_list,
                    base_seed,
                    cfg,
                )
            )
    return jobs


def _run_units(jobs: list, n_jobs: int, progress: bool) -> list[dict]:
    """`_evaluate_unit` of every job, in order (joblib workers when ``n_jobs > 1``), with a progress bar."""
    from .._progress import Progress

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
    return outputs


def _warn_skipped(skipped: list[dict]) -> None:
    """One warning per skipped probe kind, pointing at the caller of `run_selection`."""
    for kind in sorted({s["probe"] for s in skipped}):
        which = [s["task"] for s in skipped if s["probe"] == kind]
        reason = next(s["reason"] for s in skipped if s["probe"] == kind)
        warnings.warn(
            f"pseudo-anomaly probe {kind!r} skipped for {len(which)} task(s) ({', '.join(which[:5])}"
            f"{', ...' if len(which) > 5 else ''}): {reason}",
            SkippedItemWarning,
            stacklevel=3,
        )


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
            if not any(
                column in t.reference_meta or column in t.auxiliary_meta or column in (t.home or {})
                for t in bench.tasks
            ):
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
            kind, probe = parse_estimator_label(est)
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


def _evaluate_unit(
    t_idx,
    task_name,
    labels,
    ref_meta_domain,
    emb: TaskEmbeddings,
    cand: Candidate,
    cross: dict,
    probes: list,
    base_seed: int,
    cfg: dict,
) -> dict:
    """Scores and estimators of one (task, candidate): runs in a worker."""
    R = _pool(emb.reference, cand)
    scorer = KNNScorer(
        scoring=cand.scoring,
        k=cand.k,
        K=cand.K,
        ldn_form=cand.ldn_form,
        metric=cand.metric,
        backend=cfg["backend"],
        n_jobs=cfg["knn_jobs"],
        recall_sample=cfg["recall_sample"],
        random_state=base_seed,
    ).fit(R)
    inl = scorer.score_reference()
    z_in = inl.scores
    seq = emb.reference if cand.pooling is not None else None
    made = _unit_probes(R, seq, cross, probes, base_seed, t_idx)
    q, part, aux_rows = _query_scores(scorer, emb, cand, made, labels)
    pseudo = _pseudo_scores(probes, made, part, z_in, aux_rows)
    est = estimate_candidate(
        z_in,
        pseudo,
        domain_in=ref_meta_domain if cfg["lam"] is not None else None,
        lam=cfg["lam"],
        npd_eps=cfg["npd_eps"],
    )
    row = dict(
        task=task_name,
        candidate=cand.name,
        n_reference=int(R.shape[0]),
        n_floored=inl.n_floored,
        inlier_mean=est.inlier_mean,
        inlier_var=est.inlier_var,
        backend=inl.backend,
    )
    if cfg["recall_sample"]:
        measured = [r.recall for r in (inl, q) if r is not None and r.recall is not None]
        row["knn_recall"] = min(measured) if measured else None
    if labels is not None:
        zt = part["test"]
        b = auc_bound(zt[labels == 0], zt[labels == 1])
        row.update(
            true_auc=b.empirical_auc,
            true_mu_delta=b.mu_delta,
            true_bound=b.bound,
            true_robust_bound=b.robust_bound,
            n_test=int(labels.size),
        )
    else:
        row.update(true_auc=np.nan, true_mu_delta=np.nan, true_bound=np.nan, true_robust_bound=np.nan, n_test=0)
    probe_rows = []
    for prow in est.probes:
        p = made[prow["probe"]]
        probe_rows.append(
            dict(prow, task=task_name, candidate=cand.name, skipped=p.skipped, reason=p.reason, source=p.source)
        )
    return {"candidate": row, "probes": probe_rows, "inlier_variance": est.inlier_variance}


def _unit_probes(R, seq, cross: dict, probes: list, base_seed: int, t_idx: int) -> dict[str, PseudoAnomalies]:
    """The probes of one (task, candidate): generated ones per candidate (seeded per task and kind), cross ones
    shared by the task, Diverse concatenated from them."""
    # probes: generated ones per candidate (seeded per task and kind), cross ones shared by the task
    made: dict[str, PseudoAnomalies] = {}
    for kind in probes:
        if kind in GENERATED_KINDS or (kind == "diverse" and "feature" not in made):
            gk = "feature" if kind == "diverse" else kind
            made[gk] = make_probe(gk, R, sequences=seq, random_state=_probe_seed(base_seed, t_idx, gk), warn=False)
    for kind in probes:
        if kind in CROSS_KINDS or kind == "diverse":
            for ck in CROSS_KINDS if kind == "diverse" else (kind,):
                made.setdefault(ck, cross[ck])
    if "diverse" in probes:
        made["diverse"] = diverse_probe(
            [made["feature"], cross["cross_domain"], cross["cross_class"], cross["cross_attribute"]]
        )
    return made


def _query_scores(scorer, emb: TaskEmbeddings, cand: Candidate, made: dict, labels) -> tuple:
    """One kNN search for every query of a unit: ``(score result or None, scores per block, auxiliary rows)``.

    The blocks are the test set (when labelled), the auxiliary rows some probe uses and the generated probes.
    """
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
    return q, part, aux_rows


def _pseudo_scores(probes: list, made: dict, part: dict, z_in, aux_rows) -> dict:
    """Scores of every probe's pseudo-anomalies (None for a skipped probe): generated, reference (leave-one-out)
    and auxiliary rows, in that order."""
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
    return pseudo
