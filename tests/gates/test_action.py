"""The GitHub Action (action.yml at the repository root), run locally step by step.

The composite action's shell steps run here with bash exactly as the runner would (``bash --noprofile --norc -eo
pipefail``), with ``${{ ... }}`` expressions replaced by the declared defaults or the test's inputs, ``${{
github.action_path }}`` by this checkout, ``GITHUB_STEP_SUMMARY``/``GITHUB_OUTPUT`` by files, and ``python`` by
the interpreter running the tests with this checkout on ``PYTHONPATH``. The install step (pip) and the artifact
upload (a JavaScript action) are not run; the test checks that they are there and what they are given. A step
without ``if:`` is skipped after a failed step, as on GitHub; ``if:`` conditions are evaluated.

On a small generated benchmark: the job summary receives the Markdown gate table, the report folder holds the
report and the gate files, and the action's exit code follows the gates (0 passed, 1 a gate at or above
``fail-on`` failed, 2 bad input).
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
STEPS = ACTION["runs"]["steps"]
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
#: fast settings for the tests (the defaults are for real benchmarks)
FAST = "--detector knn --k 5 --landscape-resolution 11 --null-runs 200 --seed 0"


# --------------------------------------------------------------------------- a small GitHub Actions runner
def _value(name: str, ctx: dict) -> str:
    """The value of one context reference: inputs.X, github.action_path, steps.ID.outputs.NAME / .outcome."""
    if name.startswith("inputs."):
        return ctx["inputs"][name[len("inputs.") :]]
    if name == "github.action_path":
        return str(ROOT)
    m = re.fullmatch(r"steps\.([\w-]+)\.(outputs\.([\w-]+)|outcome)", name)
    if m:
        step = ctx["steps"].get(m.group(1), {"outputs": {}, "outcome": "skipped"})
        return step["outputs"].get(m.group(3), "") if m.group(3) else step["outcome"]
    raise AssertionError(f"action.yml uses an expression this test cannot evaluate: {name!r}")


def _substitute(text: str, ctx: dict) -> str:
    return EXPR.sub(lambda m: _value(m.group(1), ctx), text)


def _condition(expr: str, ctx: dict) -> bool:
    """Evaluate an ``if:`` expression (always(), success(), failure(), ==, !=, &&, ||, !, '' strings, contexts)."""
    m = EXPR.fullmatch(expr.strip())
    expr = m.group(1) if m else expr
    py, pos = [], 0
    token = re.compile(r"\s*(always\(\)|success\(\)|failure\(\)|&&|\|\||==|!=|!|\(|\)|'[^']*'|[\w.-]+)")
    while pos < len(expr.rstrip()):
        t = token.match(expr, pos)
        assert t, f"cannot parse the condition {expr!r} at {expr[pos:]!r}"
        tok, pos = t.group(1), t.end()
        py.append(
            {
                "always()": "True",
                "success()": str(not ctx["failed"]),
                "failure()": str(ctx["failed"]),
                "&&": "and",
                "||": "or",
                "!": "not",
                "==": "==",
                "!=": "!=",
                "(": "(",
                ")": ")",
            }.get(tok)
            or (repr(tok[1:-1]) if tok.startswith("'") else repr(_value(tok, ctx)))
        )
    return bool(eval(" ".join(py), {"__builtins__": {}}, {}))  # noqa: S307 - built from the tokens above only


def _python_shim(folder: Path) -> Path:
    """A folder whose ``python`` is the interpreter running the tests (so ``python -m auditad`` is this checkout)."""
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / "python"
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return folder


def run_action(workdir: Path, **inputs: str) -> dict:
    """Run action.yml's steps in ``workdir``; return the exit code, summary, outputs, uploads and step logs."""
    declared = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    unknown = set(inputs) - set(declared)
    assert not unknown, f"inputs not declared in action.yml: {unknown}"
    values = {**declared, **inputs}
    summary = workdir / "step-summary.md"
    summary.touch()
    temp = workdir / "runner-temp"
    temp.mkdir(exist_ok=True)
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    base.update(
        PATH=f"{_python_shim(workdir / '.bin')}{os.pathsep}{base.get('PATH', '')}",
        PYTHONPATH=str(ROOT),
        MPLBACKEND="Agg",
        GITHUB_STEP_SUMMARY=str(summary),
        RUNNER_TEMP=str(temp),
        GITHUB_ACTION_PATH=str(ROOT),
        CI="true",
        GITHUB_ACTIONS="true",
    )
    ctx = {"inputs": values, "steps": {}, "failed": False}
    code, uploads, logs = 0, [], {}
    for i, step in enumerate(STEPS):
        name = step.get("name", f"step {i}")
        runs = _condition(step["if"], ctx) if "if" in step else not ctx["failed"]
        outcome, outputs = "skipped", {}
        if runs and "uses" in step:
            uploads.append({"uses": step["uses"], **{k: _substitute(str(v), ctx) for k, v in step["with"].items()}})
            outcome = "success"
        elif runs and re.search(r"\bpip install\b", step["run"]):
            outcome = "success"  # installing is what the tests of the package cover; here the checkout runs
        elif runs:
            script = workdir / f"step-{i}.sh"
            script.write_text(_substitute(step["run"], ctx), encoding="utf-8")
            out_file = workdir / f"step-{i}.output"
            out_file.touch()
            env = {
                **base,
                **{k: _substitute(str(v), ctx) for k, v in (step.get("env") or {}).items()},
                "GITHUB_OUTPUT": str(out_file),
            }
            assert step.get("shell") == "bash", f"{name}: composite run steps need shell: bash"
            proc = subprocess.run(
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                cwd=workdir,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
                stdin=subprocess.DEVNULL,
            )
            logs[name] = proc.stdout + proc.stderr
            outputs = dict(line.split("=", 1) for line in out_file.read_text().splitlines() if "=" in line)
            outcome = "success" if proc.returncode == 0 else "failure"
            if proc.returncode != 0 and not ctx["failed"]:
                ctx["failed"], code = True, proc.returncode
        if "id" in step:
            ctx["steps"][step["id"]] = {"outputs": outputs, "outcome": outcome}
    action_outputs = {k: _substitute(str(v["value"]), ctx) for k, v in ACTION.get("outputs", {}).items()}
    return {
        "code": code,
        "summary": summary.read_text(encoding="utf-8"),
        "outputs": action_outputs,
        "uploads": uploads,
        "logs": logs,
    }


