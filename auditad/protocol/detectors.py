"""Detectors of the class-split protocol, their sign rules, and resolution of the ``detectors`` argument.

Every detector returns scores with **higher = more anomalous**:

* [`KNNDetector`][auditad.protocol.KNNDetector] – distance to the k-th nearest training normal;
* [`LOFDetector`][auditad.protocol.LOFDetector] – local outlier factor, on auditad's own exact kNN
  engine (equal to scikit-learn's ``LocalOutlierFactor(novelty=True)``
  scores negated, with neighbour ties broken by index);
* [`IsolationForestDetector`][auditad.protocol.IsolationForestDetector] – scikit-learn's Isolation Forest
  (negated), each tree fitted on its own subsample only (`auditad.protocol.iforest`);
* [`Detector`][auditad.protocol.Detector] – any object with ``fit`` and ``score_samples``, with an
  explicit sign.

References
----------
1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly
   Detection", §2 (kNN, Isolation Forest and LOF as unconditional detectors).
2. M. M. Breunig, H.-P. Kriegel, R. T. Ng, J. Sander, "LOF: identifying
   density-based local outliers", ACM SIGMOD 2000.
3. F. T. Liu, K. M. Ting, Z.-H. Zhou, "Isolation Forest", IEEE ICDM 2008.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Sequence

import numpy as np

from .._validation import check_choice, check_embeddings, check_int, check_k, check_scores, describe
from ..errors import InvalidInputError
from .iforest import RowSelection, fit_isolation_trees, isolation_scores
from .neighbours import METRICS, lof_scores, lof_tables, nearest, prepare_rows, to_distance
from .rates import json_value

__all__ = [
    "BUILTIN_DETECTORS",
    "BACKENDS",
    "BaseDetector",
    "NeighbourDetector",
    "KNNDetector",
    "IsolationForestDetector",
    "LOFDetector",
    "Detector",
    "PYOD_DETECTORS",
    "SIGN_RULES",
    "is_pyod_detector",
    "make_detector",
    "resolve_detectors",
    "detector_info",
    "is_sklearn_outlier_detector",
]

#: names accepted in ``detectors=`` for the built-in detectors.
BUILTIN_DETECTORS = ("knn", "iforest", "lof")
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
    ties are broken by row index (`auditad.protocol.neighbours`).

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

    def __init__(self, k: int = 5, *, metric: str = "euclidean", backend: str = "auto", n_jobs=None,
                 random_state=None, name: str = "knn"):
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
        _, d2 = nearest(allx, np.arange(nt), nt + np.arange(Q.shape[0]), int(self.k), exclude_self=False,
                        backend=self.backend, n_jobs=self.n_jobs, random_state=self.random_state)
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

    def __init__(self, n_neighbors: int = 20, *, metric: str = "euclidean", backend: str = "auto", n_jobs=None,
                 name: str = "lof"):
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
            raise InvalidInputError(f"LOFDetector needs at least n_neighbors + 1 = {k + 1} training rows, got "
                                    f"{X.shape[0]}")
        self.train_ = prepare_rows(X, self.metric)
        n = self.train_.shape[0]
        nb, d2 = nearest(self.train_, np.arange(n), np.arange(n), k, exclude_self=True, backend=self.backend,
                         n_jobs=self.n_jobs)
        self.tables_ = lof_tables(n, np.arange(n), to_distance(d2, self.metric), nb)
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
        nb, d2 = nearest(allx, np.arange(nt), nt + np.arange(Q.shape[0]), int(self.n_neighbors),
                         exclude_self=False, backend=self.backend, n_jobs=self.n_jobs)
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
            X, self.n_estimators, self.max_samples, self.random_state)
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


#: PyOD detectors accepted by name in `make_detector` (``"pyod:NAME"``): class name -> module of
#: ``pyod.models``. Names are looked up here and imported; nothing is ever evaluated.
PYOD_DETECTORS = {
    "ABOD": "abod", "CBLOF": "cblof", "COF": "cof", "COPOD": "copod", "ECOD": "ecod", "GMM": "gmm",
    "HBOS": "hbos", "IForest": "iforest", "INNE": "inne", "KDE": "kde", "KNN": "knn", "LODA": "loda",
    "LOF": "lof", "MAD": "mad", "MCD": "mcd", "OCSVM": "ocsvm", "PCA": "pca", "QMCD": "qmcd", "SOD": "sod",
}
#: the rules by which a user object's score direction is decided (recorded per detector as ``rule``).
SIGN_RULES = {
    "pyod": "PyOD detector: decision_function, higher = more anomalous",
    "sklearn": "scikit-learn outlier detector: score_samples negated (higher = more normal there)",
    "declared": "declared by higher_is_anomalous",
}
_ACCEPTED = ("a PyOD detector (pyod.models.base.BaseDetector, or any object with decision_scores_ once fitted; "
             "decision_function, higher = more anomalous), a scikit-learn outlier detector (score_samples, "
             "negated), or Detector(obj, higher_is_anomalous=True/False) for any object with fit(X) and "
             "score_samples(X) or decision_function(X)")


def is_pyod_detector(obj) -> bool:
    """A PyOD model: an instance of ``pyod.models.base.BaseDetector`` (imported lazily), or an object
    with ``decision_scores_`` (PyOD's fitted attribute) and a callable ``decision_function``.

    See Also
    --------
    - [`audit_protocol`][auditad.protocol.audit_protocol]: the class-split protocol audit.
    - [`make_detector`][auditad.protocol.make_detector]: detectors from names.
    - [`instability_rates`][auditad.protocol.instability_rates]: the rates of one set of AUROCs.
    """
    if hasattr(obj, "decision_scores_") and callable(getattr(obj, "decision_function", None)):
        return True
    import sys

    base = sys.modules.get("pyod.models.base")  # an instance of a PyOD class means PyOD is imported
    return base is not None and isinstance(obj, base.BaseDetector)


class Detector(BaseDetector):
    """Wrap any object with ``fit(X)`` and ``score_samples(X)`` or ``decision_function(X)``; make its sign explicit.

    The direction of the scores is decided by explicit rules, never guessed
    (`SIGN_RULES`, recorded per detector as ``rule`` in the result):

    1. ``higher_is_anomalous=True/False`` given: used as declared, on
       ``method`` (default: ``decision_function`` for PyOD models, else
       ``score_samples`` when present, else ``decision_function``);
    2. a PyOD model ([`is_pyod_detector`][auditad.protocol.is_pyod_detector]): ``decision_function``, higher =
       more anomalous (checked before scikit-learn's ``is_outlier_detector``,
       which is also true for PyOD models);
    3. a scikit-learn outlier detector with ``score_samples``: negated
       (scikit-learn's ``score_samples`` is higher = more normal);
    4. anything else: [`InvalidInputError`][auditad.errors.InvalidInputError] listing the
       accepted interfaces.

    Parameters
    ----------
    estimator : object
        A fresh copy is fitted for every task (``sklearn.base.clone`` when the
        object has ``get_params``, else ``copy.deepcopy``); when ``get_params()``
        contains ``random_state`` it is set to a seed derived from the audit's
        ``random_state``, so the same audit seed gives identical tables.
    higher_is_anomalous : bool or None, default None
        None: rules 2–4. True: the scores already follow the auditad
        convention. False: they are higher-is-normal and are negated.
    name : str, optional
        Detector name in the tables (default: the class name of ``estimator``).
    min_train_size : int, default 1
    method : {"score_samples", "decision_function"}, optional
        With ``higher_is_anomalous`` given: the method to call.

    See Also
    --------
    - [`make_detector`][auditad.protocol.make_detector]: detectors from names such as ``"pyod:ECOD"``.
    - [`resolve_detectors`][auditad.protocol.resolve_detectors]: how bare objects in ``detectors=`` are wrapped.


    Examples
    --------
    >>> from sklearn.ensemble import IsolationForest
    >>> det = Detector(IsolationForest(n_estimators=10, random_state=0))
    >>> det.name, det.score_sign, det.method_
    ('IsolationForest', -1, 'score_samples')
    """

    _params = ("estimator", "higher_is_anomalous", "name", "min_train_size", "method")

    def __init__(self, estimator, *, higher_is_anomalous: bool | None = None, name: str | None = None,
                 min_train_size: int = 1, method: str | None = None):
        if not callable(getattr(estimator, "fit", None)):
            raise InvalidInputError(f"detector {describe(estimator)} has no callable fit(X); accepted: {_ACCEPTED}")
        has = [m for m in ("score_samples", "decision_function") if callable(getattr(estimator, m, None))]
        if not has:
            raise InvalidInputError(f"detector {describe(estimator)} has neither score_samples(X) nor "
                                    f"decision_function(X); accepted: {_ACCEPTED}")
        if higher_is_anomalous is not None and not isinstance(higher_is_anomalous, (bool, np.bool_)):
            raise InvalidInputError(
                f"higher_is_anomalous must be True, False or None, got {describe(higher_is_anomalous)}")
        if method is not None:
            check_choice(method, ("score_samples", "decision_function"), name="method")
            if method not in has:
                raise InvalidInputError(f"method={method!r}: detector {describe(estimator)} has no callable {method}")
        pyod = is_pyod_detector(estimator)
        if higher_is_anomalous is not None:
            self.method_ = method or ("decision_function" if pyod and "decision_function" in has else has[0])
            self.score_sign_ = 1 if higher_is_anomalous else -1
            self.rule = (f"{SIGN_RULES['declared']}={bool(higher_is_anomalous)}: {self.method_}"
                         + (" used as is" if higher_is_anomalous else " negated"))
        elif pyod and "decision_function" in has:
            self.method_, self.score_sign_, self.rule = "decision_function", 1, SIGN_RULES["pyod"]
        elif is_sklearn_outlier_detector(estimator) and "score_samples" in has:
            self.method_, self.score_sign_, self.rule = "score_samples", -1, SIGN_RULES["sklearn"]
        else:
            raise InvalidInputError(
                f"detector {describe(estimator)}: the direction of its scores is not known (neither a PyOD nor a "
                f"scikit-learn outlier detector); pass higher_is_anomalous=True/False. Accepted: {_ACCEPTED}")
        self.estimator = estimator
        self.higher_is_anomalous = None if higher_is_anomalous is None else bool(higher_is_anomalous)
        self.method = method
        self.name = type(estimator).__name__ if name is None else str(name)
        self._min_train_size = check_int(min_train_size, name="min_train_size", low=1)

    @property
    def min_train_size(self) -> int:  # type: ignore[override]
        return self._min_train_size

    @min_train_size.setter
    def min_train_size(self, value) -> None:
        self._min_train_size = check_int(value, name="min_train_size", low=1)

    @property
    def score_sign(self) -> int:  # type: ignore[override]
        return self.score_sign_

    @property
    def convention(self) -> str:  # type: ignore[override]
        return self.rule

    def fresh(self, seed: int | None):
        est = self.estimator
        if callable(getattr(est, "get_params", None)):
            try:
                from sklearn.base import clone

                est = clone(est)
            except Exception:  # not a full scikit-learn estimator
                est = copy.deepcopy(est)
            try:
                params = est.get_params()
            except Exception:
                params = {}
            if seed is not None and "random_state" in params and callable(getattr(est, "set_params", None)):
                est.set_params(random_state=seed)
        else:
            est = copy.deepcopy(est)
        new = copy.copy(self)
        new.estimator = est
        return new

    def fit(self, X):
        """Fit the wrapped estimator."""
        self.estimator.fit(X)
        return self

    def score_samples(self, X):
        """Scores with higher = more anomalous, by the detector's `rule`."""
        raw = getattr(self.estimator, self.method_)(X)
        scores = check_scores(raw, name=f"{self.method_} of detector {self.name!r}", ndim=(1, 2))
        if scores.ndim == 2:
            if scores.shape[1] != 1:
                raise InvalidInputError(
                    f"{self.method_} of detector {self.name!r} must return one score per sample, got shape "
                    f"{scores.shape}")
            scores = scores[:, 0]
        return scores if self.score_sign_ == 1 else -scores


def make_detector(spec, *, k: int = 5, backend: str = "auto"):
    """A detector from a name or a mapping, parsed through allow-lists (never evaluated).

    Parameters
    ----------
    spec : str or mapping
        ``"knn"``, ``"iforest"``, ``"lof"``, ``"pyod:NAME"`` with NAME in
        `PYOD_DETECTORS` (e.g. ``"pyod:ECOD"``), or a mapping
        ``{"detector": <one of these>, "name": ..., <parameter>: <value>, ...}``
        whose other entries are constructor parameters (numbers, strings,
        booleans or None), e.g. ``{"detector": "pyod:KNN", "n_neighbors": 10}``.
    k, backend
        Defaults of the built-in ``"knn"`` (and ``backend`` of ``"lof"``) when
        the mapping does not set them.

    Returns
    -------
    BaseDetector
        PyOD models are wrapped in [`Detector`][auditad.protocol.Detector] with the PyOD rule
        (``decision_function``, higher = more anomalous).

    See Also
    --------
    - [`resolve_detectors`][auditad.protocol.resolve_detectors]: accepts these specs in ``detectors=``.


    Examples
    --------
    >>> make_detector({"detector": "knn", "k": 10}).k
    10
    >>> make_detector("pyod:ECOD").rule
    'PyOD detector: decision_function, higher = more anomalous'
    """
    from collections.abc import Mapping

    if isinstance(spec, Mapping):
        params = dict(spec)
        kind = params.pop("detector", None)
        if not isinstance(kind, str):
            raise InvalidInputError(f"a detector mapping needs 'detector' = a name, got {describe(spec)}")
        for key, value in params.items():
            if not isinstance(key, str) or not (value is None or isinstance(value, (bool, int, float, str))):
                raise InvalidInputError(f"detector {kind!r}: parameter {key!r} must be a number, string, boolean or "
                                        f"None, got {describe(value)}")
    elif isinstance(spec, str):
        kind, params = spec, {}
    else:
        raise InvalidInputError(f"a detector spec must be a name or a mapping, got {describe(spec)}")
    name = params.pop("name", None)
    if kind.startswith("pyod:"):
        cls_name = kind[5:]
        if cls_name not in PYOD_DETECTORS:
            raise InvalidInputError(f"unknown PyOD detector {kind!r}; accepted: "
                                    f"{['pyod:' + c for c in PYOD_DETECTORS]}")
        import importlib

        try:
            module = importlib.import_module(f"pyod.models.{PYOD_DETECTORS[cls_name]}")
        except ImportError as exc:
            raise InvalidInputError(f"detector {kind!r} needs PyOD: pip install 'auditad[pyod]' ({exc})") from exc
        try:
            model = getattr(module, cls_name)(**params)
        except (TypeError, ValueError, AssertionError, OverflowError) as exc:  # PyOD checks some in __init__
            named = [p for p in params if p in str(exc)] or list(params)
            what = ", ".join(f"{p} = {params[p]!r}" for p in named) or "no parameters"
            raise InvalidInputError(f"detector {kind!r}: parameter{'s' if len(named) > 1 else ''} {what} refused "
                                    f"by PyOD {cls_name}: \"{str(exc).strip() or type(exc).__name__}\"") from None
        nn = getattr(model, "n_neighbors", None)
        min_train = int(nn) + 1 if isinstance(nn, (int, np.integer)) else 2
        return Detector(model, name=name or f"pyod_{cls_name.lower()}", min_train_size=min_train)
    check_choice(kind, BUILTIN_DETECTORS + tuple("pyod:" + c for c in PYOD_DETECTORS), name="detector")
    cls = {"knn": KNNDetector, "iforest": IsolationForestDetector, "lof": LOFDetector}[kind]
    defaults = {"knn": {"k": k, "backend": backend}, "lof": {"backend": backend}, "iforest": {}}[kind]
    unknown = sorted(set(params) - set(cls._params))
    if unknown:
        raise InvalidInputError(f"detector {kind!r} has no parameter(s) {unknown}; accepted: "
                                f"{[p for p in cls._params if p != 'name']}")
    det = cls(**{**defaults, **params, **({"name": name} if name else {})})
    if isinstance(det, NeighbourDetector):
        det._check()
    return det


def is_sklearn_outlier_detector(obj) -> bool:
    """``sklearn.base.is_outlier_detector(obj)``, False when scikit-learn cannot tell.

    See Also
    --------
    - [`audit_protocol`][auditad.protocol.audit_protocol]: the class-split protocol audit.
    - [`make_detector`][auditad.protocol.make_detector]: detectors from names.
    - [`instability_rates`][auditad.protocol.instability_rates]: the rates of one set of AUROCs.
    """
    try:
        from sklearn.base import is_outlier_detector

        return bool(is_outlier_detector(obj))
    except Exception:
        return False


def resolve_detectors(detectors, *, k: int = 5, backend: str = "auto", knn_jobs=None) -> list:
    """Turn the ``detectors`` argument of `audit_protocol` into detector objects with unique names.

    Parameters
    ----------
    detectors : str, mapping, detector object, or sequence of them
        Built-in names (`BUILTIN_DETECTORS`), ``"pyod:NAME"`` or mappings
        ([`make_detector`][auditad.protocol.make_detector]), [`BaseDetector`][auditad.protocol.BaseDetector] instances,
        or other
        objects, wrapped in [`Detector`][auditad.protocol.Detector] by its sign rules (PyOD:
        ``decision_function`` as is; scikit-learn outlier detectors:
        ``score_samples`` negated; anything else is refused with the list of
        accepted interfaces — wrap it in ``Detector(obj, higher_is_anomalous=...)``).
    k : int, default 5
        k of the built-in ``"knn"``.
    backend : {"auto", "exact", "approximate"}
        Backend of the built-in ``"knn"`` and ``"lof"``.
    knn_jobs : int, optional
        Threads of their exact search.

    Returns
    -------
    list of BaseDetector

    See Also
    --------
    - [`audit_protocol`][auditad.protocol.audit_protocol]: the caller.
    """
    if isinstance(detectors, (str, bytes)) or not isinstance(detectors, Sequence):
        detectors = [detectors]
    if len(detectors) == 0:
        raise InvalidInputError("detectors must name at least one detector, got an empty sequence")
    out = []
    for i, spec in enumerate(detectors):
        if isinstance(spec, str) and not spec.startswith("pyod:"):
            check_choice(spec, BUILTIN_DETECTORS, name=f"detectors[{i}]")
            if spec == "knn":
                out.append(KNNDetector(k=k, backend=backend, n_jobs=knn_jobs))
            elif spec == "iforest":
                out.append(IsolationForestDetector())
            else:
                out.append(LOFDetector(backend=backend, n_jobs=knn_jobs))
        elif isinstance(spec, str) or isinstance(spec, Mapping):
            out.append(make_detector(spec, k=k, backend=backend))
        elif isinstance(spec, BaseDetector):
            if isinstance(spec, NeighbourDetector):
                spec._check()
            out.append(spec)
        else:
            try:
                out.append(Detector(spec))  # the sign rules of Detector; ambiguous objects are refused
            except InvalidInputError as exc:
                raise InvalidInputError(f"detectors[{i}]: {exc}") from None
    names = [d.name for d in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise InvalidInputError(
            f"detector names must be unique, got {names}; give each one a name, e.g. KNNDetector(k=10, name='knn10')")
    return out


def detector_info(det) -> dict:
    """Name, kind, score sign, sign convention and parameters of a detector (JSON-safe).

    See Also
    --------
    - [`audit_protocol`][auditad.protocol.audit_protocol]: the class-split protocol audit.
    - [`make_detector`][auditad.protocol.make_detector]: detectors from names.
    - [`instability_rates`][auditad.protocol.instability_rates]: the rates of one set of AUROCs.
    """
    params = {k: v for k, v in det.get_params().items() if k not in ("name", "estimator", "n_jobs")}
    info = {"name": det.name, "kind": type(det).__name__, "score_sign": int(det.score_sign),
            "convention": det.convention, "params": {k: json_value(v) for k, v in params.items()}}
    info["method"] = "score_samples"
    info["rule"] = "built-in: " + det.convention
    if isinstance(det, Detector):
        info["kind"] = f"Detector({type(det.estimator).__name__})"
        info["params"]["estimator"] = repr(det.estimator)
        info["method"], info["rule"] = det.method_, det.rule
    return info
