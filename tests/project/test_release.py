"""Release habits: one version source, a changelog that names it, the license, the pre-commit hook.

The built artefacts (sdist, wheel, ``twine check``) are tested in ``tests/project/test_install.py``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

import auditad

ROOT = Path(__file__).resolve().parents[2]

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_version_has_one_source():
    project = _pyproject()["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert _pyproject()["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "auditad.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", auditad.__version__)
    out = subprocess.run([sys.executable, "-m", "auditad", "--version"], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == f"auditad {auditad.__version__}"


def test_the_changelog_follows_keep_a_changelog_and_names_this_version():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "Keep a Changelog" in text.split("\n## ", 1)[0]
    versions = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", text, re.M)
    assert versions[0] == auditad.__version__ and versions[-1] == "0.1.0", versions
    assert versions == sorted(versions, key=lambda v: tuple(map(int, v.split("."))), reverse=True)
    kinds = set(re.findall(r"^### (\w+)$", text, re.M))
    assert kinds <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}, kinds
    assert all(re.search(rf"^\[{re.escape(v)}\]: \S+", text, re.M) for v in versions)


def test_the_license_file_and_the_metadata():
    project = _pyproject()["project"]
    assert project["license"] == "BSD-3-Clause" and project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("BSD 3-Clause License\n") and text.count("\n\n") >= 5
    assert "Redistributions of source code must retain the above copyright notice" in text
    assert project["authors"] and {"Homepage", "Documentation", "Changelog", "Issues"} <= set(project["urls"])
    test_extra = " ".join(project["optional-dependencies"]["test"])
    assert "build" in test_extra and "twine" in test_extra


def test_the_pre_commit_hook_runs_auditad_gate_on_summaries():
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (hook,) = hooks
    assert hook["id"] == "auditad-gate" and hook["entry"] == "auditad gate" and hook["language"] == "python"
    files = re.compile(hook["files"])
    assert files.search("audit/digits/summary.json") and files.search("summary.json")
    assert not files.search("audit/digits/report.html") and not files.search("my_summary.json")
    assert "auditad" in _pyproject()["project"]["scripts"]
    usage = subprocess.run(
        [sys.executable, "-m", "auditad", *hook["entry"].split()[1:], "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert usage.returncode == 0 and "SUMMARY.json" in usage.stdout
