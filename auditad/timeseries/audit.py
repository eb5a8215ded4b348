"""The time-series evaluation audit: nulls at each labelled series, the detectors' scores and published rows
set against them, and the findings (`auditad.findings`) that ``auditad timeseries`` reports.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._json import json_safe
from .._validation import check_int
from ..findings import Status, sort_findings, verdict
from .metrics import PA_K_GRID, pa_k_area, threshold_curve
from .affiliation import affiliation_precision_recall, best_affiliation_f1
from .nulls import (
    NULL_METRICS,
    VUS_METRICS,
    fixed_threshold_null,
    random_affiliation_null,
    random_null,
    random_range_null,
    random_vus_null,
    trivial_baselines,
)
from .ranges import best_range_f1
from .volume import vus
from .structure import label_structure
from .findings import CHECKS, timeseries_findings

__all__ = ["CHECKS", "SeriesAudit", "TimeSeriesAudit", "audit_timeseries", "detector_metrics", "SCHEMA_VERSION"]

#: Version of the ``summary.json`` layout (``auditad/schemas/timeseries.schema.json``); 0.3.0 wrote the integer 1.
SCHEMA_VERSION = "1.1"

#: Metrics that have a random null in the audit.
NULLED = (*NULL_METRICS, "range_f1", *VUS_METRICS, "affiliation_f1")

#: The metrics of a detector's scores that are set against the baselines.
DETECTOR_METRICS = (
    "f1",
    "pa_f1",
    "composite_f1",
    "pa_k_area",
    "range_f1",
    "auc_roc",
    "auc_pr",
    *VUS_METRICS,
    "affiliation_f1",
)


def detector_metrics(y, scores, *, ks=PA_K_GRID, n_thresholds: int = 50, window: int = 100) -> dict:
    """Every metric of one score array: best-threshold F1s, PA%K area, range-based F1, AUC-ROC, AUC-PR, VUS-ROC,
    VUS-PR, range-AUC (buffer ``window``), affiliation F1, and the point-wise F1 at the threshold fixed by the
    anomaly ratio.

    See Also
    --------
    - [`threshold_curve`][auditad.timeseries.threshold_curve]
    - [`audit_timeseries`][auditad.timeseries.audit_timeseries]

    References
    ----------
    1. S. Kim et al., "Towards a Rigorous Evaluation of Time-Series Anomaly Detection", AAAI 2022.

    Examples
    --------
    >>> m = detector_metrics([0, 1, 1, 0, 0], [0.1, 0.9, 0.2, 0.3, 0.0])
    >>> m["pa_f1"], round(m["f1"], 3)
    (1.0, 0.8)
    """
    from ..metrics import auroc, average_precision

    y = np.asarray(y)
    c = threshold_curve(y, scores)
    out = {m: c.best(m)[0] for m in ("f1", "pa_f1", "composite_f1")}
    out["f1_threshold"] = c.best("f1")[1]
    out["pa_k_area"] = pa_k_area(y, scores, ks=ks)[2]
    out["range_f1"] = best_range_f1(y, scores, n_thresholds=n_thresholds)[0]
    out["auc_roc"] = float(auroc(y, scores))
    out["auc_pr"] = float(average_precision(y, scores))
    out.update(vus(y, scores, window=window).to_dict())
    out.pop("window")
    out["affiliation_f1"], out["affiliation_threshold"] = best_affiliation_f1(y, scores)
    s = np.asarray(scores, dtype=np.float64)
    t = np.quantile(s, 1.0 - y.mean(), method="higher")
    pred = s >= t
    tp = int((pred & (y == 1)).sum())
    out["f1_fixed"] = 2 * tp / (int(pred.sum()) + int(y.sum()))
    return out


@dataclass(frozen=True)
class SeriesAudit:
    """One labelled series: its structure, random nulls and trivial baselines.

    See Also
    --------
    - [`audit_timeseries`][auditad.timeseries.audit_timeseries]
    """

    name: str
    structure: object
    best: dict
    fixed: dict
    trivial: dict

    def null(self, metric: str):
        """The best-threshold random null of ``metric`` (None when it has none)."""
        return self.best.get(metric)

    def to_dict(self) -> dict:
        """JSON-safe dict."""
        return json_safe(
            {
                "name": self.name,
                "structure": self.structure.to_dict(),
                "nulls": {
                    "best_threshold": {m: n.to_dict() for m, n in self.best.items()},
                    "fixed_threshold": {m: n.to_dict() for m, n in self.fixed.items()},
                },
                "trivial": self.trivial,
            }
        )


@dataclass(frozen=True)
class TimeSeriesAudit:
    """Result of [`audit_timeseries`][auditad.timeseries.audit_timeseries].

    Attributes
    ----------
    series : dict of str -> SeriesAudit
    detectors : list of dict
        One row per detector and series: the metrics, the random null's p-values.
    results : list of dict
        One row per published value: method, dataset, metric, value, flag-all baseline, random mean and p.
    findings : list of Finding
        Worst first.
    settings : dict

    See Also
    --------
    - [`audit_timeseries`][auditad.timeseries.audit_timeseries]
    """

    series: dict
    detectors: list
    results: list
    findings: list
    settings: dict = field(default_factory=dict)

    @property
    def status(self) -> Status:
        """The worst finding's status."""
        return verdict(self.findings)

    def to_dict(self) -> dict:
        """JSON-safe summary (``summary.json`` without the gates)."""
        return json_safe(
            {
                "schema_version": SCHEMA_VERSION,
                "kind": "timeseries",
                "settings": self.settings,
                "status": self.status.value,
                "findings": [f.to_dict() for f in self.findings],
                "series": {k: s.to_dict() for k, s in self.series.items()},
                "detectors": self.detectors,
                "results": self.results,
            }
        )

    def nulls_frame(self):
        """One row per series, null and metric: kind, draws, seed, mean, Monte Carlo error, q95, q99, exact."""
        import pandas as pd

        rows = []
        for name, s in self.series.items():
            for group in (s.best, s.fixed):
                rows += [{"series": name, **n.to_dict()} for n in group.values()]
        return pd.DataFrame(rows)

    def to_frame(self):
        """One row per series: structure, flag-all F1, random best-threshold means."""
        import pandas as pd

        rows = []
        for name, s in self.series.items():
            row = {"series": name, **s.structure.to_dict(), "flag_all_f1": s.trivial["flag_all"]["f1"]}
            for m, n in s.best.items():
                row[f"random_{m}"] = n.mean
                row[f"random_{m}_q95"] = n.quantile(0.95)
            row["fixed_random_pa_f1"] = s.fixed["pa_f1"].mean
            if "periodic" in s.trivial:
                row["periodic_pa_f1"] = s.trivial["periodic"]["pa_f1"]
                row["periodic_period"] = s.trivial["periodic"]["period"]
            rows.append(row)
        return pd.DataFrame(rows)

    def summary_text(self) -> str:
        """Plain-text findings and one line per series."""
        lines = [f"time-series evaluation audit: {len(self.series)} series, verdict {self.status.value}"]
        for name, s in self.series.items():
            st = s.structure
            lines.append(
                f"  {name}: n={st.n}, {st.n_segments} segments, p={st.ratio:.4f}; flag-all F1 "
                f"{s.trivial['flag_all']['f1']:.4f}; random PA-F1 {s.best['pa_f1'].mean:.4f} "
                f"(q95 {s.best['pa_f1'].quantile(0.95):.4f}, {s.best['pa_f1'].draws.size} draws)"
            )
        lines += [f.text() for f in self.findings]
        return "\n".join(lines)


