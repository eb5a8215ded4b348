"""Exceptions and warnings raised by auditad.

Every error that a user can cause by passing bad input is an
[`InvalidInputError`][auditad.errors.InvalidInputError], which subclasses both
[`AuditadError`][auditad.errors.AuditadError] and
`ValueError` (so ``except ValueError`` keeps working).  Per-item values
that cannot be defined (a class with constant scores, an empty probe, ...) are
returned as ``nan`` together with a warning that subclasses
[`AuditadWarning`][auditad.errors.AuditadWarning].
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
    """Base class of every exception raised on purpose by auditad.

    See Also
    --------
    - [`InvalidInputError`][auditad.errors.InvalidInputError]: bad input (also a ``ValueError``).
    - [`AuditadWarning`][auditad.errors.AuditadWarning]: the warnings.

    References
    ----------
    F. Pedregosa et al., "Scikit-learn: Machine Learning in Python", JMLR 12, 2011 (the
    convention followed: bad input is a ``ValueError`` naming the parameter).
    """


class InvalidInputError(AuditadError, ValueError):
    """Bad input: the message names the parameter and the offending value.

    See Also
    --------
    - [`AuditadError`][auditad.errors.AuditadError]: the base class.
    - `auditad.cli.main`: prints it as one line and exits with code 2.

    References
    ----------
    F. Pedregosa et al., "Scikit-learn: Machine Learning in Python", JMLR 12, 2011 (the
    convention followed: bad input is a ``ValueError`` naming the parameter).
    """


class OutputError(AuditadError, OSError):
    """An output could not be written (disk full, read-only folder, permission denied).

    Subclasses `OSError` with the original ``errno`` and the output path as
    ``filename``; the message names the file and the reason.
    """

    def __str__(self) -> str:
        return str(self.strerror)


class AuditadWarning(UserWarning):
    """Base class of every warning issued by auditad.

    See Also
    --------
    - [`UndefinedValueWarning`][auditad.errors.UndefinedValueWarning],
      [`ApproximationWarning`][auditad.errors.ApproximationWarning],
      [`SkippedItemWarning`][auditad.errors.SkippedItemWarning]: the subclasses.
    - [`AuditadError`][auditad.errors.AuditadError]: the exceptions.

    References
    ----------
    F. Pedregosa et al., "Scikit-learn: Machine Learning in Python", JMLR 12, 2011 (the
    convention followed: a value that cannot be defined is nan with a warning, never a silent number).
    """


class UndefinedValueWarning(AuditadWarning):
    """A per-item statistic is undefined and was returned as ``nan`` (or a documented convention).

    See Also
    --------
    - [`AuditadWarning`][auditad.errors.AuditadWarning]: the base class.
    - [`SkippedItemWarning`][auditad.errors.SkippedItemWarning]: an item left out entirely.

    References
    ----------
    F. Pedregosa et al., "Scikit-learn: Machine Learning in Python", JMLR 12, 2011 (the
    convention followed: a value that cannot be defined is nan with a warning, never a silent number).
    """


class ApproximationWarning(AuditadWarning):
    """An approximate method was used where its accuracy matters (e.g. low kNN recall).

    See Also
    --------
    - [`AuditadWarning`][auditad.errors.AuditadWarning]: the base class.
    - [`auditad.kneighbors`][auditad.neighbors.kneighbors]: the approximate backend and its measured recall.

    References
    ----------
    W. Dong, M. Charikar, K. Li, "Efficient k-nearest neighbor graph construction for generic
    similarity measures", WWW 2011 (NN-descent, the approximate backend via pynndescent).
    """


class SkippedItemWarning(AuditadWarning):
    """An item (a class, a probe, a candidate) was skipped; the result records it.

    See Also
    --------
    - [`AuditadWarning`][auditad.errors.AuditadWarning]: the base class.
    - [`UndefinedValueWarning`][auditad.errors.UndefinedValueWarning]: a value that is nan.

    References
    ----------
    F. Pedregosa et al., "Scikit-learn: Machine Learning in Python", JMLR 12, 2011 (the
    convention followed: a value that cannot be defined is nan with a warning, never a silent number).
    """
