"""``recommend --format patch`` applied on the real one-node cluster removes the throttling it found, in two rounds
where its demand was censored.

Two Deployments of busybox pods, scraped by the cluster's Prometheus from the
kubelet's cAdvisor: ``starved`` (2 replicas, each a thread busy about 26 ms of
every 102 ms, about 0.26 core, under a 100m limit) and ``oversized`` (1 replica,
about 0.1 core under a 1-core limit).  Small demands: the machine is shared, and a
busy host starves the pods below their quota (then less is throttled).  After a
few minutes the real CLI (a subprocess, as a user runs it) writes its patches;
the official Python client applies them as strategic-merge patches; after the
rollout the throttled ratio (increase of throttled periods / increase of
periods, cAdvisor through Prometheus, summed over the workload's pods) is
measured again.  ``starved`` is throttled in most periods, so its demand above
the limit was never seen: the first patch only raises it where the next window
sees the demand (throttled in under half of its periods); ``recommend`` runs
again over that window, and its second patch meets the target.

There is no kube-state-metrics on this node: ``recommend`` groups the pods into
their Deployments from the pod names (ReplicaSet hash and suffix), a supported
path that it states in the patch file's header, and reads the limits from cAdvisor's
``container_spec_cpu_quota``.  Patching Deployments needs ``apps`` rights the
sweep's Role (deploy/rbac.yaml) does not grant: the test uses the admin kubeconfig.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
import yaml

from throttlelab.experiment.kubernetes.cadvisor import query
from throttlelab.core.quantities import format_millicores, parse_cores

from .cluster_helpers import scratch_namespace
from .node_cluster import BUSYBOX_IMAGE

pytestmark = [pytest.mark.node, pytest.mark.slow]

#: recommend's default throttle target, and the margin the proof allows above it
TARGET, MARGIN = 0.05, 0.05
#: busybox sh loop iterations of one burst (about 1.1 us each here: 24,000 ~ 26 ms of CPU), and the sleep after it
WORKLOADS = {
    # name: (replicas, limit, request, iterations, sleep us)
    "starved": (2, "100m", "50m", 24_000, 76_000),
    "oversized": (1, "1", "100m", 9_000, 90_000),
}
#: seconds of data before recommend (its --min-history is set below that), and of the measurement after
COLLECT_S, MEASURE_S = 150, 120
#: seconds of the second round's window, under the first patch (12 of recommend's 10-s steps at least)
ROUND2_S = 190


def _deployment(name: str, replicas: int, limit: str, request: str, iterations: int, sleep_us: int) -> dict:
    burst = f"i=0; while [ $i -lt {iterations} ]; do i=$((i+1)); done; usleep {sleep_us}"
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": {
                         "automountServiceAccountToken": False, "terminationGracePeriodSeconds": 1,
                         "containers": [{"name": "main", "image": BUSYBOX_IMAGE, "imagePullPolicy": "Never",
                                         "command": ["/bin/sh", "-c", f"trap 'exit 0' TERM; while :; do {burst}; done"],
                                         "resources": {"limits": {"cpu": limit}, "requests": {"cpu": request}}}]}}}}


def _pods(core, ns: str, app: str) -> list:
    return [p for p in core.list_namespaced_pod(ns, label_selector=f"app={app}").items
            if p.metadata.deletion_timestamp is None]


def _rolled_out(apps, core, ns: str, name: str) -> bool:
    """The Deployment's new template runs in every replica, and no old pod is left."""
    d = apps.read_namespaced_deployment(name, ns)
    s = d.status
    if (s.observed_generation or 0) < d.metadata.generation or (s.updated_replicas or 0) != d.spec.replicas \
            or (s.available_replicas or 0) != d.spec.replicas or (s.replicas or 0) != d.spec.replicas:
        return False
    return len(core.list_namespaced_pod(ns, label_selector=f"app={name}").items) == d.spec.replicas


