"""Closed forms of the random baselines: the AUROC null (exact Mann–Whitney counts, normal moments), E[AP]."""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_float, check_int
from ..errors import InvalidInputError
from ..metrics import _mann_whitney as _mw
from ._results import (
    EXACT_AUROC_WORK_MAX,
    HIST_BINS,
    MetricNull,
    with_observed,
)
from ._summary import summarize_distribution


# --------------------------------------------------------------------------- AUROC: exact and analytic
def auroc_null_moments(n_pos: int, n_neg: int, *, tie_term: float = 0.0) -> tuple[float, float]:
    r"""Exact mean and standard deviation of AUROC under random scores.

    \[
    E[\mathrm{AUROC}] = \tfrac12,\qquad
    \mathrm{Var}[\mathrm{AUROC}] = \frac{1}{12\,n_+ n_-}\Big(n + 1 - \frac{\sum_g (t_g^3 - t_g)}{n(n-1)}\Big),
    \]

    with \(n = n_+ + n_-\) and \(t_g\) the sizes of the groups of tied
    scores (``tie_term`` = \(\sum_g (t_g^3 - t_g)\); 0 without ties, giving
    \((n+1)/(12 n_+ n_-)\)), the permutation variance of Mann–Whitney U
    divided by \((n_+ n_-)^2\).

    Parameters
    ----------
    n_pos, n_neg : int
        Numbers of anomalies and normals (>= 1 each).
    tie_term : float, default 0
        \(\sum_g (t_g^3 - t_g)\) over the tie groups of the pooled scores.

    Returns
    -------
    tuple of float
        (mean, standard deviation).

    References
    ----------
    H. B. Mann, D. R. Whitney, "On a test of whether one of two random variables is
    stochastically larger than the other", Annals of Mathematical Statistics 18 (1947).
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (random-baseline analysis, §IV).

    See Also
    --------
    - [`null_distribution`][auditad.nulls.null_distribution]
    - [`auroc_null`][auditad.nulls.auroc_null]
    - [`mann_whitney_pmf`][auditad.nulls.mann_whitney_pmf]

    Examples
    --------
    >>> auroc_null_moments(1, 99)
    (0.5, 0.29157646512850627)
    """
    n_pos = check_int(n_pos, name="n_pos", low=1)
    n_neg = check_int(n_neg, name="n_neg", low=1)
    tie_term = check_float(tie_term, name="tie_term", low=0.0)
    n = n_pos + n_neg
    corr = tie_term / (n * (n - 1)) if n > 1 else 0.0
    return 0.5, math.sqrt(max(n + 1 - corr, 0.0) / (12.0 * n_pos * n_neg))


