"""Threshold-free metrics from scores: AUROC, average precision, AUPR (trapezoid) and the best F1.

Scores follow one convention everywhere: **higher = more anomalous**, and the anomaly label 1 is the positive
class. A 2-D ``(n, m)`` array holds ``m`` score columns, all computed at once.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_float
from ._binary import as_scalar_or_array, check_weights, labels_scores, mcclish, weighted_columns
from ._curves import curve_stats, positive_rank_sums


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
    y, s = labels_scores(y_true, scores, pos_label=pos_label, default="greater")
    w = check_weights(sample_weight, y.size)
    if max_fpr is not None:
        max_fpr = check_float(max_fpr, name="max_fpr", low=0.0, high=1.0, low_open=True)
        if max_fpr < 1.0:
            cols = s[:, None] if s.ndim == 1 else s
            ones = np.ones(y.size) if w is None else w
            return as_scalar_or_array(
                np.array([mcclish(y, cols[:, j], ones, max_fpr) for j in range(cols.shape[1])]), s.ndim
            )
    if w is not None:
        return weighted_columns(y, s, w, "auroc")
    pos = y == 1
    n_pos = int(pos.sum())
    n_neg = y.size - n_pos
    rank_sum = positive_rank_sums(pos, s[:, None] if s.ndim == 1 else s)
    value = (rank_sum - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg)
    return as_scalar_or_array(value, s.ndim)


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
    y, s = labels_scores(y_true, scores, pos_label=pos_label)
    w = check_weights(sample_weight, y.size)
    if w is not None:
        return weighted_columns(y, s, w, "ap")
    S = s[:, None] if s.ndim == 1 else s
    return as_scalar_or_array(curve_stats(y, S)["ap"], s.ndim)


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
    y, s = labels_scores(y_true, scores, pos_label=pos_label)
    w = check_weights(sample_weight, y.size)
    if w is not None:
        return weighted_columns(y, s, w, "aupr_trap")
    S = s[:, None] if s.ndim == 1 else s
    return as_scalar_or_array(curve_stats(y, S)["aupr_trap"], s.ndim)


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
    y, s = labels_scores(y_true, scores, pos_label=pos_label)
    S = s[:, None] if s.ndim == 1 else s
    return as_scalar_or_array(curve_stats(y, S)["best_f1"], s.ndim)
