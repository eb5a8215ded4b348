"""``audit_protocol(classes=...)``: only the wanted tasks run, with the numbers of the whole run's subset.

The semi-supervised setting of anomaly-labelled data is the one-class protocol on {normal, anomaly} restricted
to the task "normal"; the task "anomaly" (fitted on anomalies) is no evaluation and must not be run.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from auditad.errors import InvalidInputError
from auditad.protocol import audit_protocol, execution_stage


@pytest.fixture(scope="module")
def anomaly_data():
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(size=(200, 4)), rng.normal(loc=1.5, size=(40, 4))])
    labels = np.where(np.arange(240) < 200, "normal", "anomaly")
    return X, labels


def _run(X, labels, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return audit_protocol(
            X,
            labels,
            protocol="one_class",
            detectors=("knn", "iforest", "lof"),
            leakage_k=0,
            confirm_repeats=3,
            random_state=1,
            **kw,
        )


def test_only_the_wanted_task_runs_with_the_same_numbers(anomaly_data, monkeypatch):
    X, labels = anomaly_data
    seen = []
    run_task, scores = execution_stage._run_task, execution_stage._neighbour_scores

    def count_fit(*args):
        seen.append(("fit", args[1].size))
        return run_task(*args)

    def count_scores(det, lists, t, *rest):
        seen.append(("scores", t.c))
        return scores(det, lists, t, *rest)

    monkeypatch.setattr(execution_stage, "_run_task", count_fit)
    monkeypatch.setattr(execution_stage, "_neighbour_scores", count_scores)
    whole = _run(X, labels).subset(["normal"])
    n_whole = len(seen)
    seen.clear()
    only = _run(X, labels, classes=["normal"])
    assert len(seen) < n_whole  # the task "anomaly" was not run
    assert {c for kind, c in seen if kind == "scores"} == {1}  # class index of "normal" (labels sorted)
    # the same numbers; only the record of the confirmatory draws differs (the whole run re-ran a candidate of
    # the task "anomaly", which the subset drops)
    a, b = only.to_dict(), whole.to_dict()
    a.pop("confirmation"), b.pop("confirmation")
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert only.to_frame().equals(whole.to_frame())


def test_classes_must_be_labels(anomaly_data):
    X, labels = anomaly_data
    with pytest.raises(InvalidInputError, match="classes must be a non-empty subset"):
        _run(X, labels, classes=["outlier"])
