"""The README's test command is what CI runs, and it works with a non-editable install (issue #23).

``pip install '.[test]' && pytest`` once failed on a fresh clone: ``--doctest-modules`` collected ``auditad/``
from the checkout while ``import auditad`` found the copy in site-packages, so every module gave "import file
mismatch". CI ran ``python -m pytest``, which puts the current folder on ``sys.path``, and stayed green. These
tests hold both halves: ``.ci/run`` runs the README's line verbatim, and bare ``pytest`` (the console script,
which does not put the current folder on ``sys.path``) collects a checkout whose package is installed elsewhere.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_SKIP_ANYWHERE = shutil.ignore_patterns("__pycache__", "*.egg-info", ".pytest_cache", ".hypothesis", "*.pyc")
_SKIP_TOP = {".git", "build", "dist", "site", "auditad-demo", "auditad-report"}


def _section(markdown: str, heading: str) -> str:
    """The text of one ``## heading`` section of a Markdown page (up to the next ``## `` heading)."""
    m = re.search(rf"^## {re.escape(heading)}\s*$(.*?)(?=^## |\Z)", markdown, re.M | re.S)
    assert m, f"README.md has no '## {heading}' section"
    return m.group(1)


def _bash_blocks(markdown: str) -> list[str]:
    return [b.strip() for b in re.findall(r"^```(?:bash|sh|shell)\n(.*?)^```", markdown, re.M | re.S)]


def _test_command() -> str:
    blocks = [
        b
        for b in _bash_blocks(_section((ROOT / "README.md").read_text(encoding="utf-8"), "Quick start"))
        if "pytest" in b
    ]
    assert len(blocks) == 1, f"expected one test command in the README's Quick start, found {blocks}"
    assert len(blocks[0].splitlines()) == 1, blocks[0]
    return blocks[0]


def _commands(script: str) -> list[str]:
    """The command lines of a shell script: no comments, no blank lines."""
    return [ln.strip() for ln in script.splitlines() if ln.strip() and not ln.strip().startswith("#")]


def test_the_readme_test_command_is_the_documented_one():
    # what the issue was about: the exact text a user copies
    assert _test_command() == "pip install '.[test]' && pytest"


def test_ci_runs_the_readme_test_command_verbatim():
    command = _test_command()
    lines = _commands((ROOT / ".ci" / "run").read_text(encoding="utf-8"))
    assert command in lines, f".ci/run does not run the README's test command {command!r}"
    # ... and no variant of it next to it: the one pytest run is the README's
    runs = [ln for ln in lines if re.search(r"\bpytest\b", ln) and not ln.startswith("echo ")]
    assert runs == [command], runs
    assert not any(re.search(r"-m\s+pytest|py\.test", ln) for ln in lines)
    # its exit code is what CI reports (pytest's 5, "no tests collected", is turned into a failure)
    assert lines[lines.index(command) - 1] == "set +e"  # a failing run reaches the exit-code handling below
    after = lines[lines.index(command) + 1 :]
    assert after[0] == "code=$?" and 'exit "$code"' in after and any('"$code" -eq 5' in ln for ln in after)


