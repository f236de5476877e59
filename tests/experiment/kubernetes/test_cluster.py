"""The Kubernetes backend against a real API server and scheduler, with kwok fake nodes.

kwok has no kubelet: pods become Running and then Succeeded by its stages and
have no logs, so these tests check what the API sees (pods, limits, labels,
scheduling, RBAC, cleanup, resume); log parsing is tested in test_pod_log.py.
"""

from __future__ import annotations

import _thread
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml

from throttlelab.experiment.kubernetes import KubernetesBackend, cleanup, parse_options
from throttlelab.experiment.kubernetes import labels as lb
from throttlelab.experiment.kubernetes import manifests as mf
from throttlelab.experiment.sweeps.run_store import RunStore
from throttlelab.experiment.sweeps.spec import spec_from_mapping
from throttlelab.experiment.sweeps.run_sweep import run_sweep

from .conftest import NODES, apply_rbac, service_account_token

pytestmark = pytest.mark.kube


def make_spec(tmp_path: Path, namespace: str, kubeconfig: Path, experiment: str = "kubetest", **kube):
    opts = {"namespace": namespace, "kubeconfig": str(kubeconfig), "pending_timeout_s": 20,
            "poll_interval_s": 0.1, **kube}
    doc = {
        "name": experiment,
        "backend": "kubernetes",
        "kubernetes": opts,
        "workload": {"kind": "command", "command": "ffmpeg -threads {threads} -i in.mp4 -f null -"},
        "limits": [0.5, 1.5],
        "threads": [1, 2],
        "order": "sequential",
        "timeout_s": 30,
        "sampling_interval_s": 0.5,
        "data_root": str(tmp_path / "data"),
    }
    return spec_from_mapping(doc)


def labelled(admin, namespace: str) -> list[str]:
    sel = f"{lb.MANAGED_BY}={lb.MANAGER}"
    pods = admin.list_namespaced_pod(namespace, label_selector=sel).items
    cms = admin.list_namespaced_config_map(namespace, label_selector=sel).items
    return [f"pod/{p.metadata.name}" for p in pods] + [f"configmap/{c.metadata.name}" for c in cms]


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


def test_unschedulable_run_times_out_with_the_schedulers_reason(control_plane, admin, namespace, tmp_path):
    spec = make_spec(tmp_path, namespace, control_plane.kubeconfig, pending_timeout_s=2)
    spec = spec.replace(limits=(5.0,), threads=("1",))  # the fake nodes have 2 CPUs
    rows = run_sweep(spec, progress=False)
    assert rows.height == 1
    row = rows.row(0, named=True)
    assert row["status"] == "timeout"
    assert "Pending for more than 2 s" in row["error"] and "Insufficient cpu" in row["error"], row["error"]
    assert labelled(admin, namespace) == []


def test_the_role_is_enough_and_nothing_outside_it_is_allowed(control_plane, admin, namespace, tmp_path):
    from kubernetes import client, config
    from kubernetes.client import ApiException

    apply_rbac(control_plane, namespace)
    token = service_account_token(control_plane, namespace)
    kubeconfig = control_plane.kubeconfig_for_token(token, tmp_path / "runner.kubeconfig")
    spec = make_spec(tmp_path, namespace, kubeconfig)
    rows = run_sweep(spec, progress=False)
    assert rows.height == 4 and rows["status"].to_list() == ["ok"] * 4, rows["error"].to_list()
    assert labelled(admin, namespace) == []

    api = config.new_client_from_config(config_file=str(kubeconfig))
    core = client.CoreV1Api(api)
    core.list_namespaced_pod(namespace)  # allowed
    refused = {
        "pods in another namespace": lambda: core.list_namespaced_pod("default"),
        "secrets": lambda: core.list_namespaced_secret(namespace),
        "nodes": lambda: core.list_node(),
        "pod exec-like update": lambda: core.patch_namespaced_config_map("x", namespace, {"data": {}}),
    }
    for what, call in refused.items():
        with pytest.raises(ApiException) as err:
            call()
        assert err.value.status == 403, what
    api.close()


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


def test_parallel_runs_use_different_nodes(control_plane, admin, namespace, tmp_path):
    spec = make_spec(tmp_path, namespace, control_plane.kubeconfig, nodes=list(NODES), max_parallel=2)
    backend = KubernetesBackend()
    backend.prepare(spec)
    try:
        store = RunStore(spec.experiment_dir)
        results = list(backend.execute_many(spec.plan(), store.monitor_path))
    finally:
        backend.cleanup(spec)
    assert len(results) == 4 and all(r["status"] == "ok" for _, r in results)
    assert {r["node"] for _, r in results} == set(NODES)
    # the same through run_sweep (which uses execute_many when the backend has lanes)
    rows = run_sweep(spec.replace(name="kubetest-par"), progress=False)
    assert rows.height == 4 and set(rows["status"]) == {"ok"} and set(rows["node"]) == set(NODES)
    assert labelled(admin, namespace) == []


