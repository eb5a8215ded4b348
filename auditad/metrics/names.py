"""The names of the metrics auditad computes, in display order, and their check.

Examples
--------
>>> METRIC_NAMES[:2]
('auroc', 'ap')
"""

from __future__ import annotations

from .._validation import check_choice
from ..errors import InvalidInputError

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
