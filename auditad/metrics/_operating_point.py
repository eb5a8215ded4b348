"""Metrics of binary predictions from the confusion cells and from an operating point (TPR, TNR, π).

Re-exported by [`auditad.metrics`][auditad.metrics]; [`auditad.landscapes`][auditad.landscapes] evaluates
[`operating_point_values`][auditad.metrics.operating_point_values] on whole TPR × TNR grids and
[`auditad.nulls`][auditad.nulls]
uses [`f1_cells`][auditad.metrics.f1_cells] / [`mcc_cells`][auditad.metrics.mcc_cells] on enumerated (TP, FP) cells.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from .._format import FrameDisplay
from .._json import json_safe
from ..errors import InvalidInputError


def f1_cells(tp, fp, fn):
    r"""F1 from confusion-matrix cells (counts or shares, broadcast), 0 where \(2TP+FP+FN = 0\).

    \[
    F_1 = \frac{2\,TP}{2\,TP + FP + FN}
    \]

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§III-B1).

    See Also
    --------
    - [`mcc_cells`][auditad.metrics.mcc_cells]
    - [`auditad.metrics.f1_at_threshold`][auditad.metrics.f1_at_threshold]

    Examples
    --------
    >>> float(f1_cells(2, 1, 1))
    0.6666666666666666
    """
    denom = 2.0 * tp + fp + fn
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, 2.0 * tp / np.where(denom > 0, denom, 1.0), 0.0)


def mcc_cells(tp, fp, fn, tn):
    r"""Matthews correlation from confusion-matrix cells, 0 where a factor of the denominator is 0.

    \[
    \mathrm{MCC} = \frac{TP\,TN - FP\,FN}{\sqrt{(TP+FP)(TP+FN)(TN+FP)(TN+FN)}}
    \]

    References
    ----------
    B. W. Matthews, "Comparison of the predicted and observed secondary structure of T4 phage
    lysozyme", Biochimica et Biophysica Acta 405 (1975).

    See Also
    --------
    - [`f1_cells`][auditad.metrics.f1_cells]
    - [`auditad.metrics.mcc_at_threshold`][auditad.metrics.mcc_at_threshold]

    Examples
    --------
    >>> float(mcc_cells(1, 0, 1, 2))
    0.5773502691896258
    """
    denom = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, (tp * tn - fp * fn) / np.sqrt(np.where(denom > 0, denom, 1.0)), 0.0)


# --------------------------------------------------------------------------- operating point
def operating_point_values(tpr: np.ndarray, tnr: np.ndarray, pi: np.ndarray) -> dict[str, np.ndarray]:
    r"""Every metric of binary predictions at (TPR, TNR, π), on broadcast arrays (inputs already validated).

    The closed forms of [`operating_point_metrics`][auditad.metrics.operating_point_metrics] as a dict of arrays
    (``auroc``, ``ap``, ``aupr_trap``, ``f1``, ``mcc``, ``mcc_scaled``, ``precision``);
    [`auditad.landscapes.landscape`][auditad.landscapes.landscape] evaluates it on whole grids.

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§V-A).

    See Also
    --------
    - [`operating_point_metrics`][auditad.metrics.operating_point_metrics]

    Examples
    --------
    >>> float(operating_point_values(np.array(0.0), np.array(1.0), np.array(0.5))["aupr_trap"])
    0.75
    """
    tp = pi * tpr
    fn = pi * (1.0 - tpr)
    fp = (1.0 - pi) * (1.0 - tnr)
    tn = (1.0 - pi) * tnr
    predicted = tp + fp
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(predicted > 0, tp / np.where(predicted > 0, predicted, 1.0), np.nan)
    # nothing predicted positive: the PR curve is (0, 1) -> (1, pi), i.e. the first point has precision 1
    p_curve = np.where(predicted > 0, precision, 1.0)
    mcc = mcc_cells(tp, fp, fn, tn)
    return {
        "auroc": (tpr + tnr) / 2.0,
        "ap": tpr * p_curve + (1.0 - tpr) * pi,
        "aupr_trap": tpr * (1.0 + p_curve) / 2.0 + (1.0 - tpr) * (p_curve + pi) / 2.0,
        "f1": f1_cells(tp, fp, fn),
        "mcc": mcc,
        "mcc_scaled": (mcc + 1.0) / 2.0,
        "precision": precision,
    }


@dataclass(frozen=True, eq=False)
class OperatingPointResult(FrameDisplay):
    """Metrics of binary predictions at an operating point (see `operating_point_metrics`).

    Every field is a float (scalar inputs) or an array of the broadcast shape of
    ``tpr``, ``tnr`` and ``ratio``. ``precision`` is nan where nothing is
    predicted positive.

    See Also
    --------
    - [`auditad.metrics.operating_point_metrics`][auditad.metrics.operating_point_metrics]: computes it.
    - [`auditad.landscapes.landscape`][auditad.landscapes.landscape]: the same metrics over a TPR × TNR grid.

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
    of Anomaly Detection".
    """

    tpr: Any
    tnr: Any
    ratio: Any
    precision: Any
    auroc: Any
    ap: Any
    aupr_trap: Any
    f1: Any
    mcc: Any
    mcc_scaled: Any

    def to_dict(self) -> dict:
        """JSON-safe dict (arrays become nested lists, nan -> None)."""
        return {f.name: json_safe(getattr(self, f.name)) for f in fields(self)}

    def to_frame(self):
        """Tidy frame: one row per operating point, one column per field."""
        import pandas as pd

        cols = {f.name: np.ravel(np.broadcast_to(getattr(self, f.name), np.shape(self.auroc))) for f in fields(self)}
        return pd.DataFrame(cols)


def operating_point_metrics(tpr, tnr, ratio) -> OperatingPointResult:
    r"""Metrics of binary predictions from (TPR, TNR) at anomaly ratio π (Hermary et al.).

    With cell shares \(TP = \pi\,TPR\), \(FN = \pi(1-TPR)\),
    \(FP = (1-\pi)(1-TNR)\), \(TN = (1-\pi)\,TNR\) and precision
    \(P = TP/(TP+FP)\):

    \[
    \mathrm{AUROC} = \frac{TPR + TNR}{2},\quad
    F_1 = \frac{2TP}{2TP+FP+FN},\quad
    \mathrm{MCC} = \frac{TP\,TN - FP\,FN}{\sqrt{(TP+FP)(TP+FN)(TN+FP)(TN+FN)}},
    \]

    \[
    \mathrm{AP} = TPR\cdot P + (1-TPR)\,\pi,\quad
    \mathrm{AUPR}_{trap} = TPR\,\frac{1+P}{2} + (1-TPR)\,\frac{P+\pi}{2}.
    \]

    These are exactly the score-based metrics of binary scores (the ROC curve
    (0,0)→(FPR,TPR)→(1,1); the PR curve (0,1)→(TPR,P)→(1,π)).

    Conventions for empty cells: when nothing is predicted positive
    (TPR = 0 and TNR = 1) P is undefined (``precision`` = nan), the PR curve is
    (0,1)→(1,π), so AP = π and AUPR_trap = (1+π)/2; F1 = 0; MCC = 0 (scaled 0.5).
    When everything is predicted positive (TPR = 1, TNR = 0) MCC = 0.

    Parameters
    ----------
    tpr, tnr : float or array-like
        True positive and true negative rates in [0, 1] (broadcast together).
    ratio : float or array-like
        Anomaly ratio π = n_pos / n in (0, 1).

    Returns
    -------
    OperatingPointResult

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§V-A, the landscapes' closed forms).

    See Also
    --------
    - [`operating_point_values`][auditad.metrics.operating_point_values]
    - [`auditad.landscapes.landscape`][auditad.landscapes.landscape]

    Examples
    --------
    >>> operating_point_metrics(0.0, 1.0, 0.5).aupr_trap  # Hermary et al. §V-C
    0.75
    >>> round(operating_point_metrics(0.0, 0.1, 0.0019).mcc_scaled, 3)  # Hermary et al. §V-C (UCR)
    0.435
    """
    from .._validation import check_probability_array

    tpr_a = check_probability_array(tpr, name="tpr")
    tnr_a = check_probability_array(tnr, name="tnr")
    pi_a = check_probability_array(ratio, name="ratio", open_interval=True)
    try:
        tpr_b, tnr_b, pi_b = np.broadcast_arrays(tpr_a, tnr_a, pi_a)
    except ValueError:
        raise InvalidInputError(
            f"tpr, tnr and ratio must broadcast together, got shapes {tpr_a.shape}, {tnr_a.shape}, {pi_a.shape}"
        ) from None
    vals = operating_point_values(tpr_b, tnr_b, pi_b)
    scalar = tpr_b.ndim == 0

    def out(a):
        return float(a) if scalar else np.array(a, dtype=np.float64)

    return OperatingPointResult(
        tpr=out(tpr_b),
        tnr=out(tnr_b),
        ratio=out(pi_b),
        precision=out(vals["precision"]),
        auroc=out(vals["auroc"]),
        ap=out(vals["ap"]),
        aupr_trap=out(vals["aupr_trap"]),
        f1=out(vals["f1"]),
        mcc=out(vals["mcc"]),
        mcc_scaled=out(vals["mcc_scaled"]),
    )
