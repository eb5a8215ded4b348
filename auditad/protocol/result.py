"""Result of the class-split protocol audit: per-task arrays, summaries computed on demand.

:class:`ProtocolResult` keeps the per-task numbers (AUROC, DeLong interval,
p-value, counts) as arrays indexed ``[representation, detector, class,
repeat]`` and derives every summary from them in one place:

* a detector's AUROC(c) is its mean over repeats (:meth:`ProtocolResult.aurocs`);
* ``"mean"`` is **the detector-mean AUROC(c)**: for each class the average of the
  detectors' AUROC(c) (over the detectors evaluated on that class). Every
  output named ``mean`` — the summary row and ``to_dict()["mean"]``, the
  per-class ``mean`` rows, the heatmap's mean column, ``instability[(rep,
  "mean")]`` and its Spearman correlation — is a statistic of that one vector
  (:meth:`ProtocolResult.rates`);
* :meth:`ProtocolResult.mean_of_detectors` is the other, differently named
  average: each per-detector summary statistic averaged over the detectors.

References
----------
1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly
   Detection", §2.
2. E. R. DeLong, D. M. DeLong, D. L. Clarke-Pearson, "Comparing the areas
   under two or more correlated receiver operating characteristic curves:
   a nonparametric approach", Biometrics 44(3), 837–845, 1988.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .._validation import check_choice
from ..errors import InvalidInputError, UndefinedValueWarning
from .rates import InstabilityResult, SpearmanResult, instability_rates, json_value, spearman_correlation

__all__ = ["ProtocolResult", "SUMMARY_KEYS", "MEAN"]

#: name of the detector-mean AUROC(c) in every table.
MEAN = "mean"

#: keys of a summary row that ``to_dict()`` reports per representation and detector.
SUMMARY_KEYS = ("n_classes", "mean_auc", "sigma2_auc", "std_auc", "min_auc", "max_auc", "range_auc",
                "rho_rnd", "rho_inv", "rho_dir", "rho_nonsig", "rho_rnd_split_std", "rho_inv_split_std",
                "rho_dir_split_std", "auroc_split_std", "spearman_leakage_auroc")
_RATE_KEYS = ("n_classes", "mean_auc", "sigma2_auc", "std_auc", "min_auc", "max_auc", "range_auc",
              "rho_rnd", "rho_inv", "rho_dir")


def _nan_reduce(fn, a, axis):
    """``fn`` (np.nanmean, ...) without the all-nan RuntimeWarning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(a, axis=axis)


