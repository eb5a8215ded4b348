r"""The result of anomaly-free model selection and the display names of its selectors.

[`SelectionResult`][auditad.selection.SelectionResult] keeps every per-item table of a run (one row per
task × candidate, per probe, per estimate, per selection unit × selector) and
derives the summaries on demand: [`SelectionResult.summary_frame`][auditad.selection.SelectionResult.summary_frame]
(means
over units, like Table 1 of K. Wilkinghoff and Z.-H. Tan, "Can We Predict
Anomaly Detection Performance from Embedding-Space Geometry?"),
[`SelectionResult.selector_summary`][auditad.selection.SelectionResult.selector_summary] and
[`SelectionResult.best`][auditad.selection.SelectionResult.best].
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from .._json import json_safe
from .._validation import check_choice
from ..errors import InvalidInputError
from .choices import BASELINES, BEST_CRITERIA, SUMMARY_BY

__all__ = ["SelectionResult", "SelectorSummary", "pretty_label"]

_PRETTY_KIND = {
    "inlier_variance": "Inlier Variance",
    "auc_bound": "AUC Bound",
    "robust_bound": "Robust Bound",
    "pseudo_auc": "Pseudo AUC",
    "npd": "NPD",
    "oracle": "Oracle",
    "random": "Random Selection",
    "fixed": "Fixed Selection",
}
_PRETTY_PROBE = {
    "random": "Random",
    "feature": "Feature",
    "sequence": "Sequence",
    "element": "Element",
    "cross_domain": "Cross-Domain",
    "cross_class": "Cross-Class",
    "cross_attribute": "Cross-Attribute",
    "diverse": "Diverse",
}


@dataclass(frozen=True)
class SelectorSummary:
    r"""One selector's judgement over the selection units of a run (a row of the summary table).

    Attributes
    ----------
    label : str
        Selector label: a baseline (``"oracle"``, ``"random"``, ``"fixed"``) or
        an estimator label such as ``"pseudo_auc[diverse]"``.
    name : str
        Display name ([`pretty_label`][auditad.selection.pretty_label]).
    kind : str
        Estimator kind or baseline name.
    probe : str or None
        Probe of the estimator (None for ``inlier_variance`` and the baselines).
    rho_rank, a_pair, regret : float
        Means over the judged units of \(\rho_{rank}\), \(A_{pair}\) and
        regret (nan when undefined on every unit, e.g. ρ of Fixed selection).
    n_units : int
        Number of units on which the selector was judged.

    See Also
    --------
    - [`SelectionResult.selector_summary`][auditad.selection.SelectionResult.selector_summary]
    - [`SelectionResult.best`][auditad.selection.SelectionResult.best]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 5.3 and Table 1.

    Examples
    --------
    >>> s = SelectorSummary("random", "Random Selection", "random", None, 0.0, 0.5, 0.05, 4)
    >>> s.to_dict()["name"]
    'Random Selection'
    """

    label: str
    name: str
    kind: str
    probe: str | None
    rho_rank: float
    a_pair: float
    regret: float
    n_units: int

    def to_dict(self) -> dict:
        """JSON-safe dict (nan -> None)."""
        return {f.name: json_safe(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True)
class SelectionResult:
    r"""Result of [`run_selection`][auditad.selection.run_selection]: every per-item table, summaries on demand.

    Per selection unit \(u\) (a task, or a task × a candidate pool) and
    selector \(s\) the run stores \(\rho_{rank}(s, u)\),
    \(A_{pair}(s, u)\) and the regret
    \(R(s, u) = \mathrm{AUC}_{best}(u) - \mathrm{AUC}_{selected}(s, u)\);
    the summaries are the means over the units on which a value is defined,

    \[
    \bar R(s) = \frac{1}{|U_s|}\sum_{u\in U_s} R(s, u).
    \]

    Attributes
    ----------
    benchmark : str
        Name of the benchmark.
    config : dict
        Settings of the run (estimators, probes, pool_by, seeds, ...), the
        selector order (``selectors``) and the number of judged units (``n_units``).
    candidates : list of dict
        One row per (task, candidate): true AUC, the bound with the true test
        scores, inlier statistics.
    probes : list of dict
        One row per (task, candidate, probe): size, provenance, moments and estimates.
    estimates : list of dict
        Tidy: one row per (task, candidate, estimator) with ``value`` and ``true_auc``.
    units : list of dict
        One row per (selection unit, selector): ``rho_rank``, ``a_pair``,
        ``regret``, the selected candidate and its AUC.
    bootstrap : list of dict
        Paired bootstrap of differences in selected AUC between selectors.
    skipped : list of dict
        Probes skipped per task, with the reason.
    elapsed_seconds : float
        Wall time of the run (not part of [`to_dict`][auditad.selection.SelectionResult.to_dict], which is
        reproducible).

    See Also
    --------
    - [`auditad.selection.run_selection`][auditad.selection.run_selection]
    - `auditad.plotting.plot_estimator_vs_auc`

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 5.3 and Table 1.

    Examples
    --------
    >>> from auditad.selection import run_selection
    >>> from auditad.synthetic import make_selection_benchmark
    >>> bench = make_selection_benchmark(n_tasks=2, n_source=30, n_target=3, n_test=20, random_state=0)
    >>> res = run_selection(bench, estimators=["inlier_variance", "pseudo_auc[feature]"], n_boot=0)
    >>> res.summary_frame().index.tolist()
    ['oracle', 'random', 'inlier_variance', 'pseudo_auc[feature]']
    >>> res.best().label in res.config["estimators"]
    True
    """

    benchmark: str
    config: dict
    candidates: list
    probes: list
    estimates: list
    units: list
    bootstrap: list
    skipped: list
    elapsed_seconds: float = float("nan")

    # ------------------------------------------------------------------ frames
    def to_frame(self):
        """The tidy results table: one row per (task, candidate, estimator)."""
        import pandas as pd

        return pd.DataFrame(self.estimates)

    def candidates_frame(self):
        """One row per (task, candidate): true AUC, true-score bound, inlier statistics."""
        import pandas as pd

        return pd.DataFrame(self.candidates)

    def probes_frame(self):
        """One row per (task, candidate, probe): size, provenance, moments and estimates."""
        import pandas as pd

        return pd.DataFrame(self.probes)

    def units_frame(self):
        """One row per (selection unit, selector): rho_rank, a_pair, regret, selection."""
        import pandas as pd

        return pd.DataFrame(self.units)

    def bootstrap_frame(self):
        """One row per pair of selectors: mean difference in selected AUC and its 95 % CI."""
        import pandas as pd

        return pd.DataFrame(self.bootstrap)

    def candidate_summary_frame(self):
        """One row per candidate: mean true AUC, mean Eq. 1 bound of the true scores and mean of every
        estimator over the tasks (the data of Figure 2 of the selection paper)."""
        import pandas as pd

        cands = pd.DataFrame(self.candidates)
        keys = ["candidate", "family", "embedding", "pooling", "scoring"]
        out = cands.groupby("candidate", sort=False).agg(
            family=("family", "first"),
            embedding=("embedding", "first"),
            pooling=("pooling", "first"),
            scoring=("scoring", "first"),
            true_auc=("true_auc", "mean"),
            true_bound=("true_bound", "mean"),
            n_tasks=("task", "count"),
        )
        est = pd.DataFrame(self.estimates)
        if not est.empty:
            wide = est.pivot_table(index="candidate", columns="estimator", values="value", aggfunc="mean", dropna=False)
            out = out.join(wide[[c for c in self.config["estimators"] if c in wide.columns]])
        return out.reset_index()[keys + [c for c in out.columns if c not in keys]]

    def summary_frame(self, by=None):
        """Mean ρ_rank, A_pair and regret per selector over the judged units (like Table 1 of the paper).

        Rows: Oracle, Random Selection, Fixed Selection (when the tasks have
        development/evaluation splits; its regret is over evaluation units
        only, ρ and A_pair are not defined), then the estimators.

        Parameters
        ----------
        by : str or list of str, optional
            Grouping columns from `SUMMARY_BY`
            (``"split"``, ``"pool"``, ``"group"``).

        Returns
        -------
        pandas.DataFrame
            Indexed by the selector label (index name ``estimator``), columns
            ``kind``, ``probe``, the grouping columns, ``rho_rank``, ``a_pair``,
            ``regret``, ``n_units``.

        Raises
        ------
        auditad.errors.InvalidInputError
            An unknown grouping column.
        """
        import pandas as pd

        units = pd.DataFrame(self.units)
        keys = [] if by is None else ([by] if isinstance(by, str) else list(by))
        for k in keys:
            check_choice(k, SUMMARY_BY, name="by")
        order = {lab: i for i, lab in enumerate(self.config["selectors"])}
        cols = ["rho_rank", "a_pair", "regret"]
        if units.empty:
            return pd.DataFrame(columns=["kind", "probe", *cols, "n_units"]).rename_axis("estimator")
        g = units.groupby(["selector", *keys], dropna=False, sort=False)
        out = g[cols].mean()
        out["n_units"] = g["regret"].count()
        out = out.reset_index()
        meta = {r["selector"]: (r["kind"], r["probe"]) for r in self.units}
        out.insert(1, "kind", [meta[s][0] for s in out["selector"]])
        out.insert(2, "probe", [meta[s][1] for s in out["selector"]])
        out["_o"] = out["selector"].map(order)
        out = out.sort_values(["_o", *keys], kind="stable").drop(columns="_o")
        return out.rename(columns={"selector": "estimator"}).set_index("estimator")

    def table1_frame(self):
        """Wide table in the layout of Table 1 of the paper: overall, then per pool × split."""
        import pandas as pd

        overall = self.summary_frame()[["rho_rank", "a_pair", "regret"]]
        overall.columns = pd.MultiIndex.from_product([["overall"], overall.columns])
        parts = [overall]
        units = pd.DataFrame(self.units)
        if not units.empty and (units["pool"].nunique() > 1 or units["split"].nunique() > 1):
            by = self.summary_frame(by=["pool", "split"]).reset_index()
            for (pool, split), sub in by.groupby(["pool", "split"], dropna=False, sort=True):
                sub = sub.set_index("estimator")[["rho_rank", "a_pair", "regret"]]
                sub.columns = pd.MultiIndex.from_product([[f"{pool}/{split}"], sub.columns])
                parts.append(sub)
        return pd.concat(parts, axis=1).reindex(overall.index)

    # ------------------------------------------------------------------ derived readings
    def selector_summary(self, label: str) -> SelectorSummary:
        """The overall judgement of one selector (a row of `summary_frame`).

        Parameters
        ----------
        label : str
            A selector of this run (``config["selectors"]``).

        Returns
        -------
        SelectorSummary

        Raises
        ------
        auditad.errors.InvalidInputError
            A label that is not a selector of this run, or one never judged
            (e.g. Fixed selection without evaluation tasks).
        """
        summary = self.summary_frame()
        if label not in summary.index:
            raise InvalidInputError(
                f"selector {label!r} was not judged in this result; judged: {summary.index.tolist()}"
            )
        return self._summary_row(label, summary.loc[label])

    def selector_summaries(self) -> list:
        """The overall judgement of every judged selector, in the order of `summary_frame`.

        Returns
        -------
        list of SelectorSummary
        """
        return [self._summary_row(label, row) for label, row in self.summary_frame().iterrows()]

    @staticmethod
    def _summary_row(label, row) -> SelectorSummary:
        probe = row["probe"]
        return SelectorSummary(
            label=label,
            name=pretty_label(label),
            kind=row["kind"],
            probe=None if probe is None or (isinstance(probe, float) and np.isnan(probe)) else probe,
            rho_rank=float(row["rho_rank"]),
            a_pair=float(row["a_pair"]),
            regret=float(row["regret"]),
            n_units=int(row["n_units"]),
        )

    def best(self, *, criterion: str = "regret") -> SelectorSummary | None:
        """The best estimator of the run.

        Rule: among the *estimators* (the baselines Oracle, Random and Fixed
        are never "best"), those with a finite mean of ``criterion`` over
        their judged units compete; the best has the smallest mean regret
        (``criterion="regret"``) or the largest mean ``rho_rank`` /
        ``a_pair``. Ties go to the estimator listed first in
        ``config["estimators"]`` (the order the run was asked for).

        Parameters
        ----------
        criterion : {"regret", "rho_rank", "a_pair"}, default "regret"
            `BEST_CRITERIA`.

        Returns
        -------
        SelectorSummary or None
            None when no estimator has a finite value (e.g. no task has test labels).

        Raises
        ------
        auditad.errors.InvalidInputError
            An unknown criterion.

        Examples
        --------
        >>> from auditad.selection import run_selection
        >>> from auditad.synthetic import make_selection_benchmark
        >>> bench = make_selection_benchmark(n_tasks=2, n_source=30, n_target=3, n_test=20, random_state=0)
        >>> res = run_selection(bench, estimators=["inlier_variance", "pseudo_auc[feature]"], n_boot=0)
        >>> b = res.best()
        >>> b.regret == min(res.summary_frame().loc[res.config["estimators"], "regret"])
        True
        """
        check_choice(criterion, BEST_CRITERIA, name="criterion")
        summary = self.summary_frame()
        estimators = [lab for lab in self.config["estimators"] if lab in summary.index and lab not in BASELINES]
        finite = [lab for lab in estimators if np.isfinite(summary.loc[lab, criterion])]
        if not finite:
            return None
        sign = 1.0 if criterion == "regret" else -1.0
        best = min(finite, key=lambda lab: (sign * summary.loc[lab, criterion], estimators.index(lab)))
        return self._summary_row(best, summary.loc[best])

    # ------------------------------------------------------------------ dict / text
    def to_dict(self) -> dict:
        """JSON-safe dict (nan -> None); includes the overall summary as ``summary``."""
        summary = self.summary_frame().reset_index()
        return {
            "benchmark": self.benchmark,
            "config": json_safe(self.config),
            "summary": json_safe(summary.to_dict(orient="records")),
            "candidates": json_safe(self.candidates),
            "probes": json_safe(self.probes),
            "estimates": json_safe(self.estimates),
            "units": json_safe(self.units),
            "bootstrap": json_safe(self.bootstrap),
            "skipped": json_safe(self.skipped),
        }

    def _repr_html_(self) -> str:
        """Notebook display: mean rho_rank, A_pair and regret per selector (like `summary_text`)."""
        from .._format import html_block, html_table

        rows = [
            {
                "estimator": pretty_label(label),
                "rho_rank": r.rho_rank,
                "a_pair": r.a_pair,
                "regret": r.regret,
                "units": int(r.n_units),
            }
            for label, r in self.summary_frame().iterrows()
        ]
        best = self.best()
        cfg = self.config
        return html_block(
            f"Anomaly-free model selection on {self.benchmark}: {cfg['n_tasks']} tasks × "
            f"{cfg['n_candidates']} candidates, {cfg['n_units']} judged unit(s)"
            + (f", pools by {cfg['pool_by']}" if cfg.get("pool_by") else ""),
            html_table(rows, kinds={"units": "count"}),
            note=("best estimator (lowest mean regret): " + best.name)
            if best is not None
            else "no estimator could be judged (no task has test labels)",
        )

    def summary_text(self) -> str:
        """Plain-text summary table (regret in percentage points)."""
        from .._format import text_table

        s = self.summary_frame()

        def fmt(v):
            return "-" if v is None or not np.isfinite(v) else f"{v:.2f}"

        rows = [
            [pretty_label(label), fmt(r.rho_rank), fmt(r.a_pair), fmt(100 * r.regret), int(r.n_units)]
            for label, r in s.iterrows()
        ]
        lines = [
            f"Anomaly-free model selection on {self.benchmark}: {self.config['n_tasks']} tasks x "
            f"{self.config['n_candidates']} candidates, {self.config['n_units']} judged unit(s)"
            + (f", pools by {self.config['pool_by']}" if self.config["pool_by"] else ""),
            text_table(
                rows,
                header=("estimator", "rho_rank", "A_pair", "R (pp)", "units"),
                align="lr",
                sep=" ",
                widths=(34, 8, 7, 7, 5),
            ),
        ]
        if self.skipped:
            kinds = sorted({s["probe"] for s in self.skipped})
            lines.append(f"skipped probes (no eligible samples in some tasks): {', '.join(kinds)}")
        return "\n".join(lines)


def pretty_label(label: str) -> str:
    """Display name of a selector label.

    Parameters
    ----------
    label : str
        A baseline (``"oracle"``, ``"random"``, ``"fixed"``) or an estimator
        label ``kind`` / ``kind[probe]``; unknown parts are shown as they are.

    Returns
    -------
    str

    See Also
    --------
    - [`auditad.selection.estimators.parse_estimator_label`][auditad.selection.parse_estimator_label]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 5.3 and Table 1.

    Examples
    --------
    >>> pretty_label("pseudo_auc[diverse]"), pretty_label("random")
    ('Pseudo AUC (Diverse)', 'Random Selection')
    """
    if "[" in label:
        kind, probe = label[:-1].split("[", 1)
        return f"{_PRETTY_KIND.get(kind, kind)} ({_PRETTY_PROBE.get(probe, probe)})"
    return _PRETTY_KIND.get(label, label)
