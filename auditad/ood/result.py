"""Result objects of an OOD audit: one `OODSetResult` per OOD set, gathered in an `OODAuditResult`."""

from __future__ import annotations

from .._format import FrameDisplay, scalar_frame

from dataclasses import dataclass, field

import numpy as np

from .._json import json_safe

__all__ = ["OODSetResult", "OODAuditResult", "SCHEMA", "SCHEMA_VERSION"]

#: ``summary.json`` schema name of an OOD audit.
SCHEMA = "auditad-ood/1"
#: ``schema_version`` of the OOD audit's ``summary.json`` (``auditad/schemas/ood.schema.json``).
SCHEMA_VERSION = "1.0"


@dataclass(frozen=True)
class OODSetResult(FrameDisplay):
    """Everything measured on one OOD set.

    Attributes
    ----------
    name : str
    n : int
        Rows of the set.
    copies : auditad.duplicates.OverlapResult
        Exact and near copies of ID rows (ID rows indexed as in ``X_id``).
    contamination : ContaminationResult
    placement : PlacementResult
    detectors : tuple of DetectionResult
    samples : pandas.DataFrame
        One row per OOD row: ``row``, ``id_likeness``, ``id_neighbour_share``, ``nearest_id_class``,
        ``nearest_id_row``, ``nearest_id_distance``, ``exact_copy``, ``near_copy``, ``id_like``.
    nearest_classes : tuple of dict
        Per ID class: how many OOD rows have their nearest ID row in it, their share and its ratio to the
        class's share of the ID rows (most frequent first).
    group : str or None
        The group the user declared it in.
    contradicts_group : bool
        Declared ``near`` and measured ``far``, or the reverse.

    See Also
    --------
    - [`audit_ood`][auditad.ood.audit_ood]: computes it.
    """

    name: str
    n: int
    copies: object = field(repr=False)
    contamination: object = field(repr=False)
    placement: object = field(repr=False)
    detectors: tuple = field(repr=False)
    samples: object = field(repr=False)
    nearest_classes: tuple = field(repr=False)
    group: str | None = None
    contradicts_group: bool = False

    def copy_rows(self):
        """The rows with an exact or near ID copy, with the ID row and the ID class of the copy."""
        s = self.samples
        return s[s["exact_copy"] | s["near_copy"]].reset_index(drop=True)

    def most_id_like(self, n: int = 20):
        """The ``n`` most ID-like rows (highest ID-likeness, then smallest distance to an ID row)."""
        s = self.samples.sort_values(["id_likeness", "nearest_id_distance"], ascending=[False, True], kind="stable")
        return s.head(n).reset_index(drop=True)

    def to_frame(self):
        """One-row table of the scalar fields of `to_dict` (snake_case columns)."""
        return scalar_frame(self.to_dict())

    def to_dict(self) -> dict:
        """Key numbers (JSON-safe; what ``summary.json`` holds under ``ood.<name>``)."""
        c = self.copies
        out = {
            "n": self.n,
            "group": self.group,
            "contradicts_group": self.contradicts_group,
            "exact_copies": c.n_exact,
            "exact_share": c.exact_share,
            "near_copies": c.n_near,
            "near_share": c.near_share,
            **self.contamination.to_dict(),
            **self.placement.to_dict(),
            "nearest_classes": [dict(r) for r in self.nearest_classes],
            "detectors": {d.detector: d.to_dict() for d in self.detectors},
        }
        return json_safe(out)


@dataclass(frozen=True)
class OODAuditResult(FrameDisplay):
    """An OOD benchmark audit: per OOD set copies, ID share, placement and detector metrics, and the findings.

    Attributes
    ----------
    sets : tuple of OODSetResult
        In the order given.
    findings : tuple of auditad.findings.Finding
    verdict : auditad.findings.Status
    correlation : dict
        Per detector: Spearman's ρ between the sets' λ and the detector's AUROC, with its interval.
    settings : dict
        The parameters of the run.
    id_summary : dict
        Rows, classes, training and held-out rows of the ID set, the near-copy threshold.
    neighbors : dict
        How the main neighbour search ran (backend, recall).

    See Also
    --------
    - [`audit_ood`][auditad.ood.audit_ood]: computes it.
    - [`OODSetResult`][auditad.ood.OODSetResult]
    """

    sets: tuple
    findings: tuple
    verdict: object
    correlation: dict
    settings: dict
    id_summary: dict
    neighbors: dict

    def __getitem__(self, name: str) -> OODSetResult:
        for s in self.sets:
            if s.name == name:
                return s
        raise KeyError(name)

    def to_frame(self):
        """One row per (OOD set, detector): the set's numbers and the detector's metrics (tidy)."""
        import pandas as pd

        rows = []
        for s in self.sets:
            base = {k: v for k, v in s.to_dict().items() if k not in ("detectors", "nearest_classes")}
            for d in s.detectors:
                rows.append(
                    {"ood_set": s.name, **base, **{f"{k}": v for k, v in d.to_dict().items() if k != "ood_set"}}
                )
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """The ``summary.json`` of the audit (JSON-safe): verdict, findings first, then the numbers per set."""
        return json_safe(
            {
                "schema": SCHEMA,
                "schema_version": SCHEMA_VERSION,
                "kind": "ood",
                "verdict": str(self.verdict),
                "findings": [f.to_dict() for f in self.findings],
                "id": dict(self.id_summary),
                "ood": {s.name: s.to_dict() for s in self.sets},
                "groups": _groups(self.sets),
                "correlation": dict(self.correlation),
                "neighbors": dict(self.neighbors),
                "settings": dict(self.settings),
            }
        )


def _groups(sets) -> dict:
    out: dict = {}
    for s in sets:
        if s.group is None:
            continue
        g = out.setdefault(s.group, {"sets": [], "mean_auroc": {}})
        g["sets"].append(s.name)
    for name, g in out.items():
        members = [s for s in sets if s.group == name]
        for d in members[0].detectors:
            g["mean_auroc"][d.detector] = float(
                np.mean([next(x.auroc for x in s.detectors if x.detector == d.detector) for s in members])
            )
    return out
