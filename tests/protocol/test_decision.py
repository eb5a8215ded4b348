"""Tests of auditad.protocol.decision: one decision per class, read by every table, sentence and gate.

Expected values: Rubin's rules and Holm's procedure recomputed by hand, `auroc_ci` for one draw, and a rendered
report whose sentences are checked against its own tables.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy.stats import norm, t

from auditad.protocol.decision import combine_draws, decide_classes


def _holm(p):
    """Holm (1979) step-down adjusted p-values, by the definition."""
    order = np.argsort(p)
    m, out, run = len(p), np.empty(len(p)), 0.0
    for i, j in enumerate(order):
        run = max(run, min(1.0, (m - i) * p[j]))
        out[j] = run
    return out


def test_one_draw_passes_the_draw_through_and_holm_is_holm():
    a = np.array([[0.2], [0.53], [0.9], [np.nan]])
    lo, hi = a - 0.05, a + 0.05
    p = np.array([[1e-5], [0.3], [0.01], [np.nan]])
    d = decide_classes(a, lo, hi, p, None, confidence_level=0.95, epsilon=0.05)
    np.testing.assert_array_equal(d["estimate"][:3], a[:3, 0])
    np.testing.assert_array_equal(d["ci_low"][:3], lo[:3, 0])
    np.testing.assert_allclose(d["p_holm"][:3], _holm(p[:3, 0]))
    assert list(d["category"]) == ["significantly inverted", "near random", "above 1/2", "not evaluated"]
    assert list(d["distinguishable"]) == [True, False, True, False]
    assert list(d["p_method"]) == ["mann_whitney"] * 3 + [""]
    assert d["dominant"][0] == "test samples" and "one draw" in d["sources"][0]


def test_draws_on_both_sides_of_one_half_are_seed_sensitive_not_inverted():
    # one draw significantly below 1/2, the others above (the forest-seed case of a one-draw claim)
    a = np.array([[0.42, 0.61, 0.70, 0.55, 0.81]])
    d = decide_classes(
        a, a - 0.03, a + 0.03, np.array([[1e-4, 1e-3, 1e-6, 0.2, 1e-9]]), None, confidence_level=0.95, epsilon=0.05
    )
    assert d["category"][0] == "seed-sensitive" and not d["distinguishable"][0]
    assert d["dominant"][0] == "seeds and splits" and d["p_method"][0] == "rubin"
    # all draws below 1/2 and far from it: significantly inverted, whatever the spread
    b = np.array([[0.01, 0.02, 0.005]])
    d = decide_classes(b, b - 0.01, b + 0.01, np.full((1, 3), 1e-30), None, confidence_level=0.95, epsilon=0.05)
    assert d["category"][0] == "significantly inverted" and d["distinguishable"][0]


def test_rubin_combination_by_hand():
    rng = np.random.default_rng(3)
    a = rng.uniform(0.3, 0.7, (4, 6))
    half = rng.uniform(0.02, 0.1, (4, 6))
    c = combine_draws(a, a - half, a + half, confidence_level=0.9)
    z = norm.ppf(0.95)
    for k in range(4):
        W = np.mean((half[k] / z) ** 2)
        B = (1 + 1 / 6) * np.var(a[k], ddof=1)
        df = 5 * (1 + W / B) ** 2
        se = np.sqrt(W + B)
        assert c["estimate"][k] == pytest.approx(a[k].mean())
        assert c["ci_high"][k] == pytest.approx(a[k].mean() + t.ppf(0.95, df) * se)
        assert 10 ** c["log10_p_value"][k] == pytest.approx(2 * t.sf(abs(a[k].mean() - 0.5) / se, df), rel=1e-9)


# --------------------------------------------------------------------------- a rendered report agrees with itself
def _data():
    """Class 0 a tight cluster at the mode of the others (scored as most normal: AUROC far below ½), classes 1-5
    one broad cloud (held out, each looks much like the rest: several cannot be told from random)."""
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(0, 0.02, (60, 1))] + [rng.normal(0, 1.0, (60, 1)) for _ in range(5)])
    return X, np.repeat(np.arange(6), 60)


@pytest.fixture(scope="module")
def audit(tmp_path_factory):
    from _helpers import benchmark_inputs

    from auditad.audit.runner import run_audit

    X, y = _data()
    settings = {
        "detectors": ["knn", "iforest"],
        "confirm_repeats": 2,
        "null_metrics": ["auroc"],
        "null_runs": 50,
        "landscape_resolution": 11,
        "leakage_k": [3, 1],
    }
    inputs = benchmark_inputs("claims", {"raw": X}, y, settings)
    return run_audit([inputs], tmp_path_factory.mktemp("claims") / "out").audits[0]


def test_every_class_a_sentence_cannot_tell_apart_has_that_status_in_the_table(audit):
    rows = {(r["class"], r["detector"]): r for r in audit.summary["protocol"]["representations"]["raw"]["per_class"]}
    reading = next(s.reading for s in audit.sections if s.id == "nulls")
    m = re.search(r"; (.+?) cannot be told apart from a random detector", reading)
    assert m, reading
    named = re.findall(r"(\d+) \((\w+)\)", m.group(1))
    assert named
    for cls, det in named:
        row = rows[(int(cls), det)]
        assert row["distinguishable"] is False and row["significance"] != "significantly inverted", (cls, det, row)
    # and the other way round: every pair the table cannot tell apart (and not seed-sensitive) is named
    expected = {
        (str(c), d)
        for (c, d), r in rows.items()
        if d != "ensemble" and r["distinguishable"] is False and r["significance"] != "seed-sensitive"
    }
    assert set(named) == expected
    # class 0 (below 1/2 in every draw) is named exactly when the table does not call it significantly inverted
    row0 = rows[(0, "knn")]
    assert row0["estimate"] < 0.5 and row0["p_method"] == "rubin"
    assert (("0", "knn") in set(named)) == (row0["significance"] != "significantly inverted")


def test_one_p_value_per_auroc_in_every_table(audit):
    rows = {(r["class"], r["detector"]): r for r in audit.summary["protocol"]["representations"]["raw"]["per_class"]}
    for pc in audit.summary["nulls"]["per_class"]:
        for det, o in pc["observed"]["raw"].items():
            row = rows[(pc["class"], det)]
            assert o["p_value"] == row["p_value"] and o["status"] == row["significance"]
            assert o["distinguishable"] == row["distinguishable"]
    # the gate's rate counts the same statuses
    for det, dsum in audit.summary["protocol"]["representations"]["raw"]["detectors"].items():
        n_sig = sum(1 for (c, d), r in rows.items() if d == det and r["significance"] == "significantly inverted")
        assert dsum["n_inv_sig"] == n_sig
    # the confirmatory draws were run for the candidates of every detector (the split is drawn: kNN's too)
    conf = audit.summary["protocol"]["confirmation"]
    assert conf["repeats"] == 2
    assert rows[(0, "knn")]["p_method"] == "rubin"
