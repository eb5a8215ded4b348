"""Notebook display: ``_repr_html_`` of the result objects, parsed with html.parser (escaping, tables, figures)."""

from html.parser import HTMLParser

import numpy as np
import pytest

from auditad import leakage, null_distribution
from auditad._format import html_block, html_table, svg_bars, svg_histogram

EVIL = "<script>alert('x')</script>"


class _Collect(HTMLParser):
    """Start tags (with attributes) and text of an HTML fragment; every tag must be closed in order."""

    VOID = {"br", "img", "input", "meta", "hr", "col", "line", "rect", "path", "circle"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.text, self.open = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        assert self.open and self.open[-1] == tag, (tag, self.open[-5:])
        self.open.pop()

    def handle_data(self, data):
        self.text.append(data)


def parse(html: str) -> _Collect:
    p = _Collect()
    p.feed(html)
    p.close()
    assert not p.open, p.open  # balanced
    return p


def _table_rows(p: _Collect) -> int:
    return sum(1 for t, _ in p.tags if t == "tr")


def test_html_table_escapes_every_cell_and_formats_by_column_kind():
    html = str(html_table([{"class": EVIL, "n": 1234, "auroc": 0.51234, "p_value": 2e-5}], caption="a < b"))
    p = parse(html)
    assert [t for t, _ in p.tags if t == "script"] == []
    text = "".join(p.text)
    assert EVIL in text and "a < b" in text
    assert "0.512" in text and "1\u202f234" in text and "2.0e-05" in text
    many = parse(str(html_table([{"x": i} for i in range(50)], max_rows=10)))
    assert _table_rows(many) == 1 + 10 + 1 and "40 more rows" in "".join(many.text)


def test_svg_helpers_are_well_formed_and_escape_labels():
    bars = str(svg_bars([EVIL, "b"], [0.25, np.nan], title="t <1>", reference=0.5))
    p = parse(bars)
    assert [t for t, _ in p.tags if t == "script"] == []
    assert sum(t == "rect" for t, _ in p.tags) == 2 and any(t == "line" for t, _ in p.tags)
    assert "t <1>" in "".join(p.text) and "\u2013" in "".join(p.text)  # the missing value reads "–"
    hist = parse(str(svg_histogram([0.0, 0.5, 1.0], [0.2, 0.8], title="h", marker=0.9)))
    assert sum(t == "rect" for t, _ in hist.tags) == 2 and any(t == "line" for t, _ in hist.tags)
    assert str(svg_histogram([0.0], [], title="empty")) == ""
    block = parse(html_block(EVIL, "plain <text>", note="n & m"))
    assert "".join(block.text).count(EVIL) == 1 and "plain <text>" in "".join(block.text)


def test_leakage_result_shows_escaped_class_names_and_per_class_bars():
    rng = np.random.default_rng(0)
    y = np.array([EVIL, "b&c", "plain"])[np.arange(90) % 3]
    X = rng.normal(size=(90, 4)) + 3.0 * (np.arange(90) % 3)[:, None]
    res = leakage(X, y, k=[5, 1], backend="exact")
    p = parse(res._repr_html_())
    text = "".join(p.text)
    assert [t for t, _ in p.tags if t == "script"] == []
    assert EVIL in text and "b&c" in text
    assert f"{res.L_k:.3f}" in text and "k = 5" in text
    svg = [a for t, a in p.tags if t == "svg"]
    assert len(svg) == 1 and sum(t == "rect" for t, _ in p.tags) == 3  # one bar per class
    assert _table_rows(p) == (1 + 2) + (1 + 3)  # L_k per k, then per class


def test_null_result_table_and_histogram_with_the_observed_score():
    res = null_distribution(8, 40, metrics=["auroc", "ap"], observed={"auroc": 0.8}, random_state=0, runs=200)
    p = parse(res._repr_html_())
    text = "".join(p.text)
    assert "n_pos = 8" in text and "auroc" in text and "ap" in text
    assert _table_rows(p) == 1 + 2
    assert any(t == "svg" for t, _ in p.tags) and any(t == "line" for t, _ in p.tags)  # the observed score
    assert f"{res['auroc'].p_value:.3g}" in text


def test_null_sweep_landscape_and_selection_displays():
    from auditad.landscapes import landscape
    from auditad.nulls import null_sweep
    from auditad.selection import run_selection
    from auditad.synthetic import make_selection_benchmark

    sweep = null_sweep([0.1, 0.3], n=40, metrics=["auroc"], random_state=0)
    p = parse(sweep._repr_html_())
    assert _table_rows(p) == 1 + 2 and "n = 40" in "".join(p.text)
    land = landscape([0.5, "UCR"], metrics=["auroc", "f1"], resolution=11)
    p = parse(land._repr_html_())
    assert _table_rows(p) == 1 + 4 and "UCR" in "".join(p.text) and "11 × 11" in "".join(p.text)
    bench = make_selection_benchmark(n_tasks=2, n_source=30, n_target=3, n_test=20, random_state=0)
    sel = run_selection(bench, estimators=["inlier_variance", "pseudo_auc[feature]"], n_boot=0)
    p = parse(sel._repr_html_())
    text = "".join(p.text)
    assert "Pseudo AUC (Feature)" in text and "Oracle" in text and "best estimator" in text
    assert _table_rows(p) == 1 + len(sel.summary_frame())


@pytest.fixture(scope="module")
def audit_run(tmp_path_factory):
    from auditad.audit.config import config_from_paths
    from auditad.audit.loader import load_inputs
    from auditad.audit.runner import run_audit

    d = tmp_path_factory.mktemp("nb")
    rng = np.random.default_rng(1)
    y = np.array([EVIL, "b", "c"])[np.repeat(np.arange(3), 15)]
    X = rng.normal(size=(45, 2)) + 50.0 * np.repeat(np.arange(3), 15)[:, None]
    np.save(d / "X.npy", X)
    np.save(d / "y.npy", y)
    cfg = config_from_paths(
        {"raw": d / "X.npy"},
        d / "y.npy",
        name="tiny",
        overrides={
            "detectors": ["knn"],
            "null_runs": 50,
            "landscape_resolution": 11,
            "null_metrics": ["auroc"],
            "leakage_k": [3],
        },
    )
    return run_audit([load_inputs(b, cfg) for b in cfg.benchmarks], d / "out")


def test_audit_run_table_and_isolated_report_frame(audit_run):
    html = audit_run._repr_html_()
    p = parse(html)
    assert [t for t, _ in p.tags if t == "script"] == []  # the report's script stays inside the frame's text
    text = "".join(p.text)
    assert "tiny" in text and audit_run.verdict.upper() in text
    frames = [a for t, a in p.tags if t == "iframe"]
    assert len(frames) == 1 and frames[0]["sandbox"] == ""  # sandboxed: no script, no same origin
    report = (audit_run.out / "tiny" / "report.html").read_text(encoding="utf-8")
    assert frames[0]["srcdoc"] == report  # the whole report, escaped into the attribute and back
    assert EVIL not in html  # the class name is escaped in the report, and the report once more in srcdoc


def test_protocol_result_display_names_the_inverted_classes_and_escapes_labels():
    from auditad.protocol import Detector, audit_protocol

    class Flip:
        """Minus the distance to the training mean: ranks far (anomalous) samples lowest."""

        def fit(self, X):
            self.mu = X.mean(axis=0)
            return self

        def score_samples(self, X):
            return -np.linalg.norm(X - self.mu, axis=1)

    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(size=(40, 3)) + 5 * np.eye(3)[c] for c in range(3)])
    y = np.repeat(np.array(["a", "b", EVIL], dtype=object), 40)
    res = audit_protocol(
        X, y, detectors=["knn", Detector(Flip(), higher_is_anomalous=True, name="flip")], leakage_k=0, random_state=0
    )
    html = res._repr_html_()
    parser = _Collect()
    parser.feed(html)
    parser.close()
    assert not [t for t, _ in parser.tags if t == "script"]  # the label is text, never a tag
    text = "".join(parser.text)
    assert EVIL in text and "significantly inverted" in text and "flip on X" in text
