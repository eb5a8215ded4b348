"""Tests of auditad.protocol ("Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection")."""

from __future__ import annotations

import json
import warnings

import numpy as np
from scipy.stats import norm
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditad.errors import InvalidInputError, SkippedItemWarning, UndefinedValueWarning
from auditad.protocol import (
    Detector,
    IsolationForestDetector,
    KNNDetector,
    LOFDetector,
    audit_protocol,
    instability_rates,
)


# --------------------------------------------------------------------------- oracles
def rates_oracle(aurocs, eps):
    """Brute-force loop over classes, written straight from the definitions of the rates."""
    vals = [a for a in aurocs if not np.isnan(a)]
    K = len(vals)
    near = inv = up = down = 0
    for a in vals:
        if abs(a - 0.5) <= eps + 1e-12:
            near += 1
        elif a > 0.5:
            up += 1
        else:
            down += 1
        if a < 0.5:
            inv += 1
    mean = sum(vals) / K
    var = sum((a - mean) ** 2 for a in vals) / K
    return {
        "rho_rnd": near / K,
        "rho_inv": inv / K,
        "rho_dir": 1 - max(up, down) / K,
        "sigma2_auc": var,
        "range_auc": max(vals) - min(vals),
    }


def kth_distance_scores(train, test, k):
    """kNN detector oracle: scikit-learn NearestNeighbors, distance to the k-th nearest training row."""
    from sklearn.neighbors import NearestNeighbors

    return NearestNeighbors(n_neighbors=k).fit(train).kneighbors(test)[0][:, -1]


def per_class_leakage_oracle(X, y, k):
    """Per-class leakage by brute force (full distance matrix, self excluded, ties by index)."""
    d = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(d, np.inf)
    nn = np.argsort(d, axis=1, kind="stable")[:, :k]
    ell = (y[nn] != y[:, None]).mean(axis=1)
    return {c: ell[y == c].mean() for c in np.unique(y)}


@pytest.fixture(scope="module")
def digits():
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    keep = np.isin(y, [0, 1, 3, 8])
    return X[keep][:480], y[keep][:480]


def core_far_benchmark(n=120, seed=0):
    """Classes 0, 1: broad overlapping Gaussians; 2: a tight cluster in the dense core between them; 3: far away."""
    rng = np.random.default_rng(seed)
    X = np.vstack(
        [
            rng.normal(0, 1, (n, 2)),
            rng.normal(0, 1, (n, 2)) + [1.5, 0],
            rng.normal(0, 0.1, (n, 2)) + [0.75, 0],
            rng.normal(0, 1, (n, 2)) + [12, 12],
        ]
    )
    return X, np.repeat([0, 1, 2, 3], n)


FAST = ("knn", IsolationForestDetector(n_estimators=25), LOFDetector(n_neighbors=10))


# --------------------------------------------------------------------------- instability_rates
def test_rates_hand_made_vector():
    r = instability_rates([0.9, 0.3, 0.52, 0.48, 0.7], epsilon=0.05)
    assert r.rho_inv == pytest.approx(0.4)
    assert r.rho_rnd == pytest.approx(0.4)
    assert r.rho_dir == pytest.approx(0.6)
    assert r.directions.tolist() == [1, -1, 0, 0, 1]
    assert (r.n_up, r.n_down, r.n_near, r.n_classes) == (2, 1, 2, 5)
    assert r.sigma2_auc == pytest.approx(np.var([0.9, 0.3, 0.52, 0.48, 0.7]))
    assert r.std_auc == pytest.approx(np.std([0.9, 0.3, 0.52, 0.48, 0.7]))
    assert r.range_auc == pytest.approx(0.6)


def test_rates_direction_instability_can_exceed_half():
    # two near-random classes count for neither side: rho_dir = 1 - 1/3
    r = instability_rates([0.5, 0.51, 0.9], epsilon=0.05)
    assert r.rho_dir == pytest.approx(2 / 3)
    assert instability_rates([0.5, 0.5], epsilon=0.05).rho_dir == 1.0


def test_rates_band_is_closed_and_symmetric():
    r = instability_rates([0.55, 0.45, 0.5501, 0.4499], epsilon=0.05)
    assert r.near_random.tolist() == [True, True, False, False]
    # inversion has no band
    assert r.inverted.tolist() == [False, True, False, True]
    assert instability_rates([0.5], epsilon=0.0).rho_rnd == 1.0
    assert instability_rates([0.5], epsilon=0.0).rho_inv == 0.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=12), st.sampled_from([0.0, 0.01, 0.05, 0.1, 0.25]))
def test_rates_match_bruteforce_oracle(values, eps):
    r = instability_rates(values, epsilon=eps)
    expected = rates_oracle(values, eps)
    for key, value in expected.items():
        assert getattr(r, key) == pytest.approx(value, abs=1e-12)


def test_rates_nan_entries_left_out_with_warning():
    with pytest.warns(UndefinedValueWarning, match="nan"):
        r = instability_rates([0.9, np.nan, 0.3], epsilon=0.05, classes=["a", "b", "c"])
    assert r.n_classes == 2 and r.rho_inv == 0.5 and r.rho_dir == 0.5
    assert r.to_frame()["class"].tolist() == ["a", "b", "c"]
    json.dumps(r.to_dict(), allow_nan=False)


@pytest.mark.parametrize("eps", [-0.01, 0.5, 0.7, float("nan"), "0.05"])
def test_rates_bad_epsilon(eps):
    with pytest.raises(InvalidInputError, match="epsilon"):
        instability_rates([0.6, 0.4], epsilon=eps)


@pytest.mark.parametrize(
    "bad, match", [([], "empty"), ([np.nan], "only nan"), ([1.2], r"\[0, 1\]"), ([[0.5, 0.6]], "1-D")]
)
def test_rates_bad_aurocs(bad, match):
    with pytest.raises(InvalidInputError, match=match):
        instability_rates(bad)


# --------------------------------------------------------------------------- detectors and sign conventions
def test_builtin_detectors_follow_higher_is_anomalous():
    from sklearn.ensemble import IsolationForest
    from sklearn.neighbors import LocalOutlierFactor

    rng = np.random.default_rng(1)
    train, test = rng.normal(size=(200, 3)), rng.normal(size=(50, 3))
    test[:10] += 8  # far anomalies
    iso = IsolationForestDetector(n_estimators=30, random_state=3).fit(train).score_samples(test)
    ref = IsolationForest(n_estimators=30, random_state=3).fit(train).score_samples(test)
    np.testing.assert_allclose(iso, -ref)
    lof = LOFDetector(n_neighbors=15).fit(train).score_samples(test)
    np.testing.assert_allclose(lof, -LocalOutlierFactor(n_neighbors=15, novelty=True).fit(train).score_samples(test))
    knn = KNNDetector(k=4, backend="exact").fit(train).score_samples(test)
    np.testing.assert_allclose(knn, kth_distance_scores(train, test, 4))
    for s in (iso, lof, knn):  # the far points get the highest scores
        assert s[:10].min() > s[10:].max()


def test_isolation_forest_keeps_float32_rows_and_gives_the_same_bits(monkeypatch):
    # the trees split in float32 whatever the input: float32 rows score exactly as their float64 copy and as
    # scikit-learn's own estimator; in the protocol each tree is fitted on its own float32 subsample only
    from sklearn.ensemble import IsolationForest
    from sklearn.tree import ExtraTreeRegressor

    rng = np.random.default_rng(4)
    train = (rng.normal(size=(3000, 16)) * 1e3).astype(np.float32)  # magnitudes where float32 rounding shows
    test = (rng.normal(size=(400, 16)) * 1e3 + 0.1).astype(np.float32)
    s32 = IsolationForestDetector(n_estimators=40, random_state=5).fit(train).score_samples(test)
    s64 = (
        IsolationForestDetector(n_estimators=40, random_state=5)
        .fit(train.astype(np.float64))
        .score_samples(test.astype(np.float64))
    )
    ref = IsolationForest(n_estimators=40, random_state=5).fit(train).score_samples(test)
    np.testing.assert_array_equal(s32, s64)
    np.testing.assert_array_equal(s32, -ref)
    seen = []
    fit = ExtraTreeRegressor.fit
    monkeypatch.setattr(
        ExtraTreeRegressor,
        "fit",
        lambda self, X, *a, **kw: (seen.append((X.dtype, X.shape[0])), fit(self, X, *a, **kw))[1],
    )
    X, y = core_far_benchmark(n=60)
    audit_protocol(X, y, detectors=[IsolationForestDetector(n_estimators=5)], leakage_k=0, random_state=4)
    assert seen and {dt for dt, _ in seen} == {np.dtype(np.float32)} and max(n for _, n in seen) <= 256


def test_sklearn_object_is_negated_and_explicit_sign_respected():
    from sklearn.ensemble import IsolationForest

    X, y = core_far_benchmark(n=60)
    kw = dict(leakage_k=0, random_state=4)
    builtin = audit_protocol(X, y, detectors=[IsolationForestDetector(n_estimators=20)], **kw)
    bare = audit_protocol(X, y, detectors=[IsolationForest(n_estimators=20)], **kw)
    np.testing.assert_array_equal(builtin.auroc, bare.auroc)
    assert bare.detector_info[0]["score_sign"] == -1
    wrong = audit_protocol(
        X, y, detectors=[Detector(IsolationForest(n_estimators=20), higher_is_anomalous=True, name="iforest_raw")], **kw
    )
    np.testing.assert_allclose(wrong.auroc, 1.0 - builtin.auroc)
    assert wrong.detector_info[0]["score_sign"] == 1


