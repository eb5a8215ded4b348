"""The code shown in README.md and docs/ runs, and prints what the page says it prints.

A fenced block is run when the line just before its opening fence is the HTML comment
``<!-- docs-test: run -->`` (invisible on the rendered page). With
``<!-- docs-test: run, check output -->`` the block's standard output must also equal the
``text`` block that follows it (white space at line ends and blank lines at the ends ignored).

Blocks of one page run in order in one temporary folder, Python blocks in one shared
namespace (like a notebook), shell blocks with ``bash -euo pipefail`` and an ``auditad``
command that runs this checkout's package. Nothing is downloaded: the blocks use the bundled
example data.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
MARKER = re.compile(r"^<!--\s*docs-test:\s*run(?P<check>\s*,\s*check output)?\s*-->\s*$")
FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,})(?P<info>[^`]*)$")


def _blocks(path: Path) -> list[dict]:
    """The marked blocks of one page: language, code, expected output (or None), line number."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out, i = [], 0
    while i < len(lines):
        m = MARKER.match(lines[i].strip())
        if not m:
            i += 1
            continue
        start = i + 1
        code, lang, j = _fenced(lines, start, path)
        expected = None
        if m.group("check"):
            k = j
            while k < len(lines) and not lines[k].strip():
                k += 1
            text, tlang, j = _fenced(lines, k, path)
            assert tlang == "text", f"{path.name}:{k + 1}: the output block after a checked block must be ```text"
            expected = text
        out.append({"lang": lang, "code": code, "expected": expected, "line": start + 1})
        i = j
    return out


def _fenced(lines: list[str], start: int, path: Path) -> tuple[str, str, int]:
    m = FENCE.match(lines[start]) if start < len(lines) else None
    assert m, f"{path.name}:{start + 1}: a docs-test marker must stand right before a fenced block"
    fence, lang = m.group("fence"), m.group("info").strip().split(" ")[0]
    body = []
    for j in range(start + 1, len(lines)):
        if lines[j].strip() == fence:
            return "\n".join(body) + "\n", lang, j + 1
        body.append(lines[j])
    raise AssertionError(f"{path.name}:{start + 1}: unterminated fenced block")


