"""Sorted-curve kernels shared by the score metrics: mid-rank sums, AP / AUPR / best-F1 curves, confusion counts.

Each kernel works on a 2-D ``(n, m)`` score array, ``CHUNK_ELEMENTS`` entries at a time.
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidInputError
from ._binary import labels_scores

CHUNK_ELEMENTS = 2_000_000  # bound on n * (columns per chunk) for the sorted-curve computations


def column_chunks(n_rows: int, n_cols: int):
    step = max(1, CHUNK_ELEMENTS // max(n_rows, 1))
    for start in range(0, n_cols, step):
        yield slice(start, min(start + step, n_cols))


def positive_rank_sums(pos: np.ndarray, S: np.ndarray) -> np.ndarray:
    """Sum of the mid-ranks of the positives in every column of ``S`` (n, m).

    Each block of columns is transposed to contiguous rows and sorted; a tie
    group occupying sorted positions ``a..b`` (0-based) gets the mid-rank
    ``(a + b)/2 + 1``. Column blocks bound the memory to a few arrays of
    ``CHUNK_ELEMENTS`` entries.
    """
    n, m = S.shape
    out = np.empty(m)
    idx = np.arange(n)
    for cols in column_chunks(n, m):
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


def curve_stats(y: np.ndarray, S: np.ndarray) -> dict[str, np.ndarray]:
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
    for cols in column_chunks(n, m):
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


def confusion_at_threshold(y_true, scores, threshold, pos_label=None):
    y, s = labels_scores(y_true, scores, pos_label=pos_label)
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
