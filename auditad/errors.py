"""Exceptions and warnings raised by auditad.

Every error that a user can cause by passing bad input is an
:class:`InvalidInputError`, which subclasses both :class:`AuditadError` and
:class:`ValueError` (so ``except ValueError`` keeps working).  Per-item values
that cannot be defined (a class with constant scores, an empty probe, ...) are
returned as ``nan`` together with a warning that subclasses
:class:`AuditadWarning`.
"""

from __future__ import annotations

__all__ = [
    "AuditadError",
    "InvalidInputError",
    "OutputError",
    "AuditadWarning",
    "UndefinedValueWarning",
    "ApproximationWarning",
    "SkippedItemWarning",
]


class AuditadError(Exception):
    """Base class of every exception raised on purpose by auditad."""


class InvalidInputError(AuditadError, ValueError):
    """Bad input: the message names the parameter and the offending value."""


class OutputError(AuditadError, OSError):
    """An output could not be written (disk full, read-only folder, permission denied).

    Subclasses :class:`OSError` with the original ``errno`` and the output path as
    ``filename``; the message names the file and the reason.
    """

    def __str__(self) -> str:
        return str(self.strerror)


class AuditadWarning(UserWarning):
    """Base class of every warning issued by auditad."""


class UndefinedValueWarning(AuditadWarning):
    """A per-item statistic is undefined and was returned as ``nan`` (or a documented convention)."""


class ApproximationWarning(AuditadWarning):
    """An approximate method was used where its accuracy matters (e.g. low kNN recall)."""


class SkippedItemWarning(AuditadWarning):
    """An item (a class, a probe, a candidate) was skipped; the result records it."""
