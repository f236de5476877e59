"""Tests of throttlelab.ingest.container_cpu: selectors, steps, and containers read from a real Prometheus."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import SCENARIO_HOURS
from throttlelab.ingest.container_cpu import choose_step, fetch_containers, parse_selector
from throttlelab.ingest.prometheus_api import PrometheusAPI, PrometheusError


def test_parse_selector():
    assert parse_selector("app=web, tier = api") == {"app": "web", "tier": "api"}
    assert parse_selector(None) == {} and parse_selector(" , ") == {}
    with pytest.raises(PrometheusError, match=r"--selector 'app': expected key=value\[,key=value\] \(got 'app'\)"):
        parse_selector("app")
    with pytest.raises(PrometheusError, match="got '9x=1'"):
        parse_selector("9x=1")


def test_choose_step_keeps_points_bounded():
    assert choose_step(14 * 86400) == 120.0
    assert choose_step(86400) == 60.0
    assert choose_step(3600, 15) == 15.0
    assert choose_step(365 * 86400) % 60 == 0 and 365 * 86400 / choose_step(365 * 86400) < 11_000


@pytest.mark.prometheus
def test_every_scenario_container_is_read_with_its_limit(prometheus_scenarios):
    url, specs, end = prometheus_scenarios
    f = fetch_containers(PrometheusAPI(url), window_s=SCENARIO_HOURS * 3600, end=end, namespace="shop")
    got = {c.pod: c for c in f.containers}
    assert set(got) == set(specs)
    assert f.end - f.start == SCENARIO_HOURS * 3600 and f.queries == len(f.promql)
    for pod, spec in specs.items():
        c = got[pod]
        assert len(c.times) == len(c.usage) and np.all(np.diff(c.times) == f.step_s)
        if spec.limit is None:
            assert (c.limit_cores, c.limit_source) == (None, "none")
        else:
            assert c.limit_cores == pytest.approx(spec.limit)
            assert np.nanmax(c.usage) <= spec.limit * 1.05  # CFS never serves more than the quota
        assert 0 < np.nanmean(c.usage) <= spec.mean_cores * 1.5
    with pytest.raises(PrometheusError, match="no container_cpu_usage_seconds_total series in namespace 'nowhere'"):
        fetch_containers(PrometheusAPI(url), window_s=3600, end=end, namespace="nowhere")
