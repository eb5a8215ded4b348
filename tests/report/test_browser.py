"""The demo report in a real headless Chromium, with the network disabled: it renders, cleanly, without requests.

At a 1280 px window: no horizontal overflow of the page or of any table, every figure visible and non-empty, tables
sortable by a click on a header (numbers in numeric order, "–" last), no console error; a screenshot of each section
is kept under the pytest tmp dir (its path is printed). Needs the Debian package ``chromium`` (``.ci/run`` installs it
when missing); skipped otherwise. Set ``AUDITAD_SCREENSHOT_DIR`` to keep the screenshots elsewhere too.
"""

import json
import html
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (Debian package 'chromium'; .ci/run installs it)"
)

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--mute-audio",
    # network disabled: every host name fails to resolve
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--enable-logging=stderr",
    "--v=0",
]


def chromium(url: str, tmp: Path, *extra: str) -> tuple[str, str, dict]:
    """Run headless Chromium on ``url``; return stdout, stderr and the parsed network log."""
    profile = tmp / f"profile-{len(list(tmp.glob('profile-*')))}"
    netlog = profile.with_suffix(".netlog.json")
    proc = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--log-net-log={netlog}", *extra, url],
        capture_output=True,
        text=True,
        timeout=180,
    )
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
def demo_report(quiet_demo, tmp_path_factory):
    """The report of ``auditad demo --quiet`` (tests/conftest.py), in a copy that the tests may add pages to."""
    assert quiet_demo[1] == 0, quiet_demo[3]
    out = tmp_path_factory.mktemp("browser") / "report"
    shutil.copytree(quiet_demo[0], out)
    return out / "digits" / "report.html"


def test_the_checks_catch_console_errors_and_external_requests(tmp_path):
    # control: a page that logs an error and loads an image from another host must be caught
    bad = tmp_path / "bad.html"
    bad.write_text(
        '<html><body><h1>x</h1><img src="http://example.com/pixel.png">'
        '<script>console.error("boom")</script></body></html>'
    )
    _, stderr, log = chromium(bad.as_uri(), tmp_path, "--dump-dom")
    assert any("boom" in m for m in console_messages(stderr))
    assert any("example.com" in u for u in page_requests(log))


def test_demo_report_renders_in_headless_chromium(demo_report, tmp_path):
    from PIL import Image

    url = demo_report.resolve().as_uri()
    shot = tmp_path / "report.png"
    _, stderr, log = chromium(url, tmp_path, f"--screenshot={shot}", "--window-size=1280,2000", "--hide-scrollbars")
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


# Injected into a copy of the page: measures the layout at the window's width, clicks table headers, and writes the
# findings as JSON into the DOM (read back with --dump-dom). Parsing of cell text here is independent of the page's
# own sorting script.
PROBE = r"""
(function () {
  function num(t) {
    t = t.replace(/[\u202f\u2009\u00a0\s]+/g, "");
    if (/^(\u2013|--|)$/.test(t)) { return null; }
    if (t.charAt(0) === "<") { return -1; }
    var x = parseFloat(t.replace(/(pp|%)$/, ""));
    return isNaN(x) ? t : x;
  }
  function column(table, j) {
    return Array.prototype.map.call(table.tBodies[0].rows, function (r) { return num(r.cells[j].textContent); });
  }
  function probe() {
    var root = document.documentElement, out = {page: [root.scrollWidth, root.clientWidth], tables: [], figures: [],
                                                sorts: []};
    document.querySelectorAll("table").forEach(function (t) {
      var w = t.parentElement;
      out.tables.push({id: t.id, scroll: w.scrollWidth, client: w.clientWidth,
                       right: t.getBoundingClientRect().right, body: document.body.getBoundingClientRect().right});
    });
    document.querySelectorAll("figure").forEach(function (f) {
      var s = f.querySelector("svg"), r = s ? s.getBoundingClientRect() : {width: 0, height: 0};
      out.figures.push({id: f.id, width: r.width, height: r.height, marks: s ? s.querySelectorAll("path, use, image").length : 0,
                        shown: s ? getComputedStyle(s).display !== "none" && getComputedStyle(s).visibility === "visible" : false});
    });
    document.querySelectorAll("table.sortable").forEach(function (t) {
      var ths = t.tHead.rows[0].cells;
      for (var j = 0; j < ths.length; j++) {
        var vals = column(t, j);
        if (!vals.some(function (v) { return typeof v === "number"; }) || vals.length < 2) { continue; }
        ths[j].click();
        var up = column(t, j);
        ths[j].click();
        var down = column(t, j);
        out.sorts.push({id: t.id, col: ths[j].textContent, up: up, down: down, state: ths[j].getAttribute("aria-sort")});
        break;
      }
    });
    var pre = document.createElement("pre");
    pre.id = "auditad-probe";
    pre.textContent = JSON.stringify(out);
    document.body.appendChild(pre);
  }
  if (document.readyState === "complete") { probe(); } else { window.addEventListener("load", probe); }
})();
"""