# --------------------------------------------------------------------------- the protocol
def test_core_class_is_inverted_far_class_is_not():
    X, y = core_far_benchmark()
    res = audit_protocol(X, y, detectors=FAST, leakage_k=0, random_state=0)
    knn = res.to_frame().query("detector == 'knn'").set_index("class")
    assert knn.loc[2, "auroc"] < 0.2 and knn.loc[2, "ci_high"] < 0.5 and knn.loc[2, "p_value"] < 1e-6
    assert knn.loc[2, "direction"] == -1 and bool(knn.loc[2, "inverted"])
    assert knn.loc[3, "auroc"] > 0.95 and knn.loc[3, "direction"] == 1
    for det in ("knn", "iforest", "lof"):
        row = res.summary(detector=det)
        assert row["rho_inv"] == 0.25 and row["n_classes"] == 4
    assert res.summary()["rho_inv"] == pytest.approx(0.25)


def test_aurocs_match_independent_recomputation_with_user_split():
    from sklearn.metrics import roc_auc_score
    from sklearn.neighbors import LocalOutlierFactor

    X, y = core_far_benchmark(n=50, seed=2)
    split = np.where(np.arange(y.size) % 4 == 0, "test", "train")
    res = audit_protocol(
        X, y, detectors=[KNNDetector(k=3), LOFDetector(n_neighbors=8)], split=split, leakage_k=0, random_state=0
    )
    test = split == "test"
    for c_i, c in enumerate(res.classes):
        train = (y != c) & ~test
        tn, an = (y != c) & test, (y == c) & test
        Z = np.vstack([X[tn], X[an]])
        lab = np.r_[np.zeros(tn.sum()), np.ones(an.sum())]
        assert res.n_pos[c_i, 0] == an.sum() and res.n_neg[c_i, 0] == tn.sum()
        knn = roc_auc_score(lab, kth_distance_scores(X[train], Z, 3))
        lof = roc_auc_score(lab, -LocalOutlierFactor(n_neighbors=8, novelty=True).fit(X[train]).score_samples(Z))
        assert res.auroc[0, 0, c_i, 0] == pytest.approx(knn, abs=1e-12)
        assert res.auroc[0, 1, c_i, 0] == pytest.approx(lof, abs=1e-12)
    table = res.to_frame()
    expected = rates_oracle(table.query("detector == 'knn'")["auroc"].tolist(), 0.05)
    assert res.summary(detector="knn")["rho_dir"] == pytest.approx(expected["rho_dir"])
    assert res.summary(detector="knn")["sigma2_auc"] == pytest.approx(expected["sigma2_auc"])


def test_same_seed_identical_tables_and_parallel_equal(digits):
    X, y = digits
    kw = dict(detectors=FAST, repeats=2, leakage_k=0, random_state=11)
    a = audit_protocol(X, y, **kw)
    b = audit_protocol(X, y, **kw)
    c = audit_protocol(X, y, n_jobs=2, **kw)
    import pandas.testing as pdt

    for table in ("per_class", "summary", "per_repeat"):
        pdt.assert_frame_equal(a.to_frame(table), b.to_frame(table))
        pdt.assert_frame_equal(a.to_frame(table), c.to_frame(table))
    assert json.dumps(a.to_dict(), allow_nan=False) == json.dumps(b.to_dict(), allow_nan=False)
    assert json.dumps(a.to_dict(), allow_nan=False) == json.dumps(c.to_dict(), allow_nan=False)
    d = audit_protocol(X, y, **{**kw, "random_state": 12})
    assert not np.array_equal(a.auroc, d.auroc)


def test_repeats_report_split_spread(digits):
    X, y = digits
    res = audit_protocol(X, y, detectors=["knn"], repeats=3, leakage_k=0, random_state=0)
    per_repeat = res.to_frame("per_repeat")
    assert len(per_repeat) == 1 * 1 * 4 * 3
    per_class = res.to_frame().query("detector == 'knn'")
    by_class = per_repeat.groupby("class")["auroc"]
    np.testing.assert_allclose(per_class["auroc"].to_numpy(), by_class.mean().to_numpy())
    np.testing.assert_allclose(per_class["auroc_split_std"].to_numpy(), by_class.std(ddof=0).to_numpy())
    assert (per_class["auroc_split_std"] > 0).all()
    assert np.isfinite(res.summary(detector="knn")["rho_dir_split_std"])
    # one interval and one p per class: Rubin's rules over the repeats, recomputed here by hand
    from scipy.stats import t

    z = norm.ppf(0.975)
    for (label, grp), row in zip(per_repeat.groupby("class"), per_class.itertuples()):
        a, S = grp["auroc"].to_numpy(), len(grp)
        W = np.mean(((grp["ci_high"] - grp["ci_low"]).to_numpy() / (2 * z)) ** 2)
        B = (1 + 1 / S) * np.var(a, ddof=1)
        df = (S - 1) * (1 + W / B) ** 2
        se = np.sqrt(W + B)
        assert row.estimate == pytest.approx(a.mean()) and row.p_method == "rubin"
        assert row.ci_low == pytest.approx(max(0.0, a.mean() - t.ppf(0.975, df) * se), rel=1e-9)
        assert row.p_value == pytest.approx(2 * t.sf(abs(a.mean() - 0.5) / se, df), rel=1e-6)
        assert row.dominant_source == ("seeds and splits" if B > W else "test samples")


def test_contamination_subsamples_anomalies(digits):
    X, y = digits
    res = audit_protocol(X, y, detectors=["knn"], contamination=0.1, leakage_k=0, random_state=0)
    expected = np.round(0.1 / 0.9 * res.n_neg).astype(int)
    np.testing.assert_array_equal(res.n_pos, expected)
    with pytest.warns(UserWarning, match="contamination"):
        audit_protocol(X, y, detectors=["knn"], contamination=0.9, leakage_k=0, random_state=0)


def detector_mean_oracle(per_repeat, rep):
    """Detector-mean AUROC(c) by hand from the per-task table: mean over repeats, then over detectors."""
    sub = per_repeat[per_repeat["representation"] == rep]
    by_det = sub.groupby(["detector", "class"])["auroc"].mean().unstack("class")
    return by_det.mean(axis=0)  # pandas skips nan


def test_one_class_protocol_and_multiple_representations(digits):
    from sklearn.decomposition import PCA

    X, y = digits
    reps = {"pixels": X, "pca8": PCA(8, random_state=0).fit_transform(X)}
    res = audit_protocol(
        reps, y, protocol="one_class", detectors=["knn", LOFDetector(n_neighbors=10)], leakage_k=0, random_state=0
    )
    summ = res.to_frame("summary")
    assert summ["representation"].tolist() == ["pixels"] * 3 + ["pca8"] * 3
    assert summ["detector"].tolist() == ["knn", "lof", "ensemble"] * 2
    assert (summ["mean_auc"] > 0.8).all()
    # one-class: normals = class c, so n_neg is about 20 % of class c and n_pos the other classes
    counts = np.bincount(y)[np.unique(y)]
    np.testing.assert_array_equal(res.n_pos[:, 0], y.size - counts)
    d = res.to_dict()
    json.dumps(d, allow_nan=False)
    per_repeat = res.to_frame("per_repeat")
    for rep in ("pixels", "pca8"):
        # "ensemble" = statistics of the detector-mean AUROC(c), recomputed by hand from the per-task table
        mean_auc = detector_mean_oracle(per_repeat, rep)
        expected = rates_oracle(mean_auc.tolist(), 0.05)
        for key, value in expected.items():
            assert d["representations"][rep]["ensemble"][key] == pytest.approx(value, abs=1e-12), (rep, key)
        rows = [r for r in d["representations"][rep]["per_class"] if r["detector"] == "ensemble"]
        np.testing.assert_allclose([r["auroc"] for r in rows], mean_auc.to_numpy(), rtol=0, atol=1e-12)
        # "mean" (the paper's): per-detector rates averaged over the detectors; "worst": their maximum
        per_det = {
            det: rates_oracle(
                per_repeat[(per_repeat["representation"] == rep) & (per_repeat["detector"] == det)]["auroc"].tolist(),
                0.05,
            )
            for det in ("knn", "lof")
        }
        for key in ("rho_dir", "rho_inv", "sigma2_auc"):
            avg = np.mean([per_det[det][key] for det in ("knn", "lof")])
            assert res.detector_average(rep)[key] == pytest.approx(avg, abs=1e-12)
            assert d["representations"][rep]["mean"][key] == pytest.approx(avg, abs=1e-12)
            assert d["representations"][rep]["worst"][key] == pytest.approx(
                max(per_det[det][key] for det in ("knn", "lof")), abs=1e-12
            )
    assert d["mean"]["rho_dir"] == d["representations"]["pixels"]["mean"]["rho_dir"]


