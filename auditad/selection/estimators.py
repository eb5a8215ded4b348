r"""Anomaly-free estimators of one candidate system from its inlier and pseudo-outlier scores.

With the leave-one-out inlier scores \(z_{in}\) of a candidate and the
scores \(z_p\) of the pseudo-anomalies of probe p:

* ``inlier_variance``: \(1/\mathrm{Var}(z_{in})\);
* ``auc_bound[p]``: the Cantelli bound (Eq. 1) with the moments of \(z_p\);
* ``robust_bound[p]``: the dependence-robust bound (App. A.1);
* ``pseudo_auc[p]``: AUROC of \(z_{in}\) vs \(z_p\);
* ``npd[p]``: AutoUAD's NPD (ranks exactly like ``auc_bound[p]``).

An estimator *label* is a kind (`ESTIMATOR_KINDS`),
crossed with a probe for every kind but ``inlier_variance``:
``"pseudo_auc[diverse]"``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Mapping

import numpy as np

from .._json import json_safe
from .._validation import check_choice
from .bounds import auc_bound
from ..errors import InvalidInputError
from .choices import ESTIMATOR_KINDS, PROBE_ESTIMATORS, PROBE_KINDS

__all__ = ["CandidateEstimates", "estimate_candidate", "parse_estimator_label", "check_estimator_name"]


def parse_estimator_label(label: str, *, any_probe: bool = False) -> tuple[str, str | None]:
    """Split an estimator label into its kind and probe.

    Parameters
    ----------
    label : str
        ``"inlier_variance"`` or ``"kind[probe]"`` with kind in
        `PROBE_ESTIMATORS` and probe in
        `PROBE_KINDS`.
    any_probe : bool, default False
        Accept any probe name (for results computed with custom probe names).

    Returns
    -------
    kind : str
    probe : str or None
        None for ``inlier_variance``.

    Raises
    ------
    auditad.errors.InvalidInputError
        A label that is not a string, lacks the closing bracket, or names an
        unknown kind or probe.

    See Also
    --------
    - [`estimate_candidate`][auditad.selection.estimate_candidate]
    - [`auditad.selection.pretty_label`][auditad.selection.pretty_label]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 4 and Table 1.

    Examples
    --------
    >>> parse_estimator_label("pseudo_auc[diverse]"), parse_estimator_label("inlier_variance")
    (('pseudo_auc', 'diverse'), ('inlier_variance', None))
    """
    if not isinstance(label, str):
        raise InvalidInputError(f"estimator must be a string such as 'pseudo_auc[feature]', got {label!r}")
    if "[" in label:
        if not label.endswith("]"):
            raise InvalidInputError(f"estimator {label!r}: expected the form kind[probe], e.g. 'pseudo_auc[feature]'")
        kind, probe = label[:-1].split("[", 1)
        check_choice(kind, PROBE_ESTIMATORS, name=f"estimator {label!r} kind")
        if not any_probe:
            check_choice(probe, PROBE_KINDS, name=f"estimator {label!r} probe")
        return kind, probe
    check_choice(label, ("inlier_variance",), name="estimator")
    return label, None


def check_estimator_name(name, *, name_of: str = "estimator") -> str:
    """Check one entry of ``run_selection(estimators=...)`` without a benchmark (for configs and command lines).

    Parameters
    ----------
    name : str
        A kind from `ESTIMATOR_KINDS` (crossed with
        every probe of the run) or a label ``kind[probe]``.
    name_of : str, default "estimator"
        How the value is named in the error message (e.g. ``"selection_estimators[1]"``).

    Returns
    -------
    str
        ``name`` unchanged.

    Raises
    ------
    auditad.errors.InvalidInputError
        Not a string, an unknown kind or probe, a malformed label.

    See Also
    --------
    - [`parse_estimator_label`][auditad.selection.parse_estimator_label]
    - [`auditad.selection.run_selection`][auditad.selection.run_selection]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 4.

    Examples
    --------
    >>> check_estimator_name("auc_bound"), check_estimator_name("pseudo_auc[diverse]")
    ('auc_bound', 'pseudo_auc[diverse]')
    """
    if not isinstance(name, str):
        raise InvalidInputError(
            f"{name_of} must be a string such as 'pseudo_auc' or 'pseudo_auc[feature]', got {name!r}"
        )
    if "[" in name:
        parse_estimator_label(name)
    else:
        check_choice(name, ESTIMATOR_KINDS, name=name_of)
    return name


@dataclass(frozen=True)
class CandidateEstimates:
    r"""Anomaly-free estimators of one candidate system (see `estimate_candidate`).

    \[
    \widehat V = \frac{1}{\mathrm{Var}(z_{in})},\qquad
    \widehat B_p = \frac{\mu_{\Delta,p}^2}{\mathrm{Var}(z_p) + \mathrm{Var}(z_{in}) + \mu_{\Delta,p}^2}
    \]

    Attributes
    ----------
    inlier_mean, inlier_var : float
        Mean and population variance of the inlier (leave-one-out) scores.
    inlier_variance : float
        The estimator \(1/\mathrm{Var}(z_{in})\) (∞ for constant scores).
    n_inlier : int
        Number of inlier scores.
    probes : tuple of dict
        One dict per probe: ``probe``, ``n_pseudo``, ``mean_out``, ``var_out``,
        ``mu_delta``, ``mu_delta_sign``, ``auc_bound``, ``robust_bound``, ``npd``,
        ``pseudo_auc`` (nan for a skipped probe).

    See Also
    --------
    - [`estimate_candidate`][auditad.selection.estimate_candidate]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 4.

    Examples
    --------
    >>> est = estimate_candidate([0.0, 1.0, 0.5], {"feature": [1.0, 2.0]})
    >>> est.n_inlier, est.to_frame()["probe"].tolist()
    (3, ['feature'])
    """

    inlier_mean: float
    inlier_var: float
    inlier_variance: float
    n_inlier: int
    probes: tuple = ()

    def value(self, estimator: str) -> float:
        """Value of one estimator.

        Parameters
        ----------
        estimator : str
            A label such as ``"inlier_variance"`` or ``"pseudo_auc[feature]"``.

        Returns
        -------
        float

        Raises
        ------
        auditad.errors.InvalidInputError
            A malformed label or a probe that these estimates do not hold.
        """
        kind, probe = parse_estimator_label(estimator, any_probe=True)
        if kind == "inlier_variance":
            return self.inlier_variance
        for row in self.probes:
            if row["probe"] == probe:
                return row[kind]
        raise InvalidInputError(f"no probe {probe!r} in these estimates (have {[r['probe'] for r in self.probes]})")

    def to_frame(self):
        """One row per probe with the inlier statistics repeated (a `pandas.DataFrame`)."""
        import pandas as pd

        rows = [
            dict(
                row,
                inlier_mean=self.inlier_mean,
                inlier_var=self.inlier_var,
                inlier_variance=self.inlier_variance,
                n_inlier=self.n_inlier,
            )
            for row in self.probes
        ]
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """JSON-safe dict (nan -> None)."""
        return {f.name: json_safe(getattr(self, f.name)) for f in fields(self)}


_NAN_PROBE = dict(
    n_pseudo=0,
    mean_out=np.nan,
    var_out=np.nan,
    mu_delta=np.nan,
    mu_delta_sign=0,
    auc_bound=np.nan,
    robust_bound=np.nan,
    npd=np.nan,
    pseudo_auc=np.nan,
)


def estimate_candidate(
    z_in,
    pseudo_scores: Mapping[str, np.ndarray | None] | None = None,
    *,
    domain_in=None,
    lam=None,
    source=None,
    npd_eps: float = 0.0,
) -> CandidateEstimates:
    r"""Anomaly-free estimators of one candidate from its inlier and pseudo-outlier scores.

    \[
    \widehat{V} = \frac{1}{\mathrm{Var}(z_{in})},\qquad
    \widehat{B}_p = \frac{\mu_{\Delta,p}^2}{\mathrm{Var}(z_p) + \mathrm{Var}(z_{in}) + \mu_{\Delta,p}^2},\qquad
    \widehat{\mathrm{AUC}}_p = \mathrm{AUROC}(z_{in}\ \text{vs}\ z_p)
    \]

    with \(z_p\) the scores of the pseudo-anomalies of probe p and
    \(\mu_{\Delta,p} = E[z_p] - E[z_{in}]\); also the robust bound
    \(\mu_{\Delta,p}^2/((\sigma_p + \sigma_{in})^2 + \mu_{\Delta,p}^2)\) and
    NPD \(\mu_{\Delta,p}^2/(2(\mathrm{Var}(z_p) + \mathrm{Var}(z_{in})) + \varepsilon)\).
    Moments are population moments (ddof = 0).

    Parameters
    ----------
    z_in : array-like of shape (n,)
        Leave-one-out inlier scores of the reference set (finite, n >= 2).
    pseudo_scores : mapping of probe name -> scores, optional
        None (or an empty array) for a skipped probe gives nan estimates.
    domain_in : array-like of shape (n,), optional
        Domain of each inlier score, for a domain-weighted inlier moment.
    lam : None, "empirical", float or mapping
        Domain weighting of the inlier moments (Eqs. 4–6, see
        [`auditad.selection.bounds.auc_bound`][auditad.selection.bounds.auc_bound]).
    source : str, optional
        Source domain for a float ``lam``.
    npd_eps : float, default 0
        ε of NPD.

    Returns
    -------
    CandidateEstimates

    Raises
    ------
    auditad.errors.InvalidInputError
        ``z_in`` not a finite 1-D array of at least 2 scores; non-finite
        pseudo scores; a weighting without domains.

    See Also
    --------
    - [`auditad.selection.bounds.auc_bound`][auditad.selection.bounds.auc_bound]: the moments, bounds and empirical AUC
      of two samples.
    - [`auditad.selection.run_selection`][auditad.selection.run_selection]: the estimators of every candidate of a
      benchmark, judged.

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 4, Eq. 1 and App. A.1.
    2. W. Dai and J. Fan, "AutoUAD: Hyper-parameter Optimization for
       Unsupervised Anomaly Detection", ICLR 2025 (NPD).

    Examples
    --------
    >>> est = estimate_candidate([0.0, 1.0, 0.5], {"feature": [1.0, 2.0]})
    >>> round(est.value("pseudo_auc[feature]"), 6), round(est.value("inlier_variance"), 4)
    (0.916667, 6.0)
    >>> from sklearn.metrics import roc_auc_score
    >>> round(roc_auc_score([0, 0, 0, 1, 1], [0.0, 1.0, 0.5, 1.0, 2.0]), 6)
    0.916667
    """
    zi = np.asarray(z_in, dtype=np.float64)
    if zi.ndim != 1 or zi.size < 2 or not np.all(np.isfinite(zi)):
        raise InvalidInputError(f"z_in must be a finite 1-D array with at least 2 scores, got shape {zi.shape}")
    var = float(zi.var())
    rows = []
    for probe, zp in (pseudo_scores or {}).items():
        zp = None if zp is None else np.asarray(zp, dtype=np.float64)
        if zp is None or zp.size == 0:
            rows.append(dict(_NAN_PROBE, probe=probe))
            continue
        r = auc_bound(zi, zp, domain_in=domain_in, lam=lam, source=source, npd_eps=npd_eps)
        rows.append(
            dict(
                probe=probe,
                n_pseudo=int(zp.size),
                mean_out=r.mean_out,
                var_out=r.var_out,
                mu_delta=r.mu_delta,
                mu_delta_sign=r.mu_delta_sign,
                auc_bound=r.bound,
                robust_bound=r.robust_bound,
                npd=r.npd,
                pseudo_auc=r.empirical_auc,
            )
        )
    return CandidateEstimates(
        inlier_mean=float(zi.mean()),
        inlier_var=var,
        inlier_variance=float(np.inf) if var == 0 else 1.0 / var,
        n_inlier=int(zi.size),
        probes=tuple(rows),
    )