def mann_whitney_pmf(n_pos: int, n_neg: int) -> np.ndarray:
    r"""Exact null distribution of the Mann–Whitney U statistic (no ties).

    ``pmf[u] = P(U = u)`` for ``u = 0 .. n_pos·n_neg``, where U counts the
    (positive, negative) pairs ranked correctly, so AUROC = U / (n_pos n_neg).
    The counts of the \(\binom{n}{n_+}\) equally likely rankings are the
    coefficients of the Gaussian binomial coefficient, built with the q-Pascal
    rule (additions of non-negative numbers only, so every cell has a relative
    error of a few ulps; the usual product recursion subtracts and loses all
    accuracy beyond ~200 × 200):

    \[
    \binom{k+j}{k}_q = \binom{k+j-1}{k}_q + q^{j}\binom{k-1+j}{k-1}_q .
    \]

    Cost \(O(n_+^2 n_-^2 / 4)\) additions (0.1–0.3 s at 160 × 160): for large
    counts [`null_distribution`][auditad.nulls.null_distribution] switches to the normal approximation.
    Cells below ~1e-308 underflow to 0. Sizes whose cost exceeds ``EXACT_AUROC_WORK_MAX`` are
    refused (checked before anything is allocated).

    Parameters
    ----------
    n_pos, n_neg : int
        Class counts (>= 1 each).

    Returns
    -------
    numpy.ndarray of shape (n_pos * n_neg + 1,)

    References
    ----------
    H. B. Mann, D. R. Whitney, "On a test of whether one of two random variables is
    stochastically larger than the other", Annals of Mathematical Statistics 18 (1947).
    G. E. Andrews, "The Theory of Partitions", Addison-Wesley (1976), ch. 3.

    See Also
    --------
    - [`null_distribution`][auditad.nulls.null_distribution]
    - [`auroc_null_moments`][auditad.nulls.auroc_null_moments]

    Examples
    --------
    >>> mann_whitney_pmf(2, 2).tolist()  # 6 rankings: U = 0, 1, 2, 2, 3, 4
    [0.16666666666666666, 0.16666666666666666, 0.3333333333333333, 0.16666666666666666, 0.16666666666666666]
    """
    m = check_int(n_pos, name="n_pos", low=1)
    n = check_int(n_neg, name="n_neg", low=1)
    cost = _mw.work(m, n, m * n // 2)  # checked before allocating anything
    if cost > EXACT_AUROC_WORK_MAX:
        raise InvalidInputError(
            f"the exact Mann-Whitney pmf at n_pos={m}, n_neg={n} needs {cost:.2e} additions "
            f"(limit {EXACT_AUROC_WORK_MAX:.0e}); use null_distribution(method='auto') for the "
            "normal approximation"
        )
    return _mw.pmf(m, n)


def exact_auroc_null(n_pos, n_neg, observed):
    """The AUROC null from the exact Mann–Whitney counts, with ``observed`` (or None) placed on it."""
    pmf = mann_whitney_pmf(n_pos, n_neg)
    values = np.arange(pmf.size) / (n_pos * n_neg)
    null = summarize_distribution("auroc", values, pmf, method="exact", runs=0, observed=None, q=float("nan"))
    return with_observed(null, observed, n_pos, n_neg, 0.0)


def normal_auroc_null(n_pos, n_neg, observed, tie_term=0.0):
    """The AUROC null as a normal with the exact (tie-corrected) moments, ``observed`` (or None) placed on it."""
    from scipy.stats import norm

    mean, sd = auroc_null_moments(n_pos, n_neg, tie_term=tie_term)
    mn = n_pos * n_neg
    sd_u = sd * mn
    z95, z99 = norm.ppf(0.95), norm.ppf(0.99)
    step = 0.5 if tie_term > 0 else 1.0
    # quantiles of U rounded up to the lattice of U (continuity correction: U >= u  <=>  Z >= (u - 0.5 - mn/2)/sd_u)
    q95 = min(math.ceil((mn / 2 + z95 * sd_u + 0.5) / step - 1e-9) * step, mn) / mn
    q99 = min(math.ceil((mn / 2 + z99 * sd_u + 0.5) / step - 1e-9) * step, mn) / mn
    lo = max(0.5 - 4 * sd, 0.0) if sd > 0 else 0.49
    hi = min(0.5 + 4 * sd, 1.0) if sd > 0 else 0.51
    edges = np.linspace(lo, hi, HIST_BINS + 1)
    prob = (
        np.diff(norm.cdf((edges - 0.5) / sd))
        if sd > 0
        else np.r_[np.zeros(HIST_BINS // 2), 1.0, np.zeros(HIST_BINS - HIST_BINS // 2 - 1)]
    )
    null = MetricNull(
        metric="auroc",
        method="analytic",
        runs=0,
        mean=mean,
        std=sd,
        mean_positive_deviation=sd * math.sqrt(2.0 / math.pi),
        q95=q95,
        q99=q99,
        observed=float("nan"),
        p_value=float("nan"),
        q=float("nan"),
        hist_edges=edges,
        hist_prob=prob,
    )
    return with_observed(null, observed, n_pos, n_neg, tie_term)


def expected_average_precision(n_pos: int, n_neg: int) -> float:
    r"""Exact mean of AP under a uniformly random ranking.

    \[
    E[\mathrm{AP}] = \frac{1}{n}\Big[H_n + \frac{n_+ - 1}{n - 1}\,(n - H_n)\Big],
    \]

    with \(n = n_+ + n_-\) and \(H_n\) the n-th harmonic number (from
    \(E[\mathrm{AP}] = \frac{1}{n_+}\sum_j P(\text{positive at } j)\,E[tp(j)/j \mid \text{positive at } j]\)).
    It tends to π = n_+/n as n grows (Hermary et al. §IV: "the AUPR baseline varies
    approximately linearly with the anomaly proportion").

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§IV).

    See Also
    --------
    - [`null_distribution`][auditad.nulls.null_distribution]
    - [`auditad.metrics.average_precision`][auditad.metrics.average_precision]

    Examples
    --------
    >>> round(expected_average_precision(50, 9950), 5)
    0.00587
    """
    n_pos = check_int(n_pos, name="n_pos", low=1)
    n_neg = check_int(n_neg, name="n_neg", low=1)
    n = n_pos + n_neg
    h = float(np.sum(1.0 / np.arange(1, n + 1)))
    return (h + (n_pos - 1) / (n - 1) * (n - h)) / n
