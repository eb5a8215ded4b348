"""The detector base classes and auditad's built-in detectors: kNN distance, LOF and Isolation Forest.

Every detector here returns scores with **higher = more anomalous**; the neighbour detectors
([`KNNDetector`][auditad.protocol.KNNDetector], [`LOFDetector`][auditad.protocol.LOFDetector]) are served by the
shared neighbour pass of [`audit_protocol`][auditad.protocol.audit_protocol]. They are re-exported by
`auditad.protocol.detectors` (the wrapper of user objects and the resolution of ``detectors=``) and by
`auditad.protocol`.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_choice, check_embeddings, check_int, check_k
from ..errors import InvalidInputError
from .iforest import RowSelection, fit_isolation_trees, isolation_scores
from .neighbor_lists import METRICS, lof_scores, lof_tables, nearest, prepare_rows, to_distance

__all__ = ["BACKENDS", "BaseDetector", "NeighbourDetector", "KNNDetector", "LOFDetector", "IsolationForestDetector"]

#: kNN backends of the neighbour detectors (those of `auditad.neighbors.kneighbors`).
BACKENDS = ("auto", "exact", "approximate")


class BaseDetector:
    """Shared plumbing of the built-in detectors: parameters, cloning, repr.

    Subclasses define ``_params`` (constructor argument names), ``fit`` and
    ``score_samples`` returning **higher = more anomalous** scores.

    See Also
    --------
    - [`audit_protocol`][auditad.protocol.audit_protocol]: the class-split protocol audit.
    - [`make_detector`][auditad.protocol.make_detector]: detectors from names.
    - [`instability_rates`][auditad.protocol.instability_rates]: the rates of one set of AUROCs.
    """

    _params: tuple[str, ...] = ()
    #: +1: ``score_samples`` already follows the auditad convention.
    score_sign: int = 1
    convention: str = "higher = more anomalous"

    def get_params(self, deep: bool = True) -> dict:
        """Constructor parameters (scikit-learn convention)."""
        return {p: getattr(self, p) for p in self._params}

    def set_params(self, **params):
        """Set constructor parameters; unknown names raise [`InvalidInputError`][auditad.errors.InvalidInputError]."""
        for key, value in params.items():
            if key not in self._params:
                raise InvalidInputError(f"{type(self).__name__} has no parameter {key!r}")
            setattr(self, key, value)
        return self

    def fresh(self, seed: int | None):
        """An unfitted copy; a ``random_state`` parameter is set to ``seed`` when given."""
        params = self.get_params()
        if "random_state" in params and seed is not None:
            params["random_state"] = seed
        return type(self)(**params)

    @property
    def min_train_size(self) -> int:
        """Fewest training normals the detector accepts (fewer -> the task is skipped)."""
        return 2

    def take_rows(self, X: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``X[rows]`` in the form `fit` and ``score_samples`` work in (the protocol gathers each task's
        rows with it); the default is ``X[rows]`` itself."""
        return X[rows]

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


class NeighbourDetector(BaseDetector):
    """A detector whose score is a function of exact neighbour lists (served by the shared pass).

    Subclasses ([`KNNDetector`][auditad.protocol.KNNDetector], [`LOFDetector`][auditad.protocol.LOFDetector]) have
    ``metric``, ``backend``
    and ``n_neighbors``-like parameters; [`audit_protocol`][auditad.protocol.audit_protocol] serves all of them
    with one neighbour pass per (representation, repeat, metric, backend).
    """

    #: neighbours the score needs
    n_needed: int

    def _check(self):
        check_choice(self.metric, METRICS, name="metric")
        check_choice(self.backend, BACKENDS, name="backend")

    def neighbour_key(self) -> tuple:
        """Detectors with equal keys share one neighbour pass."""
        return (self.metric, self.backend)


