"""Class-split protocol audit: per-class AUROC, dispersion, near-random, inversion, direction instability.

SPEC §2 (seed 002, "Testing the Test: Score-Direction Instability in
Class-Split Anomaly Detection").  A labelled benchmark with K semantic classes
is turned into K anomaly-detection tasks:

``leave_one_class_out`` ("K−1 vs 1")
    for each class c the anomalies are class c and the normals are all other
    classes; the detector is fitted on a train split of the normals and scores
    the held-out normals and the anomalies.
``one_class`` ("1 vs K−1")
    for each class c the normals are class c and the anomalies are all other
    classes.

Per (representation, detector) the K values AUROC(c) are summarised by their
dispersion and by three rates (:func:`instability_rates`):

.. math::

    d(c) = \\begin{cases} 0 & |\\mathrm{AUROC}(c) - \\tfrac12| \\le \\varepsilon \\\\
           \\operatorname{sign}(\\mathrm{AUROC}(c) - \\tfrac12) & \\text{otherwise} \\end{cases}

    \\rho_{rnd}(\\varepsilon) = \\tfrac1K \\sum_c \\mathbb 1[|\\mathrm{AUROC}(c) - \\tfrac12| \\le \\varepsilon],\\quad
    \\rho_{inv} = \\tfrac1K \\sum_c \\mathbb 1[\\mathrm{AUROC}(c) < \\tfrac12],

    \\rho_{dir}(\\varepsilon) = 1 - \\tfrac1K \\max(\\#\\{c: d(c)=+1\\}, \\#\\{c: d(c)=-1\\}).

Scores follow the auditad convention **higher = more anomalous**; the built-in
detectors (:class:`KNNDetector`, :class:`IsolationForestDetector`,
:class:`LOFDetector`) already return such scores, and :class:`Detector` wraps
any object with ``fit(X)`` / ``score_samples(X)`` with an explicit sign.
"""

from __future__ import annotations

import copy
import warnings
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from ._progress import Progress
from ._rng import check_random_state
from ._validation import (
    check_choice,
    check_embeddings,
    check_float,
    check_int,
    check_k,
    check_labels,
    check_probability,
    check_same_length,
    check_scores,
    describe,
)
from ._json import json_safe
from .errors import AuditadWarning, InvalidInputError, SkippedItemWarning, UndefinedValueWarning

__all__ = [
    "PROTOCOLS",
    "BUILTIN_DETECTORS",
    "KNNDetector",
    "IsolationForestDetector",
    "LOFDetector",
    "Detector",
    "InstabilityResult",
    "instability_rates",
    "ProtocolResult",
    "audit_protocol",
]

PROTOCOLS = ("leave_one_class_out", "one_class")
BUILTIN_DETECTORS = ("knn", "iforest", "lof")

#: absolute tolerance of the ε band: |AUROC − ½| ≤ ε + _TOL counts as near random, so that
#: e.g. AUROC = 0.55 with ε = 0.05 is near random although 0.55 − 0.5 > 0.05 in binary floating point.
_TOL = 1e-12


# --------------------------------------------------------------------------- JSON helper
def _json(value: Any) -> Any:
    """Plain JSON-safe Python values (nan/inf -> None, numpy scalars -> Python, other objects -> repr)."""
    return json_safe(value, other=repr)


# --------------------------------------------------------------------------- instability rates
@dataclass(frozen=True)
class InstabilityResult:
    """Dispersion and instability rates of one vector of per-class AUROCs (see :func:`instability_rates`).

    Attributes
    ----------
    aurocs : ndarray of shape (K_all,)
        The AUROC values as given (nan entries were left out of every statistic).
    classes : ndarray of shape (K_all,)
        Class labels of the entries (``0..K_all-1`` when none were given).
    epsilon : float
        Half-width ε of the near-random band.
    n_classes : int
        K, the number of finite AUROC values used.
    directions : ndarray of shape (K_all,), int8
        d(c) in {−1, 0, +1} (0 also for nan entries).
    near_random, inverted : ndarray of shape (K_all,), bool
        ``|AUROC(c) − ½| ≤ ε`` and ``AUROC(c) < ½``.
    rho_rnd, rho_inv, rho_dir : float
        Near-random rate ρ_rnd(ε), inversion rate ρ_inv, direction instability ρ_dir(ε).
    n_up, n_down, n_near : int
        #{d(c) = +1}, #{d(c) = −1}, #{d(c) = 0} over the finite entries.
    mean_auc, sigma2_auc, std_auc, min_auc, max_auc, range_auc : float
        Mean, population variance σ²_AUC (ddof = 0), its square root, minimum,
        maximum and range (max − min) of the finite AUROCs.
    """

    aurocs: np.ndarray
    classes: np.ndarray
    epsilon: float
    n_classes: int
    directions: np.ndarray
    near_random: np.ndarray
    inverted: np.ndarray
    rho_rnd: float
    rho_inv: float
    rho_dir: float
    n_up: int
    n_down: int
    n_near: int
    mean_auc: float
    sigma2_auc: float
    std_auc: float
    min_auc: float
    max_auc: float
    range_auc: float

    def stats(self) -> dict:
        """The scalar statistics as a plain dict (full precision)."""
        return {
            "epsilon": self.epsilon, "n_classes": self.n_classes,
            "rho_rnd": self.rho_rnd, "rho_inv": self.rho_inv, "rho_dir": self.rho_dir,
            "n_up": self.n_up, "n_down": self.n_down, "n_near": self.n_near,
            "mean_auc": self.mean_auc, "sigma2_auc": self.sigma2_auc, "std_auc": self.std_auc,
            "min_auc": self.min_auc, "max_auc": self.max_auc, "range_auc": self.range_auc,
        }

    def to_frame(self):
        """Tidy per-class table: class, auroc, direction, near_random, inverted."""
        import pandas as pd

        return pd.DataFrame({
            "class": self.classes, "auroc": self.aurocs, "direction": self.directions.astype(int),
            "near_random": self.near_random, "inverted": self.inverted,
        })

    def to_dict(self) -> dict:
        """JSON-safe dict: the scalar statistics plus a ``per_class`` list."""
        out = _json(self.stats())
        out["per_class"] = [
            {"class": _json(c), "auroc": _json(a), "direction": int(d), "near_random": bool(r), "inverted": bool(i)}
            for c, a, d, r, i in zip(self.classes.tolist(), self.aurocs, self.directions, self.near_random,
                                     self.inverted)
        ]
        return out


def _check_epsilon(epsilon) -> float:
    return check_float(epsilon, name="epsilon", low=0.0, high=0.5, high_open=True)


