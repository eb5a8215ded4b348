"""The vocabulary of the leaderboard table: its columns, the missing-value markers and the metrics it knows.

Every reader of [`auditad.leaderboards`][auditad.leaderboards] writes the columns of
`TABLE_COLUMNS`; every check looks a metric up with `metric_info`
(direction, scale, chance level).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["TABLE_COLUMNS", "MISSING_MARKERS", "MetricSpec", "METRICS", "canonical_metric", "metric_info"]

FORMATS = ("adbench", "pyod", "openood", "anomalib", "long", "wide")
#: The columns every leaderboard table has (metadata columns follow them).
TABLE_COLUMNS = ("dataset", "method", "seed", "metric", "value", "std", "n_pos", "n_neg", "missing", "row", "column")
#: Cell texts read as "no value" (compared lower-case, stripped); everything else must be a number.
MISSING_MARKERS = ("", "/", "-", "--", "\u2013", "\u2014", "n/a", "na", "nan", "none", "null")


@dataclass(frozen=True)
class MetricSpec:
    """What is known about a metric: its direction, its scale and its chance level.

    Attributes
    ----------
    name : str
        Canonical name (``"auroc"``, ``"ap"``, ...).
    higher_is_better : bool
        Rank 1 goes to the highest value when True, to the lowest otherwise.
    bounded : bool
        Values lie in [0, 1] (or [0, 100] as percentages); unbounded metrics
        (``time``) are kept as read.
    chance : str or None
        The expected value under random scores: ``"half"`` (½), ``"average_precision"``
        (the exact E[AP] of [`auditad.nulls.expected_average_precision`][auditad.nulls.expected_average_precision] at
        the
        class counts), ``"prevalence"`` (π = n₊/n) or None (unknown).
    description : str

    References
    ----------
    G. O. Campos et al., "On the evaluation of unsupervised outlier detection: measures, datasets, and an
    empirical study", Data Mining and Knowledge Discovery 30(4), 891–927, 2016 (chance levels and the
    chance-adjusted measures).

    See Also
    --------
    - `metric_info`: the spec of a metric name.
    - [`auditad.leaderboards.cells.annotate_cells`][auditad.leaderboards.annotate_cells]: uses the chance levels.
    """

    name: str
    higher_is_better: bool = True
    bounded: bool = True
    chance: str | None = None
    description: str = ""


#: The metrics with a known meaning; others are kept with ``higher_is_better=True`` and no chance level.
METRICS = {
    m.name: m
    for m in (
        MetricSpec("auroc", chance="half", description="area under the ROC curve"),
        MetricSpec("ap", chance="average_precision", description="average precision (ADBench's AUCPR)"),
        MetricSpec("aupr", chance="prevalence", description="area under the precision-recall curve (trapezoid)"),
        MetricSpec(
            "precision_at_n",
            chance="prevalence",
            description="precision at rank n, n = number of anomalies (PyOD's prc.csv)",
        ),
        MetricSpec("f1", description="F1 score"),
        MetricSpec("accuracy", description="in-distribution classification accuracy"),
        MetricSpec("aupro", description="area under the per-region-overlap curve"),
        MetricSpec("fpr95", higher_is_better=False, description="false-positive rate at 95 % true-positive rate"),
        MetricSpec("time", higher_is_better=False, bounded=False, description="run time (seconds)"),
    )
}

_ALIASES = {
    "auroc": "auroc",
    "aucroc": "auroc",
    "auc": "auroc",
    "roc": "auroc",
    "rocauc": "auroc",
    "aucroc_": "auroc",
    "ap": "ap",
    "aucpr": "ap",
    "averageprecision": "ap",
    "prauc": "ap",
    "auprc": "ap",
    "aupr": "aupr",
    "auprtrap": "aupr",
    "prc": "precision_at_n",
    "precisionatn": "precision_at_n",
    "precisionn": "precision_at_n",
    "patn": "precision_at_n",
    "rprecision": "precision_at_n",
    "f1": "f1",
    "f1score": "f1",
    "accuracy": "accuracy",
    "acc": "accuracy",
    "idaccuracy": "accuracy",
    "idacc": "accuracy",
    "aupro": "aupro",
    "fpr95": "fpr95",
    "fpr@95": "fpr95",
    "fpr@95tpr": "fpr95",
    "fpr95tpr": "fpr95",
    "time": "time",
    "runtime": "time",
    "seconds": "time",
}
_PREFIX = re.compile(r"^(image|pixel)_", re.IGNORECASE)


def canonical_metric(text) -> str:
    """Canonical name of a metric (``"AUCROC"`` → ``"auroc"``, ``"pixel_F1Score"`` → ``"pixel_f1"``).

    Unknown names are returned lower-case with non-alphanumeric runs replaced by ``_``.

    References
    ----------
    S. Han et al., "ADBench: Anomaly Detection Benchmark", NeurIPS 2022 (``AUCROC``, ``AUCPR`` = average
    precision); Y. Zhao, Z. Nasrullah, Z. Li, "PyOD: A Python Toolbox for Scalable Outlier Detection", JMLR
    20(96), 2019 (``roc``, ``prc`` = precision at rank n).

    See Also
    --------
    - `metric_info`

    Examples
    --------
    >>> canonical_metric("AUCROC"), canonical_metric("image_AUROC"), canonical_metric("prc")
    ('auroc', 'image_auroc', 'precision_at_n')
    """
    text = str(text).strip()
    m = _PREFIX.match(text)
    prefix = m.group(1).lower() + "_" if m else ""
    base = text[m.end() :] if m else text
    key = re.sub(r"[^a-z0-9@]", "", base.lower())
    name = _ALIASES.get(key)
    if name is None:
        name = re.sub(r"[^a-z0-9@]+", "_", base.lower()).strip("_") or "value"
    return prefix + name


def metric_info(name: str) -> MetricSpec:
    """The `MetricSpec` of a canonical metric name (an ``image_`` / ``pixel_`` prefix is ignored).

    References
    ----------
    G. O. Campos et al., "On the evaluation of unsupervised outlier detection", Data Mining and Knowledge
    Discovery 30(4), 2016.

    See Also
    --------
    - `canonical_metric`
    - [`MetricSpec`][auditad.leaderboards.MetricSpec]

    Examples
    --------
    >>> metric_info("pixel_auroc").chance, metric_info("time").higher_is_better
    ('half', False)
    """
    base = _PREFIX.sub("", str(name))
    spec = METRICS.get(base)
    if spec is None:
        return MetricSpec(base, bounded=False, description="unknown metric: values kept as read")
    return spec
