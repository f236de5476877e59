"""Tests of throttlelab.report.check_cli: ``throttlelab check`` over the index and every report."""

from __future__ import annotations

import pytest

from throttlelab.cli import main
from throttlelab.report.html.browser import chromium_path
from throttlelab.report.html.index import write_index

from .html.browser_pages import bad_page, good_page

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(chromium_path() is None, reason="chromium not installed (make system-tools installs it)")]


def test_check_passes_good_reports_and_fails_a_bad_one(tmp_path, capsys):
    (tmp_path / "s" / "good").mkdir(parents=True)
    good_page(tmp_path / "s" / "good" / "report.html")
    write_index(tmp_path)
    assert main(["check", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "2 of 2 pages render offline with every chart drawn" in out
    assert "ok  /" in out and "good/report.html: 1/1 charts drawn" in out

    (tmp_path / "s" / "bad").mkdir()
    bad_page(tmp_path / "s" / "bad" / "report.html")
    assert main(["check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "BAD /" in out and "bad/report.html: 0/1 charts drawn" in out
    assert "2 of 3 pages render offline" in out