def test_one_meaning_of_mean_on_digits():
    """The summary "mean", the per-class "mean" rows, the heatmap column and instability agree."""
    import matplotlib

    matplotlib.use("Agg")
    from sklearn.datasets import load_digits

    from auditad.plotting import plot_protocol_heatmap

    X, y = load_digits(return_X_y=True)
    res = audit_protocol(
        X, y, detectors=["knn", IsolationForestDetector(n_estimators=50), "lof"], leakage_k=0, random_state=0
    )
    summary = res.summary(detector="mean")
    per_class = res.to_frame().query("detector == 'ensemble'")
    assert summary["rho_inv"] == pytest.approx(per_class["inverted"].mean(), abs=1e-15)
    assert summary["rho_rnd"] == pytest.approx(per_class["near_random"].mean(), abs=1e-15)
    assert summary["mean_auc"] == pytest.approx(per_class["auroc"].mean(), abs=1e-12)
    assert summary["sigma2_auc"] == pytest.approx(np.var(per_class["auroc"].to_numpy()), abs=1e-12)
    oracle = rates_oracle(detector_mean_oracle(res.to_frame("per_repeat"), "X").tolist(), 0.05)
    assert summary["rho_dir"] == pytest.approx(oracle["rho_dir"], abs=1e-15)
    inst = res.instability[("X", "ensemble")]
    assert (inst.rho_inv, inst.rho_dir, inst.rho_rnd) == (summary["rho_inv"], summary["rho_dir"], summary["rho_rnd"])
    img = plot_protocol_heatmap(res).images[0].get_array()
    np.testing.assert_allclose(img[:, -1], per_class["auroc"].to_numpy())
    assert np.isnan(summary["rho_nonsig"])  # no test of AUROC = 1/2 for an average of detectors


def test_leakage_next_to_auroc(digits):
    pytest.importorskip("auditad.leakage")
    from scipy.stats import spearmanr

    X, y = digits
    X, y = X[::2], y[::2]
    res = audit_protocol(X, y, detectors=["knn"], leakage_k=5, backend="exact", random_state=0)
    oracle = per_class_leakage_oracle(X, y, 5)
    table = res.to_frame().query("detector == 'knn'")
    np.testing.assert_allclose(table["leakage"].to_numpy(), [oracle[c] for c in table["class"]])
    expected = spearmanr(table["leakage"], table["auroc"]).statistic
    assert res.summary(detector="knn")["spearman_leakage_auroc"] == pytest.approx(expected)
    assert res.to_dict()["representations"]["X"]["leakage"]["k"] == 5


# --------------------------------------------------------------------------- bad input
def test_too_small_class_is_skipped_with_warning():
    X, y = core_far_benchmark(n=30)
    X, y = np.vstack([X, [[5.0, 5.0]]]), np.r_[y, 9]  # class 9 has one sample
    with pytest.warns(SkippedItemWarning, match="too few to split"):
        res = audit_protocol(X, y, protocol="one_class", detectors=["knn"], k=2, leakage_k=0, random_state=0)
    assert np.isnan(res.auroc[0, 0, -1, 0]) and np.isfinite(res.auroc[0, 0, :-1, 0]).all()
    assert res.summary(detector="knn")["n_classes"] == 4
    assert res.skipped[0]["class"] == 9
    # a detector that needs more training normals than a class has is skipped for that (class, detector) only
    rng = np.random.default_rng(5)
    X2, y2 = np.vstack([X[:-1], rng.normal(5, 1, (10, 2))]), np.r_[y[:-1], np.full(10, 9)]  # class 9: 8 train
    with pytest.warns(SkippedItemWarning, match="too few training normals"):
        res = audit_protocol(
            X2,
            y2,
            protocol="one_class",
            detectors=["knn", LOFDetector(n_neighbors=10)],
            k=2,
            leakage_k=0,
            random_state=0,
        )
    assert np.isfinite(res.auroc[0, 0]).all() and np.isnan(res.auroc[0, 1, -1]).all()
    assert np.isfinite(res.auroc[0, 1, :-1]).all()
    assert res.summary(detector="lof")["n_classes"] == 4
    # the detector mean of class 9 is the kNN value alone (mean over the detectors evaluated on it)
    assert res.aurocs(detector="mean")[-1] == res.auroc[0, 0, -1, 0]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(detectors=["knn"], k=500), r"k=500"),
        (dict(detectors=["knn", LOFDetector(n_neighbors=400)]), r"n_neighbors=400"),
    ],
)
def test_no_task_could_be_evaluated_is_bad_input(kwargs, match):
    X, y = core_far_benchmark(n=30)
    with pytest.raises(InvalidInputError, match=match) as info:
        audit_protocol(X, y, leakage_k=0, random_state=0, **kwargs)
    assert "largest training set has 72" in str(info.value) and "--" not in str(info.value)


class _Constant:
    def fit(self, X):
        return self

    def score_samples(self, X):
        return np.ones(len(X))


class _NoScores:
    def fit(self, X):
        return self

    def decision_function(self, X):
        return np.zeros(len(X))


class _WrongLength(_Constant):
    def score_samples(self, X):
        return np.arange(len(X) + 1.0)


def test_constant_scores_give_half_with_warning():
    X, y = core_far_benchmark(n=20)
    with pytest.warns(UndefinedValueWarning, match="constant scores"):
        res = audit_protocol(
            X, y, detectors=[Detector(_Constant(), higher_is_anomalous=True)], leakage_k=0, random_state=0
        )
    assert (res.auroc == 0.5).all()
    assert res.summary(detector="_Constant")["rho_rnd"] == 1.0
    assert res.summary(detector="_Constant")["rho_dir"] == 1.0


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(detectors=[_NoScores()]), "higher_is_anomalous=True/False"),
        (dict(detectors=["svm"]), "detectors"),
        (dict(detectors=[]), "at least one"),
        (dict(detectors=["knn", KNNDetector(k=2)]), "unique"),
        (dict(epsilon=0.5), "epsilon"),
        (dict(epsilon=-0.1), "epsilon"),
        (dict(protocol="1vsrest"), "protocol"),
        (dict(train_fraction=1.0), "train_fraction"),
        (dict(contamination=0.0), "contamination"),
        (dict(repeats=0), "repeats"),
        (dict(split=np.ones(80)), "split"),
        (dict(split=np.ones(3)), "split"),
        (dict(n_jobs=0), "n_jobs"),
    ],
)
def test_bad_input_raises(kwargs, match):
    X, y = core_far_benchmark(n=20)
    with pytest.raises(InvalidInputError, match=match):
        audit_protocol(X, y, leakage_k=0, **kwargs)


def test_bad_detector_output_and_labels():
    X, y = core_far_benchmark(n=20)
    with pytest.raises(InvalidInputError, match="scores"):
        audit_protocol(
            X, y, detectors=[Detector(_WrongLength(), higher_is_anomalous=True)], leakage_k=0, random_state=0
        )
    with pytest.raises(InvalidInputError, match="at least 2 classes"):
        audit_protocol(X, np.zeros(len(y), int), leakage_k=0)
    with pytest.raises(InvalidInputError, match="same length"):
        audit_protocol(X, y[:-1], leakage_k=0)
    with pytest.raises(InvalidInputError, match="direction of its scores is not known"):
        Detector(_NoScores())


def test_string_labels_and_progress(capsys):
    X, y = core_far_benchmark(n=25)
    names = np.array(["ant", "bee", "cat", "dog"])[y]
    res = audit_protocol(X, names, detectors=["knn"], leakage_k=0, random_state=0, progress=True)
    assert res.classes.tolist() == ["ant", "bee", "cat", "dog"]
    assert "4/4" in capsys.readouterr().err
    audit_protocol(X, names, detectors=["knn"], leakage_k=0, random_state=0)
    assert capsys.readouterr().err == ""
    json.dumps(res.to_dict(), allow_nan=False)
    assert "rho_dir" in res.summary_text()


def test_no_warnings_on_clean_input(digits):
    X, y = digits
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        audit_protocol(X, y, detectors=["knn"], leakage_k=0, random_state=0)


# --------------------------------------------------------------------------- plots and CLI
def test_plots(digits):
    import matplotlib

    matplotlib.use("Agg")
    from auditad.plotting import plot_leakage_vs_auroc, plot_protocol_heatmap

    X, y = digits
    res = audit_protocol(
        {"pixels": X, "half": X[:, ::2]},
        y,
        detectors=["knn", LOFDetector(n_neighbors=10)],
        leakage_k=5,
        backend="exact",
        random_state=0,
    )
    ax = plot_protocol_heatmap(res, representation="half")
    img = ax.images[0].get_array()
    assert img.shape == (4, 3)
    expected = res.to_frame().query("representation == 'half' and detector == 'lof'")["auroc"].to_numpy()
    np.testing.assert_allclose(img[:, 1], expected)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["knn", "lof", "ensemble"]
    ax = plot_leakage_vs_auroc(res, detector="knn")
    offsets = ax.collections[-1].get_offsets()
    table = res.to_frame().query("representation == 'pixels' and detector == 'knn'")
    np.testing.assert_allclose(offsets[:, 0], table["leakage"])
    np.testing.assert_allclose(offsets[:, 1], table["auroc"])
    with pytest.raises(InvalidInputError, match="representation"):
        plot_protocol_heatmap(res, representation="nope")
    no_leak = audit_protocol(X, y, detectors=["knn"], leakage_k=0, random_state=0)
    with pytest.raises(InvalidInputError, match="leakage"):
        plot_leakage_vs_auroc(no_leak)


