r"""What a ranking says, with effect sizes: the best method against each other one, and a plain reading.

[`best_vs_rest`][auditad.leaderboards.best_vs_rest] gives, for every method, its average-rank
difference to the best method with a percentile bootstrap interval over the datasets (over the
independent blocks when columns share their data) and the Wilcoxon signed-rank p against the best,
Holm-adjusted over the k − 1 comparisons (Demšar 2006, §3.2.2).  A method is *distinguishable* from
the best when its Holm p is at most α and the interval excludes 0.
[`ranking_reading`][auditad.leaderboards.ranking_reading] turns the result into one paragraph for a
paper: whether the ranks differ at all, at which N, and which methods can be told apart from the best.

\[
\Delta_j = \frac1N \sum_{i=1}^N (r_i^j - r_i^{best}),
\]

\(r_i^j\) the rank of method j on dataset i (1 = best).
"""

from __future__ import annotations

import numpy as np

from .._rng import check_random_state
from .._validation import check_float, check_int
from ..errors import InvalidInputError

__all__ = ["best_vs_rest", "ranking_reading"]


def _check_result(result):
    from .ranking import RankingResult

    if not isinstance(result, RankingResult):
        raise InvalidInputError(f"result must be a RankingResult (from rank_methods), got {type(result).__name__}")