def test_pytest_configuration_puts_the_checkout_first():
    """The setting that makes the bare command work; the subprocess test below shows that it does."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    ini = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert "--doctest-modules" in ini["addopts"] and "auditad" in ini["testpaths"]
    assert "." in ini.get("pythonpath", []), "doctests of auditad/ need the checkout on sys.path"
    assert "importlib" not in ini["addopts"]  # the tests import their helpers (`from _reference import ...`)


def _ignore(folder, names):
    skipped = set(_SKIP_ANYWHERE(folder, names))
    if Path(folder).resolve() == ROOT:
        skipped |= {n for n in names if n in _SKIP_TOP}
    return skipped


def _copy_checkout(dest: Path) -> None:
    """Copy the files git knows of (tracked or not ignored: no local data folders), else the tree minus caches."""
    try:
        listed = (
            subprocess.run(
                ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                cwd=ROOT,
                capture_output=True,
                check=True,
                timeout=60,
            )
            .stdout.decode("utf-8")
            .split("\0")
        )
    except (OSError, subprocess.SubprocessError):
        shutil.copytree(ROOT, dest, ignore=_ignore)
        return
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file():  # a file deleted in the work tree but still in the index is skipped
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


def _bare_pytest(checkout: Path, site: Path, tmp: Path, *args: str) -> subprocess.CompletedProcess:
    """Run pytest as its console script does: ``sys.path[0]`` is the script's folder, not the current one."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir(exist_ok=True)
    entry = bin_dir / "pytest_entry.py"
    entry.write_text("import sys\nimport pytest\nsys.exit(pytest.console_main())\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = str(site)  # auditad "installed" outside the checkout, found before the checkout's copy
    env["MPLBACKEND"] = "Agg"
    return subprocess.run(
        # -n 0: in this one process (the configured workers would each collect the whole suite again; they
        # collect with the same configuration)
        [sys.executable, str(entry), "-p", "no:cacheprovider", "-n", "0", *args],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def test_bare_pytest_collects_a_checkout_whose_package_is_installed_elsewhere(tmp_path):
    checkout = tmp_path / "checkout"
    _copy_checkout(checkout)
    site = tmp_path / "site-packages"
    shutil.copytree(checkout / "auditad", site / "auditad")  # "installed": the same package, another folder
    # a probe test: which copy do the tests and the doctests import?
    (checkout / "tests" / "test_zz_which_copy.py").write_text(
        "from pathlib import Path\n"
        "import auditad\n\n\n"
        "def test_which_copy():\n"
        f"    assert Path(auditad.__file__).resolve().parent == Path({str(checkout / 'auditad')!r}).resolve()\n"
    )

    # every doctest collected (0 errors), and the probe run: the checkout's package is the one tested. A test file
    # that imports `auditad` (the probe) and then the package's folder are collected, in the order of `testpaths`:
    # the doctests of a package already imported from the "installed" copy are what failed ("import file mismatch");
    # the other test files only import `auditad` as the probe does (the suite itself collects them all)
    paths = ("tests/test_zz_which_copy.py", "auditad")
    proc = _bare_pytest(checkout, site, tmp_path, "-q", "-k", "which_copy", *paths)
    out = proc.stdout + proc.stderr
    assert "import file mismatch" not in out, out[-3000:]
    assert proc.returncode == 0, out[-3000:]
    assert re.search(r"^1 passed, \d+ deselected", out, re.M), out[-3000:]

    # control: without the checkout on sys.path the same command fails as the issue describes, so the
    # check above can fail
    ctrl = _bare_pytest(checkout, site, tmp_path, "-q", "--collect-only", "-o", "pythonpath=", *paths)
    assert ctrl.returncode != 0 and "import file mismatch" in ctrl.stdout + ctrl.stderr, (ctrl.stdout + ctrl.stderr)[
        -3000:
    ]


# --------------------------------------------------------------------------- the Layout section and the Commands table
#: Top-level modules of auditad/ that the README does not name yet: the lead names them when merging their
#: branch (then removes them here). Keep this empty on the trunk.
NOT_YET_IN_LAYOUT: set[str] = set()
LAYOUT_ENTRY = re.compile(r"^(?P<indent> *)(?P<names>[\w.-]+/?(?:, [\w.-]+/?)*)(?: {2,}|\s*$)")


def layout_paths(markdown: str) -> list[str]:
    """The paths the README's Layout block names: ``auditad/leakage.py``, ``auditad/cli/``, ``templates/`` ...

    An entry is a line of the block that starts with names separated by ", " (a folder ends with ``/``), followed
    by two or more spaces and its description; an indented entry lies in the last folder above it with less
    indentation. Lines whose first column is description text (continuations) name nothing.
    """
    block = re.search(r"^```\n(.*?)^```", _section(markdown, "Layout"), re.M | re.S)
    assert block, "the Layout section has no code block"
    paths, parents = [], []  # parents: (indent, folder)
    for line in block.group(1).splitlines():
        m = LAYOUT_ENTRY.match(line)
        if not m or len(m.group("indent")) > 8:
            continue
        indent = len(m.group("indent"))
        parents = [(i, f) for i, f in parents if i < indent]
        prefix = parents[-1][1] if parents else ""
        names = m.group("names").split(", ")
        paths += [prefix + n for n in names]
        if len(names) == 1 and names[0].endswith("/"):
            parents.append((indent, prefix + names[0]))
    return paths


def test_the_layout_parser_reads_nesting_and_lists():
    text = "## Layout\n\n```\npkg/\n  a.py, b/      two\n  c.py          one\n                continued text\ndocs/   d\n```\n"
    assert layout_paths(text) == ["pkg/", "pkg/a.py", "pkg/b/", "pkg/c.py", "docs/"]


def test_every_path_in_the_readme_layout_exists():
    paths = layout_paths((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(paths) >= 30, paths
    missing = [p for p in paths if not ((ROOT / p).is_dir() if p.endswith("/") else (ROOT / p).is_file())]
    assert not missing, f"README.md Layout names paths that do not exist: {missing}"


def test_every_public_top_level_module_and_package_is_in_the_readme_layout():
    named = set(layout_paths((ROOT / "README.md").read_text(encoding="utf-8")))
    tree = {
        f"auditad/{p.name}/" if p.is_dir() else f"auditad/{p.name}"
        for p in (ROOT / "auditad").iterdir()
        if (p.is_dir() and (p / "__init__.py").is_file()) or p.suffix == ".py"
    }
    public = {p for p in tree if not p.split("/")[1].startswith("_") or p == "auditad/__init__.py"}
    missing = sorted(p for p in public - named if p.split("/")[1].rstrip("/") not in NOT_YET_IN_LAYOUT)
    assert not missing, f"README.md Layout does not name: {missing}"


def test_every_command_is_in_the_readme_commands_table():
    help_text = subprocess.run(
        [sys.executable, "-m", "auditad", "--help"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    listing = help_text.split("positional arguments:", 1)[1].split("options:", 1)[0]
    commands = re.findall(r"^ {4}([a-z][a-z-]*)\b", listing, re.M)
    assert {"audit", "demo", "gate", "duplicates", "leakage"} <= set(commands), commands
    table = _section((ROOT / "README.md").read_text(encoding="utf-8"), "Commands")
    named = set(re.findall(r"`(?:auditad )?([a-z][a-z-]*)`", table))
    assert not set(commands) - named, f"commands missing from the README's Commands table: {set(commands) - named}"
