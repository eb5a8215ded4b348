"""Settings read from environment variables (byte budgets, folders), checked like parameters."""

from __future__ import annotations

import os


from ..errors import InvalidInputError


def env_bytes(variable: str, default: int, *, zero: str = "") -> int:
    """A byte count from the environment variable ``variable`` (``default`` when it is unset).

    A value that is not a whole number of bytes (≥ 0) is an `InvalidInputError` naming the variable and
    the value; ``zero`` says what 0 means, in the message.
    """
    raw = os.environ.get(variable)
    if raw is None:
        return int(default)
    try:
        value = int(raw.strip())
    except ValueError:
        value = -1
    if value < 0:
        meaning = f" ({zero})" if zero else ""
        raise InvalidInputError(f"{variable} must be a whole number of bytes{meaning}, got {raw!r}")
    return value


def env_folder(variable: str) -> str | None:
    """The existing folder named by the environment variable ``variable`` (None when it is unset or empty);
    a path that is not a folder is an `InvalidInputError` naming the variable and the value."""
    raw = os.environ.get(variable)
    if not raw:
        return None
    if not os.path.isdir(raw):
        raise InvalidInputError(f"{variable} must name an existing folder, got {raw!r}")
    return raw
