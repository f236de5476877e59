"""Tests of throttlelab.ingest.prometheus.workload_cpu: pods pooled into workload containers, the latest template, the samples."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import throttlelab.ingest.prometheus.workload_cpu as mod
from throttlelab.ingest.prometheus.container_cpu import ContainerCPU, Fetch
from throttlelab.ingest.prometheus.workload_cpu import group_workloads, single, with_workloads
from throttlelab.ingest.prometheus.workload_owners import OwnerTables

T = 60.0 * np.arange(1, 11)


def _pod(name, container="app", limit=1.0, alive=slice(0, 10), node=None, ratios=None):
    u = np.full(10, np.nan)
    u[alive] = 0.3
    return ContainerCPU("ns", name, container, 0.2, limit, "kube-state-metrics", 60.0, T, u, np.zeros(10),
                        np.full(10, 10.0), np.ones(10), node_cores=node, throttled_ratios_5m=ratios)


def test_doctests_run():
    res = doctest.testmod(mod)
    assert res.attempted >= 4 and res.failed == 0


def test_two_containers_of_the_same_name_in_pods_of_a_rollout_are_one_row_and_sidecars_their_own():
    old, new = "web-7d9f8b6c5d-x2k4q", "web-5b6c7d8f9g-b7c9d"
    ws, notes = group_workloads([_pod(old), _pod(old, "envoy"), _pod(new), _pod(new, "envoy"), _pod("db-0")],
                                OwnerTables())
    assert [(w.workload_kind, w.workload, w.container, len(w.members)) for w in ws] == [
        ("Deployment", "web", "app", 2), ("Deployment", "web", "envoy", 2), ("StatefulSet", "db", "app", 1)]
    assert notes and "inferred from pod names" in notes[0]


def test_the_current_template_is_the_newest_pod_running_at_the_end():
    t = OwnerTables()
    for p in ("a", "b", "c"):
        t.add_pod("ns", p, "DaemonSet", "ds")
    ws, notes = group_workloads([_pod("a", limit=1.0, alive=slice(0, 10)), _pod("b", limit=0.5, alive=slice(0, 4)),
                                 _pod("c", limit=0.7, alive=slice(5, 10))], t)
    w = ws[0]
    assert notes == [] and w.pod == "c" and w.limit_cores == 0.7 and w.pods == ("a", "b", "c")
    p = w.pooled()
    assert len(p.usage) == 10 + 4 + 5 and p.lifetime_s.tolist() == [600.0, 240.0, 300.0]
    assert sorted(set(p.limits.tolist())) == [0.5, 0.7, 1.0] and p.member.tolist().count(1) == 4


def test_node_is_the_largest_and_5_minute_ratios_are_pooled():
    t = OwnerTables()
    t.add_pod("ns", "a", "DaemonSet", "ds")
    t.add_pod("ns", "b", "DaemonSet", "ds")
    w = group_workloads([_pod("a", node=4.0, ratios=np.array([0.0, 0.1])),
                         _pod("b", node=8.0, ratios=np.array([0.2, 0.3]))], t)[0][0]
    assert w.node_cores == 8.0
    assert w.throttled_ratio_p95_5m == pytest.approx(np.quantile([0.0, 0.1, 0.2, 0.3], 0.95))


def test_a_lone_container_and_a_fetch():
    c = _pod("x")
    assert single(c).key == ("ns", "Pod", "x", "app")
    f = with_workloads(Fetch([c], 0.0, 600.0, 60.0, 0, notes=["kept"]))
    assert [w.key for w in f.workloads] == [("ns", "Pod", "x", "app")] and f.notes[-1] == "kept"
