"""A non-editable install into a fresh virtualenv renders the demo report (templates found inside the wheel)."""

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_SKIP_ANYWHERE = shutil.ignore_patterns("__pycache__", "*.egg-info", ".pytest_cache", ".hypothesis")
_SKIP_TOP = {".git", "build", "dist", "auditad-demo"}


def _ignore(folder, names):
    skipped = set(_SKIP_ANYWHERE(folder, names))
    if Path(folder).resolve() == ROOT:
        skipped |= {n for n in names if n in _SKIP_TOP}
    return skipped


def _can_build_without_isolation() -> bool:
    """setuptools builds wheels itself from 70.1 on; older versions need the 'wheel' package."""
    try:
        import setuptools
    except ImportError:
        return False
    try:
        import wheel  # noqa: F401

        return True
    except ImportError:
        major, minor = (int(x) for x in setuptools.__version__.split(".")[:2])
        return (major, minor) >= (70, 1)


@pytest.mark.slow  # builds a wheel in a fresh virtualenv and runs the demo there
def test_wheel_install_in_fresh_venv_runs_the_demo(tmp_path):
    # a copy of the source tree, so that the build leaves nothing in the repository
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=_ignore)
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
    cmd = [str(py), "-m", "pip", "install", "--no-deps", "--quiet", "--disable-pip-version-check"]
    if _can_build_without_isolation():
        cmd.append("--no-build-isolation")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    proc = subprocess.run(cmd + [str(src)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    if (
        proc.returncode != 0
        and "--no-build-isolation" not in cmd
        and ("Could not find a version that satisfies" in proc.stderr or "No matching distribution" in proc.stderr)
    ):
        pytest.skip("building the wheel needs setuptools/wheel from a package index, which is unreachable")
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
    report = work / "demo-report" / "digits" / "report.html"
    assert run.stdout.strip().splitlines()[-1] == f"report: {report.resolve()}"
    html = report.read_text(encoding="utf-8")
    assert "Evaluation-protocol audit: digits" in html and "<svg" in html
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