def best_vs_rest(result, *, n_resamples: int = 2000, confidence: float = 0.95, random_state=0):
    r"""Average-rank differences to the best method with bootstrap intervals and Wilcoxon–Holm p-values.

    Parameters
    ----------
    result : RankingResult
        From [`rank_methods`][auditad.leaderboards.rank_methods].
    n_resamples : int, default 2000
        Bootstrap resamples of the datasets (of the independent blocks when ``result.blocks`` groups
        columns: a cluster bootstrap).
    confidence : float, default 0.95
        Level of the percentile intervals.
    random_state : None, int or numpy.random.Generator, default 0

    Returns
    -------
    pandas.DataFrame
        One row per method other than the best, best first: ``method``, ``rank_difference``
        (\(\Delta_j\), positive = worse than the best), ``ci_low``, ``ci_high``, ``p_value``
        (Wilcoxon against the best), ``p_holm`` (Holm over the k − 1), ``distinguishable``.

    References
    ----------
    J. Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", Journal of Machine
    Learning Research 7, 1–30, 2006 (§3.2.2, comparisons with a control).
    B. Efron, R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman & Hall, 1993 (percentile
    intervals).

    See Also
    --------
    - [`ranking_reading`][auditad.leaderboards.ranking_reading]: the paragraph built on it.

    Examples
    --------
    >>> import pandas as pd
    >>> from auditad.leaderboards import rank_methods
    >>> table = pd.DataFrame({"A": [0.9, 0.85, 0.8, 0.95, 0.9, 0.88], "B": [0.8, 0.86, 0.7, 0.9, 0.85, 0.8],
    ...                       "C": [0.6, 0.6, 0.55, 0.7, 0.65, 0.6]})
    >>> best_vs_rest(rank_methods(table))[["method", "rank_difference"]].round(3).to_dict("list")
    {'method': ['B', 'C'], 'rank_difference': [0.667, 1.833]}
    """
    import pandas as pd

    from .ranking import holm_adjust

    _check_result(result)
    n_resamples = check_int(n_resamples, name="n_resamples", low=100)
    confidence = check_float(confidence, name="confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    rng = check_random_state(random_state)
    ranks = result.ranks.to_numpy(dtype=np.float64)
    diff = ranks[:, 1:] - ranks[:, :1]
    block_of = {d: b for b, ds in result.blocks for d in ds}
    labels = [block_of.get(d, d) for d in result.ranks.index]
    codes = np.unique(np.asarray(labels, dtype=object), return_inverse=True)[1].ravel()
    n_blocks = int(codes.max()) + 1
    sums = np.zeros((n_blocks, diff.shape[1]))
    np.add.at(sums, codes, diff)
    counts = np.bincount(codes, minlength=n_blocks).astype(np.float64)
    draw = rng.integers(0, n_blocks, size=(n_resamples, n_blocks))
    boot = sums[draw].sum(axis=1) / counts[draw].sum(axis=1)[:, None]
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(boot, [tail, 1.0 - tail], axis=0)
    pw = result.pairwise
    ctrl = pw[pw["method_a"] == result.best].set_index("method_b")
    others = list(result.methods[1:])
    p = ctrl.loc[others, "p_value"].to_numpy(dtype=np.float64)
    p_holm = holm_adjust(p) if len(p) else p
    return pd.DataFrame(
        {
            "method": others,
            "rank_difference": diff.mean(axis=0),
            "ci_low": low,
            "ci_high": high,
            "p_value": p,
            "p_holm": p_holm,
            "distinguishable": (p_holm <= result.alpha) & (low > 0),
        }
    )


def ranking_reading(result, *, min_datasets: int = 5, effects=None) -> str:
    """One paragraph, in plain words, of what a ranking supports: for the discussion section of a paper.

    Parameters
    ----------
    result : RankingResult
    min_datasets : int, default 5
        Fewest independent datasets on which the ranks are read as differing.
    effects : pandas.DataFrame, optional
        From [`best_vs_rest`][auditad.leaderboards.best_vs_rest] (computed with its defaults when
        None).

    Returns
    -------
    str

    References
    ----------
    J. Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", Journal of Machine
    Learning Research 7, 1–30, 2006.

    See Also
    --------
    - [`best_vs_rest`][auditad.leaderboards.best_vs_rest]: the numbers behind it.

    Examples
    --------
    >>> import pandas as pd
    >>> from auditad.leaderboards import rank_methods
    >>> table = pd.DataFrame({"A": [0.9, 0.85], "B": [0.8, 0.86]})
    >>> ranking_reading(rank_methods(table)).split(":")[0]
    'With 2 independent datasets the order of the 2 methods cannot be tested'
    """
    _check_result(result)
    min_datasets = check_int(min_datasets, name="min_datasets", low=2)
    k, n, n_ind, alpha = result.n_methods, result.n_datasets, result.n_independent, result.alpha
    cols = f" ({n} columns)" if n != n_ind else ""
    if n_ind < min_datasets:
        return (
            f"With {n_ind} independent dataset{'s' if n_ind != 1 else ''}{cols} the order of the {k} methods "
            f"cannot be tested: a rank test needs at least {min_datasets}; report the scores, not a ranking."
        )
    fr = result.significance
    if not fr.iman_davenport_p_value <= alpha:
        return (
            f"Over {n_ind} independent datasets{cols}, the ranks of the {k} methods do not differ significantly "
            f"(Iman–Davenport p = {fr.iman_davenport_p_value:.2g}): the data do not support an order, and "
            f"{result.best} leads by chance as far as this benchmark can tell."
        )
    eff = best_vs_rest(result) if effects is None else effects
    apart = eff[eff["distinguishable"]]
    tied = eff[~eff["distinguishable"]]

    def names(frame, limit=6):
        items = [f"{m} (Δ = {d:.2f} [{lo:.2f}, {hi:.2f}])" for m, d, lo, hi in frame.iloc[:limit, :4].to_numpy()]
        return ", ".join(items) + (f" and {len(frame) - limit} more" if len(frame) > limit else "")

    text = (
        f"Over {n_ind} independent datasets{cols}, the ranks of the {k} methods differ (Iman–Davenport "
        f"p = {fr.iman_davenport_p_value:.2g}). {result.best} has the best average rank "
        f"({result.average_ranks[0]:.2f}). "
    )
    if len(apart):
        text += f"It is distinguishable (Wilcoxon–Holm at α = {alpha:g}, average-rank difference Δ with its "
        text += f"bootstrap interval) from {len(apart)} of the {k - 1} others: {names(apart)}. "
    if len(tied):
        text += (
            f"{len(tied)} method{'s are' if len(tied) != 1 else ' is'} not distinguishable from it at this N: "
            f"{names(tied)}; claims of superiority over {'them' if len(tied) != 1 else 'it'} are not supported."
        )
    else:
        text += "No other method is statistically tied with it."
    return text.strip()