class KNNDetector(NeighbourDetector):
    r"""kNN distance detector: the score of x is its distance to the k-th nearest training normal.

    \[
    s(x) = \lVert x - x_{(k)}\rVert,
    \]

    with \(x_{(k)}\) the k-th nearest row of the training set (higher = more
    anomalous; no sign flip); distances are float64 from the rows' values and
    ties are broken by row index (`auditad.protocol.neighbor_lists`).

    Parameters
    ----------
    k : int, default 5
    metric : {"euclidean", "cosine"}
    backend : {"auto", "exact", "approximate"}
        Candidate search of [`auditad.neighbors.kneighbors`][auditad.neighbors.kneighbors]; ``auto`` runs
        the exact search below a few 10⁵ points (the result is then exact).
    n_jobs : int, optional
        Threads of the exact search.
    random_state : None or int
        Seeds the approximate backend.
    name : str, default "knn"

    See Also
    --------
    - [`LOFDetector`][auditad.protocol.LOFDetector]: the local-density detector on the same neighbour lists.
    - [`audit_protocol`][auditad.protocol.audit_protocol]: runs every class-split task with one neighbour pass per
      repeat.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly
       Detection", §2.

    Examples
    --------
    >>> import numpy as np
    >>> det = KNNDetector(k=1).fit(np.array([[0.0], [1.0]]))
    >>> det.score_samples(np.array([[0.0], [3.0]])).tolist()
    [0.0, 2.0]
    """

    _params = ("k", "metric", "backend", "n_jobs", "random_state", "name")

    def __init__(
        self,
        k: int = 5,
        *,
        metric: str = "euclidean",
        backend: str = "auto",
        n_jobs=None,
        random_state=None,
        name: str = "knn",
    ):
        self.k = k
        self.metric = metric
        self.backend = backend
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.name = name

    @property
    def min_train_size(self) -> int:
        return int(self.k)

    @property
    def n_needed(self) -> int:
        return int(self.k)

    def fit(self, X):
        """Keep the training rows."""
        self._check()
        X = check_embeddings(X, name="X")
        check_k(self.k, X.shape[0], name="k", strict=False)
        self.train_ = prepare_rows(X, self.metric)
        return self

    def score_from_neighbours(self, d: np.ndarray) -> np.ndarray:
        """Scores from the queries' neighbour distances (shape (m, ≥ k), ascending)."""
        return d[:, int(self.k) - 1].copy()

    def score_samples(self, X):
        """Distance of each row of ``X`` to its k-th nearest training row."""
        Q = prepare_rows(check_embeddings(X, name="X"), self.metric)
        nt = self.train_.shape[0]
        allx = np.vstack([self.train_, Q])
        _, d2 = nearest(
            allx,
            np.arange(nt),
            nt + np.arange(Q.shape[0]),
            int(self.k),
            exclude_self=False,
            backend=self.backend,
            n_jobs=self.n_jobs,
            random_state=self.random_state,
        )
        return self.score_from_neighbours(to_distance(d2, self.metric))


