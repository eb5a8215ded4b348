"""The checks of an OOD audit, declared once (`auditad.findings.Check`), and the findings they give.

Each check states its threshold, title and meaning here; the findings, the report, ``summary.json`` and
the command's exit code read the `Finding` records built by [`ood_findings`][auditad.ood.checks.ood_findings].
"""

from __future__ import annotations

from ..findings import Check, FindingItem, Status

__all__ = ["CHECKS", "NEAR_RATIO", "ID_SHARE_MAX", "ood_findings"]

#: Placement threshold on λ (the chance-normalised ID share of an OOD set's neighbourhoods): near at or above.
NEAR_RATIO = 0.5
#: Largest ID share of an OOD set that passes.
ID_SHARE_MAX = 0.05

CHECKS = {
    c.id: c
    for c in (
        Check(
            "ood.exact_copies",
            Status.FAIL,
            "OOD rows identical to ID rows",
            "An OOD row bit-identical to an ID row is an ID sample: it is counted as OOD but no detector can "
            "score it as OOD. Remove it from the OOD set.",
            threshold=0,
        ),
        Check(
            "ood.near_copies",
            Status.WARN,
            "OOD rows nearly identical to ID rows",
            "An OOD row closer to an ID row than the near-duplicate threshold is most likely the same image "
            "re-encoded or cropped. Inspect and remove it.",
            threshold=0,
        ),
        Check(
            "ood.id_share",
            Status.WARN,
            "OOD sets holding in-distribution samples",
            "The estimated share of OOD rows whose neighbourhood is ID exceeds the threshold, and so does the "
            "lower end of its interval: part of the set is in-distribution, and detectors are penalised for "
            "calling it ID.",
            threshold=ID_SHARE_MAX,
        ),
        Check(
            "ood.placement",
            Status.INFO,
            "near-OOD sets",
            "The OOD rows' neighbourhoods hold ID rows at half the chance level or more (λ ≥ 0.5, the interval "
            "included): the set is near-OOD in this representation.",
            threshold=NEAR_RATIO,
        ),
        Check(
            "ood.group_contradiction",
            Status.WARN,
            "OOD sets placed against their declared group",
            "A set declared near is measured far, or a set declared far is measured near: its group (and the "
            "averages reported per group) does not describe it in this representation.",
            threshold=0,
        ),
        Check(
            "ood.detector_at_chance",
            Status.WARN,
            "detectors that cannot tell an OOD set from ID",
            "The AUROC interval of the detector on the set includes 0.5: on this set it does no better than a "
            "random ranking.",
            threshold=0,
        ),
    )
}


def _num(x: float, d: int = 3) -> str:
    return f"{x:.{d}f}"


def _classes_text(s, label: str) -> str:
    """``ID classes 4: 85, 6: 76`` of the copies of one kind in one set."""
    rows = s.samples[s.samples[f"{label}_copy"]]
    column = "exact_id_class" if label == "exact" else "nearest_id_class"  # a near copy is the nearest ID row
    counts = rows[column].astype(str).value_counts(sort=False)
    counts = counts.sort_values(ascending=False, kind="stable")
    return "ID classes " + ", ".join(f"{c}: {n}" for c, n in counts.head(6).items())


def _copy_findings(sets) -> list:
    out = []
    for key, attr, label in (("ood.exact_copies", "n_exact", "exact"), ("ood.near_copies", "n_near", "near")):
        items = [
            FindingItem(
                s.name,
                value=float(getattr(s.copies, attr) or 0),
                detail=f"{getattr(s.copies, attr) or 0} of {s.n} rows ({(getattr(s.copies, attr) or 0) / s.n:.2%}); "
                + _classes_text(s, label),
                evidence={"ood_set": s.name},
            )
            for s in sets
            if getattr(s.copies, attr)
        ]
        total, article = int(sum(it.value for it in items)), "an" if label == "exact" else "a"
        sentence = (
            f"{total} OOD rows have {article} {label} copy among the ID rows, in {len(items)} set(s)."
            if total
            else f"No OOD row has {article} {label} copy among the ID rows."
        )
        out.append(CHECKS[key].finding(total, sentence=sentence, items=items))
    return out