def test_cli_protocol(tmp_path, digits, capsys):
    from auditad.cli import main

    X, y = digits
    np.save(tmp_path / "X.npy", X)
    np.save(tmp_path / "y.npy", y)
    out = tmp_path / "out.json"
    rc = main(
        [
            "protocol",
            "--embeddings",
            str(tmp_path / "X.npy"),
            "--labels",
            str(tmp_path / "y.npy"),
            "--detector",
            "knn",
            "--detector",
            "lof",
            "--repeats",
            "2",
            "--epsilon",
            "0.1",
            "--json",
            str(out),
        ]
    )
    assert rc == 0
    captured = capsys.readouterr()
    assert "epsilon = 0.1" in captured.out and "audit_protocol" in captured.err
    payload = json.loads(out.read_text())
    api = audit_protocol(X, y, detectors=["knn", "lof"], repeats=2, epsilon=0.1, random_state=0)
    assert payload["mean"]["rho_dir"] == pytest.approx(api.to_dict()["mean"]["rho_dir"])
    assert payload["representations"]["X"]["mean"]["sigma2_auc"] == pytest.approx(api.detector_average()["sigma2_auc"])
    rc = main(
        [
            "protocol",
            "--embeddings",
            str(tmp_path / "X.npy"),
            "--labels",
            str(tmp_path / "y.npy"),
            "--epsilon",
            "0.5",
            "--quiet",
        ]
    )
    assert rc == 2
    err = capsys.readouterr().err
    assert err.startswith("auditad: error:") and "epsilon" in err and "Traceback" not in err


def test_precomputed_leakage_is_reused_not_recomputed(monkeypatch):
    import importlib

    from auditad.leakage import leakage

    leakage_module = importlib.import_module("auditad.leakage")  # the attribute auditad.leakage is the function
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X, y = X[:300], y[:300]
    fresh = audit_protocol(X, y, detectors=["knn"], leakage_k=10, backend="exact", random_state=0)
    given = leakage(X, y, k=[5, 10], backend="exact")

    def boom(*args, **kwargs):
        raise AssertionError("the neighbour search ran again")

    monkeypatch.setattr(leakage_module, "leakage", boom)
    reused = audit_protocol(
        {"X": X}, y, detectors=["knn"], leakage_k=10, backend="exact", random_state=0, leakage_results={"X": given}
    )
    # equal up to the summation order of the mean over a two-column array
    np.testing.assert_allclose(reused.class_leakage, fresh.class_leakage, rtol=1e-14)
    np.testing.assert_allclose(reused.leakage_L_k, fresh.leakage_L_k, rtol=1e-14)


