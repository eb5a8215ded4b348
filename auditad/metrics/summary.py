"""Every metric of one score vector: [`score_metrics`][auditad.metrics.score_metrics] and its result."""

from __future__ import annotations

from dataclasses import dataclass, fields

from .._format import FrameDisplay
from .._json import json_safe
from .._validation import check_float
from ._binary import labels_scores
from ._curves import confusion_at_threshold, curve_stats
from ._operating_point import f1_cells, mcc_cells
from .names import METRIC_NAMES
from .scores import auroc


@dataclass(frozen=True)
class ScoreMetricsResult(FrameDisplay):
    """Every metric of one score vector (see [`score_metrics`][auditad.metrics.score_metrics]).

    Attributes
    ----------
    auroc, ap, aupr_trap : float
        Threshold-free metrics.
    f1, mcc, mcc_scaled : float
        Metrics of the predictions ``score >= threshold``.
    threshold : float
        The threshold used for F1/MCC.
    threshold_rule : str
        ``"given"`` or ``"best_f1"`` (the threshold maximising F1, chosen with the labels).
    best_f1 : float
        Largest F1 over all thresholds.
    n_pos, n_neg : int
        Class counts; ``ratio`` = n_pos / (n_pos + n_neg).

    See Also
    --------
    - [`score_metrics`][auditad.metrics.score_metrics]: computes it.
    - [`auditad.nulls.null_distribution`][auditad.nulls.null_distribution]: the same metrics under random predictions.

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
    of Anomaly Detection".
    """

    auroc: float
    ap: float
    aupr_trap: float
    f1: float
    mcc: float
    mcc_scaled: float
    threshold: float
    threshold_rule: str
    best_f1: float
    n_pos: int
    n_neg: int
    ratio: float

    def to_dict(self) -> dict:
        """JSON-safe dict."""
        return {f.name: json_safe(getattr(self, f.name)) for f in fields(self)}

    def to_frame(self):
        """Tidy frame: one row per metric (columns ``metric``, ``value``)."""
        import pandas as pd

        return pd.DataFrame({"metric": list(METRIC_NAMES), "value": [getattr(self, m) for m in METRIC_NAMES]})


def score_metrics(y_true, scores, *, threshold: float | None = None, pos_label=None) -> ScoreMetricsResult:
    r"""AUROC, AP, AUPR-trapezoid, F1, MCC and scaled MCC of one score vector.

    F1 and MCC use the predictions "anomaly if score >= threshold"; with
    ``threshold=None`` the threshold that maximises F1 is used (recorded as
    ``threshold_rule="best_f1"``): an optimistic, label-informed choice that a
    random-prediction null does not reproduce.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels, 1 = anomaly.
    scores : array-like of shape (n,)
        Anomaly scores, higher = more anomalous.
    threshold : float or None, default None
        Decision threshold, or None for the best-F1 threshold.

    Returns
    -------
    ScoreMetricsResult

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§III-B).

    See Also
    --------
    - [`auroc`][auditad.metrics.auroc]
    - [`average_precision`][auditad.metrics.average_precision]
    - [`aupr_trapezoid`][auditad.metrics.aupr_trapezoid]
    - [`best_f1`][auditad.metrics.best_f1]
    - [`auditad.nulls.null_distribution`][auditad.nulls.null_distribution]

    Examples
    --------
    >>> r = score_metrics([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> r.auroc, r.f1, r.threshold
    (0.75, 0.8, 0.35)
    """
    y, s = labels_scores(y_true, scores, ndim=1, pos_label=pos_label)
    stats = curve_stats(y, s[:, None])
    rule = "best_f1" if threshold is None else "given"
    thr = float(stats["best_f1_threshold"][0]) if threshold is None else check_float(threshold, name="threshold")
    tp, fp, fn, tn, _ = confusion_at_threshold(y, s, thr)
    mcc = float(mcc_cells(tp, fp, fn, tn)[0])
    n_pos = int(y.sum())
    return ScoreMetricsResult(
        auroc=auroc(y, s),
        ap=float(stats["ap"][0]),
        aupr_trap=float(stats["aupr_trap"][0]),
        f1=float(f1_cells(tp, fp, fn)[0]),
        mcc=mcc,
        mcc_scaled=(mcc + 1.0) / 2.0,
        threshold=thr,
        threshold_rule=rule,
        best_f1=float(stats["best_f1"][0]),
        n_pos=n_pos,
        n_neg=int(y.size - n_pos),
        ratio=n_pos / y.size,
    )
