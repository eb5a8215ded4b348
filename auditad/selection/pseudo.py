"""Pseudo-anomaly constructions in embedding space.

From K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection Performance
from Embedding-Space Geometry?" (Sec. 4.1 and 5.4).

Pseudo-anomalies stand in for the unknown outlier distribution when a
candidate system is judged without anomalous data. Every construction is
seeded and returns a [`PseudoAnomalies`][auditad.selection.pseudo.PseudoAnomalies] that says how many samples it made
and from what.

=================  ===============================================================
kind               construction
=================  ===============================================================
``random``         N(0, I) in the embedding space, one per reference sample
``feature``        dimension j of pseudo-anomaly i copied from dimension j of a
                   reference embedding drawn at random, independently per (i, j);
                   one per reference sample
``sequence``       for sequence embeddings (n, T, d), before pooling: frame t of
                   pseudo-sequence i is frame t of a reference sequence drawn at
                   random, independently per (i, t) (at least two different
                   source sequences each); one per reference sample
``element``        before pooling: a copy of reference sequence i in which
                   ``n_swap`` frames are replaced by random frames of other
                   reference sequences; one per reference sample
``cross_domain``   every normal sample of the pool (reference + auxiliary) whose
                   domain differs from the task's home domain (same class as
                   the home class when classes are known)
``cross_class``    every normal sample of the pool whose class differs from the
                   home class
``cross_attribute`` every normal sample of the pool whose attribute differs from
                   the home attribute (same class as the home class when known)
``diverse``        the concatenation of feature, cross_domain, cross_class and
                   cross_attribute (those available)
=================  ===============================================================

The *home* value of a metadata column is given by the task or, by default, is
the most frequent value of that column in the reference set (ties: the
smallest). Pool samples that belong to the reference set are recorded in
``reference_index`` and are scored leave-one-out (like the inlier scores); the
auxiliary ones in ``auxiliary_index`` are scored against the full reference.
Generated samples (random, feature, sequence, element) are held in ``X``.
"""

from __future__ import annotations

import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from .._rng import check_random_state
from .._validation import check_choice, check_embeddings, check_int
from ..errors import InvalidInputError, SkippedItemWarning
from .._json import json_safe

__all__ = [
    "PseudoAnomalies",
    "PROBE_KINDS",
    "CROSS_KINDS",
    "SEQUENCE_KINDS",
    "GENERATED_KINDS",
    "META_KEYS",
    "random_probe",
    "feature_probe",
    "sequence_probe",
    "element_probe",
    "cross_probe",
    "diverse_probe",
    "make_probe",
    "home_values",
    "check_metadata",
]

PROBE_KINDS = ("random", "feature", "sequence", "element", "cross_domain", "cross_class",
               "cross_attribute", "diverse")
