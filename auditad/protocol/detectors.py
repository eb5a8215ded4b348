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

The base classes and the three built-in detectors are defined in `auditad.protocol.builtin_detectors`
and re-exported here; this module holds the wrapper of user objects and the resolution by name.

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

from .._validation import check_choice, check_int, check_scores, describe
from ..errors import InvalidInputError
from .builtin_detectors import (
    BACKENDS,
    BaseDetector,
    IsolationForestDetector,
    KNNDetector,
    LOFDetector,
    NeighbourDetector,
)
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
#: PyOD detectors accepted by name in `make_detector` (``"pyod:NAME"``): class name -> module of
#: ``pyod.models``. Names are looked up here and imported; nothing is ever evaluated.
PYOD_DETECTORS = {
    "ABOD": "abod",
    "CBLOF": "cblof",
    "COF": "cof",
    "COPOD": "copod",
    "ECOD": "ecod",
    "GMM": "gmm",
    "HBOS": "hbos",
    "IForest": "iforest",
    "INNE": "inne",
    "KDE": "kde",
    "KNN": "knn",
    "LODA": "loda",
    "LOF": "lof",
    "MAD": "mad",
    "MCD": "mcd",
    "OCSVM": "ocsvm",
    "PCA": "pca",
    "QMCD": "qmcd",
    "SOD": "sod",
}
#: the rules by which a user object's score direction is decided (recorded per detector as ``rule``).
SIGN_RULES = {
    "pyod": "PyOD detector: decision_function, higher = more anomalous",
    "sklearn": "scikit-learn outlier detector: score_samples negated (higher = more normal there)",
    "declared": "declared by higher_is_anomalous",
}
_ACCEPTED = (
    "a PyOD detector (pyod.models.base.BaseDetector, or any object with decision_scores_ once fitted; "
    "decision_function, higher = more anomalous), a scikit-learn outlier detector (score_samples, "
    "negated), or Detector(obj, higher_is_anomalous=True/False) for any object with fit(X) and "
    "score_samples(X) or decision_function(X)"
)


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

    def __init__(
        self,
        estimator,
        *,
        higher_is_anomalous: bool | None = None,
        name: str | None = None,
        min_train_size: int = 1,
        method: str | None = None,
    ):
        if not callable(getattr(estimator, "fit", None)):
            raise InvalidInputError(f"detector {describe(estimator)} has no callable fit(X); accepted: {_ACCEPTED}")
        has = [m for m in ("score_samples", "decision_function") if callable(getattr(estimator, m, None))]
        if not has:
            raise InvalidInputError(
                f"detector {describe(estimator)} has neither score_samples(X) nor "
                f"decision_function(X); accepted: {_ACCEPTED}"
            )
        if higher_is_anomalous is not None and not isinstance(higher_is_anomalous, (bool, np.bool_)):
            raise InvalidInputError(
                f"higher_is_anomalous must be True, False or None, got {describe(higher_is_anomalous)}"
            )
        if method is not None:
            check_choice(method, ("score_samples", "decision_function"), name="method")
            if method not in has:
                raise InvalidInputError(f"method={method!r}: detector {describe(estimator)} has no callable {method}")
        pyod = is_pyod_detector(estimator)
        if higher_is_anomalous is not None:
            self.method_ = method or ("decision_function" if pyod and "decision_function" in has else has[0])
            self.score_sign_ = 1 if higher_is_anomalous else -1
            self.rule = f"{SIGN_RULES['declared']}={bool(higher_is_anomalous)}: {self.method_}" + (
                " used as is" if higher_is_anomalous else " negated"
            )
        elif pyod and "decision_function" in has:
            self.method_, self.score_sign_, self.rule = "decision_function", 1, SIGN_RULES["pyod"]
        elif is_sklearn_outlier_detector(estimator) and "score_samples" in has:
            self.method_, self.score_sign_, self.rule = "score_samples", -1, SIGN_RULES["sklearn"]
        else:
            raise InvalidInputError(
                f"detector {describe(estimator)}: the direction of its scores is not known (neither a PyOD nor a "
                f"scikit-learn outlier detector); pass higher_is_anomalous=True/False. Accepted: {_ACCEPTED}"
            )
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
                    f"{scores.shape}"
                )
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
                raise InvalidInputError(
                    f"detector {kind!r}: parameter {key!r} must be a number, string, boolean or "
                    f"None, got {describe(value)}"
                )
    elif isinstance(spec, str):
        kind, params = spec, {}
    else:
        raise InvalidInputError(f"a detector spec must be a name or a mapping, got {describe(spec)}")
    name = params.pop("name", None)
    if kind.startswith("pyod:"):
        cls_name = kind[5:]
        if cls_name not in PYOD_DETECTORS:
            raise InvalidInputError(
                f"unknown PyOD detector {kind!r}; accepted: {['pyod:' + c for c in PYOD_DETECTORS]}"
            )
        import importlib

        try:
            module = importlib.import_module(f"pyod.models.{PYOD_DETECTORS[cls_name]}")
        except ImportError as exc:
            from ..inputfiles import install_hint

            raise InvalidInputError(f"detector {kind!r} needs PyOD: {install_hint('pyod', 'pyod')} ({exc})") from exc
        try:
            model = getattr(module, cls_name)(**params)
        except (TypeError, ValueError, AssertionError, OverflowError) as exc:  # PyOD checks some in __init__
            named = [p for p in params if p in str(exc)] or list(params)
            what = ", ".join(f"{p} = {params[p]!r}" for p in named) or "no parameters"
            raise InvalidInputError(
                f"detector {kind!r}: parameter{'s' if len(named) > 1 else ''} {what} refused "
                f'by PyOD {cls_name}: "{str(exc).strip() or type(exc).__name__}"'
            ) from None
        nn = getattr(model, "n_neighbors", None)
        min_train = int(nn) + 1 if isinstance(nn, (int, np.integer)) else 2
        return Detector(model, name=name or f"pyod_{cls_name.lower()}", min_train_size=min_train)
    check_choice(kind, BUILTIN_DETECTORS + tuple("pyod:" + c for c in PYOD_DETECTORS), name="detector")
    cls = {"knn": KNNDetector, "iforest": IsolationForestDetector, "lof": LOFDetector}[kind]
    defaults = {"knn": {"k": k, "backend": backend}, "lof": {"backend": backend}, "iforest": {}}[kind]
    unknown = sorted(set(params) - set(cls._params))
    if unknown:
        raise InvalidInputError(
            f"detector {kind!r} has no parameter(s) {unknown}; accepted: {[p for p in cls._params if p != 'name']}"
        )
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
            f"detector names must be unique, got {names}; give each one a name, e.g. KNNDetector(k=10, name='knn10')"
        )
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
    info = {
        "name": det.name,
        "kind": type(det).__name__,
        "score_sign": int(det.score_sign),
        "convention": det.convention,
        "params": {k: json_value(v) for k, v in params.items()},
    }
    info["method"] = "score_samples"
    info["rule"] = "built-in: " + det.convention
    if isinstance(det, Detector):
        info["kind"] = f"Detector({type(det.estimator).__name__})"
        info["params"]["estimator"] = repr(det.estimator)
        info["method"], info["rule"] = det.method_, det.rule
    return info