def _ratio(prometheus: str, ns: str, pods: list[str], start: float, end: float) -> dict:
    """Throttled periods / periods over ``[start, end]``, summed over the pods (cAdvisor counters, each pod's
    increase = last - first sample in the window: the pods are not restarted)."""
    sel = f'namespace="{ns}",container="main",pod=~"{"|".join(pods)}",id!=""'  # cAdvisor's, not /metrics/resource
    w = f"{int(end - start)}s"
    out = {}
    for key, metric in (("periods", "container_cpu_cfs_periods_total"),
                        ("throttled", "container_cpu_cfs_throttled_periods_total"),
                        ("cpu_seconds", "container_cpu_usage_seconds_total")):
        res = query(prometheus, f"sum(max_over_time({metric}{{{sel}}}[{w}]) - min_over_time({metric}{{{sel}}}[{w}]))",
                    at=end)
        out[key] = float(res[0]["value"][1]) if res else 0.0
    out["ratio"] = out["throttled"] / out["periods"] if out["periods"] else None
    out["cores"] = out["cpu_seconds"] / (end - start)
    return out


def _resources(apps, ns: str, name: str) -> dict:
    c = apps.read_namespaced_deployment(name, ns).spec.template.spec.containers[0]
    return {"limit": (c.resources.limits or {}).get("cpu"), "request": (c.resources.requests or {}).get("cpu")}


def _recommend(prometheus: str, ns: str, fmt: str, end: int, since: str = "10m") -> tuple[str, str]:
    """The real CLI: 10-s steps (5 scrapes) and a 2-minute minimum history instead of its defaults
    (whole minutes, 24 pod-hours), which would call a few minutes "too little data"."""
    cmd = [sys.executable, "-m", "throttlelab", "recommend", "--prometheus", prometheus, "--namespace", ns,
           "--since", since, "--end", str(end), "--step", "10s", "--min-history", "2m", "--format", fmt]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    return res.stdout, res.stderr


