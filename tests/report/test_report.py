"""The audit report: `auditad demo` / `auditad audit` output, summary.json schema, HTML safety, gates, atomicity."""

import contextlib
import io
import json
import math
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlparse

import jsonschema  # in the test extra: a missing dependency fails, it does not skip
import numpy as np
import pytest

from auditad.cli import main

SCRIPT = "<script>alert(1)</script>"


def run_cli(argv):
    """Run the CLI in-process; return (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def tree_bytes(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def schema():
    from auditad.report import schema_path

    return json.loads(schema_path().read_text(encoding="utf-8"))


class _Page(HTMLParser):
    """Collects tags, ids, external-looking references and the text of h1."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.ids, self.refs, self.h1, self.classes = [], [], [], [], []
        self._in_h1 = False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for k, v in attrs:
            if k == "id":
                self.ids.append(v)
            if k == "class" and v:
                self.classes.extend(v.split())
            if k in ("src", "href", "xlink:href", "action", "poster", "data") and v is not None:
                self.refs.append(v)
            if k == "style" and v and "url(" in v:
                self.refs.extend(part.split(")")[0].strip("'\" ") for part in v.split("url(")[1:])
        self._in_h1 = tag == "h1" or self._in_h1

    def handle_endtag(self, tag):
        if tag == "h1":
            self._in_h1 = False

    def handle_data(self, data):
        if self._in_h1:
            self.h1.append(data)


def parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    # url(...) inside <style> and SVG attributes
    import re

    page.refs.extend(m.strip("'\" ") for m in re.findall(r"url\(([^)]*)\)", html))
    return page


def external(ref: str) -> bool:
    """A reference that would make the browser contact another host."""
    if ref.startswith("#") or ref.startswith("data:"):
        return False
    parsed = urlparse(ref)
    return bool(parsed.scheme or parsed.netloc) or ref.startswith("//")


# --------------------------------------------------------------------------- the demo (run once)
@pytest.fixture(scope="module")
def demo(quiet_demo):
    """(output folder, exit code, stdout, stderr) of ``auditad demo --quiet`` (tests/conftest.py: shared, read only)."""
    return quiet_demo


def test_demo_writes_the_report_and_prints_its_path(demo):
    out, code, stdout, stderr = demo
    assert code == 0, stderr
    assert stderr == ""  # --quiet: no progress bars
    lines = stdout.strip().splitlines()
    assert lines[0].split()[:2] == ["benchmark", "n"] and lines[1].split()[0] == "digits"
    assert lines[1].split()[-1] in ("PASS", "WARN")
    assert lines[-1] == f"report: {(out / 'digits' / 'report.html').resolve()}"
    files = set(tree_bytes(out))
    assert {"index.html", "digits/report.html", "digits/summary.json"} <= files
    svgs = {f[len("digits/figures/") : -4] for f in files if f.startswith("digits/figures/") and f.endswith(".svg")}
    pdfs = {f[len("digits/figures/") : -4] for f in files if f.startswith("digits/figures/") and f.endswith(".pdf")}
    assert (
        svgs == pdfs
        and {
            "leakage_vs_k",
            "protocol_heatmap_pixels",
            "protocol_heatmap_pca16",
            "nulls_auroc",
            "landscapes",
            "selection",
        }
        <= svgs
    )
    tables = {f[len("digits/tables/") :] for f in files if f.startswith("digits/tables/")}
    stems = {t.rsplit(".", 1)[0] for t in tables}
    assert {"leakage", "protocol_summary", "protocol_auroc", "nulls", "landscape_regions", "selection"} <= stems
    for stem in stems:  # every table in CSV, Markdown and LaTeX with booktabs
        assert {f"{stem}.csv", f"{stem}.md", f"{stem}.tex"} <= tables
        assert "\\toprule" in (out / "digits" / "tables" / f"{stem}.tex").read_text()
    for name in pdfs:
        assert (out / "digits" / "figures" / f"{name}.pdf").read_bytes().startswith(b"%PDF")
    # the usual permissions of the umask, not the private ones of temporary files
    import os
    import stat

    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE((out / "digits" / "report.html").stat().st_mode) == 0o666 & ~mask
    assert stat.S_IMODE(out.stat().st_mode) == 0o777 & ~mask


