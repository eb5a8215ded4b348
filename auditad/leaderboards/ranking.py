r"""Is the ranking of a leaderboard meaningful?  Average ranks, Friedman, Nemenyi and Wilcoxon–Holm.

Following Demšar (2006), the k methods are ranked on each of the N datasets
(rank 1 = best score, ties share the average rank), and

* the **average ranks** \(R_j = \frac1N \sum_i r_i^j\);
* the **Friedman** statistic (Friedman 1937), with the correction for ties
  that `scipy.stats.friedmanchisquare` applies,

  \[
  \chi^2_F = \frac{\frac{12N}{k(k+1)}\Big[\sum_j R_j^2 - \frac{k(k+1)^2}{4}\Big]}
  {1 - \frac{\sum_{i}\sum_{g}(t_{ig}^3 - t_{ig})}{N k (k^2 - 1)}},
  \]

  \(t_{ig}\) the sizes of the groups of tied scores on dataset i,
  χ² with k − 1 degrees of freedom under the null hypothesis that all methods
  are equivalent;
* the **Iman–Davenport** statistic \(F_F = \frac{(N-1)\chi^2_F}{N(k-1)-\chi^2_F}\),
  F with (k − 1, (k − 1)(N − 1)) degrees of freedom (less conservative);
* the **Nemenyi critical difference**

  \[
  CD = q_\alpha \sqrt{\frac{k(k+1)}{6N}},\qquad
  q_\alpha = \frac{Q_{1-\alpha}(k, \infty)}{\sqrt2},
  \]

  \(Q\) the studentized range distribution: two methods whose average
  ranks differ by at least CD differ significantly;
* the **Wilcoxon signed-rank test** (`scipy.stats.wilcoxon`) on every
  pair of methods over the datasets, with **Holm's** step-down correction
  (Holm 1979) -- over all pairs, and over the k − 1 comparisons with the best
  method for the group statistically tied with it (Demšar §3.2.2, comparisons
  with a control).

Missing cells: by default a dataset with a missing (or failed) value for any
method is left out of N (complete case, ``missing="drop_datasets"``); with
``missing="drop_methods"`` the methods with a missing value are left out
instead.  A method without a single usable value is always left out.  The
result names everything it dropped.  Values of several seeds are averaged per
(dataset, method) before ranking.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from .._format import FrameDisplay, pvalue, scalar_frame
from .._json import json_safe
from .._validation import check_choice, check_float, describe
from ..errors import InvalidInputError, UndefinedValueWarning
from ..metrics.multiple_testing import holm_adjust  # one implementation (NaN skipped); re-exported here
from .rank_matrix import dataset_blocks, matrix_from_board, matrix_from_frame
from .readers import Leaderboard
from .schema import metric_info

__all__ = [
    "MISSING_POLICIES",
    "PAIRWISE",
    "MAX_ALL_PAIRS",
    "FriedmanResult",
    "RankingResult",
    "average_ranks",
    "friedman_test",
    "nemenyi_critical_difference",
    "holm_adjust",
    "rank_methods",
]

#: How missing cells are handled: leave out the datasets (complete case) or the methods with a missing value.
MISSING_POLICIES = ("drop_datasets", "drop_methods")
#: Which pairs get a Wilcoxon test: every pair, only those with the best, or every pair up to MAX_ALL_PAIRS methods.
PAIRWISE = ("auto", "all", "best")
#: ``pairwise="auto"`` tests every pair up to this many methods (1 225 pairs), else only against the best.
MAX_ALL_PAIRS = 50

_REFERENCES = """
    J. Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", Journal of
    Machine Learning Research 7, 1–30, 2006.
    M. Friedman, "The use of ranks to avoid the assumption of normality implicit in the
    analysis of variance", Journal of the American Statistical Association 32(200), 675–701, 1937.
    S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian Journal
    of Statistics 6(2), 65–70, 1979."""


def _check_matrix(scores, name="scores") -> np.ndarray:
    arr = np.asarray(scores, dtype=np.float64) if not hasattr(scores, "to_numpy") else scores.to_numpy(dtype=np.float64)
    if arr.ndim != 2:
        raise InvalidInputError(f"{name} must be a 2-D datasets × methods matrix, got shape {arr.shape}")
    if arr.shape[0] < 2 or arr.shape[1] < 2:
        raise InvalidInputError(f"{name} needs at least 2 datasets and 2 methods, got {arr.shape[0]} × {arr.shape[1]}")
    if not np.all(np.isfinite(arr)):
        i, j = np.argwhere(~np.isfinite(arr))[0]
        raise InvalidInputError(
            f"{name} holds a missing or infinite value at dataset {i}, method {j}; rank_methods "
            "drops such datasets or methods, the bare tests need a complete matrix"
        )
    return arr


def average_ranks(scores, *, higher_is_better: bool = True) -> np.ndarray:
    r"""Per-dataset ranks of a datasets × methods matrix (rank 1 = best; ties get the average rank).

    Parameters
    ----------
    scores : array-like of shape (N, k)
    higher_is_better : bool, default True

    Returns
    -------
    numpy.ndarray of shape (N, k)
        \(r_i^j\); the average ranks are ``ranks.mean(axis=0)``.

    References
    ----------
    J. Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", JMLR 7, 2006 (§3.2.2).

    See Also
    --------
    - [`rank_methods`][auditad.leaderboards.rank_methods]

    Examples
    --------
    >>> average_ranks([[0.9, 0.8, 0.8], [0.7, 0.9, 0.6]]).tolist()
    [[1.0, 2.5, 2.5], [2.0, 1.0, 3.0]]
    """
    from scipy.stats import rankdata

    arr = _check_matrix(scores)
    return rankdata(-arr if higher_is_better else arr, method="average", axis=1)


@dataclass(frozen=True)
class FriedmanResult(FrameDisplay):
    r"""Friedman and Iman–Davenport tests of k methods over N datasets (see `friedman_test`).

    Attributes
    ----------
    statistic, p_value : float
        \(\chi^2_F\) (tie-corrected, as `scipy.stats.friedmanchisquare`) and its χ²(k − 1) p-value.
    iman_davenport, iman_davenport_p_value : float
        \(F_F\) and its F(k − 1, (k − 1)(N − 1)) p-value.
    df : int
        k − 1.
    df_denominator : int
        (k − 1)(N − 1).
    n_datasets, n_methods : int
    tie_correction : float
        The divisor \(1 - \sum (t^3 - t) / (N k (k^2 - 1))\).

    References
    ----------
    M. Friedman, "The use of ranks to avoid the assumption of normality implicit in the analysis of
    variance", JASA 32(200), 1937.  R. L. Iman, J. M. Davenport, "Approximations of the critical region
    of the Friedman statistic", Communications in Statistics 9(6), 1980.  J. Demšar, JMLR 7, 2006.

    See Also
    --------
    - [`friedman_test`][auditad.leaderboards.friedman_test]
    """

    statistic: float
    p_value: float
    iman_davenport: float
    iman_davenport_p_value: float
    df: int
    df_denominator: int
    n_datasets: int
    n_methods: int
    tie_correction: float

    def to_dict(self) -> dict:
        """JSON-safe dict of the fields."""
        return json_safe(self.__dict__.copy())

    def to_frame(self):
        """One-row frame of the fields (statistic, p_value, iman_davenport, ..., tie_correction)."""
        return scalar_frame(self.to_dict())


def friedman_test(scores, *, higher_is_better: bool = True) -> FriedmanResult:
    r"""Friedman's χ² and the Iman–Davenport F of a complete datasets × methods matrix.

    \[
    \chi^2_F = \frac{\frac{12N}{k(k+1)}\Big[\sum_j R_j^2 - \frac{k(k+1)^2}{4}\Big]}
    {1 - \sum_{i,g}(t_{ig}^3 - t_{ig}) / (N k (k^2 - 1))},\qquad
    F_F = \frac{(N-1)\,\chi^2_F}{N(k-1) - \chi^2_F}.
    \]

    The statistic equals `scipy.stats.friedmanchisquare` on the same
    matrix (which ranks the other way round; the statistic does not depend on
    the direction).  When every dataset ranks the methods identically,
    \(F_F\) is infinite and its p-value 0.

    Parameters
    ----------
    scores : array-like of shape (N, k)
        N ≥ 2 datasets, k ≥ 2 methods, no missing value.
    higher_is_better : bool, default True

    Returns
    -------
    FriedmanResult

    Warns
    -----
    UndefinedValueWarning
        Every method tied on every dataset: the statistic is NaN.

    References
    ----------
    M. Friedman, "The use of ranks to avoid the assumption of normality implicit in the analysis of
    variance", Journal of the American Statistical Association 32(200), 675–701, 1937.
    R. L. Iman, J. M. Davenport, "Approximations of the critical region of the Friedman statistic",
    Communications in Statistics -- Theory and Methods 9(6), 571–595, 1980.
    J. Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", JMLR 7, 1–30, 2006 (§3.2.2).

    See Also
    --------
    - [`rank_methods`][auditad.leaderboards.rank_methods]: the whole analysis of a leaderboard.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import friedmanchisquare
    >>> X = np.array([[0.90, 0.80, 0.70], [0.85, 0.86, 0.60], [0.70, 0.65, 0.66], [0.99, 0.90, 0.80]])
    >>> res = friedman_test(X)
    >>> round(res.statistic, 4), round(float(friedmanchisquare(*X.T).statistic), 4)
    (4.5, 4.5)
    >>> round(res.iman_davenport, 4)
    3.8571
    """
    from scipy.stats import chi2, f as f_dist

    arr = _check_matrix(scores)
    n, k = arr.shape
    ranks = average_ranks(arr, higher_is_better=higher_is_better)
    ties = 0.0
    for row in arr:
        _, counts = np.unique(row, return_counts=True)
        ties += float(np.sum(counts**3 - counts))
    c = 1.0 - ties / (n * k * (k * k - 1))
    r = ranks.mean(axis=0)
    raw = 12.0 * n / (k * (k + 1)) * (float(np.sum(r**2)) - k * (k + 1) ** 2 / 4.0)
    df1, df2 = k - 1, (k - 1) * (n - 1)
    if c <= 0:
        warnings.warn(
            "every method is tied on every dataset: the Friedman statistic is undefined",
            UndefinedValueWarning,
            stacklevel=2,
        )
        return FriedmanResult(math.nan, math.nan, math.nan, math.nan, df1, df2, n, k, c)
    stat = max(raw / c, 0.0)
    p = float(chi2.sf(stat, df1))
    denom = n * (k - 1) - stat
    if denom <= 1e-12 * n * (k - 1):
        ff, pf = math.inf, 0.0
    else:
        ff = (n - 1) * stat / denom
        pf = float(f_dist.sf(ff, df1, df2))
    return FriedmanResult(float(stat), p, float(ff), pf, df1, df2, n, k, float(c))


def nemenyi_critical_difference(n_methods: int, n_datasets: int, *, alpha: float = 0.05) -> float:
    r"""Nemenyi critical difference of average ranks, \(CD = q_\alpha\sqrt{k(k+1)/(6N)}\).

    \(q_\alpha = Q_{1-\alpha}(k, \infty)/\sqrt2\) with \(Q\) the
    studentized range distribution (`scipy.stats.studentized_range`);
    Demšar's Table 5(a) lists q₀.₀₅ = 1.960, 2.343, 2.569, ... for k = 2, 3, 4, ...

    Parameters
    ----------
    n_methods : int
        k ≥ 2.
    n_datasets : int
        N ≥ 1.
    alpha : float, default 0.05

    Returns
    -------
    float

    References
    ----------
    P. B. Nemenyi, "Distribution-free multiple comparisons", PhD thesis, Princeton University, 1963.
    J. Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", JMLR 7, 1–30, 2006
    (§3.2.2 and Table 5).

    See Also
    --------
    - [`rank_methods`][auditad.leaderboards.rank_methods]

    Examples
    --------
    >>> round(nemenyi_critical_difference(4, 14), 3)   # Demšar's example: q = 2.569, CD = 1.25
    1.254
    """
    from scipy.stats import studentized_range

    from .._validation import check_int

    k = check_int(n_methods, name="n_methods", low=2)
    n = check_int(n_datasets, name="n_datasets", low=1)
    alpha = check_float(alpha, name="alpha", low=0.0, high=1.0, low_open=True, high_open=True)
    q = float(studentized_range.ppf(1.0 - alpha, k, np.inf)) / math.sqrt(2.0)
    return q * math.sqrt(k * (k + 1) / (6.0 * n))


# --------------------------------------------------------------------------- the result
@dataclass(frozen=True, eq=False)
class RankingResult(FrameDisplay):
    r"""Average ranks and the tests of one metric of a leaderboard (see `rank_methods`).

    Attributes
    ----------
    metric : str
    higher_is_better : bool
    methods : tuple of str
        Best average rank first.
    average_ranks : numpy.ndarray
        Aligned with ``methods``.
    scores, ranks : pandas.DataFrame
        The datasets × methods matrix that was ranked (seed means) and its ranks.
    friedman : FriedmanResult
    alpha, q_alpha, critical_difference : float
        Level, Nemenyi \(q_\alpha\) and CD.
    pairwise : pandas.DataFrame
        One row per tested pair (every pair, or the pairs with the best; see
        ``pairwise`` of [`rank_methods`][auditad.leaderboards.rank_methods]): ``method_a``, ``method_b`` (a ranked
        higher),
        ``rank_difference``, ``mean_difference`` (mean score of a minus b),
        ``statistic``, ``p_value`` (`scipy.stats.wilcoxon`), ``p_holm``
        (Holm over the tested pairs), ``significant`` (``p_holm <= alpha``),
        ``nemenyi_significant`` (``rank_difference >= CD``).
    tied_with_best : tuple of str
        The best method and those whose Wilcoxon test against it is not
        significant after Holm over the k − 1 comparisons with the best.
    missing : str
        The policy (`MISSING_POLICIES`).
    dropped_datasets, dropped_methods : tuple of (name, reason)
    notes : tuple of str
    blocks : tuple of (str, tuple of str)
        The ranked datasets grouped into blocks of datasets that are not independent (OpenOOD's
        Near-OOD and Far-OOD columns of one ID set); empty when every dataset is its own block.
    block_friedman : FriedmanResult or None
        Friedman / Iman–Davenport on the block means (one row per independent block), when blocks
        group datasets and there are at least 2 blocks.

    References
    ----------
    J. Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", JMLR 7, 1–30, 2006.
    M. Friedman, JASA 32(200), 1937.  S. Holm, Scandinavian Journal of Statistics 6(2), 1979.

    See Also
    --------
    - [`rank_methods`][auditad.leaderboards.rank_methods]: builds it.
    - [`auditad.plotting.plot_critical_difference`][auditad.plotting.leaderboards.plot_critical_difference]: its diagram.
    """

    metric: str
    higher_is_better: bool
    methods: tuple
    average_ranks: np.ndarray
    scores: object
    ranks: object
    friedman: FriedmanResult
    alpha: float
    q_alpha: float
    critical_difference: float
    pairwise: object
    tied_with_best: tuple
    missing: str = "drop_datasets"
    dropped_datasets: tuple = ()
    dropped_methods: tuple = ()
    notes: tuple = ()
    blocks: tuple = ()
    block_friedman: object = None

    @property
    def n_independent(self) -> int:
        """The number of independent datasets: blocks when datasets are grouped, else N."""
        return len(self.blocks) if self.blocks else self.n_datasets

    @property
    def significance(self) -> FriedmanResult:
        """The Friedman result on independent data: on the block means when datasets are grouped."""
        return self.block_friedman if self.block_friedman is not None else self.friedman

    @property
    def best(self) -> str:
        """The method with the best (lowest) average rank."""
        return self.methods[0]

    @property
    def datasets(self) -> tuple:
        """The datasets that entered N."""
        return tuple(self.scores.index)

    @property
    def n_datasets(self) -> int:
        """N."""
        return int(self.scores.shape[0])

    @property
    def n_methods(self) -> int:
        """k."""
        return len(self.methods)

    def within_cd_of_best(self) -> tuple:
        """Methods whose average rank is less than CD above the best's (Nemenyi: not significantly worse)."""
        r = self.average_ranks
        return tuple(m for m, v in zip(self.methods, r) if v - r[0] < self.critical_difference)

    def cliques(self) -> tuple:
        """Maximal groups of consecutive methods whose average ranks span less than CD (the diagram's bars).

        Groups of one method are left out.
        """
        r = self.average_ranks
        out, last = [], -1
        for i in range(len(r)):
            j = i
            while j + 1 < len(r) and r[j + 1] - r[i] < self.critical_difference:
                j += 1
            if j > i and j > last:
                out.append(tuple(self.methods[i : j + 1]))
                last = j
        return tuple(out)

    def to_frame(self):
        """One row per method (best first): average rank, mean score, tied-with-best flags."""
        import pandas as pd

        tied = set(self.tied_with_best)
        near = set(self.within_cd_of_best())
        return pd.DataFrame(
            {
                "method": list(self.methods),
                "average_rank": np.asarray(self.average_ranks, dtype=np.float64),
                "mean_score": self.scores[list(self.methods)].mean(axis=0).to_numpy(),
                "n_datasets": self.n_datasets,
                "tied_with_best": [m in tied for m in self.methods],
                "within_cd_of_best": [m in near for m in self.methods],
            }
        )

    def to_dict(self) -> dict:
        """JSON-safe dict: statistics, per-method rows, pairs, cliques and what was dropped."""
        return json_safe(
            {
                "metric": self.metric,
                "higher_is_better": self.higher_is_better,
                "n_datasets": self.n_datasets,
                "n_methods": self.n_methods,
                "datasets": list(self.datasets),
                "friedman": self.friedman.to_dict(),
                "alpha": self.alpha,
                "q_alpha": self.q_alpha,
                "critical_difference": self.critical_difference,
                "best": self.best,
                "tied_with_best": list(self.tied_with_best),
                "within_cd_of_best": list(self.within_cd_of_best()),
                "cliques": [list(c) for c in self.cliques()],
                "methods": self.to_frame().to_dict(orient="records"),
                "pairwise": self.pairwise.to_dict(orient="records"),
                "missing": self.missing,
                "dropped_datasets": [{"dataset": d, "reason": r} for d, r in self.dropped_datasets],
                "dropped_methods": [{"method": m, "reason": r} for m, r in self.dropped_methods],
                "notes": list(self.notes),
                "n_independent": self.n_independent,
                "blocks": [{"block": b, "datasets": list(ds)} for b, ds in self.blocks],
                "block_friedman": None if self.block_friedman is None else self.block_friedman.to_dict(),
            }
        )

    def summary_text(self, *, max_methods: int = 10) -> str:
        """Plain text: the tests, then the first ``max_methods`` methods with their average ranks."""
        f = self.friedman
        lines = [
            f"{self.metric}: k = {self.n_methods} methods, N = {self.n_datasets} datasets "
            f"({self.missing.replace('_', ' ')}; {len(self.dropped_datasets)} dataset(s) and "
            f"{len(self.dropped_methods)} method(s) left out)",
            f"Friedman chi2 = {f.statistic:.3f} (df {f.df}), p = {_pvalue_text(f.p_value)}; Iman-Davenport F = "
            f"{f.iman_davenport:.3f} (df {f.df}, {f.df_denominator}), p = {_pvalue_text(f.iman_davenport_p_value)}",
            f"Nemenyi CD = {self.critical_difference:.3f} (alpha = {self.alpha:g}, q = {self.q_alpha:.3f})",
            f"best: {self.best}; tied with it (Wilcoxon-Holm): {len(self.tied_with_best) - 1} other(s); "
            f"within CD: {len(self.within_cd_of_best()) - 1} other(s)",
        ]
        for m, r in list(zip(self.methods, self.average_ranks))[:max_methods]:
            lines.append(f"  {r:7.3f}  {m}")
        if self.n_methods > max_methods:
            lines.append(f"  ... {self.n_methods - max_methods} more")
        return "\n".join(lines)


