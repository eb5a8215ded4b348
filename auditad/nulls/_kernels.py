"""Random rankings for the threshold-free nulls: exhaustive enumeration and vectorised Monte Carlo.

Private helpers of [`auditad.nulls`][auditad.nulls]: AUROC, average precision and the
trapezoid AUPR of uniformly random rankings without ties; F1 and MCC of random
binary predictions (TP ~ Bin(n_pos, q), FP ~ Bin(n_neg, q)).
"""

from __future__ import annotations

import numpy as np

from ..metrics import f1_cells, mcc_cells

THRESHOLD_FREE = ("auroc", "ap", "aupr_trap")
_TAIL = 1e-16  # binomial mass left out of the F1/MCC enumeration on each side
_MC_CHUNK_ELEMENTS = 4_000_000  # runs * n per Monte Carlo chunk (bounds memory to ~100 MB)


def ranking_metrics(lab: np.ndarray, n_pos: int, n_neg: int) -> dict[str, np.ndarray]:
    """AUROC, AP and AUPR-trapezoid of rankings given as label rows (r, n), best first, without ties.

    With the k-th positive at position j (1-based) and tp(j) positives in the top j:
    AUROC = Σ (n_neg − (j − tp(j))) / (n_pos n_neg), AP = Σ tp(j)/j / n_pos and
    AUPR = Σ [tp(j)/j + (tp(j) − 1)/(j − 1)] / (2 n_pos) with (tp − 1)/(j − 1) := 1 at j = 1.
    """
    n = lab.shape[1]
    j = np.arange(1, n + 1, dtype=np.float64)
    tp = np.cumsum(lab, axis=1, dtype=np.float64)
    w = lab.astype(np.float64)
    prec = tp / j
    prev = np.empty_like(prec)
    prev[:, 0] = 1.0
    prev[:, 1:] = (tp[:, 1:] - 1.0) / j[:-1]
    return {
        "auroc": (w * (n_neg - (j - tp))).sum(axis=1) / (n_pos * n_neg),
        "ap": (w * prec).sum(axis=1) / n_pos,
        "aupr_trap": (w * (prec + prev)).sum(axis=1) / (2.0 * n_pos),
    }


def exact_rankings(n_pos, n_neg):
    from itertools import combinations

    n = n_pos + n_neg
    combos = np.array(list(combinations(range(n), n_pos)), dtype=np.int64)
    lab = np.zeros((combos.shape[0], n), dtype=np.int8)
    np.put_along_axis(lab, combos, 1, axis=1)
    return ranking_metrics(lab, n_pos, n_neg)


def _random_subsets(n: int, s: int, r: int, rng) -> np.ndarray:
    """Sorted 1-based positions of ``r`` independent uniformly random ``s``-subsets of {1..n}, shape (r, s).

    For s <= n/5, Floyd's algorithm vectorised over the rows (`_floyd`). Otherwise the positions of the s
    smallest of n uniform keys. Either way every s-subset is equally likely.
    """
    if s <= n // 5:
        return (np.sort(_floyd(n, s, r, rng), axis=1) + 1).astype(np.float64)
    # many draws: the s smallest of n uniform keys are a uniform s-subset as well
    mask = np.zeros((r, n), dtype=bool)
    idx = np.argpartition(rng.random((r, n)), s - 1, axis=1)[:, :s]
    np.put_along_axis(mask, idx, True, axis=1)
    return (np.nonzero(mask)[1].reshape(r, s) + 1).astype(np.float64)


def _floyd(n: int, s: int, r: int, rng) -> np.ndarray:
    """The 0-based members (r, s), unsorted, of ``r`` uniformly random ``s``-subsets of {0..n−1} by Floyd's
    algorithm: for the steps t = n − s .. n − 1 draw u_t ∈ {0..t} and take u_t unless already taken, else t.

    All draws come from one call (steps in order, rows within a step: the stream of one call per step). The
    steps are then resolved without a loop over them: step b collides when u_b was drawn at an earlier step of
    its row (taken then, or that step collided because u_b was taken before it), or when u_b is the value t_a of
    an earlier step a that collided (a chain, followed until nothing changes: a few rounds). Every value of
    an earlier step is at most t_a < t_b, so t_b itself is never taken before step b.
    """
    t0 = n - s
    t = np.arange(t0, n)
    u = np.ascontiguousarray(rng.integers(0, (t + 1)[:, None], size=(s, r)).T)  # (r, s): row i, step b
    key = np.sort(u * s + np.arange(s), axis=1)  # each row by (value, step)
    val, step = np.divmod(key, s)
    rep = val[:, 1:] == val[:, :-1]  # drawn at an earlier step as well
    rows = np.arange(r)[:, None]
    taken = np.zeros((r, s), dtype=bool)
    taken[np.broadcast_to(rows, rep.shape)[rep], step[:, 1:][rep]] = True
    late = (u >= t0) & (u < t)  # u_b is the value of an earlier step a = u_b − t0
    prior = np.where(late, u - t0, 0)
    while True:
        nxt = taken | (late & taken[rows, prior])
        if np.array_equal(nxt, taken):
            return np.where(taken, t, u)
        taken = nxt