def instability_rates(aurocs, *, epsilon: float = 0.05, classes=None) -> InstabilityResult:
    r"""Dispersion, near-random, inversion and direction-instability rates of per-class AUROCs.

    With K finite values AUROC(c) (SPEC §2; seed 002, "Testing the Test", §2
    "Métricas de inestabilidad"):

    .. math::

        d(c) = \begin{cases} 0 & |\mathrm{AUROC}(c)-\tfrac12| \le \varepsilon\\
               \operatorname{sign}(\mathrm{AUROC}(c)-\tfrac12) & \text{otherwise}\end{cases}

        \rho_{rnd}(\varepsilon) = \frac1K\sum_c \mathbb 1\big[|\mathrm{AUROC}(c)-\tfrac12|\le\varepsilon\big],
        \qquad
        \rho_{inv} = \frac1K\sum_c \mathbb 1\big[\mathrm{AUROC}(c) < \tfrac12\big],

        \rho_{dir}(\varepsilon) = 1 - \frac1K\max\big(\#\{c: d(c)=+1\},\ \#\{c: d(c)=-1\}\big),

        \sigma^2_{AUC} = \frac1K\sum_c \big(\mathrm{AUROC}(c) - \overline{\mathrm{AUROC}}\big)^2 .

    ρ_inv has no ε band. Near-random classes count for neither direction, so
    ρ_dir can exceed ½ (it is 1 when every class is near random). The band is
    closed: ``|AUROC − ½| ≤ ε`` (with a 1e-12 tolerance for binary rounding, so
    0.55 and 0.45 are both near random at ε = 0.05).

    Parameters
    ----------
    aurocs : array-like of shape (K,)
        Per-class AUROC values in [0, 1]. nan entries (skipped classes) are left
        out of every statistic with an :class:`~auditad.errors.UndefinedValueWarning`.
    epsilon : float, default 0.05
        Half-width of the near-random band, in [0, ½).
    classes : array-like of shape (K,), optional
        Class labels of the entries, for the tables.

    Returns
    -------
    InstabilityResult

    Examples
    --------
    >>> r = instability_rates([0.9, 0.3, 0.52, 0.48, 0.7], epsilon=0.05)
    >>> round(r.rho_inv, 3), round(r.rho_rnd, 3), round(r.rho_dir, 3)
    (0.4, 0.4, 0.6)
    """
    epsilon = _check_epsilon(epsilon)
    arr = np.asarray(aurocs)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise InvalidInputError(f"aurocs must be numeric, got dtype {arr.dtype} ({describe(aurocs)})")
    arr = arr.astype(np.float64).reshape(-1) if arr.ndim == 0 else arr.astype(np.float64)
    if arr.ndim != 1:
        raise InvalidInputError(f"aurocs must be 1-D, got shape {arr.shape}")
    if arr.size == 0:
        raise InvalidInputError("aurocs is empty: at least one AUROC value is needed")
    if np.isinf(arr).any():
        raise InvalidInputError("aurocs contains infinite values")
    finite = ~np.isnan(arr)
    if not finite.any():
        raise InvalidInputError("aurocs contains only nan: the rates are undefined")
    if np.any((arr[finite] < 0.0) | (arr[finite] > 1.0)):
        bad = arr[finite][(arr[finite] < 0.0) | (arr[finite] > 1.0)][0]
        raise InvalidInputError(f"aurocs must lie in [0, 1], got {bad!r}")
    if classes is None:
        cls = np.arange(arr.size)
    else:
        cls = np.asarray(classes)
        if cls.shape != arr.shape:
            raise InvalidInputError(f"classes must have the same shape as aurocs, got {cls.shape} and {arr.shape}")
    if not finite.all():
        warnings.warn(
            f"instability_rates: {int((~finite).sum())} of {arr.size} AUROC values are nan "
            f"(classes {describe(cls[~finite].tolist())}) and were left out; K = {int(finite.sum())}",
            UndefinedValueWarning, stacklevel=2,
        )
    dev = arr - 0.5
    near = finite & (np.abs(dev) <= epsilon + _TOL)
    inverted = finite & (arr < 0.5)
    directions = np.zeros(arr.size, dtype=np.int8)
    directions[finite & ~near & (dev > 0)] = 1
    directions[finite & ~near & (dev < 0)] = -1
    K = int(finite.sum())
    vals = arr[finite]
    n_up, n_down = int((directions == 1).sum()), int((directions == -1).sum())
    return InstabilityResult(
        aurocs=arr, classes=cls, epsilon=epsilon, n_classes=K, directions=directions,
        near_random=near, inverted=inverted,
        rho_rnd=int(near.sum()) / K, rho_inv=int(inverted.sum()) / K, rho_dir=(K - max(n_up, n_down)) / K,
        n_up=n_up, n_down=n_down, n_near=int(near.sum()),
        mean_auc=float(vals.mean()), sigma2_auc=float(np.var(vals, ddof=0)), std_auc=float(np.std(vals, ddof=0)),
        min_auc=float(vals.min()), max_auc=float(vals.max()), range_auc=float(vals.max() - vals.min()),
    )


# --------------------------------------------------------------------------- detectors
class _BaseDetector:
    """Shared plumbing of the built-in detectors: parameters, cloning, repr.

    Subclasses define ``_params`` (constructor argument names), ``fit`` and
    ``score_samples`` returning **higher = more anomalous** scores.
    """

    _params: tuple[str, ...] = ()
    #: +1: ``score_samples`` already follows the auditad convention.
    score_sign: int = 1
    convention: str = "higher = more anomalous"

    def get_params(self, deep: bool = True) -> dict:
        return {p: getattr(self, p) for p in self._params}

    def set_params(self, **params):
        for key, value in params.items():
            if key not in self._params:
                raise InvalidInputError(f"{type(self).__name__} has no parameter {key!r}")
            setattr(self, key, value)
        return self

    def _fresh(self, seed: int | None):
        params = self.get_params()
        if "random_state" in params and seed is not None:
            params["random_state"] = seed
        return type(self)(**params)

    @property
    def min_train_size(self) -> int:
        """Fewest training normals the detector accepts (fewer -> the task is skipped)."""
        return 2

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


