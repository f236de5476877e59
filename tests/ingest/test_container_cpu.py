"""fetch_containers against a real Prometheus without kube-state-metrics: limits from cAdvisor's quota / period."""

from __future__ import annotations

import pytest

from throttlelab.experiment.simulation.synthetic_containers import backfill, scenario_specs
from throttlelab.ingest.container_cpu import choose_step, fetch_containers, parse_selector
from throttlelab.ingest.prometheus_api import PrometheusAPI, PrometheusError
from throttlelab.ingest.prometheus_local import LocalPrometheus, prometheus_available

START = 1_767_225_600.0


@pytest.mark.prometheus
def test_without_kube_state_metrics_limits_come_from_cadvisor(tmp_path):
    ok, why = prometheus_available()
    if not ok:
        pytest.skip(why)
    specs = [s for s in scenario_specs("nk") if s.pod in ("starved-0", "nolimit-0")]
    backfill(specs, tmp_path / "tsdb", start=START, hours=26, kube_state_metrics=False)
    with LocalPrometheus(tmp_path / "tsdb") as prom:
        f = fetch_containers(PrometheusAPI(prom.url), window_s=26 * 3600, end=START + 26 * 3600, namespace="nk")
    by = {c.pod: c for c in f.containers}
    assert by["starved-0"].limit_cores == pytest.approx(0.5) and by["starved-0"].limit_source == "cadvisor"
    assert by["nolimit-0"].limit_cores is None and by["starved-0"].request_cores is None
    assert by["starved-0"].throttled_ratio_p95_5m > 0.8  # computed client-side from 1-min steps
    assert any("container_spec_cpu_quota" in q for q in f.promql)


def test_step_and_selector_parsing():
    assert choose_step(14 * 86400) == 120 and choose_step(14 * 86400, 300) == 300
    assert parse_selector("app=web, tier=api") == {"app": "web", "tier": "api"}
    with pytest.raises(PrometheusError, match="expected key=value"):
        parse_selector("app")