def test_demo_summary_validates_and_matches_the_library(demo):
    from auditad.datasets import load_example
    from auditad.leakage import leakage
    from auditad.nulls import null_distribution

    out = demo[0]
    summary = json.loads((out / "digits" / "summary.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema())
    jsonschema.validate(summary, schema())
    assert summary["schema_version"] == "1.0" and summary["benchmark"] == "digits"
    assert summary["seed"] == 0 and summary["run"] == {"timestamp": None, "elapsed_seconds": None}
    assert list(summary["dataset"]["representations"]) == ["pixels", "pca16"]
    assert summary["environment"]["packages"]["numpy"] == np.__version__
    # statistics at full precision, equal to the library's own results
    bench = load_example()
    for rep, X in bench.representations.items():
        ref = leakage(X, bench.y, k=[10, 1, 5, 20], backend="exact")
        got = summary["leakage"]["representations"][rep]
        assert got["L_k"] == ref.L_k and got["by_k"] == {str(k): float(v) for k, v in zip(ref.ks, ref.L)}
    # the top-level L_k is the largest over the representations (pca16 here, named), checked against a
    # brute-force oracle
    from sklearn.metrics import pairwise_distances

    assert summary["leakage"]["representation"] == "pca16"
    assert summary["leakage"]["L_k"] == summary["leakage"]["max_L_k"]
    X, y = bench.representations["pca16"], bench.y
    D = pairwise_distances(X)
    np.fill_diagonal(D, np.inf)
    nn = np.argsort(D, axis=1, kind="stable")[:, :10]  # ties broken by index
    assert summary["leakage"]["L_k"] == pytest.approx(np.mean(y[nn] != y[:, None]), abs=1e-12)
    pc = summary["nulls"]["per_class"][0]
    obs = pc["observed"]["pca16"]["lof"]
    direct = null_distribution(pc["n_pos"], pc["n_neg"], metrics=("auroc",), observed={"auroc": obs["auroc"]})
    assert obs["above_q99"] == (obs["auroc"] > direct["auroc"].q99)
    # one p per AUROC: the nulls section shows the protocol's two-sided decision p
    lof = [
        r
        for r in summary["protocol"]["representations"]["pca16"]["per_class"]
        if r["detector"] == "lof" and r["class"] == pc["class"]
    ][0]
    assert obs["p_value"] == lof["p_value"]
    # each detector's own AUROC(c) is placed on the null (an average of detectors has no p-value)
    for det in ("knn", "iforest", "lof"):
        row = [
            r
            for r in summary["protocol"]["representations"]["pixels"]["per_class"]
            if r["detector"] == det and r["class"] == pc["class"]
        ][0]
        assert pc["observed"]["pixels"][det]["auroc"] == row["auroc"]
    assert "ensemble" not in pc["observed"]["pixels"]
    # the benchmark's anomaly ratio is the mean test-set share of the class-split tasks
    ratios = [p["n_pos"] / (p["n_pos"] + p["n_neg"]) for p in summary["nulls"]["per_class"]]
    assert summary["landscapes"]["ratio"] == pytest.approx(np.mean(ratios), rel=1e-12)
    sel = summary["selection"]
    assert sel["n_tasks"] == 10 and sel["best"]["key"] in sel["by_selector"]
    assert sel["by_selector"]["oracle"]["regret"] == 0.0
    # default gates (warnings) were evaluated and recorded
    assert [g["rule"] for g in summary["gates"]] == [
        "leakage.L_k <= 0.5",
        "protocol.worst.rho_dir <= 0.2",
        "protocol.worst.rho_inv_sig <= 0",
        "duplicates.conflicting_rows <= 0",
        "duplicates.train_test_overlap <= 0.01",
    ]
    # Isolation Forest ranks digit 8 below the normals on raw pixels (the ensemble hides it), significantly in its
    # one draw; its confirmatory draws (new forest seeds and splits) do not confirm it: below 1/2 within noise,
    # the spread from seeds and splits, so the significant-inversion gate passes
    pixels = summary["protocol"]["representations"]["pixels"]
    assert pixels["ensemble"]["rho_inv"] == 0.0 < pixels["mean"]["rho_inv"]
    row = [
        r
        for r in summary["protocol"]["representations"]["pixels"]["per_class"]
        if r["detector"] == "iforest" and r["class"] == 8
    ][0]
    assert row["auroc"] < 0.5 and row["p_method"] == "rubin" and row["significance"] == "below 1/2 within noise"
    assert row["dominant_source"] == "seeds and splits"
    # and the classes whose one-draw claim the pooled between-draw variance puts near 1/2 + eps (3 and 9)
    assert summary["protocol"]["confirmation"] == {"repeats": 5, "candidates": 3}
    assert summary["gates"][2]["status"] == "pass" and summary["verdict"] == "pass"


def test_demo_html_is_self_contained_and_well_formed(demo):
    out = demo[0]
    html = (out / "digits" / "report.html").read_text(encoding="utf-8")
    page = parse(html)
    assert "".join(page.h1).strip() == "Evaluation-protocol audit: digits"
    assert "iframe" not in page.tags and "link" not in page.tags
    assert "javascript:" not in html.lower()
    # one inline script (sortable tables), no source attribute, no network API
    assert page.tags.count("script") == 1 and not re.search(r"<script[^>]*\bsrc=", html, re.I)
    body = html.lower().split("<script>", 1)[1].split("</script>", 1)[0]
    assert not any(word in body for word in ("http", "fetch(", "xmlhttprequest", "import(", "websocket"))
    bad = [r for r in page.refs if external(r)]
    assert not bad, bad[:5]
    assert len(page.ids) == len(set(page.ids)), "duplicate element ids (figures must not share ids)"
    figures = [p for p in (out / "digits" / "figures").glob("*.svg")]
    assert page.tags.count("svg") == len(figures)  # every figure inlined
    assert "<?xml" not in html and "<!DOCTYPE svg" not in html and "<metadata>" not in html
    for section in (
        "leakage",
        "protocol",
        "duplicates",
        "nulls",
        "landscapes",
        "selection",
        "gates",
        "reproducibility",
    ):
        assert section in page.ids
    assert "banner" in page.classes
    assert '<meta name="viewport"' in html and "@media print" in html
    index = (out / "index.html").read_text(encoding="utf-8")
    ipage = parse(index)
    assert 'href="digits/report.html"' in index and not [r for r in ipage.refs if external(r)]


def test_demo_output_feeds_gate_and_appendix_commands(demo, tmp_path):
    import re
    import shutil
    import subprocess

    out = demo[0]
    summary = out / "digits" / "summary.json"
    assert run_cli(["gate", str(summary)])[0] == 0  # the stored (default, warning) gates
    assert run_cli(["gate", str(summary), "--gate", "leakage.L_k <= 0.001"])[0] == 1
    assert run_cli(["gate", str(summary), "--gate", "leakage.no_such_number <= 1"])[0] == 2
    code, stdout, stderr = run_cli(["appendix", str(out), "--out", str(tmp_path / "appendix")])
    assert code == 0, stderr
    tex = (tmp_path / "appendix" / "appendix.tex").read_text()
    figures = re.findall(r"\\includegraphics(?:\[[^]]*\])?\{\\AuditadDir ([^}]*)\}", tex)
    tables = re.findall(r"\\input\{\\AuditadDir ([^}]*)\}", tex)
    assert len(figures) == len(list((out / "digits" / "figures").glob("*.pdf")))
    assert len(tables) == 1 + len(list((out / "digits" / "tables").glob("*.csv")))  # + the gates table
    assert all((tmp_path / "appendix" / rel).is_file() for rel in figures + tables)
    # the captions of summary.json reach the LaTeX tables
    assert any("digits: neighbourhood class leakage" in (tmp_path / "appendix" / t).read_text() for t in tables)
    if shutil.which("pdflatex"):
        (tmp_path / "paper.tex").write_text(
            "\\documentclass{article}\n\\usepackage{booktabs}\n"
            "\\usepackage{graphicx}\n\\begin{document}\n"
            "\\input{appendix/appendix.tex}\n\\end{document}\n"
        )
        proc = subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=180,
            stdin=subprocess.DEVNULL,
        )
        assert proc.returncode == 0, proc.stdout[-3000:]
        assert (tmp_path / "paper.pdf").read_bytes()[:5] == b"%PDF-"


# --------------------------------------------------------------------------- a small configured benchmark
@pytest.fixture
def toy(tmp_path):
    rng = np.random.default_rng(0)
    labels = np.repeat(["a", "b", SCRIPT], 30)
    X = rng.normal(size=(90, 4)) + np.repeat(np.arange(3), 30)[:, None] * 2.0
    d = tmp_path / "bench"
    d.mkdir()
    np.save(d / "emb.npy", X)
    domain = np.tile(["s", "t"], 45)
    anomaly = (rng.random(90) < 0.15).astype(int)
    import pandas as pd

    pd.DataFrame({"label": labels, "domain": domain, "anomaly": anomaly}).to_csv(d / "labels.csv", index=False)
    settings = (
        "[settings]\nseed = 3\nleakage_k = [5, 1]\ndetectors = ['knn']\nnull_runs = 100\n"
        "landscape_resolution = 21\nlandscape_metrics = ['auroc', 'aupr_trap']\n"
        "null_metrics = ['auroc', 'ap']\n"
    )
    bench = (
        "[[benchmarks]]\nname = 'toy'\nlabels = 'labels.csv'\nembeddings = { raw = 'emb.npy' }\n"
        "columns = { domain = 'domain', anomaly = 'anomaly' }\n"
    )
    (d / "audit.toml").write_text("version = 1\n" + settings + "\n" + bench)
    return d, settings, bench


def test_two_benchmarks_index_and_escaped_label(toy):
    d, settings, bench = toy
    second = (
        "[[benchmarks]]\nname = 'toy-pca'\nlabels = 'labels.csv'\nembeddings = 'emb.npy'\n"
        "gates = ['warn: leakage.L_k <= 0.0001']\n[benchmarks.settings]\nprotocol = 'one_class'\n"
    )
    (d / "two.toml").write_text("version = 1\n" + settings + "\n" + bench + "\n" + second)
    code, stdout, stderr = run_cli(["audit", str(d / "two.toml"), "--out", str(d / "out"), "--quiet"])
    assert code == 0, stderr  # the failed gate is a warning
    lines = stdout.strip().splitlines()
    assert [ln.split()[0] for ln in lines[1:3]] == ["toy", "toy-pca"] and lines[2].split()[-1] == "WARN"
    assert lines[-1] == f"report: {(d / 'out' / 'index.html').resolve()}"
    index = (d / "out" / "index.html").read_text(encoding="utf-8")
    assert 'href="toy/report.html"' in index and 'href="toy-pca/report.html"' in index
    assert 'class="banner warn"' in index
    second_summary = json.loads((d / "out" / "toy-pca" / "summary.json").read_text())
    assert second_summary["protocol"]["protocol"] == "one_class" and second_summary["verdict"] == "warn"
    # the label <script>alert(1)</script> is shown as text, never as markup
    html = (d / "out" / "toy" / "report.html").read_text(encoding="utf-8")
    assert SCRIPT not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.lower().count("<script") == 1 and index.lower().count("<script") <= 1  # the sortable-table script only
    summary = json.loads((d / "out" / "toy" / "summary.json").read_text())
    jsonschema.validate(summary, schema())
    jsonschema.validate(second_summary, schema())
    assert SCRIPT in summary["dataset"]["classes"]  # JSON keeps the label as it is
    # optional columns: domain leakage reported; the anomaly column sets the landscapes' ratio and its own null
    assert summary["leakage"]["columns"]["domain"]["n_values"] == 2
    assert summary["landscapes"]["ratio"] == pytest.approx(summary["dataset"]["anomaly_ratio"])
    import pandas as pd

    assert summary["nulls"]["anomaly_split"]["n_pos"] == int(pd.read_csv(d / "labels.csv")["anomaly"].sum())


def test_gate_exit_codes_junit_and_markdown(toy):
    from auditad.manifest import write_manifest
    from auditad.synthetic import make_selection_benchmark

    d = toy[0]
    flags = ["audit", "--embeddings", f"raw={d / 'emb.npy'}", "--labels", str(d / "labels.csv"), "--quiet"]
    flags += ["--detector", "knn", "--null-metric", "auroc", "--landscape-metric", "auroc"]  # fewer figures: faster
    manifest = write_manifest(
        make_selection_benchmark(
            n_tasks=2,
            n_source=30,
            n_target=4,
            n_test=20,
            n_auxiliary=10,
            families=("clean", "noisy"),
            poolings=("mean",),
            scorings=("knn",),
            random_state=0,
        ),
        d / "selection",
    )
    # a failing fail-level gate: exit 1, the report is still written, JUnit and Markdown too
    code, stdout, _ = run_cli(
        flags
        + [
            "--out",
            str(d / "o1"),
            "--gate",
            "leakage.L_k <= 0.0001",
            "--gate",
            "warn: protocol.mean.rho_dir <= 1",
            "--gate",
            "selection.by_selector.oracle.regret == 0",
            "--manifest",
            str(manifest),
            "--junit",
            str(d / "j.xml"),
            "--markdown",
            str(d / "ci.md"),
        ]
    )
    assert code == 1
    summary = json.loads((d / "o1" / "labels" / "summary.json").read_text())
    jsonschema.validate(summary, schema())
    assert summary["verdict"] == "fail" and summary["config"]["origin"] == "flags"
    assert [g["status"] for g in summary["gates"]] == ["fail", "pass", "pass"]
    # the manifest adds the model-selection section, table and figure
    assert summary["selection"]["n_tasks"] == 2 and summary["selection"]["best"] is not None
    assert (d / "o1" / "labels" / "tables" / "selection.tex").is_file()
    assert 'id="selection"' in (d / "o1" / "labels" / "report.html").read_text()
    root = ET.parse(d / "j.xml").getroot()
    assert root.tag == "testsuites" and root.get("tests") == "3" and root.get("failures") == "1"
    assert "FAIL" in (d / "ci.md").read_text()
    assert 'class="banner fail"' in (d / "o1" / "labels" / "report.html").read_text()
    assert "verdict: fail (exit 1" in stdout
    # a failing warn-level gate: exit 0, or 1 with --fail-on warn
    warn = ["--gate", "warn: leakage.L_k <= 0.0001"]
    assert run_cli(flags + ["--out", str(d / "o2")] + warn)[0] == 0
    assert json.loads((d / "o2" / "labels" / "summary.json").read_text())["verdict"] == "warn"
    assert run_cli(flags + ["--out", str(d / "o3"), "--fail-on", "warn", "--timestamp"] + warn)[0] == 1
    stamped = json.loads((d / "o3" / "labels" / "summary.json").read_text())
    assert stamped["run"]["timestamp"] is not None and stamped["run"]["elapsed_seconds"] > 0


def test_same_config_and_seed_give_identical_bytes(toy):
    d = toy[0]
    first, second = d / "first", d / "second"
    assert run_cli(["audit", str(d / "audit.toml"), "--out", str(first), "--quiet"])[0] == 0
    before = tree_bytes(first)
    assert run_cli(["audit", str(d / "audit.toml"), "--out", str(second), "--quiet"])[0] == 0
    assert tree_bytes(second) == before
    # rerunning into the same folder replaces the earlier report (same bytes again)
    assert run_cli(["audit", str(d / "audit.toml"), "--out", str(first), "--quiet"])[0] == 0
    assert tree_bytes(first) == before


BAD = {
    "typo": ("[settings]\nsede = 1\n", None, r"settings: unknown key 'sede'; did you mean 'seed'"),
    "missing file": (
        None,
        "[[benchmarks]]\nname = 'toy'\nlabels = 'labels.csv'\nembeddings = 'nope.npy'\n",
        r"embeddings.raw = 'nope.npy': file not found|nope.npy",
    ),
    "outside": (
        None,
        "[[benchmarks]]\nname = 'toy'\nlabels = 'labels.csv'\nembeddings = '../emb.npy'\n",
        r"outside the config folder",
    ),
    "one class": (
        None,
        "[[benchmarks]]\nname = 'toy'\nlabels = 'one.csv'\nembeddings = 'emb.npy'\n",
        r"at least 2 classes",
    ),
    "gate section": ("gates = ['leakge.L_k <= 0.5']\n", None, r"unknown gate metric 'leakge.L_k'"),
    "gate path": ("gates = ['leakage.L_kk <= 0.5']\n", None, r"unknown gate metric 'leakage.L_kk'"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_exits_2_with_one_line_and_writes_nothing(toy, case):
    d, settings, bench = toy
    head, body, match = BAD[case]
    (d / "one.csv").write_text("label\n" + "x\n" * 90)
    if case == "outside":
        (d.parent / "emb.npy").write_bytes((d / "emb.npy").read_bytes())
    if head and head.startswith("[settings]"):  # a key inside the [settings] table
        settings, head = settings.replace("[settings]\n", head), ""
    (d / "bad.toml").write_text((head or "") + settings + "\n" + (body or bench))
    before = sorted(p.name for p in d.iterdir())
    code, stdout, stderr = run_cli(["audit", str(d / "bad.toml"), "--out", str(d / "out")])
    assert code == 2
    lines = [ln for ln in stderr.splitlines() if ln.startswith("auditad: error:")]
    assert len(lines) == 1, stderr
    import re

    assert re.search(match, lines[0]), lines[0]
    assert sorted(p.name for p in d.iterdir()) == before  # no output folder, no temporary leftovers


def test_output_folder_that_is_a_file_or_foreign_folder(toy):
    d = toy[0]
    (d / "afile").write_text("keep")
    code, _, err = run_cli(["audit", str(d / "audit.toml"), "--out", str(d / "afile")])
    assert code == 2 and "exists and is a file" in err and (d / "afile").read_text() == "keep"
    foreign = d / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("precious")
    code, _, err = run_cli(["audit", str(d / "audit.toml"), "--out", str(foreign)])
    assert code == 2 and "not an auditad report" in err
    assert (foreign / "notes.txt").read_text() == "precious"
    code, _, err = run_cli(["audit", str(d / "audit.toml"), "--out", str(d)])
    assert code == 2 and (d / "audit.toml").exists()


def test_inline_svg_prefixes_ids_and_references():
    from auditad.report.render import inline_svg

    svg = (
        b'<?xml version="1.0"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x">\n'
        b'<svg xmlns:xlink="http://www.w3.org/1999/xlink" width="10pt" height="5pt" viewBox="0 0 10 5" '
        b'xmlns="http://www.w3.org/2000/svg"><metadata>m</metadata><defs><style type="text/css">*{}</style>'
        b'<clipPath id="p1"><rect/></clipPath><path id="g"/></defs>'
        b'<g clip-path="url(#p1)"><use xlink:href="#g"/><use xlink:href="#other"/></g></svg>'
    )
    out = str(inline_svg(svg, "f7", 'a <b> & "c"'))
    assert out.startswith("<svg") and "<?xml" not in out and "DOCTYPE" not in out and "metadata" not in out
    assert 'id="f7-p1"' in out and "url(#f7-p1)" in out and 'xlink:href="#f7-g"' in out
    assert 'xlink:href="#other"' in out  # not an id of this figure: left alone
    assert 'width="10pt"' not in out and 'style="max-width:10pt"' in out
    assert '<title id="f7-title">a &lt;b&gt; &amp; &#34;c&#34;</title>' in out


def test_plot_leakage_curve_draws_L_against_sorted_k():
    from matplotlib.figure import Figure

    from auditad.leakage import leakage
    from auditad.plotting import plot_leakage_curve

    X = np.r_[np.zeros((5, 1)), np.ones((5, 1)) * 10] + np.arange(10)[:, None] * 1e-3
    res = leakage(X, [0] * 5 + [1] * 5, k=[4, 1, 6], backend="exact")
    ax = plot_leakage_curve(res, ax=Figure().add_subplot(), label="rep")
    line, chance = ax.get_lines()
    assert list(line.get_xdata()) == [1, 4, 6]
    # k = 6 reaches into the other cluster: 2 of 6 neighbours of every sample carry the other label
    assert list(line.get_ydata()) == [0.0, 0.0, pytest.approx(2 / 6)]
    assert chance.get_ydata()[0] == pytest.approx(res.chance) and res.chance == pytest.approx(5 / 9)


def test_demo_report_has_references_and_no_internal_jargon(demo):
    import re

    html = (demo[0] / "digits" / "report.html").read_text(encoding="utf-8")
    text = re.sub(r"<svg.*?</svg>", "", html, flags=re.S)
    assert not re.search(r"seeds? 00\d|S[P]EC", text)  # the class [P] keeps this line out of the jargon grep
    refs = re.findall(r'<li id="ref-(\d+)">([^<]*)</li>', text)
    assert [n for n, _ in refs] == [str(i) for i in range(1, len(refs) + 1)] and len(refs) == 7  # 2 of duplicates
    assert any("Wilkinghoff" in r and "Embedding-Space Geometry" in r for _, r in refs)
    assert any("DeLong" in r and "Biometrics" in r for _, r in refs)
    for n, _ in refs:  # every reference is cited by a section
        assert f'href="#ref-{n}"' in text


def test_report_sources_have_no_internal_jargon():
    import re

    root = Path(__file__).resolve().parents[2]
    files = list((root / "auditad" / "report").rglob("*.py")) + list((root / "templates").glob("*.j2"))
    for f in files:
        bad = re.findall(r"seeds? 00\d|S[P]EC §|auditad S[P]EC", f.read_text(encoding="utf-8"))
        assert not bad, (f.name, bad)


# --------------------------------------------------------------------------- sections as units
def _inputs(X, y, *, settings=None, columns=None, gates=(), command_line=()):
    from auditad.datasets import Benchmark
    from auditad.audit.config import validate_settings
    from auditad.audit.loader import BenchmarkInputs

    s = validate_settings(
        {
            "detectors": ["knn"],
            "null_runs": 50,
            "landscape_resolution": 11,
            "null_metrics": ["auroc", "ap"],
            "leakage_k": [3, 1],
            **(settings or {}),
        }
    )
    bench = Benchmark(name="tiny", y=np.asarray(y), representations={"raw": np.asarray(X, dtype=float)}, sources={})
    return BenchmarkInputs(
        name="tiny",
        benchmark=bench,
        columns=columns or {},
        selection=None,
        settings=s,
        gates=tuple(gates),
        inputs=(),
        config_text="version = 1\n",
        config_name="tiny.toml",
        config_sha256="0" * 64,
        config_origin="file",
        command_line=tuple(command_line),
    )


def _separated(n_per=12, K=3, gap=100.0):
    rng = np.random.default_rng(1)
    y = np.repeat(np.arange(K), n_per)
    return rng.normal(size=(y.size, 2)) + gap * y[:, None], y


def _conditions(summary, *names):
    """The default gates ``names`` (keys of THRESHOLDS) evaluated on ``summary``, as the readings take them."""
    from auditad.gates.checks import evaluate_gates
    from auditad.gates.defaults import DEFAULT_RULES, reading_conditions

    return reading_conditions(evaluate_gates(summary, [DEFAULT_RULES[n] for n in names]))


def test_leakage_section_from_result_objects_and_degenerate_reading():
    from auditad.leakage import leakage
    from auditad.report.sections import Context, leakage as section, section_reading

    X, y = _separated()
    ctx = Context(_inputs(X, y))
    ctx.results["leakage"] = {
        "representations": {"raw": leakage(X, y, k=[3, 1]), "half": leakage(X[:, :1], y, k=[3, 1])},
        "columns": {},
    }
    sec = section.build(ctx)
    assert sec.id == "leakage" and sec.status == "ok" and sec.references[0][0] == "testing-the-test"
    assert sec.reading == ""  # written by the orchestrator once the gates were evaluated
    # well separated clusters: no neighbour from another class, in both representations
    assert sec.summary["L_k"] == 0.0 and sec.summary["max_L_k"] == 0.0
    reading = section_reading("leakage", sec.summary, conditions=_conditions({"leakage": sec.summary}, "leakage"))
    assert "No class has a neighbour from another class" in reading and "most mixed" not in reading
    assert "at most 0.5" in reading
    assert {t.name for t in sec.tables} == {"leakage", "leakage_per_class", "leakage_per_class_all_k"}
    assert [f.name for f in sec.figures] == ["leakage_vs_k"]
    # one mixed class: named, with its value (a brute-force count: 1 of 3 neighbours of the moved sample)
    X2 = X.copy()
    X2[0] = X[y == 1][0] + 0.01  # a class-0 sample inside class 1
    ctx.results["leakage"] = {"representations": {"raw": leakage(X2, y, k=[3, 1])}, "columns": {}}
    reading = section_reading("leakage", section.build(ctx).summary)
    assert "The most mixed class is" in reading


def test_protocol_and_nulls_readings_say_what_is_true_in_degenerate_cases():
    from auditad.report.sections import nulls, protocol

    base = {
        "protocol": "leave_one_class_out",
        "epsilon": 0.05,
        "representation_names": ["raw"],
        "mean": {
            "n_classes": 3,
            "mean_auc": 1.0,
            "sigma2_auc": 0.0,
            "range_auc": 0.0,
            "rho_inv": 0.0,
            "rho_rnd": 0.0,
            "rho_dir": 0.0,
            "spearman_leakage_auroc": None,
        },
    }

    def reading(rhos):
        dets = {d: {"rho_dir": r} for d, r in rhos.items()}
        return protocol.reading({**base, "representations": {"raw": {"detectors": dets}}})

    text = reading({"knn": 0.0, "lof": 0.0})
    assert "least stable" not in text and "No detector's score direction flips" in text
    assert "Every detector has the same ρ_dir = 0.333" in reading({"knn": 1 / 3, "lof": 1 / 3})
    assert "the least stable are knn, lof" in reading({"knn": 0.5, "lof": 0.5, "iforest": 0.1})
    assert "the least stable is lof (ρ_dir = 0.500)" in reading({"knn": 0.1, "lof": 0.5})
    # one count for every class: a number, not a range "30–30"
    pc = {
        "class": 0,
        "n_pos": 30,
        "n_neg": 60,
        "ratio": 1 / 3,
        "nulls": {"auroc": {"std": 0.06, "q99": 0.64}},
        "observed": {"raw": {"knn": {"above_q95": True}}},
    }
    text = nulls.reading(
        {"per_class": [pc, {**pc, "class": 1}], "n_observed": 2, "share_above_q99": 1.0, "representation": "raw"}
    )
    assert "30 anomalies and 60 normals (anomaly share 33.3%)" in text


def test_reading_thresholds_switch_at_the_default_gate():
    from auditad.report.sections import leakage, protocol, threshold

    def lk(L):
        return {
            "L_k": L,
            "chance": 0.9,
            "k": 10,
            "representation": "raw",
            "ratio_to_chance": L / 0.9,
            "representations": {"raw": {"L_k": L, "per_class": []}},
            "columns": {},
        }

    def leak_reading(L):
        return leakage.reading(lk(L), conditions=_conditions({"leakage": lk(L)}, "leakage"))

    t = threshold("leakage")
    assert "at most 0.5" in leak_reading(t) and "above 0.5" in leak_reading(np.nextafter(t, 1))
    t = threshold("protocol")
    m = {"n_classes": 3, "mean_auc": 0.8, "sigma2_auc": 0.01, "range_auc": 0.2, "rho_inv": 0.0, "rho_rnd": 0.0}
    part = {
        "protocol": "leave_one_class_out",
        "epsilon": 0.05,
        "representation_names": ["raw"],
        "representations": {"raw": {"detectors": {}}},
    }

    def prot_reading(rho):
        p = {**part, "mean": m, "worst": {"rho_dir": rho}}
        return protocol.reading(p, conditions=_conditions({"protocol": p}, "protocol"))

    assert "at most 0.2" in prot_reading(t)
    assert "above 0.2" in prot_reading(np.nextafter(t, 1))
    # without the gate's result, no reading states a threshold
    assert "default gate" not in leakage.reading(lk(t)) and "default gate" not in protocol.reading(
        {**part, "mean": m, "worst": {"rho_dir": t}}
    )


def test_readings_state_the_gate_result_and_never_compare_again():
    """The reading says what the gate decided: a result that (deliberately) disagrees with the number wins."""
    from auditad.gates.checks import GateResult
    from auditad.gates.defaults import DEFAULT_RULES
    from auditad.report.sections import duplicates, leakage, protocol

    def result(name, passed):
        rule = DEFAULT_RULES[name]
        return GateResult(rule, rule.level, passed, 0.0, "")

    lk = {
        "L_k": 0.1,
        "chance": 0.9,
        "k": 10,
        "representation": "raw",
        "ratio_to_chance": 0.1 / 0.9,
        "representations": {"raw": {"L_k": 0.1, "per_class": []}},
        "columns": {},
    }
    assert "L_k is above 0.5" in leakage.reading(lk, conditions={"leakage": result("leakage", False)})
    m = {"n_classes": 3, "mean_auc": 0.8, "sigma2_auc": 0.01, "range_auc": 0.2, "rho_inv": 0.0, "rho_rnd": 0.0}
    part = {
        "protocol": "leave_one_class_out",
        "epsilon": 0.05,
        "representation_names": ["raw"],
        "mean": m,
        "representations": {"raw": {"detectors": {}}},
        "worst": {"rho_dir": 0.9},
    }
    assert "is at most 0.2" in protocol.reading(part, conditions={"protocol": result("protocol", True)})
    dup = {
        "n": 10,
        "representations": {"raw": {}},
        "rows_in_groups": 0,
        "near_pairs": None,
        "kind": "classes",
        "train_test_overlap": 0.5,
        "train_test_overlap_mean": 0.1,
        "max_abs_delta_auroc": None,
        "train_test_overlap_where": {"class": 1, "representation": "raw"},
    }
    assert "within the 1% of the default gate" in duplicates.reading(
        dup, conditions={"overlap": result("overlap", True)}
    )


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    from auditad.audit.runner import run_audit
    from auditad.gates.checks import parse_rule

    X, y = _separated()
    inputs = _inputs(
        X,
        y,
        gates=[parse_rule("warn: leakage.L_k <= 0.1")],
        command_line=("--seed 0", "--gate 'warn: leakage.L_k <= 0.1'"),
    )
    return run_audit([inputs], tmp_path_factory.mktemp("tiny") / "out")


def test_assemble_collects_the_sections_in_registry_order(tiny_run):
    from auditad.report.sections import REGISTRY

    audit = tiny_run.audits[0]
    assert [s.id for s in audit.sections] == [i.id for i in REGISTRY]
    sel = next(sec for sec in audit.sections if sec.id == "selection")
    assert sel.status == "not_applicable" and sel.reason == "no model-selection manifest was given"
    s = audit.summary
    assert s["selection"] is None and s["config"]["command_line"] == ["--seed 0", "--gate 'warn: leakage.L_k <= 0.1'"]
    # every table and figure of the audit belongs to exactly one section
    assert [t.name for t in audit.tables] == [t.name for sec in audit.sections for t in sec.tables]
    jsonschema.validate(json.loads((tiny_run.out / "tiny" / "summary.json").read_text()), schema())


def test_rendered_sections_parse_with_sources_configuration_and_not_applicable(tiny_run):
    import re

    html = (tiny_run.out / "tiny" / "report.html").read_text(encoding="utf-8")
    page = parse(html)
    for sid in (
        "leakage",
        "protocol",
        "duplicates",
        "nulls",
        "landscapes",
        "selection",
        "gates",
        "reproducibility",
        "references",
    ):
        assert sid in page.ids, sid
    sel = re.search(r'<section id="selection">(.*?)</section>', html, flags=re.S).group(1)
    assert "Not applicable: no model-selection manifest was given." in sel and "<svg" not in sel
    pre = re.findall(r"<pre>(.*?)</pre>", html, flags=re.S)[0]
    assert pre.startswith("version = 1") and "#   --gate &#39;warn: leakage.L_k &lt;= 0.1&#39;" in pre
    assert "#   --seed 0" in pre
    # 6 references (2 of them from the duplicates section): the model-selection one would be cited only by the
    # section that did not run
    refs = re.findall(r'<li id="ref-\d+">([^<]*)</li>', html)
    assert len(refs) == 6 and not any("Wilkinghoff" in r for r in refs)
    assert "No class has a neighbour from another class" in html


# --------------------------------------------------------------------------- bounded summary
def test_bounded_summary_moves_per_class_lists_to_csv(demo):
    import pandas as pd

    from auditad.audit.bounded import PER_CLASS_PATHS, bound_summary

    summary = json.loads((demo[0] / "digits" / "summary.json").read_text())
    same, none = bound_summary(summary)  # 10 classes <= 200: unchanged
    assert same == summary and none == {}
    small, files = bound_summary(summary, max_classes=5)
    jsonschema.validate(small, schema())
    reps = ["pixels", "pca16"]
    # dataset x2, protocol.classes, nulls; per rep 3 leakage, 2 protocol, 1 duplicates
    expected = 4 + 3 * len(reps) + 2 * len(reps) + len(reps)
    assert len(files) == expected and len(PER_CLASS_PATHS) == 10
    ref = small["nulls"]["per_class"]
    assert ref == {"csv": "data/summary/nulls.per_class.csv", "n_rows": 10}
    frame = files[ref["csv"]]
    assert list(frame["observed.pixels.knn.p_value"]) == [
        pc["observed"]["pixels"]["knn"]["p_value"] for pc in summary["nulls"]["per_class"]
    ]
    conf = files[small["leakage"]["representations"]["pixels"]["confusion"]["csv"]]
    full = np.array(summary["leakage"]["representations"]["pixels"]["confusion"])
    assert len(conf) == np.count_nonzero(full)
    assert all(full[r.row, r.column] == r.value for r in conf.itertuples())
    assert isinstance(frame, pd.DataFrame)
    # statistics used by gates stay inline
    assert (
        small["leakage"]["L_k"] == summary["leakage"]["L_k"]
        and small["protocol"]["mean"] == summary["protocol"]["mean"]
    )
    assert len(json.dumps(small)) < len(json.dumps(summary))


def test_audit_above_the_class_limit_writes_the_csv_files(monkeypatch, tmp_path):
    import pandas as pd

    from auditad.audit import bounded
    from auditad.audit.runner import run_audit

    monkeypatch.setattr(bounded, "MAX_INLINE_CLASSES", 2)
    X, y = _separated()
    run = run_audit([_inputs(X, y)], tmp_path / "out")
    folder = run.out / "tiny"
    summary = json.loads((folder / "summary.json").read_text())
    jsonschema.validate(summary, schema())
    ref = summary["leakage"]["representations"]["raw"]["per_class"]
    frame = pd.read_csv(folder / ref["csv"])
    assert ref["n_rows"] == len(frame) == 3 and list(frame["class"]) == [0, 1, 2]
    assert pd.read_csv(folder / summary["dataset"]["class_sizes"]["csv"])["value"].tolist() == [12, 12, 12]
    assert "No class has a neighbour from another class" in (folder / "report.html").read_text()


def test_bounded_summary_findings_name_the_same_classes_from_the_csv_tables(demo, tmp_path):
    """Above the class limit the findings read the per-class rows from the tables the summary names: the same
    findings, word for word, from the in-memory tables (the report) and from the written CSV files (appendix)."""
    from auditad.audit.bounded import bound_summary
    from auditad.report.export import _summary_tables
    from auditad.report.findings import finding_rows, findings
    from auditad.errors import InvalidInputError
    from auditad.report.tables import frame_to_csv

    summary = json.loads((demo[0] / "digits" / "summary.json").read_text())
    full = finding_rows(findings(summary))
    assert any("class " in (r["subject"] or "") for r in full)  # the demo names at least one class
    small, files = bound_summary(summary, max_classes=5)
    assert finding_rows(findings(small, tables=files)) == full
    without = finding_rows(findings(small))  # no tables: the gates' counts only, no class named
    assert not any("class " in (r["subject"] or "") for r in without)
    for rel, frame in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(frame_to_csv(frame))
    assert finding_rows(findings(small, tables=_summary_tables(tmp_path))) == full
    rel = small["protocol"]["representations"]["pixels"]["per_class"]["csv"]
    (tmp_path / rel).unlink()
    with pytest.raises(InvalidInputError, match="per-class rows in .*which is missing"):
        findings(small, tables=_summary_tables(tmp_path))
    small["protocol"]["representations"]["pixels"]["per_class"]["csv"] = "../../outside.csv"
    with pytest.raises(InvalidInputError, match="outside its folder"):
        findings(small, tables=_summary_tables(tmp_path))


def test_report_above_the_class_limit_names_the_inverted_class(monkeypatch, tmp_path):
    """The first screen's 'see the classes named below' names them when the per-class rows are CSV files."""
    from auditad.audit import bounded
    from auditad.audit.runner import run_audit
    from auditad.report.export import write_appendix

    monkeypatch.setattr(bounded, "MAX_INLINE_CLASSES", 2)
    empty = (b'<svg xmlns="http://www.w3.org/2000/svg" width="1pt" height="1pt"></svg>', b"%PDF-1.4\n")
    monkeypatch.setattr("auditad.report.render.figure_files", lambda spec: empty)  # the findings, not the figures
    rng = np.random.default_rng(3)  # a tight class at the centre of a wide one: kNN ranks it below the normals
    wide = rng.normal(size=(150, 2)) * 4
    X = np.r_[wide, rng.normal(size=(100, 2)) * 0.05, wide[::-1] + 100]
    y = np.array(["wide"] * 150 + ["007"] * 100 + ["far"] * 150)
    run = run_audit([_inputs(X, y, settings={"null_runs": 20})], tmp_path / "out")
    folder = run.out / "tiny"
    summary = json.loads((folder / "summary.json").read_text())
    assert "csv" in summary["protocol"]["representations"]["raw"]["per_class"]
    html = (folder / "report.html").read_text()
    assert "See the classes named below" in html
    assert re.search(r"knn on raw inverts class 007: 0\.\d{3} \[0\.\d{3}, 0\.\d{3}\]", html)
    appendix = write_appendix(run.out, tmp_path / "appendix")
    tex = appendix.path.read_text()
    assert "knn on raw inverts class 007" in tex


# --------------------------------------------------------------------------- benchmark kinds
@pytest.mark.parametrize(
    "y, label_column, expected",
    [
        (None, None, "anomaly"),  # no class label column at all
        ([0, 1, 0, 1], None, "anomaly"),  # the labels are the anomaly flags (ADBench .npz: y)
        ([0, 1, 0, 1], "y", "anomaly"),  # the same column named both ways
        ([0, 1, 0, 1], "cls", "both"),  # another column, even with equal values: kept as classes
        (["a", "b", "a", "b"], None, "both"),
        ([0, 1, 1, 1], None, "both"),
    ],
)
def test_benchmark_kind(y, label_column, expected):
    from auditad.audit.loader import benchmark_kind

    anomaly = np.array([0, 1, 0, 1], dtype=np.int8)
    got = benchmark_kind(None if y is None else np.array(y), anomaly, label_column=label_column, anomaly_column="y")
    assert got == expected
    assert benchmark_kind(np.array([0, 1]), None) == "classes"


@pytest.fixture(scope="module")
def anomaly_only(tmp_path_factory):
    """An ADBench-style .npz (X, y with y = 1 anomaly): 3 normal clusters and 6 far-away anomalies."""
    from auditad.audit.config import config_from_paths
    from auditad.audit.loader import load_inputs

    d = tmp_path_factory.mktemp("adbench")
    rng = np.random.default_rng(2)
    X = np.r_[rng.normal(size=(60, 3)) + np.repeat(np.arange(3), 20)[:, None] * 8.0, rng.normal(size=(6, 3)) + 50]
    y = np.r_[np.zeros(60, int), np.ones(6, int)]
    np.savez(d / "data.npz", X=X, y=y)
    cfg = config_from_paths(
        {"raw": d / "data.npz"},
        d / "data.npz",
        name="adb",
        embeddings_key="X",
        columns={"anomaly": "y"},
        overrides={"null_runs": 50, "landscape_resolution": 11, "leakage_k": [3], "detectors": ["knn"]},
    )
    return load_inputs(cfg.benchmarks[0], cfg), d


def test_anomaly_labelled_benchmark_report(anomaly_only, tmp_path):
    import re

    from auditad.audit.runner import run_audit

    inputs, _ = anomaly_only
    assert inputs.kind == "anomaly" and sorted(np.unique(inputs.benchmark.y)) == [0, 1]
    run = run_audit([inputs], tmp_path / "out")
    s = json.loads((run.out / "adb" / "summary.json").read_text())
    jsonschema.validate(s, schema())
    assert s["dataset"]["kind"] == "anomaly" and s["dataset"]["n_classes"] == 2
    # the detectors run in the standard semi-supervised setting: fit on a split of the normals, score the
    # held-out normals and every anomaly; one observed AUROC per detector with its interval and test
    prot = s["protocol"]
    assert prot["setting"] == "semi_supervised" and prot["classes"] == ["normal"]
    rows = prot["representations"]["raw"]["per_class"]
    knn = [r for r in rows if r["detector"] == "knn"][0]
    assert knn["n_pos"] == 6 and knn["n_neg"] == 12 and knn["auroc"] == 1.0  # 20 % of the 60 normals held out
    assert knn["ci_low"] < 1.0 and knn["p_value"] > 0.0  # Newcombe's interval, a p-value never 0
    assert prot["worst"]["rho_dir"]["status"] == "not_applicable"
    # the true anomaly share and counts (6 of 66), not the mean test share of a class split
    assert s["landscapes"]["ratio"] == 6 / 66
    assert (s["nulls"]["anomaly_split"]["n_pos"], s["nulls"]["anomaly_split"]["n_neg"]) == (6, 60)
    # each detector's AUROC placed on the null at the counts it was measured on
    (pc,) = s["nulls"]["per_class"]
    assert (pc["n_pos"], pc["n_neg"]) == (6, 12) and pc["observed"]["raw"]["knn"]["auroc"] == 1.0
    # leakage between normals and anomalies: the anomalies are far away, no neighbour crosses (k = 3 < 6)
    assert s["leakage"]["L_k"] == 0.0
    # the default rho_dir gate is left out (one task: no direction to compare); the leakage gate stays, and so do
    # the duplicates gates (the overlap of the semi-supervised task's training normals and test rows)
    metrics = [g["metric"] for g in s["gates"]]
    assert "protocol.worst.rho_dir" not in metrics and metrics[0] == "leakage.L_k"
    assert metrics[-2:] == ["duplicates.conflicting_rows", "duplicates.train_test_overlap"]
    assert s["duplicates"]["train_test_overlap"] == 0.0 and s["duplicates"]["conflicting_rows"] == 0
    html = (run.out / "adb" / "report.html").read_text(encoding="utf-8")
    prot = re.search(r'<section id="protocol">(.*?)</section>', html, flags=re.S).group(1)
    assert "standard semi-supervised setting" in prot and "knn on raw 1.000" in prot
    assert "between normals and anomalies" in html and "6 anomalies, 60 normals" in html


def test_gate_on_a_section_that_is_not_applicable_names_the_reason(anomaly_only, tmp_path):
    from dataclasses import replace

    from auditad.errors import InvalidInputError
    from auditad.audit.runner import run_audit
    from auditad.gates.checks import parse_rule

    inputs = replace(anomaly_only[0], gates=(parse_rule("protocol.worst.rho_dir <= 0.2"),))
    with pytest.raises(
        InvalidInputError,
        match=r"addresses 'protocol.worst.rho_dir', which is not applicable: one "
        r"evaluation task",
    ):
        run_audit([inputs], tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_degenerate_benchmark_readings_state_what_is_true(tmp_path):
    # three well-separated Gaussian classes: L_k = 0 and every AUROC(c) = 1 for every detector, so no class is
    # "most mixed", no detector "least stable", and the Spearman correlation of L_k(c) and AUROC(c) is not stated
    import re

    from auditad.audit.runner import run_audit

    X, y = _separated(n_per=30)  # 30 per class: LOF's neighbourhoods stay inside a class
    run = run_audit([_inputs(X, y, settings={"detectors": ["knn", "lof"]})], tmp_path / "out")
    s = run.audits[0].summary
    assert s["leakage"]["L_k"] == 0.0
    per_class = s["protocol"]["representations"]["raw"]["per_class"]
    assert {row["auroc"] for row in per_class} == {1.0}
    html = (tmp_path / "out" / "tiny" / "report.html").read_text(encoding="utf-8")
    import html as html_module

    text = html_module.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))
    for canned in (
        "least stable",
        "most mixed",
        "Spearman correlation between a class's leakage L_k(c) and its AUROC(c) is -",
        "seed" + " 00",
        "SP" + "EC",
    ):
        assert canned not in text, canned
    assert "No class has a neighbour from another class" in text
    assert "No detector's score direction flips between classes" in text
    assert "AUROC(c) is not stated: L_k(c) has 1 distinct value(s)" in text
    assert s["protocol"]["representations"]["raw"]["leakage"]["spearman"]["ensemble"]["statistic"] is None
    # p-values of the observed AUROC = 1 on the nulls: the method is named, a bound is marked
    obs = s["nulls"]["per_class"][0]["observed"]["raw"]["knn"]
    assert obs["auroc"] == 1.0 and obs["p_method"] and isinstance(obs["p_upper_bound"], bool)
    n_pos, n_neg = s["nulls"]["per_class"][0]["n_pos"], s["nulls"]["per_class"][0]["n_neg"]
    # the two-sided exact p of the decision: 2 of the C(n+ + n-, n+) equally likely rankings are as extreme
    # (every anomaly on top, or every anomaly at the bottom)
    assert obs["p_value"] == pytest.approx(2 / math.comb(n_pos + n_neg, n_pos), rel=1e-9)


def test_readings_name_the_approximate_recall_and_the_test_normal_subsample():
    from auditad.report.sections import leakage, protocol

    lk = {
        "L_k": 0.1,
        "chance": 0.9,
        "k": 10,
        "representation": "a",
        "ratio_to_chance": 0.1 / 0.9,
        "backend": "approximate",
        "columns": {},
        "representations": {
            "a": {"L_k": 0.1, "per_class": [], "recall": 0.9871},
            "b": {"L_k": 0.2, "per_class": [], "recall": 0.95},
        },
    }
    text = leakage.reading(lk)
    assert "approximate search (backend 'approximate')" in text and "a 0.987, b 0.950" in text
    exact = {**lk, "backend": "exact", "representations": {"a": {"L_k": 0.1, "per_class": [], "recall": None}}}
    assert "recall" not in leakage.reading(exact) and "may differ slightly" in text
    perfect = {
        **lk,
        "representations": {"a": {"L_k": 0.0, "per_class": [], "recall": 1.0}},
        "L_k": 0.0,
        "ratio_to_chance": 0.0,
    }
    text = leakage.reading(perfect)
    assert "every sampled query found its exact neighbours" in text and "0 times" not in text
    assert "none of the 10 nearest neighbours of any sample carries another class label (L_k = 0)" in text
    m = {
        "n_classes": 3,
        "mean_auc": 0.8,
        "sigma2_auc": 0.01,
        "range_auc": 0.2,
        "rho_inv": 0.0,
        "rho_rnd": 0.0,
        "rho_dir": 0.0,
    }
    part = {
        "protocol": "leave_one_class_out",
        "epsilon": 0.05,
        "representation_names": ["raw"],
        "mean": m,
        "representations": {"raw": {"detectors": {}}},
        "settings": {"max_test_normals": 10000},
    }
    assert "subsampled" not in protocol.reading(part)
    text = protocol.reading({**part, "test_normals_subsampled": True})
    assert "subsampled to at most 10\u202f000 per task (max_test_normals)" in text


def test_the_protocol_reading_states_the_recall_of_approximate_neighbour_lists():
    from auditad.report.sections import protocol

    m = {
        "n_classes": 3,
        "mean_auc": 0.8,
        "sigma2_auc": 0.01,
        "range_auc": 0.2,
        "rho_inv": 0.0,
        "rho_rnd": 0.0,
        "rho_dir": 0.0,
    }
    part = {
        "protocol": "leave_one_class_out",
        "epsilon": 0.05,
        "representation_names": ["raw"],
        "mean": m,
        "representations": {"raw": {"detectors": {}}},
        "settings": {"neighbour_recall": {"raw": None}, "neighbour_recall_queries": 0},
    }
    assert "recall" not in protocol.reading(part)
    part["settings"] = {"neighbour_recall": {"raw": 0.9975}, "neighbour_recall_queries": 200}
    text = protocol.reading(part)
    assert (
        "approximate search; measured against exact search on 200 sampled rows per pass, their recall was 0.998" in text
    )


def _visible_text(html: str) -> str:
    """The page's text as a reader sees it first: no style/script, closed <details> bodies left out."""
    import html as html_module
    import re

    html = re.sub(r"<(style|script)\b.*?</\1>", " ", html, flags=re.S)
    html = re.sub(r"<details>\s*<summary>(.*?)</summary>.*?</details>", r" \1 ", html, flags=re.S)
    return html_module.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))).strip()