def _normalise(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def _shim(folder: Path) -> Path:
    """A folder with an ``auditad`` command that runs this checkout's package with this interpreter."""
    bin_dir = folder / ".bin"
    bin_dir.mkdir()
    exe = bin_dir / "auditad"
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m auditad "$@"\n')
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return bin_dir


PAGES_WITH_BLOCKS = [p for p in PAGES if _blocks(p)]
#: pages whose code runs a full audit of the digits (18–52 s each on 2 shared cores): `-m "not slow"` skips them
SLOW_PAGES = {"docs/tutorials/audit-class-split.md", "docs/tutorials/ci-gate.md", "docs/tutorials/paper-appendix.md"}


def test_some_pages_are_tested():
    """The docs test is not vacuous: the README and every tutorial have runnable blocks."""
    names = {p.relative_to(ROOT).as_posix() for p in PAGES_WITH_BLOCKS}
    assert "README.md" in names
    tutorials = sorted((ROOT / "docs" / "tutorials").glob("*.md"))
    assert len(tutorials) >= 4
    for t in tutorials:
        assert t.relative_to(ROOT).as_posix() in names, f"{t.name} has no runnable block"


@pytest.mark.parametrize(
    "page",
    [
        pytest.param(p, marks=pytest.mark.slow) if p.relative_to(ROOT).as_posix() in SLOW_PAGES else p
        for p in PAGES_WITH_BLOCKS
    ],
    ids=lambda p: p.relative_to(ROOT).as_posix(),
)
def test_page_code_runs(page: Path, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    env = dict(os.environ)
    env["PATH"] = f"{_shim(tmp_path)}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = f"{ROOT}{os.pathsep}{env.get('PYTHONPATH', '')}"
    namespace: dict = {"__name__": "__docs__"}
    for block in _blocks(page):
        where = f"{page.relative_to(ROOT)}:{block['line']}"
        if block["lang"] in ("python", "py", "pycon"):
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                exec(compile(block["code"], where, "exec"), namespace)  # noqa: S102 - our own docs
            printed = buf.getvalue()
        elif block["lang"] in ("bash", "sh", "shell", "console"):
            proc = subprocess.run(
                ["bash", "-euo", "pipefail", "-c", block["code"]],
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
                stdin=subprocess.DEVNULL,
            )
            assert proc.returncode == 0, f"{where}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
            printed = proc.stdout
        else:
            raise AssertionError(f"{where}: cannot run a ```{block['lang']} block")
        if block["expected"] is not None:
            assert _normalise(printed) == _normalise(block["expected"]), (
                f"{where}: the page shows an output the code no longer prints.\n--- printed ---\n{printed}"
            )


# --------------------------------------------------------------------------- docstrings, jargon, import side effects
def _public_objects():
    import importlib
    import inspect

    import auditad

    seen = {}
    modules = [
        "auditad",
        "auditad.results",
        "auditad.diff",
        "auditad.protocol",
        "auditad.report",
        "auditad.datasets",
        "auditad.leakage",
        "auditad.landscape_study",
    ]
    for name in modules:
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module if name != "auditad" else auditad, attr)
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__.startswith("auditad"):
                seen[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return seen


def test_every_public_function_and_class_has_see_also_and_references_only_to_works():
    """See Also on every public name; References only where a paper applies, and then naming a work."""
    import inspect

    objects = _public_objects()
    assert len(objects) > 100
    missing = [name for name, obj in objects.items() if "\nSee Also\n" not in "\n" + (inspect.getdoc(obj) or "") + "\n"]
    assert not missing, missing
    empty = []
    for name, obj in objects.items():
        doc = inspect.getdoc(obj) or ""
        if "\nReferences\n" in "\n" + doc:
            block = doc.split("References\n", 1)[1].split("\n\n", 1)[0]
            if not re.search(
                r"[A-Z][a-z]+.*[\"\u201c]|et al\.|Proceedings|Journal|arXiv|Annals|Statistics|Biometrics", block
            ):
                empty.append(name)
    assert not empty, empty


def test_no_internal_jargon_in_the_repository():
    """No internal seed-file numbers nor the name of our specification file: readers have the papers, not our notes."""
    bad = re.compile(r"(?i:seeds? ?0?0[0-9])|" + "S" + "PEC")
    hits = []
    for folder in ("auditad", "templates", "docs", "tests", "benchmarks"):
        for path in (ROOT / folder).rglob("*"):
            if (
                path.is_file()
                and path.suffix in (".py", ".md", ".j2", ".json", ".css", ".toml", ".txt", ".yml")
                and path.name != "test_docs.py"
            ):  # this file holds the patterns' own test strings
                for i, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                    if bad.search(line):
                        hits.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()[:80]}")
    for i, line in enumerate((ROOT / "README.md").read_text(encoding="utf-8").splitlines(), 1):
        if bad.search(line):
            hits.append(f"README.md:{i}")
    assert not hits, hits


#: what the docs site (mkdocstrings, Markdown) would show raw: Sphinx roles, the reST math directive
SPHINX_MARKUP = re.compile(r":(?:py:)?(?:func|class|mod|meth|data|attr|obj|exc|const|math):`|^\s*\.\. math::", re.M)
#: internal notes readers do not have: seed-file numbers and sections of our specification
NOTES_JARGON = re.compile(r"\bseeds?[\s_-]*00?\d|\bspec\s*§|\bspec\.md\b", re.I)


def _docstrings():
    """(file:line, text) of every docstring in auditad/: modules, classes, functions and attributes."""
    import ast

    for path in sorted((ROOT / "auditad").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            ):
                yield f"{path.relative_to(ROOT).as_posix()}:{node.lineno}", node.value.value


def test_docstrings_are_markdown_not_sphinx_and_free_of_internal_notes():
    """The API pages render docstrings as Markdown: cross-references are ``[name][auditad.path]`` links, formulas
    ``\\(...\\)`` and ``\\[...\\]`` (not ``:func:`` roles, ``:math:`` nor ``.. math::``); and no docstring cites our
    internal seed-file numbers or specification sections instead of the papers."""
    docstrings = list(_docstrings())
    assert len(docstrings) > 500, len(docstrings)
    hits = []
    for where, text in docstrings:
        for pattern in (SPHINX_MARKUP, NOTES_JARGON):
            hits += [f"{where}: {m.group(0).strip()!r}" for m in pattern.finditer(text)]
    per_file = {}
    for hit in hits:
        per_file[hit.split(":", 1)[0]] = per_file.get(hit.split(":", 1)[0], 0) + 1
    assert not hits, f"{len(hits)} hits {per_file}; the first: {hits[:30]}"


def test_docstring_checks_catch_what_they_should():
    """The patterns above are not vacuous."""
    for bad in (
        ":func:`leakage`",
        ":class:`~auditad.LeakageResult`",
        ":math:`L_k`",
        "    .. math::\n",
        ":meth:`to_frame`",
        ":mod:`auditad.nulls`",
        ":data:`X`",
        ":attr:`y`",
    ):
        assert SPHINX_MARKUP.search(bad), bad
    for bad in ("Eq. 7 of Seed 001", "see seed_003", "Eq. 7 of seed\n  001", "(Spec §4.2)", "see spec.md"):
        assert NOTES_JARGON.search(bad), bad
    for good in (
        "[`leakage`][auditad.leakage.leakage]",
        r"\(L_k\)",
        "random seed 0",
        "a pooling spec string",
        "``random_state=7``",
    ):
        assert not SPHINX_MARKUP.search(good) and not NOTES_JARGON.search(good), good


def test_importing_every_module_has_no_side_effects():
    """Doctest collection imports every module: none may change warnings, NumPy, pandas, matplotlib or signals."""
    code = r"""
import importlib, os, pkgutil, signal, warnings
import matplotlib, numpy as np, pandas as pd
def state():
    return (repr(warnings.filters), np.geterr(), np.get_printoptions(), dict(matplotlib.rcParams),
            matplotlib.get_backend(), pd.get_option("display.max_columns"), signal.getsignal(signal.SIGINT),
            signal.getsignal(signal.SIGTERM), sorted(os.listdir(".")))
before = state()
import auditad
names = [m.name for m in pkgutil.walk_packages(auditad.__path__, "auditad.")]
for name in names:
    importlib.import_module(name)
after = state()
changed = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
print(len(names), changed)
"""
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT / "docs", env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    count, changed = proc.stdout.split(" ", 1)
    assert int(count) >= 50 and changed.strip() == "[]", proc.stdout


# --------------------------------------------------------------------------- formulas typeset, pages as files
#: Formula text outside math: sums, roots, norms, ell, raw LaTeX sub/superscripts, "x^2", "(1/k)", "max_v",
#: and single-letter subscripts such as "L_k", "a_v" (in math they read $L_k$, $a_v$).
UNTYPESET = re.compile(
    r"[Σ∑√ℓ‖∏∫]|[_^]\{|\b\w+\^[\w±(+−-]|\(1/[A-Za-z0-9]+\)|\b(?:mean|median|max|min|sum)_\w|\b[A-Za-z]_[A-Za-z0-9]\b(?!\w)"
)
METHODS_PAGES = sorted((ROOT / "docs" / "methods").glob("*.md"))


def _blank(match: re.Match) -> str:
    return "\n" * match.group(0).count("\n")  # keeps the line numbers


def untypeset_formulas(text: str) -> list[tuple[int, str]]:
    """(line number, line) of Markdown prose that holds formula text outside ``$...$`` / ``$$...$$`` math (fenced
    code, inline code and link targets are not prose)."""
    text = re.sub(r"^\s*(`{3,}|~{3,}).*?^\s*\1\s*$", _blank, text, flags=re.S | re.M)
    text = re.sub(r"\$\$.*?\$\$", _blank, text, flags=re.S)
    text = re.sub(r"(?<![\\$])\$(?!\$)[^$]+?\$", _blank, text, flags=re.S)
    text = re.sub(r"(`+).+?\1", _blank, text, flags=re.S)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return [(no, line.strip()) for no, line in enumerate(text.splitlines(), 1) if UNTYPESET.search(line)]


def test_the_formula_check_catches_plain_text_formulas():
    page = """# Leakage L_k

    ℓ_k(i) = (1/k) · Σ_{j ∈ N_k(i)} 1[y_j ≠ y_i]

With $N_k(i)$ the neighbours, $$L_k = \\frac1n \\sum_i \\ell_k(i)$$ and `leakage.L_k` in code, scaled by 2^p.

```python
lk = L_k ** 2
```
"""
    assert [no for no, _ in untypeset_formulas(page)] == [1, 3, 5]


@pytest.mark.parametrize("page", METHODS_PAGES, ids=lambda p: p.name)
def test_every_formula_of_a_methods_page_is_typeset(page):
    """Formulas are ``$...$`` or ``$$...$$`` (typeset by the bundled KaTeX), never plain text like ``(1/k) · Σ``."""
    found = untypeset_formulas(page.read_text(encoding="utf-8"))
    assert not found, "\n".join(f"{page.name}:{no}: {line[:140]}" for no, line in found[:15])


def test_the_site_is_built_as_files_that_navigate_from_disk():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r"^use_directory_urls:\s*false\s*$", config, re.M), "mkdocs.yml: use_directory_urls: false"