class LOFDetector(NeighbourDetector):
    r"""Local Outlier Factor of a new point relative to the training normals (higher = more anomalous).

    \[
    \mathrm{LOF}(x) = \frac1k\sum_{o\in N_k(x)} \frac{\mathrm{lrd}(o)}{\mathrm{lrd}(x)},\qquad
    \mathrm{lrd}(x) = \Big(\frac1k\sum_{o\in N_k(x)}\max\{d_k(o), d(x,o)\} + 10^{-10}\Big)^{-1},
    \]

    computed on auditad's exact kNN engine with neighbour ties broken by index
    (so the result does not depend on the thread count); equal to
    ``-sklearn.neighbors.LocalOutlierFactor(n_neighbors=k, novelty=True).score_samples``
    on data without distance ties.

    Parameters
    ----------
    n_neighbors : int, default 20
        Needs at least ``n_neighbors + 1`` training samples (otherwise the
        (class, detector) pair is skipped with a warning).
    metric : {"euclidean", "cosine"}
    backend : {"auto", "exact", "approximate"}
        Candidate search of [`auditad.neighbors.kneighbors`][auditad.neighbors.kneighbors].
    n_jobs : int, optional
        Threads of the exact search.
    name : str, default "lof"

    See Also
    --------
    - [`KNNDetector`][auditad.protocol.KNNDetector]: the distance detector on the same neighbour lists.
    - `sklearn.neighbors.LocalOutlierFactor`: the reference implementation.

    References
    ----------
    1. M. M. Breunig, H.-P. Kriegel, R. T. Ng, J. Sander, "LOF: identifying
       density-based local outliers", ACM SIGMOD 2000.
    2. "Testing the Test: Score-Direction Instability in Class-Split Anomaly
       Detection", §2.

    Examples
    --------
    >>> import numpy as np
    >>> train = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> LOFDetector(n_neighbors=2).fit(train).score_samples(np.array([[1.5], [10.0]])).round(3).tolist()
    [0.667, 5.0]
    """

    _params = ("n_neighbors", "metric", "backend", "n_jobs", "name")

    def __init__(
        self, n_neighbors: int = 20, *, metric: str = "euclidean", backend: str = "auto", n_jobs=None, name: str = "lof"
    ):
        self.n_neighbors = n_neighbors
        self.metric = metric
        self.backend = backend
        self.n_jobs = n_jobs
        self.name = name

    @property
    def min_train_size(self) -> int:
        return int(self.n_neighbors) + 1

    @property
    def n_needed(self) -> int:
        return int(self.n_neighbors)

    def fit(self, X):
        """Neighbour lists of the training rows (self excluded), their k-distances and lrd."""
        self._check()
        X = check_embeddings(X, name="X")
        k = check_int(self.n_neighbors, name="n_neighbors", low=1)
        if X.shape[0] < k + 1:
            raise InvalidInputError(
                f"LOFDetector needs at least n_neighbors + 1 = {k + 1} training rows, got {X.shape[0]}"
            )
        self.train_ = prepare_rows(X, self.metric)
        n = self.train_.shape[0]
        nb, d2 = nearest(
            self.train_, np.arange(n), np.arange(n), k, exclude_self=True, backend=self.backend, n_jobs=self.n_jobs
        )
        self.tables_ = lof_tables(n, np.arange(n), d2, nb, self.metric)
        return self

    def score_from_neighbours(self, tables, d: np.ndarray, nb: np.ndarray) -> np.ndarray:
        """LOF from the training tables and the queries' first ``n_neighbors`` neighbours."""
        k = int(self.n_neighbors)
        return lof_scores(tables, d[:, :k], nb[:, :k])

    def score_samples(self, X):
        """LOF(x) of each row of ``X`` (higher = more anomalous)."""
        Q = prepare_rows(check_embeddings(X, name="X"), self.metric)
        nt = self.train_.shape[0]
        allx = np.vstack([self.train_, Q])
        nb, d2 = nearest(
            allx,
            np.arange(nt),
            nt + np.arange(Q.shape[0]),
            int(self.n_neighbors),
            exclude_self=False,
            backend=self.backend,
            n_jobs=self.n_jobs,
        )
        return self.score_from_neighbours(self.tables_, to_distance(d2, self.metric), nb)


