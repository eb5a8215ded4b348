"""The CSR grouping of the leave-one-class-out lists (`auditad.protocol.neighbor_lists.csr`): values grouped by key, in
their input order within a key, whatever integer type the keys are sorted in (16-bit keys take numpy's radix sort)."""

from __future__ import annotations

import numpy as np
import pytest

from auditad.protocol.neighbor_lists import csr as _csr, csr_parts as _csr_parts, csr_rows as _csr_rows


@pytest.mark.parametrize("n_keys", [1, 7, 1000, 1 << 16, (1 << 16) + 1, 1_000_003])
@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_values_are_grouped_by_key_in_their_input_order(n_keys, dtype):
    rng = np.random.default_rng(n_keys)
    keys = rng.integers(0, n_keys, 50_000).astype(dtype)
    keys[:3] = n_keys - 1  # the largest key is present
    values = rng.permutation(keys.size)
    grouped, start = _csr(keys, values, n_keys)
    assert start.shape == (n_keys + 1,) and start[0] == 0 and start[-1] == keys.size
    for key in {0, n_keys // 2, n_keys - 1, int(keys[10]), int(keys[-1])}:
        # brute force: the values of this key, in the order they were given
        np.testing.assert_array_equal(_csr_rows((grouped, start), key), values[keys == key])
    np.testing.assert_array_equal(grouped, values[np.argsort(keys, kind="stable")])


def test_an_absent_key_has_no_rows_and_a_key_out_of_range_none():
    grouped, start = _csr(np.array([0, 0, 3]), np.array([5, 6, 7]), 5)
    assert _csr_rows((grouped, start), 1).size == 0 and _csr_rows((grouped, start), 4).size == 0
    assert _csr_rows((grouped, start), 5).size == 0 and _csr_rows((grouped, start), -1).size == 0
    np.testing.assert_array_equal(_csr_rows((grouped, start), 3), [7])


@pytest.mark.parametrize("n_keys", [1 << 16, (1 << 16) + 1, (1 << 20) + 5, 1 << 31, 1 << 32, (1 << 32) + 1, 1 << 40])
def test_the_radix_order_is_numpys_stable_order(n_keys):
    """Keys of up to 32 bits are sorted in two 16-bit radix passes (low half, then high half); the order is that
    of a stable sort of the keys themselves, ties in input order (many equal keys, and keys that differ only in
    their high or only in their low half)."""
    from auditad.protocol.neighbor_lists import stable_order

    rng = np.random.default_rng(n_keys % 1000)
    keys = rng.integers(0, n_keys, 30_000, dtype=np.int64)
    keys[:2000] = keys[0]  # ties
    keys[2000:4000] = (keys[2000:4000] & ~np.int64(0xFFFF)) | 7  # equal low halves
    keys[4000:6000] = keys[4000:6000] & np.int64(0xFFFF)  # equal (zero) high halves
    keys[6000:6010] = n_keys - 1
    keys = keys[rng.permutation(keys.size)]
    for dtype in (np.int64, np.int32) if n_keys <= 1 << 31 else (np.int64,):
        k = keys.astype(dtype)
        np.testing.assert_array_equal(stable_order(k, n_keys), np.argsort(k, kind="stable"))


@pytest.mark.parametrize("n_keys", [3, 1000, (1 << 16) + 1, 1_000_003])
def test_grouping_a_part_at_a_time_gives_the_whole_grouping(n_keys):
    """`_csr_parts` (the lists' entries a block of rows at a time: bounded temporaries) against `_csr` of the whole
    concatenation and numpy's stable sort: parts of unequal sizes, an empty part, keys absent from some parts."""
    rng = np.random.default_rng(n_keys)
    sizes = [5000, 0, 1, 12_345, 7000, 333]
    keys = [rng.integers(0, n_keys, s) for s in sizes]
    keys[3][:50] = n_keys - 1
    values = [rng.integers(0, 2**31 - 1, s).astype(np.int32) for s in sizes]
    grouped, start = _csr_parts(lambda j: (keys[j], values[j]), len(sizes), n_keys, np.int32)
    K, V = np.concatenate(keys), np.concatenate(values)
    whole = _csr(K, V, n_keys)
    assert grouped.dtype == np.int32
    np.testing.assert_array_equal(grouped, whole[0])
    np.testing.assert_array_equal(start, whole[1])
    np.testing.assert_array_equal(grouped, V[np.argsort(K, kind="stable")])
