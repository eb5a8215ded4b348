"""The default gates: the report's reading thresholds, declared once with their titles and meanings.

Each default check is declared here once, as a [`Check`][auditad.findings.Check]: the summary path, the
operator and threshold of its gate, its title and what it means (Deepchecks' condition-next-to-check).

The reading of each statistic section and the WARN-level gates used when no gate is given
come from `THRESHOLDS`. The readings do not compare a number with a threshold themselves:
they state the result of the default gate's condition (`reading_conditions`), evaluated once
with the other gates.
"""

from __future__ import annotations

from typing import Iterable

from .. import _format
from ..findings import Check, Finding, Status
from .rules import GateRule

__all__ = [
    "THRESHOLDS",
    "DEFAULT_CHECKS",
    "GATE_CHECKS",
    "ONE_TASK_CHECKS",
    "NEAR_RANDOM_CHECK",
    "NEGLIGIBLE_DELTA_AUROC",
    "overlap_meaning",
    "DEFAULT_GATES",
    "DEFAULT_RULES",
    "reading_conditions",
]

#: Each default check declared once: name -> (summary path, operator, threshold, title, meaning).
#: From "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection": Fashion-MNIST (stable) has
#: L_k ≈ 0.24, CIFAR-10 and Imagenette (unstable) have L_k > 0.76 and direction instability up to 0.63.
#: The protocol gates read the *worst* (representation, detector) pair: instability is a property of each pair, and
#: an average over detectors (or over their AUROCs) can hide one detector that inverts classes.
_DECLARED: dict[str, tuple[str, str, float, str, str]] = {
    "leakage": (
        "leakage.L_k",
        "<=",
        0.5,
        "class leakage",
        "The semantic classes overlap in the representation space: a class held out as "
        "anomalies looks like the normals, so a low AUROC may be the benchmark's, not the detector's.",
    ),
    "protocol": (
        "protocol.worst.rho_dir",
        "<=",
        0.2,
        "direction instability",
        "A detector's score direction flips between held-out "
        "classes (as on CIFAR-10 and Imagenette in \u201cTesting the Test\u201d): an AUROC "
        "averaged over classes hides opposite behaviours. Read the per-class table.",
    ),
    "inversion": (
        "protocol.worst.rho_inv_sig",
        "<=",
        0.0,
        "significant inversions",
        "At least one detector ranks a held-out class "
        "significantly below the normals (Holm-corrected). See the classes named below.",
    ),
    # anomaly-labelled data (one task, normals vs labelled anomalies): the class-split rates do not apply; a
    # detector whose AUROC is significantly below 1/2 scores the labelled anomalies as the most normal samples
    "inversion_one_task": (
        "protocol.inverted_detectors",
        "<=",
        0.0,
        "anomalies scored below normals",
        "A detector scores the labelled anomalies significantly below the normals (AUROC significantly below "
        "\u00bd, two-sided): its scores point away from the labels. Check the label coding (1 = anomaly) and "
        "the score direction before reading its AUROC.",
    ),
    # duplicates (largest over the representations): no identical rows with different labels, and at most 1 % of
    # any class-split task's test rows identical to one of its training rows
    "duplicates": (
        "duplicates.conflicting_rows",
        "<=",
        0.0,
        "conflicting labels",
        "Identical samples carry different labels (two classes, or "
        "normal and anomaly): no detector can rank them apart, so every AUROC is capped. "
        "Remove or relabel them (data/duplicates_groups.csv lists them).",
    ),
    "overlap": (
        "duplicates.train_test_overlap",
        "<=",
        0.01,
        "train/test overlap",
        "Test samples have an exact copy among the training "
        "rows of their task: kNN and LOF give them distance 0, an AUROC inflated by "
        "leakage, not by detection. De-duplicate before splitting; the duplicates "
        "section shows the AUROC without the copies.",
    ),
}

#: Reading thresholds of the report = thresholds of the default gates: (summary path, operator, threshold).
THRESHOLDS: dict[str, tuple[str, str, float]] = {name: d[:3] for name, d in _DECLARED.items()}

#: Largest change of a per-class AUROC, once the training copies of the test rows are removed, that counts as
#: no measurable inflation (the overlap finding's wording follows it).
NEGLIGIBLE_DELTA_AUROC = 0.01


