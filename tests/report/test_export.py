"""Export (auditad.report.export) and the `gate` / `appendix` commands.

The JUnit structure is checked against the rules of the Jenkins/Surefire ``junit-10.xsd``
schema (element nesting, required and allowed attributes) written out below; LaTeX output
is checked structurally and, when a TeX engine is installed, compiled.
"""

import json
from pathlib import Path
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest

from auditad.cli import main
from auditad.errors import InvalidInputError
from auditad.gates.checks import evaluate_gates
from auditad.report.export import (
    frame_to_latex,
    frame_to_markdown,
    latex_escape,
    markdown_summary,
    write_appendix,
    write_junit,
    write_markdown_summary,
    write_table,
)

# --------------------------------------------------------------------------- fixtures
SUMMARY_A = {
    "schema_version": 1,
    "benchmark": "cifar10",
    "leakage": {"L_k": 0.07, "per_class": [0.1, None]},
    "protocol": {
        "mean": {"rho_dir": 0.3, "mean_auc": 0.9},
        "representations": {"pixels": {"detectors": {"knn": {"rho_inv": 0.1}}}},
    },
    "gates": [
        {"rule": "leakage.L_k <= 0.5", "level": "fail"},
        {"rule": "protocol.mean.rho_dir <= 0.2", "level": "warn"},
    ],
    "verdict": "warn",
    "captions": {"per_class": "AUROC per class", "heat_map": "Heat map of cifar10"},
}
SUMMARY_B = {
    "schema_version": 1,
    "benchmark": "MVTec_AD 50% & <b>",
    "leakage": {"L_k": 0.71},
    "protocol": {"mean": {"rho_dir": 0.1, "mean_auc": None}},
    "gates": [
        {"rule": "leakage.L_k <= 0.5", "level": "fail"},
        {"rule": "warn: protocol.mean.rho_dir <= 0.2", "level": "warn"},
    ],
    "verdict": "fail",
}


def _pdf(path):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(2.0, 1.5))
    fig.subplots().plot([0, 1], [0, 1])
    fig.savefig(path, format="pdf")


