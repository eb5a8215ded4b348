"""Labelled anomaly segments of a 0/1 series and the label structure a metric null depends on.

A segment is a maximal run of consecutive anomalous points (label 1). Point adjustment, PA%K, event-wise
recall and range-based recall all read the labels through their segments, so their random baselines depend
on the segment lengths, not only on the anomaly ratio.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._json import json_safe
from ..errors import InvalidInputError

__all__ = ["check_series_labels", "check_series_scores", "segments", "LabelStructure", "label_structure"]


def check_series_labels(y, *, name: str = "labels") -> np.ndarray:
    """A 1-D 0/1 label array as ``int8``; empty, non-binary or single-class input is an `InvalidInputError`.

    See Also
    --------
    - [`segments`][auditad.timeseries.segments]: the anomalous runs of the labels.

    Examples
    --------
    >>> check_series_labels([0, 1, 1, 0]).tolist()
    [0, 1, 1, 0]
    """
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise InvalidInputError(f"{name} must be one series (1-D), got shape {arr.shape}")
    if arr.size == 0:
        raise InvalidInputError(f"{name} is empty")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise InvalidInputError(f"{name} holds NaN or inf; labels must be 0 or 1")
    if arr.dtype.kind not in "biuf":
        raise InvalidInputError(f"{name} must hold 0/1 labels, got dtype {arr.dtype}")
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidInputError(f"{name} holds values other than 0 and 1 (e.g. {arr[i].item()!r} at position {i})")
    out = arr.astype(np.int8)
    n_pos = int(out.sum())
    if n_pos == 0:
        raise InvalidInputError(f"{name} has no anomalous point (no label 1): the metrics are undefined")
    if n_pos == out.size:
        raise InvalidInputError(f"{name} labels every point anomalous (no label 0): the metrics are undefined")
    return out


def check_series_scores(scores, n: int, *, name: str = "scores") -> np.ndarray:
    """A 1-D finite float score array of length ``n`` (higher = more anomalous).

    See Also
    --------
    - [`check_series_labels`][auditad.timeseries.check_series_labels]

    Examples
    --------
    >>> check_series_scores([0.1, 2.0], 2).tolist()
    [0.1, 2.0]
    """
    arr = np.asarray(scores)
    if arr.dtype.kind not in "biuf":
        raise InvalidInputError(f"{name} must be numeric, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if arr.ndim != 1:
        raise InvalidInputError(f"{name} must be one series (1-D), got shape {arr.shape}")
    if arr.size != n:
        raise InvalidInputError(f"{name} has {arr.size} points, the labels {n}")
    if not np.isfinite(arr).all():
        bad = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise InvalidInputError(f"{name} holds NaN or inf (first at position {bad})")
    return arr


def segments(y) -> tuple[np.ndarray, np.ndarray]:
    """``(starts, ends)`` of the anomalous segments: maximal runs of 1, ``ends`` exclusive.

    See Also
    --------
    - [`label_structure`][auditad.timeseries.label_structure]

    Examples
    --------
    >>> s, e = segments([1, 1, 0, 0, 1, 0, 1])
    >>> s.tolist(), e.tolist()
    ([0, 4, 6], [2, 5, 7])
    """
    y = np.asarray(y) != 0
    if y.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    change = np.flatnonzero(y[1:] != y[:-1]) + 1  # every start and end but the series' own ends
    bounds = np.concatenate(([0] if y[0] else [], change, [y.size] if y[-1] else [])).astype(np.int64)
    return bounds[0::2], bounds[1::2]


@dataclass(frozen=True)
class LabelStructure:
    """The segment structure of one labelled series.

    Attributes
    ----------
    n : int
        Points.
    n_anomalous : int
        Points labelled 1.
    ratio : float
        ``n_anomalous / n`` (the anomaly ratio p).
    lengths : ndarray
        Segment lengths in series order.
    starts : ndarray
        Segment starts.
    touches_end : bool
        The last segment reaches the last point (or the first starts at point 0).
    top_decile_share : float
        Share of the anomalous points in the longest 10 % of the segments (at least one segment).

    See Also
    --------
    - [`label_structure`][auditad.timeseries.label_structure]
    """

    n: int
    n_anomalous: int
    ratio: float
    lengths: np.ndarray
    starts: np.ndarray
    touches_end: bool
    top_decile_share: float

    @property
    def n_segments(self) -> int:
        """Number of segments."""
        return int(self.lengths.size)

    def to_dict(self) -> dict:
        """JSON-safe dict (the lengths' summary, not the lengths)."""
        lengths = self.lengths
        return json_safe(
            {
                "n": self.n,
                "n_anomalous": self.n_anomalous,
                "ratio": self.ratio,
                "n_segments": self.n_segments,
                "min_length": int(lengths.min()),
                "median_length": float(np.median(lengths)),
                "max_length": int(lengths.max()),
                "touches_end": self.touches_end,
                "top_decile_share": self.top_decile_share,
            }
        )

    def to_frame(self):
        """One row per segment: ``start``, ``length``."""
        import pandas as pd

        return pd.DataFrame({"start": self.starts, "length": self.lengths})


def label_structure(y) -> LabelStructure:
    """The anomaly ratio and segment lengths of a 0/1 series.

    See Also
    --------
    - [`segments`][auditad.timeseries.segments]

    Examples
    --------
    >>> s = label_structure([0, 1, 1, 0, 0, 1])
    >>> s.n_segments, s.ratio, s.touches_end
    (2, 0.5, True)
    """
    y = check_series_labels(y)
    st, en = segments(y)
    lengths = en - st
    k = max(1, int(np.ceil(0.1 * lengths.size)))
    top = np.sort(lengths)[::-1][:k].sum()
    return LabelStructure(
        n=int(y.size),
        n_anomalous=int(lengths.sum()),
        ratio=float(lengths.sum() / y.size),
        lengths=lengths,
        starts=st,
        touches_end=bool(en[-1] == y.size or st[0] == 0),
        top_decile_share=float(top / lengths.sum()),
    )
