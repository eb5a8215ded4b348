"""The default gates: the report's reading thresholds, declared once.

The reading of each statistic section and the WARN-level gates used when no gate is given
come from `THRESHOLDS`.
"""

from __future__ import annotations

__all__ = ["THRESHOLDS", "DEFAULT_GATES"]

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
