"""Real pods on the real one-node cluster (scripts/cluster): limits throttle, unlimited does not,
scheduling respects allocatable, RBAC refuses what the Role does not grant, and nothing is left.

The sweep runs with the runner's service account (deploy/rbac.yaml), the
project's busybox image imported into containerd, and Prometheus scraping the
kubelet's cAdvisor: each run is measured by the pod's own cgroup (the in-pod
sampler) and by cAdvisor, and the two must agree.  The last tests stop the
cluster and check that nothing is left, also after a SIGKILL (conftest runs them
after the node tests of every other file).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from throttlelab.experiment.kubernetes.cadvisor import agreement
from throttlelab.experiment.sweeps.run_store import RunStore
from throttlelab.experiment.sweeps.spec_loading import spec_from_mapping
from throttlelab.experiment.registry import get_backend
from throttlelab.experiment.sweeps.run_sweep import run_sweep

from .cluster_helpers import scratch_namespace
from .node_cluster import BUSYBOX_IMAGE, CLUSTER_DIR, NAMESPACE, NODE_NAME, cli, leftovers, pid_alive

pytestmark = [pytest.mark.node, pytest.mark.slow]

#: busybox sh loop iterations per thread: about 0.4 CPU-seconds each on this machine
ITERATIONS = 300_000
#: The tested limit: low enough that even a machine busy with other work lets the pod reach its
#: quota in most periods (at 500m a starved pod may never reach it: see studies/sweeps/kubernetes_local.yaml)
LIMIT = 0.1


def node_spec(tmp_path: Path, node, name: str, limits: list, threads: list, workload: dict | None = None,
              **kube) -> object:
    return spec_from_mapping({
        "name": name,
        "backend": "kubernetes",
        "kubernetes": {"namespace": NAMESPACE, "kubeconfig": str(node.runner_kubeconfig), "image": BUSYBOX_IMAGE,
                       "stress_image": BUSYBOX_IMAGE, "image_pull_policy": "Never", "nodes": [NODE_NAME],
                       "node_cpus": 2, "pending_timeout_s": 60, "poll_interval_s": 0.2,
                       "prometheus_url": node.prometheus, **kube},
        "workload": workload or {"kind": "burner", "iterations": ITERATIONS},
        "limits": limits,
        "threads": threads,
        "order": "sequential",
        "cooldown_s": 0,
        "timeout_s": 180,
        "sampling_interval_s": 0.5,
        "data_root": str(tmp_path / "data"),
    })


def raw_rows(spec) -> dict[str, dict]:
    """The run rows as stored (JSON), cAdvisor columns included, by limit label."""
    rows = [json.loads(p.read_text()) for p in RunStore(spec.experiment_dir).row_files()]
    return {("unlimited" if r["cpu_limit_cores"] is None else f"{r['cpu_limit_cores']:g}"): r for r in rows}


@pytest.fixture(scope="module")
def burner_runs(node_cluster, tmp_path_factory):
    spec = node_spec(tmp_path_factory.mktemp("node-sweep"), node_cluster, "node_burner", [LIMIT, "unlimited"], [2])
    table = run_sweep(spec, get_backend("kubernetes"), progress=False)
    assert table.height == 2
    return raw_rows(spec)


def test_a_limit_throttles_and_cadvisor_agrees_with_the_cgroup(burner_runs):
    r = burner_runs[f"{LIMIT:g}"]
    assert r["status"] == "ok", r["error"]
    assert r["node"] == NODE_NAME
    # two busy threads under 0.1 core: most CFS periods are throttled, and the limit holds
    assert r["nr_periods"] > 20, r
    assert r["nr_throttled"] / r["nr_periods"] > 0.6, r
    assert r["cpu_seconds"] / r["wall_seconds"] < 1.3 * LIMIT, r
    # cAdvisor (kubelet /metrics/cadvisor through Prometheus) saw the same container and counters:
    # its totals cover the whole container life, i.e. also the sampler's own work before its first
    # and after its last block (throttled too at 0.1 core), so they are a little larger
    cad = {k: r.get(f"cadvisor_{k}") for k in ("nr_periods", "nr_throttled", "cpu_seconds")}
    assert cad["nr_periods"], f"no cAdvisor counters in the row: {r}"
    assert 0.95 * r["nr_periods"] - 2 <= cad["nr_periods"] <= 1.25 * r["nr_periods"] + 5, (r, cad)
    assert 0.98 * r["cpu_seconds"] <= cad["cpu_seconds"] <= r["cpu_seconds"] + 0.25, (r, cad)
    # the periods one source counted and the other did not (cAdvisor: the container's life outside
    # the sampler's window; the sampler: a tail after the last scrape) explain the whole difference,
    # whether or not they were throttled; +-2 periods for where a scrape or a read falls
    extra = cad["nr_periods"] - r["nr_periods"]
    low, high = r["nr_throttled"] + min(extra, 0) - 2, r["nr_throttled"] + max(extra, 0) + 2
    assert low <= cad["nr_throttled"] <= high, (r, cad)
    agree = agreement(r, cad)
    assert abs(agree["difference"]) <= (abs(extra) + 2) / cad["nr_periods"] + 0.02, (agree, extra)


def test_an_unlimited_pod_is_not_throttled(burner_runs):
    r = burner_runs["unlimited"]
    assert r["status"] == "ok", r["error"]
    assert r["nr_throttled"] in (0, None), r
    assert r.get("cadvisor_nr_throttled") in (0, None), r
    assert r["cpu_seconds"] > 0.4  # it did burn CPU


def test_a_pod_above_allocatable_stays_pending(node_cluster, tmp_path):
    spec = node_spec(tmp_path, node_cluster, "node_pending", [3], [1], pending_timeout_s=4)
    table = run_sweep(spec, get_backend("kubernetes"), progress=False)
    row = table.row(0, named=True)
    assert row["status"] == "timeout", row
    assert "Insufficient cpu" in (row["error"] or ""), row["error"]


def _runner_api(node):
    from kubernetes import client, config

    api = config.new_client_from_config(config_file=str(node.runner_kubeconfig))
    return api, client.CoreV1Api(api)


def test_rbac_refuses_what_the_runner_role_does_not_grant(node_cluster):
    from kubernetes.client import ApiException

    api, core = _runner_api(node_cluster)
    try:
        core.list_namespaced_pod(NAMESPACE)  # granted
        denied = {
            "list nodes": lambda: core.list_node(),
            "read secrets": lambda: core.list_namespaced_secret(NAMESPACE),
            "pods in another namespace": lambda: core.list_namespaced_pod("default"),
            "create a service": lambda: core.create_namespaced_service(NAMESPACE, {
                "metadata": {"name": "x"}, "spec": {"ports": [{"port": 80}]}}),
        }
        for what, call in denied.items():
            with pytest.raises(ApiException) as err:
                call()
            assert err.value.status == 403, what
    finally:
        api.close()


def test_a_latency_point_runs_as_a_deployment_behind_a_service(node_cluster, tmp_path, monkeypatch):
    """The service pod (limit 0.5 core) under open-loop load from this machine, with and without a
    stress pod: same rows as the local backend, counters from the service container's cgroup."""
    from throttlelab.experiment.latency.latency_runner import run_latency_sweep
    from throttlelab.experiment.stores import read_latency_store
    from throttlelab.experiment.latency.latency_sweep import LatencySweep

    monkeypatch.setenv("THROTTLELAB_NODE_KUBECONFIG", str(node_cluster.kubeconfig))
    sweep = LatencySweep.from_mapping({
        "experiment": "latency_node_test", "endpoint": "cpu", "mode": "open", "loads": [5],
        "contention": [0, 0.5], "neighbour_workers": 2, "cpu_limit_cores": 0.5, "seconds": 3,
        "warmup_seconds": 0.5})
    folder = run_latency_sweep(sweep, tmp_path, backend="kubernetes")
    runs, requests, _stages = read_latency_store(folder)
    assert runs.height == 2
    assert runs["status"].to_list() == ["ok", "ok"], runs.select("run_id", "error").to_dicts()
    assert set(runs["backend"]) == {"kubernetes"} and runs["node"][0].startswith(NODE_NAME)
    assert (runs["nr_periods"] > 0).all() and (runs["cpu_seconds"] > 0).all()
    assert requests.height >= 20
    rows = [json.loads(p.read_text()) for p in RunStore(folder).row_files()]
    stressed = next(r for r in rows if r["contention"] == 0.5)
    assert stressed["neighbour_mode"] == "pod" and stressed["neighbour_cpu_seconds"] > 0
    # nothing of the points is left in the namespace
    from kubernetes import client, config

    api = config.new_client_from_config(config_file=str(node_cluster.kubeconfig))
    try:
        left = client.CoreV1Api(api).list_namespaced_pod(NAMESPACE, label_selector="throttlelab.io/run-id").items
        assert [p.metadata.name for p in left if p.metadata.deletion_timestamp is None] == []
    finally:
        api.close()


