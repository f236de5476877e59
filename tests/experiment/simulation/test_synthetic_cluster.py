"""Tests of throttlelab.experiment.simulation.synthetic_cluster: the workloads, their pods over time, the truth."""

from __future__ import annotations

import pytest

from throttlelab.experiment.simulation.synthetic_cluster import NODES, cluster, true_limit, workload_containers
from throttlelab.ingest.prometheus.workload_owners import infer_owner

START = 1_767_225_600.0


@pytest.fixture(scope="module")
def pods():
    return cluster(72, start=START)


def test_the_workloads_and_their_pods(pods):
    wc = workload_containers(pods)
    assert {k: len(v) for k, v in wc.items()} == {
        ("shop", "Deployment", "web", "app"): 6, ("shop", "Deployment", "web", "envoy"): 6,
        ("shop", "StatefulSet", "db", "postgres"): 2, ("shop", "DaemonSet", "node-agent", "agent"): 2,
        ("shop", "CronJob", "report", "report"): 36, ("shop", "Deployment", "api", "api"): 2,
        ("ops", "Pod", "debug-shell", "shell"): 1, ("ops", "Job", "migrate-schema", "migrate"): 1}
    web = [p for p in pods if p.workload == ("Deployment", "web")]
    assert len({p.owner_name for p in web}) == 3 and {p.node for p in web} == set(NODES)
    assert sorted({s.limit for p in web for s in p.containers if s.container == "app"}) == [0.8, 1.0]
    assert len({s.seed for p in pods for s in p.containers}) == sum(len(p.containers) for p in pods)


def test_generated_names_read_as_their_workloads(pods):
    """The names are Kubernetes' own shapes: read without kube-state-metrics they point to the same workloads."""
    for p in pods:
        o = infer_owner(p.name)
        if p.workload[0] in ("DaemonSet", "Job"):
            assert o.kind == "DaemonSet or Job" and o.name == p.workload[1]
        else:
            assert (o.kind, o.name) == p.workload, p.name


def test_the_truth_meets_the_target_and_is_capped_at_the_node(pods):
    wc = workload_containers(pods)
    app = true_limit(wc[("shop", "Deployment", "web", "app")], 0.05, start=START)
    assert 1.0 < app < 4.0
    assert true_limit(wc[("shop", "Deployment", "web", "app")], 0.20, start=START) < app
    assert true_limit(wc[("shop", "Deployment", "web", "app")], 0.05, start=START, node_cores=1.0) == 1.0