class KNNDetector(_BaseDetector):
    r"""kNN distance detector: the score of x is its distance to the k-th nearest training normal.

    .. math:: s(x) = \lVert x - x_{(k)}\rVert,

    with :math:`x_{(k)}` the k-th nearest row of the training set (higher = more
    anomalous; no sign flip). Uses :func:`auditad._neighbors.kneighbors`.

    Parameters
    ----------
    k : int, default 5
    metric : {"euclidean", "cosine"}
    backend : {"auto", "exact", "approximate"}
        Passed to ``kneighbors``; ``auto`` runs exact search below a few 10⁵ points.
    n_jobs : int, optional
        Threads of the exact search.
    random_state : None or int
        Seeds the approximate backend.
    name : str, default "knn"

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

    def fit(self, X):
        X = check_embeddings(X, name="X")
        check_k(self.k, X.shape[0], name="k", strict=False)
        self.train_ = X
        return self

    def score_samples(self, X):
        from ._neighbors import kneighbors

        res = kneighbors(self.train_, X, k=self.k, metric=self.metric, backend=self.backend, n_jobs=self.n_jobs,
                         random_state=self.random_state)
        return res.distances[:, -1].copy()


class IsolationForestDetector(_BaseDetector):
    r"""Isolation Forest (scikit-learn) with the sign flipped to higher = more anomalous.

    scikit-learn's ``IsolationForest.score_samples`` returns :math:`-2^{-E[h(x)]/c(n)}`
    ("the lower, the more abnormal"); this detector returns its negative,
    :math:`s(x) = 2^{-E[h(x)]/c(n)}`, the anomaly score of Liu et al. (2008).

    Parameters
    ----------
    n_estimators : int, default 100
    max_samples : "auto", int or float
    random_state : None or int
    name : str, default "iforest"
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
        from sklearn.ensemble import IsolationForest

        X = check_embeddings(X, name="X")
        self.estimator_ = IsolationForest(n_estimators=self.n_estimators, max_samples=self.max_samples,
                                          random_state=self.random_state).fit(X)
        return self

    def score_samples(self, X):
        return -self.estimator_.score_samples(check_embeddings(X, name="X"))


class LOFDetector(_BaseDetector):
    r"""Local Outlier Factor (scikit-learn, ``novelty=True``) with the sign flipped.

    scikit-learn's ``LocalOutlierFactor.score_samples`` returns :math:`-\mathrm{LOF}(x)`
    (higher = more normal); this detector returns :math:`\mathrm{LOF}(x)` of a new point
    relative to the training normals (higher = more anomalous).

    Parameters
    ----------
    n_neighbors : int, default 20
        scikit-learn's neighbour search runs with one BLAS/OpenMP thread: on data
        with tied distances (e.g. integer pixels) the neighbours it picks among
        ties depend on the thread count, and a fixed count keeps the result
        identical whatever ``n_jobs`` or the machine.
        Needs at least ``n_neighbors + 1`` training samples (otherwise the
        (class, detector) pair is skipped with a warning).
    metric : str, default "euclidean"
    name : str, default "lof"
    """

    _params = ("n_neighbors", "metric", "name")
    score_sign = -1
    convention = "negated scikit-learn score_samples (higher = more normal there)"

    def __init__(self, n_neighbors: int = 20, *, metric: str = "euclidean", name: str = "lof"):
        self.n_neighbors = n_neighbors
        self.metric = metric
        self.name = name

    @property
    def min_train_size(self) -> int:
        return int(self.n_neighbors) + 1

    def fit(self, X):
        from sklearn.neighbors import LocalOutlierFactor
        from threadpoolctl import threadpool_limits

        X = check_embeddings(X, name="X")
        with threadpool_limits(limits=1):
            self.estimator_ = LocalOutlierFactor(n_neighbors=self.n_neighbors, metric=self.metric,
                                                 novelty=True).fit(X)
        return self

    def score_samples(self, X):
        from threadpoolctl import threadpool_limits

        X = check_embeddings(X, name="X")
        with threadpool_limits(limits=1):
            return -self.estimator_.score_samples(X)


class Detector(_BaseDetector):
    """Wrap any object with ``fit(X)`` and ``score_samples(X)`` and make its sign explicit.

    Parameters
    ----------
    estimator : object
        Must have callable ``fit`` and ``score_samples``. A fresh copy is fitted
        for every task (``sklearn.base.clone`` when the object has
        ``get_params``, else ``copy.deepcopy``); when ``get_params()`` contains
        ``random_state`` it is set to a seed derived from the audit's
        ``random_state``, so the same audit seed gives identical tables.
    higher_is_anomalous : bool, default True
        ``True``: ``score_samples`` already follows the auditad convention.
        ``False``: it is higher-is-normal (the scikit-learn convention for
        ``IsolationForest``, ``LocalOutlierFactor``, ``OneClassSVM``,
        ``EllipticEnvelope``) and the scores are negated.
    name : str, optional
        Detector name in the tables (default: the class name of ``estimator``).
    min_train_size : int, default 1

    Examples
    --------
    >>> from sklearn.ensemble import IsolationForest
    >>> det = Detector(IsolationForest(n_estimators=10, random_state=0), higher_is_anomalous=False)
    >>> det.name, det.score_sign
    ('IsolationForest', -1)
    """

    _params = ("estimator", "higher_is_anomalous", "name", "min_train_size")

    def __init__(self, estimator, *, higher_is_anomalous: bool = True, name: str | None = None,
                 min_train_size: int = 1):
        for attr in ("fit", "score_samples"):
            if not callable(getattr(estimator, attr, None)):
                raise InvalidInputError(
                    f"detector {describe(estimator)} has no callable {attr}(X); a detector needs fit(X) and "
                    "score_samples(X)")
        if not isinstance(higher_is_anomalous, (bool, np.bool_)):
            raise InvalidInputError(f"higher_is_anomalous must be True or False, got {describe(higher_is_anomalous)}")
        self.estimator = estimator
        self.higher_is_anomalous = bool(higher_is_anomalous)
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
        return 1 if self.higher_is_anomalous else -1

    @property
    def convention(self) -> str:  # type: ignore[override]
        return ("score_samples used as is (higher = more anomalous)" if self.higher_is_anomalous
                else "negated score_samples (declared higher = more normal)")

    def _fresh(self, seed: int | None):
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
        return Detector(est, higher_is_anomalous=self.higher_is_anomalous, name=self.name,
                        min_train_size=self.min_train_size)

    def fit(self, X):
        self.estimator.fit(X)
        return self

    def score_samples(self, X):
        scores = check_scores(self.estimator.score_samples(X), name=f"score_samples of detector {self.name!r}",
                              ndim=(1, 2))
        if scores.ndim == 2:
            if scores.shape[1] != 1:
                raise InvalidInputError(
                    f"score_samples of detector {self.name!r} must return one score per sample, got shape "
                    f"{scores.shape}")
            scores = scores[:, 0]
        return scores if self.higher_is_anomalous else -scores


def _is_sklearn_outlier_detector(obj) -> bool:
    try:
        from sklearn.base import is_outlier_detector

        return bool(is_outlier_detector(obj))
    except Exception:
        return False


