r"""Observed AUROCs placed on their random-baseline nulls.

[`place_observed`][auditad.nulls.place_observed] places one observed AUROC on the null of its test counts:
its one-sided p-value \(P(\mathrm{AUROC}_{null} \ge \text{observed})\), how it was computed, and whether it
exceeds the null's 95 % and 99 % quantiles. [`place_protocol_aurocs`][auditad.nulls.place_protocol_aurocs] does it
for every held-out class and every (representation, detector) of a class-split audit
([`ProtocolResult`][auditad.protocol.ProtocolResult]): a detector's AUROC(c) is a Mann–Whitney statistic of its
task's test counts, placed on the null at those counts (its quantiles); its p-value is the two-sided one of the
audit's per-class decision, the same number the protocol tables show. An average of detectors' AUROCs is no such
statistic, and gets none. [`observed_shares`][auditad.nulls.observed_shares] counts how many of them clear the null.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Mapping, Sequence

import numpy as np

from .._json import json_safe
from ._results import TOL

__all__ = [
    "ObservedResult",
    "ClassNullResult",
    "ObservedSharesResult",
    "place_observed",
    "class_test_counts",
    "place_protocol_aurocs",
    "observed_shares",
]


@dataclass(frozen=True)
class ObservedResult:
    r"""An observed AUROC on its null: the value, its p-value, how it was obtained, the null's quantiles.

    Attributes
    ----------
    auroc : float
        The observed AUROC; nan when the class could not be evaluated (then every other field is empty).
    p_value, log10_p_value : float
        From [`place_observed`][auditad.nulls.place_observed]: the one-sided
        \(P(\mathrm{AUROC}_{null} \ge \text{auroc})\) and its log10
        ([`NullResult.p_value_details`][auditad.nulls.NullResult.p_value_details]). From
        [`place_protocol_aurocs`][auditad.nulls.place_protocol_aurocs]: the two-sided p-value of the audit's
        per-class decision (the one its protocol tables show).
    p_method : str
        ``"exact"``, ``"exact_tail"``, ``"normal"``, ``"chernoff_bound"``, ``"monte_carlo"``, ...; for a
        class-split audit ``"two-sided, mann_whitney"`` (one draw) or ``"two-sided, rubin"`` (draws combined).
    p_upper_bound : bool
        True when ``p_value`` is an upper bound (Chernoff bound, or below 1e-300).
    above_q95, above_q99 : bool
        Whether ``auroc`` exceeds the 95 % / 99 % quantile of the null (strictly: an AUROC equal to the
        quantile, up to rounding, does not).
    status : str
        For an AUROC(c) of a class-split audit: the class's status in the audit's per-class decision
        ([`ProtocolResult.significance`][auditad.protocol.ProtocolResult.significance]); "" otherwise.
    distinguishable : bool or None
        For an AUROC(c) of a class-split audit: whether the decision's two-sided, Holm-corrected test tells it
        from a random detector; None otherwise.

    See Also
    --------
    - [`place_observed`][auditad.nulls.place_observed]: computes it.
    - [`ClassNullResult`][auditad.nulls.ClassNullResult]: every detector of one held-out class.
    """

    auroc: float
    p_value: float = float("nan")
    log10_p_value: float = float("nan")
    p_method: str = ""
    p_upper_bound: bool = False
    above_q95: bool = False
    above_q99: bool = False
    status: str = ""
    distinguishable: bool | None = None

    @property
    def evaluated(self) -> bool:
        """Whether there is an observed AUROC (the class was evaluated)."""
        return math.isfinite(self.auroc)

    def to_dict(self) -> dict:
        """JSON-safe dict of the fields; every value None when the class was not evaluated."""
        if not self.evaluated:
            return {f.name: None for f in fields(self)}
        return {f.name: json_safe(getattr(self, f.name)) for f in fields(self)}


def place_observed(null, auroc: float) -> ObservedResult:
    """An observed AUROC placed on ``null`` (a [`NullResult`][auditad.nulls.NullResult] with an AUROC null).

    Parameters
    ----------
    null : NullResult
        The null at the test counts the AUROC was measured on.
    auroc : float
        The observed AUROC; nan (a class that could not be evaluated) gives an empty result.

    Returns
    -------
    ObservedResult

    See Also
    --------
    - [`NullResult.p_value_details`][auditad.nulls.NullResult.p_value_details]: the p-value itself.
    - [`place_protocol_aurocs`][auditad.nulls.place_protocol_aurocs]: every AUROC(c) of a class-split audit.

    References
    ----------
    1. H. B. Mann, D. R. Whitney, "On a test of whether one of two random variables is stochastically larger
       than the other", Annals of Mathematical Statistics 18(1), 50–60, 1947.

    Examples
    --------
    >>> from auditad.nulls import null_distribution
    >>> o = place_observed(null_distribution(5, 15, metrics=["auroc"]), 0.9)
    >>> round(o.p_value, 4), o.p_method, o.above_q99
    (0.0027, 'exact', True)
    """
    auroc = float(auroc)
    if not math.isfinite(auroc):
        return ObservedResult(float("nan"))
    p, log10_p, how, bound = null.p_value_details(auroc, "auroc")
    an = null["auroc"]
    # above = strictly above: an AUROC on the quantile's lattice point (up to rounding) is not above it
    return ObservedResult(
        auroc, float(p), float(log10_p), how, bool(bound), bool(auroc > an.q95 + TOL), bool(auroc > an.q99 + TOL)
    )


@dataclass(frozen=True, eq=False)
class ClassNullResult:
    """The null of one held-out class of a class-split audit, with every detector's AUROC(c) placed on it.

    Attributes
    ----------
    label : class label
    n_pos, n_neg : int
        Test counts (anomalies, normals) of the class's task.
    null : NullResult
        The nulls of AUROC and the other metrics at (n_pos, n_neg) (classes with equal counts may share one).
    observed : dict of (representation, detector) -> ObservedResult
        Each detector's AUROC(c) on ``null``.

    See Also
    --------
    - [`place_protocol_aurocs`][auditad.nulls.place_protocol_aurocs]: computes it.
    - [`observed_shares`][auditad.nulls.observed_shares]: how many AUROCs clear their null.
    """

    label: object
    n_pos: int
    n_neg: int
    null: object
    observed: dict

    def lowest(self, representation: str):
        """``(detector, ObservedResult)`` of the lowest evaluated AUROC(c) in ``representation`` (the first
        detector on ties), or None when no detector was evaluated on the class."""
        cands = [(o.auroc, det, o) for (rep, det), o in self.observed.items() if rep == representation and o.evaluated]
        if not cands:
            return None
        _, det, o = min(cands, key=lambda t: t[0])
        return det, o


def class_test_counts(result) -> list:
    """``(index, label, n_pos, n_neg)`` of every held-out class of a [`ProtocolResult`][auditad.protocol.ProtocolResult]
    with at least one test anomaly and one test normal (the test counts of its first evaluated repeat).

    See Also
    --------
    - [`place_protocol_aurocs`][auditad.nulls.place_protocol_aurocs]: places the AUROCs of these classes.
    """
    rows = result.per_class(result.representation_names[0])
    return [
        (i, row["class"], int(row["n_pos"]), int(row["n_neg"]))
        for i, row in enumerate(rows)
        if row["n_pos"] >= 1 and row["n_neg"] >= 1
    ]


def place_protocol_aurocs(result, nulls: Mapping) -> list:
    """Every evaluated held-out class of a class-split audit with each detector's AUROC(c) placed on its null.

    Parameters
    ----------
    result : ProtocolResult
        The audit ([`audit_protocol`][auditad.protocol.audit_protocol]).
    nulls : mapping of (n_pos, n_neg) -> NullResult
        A null for the test counts of every class of [`class_test_counts`][auditad.nulls.class_test_counts].

    Returns
    -------
    list of ClassNullResult
        In class order; ``observed`` has every (representation, detector) pair (not the ensemble: an average
        of detectors' AUROCs is no Mann–Whitney statistic). Each AUROC(c) is placed on its null (quantiles), and
        its p-value, status and ``distinguishable`` are those of the audit's per-class decision
        ([`ProtocolResult.significance`][auditad.protocol.ProtocolResult.significance]: the two-sided test the
        protocol tables show), so the same AUROC has one p-value everywhere.

    See Also
    --------
    - [`place_observed`][auditad.nulls.place_observed]: one AUROC on one null.
    - [`null_distribution`][auditad.nulls.null_distribution]: the null at given counts.

    References
    ----------
    1. R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case of Anomaly
       Detection" (§IV).
    """
    decided = {
        (rep, det): result.significance(rep, det)
        for rep in result.representation_names
        for det in result.detector_names
    }
    out = []
    for i, label, n_pos, n_neg in class_test_counts(result):
        null = nulls[(n_pos, n_neg)]
        out.append(
            ClassNullResult(label, n_pos, n_neg, null, {key: _decided(null, d, i) for key, d in decided.items()})
        )
    return out


def _decided(null, d: Mapping, i: int) -> ObservedResult:
    """The estimate of class ``i`` of decision ``d`` placed on ``null``, with the decision's p-value and status."""
    placed = place_observed(null, d["estimate"][i])
    if not placed.evaluated:
        return placed
    return replace(
        placed,
        p_value=float(d["p_value"][i]),
        log10_p_value=float(d["log10_p_value"][i]),
        p_method=f"two-sided, {d['p_method'][i]}",
        p_upper_bound=False,
        status=str(d["category"][i]),
        distinguishable=bool(d["distinguishable"][i]),
    )


@dataclass(frozen=True)
class ObservedSharesResult:
    """How many observed (class, detector) AUROCs of one representation clear their null.

    Attributes
    ----------
    n_observed : int
        Evaluated (class, detector) pairs.
    share_above_q95, share_above_q99 : float
        Share of them above the 95 % / 99 % quantile of their null (nan without any).
    max_p_value : float
        The largest p-value among them (nan without any).

    See Also
    --------
    - [`observed_shares`][auditad.nulls.observed_shares]: computes it.
    """

    n_observed: int
    share_above_q95: float
    share_above_q99: float
    max_p_value: float

    def to_dict(self) -> dict:
        """JSON-safe dict of the fields (nan -> None)."""
        return {f.name: json_safe(getattr(self, f.name)) for f in fields(self)}


def observed_shares(classes: Sequence[ClassNullResult], representation: str) -> ObservedSharesResult:
    """Share of the evaluated (class, detector) AUROCs of ``representation`` above the 95 % / 99 % quantile of
    their null, and the largest p-value.

    See Also
    --------
    - [`place_protocol_aurocs`][auditad.nulls.place_protocol_aurocs]: the ``classes``.
    """
    obs = [o for cn in classes for (rep, _), o in cn.observed.items() if rep == representation and o.evaluated]
    if not obs:
        nan = float("nan")
        return ObservedSharesResult(0, nan, nan, nan)
    return ObservedSharesResult(
        len(obs),
        float(np.mean([o.above_q95 for o in obs])),
        float(np.mean([o.above_q99 for o in obs])),
        float(max(o.p_value for o in obs)),
    )
