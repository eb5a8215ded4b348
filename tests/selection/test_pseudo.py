"""Tests of auditad.selection.pseudo: every construction does what Sec. 4.1 of the selection paper (Wilkinghoff & Tan) says."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from auditad.errors import InvalidInputError, SkippedItemWarning
from auditad.selection.pseudo import (
    cross_probe,
    diverse_probe,
    element_probe,
    feature_probe,
    home_values,
    make_probe,
    random_probe,
    sequence_probe,
)


@given(
    R=arrays(
        np.float64, st.tuples(st.integers(1, 12), st.integers(1, 6)), elements=st.floats(-1e6, 1e6, allow_nan=False)
    ),
    seed=st.integers(0, 2**32 - 1),
)
@settings(max_examples=60, deadline=None)
def test_feature_probe_takes_column_j_from_column_j(R, seed):
    P = feature_probe(R, random_state=seed).X
    assert P.shape == R.shape
    for j in range(R.shape[1]):
        assert np.isin(P[:, j], R[:, j]).all()


def test_feature_probe_mixes_reference_rows():
    R = np.arange(40.0).reshape(8, 5) * np.array([1, 100, 10_000, 1e6, 1e8])
    P = feature_probe(R, n=200, random_state=1).X
    rows_of = np.stack([np.searchsorted(R[:, j], P[:, j]) for j in range(5)], axis=1)
    # dimensions are drawn independently: most pseudo-anomalies combine several reference rows
    assert np.mean([len(set(r)) > 1 for r in rows_of]) > 0.9
    # and every reference row is used
    assert set(rows_of.ravel()) == set(range(8))


def test_random_probe_is_standard_normal_and_seeded():
    R = np.zeros((4000, 3)) + 100.0
    p = random_probe(R, random_state=5)
    assert p.n_samples == 4000 and p.kind == "random"
    assert abs(p.X.mean()) < 0.05 and abs(p.X.std() - 1) < 0.05
    np.testing.assert_array_equal(p.X, random_probe(R, random_state=5).X)
    assert not np.array_equal(p.X, random_probe(R, random_state=6).X)
    assert "N(0, I_3)" in p.source


def test_sequence_probe_frames_come_from_same_position_of_other_samples():
    rng = np.random.default_rng(0)
    S = rng.normal(size=(6, 5, 3))
    p = sequence_probe(S, n=50, random_state=2)
    assert p.X.shape == (50, 5, 3)
    for seq in p.X:
        src = []
        for t in range(5):
            match = np.flatnonzero(np.all(S[:, t, :] == seq[t], axis=1))
            assert match.size == 1
            src.append(int(match[0]))
        assert len(set(src)) >= 2  # at least two different samples in every pseudo-sequence


def test_sequence_probe_skips_single_frames():
    with pytest.warns(SkippedItemWarning, match="length >= 2"):
        p = sequence_probe(np.zeros((4, 1, 2)))
    assert p.skipped and p.n_samples == 0


@pytest.mark.parametrize("n_swap", [1, 2])
def test_element_probe_exchanges_frames_between_samples(n_swap):
    # every frame value is unique, so each frame can be traced back to (sample, position)
    S = np.arange(5 * 4 * 2, dtype=float).reshape(5, 4, 2)
    p = element_probe(S, n_swap=n_swap, random_state=3)
    assert p.n_samples == 5
    for i, seq in enumerate(p.X):
        changed = np.flatnonzero(np.any(seq != S[i], axis=1))
        assert changed.size == n_swap
        for t in changed:
            donor = int(seq[t, 0]) // 8  # 8 values per sample
            assert donor != i


def test_element_probe_bad_n_swap():
    with pytest.raises(InvalidInputError, match="n_swap"):
        element_probe(np.zeros((3, 2, 2)), n_swap=3)


META_REF = {"class": ["fan"] * 6, "domain": ["src"] * 5 + ["tgt"], "attribute": ["a", "a", "a", "a", "b", "a"]}
META_AUX = {
    "class": ["fan", "fan", "pump", "valve", "fan", "pump"],
    "domain": ["src", "tgt", "src", "tgt", "src", "src"],
    "attribute": ["c", "a", "a", "a", "a", "c"],
}


def test_home_values_majority_and_declared():
    assert home_values({k: np.array(v) for k, v in META_REF.items()}) == {
        "class": "fan",
        "domain": "src",
        "attribute": "a",
    }
    assert home_values({"domain": np.array(["x", "y"])}) == {"domain": "x"}  # tie -> smallest
    assert home_values({"domain": np.array(["x", "y"])}, {"domain": "y"}) == {"domain": "y"}


def test_cross_class_never_contains_the_home_class():
    p = cross_probe("cross_class", META_REF, auxiliary_meta=META_AUX)
    assert p.reference_index.size == 0
    assert p.auxiliary_index.tolist() == [2, 3, 5]
    assert all(META_AUX["class"][i] != "fan" for i in p.auxiliary_index)


def test_cross_domain_and_attribute_keep_the_home_class():
    d = cross_probe("cross_domain", META_REF, auxiliary_meta=META_AUX)
    assert d.reference_index.tolist() == [5] and d.auxiliary_index.tolist() == [1]  # valve/tgt is cross-class
    a = cross_probe("cross_attribute", META_REF, auxiliary_meta=META_AUX)
    assert a.reference_index.tolist() == [4] and a.auxiliary_index.tolist() == [0]
    assert "1 reference and 1 auxiliary" in a.source


def test_cross_probe_without_eligible_samples_is_skipped_with_warning():
    with pytest.warns(SkippedItemWarning, match="cross_class"):
        p = cross_probe("cross_class", {"class": ["a", "a"]}, auxiliary_meta={"class": ["a"]})
    assert p.skipped and "no normal sample" in p.reason and p.n_samples == 0
    with pytest.warns(SkippedItemWarning, match="no 'domain' metadata"):
        p = cross_probe("cross_domain", {"class": ["a", "a"]})
    assert p.skipped
    with pytest.raises(InvalidInputError, match="empty"):
        p.embeddings(np.zeros((2, 2)))


def test_metadata_validation():
    with pytest.raises(InvalidInputError, match="unknown column 'colour'"):
        cross_probe("cross_class", {"colour": ["a"]})
    with pytest.raises(InvalidInputError, match="2 entries"):
        cross_probe("cross_class", {"class": ["a", "b"]}, auxiliary_meta={"class": ["a"]}, n_auxiliary=2)


def test_diverse_concatenates_available_parts():
    R = np.arange(12.0).reshape(6, 2)
    aux = np.arange(100.0, 112.0).reshape(6, 2)
    p = make_probe("diverse", R, reference_meta=META_REF, auxiliary_meta=META_AUX, random_state=0)
    assert p.parts == ("feature", "cross_domain", "cross_class", "cross_attribute")
    assert p.n_samples == 6 + 2 + 3 + 2
    emb = p.embeddings(R, aux)
    assert emb.shape == (13, 2)
    np.testing.assert_array_equal(emb[6:8], R[[5, 4]])  # reference rows: cross_domain then cross_attribute
    # feature part identical to the feature probe with the same seed
    np.testing.assert_array_equal(p.X, make_probe("feature", R, random_state=0).X)
    # without metadata only the feature part is available
    q = make_probe("diverse", R, random_state=0, warn=False)
    assert q.parts == ("feature",) and "unavailable: cross_domain, cross_class, cross_attribute" in q.source
    assert diverse_probe([q]).n_samples == 6


def test_make_probe_dispatch_and_seeds():
    R = np.random.default_rng(0).normal(size=(10, 3))
    S = np.random.default_rng(1).normal(size=(10, 4, 3))
    for kind in ("random", "feature"):
        a, b = make_probe(kind, R, random_state=7), make_probe(kind, R, random_state=7)
        np.testing.assert_array_equal(a.X, b.X)
        assert a.n_samples == 10 and a.to_dict()["n_generated"] == 10
    for kind in ("sequence", "element"):
        a = make_probe(kind, R, sequences=S, random_state=7)
        np.testing.assert_array_equal(a.X, make_probe(kind, R, sequences=S, random_state=7).X)
        assert a.X.shape == S.shape
    with pytest.warns(SkippedItemWarning, match="no sequence embeddings"):
        assert make_probe("sequence", R).skipped
    with pytest.raises(InvalidInputError, match="probe"):
        make_probe("gaussian", R)
    row = make_probe("feature", R, random_state=0).to_frame().iloc[0]
    assert row["n_samples"] == 10 and row["kind"] == "feature"