def _share_finding(sets):
    check = CHECKS["ood.id_share"]
    items, worst = [], Status.PASS
    for s in sets:
        c = s.contamination
        if c.estimate > check.threshold:
            significant = c.ci_low > check.threshold
            worst = max(worst, check.status if significant else Status.INFO)
            items.append(
                FindingItem(
                    s.name,
                    value=c.estimate,
                    detail=f"ID share {c.estimate:.1%} [{c.ci_low:.1%}, {c.ci_high:.1%}]"
                    + ("" if significant else ", interval reaches the threshold"),
                    evidence={"ood_set": s.name, "low": c.ci_low, "high": c.ci_high},
                )
            )
    items.sort(key=lambda it: -it.value)
    number = max((s.contamination.estimate for s in sets), default=0.0)
    sentence = (
        f"{len(items)} OOD set(s) have an estimated ID share above {check.threshold:.0%}."
        if items
        else f"No OOD set has an estimated ID share above {check.threshold:.0%}."
    )
    return check.finding(number, sentence=sentence, items=items, status=worst)


def _placement_findings(sets) -> list:
    check = CHECKS["ood.placement"]
    near = [s for s in sets if s.placement.placement == "near"]
    items = [
        FindingItem(
            s.name,
            value=s.placement.ratio,
            detail=f"λ = {_num(s.placement.ratio)} [{_num(s.placement.ratio_low)}, {_num(s.placement.ratio_high)}]"
            f", {s.placement.placement}",
            evidence={"ood_set": s.name, "placement": s.placement.placement},
        )
        for s in sorted(sets, key=lambda s: -s.placement.ratio)
    ]
    sentence = f"{len(near)} of {len(sets)} OOD sets are near-OOD by the neighbourhood statistic: " + ", ".join(
        f"{s.name} ({s.placement.placement})" for s in sets
    )
    out = [check.finding(len(near), sentence=sentence + ".", items=items, threshold=0)]
    check = CHECKS["ood.group_contradiction"]
    bad = [s for s in sets if s.contradicts_group]
    items = [
        FindingItem(s.name, value=s.placement.ratio, detail=f"declared {s.group}, measured {s.placement.placement}")
        for s in bad
    ]
    sentence = (
        f"{len(bad)} OOD set(s) are measured against their declared group."
        if bad
        else "No OOD set is measured against its declared group (or no near/far group was declared)."
    )
    out.append(check.finding(len(bad), sentence=sentence, items=items))
    return out


def _detector_finding(sets):
    check = CHECKS["ood.detector_at_chance"]
    items = [
        FindingItem(
            f"{d.detector} on {s.name}",
            value=d.auroc,
            detail=f"AUROC {d.auroc:.3f} [{d.auroc_low:.3f}, {d.auroc_high:.3f}]",
            evidence={"ood_set": s.name, "detector": d.detector},
        )
        for s in sets
        for d in s.detectors
        if d.auroc_low <= 0.5 <= d.auroc_high
    ]
    sentence = (
        f"{len(items)} detector/set pair(s) have an AUROC interval that includes 0.5."
        if items
        else "Every detector tells every OOD set from ID better than chance."
    )
    return check.finding(len(items), sentence=sentence, items=items)


def ood_findings(sets) -> list:
    """The findings of an OOD audit, one per declared check (see `CHECKS`), in declaration order.

    Parameters
    ----------
    sets : sequence of OODSetResult

    Returns
    -------
    list of Finding

    See Also
    --------
    - `auditad.findings.verdict`: the worst status.
    """
    return [*_copy_findings(sets), _share_finding(sets), *_placement_findings(sets), _detector_finding(sets)]