# --------------------------------------------------------------------------- the action's declaration
def _run_steps():
    return [s for s in STEPS if "run" in s]


def test_the_action_is_a_composite_with_the_documented_inputs():
    assert ACTION["runs"]["using"] == "composite"
    assert {"config", "embeddings", "labels", "gates", "out", "fail-on", "summaries", "args"} <= set(ACTION["inputs"])
    assert ACTION["inputs"]["fail-on"]["default"] == "fail" and ACTION["inputs"]["out"]["default"]
    assert {"exit-code", "verdict", "report"} <= set(ACTION["outputs"])
    # every input is documented in the tutorial
    tutorial = (ROOT / "docs" / "tutorials" / "ci-gate.md").read_text(encoding="utf-8")
    missing = [name for name in ACTION["inputs"] if f"`{name}`" not in tutorial]
    assert not missing, f"inputs not described in docs/tutorials/ci-gate.md: {missing}"


def test_the_action_installs_itself_and_uploads_the_report():
    install = [s for s in _run_steps() if re.search(r"\bpip install\b", s["run"])]
    assert len(install) == 1 and '"${{ github.action_path }}"' in install[0]["run"]
    assert STEPS.index(install[0]) == 0
    upload = [s for s in STEPS if "uses" in s]
    assert len(upload) == 1 and upload[0]["uses"] == "actions/upload-artifact@v4"
    assert upload[0]["with"]["path"] == "${{ inputs.out }}"
    assert "always()" in upload[0]["if"]  # the report of a failed gate is uploaded too


def test_inputs_reach_the_scripts_only_through_the_environment():
    """``${{ inputs.x }}`` pasted into a script is a shell injection (and breaks on a quote in a gate rule)."""
    for step in _run_steps():
        assert "${{ inputs." not in step["run"], step.get("name")


def test_the_runner_of_this_test_evaluates_conditions_like_github():
    ctx = {
        "inputs": {"artifact-name": ""},
        "steps": {"audit": {"outputs": {"exit-code": "1"}, "outcome": "success"}},
        "failed": True,
    }
    assert _condition("${{ always() && steps.audit.outputs.exit-code != '' }}", ctx)
    assert not _condition("${{ always() && inputs.artifact-name != '' }}", ctx)
    assert not _condition("success()", ctx) and _condition("failure() || !always()", ctx)
    with pytest.raises(AssertionError, match="cannot evaluate"):
        _substitute("${{ secrets.TOKEN }}", ctx)


# --------------------------------------------------------------------------- running it
@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    """Three Gaussian classes in 8 dimensions, 40 samples each (L_k at k = 5 about 0.18)."""
    folder = tmp_path_factory.mktemp("action-bench")
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 40)
    X = rng.normal(size=(120, 8)) + 3.0 * y[:, None] * np.eye(8)[0]
    np.save(folder / "X.npy", X)
    np.save(folder / "y.npy", y)
    return folder


