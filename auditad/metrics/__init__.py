"""Evaluation metrics of anomaly detectors: from scores and from an operating point.

Scores follow one convention everywhere: **higher = more anomalous**, and the
anomaly label 1 is the positive class (Hermary et al.).

From scores (vectorised: a 2-D ``(n, m)`` array holds ``m`` score columns):

* [`auroc`][auditad.metrics.auroc] -- area under the ROC curve, ties count ½ (Mann–Whitney U / (n_pos·n_neg));
* [`auroc_ci`][auditad.metrics.auroc_ci] -- AUROC with a DeLong confidence interval and a test of AUROC = ½;
* [`average_precision`][auditad.metrics.average_precision] -- step-wise AP (scikit-learn's ``average_precision_score``);
* [`aupr_trapezoid`][auditad.metrics.aupr_trapezoid] -- trapezoid area under the PR curve that starts at
  (recall 0, precision 1) (scikit-learn's ``auc(recall, precision)``);
* [`f1_at_threshold`][auditad.metrics.f1_at_threshold], [`mcc_at_threshold`][auditad.metrics.mcc_at_threshold] -- at a
threshold, with
  "predicted positive = score >= threshold";
* [`best_f1`][auditad.metrics.best_f1] -- the largest F1 over all thresholds;
* [`scaled_mcc`][auditad.metrics.scaled_mcc] -- (MCC + 1) / 2.

From an operating point (TPR, TNR) at anomaly ratio π:
[`operating_point_metrics`][auditad.metrics.operating_point_metrics].
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from .._validation import check_choice, check_float
from .._json import json_safe
from ._binary import binary_targets, check_weights as _check_weights, labels_scores as _labels_scores
from ._binary import mcclish as _mcclish
from ._binary import weighted_columns as _weighted_columns
from ._delong import AurocCIResult, auroc_ci
from ._operating_point import (
    OperatingPointResult,
    f1_cells,
    mcc_cells,
    operating_point_metrics,
    operating_point_values,
)
from ..errors import InvalidInputError

__all__ = [
    "auroc",
    "auroc_ci",
    "AurocCIResult",
    "average_precision",
    "aupr_trapezoid",
    "f1_at_threshold",
    "mcc_at_threshold",
    "scaled_mcc",
    "best_f1",
    "score_metrics",
    "ScoreMetricsResult",
    "operating_point_metrics",
    "OperatingPointResult",
    "METRIC_NAMES",
    "binary_targets",
    "f1_cells",
    "mcc_cells",
    "operating_point_values",
    "check_metric_names",
]

#: Names of the metrics that auditad computes, in display order. ``mcc_scaled`` is (MCC + 1) / 2.
METRIC_NAMES = ("auroc", "ap", "aupr_trap", "f1", "mcc", "mcc_scaled")


def check_metric_names(metrics, *, name: str = "metrics") -> tuple[str, ...]:
    """A metric name or a non-empty sequence of names from `METRIC_NAMES`, as a tuple (order kept).

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§III-B: the metrics).

    See Also
    --------
    - [`auditad.nulls.null_distribution`][auditad.nulls.null_distribution]
    - [`auditad.landscapes.landscape`][auditad.landscapes.landscape]

    Examples
    --------
    >>> check_metric_names("auroc"), check_metric_names(["f1", "mcc"])
    (('auroc',), ('f1', 'mcc'))
    """
    if isinstance(metrics, str):
        metrics = (metrics,)
    metrics = tuple(metrics)
    if not metrics:
        raise InvalidInputError(f"{name} must name at least one metric")
    for m in metrics:
        check_choice(m, METRIC_NAMES, name=name)
    return metrics


# --------------------------------------------------------------------------- helpers


def _positive_rank_sums(pos: np.ndarray, S: np.ndarray) -> np.ndarray:
    """Sum of the mid-ranks of the positives in every column of ``S`` (n, m).

    Each block of columns is transposed to contiguous rows and sorted; a tie
    group occupying sorted positions ``a..b`` (0-based) gets the mid-rank
    ``(a + b)/2 + 1``. Column blocks bound the memory to a few arrays of
    ``_CHUNK_ELEMENTS`` entries.
    """
    n, m = S.shape
    out = np.empty(m)
    idx = np.arange(n)
    for cols in _column_chunks(n, m):
        block = np.ascontiguousarray(S[:, cols].T)  # (c, n)
        order = np.argsort(block, axis=1)
        s_sorted = np.take_along_axis(block, order, axis=1)
        w = pos[order]
        if n > 1 and np.any(s_sorted[:, 1:] == s_sorted[:, :-1]):
            new_group = np.ones_like(s_sorted, dtype=bool)
            new_group[:, 1:] = s_sorted[:, 1:] != s_sorted[:, :-1]
            last = np.ones_like(s_sorted, dtype=bool)
            last[:, :-1] = new_group[:, 1:]
            first_idx = np.maximum.accumulate(np.where(new_group, idx, 0), axis=1)
            last_idx = np.minimum.accumulate(np.where(last, idx, n)[:, ::-1], axis=1)[:, ::-1]
            ranks = (first_idx + last_idx) / 2.0 + 1.0
            out[cols] = np.where(w, ranks, 0.0).sum(axis=1)
        else:  # no ties: the rank is the sorted position + 1
            out[cols] = np.where(w, idx + 1.0, 0.0).sum(axis=1)
    return out


# --------------------------------------------------------------------------- AUROC
def auroc(y_true, scores, *, pos_label=None, sample_weight=None, max_fpr=None):
    r"""Area under the ROC curve, ties counted ½.

    \[
    \mathrm{AUROC} = \frac{1}{n_+ n_-}\sum_{i:\,y_i=1}\sum_{j:\,y_j=0}
    \Big(\mathbb 1[s_i > s_j] + \tfrac12\,\mathbb 1[s_i = s_j]\Big)
    = \frac{R_+ - n_+(n_+ + 1)/2}{n_+ n_-},
    \]

    where \(R_+\) is the sum of the mid-ranks of the positives among all
    scores (Mann–Whitney U divided by \(n_+ n_-\); Hermary et al.).

    Parameters
    ----------
    y_true : array-like of shape (n,) or (n, 1)
        Two distinct labels (numbers, booleans or strings); the anomaly
        (positive) class is ``pos_label``, else 1 for {0, 1} / {-1, 1} /
        booleans, else the larger of two string labels (scikit-learn's ``roc_auc_score`` rule;
        [`binary_targets`][auditad.metrics.binary_targets]); other numbers such as {0, 2} need
        ``pos_label``. Both classes are required.
    scores : array-like of shape (n,) or (n, m)
        Anomaly scores (higher = more anomalous); a 2-D array holds ``m``
        score columns that are evaluated at once.
    pos_label : int, float, bool or str, optional
        The anomaly label.
    sample_weight : array-like of shape (n,), optional
        Non-negative weights: the area under the weighted ROC curve (pairs weigh
        \(w_i w_j\)), as scikit-learn.
    max_fpr : float in (0, 1], optional
        Standardised partial AUC over FPR ≤ ``max_fpr`` (McClish correction, as
        scikit-learn): \(\tfrac12\big(1 + \frac{A - m^2/2}{m - m^2/2}\big)\)
        with A the area up to FPR = m (linear interpolation at m).

    Returns
    -------
    float or numpy.ndarray of shape (m,)
        A float for 1-D scores, one AUROC per column for 2-D scores. Constant
        scores give exactly 0.5.

    References
    ----------
    H. B. Mann, D. R. Whitney, "On a test of whether one of two random variables is
    stochastically larger than the other", Annals of Mathematical Statistics 18 (1947).
    D. K. McClish, "Analyzing a portion of the ROC curve", Medical Decision Making 9 (1989).
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§III-B).

    See Also
    --------
    - [`auroc_ci`][auditad.metrics.auroc_ci]
    - [`average_precision`][auditad.metrics.average_precision]
    - [`auditad.nulls.auroc_null`][auditad.nulls.auroc_null]

    Examples
    --------
    >>> auroc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> auroc([0, 1, 1], [[0.0, 1.0], [1.0, 1.0], [2.0, 0.0]]).tolist()
    [1.0, 0.25]
    >>> auroc(["ok", "bad", "bad"], [0.1, 0.9, 0.4], pos_label="bad")
    1.0
    """
    y, s = _labels_scores(y_true, scores, pos_label=pos_label, default="greater")
    w = _check_weights(sample_weight, y.size)
    if max_fpr is not None:
        max_fpr = check_float(max_fpr, name="max_fpr", low=0.0, high=1.0, low_open=True)
        if max_fpr < 1.0:
            cols = s[:, None] if s.ndim == 1 else s
            ones = np.ones(y.size) if w is None else w
            return _finish(np.array([_mcclish(y, cols[:, j], ones, max_fpr) for j in range(cols.shape[1])]), s.ndim)
    if w is not None:
        return _weighted_columns(y, s, w, "auroc")
    pos = y == 1
    n_pos = int(pos.sum())
    n_neg = y.size - n_pos
    rank_sum = _positive_rank_sums(pos, s[:, None] if s.ndim == 1 else s)
    value = (rank_sum - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg)
    return _finish(value, s.ndim)


# --------------------------------------------------------------------------- PR-curve based metrics
_CHUNK_ELEMENTS = 2_000_000  # bound on n * (columns per chunk) for the sorted-curve computations


def _column_chunks(n_rows: int, n_cols: int):
    step = max(1, _CHUNK_ELEMENTS // max(n_rows, 1))
    for start in range(0, n_cols, step):
        yield slice(start, min(start + step, n_cols))


def _curve_stats(y: np.ndarray, S: np.ndarray) -> dict[str, np.ndarray]:
    """AP, AUPR-trapezoid and best F1 (with its threshold) of every column of ``S`` (n, m).

    Each block of columns is transposed to contiguous rows and sorted by
    decreasing score; only the last position of each group of tied scores is a
    point of the curve (a threshold). ``pg`` is the precision at the end of each
    position's tie group, ``pprev`` the precision at the previous curve point
    (1 for the first: the (recall 0, precision 1) start of the curve).
    """
    n, m = S.shape
    n_pos = int(y.sum())
    out = {k: np.empty(m) for k in ("ap", "aupr_trap", "best_f1", "best_f1_threshold")}
    idx = np.arange(n)
    count = np.arange(1, n + 1, dtype=np.float64)
    pos = y.astype(bool)
    for cols in _column_chunks(n, m):
        block = np.ascontiguousarray(S[:, cols].T)  # (c, n)
        c = block.shape[0]
        order = np.argsort(-block, axis=1)
        s_sorted = np.take_along_axis(block, order, axis=1)
        y_sorted = pos[order]
        tp = np.cumsum(y_sorted, axis=1, dtype=np.float64)
        prec = tp / count
        boundary = np.ones((c, n), dtype=bool)
        boundary[:, :-1] = s_sorted[:, 1:] != s_sorted[:, :-1]
        if boundary.all():  # no ties: every position is a curve point
            pg = prec
            pprev = np.empty_like(prec)
            pprev[:, 0] = 1.0
            pprev[:, 1:] = prec[:, :-1]
        else:
            # next curve point at or after each position (backward minimum of boundary indices)
            nxt = np.minimum.accumulate(np.where(boundary, idx, n)[:, ::-1], axis=1)[:, ::-1]
            pg = np.take_along_axis(prec, nxt, axis=1)
            # previous curve point strictly before each position
            prv = np.maximum.accumulate(np.where(boundary, idx, -1), axis=1)
            prv = np.hstack([np.full((c, 1), -1), prv[:, :-1]])
            pprev = np.where(prv >= 0, np.take_along_axis(prec, np.maximum(prv, 0), axis=1), 1.0)
        out["ap"][cols] = np.where(y_sorted, pg, 0.0).sum(axis=1) / n_pos
        out["aupr_trap"][cols] = np.where(y_sorted, pg + pprev, 0.0).sum(axis=1) / (2.0 * n_pos)
        f1 = np.where(boundary, 2.0 * tp / (count + n_pos), -np.inf)
        best = np.argmax(f1, axis=1)
        rows = np.arange(c)
        out["best_f1"][cols] = f1[rows, best]
        out["best_f1_threshold"][cols] = s_sorted[rows, best]
    return out


def _finish(value: np.ndarray, ndim: int):
    return float(value[0]) if ndim == 1 else np.asarray(value, dtype=np.float64)


def average_precision(y_true, scores, *, pos_label=None, sample_weight=None):
    r"""Average precision, step-wise (scikit-learn's ``average_precision_score``).

    \[
    \mathrm{AP} = \sum_k (R_k - R_{k-1})\,P_k,
    \]

    over the distinct score thresholds in decreasing order, with \(P_k\),
    \(R_k\) the precision and recall when every sample with score
    \(\ge\) the k-th threshold is predicted positive (\(R_0 = 0\)).
    Under random scores its mean is close to the anomaly ratio π (Hermary et al.).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels, 1 = anomaly.
    scores : array-like of shape (n,) or (n, m)
        Anomaly scores, higher = more anomalous; columns are evaluated at once.

    Returns
    -------
    float or numpy.ndarray of shape (m,)

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§III-B).
    F. Pedregosa et al., "Scikit-learn: Machine Learning in Python", JMLR 12 (2011) (``average_precision_score``).

    See Also
    --------
    - [`aupr_trapezoid`][auditad.metrics.aupr_trapezoid]
    - [`auditad.nulls.expected_average_precision`][auditad.nulls.expected_average_precision]

    Examples
    --------
    >>> round(average_precision([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), 6)
    0.833333
    """
    y, s = _labels_scores(y_true, scores, pos_label=pos_label)
    w = _check_weights(sample_weight, y.size)
    if w is not None:
        return _weighted_columns(y, s, w, "ap")
    S = s[:, None] if s.ndim == 1 else s
    return _finish(_curve_stats(y, S)["ap"], s.ndim)


def aupr_trapezoid(y_true, scores, *, pos_label=None, sample_weight=None):
    r"""Area under the precision–recall curve by the trapezoid rule.

    The curve runs through the points \((R_k, P_k)\) of the distinct
    thresholds in decreasing order and starts at (recall 0, precision 1), as
    scikit-learn's ``auc(recall, precision)`` on ``precision_recall_curve``:

    \[
    \mathrm{AUPR}_{trap} = \sum_k (R_k - R_{k-1})\,\frac{P_k + P_{k-1}}{2},
    \qquad (R_0, P_0) = (0, 1).
    \]

    On coarse (e.g. binary) scores it differs a lot from [`average_precision`][auditad.metrics.average_precision]:
    a detector that flags nothing scores \((1+\pi)/2\) here and π there.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels, 1 = anomaly.
    scores : array-like of shape (n,) or (n, m)
        Anomaly scores, higher = more anomalous.

    Returns
    -------
    float or numpy.ndarray of shape (m,)

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§III-B; its landscapes use this AUPR).
    F. Pedregosa et al., "Scikit-learn: Machine Learning in Python", JMLR 12 (2011) (``auc(recall, precision)``).

    See Also
    --------
    - [`average_precision`][auditad.metrics.average_precision]
    - [`auditad.landscapes.landscape`][auditad.landscapes.landscape]

    Examples
    --------
    >>> aupr_trapezoid([0, 1, 0, 1], [0, 0, 0, 0])  # constant scores: (0,1) -> (1, 0.5)
    0.75
    """
    y, s = _labels_scores(y_true, scores, pos_label=pos_label)
    w = _check_weights(sample_weight, y.size)
    if w is not None:
        return _weighted_columns(y, s, w, "aupr_trap")
    S = s[:, None] if s.ndim == 1 else s
    return _finish(_curve_stats(y, S)["aupr_trap"], s.ndim)


def best_f1(y_true, scores, *, pos_label=None):
    r"""Largest F1 over all thresholds (predicted positive = score >= threshold).

    \[
    \max_t \frac{2\,TP(t)}{2\,TP(t) + FP(t) + FN(t)} = \max_t \frac{2\,TP(t)}{n_{\hat +}(t) + n_+},
    \]

    over the distinct score values \(t\) (predicting nothing positive gives
    F1 = 0 and never wins). It is optimistic: the threshold is chosen with the labels.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels, 1 = anomaly.
    scores : array-like of shape (n,) or (n, m)
        Anomaly scores, higher = more anomalous.

    Returns
    -------
    float or numpy.ndarray of shape (m,)

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§III-B1).

    See Also
    --------
    - [`f1_at_threshold`][auditad.metrics.f1_at_threshold]
    - [`score_metrics`][auditad.metrics.score_metrics]

    Examples
    --------
    >>> best_f1([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.8
    """
    y, s = _labels_scores(y_true, scores, pos_label=pos_label)
    S = s[:, None] if s.ndim == 1 else s
    return _finish(_curve_stats(y, S)["best_f1"], s.ndim)


# --------------------------------------------------------------------------- thresholded metrics
def _confusion_at_threshold(y_true, scores, threshold, pos_label=None):
    y, s = _labels_scores(y_true, scores, pos_label=pos_label)
    S = s[:, None] if s.ndim == 1 else s
    thr = (
        np.asarray(threshold, dtype=np.float64)
        if not isinstance(threshold, np.ndarray)
        else threshold.astype(np.float64)
    )
    if thr.ndim > 1 or (thr.ndim == 1 and thr.size != S.shape[1]):
        raise InvalidInputError(
            f"threshold must be a number or one value per score column ({S.shape[1]}), got shape {thr.shape}"
        )
    if np.isnan(thr).any():
        raise InvalidInputError("threshold contains NaN")
    pred = S >= thr
    pos = (y == 1)[:, None]
    tp = np.sum(pred & pos, axis=0).astype(np.float64)
    fp = np.sum(pred & ~pos, axis=0).astype(np.float64)
    n_pos = float(pos.sum())
    n_neg = float(y.size) - n_pos
    return tp, fp, n_pos - tp, n_neg - fp, s.ndim


def f1_at_threshold(y_true, scores, *, threshold: float = 0.5, pos_label=None):
    r"""F1 score of the predictions "anomaly if score >= threshold".

    \[
    F_1 = \frac{2\,TP}{2\,TP + FP + FN}
    \]

    (Hermary et al. §III-B1). With both classes present the denominator is never 0;
    predicting nothing positive gives F1 = 0.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels, 1 = anomaly.
    scores : array-like of shape (n,) or (n, m)
        Anomaly scores or binary predictions (0/1 with ``threshold=0.5``).
    threshold : float or array of shape (m,), default 0.5
        Decision threshold; **predicted positive = score >= threshold**.

    Returns
    -------
    float or numpy.ndarray of shape (m,)

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§III-B1).

    See Also
    --------
    - [`best_f1`][auditad.metrics.best_f1]
    - [`mcc_at_threshold`][auditad.metrics.mcc_at_threshold]
    - [`f1_cells`][auditad.metrics.f1_cells]

    Examples
    --------
    >>> f1_at_threshold([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], threshold=0.35)
    0.8
    """
    tp, fp, fn, tn, ndim = _confusion_at_threshold(y_true, scores, threshold, pos_label)
    return _finish(f1_cells(tp, fp, fn), ndim)


def mcc_at_threshold(y_true, scores, *, threshold: float = 0.5, scaled: bool = False, pos_label=None):
    r"""Matthews correlation coefficient of the predictions "anomaly if score >= threshold".

    \[
    \mathrm{MCC} = \frac{TP\cdot TN - FP\cdot FN}
    {\sqrt{(TP+FP)(TP+FN)(TN+FP)(TN+FN)}},\qquad
    \mathrm{MCC}_{[0,1]} = \frac{\mathrm{MCC}+1}{2}
    \]

    (Hermary et al. §III-B2, which reports the scaled form). Convention: when a
    factor of the denominator is 0 (nothing or everything predicted positive)
    MCC = 0, as in scikit-learn.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels, 1 = anomaly.
    scores : array-like of shape (n,) or (n, m)
        Anomaly scores or binary predictions.
    threshold : float or array of shape (m,), default 0.5
        Predicted positive = score >= threshold.
    scaled : bool, default False
        Return (MCC + 1) / 2 in [0, 1].

    Returns
    -------
    float or numpy.ndarray of shape (m,)

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§III-B2).
    B. W. Matthews, "Comparison of the predicted and observed secondary structure of T4 phage
    lysozyme", Biochimica et Biophysica Acta 405 (1975).

    See Also
    --------
    - [`scaled_mcc`][auditad.metrics.scaled_mcc]
    - [`f1_at_threshold`][auditad.metrics.f1_at_threshold]
    - [`mcc_cells`][auditad.metrics.mcc_cells]

    Examples
    --------
    >>> mcc_at_threshold([0, 0, 1, 1], [0, 1, 1, 1])
    0.5773502691896258
    """
    tp, fp, fn, tn, ndim = _confusion_at_threshold(y_true, scores, threshold, pos_label)
    value = mcc_cells(tp, fp, fn, tn)
    return _finish((value + 1.0) / 2.0 if scaled else value, ndim)


def scaled_mcc(mcc):
    r"""Map MCC from [-1, 1] to [0, 1]: \((\mathrm{MCC} + 1)/2\) (Hermary et al. reports this form).

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§III-B2).

    See Also
    --------
    - [`mcc_at_threshold`][auditad.metrics.mcc_at_threshold]

    Examples
    --------
    >>> scaled_mcc(0.0)
    0.5
    """
    arr = np.asarray(mcc, dtype=np.float64)
    if np.any(np.abs(arr[np.isfinite(arr)]) > 1.0 + 1e-12):
        raise InvalidInputError(f"mcc must lie in [-1, 1], got {_describe_range(arr)}")
    out = (arr + 1.0) / 2.0
    return float(out) if out.ndim == 0 else out


def _describe_range(arr: np.ndarray) -> str:
    """Short description of the out-of-range part of an array for messages."""
    arr = np.asarray(arr)
    return f"values in [{np.nanmin(arr):.6g}, {np.nanmax(arr):.6g}]"


# --------------------------------------------------------------------------- all metrics of one score vector
@dataclass(frozen=True)
class ScoreMetricsResult:
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
    y, s = _labels_scores(y_true, scores, ndim=1, pos_label=pos_label)
    stats = _curve_stats(y, s[:, None])
    rule = "best_f1" if threshold is None else "given"
    thr = float(stats["best_f1_threshold"][0]) if threshold is None else check_float(threshold, name="threshold")
    tp, fp, fn, tn, _ = _confusion_at_threshold(y, s, thr)
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
