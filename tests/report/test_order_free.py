"""Nothing a reader or a gate sees depends on the order in which representations are given."""

from __future__ import annotations

import json

import numpy as np
import pytest

import auditad
from auditad.diff import diff_summaries


def _without_order(obj):
    """The summary with every list sorted (the order of listed names may follow the input order)."""
    if isinstance(obj, dict):
        return {k: _without_order(v) for k, v in obj.items() if k not in ("run", "config", "inputs", "captions")}
    if isinstance(obj, list):
        return sorted(json.dumps(_without_order(v), sort_keys=True) for v in obj)
    return obj


@pytest.mark.slow
def test_swapping_the_representations_changes_no_value_gate_or_verdict():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 60)
    centres = rng.normal(size=(3, 6)) * 2.0
    a = centres[y] + rng.normal(size=(180, 6))
    b = a[:, :3] + rng.normal(scale=1.5, size=(180, 3))  # a weaker representation: lower AUROC, more leakage
    settings = dict(detectors=["knn", "iforest"], null_runs=200, seed=0)
    first = auditad.run_audit({"a": a, "b": b}, y, name="bench", **settings)
    second = auditad.run_audit({"b": b, "a": a}, y, name="bench", **settings)
    s1, s2 = first.summary, second.summary
    assert _without_order(s1) == _without_order(s2)
    assert first.verdict == second.verdict
    assert [g["status"] for g in s1["gates"]] == [g["status"] for g in s2["gates"]]
    # the headline is defined by the results (and named), never by the input order
    assert s1["leakage"]["representation"] == "b" and s1["leakage"]["L_k"] == s1["leakage"]["max_L_k"]
    assert s1["protocol"]["representation"] == s2["protocol"]["representation"]
    d = diff_summaries(s1, s2)
    assert d.changed == () and d.added == () and d.removed == () and d.audited_set == ()
