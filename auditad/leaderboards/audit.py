r"""Audit of a published leaderboard: the findings first, then whether its ranking means anything.

[`audit_leaderboard`][auditad.leaderboards.audit_leaderboard] reads a leaderboard (or takes one read by
[`read_leaderboard`][auditad.leaderboards.read_leaderboard]), annotates every cell
([`annotate_cells`][auditad.leaderboards.annotate_cells]), runs every check of
`CHECKS` metric by metric and ranks the
methods of each score metric ([`rank_methods`][auditad.leaderboards.rank_methods]).
The result lists the failed findings first, then the warnings, then what
passed, each naming the methods, datasets and seeds behind it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .._json import json_safe
from .._validation import check_choice, check_float, check_int, describe
from ..errors import InvalidInputError
from ..findings import status_of, verdict
from .cells import annotate_cells
from .chance_checks import CELL_CORRECTIONS
from .findings import CHECKS, STATUSES, Finding, ranking_findings, run_checks
from .ranking import MISSING_POLICIES, RankingResult, rank_methods
from .readers import Leaderboard, read_leaderboard
from .schema import metric_info

__all__ = ["CELL_CHECKS", "CellGrid", "LeaderboardAudit", "audit_leaderboard"]

#: The checks whose items name cells (a method, a dataset or both); they mark the cells of [`CellGrid`][auditad.leaderboards.audit.CellGrid].
CELL_CHECKS = (
    "failed_runs",
    "single_run",
    "inverted",
    "below_half_untested",
    "label_direction",
    "near_chance",
    "seed_variance",
    "below_chance_level",
)


@dataclass(frozen=True, eq=False)
class CellGrid:
    """Methods × datasets view of one metric of a leaderboard audit (see `LeaderboardAudit.grid`).

    Attributes
    ----------
    metric : str
    methods, datasets : tuple of str
        Row and column names: the methods in ranking order (best first, unranked ones after them), the
        datasets in table order.
    values : numpy.ndarray of shape (n_methods, n_datasets)
        Mean of the usable values over the seeds; NaN where there is none.
    failed : numpy.ndarray of bool
        A value of the pair is a failed run stored as a score.
    missing : numpy.ndarray of bool
        The pair has no value at all (blank, NaN or a marker on every seed).
    status : numpy.ndarray of str
        ``""``, ``"warn"`` or ``"fail"``: the worst finding of `CELL_CHECKS` naming the cell (an item
        naming a method marks its row, one naming a dataset its column).
    checks : numpy.ndarray of str
        The checks naming the cell, comma-separated.
    """

    metric: str
    methods: tuple
    datasets: tuple
    values: object
    failed: object
    missing: object
    status: object
    checks: object

    def to_frame(self):
        """One row per (method, dataset): value, failed, missing, status, checks (tidy)."""
        import numpy as np
        import pandas as pd

        m, d = np.meshgrid(np.arange(len(self.methods)), np.arange(len(self.datasets)), indexing="ij")
        return pd.DataFrame(
            {
                "metric": self.metric,
                "method": np.asarray(self.methods, dtype=object)[m.ravel()],
                "dataset": np.asarray(self.datasets, dtype=object)[d.ravel()],
                "value": self.values.ravel(),
                "failed": self.failed.ravel(),
                "missing": self.missing.ravel(),
                "status": self.status.ravel(),
                "checks": self.checks.ravel(),
            }
        )


@dataclass(frozen=True, eq=False)
class LeaderboardAudit:
    """Findings and rankings of one leaderboard (see [`audit_leaderboard`][auditad.leaderboards.audit_leaderboard]).

    Attributes
    ----------
    board : Leaderboard
        The table audited.
    findings : tuple of Finding
        Failed first, then warnings, then passes; within a status in check order.
    rankings : tuple of RankingResult
        One per ranked metric.
    cells : pandas.DataFrame
        The annotated cells (failed, failure, chance, adjusted, null_sd, usable).
    skipped : tuple of (check, metric, reason)
        Checks that could not run on this table, and why.
    settings : dict
        alpha, correction, majority, max_seed_range, min_datasets, missing, pairwise.
    tests : pandas.DataFrame or None
        One row per AUROC (dataset, method) cell: the test against random scoring (``basis``,
        ``statistic``, ``p_less``, ``p_greater``, ``p_two`` and their adjusted values) and the
        ``decision`` (``"inverted"``, ``"near chance"``, ``"below ½, untested"`` or ``""``); see
        [`cell_tests`][auditad.leaderboards.cell_tests].

    References
    ----------
    J. Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", JMLR 7, 1–30, 2006.
    G. O. Campos et al., "On the evaluation of unsupervised outlier detection: measures, datasets, and an
    empirical study", Data Mining and Knowledge Discovery 30(4), 891–927, 2016.

    See Also
    --------
    - [`audit_leaderboard`][auditad.leaderboards.audit_leaderboard]: builds it.
    - [`auditad.plotting.plot_critical_difference`][auditad.plotting.leaderboards.plot_critical_difference]: the diagram of a
      ranking.
    """

    board: Leaderboard
    findings: tuple
    rankings: tuple
    cells: object
    skipped: tuple = ()
    settings: dict = field(default_factory=dict)
    tests: object = None

    @property
    def status(self) -> str:
        """The worst status of the findings (``"pass"`` when there are none)."""
        return verdict(self.findings).value

    def finding(self, check: str, metric: str | None = None) -> Finding:
        """The finding of ``check`` (on ``metric`` when the table has several)."""
        found = [f for f in self.findings if f.check == check and (metric is None or f.metric == metric)]
        if len(found) != 1:
            raise KeyError(
                f"{len(found)} findings match check={check!r}, metric={metric!r}; checks run: "
                f"{sorted({(f.check, f.metric) for f in self.findings})}"
            )
        return found[0]

    def ranking(self, metric: str | None = None) -> RankingResult:
        """The ranking of ``metric`` (default: the only one, else ``"auroc"``)."""
        if metric is None:
            if len(self.rankings) == 1:
                return self.rankings[0]
            metric = "auroc"
        for r in self.rankings:
            if r.metric == metric:
                return r
        raise KeyError(f"no ranking of metric {metric!r}; ranked: {[r.metric for r in self.rankings]}")

    def grid(self, metric: str | None = None) -> CellGrid:
        """The methods × datasets view of ``metric`` (default: the first audited metric) with its flagged cells."""
        import numpy as np

        metrics = tuple(dict.fromkeys(self.cells["metric"].tolist()))
        if metric is None:
            metric = "auroc" if "auroc" in metrics else metrics[0]
        if metric not in metrics:
            raise InvalidInputError(f"metric {metric!r} was not audited; audited metrics: {list(metrics)}")
        cells = self.cells[self.cells["metric"] == metric]
        ranked = next((r.methods for r in self.rankings if r.metric == metric), ())
        methods = tuple(ranked) + tuple(m for m in dict.fromkeys(cells["method"].tolist()) if m not in ranked)
        datasets = tuple(dict.fromkeys(cells["dataset"].tolist()))
        mi = {m: i for i, m in enumerate(methods)}
        di = {d: j for j, d in enumerate(datasets)}
        shape = (len(methods), len(datasets))
        rows = cells["method"].map(mi).to_numpy(dtype=np.int64)
        cols = cells["dataset"].map(di).to_numpy(dtype=np.int64)
        usable = cells["usable"].to_numpy(dtype=bool)
        value = cells["value"].to_numpy(dtype=np.float64)
        total = np.zeros(shape)
        count = np.zeros(shape)
        np.add.at(total, (rows[usable], cols[usable]), value[usable])
        np.add.at(count, (rows[usable], cols[usable]), 1.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.where(count > 0, total / np.maximum(count, 1.0), np.nan)
        failed = np.zeros(shape, dtype=bool)
        failed[rows[cells["failed"].to_numpy(dtype=bool)], cols[cells["failed"].to_numpy(dtype=bool)]] = True
        present = np.zeros(shape, dtype=bool)
        finite = np.isfinite(value)
        present[rows[finite], cols[finite]] = True
        listed = np.zeros(shape, dtype=bool)
        listed[rows, cols] = True
        missing = listed & ~present
        rank = np.zeros(shape, dtype=np.int64)
        names = [[set() for _ in datasets] for _ in methods]
        for f in self.findings:
            if f.metric != metric or f.check not in CELL_CHECKS or f.status == "pass":
                continue
            level = STATUSES.index(f.status)
            for it in f.items:
                r = [mi[it.method]] if it.method in mi else (range(shape[0]) if it.method is None else [])
                c = [di[it.dataset]] if it.dataset in di else (range(shape[1]) if it.dataset is None else [])
                if it.method is None and it.dataset is None:
                    continue
                for i in r:
                    for j in c:
                        rank[i, j] = max(rank[i, j], level)
                        names[i][j].add(f.check)
        status = np.array(STATUSES, dtype=object)[rank]
        status[rank == 0] = ""
        order = {c: k for k, c in enumerate(CELL_CHECKS)}
        checks = np.array([[", ".join(sorted(n, key=order.get)) for n in row] for row in names], dtype=object)
        return CellGrid(
            metric=metric,
            methods=methods,
            datasets=datasets,
            values=values,
            failed=failed,
            missing=missing,
            status=status.astype(str),
            checks=checks.reshape(shape),
        )

    def to_frame(self):
        """One row per finding item (a finding without items gives one row): tidy, snake_case columns."""
        import pandas as pd

        rows = []
        for f in self.findings:
            base = {
                "check": f.check,
                "status": f.status,
                "metric": f.metric,
                "number": f.number,
                "threshold": f.threshold,
                "message": f.message,
            }
            if not f.items:
                rows.append(
                    {**base, "method": None, "dataset": None, "seed": None, "value": float("nan"), "detail": ""}
                )
            for it in f.items:
                rows.append(
                    {
                        **base,
                        "method": it.method,
                        "dataset": it.dataset,
                        "seed": it.seed,
                        "value": it.value,
                        "detail": it.detail,
                    }
                )
        return pd.DataFrame(
            rows,
            columns=[
                "check",
                "status",
                "metric",
                "number",
                "threshold",
                "method",
                "dataset",
                "seed",
                "value",
                "detail",
                "message",
            ],
        )

    def to_dict(self) -> dict:
        """JSON-safe dict: source, format, status, findings, rankings, skipped checks, reader notes, settings."""
        b = self.board
        return json_safe(
            {
                "kind": "leaderboard",
                "source": b.source,
                "format": b.format,
                "status": self.status,
                "metrics": list(b.metrics),
                "n_datasets": len(b.datasets),
                "n_methods": len(b.methods),
                "seeds": list(b.seeds),
                "scales": dict(b.scales),
                "settings": dict(self.settings),
                "findings": [f.to_dict() for f in self.findings],
                "rankings": [r.to_dict() for r in self.rankings],
                "skipped": [{"check": c, "metric": m, "reason": r} for c, m, r in self.skipped],
                "notes": list(b.notes),
            },
            other=str,
        )

    def summary_text(self, *, max_items: int = 8) -> str:
        """Plain text for a terminal: failed and warned findings with their items, passes, rankings, notes."""
        b = self.board
        seeds = f"seeds {', '.join(map(str, b.seeds))}" if b.seeds else "no seeds"
        lines = [
            f"Leaderboard audit of {b.source} ({b.format}; {', '.join(b.metrics)}; {len(b.datasets)} datasets × "
            f"{len(b.methods)} methods; {seeds}): {self.status.upper()}"
        ]
        for f in self.findings:
            lines.append(f.text(max_items=max_items if f.status != "pass" else 0))
        for c, m, r in self.skipped:
            lines.append(f"SKIP {c} [{m}]: {r}")
        for r in self.rankings:
            lines.append("")
            lines.append("Ranking " + r.summary_text())
        if b.notes:
            lines.append("")
            lines.extend(f"note: {n}" for n in b.notes)
        return "\n".join(lines)


def audit_leaderboard(
    board,
    *,
    metrics=None,
    alpha: float = 0.05,
    correction: str = "holm",
    majority: float = 0.5,
    max_seed_range: float = 0.1,
    missing: str = "drop_datasets",
    pairwise: str = "auto",
    min_datasets: int = 5,
) -> LeaderboardAudit:
    r"""Audit a published leaderboard: failed runs, single runs, inversions, label direction, noise, seeds, ranking.

    Each check of `CHECKS` runs on each
    metric of the table (the AUROC checks on AUROC metrics only), then each
    score metric is ranked ([`rank_methods`][auditad.leaderboards.rank_methods]:
    average ranks, Friedman and Iman–Davenport, Nemenyi
    \(CD = q_\alpha\sqrt{k(k+1)/(6N)}\), Wilcoxon–Holm) and the ranking
    gets its own findings (significance, size, methods tied with the best,
    coverage).  The formulas and thresholds are those of
    `auditad.leaderboards.findings` and `auditad.leaderboards.ranking`.

    Parameters
    ----------
    board : Leaderboard or str or Path
        A table from [`read_leaderboard`][auditad.leaderboards.read_leaderboard], or a file
        read with its defaults.
    metrics : sequence of str, optional
        The metrics to audit (default: all of the table).
    alpha : float, default 0.05
        Level of every test.
    correction : {"holm", "bh", "none"}, default "holm"
        Multiplicity correction of the per-cell tests against random scoring, over all tested
        (dataset, method) cells of a metric: Holm (family-wise error) or Benjamini–Hochberg (false
        discovery rate).  The summary names it.
    majority : float, default 0.5
        A dataset's label direction is called reversed when more than this share of its methods is
        significantly below ½ and a sign test against those significantly above rejects.
    max_seed_range : float, default 0.1
        Largest acceptable max − min of a (dataset, method) over seeds.
    missing : {"drop_datasets", "drop_methods"}, default "drop_datasets"
        Missing-cell policy of the ranking (complete case over datasets by default).
    pairwise : {"auto", "all", "best"}, default "auto"
        Which pairs of methods get a Wilcoxon test (see [`rank_methods`][auditad.leaderboards.rank_methods]).
    min_datasets : int, default 5
        Fewest independent datasets on which the ranking's significance is claimed; below it the
        finding says "too few datasets to rank" (never a pass).  Columns that share their data
        (OpenOOD's Near-OOD and Far-OOD of one ID set) count once.

    Returns
    -------
    LeaderboardAudit

    Raises
    ------
    InvalidInputError
        An unknown metric or a setting out of range (and every reading error of
        [`read_leaderboard`][auditad.leaderboards.read_leaderboard]).

    References
    ----------
    J. Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", Journal of Machine
    Learning Research 7, 1–30, 2006.
    G. O. Campos, A. Zimek, J. Sander, R. J. G. B. Campello, B. Micenková, E. Schubert, I. Assent,
    M. E. Houle, "On the evaluation of unsupervised outlier detection: measures, datasets, and an
    empirical study", Data Mining and Knowledge Discovery 30(4), 891–927, 2016.
    M. Friedman, "The use of ranks to avoid the assumption of normality implicit in the analysis of
    variance", Journal of the American Statistical Association 32(200), 675–701, 1937.
    S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian Journal of
    Statistics 6(2), 65–70, 1979.

    See Also
    --------
    - [`read_leaderboard`][auditad.leaderboards.read_leaderboard]
    - [`rank_methods`][auditad.leaderboards.rank_methods]
    - [`plot_critical_difference`][auditad.plotting.leaderboards.plot_critical_difference]

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "roc.csv"
    >>> _ = path.write_text(
    ...     "Data,#Samples,# Dimensions,Outlier Perc,IForest,LOF,KNN,VAE\n"
    ...     "pima,768,8,34.8958,0.6806,0.6271,0.7078,0.0\n"
    ...     "wbc,378,30,5.5556,0.9310,0.9349,0.9366,0.0\n"
    ...     "vertebral,240,6,12.5000,0.3905,0.4081,0.3817,0.0\n")
    >>> audit = audit_leaderboard(path)
    >>> audit.status
    'fail'
    >>> [(f.check, [it.label() for it in f.items]) for f in audit.findings if f.status == "fail"]
    [('failed_runs', ['VAE'])]
    >>> str(audit.finding("label_direction").status)   # vertebral: all below ½, none significantly at 40 % of 240
    'pass'
    >>> sorted(audit.tests.loc[audit.tests.dataset == "vertebral", "decision"])
    ['near chance', 'near chance', 'near chance']
    """
    if isinstance(board, (str, Path)):
        board = read_leaderboard(board)
    if not isinstance(board, Leaderboard):
        raise InvalidInputError(f"board must be a Leaderboard or a path, got {type(board).__name__}")
    alpha = check_float(alpha, name="alpha", low=0.0, high=1.0, low_open=True, high_open=True)
    correction = check_choice(correction, CELL_CORRECTIONS, name="correction")
    min_datasets = check_int(min_datasets, name="min_datasets", low=2)
    majority = check_float(majority, name="majority", low=0.0, high=1.0, high_open=True)
    max_seed_range = check_float(max_seed_range, name="max_seed_range", low=0.0)
    missing = check_choice(missing, MISSING_POLICIES, name="missing")
    if metrics is None:
        metrics = board.metrics
    else:
        if isinstance(metrics, str):
            metrics = [metrics]
        unknown = [m for m in metrics if m not in board.metrics]
        if unknown:
            raise InvalidInputError(
                f"metrics {unknown} are not in the leaderboard (metrics: {list(board.metrics)}); "
                f"got {describe(metrics)}"
            )
        metrics = tuple(dict.fromkeys(metrics))
    cells = annotate_cells(board)
    cells = cells[cells["metric"].isin(list(metrics))]
    findings, skipped, tests = run_checks(
        cells, alpha=alpha, correction=correction, majority=majority, max_seed_range=max_seed_range
    )
    rankings = []
    for m in metrics:
        if metric_info(m).name == "time":
            skipped.append(("ranking", m, "run time is a cost, not a quality: not ranked"))
            continue
        try:
            res = rank_methods(board, metric=m, alpha=alpha, missing=missing, pairwise=pairwise)
        except InvalidInputError as exc:
            skipped.append(("ranking", m, str(exc)))
            continue
        rankings.append(res)
        findings.extend(ranking_findings(res, min_datasets=min_datasets))
    order = {c: i for i, c in enumerate(CHECKS)}
    metric_order = {m: i for i, m in enumerate(metrics)}
    findings.sort(key=lambda f: (-status_of(f).rank, metric_order.get(f.metric, 0), order.get(f.check, 99)))
    settings = {
        "alpha": alpha,
        "correction": correction,
        "majority": majority,
        "max_seed_range": max_seed_range,
        "min_datasets": min_datasets,
        "missing": missing,
        "pairwise": pairwise,
    }
    return LeaderboardAudit(
        board=board,
        findings=tuple(findings),
        rankings=tuple(rankings),
        cells=cells,
        skipped=tuple(skipped),
        settings=settings,
        tests=tests,
    )