#: GOMAXPROCS of the service sweep, and its load: 100 units (about 10 ms of CPU) per request, 4 users in
#: the closed loop (a 0.5-core limit is saturated), 25 requests/s in the open loop (125 per window: a p99)
SERVICE_THREADS = [1, 4]
SERVICE_LOAD = {"work": 100, "vus": 4, "rate": 25, "warmup_s": 1, "window_s": 5, "request_timeout_s": 5,
                "ready_timeout_s": 60}


@pytest.fixture(scope="module")
def service_runs(node_cluster, tmp_path_factory):
    """The built-in Go service as pods: limits 0.5 and unlimited x GOMAXPROCS 1 and 4, driven from this machine."""
    spec = node_spec(tmp_path_factory.mktemp("node-service"), node_cluster, "node_service", [0.5, "unlimited"],
                     SERVICE_THREADS, workload={"kind": "service", **SERVICE_LOAD})
    table = run_sweep(spec, get_backend("kubernetes"), progress=False)
    assert table.height == 4
    rows = [json.loads(p.read_text()) for p in RunStore(spec.experiment_dir).row_files()]
    return spec, {(("unlimited" if r["cpu_limit_cores"] is None else f"{r['cpu_limit_cores']:g}"), r["threads"]): r
                  for r in rows}


