"""The PromQL pieces of the per-container read: selectors, the step, a PromQL string."""

from __future__ import annotations

import pytest

from throttlelab.ingest.prometheus.container_queries import choose_step, parse_selector, smallest_step
from throttlelab.ingest.prometheus.prometheus_answers import PrometheusError
from throttlelab.ingest.prometheus.prometheus_api import promql_string


def test_parse_selector():
    assert parse_selector("app=web, tier = api") == {"app": "web", "tier": "api"}
    assert parse_selector(None) == {} and parse_selector(" , ") == {}
    with pytest.raises(PrometheusError, match=r"--selector 'app': expected key=value\[,key=value\] \(got 'app'\)"):
        parse_selector("app")
    with pytest.raises(PrometheusError, match="got '9x=1'"):
        parse_selector("9x=1")


def test_choose_step_keeps_points_bounded():
    assert choose_step(14 * 86400) == 120.0 and choose_step(14 * 86400, 300) == 300
    assert choose_step(86400) == 60.0
    assert choose_step(3600, 15) == 15.0
    assert choose_step(365 * 86400) % 60 == 0 and 365 * 86400 / choose_step(365 * 86400) < 11_000


def test_smallest_step_from_scrapes_and_the_points_budget():
    assert smallest_step(86400, 30, 500) == 120  # four scrapes
    assert smallest_step(86400, 30, 5000) == 300  # the budget asks for under ten minutes: five
    assert smallest_step(86400, 30, 30000) == 1080


def test_promql_string_escapes_quotes_and_backslashes():
    assert promql_string('we"b\\1') == '"we\\"b\\\\1"'
