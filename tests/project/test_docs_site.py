"""The documentation site as a reader sees it: built strictly, rendered in headless Chromium, offline.

``mkdocs build --strict`` builds the site into a temporary folder, which a local HTTP server on 127.0.0.1 serves
(as ``mkdocs serve`` would; from ``file://`` the site search cannot load its index). Then:

* no built page loads a script, style sheet, font, image or frame from another host, and no style sheet
  imports one (links to papers and projects in the text are fine);
* a few pages — methods pages full of formulas and API pages generated from the docstrings — are opened in
  headless Chromium with every host name unresolvable except the local server: after the scripts ran, the
  formulas are typeset by the bundled KaTeX (none left as ``\\(...\\)``, none that KaTeX could not parse), the
  visible text holds no raw Sphinx markup (``:func:``, ``:math:``, ``.. math::`` ...), the console is clean and
  every request went to the local server.

Chromium is the Debian package ``chromium`` (``.ci/run`` installs it); without it the browser tests are skipped
with a reason, the build and the static checks still run.
"""

from __future__ import annotations

import functools
import html
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (Debian package 'chromium'; .ci/run installs it)"
)

#: pages rendered in the browser: every methods page (formulas), and every API page (generated from the
#: docstrings, where Sphinx roles would show up raw). Pages are files (mkdocs.yml: use_directory_urls: false).
MATH_PAGES = [f"methods/{p.stem}.html" for p in sorted((ROOT / "docs" / "methods").glob("*.md"))]
API_PAGES = [f"api/{p.stem}.html" for p in sorted((ROOT / "docs" / "api").glob("*.md")) if p.stem != "index"]

#: raw markup that must not reach a reader: unrendered math delimiters, Sphinx roles and directives
RAW = re.compile(r"\\\(|\\\[|:(?:func|math|class|mod|meth|attr|data|obj|exc|ref):(?=`|\s|\w)|\.\. math::")


def raw_markup(text: str, limit: int = 20) -> list[str]:
    """Lines of ``text`` that show raw markup (at most ``limit``), for the failure message."""
    return [ln.strip()[:160] for ln in text.splitlines() if RAW.search(ln)][:limit]


# --------------------------------------------------------------------------- build and serve
@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("docs-site") / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


def test_docs_site_builds_strict(site: Path):
    """``mkdocs build --strict`` (API pages from the docstrings, every page in the nav) gives no warning: the
    ``site`` fixture builds it once for every test of this file."""
    pages = list(site.rglob("*.html"))
    assert len(pages) >= 20, len(pages)
    api = (site / "api" / "protocol.html").read_text(encoding="utf-8")
    assert "audit_protocol" in api


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # no request log on stderr
        pass