def _resolve_detectors(detectors, *, k: int, backend: str, knn_jobs=None) -> list:
    """Turn the ``detectors`` argument into a list of detector objects with unique names."""
    if isinstance(detectors, (str, bytes)) or not isinstance(detectors, Sequence):
        detectors = [detectors]
    if len(detectors) == 0:
        raise InvalidInputError("detectors must name at least one detector, got an empty sequence")
    out = []
    for i, spec in enumerate(detectors):
        if isinstance(spec, str):
            check_choice(spec, BUILTIN_DETECTORS, name=f"detectors[{i}]")
            if spec == "knn":
                out.append(KNNDetector(k=k, backend=backend, n_jobs=knn_jobs))
            elif spec == "iforest":
                out.append(IsolationForestDetector())
            else:
                out.append(LOFDetector())
        elif isinstance(spec, _BaseDetector):
            out.append(spec)
        else:
            for attr in ("fit", "score_samples"):
                if not callable(getattr(spec, attr, None)):
                    raise InvalidInputError(
                        f"detectors[{i}] ({describe(spec)}) has no callable {attr}(X); pass one of "
                        f"{list(BUILTIN_DETECTORS)} or an object with fit(X) and score_samples(X)")
            # scikit-learn outlier detectors document score_samples as higher = more normal
            out.append(Detector(spec, higher_is_anomalous=not _is_sklearn_outlier_detector(spec)))
    names = [d.name for d in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise InvalidInputError(
            f"detector names must be unique, got {names}; give each one a name, e.g. KNNDetector(k=10, name='knn10')")
    return out


def _detector_info(det) -> dict:
    params = {k: v for k, v in det.get_params().items() if k not in ("name", "estimator", "n_jobs")}
    info = {"name": det.name, "kind": type(det).__name__, "score_sign": int(det.score_sign),
            "convention": det.convention, "params": {k: _json(v) for k, v in params.items()}}
    if isinstance(det, Detector):
        info["kind"] = f"Detector({type(det.estimator).__name__})"
        info["params"]["estimator"] = repr(det.estimator)
    return info


# --------------------------------------------------------------------------- one task
def _run_task(X, train_idx, test_idx, y_test, detector, seed, ci_level):
    """Fit a fresh copy of ``detector`` on X[train_idx], score X[test_idx], return AUROC + CI."""
    from .metrics import auroc_ci

    det = detector._fresh(seed)
    det.fit(X[train_idx])
    scores = det.score_samples(X[test_idx])
    scores = check_scores(scores, name=f"scores of detector {detector.name!r}")
    if scores.shape[0] != test_idx.size:
        raise InvalidInputError(
            f"detector {detector.name!r} returned {scores.shape[0]} scores for {test_idx.size} samples")
    constant = bool(np.all(scores == scores[0]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedValueWarning)  # constant scores: reported by the caller
        res = auroc_ci(y_test, scores, level=ci_level)
    return (res.auroc, res.ci_low, res.ci_high, res.p_value, constant)


# --------------------------------------------------------------------------- result
_SUMMARY_KEYS = ("n_classes", "mean_auc", "sigma2_auc", "std_auc", "min_auc", "max_auc", "range_auc",
                 "rho_rnd", "rho_inv", "rho_dir", "rho_nonsig", "rho_rnd_split_std", "rho_inv_split_std",
                 "rho_dir_split_std", "auroc_split_std", "spearman_leakage_auroc")


@dataclass(frozen=True)
class ProtocolResult:
    """Result of :func:`audit_protocol`.

    Arrays are indexed ``[representation, detector, class, repeat]`` in the
    order of :attr:`representation_names`, :attr:`detector_names`,
    :attr:`classes` and the repeats; skipped items are ``nan``.

    Attributes
    ----------
    protocol : str
        ``"leave_one_class_out"`` or ``"one_class"``.
    epsilon, ci_level : float
        Near-random half-width ε and the confidence level of the per-class intervals.
    classes : ndarray of shape (K,)
    representation_names, detector_names : tuple of str
    auroc, ci_low, ci_high, p_value : ndarray of shape (R, D, K, S)
        Per-repeat AUROC, DeLong interval and two-sided p-value of AUROC = ½.
    n_pos, n_neg : ndarray of shape (K, S), int
        Test anomalies and test normals of each (class, repeat) task (0 when skipped).
    class_leakage : ndarray of shape (R, K)
        Per-class leakage L_k(c) (nan when ``leakage_k`` is None).
    leakage_L_k : ndarray of shape (R,)
        Dataset leakage L_k of each representation.
    instability : dict
        ``(representation, detector) -> InstabilityResult`` of the repeat-averaged
        AUROC(c); ``detector == "mean"`` holds the detector-averaged AUROC(c).
    summary_rows, per_class_rows : tuple of dict
        The rows of ``to_frame("summary")`` and ``to_frame("per_class")``.
    settings : dict
        Protocol settings (train fraction, split, contamination, repeats, k, seeds).
    detector_info : tuple of dict
        Name, kind, parameters and score sign of every detector.
    skipped : tuple of dict
        One entry per skipped (representation, detector, class, repeat) with the reason.
    """

    protocol: str
    epsilon: float
    ci_level: float
    classes: np.ndarray
    representation_names: tuple
    detector_names: tuple
    auroc: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    p_value: np.ndarray
    n_pos: np.ndarray
    n_neg: np.ndarray
    class_leakage: np.ndarray
    leakage_L_k: np.ndarray
    leakage_k: int | None
    instability: dict
    summary_rows: tuple
    per_class_rows: tuple
    settings: dict
    detector_info: tuple
    skipped: tuple = field(default=())

    # ----------------------------------------------------------------- access
    def summary(self, representation: str | None = None, detector: str = "mean") -> dict:
        """The summary row of one (representation, detector); ``detector="mean"`` averages over detectors."""
        rep = self.representation_names[0] if representation is None else representation
        for row in self.summary_rows:
            if row["representation"] == rep and row["detector"] == detector:
                return dict(row)
        raise InvalidInputError(
            f"no summary for representation={rep!r}, detector={detector!r}; representations "
            f"{list(self.representation_names)}, detectors {list(self.detector_names) + ['mean']}")

    def to_frame(self, table: str = "per_class"):
        """Tidy :class:`pandas.DataFrame`.

        Parameters
        ----------
        table : {"per_class", "summary", "per_repeat"}
            ``per_class``: one row per (representation, detector, class) with the
            repeat-averaged AUROC, its split-to-split std/min/max, the interval and
            p-value (envelope over repeats: lowest ``ci_low``, highest ``ci_high``,
            largest p-value), n_pos, n_neg, direction, near_random, inverted and
            the class leakage; ``detector == "mean"`` rows hold the detector-averaged
            AUROC(c). ``summary``: one row per (representation, detector) and a
            ``mean`` row per representation. ``per_repeat``: every single task.
        """
        import pandas as pd

        check_choice(table, ("per_class", "summary", "per_repeat"), name="table")
        if table == "summary":
            return pd.DataFrame(list(self.summary_rows))
        if table == "per_class":
            return pd.DataFrame(list(self.per_class_rows))
        rows = []
        R, D, K, S = self.auroc.shape
        for r in range(R):
            for d in range(D):
                for c in range(K):
                    for s in range(S):
                        rows.append({
                            "representation": self.representation_names[r], "detector": self.detector_names[d],
                            "class": self.classes[c].item(), "repeat": s,
                            "n_pos": int(self.n_pos[c, s]), "n_neg": int(self.n_neg[c, s]),
                            "auroc": self.auroc[r, d, c, s], "ci_low": self.ci_low[r, d, c, s],
                            "ci_high": self.ci_high[r, d, c, s], "p_value": self.p_value[r, d, c, s],
                        })
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """JSON-safe dict.

        ``to_dict()["mean"]`` holds the detector-averaged statistics of the first
        representation (keys ``rho_rnd``, ``rho_inv``, ``rho_dir``, ``sigma2_auc``,
        ...), so a gate such as ``protocol.mean.rho_dir <= 0.2`` can read it;
        every representation is under ``to_dict()["representations"][name]`` with
        its ``mean``, per-detector ``detectors[name]`` summaries, ``leakage`` and
        ``per_class`` rows.
        """
        reps = {}
        for r, rep in enumerate(self.representation_names):
            dets = {}
            for det in self.detector_names:
                row = self.summary(rep, det)
                dets[det] = _json({k: row[k] for k in _SUMMARY_KEYS})
            mean_row = self.summary(rep, "mean")
            leak = None
            if self.leakage_k is not None:
                leak = {"k": int(self.leakage_k), "L_k": _json(self.leakage_L_k[r]),
                        "per_class": [{"class": _json(c.item()), "L_k": _json(v)}
                                      for c, v in zip(self.classes, self.class_leakage[r])]}
            reps[rep] = {
                "mean": _json({k: mean_row[k] for k in _SUMMARY_KEYS}),
                "detectors": dets,
                "leakage": leak,
                "per_class": [_json(row) for row in self.per_class_rows if row["representation"] == rep],
            }
        first = self.representation_names[0]
        return {
            "protocol": self.protocol,
            "epsilon": self.epsilon,
            "ci_level": self.ci_level,
            "settings": _json(self.settings),
            "classes": _json([c.item() for c in self.classes]),
            "detectors": _json(list(self.detector_info)),
            "representation_names": list(self.representation_names),
            "mean": reps[first]["mean"],
            "representations": reps,
            "skipped": _json(list(self.skipped)),
        }

    def summary_text(self) -> str:
        """Plain-text summary table (rounded to 3 decimals) for the CLI."""
        head = (f"Class-split protocol audit ({self.protocol}), epsilon = {self.epsilon:g}, "
                f"{len(self.classes)} classes, {self.settings['repeats']} repeat(s)")
        cols = ("representation", "detector", "mean_auc", "sigma2_auc", "range_auc", "rho_rnd", "rho_inv", "rho_dir",
                "rho_nonsig", "spearman_leakage_auroc")
        short = {"spearman_leakage_auroc": "rho_s(L,AUC)"}
        table = [[short.get(c, c) for c in cols]]
        for row in self.summary_rows:
            table.append([str(row[c]) if isinstance(row[c], str)
                          else ("nan" if not np.isfinite(row[c]) else f"{row[c]:.3f}") for c in cols])
        widths = [max(len(r[i]) for r in table) for i in range(len(cols))]
        lines = [head] + ["  ".join(v.ljust(w) if i < 2 else v.rjust(w) for i, (v, w) in enumerate(zip(r, widths)))
                          for r in table]
        if self.leakage_k is not None:
            lines.append("leakage L_k (k = %d): " % self.leakage_k + ", ".join(
                f"{rep} {v:.3f}" for rep, v in zip(self.representation_names, self.leakage_L_k)))
        if self.skipped:
            lines.append(f"{len(self.skipped)} task(s) skipped (see skipped in the JSON output)")
        return "\n".join(lines)


# --------------------------------------------------------------------------- input handling
def _check_representations(representations) -> dict:
    if isinstance(representations, Mapping):
        if len(representations) == 0:
            raise InvalidInputError("representations is an empty mapping: give at least one (n, d) array")
        out = {}
        for name, X in representations.items():
            if not isinstance(name, str):
                raise InvalidInputError(f"representation names must be strings, got {describe(name)}")
            out[name] = check_embeddings(X, name=f"representations[{name!r}]")
        return out
    return {"X": check_embeddings(representations, name="representations")}


def _check_split(split, n: int) -> np.ndarray:
    """User split -> bool array, True = train."""
    arr = np.asarray(split)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise InvalidInputError(f"split must be 1-D with one entry per sample ({n}), got shape {arr.shape}")
    if arr.dtype.kind == "b":
        is_train = arr.astype(bool)
    elif arr.dtype.kind in "US" or arr.dtype == object:
        vals = np.char.lower(arr.astype(str))
        bad = sorted(set(vals.tolist()) - {"train", "test"})
        if bad:
            raise InvalidInputError(f"split must hold 'train'/'test' (or booleans, True = train), got {bad[:5]}")
        is_train = vals == "train"
    elif arr.dtype.kind in "iuf":
        bad = sorted(set(np.unique(arr).tolist()) - {0, 1})
        if bad:
            raise InvalidInputError(f"split must hold 0/1 (1 = train), 'train'/'test' or booleans, got {bad[:5]}")
        is_train = arr == 1
    else:
        raise InvalidInputError(f"split must be booleans, 0/1 or 'train'/'test', got dtype {arr.dtype}")
    if is_train.all() or not is_train.any():
        raise InvalidInputError("split must contain both train and test samples")
    return is_train


def _stratified_assignment(y_idx: np.ndarray, K: int, train_fraction: float, rng: np.random.Generator) -> np.ndarray:
    """Random train/test assignment of every sample, stratified by class (True = train)."""
    is_train = np.zeros(y_idx.size, dtype=bool)
    for c in range(K):
        members = np.flatnonzero(y_idx == c)
        n_c = members.size
        n_tr = int(round(train_fraction * n_c))
        if n_c >= 2:
            n_tr = min(max(n_tr, 1), n_c - 1)
        is_train[rng.permutation(members)[:n_tr]] = True
    return is_train


# --------------------------------------------------------------------------- main entry point
def audit_protocol(representations, y, *, protocol: str = "leave_one_class_out",
                   detectors=BUILTIN_DETECTORS, k: int = 5, epsilon: float = 0.05,
                   train_fraction: float = 0.8, split=None, contamination: float | None = None,
                   repeats: int = 1, leakage_k: int | None = 10, leakage_results=None, ci_level: float = 0.95,
                   backend: str = "auto", n_jobs: int = 1, progress: bool = False,
                   random_state=None) -> ProtocolResult:
    r"""Audit a class-split anomaly-detection protocol: per-class AUROC and its instability.

    For every class c (SPEC §2; seed 002, "Testing the Test", §2):

    * ``protocol="leave_one_class_out"`` ("K−1 vs 1"): normals = all samples
      not in c, anomalies = class c;
    * ``protocol="one_class"`` ("1 vs K−1"): normals = class c, anomalies = the rest.

    The normals are split into train and test (a random split stratified by
    class with ``train_fraction``, or the user's ``split``); each detector is
    fitted on the train normals and scores the test normals and the anomalies,
    giving AUROC(c) with a DeLong interval and a two-sided test of AUROC = ½
    (:func:`auditad.metrics.auroc_ci`). With a random split the anomalies are
    every sample of the anomalous class(es) (they are never trained on); with a
    user ``split`` only its test samples are used. ``contamination`` subsamples
    the anomalies to that share of the test set. With ``repeats > 1`` new
    splits (and subsamples and detector seeds) are drawn; AUROC(c) is the mean
    over repeats and the split-to-split spread is reported. Per (representation,
    detector) and averaged over detectors:

    .. math::

        \sigma^2_{AUC} = \tfrac1K\sum_c(\mathrm{AUROC}(c)-\overline{\mathrm{AUROC}})^2,\quad
        \rho_{rnd}(\varepsilon),\ \rho_{inv},\ \rho_{dir}(\varepsilon)\ \text{(see } instability\_rates\text{)},

    plus the per-class leakage :math:`L_k(c)` (SPEC §1) next to AUROC(c) and
    their Spearman rank correlation over classes.

    Parameters
    ----------
    representations : array-like of shape (n, d) or dict of str -> array-like
        One or several representations of the same n samples (e.g. pixels and
        PCA), audited on the same splits and compared side by side.
    y : array-like of shape (n,)
        Semantic class labels (at least 2 classes).
    protocol : {"leave_one_class_out", "one_class"}
    detectors : sequence
        Built-in names ``"knn"``, ``"iforest"``, ``"lof"``, detector objects
        (:class:`KNNDetector`, :class:`IsolationForestDetector`, :class:`LOFDetector`,
        :class:`Detector`), or any object with ``fit(X)`` / ``score_samples(X)``.
        A bare object is taken as higher = more anomalous, except scikit-learn
        outlier detectors (``sklearn.base.is_outlier_detector``), whose
        ``score_samples`` is higher-is-normal and is negated; wrap it in
        :class:`Detector` to state the sign yourself. The sign used is recorded
        in ``detector_info``.
    k : int, default 5
        k of the built-in ``"knn"`` detector.
    epsilon : float, default 0.05
        Near-random half-width ε in [0, ½).
    train_fraction : float, default 0.8
        Share of each normal class used for training (random split).
    split : array-like of shape (n,), optional
        User split: booleans (True = train), 0/1 (1 = train) or "train"/"test".
        Repeats then vary only the anomaly subsample and the detector seeds.
    contamination : float in (0, 1), optional
        Target share of anomalies in each test set; anomalies are subsampled to
        ``round(contamination / (1 - contamination) * n_test_normals)`` (at least 1).
        Too few anomalies -> all are used, with a warning.
    repeats : int, default 1
    leakage_k : int or None, default 10
        k of the per-class leakage L_k(c); ``None`` skips the leakage.
    leakage_results : mapping of representation name -> LeakageResult, optional
        Leakage already computed on the same samples (e.g. by the report) with
        ``leakage_k`` among its ``ks``; used instead of a second neighbour search.
    ci_level : float, default 0.95
        Confidence level; ``rho_nonsig`` is the share of classes whose p-value
        is ≥ 1 − ci_level (AUROC(c) not distinguishable from ½).
    backend : {"auto", "exact", "approximate"}
        kNN backend of the ``"knn"`` detector and of the leakage.
    n_jobs : int, default 1
        Parallel tasks (joblib); -1 = all cores. Results do not depend on it.
    progress : bool, default False
        Print a progress line on stderr.
    random_state : None, int or Generator

    Returns
    -------
    ProtocolResult

    Raises
    ------
    InvalidInputError
        Bad input (ε outside [0, ½), a detector without ``score_samples``, ...).

    Warns
    -----
    SkippedItemWarning
        A class too small to split, or too few training normals for a
        detector: that AUROC is nan and the class is left out of the rates.
    UndefinedValueWarning
        A detector gave constant scores (AUROC = ½ by the ties convention).

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> X, y = load_digits(return_X_y=True)
    >>> res = audit_protocol(X[:400], y[:400], detectors=["knn"], leakage_k=None, random_state=0)
    >>> 0.0 <= res.to_dict()["mean"]["rho_dir"] <= 1.0
    True
    """
    reps = _check_representations(representations)
    y = check_labels(y, name="y", min_classes=2)
    n = y.shape[0]
    for name, X in reps.items():
        check_same_length(X, y, names=(f"representations[{name!r}]" if len(reps) > 1 or name != "X"
                                       else "representations", "y"))
    check_choice(protocol, PROTOCOLS, name="protocol")
    epsilon = _check_epsilon(epsilon)
    k = check_int(k, name="k", low=1)
    check_choice(backend, ("auto", "exact", "approximate"), name="backend")
    train_fraction = check_probability(train_fraction, name="train_fraction", open_interval=True)
    if contamination is not None:
        contamination = check_probability(contamination, name="contamination", open_interval=True)
    repeats = check_int(repeats, name="repeats", low=1)
    if leakage_k is not None:
        leakage_k = check_k(leakage_k, n, name="leakage_k")
    ci_level = check_probability(ci_level, name="ci_level", open_interval=True)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0:
        raise InvalidInputError(f"n_jobs must be a non-zero integer (-1 = all cores), got {describe(n_jobs)}")
    if not isinstance(progress, (bool, np.bool_)):
        raise InvalidInputError(f"progress must be True or False, got {describe(progress)}")
    user_split = None if split is None else _check_split(split, n)
    # with parallel tasks the built-in kNN search runs single-threaded inside each task (no oversubscription)
    dets = _resolve_detectors(detectors, k=k, backend=backend, knn_jobs=None if n_jobs == 1 else 1)
    rng = check_random_state(random_state)

    classes, y_idx = np.unique(y, return_inverse=True)
    K, R, D, S = classes.size, len(reps), len(dets), repeats
    rep_names = tuple(reps)
    det_names = tuple(d.name for d in dets)

    # ---- draw every split, subsample and seed up front (results do not depend on n_jobs)
    repeat_seeds = rng.integers(0, 2**63 - 1, size=S, dtype=np.int64)
    tasks = []          # (r, d, c, s, train_idx, test_idx, y_test, seed)
    n_pos = np.zeros((K, S), dtype=np.int64)
    n_neg = np.zeros((K, S), dtype=np.int64)
    skipped: list[dict] = []
    skip_warnings: dict[str, list] = {}
    short_anomalies = []

    def skip(c, s, reason, dets_=None):
        for d_i in (range(D) if dets_ is None else dets_):
            for r_name in rep_names:
                skipped.append({"representation": r_name, "detector": det_names[d_i], "class": classes[c].item(),
                                "repeat": s, "reason": reason})
        skip_warnings.setdefault(reason, []).append(classes[c].item())

    for s in range(S):
        g = np.random.default_rng(int(repeat_seeds[s]))
        is_train = user_split if user_split is not None else _stratified_assignment(y_idx, K, train_fraction, g)
        class_seeds = g.integers(0, 2**31 - 1, size=(K, 2))
        for c in range(K):
            in_c = y_idx == c
            if protocol == "leave_one_class_out":
                normal, anomalous = ~in_c, in_c
            else:
                normal, anomalous = in_c, ~in_c
            train_idx = np.flatnonzero(normal & is_train)
            test_norm = np.flatnonzero(normal & ~is_train)
            anom = np.flatnonzero(anomalous & (~is_train if user_split is not None else True))
            if protocol == "one_class" and in_c.sum() < 2:
                skip(c, s, f"class has {int(in_c.sum())} sample(s): too few to split into train and test normals")
                continue
            if train_idx.size == 0 or test_norm.size == 0:
                skip(c, s, f"no {'training' if train_idx.size == 0 else 'test'} normals in the split")
                continue
            if anom.size == 0:
                skip(c, s, "no anomalies in the test split")
                continue
            if contamination is not None:
                target = max(1, int(round(contamination / (1.0 - contamination) * test_norm.size)))
                if target <= anom.size:
                    sub = np.random.default_rng(int(class_seeds[c, 0]))
                    anom = np.sort(sub.choice(anom, size=target, replace=False))
                else:
                    short_anomalies.append((classes[c].item(), anom.size, target))
            test_idx = np.concatenate([test_norm, anom])
            y_test = np.concatenate([np.zeros(test_norm.size, np.int8), np.ones(anom.size, np.int8)])
            n_pos[c, s], n_neg[c, s] = anom.size, test_norm.size
            too_small = [d_i for d_i, det in enumerate(dets) if train_idx.size < det.min_train_size]
            if too_small:
                skip(c, s, "too few training normals for the detector", too_small)
            for d_i, det in enumerate(dets):
                if d_i in too_small:
                    continue
                for r in range(R):
                    tasks.append((r, d_i, c, s, train_idx, test_idx, y_test, int(class_seeds[c, 1])))

    for reason, cls in skip_warnings.items():
        uniq = sorted(set(cls), key=lambda v: (str(type(v)), v))
        warnings.warn(f"audit_protocol: skipped class(es) {describe(uniq)}: {reason}; their AUROC is nan and they "
                      "are left out of the rates", SkippedItemWarning, stacklevel=2)
    if short_anomalies:
        c0, have, want = short_anomalies[0]
        warnings.warn(f"audit_protocol: contamination={contamination} needs more anomalies than available for "
                      f"{len(short_anomalies)} task(s) (e.g. class {c0!r}: {have} < {want}); all anomalies were used",
                      AuditadWarning, stacklevel=2)

    # ---- run the tasks
    shape = (R, D, K, S)
    auroc = np.full(shape, np.nan)
    ci_low = np.full(shape, np.nan)
    ci_high = np.full(shape, np.nan)
    p_value = np.full(shape, np.nan)
    constant = []
    Xs = [reps[name] for name in rep_names]
    if n_jobs == 1 or len(tasks) <= 1:
        outputs = (_run_task(Xs[t[0]], t[4], t[5], t[6], dets[t[1]], t[7], ci_level) for t in tasks)
    else:
        from joblib import Parallel, delayed

        outputs = Parallel(n_jobs=int(n_jobs), return_as="generator")(
            delayed(_run_task)(Xs[t[0]], t[4], t[5], t[6], dets[t[1]], t[7], ci_level) for t in tasks)
    with Progress(len(tasks), "audit_protocol", enabled=bool(progress)) as bar:
        for t, out in zip(tasks, outputs):
            r, d_i, c, s = t[:4]
            auroc[r, d_i, c, s], ci_low[r, d_i, c, s], ci_high[r, d_i, c, s], p_value[r, d_i, c, s] = out[:4]
            if out[4]:
                constant.append((rep_names[r], det_names[d_i], classes[c].item(), s))
            bar.update()
    if constant:
        warnings.warn(f"audit_protocol: constant scores in {len(constant)} task(s) (e.g. representation, detector, "
                      f"class, repeat = {constant[0]}); their AUROC is 0.5 by the ties-count-½ convention and the "
                      "interval is nan", UndefinedValueWarning, stacklevel=2)

    # ---- leakage
    class_leakage = np.full((R, K), np.nan)
    leakage_L_k = np.full(R, np.nan)
    if leakage_k is not None:
        from .leakage import leakage as _leakage

        given = dict(leakage_results or {})
        for r, name in enumerate(rep_names):
            lr = given.get(name)
            if lr is None or leakage_k not in lr.ks or int(lr.class_sizes.sum()) != len(y):
                lr = _leakage(reps[name], y, k=leakage_k, backend=backend,
                              random_state=int(repeat_seeds[0] % (2**31)))
            j = lr.ks.index(leakage_k)
            leakage_L_k[r] = float(lr.L[j])
            pos = {v.item() if hasattr(v, "item") else v: i for i, v in enumerate(np.asarray(lr.classes))}
            per = np.asarray(lr.per_class[:, j], dtype=np.float64)
            for c in range(K):
                i = pos.get(classes[c].item())
                if i is not None:
                    class_leakage[r, c] = per[i]

    summary_rows, per_class_rows, instability = _summarise(
        auroc, ci_low, ci_high, p_value, n_pos, n_neg, class_leakage, leakage_L_k, leakage_k,
        classes, rep_names, det_names, epsilon, ci_level, protocol)

    settings = {
        "protocol": protocol, "epsilon": epsilon, "ci_level": ci_level, "train_fraction": train_fraction,
        "split": "user" if user_split is not None else "random_stratified", "contamination": contamination,
        "repeats": S, "k": k, "leakage_k": leakage_k, "backend": backend,
        "random_state": random_state if isinstance(random_state, (int, np.integer)) else None,
        "n_samples": n, "n_features": {name: int(X.shape[1]) for name, X in reps.items()},
    }
    return ProtocolResult(
        protocol=protocol, epsilon=epsilon, ci_level=ci_level, classes=classes,
        representation_names=rep_names, detector_names=det_names,
        auroc=auroc, ci_low=ci_low, ci_high=ci_high, p_value=p_value, n_pos=n_pos, n_neg=n_neg,
        class_leakage=class_leakage, leakage_L_k=leakage_L_k, leakage_k=leakage_k, instability=instability,
        summary_rows=tuple(summary_rows), per_class_rows=tuple(per_class_rows), settings=settings,
        detector_info=tuple(_detector_info(d) for d in dets), skipped=tuple(skipped),
    )


# --------------------------------------------------------------------------- statistics
def _nan_reduce(fn, a, axis):
    """``fn`` (np.nanmean, ...) without the all-nan RuntimeWarning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(a, axis=axis)


def _rates(values, epsilon, classes):
    """instability_rates of a vector, nan when no entry is finite; quiet about nan entries (already warned)."""
    if not np.isfinite(values).any():
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedValueWarning)
        return instability_rates(values, epsilon=epsilon, classes=classes)


def _spearman(a, b) -> float:
    """Spearman rank correlation over the finite pairs; nan with < 3 pairs or a constant side."""
    from scipy.stats import spearmanr

    ok = np.isfinite(a) & np.isfinite(b)
    if ok.sum() < 3 or np.all(a[ok] == a[ok][0]) or np.all(b[ok] == b[ok][0]):
        return float("nan")
    return float(spearmanr(a[ok], b[ok]).statistic)


def _summarise(auroc, ci_low, ci_high, p_value, n_pos, n_neg, class_leakage, leakage_L_k, leakage_k,
               classes, rep_names, det_names, epsilon, ci_level, protocol):
    R, D, K, S = auroc.shape
    alpha = 1.0 - ci_level
    mean_c = _nan_reduce(np.nanmean, auroc, 3)                      # (R, D, K)
    std_c = _nan_reduce(np.nanstd, auroc, 3)
    min_c = _nan_reduce(np.nanmin, auroc, 3)
    max_c = _nan_reduce(np.nanmax, auroc, 3)
    lo_c = _nan_reduce(np.nanmin, ci_low, 3)
    hi_c = _nan_reduce(np.nanmax, ci_high, 3)
    p_c = _nan_reduce(np.nanmax, p_value, 3)
    n_ok = np.isfinite(auroc).sum(axis=3)
    first_ok = np.argmax(n_pos > 0, axis=1)
    npos_c = n_pos[np.arange(K), first_ok]
    nneg_c = n_neg[np.arange(K), first_ok]
    det_mean_c = _nan_reduce(np.nanmean, mean_c, 1)                 # (R, K)

    summary_rows, per_class_rows, instability = [], [], {}
    nan = float("nan")
    for r, rep in enumerate(rep_names):
        det_rows = []
        for d, det in enumerate(det_names):
            inst = _rates(mean_c[r, d], epsilon, classes)
            instability[(rep, det)] = inst
            per_rep = [_rates(auroc[r, d, :, s], epsilon, classes) for s in range(S)]
            per_rep = [x for x in per_rep if x is not None]
            fin = np.isfinite(mean_c[r, d])
            row = {"representation": rep, "detector": det, "protocol": protocol, "epsilon": epsilon,
                   "n_repeats": S}
            stats = inst.stats() if inst is not None else {}
            for key in ("n_classes", "mean_auc", "sigma2_auc", "std_auc", "min_auc", "max_auc", "range_auc",
                        "rho_rnd", "rho_inv", "rho_dir"):
                row[key] = stats.get(key, 0 if key == "n_classes" else nan)
            row["rho_nonsig"] = (float(np.mean(p_c[r, d][fin] >= alpha)) if fin.any() else nan)
            for key in ("rho_rnd", "rho_inv", "rho_dir"):
                vals = [getattr(x, key) for x in per_rep]
                row[f"{key}_split_std"] = float(np.std(vals)) if len(vals) == S and S > 1 else nan
            row["auroc_split_std"] = float(np.mean(std_c[r, d][fin])) if fin.any() and S > 1 else nan
            row["spearman_leakage_auroc"] = _spearman(class_leakage[r], mean_c[r, d])
            row["leakage_k"] = leakage_k
            row["leakage_L_k"] = float(leakage_L_k[r])
            det_rows.append(row)
            for c in range(K):
                a = mean_c[r, d, c]
                per_class_rows.append({
                    "representation": rep, "detector": det, "class": classes[c].item(),
                    "n_pos": int(npos_c[c]), "n_neg": int(nneg_c[c]), "auroc": float(a),
                    "auroc_split_std": float(std_c[r, d, c]) if S > 1 else nan,
                    "auroc_split_min": float(min_c[r, d, c]), "auroc_split_max": float(max_c[r, d, c]),
                    "ci_low": float(lo_c[r, d, c]), "ci_high": float(hi_c[r, d, c]),
                    "p_value": float(p_c[r, d, c]), "n_repeats_ok": int(n_ok[r, d, c]),
                    "direction": int(inst.directions[c]) if inst is not None else 0,
                    "near_random": bool(inst.near_random[c]) if inst is not None else False,
                    "inverted": bool(inst.inverted[c]) if inst is not None else False,
                    "leakage": float(class_leakage[r, c]),
                })
        summary_rows.extend(det_rows)
        # mean over detectors: the paper averages the rates over the detectors
        mean_row = {"representation": rep, "detector": "mean", "protocol": protocol, "epsilon": epsilon,
                    "n_repeats": S}
        for key in _SUMMARY_KEYS:
            if key == "spearman_leakage_auroc":
                mean_row[key] = _spearman(class_leakage[r], det_mean_c[r])
            elif key == "n_classes":
                mean_row[key] = int(min(row_["n_classes"] for row_ in det_rows))
            else:
                vals = np.array([row_[key] for row_ in det_rows], dtype=np.float64)
                mean_row[key] = float(np.mean(vals[np.isfinite(vals)])) if np.isfinite(vals).any() else nan
        mean_row["leakage_k"] = leakage_k
        mean_row["leakage_L_k"] = float(leakage_L_k[r])
        summary_rows.append(mean_row)
        inst_mean = _rates(det_mean_c[r], epsilon, classes)
        instability[(rep, "mean")] = inst_mean
        for c in range(K):
            per_class_rows.append({
                "representation": rep, "detector": "mean", "class": classes[c].item(),
                "n_pos": int(npos_c[c]), "n_neg": int(nneg_c[c]), "auroc": float(det_mean_c[r, c]),
                "auroc_split_std": nan, "auroc_split_min": nan, "auroc_split_max": nan,
                "ci_low": nan, "ci_high": nan, "p_value": nan, "n_repeats_ok": int(n_ok[r, :, c].min()),
                "direction": int(inst_mean.directions[c]) if inst_mean is not None else 0,
                "near_random": bool(inst_mean.near_random[c]) if inst_mean is not None else False,
                "inverted": bool(inst_mean.inverted[c]) if inst_mean is not None else False,
                "leakage": float(class_leakage[r, c]),
            })
    return summary_rows, per_class_rows, instability
