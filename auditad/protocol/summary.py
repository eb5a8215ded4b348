"""Typed summaries of a class-split protocol audit: per detector, their average, the worst pair, the ensemble.

[`ProtocolResult.summaries`][auditad.protocol.ProtocolResult.summaries] holds one
[`ProtocolSummary`][auditad.protocol.ProtocolSummary] per representation, computed once from the
per-task arrays, at the three levels of "Testing the Test":

* ``detectors[name]``: a [`DetectorSummary`][auditad.protocol.DetectorSummary] per detector, the statistics
  of its AUROC(c) (averaged over repeats): dispersion, the rates, the Holm-corrected significant inversions,
  the split-to-split spread and the Spearman correlation with the class leakage;
* ``mean``: a [`DetectorAverage`][auditad.protocol.DetectorAverage], each statistic averaged over the
  detectors; ``worst``: [`WorstRates`][auditad.protocol.WorstRates], the largest rate and the pair that has
  it;
* ``ensemble``: the statistics of the detector-mean AUROC(c), a separate detector, never a headline.

Each object's ``stats()`` (full precision) and ``to_dict()`` (JSON-safe) are derived from its fields, so
the columns of a summary are declared once: [`SUMMARY_KEYS`][auditad.protocol.SUMMARY_KEYS] and
[`RATE_NAMES`][auditad.protocol.RATE_NAMES] are the field names.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Mapping, Sequence

import numpy as np

from .rates import SpearmanResult, json_value

__all__ = [
    "DetectorSummary",
    "DetectorAverage",
    "WorstRate",
    "WorstRates",
    "ProtocolSummary",
    "SUMMARY_KEYS",
    "RATE_NAMES",
]

#: ``spearman_reason`` of a summary without leakage.
NO_LEAKAGE = "no leakage (leakage_k=0)"


def _detail(**kwargs):
    """A field kept on the object but left out of ``stats()`` and ``to_dict()`` (reported elsewhere)."""
    return field(metadata={"stat": False}, **kwargs)


def _stat_names(obj) -> tuple:
    """Names of the fields of a summary class (or object) that ``stats()`` and ``to_dict()`` report, in order."""
    return tuple(f.name for f in fields(obj) if f.metadata.get("stat", True))


@dataclass(frozen=True)
class DetectorSummary:
    r"""Statistics of one (representation, detector) of a class-split audit, or of the ensemble.

    Computed from the detector's AUROC(c), c = 1..K (the mean over repeats, finite values only), by
    [`ProtocolResult.summaries`][auditad.protocol.ProtocolResult.summaries].

    Attributes
    ----------
    n_classes : int
        K, the classes with a finite AUROC(c).
    mean_auc, sigma2_auc, std_auc, min_auc, max_auc, range_auc : float
        Mean, population variance \(\sigma^2_{AUC}\) (ddof = 0), its square root, minimum, maximum and range.
    rho_rnd, rho_inv, rho_dir : float
        Near-random rate \(\rho_{rnd}(\varepsilon)\), inversion rate \(\rho_{inv}\) and direction instability
        \(\rho_{dir}(\varepsilon)\) (see [`instability_rates`][auditad.protocol.instability_rates]).
    rho_inv_sig, n_inv_sig : float, int
        Share and number of classes *significantly inverted* (AUROC(c) < ½ with a Holm-adjusted p-value at most
        1 − ``ci_level``); nan and 0 for the ensemble, whose AUROC is not a Mann–Whitney statistic.
    rho_nonsig : float
        Share of classes whose p-value of AUROC = ½ is at least 1 − ``ci_level`` (nan for the ensemble).
    rho_rnd_split_std, rho_inv_split_std, rho_dir_split_std : float
        Population std over the repeats of the rates of each repeat's AUROC vector (nan with one repeat).
    auroc_split_std : float
        Mean over the classes of the population std of AUROC(c) over the repeats (nan with one repeat).
    spearman_leakage_auroc : float
        Spearman's rank correlation of L_k(c) and AUROC(c) (nan when not stated, see ``spearman``).
    spearman : SpearmanResult or None
        The correlation with the evidence it rests on (pairs, distinct values, reason); None without leakage.
        Not part of ``stats()``: ``to_dict()`` of the result reports it under ``leakage.spearman``.

    See Also
    --------
    - [`ProtocolSummary`][auditad.protocol.ProtocolSummary]: the summaries of one representation.
    - [`instability_rates`][auditad.protocol.instability_rates]: the rates of one AUROC vector.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection", §2.
    2. S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian Journal of
       Statistics 6(2), 65–70, 1979.
    """

    n_classes: int
    mean_auc: float
    sigma2_auc: float
    std_auc: float
    min_auc: float
    max_auc: float
    range_auc: float
    rho_rnd: float
    rho_inv: float
    rho_dir: float
    rho_inv_sig: float
    n_inv_sig: int
    rho_nonsig: float
    rho_rnd_split_std: float
    rho_inv_split_std: float
    rho_dir_split_std: float
    auroc_split_std: float
    spearman_leakage_auroc: float
    spearman: SpearmanResult | None = _detail()

    def stats(self) -> dict:
        """The statistics as a plain dict in field order (full precision, nan kept)."""
        return {name: getattr(self, name) for name in _stat_names(self)}

    def to_dict(self) -> dict:
        """JSON-safe `stats` (nan -> None)."""
        return json_value(self.stats())

    def spearman_evidence(self) -> dict:
        """``spearman_n_pairs``, ``spearman_n_distinct_leakage``, ``spearman_n_distinct_auroc`` and ``spearman_reason``."""
        sp = self.spearman
        if sp is None:
            return {
                "spearman_n_pairs": 0,
                "spearman_n_distinct_leakage": 0,
                "spearman_n_distinct_auroc": 0,
                "spearman_reason": NO_LEAKAGE,
            }
        return {
            "spearman_n_pairs": sp.n_pairs,
            "spearman_n_distinct_leakage": sp.n_distinct_x,
            "spearman_n_distinct_auroc": sp.n_distinct_y,
            "spearman_reason": sp.reason,
        }


#: the statistics of a summary row, per (representation, detector): the fields of `DetectorSummary`.
SUMMARY_KEYS = _stat_names(DetectorSummary)


@dataclass(frozen=True)
class DetectorAverage(DetectorSummary):
    """Each statistic of the [`DetectorSummary`][auditad.protocol.DetectorSummary] objects averaged over the detectors.

    The ``mean`` of a representation, as "Testing the Test" reports its rates: e.g. ``rho_inv`` is the average of
    the detectors' inversion rates (the share of inverted (class, detector) pairs when every detector was evaluated
    on every class). Each statistic is the mean of the finite values (nan when none is); ``n_classes`` is the
    largest K of a detector and ``n_detectors`` the number of detectors. It is not a statistic of the
    ensemble's AUROC(c), which can cancel opposite detectors.

    See Also
    --------
    - [`WorstRates`][auditad.protocol.WorstRates]: the largest rate instead of the average.
    - [`ProtocolSummary`][auditad.protocol.ProtocolSummary]: where it is kept.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
    """

    n_detectors: int

    @classmethod
    def over(cls, summaries: Sequence[DetectorSummary]) -> "DetectorAverage":
        """The average of ``summaries`` (one per detector)."""
        values = {}
        for name in SUMMARY_KEYS:
            v = np.array([getattr(s, name) for s in summaries], dtype=np.float64)
            ok = np.isfinite(v)
            values[name] = float(np.mean(v[ok])) if ok.any() else float("nan")
        values["n_classes"] = int(max((s.n_classes for s in summaries), default=0))
        return cls(**values, spearman=None, n_detectors=len(summaries))


@dataclass(frozen=True)
class WorstRate:
    """The largest value of one rate over (representation, detector) pairs, and the pair that has it.

    Ties go to the first pair in (representation, detector) name order.

    Attributes
    ----------
    value : float
        The largest finite value (nan when no pair has one).
    detector, representation : str or None
        The pair; None when ``value`` is nan or 0 (no pair stands out).

    See Also
    --------
    - [`WorstRates`][auditad.protocol.WorstRates]: every rate.
    """

    value: float
    detector: str | None
    representation: str | None

    @property
    def where(self) -> str | None:
        """``"iforest on resnet18"``, or None when no pair is named."""
        return None if self.detector is None else f"{self.detector} on {self.representation}"


@dataclass(frozen=True)
class WorstRates:
    """The largest value of each rate over (representation, detector) pairs, and who has it.

    A gate on ``protocol.worst.rho_dir`` thus fails when any pair is unstable, and names it. The flat dict of
    ``stats()`` and ``to_dict()`` has, for each rate ``name``, ``name`` (the value), ``name_detector``,
    ``name_representation`` and ``name_where``.

    See Also
    --------
    - [`DetectorAverage`][auditad.protocol.DetectorAverage]: the average instead of the largest value.
    - [`ProtocolResult.worst`][auditad.protocol.ProtocolResult.worst]: the flat dict.
    """

    rho_dir: WorstRate
    rho_inv: WorstRate
    rho_inv_sig: WorstRate
    rho_rnd: WorstRate
    sigma2_auc: WorstRate

    @classmethod
    def over(cls, pairs: Sequence[tuple]) -> "WorstRates":
        """The worst of ``pairs``, a sequence of ``(representation, detector, DetectorSummary)``.

        Ties go to the pair first in (representation, detector) name order, so the pair named never depends on
        the order in which representations or detectors were given.
        """
        pairs = sorted(pairs, key=lambda p: (str(p[0]), str(p[1])))
        out = {}
        for name in _stat_names(cls):
            v = np.array([getattr(s, name) for _, _, s in pairs], dtype=np.float64)
            if not np.isfinite(v).any():
                out[name] = WorstRate(float("nan"), None, None)
                continue
            i = int(np.nanargmax(v))
            rep, det, _ = pairs[i]
            if v[i] == 0:  # no pair stands out: name none
                rep = det = None
            out[name] = WorstRate(float(v[i]), det, rep)
        return cls(**out)

    def stats(self) -> dict:
        """Flat dict: ``name``, ``name_detector``, ``name_representation``, ``name_where`` per rate."""
        out = {}
        for name in _stat_names(self):
            w = getattr(self, name)
            out.update(
                {
                    name: w.value,
                    f"{name}_detector": w.detector,
                    f"{name}_representation": w.representation,
                    f"{name}_where": w.where,
                }
            )
        return out

    def to_dict(self) -> dict:
        """JSON-safe `stats` (nan -> None)."""
        return json_value(self.stats())


#: the rates a verdict reads, worst = largest: the fields of `WorstRates`.
RATE_NAMES = _stat_names(WorstRates)


@dataclass(frozen=True)
class ProtocolSummary:
    """The summaries of one representation of a class-split audit, at the three levels of "Testing the Test".

    Attributes
    ----------
    representation : str
    mean : DetectorAverage
        Each statistic averaged over the detectors (``summary.json``: ``protocol.mean``).
    worst : WorstRates
        The largest rate over the detectors and the detector that has it.
    ensemble : DetectorSummary
        The statistics of the detector-mean AUROC(c) (a separate detector, never a headline).
    detectors : dict of str -> DetectorSummary
        One per detector, in the order of ``detector_names``.

    See Also
    --------
    - [`ProtocolResult.summaries`][auditad.protocol.ProtocolResult.summaries]: one per representation.
    - [`DetectorSummary`][auditad.protocol.DetectorSummary]: the statistics of one detector.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection", §2–3.
    """

    representation: str = _detail()
    mean: DetectorAverage
    worst: WorstRates
    ensemble: DetectorSummary
    detectors: Mapping[str, DetectorSummary]

    def to_dict(self) -> dict:
        """JSON-safe dict of ``mean``, ``worst``, ``ensemble`` and ``detectors`` (the representation's part of
        ``ProtocolResult.to_dict()``)."""
        out = {}
        for name in _stat_names(self):
            value = getattr(self, name)
            out[name] = (
                {det: s.to_dict() for det, s in value.items()} if isinstance(value, Mapping) else value.to_dict()
            )
        return out

    def pairs(self) -> list:
        """``(representation, detector, DetectorSummary)`` of every detector (not the ensemble), in order."""
        return [(self.representation, det, s) for det, s in self.detectors.items()]