@pytest.fixture
def audit_dir(tmp_path):
    root = tmp_path / "audit"
    for folder, summary in (("cifar10", SUMMARY_A), ("mvtec", SUMMARY_B)):
        d = root / folder
        (d / "tables").mkdir(parents=True)
        (d / "figures").mkdir()
        (d / "summary.json").write_text(json.dumps(summary))
        pd.DataFrame(
            {
                "class": ["a_b", "c&d", "<script>"],
                "auroc": [0.51234, np.nan, 0.9],
                "n": [10, 20, 30],
                "p_value": [1.2e-7, -0.5, 1.0],
            }
        ).to_csv(d / "tables" / "per_class.csv", index=False)
        pd.DataFrame({"i": range(45), "x": np.linspace(0, 1, 45)}).to_csv(d / "tables" / "long.csv", index=False)
        _pdf(d / "figures" / "heat_map.pdf")
        (d / "figures" / "heat_map.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    (root / "index.html").write_text("<html></html>")
    return root


def _results():
    return {
        "cifar10": evaluate_gates(SUMMARY_A, SUMMARY_A["gates"]),
        "MVTec_AD 50% & <b>": evaluate_gates(SUMMARY_B, SUMMARY_B["gates"] + ["protocol.mean.mean_auc > 0.5"]),
    }


# --------------------------------------------------------------------------- JUnit
# junit-10.xsd (Jenkins / Maven Surefire, as used by pytest's own tests): allowed children,
# required and allowed attributes of each element this writer may produce.
JUNIT_SCHEMA = {
    "testsuites": ({"testsuite"}, set(), {"name", "time", "tests", "failures", "errors"}),
    "testsuite": (
        {"testsuite", "properties", "testcase", "system-out", "system-err"},
        {"name", "tests", "failures", "errors"},
        {
            "name",
            "tests",
            "failures",
            "errors",
            "group",
            "time",
            "skipped",
            "timestamp",
            "hostname",
            "id",
            "package",
            "file",
            "log",
            "url",
            "version",
        },
    ),
    "properties": ({"property"}, set(), set()),
    "property": (set(), {"name", "value"}, {"name", "value"}),
    "testcase": (
        {"skipped", "error", "failure", "system-out", "system-err"},
        {"name"},
        {"name", "time", "classname", "group"},
    ),
    "failure": (set(), set(), {"type", "message"}),
    "system-out": (set(), set(), set()),
}
SUREFIRE_TIME = re.compile(r"^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]{0,3})?$")


def _check_junit_element(el):
    children, required, allowed = JUNIT_SCHEMA[el.tag]
    assert required <= set(el.attrib) <= allowed, (el.tag, el.attrib)
    if "time" in el.attrib and el.tag in ("testsuites", "testsuite"):
        assert SUREFIRE_TIME.match(el.attrib["time"])
    for child in el:
        assert child.tag in children, (el.tag, child.tag)
        _check_junit_element(child)


def test_junit_counts_and_schema(tmp_path):
    path = write_junit(_results(), tmp_path / "gates.xml")
    root = ET.parse(path).getroot()
    _check_junit_element(root)
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("5", "2", "0")
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["cifar10", "MVTec_AD 50% & <b>"]
    a, b = suites
    assert (a.get("tests"), a.get("failures")) == ("2", "0")
    assert (b.get("tests"), b.get("failures")) == ("3", "2")  # L_k 0.71 > 0.5 and the null mean_auc
    assert len(root.findall(".//testcase")) == 5 and len(root.findall(".//failure")) == 2
    verdicts = {s.get("name"): s.find("properties/property[@name='verdict']").get("value") for s in suites}
    assert verdicts == {"cifar10": "warn", "MVTec_AD 50% & <b>": "fail"}
    # the failed warn gate of cifar10 is a passing testcase with a WARNING in system-out
    warn_case = a.find("testcase[@name='warn: protocol.mean.rho_dir <= 0.2']")
    assert warn_case.find("failure") is None
    assert warn_case.find("system-out").text.startswith("WARNING:")
    fail_case = b.find("testcase[@name='fail: leakage.L_k <= 0.5']")
    assert "0.71" in fail_case.find("failure").get("message")
    null_case = b.find("testcase[@name='fail: protocol.mean.mean_auc > 0.5']")
    assert "null" in null_case.find("failure").get("message")
    assert not list(tmp_path.glob(".gates.xml.*"))  # atomic write, no temporary left


def test_junit_is_deterministic_and_strips_invalid_xml_characters(tmp_path):
    res = {"bench\x01mark": evaluate_gates({"a": 1.0}, ["a < 2"])}
    one = write_junit(res, tmp_path / "1.xml").read_bytes()
    two = write_junit(res, tmp_path / "2.xml").read_bytes()
    assert one == two
    assert ET.fromstring(one).find("testsuite").get("name") == "benchmark"


def test_junit_rejects_non_results(tmp_path):
    with pytest.raises(InvalidInputError, match="GateResult"):
        write_junit({"a": ["leakage.L_k <= 0.5"]}, tmp_path / "x.xml")
    with pytest.raises(InvalidInputError, match="dict"):
        write_junit([], tmp_path / "x.xml")


# --------------------------------------------------------------------------- Markdown
def _md_rows(text, first_header):
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header} |"))
    header = [c.strip() for c in lines[start].strip("|").split(" | ")]
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(dict(zip(header, [c.strip() for c in re.split(r"(?<!\\)\|", line.strip()[1:-1])])))
    return header, rows


