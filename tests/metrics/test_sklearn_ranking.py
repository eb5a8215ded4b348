"""Binary ROC-AUC and average-precision cases of scikit-learn's own test suite, ported to auditad.

Source: ``sklearn/metrics/tests/test_ranking.py`` (scikit-learn 1.9); each test names the function it ports and
keeps scikit-learn's expected values as the oracle. Cases where auditad deliberately differs (a named error
instead of nan for a single class) are ported as such and listed in docs/methods/metrics_nulls.md.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from sklearn import datasets
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score, precision_recall_curve, roc_auc_score, roc_curve
from sklearn.utils.validation import check_random_state

from auditad.errors import InvalidInputError
from auditad.metrics import aupr_trapezoid, auroc, average_precision


def make_prediction(binary=True):
    """scikit-learn's ``make_prediction``: a logistic regression on iris (+ noise features), classes 0/1."""
    dataset = datasets.load_iris()
    X, y = dataset.data, dataset.target
    if binary:
        X, y = X[y < 2], y[y < 2]
    n_samples, n_features = X.shape
    p = np.arange(n_samples)
    rng = check_random_state(37)
    rng.shuffle(p)
    X, y = X[p], y[p]
    half = int(n_samples / 2)
    rng = np.random.RandomState(0)
    X = np.c_[X, rng.randn(n_samples, 200 * n_features)]
    clf = LogisticRegression(random_state=0)
    y_score = clf.fit(X[:half], y[:half]).predict_proba(X[half:])[:, 1]
    y_pred = clf.predict(X[half:])
    return y[half:], y_pred, y_score


@pytest.fixture(scope="module")
def prediction():
    return make_prediction()


def _auc(y_true, y_score):
    """scikit-learn's alternative implementation of roc_auc_score (no ties)."""
    pos_label = np.unique(y_true)[1]
    pos = y_score[y_true == pos_label]
    neg = y_score[y_true != pos_label]
    diff_matrix = pos.reshape(1, -1) - neg.reshape(-1, 1)
    return np.sum(diff_matrix > 0) / float(len(pos) * len(neg))


def _average_precision_slow(y_true, y_score):
    """scikit-learn's definition-following AP."""
    precision, recall, _ = precision_recall_curve(y_true, y_score)
    precision, recall = list(reversed(precision)), list(reversed(recall))
    return sum(precision[i] * (recall[i] - recall[i - 1]) for i in range(1, len(precision)))


# --------------------------------------------------------------------------- ROC AUC
def test_roc_curve(prediction):  # test_roc_curve
    y_true, _, y_score = prediction
    assert auroc(y_true, y_score) == pytest.approx(_auc(y_true, y_score), abs=1e-12)
    assert auroc(y_true, y_score) == pytest.approx(roc_auc_score(y_true, y_score), abs=1e-12)


def test_roc_curve_confidence(prediction):  # test_roc_curve_confidence
    y_true, _, y_score = prediction
    assert round(auroc(y_true, y_score - 0.5), 2) == 0.90


def test_roc_curve_hard(prediction):  # test_roc_curve_hard
    y_true, pred, _ = prediction
    assert auroc(y_true, np.ones(y_true.shape)) == 0.5
    assert auroc(y_true, np.zeros(y_true.shape)) == 0.5
    assert round(auroc(y_true, pred), 2) == 0.78


@pytest.mark.parametrize(
    "y_true, y_score, expected",
    [  # test_roc_curve_toydata (binary cases)
        ([0, 1], [0, 1], 1.0),
        ([0, 1], [1, 0], 0.0),
        ([1, 0], [1, 1], 0.5),
        ([1, 0], [1, 0], 1.0),
        ([1, 0], [0.5, 0.5], 0.5),
    ],
)
def test_roc_curve_toydata(y_true, y_score, expected):
    assert auroc(y_true, y_score) == pytest.approx(expected, abs=1e-12)
    assert roc_auc_score(y_true, y_score) == pytest.approx(expected)