def test_the_first_screen_names_the_inverted_class_the_detector_and_every_representation(demo):
    """Isolation Forest ranks one digit below ½ on raw pixels, not significantly once its confirmatory draws are
    combined: the first screen names the class, the detector and what would tell (more seeds and splits)."""
    out = demo[0]
    summary = json.loads((out / "digits" / "summary.json").read_text())
    assert summary["verdict"] == "pass"
    first = _visible_text((out / "digits" / "report.html").read_text(encoding="utf-8"))[:1800]
    assert "iforest on pixels: class 8" in first and "more seeds/splits would tell" in first
    assert "pixels" in first and "pca16" in first
    assert first.index("Findings") < first.index("classes below ½ within noise")


def _walk_numbers(node, path=""):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _walk_numbers(v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk_numbers(v, f"{path}[{i}]")
    else:
        yield path, node


def test_no_p_value_is_zero_and_no_interval_has_zero_width(demo):
    import pandas as pd

    out = demo[0] / "digits"
    summary = json.loads((out / "summary.json").read_text())
    zero_p = [
        p for p, v in _walk_numbers(summary) if p.rsplit(".", 1)[-1] in ("p_value", "p_holm", "max_p_value") and v == 0
    ]
    assert zero_p == []
    for csv in sorted(out.rglob("*.csv")):
        frame = pd.read_csv(csv)
        for col in frame.columns:
            if col in ("p_value", "p_holm") or col.startswith("p "):
                vals = pd.to_numeric(frame[col], errors="coerce")
                assert not (vals == 0).any(), (csv.name, col)
        if {"ci_low", "ci_high"} <= set(frame.columns):
            both = frame[["ci_low", "ci_high"]].dropna()
            assert (both["ci_high"] > both["ci_low"]).all(), csv.name
