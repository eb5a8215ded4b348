"""Random-state handling: one place that turns ``random_state`` into a Generator."""

from __future__ import annotations

import numbers

import numpy as np

from .errors import InvalidInputError

__all__ = ["check_random_state", "spawn", "seed_int"]


def check_random_state(random_state) -> np.random.Generator:
    """Return a `numpy.random.Generator` for ``random_state``.

    Parameters
    ----------
    random_state : None, int or numpy.random.Generator
        ``None`` gives fresh OS entropy (not reproducible), an int seeds a new
        PCG64 generator, a Generator is returned unchanged (shared state).

    Examples
    --------
    >>> bool(check_random_state(0).integers(10) == check_random_state(0).integers(10))
    True
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if int(random_state) < 0:
            raise InvalidInputError(f"random_state must be a non-negative int, got {random_state!r}")
        return np.random.default_rng(int(random_state))
    raise InvalidInputError(f"random_state must be None, an int or a numpy.random.Generator, got {random_state!r}")


def spawn(random_state, n: int) -> list[np.random.Generator]:
    """Return ``n`` independent child generators derived from ``random_state``.

    The children depend only on the seed (and on how many numbers were already
    drawn from a passed Generator), so replicate ``i`` gets the same stream
    whether replicates run sequentially or in parallel.
    """
    if int(n) < 0:
        raise InvalidInputError(f"n must be >= 0, got {n!r}")
    rng = check_random_state(random_state)
    seeds = rng.integers(0, 2**63 - 1, size=int(n), dtype=np.int64)
    return [np.random.default_rng(int(s)) for s in seeds]


def seed_int(random_state) -> int:
    """Draw a 32-bit integer seed (for libraries that want an int, e.g. scikit-learn)."""
    return int(check_random_state(random_state).integers(0, 2**31 - 1))
