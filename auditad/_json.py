"""One converter from result values to JSON-safe plain Python values."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["json_safe"]


def json_safe(value: Any, *, other=None) -> Any:
    """Turn numpy scalars/arrays, tuples and nan/inf into JSON-safe plain Python values.

    nan and ±inf become ``None`` (JSON has no nan); dict keys become strings;
    anything else that is not a number, string, bool or None is returned as is,
    or converted by ``other`` when given (e.g. ``other=repr``).

    Examples
    --------
    >>> json_safe({"a": np.float64("nan"), 1: np.arange(2)})
    {'a': None, '1': [0, 1]}
    """
    if isinstance(value, np.ndarray):
        return [json_safe(v, other=other) for v in value.tolist()]
    if isinstance(value, (list, tuple)):
        return [json_safe(v, other=other) for v in value]
    if isinstance(value, dict):
        return {str(k): json_safe(v, other=other) for k, v in value.items()}
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else None
    if isinstance(value, np.str_):
        return str(value)
    if other is None or value is None or isinstance(value, str):
        return value
    return other(value)