LINK = re.compile(r"\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")


def folder_links(page: Path) -> list[str]:
    """Links of a Markdown page to a folder of the repository or the docs (instead of a page or a file)."""
    bad = []
    for m in LINK.finditer(page.read_text(encoding="utf-8")):
        target = m.group("target").split("#")[0]
        if not target or re.match(r"[a-z][a-z0-9+.-]*:", target):  # in-page anchor, http(s), mailto
            continue
        if target.endswith("/") or (page.parent / target).is_dir():
            bad.append(m.group("target"))
    return bad


def test_the_folder_link_check_catches_folder_links(tmp_path):
    (tmp_path / "methods").mkdir()
    (tmp_path / "methods" / "leakage.md").write_text("x")
    page = tmp_path / "index.md"
    page.write_text("[a](methods/leakage/) [b](methods) [c](methods/leakage.md#formula) [d](https://x.org/y/)")
    assert folder_links(page) == ["methods/leakage/", "methods"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_links_to_a_folder(page):
    assert not folder_links(page), folder_links(page)


def test_headings_and_citations_are_in_english():
    """The sources are cited by their English titles (a summary in another language is no citation)."""
    spanish = re.compile(r"\b\w+ción\b|\bDiagnóstico\b|\bsegún\b|\bClase de\b")
    files = [*PAGES, *sorted((ROOT / "auditad").rglob("*.py"))]
    hits = [f"{f.relative_to(ROOT)}: {m.group(0)}" for f in files for m in spanish.finditer(f.read_text("utf-8"))]
    assert not hits, hits[:10]
    for page in METHODS_PAGES:
        heading = page.read_text(encoding="utf-8").splitlines()[0]
        assert heading.startswith("# ") and not UNTYPESET.search(heading), heading