@pytest.mark.parametrize("y_true", [[0, 0], [1, 1], np.zeros(10, int), np.ones(10, int), np.full(10, -1)])
def test_one_class_is_a_named_error(y_true):
    """test_roc_curve_toydata / test_auc_score_non_binary_class: scikit-learn warns and returns nan.

    auditad deliberately raises a named error (InvalidInputError, a ValueError) instead.
    """
    y_score = np.linspace(0.1, 0.9, len(y_true))
    with pytest.raises(InvalidInputError, match="single class"):
        auroc(y_true, y_score)
    with pytest.raises(InvalidInputError, match="single class"):
        average_precision(y_true, y_score)


def test_score_scale_invariance(prediction):  # test_score_scale_invariance
    y_true, _, y_score = prediction
    roc = auroc(y_true, y_score)
    assert roc == auroc(y_true, 100 * y_score) == auroc(y_true, 1e-6 * y_score) == auroc(y_true, y_score - 10)
    pr = average_precision(y_true, y_score)
    assert pr == average_precision(y_true, 100 * y_score) == average_precision(y_true, 1e-6 * y_score)
    assert pr == average_precision(y_true, y_score - 10)


def _partial_roc_auc_score(y_true, y_predict, max_fpr):
    """scikit-learn's alternative implementation of roc_auc_score with max_fpr (McClish 1989, formula 5)."""
    fpr, tpr, _ = roc_curve(y_true, y_predict)
    new_fpr = np.append(fpr[fpr <= max_fpr], max_fpr)
    new_tpr = tpr[fpr <= max_fpr]
    idx_out = np.argmax(fpr > max_fpr)
    idx_in = idx_out - 1
    new_tpr = np.append(new_tpr, np.interp(max_fpr, [fpr[idx_in], fpr[idx_out]], [tpr[idx_in], tpr[idx_out]]))
    partial_auc = np.trapezoid(new_tpr, new_fpr)
    min_area, max_area = 0.5 * max_fpr**2, max_fpr
    return 0.5 * (1 + (partial_auc - min_area) / (max_area - min_area))


def test_partial_roc_auc_score(prediction):  # test_partial_roc_auc_score
    y_true = np.array([0, 0, 1, 1])
    assert auroc(y_true, y_true, max_fpr=1) == 1
    assert auroc(y_true, y_true, max_fpr=0.001) == 1
    for bad in (-0.1, 1.1, 0):
        with pytest.raises(InvalidInputError, match="max_fpr"):
            auroc(y_true, y_true, max_fpr=bad)
    y_scores = np.array([0.1, 0, 0.1, 0.01])
    assert auroc(y_true, y_scores, max_fpr=1) == auroc(y_true, y_scores)
    assert auroc(y_true, y_scores, max_fpr=0.3) == 0.5
    y_true, y_pred, _ = prediction
    for max_fpr in np.linspace(1e-4, 1, 5):
        assert auroc(y_true, y_pred, max_fpr=max_fpr) == pytest.approx(
            _partial_roc_auc_score(y_true, y_pred, max_fpr), abs=1e-12
        )
        assert auroc(y_true, y_pred, max_fpr=max_fpr) == pytest.approx(
            roc_auc_score(y_true, y_pred, max_fpr=max_fpr), abs=1e-12
        )


# --------------------------------------------------------------------------- average precision
def test_precision_recall_curve(prediction):  # test_precision_recall_curve / _test_precision_recall_curve
    y_true, _, y_score = prediction
    ap = average_precision(y_true, y_score)
    assert round(_average_precision_slow(y_true, y_score), 3) == 0.869
    assert ap == pytest.approx(_average_precision_slow(y_true, y_score), abs=1e-12)
    assert ap == pytest.approx(average_precision_score(y_true, y_score), abs=1e-12)
    y_pm = np.where(y_true == 0, -1, y_true)  # labels {-1, 1}; the input is not modified
    copy = y_pm.copy()
    assert average_precision(y_pm, y_score) == pytest.approx(ap, abs=1e-12)
    np.testing.assert_array_equal(copy, y_pm)


