"""Tests of throttlelab.experiment.simulation.cluster_openmetrics: the series a real cluster's Prometheus holds."""

from __future__ import annotations

from collections import Counter

import pytest

from throttlelab.experiment.simulation.cluster_openmetrics import ksm_lines, node_size_lines, pod_lines, write_cluster
from throttlelab.experiment.simulation.synthetic_cluster import cluster

START = 1_767_225_600.0


@pytest.fixture(scope="module")
def pods():
    return cluster(8, start=START)


def _labels(line):
    return line.split("{", 1)[1].rsplit("}", 1)[0]


def test_a_pod_has_its_containers_its_cgroup_and_its_pause_container(pods):
    web = next(p for p in pods if p.name.startswith("web-"))
    lines = pod_lines(web, start=START, scrape_s=30)
    containers = Counter(_labels(ln).split('container="', 1)[1].split('"', 1)[0] for ln in lines)
    assert set(containers) == {"app", "envoy", "", "POD"}
    assert all('id="' in ln and 'image="' in ln and 'node="' in ln and 'instance="' in ln for ln in lines)
    pod_usage = [float(ln.split()[1]) for ln in lines if 'container=""' in ln and ln.startswith("container_cpu_usage")]
    assert all(b >= a for a, b in zip(pod_usage, pod_usage[1:]))  # the pod's cgroup never resets


def test_a_restart_starts_new_counters_under_a_new_id(pods):
    db1 = next(p for p in pods if p.name == "db-1")
    ids = {_labels(ln).split('id="', 1)[1].split('"', 1)[0] for ln in pod_lines(db1, start=START, scrape_s=30)
           if 'container="postgres"' in ln}
    assert len(ids) == 2


def test_without_throttled_seconds(pods):
    web = next(p for p in pods if p.name.startswith("web-"))
    names = {ln.split("{")[0] for ln in pod_lines(web, start=START, scrape_s=30, throttled_seconds=False)}
    assert "container_cpu_cfs_throttled_seconds_total" not in names and "container_cpu_cfs_periods_total" in names


def test_kube_state_metrics_owner_chain_and_nodes(pods):
    lines = ksm_lines(pods, start=START, hours=8, every_s=300)
    names = Counter(ln.split("{")[0] for ln in lines)
    assert {"kube_pod_owner", "kube_replicaset_owner", "kube_job_owner", "kube_pod_labels",
            "kube_pod_container_resource_requests", "kube_pod_container_resource_limits",
            "go_sched_gomaxprocs_threads"} <= set(names)
    jobs = {_labels(ln) for ln in lines if ln.startswith("kube_job_owner")}
    assert sum('owner_kind="CronJob",owner_name="report"' in j for j in jobs) == 4  # a run every 2 h in 8 h
    assert sum('job_name="migrate-schema",owner_kind="<none>",owner_name="<none>"' in j for j in jobs) == 1
    assert any('resource="memory"' in ln for ln in lines)
    assert {ln.split("{")[0] for ln in node_size_lines(start=START, hours=1)} == {
        "machine_cpu_cores", "kube_node_status_allocatable"}


def test_write_ends_with_eof(tmp_path, pods):
    n = write_cluster(tmp_path / "c.om", pods[:3], start=START, hours=8, kube_state_metrics=False)
    text = (tmp_path / "c.om").read_text()
    assert text.endswith("# EOF\n") and text.count("\n") == n + 1 and "kube_" not in text
