"""Reading labelled series, score arrays and published time-series result tables.

A file holds one series or several:

* ``.npy``: one 1-D array;
* ``.npz``: one series per array (named ``NAME/member`` when there are several);
* CSV/TSV/Parquet: the column ``label`` (labels) or ``score`` (scores) when present (any case), else every
  column is a series (``NAME/column`` when there are several).

Score files hold the same series as the labels: one array for one series, or arrays named like the members
or columns of the labels.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import InvalidInputError
from ..inputfiles import existing_file, read_table
from .structure import check_series_labels, check_series_scores

__all__ = ["read_series_file", "read_labels", "match_scores", "read_results_table", "RESULT_METRICS", "metric_key"]

_TABLES = (".csv", ".tsv", ".txt", ".parquet", ".pq")
_LABEL_COLUMNS = ("label", "labels", "anomaly", "is_anomaly")
_SCORE_COLUMNS = ("score", "scores", "anomaly_score")


def read_series_file(path, *, name: str, columns=_LABEL_COLUMNS) -> dict:
    """``{member: 1-D array}`` of a ``.npy``, ``.npz`` or table file (``{"": array}`` for a single series).

    See Also
    --------
    - [`read_labels`][auditad.timeseries.io.read_labels]

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "y.npy"); np.save(p, np.array([0, 1, 0]))
    >>> read_series_file(p, name="labels")[""].tolist()
    [0, 1, 0]
    """
    path = existing_file(path, name)
    suffix = path.suffix.lower()
    if suffix == ".npy":
        try:
            return {"": np.load(path, allow_pickle=False)}
        except Exception as exc:
            raise InvalidInputError(f"{name} file {str(path)!r} is not a readable .npy array: {exc}") from None
    if suffix == ".npz":
        try:
            with np.load(path, allow_pickle=False) as z:
                out = {k: z[k] for k in z.files}
        except Exception as exc:
            raise InvalidInputError(f"{name} file {str(path)!r} is not a readable .npz archive: {exc}") from None
        if not out:
            raise InvalidInputError(f"{name} file {str(path)!r} holds no array")
        return out if len(out) > 1 else {"": next(iter(out.values()))}
    if suffix in _TABLES:
        frame = read_table(path, name=name)
        lower = {str(c).lower(): c for c in frame.columns}
        chosen = next((lower[c] for c in columns if c in lower), None)
        if chosen is not None:
            return {"": frame[chosen].to_numpy()}
        if frame.shape[1] == 1:
            return {"": frame.iloc[:, 0].to_numpy()}
        return {str(c): frame[c].to_numpy() for c in frame.columns}
    raise InvalidInputError(f"{name}: unsupported file type {path.suffix!r} for {str(path)!r} (use .npy, .npz, .csv)")


def _pairs(items, *, flag: str) -> dict:
    out = {}
    for item in items:
        key, sep, path = str(item).partition("=")
        if not sep:  # a bare path: named by its file's stem
            key, path = Path(item).stem, str(item)
        if not key or not path:
            raise InvalidInputError(f"{flag} must be NAME=PATH or PATH, got {item!r}")
        if key in out:
            raise InvalidInputError(f"{flag}: name {key!r} given twice")
        out[key] = path
    return out


def read_labels(items, *, flag: str = "labels") -> dict:
    """``{series name: checked 0/1 array}`` from ``NAME=PATH`` (or ``PATH``: NAME is the file's stem) items; several
    series per file are named ``NAME/member``.

    See Also
    --------
    - [`read_series_file`][auditad.timeseries.io.read_series_file]
    - [`check_series_labels`][auditad.timeseries.check_series_labels]

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "y.npy"); np.save(p, np.array([0, 1, 0]))
    >>> list(read_labels([f"A={p}"]))
    ['A']
    """
    out = {}
    for key, path in _pairs(items, flag=flag).items():
        for member, arr in read_series_file(path, name=f"{flag} {key}").items():
            series = key if member == "" else f"{key}/{member}"
            out[series] = check_series_labels(arr, name=f"{flag} {series} ({Path(path).name})")
    return out


def match_scores(items, labels: dict, *, flag: str = "scores") -> dict:
    """``{detector: {series: scores}}`` for ``DETECTOR=PATH`` items, matched to ``labels`` by name.

    One array fits when there is one series; otherwise the file's arrays or columns are named like the series
    (``NAME/member``, or the member alone when no two label files share it).

    See Also
    --------
    - [`read_labels`][auditad.timeseries.io.read_labels]
    """
    out = {}
    by_member: dict = {}
    for series in labels:
        by_member.setdefault(series.partition("/")[2] or series, []).append(series)
    for det, path in _pairs(items, flag=flag).items():
        arrays = read_series_file(path, name=f"{flag} {det}", columns=_SCORE_COLUMNS)
        where = f"{flag} {det} ({Path(path).name})"
        if list(arrays) == [""]:
            if len(labels) != 1:
                raise InvalidInputError(
                    f"{where} holds one array but there are {len(labels)} labelled series; name its arrays or "
                    f"columns like the series: {sorted(labels)[:5]}"
                )
            arrays = {next(iter(labels)): arrays[""]}
        matched = {}
        for member, arr in arrays.items():
            series = member if member in labels else (by_member.get(member) or [None])[0]
            if series is None or len(by_member.get(member, [])) > 1 and member not in labels:
                raise InvalidInputError(f"{where}: array {member!r} matches no labelled series {sorted(labels)[:5]}")
            y = labels[series]
            matched[series] = check_series_scores(arr, y.size, name=f"{where} series {series}")
        out[det] = matched
    return out


#: Metric columns a published table may hold, by the key of auditad's summary: their spellings (lower case, no
#: punctuation) in papers and benchmark tables.
RESULT_METRICS = {
    "f1": ("f1", "pointf1", "pwf1", "f1pw", "f1score", "standardf1"),
    "pa_f1": ("f1pa", "paf1", "pointadjustedf1", "f1adjusted", "adjustedf1", "f1adj"),
    "pa_k_area": ("pak", "pakarea", "pakauc", "f1pak", "f1pakauc"),
    "composite_f1": ("compositef1", "f1c", "fc1", "f1composite", "eventf1", "eventbasedf1"),
    "range_f1": ("rangef1", "rf1", "f1range", "rbf1", "rbasedf1"),
    "auc_roc": ("aucroc", "auroc", "rocauc"),
    "auc_pr": ("aucpr", "aupr", "prauc"),
    "vus_roc": ("vusroc",),
    "vus_pr": ("vuspr",),
    "range_auc_roc": ("rangeaucroc", "raucroc", "rangeauc"),
    "range_auc_pr": ("rangeaucpr", "raucpr"),
    "affiliation_f1": ("affiliationf", "affiliationf1", "afff1", "aff1", "affiliation"),
}


def metric_key(column) -> str | None:
    """The summary key of a published metric column (``"F1-PA"`` -> ``"pa_f1"``), or None.

    See Also
    --------
    - [`read_results_table`][auditad.timeseries.io.read_results_table]

    Examples
    --------
    >>> metric_key("F1-PA"), metric_key("PA%K"), metric_key("VUS-PR"), metric_key("method")
    ('pa_f1', 'pa_k_area', 'vus_pr', None)
    """
    text = "".join(ch for ch in str(column).lower() if ch.isalnum())
    return next((k for k, names in RESULT_METRICS.items() if text in names), None)


def read_results_table(path, labels: dict, *, name: str = "results"):
    """A published table as a long frame ``method, dataset, metric, value`` (fractions, not percent).

    Wide tables have ``method``, ``dataset`` and metric columns (`RESULT_METRICS` spellings); long ones
    ``method``, ``dataset``, ``metric``, ``value``. A column whose values exceed 1 is read as percent. Every
    dataset must be one of ``labels``.

    See Also
    --------
    - [`metric_key`][auditad.timeseries.io.metric_key]
    """
    import pandas as pd

    path = existing_file(path, name)
    frame = read_table(path, name=name)
    cols = {str(c).strip().lower(): c for c in frame.columns}
    where = f"{name} file {str(path)!r}"
    for need in ("method", "dataset"):
        if need not in cols:
            raise InvalidInputError(f"{where} has no {need!r} column; columns are {list(map(str, frame.columns))}")
    if "metric" in cols and "value" in cols:
        long = frame.rename(columns={cols[k]: k for k in ("method", "dataset", "metric", "value")})
        long = long[["method", "dataset", "metric", "value"]]
    else:
        metric_cols = [c for c in frame.columns if metric_key(c) is not None]
        if not metric_cols:
            raise InvalidInputError(f"{where} has no metric column (e.g. F1, F1-PA, PA%K, VUS-PR, AUC-PR)")
        long = frame.rename(columns={cols["method"]: "method", cols["dataset"]: "dataset"}).melt(
            id_vars=["method", "dataset"], value_vars=metric_cols, var_name="metric", value_name="value"
        )
    long = long.assign(
        method=long["method"].astype(str),
        dataset=long["dataset"].astype(str),
        key=[metric_key(m) for m in long["metric"]],
        value=pd.to_numeric(long["value"], errors="coerce"),
    )
    unknown = sorted(set(long.loc[long["key"].isna(), "metric"].astype(str)))
    if unknown:
        raise InvalidInputError(f"{where}: unknown metric(s) {unknown[:5]}; known: {sorted(RESULT_METRICS)}")
    long = long.dropna(subset=["value"])
    if long.empty:
        raise InvalidInputError(f"{where} holds no numeric value")
    missing = sorted(set(long["dataset"]) - set(labels))
    if missing:
        raise InvalidInputError(f"{where}: dataset(s) {missing[:5]} not among the labelled series {sorted(labels)[:8]}")
    for idx in long.groupby("key").groups.values():
        if (long.loc[idx, "value"] > 1).any():
            long.loc[idx, "value"] = long.loc[idx, "value"] / 100.0
    if ((long["value"] < 0) | (long["value"] > 1)).any():
        raise InvalidInputError(f"{where}: values must lie in [0, 1] or [0, 100] (percent)")
    return long.reset_index(drop=True)
