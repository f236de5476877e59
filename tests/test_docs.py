"""The docs site builds with ``mkdocs build --strict`` and its pages load nothing from the network."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
# a resource the browser fetches by itself (not a hyperlink the reader may follow)
REMOTE = re.compile(r"""<(?:script|img|iframe|source)\b[^>]*\bsrc=["']?(?:https?:)?//|"""
                    r"""<link\b[^>]*\bhref=["']?(?:https?:)?//|url\(["']?(?:https?:)?//|@import\s+["']?(?:https?:)?//""")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    # not --quiet: with it, mkdocs 1.6 --strict builds on through warnings
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(REPO / "mkdocs.yml"), "--site-dir", str(out)],
                          capture_output=True, text=True, timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    assert "WARNING" not in proc.stderr, proc.stderr
    return out


def test_every_page_is_built(site):
    pages = sorted(p.relative_to(DOCS).with_suffix(".html") for p in DOCS.rglob("*.md"))
    assert pages, "no docs pages"
    missing = [str(p) for p in pages if not (site / p).is_file()]
    assert not missing, f"pages not built: {missing}"


def test_pages_load_nothing_from_the_network(site):
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text())
    assert config["theme"]["font"] is False, "theme.font must be false (else Google Fonts are loaded)"
    assert "offline" in config["plugins"] and "privacy" not in config["plugins"]
    remote = {}
    for path in [*site.rglob("*.html"), *site.rglob("*.css")]:
        hits = REMOTE.findall(path.read_text(errors="replace"))
        if hits:
            remote[str(path.relative_to(site))] = hits[:3]
    assert not remote, f"pages fetch from the network: {remote}"
    # search works from file:// (the offline plugin inlines the index; the worker shim is ours, not a CDN's)
    assert (site / "search" / "search_index.js").is_file()
    assert 'src="assets/javascripts/iframe-worker-shim.js"' in (site / "index.html").read_text()


def test_every_screenshot_is_shown_in_the_docs():
    pages = "\n".join(p.read_text() for p in DOCS.rglob("*.md"))
    shots = sorted(p.name for p in (DOCS / "screenshots").glob("*.png"))
    assert shots, "docs/screenshots/ is empty"
    unshown = [s for s in shots if f"(screenshots/{s})" not in pages]
    assert not unshown, f"screenshots no docs page shows: {unshown}"


@pytest.mark.browser
def test_search_works_from_file_with_no_network(site):
    from throttlelab.report.html.browser import chromium_path

    if chromium_path() is None:
        pytest.skip("chromium not installed (make system-tools installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=[
            "--no-sandbox", "--disable-gpu", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"])
        try:
            page = browser.new_page()
            urls, errors = [], []
            page.on("request", lambda r: urls.append(r.url))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto((site / "index.html").as_uri())
            page.click("input.md-search__input")
            page.type("input.md-search__input", "dead zone", delay=20)
            page.wait_for_selector(".md-search-result__item", timeout=20_000)
            found = page.locator(".md-search-result__item").count()
        finally:
            browser.close()
    assert found > 0
    assert not errors, errors
    remote = [u for u in urls if u.split(":", 1)[0] not in ("file", "data", "blob", "about")]
    assert not remote, f"the site fetched from the network: {remote}"
