"""Stage 5 of [`audit_protocol`][auditad.protocol.audit_protocol]: the confirmatory draws of its candidate claims.

A one-draw audit's claims rest on one split and one detector seed. The candidates (the claims and the classes
nearest a threshold, within a budget: `auditad.protocol.decision`) are re-run on new splits with new detector
seeds, and decided on the draws combined.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .detectors import NeighbourDetector
from .execution_stage import IndexCache, execute_tasks

__all__ = ["confirm", "confirms"]


def confirms(a) -> bool:
    """Whether `_confirm` re-runs candidate claims (a one-draw audit with ``confirm_repeats``)."""
    return a.confirm_repeats >= 1 and a.repeats == 1


def confirm(a, result, plan, cache=None):
    """``result`` with the confirmatory draws of its candidate claims (one-draw audits with ``confirm_repeats``).

    The candidates ([`confirmation_candidates`][auditad.protocol.decision.confirmation_candidates]) of every
    detector whose AUROC(c) varies from draw to draw (`_varies_between_draws`) are re-run on ``confirm_repeats``
    new splits with new detector seeds, drawn from the audit's generator after its own plan (the same seed gives
    the same draws); then, round after round (at most 7) and within the same budget, the one-draw claims that the
    re-run classes' between-draw variance puts near a threshold
    ([`pooled_candidates`][auditad.protocol.decision.pooled_candidates]). ``cache``: the `IndexCache` of the
    audit's own draw, whose index the confirmatory draws reuse (a new one without); ``plan``: the runner's task
    planner (``plan(args, class_positions=...)``, stage 2 of `auditad.protocol.runner`)."""
    from .decision import Confirmation, confirmation_candidates, pooled_candidates

    if not confirms(a):
        return result
    eligible = [_varies_between_draws(a, det) for det in a.dets]
    settings = {**result.settings, "confirm_repeats": a.confirm_repeats}
    b = replace(a, repeats=a.confirm_repeats, leakage_k=None, progress=False)
    cand = confirmation_candidates(result, eligible, repeats=a.confirm_repeats)
    done = np.zeros_like(cand)
    cache = IndexCache() if cache is None else cache  # (one index over every row for every round's draws)
    arrays = [np.full(cand.shape + (b.repeats if cand.any() else 0,), np.nan) for _ in range(5)]
    for _ in range(8):  # the candidates, then the one-draw claims the pooled variance puts near a threshold
        if cand.any():
            arrays = [
                np.where(cand[..., None], y, x) for x, y in zip(arrays, _confirmatory_draws(b, cand, plan, cache))
            ]
            done |= cand
        conf = Confirmation(*arrays, b.repeats if done.any() else 0, int(done.sum()))
        result = replace(result, confirmation=conf, settings=settings)
        cand = pooled_candidates(result, eligible, done=done, repeats=b.repeats)
        if not cand.any():
            break
    return result


def _confirmatory_draws(b, cand: np.ndarray, plan, cache=None) -> list:
    """(auroc, ci_low, ci_high, p_value, log10_p) of ``b.repeats`` new draws of the ``cand`` triples, nan elsewhere."""
    wanted = cand.any(axis=0)  # (D, K)
    tp = plan(b, class_positions=np.flatnonzero(wanted.any(axis=0)))
    tasks = tuple(
        replace(t, runnable=keep)
        for t in tp.tasks
        for keep in [tuple(d for d in t.runnable if wanted[d, t.class_index])]
        if keep
    )
    outputs = execute_tasks(b, replace(tp, tasks=tasks), index_cache=cache)  # one index for the R draws
    keys = (outputs.auroc, outputs.ci_low, outputs.ci_high, outputs.p_value, outputs.log10_p)
    return [np.where(~cand[..., None], np.nan, x) for x in keys]


def _varies_between_draws(a, det) -> bool:
    """Whether a new draw can change the AUROC(c) of ``det`` beyond its test samples: a detector fitted per task
    (Isolation Forest, user detectors: a seed), or any detector on a random split (the split decides which normals
    are trained on). The neighbour detectors (kNN, LOF) on a user split are deterministic: a new draw changes only
    subsampled test rows, which the interval of one draw already covers."""
    return a.split is None or not isinstance(det, NeighbourDetector)