@dataclass(frozen=True, eq=False)
class ProtocolResult:
    """Result of :func:`~auditad.protocol.audit_protocol`.

    Arrays are indexed ``[representation, detector, class, repeat]`` in the
    order of :attr:`representation_names`, :attr:`detector_names`,
    :attr:`classes` and the repeats; skipped items are ``nan``. Summaries are
    computed on demand from these arrays.

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

    See Also
    --------
    audit_protocol : computes it.
    instability_rates : the statistics of one AUROC vector.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly
       Detection", §2.
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
    settings: dict
    detector_info: tuple
    skipped: tuple = field(default=())
    n_neg_available: np.ndarray | None = None

    # ----------------------------------------------------------------- one place for every vector
    def _index(self, representation, detector) -> tuple[int, int | None]:
        rep = self.representation_names[0] if representation is None else representation
        if rep not in self.representation_names:
            raise InvalidInputError(f"representation must be one of {list(self.representation_names)}, got {rep!r}")
        if detector == MEAN:
            return self.representation_names.index(rep), None
        if detector not in self.detector_names:
            raise InvalidInputError(f"detector must be one of {list(self.detector_names) + [MEAN]}, got {detector!r}")
        return self.representation_names.index(rep), self.detector_names.index(detector)

    def _per_repeat(self, r: int, d: int | None) -> np.ndarray:
        """(K, S) AUROC of one detector, or the detector mean of each (class, repeat)."""
        if d is not None:
            return self.auroc[r, d]
        return _nan_reduce(np.nanmean, self.auroc[r], 0)

    def aurocs(self, representation: str | None = None, detector: str = MEAN) -> np.ndarray:
        r"""AUROC(c) of one detector (mean over repeats), or the detector-mean AUROC(c).

        .. math:: \mathrm{AUROC}_{mean}(c) = \frac{1}{|D_c|}\sum_{d\in D_c}\frac{1}{|S_{d,c}|}
                  \sum_{s\in S_{d,c}}\mathrm{AUROC}_{d,s}(c)

        over the detectors :math:`D_c` (and repeats :math:`S_{d,c}`) evaluated on class c.
        """
        r, d = self._index(representation, detector)
        if d is not None:
            return _nan_reduce(np.nanmean, self.auroc[r, d], 1)
        per_det = _nan_reduce(np.nanmean, self.auroc[r], 2)  # (D, K)
        return _nan_reduce(np.nanmean, per_det, 0)

    def rates(self, representation: str | None = None, detector: str = MEAN) -> InstabilityResult | None:
        """:func:`instability_rates` of :meth:`aurocs` (None when no class could be evaluated)."""
        vals = self.aurocs(representation, detector)
        if not np.isfinite(vals).any():
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedValueWarning)
            return instability_rates(vals, epsilon=self.epsilon, classes=self.classes)

    def spearman(self, representation: str | None = None, detector: str = MEAN) -> SpearmanResult | None:
        """Spearman correlation of L_k(c) and :meth:`aurocs` over classes (None without leakage)."""
        if self.leakage_k is None:
            return None
        r, _ = self._index(representation, detector)
        return spearman_correlation(self.class_leakage[r], self.aurocs(representation, detector),
                                    names=("L_k(c)", "AUROC(c)"), warn=False)

    @property
    def instability(self) -> dict:
        """``(representation, detector) -> InstabilityResult`` (``detector == "mean"``: detector-mean AUROC(c))."""
        return {(rep, det): self.rates(rep, det) for rep in self.representation_names
                for det in (*self.detector_names, MEAN)}

    def mean_of_detectors(self, representation: str | None = None) -> dict:
        """Each per-detector summary statistic averaged over the detectors (finite values only).

        Not the ``mean`` of the tables (that is the statistic of the detector-mean
        AUROC(c)): e.g. ``mean_of_detectors()["rho_inv"]`` is the average of the
        detectors' inversion rates, the share of inverted (class, detector)
        pairs when every detector was evaluated on every class.
        """
        rows = [self.summary(representation, det) for det in self.detector_names]
        out = {}
        for key in SUMMARY_KEYS:
            vals = np.array([row[key] for row in rows], dtype=np.float64)
            out[key] = float(np.mean(vals[np.isfinite(vals)])) if np.isfinite(vals).any() else float("nan")
        return out

    # ----------------------------------------------------------------- summaries
    def summary(self, representation: str | None = None, detector: str = MEAN) -> dict:
        """The summary row of one (representation, detector); ``detector="mean"`` is the detector-mean AUROC(c)."""
        r, d = self._index(representation, detector)
        rep = self.representation_names[r]
        nan = float("nan")
        S = self.auroc.shape[3]
        inst = self.rates(rep, detector)
        row = {"representation": rep, "detector": detector, "protocol": self.protocol, "epsilon": self.epsilon,
               "n_repeats": S}
        stats = inst.stats() if inst is not None else {}
        for key in _RATE_KEYS:
            row[key] = stats.get(key, 0 if key == "n_classes" else nan)
        vals = self.aurocs(rep, detector)
        fin = np.isfinite(vals)
        if d is None:  # no test of AUROC = 1/2 for an average of detectors
            row["rho_nonsig"] = nan
        else:
            p_c = _nan_reduce(np.nanmax, self.p_value[r, d], 1)
            row["rho_nonsig"] = float(np.mean(p_c[fin] >= 1.0 - self.ci_level)) if fin.any() else nan
        per_rep = self._per_repeat(r, d)
        split = []
        for s in range(S):
            v = per_rep[:, s]
            if np.isfinite(v).any():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UndefinedValueWarning)
                    split.append(instability_rates(v, epsilon=self.epsilon, classes=self.classes))
        for key in ("rho_rnd", "rho_inv", "rho_dir"):
            row[f"{key}_split_std"] = (float(np.std([getattr(x, key) for x in split]))
                                       if len(split) == S and S > 1 else nan)
        std_c = _nan_reduce(np.nanstd, per_rep, 1)
        row["auroc_split_std"] = float(np.mean(std_c[fin])) if fin.any() and S > 1 else nan
        sp = self.spearman(rep, detector)
        row["spearman_leakage_auroc"] = sp.statistic if sp is not None else nan
        row["spearman_n_pairs"] = sp.n_pairs if sp is not None else 0
        row["spearman_n_distinct_leakage"] = sp.n_distinct_x if sp is not None else 0
        row["spearman_n_distinct_auroc"] = sp.n_distinct_y if sp is not None else 0
        row["spearman_reason"] = (sp.reason if sp is not None else "no leakage (leakage_k=None)")
        row["leakage_k"] = self.leakage_k
        row["leakage_L_k"] = float(self.leakage_L_k[r])
        return row

    @cached_property
    def summary_rows(self) -> tuple:
        """Rows of ``to_frame("summary")``: per representation, each detector then ``mean``."""
        return tuple(self.summary(rep, det) for rep in self.representation_names
                     for det in (*self.detector_names, MEAN))

    def _class_counts(self):
        K = self.classes.size
        first_ok = np.argmax(self.n_pos > 0, axis=1)
        return self.n_pos[np.arange(K), first_ok], self.n_neg[np.arange(K), first_ok]

    def per_class(self, representation: str | None = None, detector: str = MEAN) -> list[dict]:
        """Per-class rows of one (representation, detector) (see :meth:`to_frame`)."""
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
            lo = hi = p = np.full(vals.size, nan)
            n_ok = np.isfinite(self.auroc[r]).sum(axis=2).min(axis=0)
        else:
            lo = _nan_reduce(np.nanmin, self.ci_low[r, d], 1)
            hi = _nan_reduce(np.nanmax, self.ci_high[r, d], 1)
            p = _nan_reduce(np.nanmax, self.p_value[r, d], 1)
            n_ok = np.isfinite(self.auroc[r, d]).sum(axis=1)
        inst = self.rates(rep, detector)
        rows = []
        for c in range(self.classes.size):
            rows.append({
                "representation": rep, "detector": detector, "class": self.classes[c].item(),
                "n_pos": int(npos[c]), "n_neg": int(nneg[c]), "auroc": float(vals[c]),
                "auroc_split_std": float(std_c[c]) if S > 1 else nan,
                "auroc_split_min": float(min_c[c]), "auroc_split_max": float(max_c[c]),
                "ci_low": float(lo[c]), "ci_high": float(hi[c]), "p_value": float(p[c]),
                "n_repeats_ok": int(n_ok[c]),
                "direction": int(inst.directions[c]) if inst is not None else 0,
                "near_random": bool(inst.near_random[c]) if inst is not None else False,
                "inverted": bool(inst.inverted[c]) if inst is not None else False,
                "leakage": float(self.class_leakage[r, c]),
            })
        return rows

    @cached_property
    def per_class_rows(self) -> tuple:
        """Rows of ``to_frame("per_class")``: per representation, each detector then ``mean``, per class."""
        return tuple(row for rep in self.representation_names for det in (*self.detector_names, MEAN)
                     for row in self.per_class(rep, det))

    @property
    def test_normals_subsampled(self) -> bool:
        """Whether ``max_test_normals`` subsampled the test normals of at least one task."""
        return self.n_neg_available is not None and bool(np.any(self.n_neg_available > self.n_neg))

    # ----------------------------------------------------------------- export
    def to_frame(self, table: str = "per_class"):
        """Tidy :class:`pandas.DataFrame`.

        Parameters
        ----------
        table : {"per_class", "summary", "per_repeat"}
            ``per_class``: one row per (representation, detector, class) with the
            repeat-averaged AUROC, its split-to-split std/min/max, the interval and
            p-value (envelope over repeats: lowest ``ci_low``, highest ``ci_high``,
            largest p-value), n_pos, n_neg, direction, near_random, inverted and
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
        for r in range(R):
            for d in range(D):
                for c in range(K):
                    for s in range(S):
                        rows.append({
                            "representation": self.representation_names[r], "detector": self.detector_names[d],
                            "class": self.classes[c].item(), "repeat": s,
                            "n_pos": int(self.n_pos[c, s]), "n_neg": int(self.n_neg[c, s]),
                            "n_neg_available": int(avail[c, s]),
                            "auroc": self.auroc[r, d, c, s], "ci_low": self.ci_low[r, d, c, s],
                            "ci_high": self.ci_high[r, d, c, s], "p_value": self.p_value[r, d, c, s],
                        })
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """JSON-safe dict.

        ``to_dict()["mean"]`` holds the statistics of the detector-mean AUROC(c) of
        the first representation (keys ``rho_rnd``, ``rho_inv``, ``rho_dir``,
        ``sigma2_auc``, ...), so a gate such as ``protocol.mean.rho_dir <= 0.2``
        can read it; every representation is under
        ``to_dict()["representations"][name]`` with its ``mean``, per-detector
        ``detectors[name]`` summaries, ``leakage`` (with the Spearman evidence
        per detector and for ``mean``: pairs, distinct values, reason) and
        ``per_class`` rows. ``detectors`` records each detector's sign rule.
        """
        reps = {}
        rows = {(row["representation"], row["detector"]): row for row in self.summary_rows}
        for r, rep in enumerate(self.representation_names):
            dets = {det: json_value({k: rows[(rep, det)][k] for k in SUMMARY_KEYS}) for det in self.detector_names}
            leak = None
            if self.leakage_k is not None:
                leak = {"k": int(self.leakage_k), "L_k": json_value(self.leakage_L_k[r]),
                        "per_class": [{"class": json_value(c.item()), "L_k": json_value(v)}
                                      for c, v in zip(self.classes, self.class_leakage[r])],
                        "spearman": {det: self.spearman(rep, det).to_dict()
                                     for det in (*self.detector_names, MEAN)}}
            reps[rep] = {
                "mean": json_value({k: rows[(rep, MEAN)][k] for k in SUMMARY_KEYS}),
                "detectors": dets,
                "leakage": leak,
                "per_class": [json_value(row) for row in self.per_class_rows if row["representation"] == rep],
            }
        first = self.representation_names[0]
        return {
            "protocol": self.protocol,
            "epsilon": self.epsilon,
            "ci_level": self.ci_level,
            "settings": json_value(self.settings),
            "classes": json_value([c.item() for c in self.classes]),
            "detectors": json_value(list(self.detector_info)),
            "representation_names": list(self.representation_names),
            "mean": reps[first]["mean"],
            "representations": reps,
            "skipped": json_value(list(self.skipped)),
        }

    def summary_text(self) -> str:
        """Plain-text summary table (3 decimals, "–" where undefined) for the CLI."""
        from .._format import stat

        head = (f"Class-split protocol audit ({self.protocol}), epsilon = {self.epsilon:g}, "
                f"{len(self.classes)} classes, {self.settings['repeats']} repeat(s)")
        cols = ("representation", "detector", "mean_auc", "sigma2_auc", "range_auc", "rho_rnd", "rho_inv", "rho_dir",
                "rho_nonsig", "spearman_leakage_auroc")
        short = {"spearman_leakage_auroc": "rho_s(L,AUC)"}
        table = [[short.get(c, c) for c in cols]]
        for row in self.summary_rows:
            table.append([str(row[c]) if isinstance(row[c], str)
                          else stat(row[c], target="text") for c in cols])
        widths = [max(len(r[i]) for r in table) for i in range(len(cols))]
        lines = [head] + ["  ".join(v.ljust(w) if i < 2 else v.rjust(w) for i, (v, w) in enumerate(zip(r, widths)))
                          for r in table]
        lines.append("mean = statistics of the detector-mean AUROC(c)")
        if self.leakage_k is not None:
            lines.append("leakage L_k (k = %d): " % self.leakage_k + ", ".join(
                f"{rep} {v:.3f}" for rep, v in zip(self.representation_names, self.leakage_L_k)))
        if self.test_normals_subsampled:
            lines.append(f"test normals subsampled to max_test_normals = {self.settings.get('max_test_normals')} "
                         "per task")
        if self.skipped:
            lines.append(f"{len(self.skipped)} task(s) skipped (see skipped in the JSON output)")
        return "\n".join(lines)
