r"""Per-cell facts of a leaderboard: failed runs, chance levels, chance-adjusted values and null spreads.

[`annotate_cells`][auditad.leaderboards.annotate_cells] adds to the tidy table of a
[`Leaderboard`][auditad.leaderboards.Leaderboard] the columns the findings and the
ranking read:

``failed``, ``failure``
    A value that is a failed run stored as a score: a method whose every value
    of a metric is exactly 0 (``"zero column"``), a (dataset, seed) on which
    every method is exactly 0 (``"zero row"``), or an isolated exact 0 of
    AUROC / AP / AUPR (``"exact zero"``: AP and AUPR are never 0 for real,
    AUROC only for a ranking inverted without a single exception; a
    precision@n or F1 of 0 can be real and is not flagged alone).  Real scores
    near 0 (0.001) are not failures.
``chance``, ``adjusted``, ``exact_adjusted``
    ``chance`` is the expected value \(E[m]\) of the metric under random
    scores -- ½ for AUROC, the exact \(E[\mathrm{AP}]\) at the class counts
    for AP, the prevalence π = n₊/(n₊+n₋) for AUPR and precision@n.
    ``adjusted`` is the chance-adjusted value *as Campos et al. (2016, §2.3)
    define it*,

    \[
    m_{adj} = \frac{m - E[m]}{1 - E[m]},
    \]

    with their expectation: ½ for AUROC and π for AP, precision@n and AUPR
    (Campos take \(E[\mathrm{AP}] = π\), the large-sample value).  At 3
    anomalies and 5 normals an AP of 0.8 gives (0.8 − 0.375)/(1 − 0.375) =
    0.680.  ``exact_adjusted`` is the same formula with the exact
    \(E[\mathrm{AP}]\) at the counts instead of π (0.528 there, giving
    0.576): the exact-expectation variant of Hubert and Arabie's correction
    for chance, which differs from Campos's only for AP and only at small n₊.
    Both are 0 at chance, 1 for a perfect ranking, negative below chance.
``null_sd``
    For AUROC with known counts, the standard deviation of AUROC under random
    scores, \(\sigma_0 = \sqrt{(n_+ + n_- + 1)/(12\,n_+ n_-)}\) (Mann–Whitney;
    [`auditad.nulls.auroc_null_moments`][auditad.nulls.auroc_null_moments]).
``usable``
    A finite value that is not a failed run.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import InvalidInputError
from .readers import Leaderboard
from .schema import metric_info

__all__ = ["FAILURES", "annotate_cells", "seed_key", "is_auroc"]

#: Reasons a value is taken for a failed run.
FAILURES = ("zero column", "zero row", "exact zero")
#: Metrics on which an isolated exact 0 is no real score (AP and AUPR are > 0 whenever there is an anomaly;
#: AUROC is 0 only for a ranking inverted without one exception).  Precision@n or F1 can be 0 for real.
_ZERO_IS_FAILURE = ("auroc", "ap", "aupr")


def seed_key(seeds):
    """Seeds as sortable text keys (``""`` for a table without seeds), for grouping without dropping None."""
    return seeds.map(lambda s: "" if s is None or (isinstance(s, float) and math.isnan(s)) else str(s))


def is_auroc(metric: str) -> bool:
    """Whether a metric is an AUROC (``auroc``, ``image_auroc``, ``pixel_auroc``)."""
    return metric_info(metric).name == "auroc"


def _chance(spec, n_pos, n_neg, cache: dict) -> float:
    if spec.chance == "half":
        return 0.5
    if math.isnan(n_pos):
        return math.nan
    if spec.chance == "prevalence":
        return n_pos / (n_pos + n_neg)
    if spec.chance == "average_precision":
        key = (int(n_pos), int(n_neg))
        if key not in cache:
            from auditad.nulls import expected_average_precision

            cache[key] = expected_average_precision(*key)
        return cache[key]
    return math.nan


def annotate_cells(board: Leaderboard):
    r"""The tidy table with the per-cell columns of the module documentation.

    Parameters
    ----------
    board : Leaderboard

    Returns
    -------
    pandas.DataFrame
        A copy of ``board.table`` with ``seed_key``, ``failed``, ``failure``,
        ``chance``, ``adjusted`` (Campos), ``exact_adjusted``, ``null_sd`` and ``usable``.

    References
    ----------
    G. O. Campos, A. Zimek, J. Sander, R. J. G. B. Campello, B. Micenková, E. Schubert,
    I. Assent, M. E. Houle, "On the evaluation of unsupervised outlier detection: measures,
    datasets, and an empirical study", Data Mining and Knowledge Discovery 30(4), 891–927,
    2016 (the chance-adjusted measures, §2.3).
    L. Hubert, P. Arabie, "Comparing partitions", Journal of Classification 2, 193–218, 1985
    (the correction for chance (m − E[m]) / (max − E[m])).
    H. B. Mann, D. R. Whitney, "On a test of whether one of two random variables is
    stochastically larger than the other", Annals of Mathematical Statistics 18, 1947.

    See Also
    --------
    - [`auditad.leaderboards.audit_leaderboard`][auditad.leaderboards.audit_leaderboard]: reads these columns.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from auditad.leaderboards import read_leaderboard
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "roc.csv"
    >>> _ = path.write_text("Data,#Samples,# Dimensions,Outlier Perc,IForest,VAE\n"
    ...                     "pima,768,8,34.8958,0.6806,0.0\nwbc,378,30,5.5556,0.9310,0.0\n")
    >>> cells = annotate_cells(read_leaderboard(path))
    >>> cells[["dataset", "method", "value", "failure", "adjusted"]]
      dataset   method   value      failure  adjusted
    0    pima  IForest  0.6806                 0.3612
    1    pima      VAE  0.0000  zero column   -1.0000
    2     wbc  IForest  0.9310                 0.8620
    3     wbc      VAE  0.0000  zero column   -1.0000
    """
    if not isinstance(board, Leaderboard):
        raise InvalidInputError(f"board must be a Leaderboard (from read_leaderboard), got {type(board).__name__}")
    import pandas as pd

    df = board.table.copy()
    n = df.shape[0]
    df["seed_key"] = seed_key(df["seed"])
    value = df["value"].to_numpy(dtype=np.float64)
    finite = np.isfinite(value)
    zero = finite & (value == 0.0)
    fin_s, zero_s = pd.Series(finite, index=df.index), pd.Series(zero, index=df.index)

    def all_zero(keys):
        nf = fin_s.groupby([df[k] for k in keys], sort=False).transform("sum").to_numpy()
        nz = zero_s.groupby([df[k] for k in keys], sort=False).transform("sum").to_numpy()
        return (nf >= 2) & (nz == nf)

    per_method = all_zero(["metric", "method"])
    per_row = all_zero(["metric", "dataset", "seed_key"])
    metrics = df["metric"].to_numpy()
    specs = {m: metric_info(m) for m in dict.fromkeys(metrics.tolist())}
    alone = np.isin(metrics, [m for m, sp in specs.items() if sp.name in _ZERO_IS_FAILURE])
    failure = np.full(n, "", dtype=object)
    failure[zero & alone] = "exact zero"
    failure[per_row] = "zero row"
    failure[per_method] = "zero column"
    failed = failure != ""
    chance = np.full(n, np.nan)
    null_sd = np.full(n, np.nan)
    n_pos = df["n_pos"].to_numpy(dtype=np.float64)
    n_neg = df["n_neg"].to_numpy(dtype=np.float64)
    counted = ~np.isnan(n_pos)
    pairs = {}
    if counted.any():
        uniq, inverse = np.unique(np.stack([n_pos[counted], n_neg[counted]], axis=1), axis=0, return_inverse=True)
        pairs = {"uniq": uniq, "inverse": inverse.ravel()}
    cache: dict = {}
    for metric, spec in specs.items():
        rows = metrics == metric
        if spec.chance == "half":
            chance[rows] = 0.5
        elif spec.chance in ("prevalence", "average_precision") and pairs:
            per_pair = np.array([_chance(spec, a, b, cache) for a, b in pairs["uniq"]])
            sel = rows[counted]
            chance[np.flatnonzero(counted)[sel]] = per_pair[pairs["inverse"][sel]]
        if spec.name == "auroc" and pairs:
            from auditad.nulls import auroc_null_moments

            per_pair = np.array([auroc_null_moments(int(a), int(b))[1] for a, b in pairs["uniq"]])
            sel = rows[counted]
            null_sd[np.flatnonzero(counted)[sel]] = per_pair[pairs["inverse"][sel]]
    campos = chance.copy()
    ap_rows = np.isin(metrics, [m for m, sp in specs.items() if sp.chance == "average_precision"])
    with np.errstate(invalid="ignore", divide="ignore"):
        campos[ap_rows] = n_pos[ap_rows] / (n_pos[ap_rows] + n_neg[ap_rows])
        adjusted = (value - campos) / (1.0 - campos)
        exact_adjusted = (value - chance) / (1.0 - chance)
    df["failed"] = failed
    df["failure"] = failure
    df["chance"] = chance
    df["adjusted"] = adjusted
    df["exact_adjusted"] = exact_adjusted
    df["null_sd"] = null_sd
    df["usable"] = finite & ~failed
    return df
