r"""Multiple-testing corrections, one implementation each: Holm (family-wise error) and Benjamini–Hochberg (FDR).

Both take p-values in any order and return the adjusted p-values in the same order. Entries that
are NaN are *skipped*: they stay NaN in the output and do not count in the number m of tests (a
class without counts, a comparison that could not run). A p-value outside [0, 1] (beyond rounding)
or infinite is an error; the adjusted values are capped at 1.
A hypothesis is rejected at level α when its adjusted p-value is at most α.

References
----------
1. S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian Journal of
   Statistics 6(2), 65–70, 1979.
2. Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate: a practical and powerful
   approach to multiple testing", Journal of the Royal Statistical Society B 57(1), 289–300, 1995.
"""

from __future__ import annotations

import numpy as np

from .._validation import describe
from ..errors import InvalidInputError

__all__ = ["holm_adjust", "bh_adjust"]

#: How far outside [0, 1] a p-value may lie from rounding (``2 * min(p, 1 - p)`` can give 1 + 2e-16).
_ROUNDING = 1e-9


def _finite_sorted(p_values) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(p, out, order)``: the p-values as floats, a NaN output of their shape, the finite ones' indices sorted."""
    p = np.asarray(p_values, dtype=np.float64)
    fin = np.flatnonzero(~np.isnan(p.ravel()))
    flat = p.ravel()
    if not ((flat[fin] >= -_ROUNDING) & (flat[fin] <= 1 + _ROUNDING)).all():
        raise InvalidInputError(f"p_values must lie in [0, 1] (NaN is skipped), got {describe(flat.tolist())}")
    order = fin[np.argsort(flat[fin], kind="stable")]
    return flat, np.full(flat.shape, np.nan), order


def holm_adjust(p_values) -> np.ndarray:
    r"""Holm's step-down adjusted p-values (family-wise error control over the non-NaN entries).

    With the m non-NaN p-values sorted, \(p_{(1)} \le \dots \le p_{(m)}\),

    \[
    \tilde p_{(i)} = \max_{j \le i} \min\big(1, (m - j + 1)\, p_{(j)}\big);
    \]

    rejecting \(\tilde p \le \alpha\) controls the family-wise error at α. NaN entries stay NaN and do
    not count in m.

    Parameters
    ----------
    p_values : array-like of float in [0, 1] or NaN

    Returns
    -------
    numpy.ndarray
        Adjusted p-values in the input order and shape.

    Raises
    ------
    InvalidInputError
        A p-value below 0 or above 1.

    References
    ----------
    S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian Journal of
    Statistics 6(2), 65–70, 1979.

    See Also
    --------
    - [`bh_adjust`][auditad.metrics.multiple_testing.bh_adjust]: false-discovery-rate control instead.

    Examples
    --------
    >>> holm_adjust([0.01, 0.04, 0.03, float("nan")]).round(3).tolist()
    [0.03, 0.06, 0.06, nan]
    """
    p, out, order = _finite_sorted(p_values)
    m = order.size
    if m:
        out[order] = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * p[order]))
    return out.reshape(np.shape(p_values))


def bh_adjust(p_values) -> np.ndarray:
    r"""Benjamini–Hochberg step-up adjusted p-values (false-discovery-rate control over the non-NaN entries).

    With the m non-NaN p-values sorted, \(p_{(1)} \le \dots \le p_{(m)}\),

    \[
    \tilde p_{(i)} = \min_{j \ge i} \min\big(1, \tfrac{m}{j}\, p_{(j)}\big);
    \]

    rejecting \(\tilde p \le q\) controls the false discovery rate at q for independent (or positively
    dependent) tests. NaN entries stay NaN and do not count in m.

    Parameters
    ----------
    p_values : array-like of float in [0, 1] or NaN

    Returns
    -------
    numpy.ndarray
        Adjusted p-values in the input order and shape.

    Raises
    ------
    InvalidInputError
        A p-value below 0 or above 1.

    References
    ----------
    Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate: a practical and powerful
    approach to multiple testing", Journal of the Royal Statistical Society B 57(1), 289–300, 1995.

    See Also
    --------
    - [`holm_adjust`][auditad.metrics.multiple_testing.holm_adjust]: family-wise error control instead.

    Examples
    --------
    >>> bh_adjust([0.01, 0.04, 0.03, float("nan")]).round(3).tolist()
    [0.03, 0.04, 0.04, nan]
    """
    p, out, order = _finite_sorted(p_values)
    m = order.size
    if m:
        scaled = np.minimum(1.0, p[order] * m / np.arange(1, m + 1))
        out[order] = np.minimum.accumulate(scaled[::-1])[::-1]
    return out.reshape(np.shape(p_values))
