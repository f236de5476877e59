"""fetch_containers against a real Prometheus without kube-state-metrics: limits from cAdvisor's quota / period."""

from __future__ import annotations

import pytest

from throttlelab.experiment.simulation.synthetic_containers import scenario_specs
from throttlelab.experiment.simulation.synthetic_openmetrics import backfill
from throttlelab.ingest.prometheus.container_cpu import fetch_containers
from throttlelab.ingest.prometheus.prometheus_answers import PrometheusError
from throttlelab.ingest.prometheus.prometheus_api import PrometheusAPI
from throttlelab.ingest.prometheus.prometheus_local import LocalPrometheus, prometheus_available, run_promtool
import numpy as np
from tests.conftest import SCENARIO_HOURS

START = 1_767_225_600.0


@pytest.mark.prometheus
def test_without_kube_state_metrics_limits_come_from_cadvisor(tmp_path):
    ok, why = prometheus_available()
    if not ok:
        pytest.skip(why)
    specs = [s for s in scenario_specs("nk") if s.pod in ("starved-0", "nolimit-0")]
    backfill(specs, tmp_path / "tsdb", start=START, hours=26, kube_state_metrics=False)
    # no machine_cpu_cores: node sizes from kube_node_status_allocatable (starved-0 is on node-1, nolimit-0 on node-0)
    om = tmp_path / "nodes.om"
    om.write_text("".join(f'kube_node_status_allocatable{{node="{n}",resource="cpu",unit="core"}} {v} {START + 60 * i:.0f}\n'
                          for n, v in (("node-0", 3.5), ("node-1", 1.9)) for i in range(1, 26 * 60 + 1)) + "# EOF\n")
    run_promtool(om, tmp_path / "tsdb")
    with LocalPrometheus(tmp_path / "tsdb") as prom:
        f = fetch_containers(PrometheusAPI(prom.url), window_s=26 * 3600, end=START + 26 * 3600, namespace="nk")
    by = {c.pod: c for c in f.containers}
    assert (by["starved-0"].node_cores, by["nolimit-0"].node_cores) == (1.9, 3.5)
    assert any("kube_node_status_allocatable" in q for q in f.promql)
    assert by["starved-0"].limit_cores == pytest.approx(0.5) and by["starved-0"].limit_source == "cadvisor"
    assert by["nolimit-0"].limit_cores is None and by["starved-0"].request_cores is None
    assert by["starved-0"].throttled_ratio_p95_5m > 0.8  # computed client-side from 1-min steps
    assert any("container_spec_cpu_quota" in q for q in f.promql)


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
        assert c.node_cores == {"node-0": 8.0, "node-1": 2.0}[spec.node]  # machine_cpu_cores, joined by node label
    with pytest.raises(PrometheusError, match="no container_cpu_usage_seconds_total series in namespace 'nowhere'"):
        fetch_containers(PrometheusAPI(url), window_s=3600, end=end, namespace="nowhere")


def _usage_twice_om(path):
    """Container ``a`` as cAdvisor (with ``id``) and as the kubelet's /metrics/resource (no ``id``) export it, both
    0.5 core; container ``b`` only without ``id`` (an export that dropped the label), 0.25 core.  15-s scrapes, 2 h."""
    lines = ["# TYPE container_cpu_usage_seconds_total counter"]
    for lab, rate in (('container="a",pod="p-0",id="/kubepods/burstable/podx/a1",job="kubelet-cadvisor"', 0.5),
                      ('container="a",pod="p-0",job="kubelet-resource"', 0.5),
                      ('container="b",pod="q-0",job="kubelet-resource"', 0.25)):
        lines += [f'container_cpu_usage_seconds_total{{namespace="twice",{lab}}} {rate * 15 * i:.2f} {START + 15 * i:.0f}'
                  for i in range(1, 2 * 240 + 1)]
    path.write_text("\n".join(lines) + "\n# EOF\n")
    return path


@pytest.mark.prometheus
def test_usage_scraped_from_cadvisor_and_the_resource_endpoint_is_counted_once(tmp_path):
    """A Prometheus scraping both /metrics/cadvisor and /metrics/resource (as the one-node cluster's does) holds
    two usage series per container: the usage is cAdvisor's, not their sum; the direct reader agrees."""
    from throttlelab.ingest.prometheus.openmetrics_containers import read_openmetrics_containers

    ok, why = prometheus_available()
    if not ok:
        pytest.skip(why)
    om = _usage_twice_om(tmp_path / "twice.om")
    run_promtool(om, tmp_path / "tsdb")
    with LocalPrometheus(tmp_path / "tsdb") as prom:
        f = fetch_containers(PrometheusAPI(prom.url), window_s=7200, end=START + 7200, namespace="twice", step_s=60)
    direct = read_openmetrics_containers(om, namespace="twice", step_s=60)
    for got in (f, direct):
        by = {c.container: float(np.nanmedian(c.usage)) for c in got.containers}
        assert by == {"a": pytest.approx(0.5, rel=0.01), "b": pytest.approx(0.25, rel=0.01)}, by