def test_markdown_summary_table(tmp_path):
    path = write_markdown_summary(_results(), tmp_path / "summary.md")
    text = path.read_text()
    assert text == markdown_summary(_results())
    assert "Overall verdict: **fail** (2 benchmarks, 5 gates: 2 passed, 1 warning, 2 failed)" in text
    header, rows = _md_rows(text, "benchmark")
    assert header == ["benchmark", "verdict", "gates", "passed", "warnings", "failed"]
    assert rows[0] == {
        "benchmark": "cifar10",
        "verdict": "warn",
        "gates": "2",
        "passed": "1",
        "warnings": "1",
        "failed": "0",
    }
    assert rows[1]["benchmark"] == r"MVTec\_AD 50% & \<b\>" and rows[1]["verdict"] == "fail"
    header, gates = _md_rows(text, "benchmark | metric")
    assert header == ["benchmark", "metric", "level", "value", "threshold", "status"]
    assert [(g["metric"], g["value"], g["threshold"], g["status"]) for g in gates] == [
        (r"leakage.L\_k", "0.070", r"\<= 0.5", "pass"),  # values as the report prints them (3 decimals)
        (r"protocol.mean.rho\_dir", "0.300", r"\<= 0.2", "WARN"),
        (r"leakage.L\_k", "0.710", r"\<= 0.5", "FAIL"),
        (r"protocol.mean.rho\_dir", "0.100", r"\<= 0.2", "pass"),
        (r"protocol.mean.mean\_auc", "null", r"\> 0.5", "FAIL"),
    ]
    assert "<b>" not in text  # no raw HTML reaches the CI page


# --------------------------------------------------------------------------- LaTeX tables
def test_latex_escaping_of_special_characters():
    assert latex_escape("50%") == r"50\%"
    assert latex_escape("a_b") == r"a\_b"
    assert latex_escape("R&D") == r"R\&D"
    assert latex_escape("<script>") == r"\textless{}script\textgreater{}"
    assert latex_escape(r"# $ { } ~ ^ \ |") == (
        r"\# \$ \{ \} \textasciitilde{} \textasciicircum{} "
        r"\textbackslash{} \textbar{}"
    )
    assert latex_escape("line\nbreak") == "line break"
    assert latex_escape("Caf\u00e9 \u03c3\u00b2") == r"Caf\'{e} $\sigma$$^{2}$"
    assert latex_escape("\u6f22") == "[U+6F22]"


def _table_frame():
    return pd.DataFrame(
        {
            "name_1": ["<script>", "50%", "a_b", "R&D"],
            "auroc": [0.5, np.nan, 0.123456, 1.0],
            "n": [1, 2, 3, 4],
            "p": [1.5e-8, -0.25, 2.0, float("inf")],
        }
    )


def test_frame_to_latex_booktabs_escaping_and_nan():
    tex = frame_to_latex(_table_frame(), caption="AUROC per class (50%)", label="tab:x", float_format="{:.4g}")
    lines = [line.strip() for line in tex.splitlines()]
    assert lines.count(r"\toprule") == lines.count(r"\midrule") == lines.count(r"\bottomrule") == 1
    assert lines.index(r"\toprule") < lines.index(r"\midrule") < lines.index(r"\bottomrule")
    assert r"\begin{tabular}{@{}lrrr@{}}" in tex
    assert r"\caption{AUROC per class (50\%)}\label{tab:x}" in tex
    assert r"name\_1 & auroc & n & p \\" in lines
    body = lines[lines.index(r"\midrule") + 1 : lines.index(r"\bottomrule")]
    assert body == [
        r"\textless{}script\textgreater{} & 0.5 & 1 & $1.5\times10^{-8}$ \\",
        r"50\% & -- & 2 & $-$0.25 \\",
        r"a\_b & 0.1235 & 3 & 2 \\",
        r"R\&D & 1 & 4 & $\infty$ \\",
    ]
    fixed = frame_to_latex(_table_frame(), float_format="{:.3f}")
    assert r"a\_b & 0.123 & 3 & 2.000 \\" in fixed and "& 0.000 \\" in fixed


def test_frame_to_latex_splits_long_tables_and_checks_arguments():
    frame = pd.DataFrame({"i": range(7)})
    tex = frame_to_latex(frame, caption="c", label="tab:c", max_rows=3)
    assert tex.count(r"\begin{table}") == 3 and tex.count(r"\label{tab:c}") == 1
    assert tex.count("(continued)") == 2 and tex.count(r"\toprule") == 3
    assert frame_to_latex(frame, max_rows=None).count(r"\begin{table}") == 1
    assert r"\caption" not in frame_to_latex(frame)
    for kwargs, match in [
        (dict(label="tab:x"), "needs a caption"),
        (dict(caption="c", label="a b"), "label"),
        (dict(float_format="{:q}"), "float_format"),
        (dict(max_rows=0), "max_rows"),
        (dict(float_format=3), "float_format"),
    ]:
        with pytest.raises(InvalidInputError, match=match):
            frame_to_latex(frame, **kwargs)
    with pytest.raises(InvalidInputError, match="DataFrame"):
        frame_to_latex({"i": [1]})
    # a callable's output is text and gets escaped
    assert r"0.5\%" in frame_to_latex(pd.DataFrame({"x": [0.005]}), float_format=lambda v: f"{100 * v:.1f}%")