def test_a_service_pod_answers_under_each_limit_and_gomaxprocs(service_runs):
    spec, rows = service_runs
    assert len(rows) == 4
    for (limit, threads), r in rows.items():
        assert r["status"] == "ok", (limit, threads, r["error"])
        assert r["backend"] == "kubernetes" and r["workload"] == "service" and r["node"] == NODE_NAME
        assert r["threads_effective"] == int(threads), r  # GOMAXPROCS as the service itself reports it
        assert r["throughput_rps"] > 0 and r["requests_ok"] > 100, r
        # percentiles of one run's open-loop requests are ordered, and every one is there (125 requests)
        assert 0 < r["latency_p50_seconds"] <= r["latency_p90_seconds"] <= r["latency_p99_seconds"], r
        assert r["latency_p999_seconds"] is None  # 125 requests cannot give a p99.9
        # the windows' counters: two 5-s windows; cAdvisor's cover the container's whole life, so more
        assert 9.5 <= r["wall_seconds"] < 60, r
        assert r["cpu_seconds"] > 0.2, r
        assert r["cadvisor_cpu_seconds"] >= 0.98 * r["cpu_seconds"], r
        requests = pl.read_parquet(Path(spec.experiment_dir) / "monitor" / f"{r['run_id']}.requests.parquet")
        assert requests.height == r["requests_ok"] + r["requests_failed"], r


