"""Display forms of numbers in the report's HTML and readings (rounding happens only here).

Moved out of :mod:`auditad.report.render` so that the section modules and the renderer share it
without importing each other; to be replaced by the project-wide number format policy.
"""

from __future__ import annotations

import math

__all__ = ["fmt", "pct", "pval"]


def fmt(value, digits: int = 3) -> str:
    """Display form of a value: 3 decimals, scientific for tiny numbers, '–' for missing."""
    if value is None:
        return "\u2013"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return "\u2013"
        if value != 0 and abs(value) < 10 ** (-digits):
            return f"{value:.2e}"
        if abs(value) >= 1e5:
            return f"{value:.3e}"
        return f"{value:.{digits}f}"
    try:  # numpy scalars
        import numpy as np

        if isinstance(value, np.generic):
            return fmt(value.item(), digits)
    except ImportError:  # pragma: no cover
        pass
    return str(value)


def pct(value, digits: int = 1) -> str:
    """A share as a percentage (``0.0345`` -> ``3.5%``)."""
    if value is None or not math.isfinite(float(value)):
        return "\u2013"
    return f"{100 * float(value):.{digits}f}%"


def pval(p) -> str:
    if p is None or not math.isfinite(p):
        return "\u2013"
    if p == 0:
        return "< 2e-16"
    return f"{p:.2g}"
