"""The code is formatted by one tool, ruff format (its settings in pyproject.toml), checked here on every run.

Run ``ruff format auditad tests benchmarks`` after editing; this test shows the diff it would apply.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("auditad", "tests", "benchmarks")


def _ruff(*args, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args], cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=120
    )


def test_ruff_is_installed_with_the_test_extras():
    proc = _ruff("--version")
    assert proc.returncode == 0, "ruff is missing: pip install '.[test]' installs it"


def test_every_python_file_is_formatted():
    proc = _ruff("format", "--check", "--diff", *FOLDERS)
    assert proc.returncode == 0, "run `ruff format auditad tests benchmarks`:\n" + proc.stdout[-4000:] + proc.stderr


def test_the_check_finds_an_unformatted_file():
    """Control: the same check refuses code that is not in ruff's format (with the project's settings)."""
    proc = _ruff("format", "--check", "--stdin-filename", "auditad/example.py", stdin="x = {  'a':1 }\n")
    assert proc.returncode == 1
    formatted = _ruff("format", "--stdin-filename", "auditad/example.py", stdin="x = {  'a':1 }\n")
    assert formatted.stdout == 'x = {"a": 1}\n'
    long = "y = f(" + ", ".join(f"argument_{i}" for i in range(12)) + ")\n"  # 127 columns: over the line length
    assert len(long) - 1 > 120 and _ruff("format", "--stdin-filename", "a.py", stdin=long).stdout != long