def _flag_all(y, window) -> dict:
    """VUS, range-AUC and affiliation F1 of flagging every point (a constant score)."""
    out = vus(y, np.zeros(y.size), window=window).to_dict()
    out.pop("window")
    out["affiliation_f1"] = affiliation_precision_recall(y, np.ones(y.size, dtype=np.int8)).f1
    return out


def _series_audit(name, y, *, n_draws, range_draws, vus_draws, affiliation_draws, window, ks, seed) -> SeriesAudit:
    best = random_null(y, n_draws=n_draws, ks=ks, random_state=seed)
    if range_draws:
        best["range_f1"] = random_range_null(y, n_draws=range_draws, random_state=seed)
    if vus_draws:
        best.update(random_vus_null(y, n_draws=vus_draws, window=window, random_state=seed))
    if affiliation_draws:
        best["affiliation_f1"] = random_affiliation_null(y, n_draws=affiliation_draws, random_state=seed)
    trivial = trivial_baselines(y, ks=ks)
    trivial["flag_all"].update(_flag_all(np.asarray(y), window))
    return SeriesAudit(
        name=name,
        structure=label_structure(y),
        best=best,
        fixed=fixed_threshold_null(y, n_draws=n_draws, ks=ks, random_state=seed),
        trivial=trivial,
    )


def _against(sa: SeriesAudit, metric: str, value: float) -> dict:
    """The flag-all baseline, the random null's mean, q95 and p of one value."""
    null = sa.null(metric)
    flag_all = sa.trivial["flag_all"].get(metric, math.nan)
    if metric == "auc_roc":
        flag_all = 0.5
    elif metric == "auc_pr":
        flag_all = sa.structure.ratio
    return {
        "flag_all": flag_all,
        "random_mean": null.mean if null is not None else math.nan,
        "random_q95": null.quantile(0.95) if null is not None else math.nan,
        "p_random": null.p_value(value) if null is not None else math.nan,
    }