def test_a_service_pod_is_throttled_at_half_a_core_and_not_unlimited(service_runs):
    _, rows = service_runs
    for (limit, threads), r in sorted(rows.items()):  # the figures, for the record (pytest -s)
        print(f"service {limit:>9} GOMAXPROCS {threads}: {r['throughput_rps']:.1f} rps, p50 "
              f"{r['latency_p50_seconds'] * 1e3:.1f} ms, p99 {r['latency_p99_seconds'] * 1e3:.1f} ms, throttled "
              f"{r['nr_throttled']}/{r['nr_periods']} periods, {r['cpu_seconds'] / r['wall_seconds']:.2f} cores")
    for threads in map(str, SERVICE_THREADS):
        lim, free = rows[("0.5", threads)], rows[("unlimited", threads)]
        # 0.5 core with a saturating closed loop: the quota runs out in some periods, and it holds
        assert lim["nr_periods"] > 20, lim
        assert lim["nr_throttled"] > 0 and lim["throttled_seconds"] > 0, lim
        # cAdvisor's whole-life count includes the windows (its last scrape may lag a little: 20% margin)
        assert lim["cadvisor_nr_throttled"] >= 0.8 * lim["nr_throttled"], lim
        assert lim["cpu_seconds"] / lim["wall_seconds"] < 0.5 * 1.1 + 0.02, lim
        # no quota: no CFS periods, nothing throttled, in the cgroup and in cAdvisor
        assert free["nr_throttled"] == 0 and free["throttled_seconds"] == 0, free
        assert free.get("cadvisor_nr_throttled") in (0, None), free


def _busybox_pod(name: str, script: str, limit: str, request: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": name}},
            "spec": {"restartPolicy": "Never", "automountServiceAccountToken": False,
                     "terminationGracePeriodSeconds": 1, "nodeName": NODE_NAME,
                     "containers": [{"name": "main", "image": BUSYBOX_IMAGE, "imagePullPolicy": "Never",
                                     "command": ["/bin/sh", "-c", "trap 'kill 0; exit 0' TERM; " + script],
                                     "resources": {"limits": {"cpu": limit}, "requests": {"cpu": request}}}]}}