@pytest.fixture(scope="module")
def server(site):
    """The built site over HTTP on a free loopback port; yields its base URL."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(10)


# --------------------------------------------------------------------------- static checks of the built files
class _Resources(HTMLParser):
    """Every URL a page loads by itself: scripts, style sheets and other <link>s, images, frames, media."""

    LOADS = {
        "script": ("src",),
        "img": ("src", "srcset"),
        "iframe": ("src",),
        "source": ("src", "srcset"),
        "video": ("src", "poster"),
        "audio": ("src",),
        "embed": ("src",),
        "object": ("data",),
        "track": ("src",),
        "input": ("src",),
    }

    def __init__(self):
        super().__init__()
        self.urls: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        names = self.LOADS.get(tag, ())
        if tag == "link" and (a.get("rel") or "").lower() != "canonical":  # canonical only names the page
            names = ("href",)
        for name in names:
            for url in re.split(r",\s*", a.get(name) or ""):
                if url.strip():
                    self.urls.append((tag, url.strip().split(" ")[0]))


def external(url: str) -> bool:
    """A URL that would go to another host (absolute http(s), protocol-relative)."""
    parts = urlsplit(url)
    return url.startswith("//") or (
        parts.scheme in ("http", "https") and parts.hostname not in ("127.0.0.1", "localhost")
    )


def external_loads(page_html: str) -> list[str]:
    parser = _Resources()
    parser.feed(page_html)
    return [f"<{tag}> {url}" for tag, url in parser.urls if external(url)]


CSS_URL = re.compile(r"""url\(\s*['"]?([^'")]+)['"]?\s*\)|@import\s+['"]([^'"]+)['"]""")


def test_the_static_checks_catch_external_resources():
    # control: each kind of outside load is caught, links in the text are not
    page = (
        '<html><head><link rel="stylesheet" href="https://cdn.example.org/katex.css">'
        '<link rel="preconnect" href="https://fonts.gstatic.com"><script src="//cdn.example.org/x.js"></script>'
        '</head><body><a href="https://doi.org/10.1/x">paper</a><img src="http://example.com/p.png">'
        '<script src="../assets/local.js"></script></body></html>'
    )
    assert len(external_loads(page)) == 4
    assert [m.group(1) for m in CSS_URL.finditer("a{src:url(https://x.org/f.woff2)} b{background:url(i.png)}")] == [
        "https://x.org/f.woff2",
        "i.png",
    ]
    assert raw_markup("see :func:`leakage`\nfine\n\\(L_k\\) and .. math::\n") == [
        "see :func:`leakage`",
        "\\(L_k\\) and .. math::",
    ]


def test_no_page_loads_anything_from_another_host(site):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 20
    bad = {}
    for page in pages:
        hits = external_loads(page.read_text(encoding="utf-8"))
        if hits:
            bad[page.relative_to(site).as_posix()] = hits
    assert not bad, bad
    for css in site.rglob("*.css"):
        text = css.read_text(encoding="utf-8", errors="replace")
        urls = [m.group(1) or m.group(2) for m in CSS_URL.finditer(text)]
        assert not [u for u in urls if external(u)], (css, [u for u in urls if external(u)])
        # every local url() of a style sheet (the KaTeX fonts) is in the site
        missing = [
            u
            for u in urls
            if not u.startswith(("data:", "#"))
            and not external(u)
            and not (css.parent / u.split("?")[0].split("#")[0]).is_file()
        ]
        assert not missing, (css.relative_to(site), missing)


def test_the_pages_checked_in_the_browser_exist(site):
    assert len(API_PAGES) >= 8 and "api/metrics.html" in API_PAGES
    assert len(MATH_PAGES) >= 6 and "methods/leakage.html" in MATH_PAGES
    for page in MATH_PAGES + API_PAGES:
        assert (site / page).is_file(), page


class _Links(HTMLParser):
    """The ``href`` of every ``<a>`` of a page."""

    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.hrefs.append(href)


def folder_links(site: Path, page: Path) -> list[str]:
    """Links of ``page`` to another page of the site that do not name a file (a folder: from ``file://`` the
    browser shows a folder listing instead of the page), or name nothing that exists."""
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    bad = []
    for href in parser.hrefs:
        parts = urlsplit(href)
        if parts.scheme or href.startswith(("//", "#")) or not parts.path:
            continue
        target = (page.parent / parts.path).resolve()
        if parts.path.endswith("/") or not target.is_file() or not target.is_relative_to(site.resolve()):
            bad.append(href)
    return bad


def test_the_folder_link_check_catches_a_folder_link(site, tmp_path):
    page = site / "docs-site-links.html"
    page.write_text(
        '<a href="methods/leakage/">x</a><a href="methods/">y</a><a href="methods/leakage.html#formula">z</a>'
    )
    try:
        assert folder_links(site, page) == ["methods/leakage/", "methods/"]
    finally:
        page.unlink()


def test_every_link_between_pages_names_a_file(site):
    """Pages link to pages as files (``methods/leakage.html``), so the built site navigates from disk."""
    pages = sorted(p for p in site.rglob("*.html") if p.name != "404.html")  # 404: served at any depth, root links
    assert len(pages) >= 30
    bad = {str(p.relative_to(site)): links for p in pages if (links := folder_links(site, p))}
    assert not bad, dict(list(bad.items())[:5])


def test_every_page_loads_the_bundled_math_renderer(site):
    katex_css = site / "assets" / "katex" / "katex.min.css"
    assert katex_css.is_file() and (site / "assets" / "katex" / "katex.min.js").is_file()
    fonts = set(re.findall(r"url\((fonts/[^)]+)\)", katex_css.read_text(encoding="utf-8")))
    assert len(fonts) >= 15 and all((katex_css.parent / f).is_file() for f in fonts)
    for page in ("index.html", "methods/selection.html", "api/metrics.html"):
        text = (site / page).read_text(encoding="utf-8")
        for asset in ("assets/katex/katex.min.css", "assets/katex/katex.min.js", "javascripts/katex-init.js"):
            assert asset in text, (page, asset)
    # the methods pages use math, marked by arithmatex for the renderer
    for page in MATH_PAGES:
        assert (site / page).read_text(encoding="utf-8").count('class="arithmatex"') >= 5, page


# --------------------------------------------------------------------------- in the browser
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
    # network: every host name fails to resolve; only the local server is reachable
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--enable-logging=stderr",
    "--v=0",
    "--virtual-time-budget=10000",
    "--window-size=1280,2000",
]

# Appended to a copy of a page: once the page's scripts ran (KaTeX included), records what a reader sees.
PROBE = r"""
<script>
(function () {
  function probe() {
    var out = {
      text: document.body.innerText,
      katex: document.querySelectorAll(".katex").length,
      errors: Array.prototype.map.call(document.querySelectorAll(".katex-error"),
                                       function (e) { return (e.getAttribute("title") || "") + " | " + e.textContent; }),
      untypeset: Array.prototype.filter.call(document.querySelectorAll(".arithmatex"),
                                             function (e) { return !e.querySelector(".katex"); })
                 .map(function (e) { return e.textContent.slice(0, 120); })
    };
    var pre = document.createElement("pre");
    pre.id = "docs-site-probe";
    pre.style.display = "none";
    pre.textContent = JSON.stringify(out);
    document.body.appendChild(pre);
  }
  window.addEventListener("load", function () { setTimeout(probe, 200); });
})();
</script>
"""


def chromium(url: str, tmp: Path) -> tuple[str, list[str], list[str]]:
    """The DOM after the scripts ran, the console messages and the URLs the page requested."""
    profile = tmp / f"profile-{len(list(tmp.glob('profile-*')))}"
    netlog = profile.with_suffix(".netlog.json")
    proc = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--log-net-log={netlog}", "--dump-dom", url],
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [ln for ln in proc.stderr.splitlines() if ":CONSOLE" in ln]
    log = json.loads(netlog.read_text()) if netlog.exists() else {"events": [], "constants": {"logEventTypes": {}}}
    types = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    requests = []
    for e in log["events"]:
        p = e.get("params") or {}
        if (
            types.get(e["type"]) == "URL_REQUEST_START_JOB"
            and p.get("url")
            and p.get("initiator") != "not an origin"
            and not p["url"].startswith(("data:", "blob:"))
        ):
            requests.append(p["url"])
    return proc.stdout, console, requests


def render(site: Path, server: str, page: str, tmp: Path) -> tuple[dict, list[str], list[str]]:
    """Open ``page`` (an HTML file of the site) with the probe; return the probe's findings, console and requests.

    ``server`` is the base URL: the local HTTP server's, or ``site.as_uri() + "/"`` to read the files from disk.
    """
    probe_page = (site / page).parent / "docs-site-probe.html"  # same folder: the page's relative links stay valid
    probe_page.write_text(
        (site / page).read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8"
    )
    folder = page.rsplit("/", 1)[0] + "/" if "/" in page else ""
    try:
        dom, console, requests = chromium(f"{server}{folder}docs-site-probe.html", tmp)
    finally:
        probe_page.unlink()
    m = re.search(r'<pre id="docs-site-probe"[^>]*>(.*?)</pre>', dom, re.S)
    assert m, f"{page}: the probe did not run (page scripts failed?)\n" + "\n".join(console)
    return json.loads(html.unescape(m.group(1))), console, requests


@needs_chromium
def test_the_browser_checks_catch_raw_math_and_outside_requests(site, server, tmp_path):
    # control: a page of the site whose math is left as \(...\), with a role and an outside image, fails every check
    page = "docs-site-control.html"
    (site / page).write_text(
        '<html><body><p>See :func:`leakage` and <span class="arithmatex">\\(L_k\\)</span> and \\(x\\).</p>'
        '<img src="http://example.com/p.png"></body></html>',
        encoding="utf-8",
    )
    try:
        found, console, requests = render(site, server, page, tmp_path)
    finally:
        (site / page).unlink()
    assert raw_markup(found["text"]) and found["untypeset"] == ["\\(L_k\\)"] and found["katex"] == 0
    assert any("example.com" in u for u in requests)


def _check_page(site, server, page, tmp_path, *, math: bool):
    found, console, requests = render(site, server, page, tmp_path)
    outside = [u for u in requests if not u.startswith(server)]
    assert not outside, f"{page}: requests to other hosts: {outside}"
    assert not console, f"{page}: console messages:\n" + "\n".join(console)
    assert not found["errors"], f"{page}: formulas KaTeX could not typeset: {found['errors'][:10]}"
    assert not found["untypeset"], f"{page}: math left untypeset: {found['untypeset'][:10]}"
    if math:
        assert found["katex"] >= 5, f"{page}: only {found['katex']} typeset formulas"
    raw = raw_markup(found["text"])
    assert not raw, f"{page}: raw markup in the visible text ({len(raw)} lines shown):\n" + "\n".join(raw)


@needs_chromium
@pytest.mark.parametrize("page", MATH_PAGES)
def test_methods_page_renders_its_math_offline(site, server, page, tmp_path):
    _check_page(site, server, page, tmp_path, math=True)


@needs_chromium
@pytest.mark.parametrize("page", API_PAGES)
def test_api_page_renders_without_raw_markup(site, server, page, tmp_path):
    """API pages come from the docstrings: Sphinx roles and ``.. math::`` there show up raw on the page."""
    _check_page(site, server, page, tmp_path, math=False)


@needs_chromium
def test_a_methods_page_opened_from_disk_typesets_its_formulas(site, tmp_path):
    """``file://.../site/methods/leakage.html``: no server, the formulas typeset by the bundled KaTeX."""
    found, console, requests = render(site, site.as_uri() + "/", "methods/leakage.html", tmp_path)
    outside = [u for u in requests if not u.startswith(site.as_uri())]
    assert not outside, outside
    assert not found["errors"] and not found["untypeset"], (found["errors"], found["untypeset"])
    assert found["katex"] >= 10, found["katex"]