@pytest.mark.parametrize(
    "y_true, y_score, expected",
    [  # test_precision_recall_curve_toydata (binary cases)
        ([0, 1], [0, 1], 1.0),
        ([0, 1], [1, 0], 0.5),
        ([1, 0], [1, 1], 0.5),
        ([1, 0], [1, 0], 1.0),
        ([1, 0], [0.5, 0.5], 0.5),
    ],
)
def test_precision_recall_curve_toydata(y_true, y_score, expected):
    assert average_precision(y_true, y_score) == pytest.approx(expected, abs=1e-12)


def test_average_precision_constant_values():  # test_average_precision_constant_values
    y_true = np.zeros(100, dtype=int)
    y_true[::4] = 1
    assert average_precision(y_true, np.ones(100)) == 0.25


def test_average_precision_score_binary_pos_label_errors():  # test_average_precision_score_binary_pos_label_errors
    err_msg = re.escape("pos_label=2 is not a valid label. It should be one of [0 1]")
    with pytest.raises(ValueError, match=err_msg):
        average_precision(np.array([0, 1]), np.array([0, 1]), pos_label=2)


@pytest.mark.parametrize("classes", [(False, True), (0, 1), (0.0, 1.0), ("zero", "one")])
def test_ranking_metric_pos_label_types(classes):  # test_ranking_metric_pos_label_types (AP)
    rng = np.random.RandomState(42)
    n_samples, pos_label = 10, classes[-1]
    y_true = rng.choice(classes, size=n_samples, replace=True)
    y_proba = rng.rand(n_samples)
    result = average_precision(y_true, y_proba, pos_label=pos_label)
    assert not np.isnan(result)
    assert result == pytest.approx(average_precision_score(y_true, y_proba, pos_label=pos_label), abs=1e-12)


@pytest.mark.parametrize("dtype", ["<U1", object])
def test_implicit_pos_label_of_string_labels(dtype):
    """test_confusion_matrix_at_thresholds_implicit_pos_label: strings without pos_label are an error for AP
    (scikit-learn's message differs; auditad names pos_label), and float labels act like integers."""
    with pytest.raises(ValueError, match="pos_label"):
        average_precision(np.array(["a", "b"], dtype=dtype), [0.0, 1.0])
    y_pred = [0.0, 1.0, 0.2, 0.42]
    assert average_precision([0, 1, 1, 0], y_pred) == average_precision([0.0, 1.0, 1.0, 0.0], y_pred)
    # roc_auc_score's rule: the larger label is the positive class
    assert auroc(np.array(["a", "b", "b", "a"], dtype=dtype), y_pred) == roc_auc_score(
        np.array(["a", "b", "b", "a"], dtype=dtype), y_pred
    )


def test_zero_sample_weight():  # test_confusion_matrix_at_thresholds_zero_sample_weight
    y_true, y_score, w = [0, 0, 1, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.5], [1, 1, 1, 0.5, 0]
    for fn in (auroc, average_precision, aupr_trapezoid):
        assert fn(y_true, y_score, sample_weight=w) == pytest.approx(
            fn(y_true[:-1], y_score[:-1], sample_weight=w[:-1]), abs=1e-15
        )
    assert average_precision(y_true, y_score, sample_weight=w) == pytest.approx(
        average_precision_score(y_true, y_score, sample_weight=w), abs=1e-12
    )


def test_column_vector_and_label_forms(prediction):
    """y of shape (n, 1), {-1, 1}, booleans and strings with pos_label give the same AUROC/AP as {0, 1}."""
    y_true, _, y_score = prediction
    ref_roc, ref_ap = roc_auc_score(y_true, y_score), average_precision_score(y_true, y_score)
    forms = [
        (y_true[:, None], None),
        (np.where(y_true == 1, 1, -1), None),
        (y_true.astype(bool), None),
        (np.where(y_true == 1, "anomaly", "normal"), "anomaly"),
    ]
    for y, pos in forms:
        assert auroc(y, y_score, pos_label=pos) == pytest.approx(ref_roc, abs=1e-12)
        assert average_precision(y, y_score, pos_label=pos) == pytest.approx(ref_ap, abs=1e-12)
    # pos_label picks the other class: AUROC becomes 1 - AUROC of the scores
    assert auroc(y_true, y_score, pos_label=0) == pytest.approx(1 - ref_roc, abs=1e-12)
