"""The findings of the time-series audit, each the `Finding` of one declared `Check` of `CHECKS`."""

from __future__ import annotations

import math

from ..findings import Check, FindingItem, Status

__all__ = ["CHECKS", "METRIC_LABELS", "timeseries_findings"]

#: Labels of the metric keys, as papers name them.
METRIC_LABELS = {
    "f1": "F1 (point-wise)",
    "pa_f1": "PA-F1",
    "pa_k_area": "PA%K area",
    "composite_f1": "composite F1",
    "range_f1": "range-based F1",
    "auc_roc": "AUC-ROC",
    "auc_pr": "AUC-PR",
    "vus_roc": "VUS-ROC",
    "vus_pr": "VUS-PR",
    "range_auc_roc": "range-AUC-ROC",
    "range_auc_pr": "range-AUC-PR",
    "affiliation_f1": "affiliation F1",
}

#: The checks of the audit, each declared once with its threshold, title and meaning.
CHECKS = {
    c.id: c
    for c in (
        Check(
            "pa_inflation",
            Status.WARN,
            "point adjustment rewards random scores",
            "Uniformly random scores, with the threshold chosen on the test labels, reach this point-adjusted F1 "
            "on the labels' own segments: a PA-F1 near it says nothing about the detector.",
            threshold=0.5,
        ),
        Check(
            "below_flag_all",
            Status.WARN,
            "scores not above flagging every point",
            "Flagging every point gives F1 = 2p/(1+p) under every F1 here; a score at or below it is beaten by a "
            "detector that does nothing.",
        ),
        Check(
            "not_above_random",
            Status.WARN,
            "scores within the random null",
            "The value does not exceed what uniformly random scores reach at their best threshold (Monte Carlo "
            "p >= 0.05): it is not evidence of detection.",
        ),
        Check(
            "metric_disagreement",
            Status.WARN,
            "metrics rank the methods in opposite orders",
            "The method ranked first by PA-F1 is last by a metric without point adjustment on the same dataset.",
        ),
        Check(
            "random_range_metrics",
            Status.WARN,
            "random scores under VUS and affiliation",
            "What uniformly random scores reach under VUS-ROC, VUS-PR, range-AUC and affiliation F1 at the labels' "
            "own segments (Monte Carlo); affiliation F1 of random scores is often high, so a published value near "
            "it says nothing about the detector. Warns when the random affiliation F1 exceeds the threshold.",
            threshold=0.5,
        ),
        Check(
            "label_structure",
            Status.INFO,
            "label structure that favours trivial detectors",
            "A high anomaly ratio, few long segments that hold most anomalous points, or a segment at the series' "
            "ends make flag-all and point-adjusted scores look good.",
        ),
        Check(
            "threshold_on_test",
            Status.INFO,
            "threshold chosen on the test labels",
            "The best-threshold F1 (chosen on the test labels, as most papers do) exceeds the F1 at a threshold "
            "fixed in advance (the top anomaly-ratio share of scores) by this much.",
            threshold=0.05,
        ),
    )
}


#: Metrics without point adjustment that a PA-F1 ranking is compared with.
_UNADJUSTED = (
    "f1",
    "vus_pr",
    "auc_pr",
    "range_f1",
    "composite_f1",
    "pa_k_area",
    "vus_roc",
    "auc_roc",
    "range_auc_pr",
)

#: The Monte Carlo nulls reported by the ``random_range_metrics`` check.
_RANGE_NULLS = ("vus_pr", "vus_roc", "range_auc_pr", "range_auc_roc", "affiliation_f1")


def _label(metric: str) -> str:
    return METRIC_LABELS.get(metric, metric)


def _values(detectors: list, rows: list) -> list:
    """(who, dataset, metric, value, flag-all, random mean, random q95, p) of every observed or published value."""
    out = []
    for d in detectors:
        for m in d["_against"]:
            out.append(
                {
                    "who": d["detector"],
                    "dataset": d["series"],
                    "metric": m,
                    "value": d[m],
                    "source": "scores",
                    **d["_against"][m],
                }
            )
    for r in rows:
        out.append({"who": r["method"], "dataset": r["dataset"], "source": "published", **r})
    return out