def test_frame_to_markdown_without_tabulate():
    md = frame_to_markdown(_table_frame(), float_format="{:.4g}")
    lines = md.splitlines()
    assert lines[0] == r"| name\_1 | auroc | n | p |"
    assert lines[1] == "| --- | ---: | ---: | ---: |"
    assert lines[2] == r"| \<script\> | 0.5 | 1 | 1.5e-08 |"
    assert lines[3] == "| 50% | -- | 2 | -0.25 |"
    assert lines[5] == "| R&D | 1 | 4 | inf |"
    assert frame_to_markdown(pd.DataFrame({"a|b": ["x|y"]})).splitlines()[2] == r"| x\|y |"


def test_default_number_format_is_the_project_policy():
    # one number formatter (auditad._format) for HTML, Markdown and LaTeX: the same digits per kind of column
    from auditad import _format

    frame = pd.DataFrame(
        {
            "class": ["a_b", "c"],
            "auroc": [0.98345, np.nan],
            "n_pos": [12345, 7],
            "p_value": [1.7e-4, 0.0],
            "regret": [0.0073, 0.0],
        }
    )
    md = frame_to_markdown(frame).splitlines()
    assert md[2] == "| a\\_b | 0.983 | 12\u202f345 | 1.7e-04 | 0.73\u202fpp |"
    assert md[3] == "| c | \u2013 | 7 | < 1e-16 | 0.00\u202fpp |"
    _, _, html_rows = _format.format_frame(frame)  # the HTML report shows the same cells
    assert html_rows[0][1:] == ["0.983", "12\u202f345", "1.7e-04", "0.73\u202fpp"]
    tex = frame_to_latex(frame)
    assert r"a\_b & 0.983 & 12\,345 & $1.7 \times 10^{-4}$ & 0.73\,pp \\" in tex
    assert r"c & -- & 7 & $< 10^{-16}$ & 0.00\,pp \\" in tex
    neg = frame_to_latex(pd.DataFrame({"rho": [-0.25]}))
    assert r"$-$0.250 \\" in neg


def test_write_table_writes_csv_md_tex(tmp_path):
    frame = _table_frame()
    paths = write_table(frame, tmp_path / "per.class", caption="Per class", label="tab:per-class")
    assert [p.name for p in paths] == ["per.class.csv", "per.class.md", "per.class.tex"]
    pd.testing.assert_frame_equal(pd.read_csv(paths[0]), frame)  # full precision in the CSV
    assert paths[1].read_text() == frame_to_markdown(frame)
    assert r"\label{tab:per-class}" in paths[2].read_text()


# --------------------------------------------------------------------------- appendix
def _strip_comments(text):
    return "\n".join(re.sub(r"(?<!\\)%.*$", "", line) for line in text.splitlines())


def _check_tex_structure(text):
    """Braces balanced (escaped braces ignored) and \\begin/\\end properly nested."""
    text = _strip_comments(text)
    depth, i = 0, 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            assert depth >= 0, "closing brace without opening brace"
        i += 1
    assert depth == 0, "unbalanced braces"
    stack = []
    for kind, env in re.findall(r"\\(begin|end)\{([^}]*)\}", text):
        if kind == "begin":
            stack.append(env)
        else:
            assert stack and stack.pop() == env, f"\\end{{{env}}} does not match"
    assert not stack, f"unclosed environments {stack}"


