r"""ID-likeness of OOD rows, the estimated ID share of an OOD set, and the near/far placement statistic.

For an OOD set of m rows and n ID training rows, every row i (an OOD row, or a held-out ID row) has
\(s_i\), the share of ID training rows among its k nearest rows of the pool ``ID training ∪ OOD set``
(itself excluded), and the chance level \(\pi_i\) (the ID share of that pool). The *ID-likeness* is the
kNN posterior of "ID" with the pool's size imbalance removed (equal priors):

\[
p_i = \frac{s_i / \pi_i}{s_i / \pi_i + (1 - s_i)/(1 - \pi_i)} .
\]

A row is *ID-like* when \(p_i > 1/2\) (\(s_i > \pi_i\)). With q the share of ID-like OOD rows and r the
share of ID-like held-out ID rows (the rate at which true ID rows are recognised), the ID share of the
set is estimated by the adjusted count \(\hat\theta = q / r\) (clipped to [0, 1]); its interval combines
Wilson intervals of q and r at level \(1 - \alpha/2\) each: \([q_- / r_+, q_+ / r_-]\) (conservative,
at least \(1 - \alpha\) by Bonferroni). The placement statistic is the chance-normalised ID share of the
OOD rows' neighbourhoods, \(\lambda = \bar s / \bar\pi\), with a Wilson interval on \(\bar s\).

References
----------
G. Forman, "Quantifying counts and costs via classification", Data Mining and Knowledge Discovery 17,
2008 (the adjusted count). E. B. Wilson, "Probable inference, the law of succession, and statistical
inference", JASA 22, 1927 (the score interval).
"""

from __future__ import annotations

from .._format import FrameDisplay, scalar_frame

from dataclasses import dataclass, field

import numpy as np

__all__ = ["wilson_interval", "id_likeness", "ContaminationResult", "PlacementResult", "contamination", "placement"]


def wilson_interval(p: float, n: int, level: float) -> tuple[float, float]:
    r"""Wilson score interval of a proportion (valid, and conservative, for a mean of values in [0, 1]).

    \[
    \frac{\hat p + z^2/2n \pm z\sqrt{\hat p(1-\hat p)/n + z^2/4n^2}}{1 + z^2/n}
    \]

    For a mean of n values in [0, 1] the variance is at most \(\mu(1-\mu)/n\), so the interval keeps
    at least its level; it never collapses at 0 or 1.

    References
    ----------
    E. B. Wilson, "Probable inference, the law of succession, and statistical inference", JASA 22, 1927.

    Examples
    --------
    >>> lo, hi = wilson_interval(0.0, 100, 0.95)
    >>> lo, round(hi, 4)
    (0.0, 0.037)
    """
    from scipy.stats import norm  # imported here: importing scipy.stats changes the warning filters

    if n <= 0:
        return (float("nan"), float("nan"))
    z = float(norm.ppf(0.5 + level / 2))
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if p <= 0 else max(0.0, centre - half)
    hi = 1.0 if p >= 1 else min(1.0, centre + half)
    return (float(min(lo, p)), float(max(hi, p)))