def test_resume_skips_finished_runs_and_removes_orphans(control_plane, admin, namespace, tmp_path):
    spec = make_spec(tmp_path, namespace, control_plane.kubeconfig)
    first = run_sweep(spec, progress=False, max_runs=2)
    assert first.height == 2
    # an orphan of a sweep that died: same experiment, another session
    orphan = mf.run_pod(name="tl-orphan", experiment=spec.name, run_id="l1m-t1-c0-r0-000000", session="dead",
                        options=parse_options({"namespace": namespace}),
                        argv=["true"], limit_cores=None, threads="1", sampling_interval_s=1)
    orphan["spec"]["nodeSelector"] = {"no-such-label": "x"}  # stays Pending
    admin.create_namespaced_pod(namespace, orphan)
    second = run_sweep(spec, progress=False)
    assert second.height == 4 and second["run_id"].n_unique() == 4
    files = sorted(p.name for p in (spec.experiment_dir / "runs").glob("*.json"))
    assert len(files) == 4 and not any("~" in f for f in files)  # nothing ran twice
    assert set(first["run_id"]) < set(second["run_id"])
    assert labelled(admin, namespace) == []


def test_ctrl_c_deletes_what_the_sweep_created(control_plane, admin, namespace, tmp_path):
    spec = make_spec(tmp_path, namespace, control_plane.kubeconfig, pending_timeout_s=60)
    spec = spec.replace(limits=(5.0,), threads=("1",))  # stays Pending until interrupted
    seen = threading.Event()

    def interrupt_when_pod_exists():
        for _ in range(200):
            if any(n.startswith("pod/") for n in labelled(admin, namespace)):
                seen.set()
                _thread.interrupt_main()
                return
            threading.Event().wait(0.05)

    t = threading.Thread(target=interrupt_when_pod_exists, daemon=True)
    t.start()
    with pytest.raises(KeyboardInterrupt):
        run_sweep(spec, progress=False)
    t.join(5)
    assert seen.is_set()
    assert labelled(admin, namespace) == []
    assert RunStore(spec.experiment_dir).read_runs().height == 0  # the interrupted run is redone on resume


def test_throttlelab_sweep_cli_runs_a_kubernetes_spec(control_plane, admin, namespace, tmp_path):
    spec = make_spec(tmp_path, namespace, control_plane.kubeconfig)
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(spec.to_mapping(), sort_keys=False))
    cli = Path(sys.executable).parent / "throttlelab"
    proc = subprocess.run([str(cli), "sweep", str(path), "--no-progress"], capture_output=True, text=True,
                          timeout=90, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = RunStore(spec.experiment_dir).read_runs()
    assert rows.height == 4 and set(rows["status"]) == {"ok"} and set(rows["backend"]) == {"kubernetes"}
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
    rows = run_sweep(spec, progress=False)
    row = rows.row(0, named=True)
    assert (row["status"], row["error"][: len(error)]) == (status, error), row["error"]
    assert labelled(admin, namespace) == []


def test_the_kubeconfig_context_is_selectable_and_errors_are_clear(control_plane, namespace, tmp_path):
    from throttlelab.errors import EnvironmentProblem

    from .control_plane import free_port

    doc = yaml.safe_load(control_plane.kubeconfig.read_text())
    closed = {"name": "nowhere", "cluster": {**doc["clusters"][0]["cluster"], "server": f"https://127.0.0.1:{free_port()}"}}
    doc["clusters"].append(closed)
    doc["contexts"] = [{"name": "lab", "context": {"cluster": "test", "user": "user"}},
                       {"name": "broken", "context": {"cluster": "nowhere", "user": "user"}}]
    doc["current-context"] = "broken"
    kubeconfig = tmp_path / "two-contexts.kubeconfig"
    kubeconfig.write_text(yaml.safe_dump(doc))
    spec = make_spec(tmp_path, namespace, kubeconfig, context="lab").replace(limits=(0.5,), threads=("1",))
    assert run_sweep(spec, progress=False)["status"].to_list() == ["ok"]

    with pytest.raises(EnvironmentProblem, match="cannot reach the Kubernetes API at https://127.0.0.1") as err:
        run_sweep(make_spec(tmp_path, namespace, kubeconfig, experiment="other"), progress=False)
    assert control_plane.admin_token not in str(err.value)  # no credentials in messages
    with pytest.raises(EnvironmentProblem, match="context 'nope'"):
        run_sweep(make_spec(tmp_path, namespace, kubeconfig, context="nope", experiment="other"), progress=False)


def test_a_run_longer_than_its_timeout_is_stopped_and_recorded(control_plane, admin, namespace, tmp_path):
    spec = make_spec(tmp_path, namespace, control_plane.kubeconfig, annotations={"test.throttlelab.io/hold": "1"})
    spec = spec.replace(limits=(0.5,), threads=("1",), timeout_s=1.0)
    row = run_sweep(spec, progress=False).row(0, named=True)
    assert row["status"] == "timeout" and row["error"] == "still running after the run timeout of 1 s"
    assert row["node"] in NODES
    assert labelled(admin, namespace) == []


def test_an_adaptive_sweep_runs_on_kubernetes_with_the_same_spec(control_plane, admin, namespace, tmp_path):
    from throttlelab.experiment.sweeps.adaptive import AdaptiveDesign

    base = make_spec(tmp_path, namespace, control_plane.kubeconfig)
    spec = spec_from_mapping({**base.to_mapping(), "design": "adaptive", "adaptive": {"budget": 5}})
    rows = run_sweep(spec, progress=False)
    assert 4 <= rows.height <= 5 and (rows["backend"] == "kubernetes").all()
    assert all(rows["chosen_because"].to_list())
    assert rows.sort("started_at")["chosen_because"][0].startswith("initial design")
    status = AdaptiveDesign(spec, rows).status()
    assert status.finished and status.stop_reason
    assert labelled(admin, namespace) == []