def audit_timeseries(
    labels: dict,
    scores: dict | None = None,
    results=None,
    *,
    n_draws: int = 1000,
    range_draws: int = 50,
    vus_draws: int = 50,
    affiliation_draws: int = 30,
    window: int = 100,
    ks=PA_K_GRID,
    random_state: int = 0,
) -> TimeSeriesAudit:
    """Audit time-series evaluation: nulls at every labelled series, detectors' scores and published rows.

    Parameters
    ----------
    labels : dict of str -> array of 0/1
        The labelled series by name.
    scores : dict of str -> dict of str -> array, optional
        ``{detector: {series: scores}}`` (higher = more anomalous).
    results : pandas.DataFrame, optional
        Published values, long: ``method, dataset, metric, value, key`` (`read_results_table`).
    n_draws : int, default 1000
        Monte Carlo draws of the point-wise, PA, PA%K and composite nulls.
    range_draws : int, default 50
        Draws of the range-based null (each scores the whole series at 50 thresholds); 0 skips it.
    vus_draws : int, default 50
        Draws of the VUS-ROC / VUS-PR / range-AUC null (each one `vus` of random scores); 0 skips it.
    affiliation_draws : int, default 30
        Draws of the affiliation-F1 null (each scores the whole series at 100 thresholds); 0 skips it.
    window : int, default 100
        Largest buffer width of VUS and the range-AUC's width (TSB-AD's ``slidingWindow``).
    ks : sequence of float
        K grid of PA%K.
    random_state : int, default 0

    Returns
    -------
    TimeSeriesAudit

    See Also
    --------
    - [`random_null`][auditad.timeseries.random_null]
    - [`trivial_baselines`][auditad.timeseries.trivial_baselines]

    References
    ----------
    1. S. Kim et al., "Towards a Rigorous Evaluation of Time-Series Anomaly Detection", AAAI 2022.
    2. R. Wu, E. J. Keogh, "Current Time Series Anomaly Detection Benchmarks are Flawed and are Creating the
       Illusion of Progress", IEEE TKDE 2021.

    Examples
    --------
    >>> y = np.zeros(2000, dtype=int); y[300:400] = 1; y[1200:1260] = 1
    >>> a = audit_timeseries({"toy": y}, n_draws=50, range_draws=0, vus_draws=0, affiliation_draws=0)
    >>> round(a.series["toy"].trivial["flag_all"]["f1"], 4), a.status.value
    (0.1481, 'warn')
    """
    n_draws = check_int(n_draws, name="n_draws", low=1)
    range_draws = check_int(range_draws, name="range_draws", low=0)
    vus_draws = check_int(vus_draws, name="vus_draws", low=0)
    affiliation_draws = check_int(affiliation_draws, name="affiliation_draws", low=0)
    window = check_int(window, name="window", low=0)
    ks = tuple(float(k) for k in ks)
    draws = {"range_draws": range_draws, "vus_draws": vus_draws, "affiliation_draws": affiliation_draws}
    series = {
        name: _series_audit(name, y, n_draws=n_draws, window=window, ks=ks, seed=random_state, **draws)
        for name, y in labels.items()
    }
    detectors = []
    for det in sorted(scores or {}):
        for name in sorted(scores[det]):
            m = detector_metrics(labels[name], scores[det][name], ks=ks, window=window)
            against = {k: _against(series[name], k, m[k]) for k in DETECTOR_METRICS}
            detectors.append({"detector": det, "series": name, **m, "_against": against})
    rows = []
    if results is not None:
        for r in results.itertuples(index=False):
            rows.append(
                {
                    "method": r.method,
                    "dataset": r.dataset,
                    "metric": r.key,
                    "column": str(r.metric),
                    "value": float(r.value),
                    **_against(series[r.dataset], r.key, float(r.value)),
                }
            )
    findings = sort_findings(timeseries_findings(series, detectors, rows))
    for d in detectors:  # the comparisons as flat columns: p_pa_f1, flag_all_f1, ...
        against = d.pop("_against")
        for k, a in against.items():
            d[f"p_{k}"], d[f"random_{k}"], d[f"flag_all_{k}"] = a["p_random"], a["random_mean"], a["flag_all"]
    settings = {"n_draws": n_draws, **draws, "window": window, "ks": list(ks), "seed": random_state}
    return TimeSeriesAudit(series=series, detectors=detectors, results=rows, findings=findings, settings=settings)