@pytest.fixture(scope="module")
def passed(bench) -> dict:
    """An audit whose fail gate passes and whose warning gate fails: exit 0 with fail-on = fail."""
    work = bench / "pass"
    work.mkdir()
    return {
        "work": work,
        **run_action(
            work,
            embeddings=f"raw={bench / 'X.npy'}\n",
            labels=str(bench / "y.npy"),
            name="small",
            args=FAST,
            gates="leakage.L_k <= 0.5\n# a comment line\n\nwarn: leakage.L_k <= 0.01\n",
        ),
    }


def test_a_passing_audit_writes_the_summary_and_exits_0(passed):
    assert passed["code"] == 0, passed["logs"]
    assert passed["outputs"]["exit-code"] == "0" and passed["outputs"]["verdict"] == "warn"
    summary = passed["summary"]
    assert summary.startswith("## auditad gates")
    assert "Overall verdict: **warn** (1 benchmark, 2 gates: 1 passed, 1 warning, 0 failed)" in summary
    assert "| small | leakage.L\\_k | fail |" in summary and "| small | leakage.L\\_k | warn |" in summary
    report = passed["work"] / passed["outputs"]["report"]
    assert report.name == ACTION["inputs"]["out"]["default"]
    for f in ("index.html", "small/report.html", "small/summary.json", "gates.md", "gates.xml"):
        assert (report / f).is_file(), f
    assert (report / "gates.md").read_text(encoding="utf-8") == summary
    assert "<testsuite" in (report / "gates.xml").read_text(encoding="utf-8")
    # the artifact: the report folder under the default name
    assert passed["uploads"] == [
        {
            "uses": "actions/upload-artifact@v4",
            "name": "auditad-report",
            "path": "auditad-report",
            "if-no-files-found": "warn",
        }
    ]
    assert "auditad exit code: 0 (verdict: warn)" in passed["logs"]["Audit"]


def test_a_failed_gate_fails_the_action_after_the_summary_and_upload(bench, tmp_path):
    result = run_action(
        tmp_path,
        embeddings=str(bench / "X.npy"),
        labels=str(bench / "y.npy"),
        name="small",
        args=FAST,
        gates="leakage.L_k <= 0.01",
        out="audit",
        **{"artifact-name": "audit"},
    )
    assert result["code"] == 1 and result["outputs"]["exit-code"] == "1" and result["outputs"]["verdict"] == "fail"
    assert "Overall verdict: **fail**" in result["summary"]
    assert result["uploads"] and result["uploads"][0]["path"] == "audit"  # uploaded although the gate failed
    assert (tmp_path / "audit" / "small" / "report.html").is_file()
    assert "::error title=auditad::auditad exited with code 1" in result["logs"]["Verdict"]


@pytest.mark.parametrize(
    "fail_on, extra, code, verdict",
    [
        ("fail", "", 0, "warn"),  # the stored gates again: the warning does not fail
        ("warn", "", 1, "warn"),  # ... unless fail-on = warn
        ("fail", "protocol.mean.mean_auc >= 0.99", 1, "fail"),  # an extra gate that fails
        ("fail", "protocol.mean.mean_auc >= 0.5", 0, "warn"),
    ],
)
def test_gate_mode_rechecks_stored_summaries(passed, tmp_path, fail_on, extra, code, verdict):
    summary_json = passed["work"] / "auditad-report" / "small" / "summary.json"
    result = run_action(tmp_path, summaries=f"{summary_json}\n", gates=extra, out="gates", **{"fail-on": fail_on})
    assert result["code"] == code, result["logs"]
    assert result["outputs"]["verdict"] == verdict
    assert result["summary"].startswith("## auditad gates") and f"**{verdict}**" in result["summary"]
    assert (tmp_path / "gates" / "gates.md").is_file() and (tmp_path / "gates" / "gates.xml").is_file()


def test_bad_input_exits_2_with_a_note_in_the_summary(tmp_path):
    result = run_action(tmp_path, embeddings="missing.npy", labels="missing-labels.npy", gates="leakage.L_k <= 0.5")
    assert result["code"] == 2 and result["outputs"]["exit-code"] == "2" and result["outputs"]["verdict"] == ""
    assert "No gate results: auditad stopped with exit code 2" in result["summary"]
    assert "auditad: error:" in result["logs"]["Audit"]
    assert result["uploads"], "the upload step runs (and warns that there is nothing to upload)"
