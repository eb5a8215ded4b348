"""The release artefacts: ``python -m build`` (sdist + wheel) with valid metadata (``twine check``), the LICENSE
and the one version inside them, and a non-editable install of the wheel into a fresh virtualenv that renders
the demo report (templates found inside the wheel)."""

import email
import os
import re
import tarfile
import zipfile
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_SKIP_ANYWHERE = shutil.ignore_patterns("__pycache__", "*.egg-info", ".pytest_cache", ".hypothesis")
_SKIP_TOP = {".git", "build", "dist", "site", "auditad-demo"}


def _ignore(folder, names):
    skipped = set(_SKIP_ANYWHERE(folder, names))
    if Path(folder).resolve() == ROOT:
        skipped |= {n for n in names if n in _SKIP_TOP}
    return skipped


def _can_build_without_isolation(minimum=(77, 0)) -> bool:
    """The installed setuptools can build the project itself: the version its build-system requires (SPDX
    ``license`` and ``license-files``); it builds wheels without the 'wheel' package from 70.1 on."""
    try:
        import setuptools
    except ImportError:
        return False
    major, minor = (int(x) for x in setuptools.__version__.split(".")[:2])
    return (major, minor) >= max(minimum, (70, 1))


def _version_in_source() -> str:
    text = (ROOT / "auditad" / "__init__.py").read_text(encoding="utf-8")
    return re.search(r'^__version__ = "([^"]+)"$', text, re.M).group(1)


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """``python -m build`` of a copy of the source tree (the build leaves nothing in the repository): the folder
    holding the sdist and the wheel."""
    tmp = tmp_path_factory.mktemp("build")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=_ignore)
    cmd = [sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(tmp / "dist")]
    if _can_build_without_isolation(minimum=(77, 0)):  # pyproject's build-system: setuptools>=77
        cmd.append("--no-isolation")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    proc = subprocess.run([*cmd, str(src)], cwd=tmp, env=env, capture_output=True, text=True, timeout=600)
    if (
        proc.returncode != 0
        and "--no-isolation" not in cmd
        and re.search(r"No matching distribution|Could not find", proc.stdout + proc.stderr)
    ):
        pytest.skip("building needs setuptools from a package index, which is unreachable")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    return tmp / "dist"


@pytest.mark.slow  # python -m build (about 20 s with an isolated build environment)
def test_sdist_and_wheel_carry_the_license_the_version_and_valid_metadata(dist):
    version = _version_in_source()
    wheel = dist / f"auditad-{version}-py3-none-any.whl"
    sdist = dist / f"auditad-{version}.tar.gz"
    assert wheel.is_file() and sdist.is_file(), sorted(p.name for p in dist.iterdir())
    check = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert check.returncode == 0 and check.stdout.count("PASSED") == 2, check.stdout + check.stderr
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert (
        license_text.startswith("BSD 3-Clause License") and "Neither the name of the copyright holder" in license_text
    )
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        assert zf.read(f"auditad-{version}.dist-info/licenses/LICENSE").decode() == license_text
        meta = email.message_from_bytes(zf.read(f"auditad-{version}.dist-info/METADATA"))
        assert "auditad/_templates/report.html.j2" in names and "auditad/schemas/summary.schema.json" in names
    assert meta["Version"] == version
    assert meta["License-Expression"] == "BSD-3-Clause" and meta["License-File"] == "LICENSE"
    assert meta["Author-email"] and meta.get_all("Project-URL") and len(meta.get_all("Project-URL")) >= 3
    assert "pyarrow" in " ".join(meta.get_all("Requires-Dist")) and "parquet" in meta.get_all("Provides-Extra")
    with tarfile.open(sdist) as tf:
        members = {m.split("/", 1)[1] for m in tf.getnames() if "/" in m}
    assert {"LICENSE", "CHANGELOG.md", "README.md", "pyproject.toml"} <= members


@pytest.mark.slow  # builds a wheel in a fresh virtualenv and runs the demo there
def test_wheel_install_in_fresh_venv_runs_the_demo(tmp_path, dist):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / ("Scripts" if os.name == "nt" else "bin") / ("python.exe" if os.name == "nt" else "python")
    # reuse the dependencies (numpy, scipy, pip, ...) of the interpreter running the tests instead of
    # downloading them: a .pth file appends its site-packages after the new environment's own
    # (--system-site-packages would see the base interpreter's, which is wrong inside a virtualenv)
    new_site = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    parent = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (Path(new_site) / "_auditad_test_parent.pth").write_text("\n".join(sorted(parent)) + "\n")
    # --force-reinstall: the parent environment (on the path for the dependencies) may hold the same version
    cmd = [str(py), "-m", "pip", "install", "--no-deps", "--force-reinstall", "--quiet", "--disable-pip-version-check"]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    wheel = next(dist.glob("auditad-*.whl"))
    proc = subprocess.run(cmd + [str(wheel)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr

    work = tmp_path / "elsewhere"  # run from outside the repository
    work.mkdir()
    probe = subprocess.run(
        [str(py), "-c", "import auditad, auditad.report.render as r; print(auditad.__file__); print(r.template_dir())"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert probe.returncode == 0, probe.stderr
    module_file, templates = probe.stdout.strip().splitlines()
    assert Path(module_file).resolve().is_relative_to(env_dir.resolve()), module_file  # not the source tree
    assert "_templates" in templates and str(ROOT) not in templates

    exe = env_dir / ("Scripts" if os.name == "nt" else "bin") / "auditad"
    run = subprocess.run(
        [str(exe), "demo", "--out", "demo-report", "--quiet"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    version = subprocess.run([str(exe), "--version"], cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert version.stdout.strip() == f"auditad {_version_in_source()}", version.stdout + version.stderr
    report = work / "demo-report" / "digits" / "report.html"
    assert run.stdout.strip().splitlines()[-1] == f"report: {report.resolve()}"
    html = report.read_text(encoding="utf-8")
    assert "Evaluation-protocol audit: digits" in html and "<svg" in html
    assert f'<p class="sub">auditad {_version_in_source()}</p>' in html  # the report header: the same version
    assert (work / "demo-report" / "index.html").is_file()
    assert (work / "demo-report" / "digits" / "summary.json").is_file()
    # the JSON Schema ships with the package too
    schema = subprocess.run(
        [str(py), "-c", "from auditad.report import schema_path; print(schema_path().is_file())"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert schema.stdout.strip() == "True", schema.stderr


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
