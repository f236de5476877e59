"""Tests of throttlelab.report.html.browser: headless Chromium counts drawn charts, errors and network requests."""

from __future__ import annotations

import pytest

from throttlelab.report.html.browser import check_pages, chromium_path

from .browser_pages import bad_page, good_page

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(chromium_path() is None, reason="chromium not installed (make system-tools installs it)")]


def test_a_good_page_and_a_bad_page(tmp_path):
    good, bad = check_pages([good_page(tmp_path / "good.html"), bad_page(tmp_path / "bad.html")], settle_s=15,
                            screenshots=[tmp_path / "good.png", None], expression="document.title")
    assert (good.charts, good.drawn) == (1, 1) and good.ok, good
    assert good.title == "good" and good.extra["value"] == "good"
    assert (tmp_path / "good.png").stat().st_size > 1000
    assert bad.charts == 1 and bad.drawn == 0 and not bad.ok
    assert any("example.invalid" in r for r in bad.network_requests)
    assert any("boom" in e for e in bad.console_errors)