def _metrics_from_positive_positions(j: np.ndarray, n_pos: int, n_neg: int) -> dict[str, np.ndarray]:
    """AUROC/AP/AUPR from the sorted 1-based positions (r, n_pos) of the positives in a ranking."""
    k = np.arange(1, n_pos + 1, dtype=np.float64)
    prec = k / j
    with np.errstate(divide="ignore", invalid="ignore"):
        prev = np.where(j > 1, (k - 1.0) / np.maximum(j - 1.0, 1.0), 1.0)
    return {
        "auroc": (n_neg - (j - k)).sum(axis=1) / (n_pos * n_neg),
        "ap": prec.sum(axis=1) / n_pos,
        "aupr_trap": (prec + prev).sum(axis=1) / (2.0 * n_pos),
    }


def _metrics_from_negative_positions(g: np.ndarray, n_pos: int, n_neg: int, harmonic: np.ndarray):
    """AUROC/AP/AUPR from the sorted 1-based positions (r, n_neg) of the negatives in a ranking.

    The positives fill the gaps: the i-th gap (after i negatives) holds positions
    j in [g_i + 1, g_{i+1} − 1] with tp(j) = j − i, so sums of 1/j become
    differences of harmonic numbers H.
    """
    r = g.shape[0]
    n = n_pos + n_neg
    gi = g.astype(np.int64)
    nxt = np.hstack([gi[:, 1:], np.full((r, 1), n + 1)])  # g_{i+1} for i = 1..L
    i = np.arange(1, n_neg + 1, dtype=np.float64)
    h1 = harmonic[nxt - 1] - harmonic[gi]  # sum over the gap of 1/j
    h2 = harmonic[nxt - 2] - harmonic[gi - 1]  # sum over the gap of 1/(j − 1)
    lengths = (nxt - gi - 1).astype(np.float64)
    len0 = gi[:, 0] - 1.0  # positives before the first negative (i = 0)
    u = n_neg * len0 + ((n_neg - i) * lengths).sum(axis=1)
    return {
        "auroc": u / (n_pos * n_neg),
        "ap": 1.0 - (i * h1).sum(axis=1) / n_pos,
        "aupr_trap": 1.0 - (i * (h1 + h2)).sum(axis=1) / (2.0 * n_pos),
    }


def mc_rankings(n_pos, n_neg, runs, rng):
    """Monte Carlo AUROC/AP/AUPR of uniformly random rankings, drawing the positions of the smaller class."""
    n = n_pos + n_neg
    s = min(n_pos, n_neg)
    harmonic = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, n + 1))]) if s == n_neg < n_pos else None
    chunk = max(1, _MC_CHUNK_ELEMENTS // n)
    parts: dict[str, list] = {k: [] for k in THRESHOLD_FREE}
    for start in range(0, runs, chunk):
        r = min(chunk, runs - start)
        pos = _random_subsets(n, s, r, rng)
        if s == n_pos:
            vals = _metrics_from_positive_positions(pos, n_pos, n_neg)
        else:
            vals = _metrics_from_negative_positions(pos, n_pos, n_neg, harmonic)
        for k, v in vals.items():
            parts[k].append(v)
    return {k: np.concatenate(v) for k, v in parts.items()}


# --------------------------------------------------------------------------- thresholded metrics (F1, MCC)
def cell_metrics(tp, fp, n_pos, n_neg) -> dict[str, np.ndarray]:
    tp = np.asarray(tp, dtype=np.float64)
    fp = np.asarray(fp, dtype=np.float64)
    fn = n_pos - tp
    tn = n_neg - fp
    mcc = mcc_cells(tp, fp, fn, tn)
    return {"f1": f1_cells(tp, fp, fn), "mcc": mcc, "mcc_scaled": (mcc + 1.0) / 2.0}


def binomial_support(n: int, q: float):
    from scipy.stats import binom

    lo = int(binom.ppf(_TAIL, n, q))
    hi = int(binom.isf(_TAIL, n, q))
    lo, hi = max(0, min(lo, n)), max(0, min(hi, n))
    k = np.arange(lo, hi + 1)
    return k, binom.pmf(k, n, q)


def thresholded_grid_size(n_pos, n_neg, q):
    k1, _ = binomial_support(n_pos, q)
    k2, _ = binomial_support(n_neg, q)
    return k1.size * k2.size


def exact_thresholded(n_pos, n_neg, q):
    k1, p1 = binomial_support(n_pos, q)
    k2, p2 = binomial_support(n_neg, q)
    tp, fp = np.meshgrid(k1, k2, indexing="ij")
    weights = (p1[:, None] * p2[None, :]).ravel()
    return cell_metrics(tp.ravel(), fp.ravel(), n_pos, n_neg), weights


def mc_thresholded(n_pos, n_neg, q, runs, rng):
    tp = rng.binomial(n_pos, q, size=runs)
    fp = rng.binomial(n_neg, q, size=runs)
    return cell_metrics(tp, fp, n_pos, n_neg)