def _ordered(values, descending=False):
    """Numbers in order (ties kept), missing values (None) after every number."""
    nums = [v for v in values if v is not None]
    if any(v is None for v in values[: len(nums)]):
        return False
    return all((b <= a) if descending else (a <= b) for a, b in zip(nums, nums[1:]))


def test_layout_figures_sorting_at_1280px(demo_report, tmp_path):
    page = demo_report.parent / "probe.html"
    text = demo_report.read_text(encoding="utf-8")
    page.write_text(text.replace("</body>", f"<script>{PROBE}</script></body>"), encoding="utf-8")
    try:
        dom, stderr, log = chromium(page.resolve().as_uri(), tmp_path, "--dump-dom", "--window-size=1280,2000")
    finally:
        page.unlink()
    assert console_messages(stderr) == [] and page_requests(log) == []
    m = re.search(r'<pre id="auditad-probe">(.*?)</pre>', dom, re.S)
    assert m, "the probe script did not run"
    found = json.loads(html.unescape(m.group(1)))
    scroll, client = found["page"]
    assert scroll <= client, f"the page scrolls sideways at 1280 px: {scroll} > {client}"
    assert len(found["tables"]) >= 8
    for t in found["tables"]:
        assert t["scroll"] <= t["client"] + 1, f"table {t['id']} overflows its column: {t}"
        assert t["right"] <= t["body"] + 1
    n_svg = len(list((demo_report.parent / "figures").glob("*.svg")))
    assert len(found["figures"]) == n_svg
    for f in found["figures"]:
        assert f["shown"] and f["width"] >= 1000 and f["height"] > 150 and f["marks"] > 20, f
    assert len(found["sorts"]) >= 6  # every sortable table with a numeric column was clicked
    for srt in found["sorts"]:
        assert srt["state"] == "descending"
        assert sorted(map(str, srt["up"])) == sorted(map(str, srt["down"]))
        assert _ordered(srt["up"]) and _ordered(srt["down"], descending=True), srt


def test_section_screenshots(demo_report, tmp_path):
    """One screenshot per section (the others hidden), kept as test artefacts; each is non-blank."""
    from PIL import Image

    text = demo_report.read_text(encoding="utf-8")
    ids = re.findall(r'<section id="([^"]+)"', text)
    assert {"leakage", "protocol", "nulls", "landscapes", "selection", "gates", "reproducibility"} <= set(ids)
    shots = tmp_path / "sections"
    shots.mkdir()
    for sid in ["top", *ids]:
        css = (
            "main{display:none}"
            if sid == "top"
            else f"header,.banner,.glance,nav.toc,footer{{display:none}} main>section:not(#{sid}){{display:none}}"
        )
        page = demo_report.parent / f"shot-{sid}.html"
        page.write_text(text.replace("</head>", f"<style>{css}</style></head>", 1), encoding="utf-8")
        try:
            _, stderr, _ = chromium(
                page.resolve().as_uri(),
                tmp_path,
                f"--screenshot={shots / sid}.png",
                "--window-size=1280,2400",
                "--hide-scrollbars",
            )
        finally:
            page.unlink()
        assert console_messages(stderr) == []
        img = np.asarray(Image.open(shots / f"{sid}.png").convert("L"))
        assert img.shape == (2400, 1280) and (img < 200).mean() > 0.001  # text at least
    print(f"\nsection screenshots: {shots}")
    keep = os.environ.get("AUDITAD_SCREENSHOT_DIR")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        for f in shots.glob("*.png"):
            shutil.copy(f, Path(keep) / f"section-{f.name}")
