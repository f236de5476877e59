"""Tests of throttlelab.ingest.prometheus.workload_owners: the owner chain, names read without it, and what is said once."""

from __future__ import annotations

import doctest

import pytest

import throttlelab.ingest.prometheus.workload_owners as mod
from throttlelab.ingest.prometheus.workload_owners import OwnerTables, infer_owner, owner_of, owners_note


def test_doctests_run():
    res = doctest.testmod(mod)
    assert res.attempted >= 2 and res.failed == 0


@pytest.mark.parametrize("pod, kind, name", [
    ("web-7d9f8b6c5d-x2k4q", "Deployment", "web"),
    ("shop-frontend-5b6c7d8f9g-b7c9d", "Deployment", "shop-frontend"),
    ("db-0", "StatefulSet", "db"), ("kafka-broker-12", "StatefulSet", "kafka-broker"),
    ("report-29445120-b7c9d", "CronJob", "report"),
    ("node-agent-x2k4q", "DaemonSet or Job", "node-agent"),
    ("debug-shell", "Pod", "debug-shell"), ("standalone", "Pod", "standalone"),
])
def test_names_point_to_their_workload(pod, kind, name):
    o = infer_owner(pod)
    assert (o.kind, o.name, o.source) == (kind, name, "pod name")
    assert bool(o.ambiguous) == (kind == "DaemonSet or Job")


def test_a_name_of_63_characters_may_be_truncated():
    pod = "a-very-long-deployment-name-that-goes-on-and-on-7d9f8b6c-x2k4q"
    pod = pod + "x" * (63 - len(pod))
    assert len(pod) == 63 and "truncated" in infer_owner(pod).ambiguous


def test_the_chain_goes_up_to_deployments_and_cronjobs():
    t = OwnerTables()
    t.add_pod("s", "web-abc-x", "ReplicaSet", "web-abc")
    t.add_pod("s", "rep-1-x", "Job", "rep-1")
    t.add_pod("s", "db-0", "StatefulSet", "db")
    t.add_pod("s", "alone", "<none>", "<none>")
    t.add_pod("s", "etcd-node1", "Node", "node1")
    t.replicasets[("s", "web-abc")] = ("Deployment", "web")
    t.jobs[("s", "rep-1")] = ("CronJob", "rep")
    got = {p: (o.kind, o.name) for p in ("web-abc-x", "rep-1-x", "db-0", "alone", "etcd-node1")
           for o in [owner_of("s", p, t)]}
    assert got == {"web-abc-x": ("Deployment", "web"), "rep-1-x": ("CronJob", "rep"), "db-0": ("StatefulSet", "db"),
                   "alone": ("Pod", "alone"), "etcd-node1": ("Pod", "etcd-node1")}


def test_an_owner_without_its_own_owner_and_a_missing_owner_metric():
    t = OwnerTables()
    t.add_pod("s", "rs-pod", "ReplicaSet", "lone-rs")
    t.add_pod("s", "job-pod", "Job", "once")
    t.jobs[("s", "once")] = ("<none>", "<none>")
    assert (owner_of("s", "job-pod", t).kind, owner_of("s", "job-pod", t).name) == ("Job", "once")
    # no kube_replicaset_owner at all: the ReplicaSet's hash is read off its name
    t.add_pod("s", "api-pod", "ReplicaSet", "api-7d9f8b6c5d")
    o = owner_of("s", "api-pod", t)
    assert (o.kind, o.name, o.source) == ("Deployment", "api", "kube-state-metrics and pod name")
    assert owner_of("s", "rs-pod", t).kind == "ReplicaSet"


def test_a_controller_owner_wins():
    t = OwnerTables()
    t.add_pod("s", "p", "ReplicaSet", "rs", controller=True)
    t.add_pod("s", "p", "Something", "else", controller=False)
    assert t.pods[("s", "p")] == ("ReplicaSet", "rs")


def test_inference_is_said_once_with_the_ambiguous_names():
    owners = {("s", p): infer_owner(p) for p in ("web-7d9f8b6c5d-x2k4q", "node-agent-x2k4q", "node-agent-b7c9d")}
    note = owners_note(owners)
    assert len(note) == 2 and note[0].startswith("Workloads inferred from pod names without kube-state-metrics")
    assert note[1].count("s/node-agent (DaemonSet or Job") == 1
    t = OwnerTables()
    t.add_pod("s", "web-7d9f8b6c5d-x2k4q", "ReplicaSet", "web-7d9f8b6c5d")
    assert owners_note({("s", "web-7d9f8b6c5d-x2k4q"): owner_of("s", "web-7d9f8b6c5d-x2k4q", t)}) == []
