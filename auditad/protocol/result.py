"""Result of the class-split protocol audit: per-task arrays, summaries computed once on demand.

[`ProtocolResult`][auditad.protocol.ProtocolResult] keeps the per-task numbers (AUROC, DeLong interval,
p-value, counts) as arrays indexed ``[representation, detector, class,
repeat]`` and derives every summary from them in one place,
[`ProtocolResult.summaries`][auditad.protocol.ProtocolResult.summaries] (typed objects,
[`ProtocolSummary`][auditad.protocol.ProtocolSummary], computed once):

* a detector's AUROC(c) is its mean over repeats ([`ProtocolResult.aurocs`][auditad.protocol.ProtocolResult.aurocs]),
and
  its rates (σ², ρ_rnd, ρ_inv, ρ_dir) are those of that vector: the instability is a
  property of each (representation, detector) pair;
* ``"mean"`` in ``to_dict()`` and ``summary.json`` is **the average of the
  per-detector rates** ([`ProtocolResult.detector_average`][auditad.protocol.ProtocolResult.detector_average]), as
  "Testing the
  Test" reports it, and ``"worst"`` the largest rate over the detectors with the
  detector that has it ([`ProtocolResult.worst`][auditad.protocol.ProtocolResult.worst]);
* ``"ensemble"`` is the detector-mean AUROC(c): for each class the average of the
  detectors' AUROC(c). It is a different detector (an ensemble), never a headline:
  averaging a detector at 0.005 with two at 1.0 hides the inversion.

Each class of each detector is also read with its test of AUROC = ½ (Mann–Whitney,
Holm-corrected over the classes): *significantly inverted*, *below ½ within noise*,
*near random* (|AUROC − ½| ≤ ε) or *above ½*.

References
----------
1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly
   Detection", §2.
2. E. R. DeLong, D. M. DeLong, D. L. Clarke-Pearson, "Comparing the areas
   under two or more correlated receiver operating characteristic curves:
   a nonparametric approach", Biometrics 44(3), 837–845, 1988.
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from .._validation import check_choice
from ..errors import InvalidInputError, UndefinedValueWarning
from ..findings import SIGNIFICANCE, SIGNIFICANTLY_INVERTED
from .decision import Confirmation, decide_classes
from .rates import InstabilityResult, SpearmanResult, instability_rates, json_value, spearman_correlation
from .summary import RATE_NAMES, SUMMARY_KEYS, DetectorAverage, DetectorSummary, ProtocolSummary, WorstRates

if TYPE_CHECKING:
    from .plan import SplitPlan

__all__ = ["ProtocolResult", "SUMMARY_KEYS", "ENSEMBLE", "MEAN", "RATE_NAMES", "SIGNIFICANCE"]

#: name of the detector-mean AUROC(c) (an ensemble of the detectors) in every table.
ENSEMBLE = "ensemble"
#: former name of `ENSEMBLE` (the string ``"mean"`` is still accepted as a detector name for it).
MEAN = ENSEMBLE
#: the statistics of a summary that are those of the AUROC vector (`InstabilityResult`), in summary order.
_VECTOR_STATS = tuple(name for name in SUMMARY_KEYS if name in {f.name for f in fields(InstabilityResult)})


def _nan_reduce(fn, a, axis):
    """``fn`` (np.nanmean, ...) without the all-nan RuntimeWarning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(a, axis=axis)


