r"""Audit a published per-class AUROC table: dispersion, near-random, inversion and direction instability.

Papers on class-split anomaly detection report one AUROC per held-out (or
normal) class and per method.  From such a table alone, [`audit_results`][auditad.results.audit_results]
computes, per (benchmark, representation, method), the statistics of
"Testing the Test" -- mean, population variance σ²_AUC, minimum and maximum,
the near-random rate ρ_rnd(ε), the inversion rate ρ_inv and the direction
instability ρ_dir(ε), each with the classes behind it -- by calling
[`auditad.protocol.instability_rates`][auditad.protocol.instability_rates].  When the table gives the test
counts of a class (``n_pos`` anomalies, ``n_neg`` normals), each AUROC is also
placed on its null distribution ([`auditad.nulls.null_distribution`][auditad.nulls.null_distribution];
exact Mann–Whitney where feasible) and given a Hanley–McNeil interval.

Layouts (``docs/results.md``): *long*, one row per method and class with the
columns ``method`` (or ``detector``), ``class``, ``auroc`` and optionally
``benchmark``, ``representation``, ``n_pos``, ``n_neg``, ``epsilon``; *wide*,
one row per class with one column per method.  Percentages need
``percent=True``; values above 1 without it are refused, never guessed.

Modules: `per_class` (`audit_results` and its results), `reading` (each class's significance, the
findings and the default gates), `table` (reading the table), `pages` (the summary with its gates, the files
written), `leaderboard` (a leaderboard audit's summary, gates and files), `detect` (which kind of table a file
holds). The pages themselves are rendered by `auditad.report` (`results_page`, `leaderboard_page`).
"""

from ..findings import SIGNIFICANCE
from .pages import ResultsRun, summary_with_gates, write_results_report
from .per_class import (
    LAYOUTS,
    RESULTS_SCHEMA_VERSION,
    ResultsAudit,
    ResultsGroup,
    audit_results,
    auroc_interval,
    hanley_mcneil_se,
)
from .reading import GROUP_STATISTICS
from .table import read_results_table

__all__ = [
    "LAYOUTS",
    "RESULTS_SCHEMA_VERSION",
    "GROUP_STATISTICS",
    "SIGNIFICANCE",
    "hanley_mcneil_se",
    "auroc_interval",
    "read_results_table",
    "ResultsGroup",
    "ResultsAudit",
    "audit_results",
    "summary_with_gates",
    "ResultsRun",
    "write_results_report",
]