def id_likeness(share, chance) -> np.ndarray:
    r"""kNN posterior of "ID" with the pool's size imbalance removed (see the module formula).

    Parameters
    ----------
    share : array-like
        Share \(s_i\) of ID rows among each row's k nearest rows.
    chance : float or array-like
        ID share \(\pi_i\) of the pool each row was searched in, in (0, 1).

    Examples
    --------
    >>> id_likeness([0.0, 0.9, 1.0], 0.9).round(3).tolist()
    [0.0, 0.5, 1.0]
    """
    s = np.asarray(share, dtype=np.float64)
    pi = np.asarray(chance, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = s / pi
        b = (1 - s) / (1 - pi)
        p = a / (a + b)
    return np.where(pi >= 1, s, p)  # a pool without other OOD rows (a one-row set): the share itself


@dataclass(frozen=True)
class ContaminationResult(FrameDisplay):
    """Estimated ID share of one OOD set.

    Attributes
    ----------
    score : ndarray of shape (m,)
        ID-likeness of each OOD row.
    id_like : ndarray of shape (m,), bool
        ``score > 0.5``.
    share_flagged : float
        q: share of ID-like OOD rows.
    recognised : float
        r: share of held-out ID rows that are ID-like.
    estimate : float
        ``min(1, q / r)``.
    ci_low, ci_high : float
        Conservative interval of the estimate at ``confidence_level``.
    n_ood, n_test : int
    confidence_level : float

    See Also
    --------
    - [`contamination`][auditad.ood.contamination.contamination]: computes it.
    """

    score: np.ndarray = field(repr=False)
    id_like: np.ndarray = field(repr=False)
    share_flagged: float
    recognised: float
    estimate: float
    ci_low: float
    ci_high: float
    n_ood: int
    n_test: int
    confidence_level: float

    def to_frame(self):
        """One-row table of the scalar fields of `to_dict` (snake_case columns)."""
        return scalar_frame(self.to_dict())

    def to_dict(self) -> dict:
        """Key numbers (JSON-safe; the per-row arrays are left out)."""
        return {
            "id_share": self.estimate,
            "id_share_low": self.ci_low,
            "id_share_high": self.ci_high,
            "share_flagged": self.share_flagged,
            "recognised": self.recognised,
            "n_flagged": int(self.id_like.sum()),
            "n_ood": self.n_ood,
            "n_test": self.n_test,
            "confidence_level": self.confidence_level,
        }


def contamination(share_ood, chance_ood, share_test, chance_test, *, confidence_level=0.95) -> ContaminationResult:
    """Estimated ID share of an OOD set from its rows' and the held-out ID rows' neighbourhoods.

    Parameters
    ----------
    share_ood, share_test : array-like
        Share of ID training rows among the k nearest rows of each OOD row and each held-out ID row.
    chance_ood, chance_test : float
        ID share of the pool each was searched in.
    confidence_level : float

    Returns
    -------
    ContaminationResult

    See Also
    --------
    - [`id_likeness`][auditad.ood.contamination.id_likeness]: the per-row score.

    References
    ----------
    G. Forman, "Quantifying counts and costs via classification", Data Mining and Knowledge Discovery 17,
    2008.

    Examples
    --------
    >>> res = contamination([1.0, 0.0, 0.0, 0.0], 0.8, [1.0, 1.0, 0.9, 0.5], 0.8)
    >>> res.share_flagged, res.recognised, res.estimate
    (0.25, 0.75, 0.3333333333333333)
    """
    score = id_likeness(share_ood, chance_ood)
    flagged = score > 0.5
    q = float(flagged.mean())
    r = float((id_likeness(share_test, chance_test) > 0.5).mean())
    half = 1 - (1 - confidence_level) / 2
    q_lo, q_hi = wilson_interval(q, flagged.size, half)
    r_lo, r_hi = wilson_interval(r, len(share_test), half)
    est = min(1.0, q / r) if r > 0 else float("nan")
    lo = q_lo / r_hi if r_hi > 0 else float("nan")
    hi = min(1.0, q_hi / r_lo) if r_lo > 0 else 1.0
    return ContaminationResult(
        score=score,
        id_like=flagged,
        share_flagged=q,
        recognised=r,
        estimate=float(est),
        ci_low=float(lo),
        ci_high=float(hi),
        n_ood=int(flagged.size),
        n_test=int(len(share_test)),
        confidence_level=float(confidence_level),
    )


@dataclass(frozen=True)
class PlacementResult(FrameDisplay):
    """Chance-normalised ID share of an OOD set's neighbourhoods, and the placement it gives.

    Attributes
    ----------
    leakage : float
        Mean share of ID rows among the OOD rows' k nearest rows.
    chance : float
        The ID share of the pool.
    ratio, ratio_low, ratio_high : float
        ``leakage / chance`` and its interval.
    placement : str
        ``"near"`` when the whole interval is at or above ``threshold``, ``"far"`` when it is below,
        ``"borderline"`` when it straddles the threshold.
    threshold : float

    See Also
    --------
    - [`placement`][auditad.ood.contamination.placement]: computes it.
    """

    leakage: float
    chance: float
    ratio: float
    ratio_low: float
    ratio_high: float
    placement: str
    threshold: float

    def to_frame(self):
        """One-row table of the scalar fields of `to_dict` (snake_case columns)."""
        return scalar_frame(self.to_dict())

    def to_dict(self) -> dict:
        """JSON-safe dict."""
        return {
            "leakage": self.leakage,
            "chance": self.chance,
            "ratio": self.ratio,
            "ratio_low": self.ratio_low,
            "ratio_high": self.ratio_high,
            "placement": self.placement,
            "threshold": self.threshold,
        }


def placement(share_ood, chance_ood, *, threshold, confidence_level=0.95) -> PlacementResult:
    r"""Near/far placement of an OOD set from \(\lambda = \bar s / \pi\) and its interval against ``threshold``.

    Parameters
    ----------
    share_ood : array-like
        Share of ID training rows among each OOD row's k nearest rows of ``ID ∪ OOD set``.
    chance_ood : float
        The ID share of that pool: \(\lambda = 1\) when the set cannot be told from ID by its
        neighbourhoods, 0 when no OOD row has an ID neighbour.
    threshold : float
    confidence_level : float

    Returns
    -------
    PlacementResult

    See Also
    --------
    - [`contamination`][auditad.ood.contamination.contamination]

    References
    ----------
    D. Sun, Y. Ming, X. Zhu, Y. Li, "Out-of-Distribution Detection with Deep Nearest Neighbors", ICML
    2022 (nearest-neighbour distances separate ID from OOD).

    Examples
    --------
    >>> placement([0.0] * 500, 0.8, threshold=0.5).placement
    'far'
    """
    s = np.asarray(share_ood, dtype=np.float64)
    mean = float(s.mean())
    lo, hi = wilson_interval(mean, s.size, confidence_level)
    ratio = mean / chance_ood
    return PlacementResult(
        leakage=mean,
        chance=float(chance_ood),
        ratio=ratio,
        ratio_low=lo / chance_ood,
        ratio_high=hi / chance_ood,
        placement="near" if lo / chance_ood >= threshold else ("far" if hi / chance_ood < threshold else "borderline"),
        threshold=float(threshold),
    )
