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


def test_pod_cgroup_and_pause_container_are_not_containers_and_node_sizes_are_joined(tmp_path):
    """cAdvisor's container="" (the pod's cgroup) and "POD" (pause) series make no container; the node's size is
    machine_cpu_cores joined by the node label, as through Prometheus."""
    lines = []
    for c, node in (("app", "n1"), ("", "n1"), ("POD", "n1")):
        lab = f'namespace="a",pod="p",container="{c}",node="{node}",instance="{node}:10250"'
        lines += [f"container_cpu_usage_seconds_total{{{lab}}} {0.5 * i:.1f} {1_700_000_000 + 15 * i}" for i in range(400)]
    lines += [f'machine_cpu_cores{{node="{n}",instance="{n}:10250"}} {v} 1700000000' for n, v in (("n1", 4), ("n2", 16))]
    p = tmp_path / "x.om"
    p.write_text("\n".join(lines) + "\n# EOF\n")
    f = read_openmetrics_containers(p)
    assert [(c.container, c.node_cores) for c in f.containers] == [("app", 4.0)]


def test_a_cluster_export_reads_as_one_row_per_workload_container(cluster_export):
    """The export of a real-looking cluster: the owner chain comes from its kube-state-metrics series, no row is a
    pod's cgroup or pause container, Job pods are read at a minute while the window's step is 2 minutes."""
    from throttlelab.ingest.prometheus.workload_cpu import with_workloads

    path, pods = cluster_export
    f = with_workloads(read_openmetrics_containers(path))
    assert f.step_s == 120 and f.notes == []
    assert len(f.containers) == 56 and not any(c.container in ("", "POD") for c in f.containers)
    got = {w.key: w for w in f.workloads}
    assert len(got) == 8 and len(got[("shop", "CronJob", "report", "report")].members) == 36
    assert got[("shop", "CronJob", "report", "report")].step_s == 60
    assert got[("shop", "Deployment", "web", "app")].limit_cores == 0.8
    assert {w.node_cores for w in f.workloads} == {4.0, 8.0}
