r"""Generated pseudo-anomalies: the random, feature, sequence and element probes.

From K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection Performance
from Embedding-Space Geometry?" (Sec. 4.1). Each construction draws new samples
(held in ``PseudoAnomalies.X``) from the reference set, seeded; the sequence and
element probes work on sequence embeddings (n, T, d) before pooling. Every name
here is also importable from `auditad.selection.pseudo`, which describes all
probe kinds.
"""

from __future__ import annotations

import numpy as np

from .._rng import check_random_state
from .._validation import check_embeddings, check_int
from ..errors import InvalidInputError
from .probe_set import PseudoAnomalies, skipped_probe

__all__ = ["random_probe", "feature_probe", "sequence_probe", "element_probe"]


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
    return PseudoAnomalies(kind="random", X=X, source=f"random: {m} draws from N(0, I_{R.shape[1]})", parts=("random",))


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
    return PseudoAnomalies(
        kind="feature",
        X=X,
        source=f"feature: {m} samples, each of the {d} dimensions copied from one of "
        f"{n_ref} reference embeddings drawn independently per dimension",
        parts=("feature",),
    )


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
        return skipped_probe(
            "sequence", f"needs sequences of length >= 2 from >= 2 samples, got shape {S.shape}", warn=warn
        )
    m = _n_out(n, n_ref)
    rng = check_random_state(random_state)
    u = rng.integers(0, n_ref, size=(m, T))
    same = np.all(u == u[:, :1], axis=1)
    if same.any():
        shift = rng.integers(1, n_ref, size=int(same.sum()))
        u[same, 0] = (u[same, 0] + shift) % n_ref
    X = S[u, np.arange(T)[None, :]]
    return PseudoAnomalies(
        kind="sequence",
        X=X,
        source=f"sequence: {m} sequences of {T} frames, frame t taken from frame t of one of "
        f"{n_ref} reference sequences drawn independently per frame",
        parts=("sequence",),
    )


def element_probe(
    sequences, *, n: int | None = None, n_swap: int = 1, random_state=None, warn: bool = True
) -> PseudoAnomalies:
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
        return skipped_probe("element", f"needs at least 2 reference sequences, got {n_ref}", warn=warn)
    if n_swap > T:
        raise InvalidInputError(f"n_swap must be at most the sequence length T={T}, got {n_swap}")
    m = _n_out(n, n_ref)
    rng = check_random_state(random_state)
    base = np.arange(m) % n_ref
    X = S[base].copy()
    pos = np.argsort(rng.random((m, T)), axis=1)[:, :n_swap]  # distinct positions per sequence
    donor = (base[:, None] + rng.integers(1, n_ref, size=(m, n_swap))) % n_ref  # j != i
    donor_pos = rng.integers(0, T, size=(m, n_swap))
    rows = np.repeat(np.arange(m), n_swap)
    X[rows, pos.ravel()] = S[donor.ravel(), donor_pos.ravel()]
    return PseudoAnomalies(
        kind="element",
        X=X,
        source=f"element: {m} copies of reference sequences with {n_swap} of {T} frames "
        f"replaced by frames of other reference sequences",
        parts=("element",),
    )
