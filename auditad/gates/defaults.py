"""The default gates: the report's reading thresholds, declared once.

The reading of each statistic section and the WARN-level gates used when no gate is given
come from `THRESHOLDS`. The readings do not compare a number with a threshold themselves:
they state the result of the default gate's condition (`reading_conditions`), evaluated once
with the other gates.
"""

from __future__ import annotations

from typing import Iterable

from .rules import GateRule

__all__ = ["THRESHOLDS", "DEFAULT_GATES", "DEFAULT_RULES", "reading_conditions"]

#: Reading thresholds of the report = thresholds of the default gates: (summary path, operator, threshold).
#: From "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection": Fashion-MNIST (stable) has
#: L_k ≈ 0.24, CIFAR-10 and Imagenette (unstable) have L_k > 0.76 and direction instability up to 0.63.
#: The protocol gates read the *worst* (representation, detector) pair: instability is a property of each pair, and
#: an average over detectors (or over their AUROCs) can hide one detector that inverts classes.
THRESHOLDS: dict[str, tuple[str, str, float]] = {
    "leakage": ("leakage.L_k", "<=", 0.5),
    "protocol": ("protocol.worst.rho_dir", "<=", 0.2),
    "inversion": ("protocol.worst.rho_inv_sig", "<=", 0.0),
    # duplicates (largest over the representations): no identical rows with different labels, and at most 1 % of
    # any class-split task's test rows identical to one of its training rows
    "duplicates": ("duplicates.conflicting_rows", "<=", 0.0),
    "overlap": ("duplicates.train_test_overlap", "<=", 0.01),
}

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
