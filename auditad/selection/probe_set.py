"""The pseudo-anomaly set and the probe kinds shared by every construction.

[`PseudoAnomalies`][auditad.selection.pseudo.PseudoAnomalies] (what a probe made and from what), the
tuples of probe kinds and `skipped_probe`, the empty result
of a construction that cannot make any sample. The constructions are in `auditad.selection.generated_probes`
and `auditad.selection.pseudo`; every name here is also importable from `auditad.selection.pseudo`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from .._json import json_safe
from ..errors import InvalidInputError, SkippedItemWarning

__all__ = [
    "PseudoAnomalies",
    "PROBE_KINDS",
    "CROSS_KINDS",
    "SEQUENCE_KINDS",
    "GENERATED_KINDS",
    "META_KEYS",
    "EMPTY_INDEX",
    "skipped_probe",
]

PROBE_KINDS = ("random", "feature", "sequence", "element", "cross_domain", "cross_class", "cross_attribute", "diverse")
#: probe kind -> metadata column it crosses
CROSS_KINDS = {"cross_domain": "domain", "cross_class": "class", "cross_attribute": "attribute"}
SEQUENCE_KINDS = ("sequence", "element")
GENERATED_KINDS = ("random", "feature", "sequence", "element")
META_KEYS = ("domain", "class", "attribute")
#: the empty row index of a probe that uses no reference (or no auxiliary) sample
EMPTY_INDEX = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class PseudoAnomalies:
    """A set of pseudo-anomalies and where it came from.

    Attributes
    ----------
    kind : str
        One of `PROBE_KINDS`.
    X : ndarray or None
        Generated samples: (m, d) embeddings, or (m, T, d) sequences for
        ``sequence`` / ``element`` (pool them like the candidate's references).
        None when nothing was generated.
    reference_index : ndarray of int64
        Reference samples used as pseudo-anomalies (scored leave-one-out).
    auxiliary_index : ndarray of int64
        Rows of the auxiliary pool used as pseudo-anomalies.
    source : str
        What the samples were made from, in words.
    parts : tuple of str
        The probe kinds this set concatenates (``diverse``), else ``(kind,)``.
    skipped : bool
        True when no pseudo-anomaly could be made; ``reason`` says why.
    reason : str or None

    See Also
    --------
    - [`make_probe`][auditad.selection.pseudo.make_probe]
    - [`diverse_probe`][auditad.selection.pseudo.diverse_probe]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 4.1.

    Examples
    --------
    >>> import numpy as np
    >>> from auditad.selection.pseudo import cross_probe
    >>> p = cross_probe("cross_class", {"class": ["a", "a", "b"]})
    >>> p.n_samples, p.summary()["n_reference"], p.embeddings(np.eye(3)).tolist()
    (1, 1, [[0.0, 0.0, 1.0]])
    """

    kind: str
    X: np.ndarray | None
    reference_index: np.ndarray = field(default_factory=lambda: EMPTY_INDEX)
    auxiliary_index: np.ndarray = field(default_factory=lambda: EMPTY_INDEX)
    source: str = ""
    parts: tuple = ()
    skipped: bool = False
    reason: str | None = None

    @property
    def n_generated(self) -> int:
        """Number of generated samples (rows of ``X``)."""
        return 0 if self.X is None else int(self.X.shape[0])

    @property
    def n_samples(self) -> int:
        """Total number of pseudo-anomalies."""
        return self.n_generated + int(self.reference_index.size) + int(self.auxiliary_index.size)

    def embeddings(self, reference=None, auxiliary=None) -> np.ndarray:
        """All pseudo-anomaly embeddings stacked: generated, then reference rows, then auxiliary rows.

        Parameters
        ----------
        reference, auxiliary : array-like, optional
            The task's reference set and auxiliary pool (needed when the probe uses their rows).

        Returns
        -------
        ndarray

        Raises
        ------
        auditad.errors.InvalidInputError
            A needed pool that was not passed, or an empty (skipped) probe.
        """
        blocks = [] if self.X is None else [self.X]
        if self.reference_index.size:
            if reference is None:
                raise InvalidInputError(f"{self.kind} uses reference samples: pass reference")
            blocks.append(np.asarray(reference)[self.reference_index])
        if self.auxiliary_index.size:
            if auxiliary is None:
                raise InvalidInputError(f"{self.kind} uses auxiliary samples: pass auxiliary")
            blocks.append(np.asarray(auxiliary)[self.auxiliary_index])
        if not blocks:
            raise InvalidInputError(f"the {self.kind} probe is empty ({self.reason})")
        return np.concatenate(blocks, axis=0)

    def summary(self) -> dict:
        """Counts and provenance, without the arrays (JSON-safe)."""
        return {
            "kind": self.kind,
            "n_samples": self.n_samples,
            "n_generated": self.n_generated,
            "n_reference": int(self.reference_index.size),
            "n_auxiliary": int(self.auxiliary_index.size),
            "source": self.source,
            "parts": list(self.parts),
            "skipped": bool(self.skipped),
            "reason": self.reason,
        }

    def to_dict(self) -> dict:
        """JSON-safe dict: the summary plus the index arrays (the generated array is not included)."""
        out = self.summary()
        out["reference_index"] = json_safe(self.reference_index)
        out["auxiliary_index"] = json_safe(self.auxiliary_index)
        out["shape"] = None if self.X is None else list(self.X.shape)
        return out

    def to_frame(self):
        """One-row tidy frame of [`summary`][auditad.selection.pseudo.PseudoAnomalies.summary]."""
        import pandas as pd

        return pd.DataFrame([{**self.summary(), "parts": "+".join(self.parts)}])


def skipped_probe(kind: str, reason: str, *, warn: bool = True) -> PseudoAnomalies:
    """An empty probe of ``kind`` marked skipped with ``reason``, with a warning by default.

    Shared by the probe constructions when no pseudo-anomaly can be made; the
    warning points at the caller of the construction that gave up.

    Parameters
    ----------
    kind : str
        One of `PROBE_KINDS`.
    reason : str
        Why no pseudo-anomaly could be made.
    warn : bool, default True
        Warn ([`SkippedItemWarning`][auditad.errors.SkippedItemWarning]).

    Returns
    -------
    PseudoAnomalies
        ``skipped=True``, no samples.

    See Also
    --------
    - [`PseudoAnomalies`][auditad.selection.pseudo.PseudoAnomalies]
    - [`make_probe`][auditad.selection.pseudo.make_probe]

    Examples
    --------
    >>> p = skipped_probe("cross_class", "no other class", warn=False)
    >>> p.skipped, p.n_samples, p.reason
    (True, 0, 'no other class')
    """
    if warn:
        warnings.warn(f"pseudo-anomaly probe {kind!r} skipped: {reason}", SkippedItemWarning, stacklevel=3)
    return PseudoAnomalies(kind=kind, X=None, source="", parts=(kind,), skipped=True, reason=reason)
