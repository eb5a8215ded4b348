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

The set type and the probe kinds are defined in `auditad.selection.probe_set`, the
generated probes in `auditad.selection.generated_probes`; every name of ``__all__``
is importable from here.
"""

from __future__ import annotations

from collections import Counter
from typing import Mapping, Sequence

import numpy as np

from .._validation import check_choice
from ..errors import InvalidInputError
from .generated_probes import element_probe, feature_probe, random_probe, sequence_probe
from .probe_set import (
    CROSS_KINDS,
    EMPTY_INDEX,
    GENERATED_KINDS,
    META_KEYS,
    PROBE_KINDS,
    SEQUENCE_KINDS,
    PseudoAnomalies,
    skipped_probe,
)

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
        return EMPTY_INDEX
    ok = meta[column] != home[column]
    if column != "class" and "class" in meta and "class" in home:
        ok &= meta["class"] == home["class"]
    return np.flatnonzero(ok).astype(np.int64)


def cross_probe(
    kind: str,
    reference_meta=None,
    *,
    auxiliary_meta=None,
    n_reference: int | None = None,
    n_auxiliary: int | None = None,
    home=None,
    warn: bool = True,
) -> PseudoAnomalies:
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
        return skipped_probe(
            kind, f"the reference set has no {column!r} metadata and no home {column} is declared", warn=warn
        )
    ref_idx = _eligible(ref_meta, n_ref, column, homes)
    aux_idx = _eligible(aux_meta, n_aux, column, homes)
    same_class = f" of class {homes['class']!r}" if column != "class" and "class" in homes else ""
    if ref_idx.size + aux_idx.size == 0:
        article = "an" if column[:1] in ("a", "e", "i", "o", "u") else "a"
        return skipped_probe(
            kind,
            f"no normal sample{same_class} with {article} {column} other than {homes[column]!r} "
            f"in the reference set ({n_ref}) or the auxiliary pool ({n_aux})",
            warn=warn,
        )
    src = (
        f"{kind}: {ref_idx.size} reference and {aux_idx.size} auxiliary normals{same_class} "
        f"with {column} != {homes[column]!r}"
    )
    return PseudoAnomalies(
        kind=kind, X=None, reference_index=ref_idx, auxiliary_index=aux_idx, source=src, parts=(kind,)
    )


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
        return skipped_probe("diverse", "none of its parts is available")
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
    return PseudoAnomalies(
        kind="diverse", X=X, reference_index=ref, auxiliary_index=aux, source=src, parts=tuple(p.kind for p in used)
    )


def make_probe(
    kind: str,
    reference=None,
    *,
    sequences=None,
    reference_meta=None,
    auxiliary_meta=None,
    n_auxiliary: int | None = None,
    home=None,
    n: int | None = None,
    random_state=None,
    warn: bool = True,
) -> PseudoAnomalies:
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
            return skipped_probe(kind, "the candidate has no sequence embeddings (n, T, d) before pooling", warn=warn)
        fn = sequence_probe if kind == "sequence" else element_probe
        return fn(sequences, n=n, random_state=random_state, warn=warn)
    if kind == "random":
        return random_probe(reference, n=n, random_state=random_state)
    if kind == "feature":
        return feature_probe(reference, n=n, random_state=random_state)
    cross = {}
    for ck in CROSS_KINDS:
        if kind in (ck, "diverse"):
            cross[ck] = cross_probe(
                ck,
                reference_meta,
                auxiliary_meta=auxiliary_meta,
                n_reference=n_ref,
                n_auxiliary=n_auxiliary,
                home=home,
                warn=warn and kind != "diverse",
            )
    if kind != "diverse":
        return cross[kind]
    feat = feature_probe(reference, n=n, random_state=random_state)
    return diverse_probe([feat, cross["cross_domain"], cross["cross_class"], cross["cross_attribute"]])
