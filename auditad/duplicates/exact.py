"""Exact grouping of rows: a 64-bit hash of each row's canonical bytes, every candidate group verified.

Definitions: ``docs/methods/duplicates.md`` (section *Exact duplicates*).
"""

from __future__ import annotations

import numpy as np

__all__ = ["hash_rows", "distinct_values", "first_occurrence", "factorize", "unique_pairs", "min_row_per_value"]


#: Rows are hashed in blocks of about this many 64-bit words (4 MiB of temporaries per operation).
_HASH_BLOCK_WORDS = 1 << 19
#: Fixed keys of the row hash: the result never depends on them (every candidate group is verified).
_HASH_KEY_STREAM = 0x9E3779B97F4A7C15
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def _hash_keys(n_words: int) -> np.ndarray:
    rng = np.random.default_rng(_HASH_KEY_STREAM)
    return rng.integers(0, 2**63, size=n_words, dtype=np.uint64) * np.uint64(2) + np.uint64(1)


def _canonical(block: np.ndarray, dtype) -> np.ndarray:
    """Contiguous copy of ``block`` in ``dtype``; floats get ``+ 0`` (which turns -0.0 into +0.0 and nothing else)."""
    if np.dtype(dtype).kind == "f":
        return np.add(block, 0, dtype=dtype)
    return np.ascontiguousarray(block, dtype=dtype)


def hash_rows(A: np.ndarray, dtype) -> np.ndarray:
    """64-bit hash of each row's canonical bytes (uint64, shape (n,)).

    Each 64-bit word of a row is xor-ed with a key of its position, mixed with the
    SplitMix64 finaliser and the words are summed; equal rows always get equal hashes.
    """
    dtype = np.dtype(dtype)
    n, d = A.shape
    row_bytes = dtype.itemsize * d
    n_words = (row_bytes + 7) // 8
    keys = _hash_keys(n_words)
    out = np.empty(n, dtype=np.uint64)
    step = max(1, _HASH_BLOCK_WORDS // n_words)
    for a in range(0, n, step):
        c = _canonical(A[a : a + step], dtype)
        m = c.shape[0]
        if row_bytes % 8 == 0:
            w = c.view(np.uint64).reshape(m, n_words)
        else:
            w = np.zeros((m, n_words), dtype=np.uint64)
            w.view(np.uint8)[:, :row_bytes] = c.view(np.uint8).reshape(m, row_bytes)
        v = w ^ keys
        v ^= v >> np.uint64(30)
        v *= _M1
        v ^= v >> np.uint64(27)
        v *= _M2
        v ^= v >> np.uint64(31)
        out[a : a + m] = v.sum(axis=1, dtype=np.uint64)
    return out


def _take(blocks, starts, idx: np.ndarray, dtype) -> np.ndarray:
    """Rows ``idx`` (global indices over the stacked ``blocks``) in canonical form."""
    out = np.empty((idx.size, blocks[0].shape[1]), dtype=dtype)
    for B, s in zip(blocks, starts):
        sel = (idx >= s) & (idx < s + B.shape[0])
        if sel.any():
            out[sel] = B[idx[sel] - s]
    return _canonical(out, dtype)


def _rows_equal(blocks, starts, dtype, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """Per pair: rows ``ia[t]`` and ``ib[t]`` are identical (canonical values)."""
    d = blocks[0].shape[1]
    step = max(1, _HASH_BLOCK_WORDS // max(d, 1))
    eq = np.empty(ia.size, dtype=bool)
    for a in range(0, ia.size, step):
        ra = _take(blocks, starts, ia[a : a + step], dtype)
        rb = _take(blocks, starts, ib[a : a + step], dtype)
        eq[a : a + step] = np.all(ra == rb, axis=1)
    return eq


def first_occurrence(codes: np.ndarray) -> np.ndarray:
    """First position of each code, for codes numbered by first appearance (0, 1, 2, ...)."""
    if codes.size == 0:
        return np.zeros(0, dtype=np.int64)
    new = np.empty(codes.size, dtype=bool)
    new[0] = True
    new[1:] = codes[1:] > np.maximum.accumulate(codes)[:-1]
    return np.flatnonzero(new).astype(np.int64)


def factorize(values: np.ndarray) -> np.ndarray:
    """Codes 0, 1, ... in order of first appearance (a hash table: O(n), no sort)."""
    import pandas as pd

    return np.asarray(pd.factorize(values, sort=False)[0], dtype=np.int64)


def distinct_values(blocks, dtype):
    """Distinct-value id of every row of the stacked ``blocks`` (by first occurrence) and rows per value."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        dtype = np.dtype(np.uint8)
    starts = np.cumsum([0] + [B.shape[0] for B in blocks])[:-1]
    h = np.concatenate([hash_rows(B, dtype) for B in blocks])
    codes = factorize(h)
    counts = np.bincount(codes)
    first = first_occurrence(codes)
    cand = np.flatnonzero(counts[codes] >= 2)
    rep = first[codes[cand]]
    cand, rep = cand[cand != rep], rep[cand != rep]
    bad = cand[~_rows_equal(blocks, starts, dtype, cand, rep)]
    if bad.size:  # hash collision: split those hash classes by their actual rows
        codes = _split_collisions(blocks, starts, dtype, codes, np.unique(codes[bad]))
        codes = factorize(codes)
        counts = np.bincount(codes)
    return codes, counts.astype(np.int64)


def _split_collisions(blocks, starts, dtype, codes: np.ndarray, bad_codes: np.ndarray) -> np.ndarray:
    codes = codes.copy()
    members = np.flatnonzero(np.isin(codes, bad_codes))
    order = np.argsort(codes[members], kind="stable")
    members = members[order]
    parts = np.split(members, np.flatnonzero(np.diff(codes[members])) + 1)
    nxt = int(codes.max()) + 1
    for part in parts:
        rows = _take(blocks, starts, part, dtype)
        inv = np.unique(rows, axis=0, return_inverse=True)[1].ravel()
        codes[part] = nxt + inv
        nxt += int(inv.max()) + 1
    return codes


def unique_pairs(a: np.ndarray, b: np.ndarray):
    """The distinct pairs (a_t, b_t) as two arrays (sorted by a, then b)."""
    if a.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    a, b = a.astype(np.int64), b.astype(np.int64)
    nb = int(b.max()) + 1
    if int(a.max()) < (2**62) // max(nb, 1):
        key = np.unique(a * nb + b)
        return key // nb, key % nb
    order = np.lexsort((b, a))
    a, b = a[order], b[order]
    keep = np.ones(a.size, dtype=bool)
    keep[1:] = (a[1:] != a[:-1]) | (b[1:] != b[:-1])
    return a[keep], b[keep]


def min_row_per_value(value_ids: np.ndarray, rows: np.ndarray, V: int) -> np.ndarray:
    """Per distinct value: the smallest of ``rows`` holding it, -1 when none."""
    out = np.full(V, -1, dtype=np.int64)
    if rows.size:
        srt = np.sort(rows)
        vals, pos = np.unique(value_ids[srt], return_index=True)
        out[vals] = srt[pos]
    return out
