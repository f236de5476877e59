"""Tests of throttlelab.ingest.prometheus.prometheus_owners: the owner chain read from a real Prometheus over the whole window."""

from __future__ import annotations

import doctest

import pytest

import throttlelab.ingest.prometheus.prometheus_owners as mod
from tests.conftest import CLUSTER_HOURS
from throttlelab.ingest.prometheus.prometheus_api import PrometheusAPI
from throttlelab.ingest.prometheus.prometheus_owners import read_owners, short_lived_pods
from throttlelab.ingest.prometheus.workload_owners import owner_of


def test_doctests_run():
    res = doctest.testmod(mod)
    assert res.attempted >= 1 and res.failed == 0


@pytest.mark.prometheus
def test_deleted_pods_and_finished_jobs_keep_their_owners(prometheus_cluster):
    url, pods, end = prometheus_cluster
    promql: list[str] = []
    t = read_owners(PrometheusAPI(url), namespace="shop", window=f"{CLUSTER_HOURS}h", end=end, promql=promql)
    shop = [p for p in pods if p.namespace == "shop"]
    assert set(t.pods) == {(p.namespace, p.name) for p in shop}  # the first rollout's pods are long gone at the end
    assert len(t.jobs) == 36 and set(t.jobs.values()) == {("CronJob", "report")}
    assert {v for v in t.replicasets.values()} == {("Deployment", "web"), ("Deployment", "api")}
    assert all((owner_of(p.namespace, p.name, t).kind, owner_of(p.namespace, p.name, t).name) == p.workload for p in shop)
    brief = short_lived_pods(set(t.pods), t)
    assert len(brief) == 36 and all(p.startswith("report-") for _, p in brief)
    # the owner series' label sets from the index over the whole window (the series API): no samples read
    assert promql == ['kube_pod_owner{namespace="shop"}', 'kube_replicaset_owner{namespace="shop"}',
                      'kube_job_owner{namespace="shop"}']