def test_appendix_is_well_formed_and_complete(audit_dir, tmp_path):
    res = write_appendix(audit_dir, tmp_path / "appendix")
    out = tmp_path / "appendix"
    tex = (out / "appendix.tex").read_text()
    assert res.path == out / "appendix.tex" and res.benchmarks == ("cifar10", "MVTec_AD 50% & <b>")
    header = [line for line in tex.splitlines() if line.startswith("%")]
    assert any("booktabs" in line and "graphicx" in line for line in header)
    assert r"\providecommand{\AuditadDir}{appendix/}" in tex
    assert tex.count(r"\section{") == 1 and tex.count(r"\subsection{") == 2
    assert r"\subsection{MVTec\_AD 50\% \& \textless{}b\textgreater{}}" in tex
    assert r"Gate verdict: \textbf{fail} (2 gates: 0 passed, 0 warnings, 2 failed)" not in tex
    assert r"Gate verdict: \textbf{fail} (2 gates: 1 passed, 0 warnings, 1 failed)." in tex
    assert r"Gate verdict: \textbf{warn} (2 gates: 1 passed, 1 warning, 0 failed)." in tex
    assert r"\caption{cifar10: Heat map of cifar10}" not in tex and r"\caption{Heat map of cifar10}" in tex
    assert r"\caption{MVTec\_AD 50\% \& \textless{}b\textgreater{}: heat map}" in tex
    assert r"\caption{cifar10: AUROC per class}" in (out / "tables" / "cifar10" / "per-class.tex").read_text()
    _check_tex_structure(tex)
    inputs = re.findall(r"\\input\{\\AuditadDir ([^}]*)\}", tex)
    graphics = re.findall(r"\\includegraphics(?:\[[^]]*\])?\{\\AuditadDir ([^}]*)\}", tex)
    assert len(inputs) == 6 and len(graphics) == 2  # gates + 2 tables per benchmark; one PDF each
    assert sorted(inputs) == sorted(res.tables) and sorted(graphics) == sorted(res.figures)
    for rel in inputs + graphics:
        assert (out / rel).is_file(), rel
    for rel in inputs:
        table = (out / rel).read_text()
        _check_tex_structure(table)
        assert r"\toprule" in table and r"\bottomrule" in table
    assert (out / graphics[0]).read_bytes()[:5] == b"%PDF-"
    assert not list(out.rglob("*.svg"))
    long = (out / "tables" / "cifar10" / "long.tex").read_text()
    assert long.count(r"\begin{table}") == 2  # 45 rows split at 40
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary folder left


def _tex_engine():
    for exe, args in (
        ("latexmk", ["-pdf", "-interaction=nonstopmode", "-halt-on-error"]),
        ("pdflatex", ["-interaction=nonstopmode", "-halt-on-error"]),
        ("tectonic", []),
    ):
        if shutil.which(exe):
            return [exe, *args]
    return None


