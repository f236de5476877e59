"""Tests of throttlelab.experiment.kubernetes.pod_runner against a real API server (kwok nodes): run pods, neighbours, failures."""

from __future__ import annotations

import pytest

from throttlelab.experiment.kubernetes import KubernetesBackend, cleanup
from throttlelab.experiment.kubernetes import labels as lb
from throttlelab.experiment.sweeps.spec_loading import spec_from_mapping
from throttlelab.experiment.registry import get_backend
from throttlelab.experiment.sweeps.run_sweep import run_sweep

from .cluster_helpers import labelled, make_spec
from .conftest import NODES

pytestmark = pytest.mark.kube


def test_run_pod_gets_the_requested_limits_labels_and_node(control_plane, admin, namespace, tmp_path):
    spec = make_spec(tmp_path, namespace, control_plane.kubeconfig, keep_pods=True, nodes=[NODES[1]])
    plan = next(p for p in spec.plan() if p.limit_cores == 1.5 and p.threads == "2")
    backend = KubernetesBackend()
    backend.prepare(spec)
    row = backend.execute(plan, tmp_path / "monitor" / f"{plan.run_id}.log")
    assert row["status"] == "ok", row["error"]
    assert row["backend"] == "kubernetes" and row["node"] == NODES[1] and row["exit_code"] == 0
    pods = admin.list_namespaced_pod(namespace, label_selector=f"{lb.RUN_ID}={plan.run_id}").items
    assert len(pods) == 1
    pod = pods[0]
    c = pod.spec.containers[0]
    assert c.resources.limits == {"cpu": "1500m"} and c.resources.requests == {"cpu": "1500m"}
    assert c.args == ["ffmpeg", "-threads", "2", "-i", "in.mp4", "-f", "null", "-"]
    assert pod.metadata.labels[lb.EXPERIMENT] == "kubetest"
    assert pod.metadata.labels[lb.MANAGED_BY] == "throttlelab"
    assert pod.spec.restart_policy == "Never" and pod.spec.node_name == NODES[1]
    assert pod.status.phase == "Succeeded"
    cleanup.remove(backend.cluster, lb.selector("kubetest"))
    assert labelled(admin, namespace) == []


def test_noisy_neighbour_runs_on_the_runs_node(control_plane, admin, namespace, tmp_path):
    spec = make_spec(tmp_path, namespace, control_plane.kubeconfig, nodes=[NODES[0]], keep_pods=True)
    spec = spec.replace(limits=(0.5,), threads=("1",))
    spec = spec_from_mapping({**spec.to_mapping(), "contention": [{"share": 0.5, "workers": 2}]})
    backend = KubernetesBackend()
    backend.prepare(spec)
    plan = spec.plan()[0]
    row = backend.execute(plan, tmp_path / "m.log")
    assert row["status"] == "ok", row["error"]
    pods = admin.list_namespaced_pod(namespace, label_selector=f"{lb.RUN_ID}={plan.run_id}").items
    roles = {p.metadata.labels[lb.ROLE]: p for p in pods}
    assert set(roles) == {"run", "stress"}
    assert roles["stress"].spec.node_name == roles["run"].spec.node_name == NODES[0]
    # half of the fake node's 2 CPUs, read from the node (the admin may read nodes)
    from kubernetes.utils import parse_quantity

    assert parse_quantity(roles["stress"].spec.containers[0].resources.limits["cpu"]) == 1
    assert roles["stress"].status.phase == "Running"
    # keep_pods: the backend's cleanup leaves them; remove them here
    cleanup.remove(backend.cluster, lb.selector(spec.name))
    assert labelled(admin, namespace) == []


@pytest.mark.parametrize(("annotations", "status", "error"), [
    ({"test.throttlelab.io/waiting-reason": "ImagePullBackOff"}, "failed", "ImagePullBackOff: Back-off pulling image"),
    ({"test.throttlelab.io/exit-code": "137", "test.throttlelab.io/reason": "OOMKilled"}, "failed", "OOMKilled"),
    ({"test.throttlelab.io/exit-code": "3"}, "failed", "exit code 3 (Error)"),
])
def test_failures_become_failed_runs_with_their_reason(control_plane, admin, namespace, tmp_path,
                                                       annotations, status, error):
    # kwok test stages (kwok_stages/) play the kubelet's part from these annotations
    spec = make_spec(tmp_path, namespace, control_plane.kubeconfig, annotations=annotations)
    spec = spec.replace(limits=(0.5,), threads=("1",))
    rows = run_sweep(spec, get_backend("kubernetes"), progress=False)
    row = rows.row(0, named=True)
    assert (row["status"], row["error"][: len(error)]) == (status, error), row["error"]
    assert labelled(admin, namespace) == []
