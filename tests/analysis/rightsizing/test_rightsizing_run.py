"""Tests of throttlelab.analysis.rightsizing.rightsizing_run: one reading for every view, and the window it states."""

from __future__ import annotations

import doctest
from pathlib import Path

import throttlelab.analysis.rightsizing.rightsizing_run as mod
from throttlelab.analysis.rightsizing.rightsizing_run import run_rightsizing

SAMPLE = Path(__file__).resolve().parents[3] / "data" / "published" / "samples" / "shop_namespace.om.gz"


def test_doctests_run():
    res = doctest.testmod(mod)
    assert res.attempted >= 2 and res.failed == 0


def test_an_export_is_read_whole_by_default_and_a_longer_request_is_stated_beside_what_was_observed():
    whole = run_rightsizing(openmetrics_path=str(SAMPLE), read_directly=True)
    assert whole.window_text() == "26.0 h observed at 120-s steps"
    assert len(whole.recommendations) == 6 and whole.how.startswith("read directly")
    asked = run_rightsizing(openmetrics_path=str(SAMPLE), read_directly=True, since="14d")
    assert asked.window_text() == "26.0 h observed (of 336.0 h requested) at 120-s steps"
