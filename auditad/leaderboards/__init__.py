"""Audit of published leaderboards: read ADBench / PyOD / OpenOOD / anomalib / generic tables, flag, rank.

Data flow, one way: `readers` (file → [`Leaderboard`][auditad.leaderboards.Leaderboard]) → `cells`
(per-cell facts: failed runs, chance levels) → `chance_checks` (every AUROC cell tested against random
scoring, [`cell_tests`][auditad.leaderboards.cell_tests]) → `ranking` (average ranks,
Friedman, Nemenyi, Wilcoxon–Holm → [`RankingResult`][auditad.leaderboards.RankingResult]) → `findings`
(checks → [`Finding`][auditad.leaderboards.Finding]) → `audit`
([`audit_leaderboard`][auditad.leaderboards.audit_leaderboard] →
[`LeaderboardAudit`][auditad.leaderboards.LeaderboardAudit]). The figures of a ranking and of an audit are
drawn by `auditad.plotting` ([`plot_critical_difference`][auditad.plotting.leaderboards.plot_critical_difference],
[`plot_leaderboard_heatmap`][auditad.plotting.leaderboards.plot_leaderboard_heatmap]).

See ``docs/leaderboards.md`` for the formats, the checks and their thresholds.

References
----------
J. Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", JMLR 7, 1–30, 2006.
G. O. Campos et al., "On the evaluation of unsupervised outlier detection: measures, datasets, and an
empirical study", Data Mining and Knowledge Discovery 30(4), 891–927, 2016.
M. Friedman, "The use of ranks to avoid the assumption of normality implicit in the analysis of
variance", JASA 32(200), 675–701, 1937.
S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian Journal of
Statistics 6(2), 65–70, 1979.
"""

from .adbench_counts import adbench_test_counts
from .audit import CELL_CHECKS, CellGrid, LeaderboardAudit, audit_leaderboard
from .cells import annotate_cells
from .chance_checks import CELL_CORRECTIONS, EXTRA_CHECKS, bh_adjust, cell_tests
from .findings import CHECKS, Finding, FindingItem
from .ranking import (
    MISSING_POLICIES,
    FriedmanResult,
    RankingResult,
    average_ranks,
    friedman_test,
    holm_adjust,
    nemenyi_critical_difference,
    rank_methods,
)
from .reading import best_vs_rest, ranking_reading
from .readers import (
    FORMATS,
    METRICS,
    TABLE_COLUMNS,
    Leaderboard,
    MetricSpec,
    UnknownFormatError,
    combine_leaderboards,
    read_leaderboard,
)

__all__ = [
    "FORMATS",
    "METRICS",
    "TABLE_COLUMNS",
    "CHECKS",
    "MISSING_POLICIES",
    "MetricSpec",
    "Leaderboard",
    "UnknownFormatError",
    "read_leaderboard",
    "combine_leaderboards",
    "annotate_cells",
    "adbench_test_counts",
    "cell_tests",
    "bh_adjust",
    "CELL_CORRECTIONS",
    "EXTRA_CHECKS",
    "Finding",
    "FindingItem",
    "FriedmanResult",
    "RankingResult",
    "average_ranks",
    "friedman_test",
    "nemenyi_critical_difference",
    "holm_adjust",
    "rank_methods",
    "best_vs_rest",
    "ranking_reading",
    "LeaderboardAudit",
    "CellGrid",
    "CELL_CHECKS",
    "audit_leaderboard",
]
