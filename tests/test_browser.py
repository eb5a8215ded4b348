"""The demo report in a real headless Chromium, with the network disabled: it renders, cleanly, without requests.

Needs the Debian package ``chromium`` (``.ci/run`` installs it when missing); skipped otherwise.
Set ``AUDITAD_SCREENSHOT_DIR`` to keep the screenshots.
"""

import contextlib
import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from auditad.cli import main

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (Debian package "
                                                         "'chromium'; .ci/run installs it)")

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio",
         # network disabled: every host name fails to resolve
         "--host-resolver-rules=MAP * ~NOTFOUND",
         "--enable-logging=stderr", "--v=0"]


def chromium(url: str, tmp: Path, *extra: str) -> tuple[str, str, dict]:
    """Run headless Chromium on ``url``; return stdout, stderr and the parsed network log."""
    profile = tmp / f"profile-{len(list(tmp.glob('profile-*')))}"
    netlog = profile.with_suffix(".netlog.json")
    proc = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--log-net-log={netlog}", *extra, url],
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    log = json.loads(netlog.read_text()) if netlog.exists() else {"events": [], "constants": {"logEventTypes": {}}}
    return proc.stdout, proc.stderr, log


def console_messages(stderr: str) -> list[str]:
    """Console output of the page (Chromium logs it as ``...:CONSOLE:...`` lines)."""
    return [ln for ln in stderr.splitlines() if ":CONSOLE" in ln]


def page_requests(log: dict) -> list[str]:
    """Network requests started by the page itself (not by the browser's own background services)."""
    types = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    urls = []
    for e in log["events"]:
        p = e.get("params") or {}
        url = p.get("url")
        if types.get(e["type"]) == "URL_REQUEST_START_JOB" and url and p.get("initiator") != "not an origin":
            if not url.startswith(("file:", "data:")):
                urls.append(url)
    return urls


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("browser") / "report"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["demo", "--out", str(out), "--quiet"]) == 0
    return out / "digits" / "report.html"


def test_the_checks_catch_console_errors_and_external_requests(tmp_path):
    # control: a page that logs an error and loads an image from another host must be caught
    bad = tmp_path / "bad.html"
    bad.write_text('<html><body><h1>x</h1><img src="http://example.com/pixel.png">'
                   '<script>console.error("boom")</script></body></html>')
    _, stderr, log = chromium(bad.as_uri(), tmp_path, "--dump-dom")
    assert any("boom" in m for m in console_messages(stderr))
    assert any("example.com" in u for u in page_requests(log))


def test_demo_report_renders_in_headless_chromium(demo_report, tmp_path):
    from PIL import Image

    url = demo_report.resolve().as_uri()
    shot = tmp_path / "report.png"
    _, stderr, log = chromium(url, tmp_path, f"--screenshot={shot}", "--window-size=1280,2000",
                              "--hide-scrollbars")
    assert console_messages(stderr) == []
    assert page_requests(log) == []
    img = np.asarray(Image.open(shot).convert("RGB"))
    assert img.shape == (2000, 1280, 3)
    # not blank: plenty of non-white pixels and many colours
    assert (img.min(axis=2) < 200).mean() > 0.01
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 50
    # the verdict banner is painted near the top in its colour (pass: green, warn: yellow, fail: red)
    summary = json.loads((demo_report.parent / "summary.json").read_text())
    banner = {"pass": (0xDA, 0xFB, 0xE1), "warn": (0xFF, 0xF8, 0xC5), "fail": (0xFF, 0xEB, 0xE9)}[summary["verdict"]]
    top = img[:400]
    assert (np.abs(top.astype(int) - np.array(banner)).sum(axis=2) <= 6).mean() > 0.01
    # the rendered DOM holds the heading and every inline figure
    dom, stderr, log = chromium(url, tmp_path, "--dump-dom")
    assert "Evaluation-protocol audit: digits" in dom
    assert dom.count("<svg") == len(list((demo_report.parent / "figures").glob("*.svg")))
    assert console_messages(stderr) == [] and page_requests(log) == []
    # a phone-sized viewport and printing to PDF work too
    phone = tmp_path / "phone.png"
    chromium(url, tmp_path, f"--screenshot={phone}", "--window-size=390,844", "--hide-scrollbars")
    assert np.asarray(Image.open(phone)).shape[:2] == (844, 390)
    pdf = tmp_path / "report.pdf"
    chromium(url, tmp_path, f"--print-to-pdf={pdf}", "--no-pdf-header-footer")
    assert pdf.read_bytes().startswith(b"%PDF") and pdf.read_bytes().count(b"/Type /Page") > 3
    keep = os.environ.get("AUDITAD_SCREENSHOT_DIR")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        for f in (shot, phone, pdf):
            shutil.copy(f, Path(keep) / f.name)