def _pa_inflation(series, values, check):
    items = []
    for name, s in series.items():
        n = s.best["pa_f1"]
        items.append(
            FindingItem(
                f"random scores on {name}",
                value=n.mean,
                detail=f"PA-F1 {n.mean:.3f} (q95 {n.quantile(0.95):.3f}, {n.draws.size} draws); flag-all F1 "
                f"{s.trivial['flag_all']['f1']:.3f}",
                evidence={"series": name, "mean": n.mean, "q95": n.quantile(0.95), "mc_error": n.mc_error},
            )
        )
    items.sort(key=lambda it: -it.value)
    worst = items[0]
    for v in (v for v in values if v["metric"] == "pa_f1"):
        items.append(
            FindingItem(
                f"{v['who']} on {v['dataset']} ({v['source']})",
                value=v["value"],
                detail=f"PA-F1 {v['value']:.3f} against random {v['random_mean']:.3f}, p = {v['p_random']:.2g}",
                evidence={k: v[k] for k in ("who", "dataset", "value", "random_mean", "p_random")},
            )
        )
    sentence = (
        f"A random detector reaches PA-F1 {worst.value:.2f} on {worst.evidence['series']} with the threshold "
        f"chosen on the test labels; report point-wise F1, PA%K or VUS-PR instead."
        if worst.value > check.threshold
        else f"Random scores reach at most PA-F1 {worst.value:.2f} here."
    )
    return check.finding(worst.value, sentence=sentence, items=items)


def _below(values, check, *, key: str, verb: str):
    bad = [v for v in values if not math.isnan(v[key]) and v["value"] <= v[key] + 1e-12]
    items = [
        FindingItem(
            f"{v['who']} on {v['dataset']}: {_label(v['metric'])}",
            value=v["value"],
            detail=f"{v['value']:.4f}, {verb} {v[key]:.4f} ({v['source']})",
            evidence={k: v[k] for k in ("who", "dataset", "metric", "value", key, "source")},
        )
        for v in sorted(bad, key=lambda v: v["value"] - v[key])
    ]
    n = sum(1 for v in values if not math.isnan(v[key]))
    return check.finding(len(items), sentence=f"{len(items)} of {n} values do not exceed {verb}.", items=items)


def _not_above_random(values, check):
    tested = [v for v in values if not math.isnan(v.get("p_random", math.nan))]
    bad = [v for v in tested if v["p_random"] >= 0.05]
    items = [
        FindingItem(
            f"{v['who']} on {v['dataset']}: {_label(v['metric'])}",
            value=v["value"],
            detail=f"{v['value']:.4f}, random mean {v['random_mean']:.4f} (q95 {v['random_q95']:.4f}), "
            f"p = {v['p_random']:.2g} ({v['source']})",
            evidence={k: v[k] for k in ("who", "dataset", "metric", "value", "random_mean", "p_random", "source")},
        )
        for v in sorted(bad, key=lambda v: -v["p_random"])
    ]
    shares = {}
    for v in tested:
        shares.setdefault(v["who"], []).append(v["p_random"] >= 0.05)
    text = "; ".join(f"{w}: {sum(b)}/{len(b)}" for w, b in sorted(shares.items()) if any(b))
    return check.finding(
        len(items),
        sentence=f"{len(items)} of {len(tested)} values are within the random null (p >= 0.05)"
        + (f"; per method, not beating it: {text}." if text else "."),
        items=items,
    )


def _disagreement(values, check):
    by_dataset: dict = {}
    for v in values:
        by_dataset.setdefault(v["dataset"], {}).setdefault(v["metric"], {})[v["who"]] = v["value"]
    items = []
    for ds, metrics in sorted(by_dataset.items()):
        pa = metrics.get("pa_f1", {})
        if len(pa) < 2:
            continue
        top = max(pa, key=lambda w: (pa[w], w))
        for m in _UNADJUSTED:
            other = {w: x for w, x in metrics.get(m, {}).items() if w in pa}
            if len(other) >= 2 and top in other and other[top] == min(other.values()) and len(set(other.values())) > 1:
                items.append(
                    FindingItem(
                        f"{ds}: {top} first by PA-F1, last by {_label(m)}",
                        value=pa[top],
                        detail=f"PA-F1 {pa[top]:.3f}; {_label(m)} {other[top]:.3f} (best {max(other.values()):.3f})",
                        evidence={"dataset": ds, "method": top, "metric": m},
                    )
                )
    return check.finding(
        len(items), sentence=f"{len(items)} dataset/metric pairs reverse the PA-F1 ranking.", items=items
    )