#: probe kind -> metadata column it crosses
CROSS_KINDS = {"cross_domain": "domain", "cross_class": "class", "cross_attribute": "attribute"}
SEQUENCE_KINDS = ("sequence", "element")
GENERATED_KINDS = ("random", "feature", "sequence", "element")
META_KEYS = ("domain", "class", "attribute")
_EMPTY = np.zeros(0, dtype=np.int64)


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
    >>> p = cross_probe("cross_class", {"class": ["a", "a", "b"]})
    >>> p.n_samples, p.summary()["n_reference"], p.embeddings(np.eye(3)).tolist()
    (1, 1, [[0.0, 0.0, 1.0]])
    """

    kind: str
    X: np.ndarray | None
    reference_index: np.ndarray = field(default_factory=lambda: _EMPTY)
    auxiliary_index: np.ndarray = field(default_factory=lambda: _EMPTY)
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


# --------------------------------------------------------------------------- generated probes
def _n_out(n, n_ref):
    return n_ref if n is None else check_int(n, name="n", low=1)


def random_probe(reference, *, n: int | None = None, random_state=None) -> PseudoAnomalies:
    r"""Random pseudo-anomalies drawn from a standard normal distribution.

    \[
    \tilde x_i \sim \mathcal N(0, I_d),\qquad i = 1, \dots, n
    \]

    Parameters
    ----------
    reference : array-like of shape (n_ref, d)
        Reference embeddings (only their number and dimension are used).
    n : int, optional
        Number of samples (default: one per reference sample).
    random_state : None, int or Generator

    Returns
    -------
    PseudoAnomalies

    Raises
    ------
    auditad.errors.InvalidInputError
        A reference that is not a finite (n, d) array, or ``n`` < 1.

    See Also
    --------
    - [`feature_probe`][auditad.selection.pseudo.feature_probe]
    - [`make_probe`][auditad.selection.pseudo.make_probe]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 4.1.

    Examples
    --------
    >>> import numpy as np
    >>> random_probe(np.zeros((5, 3)), random_state=0).X.shape
    (5, 3)
    """
    R = check_embeddings(reference, name="reference")
    m = _n_out(n, R.shape[0])
    X = check_random_state(random_state).standard_normal((m, R.shape[1]))
    return PseudoAnomalies(kind="random", X=X, source=f"random: {m} draws from N(0, I_{R.shape[1]})",
                           parts=("random",))


def feature_probe(reference, *, n: int | None = None, random_state=None) -> PseudoAnomalies:
    r"""Feature pseudo-anomalies: each dimension copied from a randomly chosen reference embedding.

    \[
    \tilde x_{ij} = r_{u_{ij},\,j},\qquad u_{ij} \sim \mathcal U\{1, \dots, n_{ref}\}\ \text{i.i.d.}
    \]

    Every dimension of every pseudo-anomaly is copied from the same dimension of
    a reference embedding chosen uniformly at random (with replacement),
    independently per pseudo-anomaly and per dimension: the marginals of the
    reference are kept, their dependence is destroyed.

    Parameters
    ----------
    reference : array-like of shape (n_ref, d)
    n : int, optional
        Number of samples (default: one per reference sample).
    random_state : None, int or Generator

    Returns
    -------
    PseudoAnomalies

    Raises
    ------
    auditad.errors.InvalidInputError
        A reference that is not a finite (n, d) array, or ``n`` < 1.

    See Also
    --------
    - [`random_probe`][auditad.selection.pseudo.random_probe]
    - [`diverse_probe`][auditad.selection.pseudo.diverse_probe]
    - [`make_probe`][auditad.selection.pseudo.make_probe]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 4.1.

    Examples
    --------
    >>> import numpy as np
    >>> R = np.array([[0.0, 10.0], [1.0, 11.0]])
    >>> P = feature_probe(R, n=50, random_state=0).X
    >>> bool(np.isin(P[:, 0], R[:, 0]).all() and np.isin(P[:, 1], R[:, 1]).all())
    True
    """
    R = check_embeddings(reference, name="reference")
    n_ref, d = R.shape
    m = _n_out(n, n_ref)
    u = check_random_state(random_state).integers(0, n_ref, size=(m, d))
    X = R[u, np.arange(d)[None, :]]
    return PseudoAnomalies(kind="feature", X=X,
                           source=f"feature: {m} samples, each of the {d} dimensions copied from one of "
                                  f"{n_ref} reference embeddings drawn independently per dimension",
                           parts=("feature",))


def _skipped(kind: str, reason: str, *, warn: bool = True) -> PseudoAnomalies:
    if warn:
        warnings.warn(f"pseudo-anomaly probe {kind!r} skipped: {reason}", SkippedItemWarning, stacklevel=3)
    return PseudoAnomalies(kind=kind, X=None, source="", parts=(kind,), skipped=True, reason=reason)


def sequence_probe(sequences, *, n: int | None = None, random_state=None, warn: bool = True) -> PseudoAnomalies:
    r"""Sequence pseudo-anomalies built from frames of different reference sequences (before pooling).

    \[
    \tilde s_{i,t} = s_{u_{it},\,t},\qquad u_{it} \sim \mathcal U\{1, \dots, n_{ref}\}\ \text{i.i.d.}
    \]

    Frame t of pseudo-sequence i is frame t of reference sequence \(u_{it}\),
    \(u_{it}\) uniform and independent; when all frames of a pseudo-sequence
    happen to come from one sequence, its first frame is re-drawn from another
    one (each pseudo-sequence mixes at least two samples). Needs T >= 2 and at
    least 2 reference sequences; otherwise the probe is skipped.

    Parameters
    ----------
    sequences : array-like of shape (n_ref, T, d)
    n : int, optional
        Number of pseudo-sequences (default: one per reference sequence).
    random_state : None, int or Generator
    warn : bool, default True
        Warn ([`SkippedItemWarning`][auditad.errors.SkippedItemWarning]) when skipped.

    Returns
    -------
    PseudoAnomalies
        ``X`` of shape (n, T, d), to be pooled like the candidate's references.

    Raises
    ------
    auditad.errors.InvalidInputError
        Sequences that are not a finite (n, T, d) array, or ``n`` < 1.

    See Also
    --------
    - [`element_probe`][auditad.selection.pseudo.element_probe]
    - [`auditad.selection.scoring.pool_sequences`][auditad.selection.scoring.pool_sequences]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 4.1.

    Examples
    --------
    >>> import numpy as np
    >>> S = np.arange(24, dtype=float).reshape(3, 4, 2)
    >>> sequence_probe(S, random_state=0).X.shape
    (3, 4, 2)
    """
    S = check_embeddings(sequences, name="sequences", ndim=3)
    n_ref, T, d = S.shape
    if T < 2 or n_ref < 2:
        return _skipped("sequence", f"needs sequences of length >= 2 from >= 2 samples, got shape {S.shape}",
                        warn=warn)
    m = _n_out(n, n_ref)
    rng = check_random_state(random_state)
    u = rng.integers(0, n_ref, size=(m, T))
    same = np.all(u == u[:, :1], axis=1)
    if same.any():
        shift = rng.integers(1, n_ref, size=int(same.sum()))
        u[same, 0] = (u[same, 0] + shift) % n_ref
    X = S[u, np.arange(T)[None, :]]
    return PseudoAnomalies(kind="sequence", X=X,
                           source=f"sequence: {m} sequences of {T} frames, frame t taken from frame t of one of "
                                  f"{n_ref} reference sequences drawn independently per frame",
                           parts=("sequence",))


def element_probe(sequences, *, n: int | None = None, n_swap: int = 1, random_state=None,
                  warn: bool = True) -> PseudoAnomalies:
    r"""Element pseudo-anomalies: reference sequences with single frames exchanged (before pooling).

    \[
    \tilde s_{i,t} = \begin{cases} s_{j_{it},\,\tau_{it}} & t \in P_i \\ s_{i,t} & \text{otherwise}
    \end{cases},\qquad |P_i| = n_{swap},\ j_{it} \ne i
    \]

    Pseudo-sequence i is a copy of reference sequence i (i cycles through the
    reference when ``n`` exceeds its size) in which ``n_swap`` distinct frame
    positions are replaced by a frame (random position) of another reference
    sequence j ≠ i, drawn independently per replaced frame.

    Parameters
    ----------
    sequences : array-like of shape (n_ref, T, d)
    n : int, optional
        Number of pseudo-sequences (default: one per reference sequence).
    n_swap : int, default 1
        Frames replaced per pseudo-sequence (1 <= n_swap <= T).
    random_state : None, int or Generator
    warn : bool, default True
        Warn when skipped (fewer than 2 reference sequences).

    Returns
    -------
    PseudoAnomalies

    Raises
    ------
    auditad.errors.InvalidInputError
        Sequences that are not a finite (n, T, d) array, ``n_swap`` < 1 or > T.

    See Also
    --------
    - [`sequence_probe`][auditad.selection.pseudo.sequence_probe]
    - [`auditad.selection.scoring.pool_sequences`][auditad.selection.scoring.pool_sequences]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 4.1.

    Examples
    --------
    >>> import numpy as np
    >>> S = np.zeros((3, 4, 2)); S[1] = 1.0; S[2] = 2.0
    >>> P = element_probe(S, random_state=0).X
    >>> [int((P[i] != S[i]).any(axis=1).sum()) for i in range(3)]
    [1, 1, 1]
    """
    S = check_embeddings(sequences, name="sequences", ndim=3)
    n_ref, T, d = S.shape
    n_swap = check_int(n_swap, name="n_swap", low=1)
    if n_ref < 2:
        return _skipped("element", f"needs at least 2 reference sequences, got {n_ref}", warn=warn)
    if n_swap > T:
        raise InvalidInputError(f"n_swap must be at most the sequence length T={T}, got {n_swap}")
    m = _n_out(n, n_ref)
    rng = check_random_state(random_state)
    base = np.arange(m) % n_ref
    X = S[base].copy()
    pos = np.argsort(rng.random((m, T)), axis=1)[:, :n_swap]          # distinct positions per sequence
    donor = (base[:, None] + rng.integers(1, n_ref, size=(m, n_swap))) % n_ref  # j != i
    donor_pos = rng.integers(0, T, size=(m, n_swap))
    rows = np.repeat(np.arange(m), n_swap)
    X[rows, pos.ravel()] = S[donor.ravel(), donor_pos.ravel()]
    return PseudoAnomalies(kind="element", X=X,
                           source=f"element: {m} copies of reference sequences with {n_swap} of {T} frames "
                                  f"replaced by frames of other reference sequences",
                           parts=("element",))


# --------------------------------------------------------------------------- metadata probes
def check_metadata(meta, n: int, *, name: str) -> dict[str, np.ndarray]:
    """Validate a metadata mapping ``{"domain"|"class"|"attribute": labels of length n}``; values become str.

    Parameters
    ----------
    meta : mapping or None
        Column name (one of `META_KEYS`) -> 1-D integer or string labels.
    n : int
        Number of rows the labels must have.
    name : str
        Name of the argument in error messages.

    Returns
    -------
    dict of str -> ndarray of str

    Raises
    ------
    auditad.errors.InvalidInputError
        Not a mapping, an unknown column, labels of the wrong length or of a
        non-label dtype (floats must be whole numbers).

    See Also
    --------
    - [`home_values`][auditad.selection.pseudo.home_values]
    - [`cross_probe`][auditad.selection.pseudo.cross_probe]

    Examples
    --------
    >>> check_metadata({"class": [1, 2]}, 2, name="meta")["class"].tolist()
    ['1', '2']
    """
    if meta is None:
        return {}
    if not isinstance(meta, Mapping):
        raise InvalidInputError(f"{name} must be a mapping of column name to labels, got {type(meta).__name__}")
    out = {}
    for key, values in meta.items():
        if key not in META_KEYS:
            raise InvalidInputError(f"{name} has an unknown column {key!r}; allowed: {list(META_KEYS)}")
        arr = np.asarray(values)
        if arr.ndim != 1 or arr.shape[0] != n:
            raise InvalidInputError(f"{name}[{key!r}] must be 1-D with {n} entries, got shape {arr.shape}")
        if arr.dtype == object or arr.dtype.kind not in "biuUS":
            if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
                arr = arr.astype(np.int64)
            else:
                raise InvalidInputError(f"{name}[{key!r}] must hold integer or string labels, got dtype {arr.dtype}")
        out[key] = arr.astype(str)
    return out


def home_values(reference_meta: Mapping[str, np.ndarray], home: Mapping[str, object] | None = None) -> dict[str, str]:
    r"""Home value of each metadata column: the declared one, else the reference's most frequent (ties: smallest).

    \[
    h_c = \min\,\arg\max_v \#\{i : m_{c,i} = v\}
    \]

    Parameters
    ----------
    reference_meta : mapping of column -> labels
    home : mapping of column -> value, optional
        Declared home values (override the majority).

    Returns
    -------
    dict of str -> str

    Raises
    ------
    auditad.errors.InvalidInputError
        An unknown column in ``home``.

    See Also
    --------
    - [`cross_probe`][auditad.selection.pseudo.cross_probe]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 4.1.

    Examples
    --------
    >>> home_values({"domain": np.array(["s", "s", "t"])})
    {'domain': 's'}
    """
    out = {}
    for key, values in reference_meta.items():
        counts = Counter(np.asarray(values).astype(str).tolist())
        top = max(counts.values())
        out[key] = min(v for v, c in counts.items() if c == top)
    for key, value in (home or {}).items():
        if key not in META_KEYS:
            raise InvalidInputError(f"home has an unknown column {key!r}; allowed: {list(META_KEYS)}")
        out[key] = str(value)
    return out


def _eligible(meta: Mapping[str, np.ndarray], n: int, column: str, home: Mapping[str, str]) -> np.ndarray:
    if n == 0 or column not in meta or column not in home:
        return _EMPTY
    ok = meta[column] != home[column]
    if column != "class" and "class" in meta and "class" in home:
        ok &= meta["class"] == home["class"]
    return np.flatnonzero(ok).astype(np.int64)


def cross_probe(kind: str, reference_meta=None, *, auxiliary_meta=None, n_reference: int | None = None,
                n_auxiliary: int | None = None, home=None, warn: bool = True) -> PseudoAnomalies:
    r"""Cross-Domain / Cross-Class / Cross-Attribute pseudo-anomalies: real normals of another group.

    Eligible are all samples of the pool (reference set + auxiliary pool)
    whose value of the crossed column (domain, class or attribute) differs from
    the home value; for domain and attribute the sample must also share the home
    class when classes are known (otherwise it would be a cross-class sample).
    A probe with no eligible sample is returned with ``skipped=True`` and a
    [`SkippedItemWarning`][auditad.errors.SkippedItemWarning] (not an exception).

    \[
    P_c = \{i \in R \cup A : m_{c,i} \ne h_c \wedge (c = \text{class} \vee m_{\text{class},i} = h_{\text{class}})\}
    \]

    Parameters
    ----------
    kind : {"cross_domain", "cross_class", "cross_attribute"}
    reference_meta, auxiliary_meta : mapping of column -> labels, optional
        Metadata of the reference set and of the auxiliary pool.
    n_reference, n_auxiliary : int, optional
        Sizes of the two pools (default: the length of their metadata).
    home : mapping, optional
        Declared home values (default: see [`home_values`][auditad.selection.pseudo.home_values]).
    warn : bool, default True
        Warn when the probe is skipped.

    Returns
    -------
    PseudoAnomalies
        ``reference_index`` and ``auxiliary_index`` of the eligible samples.

    Raises
    ------
    auditad.errors.InvalidInputError
        An unknown kind or invalid metadata.

    See Also
    --------
    - [`home_values`][auditad.selection.pseudo.home_values]
    - [`diverse_probe`][auditad.selection.pseudo.diverse_probe]
    - [`make_probe`][auditad.selection.pseudo.make_probe]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 4.1.

    Examples
    --------
    >>> p = cross_probe("cross_class", {"class": ["a", "a"]}, auxiliary_meta={"class": ["a", "b", "c"]})
    >>> p.auxiliary_index.tolist(), p.n_samples
    ([1, 2], 2)
    """
    check_choice(kind, tuple(CROSS_KINDS), name="kind")
    column = CROSS_KINDS[kind]
    n_ref = _meta_len(reference_meta) if n_reference is None else int(n_reference)
    n_aux = _meta_len(auxiliary_meta) if n_auxiliary is None else int(n_auxiliary)
    ref_meta = check_metadata(reference_meta, n_ref, name="reference_meta")
    aux_meta = check_metadata(auxiliary_meta, n_aux, name="auxiliary_meta")
    homes = home_values(ref_meta, home)
    if column not in homes:
        return _skipped(kind, f"the reference set has no {column!r} metadata and no home {column} is declared",
                        warn=warn)
    ref_idx = _eligible(ref_meta, n_ref, column, homes)
    aux_idx = _eligible(aux_meta, n_aux, column, homes)
    same_class = f" of class {homes['class']!r}" if column != "class" and "class" in homes else ""
    if ref_idx.size + aux_idx.size == 0:
        article = "an" if column[:1] in ("a", "e", "i", "o", "u") else "a"
        return _skipped(kind, f"no normal sample{same_class} with {article} {column} other than {homes[column]!r} "
                              f"in the reference set ({n_ref}) or the auxiliary pool ({n_aux})", warn=warn)
    src = (f"{kind}: {ref_idx.size} reference and {aux_idx.size} auxiliary normals{same_class} "
           f"with {column} != {homes[column]!r}")
    return PseudoAnomalies(kind=kind, X=None, reference_index=ref_idx, auxiliary_index=aux_idx, source=src,
                           parts=(kind,))


def _meta_len(meta) -> int:
    if not meta:
        return 0
    return len(next(iter(meta.values())))


def diverse_probe(parts: Sequence[PseudoAnomalies]) -> PseudoAnomalies:
    r"""Diverse pseudo-anomalies: the concatenation of the given (non-skipped) probes.

    \[
    P_{\text{diverse}} = P_{\text{feature}} \sqcup P_{\text{cross-domain}} \sqcup
    P_{\text{cross-class}} \sqcup P_{\text{cross-attribute}}
    \]

    The paper's Diverse set concatenates Feature, Cross-Domain, Cross-Class and
    Cross-Attribute; skipped parts are left out and named in ``source``.
    Duplicates across parts are kept (concatenation, not set union).

    Parameters
    ----------
    parts : sequence of PseudoAnomalies

    Returns
    -------
    PseudoAnomalies
        ``parts`` names the probes used; skipped when none is available.

    Raises
    ------
    auditad.errors.InvalidInputError
        Generated parts of different shapes.

    See Also
    --------
    - [`feature_probe`][auditad.selection.pseudo.feature_probe]
    - [`cross_probe`][auditad.selection.pseudo.cross_probe]
    - [`make_probe`][auditad.selection.pseudo.make_probe]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 5.4.

    Examples
    --------
    >>> import numpy as np
    >>> feat = feature_probe(np.eye(3), random_state=0)
    >>> cc = cross_probe("cross_class", {"class": ["a", "a", "b"]})
    >>> d = diverse_probe([feat, cc])
    >>> d.parts, d.n_samples
    (('feature', 'cross_class'), 4)
    """
    used = [p for p in parts if not p.skipped]
    missing = [p.kind for p in parts if p.skipped]
    if not used:
        return _skipped("diverse", "none of its parts is available")
    gens = [p.X for p in used if p.X is not None]
    if len({g.shape[1:] for g in gens}) > 1:
        raise InvalidInputError("diverse_probe: the generated parts have different shapes")
    X = np.concatenate(gens, axis=0) if gens else None
    ref = np.concatenate([p.reference_index for p in used]).astype(np.int64)
    aux = np.concatenate([p.auxiliary_index for p in used]).astype(np.int64)
    counts = ", ".join(f"{p.kind} {p.n_samples}" for p in used)
    src = f"diverse: {sum(p.n_samples for p in used)} samples ({counts})"
    if missing:
        src += f"; unavailable: {', '.join(missing)}"
    return PseudoAnomalies(kind="diverse", X=X, reference_index=ref, auxiliary_index=aux, source=src,
                           parts=tuple(p.kind for p in used))


def make_probe(kind: str, reference=None, *, sequences=None, reference_meta=None, auxiliary_meta=None,
               n_auxiliary: int | None = None, home=None, n: int | None = None, random_state=None,
               warn: bool = True) -> PseudoAnomalies:
    r"""Build one probe of any kind (dispatch to the constructions above).

    ``reference`` (n, d) is needed by random / feature / diverse, ``sequences``
    (n, T, d) by sequence / element, the metadata by the cross probes.
    ``diverse`` draws its feature part with ``random_state``. The
    constructions and their formulas are in the functions listed under See Also.

    Parameters
    ----------
    kind : str
        One of `PROBE_KINDS`.
    reference : array-like of shape (n, d), optional
    sequences : array-like of shape (n, T, d), optional
    reference_meta, auxiliary_meta : mapping, optional
    n_auxiliary : int, optional
        Size of the auxiliary pool.
    home : mapping, optional
    n : int, optional
        Number of generated samples (default: one per reference sample).
    random_state : None, int or Generator
    warn : bool, default True

    Returns
    -------
    PseudoAnomalies

    Raises
    ------
    auditad.errors.InvalidInputError
        An unknown kind, or a kind whose data was not passed.

    See Also
    --------
    - [`random_probe`][auditad.selection.pseudo.random_probe]
    - [`feature_probe`][auditad.selection.pseudo.feature_probe]
    - [`sequence_probe`][auditad.selection.pseudo.sequence_probe]
    - [`element_probe`][auditad.selection.pseudo.element_probe]
    - [`cross_probe`][auditad.selection.pseudo.cross_probe]
    - [`diverse_probe`][auditad.selection.pseudo.diverse_probe]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 4.1.

    Examples
    --------
    >>> import numpy as np
    >>> make_probe("feature", np.ones((4, 2)), random_state=0).n_samples
    4
    """
    check_choice(kind, PROBE_KINDS, name="probe")
    n_ref = None
    for arr in (reference, sequences):
        if arr is not None:
            n_ref = len(arr)
    if kind in ("random", "feature", "diverse") and reference is None:
        raise InvalidInputError(f"probe {kind!r} needs reference embeddings")
    if kind in SEQUENCE_KINDS:
        if sequences is None:
            return _skipped(kind, "the candidate has no sequence embeddings (n, T, d) before pooling", warn=warn)
        fn = sequence_probe if kind == "sequence" else element_probe
        return fn(sequences, n=n, random_state=random_state, warn=warn)
    if kind == "random":
        return random_probe(reference, n=n, random_state=random_state)
    if kind == "feature":
        return feature_probe(reference, n=n, random_state=random_state)
    cross = {}
    for ck in CROSS_KINDS:
        if kind in (ck, "diverse"):
            cross[ck] = cross_probe(ck, reference_meta, auxiliary_meta=auxiliary_meta, n_reference=n_ref,
                                    n_auxiliary=n_auxiliary, home=home, warn=warn and kind != "diverse")
    if kind != "diverse":
        return cross[kind]
    feat = feature_probe(reference, n=n, random_state=random_state)
    return diverse_probe([feat, cross["cross_domain"], cross["cross_class"], cross["cross_attribute"]])