@dataclass(frozen=True, eq=False)
class ProtocolResult:
    """Result of [`audit_protocol`][auditad.protocol.audit_protocol].

    Arrays are indexed ``[representation, detector, class, repeat]`` in the
    order of `representation_names`, `detector_names`,
    `classes` and the repeats; skipped items are ``nan``. Summaries are
    computed on demand from these arrays.

    Attributes
    ----------
    protocol : str
        ``"leave_one_class_out"`` or ``"one_class"``.
    epsilon, confidence_level : float
        Near-random half-width ε and the confidence level of the per-class intervals (``ci_level`` is the
        former name of ``confidence_level``, a read-only alias).
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
    leakage_k : int or None
    settings : dict
        Protocol settings (train fraction, split, contamination, repeats, k,
        max_test_normals, seeds).
    detector_info : tuple of dict
        Name, kind, parameters and score sign of every detector.
    skipped : tuple of dict
        One entry per skipped (representation, detector, class, repeat) with the reason.
    n_neg_available : ndarray of shape (K, S), int, optional
        Test normals available per task before the ``max_test_normals``
        subsample (equal to ``n_neg`` where no subsample was drawn).
    plan : SplitPlan, optional
        The tasks as drawn ([`class_split_plan`][auditad.protocol.class_split_plan]) when the result was
        computed in this process (a saved result has none).

    See Also
    --------
    - [`audit_protocol`][auditad.protocol.audit_protocol]: computes it.
    - [`instability_rates`][auditad.protocol.instability_rates]: the statistics of one AUROC vector.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly
       Detection", §2.
    """

    protocol: str
    epsilon: float
    confidence_level: float
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
    settings: dict
    detector_info: tuple
    skipped: tuple = field(default=())
    n_neg_available: np.ndarray | None = None
    log10_p_value: np.ndarray | None = None
    plan: SplitPlan | None = field(default=None, repr=False)
    confirmation: Confirmation | None = None

    @property
    def ci_level(self) -> float:
        """Former name of `confidence_level` (read-only)."""
        return self.confidence_level

    # ----------------------------------------------------------------- one place for every vector
    def _index(self, representation, detector) -> tuple[int, int | None]:
        rep = self.representation_names[0] if representation is None else representation
        if rep not in self.representation_names:
            raise InvalidInputError(f"representation must be one of {list(self.representation_names)}, got {rep!r}")
        if detector in (ENSEMBLE, "mean") and detector not in self.detector_names:
            return self.representation_names.index(rep), None
        if detector not in self.detector_names:
            raise InvalidInputError(
                f"detector must be one of {list(self.detector_names) + [ENSEMBLE]}, got {detector!r}"
            )
        return self.representation_names.index(rep), self.detector_names.index(detector)

    def _per_repeat(self, r: int, d: int | None) -> np.ndarray:
        """(K, S) AUROC of one detector, or the detector mean of each (class, repeat)."""
        if d is not None:
            return self.auroc[r, d]
        return _nan_reduce(np.nanmean, self.auroc[r], 0)

    def aurocs(self, representation: str | None = None, detector: str = MEAN) -> np.ndarray:
        r"""AUROC(c) of one detector (mean over repeats), or the detector-mean AUROC(c).

        \[
        \mathrm{AUROC}_{mean}(c) = \frac{1}{|D_c|}\sum_{d\in D_c}\frac{1}{|S_{d,c}|}
        \sum_{s\in S_{d,c}}\mathrm{AUROC}_{d,s}(c)
        \]

        over the detectors \(D_c\) (and repeats \(S_{d,c}\)) evaluated on class c.
        """
        return self._aurocs(*self._index(representation, detector))

    def _aurocs(self, r: int, d: int | None) -> np.ndarray:
        if d is not None:
            return _nan_reduce(np.nanmean, self.auroc[r, d], 1)
        per_det = _nan_reduce(np.nanmean, self.auroc[r], 2)  # (D, K)
        return _nan_reduce(np.nanmean, per_det, 0)

    def rates(self, representation: str | None = None, detector: str = MEAN) -> InstabilityResult | None:
        """`instability_rates` of `aurocs` (None when no class could be evaluated)."""
        return self._rates_of(self.aurocs(representation, detector))

    def _rates_of(self, vals: np.ndarray) -> InstabilityResult | None:
        if not np.isfinite(vals).any():
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedValueWarning)
            return instability_rates(vals, epsilon=self.epsilon, classes=self.classes)

    def spearman(self, representation: str | None = None, detector: str = MEAN) -> SpearmanResult | None:
        """Spearman correlation of L_k(c) and `aurocs` over classes (None without leakage).

        The one of the summary: ``summaries[representation].detectors[detector].spearman`` (computed once).
        """
        r, d = self._index(representation, detector)
        summ = self.summaries[self.representation_names[r]]
        return (summ.ensemble if d is None else summ.detectors[self.detector_names[d]]).spearman

    @property
    def instability(self) -> dict:
        """``(representation, detector) -> InstabilityResult`` (``detector == "mean"``: detector-mean AUROC(c))."""
        return {
            (rep, det): self.rates(rep, det)
            for rep in self.representation_names
            for det in (*self.detector_names, MEAN)
        }

    def significance(self, representation: str | None = None, detector: str | None = None) -> dict:
        """The per-class decision of one detector: estimate, interval, two-sided test, Holm, status.

        Read by every table, section, finding and gate that says whether AUROC(c) differs from ½, so they all
        show the same numbers. With one draw per class (``repeats=1``) the estimate, interval and p-value are
        those of the draw ([`auroc_ci`][auditad.metrics.auroc_ci]: test-sample variance only); with several
        draws they are combined by Rubin's rules (test samples, detector seeds and splits). See
        ``auditad.protocol.decision.decide_classes`` for every key; ``category`` is one of
        ``auditad.protocol.decision.STATUSES`` (the readings of ``auditad.findings.SIGNIFICANCE``
        and *seed-sensitive*): *significantly inverted* when the estimate is below ½ and ``p_holm`` ≤ 1 −
        ``confidence_level``; *seed-sensitive* when draws fall on both sides of ½ and one of them is
        significant on its own; else *near random* when |estimate − ½| ≤ ε; else *below 1/2 within noise* or
        *above 1/2*.
        """
        r, d = self._index(representation, detector)
        if d is None:
            raise InvalidInputError(
                "significance() needs a detector: an average of detectors' AUROCs is not a "
                "Mann-Whitney statistic and has no test"
            )
        return self._decisions[r, d]

    @cached_property
    def _decisions(self) -> dict:
        """``(r, d) -> decide_classes(...)`` of every (representation, detector), computed once."""
        lp = np.log10(np.maximum(self.p_value, 1e-300)) if self.log10_p_value is None else self.log10_p_value
        draws = [self.auroc, self.ci_low, self.ci_high, self.p_value, lp]
        conf = self.confirmation
        if conf is not None:  # the confirmatory draws of the candidates, after the audit's own
            extra = (conf.auroc, conf.ci_low, conf.ci_high, conf.p_value, conf.log10_p_value)
            draws = [np.concatenate([a, b], axis=3) for a, b in zip(draws, extra)]
        out = {}
        for r in range(len(self.representation_names)):
            for d in range(len(self.detector_names)):
                out[r, d] = decide_classes(
                    *(x[r, d] for x in draws), confidence_level=self.confidence_level, epsilon=self.epsilon
                )
        return out

    def detector_average(self, representation: str | None = None) -> dict:
        """Each per-detector summary statistic averaged over the detectors (finite values only).

        This is the ``mean`` of ``to_dict()`` and ``summary.json``: e.g. ``detector_average()["rho_inv"]`` is
        the average of the detectors' inversion rates ("Testing the Test" averages the rates over its three
        detectors), the share of inverted (class, detector) pairs when every detector was evaluated on every
        class. It is not a statistic of the `ENSEMBLE` AUROC(c), which can cancel opposite detectors. The
        typed object is ``summaries[representation].mean`` ([`DetectorAverage`][auditad.protocol.DetectorAverage]).
        """
        rep = self.representation_names[self._index(representation, ENSEMBLE)[0]]
        return self.summaries[rep].mean.stats()

    #: former name of `detector_average`.
    mean_of_detectors = detector_average

    def worst(self, representation: str | None = None) -> dict:
        """The largest value of each rate of `RATE_NAMES` over the detectors, and who has it.

        With ``representation=None`` the maximum runs over every (representation, detector) pair. For each rate
        ``name``: ``name`` (the value), ``name_detector`` and ``name_representation`` (the first pair that has
        it) and ``name_where`` (``"iforest on resnet18"``). A default gate on ``protocol.worst.rho_dir`` thus
        fails when any pair is unstable, and names it. The typed objects are ``summaries[representation].worst``
        and [`overall_worst`][auditad.protocol.ProtocolResult.overall_worst]
        ([`WorstRates`][auditad.protocol.WorstRates]).
        """
        if representation is None:
            return self.overall_worst.stats()
        rep = self.representation_names[self._index(representation, ENSEMBLE)[0]]
        return self.summaries[rep].worst.stats()

    def subset(self, classes) -> "ProtocolResult":
        """The result restricted to the tasks of ``classes`` (in the given order), every array sliced alike.

        Used for the semi-supervised setting of anomaly-labelled data: the one-class protocol on the labels
        {normal, anomaly} gives the task "normal" (fit on a split of the normals, score the held-out normals
        and every anomaly) and a task "anomaly" that is no evaluation; ``subset(["normal"])`` keeps the first.
        """
        wanted = list(classes)
        have = [c.item() if hasattr(c, "item") else c for c in self.classes]
        missing = [c for c in wanted if c not in have]
        if missing or not wanted:
            raise InvalidInputError(f"classes must be a non-empty subset of {have}, got {wanted!r}")
        idx = np.array([have.index(c) for c in wanted])
        keep = set(wanted)
        return replace(
            self,
            classes=self.classes[idx],
            auroc=self.auroc[:, :, idx],
            ci_low=self.ci_low[:, :, idx],
            ci_high=self.ci_high[:, :, idx],
            p_value=self.p_value[:, :, idx],
            n_pos=self.n_pos[idx],
            n_neg=self.n_neg[idx],
            class_leakage=self.class_leakage[:, idx],
            skipped=tuple(s for s in self.skipped if s.get("class") in keep),
            n_neg_available=None if self.n_neg_available is None else self.n_neg_available[idx],
            log10_p_value=None if self.log10_p_value is None else self.log10_p_value[:, :, idx],
            confirmation=None if self.confirmation is None else self.confirmation.take(idx),
        )

    # ----------------------------------------------------------------- summaries
    @cached_property
    def summaries(self) -> dict:
        """``representation -> ProtocolSummary``: every summary statistic, computed once.

        Each [`ProtocolSummary`][auditad.protocol.ProtocolSummary] holds the
        [`DetectorSummary`][auditad.protocol.DetectorSummary] of every detector (``detectors[name]``), their
        average (``mean``), the largest rate over them (``worst``) and the statistics of the detector-mean
        AUROC(c) (``ensemble``). `summary`, `detector_average`, `worst`, `to_frame` and `to_dict` read these
        objects.
        """
        out = {}
        for r, rep in enumerate(self.representation_names):
            dets = {name: self._detector_summary(r, d) for d, name in enumerate(self.detector_names)}
            out[rep] = ProtocolSummary(
                representation=rep,
                mean=DetectorAverage.over(list(dets.values())),
                worst=WorstRates.over([(rep, name, s) for name, s in dets.items()]),
                ensemble=self._detector_summary(r, None),
                detectors=dets,
            )
        return out

    @cached_property
    def overall_worst(self) -> WorstRates:
        """The largest value of each rate over every (representation, detector) pair (``summary.json``:
        ``protocol.worst``)."""
        return WorstRates.over([pair for summ in self.summaries.values() for pair in summ.pairs()])

    def _detector_summary(self, r: int, d: int | None) -> DetectorSummary:
        """The statistics of detector ``d`` (None: the detector-mean AUROC(c)) on representation ``r``."""
        rep = self.representation_names[r]
        detector = ENSEMBLE if d is None else self.detector_names[d]
        nan = float("nan")
        S = self.auroc.shape[3]
        vals = self._aurocs(r, d)
        fin = np.isfinite(vals)
        inst = self._rates_of(vals)
        stats = inst.stats() if inst is not None else {}
        row = {key: stats.get(key, 0 if key == "n_classes" else nan) for key in _VECTOR_STATS}
        if d is None:  # no test of AUROC = 1/2 for an average of detectors
            row.update(rho_inv_sig=nan, n_inv_sig=0, rho_nonsig=nan)
        else:
            sig = self.significance(rep, detector)
            n_sig = int(np.sum(sig["category"][fin] == SIGNIFICANTLY_INVERTED))
            row.update(
                rho_inv_sig=n_sig / int(fin.sum()) if fin.any() else nan,
                n_inv_sig=n_sig,
                rho_nonsig=float(np.mean(sig["p_value"][fin] >= 1.0 - self.confidence_level)) if fin.any() else nan,
            )
        per_rep = self._per_repeat(r, d)
        split = [self._rates_of(per_rep[:, s]) for s in range(S)]
        for key in ("rho_rnd", "rho_inv", "rho_dir"):
            row[f"{key}_split_std"] = (
                float(np.std([getattr(x, key) for x in split])) if S > 1 and all(x is not None for x in split) else nan
            )
        std_c = _nan_reduce(np.nanstd, per_rep, 1)
        row["auroc_split_std"] = float(np.mean(std_c[fin])) if fin.any() and S > 1 else nan
        sp = None
        if self.leakage_k is not None:
            sp = spearman_correlation(self.class_leakage[r], vals, names=("L_k(c)", "AUROC(c)"), warn=False)
        row["spearman_leakage_auroc"] = sp.statistic if sp is not None else nan
        return DetectorSummary(**row, spearman=sp)

    def summary(self, representation: str | None = None, detector: str = MEAN) -> dict:
        """The summary row of one (representation, detector); ``detector="mean"`` is the detector-mean AUROC(c).

        A flat dict of the typed [`DetectorSummary`][auditad.protocol.DetectorSummary] in `summaries` (its
        statistics and Spearman evidence) with the representation, detector, protocol, ε, repeats and leakage.
        """
        r, d = self._index(representation, detector)
        rep = self.representation_names[r]
        summ = self.summaries[rep]
        s = summ.ensemble if d is None else summ.detectors[self.detector_names[d]]
        return {
            "representation": rep,
            "detector": detector,
            "protocol": self.protocol,
            "epsilon": self.epsilon,
            "n_repeats": self.auroc.shape[3],
            **s.stats(),
            **s.spearman_evidence(),
            "leakage_k": self.leakage_k,
            "leakage_L_k": float(self.leakage_L_k[r]),
        }

    @cached_property
    def summary_rows(self) -> tuple:
        """Rows of ``to_frame("summary")``: per representation, each detector then ``mean``."""
        return tuple(
            self.summary(rep, det) for rep in self.representation_names for det in (*self.detector_names, MEAN)
        )

    def _class_counts(self):
        K = self.classes.size
        first_ok = np.argmax(self.n_pos > 0, axis=1)
        return self.n_pos[np.arange(K), first_ok], self.n_neg[np.arange(K), first_ok]

    def per_class(self, representation: str | None = None, detector: str = MEAN) -> list[dict]:
        """Per-class rows of one (representation, detector) (see `to_frame`)."""
        r, d = self._index(representation, detector)
        rep = self.representation_names[r]
        nan = float("nan")
        npos, nneg = self._class_counts()
        per_rep = self._per_repeat(r, d)
        S = per_rep.shape[1]
        vals = self.aurocs(rep, detector)
        std_c = _nan_reduce(np.nanstd, per_rep, 1)
        min_c = _nan_reduce(np.nanmin, per_rep, 1)
        max_c = _nan_reduce(np.nanmax, per_rep, 1)
        if d is None:
            empty = np.full(vals.size, nan)
            sig = {key: empty for key in ("estimate", "ci_low", "ci_high", "p_value", "log10_p_value", "p_holm")}
            sig.update({key: empty for key in ("within_var", "between_var")})
            sig.update({key: np.full(vals.size, "", dtype=object) for key in ("category", "p_method", "dominant")})
            sig.update(sources=np.full(vals.size, "", dtype=object), distinguishable=np.zeros(vals.size, bool))
            n_ok = np.isfinite(self.auroc[r]).sum(axis=2).min(axis=0)
        else:
            sig = self.significance(rep, detector)
            n_ok = np.isfinite(self.auroc[r, d]).sum(axis=1)
        inst = self.rates(rep, detector)
        rows = []
        for c in range(self.classes.size):
            rows.append(
                {
                    "representation": rep,
                    "detector": detector,
                    "class": self.classes[c].item(),
                    "n_pos": int(npos[c]),
                    "n_neg": int(nneg[c]),
                    "auroc": float(vals[c]),
                    "auroc_split_std": float(std_c[c]) if S > 1 else nan,
                    "auroc_split_min": float(min_c[c]),
                    "auroc_split_max": float(max_c[c]),
                    "estimate": float(sig["estimate"][c]),
                    "ci_low": float(sig["ci_low"][c]),
                    "ci_high": float(sig["ci_high"][c]),
                    "p_value": float(sig["p_value"][c]),
                    "log10_p_value": float(sig["log10_p_value"][c]),
                    "p_method": str(sig["p_method"][c]),
                    "p_holm": float(sig["p_holm"][c]),
                    "significance": str(sig["category"][c]),
                    "distinguishable": bool(sig["distinguishable"][c]),
                    "variance_test_samples": float(sig["within_var"][c]),
                    "variance_seeds_splits": float(sig["between_var"][c]),
                    "dominant_source": str(sig["dominant"][c]),
                    "interval_covers": str(sig["sources"][c]),
                    "n_repeats_ok": int(n_ok[c]),
                    "direction": int(inst.directions[c]) if inst is not None else 0,
                    "near_random": bool(inst.near_random[c]) if inst is not None else False,
                    "inverted": bool(inst.inverted[c]) if inst is not None else False,
                    "leakage": float(self.class_leakage[r, c]),
                }
            )
        return rows

    @cached_property
    def per_class_rows(self) -> tuple:
        """Rows of ``to_frame("per_class")``: per representation, each detector then ``mean``, per class."""
        return tuple(
            row
            for rep in self.representation_names
            for det in (*self.detector_names, MEAN)
            for row in self.per_class(rep, det)
        )

    @property
    def test_normals_subsampled(self) -> bool:
        """Whether ``max_test_normals`` subsampled the test normals of at least one task."""
        return self.n_neg_available is not None and bool(np.any(self.n_neg_available > self.n_neg))

    # ----------------------------------------------------------------- export
    def to_frame(self, table: str = "per_class"):
        """Tidy `pandas.DataFrame`.

        Parameters
        ----------
        table : {"per_class", "summary", "per_repeat"}
            ``per_class``: one row per (representation, detector, class) with the
            repeat-averaged AUROC, its split-to-split std/min/max, the per-class
            decision (`significance`: the estimate, its interval and two-sided p-value,
            combined over the repeats by Rubin's rules when there are several, Holm's
            p, the status, the two variance components and which dominates, what the
            interval covers), n_pos, n_neg, direction, near_random, inverted and
            the class leakage; ``detector == "mean"`` rows hold the detector-mean
            AUROC(c) and its direction. ``summary``: one row per (representation,
            detector) and a ``mean`` row per representation, with the Spearman
            correlation's pair count, distinct values and reason. ``per_repeat``:
            every single task (``n_neg_available``: test normals before the
            ``max_test_normals`` subsample).
        """
        import pandas as pd

        check_choice(table, ("per_class", "summary", "per_repeat"), name="table")
        if table == "summary":
            return pd.DataFrame(list(self.summary_rows))
        if table == "per_class":
            return pd.DataFrame(list(self.per_class_rows))
        rows = []
        R, D, K, S = self.auroc.shape
        avail = self.n_neg if self.n_neg_available is None else self.n_neg_available
        for r, d, c, s in itertools.product(range(R), range(D), range(K), range(S)):
            rows.append(
                {
                    "representation": self.representation_names[r],
                    "detector": self.detector_names[d],
                    "class": self.classes[c].item(),
                    "repeat": s,
                    "n_pos": int(self.n_pos[c, s]),
                    "n_neg": int(self.n_neg[c, s]),
                    "n_neg_available": int(avail[c, s]),
                    "auroc": self.auroc[r, d, c, s],
                    "ci_low": self.ci_low[r, d, c, s],
                    "ci_high": self.ci_high[r, d, c, s],
                    "p_value": self.p_value[r, d, c, s],
                }
            )
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """JSON-safe dict.

        Three levels, as "Testing the Test" reports them: ``to_dict()["mean"]`` is the
        average of the per-detector rates of the representation ``to_dict()["representation"]``
        ([`headline_representation`][auditad.protocol.ProtocolResult.headline_representation]: the lowest
        detector-average AUROC, never the first given) (keys ``rho_rnd``,
        ``rho_inv``, ``rho_dir``, ``rho_inv_sig``, ``sigma2_auc``, ...);
        ``to_dict()["worst"]`` the largest rate over every (representation, detector)
        pair with the pair that has it (``rho_dir_where``), so the default gate
        ``protocol.worst.rho_dir <= 0.2`` fails when any pair is unstable; and
        ``to_dict()["ensemble"]`` the statistics of the detector-mean AUROC(c). Every
        representation is under ``to_dict()["representations"][name]`` with its
        ``mean``, ``worst``, ``ensemble``, per-detector ``detectors[name]`` summaries,
        ``leakage`` (with the Spearman evidence per detector and for the ensemble:
        pairs, distinct values, reason) and ``per_class`` rows. ``detectors`` records
        each detector's sign rule.
        """
        reps = {}
        for r, rep in enumerate(self.representation_names):
            summ = self.summaries[rep]
            leak = None
            if self.leakage_k is not None:
                leak = {
                    "k": int(self.leakage_k),
                    "L_k": json_value(self.leakage_L_k[r]),
                    "per_class": [
                        {"class": json_value(c.item()), "L_k": json_value(v)}
                        for c, v in zip(self.classes, self.class_leakage[r])
                    ],
                    "spearman": {
                        **{det: s.spearman.to_dict() for det, s in summ.detectors.items()},
                        MEAN: summ.ensemble.spearman.to_dict(),
                    },
                }
            reps[rep] = {
                **summ.to_dict(),  # mean, worst, ensemble, detectors
                "leakage": leak,
                "per_class": [json_value(row) for row in self.per_class_rows if row["representation"] == rep],
            }
        first = self.headline_representation
        return {
            "protocol": self.protocol,
            "epsilon": self.epsilon,
            "ci_level": self.confidence_level,
            "settings": json_value(self.settings),
            "classes": json_value([c.item() for c in self.classes]),
            "detectors": json_value(list(self.detector_info)),
            "representation_names": list(self.representation_names),
            "representation": first,
            "mean": reps[first]["mean"],
            "worst": self.overall_worst.to_dict(),
            "ensemble": reps[first]["ensemble"],
            "representations": reps,
            "confirmation": None if self.confirmation is None else self.confirmation.to_dict(),
            "skipped": json_value(list(self.skipped)),
        }

    @property
    def headline_representation(self) -> str:
        """The representation the top-level ``mean`` and ``ensemble`` of `to_dict` describe: the one whose
        detector-average AUROC is lowest (the hardest; ties to the first name in sorted order).

        Defined by the results, never by the order in which representations were given, so that a summary,
        its gates and a diff do not change when the inputs are listed in another order.
        """

        def key(rep):
            auc = self.summaries[rep].mean.stats().get("mean_auc")
            auc = float(auc) if auc is not None and np.isfinite(auc) else np.inf
            return (auc, str(rep))

        return min(self.representation_names, key=key)

    def _repr_html_(self) -> str:
        """Notebook display: per (representation, detector) the rates, the average and worst pair, and the
        significantly inverted classes named (labels escaped)."""
        from .._format import html_block, html_table, stat, svg_bars

        rows = [
            {
                "representation": r["representation"],
                "detector": r["detector"],
                "mean AUROC": r["mean_auc"],
                "ρ_rnd": r["rho_rnd"],
                "ρ_inv": r["rho_inv"],
                "ρ_inv sig.": r["rho_inv_sig"],
                "ρ_dir": r["rho_dir"],
            }
            for r in self.summary_rows
        ]
        table = html_table(
            rows,
            kinds={k: "stat" for k in ("mean AUROC", "ρ_rnd", "ρ_inv", "ρ_inv sig.", "ρ_dir")},
            caption="per (representation, detector); ensemble = the detector-mean AUROC(c)",
        )
        rep = self.representation_names[0]
        worst = self.worst()
        det = worst.get("rho_inv_detector") or self.detector_names[0]
        vals = self.aurocs(rep, det)
        bars = svg_bars(
            [str(c.item() if hasattr(c, "item") else c) for c in self.classes],
            vals,
            title=f"AUROC(c) of {det} on {rep}",
            reference=0.5,
            vmax=1.0,
        )
        inverted = [
            f"{row['detector']} on {row['representation']}: class {row['class']} {stat(row['auroc'])}"
            for row in self.per_class_rows
            if row.get("significance") == "significantly inverted"
        ]
        avg = self.detector_average()
        note = (
            (
                "significantly inverted (Holm-corrected): "
                + "; ".join(inverted[:10])
                + (f" and {len(inverted) - 10} more" if len(inverted) > 10 else "")
            )
            if inverted
            else "no class is significantly inverted by any detector"
        )
        return html_block(
            f"Class-split protocol ({self.protocol}, ε = {self.epsilon:g}): average of the per-detector "
            f"rates ρ_inv = {stat(avg['rho_inv'])}, ρ_dir = {stat(avg['rho_dir'])}; worst pair "
            f"ρ_dir = {stat(worst['rho_dir'])}"
            + (f" ({worst['rho_dir_where']})" if worst.get("rho_dir_where") else ""),
            table,
            bars,
            note=note,
        )

    def summary_text(self) -> str:
        """Plain-text summary table (3 decimals, "–" where undefined) for the CLI."""
        from .._format import stat, text_table

        head = (
            f"Class-split protocol audit ({self.protocol}), epsilon = {self.epsilon:g}, "
            f"{len(self.classes)} classes, {self.settings['repeats']} repeat(s)"
        )
        cols = (
            "representation",
            "detector",
            "mean_auc",
            "sigma2_auc",
            "range_auc",
            "rho_rnd",
            "rho_inv",
            "rho_dir",
            "rho_nonsig",
            "spearman_leakage_auroc",
        )
        short = {"spearman_leakage_auroc": "rho_s(L,AUC)"}
        table = [[short.get(c, c) for c in cols]]
        for row in self.summary_rows:
            table.append([str(row[c]) if isinstance(row[c], str) else stat(row[c], target="text") for c in cols])
        lines = [head, text_table(table, align="llr")]
        lines.append("ensemble = statistics of the detector-mean AUROC(c) (not a headline: it can cancel detectors)")
        avg, worst = self.detector_average(), self.worst()
        lines.append(
            "average of the per-detector rates: "
            + ", ".join(f"{k} {stat(avg[k], target='text')}" for k in ("rho_rnd", "rho_inv", "rho_dir", "rho_inv_sig"))
        )
        lines.append(
            "worst pair: "
            + ", ".join(
                f"{k} {stat(worst[k], target='text')} ({worst[k + '_where']})"
                for k in ("rho_inv", "rho_dir")
                if worst[k + "_where"]
            )
        )
        if self.leakage_k is not None:
            lines.append(
                "leakage L_k (k = %d): " % self.leakage_k
                + ", ".join(f"{rep} {v:.3f}" for rep, v in zip(self.representation_names, self.leakage_L_k))
            )
        if self.test_normals_subsampled:
            lines.append(
                f"test normals subsampled to max_test_normals = {self.settings.get('max_test_normals')} per task"
            )
        if self.skipped:
            lines.append(f"{len(self.skipped)} task(s) skipped (see skipped in the JSON output)")
        return "\n".join(lines)