def _recommend(node, namespace: str) -> list[dict]:
    """``throttlelab recommend`` (the real CLI, as a subprocess) on the cluster's Prometheus, as JSON.

    Short-lived containers: 10-s steps (5 scrapes of 2 s each) and a 90-s minimum history instead of the
    defaults (whole minutes, 24 h), which the command refuses to decide on ("too little data")."""
    cmd = [sys.executable, "-m", "throttlelab", "recommend", "--prometheus", node.prometheus, "--namespace",
           namespace, "--since", "10m", "--step", "10s", "--min-history", "90s", "--format", "json"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def test_recommend_on_the_live_cluster_raises_a_starved_limit(node_cluster):
    """Issue 15 on the real node: a busybox pod with 2 busy threads under 100m and a mostly idle pod under a
    1.5-core limit, scraped by Prometheus from the kubelet's cAdvisor; ``recommend`` raises the first's limit
    and does not raise the second's.  Waits (up to 6 min) until the command has enough data to decide."""
    from kubernetes import client, config

    api = config.new_client_from_config(config_file=str(node_cluster.kubeconfig))
    core = client.CoreV1Api(api)
    ns = scratch_namespace(core, "tl-rec")
    try:
        busy = "( while :; do :; done ) & ( while :; do :; done ) & wait"
        idle = "while :; do i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done; sleep 1; done"
        core.create_namespaced_pod(ns, _busybox_pod("starved", busy, "100m", "100m"))
        core.create_namespaced_pod(ns, _busybox_pod("oversized", idle, "1500m", "100m"))
        deadline = time.monotonic() + 120
        while {p.status.phase for p in core.list_namespaced_pod(ns).items} != {"Running"}:
            assert time.monotonic() < deadline, [(p.metadata.name, p.status.phase) for p in core.list_namespaced_pod(ns).items]
            time.sleep(1)
        time.sleep(120)  # 12 steps of 10 s: the least the command decides on
        deadline = time.monotonic() + 240
        while True:
            recs = {r["pod"]: r for r in _recommend(node_cluster, ns)}
            if all(r["decision"] != "too little data" for r in recs.values()) or time.monotonic() > deadline:
                break
            time.sleep(20)  # extend the run: more steps
        assert set(recs) == {"starved", "oversized"}, recs
        starved, oversized = recs["starved"], recs["oversized"]
        for r in (starved, oversized):
            assert r["namespace"] == ns and r["container"] == "main", r
            assert r["decision"] != "too little data", r["reason"]
        # the limit as cAdvisor reports it (no kube-state-metrics here: container_spec_cpu_quota / period)
        assert starved["current_limit_cores"] == pytest.approx(0.1) and oversized["current_limit_cores"] == 1.5
        # starved: two busy threads under 100m are throttled in most periods; the limit goes up, and says why
        assert starved["throttled_ratio"] > 0.5, starved
        assert starved["decision"] == "raise limit", starved["reason"]
        assert starved["recommended_limit_cores"] > 1.5 * starved["current_limit_cores"], starved
        assert starved["recommended_limit_low"] > starved["current_limit_cores"], starved
        assert "raise the limit" in starved["reason"] and "Throttled in" in starved["reason"], starved["reason"]
        # oversized: a few ms of work a second under 1.5 cores: never throttled, the limit is not raised
        assert oversized["throttled_ratio"] < 0.05, oversized
        assert oversized["decision"] in ("lower limit", "keep"), oversized["reason"]
        assert oversized["recommended_limit_cores"] <= oversized["current_limit_cores"], oversized
        print(json.dumps({k: {f: r[f] for f in ("decision", "current_limit_cores", "recommended_limit_cores",
                                                  "recommended_limit_low", "recommended_limit_high",
                                                  "throttled_ratio", "usage_p95_cores", "steps", "reason")}
                          for k, r in recs.items()}, indent=1))
    finally:
        for p in core.list_namespaced_pod(ns).items:
            core.delete_namespaced_pod(p.metadata.name, ns, grace_period_seconds=0)
        core.delete_namespace(ns)
        api.close()


def test_cleaning_another_state_folder_leaves_the_running_node_alone(node_cluster, tmp_path):
    """Interfaces, kubepods cgroups and pods are machine-wide: cleaning a temporary layout (as the
    leftovers tests do) while the node runs must not remove them (it once broke a running sweep)."""
    from tlnode.layout import NODE_IFACE, Layout, Ports

    other = Layout(state=tmp_path / "cluster", bins=tmp_path / "bin", ports=Ports.from_base(16540))
    assert leftovers.foreign_cluster(other)
    assert leftovers.clean(other) == {}
    assert NODE_IFACE in leftovers.interfaces()
    assert Path("/sys/fs/cgroup/cpu/kubepods").is_dir()
    assert cli.running(node_cluster.layout) is not None


def test_cluster_down_leaves_nothing(node_cluster):
    if not node_cluster.owned:
        pytest.skip("the cluster was started outside this test session: not stopping it")
    left = cli.down(node_cluster.layout, say=lambda msg: None)
    node_cluster.down = True
    assert left == {}
    inv = leftovers.inventory(node_cluster.layout)
    assert not any(inv.values()), inv
    assert not any(Path("/sys/fs/cgroup", c, "kubepods").exists() for c in ("cpu", "cpuacct", "memory", "pids"))
    assert cli.running(node_cluster.layout) is None


def test_a_killed_owner_leaves_nothing(node_cluster):
    """SIGKILL the process that started the cluster (as a killed pytest): the supervisor gets
    SIGTERM (PR_SET_PDEATHSIG) and removes everything."""
    if not node_cluster.down:
        pytest.skip("needs the cluster stopped by test_cluster_down_leaves_nothing")
    layout = node_cluster.layout
    code = ("import sys, time; sys.path.insert(0, sys.argv[1]); from tlnode import cli; "
            "cli.up(attach=True, say=lambda m: None); print('READY', flush=True); time.sleep(600)")
    owner = subprocess.Popen([sys.executable, "-c", code, str(CLUSTER_DIR)], stdout=subprocess.PIPE, text=True,
                             env=dict(os.environ), start_new_session=True)
    try:
        assert owner.stdout.readline().strip() == "READY"
        st = cli.read_status(layout)
        assert st["state"] == "ready"
        supervisor = int(st["pid"])
        assert leftovers.our_processes(layout)
    finally:
        owner.send_signal(signal.SIGKILL)
        owner.wait()
    deadline = time.monotonic() + 90
    while (pid_alive(supervisor) or leftovers.our_processes(layout)) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not pid_alive(supervisor)  # (a zombie waiting for init to reap it counts as gone)
    inv = leftovers.inventory(layout)
    assert not any(inv.values()), inv
