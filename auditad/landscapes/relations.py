"""Relations between metric landscapes: Pearson correlation and Tucker congruence per ratio group.

Part of [`auditad.landscapes`][auditad.landscapes] (which re-exports every name here), kept in its
own file for length. Hermary, Mejri & Aouada, "An Insight on Evaluation Metrics
Under the Imbalanced Case of Anomaly Detection", §VI, Figures 6–7.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from .._format import FrameDisplay
from .._json import json_safe
from .._validation import check_choice, check_float, check_int, describe
from ..errors import InvalidInputError, SkippedItemWarning, UndefinedValueWarning
from .grid import LandscapeResult

#: Ratio groups of Hermary et al. §VI (inclusive bounds): Low ≤ 5.77 %, Medium 10.05–27.76 %, High ≥ 55.5 %.
RATIO_GROUPS = {"low": (0.0, 0.0577), "medium": (0.1005, 0.2776), "high": (0.555, 1.0)}

_EPS = 1e-12


# --------------------------------------------------------------------------- metric relations
@dataclass(frozen=True, eq=False)
class MetricRelationsResult(FrameDisplay):
    r"""Pearson correlation and Tucker congruence between metric landscapes per ratio group.

    ``pearson`` and ``tucker`` have shape (number of groups, M, M); ``loadings``
    holds one (M, n_factors) array per group. ``factor_rule`` states how the
    number of factors was chosen; ``tucker_degenerate[g]`` is True when group g
    kept a single factor, where the congruence of any two metrics is
    \(\mathrm{sign}(L_a L_b) = \pm 1\) by construction: its off-diagonal
    ``tucker`` entries are then nan (an [`UndefinedValueWarning`][auditad.errors.UndefinedValueWarning]
    says so; pass ``n_factors=2`` for a comparison).
    """

    groups: tuple
    members: tuple
    metrics: tuple
    pearson: np.ndarray
    tucker: np.ndarray
    n_factors: np.ndarray
    explained: np.ndarray
    loadings: tuple
    variance: float
    factor_rule: str = ""
    tucker_degenerate: tuple = ()

    def to_frame(self):
        """Tidy frame: group, metric_a, metric_b, pearson, tucker (each unordered pair once)."""
        import pandas as pd

        rows = []
        for g, name in enumerate(self.groups):
            for a in range(len(self.metrics)):
                for b in range(a + 1, len(self.metrics)):
                    rows.append(
                        {
                            "group": name,
                            "members": ", ".join(self.members[g]),
                            "metric_a": self.metrics[a],
                            "metric_b": self.metrics[b],
                            "pearson": float(self.pearson[g, a, b]),
                            "tucker": float(self.tucker[g, a, b]),
                            "n_factors": int(self.n_factors[g]),
                            "explained": float(self.explained[g]),
                            "factor_rule": self.factor_rule,
                            "tucker_degenerate": bool(self.tucker_degenerate[g]) if self.tucker_degenerate else False,
                        }
                    )
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """JSON-safe dict."""
        return {
            "groups": list(self.groups),
            "members": [list(m) for m in self.members],
            "metrics": list(self.metrics),
            "pearson": json_safe(self.pearson),
            "tucker": json_safe(self.tucker),
            "n_factors": json_safe(self.n_factors),
            "explained": json_safe(self.explained),
            "loadings": [json_safe(x) for x in self.loadings],
            "variance": self.variance,
            "factor_rule": self.factor_rule,
            "tucker_degenerate": [bool(x) for x in self.tucker_degenerate],
        }


def ratio_group(ratio: float, *, groups: Mapping = RATIO_GROUPS) -> str | None:
    """Name of the group whose inclusive [low, high] range holds ``ratio`` (None if none).

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§VI: Low, Medium, High ratio groups).

    See Also
    --------
    - [`landscape_correlations`][auditad.landscapes.landscape_correlations]

    Examples
    --------
    >>> ratio_group(0.0019), ratio_group(0.1214), ratio_group(0.9), ratio_group(0.4)
    ('low', 'medium', 'high', None)
    """
    ratio = check_float(ratio, name="ratio", low=0.0, high=1.0, low_open=True, high_open=True)
    for name, (lo, hi) in groups.items():
        if lo - _EPS <= ratio <= hi + _EPS:
            return str(name)
    return None


def _factor_loadings(X: np.ndarray, variance: float, n_factors: int | None = None):
    """Principal-factor loadings of the correlation matrix: ``n_factors`` of them, or the fewest explaining >= ``variance``."""
    corr = np.corrcoef(X, rowvar=False)
    eigval, eigvec = np.linalg.eigh(corr)
    order = np.argsort(eigval)[::-1]
    eigval, eigvec = np.clip(eigval[order], 0.0, None), eigvec[:, order]
    share = np.cumsum(eigval) / eigval.sum()
    k = int(np.searchsorted(share, variance - 1e-12) + 1) if n_factors is None else n_factors
    k = min(k, eigval.size)
    loadings = eigvec[:, :k] * np.sqrt(eigval[:k])
    # sign convention: each factor's largest absolute loading is positive (congruence does not depend on it)
    signs = np.sign(loadings[np.argmax(np.abs(loadings), axis=0), np.arange(k)])
    return corr, loadings * np.where(signs == 0, 1.0, signs), k, float(share[k - 1])


def landscape_correlations(
    result: LandscapeResult, *, groups="spec", variance: float = 0.90, n_factors: int | None = None
) -> MetricRelationsResult:
    r"""Pearson correlation between metric landscapes and Tucker congruence of their factor loadings (Hermary et al. §VI, Figures 6–7).

    For each ratio group, the landscapes of its ratios are stacked so that every
    (ratio, TPR, TNR) grid point is an observation and every metric a variable.
    Pearson correlations are computed directly; factors are extracted from the
    correlation matrix \(\mathbf R = \mathbf V \Lambda \mathbf V^\top\)
    (principal factors, loadings \(\mathbf L = \mathbf V_k \Lambda_k^{1/2}\)
    with the fewest k whose explained variance reaches ``variance``, 90 % as in
    the paper), and Tucker's congruence between metrics a and b is

    \[
    \phi_{ab} = \frac{\sum_f L_{af} L_{bf}}{\sqrt{\sum_f L_{af}^2 \sum_f L_{bf}^2}},
    \]

    which does not depend on a rotation of the factors. With every factor kept,
    \(\phi = r\). The paper "An Insight on Evaluation Metrics Under the Imbalanced Case of Anomaly Detection" (Hermary
    et al.) does not say which observations its factor
    analysis used; this stacking is auditad's reading.

    Degenerate case: when a single factor reaches the variance cut (the Medium
    group of the paper's ratios: 91.0 % with one factor), every congruence is
    \(\mathrm{sign}(L_a L_b) = \pm 1\) whatever the metrics, which says
    nothing. auditad then reports nan for the off-diagonal congruences of that
    group with an [`UndefinedValueWarning`][auditad.errors.UndefinedValueWarning] and marks it in
    ``tucker_degenerate``; ``n_factors=2`` (a fixed number for every group,
    stated in ``factor_rule``) gives a comparable value.

    Parameters
    ----------
    result : LandscapeResult
        Needs at least two metrics.
    groups : "spec", "each", "all" or mapping, default "spec"
        ``"spec"``: `RATIO_GROUPS` (Low ≤ 5.77 %, Medium 10.05–27.76 %,
        High ≥ 55.5 %; ratios outside every group are skipped with a
        [`SkippedItemWarning`][auditad.errors.SkippedItemWarning]); ``"each"``: one group per
        ratio; ``"all"``: one group of every ratio; or name -> (low, high).
    variance : float, default 0.90
        Share of variance the retained factors must explain.
    n_factors : int, optional
        Keep exactly this many factors in every group instead (1 ≤ n_factors ≤ number of metrics).

    Returns
    -------
    MetricRelationsResult

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§VI, Figures 6–7).
    L. R. Tucker, "A method for synthesis of factor analysis studies", Personnel Research Section
    Report 984, Department of the Army (1951).

    See Also
    --------
    - [`ratio_group`][auditad.landscapes.ratio_group]
    - [`auditad.landscapes.landscape`][auditad.landscapes.landscape]

    Examples
    --------
    >>> from auditad.landscapes import landscape
    >>> rel = landscape_correlations(landscape("paper", resolution=21), n_factors=2)
    >>> rel.groups
    ('low', 'medium', 'high')
    """

    if not isinstance(result, LandscapeResult):
        raise InvalidInputError(f"result must be a LandscapeResult (from landscape()), got {describe(result)}")
    if len(result.metrics) < 2:
        raise InvalidInputError(f"landscape_correlations needs at least two metrics, got {list(result.metrics)}")
    variance = check_float(variance, name="variance", low=0.0, high=1.0, low_open=True)
    if n_factors is not None:
        n_factors = check_int(n_factors, name="n_factors", low=1, high=len(result.metrics))
    rule = f"fixed: n_factors={n_factors}" if n_factors is not None else f"fewest factors explaining >= {variance:g}"
    if isinstance(groups, str):
        check_choice(groups, ("spec", "each", "all"), name="groups")
        if groups == "each":
            assign = {lab: [r] for r, lab in enumerate(result.labels)}
        elif groups == "all":
            assign = {"all": list(range(result.ratios.size))}
        else:
            groups = RATIO_GROUPS
    if isinstance(groups, Mapping):
        assign, skipped = {}, []
        for r, p in enumerate(result.ratios):
            g = ratio_group(float(p), groups=groups)
            if g is None:
                skipped.append(result.labels[r])
            else:
                assign.setdefault(g, []).append(r)
        if skipped:
            warnings.warn(
                f"ratios outside every group were left out of the correlations: {', '.join(skipped)}",
                SkippedItemWarning,
                stacklevel=2,
            )
        assign = {g: assign[g] for g in groups if g in assign}
    elif not isinstance(groups, str):
        raise InvalidInputError(f"groups must be 'spec', 'each', 'all' or a mapping, got {describe(groups)}")
    if not assign:
        raise InvalidInputError("no ratio of the landscape falls in any group; use groups='each' or 'all'")
    M = len(result.metrics)
    pear = np.empty((len(assign), M, M))
    tuck = np.empty((len(assign), M, M))
    nfac, expl, loads, members, degenerate = [], [], [], [], []
    for g, idx in enumerate(assign.values()):
        X = result.values[idx].transpose(0, 2, 3, 1).reshape(-1, M)  # observations x metrics
        if np.any(X.std(axis=0) == 0):
            raise InvalidInputError("a metric is constant over the grid; correlations are undefined")
        corr, L, k, share = _factor_loadings(X, variance, n_factors)
        pear[g] = corr
        norms = np.sqrt((L**2).sum(axis=1))
        tuck[g] = (L @ L.T) / np.outer(norms, norms)
        degenerate.append(k == 1)
        if k == 1:  # sign(L_a L_b) = ±1 for every pair: no information
            tuck[g] = np.where(np.eye(M, dtype=bool), 1.0, np.nan)
        nfac.append(k)
        expl.append(share)
        loads.append(L)
        members.append(tuple(result.labels[i] for i in idx))
    flat = [name for name, d in zip(assign, degenerate) if d]
    if flat:
        warnings.warn(
            f"Tucker congruence undefined for group(s) {', '.join(flat)}: one factor reaches the "
            f"{variance:.0%} variance cut, so every congruence would be sign(L_a L_b) = ±1; reported as nan "
            "(pass n_factors=2 to compare metrics with a fixed number of factors)",
            UndefinedValueWarning,
            stacklevel=2,
        )
    return MetricRelationsResult(
        groups=tuple(assign),
        members=tuple(members),
        metrics=result.metrics,
        pearson=pear,
        tucker=tuck,
        n_factors=np.array(nfac),
        explained=np.array(expl),
        loadings=tuple(loads),
        variance=variance,
        factor_rule=rule,
        tucker_degenerate=tuple(degenerate),
    )