@pytest.mark.skipif(_tex_engine() is None, reason="no TeX engine (latexmk, pdflatex or tectonic) installed")
def test_appendix_compiles(audit_dir, tmp_path):
    write_appendix(audit_dir, tmp_path / "appendix")
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n"
        "\\begin{document}\n\\input{appendix/appendix.tex}\n\\end{document}\n"
    )
    proc = subprocess.run(
        [*_tex_engine(), "paper.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert (tmp_path / "paper.pdf").read_bytes()[:5] == b"%PDF-"


def test_appendix_failure_leaves_previous_output_untouched(audit_dir, tmp_path):
    out = tmp_path / "appendix"
    write_appendix(audit_dir, out)
    before = (out / "appendix.tex").read_text()
    (audit_dir / "mvtec" / "summary.json").write_text("{ not json")
    with pytest.raises(InvalidInputError, match="not valid JSON"):
        write_appendix(audit_dir, out)
    assert (out / "appendix.tex").read_text() == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_appendix_input_errors(audit_dir, tmp_path):
    with pytest.raises(InvalidInputError, match="does not exist"):
        write_appendix(tmp_path / "missing", tmp_path / "out")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InvalidInputError, match="no benchmark"):
        write_appendix(tmp_path / "empty", tmp_path / "out")
    with pytest.raises(InvalidInputError, match="would replace the audit folder"):
        write_appendix(audit_dir, audit_dir)
    summary = dict(SUMMARY_A, gates=[{"rule": "leakage.Lk <= 0.5", "level": "fail"}])
    (audit_dir / "cifar10" / "summary.json").write_text(json.dumps(summary))
    with pytest.raises(InvalidInputError, match="benchmark 'cifar10': unknown gate metric 'leakage.Lk'"):
        write_appendix(audit_dir, tmp_path / "out")
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------- CLI
def _cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_gate_command_exit_codes_and_outputs(audit_dir, tmp_path, capsys):
    a, b = audit_dir / "cifar10" / "summary.json", audit_dir / "mvtec" / "summary.json"
    code, out, _ = _cli(capsys, "gate", a)
    assert code == 0 and "WARN" in out and "verdict: warn" in out
    code, _, _ = _cli(capsys, "gate", a, "--fail-on", "warn")
    assert code == 1
    code, out, _ = _cli(capsys, "gate", a, "--gate", "protocol.representations.pixels.detectors.knn.rho_inv < 0.05")
    assert code == 1 and "FAIL" in out
    code, out, _ = _cli(capsys, "gate", a, b, "--junit", tmp_path / "j.xml", "--markdown", tmp_path / "s.md")
    assert code == 1 and "verdict: fail" in out
    root = ET.parse(tmp_path / "j.xml").getroot()
    assert (root.get("tests"), root.get("failures")) == ("4", "1")
    assert "Overall verdict: **fail**" in (tmp_path / "s.md").read_text()
    # --gate rules are added to the stored ones; an identical rule is evaluated once
    code, out, _ = _cli(capsys, "gate", a, "--gate", "leakage.L_k <= 0.5", "--gate", "leakage.L_k >= 0")
    root_rows = [line for line in out.splitlines() if line.startswith("cifar10 ")]
    assert code == 0 and len(root_rows) == 3


@pytest.mark.parametrize(
    "make_args, match",
    [
        (lambda d, t: ["gate", t / "missing.json"], "does not exist"),
        (lambda d, t: ["gate", t / "bad.json"], "not valid JSON"),
        (
            lambda d, t: ["gate", d / "cifar10" / "summary.json", "--gate", "leakage.Lk <= 0.5"],
            "unknown gate metric 'leakage.Lk'",
        ),
        (lambda d, t: ["gate", d / "cifar10" / "summary.json", "--gate", "leakage.L_k => 0.5"], "malformed gate rule"),
        (lambda d, t: ["gate", t / "nogates.json"], "no gates to evaluate"),
        (lambda d, t: ["gate", d / "cifar10" / "summary.json", "--junit", t], "directory"),
        (lambda d, t: ["appendix", t / "missing", "--out", t / "ap"], "does not exist"),
    ],
)
def test_gate_and_appendix_usage_errors_exit_2(audit_dir, tmp_path, capsys, make_args, match):
    (tmp_path / "bad.json").write_text("{")
    (tmp_path / "nogates.json").write_text(json.dumps({"benchmark": "x", "leakage": {"L_k": 0.1}}))
    code, out, err = _cli(capsys, *make_args(audit_dir, tmp_path))
    assert code == 2
    assert err.startswith("auditad: error:") and match in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    if "--junit" not in make_args(audit_dir, tmp_path):
        assert not (tmp_path / "j.xml").exists()


def test_gate_usage_error_from_argparse_exits_2(capsys):
    assert main(["gate", "x.json", "--fail-on", "error"]) == 2  # main returns argparse's exit code
    assert "--fail-on" in capsys.readouterr().err


def test_appendix_command(audit_dir, tmp_path, capsys):
    code, out, _ = _cli(capsys, "appendix", audit_dir, "--out", tmp_path / "ap")
    assert code == 0 and "2 benchmark(s), 6 table(s), 2 figure(s)" in out
    assert (tmp_path / "ap" / "appendix.tex").is_file()
    # a single benchmark folder works too
    code, out, _ = _cli(capsys, "appendix", audit_dir / "cifar10", "--out", tmp_path / "ap1")
    assert code == 0 and "1 benchmark(s), 3 table(s), 1 figure(s)" in out


def test_wide_tables_are_split_by_columns_never_scaled_down():
    wide = pd.DataFrame(
        {"representation": ["resnet18", "vit"], "detector": ["iforest", "knn"]}
        | {f"statistic_number_{i}": [0.123456 * i, 0.5] for i in range(14)}
    )
    tex = frame_to_latex(wide, caption="wide", human_headers=True)
    assert r"\resizebox" not in tex
    parts = tex.count(r"\begin{table}")
    assert parts >= 2 and f"(part {parts} of {parts})" in tex and r"\footnotesize" in tex
    # every part repeats the row names and fits the text width at 8 pt (estimated as the code does)
    for table in tex.split(r"\end{table}")[:-1]:
        header = next(line for line in table.splitlines() if line.strip().startswith("representation"))
        assert header.strip().startswith("representation & detector")
    narrow = frame_to_latex(pd.DataFrame({"rho_inv": [0.1], "mean_auc": [0.9]}), human_headers=True)
    assert r"$\rho_{\mathrm{inv}}$ & mean AUROC" in narrow and r"\footnotesize" not in narrow
    assert "rho\\_inv" in frame_to_latex(pd.DataFrame({"rho_inv": [0.1]}))  # code names stay the default


def test_appendix_leads_with_the_findings_and_human_headers(audit_dir, tmp_path):
    write_appendix(audit_dir, tmp_path / "appendix")
    tex = (tmp_path / "appendix" / "appendix.tex").read_text()
    first = tex.index(r"\subsection{")
    findings_at = tex.index(r"\paragraph{Findings.}", first)
    assert findings_at < tex.index(r"\input{", first)  # findings before the first table
    assert r"\item{} \textbf{FAIL}" in tex
    table = (tmp_path / "appendix" / "tables" / "cifar10" / "per-class.tex").read_text()
    assert "class & AUROC & n & p" in table


def test_latex_escape_writes_the_report_fractions_as_math():
    # the findings' words hold "½" (AUROC below ½): a fraction in math mode, never a "[U+00BD]" placeholder
    assert latex_escape("below ½") == r"below $\frac{1}{2}$"
    assert latex_escape("¼ ¾ 1⁄3") == r"$\frac{1}{4}$ $\frac{3}{4}$ 1/3"


# --------------------------------------------------------------------------- appendix of ood / timeseries folders
@pytest.fixture(scope="module")
def stored_kinds_dir(tmp_path_factory):
    """An ``auditad ood`` folder (command line) and an ``auditad timeseries`` folder (API), side by side."""
    from auditad.report.timeseries import write_timeseries_report
    from auditad.timeseries import audit_timeseries

    d = tmp_path_factory.mktemp("kinds")
    root = d / "audits"
    root.mkdir()
    rng = np.random.default_rng(5)
    centres = rng.normal(0, 4, size=(3, 8))
    X = np.vstack([rng.normal(c, 1.0, size=(100, 8)) for c in centres])
    np.savez(d / "id.npz", X=X, y=np.repeat(np.arange(3), 100))
    np.save(d / "far.npy", np.vstack([rng.normal(25, 1, size=(250, 8)), X[:3]]))  # 253 rows: a per-row table
    np.save(d / "near.npy", rng.normal(centres[rng.integers(0, 3, 80)], 1.0))
    argv = (
        ["ood", "--embeddings", d / "id.npz", "--embeddings-key", "X", "--label-column", "y"]
        + ["--ood", f"far={d / 'far.npy'}", "--ood", f"near={d / 'near.npy'}", "--ood-group", "far=far,near"]
        + ["--backend", "exact", "--gate", "ood.far.id_share <= 0.05", "--out", root / "ood", "--quiet"]
    )
    assert main([str(a) for a in argv]) == 1  # three exact copies
    y = np.zeros(2000, dtype=int)
    for s in range(100, 2000, 300):
        y[s : s + 25] = 1
    audit = audit_timeseries({"MSL": y}, {"det": {"MSL": y + rng.normal(0, 0.5, y.size)}}, n_draws=20, range_draws=0)
    write_timeseries_report(audit, root / "ts")
    return root


def test_appendix_of_ood_and_timeseries_folders_renders_the_stored_findings(stored_kinds_dir, tmp_path):
    root = tmp_path / "audits"
    shutil.copytree(stored_kinds_dir, root)
    summaries = {k: json.loads((root / k / "summary.json").read_text()) for k in ("ood", "ts")}
    assert summaries["ood"]["kind"] == "ood" and summaries["ts"]["kind"] == "timeseries"
    # one stored decision, many renderings: a changed stored sentence shows up as written, nothing is recomputed
    summaries["ood"]["findings"][0]["sentence"] = "Stored sentence of the first finding."
    (root / "ood" / "summary.json").write_text(json.dumps(summaries["ood"]))
    res = write_appendix(root, tmp_path / "appendix")
    tex = (tmp_path / "appendix" / "appendix.tex").read_text()
    _check_tex_structure(tex)
    assert res.benchmarks == ("ood", "ts") and tex.count(r"\subsection{") == 2
    ood, ts = tex.split(r"\subsection{ts}")
    assert r"OOD benchmark audit. Verdict: \textbf{fail}" in ood and "1 gate: 1 passed" in ood
    assert r"Time-series evaluation audit. Verdict: \textbf{" + summaries["ts"]["verdict"] + "}" in ts
    for part, summary in ((ood, summaries["ood"]), (ts, summaries["ts"])):
        items = re.findall(r"\\item\{\} \\textbf\{(\w+)\} ([^\n]*)", part)
        assert len(items) == len(summary["findings"])
        ranks = {"FAIL": 3, "WARN": 2, "INFO": 1, "PASS": 0}
        assert [ranks[s] for s, _ in items] == sorted((ranks[s] for s, _ in items), reverse=True)  # worst first
        for f in summary["findings"]:
            assert latex_escape(f["sentence"]) in part
        assert part.index(r"\paragraph{Findings.}") < part.index(r"\input{\AuditadDir")  # findings, then tables
    assert "Stored sentence of the first finding." in ood
    assert re.search(r"OOD rows identical to ID rows: 3 \(threshold 0\)", ood)
    # the per-row tables and the uncaptioned machine table are named, not typeset; the captioned ones are
    assert r"tables/ood\_far\_samples.csv (253 rows)" in ood and r"tables/ood\_sets.csv" in ood
    typeset = {Path(t).stem for t in res.tables if t.startswith("tables/ood/")}
    assert typeset == {"gates", "ood-overview", "ood-detectors", "ood-nearest-classes", "ood-id-like", "ood-copies"}
    assert {Path(t).stem for t in res.tables if t.startswith("tables/ts/")} >= {"series", "detectors"}
    captions = summaries["ood"]["captions"]
    assert r"\caption{ood: " + latex_escape(captions["ood_placement"]) + "}" in ood
    overview = (tmp_path / "appendix" / "tables" / "ood" / "ood-overview.tex").read_text()
    assert r"\caption{ood: " + latex_escape(captions["ood_overview"]) in overview
    assert "far & far & 253 & 3 & 0" in overview  # set, group, rows, exact copies, near copies
    for rel in res.tables:
        table = (tmp_path / "appendix" / rel).read_text()
        assert r"\resizebox" not in table and r"\tiny" not in table and r"\scriptsize" not in table  # >= 8 pt
    assert sorted(Path(f).name for f in res.figures) == ["nulls.pdf", "ood-difficulty.pdf", "ood-placement.pdf"]


def test_appendix_refuses_an_unknown_summary_kind(audit_dir, tmp_path):
    summary = dict(SUMMARY_A, kind="diff")
    (audit_dir / "cifar10" / "summary.json").write_text(json.dumps(summary))
    with pytest.raises(InvalidInputError, match="of kind 'diff'"):
        write_appendix(audit_dir, tmp_path / "out")
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(_tex_engine() is None, reason="no TeX engine (latexmk, pdflatex or tectonic) installed")
def test_appendix_of_ood_and_timeseries_folders_compiles(stored_kinds_dir, tmp_path):
    code = main(["appendix", str(stored_kinds_dir), "--out", str(tmp_path / "appendix")])
    assert code == 0
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n"
        "\\begin{document}\n\\input{appendix/appendix.tex}\n\\end{document}\n"
    )
    proc = subprocess.run(
        [*_tex_engine(), "paper.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    log = (tmp_path / "paper.log").read_text(errors="replace")
    assert "Overfull \\hbox" not in log
