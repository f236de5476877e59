"""The direct OpenMetrics reader agrees with the same series read through a real Prometheus."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import SCENARIO_HOURS, SCENARIO_START
from throttlelab.errors import InputError
from throttlelab.experiment.simulation.synthetic_containers import scenario_specs
from throttlelab.experiment.simulation.synthetic_openmetrics import openmetrics_text
from throttlelab.ingest.prometheus.openmetrics_containers import read_openmetrics_containers


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    path = tmp_path_factory.mktemp("om") / "shop.om"
    path.write_text(openmetrics_text(scenario_specs("shop"), start=SCENARIO_START, hours=SCENARIO_HOURS))
    return path


def test_reads_every_container_with_requests_and_limits(export):
    f = read_openmetrics_containers(export, namespace="shop")
    by = {c.pod: c for c in f.containers}
    assert len(by) == 6 and f.step_s == 60
    assert by["starved-0"].limit_cores == 0.5 and by["starved-0"].request_cores == 0.25
    assert by["nolimit-0"].limit_cores is None and np.isnan(by["nolimit-0"].periods).all()
    # the restart: no step reads the counter drop as a huge rate
    assert np.nanmax(by["restarted-0"].usage) < 2.0


@pytest.mark.prometheus
def test_agrees_with_prometheus(export, prometheus_scenarios):
    from throttlelab.ingest.prometheus.container_cpu import fetch_containers
    from throttlelab.ingest.prometheus.prometheus_api import PrometheusAPI

    url, _, end = prometheus_scenarios
    live = {c.pod: c for c in fetch_containers(PrometheusAPI(url), window_s=SCENARIO_HOURS * 3600, end=end,
                                               namespace="shop").containers}
    direct = {c.pod: c for c in read_openmetrics_containers(export, namespace="shop", step_s=live["starved-0"].step_s).containers}
    for pod, c in live.items():
        d = direct[pod]
        assert np.nanmean(d.usage) == pytest.approx(np.nanmean(c.usage), rel=0.03), pod
        assert d.limit_cores == c.limit_cores and d.request_cores == c.request_cores


def test_bad_line_names_file_and_line(tmp_path):
    p = tmp_path / "bad.om"
    p.write_text('container_cpu_usage_seconds_total{namespace="a",pod="p",container="c"} 1.0 1700000000\n'
                 'container_cpu_usage_seconds_total{namespace="a",pod="p",container="c"} oops\n# EOF\n')
    with pytest.raises(InputError, match="bad.om:2: not an OpenMetrics sample with a timestamp"):
        read_openmetrics_containers(p)


def test_nothing_matching_is_an_error(export):
    with pytest.raises(InputError, match="no container_cpu_usage_seconds_total samples"):
        read_openmetrics_containers(export, namespace="nope")
