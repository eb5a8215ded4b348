"""Metrics of the predictions "anomaly if score >= threshold": F1, MCC and MCC scaled to [0, 1]."""

from __future__ import annotations

import numpy as np

from ..errors import InvalidInputError
from ._binary import as_scalar_or_array
from ._curves import confusion_at_threshold
from ._operating_point import f1_cells, mcc_cells


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
    tp, fp, fn, tn, ndim = confusion_at_threshold(y_true, scores, threshold, pos_label)
    return as_scalar_or_array(f1_cells(tp, fp, fn), ndim)


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
    tp, fp, fn, tn, ndim = confusion_at_threshold(y_true, scores, threshold, pos_label)
    value = mcc_cells(tp, fp, fn, tn)
    return as_scalar_or_array((value + 1.0) / 2.0 if scaled else value, ndim)


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