def overlap_meaning(finding: Finding) -> str | None:
    """The overlap finding's meaning from its evidence: how much removing the copies changes the AUROCs.

    None (the declared meaning) for a passed finding or one without the change (``max_abs_delta_auroc``)
    in its evidence.

    See Also
    --------
    - [`Check.meaning_for`][auditad.findings.Check.meaning_for]: applies it.

    Examples
    --------
    >>> check = DEFAULT_CHECKS["overlap"]
    >>> f = check.finding(0.2, sentence="", evidence={"max_abs_delta_auroc": 0.004})
    >>> "no measurable inflation" in check.meaning_for(f)
    True
    """
    if finding.status is Status.PASS or "max_abs_delta_auroc" not in finding.evidence:
        return None
    delta = finding.evidence["max_abs_delta_auroc"]
    if delta is None:
        return (
            "Test samples have an exact copy among the training rows of their task: kNN and LOF give them "
            "distance 0. De-duplicate before splitting; the duplicates section shows the AUROC without the copies."
        )
    if delta <= NEGLIGIBLE_DELTA_AUROC:
        return (
            f"Test samples have an exact copy among the training rows of their task, but removing the copies "
            f"changes every per-class AUROC by at most {_format.stat(delta)}: no measurable inflation at these "
            "counts. De-duplicate before splitting for a clean protocol."
        )
    return (
        f"Test samples have an exact copy among the training rows of their task, and removing the copies changes "
        f"a per-class AUROC by up to {_format.stat(delta)}: that AUROC is inflated by leakage, not by detection. "
        "De-duplicate before splitting; the duplicates section shows the AUROC without the copies."
    )


#: The meaning of a default check's finding worded from its evidence, by the name of its threshold.
_MEANING_OF = {"overlap": overlap_meaning}

#: The default checks as [`Check`][auditad.findings.Check] records (id = summary path, WARN, title, meaning,
#: threshold), by the name of their threshold in `THRESHOLDS`.
DEFAULT_CHECKS: dict[str, Check] = {
    name: Check(
        path, Status.WARN, title, meaning, threshold=thr, rule=f"{path} {op} {thr:g}", meaning_of=_MEANING_OF.get(name)
    )
    for name, (path, op, thr, title, meaning) in _DECLARED.items()
}

#: The title and meaning of a gate on a summary path (the default checks, and the average direction
#: instability a gate may name instead of the worst pair's), read by the report's findings block.
GATE_CHECKS: dict[str, Check] = {
    **{c.id: c for c in DEFAULT_CHECKS.values()},
    "protocol.mean.rho_dir": Check(
        "protocol.mean.rho_dir",
        Status.WARN,
        "direction instability (average over detectors)",
        "The average of the per-detector direction-instability rates.",
        threshold=THRESHOLDS["protocol"][2],
        rule=f"protocol.mean.rho_dir <= {THRESHOLDS['protocol'][2]:g}",
    ),
}

#: Titles and meanings of the default checks on anomaly-labelled data (one task, normals vs labelled anomalies),
#: where they differ from the class-split wording, by summary path.
ONE_TASK_CHECKS: dict[str, Check] = {
    "leakage.L_k": Check(
        "leakage.L_k",
        Status.WARN,
        "leakage between normals and anomalies",
        "The labelled anomalies lie among the normals in the representation space: their nearest neighbours are "
        "mostly normal, so a low AUROC may be the data's, not the detector's.",
        threshold=THRESHOLDS["leakage"][2],
        rule=f"leakage.L_k <= {THRESHOLDS['leakage'][2]:g}",
    ),
}

#: Near-random classes of one detector: informative when their share exceeds the direction-instability
#: threshold (near-random classes count in ρ_dir, so a larger share alone breaks that threshold).
NEAR_RANDOM_CHECK = Check(
    "near_random_classes",
    Status.INFO,
    "near-random classes",
    "Their AUROC is within ε of ½ (near random in the sense of “Testing the Test”): the detector separates these "
    "held-out classes from the normals weakly or not at all. Those that still differ from a random detector "
    "(Holm-corrected over the classes; the intervals shown are per class) are named after the list.",
    threshold=THRESHOLDS["protocol"][2],
    rule="share of classes <= threshold",
)

#: WARN-level gates used when neither the config nor ``--gate`` defines any (and ``default_gates`` is true).
DEFAULT_GATES: tuple[str, ...] = tuple(f"warn: {path} {op} {thr:g}" for path, op, thr in THRESHOLDS.values())

#: The default gates as rules, by the name of their threshold in `THRESHOLDS`.
DEFAULT_RULES: dict[str, GateRule] = {
    name: GateRule(path, op, thr, "warn") for name, (path, op, thr) in THRESHOLDS.items()
}


def reading_conditions(results: Iterable) -> dict:
    """The results of the default gates' conditions among ``results``, by the name of their threshold.

    A result counts when its comparison (metric, operator, threshold) is the default gate's, whatever its
    level. The report's readings state these results ("above the threshold of the default gate")
    instead of comparing the number again.

    Parameters
    ----------
    results : iterable of GateResult
        Evaluated gates ([`evaluate_gates`][auditad.gates.checks.evaluate_gates]), or the stored ones
        (``GateResult.from_dict`` of a summary's ``gates``).

    Returns
    -------
    dict of str -> GateResult
        Keys of `THRESHOLDS` (``"leakage"``, ``"protocol"``, ...); a condition that was not evaluated is absent.

    See Also
    --------
    - [`evaluate_gates`][auditad.gates.checks.evaluate_gates]: the evaluation, once per comparison.
    """
    by_comparison = {(r.rule.path, r.rule.op, r.rule.threshold): r for r in results}
    out = {}
    for name, rule in DEFAULT_RULES.items():
        found = by_comparison.get((rule.path, rule.op, rule.threshold))
        if found is not None:
            out[name] = found
    return out