# --------------------------------------------------------------------------- Spearman with distinct values
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("K", [3, 5, 12, 60])
def test_spearman_matches_scipy(seed, K):
    from scipy.stats import spearmanr

    from auditad.protocol import spearman_correlation

    rng = np.random.default_rng(seed)
    x = rng.integers(0, max(3, K // 2), K).astype(float)  # ties on the x side
    x[:3] = [0, 1, 2]
    y = rng.random(K)
    r = spearman_correlation(x, y)
    assert r.statistic == pytest.approx(spearmanr(x, y).statistic, abs=1e-12)
    assert (r.n_pairs, r.n_distinct_x, r.n_distinct_y, r.reason) == (K, np.unique(x).size, K, None)


def test_spearman_degenerate_is_nan_with_reason():
    from auditad.protocol import DegenerateCorrelationWarning, spearman_correlation

    x = np.r_[np.zeros(14), 1.0]  # 14 tied values and one other: one item decides the sign
    y = np.r_[np.full(14, 0.5), 0.9]
    with pytest.warns(DegenerateCorrelationWarning, match="2 distinct"):
        r = spearman_correlation(x, y, names=("L_k(c)", "AUROC(c)"))
    assert np.isnan(r.statistic) and (r.n_distinct_x, r.n_distinct_y) == (2, 2)
    assert "L_k(c) has 2 distinct value(s) and AUROC(c) has 2 distinct value(s)" in r.reason
    with pytest.warns(DegenerateCorrelationWarning, match="finite pair"):
        assert np.isnan(spearman_correlation([0.1, np.nan, 0.3], [0.2, 0.4, 0.9]).statistic)


def test_protocol_spearman_reports_distinct_values():
    X, y = core_far_benchmark(n=30)
    X3, y3 = X[y < 3], y[y < 3]  # K = 3: each side has at most 3 distinct values
    res = audit_protocol(X3, y3, detectors=["knn"], leakage_k=5, backend="exact", random_state=0)
    row = res.to_frame("summary").query("detector == 'knn'").iloc[0]
    assert row["spearman_n_pairs"] == 3 and row["spearman_n_distinct_auroc"] == 3
    sp = res.to_dict()["representations"]["X"]["leakage"]["spearman"]["knn"]
    assert sp["n_pairs"] == 3 and sp["statistic"] == pytest.approx(row["spearman_leakage_auroc"])
    # a constant leakage side: nan with the reason, in the table, the JSON and a warning
    from auditad.protocol import DegenerateCorrelationWarning

    Xf = np.vstack([X3, X3 + 100.0])
    yf = np.r_[y3, y3 + 3]
    far = np.repeat([[0.0, 0.0]], yf.size, axis=0)
    far[:, 0] = yf * 1000.0  # every class far from every other: L_k(c) = 0 for all c
    with pytest.warns(DegenerateCorrelationWarning, match="L_k\\(c\\) has 1 distinct"):
        res = audit_protocol(
            far + 0.01 * np.random.default_rng(0).normal(size=far.shape),
            yf,
            detectors=["knn"],
            leakage_k=3,
            backend="exact",
            random_state=0,
        )
    row = res.summary(detector="knn")
    assert np.isnan(row["spearman_leakage_auroc"]) and "1 distinct" in row["spearman_reason"]
    assert res.to_dict()["representations"]["X"]["mean"]["spearman_leakage_auroc"] is None


# --------------------------------------------------------------------------- shared neighbour pass and LOF
def brute_lists(X, ref, rows, k):
    """Oracle: full float64 distance rows, self excluded, sorted by (distance, index)."""
    out_i, out_d = [], []
    for q in rows:
        d = np.sqrt(((X[ref] - X[q]) ** 2).sum(axis=1))
        d[ref == q] = np.inf
        o = np.lexsort((ref, d))[:k]
        out_i.append(ref[o])
        out_d.append(d[o])
    return np.array(out_i), np.array(out_d)


def many_class_data(kind, n=480, K=12, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    if kind == "gauss":
        X = rng.normal(size=(n, 5)) + 0.6 * rng.normal(size=(K, 5))[y]
    elif kind == "grid":  # integer grid: many exactly tied distances
        X = rng.integers(0, 4, size=(n, 3)).astype(float)
    else:  # duplicates: every row appears about three times
        base = rng.normal(size=(n // 3, 4))
        X = base[rng.integers(0, n // 3, n)]
    return X, y


@pytest.mark.parametrize("kind", ["gauss", "grid", "dups"])
def test_shared_lists_equal_bruteforce_per_task(kind):
    from auditad.protocol.neighbor_lists import prepare_rows
    from auditad.protocol.shared import LeaveOneOutLists

    X, y = many_class_data(kind)
    Xp = prepare_rows(X, "euclidean")
    is_train = np.random.default_rng(1).random(y.size) < 0.7
    pool, test = np.flatnonzero(is_train), np.flatnonzero(~is_train)
    anomalies = {c: np.flatnonzero(y == c) for c in range(12)}
    k = 6
    lists = LeaveOneOutLists(Xp, y, pool, np.r_[test, pool], anomalies, k, backend="exact")
    for c in range(12):
        ref = pool[y[pool] != c]
        for rows in (test[y[test] != c], ref, anomalies[c]):
            got_i, got_d2 = lists.lists(c, rows)
            exp_i, exp_d = brute_lists(X, ref, rows, k)
            np.testing.assert_array_equal(got_i, exp_i)
            np.testing.assert_allclose(np.sqrt(got_d2), exp_d, rtol=1e-14, atol=0)


@pytest.mark.parametrize("protocol", ["leave_one_class_out", "one_class"])
@pytest.mark.parametrize("kind", ["gauss", "grid", "dups"])
def test_shared_pass_equals_per_task_computation(protocol, kind):
    """Every AUROC of the shared pass equals fitting each task's detector on its own training set."""
    from auditad.metrics import auroc_ci
    from auditad.protocol.runner import stratified_assignment

    X, y = many_class_data(kind, n=360)
    dets = [KNNDetector(k=4), LOFDetector(n_neighbors=7)]
    res = audit_protocol(X, y, protocol=protocol, detectors=dets, repeats=2, leakage_k=0, random_state=3)
    # redraw the same splits as audit_protocol (same seed sequence) and compute every task directly
    rng = np.random.default_rng(3)
    seeds = rng.integers(0, 2**63 - 1, size=2, dtype=np.int64)
    for s in range(2):
        is_train = stratified_assignment(y, 12, 0.8, np.random.default_rng(int(seeds[s])))
        for c in range(12):
            in_c = y == c
            normal, anom = (~in_c, in_c) if protocol == "leave_one_class_out" else (in_c, ~in_c)
            train, test_n = normal & is_train, normal & ~is_train
            Z = np.vstack([X[test_n], X[anom]])
            lab = np.r_[np.zeros(test_n.sum()), np.ones(anom.sum())]
            for d_i, det in enumerate(dets):
                if train.sum() < det.min_train_size or test_n.sum() == 0:
                    assert np.isnan(res.auroc[0, d_i, c, s])
                    continue
                scores = det.fresh(None).fit(X[train]).score_samples(Z)
                assert res.auroc[0, d_i, c, s] == auroc_ci(lab, scores).auroc, (s, c, det.name)


@pytest.mark.parametrize("n, d, k", [(60, 2, 1), (300, 3, 5), (500, 16, 20), (1500, 64, 35)])
def test_lof_equals_scikit_learn_without_ties(n, d, k):
    from sklearn.neighbors import LocalOutlierFactor

    rng = np.random.default_rng(n + d)
    train, test = rng.normal(size=(n, d)) * 10.0 ** rng.integers(-3, 4), None
    test = np.vstack([rng.normal(size=(200, d)), rng.normal(size=(20, d)) + 4]) * np.abs(train).max() / 3
    ours = LOFDetector(n_neighbors=k, backend="exact").fit(train).score_samples(test)
    ref = -LocalOutlierFactor(n_neighbors=k, novelty=True).fit(train).score_samples(test)
    np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=0)


def test_lof_does_not_depend_on_threads(digits):
    X, y = digits  # integer pixels: many tied distances
    a = LOFDetector(n_neighbors=20, n_jobs=1).fit(X[:300]).score_samples(X[300:])
    b = LOFDetector(n_neighbors=20, n_jobs=2).fit(X[:300]).score_samples(X[300:])
    np.testing.assert_array_equal(a, b)
    r1 = audit_protocol(X, y, detectors=[LOFDetector(n_jobs=1)], leakage_k=0, random_state=0)
    r2 = audit_protocol(X, y, detectors=[LOFDetector(n_jobs=2)], leakage_k=0, random_state=0)
    np.testing.assert_array_equal(r1.auroc, r2.auroc)


# --------------------------------------------------------------------------- max_test_normals
def test_stratified_subsample_is_proportional_and_deterministic():
    from auditad.protocol.runner import stratified_subsample

    labels = np.repeat([0, 1, 2, 3], [500, 300, 150, 50])
    idx = np.arange(labels.size) * 2
    for size in (10, 99, 400, 999):
        a = stratified_subsample(idx, labels, size, np.random.default_rng(0))
        b = stratified_subsample(idx, labels, size, np.random.default_rng(0))
        np.testing.assert_array_equal(a, b)
        assert a.size == size and np.all(np.diff(a) > 0) and np.isin(a, idx).all()
        counts = np.bincount(labels[a // 2], minlength=4)
        np.testing.assert_array_less(np.abs(counts - size * np.array([0.5, 0.3, 0.15, 0.05])), 1.0 + 1e-9)
        # class indices take a counting path; labels of any other kind (in the same order) draw the same rows
        np.testing.assert_array_equal(a, stratified_subsample(idx, labels.astype(str), size, np.random.default_rng(0)))
        np.testing.assert_array_equal(a, stratified_subsample(idx, labels + 2**40, size, np.random.default_rng(0)))


def test_max_test_normals_caps_every_detector_and_is_recorded(digits):
    X, y = digits
    full = audit_protocol(X, y, detectors=FAST, leakage_k=0, random_state=0, max_test_normals=0)
    cap = audit_protocol(X, y, detectors=FAST, leakage_k=0, random_state=0, max_test_normals=40)
    assert (cap.n_neg == 40).all() and (cap.n_neg_available == full.n_neg).all() and cap.test_normals_subsampled
    assert not full.test_normals_subsampled
    assert cap.settings["max_test_normals"] == 40 and cap.settings["n_tasks_subsampled"] == 4
    assert cap.to_dict()["settings"]["n_tasks_subsampled"] == 4
    np.testing.assert_array_equal(cap.n_pos, full.n_pos)
    # the DeLong intervals refer to the 40 normals: wider than with all of them
    assert np.nanmean(cap.ci_high - cap.ci_low) > np.nanmean(full.ci_high - full.ci_low)
    again = audit_protocol(X, y, detectors=FAST, leakage_k=0, random_state=0, max_test_normals=40)
    np.testing.assert_array_equal(cap.auroc, again.auroc)
    assert "max_test_normals = 40" in cap.summary_text()
    with pytest.raises(InvalidInputError, match="max_test_normals"):
        audit_protocol(X, y, detectors=["knn"], leakage_k=0, max_test_normals=-1)


# --------------------------------------------------------------------------- PyOD and user detectors
class _Raises(_Constant):
    def fit(self, X):
        raise RuntimeError("boom")


class _NaNScores(_Constant):
    def score_samples(self, X):
        return np.full(len(X), np.nan)


def test_pyod_knn_equals_builtin_knn_on_digits(digits):
    from pyod.models.knn import KNN

    from auditad.protocol import SIGN_RULES

    X, y = digits
    kw = dict(leakage_k=0, random_state=0)
    res = audit_protocol(
        X,
        y,
        detectors=[
            "knn",
            KNN(n_neighbors=5, method="largest"),
            {"detector": "pyod:KNN", "n_neighbors": 5, "name": "pyod_knn5"},
        ],
        **kw,
    )
    np.testing.assert_array_equal(res.auroc[0, 1], res.auroc[0, 0])
    np.testing.assert_array_equal(res.auroc[0, 2], res.auroc[0, 0])
    info = res.to_dict()["detectors"]
    assert info[1]["rule"] == SIGN_RULES["pyod"] and info[1]["method"] == "decision_function"
    assert info[1]["score_sign"] == 1 and info[0]["rule"].startswith("built-in")


@pytest.mark.parametrize("name", ["pyod:ECOD", "pyod:COPOD", "pyod:IForest"])
def test_pyod_detectors_run_and_match_a_task_computed_by_hand(name, digits):
    import pickle

    from sklearn.metrics import roc_auc_score

    from auditad.protocol import make_detector

    X, y = digits
    split = np.where(np.arange(y.size) % 5 == 0, "test", "train")
    det = make_detector(name if name != "pyod:IForest" else {"detector": name, "n_estimators": 30})
    det = pickle.loads(pickle.dumps(det))  # picklable for parallel and Dask runs
    res = audit_protocol(X, y, detectors=[det], split=split, leakage_k=0, random_state=0, n_jobs=2)
    assert np.isfinite(res.auroc).all()
    test = split == "test"
    c = res.classes[1]
    train, tn, an = (y != c) & ~test, (y != c) & test, (y == c) & test
    if "random_state" in det.estimator.get_params():  # seeded per task: same seed, same table
        again = audit_protocol(X, y, detectors=[det], split=split, leakage_k=0, random_state=0)
        np.testing.assert_array_equal(res.auroc, again.auroc)
        return
    model = det.fresh(None).estimator.fit(X[train])
    s = model.decision_function(np.vstack([X[tn], X[an]]))
    expected = roc_auc_score(np.r_[np.zeros(tn.sum()), np.ones(an.sum())], s)
    assert res.auroc[0, 0, 1, 0] == pytest.approx(expected, abs=1e-12)


def test_pyod_with_score_samples_is_not_negated():
    """0.1 negated PyOD models that also had score_samples (scikit-learn's is_outlier_detector is true)."""
    from pyod.models.knn import KNN

    from auditad.protocol import Detector as Det

    class KNNWithScoreSamples(KNN):
        def score_samples(self, X):
            return -self.decision_function(X)

    det = Det(KNNWithScoreSamples(n_neighbors=3))
    assert (det.method, det.method_, det.score_sign) == (None, "decision_function", 1)
    X, y = core_far_benchmark(n=30)
    res = audit_protocol(X, y, detectors=["knn", KNNWithScoreSamples(n_neighbors=5)], k=5, leakage_k=0, random_state=0)
    np.testing.assert_array_equal(res.auroc[0, 1], res.auroc[0, 0])


@pytest.mark.parametrize(
    "spec, match",
    [
        ("pyod:NotAThing", "unknown PyOD detector"),
        ("pyod:__import__('os')", "unknown PyOD detector"),
        ({"detector": "pyod:KNN", "n_neighbors": [1, 2]}, "must be a number"),
        ({"detector": "pyod:KNN", "bogus": 1}, "parameter bogus = 1 refused by PyOD KNN"),
        ({"detector": "knn", "bogus": 1}, "no parameter"),
        ({"n_neighbors": 3}, "needs 'detector'"),
    ],
)
def test_make_detector_bad_specs(spec, match):
    from auditad.protocol import make_detector

    with pytest.raises(InvalidInputError, match=match):
        make_detector(spec)


def test_detector_failures_name_detector_and_task():
    X, y = core_far_benchmark(n=20)
    with pytest.raises(InvalidInputError, match=r"'_Raises' raised RuntimeError in fit \(representation 'X', class"):
        audit_protocol(X, y, detectors=[Detector(_Raises(), higher_is_anomalous=True)], leakage_k=0, random_state=0)
    with pytest.raises(
        InvalidInputError, match=r"'_NaNScores' contains .* NaN.*\(representation 'X', class 0, repeat 0\)"
    ):
        audit_protocol(X, y, detectors=[Detector(_NaNScores(), higher_is_anomalous=True)], leakage_k=0, random_state=0)
    with pytest.raises(InvalidInputError, match="neither score_samples"):
        Detector(object.__new__(type("OnlyFit", (), {"fit": lambda self, X: self})))


def test_shared_lists_majority_fallback_is_exact():
    """Rows whose 2k list is mostly one other class (that class's task needs the second search)."""
    from auditad.protocol.neighbor_lists import prepare_rows
    from auditad.protocol.shared import LeaveOneOutLists

    rng = np.random.default_rng(7)
    centres = rng.normal(scale=10, size=(6, 3))
    y = np.repeat(np.arange(6), 40)
    X = centres[y] + rng.normal(size=(y.size, 3))
    X[y == 0] = centres[1] + rng.normal(size=(40, 3))  # class 0 sits inside class 1
    is_train = np.arange(y.size) % 3 != 0
    pool, test = np.flatnonzero(is_train), np.flatnonzero(~is_train)
    anomalies = {c: np.flatnonzero(y == c) for c in range(6)}
    lists = LeaveOneOutLists(prepare_rows(X, "euclidean"), y, pool, np.r_[test, pool], anomalies, 5, backend="exact")
    assert lists.n_short > 10
    for c in range(6):
        ref = pool[y[pool] != c]
        for rows in (test[y[test] != c], ref, anomalies[c]):
            got_i, _ = lists.lists(c, rows)
            np.testing.assert_array_equal(got_i, brute_lists(X, ref, rows, 5)[0])


@pytest.mark.parametrize(
    "separated, wide_factors, wide_block",
    [(False, None, None), (True, None, None), (True, (8,), None), (True, None, 1000)],
    ids=["overlapping", "separated", "brute", "separated-in-blocks"],
)
def test_shared_lists_approximate_backend_builds_one_index_and_matches_exact(
    separated, wide_factors, wide_block, monkeypatch
):
    """Approximate backend: one approximate search per repeat (not one index per class); the lists of every task
    hold no row of the held-out class, no self, sorted distances, and agree with exact search (recall >= 0.95).
    With separated classes most anomaly rows see only their own class among the 8k-wide candidates: the 64k-wide
    query reaches the other classes; without it ("brute") they are searched by brute force against P minus
    their class. The wider queries go in blocks of at most `WIDE_BLOCK_ELEMENTS` list entries ("in blocks": a
    small bound, many blocks, the same guarantees)."""
    import auditad.neighbors as nb
    from auditad.protocol import shared

    if wide_factors is not None:
        monkeypatch.setattr(shared, "WIDE_FACTORS", wide_factors)
    wide_sizes = []
    if wide_block is not None:
        monkeypatch.setattr(shared, "WIDE_BLOCK_ELEMENTS", wide_block)
        real_pool_approx = shared.LeaveOneOutLists._pool_approx

        def recording(X, pool, index):
            inner = real_pool_approx(X, pool, index)

            def approx(q, width):
                if width > 2 * k:  # (the wider queries)
                    wide_sizes.append(q.size * width)
                return inner(q, width)

            return approx

        monkeypatch.setattr(shared.LeaveOneOutLists, "_pool_approx", staticmethod(recording))
    from auditad.protocol.neighbor_lists import prepare_rows
    from auditad.protocol.shared import LeaveOneOutLists

    rng = np.random.default_rng(11)
    K, n, k = 30, 3000, 5
    y = rng.integers(0, K, n)
    X = rng.normal(size=(n, 6)) + (25.0 if separated else 0.8) * rng.normal(size=(K, 6))[y]
    Xp = prepare_rows(X, "euclidean")
    is_train = rng.random(n) < 0.6
    pool, test = np.flatnonzero(is_train), np.flatnonzero(~is_train)
    anomalies = {c: test[y[test] == c] for c in range(K)}
    calls, builds = [], []
    real, real_index = nb.kneighbors, nb.ApproximateIndex

    def counting(*a, **kw):
        calls.append(kw.get("backend"))
        return real(*a, **kw)

    class CountingIndex(real_index):
        def __init__(self, *a, **kw):
            builds.append(1)
            super().__init__(*a, **kw)

    monkeypatch.setattr(nb, "kneighbors", counting)
    monkeypatch.setattr(nb, "ApproximateIndex", CountingIndex)
    lists = LeaveOneOutLists(Xp, y, pool, np.r_[test, pool], anomalies, k, backend="approximate", random_state=0)
    assert lists.backend == "approximate" and len(builds) == 1 and "approximate" not in calls
    if wide_factors is not None:
        assert lists.n_anomalies_searched > 0.5 * test.size  # the exact fallback did the work
    elif separated:
        assert lists.n_anomalies_searched == 0  # the 64k-wide query reached the other classes
    else:
        assert lists.n_anomalies_searched < 0.05 * test.size
    if wide_block is not None:
        assert len(wide_sizes) > 10 and max(wide_sizes) <= wide_block  # many blocks, each within the bound
    if not separated:  # an anomaly row whose (a) list holds k rows of other classes: that list filtered, not stored
        assert (lists.own_pos[test] == -2).sum() > 0.9 * test.size and lists.O_idx.shape[0] < 0.1 * test.size
        for c in range(K):
            rows = anomalies[c][lists.own_pos[anomalies[c]] == -2]
            want = [[j for j in lists.A_idx[lists.pos[r]].tolist() if j >= 0 and y[j] != c][:k] for r in rows]
            assert lists.lists(c, rows)[0].tolist() == want
    hits = total = 0
    for c in range(0, K, 3):
        ref = pool[y[pool] != c]
        for rows in (test[y[test] != c], anomalies[c]):
            got_i, got_d2 = lists.lists(c, rows)
            assert not np.isin(got_i, np.flatnonzero(y == c)).any()
            assert (got_i != rows[:, None]).all() and (np.diff(got_d2, axis=1) >= 0).all()
            np.testing.assert_allclose(got_d2, ((Xp[got_i] - Xp[rows][:, None]) ** 2).sum(axis=2), rtol=1e-12)
            exp_i, _ = brute_lists(X, ref, rows, k)
            hits += sum(len(set(a) & set(b)) for a, b in zip(got_i.tolist(), exp_i.tolist()))
            total += exp_i.size
    assert hits / total >= 0.95


@pytest.mark.parametrize("pool_block", [1 << 24, 37 * 5])  # the pool read whole, or 37 rows at a time and merged
def test_masked_lists_equal_bruteforce_without_the_excluded_class(pool_block, monkeypatch):
    from auditad.protocol import shared
    from auditad.protocol.neighbor_lists import prepare_rows
    from auditad.protocol.shared import masked_lists

    monkeypatch.setattr(shared, "MASKED_POOL_ELEMENTS", pool_block)
    X, y = many_class_data("gauss", n=400)
    Xp = prepare_rows(X, "euclidean")
    pool = np.flatnonzero(np.arange(400) % 3 != 0)
    queries = np.arange(0, 400, 7)
    excluded = y[queries].copy()
    excluded[::2] = (excluded[::2] + 1) % 12  # half: another class than the row's own
    got_i, got_d2 = masked_lists(Xp, pool, y[pool], queries, excluded, 6)
    for i, q in enumerate(queries):
        ref = pool[y[pool] != excluded[i]]
        exp_i, exp_d = brute_lists(X, ref, np.array([q]), 6)
        np.testing.assert_array_equal(got_i[i], exp_i[0])
        np.testing.assert_allclose(np.sqrt(got_d2[i]), exp_d[0], rtol=1e-13)
    # a pool with fewer rows outside the class than k: padded
    tiny = pool[:5]
    got_i, got_d2 = masked_lists(Xp, tiny, y[tiny], queries[:3], np.full(3, -1), 8)
    assert (got_i[:, 5:] == -1).all() and np.isinf(got_d2[:, 5:]).all()


@pytest.mark.parametrize("backend", ["exact", "approximate"])
def test_shared_lists_kth_distance_is_the_column_of_the_lists(backend):
    from auditad.protocol.neighbor_lists import prepare_rows
    from auditad.protocol.shared import LeaveOneOutLists

    X, y = many_class_data("gauss", n=600)
    Xp = prepare_rows(X, "euclidean")
    is_train = np.random.default_rng(2).random(y.size) < 0.6
    pool, test = np.flatnonzero(is_train), np.flatnonzero(~is_train)
    anomalies = {c: test[y[test] == c] for c in range(12)}
    lists = LeaveOneOutLists(Xp, y, pool, np.r_[test, pool], anomalies, 5, backend=backend, random_state=0)
    for c in range(12):
        rows = np.r_[test[y[test] != c], pool[y[pool] != c], anomalies[c]]
        full = lists.lists(c, rows)[1]
        for j in (0, 4):
            np.testing.assert_array_equal(lists.kth_d2(c, rows, j), full[:, j])


class _CountingExecutor:
    """A stand-in for a Dask executor (tasks run here) that records what it is asked to send."""

    from auditad.execution import SchedulerSpec

    spec = SchedulerSpec("local", n_workers=2)
    n_workers = 2

    def __init__(self):
        self.sent = []

    def share(self, obj):
        self.sent.append(obj)
        return obj

    def map_ordered(self, fn, items, **shared):
        # a keyword that is not an already-shared object travels with every map (as Dask scatters it)
        shared_ids = {id(obj) for obj in self.sent}
        self.sent += [v for v in shared.values() if isinstance(v, np.ndarray) and id(v) not in shared_ids]
        return [fn(item, **shared) for item in items]

    def submit_ordered(self, fn, items, *, priority=0, **shared):
        from auditad.execution import SerialBatch

        return SerialBatch(self, fn, list(items), shared)

    def run_everywhere(self, fn, *args):
        fn(*args)


@pytest.mark.parametrize("backend", ["exact", "auto"])  # "auto" picks exact search at this size
@pytest.mark.parametrize("protocol", ["leave_one_class_out", "one_class"])
def test_a_neighbour_pass_on_a_cluster_sends_the_rows_once_and_equals_serial(protocol, backend):
    rng = np.random.default_rng(4)
    y = np.repeat(np.arange(6), 60)
    X = rng.normal(size=(y.size, 5)) + y[:, None] * 0.4
    kw = dict(protocol=protocol, detectors=["knn", "lof"], backend=backend, leakage_k=0, random_state=3)
    serial = audit_protocol(X, y, **kw)
    ex = _CountingExecutor()
    on_cluster = audit_protocol(X, y, executor=ex, **kw)
    assert on_cluster.auroc.tobytes() == serial.auroc.tobytes()
    assert on_cluster.ci_low.tobytes() == serial.ci_low.tobytes()
    rows = [a for a in ex.sent if isinstance(a, np.ndarray) and a.ndim == 2]
    # one (n, d) array, the prepared representation, for the 7 (or 6) searches of the pass
    assert [a.shape for a in rows] == [X.shape]


@pytest.mark.parametrize("protocol", ["leave_one_class_out", "one_class"])
def test_approximate_neighbour_passes_are_seeded_and_state_their_recall(protocol):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 12, 3000)
    X = rng.normal(size=(y.size, 12)) + y[:, None] * 0.05
    kw = dict(protocol=protocol, detectors=["knn", "lof"], leakage_k=0, random_state=1)
    runs = [audit_protocol(X, y, backend="approximate", **kw) for _ in range(2)]
    assert runs[0].auroc.tobytes() == runs[1].auroc.tobytes()  # the NN-descent graph is seeded
    recall = runs[0].settings["neighbour_recall"]["X"]
    assert 0.95 <= recall <= 1.0 and runs[0].settings["neighbour_recall_queries"] == 200
    assert json.loads(json.dumps(runs[0].to_dict()))["settings"]["neighbour_recall"] == {"X": recall}
    exact = audit_protocol(X, y, backend="exact", **kw)
    assert exact.settings["neighbour_recall"] == {"X": None}
    assert np.nanmax(np.abs(runs[0].auroc - exact.auroc)) < 0.01


def test_approximate_lof_from_the_base_tables_equals_the_tasks_own_tables(monkeypatch):
    """The approximate backend's lists (with their widened and masked rows) give the same LOF bit for bit
    whether unchanged rows take the whole pool's tables or not (`strategies._base_tables`)."""
    from auditad.protocol import strategies

    rng = np.random.default_rng(4)
    y = rng.integers(0, 15, 2500)
    X = rng.normal(size=(y.size, 6)) + y[:, None] * 0.1
    kw = dict(detectors=["lof"], leakage_k=0, random_state=3, backend="approximate")
    fast = audit_protocol(X, y, **kw)
    real = strategies._lof_tables_reached
    monkeypatch.setattr(strategies, "_lof_tables_reached", lambda *args, base=None: real(*args))
    slow = audit_protocol(X, y, **kw)
    assert json.dumps(fast.to_dict(), sort_keys=True) == json.dumps(slow.to_dict(), sort_keys=True)


def test_list_recall_counts_the_listed_rows_within_the_exact_kth_distance():
    from auditad.protocol.neighbor_lists import nearest
    from auditad.protocol.shared import list_recall

    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 4))
    pool = np.arange(0, 400, 2)
    rows = np.arange(400)
    _, d2 = nearest(X, pool, rows, 6, backend="exact")
    assert list_recall(X, pool, rows, d2, 5, 0, sample=400) == (1.0, 400)
    worse = d2.copy()
    worse[:, 4] = worse[:, 5]  # every row's 5th entry replaced by its 6th nearest: 4 of 5 found
    worse[7, :] = d2[7]  # ... except row 7
    assert not np.any(d2[:, 5] == d2[:, 4])  # continuous data: no ties at the 5th distance
    recall, n = list_recall(X, pool, rows, worse, 5, 0, sample=400)
    assert n == 400 and recall == pytest.approx((399 * 4 + 5) / 2000)
    # an entry at exactly the exact k-th distance counts as found
    tied = worse.copy()
    tied[3, 4] = d2[3, 4]
    assert list_recall(X, pool, rows, tied, 5, 0, sample=400)[0] == pytest.approx((398 * 4 + 10) / 2000)


def test_list_recall_over_pool_blocks_equals_one_search(monkeypatch):
    from auditad.protocol import shared
    from auditad.protocol.neighbor_lists import nearest

    rng = np.random.default_rng(6)
    X = rng.normal(size=(300, 3))
    X[10:20] = X[20]  # duplicates across block borders
    pool, rows = np.arange(1, 300, 2), np.arange(300)
    _, d2 = nearest(X, pool, rows, 8, backend="exact")
    lists = d2.copy()
    lists[::3, 3] = lists[::3, 7]
    whole = shared.list_recall(X, pool, rows, lists, 6, 1, sample=120)
    monkeypatch.setattr(shared, "RECALL_POOL_BLOCK", 7)
    assert shared.list_recall(X, pool, rows, lists, 6, 1, sample=120) == whole and whole[0] < 1.0
    # blocks bounded by values (rows times columns) rather than rows: 11 values = 3 rows of 3 columns
    monkeypatch.setattr(shared, "RECALL_POOL_BLOCK", 1 << 17)
    monkeypatch.setattr(shared, "RECALL_POOL_ELEMENTS", 11)
    assert shared.list_recall(X, pool, rows, lists, 6, 1, sample=120) == whole


def _holm_oracle(p):
    """Holm (1979) by its definition: reject H_(i) while p_(i) <= alpha / (m - i + 1); adjusted values by brute force."""
    p = np.asarray(p, dtype=float)
    m = p.size
    order = np.argsort(p, kind="stable")
    adj = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adj[i] = running
    return adj


@pytest.mark.parametrize("seed", range(5))
def test_holm_adjust_matches_its_definition(seed):
    from auditad.protocol.rates import holm_adjust

    p = np.random.default_rng(seed).uniform(0, 0.2, 12)
    np.testing.assert_allclose(holm_adjust(p), _holm_oracle(p), rtol=0, atol=1e-15)
    # rejection at alpha follows the step-down rule
    alpha = 0.05
    order = np.argsort(p)
    reject = np.zeros(p.size, bool)
    for rank, i in enumerate(order):
        if p[i] <= alpha / (p.size - rank):
            reject[i] = True
        else:
            break
    np.testing.assert_array_equal(holm_adjust(p) <= alpha, reject)


def test_a_detector_that_inverts_classes_is_not_averaged_away():
    """One detector far below 1/2 on some classes, two near 1: the ensemble hides it, mean and worst do not."""
    rng = np.random.default_rng(0)
    K, n = 6, 60
    X = np.concatenate([rng.normal(0, 1, (n, 4)) + 4 * np.eye(4)[c % 4] * (1 + c // 4) for c in range(K)])
    y = np.repeat(np.arange(K), n)

    class Flip:
        """Minus the distance to the training mean: ranks far (anomalous) samples lowest, i.e. inverted."""

        def fit(self, X):
            self.mu = X.mean(axis=0)
            return self

        def score_samples(self, X):
            return -np.linalg.norm(X - self.mu, axis=1)

    from auditad.protocol import Detector

    res = audit_protocol(
        X,
        y,
        detectors=["knn", "lof", Detector(Flip(), higher_is_anomalous=True, name="flip")],
        leakage_k=0,
        random_state=0,
    )
    flip_name = res.detector_names[2]
    flip = res.aurocs(detector=flip_name)
    assert (flip < 0.5).mean() > 0.5
    d = res.to_dict()
    per_det = [res.summary(detector=det)["rho_inv"] for det in res.detector_names]
    assert d["mean"]["rho_inv"] == pytest.approx(np.mean(per_det))
    assert d["worst"]["rho_inv"] == pytest.approx(max(per_det)) and d["worst"]["rho_inv_detector"] == flip_name
    assert d["ensemble"]["rho_inv"] < d["worst"]["rho_inv"]
    sig = res.significance(detector=flip_name)
    assert (sig["category"] == "significantly inverted").sum() == res.summary(detector=flip_name)["n_inv_sig"] > 0
    assert all(r["p_value"] > 0 for r in d["representations"]["X"]["per_class"] if r["p_value"] is not None)
    with pytest.raises(InvalidInputError, match="needs a detector"):
        res.significance(detector="ensemble")


# --------------------------------------------------------------------------- typed summaries
def legacy_summary_oracle(res, rep, det):
    """The summary row as version 0.3 computed it, straight from the per-task arrays (written before the typed
    summaries, kept here as their oracle)."""
    from auditad.protocol import spearman_correlation
    from auditad.protocol.result import SIGNIFICANCE

    nan = float("nan")
    r = res.representation_names.index(rep)
    d = None if det == "ensemble" else res.detector_names.index(det)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        per_rep = res.auroc[r, d] if d is not None else np.nanmean(res.auroc[r], axis=0)  # (K, S)
        vals = np.nanmean(res.auroc[r, d], axis=1) if d is not None else np.nanmean(np.nanmean(res.auroc[r], 2), 0)
    fin = np.isfinite(vals)
    S = per_rep.shape[1]
    row = {}
    if fin.any():
        o = rates_oracle(vals.tolist(), res.epsilon)
        v = vals[fin]
        row.update(
            n_classes=int(fin.sum()),
            mean_auc=float(v.mean()),
            sigma2_auc=o["sigma2_auc"],
            std_auc=float(np.sqrt(o["sigma2_auc"])),
            min_auc=float(v.min()),
            max_auc=float(v.max()),
            range_auc=o["range_auc"],
            rho_rnd=o["rho_rnd"],
            rho_inv=o["rho_inv"],
            rho_dir=o["rho_dir"],
        )
    else:
        row.update(
            {
                k: nan
                for k in (
                    "mean_auc",
                    "sigma2_auc",
                    "std_auc",
                    "min_auc",
                    "max_auc",
                    "range_auc",
                    "rho_rnd",
                    "rho_inv",
                    "rho_dir",
                )
            },
            n_classes=0,
        )
    if d is None:
        row.update(rho_inv_sig=nan, n_inv_sig=0, rho_nonsig=nan)
    else:
        sig = res.significance(rep, det)
        n_sig = int(np.sum(sig["category"][fin] == SIGNIFICANCE[0]))
        row.update(
            rho_inv_sig=n_sig / int(fin.sum()),
            n_inv_sig=n_sig,
            rho_nonsig=float(np.mean(sig["p_value"][fin] >= 1 - res.ci_level)),
        )
    split = [rates_oracle(per_rep[:, s].tolist(), res.epsilon) for s in range(S)]
    for key in ("rho_rnd", "rho_inv", "rho_dir"):
        row[f"{key}_split_std"] = float(np.std([x[key] for x in split])) if S > 1 else nan
    row["auroc_split_std"] = float(np.mean(np.nanstd(per_rep, axis=1)[fin])) if S > 1 else nan
    sp = spearman_correlation(res.class_leakage[r], vals, warn=False) if res.leakage_k is not None else None
    row["spearman_leakage_auroc"] = sp.statistic if sp is not None else nan
    return row, sp


def _assert_same_numbers(a, b):
    """Equal dicts of numbers (nan equal to nan; floats to 1e-12)."""
    assert list(a) == list(b)
    for k in a:
        if isinstance(a[k], float) or isinstance(b[k], float):
            assert (np.isnan(a[k]) and np.isnan(b[k])) or a[k] == pytest.approx(b[k], abs=1e-12), k
        else:
            assert a[k] == b[k], k


@pytest.fixture(scope="module")
def digits_protocol(digits):
    X, y = digits
    return audit_protocol({"pixels": X, "half": X[:, ::2]}, y, detectors=FAST, repeats=2, leakage_k=5, random_state=3)


def test_typed_summaries_equal_the_old_dicts_on_digits(digits_protocol):
    from auditad.protocol import SUMMARY_KEYS, DetectorAverage, DetectorSummary, ProtocolSummary, WorstRates
    from auditad.protocol.rates import json_value

    res = digits_protocol
    d = res.to_dict()
    assert SUMMARY_KEYS == tuple(f for f in DetectorSummary.__dataclass_fields__ if f != "spearman")
    worst_all = {}
    for rep in res.representation_names:
        summ = res.summaries[rep]
        assert isinstance(summ, ProtocolSummary) and isinstance(summ.mean, DetectorAverage)
        assert isinstance(summ.worst, WorstRates) and list(summ.detectors) == list(res.detector_names)
        legacy = {}
        for det in (*res.detector_names, "ensemble"):
            row, sp = legacy_summary_oracle(res, rep, det)
            legacy[det] = row
            s = summ.ensemble if det == "ensemble" else summ.detectors[det]
            _assert_same_numbers(s.stats(), row)
            assert s.to_dict() == json_value(s.stats())
            expected = json.loads(json.dumps(json_value({k: row[k] for k in SUMMARY_KEYS})))
            part = d["representations"][rep]["ensemble" if det == "ensemble" else "detectors"]
            got = part if det == "ensemble" else part[det]
            assert list(got) == list(expected)
            _assert_same_numbers(
                {k: np.nan if v is None else v for k, v in got.items()},
                {k: np.nan if v is None else v for k, v in expected.items()},
            )
            assert s.spearman == sp and d["representations"][rep]["leakage"]["spearman"][det] == sp.to_dict()
            old_row = res.summary(rep, det)  # the dict API delegates to the typed summary
            assert old_row["spearman_n_pairs"] == sp.n_pairs and old_row["spearman_reason"] == sp.reason
            _assert_same_numbers({k: old_row[k] for k in SUMMARY_KEYS}, row)
        # mean: each statistic averaged over the detectors; worst: the largest, with the first detector that has it
        dets = [legacy[det] for det in res.detector_names]
        mean = {
            k: float(np.mean([x[k] for x in dets if np.isfinite(x[k])]))
            if any(np.isfinite(x[k]) for x in dets)
            else np.nan
            for k in SUMMARY_KEYS
        }
        mean.update(n_classes=max(x["n_classes"] for x in dets), n_detectors=len(dets))
        _assert_same_numbers(summ.mean.stats(), mean)
        _assert_same_numbers(res.detector_average(rep), mean)
        assert list(d["representations"][rep]["mean"]) == list(mean)
        for name in ("rho_dir", "rho_inv", "rho_inv_sig", "rho_rnd", "sigma2_auc"):
            values = [x[name] for x in dets]
            i = int(np.argmax(values))
            who = res.detector_names[i] if values[i] > 0 else None
            w = summ.worst.stats()
            assert w[name] == values[i] and w[f"{name}_detector"] == who
            assert w[f"{name}_where"] == (f"{who} on {rep}" if who else None)
            assert getattr(summ.worst, name).where == w[f"{name}_where"]
            worst_all.setdefault(name, []).extend((v, det, rep) for v, det in zip(values, res.detector_names))
        assert res.worst(rep) == summ.worst.stats() and d["representations"][rep]["worst"] == summ.worst.to_dict()
    for name, cands in worst_all.items():
        top = max(v for v, _, _ in cands)
        # ties go to the first (representation, detector) in name order, never to the input order
        first = min(((det, rep) for v, det, rep in cands if v == top), key=lambda p: (p[1], p[0]))
        assert res.worst()[name] == top and d["worst"][name] == top
        assert res.worst()[f"{name}_where"] == (f"{first[0]} on {first[1]}" if top > 0 else None)
    # the top level describes the representation of lowest detector-average AUROC, and names it
    head = min(res.representation_names, key=lambda r: (d["representations"][r]["mean"]["mean_auc"], r))
    assert d["representation"] == head == res.headline_representation
    assert d["mean"] == d["representations"][head]["mean"]
    assert d["ensemble"] == d["representations"][head]["ensemble"]


def test_typed_summary_is_computed_once(digits, monkeypatch):
    """The split loop and the Spearman correlation run once per (representation, detector), not once per call."""
    import dataclasses

    import auditad.protocol.result as result_module

    res = dataclasses.replace(audit_protocol(*digits, detectors=FAST, repeats=3, leakage_k=5, random_state=0))
    res.per_class_rows  # the per-class table has its own (cached) rates
    calls = {"rates": 0, "spearman": 0}

    def counted(name, fn):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return fn(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(result_module, "instability_rates", counted("rates", result_module.instability_rates))
    monkeypatch.setattr(result_module, "spearman_correlation", counted("spearman", result_module.spearman_correlation))
    first = res.summaries
    R, D, _, S = res.auroc.shape
    assert calls == {"rates": R * (D + 1) * (1 + S), "spearman": R * (D + 1)}
    for _ in range(2):
        for rep in res.representation_names:
            for det in (*res.detector_names, "ensemble"):
                res.summary(rep, det)
                res.spearman(rep, det)
            res.detector_average(rep)
            res.worst(rep)
        res.worst()
        res.to_dict()
        res.to_frame("summary")
        res.summary_text()
    assert calls == {"rates": R * (D + 1) * (1 + S), "spearman": R * (D + 1)}
    assert res.summaries is first


@pytest.mark.parametrize("backend", ["exact", "approximate"])
def test_float32_rows_are_not_copied_and_give_the_numbers_of_their_float64_copy(backend, tmp_path):
    """The neighbour passes read float32 rows (a memory map) as they are, computing every distance in float64
    from gathered blocks: the same AUROCs, bit for bit, as the float64 copy of the same values."""
    import pandas as pd

    from auditad.protocol import audit_protocol
    from auditad.protocol.neighbor_lists import prepare_rows

    X, y = many_class_data("gauss", n=900)
    X32 = X.astype(np.float32)
    np.save(tmp_path / "X.npy", X32)
    M = np.load(tmp_path / "X.npy", mmap_mode="r")
    assert prepare_rows(M, "euclidean") is M  # no copy
    assert prepare_rows(X32.astype(np.float16), "euclidean").dtype == np.float64
    kw = dict(detectors=["knn", "lof"], backend=backend, random_state=3)
    a = audit_protocol({"e": M}, y, **kw).to_frame()
    b = audit_protocol({"e": X32.astype(np.float64)}, y, **kw).to_frame()
    pd.testing.assert_frame_equal(a, b, check_exact=True)