def _wait(what: str, ok, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not ok():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(1)


def test_applied_patches_remove_the_throttling_on_the_real_node(node_cluster):
    from kubernetes import client, config

    api = config.new_client_from_config(config_file=str(node_cluster.kubeconfig))  # admin: apps patches
    core, apps = client.CoreV1Api(api), client.AppsV1Api(api)
    ns = scratch_namespace(core, "tl-patch")
    try:
        for name, args in WORKLOADS.items():
            apps.create_namespaced_deployment(ns, _deployment(name, *args))
        _wait("the pods to run", lambda: all(_rolled_out(apps, core, ns, n) for n in WORKLOADS), 120)
        started = time.time()
        before_res = {n: _resources(apps, ns, n) for n in WORKLOADS}
        time.sleep(COLLECT_S)

        before_pods = {n: [p.metadata.name for p in _pods(core, ns, n)] for n in WORKLOADS}
        t = time.time()
        before = {n: _ratio(node_cluster.prometheus, ns, before_pods[n], started + 10, t) for n in WORKLOADS}
        text, stderr = _recommend(node_cluster.prometheus, ns, "patch", int(t))
        print(f"\n--- recommend --format patch ({time.time() - t:.0f} s):\n{text}--- stderr:\n{stderr}")
        docs = [d for d in yaml.safe_load_all(text) if d]
        rows = {r["workload"]: r for r in json.loads(_recommend(node_cluster.prometheus, ns, "json", int(t))[0])}
        print(json.dumps({n: {k: r[k] for k in ("decision", "current_limit_cores", "recommended_request_cores",
                                                 "recommended_limit_cores", "recommended_limit_low",
                                                 "recommended_limit_high", "usage_p95_cores", "demand_p95_cores",
                                                 "throttled_ratio", "predicted_throttled_ratio", "pods", "reason")}
                          for n, r in rows.items()}, indent=1))
        # no kube-state-metrics here: the grouping is inferred from the pod names, and the patch file says so
        assert "# Workloads inferred from pod names without kube-state-metrics' kube_pod_owner" in text, text
        by_name = {d["metadata"]["name"]: d for d in docs}
        assert set(by_name) == set(WORKLOADS), text  # one patch per Deployment, not per pod
        for name, d in by_name.items():
            assert (d["apiVersion"], d["kind"], d["metadata"]["namespace"]) == ("apps/v1", "Deployment", ns), d
            [c] = d["spec"]["template"]["spec"]["containers"]
            r = rows[name]  # the patch holds the JSON's values (same window), for the one container of both pods
            assert (r["workload_kind"], r["container"], r["pods"]) == ("Deployment", "main", WORKLOADS[name][0]), r
            assert c == {"name": "main", "resources": {
                "requests": {"cpu": format_millicores(r["recommended_request_cores"])},
                "limits": {"cpu": format_millicores(r["recommended_limit_cores"])}}}, (c, r)

        def apply(docs_by_name, names):
            for name in names:
                apps.patch_namespaced_deployment(name, ns, docs_by_name[name],
                                                 _content_type="application/strategic-merge-patch+json")
            _wait("the rollout", lambda: all(_rolled_out(apps, core, ns, n) for n in WORKLOADS), 180)
            return time.time()

        rolled = apply(by_name, list(by_name))
        after_res = {n: _resources(apps, ns, n) for n in WORKLOADS}
        starved, oversized = "starved", "oversized"
        assert before[starved]["ratio"] > 0.5 and rows[starved]["demand_censored"], before  # about twice its limit
        assert "run again" in rows[starved]["reason"], rows[starved]["reason"]
        assert parse_cores(after_res[starved]["limit"]) > parse_cores(before_res[starved]["limit"]), after_res
        assert parse_cores(after_res[oversized]["limit"]) < parse_cores(before_res[oversized]["limit"]), after_res
        time.sleep(ROUND2_S)  # round two: a window under the first patch, where the demand shows
        t2 = time.time()
        round1 = {n: _ratio(node_cluster.prometheus, ns, [p.metadata.name for p in _pods(core, ns, n)], rolled + 5, t2)
                  for n in WORKLOADS}
        assert round1[starved]["ratio"] < 0.5, round1  # the first round made its demand observable
        text2, _ = _recommend(node_cluster.prometheus, ns, "patch", int(t2), since="3m")
        print(f"\n--- round two:\n{text2}")
        second = {d["metadata"]["name"]: d for d in yaml.safe_load_all(text2) if d}
        rolled = apply(second, [n for n in second if n == starved])
        final_res = {n: _resources(apps, ns, n) for n in WORKLOADS}
        time.sleep(MEASURE_S)
        after_pods = {n: [p.metadata.name for p in _pods(core, ns, n)] for n in WORKLOADS}
        assert not any(set(after_pods[n]) & set(before_pods[n]) for n in WORKLOADS), after_pods
        after = {n: _ratio(node_cluster.prometheus, ns, after_pods[n], rolled + 5, time.time()) for n in WORKLOADS}

        for n in WORKLOADS:  # the figures, for the record (pytest -s)
            b, a = before[n], after[n]
            print(f"{n:>9}: limit {before_res[n]['limit']} -> {after_res[n]['limit']} -> {final_res[n]['limit']}; "
                  f"throttled {b['ratio']:.1%} ({b['throttled']:.0f}/{b['periods']:.0f} periods, {b['cores']:.2f} "
                  f"cores) -> {round1[n]['ratio']:.1%} -> {a['ratio']:.1%} ({a['throttled']:.0f}/{a['periods']:.0f}, "
                  f"{a['cores']:.2f} cores)")
        for n in WORKLOADS:
            assert after[n]["periods"] > 100, after[n]  # it did run (10 periods a second while busy)
            assert after[n]["ratio"] <= TARGET + MARGIN, (n, before[n], after[n], final_res[n])
    finally:
        core.delete_namespace(ns, grace_period_seconds=0)
        deadline = time.monotonic() + 120  # gone before the next test (or cluster-down) looks
        while any(x.metadata.name == ns for x in core.list_namespace().items) and time.monotonic() < deadline:
            time.sleep(1)
        api.close()