def _range_nulls(series, check):
    items, worst, where = [], math.nan, ""
    for name, s in series.items():
        got = [(m, s.best[m]) for m in _RANGE_NULLS if m in s.best]
        if not got:
            continue
        detail = "; ".join(
            f"{_label(m)} {n.mean:.4f} +- {n.mc_error:.4f} (q95 {n.quantile(0.95):.4f}, {n.draws.size} draws)"
            for m, n in got
        )
        aff = s.best["affiliation_f1"].mean if "affiliation_f1" in s.best else math.nan
        if not math.isnan(aff) and (math.isnan(worst) or aff > worst):
            worst, where = aff, name
        items.append(
            FindingItem(
                f"random scores on {name}",
                value=aff,
                detail=detail,
                evidence={m: n.to_dict() for m, n in got} | {"series": name},
            )
        )
    if not items:
        return check.finding(
            math.nan, sentence="The VUS and affiliation nulls were not run (0 draws).", status=Status.INFO
        )
    first = items[0].detail.split(";")[0]
    sentence = (
        f"Random scores reach affiliation F1 {worst:.2f} on {where} at the best threshold; "
        if not math.isnan(worst)
        else "Random scores reach "
    ) + f"{first} on {items[0].evidence['series']} (mean +- Monte Carlo error)."
    return check.finding(0.0 if math.isnan(worst) else worst, sentence=sentence, items=items)


def _structure(series, check):
    items = []
    for name, s in series.items():
        st = s.structure
        notes = []
        if st.ratio > 0.05:
            notes.append(f"anomaly ratio {st.ratio:.3f} (flag-all F1 {2 * st.ratio / (1 + st.ratio):.3f})")
        if st.n_segments >= 2 and st.top_decile_share > 0.5:
            notes.append(f"the longest 10 % of segments hold {st.top_decile_share:.0%} of anomalous points")
        if st.n_segments < 10:
            notes.append(f"only {st.n_segments} segments")
        if st.touches_end:
            notes.append("a segment touches the series' start or end")
        if notes:
            items.append(FindingItem(name, value=st.ratio, detail="; ".join(notes), evidence=st.to_dict()))
    return check.finding(
        len(items),
        sentence=f"{len(items)} of {len(series)} series have a structure that favours trivial detectors.",
        items=items,
    )


def _threshold(detectors, check):
    gaps = [(d["f1"] - d["f1_fixed"], d) for d in detectors]
    items = [
        FindingItem(
            f"{d['detector']} on {d['series']}",
            value=g,
            detail=f"best-threshold F1 {d['f1']:.3f}, at the anomaly-ratio threshold {d['f1_fixed']:.3f}",
            evidence={"detector": d["detector"], "series": d["series"], "gap": g},
        )
        for g, d in sorted(gaps, key=lambda x: -x[0])
        if g > check.threshold
    ]
    worst = max((g for g, _ in gaps), default=0.0)
    return check.finding(
        worst,
        sentence=f"Choosing the threshold on the test labels adds up to {worst:.3f} to the point-wise F1.",
        items=items,
    )


def timeseries_findings(series: dict, detectors: list, rows: list) -> list:
    """The findings of `CHECKS` for the audited series, detectors' rows and published rows.

    See Also
    --------
    - [`auditad.timeseries.audit_timeseries`][auditad.timeseries.audit_timeseries]
    """
    values = _values(detectors, rows)
    out = [
        _pa_inflation(series, values, CHECKS["pa_inflation"]),
        _range_nulls(series, CHECKS["random_range_metrics"]),
        _structure(series, CHECKS["label_structure"]),
    ]
    if values:
        out += [
            _below(values, CHECKS["below_flag_all"], key="flag_all", verb="the flag-all baseline"),
            _not_above_random(values, CHECKS["not_above_random"]),
            _disagreement(values, CHECKS["metric_disagreement"]),
        ]
    if detectors:
        out.append(_threshold(detectors, CHECKS["threshold_on_test"]))
    return out
