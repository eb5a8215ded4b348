r"""kNN log-distance anomaly scores, local density normalisation (LDN) and sequence pooling.

From K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection Performance
from Embedding-Space Geometry?" (Sec. 3.2–3.3 and 5.2).

Scores (higher = more anomalous):

* ``scoring="knn"``: \(z(x) = \log d_k(x; R)\), the log distance from ``x``
  to its k-th nearest reference sample.
* ``scoring="ldn"``, ``ldn_form="reference"`` (the published method of
  Wilkinghoff et al. 2025, default): every reference sample gets a local scale
  \(\rho_K(r)\), the mean distance to its K nearest *other* references, and
  \(\tilde z(x) = \log \min_{r\in R} d(x, r)/\rho_K(r)\) (for ``k > 1`` the
  k-th smallest ratio).
* ``scoring="ldn"``, ``ldn_form="query"`` (the analytic form, Eq. 7 of the
  paper "Can We Predict Anomaly Detection Performance from Embedding-Space Geometry?" (Wilkinghoff and Tan)):
  \(\tilde z(x) = \log d_k(x) - \log \bar d_K(x)\) with
  \(\bar d_K(x)\) the mean distance from ``x`` to its K nearest references.

The inlier scores of the reference set itself are *leave-one-out*: the score of
reference ``r_i`` is the score it would get if it were not part of the
reference set. For the reference form of LDN this also removes ``r_i`` from the
neighbourhoods that define the scales \(\rho_K(r_j)\) of the others.

Distances (and LDN scales) below ``eps`` (default ``1e-12``) are floored at
``eps`` before taking the log, and every result counts the scores for which
that happened (``n_floored``): duplicates of a reference sample would
otherwise score \(-\infty\).

Pooling of sequence embeddings ``(n, T, d) -> (n, d)``: mean, max, GeM(p),
RDP(γ), see [`pool_sequences`][auditad.selection.scoring.pool_sequences].
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from .._format import FrameDisplay
from ..neighbors import kneighbors
from .._validation import check_choice, check_embeddings, check_float, check_int
from ..errors import InvalidInputError
from .._json import json_safe

__all__ = [
    "ScoreResult",
    "KNNScorer",
    "knn_scores",
    "pool_sequences",
    "parse_pooling",
    "paper_pooling_grid",
    "SCORINGS",
    "LDN_FORMS",
    "POOLING_METHODS",
    "DEFAULT_EPS",
]

SCORINGS = ("knn", "ldn")
LDN_FORMS = ("reference", "query")
POOLING_METHODS = ("mean", "max", "gem", "rdp")
DEFAULT_EPS = 1e-12


# --------------------------------------------------------------------------- results
@dataclass(frozen=True)
class ScoreResult(FrameDisplay):
    r"""Anomaly scores of a set of queries against a reference set (see `KNNScorer`).

    \[
    z(x) = \log \max(d_k(x; R), \varepsilon)
    \]

    (or its LDN form), higher = more anomalous.

    Attributes
    ----------
    scores : ndarray of shape (m,)
        Log-distance scores, higher = more anomalous.
    scoring : str
        ``"knn"`` or ``"ldn"``.
    ldn_form : str or None
        ``"reference"`` or ``"query"`` for LDN, None for plain kNN.
    k, K : int
        Neighbour rank of the score and size of the LDN neighbourhood (None for kNN).
    metric, backend : str
        Distance and the kNN backend that actually ran.
    leave_one_out : bool
        True for the reference set's own (leave-one-out) inlier scores.
    eps : float
        Floor applied to distances and LDN scales before the log.
    n_floored : int
        Number of scores in which a floored (zero or tiny) distance or scale was used.
    n_reference : int
        Size of the reference set.
    recall : float or None
        Approximate backend with ``recall_sample > 0`` only: the share of the
        exact k nearest neighbours the approximate search found, on a random
        sample of queries (the smallest over the searches behind these scores);
        None when not measured.
    n_recall_queries : int
        Size of that sample (0 when not measured).

    See Also
    --------
    - [`KNNScorer`][auditad.selection.scoring.KNNScorer]
    - [`knn_scores`][auditad.selection.scoring.knn_scores]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 3.

    Examples
    --------
    >>> import numpy as np
    >>> res = knn_scores(np.array([[0.0], [1.0], [3.0]]), np.array([[5.0]]), backend="exact")
    >>> res.scoring, res.n_reference, res.to_frame()["score"].round(4).tolist()
    ('knn', 3, [0.6931])
    """

    scores: np.ndarray
    scoring: str
    ldn_form: str | None
    k: int
    K: int | None
    metric: str
    backend: str
    leave_one_out: bool
    eps: float
    n_floored: int
    n_reference: int
    recall: float | None = None
    n_recall_queries: int = 0

    def to_frame(self):
        """Tidy frame: one row per query (``index``, ``score``) plus the settings as columns."""
        import pandas as pd

        frame = pd.DataFrame({"index": np.arange(self.scores.size), "score": self.scores})
        for f in fields(self):
            if f.name != "scores":
                frame[f.name] = getattr(self, f.name)
        return frame

    def to_dict(self) -> dict:
        """JSON-safe dict (nan -> None)."""
        return {f.name: json_safe(getattr(self, f.name)) for f in fields(self)}


# --------------------------------------------------------------------------- scorer
class KNNScorer:
    r"""kNN / LDN anomaly scorer fitted on a reference set of normal embeddings.

    \[
    z(x) = \log d_k(x; R), \qquad
    \tilde z_{\mathrm{ref}}(x) = \log \min_{r\in R} \frac{d(x, r)}{\rho_K(r)},\qquad
    \tilde z_{\mathrm{query}}(x) = \log d_k(x) - \log \bar d_K(x)
    \]

    with \(\rho_K(r)\) the mean distance of reference r to its K nearest
    other references and \(\bar d_K(x)\) the mean distance of x to its K
    nearest references. Leave-one-out scores of the reference itself remove
    the scored sample from the reference set (and from the neighbourhoods that
    define the scales of the others).

    Parameters
    ----------
    scoring : {"knn", "ldn"}
        Plain log kNN distance or local density normalisation.
    k : int, default 1
        Rank of the neighbour (the paper's candidates use k = 1).
    K : int, default 2
        LDN neighbourhood size (the paper uses K = 2).
    ldn_form : {"reference", "query"}
        Which LDN (see the module docstring); ignored for ``scoring="knn"``.
    metric : {"euclidean", "cosine"}
    backend : {"auto", "exact", "approximate"}
        kNN backend of [`auditad.neighbors.kneighbors`][auditad.neighbors.kneighbors].
    eps : float, default 1e-12
        Floor of distances and LDN scales before the log (counted in ``n_floored``).
    block_memory_mb : float, default 64
        Memory budget of one block of the reference-form LDN (float64
        query × reference matrices) and of the kNN search.
    n_jobs : int, optional
        Threads of the exact kNN search.
    random_state : None, int or Generator
        Seeds the approximate backend.
    recall_sample : int, default 0
        Approximate backend: number of random queries whose neighbours are
        checked against exact search (reported as ``ScoreResult.recall``);
        0 = not measured.

    Raises
    ------
    auditad.errors.InvalidInputError
        Unknown scoring / ldn_form / metric / backend, ``k`` or ``K`` < 1,
        ``eps`` <= 0; at fit time a reference with non-finite values or too
        few samples for leave-one-out scores; at scoring time queries of
        another dimension, or scoring before [`fit`][auditad.selection.scoring.KNNScorer.fit].

    See Also
    --------
    - [`knn_scores`][auditad.selection.scoring.knn_scores]: the same as one call.
    - [`auditad.selection.bounds.auc_bound`][auditad.selection.bounds.auc_bound]: bounds from these scores.
    - [`auditad.selection.Candidate`][auditad.selection.Candidate]: a candidate system using this scorer.

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 3.3 and Eq. 7 (query form).
    2. K. Wilkinghoff, H. Yang, J. Ebbers, F. G. Germain, G. Wichern and
       J. Le Roux, "Local Density-Based Anomaly Score Normalization for Domain
       Generalization", IEEE/ACM Trans. Audio, Speech, Lang. Process., 33, 2025. (reference form).

    Examples
    --------
    >>> import numpy as np
    >>> R = np.array([[0.0], [1.0], [3.0]])
    >>> scorer = KNNScorer(backend="exact").fit(R)
    >>> np.exp(scorer.score(np.array([[5.0]])).scores).tolist()
    [2.0]
    >>> np.exp(scorer.score_reference().scores).tolist()   # leave-one-out
    [1.0, 1.0, 2.0]
    """

    def __init__(
        self,
        *,
        scoring: str = "knn",
        k: int = 1,
        K: int = 2,
        ldn_form: str = "reference",
        metric: str = "euclidean",
        backend: str = "auto",
        eps: float = DEFAULT_EPS,
        block_memory_mb: float = 64,
        n_jobs: int | None = None,
        random_state=None,
        recall_sample: int = 0,
    ):
        self.scoring = check_choice(scoring, SCORINGS, name="scoring")
        self.k = check_int(k, name="k", low=1)
        self.K = check_int(K, name="K", low=1)
        self.ldn_form = check_choice(ldn_form, LDN_FORMS, name="ldn_form")
        self.metric = check_choice(metric, ("euclidean", "cosine"), name="metric")
        self.backend = check_choice(backend, ("auto", "exact", "approximate"), name="backend")
        self.eps = check_float(eps, name="eps", low=0.0, low_open=True)
        self.block_memory_mb = check_float(block_memory_mb, name="block_memory_mb", low=0.0, low_open=True)
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.recall_sample = check_int(recall_sample, name="recall_sample", low=0)
        self.reference_ = None

    # ------------------------------------------------------------------ fitting
    def fit(self, reference) -> "KNNScorer":
        """Store the reference set (n, d) and, for reference-form LDN, the scales ρ_K.

        Parameters
        ----------
        reference : array-like of shape (n, d)
            Normal reference embeddings.

        Returns
        -------
        KNNScorer
            ``self``.
        """
        R = check_embeddings(reference, name="reference")
        n = R.shape[0]
        if n < 2:
            raise InvalidInputError(
                f"reference must have at least 2 samples (leave-one-out scores need another sample), got {n}"
            )
        need = self._min_reference()
        if n < need:
            raise InvalidInputError(
                f"reference has {n} samples; scoring={self.scoring!r} with k={self.k}"
                + (f", K={self.K}, ldn_form={self.ldn_form!r}" if self.scoring == "ldn" else "")
                + f" needs at least {need} for leave-one-out scores"
            )
        self.reference_ = R
        if self.scoring == "ldn" and self.ldn_form == "reference":
            # K+1 nearest others of every reference: rho_K and its leave-one-out variants
            nb = self._kneighbors(R, None, self.K + 1)
            self._nbK = nb.indices[:, : self.K]
            self._dK = nb.distances[:, : self.K]
            self.rho_ = nb.distances[:, : self.K].mean(axis=1)
            self._sumK1 = nb.distances.sum(axis=1)
            self._rho_backend = nb.backend
            self._rho_recall = (nb.recall, nb.n_recall_queries)
        return self

    def _min_reference(self) -> int:
        if self.scoring == "knn":
            return self.k + 1
        if self.ldn_form == "query":
            return max(self.k, self.K) + 1
        return max(self.k + 1, self.K + 2)

    def _kneighbors(self, X, Q, k):
        return kneighbors(
            X,
            Q,
            k=k,
            metric=self.metric,
            backend=self.backend,
            n_jobs=self.n_jobs,
            block_memory_mb=self.block_memory_mb,
            random_state=self.random_state,
            recall_sample=self.recall_sample,
        )

    def _check_fitted(self):
        if self.reference_ is None:
            raise InvalidInputError("this KNNScorer is not fitted yet; call fit(reference) first")

    # ------------------------------------------------------------------ scoring
    def score(self, queries) -> ScoreResult:
        """Scores of ``queries`` against the whole reference set (no exclusion).

        Parameters
        ----------
        queries : array-like of shape (m, d)

        Returns
        -------
        ScoreResult
        """
        self._check_fitted()
        Q = check_embeddings(queries, name="queries")
        if Q.shape[1] != self.reference_.shape[1]:
            raise InvalidInputError(
                f"queries have {Q.shape[1]} dimensions but the reference has {self.reference_.shape[1]}"
            )
        return self._score(Q, loo=False)

    def score_reference(self) -> ScoreResult:
        """Leave-one-out scores of the reference samples (each scored as if it were not in the reference).

        Returns
        -------
        ScoreResult
            With ``leave_one_out=True``.
        """
        self._check_fitted()
        return self._score(None, loo=True)

    def _score(self, Q, *, loo: bool) -> ScoreResult:
        if self.scoring == "knn":
            nb = self._kneighbors(self.reference_, Q, self.k)
            d = nb.distances[:, self.k - 1]
            floored = d < self.eps
            z = np.log(np.maximum(d, self.eps))
            backend, recall = nb.backend, (nb.recall, nb.n_recall_queries)
        elif self.ldn_form == "query":
            nb = self._kneighbors(self.reference_, Q, max(self.k, self.K))
            d = nb.distances[:, self.k - 1]
            dbar = nb.distances[:, : self.K].mean(axis=1)
            floored = (d < self.eps) | (dbar < self.eps)
            z = np.log(np.maximum(d, self.eps)) - np.log(np.maximum(dbar, self.eps))
            backend, recall = nb.backend, (nb.recall, nb.n_recall_queries)
        else:
            # the scales rho_K come from the kNN search; the ratio search itself is exact
            z, floored, backend = self._ldn_reference(Q, loo=loo)
            recall = self._rho_recall
        return ScoreResult(
            scores=z,
            scoring=self.scoring,
            ldn_form=self.ldn_form if self.scoring == "ldn" else None,
            k=self.k,
            K=self.K if self.scoring == "ldn" else None,
            metric=self.metric,
            backend=backend,
            leave_one_out=loo,
            eps=self.eps,
            n_floored=int(np.count_nonzero(floored)),
            n_reference=int(self.reference_.shape[0]),
            recall=None if recall[0] is None else float(recall[0]),
            n_recall_queries=int(recall[1]),
        )

    # ----------------------------------------------------- reference-form LDN
    def _ldn_reference(self, Q, *, loo: bool):
        r"""k-th smallest ratio d(x, r)/rho(r) over all references, certified exact.

        The ratio is not a nearest-neighbour query (a far reference with a large
        scale can win), so every query is compared with every reference in
        blocks: squared distances from one float64 matrix product, with the
        rounding bound \(|\hat d^2 - d^2| \le (d + 10)\,2u\,(\lVert q\rVert^2 +
        \lVert r\rVert^2)\) on centred data; the references whose lower-bound ratio
        does not exceed the k-th smallest upper-bound ratio are recomputed exactly
        (differences, float64) and the k-th smallest exact ratio is taken.
        Leave-one-out: the row's own reference is excluded and, when it was one of
        the K nearest of reference j, rho(r_j) is recomputed without it.
        """
        R = self.reference_
        n, d = R.shape
        if self.metric == "cosine":
            R = _unit_rows(R, "reference")
            Q = R if loo else _unit_rows(Q, "queries")
        center = R.mean(axis=0)
        Rc = R - center
        Qc = Rc if loo else Q - center
        rsq = np.einsum("ij,ij->i", Rc, Rc)
        qsq = rsq if loo else np.einsum("ij,ij->i", Qc, Qc)
        m = Qc.shape[0]
        gamma = (d + 10) * 2.0 * np.finfo(np.float64).eps / 2.0
        rho_f = np.maximum(self.rho_, self.eps)
        if loo:  # pairs (i, j) with i among the K nearest of j: rho_j without r_i
            adj_j = np.repeat(np.arange(n), self.K)
            adj_i = self._nbK.ravel()
            adj_rho = (self._sumK1[adj_j] - self._dK.ravel()) / self.K
            order = np.argsort(adj_i, kind="stable")
            adj_i, adj_j, adj_rho = adj_i[order], adj_j[order], adj_rho[order]
        block = int(max(1, min(m, self.block_memory_mb * 2**20 // (8 * 6 * max(n, 1)))))
        best = np.empty(m)
        tiny = np.zeros(m, dtype=bool)
        k = self.k
        for a in range(0, m, block):
            b = min(a + block, m)
            rows = np.arange(a, b)
            G = qsq[a:b, None] + rsq[None, :] - 2.0 * (Qc[a:b] @ Rc.T)
            delta = gamma * (qsq[a:b, None] + rsq[None, :])
            rho = np.broadcast_to(rho_f, G.shape)
            if loo:
                G[rows - a, rows] = np.inf
                lo_, hi_ = np.searchsorted(adj_i, [a, b])
                rho = rho.copy()
                rho[adj_i[lo_:hi_] - a, adj_j[lo_:hi_]] = np.maximum(adj_rho[lo_:hi_], self.eps)
            # bounds of the floored ratio max(d, eps) / rho (the floor is monotone)
            lo = np.maximum(self._dist(np.maximum(G - delta, 0.0)), self.eps) / rho
            hi = np.maximum(self._dist(G + delta), self.eps) / rho
            kth_hi = np.partition(hi, k - 1, axis=1)[:, k - 1]
            ci, cj = np.nonzero(lo <= kth_hi[:, None])
            exact = self._exact_dist(Qc[a + ci], Rc[cj])
            ratio = np.maximum(exact, self.eps) / rho[ci, cj]
            o = np.lexsort((ratio, ci))
            ci, cj, ratio, exact = ci[o], cj[o], ratio[o], exact[o]
            first = np.searchsorted(ci, np.arange(b - a))
            pick = first + k - 1
            best[a:b] = ratio[pick]
            tiny[a:b] = (exact[pick] < self.eps) | (rho[ci[pick], cj[pick]] <= self.eps)
        return np.log(best), tiny, self._rho_backend

    def _dist(self, sq):
        """Distance from a squared Euclidean distance (of unit vectors for cosine: 1 - cos = |a - b|^2 / 2)."""
        return sq / 2.0 if self.metric == "cosine" else np.sqrt(sq)

    def _exact_dist(self, A, B):
        out = np.empty(A.shape[0])
        step = max(1, int(self.block_memory_mb * 2**20 // (8 * max(A.shape[1], 1))))
        for s in range(0, A.shape[0], step):
            diff = A[s : s + step] - B[s : s + step]
            out[s : s + step] = np.einsum("ij,ij->i", diff, diff)
        return self._dist(out)


def _unit_rows(A: np.ndarray, name: str) -> np.ndarray:
    r"""Rows of ``A`` scaled to unit Euclidean norm (float64); an all-zero row is an error naming ``name``.

    The cosine distance of unit rows is \(1 - \cos(a, b) = \lVert a - b\rVert^2 / 2\).
    (The kNN search of [`auditad.neighbors.kneighbors`][auditad.neighbors.kneighbors] normalises the same way.)
    """
    A = np.asarray(A, dtype=np.float64)
    norms = np.linalg.norm(A, axis=1)
    if np.any(norms == 0):
        raise InvalidInputError(
            f"{name} has an all-zero row (index {int(np.flatnonzero(norms == 0)[0])}); "
            "cosine distance is undefined for it"
        )
    return A / norms[:, None]


def knn_scores(
    reference,
    queries=None,
    *,
    scoring: str = "knn",
    k: int = 1,
    K: int = 2,
    ldn_form: str = "reference",
    metric: str = "euclidean",
    backend: str = "auto",
    eps: float = DEFAULT_EPS,
    n_jobs: int | None = None,
    random_state=None,
    recall_sample: int = 0,
) -> ScoreResult:
    r"""kNN or LDN log-distance anomaly scores.

    \[
    z(x) = \log d_k(x; R)
    \]

    with the LDN variants of [`KNNScorer`][auditad.selection.scoring.KNNScorer]. ``queries=None`` returns the
    leave-one-out scores of the reference samples themselves.

    Parameters
    ----------
    reference : array-like of shape (n, d)
        Normal reference embeddings (n >= 2).
    queries : array-like of shape (m, d), optional
        Samples to score; None = leave-one-out scores of ``reference``.
    scoring, k, K, ldn_form, metric, backend, eps, n_jobs, random_state, recall_sample
        See [`KNNScorer`][auditad.selection.scoring.KNNScorer].

    Returns
    -------
    ScoreResult

    Raises
    ------
    auditad.errors.InvalidInputError
        See [`KNNScorer`][auditad.selection.scoring.KNNScorer].

    See Also
    --------
    - [`KNNScorer`][auditad.selection.scoring.KNNScorer]
    - [`auditad.neighbors.kneighbors`][auditad.neighbors.kneighbors]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 3.
    2. K. Wilkinghoff, H. Yang, J. Ebbers, F. G. Germain, G. Wichern and
       J. Le Roux, "Local Density-Based Anomaly Score Normalization for Domain
       Generalization", IEEE/ACM Trans. Audio, Speech, Lang. Process., 33, 2025.

    Examples
    --------
    >>> import numpy as np
    >>> r = knn_scores(np.array([[0.0], [1.0], [3.0]]), np.array([[2.0]]), backend="exact")
    >>> float(np.exp(r.scores[0]))
    1.0
    """
    scorer = KNNScorer(
        scoring=scoring,
        k=k,
        K=K,
        ldn_form=ldn_form,
        metric=metric,
        backend=backend,
        eps=eps,
        n_jobs=n_jobs,
        random_state=random_state,
        recall_sample=recall_sample,
    ).fit(reference)
    return scorer.score_reference() if queries is None else scorer.score(queries)


# --------------------------------------------------------------------------- pooling
def parse_pooling(spec: str) -> tuple[str, float | None]:
    """Parse a pooling spec: ``"mean"``, ``"max"``, ``"gem:<p>"``, ``"rdp:<gamma>"``.

    ``"gem"`` alone means p = 3 and ``"rdp"`` alone γ = 1 (the formulas are
    in [`pool_sequences`][auditad.selection.scoring.pool_sequences]).

    Parameters
    ----------
    spec : str
        Case-insensitive; method from `POOLING_METHODS`.

    Returns
    -------
    name : str
    param : float or None
        p of GeM, γ of RDP, None for mean and max.

    Raises
    ------
    auditad.errors.InvalidInputError
        Not a string, an unknown method, a parameter for mean/max, a
        parameter that is not a number, p <= 0 or γ < 0.

    See Also
    --------
    - [`pool_sequences`][auditad.selection.scoring.pool_sequences]
    - [`paper_pooling_grid`][auditad.selection.scoring.paper_pooling_grid]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 5.2.

    Examples
    --------
    >>> parse_pooling("gem:4"), parse_pooling("rdp:0.5"), parse_pooling("mean")
    (('gem', 4.0), ('rdp', 0.5), ('mean', None))
    """
    if not isinstance(spec, str):
        raise InvalidInputError(f"pooling must be a string such as 'mean', 'max', 'gem:3' or 'rdp:2', got {spec!r}")
    name, _, arg = spec.strip().lower().partition(":")
    check_choice(name, POOLING_METHODS, name="pooling")
    if name in ("mean", "max"):
        if arg:
            raise InvalidInputError(f"pooling {spec!r}: {name} pooling takes no parameter")
        return name, None
    if not arg:
        return name, 3.0 if name == "gem" else 1.0
    try:
        value = float(arg)
    except ValueError:
        raise InvalidInputError(f"pooling {spec!r}: the parameter after ':' must be a number") from None
    if name == "gem":
        check_float(value, name="pooling gem p", low=0.0, low_open=True)
    else:
        check_float(value, name="pooling rdp gamma", low=0.0)
    return name, value


def paper_pooling_grid(*, p_values=range(1, 26), gamma_values=range(1, 26)) -> list[str]:
    """The paper's 52 pooling configurations: mean, max, GeM p = 1..25, RDP γ = 1..25.

    Parameters
    ----------
    p_values : iterable of float, default 1..25
        GeM exponents.
    gamma_values : iterable of float, default 1..25
        RDP exponents.

    Returns
    -------
    list of str
        Pooling specs for [`pool_sequences`][auditad.selection.scoring.pool_sequences] /
        [`auditad.selection.Candidate`][auditad.selection.Candidate].

    See Also
    --------
    - [`pool_sequences`][auditad.selection.scoring.pool_sequences]
    - [`parse_pooling`][auditad.selection.scoring.parse_pooling]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 5.2.

    Examples
    --------
    >>> grid = paper_pooling_grid()
    >>> len(grid), grid[:3], grid[-1]
    (52, ['mean', 'max', 'gem:1'], 'rdp:25')
    """
    return ["mean", "max"] + [f"gem:{p:g}" for p in p_values] + [f"rdp:{g:g}" for g in gamma_values]


def pool_sequences(sequences, *, method: str = "mean", p: float = 3.0, gamma: float = 1.0) -> np.ndarray:
    r"""Pool sequence embeddings ``(n, T, d)`` into vectors ``(n, d)``.

    \[
    \text{mean: } \tfrac1T\textstyle\sum_t x_t,\qquad
    \text{max: } \max_t x_t,\qquad
    \mathrm{GeM}_p:\ \Big(\tfrac1T\textstyle\sum_t \max(x_t, 0)^p\Big)^{1/p},
    \]

    \[
    \mathrm{RDP}_\gamma:\ d_t = \lVert x_t - \bar x\rVert_2,\ \hat d_t = d_t/\max_\tau d_\tau,\
    w_t = \frac{(1+\hat d_t)^\gamma}{\sum_\tau (1+\hat d_\tau)^\gamma},\ \textstyle\sum_t w_t x_t
    \]

    (all per dimension except the RDP weights, which are per frame; RDP with
    γ = 0 is mean pooling, a constant sequence gets uniform RDP weights, GeM
    with p = 1 is the mean of the positive parts). GeM is evaluated as
    \(m\,(\tfrac1T\sum_t (x_t^+/m)^p)^{1/p}\) with \(m = \max_t x_t^+\)
    so that large p does not overflow.

    Parameters
    ----------
    sequences : array-like of shape (n, T, d)
    method : {"mean", "max", "gem", "rdp"} or a spec such as ``"gem:5"``
        A spec string overrides ``p`` / ``gamma``.
    p : float, default 3
        GeM exponent (> 0).
    gamma : float, default 1
        RDP exponent (>= 0).

    Returns
    -------
    ndarray of shape (n, d)

    Raises
    ------
    auditad.errors.InvalidInputError
        Sequences that are not a finite (n, T, d) array, an unknown method,
        p <= 0 or γ < 0.

    See Also
    --------
    - [`parse_pooling`][auditad.selection.scoring.parse_pooling]
    - [`paper_pooling_grid`][auditad.selection.scoring.paper_pooling_grid]
    - [`auditad.selection.Candidate`][auditad.selection.Candidate]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 5.2.
    2. F. Radenović, G. Tolias and O. Chum, "Fine-Tuning CNN Image Retrieval
       with No Human Annotation", IEEE Trans. Pattern Anal. Mach. Intell., 41, 2019 (GeM).
    3. K. Wilkinghoff, S. Yadav and Z.-H. Tan, "Temporal Pooling Strategies for
       Training-Free Anomalous Sound Detection with Self-Supervised Audio
       Embeddings", arXiv:2603.04605, 2026 (RDP).

    Examples
    --------
    >>> import numpy as np
    >>> S = np.array([[[1.0, -1.0], [3.0, 1.0]]])
    >>> pool_sequences(S, method="mean").tolist(), pool_sequences(S, method="gem:1").tolist()
    ([[2.0, 0.0]], [[2.0, 0.5]])
    """
    name, param = parse_pooling(method)
    if param is not None and ":" in method:
        p = gamma = param
    S = check_embeddings(sequences, name="sequences", ndim=3)
    if name == "mean":
        return S.mean(axis=1)
    if name == "max":
        return S.max(axis=1)
    if name == "gem":
        p = check_float(p, name="p", low=0.0, low_open=True)
        pos = np.maximum(S, 0.0)
        top = pos.max(axis=1)
        safe = np.where(top > 0, top, 1.0)
        inner = np.mean((pos / safe[:, None, :]) ** p, axis=1)
        return np.where(top > 0, safe * inner ** (1.0 / p), 0.0)
    gamma = check_float(gamma, name="gamma", low=0.0)
    dev = np.linalg.norm(S - S.mean(axis=1, keepdims=True), axis=2)  # (n, T)
    dmax = dev.max(axis=1, keepdims=True)
    dhat = np.divide(dev, dmax, out=np.zeros_like(dev), where=dmax > 0)
    w = (1.0 + dhat) ** gamma
    w /= w.sum(axis=1, keepdims=True)
    return np.einsum("nt,ntd->nd", w, S)


def _pooling_label(spec: str | None) -> str:
    """Canonical text of a pooling spec (``None`` -> ``"none"``)."""
    if spec is None:
        return "none"
    name, param = parse_pooling(spec)
    return name if param is None else f"{name}:{param:g}"