class IsolationForestDetector(BaseDetector):
    r"""Isolation Forest with every tree grown on its own subsample only; higher = more anomalous.

    The score is \(s(x) = 2^{-E[h(x)]/c(\psi)}\), the negative of scikit-learn's
    ``IsolationForest.score_samples`` ("the lower, the more abnormal"), with ψ = ``max_samples`` rows per tree
    (``"auto"``: min(256, n)), h(x) the depth of x's leaf plus \(c(n_\text{leaf})\) and
    \(c(m) = 2H(m-1) - 2(m-1)/m\) (Liu, Ting & Zhou 2008).

    scikit-learn's bagging hands every tree the whole training set, the ψ drawn rows as non-zero sample
    weights, so each tree touches all n rows; with 10⁶ rows and 10³ classes that is most of an audit. Here
    each tree is scikit-learn's own ``ExtraTreeRegressor(max_features=1, splitter="random",
    max_depth=⌈log₂ ψ⌉)`` fitted on just its ψ rows, drawn without replacement. A tree grown on the
    weighted full set never sees a zero-weight row (scikit-learn's splitter drops them before the first
    split), so it is the same random tree as one grown on the drawn rows: the same model in distribution.
    The random numbers are also drawn as scikit-learn draws them (ensemble seeds, tree seeds, the
    subsample, the random regression targets), so for an int ``random_state`` the trees and the scores are
    those of ``IsolationForest(n_estimators, max_samples, random_state)`` bit for bit, at O(T·ψ) rows per
    fit instead of O(T·n). In the protocol the training rows arrive as a `RowSelection`
    (`take_rows`): only the T·ψ drawn rows are ever gathered.

    Parameters
    ----------
    n_estimators : int, default 100
    max_samples : "auto", int or float
        ψ: ``"auto"`` = min(256, n); an int is capped at n (no warning); a float f in (0, 1] gives ⌊f·n⌋.
    random_state : None, int, numpy.random.RandomState or numpy.random.Generator
        The same int gives the same trees (those of scikit-learn with that int).
    name : str, default "iforest"

    See Also
    --------
    - `sklearn.ensemble.IsolationForest`: the same model, each tree fitted on the whole weighted set.
    - [`audit_protocol`][auditad.protocol.audit_protocol]: fits one forest per class-split task.

    References
    ----------
    1. F. T. Liu, K. M. Ting, Z.-H. Zhou, "Isolation Forest", IEEE ICDM 2008.

    Examples
    --------
    >>> import numpy as np
    >>> train = np.random.default_rng(0).normal(size=(300, 2))
    >>> det = IsolationForestDetector(n_estimators=50, random_state=0).fit(train)
    >>> s = det.score_samples(np.array([[0.0, 0.0], [6.0, 6.0]]))
    >>> bool(s[1] > s[0]), det.max_samples_
    (True, 256)
    """

    _params = ("n_estimators", "max_samples", "random_state", "name")
    score_sign = -1
    convention = "negated scikit-learn score_samples (higher = more normal there)"

    def __init__(self, n_estimators: int = 100, *, max_samples="auto", random_state=None, name: str = "iforest"):
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.random_state = random_state
        self.name = name

    def fit(self, X):
        """Grow the trees, each on its own ψ rows of ``X`` (an array or a `RowSelection`) as float32."""
        if not isinstance(X, RowSelection):
            X = check_embeddings(X, name="X", dtype=None)
        self.estimators_, self.node_values_, self.max_samples_ = fit_isolation_trees(
            X, self.n_estimators, self.max_samples, self.random_state
        )
        self.n_features_in_ = X.shape[1]
        return self

    def score_samples(self, X):
        r"""Anomaly score \(2^{-E[h(x)]/c(\psi)}\) of each row (an array or a `RowSelection`)."""
        if not isinstance(X, RowSelection):
            X = check_embeddings(X, name="X", dtype=None)
        if X.shape[1] != self.n_features_in_:
            raise InvalidInputError(f"X has {X.shape[1]} features, the forest was fitted on {self.n_features_in_}")
        return isolation_scores(self.estimators_, self.node_values_, self.max_samples_, X)

    def take_rows(self, X: np.ndarray, rows: np.ndarray) -> RowSelection:
        """``X[rows]`` as a `RowSelection`: nothing is copied here; `fit` gathers only the rows its trees grow on
        and `score_samples` gathers the queries chunk by chunk, as float32 (the values the trees split on)."""
        return RowSelection(X, rows)
