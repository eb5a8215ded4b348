r"""Judging estimators across tasks: Spearman's \(\rho_{rank}\), pairwise accuracy, regret, baselines, bootstrap.

Per *selection unit* (a task, or a task × a candidate pool) with known true
AUCs \(a\) of the candidates and estimates \(e\):

* [`rank_correlation`][auditad.selection.rank_correlation]: Spearman's \(\rho_{rank}\) (0 when either is constant);
* [`pairwise_accuracy`][auditad.selection.pairwise_accuracy]: \(A_{pair}\), the share of candidate pairs with
  different true AUC that the estimator orders the same way (ties ½);
* [`regret`][auditad.selection.regret]: \(R = \mathrm{AUC}_{best} - \mathrm{AUC}_{selected}\).

Baselines: Oracle (R = 0), Random selection (expected R = best − mean, ρ = 0,
A_pair = ½) and Fixed selection (per group of tasks, the candidate with the
best mean development AUC, applied to the evaluation tasks). Differences in
selected AUC between selectors get paired bootstrap 95 % CIs over units.
All from K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
Performance from Embedding-Space Geometry?", Sec. 5.3.
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidInputError
from .choices import BASELINES, PROBE_ESTIMATORS
from .estimators import parse_estimator_label

__all__ = ["rank_correlation", "pairwise_accuracy", "regret"]


def _clean(estimates, aucs):
    e = np.asarray(estimates, dtype=np.float64)
    a = np.asarray(aucs, dtype=np.float64)
    if e.shape != a.shape or e.ndim != 1:
        raise InvalidInputError(f"estimates and aucs must be 1-D of the same length, got {e.shape} and {a.shape}")
    if not np.all(np.isfinite(a)):
        raise InvalidInputError("aucs must be finite")
    return np.where(np.isnan(e), -np.inf, e), a


def rank_correlation(estimates, aucs) -> float:
    r"""Spearman's \(\rho_{rank}\) between estimates and true AUCs.

    \[
    \rho_{rank} = \frac{\sum_i (r^e_i - \bar r^e)(r^a_i - \bar r^a)}
    {\sqrt{\sum_i (r^e_i - \bar r^e)^2 \sum_i (r^a_i - \bar r^a)^2}}
    \]

    with \(r^e, r^a\) the average ranks (ties share their mean rank);
    0 when either vector is constant (the paper's convention for constant
    predictions). nan estimates rank last (tied with each other).

    Parameters
    ----------
    estimates : array-like of shape (n,)
        Estimator value per candidate (larger = predicted better); nan ranks last.
    aucs : array-like of shape (n,)
        True AUC per candidate (finite).

    Returns
    -------
    float
        In [-1, 1].

    Raises
    ------
    auditad.errors.InvalidInputError
        Arrays that are not 1-D of the same length, or non-finite ``aucs``.

    See Also
    --------
    - [`pairwise_accuracy`][auditad.selection.pairwise_accuracy]
    - [`regret`][auditad.selection.regret]
    - `scipy.stats.spearmanr`

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 5.3.

    Examples
    --------
    >>> rank_correlation([1, 2, 3], [0.6, 0.7, 0.8]), rank_correlation([1, 1, 1], [0.6, 0.7, 0.8])
    (1.0, 0.0)
    >>> from scipy.stats import spearmanr
    >>> e, a = [0.3, 0.1, 0.4, 0.2], [0.9, 0.7, 0.8, 0.6]
    >>> round(rank_correlation(e, a), 6), round(float(spearmanr(e, a).statistic), 6)
    (0.6, 0.6)
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
    r"""Pairwise ranking accuracy \(A_{pair}\).

    \[
    A_{pair} = \frac{1}{|P|}\sum_{(i,j)\in P} \Big(\mathbb 1[\operatorname{sign}(e_i - e_j)
    = \operatorname{sign}(a_i - a_j)] + \tfrac12\,\mathbb 1[e_i = e_j]\Big),
    \quad P = \{i<j: a_i \ne a_j\}
    \]

    nan estimates rank last (tied with each other).

    Parameters
    ----------
    estimates : array-like of shape (n,)
        Estimator value per candidate (larger = predicted better); nan ranks last.
    aucs : array-like of shape (n,)
        True AUC per candidate (finite).

    Returns
    -------
    float
        In [0, 1]; nan when all true AUCs are equal (no pair to order).

    Raises
    ------
    auditad.errors.InvalidInputError
        Arrays that are not 1-D of the same length, or non-finite ``aucs``.

    See Also
    --------
    - [`rank_correlation`][auditad.selection.rank_correlation]
    - [`regret`][auditad.selection.regret]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 5.3.

    Examples
    --------
    >>> round(pairwise_accuracy([3, 2, 1], [0.9, 0.8, 0.85]), 6)
    0.666667
    >>> pairwise_accuracy([1, 1], [0.6, 0.7])   # a tie counts one half
    0.5
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
    r"""Regret of selecting the candidate with the largest estimate.

    \[
    R = \max_i a_i - \frac{1}{|T|}\sum_{i\in T} a_i,\qquad T = \arg\max_i e_i
    \]

    Ties for the largest estimate select uniformly among the tied candidates
    (their mean AUC is the expected selected AUC). nan estimates are never
    selected unless all are nan.

    Parameters
    ----------
    estimates : array-like of shape (n,)
        Estimator value per candidate (larger = predicted better); nan ranks last.
    aucs : array-like of shape (n,)
        True AUC per candidate (finite).

    Returns
    -------
    float
        In [0, 1]; nan when every estimate is nan.

    Raises
    ------
    auditad.errors.InvalidInputError
        Arrays that are not 1-D of the same length, or non-finite ``aucs``.

    See Also
    --------
    - [`rank_correlation`][auditad.selection.rank_correlation]
    - [`pairwise_accuracy`][auditad.selection.pairwise_accuracy]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 5.3.

    Examples
    --------
    >>> round(regret([0.1, 0.9, 0.5], [0.8, 0.7, 0.9]), 6), round(regret([1, 1, 0], [0.8, 0.6, 0.9]), 6)
    (0.2, 0.2)
    """
    e, a = _clean(estimates, aucs)
    if np.all(np.isneginf(e)):
        return float("nan")
    return float(a.max() - _selected_auc(e, a))


def judge_outputs(bench, outputs, labels, probe_list, pool_by, n_boot, boot_rng) -> dict:
    """Assemble the tables of a run, judge estimators and baselines per selection unit, bootstrap differences.

    Shared internal step of [`auditad.selection.run_selection`][auditad.selection.run_selection]: ``outputs``
    are the per-(task, candidate) dicts of its workers. Returns the rows of
    [`auditad.selection.SelectionResult`][auditad.selection.SelectionResult] (``candidates``, ``probes``,
    ``estimates``, ``units``, ``bootstrap``) plus ``selectors`` and ``n_units``.
    """
    tasks = {t.name: t for t in bench.tasks}
    cand_rows, probe_rows, est_rows, values = _output_rows(bench, outputs, labels, pool_by)

    selectors = ["oracle", "random"]
    has_fixed = any(t.split == "evaluation" for t in bench.tasks) and any(t.split == "development" for t in bench.tasks)
    if has_fixed:
        selectors.append("fixed")
    selectors += labels

    # selection units: (task, pool) with truth
    by_unit: dict[tuple, list[str]] = {}
    for r in cand_rows:
        if np.isfinite(r["true_auc"]):
            by_unit.setdefault((r["task"], r["pool"]), []).append(r["candidate"])
    auc_of = {(r["task"], r["candidate"]): r["true_auc"] for r in cand_rows}
    fixed_choice = _fixed_choices(by_unit, tasks, auc_of) if has_fixed else {}

    units = []
    for (tn, pool), names in by_unit.items():
        t = tasks[tn]
        a = np.array([auc_of[(tn, n)] for n in names])
        base = dict(
            task=tn,
            split=t.split,
            group=t.group,
            pool=pool,
            n_candidates=len(names),
            best_auc=float(a.max()),
            best_candidate=names[int(np.argmax(a))],
        )
        for sel in selectors:
            r = _selector_row(sel, base, t, pool, names, a, auc_of, values, fixed_choice)
            if r is not None:
                units.append(r)

    boot = paired_bootstrap(units, selectors, n_boot, boot_rng) if n_boot else []
    return dict(
        candidates=cand_rows,
        probes=probe_rows,
        estimates=est_rows,
        units=units,
        bootstrap=boot,
        selectors=selectors,
        n_units=len(by_unit),
    )


def _output_rows(bench, outputs, labels, pool_by) -> tuple[list, list, list, dict]:
    """The candidate, probe and estimate rows of the workers' outputs, and the estimator values per
    (task, candidate)."""
    tasks = {t.name: t for t in bench.tasks}
    cands = {c.name: c for c in bench.candidates}
    cand_rows, probe_rows, est_rows = [], [], []
    values = {}  # (task, candidate) -> {label: value}
    for out in outputs:
        row = out["candidate"]
        t, c = tasks[row["task"]], cands[row["candidate"]]
        info = dict(
            task=t.name,
            split=t.split,
            group=t.group,
            pool=_pool_value(c, pool_by),
            candidate=c.name,
            embedding=c.embedding,
            family=c.family,
            pooling=c.pooling,
            scoring=c.scoring,
        )
        cand_rows.append({**info, **{k: v for k, v in row.items() if k not in ("task", "candidate")}})
        vals = {"inlier_variance": out["inlier_variance"]}
        for pr in out["probes"]:
            probe_rows.append({**info, **{k: v for k, v in pr.items() if k not in ("task", "candidate")}})
            for kind in PROBE_ESTIMATORS:
                vals[f"{kind}[{pr['probe']}]"] = pr[kind]
        values[(t.name, c.name)] = vals
        for lab in labels:
            kind, probe = parse_estimator_label(lab)
            est_rows.append(
                {
                    **info,
                    "true_auc": row["true_auc"],
                    "estimator": lab,
                    "kind": kind,
                    "probe": probe,
                    "value": vals[lab],
                }
            )
    return cand_rows, probe_rows, est_rows, values


def _fixed_choices(by_unit: dict, tasks: dict, auc_of: dict) -> dict:
    """Fixed selection: per (group, pool), the candidate with the best mean development AUC."""
    fixed_choice = {}
    dev: dict[tuple, dict[str, list]] = {}
    for (tn, pool), names in by_unit.items():
        t = tasks[tn]
        if t.split == "development":
            for n in names:
                dev.setdefault((t.group, pool), {}).setdefault(n, []).append(auc_of[(tn, n)])
    for key, per in dev.items():
        means = {n: float(np.mean(v)) for n, v in per.items()}
        fixed_choice[key] = max(sorted(means), key=lambda n: means[n])
    return fixed_choice


def _selector_row(
    sel, base: dict, t, pool, names: list, a, auc_of: dict, values: dict, fixed_choice: dict
) -> dict | None:
    """The row of one selector in one selection unit (true AUCs ``a`` of ``names``); None when it does not
    judge the unit (Fixed outside the evaluation tasks, an estimator that is nan for every candidate)."""
    tn = base["task"]
    kind, probe = (sel, None) if sel in BASELINES else parse_estimator_label(sel)
    r = dict(base, selector=sel, kind=kind, probe=probe)
    if sel == "oracle":
        r.update(
            rho_rank=rank_correlation(a, a),
            a_pair=pairwise_accuracy(a, a),
            regret=0.0,
            selected=base["best_candidate"],
            selected_auc=float(a.max()),
        )
    elif sel == "random":
        r.update(
            rho_rank=0.0,
            a_pair=0.5 if np.unique(a).size > 1 else np.nan,
            regret=float(a.max() - a.mean()),
            selected=None,
            selected_auc=float(a.mean()),
        )
    elif sel == "fixed":
        choice = fixed_choice.get((t.group, pool)) if t.split == "evaluation" else None
        if choice is None or choice not in names:
            return None
        sa = auc_of[(tn, choice)]
        r.update(rho_rank=np.nan, a_pair=np.nan, regret=float(a.max() - sa), selected=choice, selected_auc=float(sa))
    else:
        e = np.array([values[(tn, n)][sel] for n in names], dtype=np.float64)
        if np.all(np.isnan(e)):
            return None
        ee = np.where(np.isnan(e), -np.inf, e)
        top = np.flatnonzero(ee == ee.max())
        r.update(
            rho_rank=rank_correlation(e, a),
            a_pair=pairwise_accuracy(e, a),
            regret=regret(e, a),
            selected=names[int(top[0])] if top.size == 1 else None,
            selected_auc=_selected_auc(ee, a),
            n_tied=int(top.size),
        )
    return r


def _pool_value(candidate, pool_by) -> str:
    """The selection pool of a candidate: its ``pool_by`` attribute as text ("none" for no pooling), or "all"."""
    if not pool_by:
        return "all"
    value = getattr(candidate, pool_by)
    return "none" if value is None else str(value)


def paired_bootstrap(units, selectors, n_boot, rng) -> list:
    r"""Paired bootstrap over units of differences in selected AUC (percentile 95 % CI).

    For every pair of selectors (a, b) other than the Oracle, the differences
    \(d_u = \mathrm{AUC}_a(u) - \mathrm{AUC}_b(u)\) over the units both
    judged are resampled with replacement ``n_boot`` times; the CI is the
    2.5 % and 97.5 % quantiles of the resampled means.
    """
    sel_auc: dict[str, dict] = {}
    for u in units:
        sel_auc.setdefault(u["selector"], {})[(u["task"], u["pool"])] = u["selected_auc"]
    order = [s for s in selectors if s != "oracle" and s in sel_auc]
    rows = []
    for i, sa in enumerate(order):
        for sb in order[i + 1 :]:
            keys = sorted(set(sel_auc[sa]) & set(sel_auc[sb]), key=str)
            if not keys:
                continue
            d = np.array([sel_auc[sa][k] - sel_auc[sb][k] for k in keys])
            idx = rng.integers(0, d.size, size=(n_boot, d.size))
            means = d[idx].mean(axis=1)
            lo, hi = np.quantile(means, [0.025, 0.975])
            rows.append(
                dict(
                    selector_a=sa,
                    selector_b=sb,
                    mean_diff=float(d.mean()),
                    ci_low=float(lo),
                    ci_high=float(hi),
                    n_units=int(d.size),
                    significant=bool(lo > 0 or hi < 0),
                )
            )
    return rows