def _pvalue_text(p: float) -> str:
    return pvalue(p, target="text")


def _wilcoxon_pairs(X: np.ndarray, methods: list, ranks_avg: np.ndarray, cd: float, alpha: float, *, every: bool):
    import pandas as pd
    from scipy.stats import wilcoxon

    k = len(methods)
    rows = []
    for a in range(k if every else 1):
        for b in range(a + 1, k):
            d = X[:, a] - X[:, b]
            if np.all(d == 0):
                stat, p = 0.0, 1.0
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = wilcoxon(X[:, a], X[:, b])
                stat, p = float(res.statistic), float(res.pvalue)
                if math.isnan(p):
                    stat, p = 0.0, 1.0
            rows.append((methods[a], methods[b], float(ranks_avg[b] - ranks_avg[a]), float(d.mean()), stat, p))
    frame = pd.DataFrame(
        rows, columns=["method_a", "method_b", "rank_difference", "mean_difference", "statistic", "p_value"]
    )
    frame["p_holm"] = holm_adjust(frame["p_value"].to_numpy()) if len(frame) else []
    frame["significant"] = frame["p_holm"] <= alpha
    frame["nemenyi_significant"] = frame["rank_difference"] >= cd
    return frame


def rank_methods(
    data,
    *,
    metric: str | None = None,
    alpha: float = 0.05,
    missing: str = "drop_datasets",
    pairwise: str = "auto",
    higher_is_better: bool | None = None,
    seed=None,
    zeros_are_failures: bool = True,
    blocks=None,
) -> RankingResult:
    r"""Average ranks, Friedman / Iman–Davenport, Nemenyi CD and Wilcoxon–Holm pairs of a leaderboard.

    See the module documentation for the formulas.  Rank 1 is the best score
    (the highest, or the lowest for metrics such as time); ties share the
    average rank.  With several seeds the values are averaged per (dataset,
    method) first.  Failed runs (exact zeros, see
    [`auditad.leaderboards.cells.annotate_cells`][auditad.leaderboards.annotate_cells]) count as missing.

    Parameters
    ----------
    data : Leaderboard or pandas.DataFrame
        A leaderboard, or a datasets × methods DataFrame (index = datasets,
        NaN = missing).
    metric : str, optional
        The metric to rank (default: the only one, else ``"auroc"``).
    alpha : float, default 0.05
        Level of the tests, the CD and the Holm corrections.
    missing : {"drop_datasets", "drop_methods"}, default "drop_datasets"
        Complete case over datasets (a dataset with a missing value for any
        method leaves N), or over methods.
    pairwise : {"auto", "all", "best"}, default "auto"
        Wilcoxon tests on every pair of methods (``"all"``, Holm over the
        k(k − 1)/2 pairs) or only against the best (``"best"``, k − 1 tests);
        ``"auto"`` tests every pair up to `MAX_ALL_PAIRS` methods.
    higher_is_better : bool, optional
        For a DataFrame (default True); a leaderboard takes it from the metric.
    seed : optional
        Rank one seed of the leaderboard only.
    zeros_are_failures : bool, default True
        Exact zeros are failed runs and count as missing, in a DataFrame as in a leaderboard
        (where the rules of [`annotate_cells`][auditad.leaderboards.annotate_cells] apply); False ranks
        them as scores.
    blocks : mapping, optional
        Dataset -> block for a DataFrame whose datasets are not all independent (e.g.
        ``{"cifar100/Near-OOD": "cifar100", "cifar100/Far-OOD": "cifar100"}``); a leaderboard takes its
        blocks from the format (OpenOOD's Near-OOD and Far-OOD columns of one ID set form one block).
        The significance of the ranking is then tested on the block means (``block_friedman``).

    Returns
    -------
    RankingResult

    Raises
    ------
    InvalidInputError
        Fewer than 2 datasets or 2 methods left after dropping; an unknown metric or seed.

    References
    ----------
    J. Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", Journal of Machine
    Learning Research 7, 1–30, 2006.
    M. Friedman, "The use of ranks to avoid the assumption of normality implicit in the analysis of
    variance", Journal of the American Statistical Association 32(200), 675–701, 1937.
    S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian Journal of
    Statistics 6(2), 65–70, 1979.

    See Also
    --------
    - [`friedman_test`][auditad.leaderboards.friedman_test]
    - [`nemenyi_critical_difference`][auditad.leaderboards.nemenyi_critical_difference]
    - [`holm_adjust`][auditad.leaderboards.holm_adjust]
    - [`auditad.plotting.plot_critical_difference`][auditad.plotting.leaderboards.plot_critical_difference]: the Demšar
      diagram of the result.

    Examples
    --------
    >>> import pandas as pd
    >>> from scipy.stats import friedmanchisquare
    >>> table = pd.DataFrame({"A": [0.90, 0.85, 0.70, 0.99, 0.80], "B": [0.80, 0.86, 0.65, 0.90, 0.78],
    ...                       "C": [0.70, 0.60, 0.66, 0.80, 0.60]}, index=list("vwxyz"))
    >>> res = rank_methods(table)
    >>> res.methods, res.average_ranks.round(2).tolist()
    (('A', 'B', 'C'), [1.2, 2.0, 2.8])
    >>> round(res.friedman.statistic, 4) == round(float(friedmanchisquare(*table.to_numpy().T).statistic), 4)
    True
    >>> round(res.critical_difference, 4)
    1.4823
    """
    import pandas as pd

    alpha = check_float(alpha, name="alpha", low=0.0, high=1.0, low_open=True, high_open=True)
    missing = check_choice(missing, MISSING_POLICIES, name="missing")
    pairwise = check_choice(pairwise, PAIRWISE, name="pairwise")
    if isinstance(data, Leaderboard):
        if higher_is_better is not None:
            raise InvalidInputError("higher_is_better= is for a DataFrame; a leaderboard takes it from the metric")
        if blocks is not None:
            raise InvalidInputError("blocks= is for a DataFrame; a leaderboard takes its blocks from the format")
        metric, mean, dropped_d, dropped_m, notes = matrix_from_board(data, metric, missing, seed, zeros_are_failures)
        hib = metric_info(metric).higher_is_better
        blocks = dataset_blocks(data)
    elif isinstance(data, pd.DataFrame):
        if seed is not None:
            raise InvalidInputError("seed= is for a leaderboard; a DataFrame holds one value per cell")
        hib, metric, mean, dropped_d, dropped_m, notes = matrix_from_frame(
            data, metric, missing, higher_is_better, zeros_are_failures
        )
        if blocks is not None and not hasattr(blocks, "get"):
            raise InvalidInputError(f"blocks must map dataset names to block names, got {describe(blocks)}")
    else:
        raise InvalidInputError(f"data must be a Leaderboard or a pandas DataFrame, got {type(data).__name__}")
    if mean.shape[0] < 2 or mean.shape[1] < 2:
        raise InvalidInputError(
            f"{metric}: {mean.shape[0]} dataset(s) and {mean.shape[1]} method(s) are left after the missing cells "
            f"were handled ({missing}); ranking needs at least 2 of each"
            + (f"; dropped datasets: {[d for d, _ in dropped_d][:6]}" if dropped_d else "")
            + (f"; dropped methods: {[m for m, _ in dropped_m][:6]}" if dropped_m else "")
            + (
                "; missing='drop_methods' keeps the datasets and leaves out the methods without a value on all of them"
                if missing == "drop_datasets" and mean.shape[0] < 2
                else ""
            )
        )
    X = mean.to_numpy(dtype=np.float64)
    ranks = average_ranks(X, higher_is_better=hib)
    avg = ranks.mean(axis=0)
    order = np.argsort(avg, kind="stable")
    methods = [str(mean.columns[j]) for j in order]
    X, ranks, avg = X[:, order], ranks[:, order], avg[order]
    fr = friedman_test(X, higher_is_better=hib)
    n, k = X.shape
    cd = nemenyi_critical_difference(k, n, alpha=alpha)
    q = cd / math.sqrt(k * (k + 1) / (6.0 * n))
    signed = X if hib else -X
    every = pairwise == "all" or (pairwise == "auto" and k <= MAX_ALL_PAIRS)
    if not every:
        notes.append(
            f"Wilcoxon tests against the best method only ({k - 1} tests; pairwise='all' tests all "
            f"{k * (k - 1) // 2} pairs)"
        )
    pairs = _wilcoxon_pairs(signed, methods, avg, cd, alpha, every=every)
    if not hib:
        pairs["mean_difference"] = -pairs["mean_difference"]
    control = pairs[pairs["method_a"] == methods[0]]
    p_ctrl = holm_adjust(control["p_value"].to_numpy())
    tied = (methods[0],) + tuple(m for m, p in zip(control["method_b"], p_ctrl) if p > alpha)
    scores = pd.DataFrame(X, index=list(mean.index), columns=methods)
    rank_frame = pd.DataFrame(ranks, index=list(mean.index), columns=methods)
    grouped, block_fr = _blocks(scores, blocks or {}, hib, notes)
    return RankingResult(
        metric=metric,
        higher_is_better=hib,
        methods=tuple(methods),
        average_ranks=avg,
        scores=scores,
        ranks=rank_frame,
        friedman=fr,
        alpha=alpha,
        q_alpha=q,
        critical_difference=cd,
        pairwise=pairs,
        tied_with_best=tied,
        missing=missing,
        dropped_datasets=tuple(dropped_d),
        dropped_methods=tuple(dropped_m),
        notes=tuple(notes),
        blocks=grouped,
        block_friedman=block_fr,
    )


def _blocks(scores, blocks, hib: bool, notes: list):
    """The ranked datasets grouped by block (empty when none groups two) and Friedman on the block means."""
    names = [str(blocks.get(d, d)) for d in scores.index]
    groups = {}
    for d, b in zip(scores.index, names):
        groups.setdefault(b, []).append(str(d))
    if len(groups) == len(names):
        return (), None
    notes.append(
        f"{len(names)} datasets form {len(groups)} independent block(s) ("
        + "; ".join(f"{b}: {', '.join(ds)}" for b, ds in groups.items() if len(ds) > 1)
        + "): columns of one block share their data, so significance is tested on the block means"
    )
    grouped = tuple((b, tuple(ds)) for b, ds in groups.items())
    if len(groups) < 2:
        return grouped, None
    means = scores.groupby(names, sort=False).mean().to_numpy(dtype=np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedValueWarning)
        return grouped, friedman_test(means, higher_is_better=hib)
