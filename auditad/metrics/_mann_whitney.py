r"""Exact and bounded tails of the Mann–Whitney U distribution (no ties), computed stably.

U counts the (positive, negative) pairs ranked correctly; under a uniformly
random ranking of ``m`` positives and ``n`` negatives, \(P(U = u) = c_u / \binom{m+n}{m}\)
where \(c_u\) is the number of partitions of u that fit in an m × n box, the
coefficients of the Gaussian binomial coefficient \(\binom{m+n}{m}_q\).

Why not the usual product recursion: building \(\prod_i (1-q^{n+i})/(1-q^i)\)
one factor at a time divides by \(1-q^i\) (a strided cumulative sum) and
multiplies by \(1-q^{n+i}\) (a subtraction); in floating point the
subtraction cancels and the error is amplified at every step (relative error
≈ 1 at 300 × 300). Here the counts come from the q-Pascal rule

\[
\binom{k+j}{k}_q = \binom{k+j-1}{k}_q + q^{j}\,\binom{k-1+j}{k-1}_q ,
\]

which only adds non-negative numbers: every count carries a relative error of
a few units in the last place whatever the sizes. The cost is
\(O(m\,n\,t)\) for the coefficients up to degree ``t`` (``t = mn/2`` for the
whole distribution, the other half by symmetry), so callers choose it by
`work` and use the normal approximation beyond their budget. Extreme
tails (``t`` small) stay exact at any size.

References
----------
H. B. Mann, D. R. Whitney, "On a test of whether one of two random variables
is stochastically larger than the other", Annals of Mathematical Statistics 18 (1947).
G. E. Andrews, "The Theory of Partitions", Addison-Wesley (1976), ch. 3 (Gaussian polynomials).
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import InvalidInputError

#: Float counts are exact integers below 2**53 and stay finite while they are below this.
_COUNT_MAX = 1e300


def log_comb(total: int, k: int) -> float:
    """Natural log of C(total, k) from the exact integer (correct to a few ulps at any size)."""
    return math.log(math.comb(total, k))


#: `work` stops counting once the count passes this (far above every budget): its answer is then
#: only "more than the cap", and it neither allocates nor loops in proportion to the sizes.
WORK_CAP = 10**13
#: `counts_lower` refuses to allocate more float64 cells than this (2 GB); callers check `work` first.
_CELLS_MAX = 250_000_000


def work(m: int, n: int, t: int) -> int:
    r"""Cost model of `counts_lower` for degrees 0..t: its element additions plus the cells it zero-fills.

    Exact Python integers (no int64 overflow at any size), summed over the blocks of steps
    \(j\) that share \(k^* = \min(\lfloor t/j \rfloor, m)\) (at most \(2\sqrt{t} + 1\) blocks); a value
    above ``WORK_CAP``, or a table of more than
    ``WORK_CAP`` cells, is returned as soon as it is known, without finishing the sum.
    """
    m, n = min(int(m), int(n)), max(int(m), int(n))
    t = max(min(int(t), m * n), 0)
    cells = (m + 1) * (t + 1)
    if cells > WORK_CAP:
        return cells
    steps = min(n, t)
    total, a = cells, 1
    while a <= steps:
        q = t // a
        if q >= m:  # k* = m for every j <= t // m
            kstar, b = m, min(steps, t // m)
        else:  # k* = t // j is constant up to b = t // q
            kstar, b = q, min(steps, t // q)
        count, jsum = b - a + 1, (a + b) * (b - a + 1) // 2
        total += kstar * (kstar - 1) // 2 * jsum + kstar * count  # sum over k <= k* of (k j + 1 - j)
        total += (m - kstar) * ((t + 1) * count - jsum)  # rows k > k*: degrees j..t
        if total > WORK_CAP:
            return total
        a = b + 1
    return total


def counts_lower(m: int, n: int, t: int) -> np.ndarray:
    r"""Counts \(c_0..c_t\) of the U distribution at (m, n) as float64 (exact below 2**53).

    Raises ``OverflowError`` if a count would exceed 1e300 (callers then use a bound).
    """
    m, n = min(m, n), max(m, n)
    t = min(t, m * n)
    size = t + 1
    if (m + 1) * size > _CELLS_MAX:  # checked before allocating (callers choose by `work` first)
        raise InvalidInputError(
            f"the exact Mann-Whitney counts at n_pos x n_neg = {m} x {n} need "
            f"{(m + 1) * size:.3g} cells (limit {_CELLS_MAX:.0e}); use the normal approximation"
        )
    G = np.zeros((m + 1, size))
    G[:, 0] = 1.0  # no negatives yet: U = 0 surely
    for j in range(1, min(n, t) + 1):  # add the j-th negative; steps j > t only touch degrees > t
        for k in range(1, m + 1):
            hi = min(k * j, t) + 1
            if hi > j:
                G[k, j:hi] += G[k - 1, : hi - j]
    out = G[m]
    if not np.all(np.isfinite(out)) or out.max() > _COUNT_MAX:
        raise OverflowError("Mann-Whitney counts exceed the float range")
    return out


def pmf(m: int, n: int) -> np.ndarray:
    """Full exact pmf P(U = u), u = 0..m n (cells below ~1e-308 underflow to 0)."""
    d = m * n
    half = counts_lower(m, n, d // 2)
    c = np.concatenate([half, half[: d - d // 2][::-1]]) if d else half
    return _normalise(c, m, n)


def _normalise(counts: np.ndarray, m: int, n: int) -> np.ndarray:
    total = math.comb(m + n, m)
    if total < _COUNT_MAX:
        return counts / float(total)
    with np.errstate(divide="ignore"):
        return np.exp(np.log(counts) - log_comb(m + n, m))


def upper_tail(m: int, n: int, u: int, *, counts: np.ndarray | None = None) -> tuple[float, float]:
    r"""Exact \(P(U \ge u)\) and its log10 (integer u); uses the lower tail by symmetry.

    ``counts`` may pass precomputed `counts_lower` values up to degree ``m n - u``.
    """
    d = m * n
    if u <= 0:
        return 1.0, 0.0
    if u > d:
        return 0.0, -math.inf
    t = d - u  # P(U >= u) = P(U <= t)
    if 2 * t <= d:
        c = counts if counts is not None else counts_lower(m, n, t)
        log10p = math.log10(float(np.sum(c[: t + 1]))) - log_comb(m + n, m) / math.log(10)
        return 10.0**log10p if log10p > -307 else 0.0, log10p
    c = counts if counts is not None else counts_lower(m, n, u - 1)
    below = float(np.sum(_normalise(c[:u], m, n)))  # P(U <= u - 1) <= 1/2 + pmf at the centre
    p = max(1.0 - below, 0.0)
    return p, math.log10(p) if p > 0 else -math.inf


#: Largest min(m, n) for which `log10_chernoff_upper_tail` evaluates its product (one float per factor: 80 MB);
#: beyond it the callers use the normal approximation, whose tail is then accurate far past any printed p.
CHERNOFF_MAX_TERMS = 10_000_000


def log10_chernoff_upper_tail(m: int, n: int, u: float) -> float:
    r"""log10 of the Chernoff bound \(\min_{\theta>0} E[e^{\theta U}]\,e^{-\theta u}\) (a true upper bound).

    With \(E[q^U] = \prod_{i=1}^m \frac{i}{n+i}\,\frac{1-q^{n+i}}{1-q^{i}}\) (the Gaussian binomial
    divided by \(\binom{m+n}{m}\)).
    """
    from scipy.optimize import minimize_scalar

    i = np.arange(1, min(m, n) + 1, dtype=np.float64)
    big = max(m, n)

    def log_bound(theta):
        # log[(e^{th a} - 1)/(e^{th i} - 1)] computed without overflow
        a = big + i
        num = theta * a + np.log(-np.expm1(-theta * a))
        den = theta * i + np.log(-np.expm1(-theta * i))
        return float(np.sum(np.log(i / a) + num - den) - theta * u)

    mean = m * n / 2.0
    if u <= mean:
        return 0.0
    sd = math.sqrt(m * n * (m + n + 1) / 12.0)
    hi = 50.0 / max(sd, 1.0)
    res = minimize_scalar(log_bound, bounds=(1e-12, hi), method="bounded", options={"xatol": 1e-10})
    return min(0.0, res.fun / math.log(10))


#: Work allowed for the exact p-value of one observed AUROC (`work` without ties, `tied_work` with them): a few
#: milliseconds, so that an audit of thousands of classes keeps its budget; beyond it the normal approximation.
P_EXACT_WORK = 3_000_000


def tied_work(group_sizes, m: int) -> int:
    """Cost model of `tied_tail` (additions of its dynamic programme) for tie groups of these sizes."""
    n_items = int(np.sum(group_sizes))
    span = 2 * m * n_items + 1
    return int(sum(min(int(t), m) for t in group_sizes)) * (m + 1) * span


def tied_two_sided(pos_scores: np.ndarray, neg_scores: np.ndarray) -> float:
    r"""Exact two-sided p-value of the Mann–Whitney test conditional on the ties (permutation distribution).

    Under a uniformly random assignment of the pooled scores to ``m`` positives and ``n`` negatives the rank sum
    \(R\) of the smaller group (mid-ranks, doubled to integers) has the distribution counted by a dynamic
    programme over the groups of tied scores (a group of size ``t`` and doubled mid-rank ``r`` contributes
    \(\binom{t}{j}\) ways to put ``j`` of its members in the group, adding ``j r``). The p-value is
    \(P(|R - E R| \ge |R_{obs} - E R|)\), the usual two-sided permutation p-value (with ties the null need not be
    symmetric, so it is not twice one tail).

    References
    ----------
    E. L. Lehmann, "Nonparametrics: Statistical Methods Based on Ranks", Holden-Day (1975), ch. 1 §4 (ties).
    """
    from scipy.special import comb

    x, y = (pos_scores, neg_scores) if pos_scores.size <= neg_scores.size else (neg_scores, pos_scores)
    m = x.size
    pooled = np.concatenate([x, y])
    values, inverse, sizes = np.unique(pooled, return_inverse=True, return_counts=True)
    starts = np.cumsum(sizes) - sizes
    r2 = (2 * starts + sizes + 1).astype(np.int64)  # doubled mid-ranks (1-based) of the groups
    obs2 = int(np.sum(r2[inverse[:m]]))
    span = int(np.sum(np.sort(np.repeat(r2, sizes))[-m:])) + 1
    dp = np.zeros((m + 1, span))
    dp[0, 0] = 1.0
    for t, r in zip(sizes, r2):
        new = dp.copy()
        for j in range(1, min(int(t), m) + 1):
            w = float(comb(int(t), j, exact=True))
            new[j:, j * r :] += w * dp[: m + 1 - j, : span - j * r]
        dp = new
    counts = dp[m]
    mean2 = m * (pooled.size + 1)
    dist = np.abs(np.arange(span) - mean2)
    hit = dist >= abs(obs2 - mean2) - 1e-9
    return float(min(counts[hit].sum() / counts.sum(), 1.0))
