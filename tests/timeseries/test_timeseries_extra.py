"""VUS, range-AUC, affiliation and biased range-based precision/recall against straightforward transcriptions of
the reference algorithms (TSB-AD's ``RangeAUC_volume_opt``, the affiliation-metrics package, Tatbul et al.'s
Algorithm 1), written here as independent oracles."""

from __future__ import annotations

import math

import numpy as np
import pytest

from auditad.errors import InvalidInputError
from auditad.timeseries import vus


# --------------------------------------------------------------------------- VUS oracle (TSB-AD RangeAUC_volume_opt)
def _ranges(label):
    starts = np.where(np.diff(label) == 1)[0] + 1
    (ends,) = np.where(np.diff(label) == -1)
    if len(ends) and (not len(starts) or ends[0] < starts[0]):
        starts = np.concatenate([[0], starts])
    if len(starts) and (not len(ends) or ends[-1] < starts[-1]):
        ends = np.concatenate([ends, [len(label) - 1]])
    return list(zip(starts, ends))


def _new_sequence(label, seq, window):
    a = max(seq[0][0] - window // 2, 0)
    out = []
    for i in range(len(seq) - 1):
        if seq[i][1] + window // 2 < seq[i + 1][0] - window // 2:
            out.append((a, seq[i][1] + window // 2))
            a = seq[i + 1][0] - window // 2
    out.append((a, min(seq[-1][1] + window // 2, len(label) - 1)))
    return out


def _sequencing(x, seq, window):
    label = x.copy().astype(float)
    n = len(label)
    for s, e in seq:
        x1 = np.arange(e + 1, min(e + window // 2 + 1, n))
        label[x1] += np.sqrt(1 - (x1 - e) / window)
        x2 = np.arange(max(s - window // 2, 0), s)
        label[x2] += np.sqrt(1 - (s - x2) / window)
    return np.minimum(np.ones(n), label)


def _vus_reference(labels_original, score, window_size, thre):
    """Loop-for-loop transcription of TSB-AD's ``RangeAUC_volume_opt`` (per-window AUC-ROC and AUC-PR)."""
    P = np.sum(labels_original)
    seq = _ranges(labels_original)
    big = _new_sequence(labels_original, seq, window_size)
    score_sorted = -np.sort(-score)
    ranks = np.linspace(0, len(score) - 1, thre).astype(int)
    n_pred = [np.sum(score >= score_sorted[i]) for i in ranks]
    aucs, aps = [], []
    for window in range(window_size + 1):
        ext = _sequencing(labels_original, seq, window)
        L = _new_sequence(ext, seq, window)
        tf = np.zeros((thre + 2, 2))
        prec = np.ones(thre + 1)
        for j, i in enumerate(ranks, start=1):
            pred = score >= score_sorted[i]
            labels = ext.copy()
            existence = 0
            for a, b in L:
                labels[a : b + 1] = ext[a : b + 1] * pred[a : b + 1]
                existence += bool((pred[a : b + 1] > 0).any())
            for a, b in seq:
                labels[a : b + 1] = 1
            TP = sum(np.dot(labels[a : b + 1], pred[a : b + 1]) for a, b in big)
            N_labels = sum(np.sum(labels[a : b + 1]) for a, b in big)
            FP = n_pred[j - 1] - TP
            P_new = (P + N_labels) / 2
            tf[j] = [min(TP / P_new, 1) * existence / len(L), FP / (len(labels) - P_new)]
            prec[j] = TP / n_pred[j - 1]
        tf[-1] = [1, 1]
        aucs.append(np.dot(tf[1:, 1] - tf[:-1, 1], (tf[1:, 0] + tf[:-1, 0]) / 2))
        aps.append(np.dot(tf[1:-1, 0] - tf[:-2, 0], prec[1:]))
    return np.array(aucs), np.array(aps)


def _series(rng, n, n_seg, max_len, *, edge=False):
    y = np.zeros(n, dtype=int)
    for _ in range(n_seg):
        a = rng.integers(0, n - max_len)
        y[a : a + rng.integers(1, max_len + 1)] = 1
    if edge:
        y[:3] = 1
        y[-2:] = 1
    return y


@pytest.mark.parametrize("case", range(6))
def test_vus_matches_reference_transcription(case):
    rng = np.random.default_rng(case)
    y = _series(rng, 300, 1 + case, 12, edge=case % 2 == 1)
    s = rng.random(300) + 0.8 * y * rng.random(300)
    if case >= 4:  # ties
        s = np.round(s * 5) / 5
    window, thre = (8, 40) if case < 3 else (15, 25)
    r = vus(y, s, window=window, n_thresholds=thre)
    auc, ap = _vus_reference(y, s, window, thre)
    np.testing.assert_allclose(r.auc_roc, auc, rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.auc_pr, ap, rtol=0, atol=1e-9)
    assert r.vus_roc == pytest.approx(auc.mean(), abs=1e-9)
    assert r.range_auc_pr == pytest.approx(ap[-1], abs=1e-9)


def test_vus_bad_parameters_name_themselves():
    y = np.array([0, 1, 1, 0, 0])
    with pytest.raises(InvalidInputError, match="window"):
        vus(y, np.arange(5.0), window=-1)
    with pytest.raises(InvalidInputError, match="n_thresholds"):
        vus(y, np.arange(5.0), n_thresholds=1)


# --------------------------------------------------------------------------- Tatbul et al. (NeurIPS 2018), Algorithm 1
def _ranges_of(x):
    out, i = [], 0
    while i < len(x):
        if x[i]:
            j = i
            while j + 1 < len(x) and x[j + 1]:
                j += 1
            out.append(set(range(i, j + 1)))
            i = j + 1
        else:
            i += 1
    return out


def _delta_ref(i, length, bias):
    if bias == "flat":
        return 1
    if bias == "front":
        return length - i + 1
    if bias == "back":
        return i
    return i if i <= length / 2 else length - i + 1


def _omega(anomaly_range, overlap_set, bias):
    rng = sorted(anomaly_range)
    my_value = max_value = 0
    for i, t in enumerate(rng, start=1):
        b = _delta_ref(i, len(rng), bias)
        max_value += b
        if t in overlap_set:
            my_value += b
    return my_value / max_value


def _side(ranges, others, alpha, cardinality, bias):
    total = 0.0
    for r in ranges:
        hits = [p for p in others if r & p]
        existence = 1.0 if hits else 0.0
        gamma = 1.0 if len(hits) <= 1 or cardinality == "one" else 1.0 / len(hits)
        overlap = gamma * sum(_omega(r, r & p, bias) for p in hits)
        total += alpha * existence + (1 - alpha) * overlap
    return total / len(ranges) if ranges else 0.0


@pytest.mark.parametrize("seed", range(12))
def test_range_precision_recall_matches_tatbul_algorithm(seed):
    from auditad.timeseries import range_precision_recall

    rng = np.random.default_rng(100 + seed)
    y = _series(rng, 120, 4, 15)
    pred = (np.convolve(rng.random(120) < 0.08, np.ones(int(rng.integers(1, 6))), mode="same") > 0).astype(int)
    real, predicted = _ranges_of(y), _ranges_of(pred)
    alpha = [0.0, 0.3, 1.0][seed % 3]
    cardinality = ["one", "reciprocal"][seed % 2]
    for bias in ("flat", "front", "back", "middle"):
        p_bias = ["flat", "back", "middle", "front"][seed % 4]
        p, r = range_precision_recall(y, pred, alpha=alpha, cardinality=cardinality, bias=bias, precision_bias=p_bias)
        assert r == pytest.approx(_side(real, predicted, alpha, cardinality, bias), abs=1e-12)
        assert p == pytest.approx(_side(predicted, real, 0.0, cardinality, p_bias), abs=1e-12)


def test_range_bias_bad_input_names_the_parameter():
    from auditad.timeseries import best_range_f1, range_precision_recall

    with pytest.raises(InvalidInputError, match="bias"):
        range_precision_recall([0, 1, 0], [0, 1, 0], bias="centre")
    with pytest.raises(InvalidInputError, match="precision_bias"):
        best_range_f1([0, 1, 0], [0.0, 1.0, 0.0], precision_bias="x")


# --------------------------------------------------------------------------- nulls, audit, summary schema
def test_random_vus_and_affiliation_nulls_are_reproducible_and_centred():
    from auditad.timeseries import random_affiliation_null, random_vus_null

    rng = np.random.default_rng(7)
    y = _series(rng, 3000, 6, 60)
    a = random_vus_null(y, n_draws=8, window=20, n_thresholds=100, random_state=3)
    b = random_vus_null(y, n_draws=8, window=20, n_thresholds=100, random_state=3)
    assert np.array_equal(a["vus_pr"].draws, b["vus_pr"].draws)
    # random scores: the ROC volume sits near 1/2 (within 5 Monte Carlo errors + the buffer's small tilt)
    assert abs(a["vus_roc"].mean - 0.5) < 5 * a["vus_roc"].mc_error + 0.05
    assert a["range_auc_pr"].kind == "threshold free" and a["vus_pr"].to_dict()["n_draws"] == 8
    aff = random_affiliation_null(y, n_draws=4, n_thresholds=30, random_state=3)
    assert 0.5 < aff.mean < 1.0 and aff.draws.size == 4
    with pytest.raises(InvalidInputError, match="window"):
        random_vus_null(y, n_draws=2, window=-3)
    with pytest.raises(InvalidInputError, match="n_draws"):
        random_affiliation_null(y, n_draws=0)


def test_audit_bad_draw_settings_name_the_parameter():
    from auditad.timeseries import audit_timeseries

    y = np.zeros(200, dtype=int)
    y[50:60] = 1
    for kw in ({"vus_draws": -1}, {"affiliation_draws": 1.5}, {"window": -2}):
        with pytest.raises(InvalidInputError, match=next(iter(kw))):
            audit_timeseries({"s": y}, n_draws=5, range_draws=0, **kw)


def test_summary_matches_its_schema_and_lists_captioned_outputs(tmp_path):
    import json
    from importlib.resources import files

    import jsonschema

    from auditad.cli import main

    rng = np.random.default_rng(1)
    y = _series(rng, 2500, 5, 40)
    np.save(tmp_path / "y.npy", y)
    np.save(tmp_path / "s.npy", y * 0.5 + rng.random(y.size))
    (tmp_path / "t.csv").write_text("method,dataset,F1,F1-PA,VUS-PR,Affiliation-F\nA,S,0.1,0.9,0.2,0.8\n")
    out = tmp_path / "out"
    argv = ["timeseries", "--labels", f"S={tmp_path / 'y.npy'}", "--scores", f"d={tmp_path / 's.npy'}"]
    argv += ["--results", str(tmp_path / "t.csv"), "--out", str(out), "--draws", "20", "--range-draws", "1"]
    argv += ["--vus-draws", "2", "--affiliation-draws", "2", "--vus-window", "16", "--gate", "warn: settings.seed == 0"]
    assert main(argv) in (0, 1)
    summary = json.loads((out / "summary.json").read_text())
    schema = json.loads(files("auditad").joinpath("schemas", "timeseries.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(summary, schema)
    assert summary["kind"] == "timeseries" and summary["schema_version"] == "1.1"
    for stem in summary["tables"]:
        assert (out / "tables" / f"{stem}.csv").is_file() and summary["captions"][stem]
    for stem in summary["figures"]:
        assert (out / "figures" / f"{stem}.pdf").is_file() and summary["captions"][stem]
    nulls = summary["series"]["S"]["nulls"]["best_threshold"]
    assert nulls["vus_pr"]["n_draws"] == 2 and nulls["affiliation_f1"]["mc_error"] is not None
    published = {r["metric"]: r for r in summary["results"]}
    assert {"vus_pr", "affiliation_f1"} <= set(published)
    assert "random_range_metrics" in {f["check"] for f in summary["findings"]}
    broken = dict(summary, schema_version=1)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_vus_without_buffer_and_cli_bad_draws(tmp_path, capsys):
    from auditad.cli import main

    rng = np.random.default_rng(11)
    y = _series(rng, 200, 3, 10)
    s = rng.random(200) + y
    r = vus(y, s, window=0, n_thresholds=30)
    auc, ap = _vus_reference(y, s, 0, 30)
    np.testing.assert_allclose([r.vus_roc, r.vus_pr], [auc[0], ap[0]], atol=1e-9)
    np.save(tmp_path / "y.npy", y)
    for flag in ("--vus-draws", "--affiliation-draws", "--vus-window"):
        argv = ["timeseries", "--labels", f"S={tmp_path / 'y.npy'}", "--out", str(tmp_path / "o"), flag, "-1"]
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert flag in err and len(err.splitlines()) == 1
    assert not (tmp_path / "o").exists()
