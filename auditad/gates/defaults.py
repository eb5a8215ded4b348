"""The default gates: the report's reading thresholds, declared once.

The reading of each statistic section and the WARN-level gates used when no gate is given
come from :data:`THRESHOLDS`.
"""

from __future__ import annotations

__all__ = ["THRESHOLDS", "DEFAULT_GATES"]

#: Reading thresholds of the report = thresholds of the default gates: (summary path, operator, threshold).
#: From "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection": Fashion-MNIST (stable) has L_k ≈ 0.24, CIFAR-10 and
#: Imagenette (unstable) have L_k > 0.76 and direction instability up to 0.63.
THRESHOLDS: dict[str, tuple[str, str, float]] = {
    "leakage": ("leakage.L_k", "<=", 0.5),
    "protocol": ("protocol.mean.rho_dir", "<=", 0.2),
}

#: WARN-level gates used when neither the config nor ``--gate`` defines any (and ``default_gates`` is true).
DEFAULT_GATES: tuple[str, ...] = tuple(f"warn: {path} {op} {thr:g}" for path, op, thr in THRESHOLDS.values())
