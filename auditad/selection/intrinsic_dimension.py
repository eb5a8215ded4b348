r"""Local intrinsic dimension: the Levina–Bickel MLE per point and its MacKay–Ghahramani aggregate.

From K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection Performance
from Embedding-Space Geometry?" (Sec. 3.2): the heterogeneity of the local
dimension explains the variance of the inlier scores. Holds
[`LIDResult`][auditad.selection.bounds.LIDResult] and
[`local_intrinsic_dimension`][auditad.selection.bounds.local_intrinsic_dimension], both also importable
from `auditad.selection.bounds`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, fields

import numpy as np

from .._format import FrameDisplay
from .._json import json_safe
from .._validation import check_embeddings, check_int, check_k
from ..errors import InvalidInputError, UndefinedValueWarning
from ..neighbors import kneighbors

__all__ = ["local_intrinsic_dimension", "LIDResult"]


@dataclass(frozen=True)
class LIDResult(FrameDisplay):
    r"""Local intrinsic dimension of every point and its aggregate (see `local_intrinsic_dimension`).

    \[
    \bar m = \Big[\frac1n \sum_x \hat m(x)^{-1}\Big]^{-1}
    \]

    Attributes
    ----------
    local : ndarray of shape (n,)
        Levina–Bickel MLE per point (nan where undefined: duplicate points at
        distance 0; ∞ where all k distances are equal).
    aggregate : float
        MacKay–Ghahramani aggregate: inverse of the mean inverse estimate.
    mean, median, std, q05, q95, iqr : float
        Spread of the finite local estimates (heterogeneity, Sec. 3.2 of the selection paper).
    cv : float
        std / mean of the finite local estimates.
    k : int
        Neighbours per point.
    n_undefined : int
        Points with a duplicate at distance 0 (estimate nan).
    metric, backend : str
        Distance and the kNN backend that actually ran.
    recall : float or None
        Approximate backend with ``recall_sample > 0``: share of the exact k
        nearest neighbours found, on a random sample of points (None when not measured).
    n_recall_queries : int
        Size of that sample.

    See Also
    --------
    - [`local_intrinsic_dimension`][auditad.selection.bounds.local_intrinsic_dimension]

    References
    ----------
    1. L. Amsaleg, O. Chelly, T. Furon, S. Girard, M. E. Houle,
       K. Kawarabayashi and M. Nett, "Estimating Local Intrinsic
       Dimensionality", KDD 2015.

    Examples
    --------
    >>> import numpy as np
    >>> r = local_intrinsic_dimension(np.random.default_rng(0).uniform(size=(500, 1)), k=10, backend="exact")
    >>> r.to_frame().shape, bool(0.8 < r.aggregate < 1.2)
    ((500, 2), True)
    """

    local: np.ndarray
    aggregate: float
    mean: float
    median: float
    std: float
    q05: float
    q95: float
    iqr: float
    cv: float
    k: int
    n_undefined: int
    metric: str
    backend: str
    recall: float | None = None
    n_recall_queries: int = 0

    def to_frame(self):
        """One row per point: ``index``, ``lid``."""
        import pandas as pd

        return pd.DataFrame({"index": np.arange(self.local.size), "lid": self.local})

    def to_dict(self) -> dict:
        """JSON-safe dict (nan/inf -> None)."""
        return {f.name: json_safe(getattr(self, f.name)) for f in fields(self)}


def local_intrinsic_dimension(
    X,
    *,
    k: int = 20,
    metric: str = "euclidean",
    backend: str = "auto",
    n_jobs: int | None = None,
    random_state=None,
    recall_sample: int = 0,
) -> LIDResult:
    r"""Levina–Bickel MLE of the local intrinsic dimension, aggregated MacKay–Ghahramani style.

    \[
    \hat m(x) = \Big[\frac{1}{k-1}\sum_{j=1}^{k-1} \log\frac{T_k(x)}{T_j(x)}\Big]^{-1},\qquad
    \bar m = \Big[\frac1n \sum_x \hat m(x)^{-1}\Big]^{-1}
    \]

    with \(T_j(x)\) the distance from x to its j-th nearest *other* point
    (the Levina–Bickel MLE, aggregated as MacKay and Ghahramani propose; in
    the selection paper, Sec. 3.2, the heterogeneity of \(\hat m\)
    explains inlier-score variance).
    A point with \(T_1 = 0\) (a duplicate) has an undefined estimate (nan,
    [`UndefinedValueWarning`][auditad.errors.UndefinedValueWarning]) and is left out of the
    aggregate and of the spread.

    Parameters
    ----------
    X : array-like of shape (n, d)
    k : int, default 20
        Neighbours per point, ``2 <= k < n``.
    metric : {"euclidean", "cosine"}, default "euclidean"
    backend : {"auto", "exact", "approximate"}, default "auto"
        kNN backend of [`auditad.neighbors.kneighbors`][auditad.neighbors.kneighbors] (``"auto"``:
        exact below its cost threshold, pynndescent above).
    n_jobs : int, optional
        Threads of the exact search.
    random_state : None, int or Generator
        Seeds the approximate backend and the recall sample.
    recall_sample : int, default 0
        Approximate backend: points whose neighbours are checked against
        exact search (``LIDResult.recall``).

    Returns
    -------
    LIDResult

    Raises
    ------
    auditad.errors.InvalidInputError
        Non-finite X, ``k`` < 2 or >= n, every point duplicated.

    Warns
    -----
    auditad.errors.UndefinedValueWarning
        Points with a duplicate at distance 0 (their estimate is nan).

    See Also
    --------
    - [`auditad.selection.scoring.knn_scores`][auditad.selection.scoring.knn_scores]: the kNN scores whose variance the
      heterogeneity explains.

    References
    ----------
    1. L. Amsaleg, O. Chelly, T. Furon, S. Girard, M. E. Houle,
       K. Kawarabayashi and M. Nett, "Estimating Local Intrinsic
       Dimensionality", KDD 2015.
    2. E. Levina and P. J. Bickel, "Maximum Likelihood Estimation of
       Intrinsic Dimension", NeurIPS 2004.
    3. D. J. C. MacKay and Z. Ghahramani, "Comments on 'Maximum Likelihood
       Estimation of Intrinsic Dimension' by E. Levina and P. Bickel", 2005.
    4. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 3.2.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).uniform(size=(2000, 2))
    >>> 1.7 < local_intrinsic_dimension(X, k=20, backend="exact").aggregate < 2.3
    True
    """
    A = check_embeddings(X, name="X")
    k = check_int(k, name="k", low=2)
    k = check_k(k, A.shape[0], name="k")
    nb = kneighbors(
        A,
        None,
        k=k,
        metric=metric,
        backend=backend,
        n_jobs=n_jobs,
        random_state=random_state,
        recall_sample=recall_sample,
    )
    T = nb.distances
    undefined = T[:, 0] <= 0
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = np.mean(np.log(T[:, -1:] / T[:, :-1]), axis=1)
    inv[undefined] = np.nan
    with np.errstate(divide="ignore"):
        local = np.where(undefined, np.nan, 1.0 / inv)
    n_undef = int(undefined.sum())
    if n_undef:
        warnings.warn(
            f"local_intrinsic_dimension: {n_undef} point(s) have a duplicate at distance 0; "
            "their estimate is undefined (nan) and left out of the aggregate",
            UndefinedValueWarning,
            stacklevel=2,
        )
    ok = ~undefined
    if not ok.any():
        raise InvalidInputError("local_intrinsic_dimension: every point has a duplicate; the dimension is undefined")
    mean_inv = float(inv[ok].mean())
    aggregate = float(1.0 / mean_inv) if mean_inv > 0 else float("inf")
    fin = local[np.isfinite(local)]
    if fin.size:
        q05, q25, med, q75, q95 = (float(v) for v in np.quantile(fin, [0.05, 0.25, 0.5, 0.75, 0.95]))
        mean, std = float(fin.mean()), float(fin.std())
    else:
        q05 = q25 = med = q75 = q95 = mean = std = float("nan")
    return LIDResult(
        local=local,
        aggregate=aggregate,
        mean=mean,
        median=med,
        std=std,
        q05=q05,
        q95=q95,
        iqr=q75 - q25,
        cv=std / mean if mean else float("nan"),
        k=k,
        n_undefined=n_undef,
        metric=metric,
        backend=nb.backend,
        recall=nb.recall,
        n_recall_queries=nb.n_recall_queries,
    )
