"""Tests of throttlelab.report.recommend.recommend_patch: the patches equal the JSON, and a real API server accepts them.

The recommendations are those of the synthetic cluster (tests/conftest.py) read through a real Prometheus; the
server-side dry run uses the locally built control plane (etcd, kube-apiserver) of the Kubernetes backend's tests.
"""

from __future__ import annotations

import dataclasses
import doctest
import json

import pytest
import yaml

import throttlelab.report.recommend.recommend_patch as mod
from tests.conftest import CLUSTER_HOURS
from tests.experiment.kubernetes.conftest import control_plane  # noqa: F401  (the fixture, started once a session)
from throttlelab.analysis.rightsizing.recommendation import Settings
from throttlelab.analysis.rightsizing.rightsizing_parallel import rightsize_all
from tests.analysis.rightsizing.read_and_rightsize import rightsize_request
from throttlelab.report.recommend_cli import render
from throttlelab.core.quantities import parse_cores
from throttlelab.report.recommend.recommend_patch import CONTENT_TYPE, containers, patch_yaml


def test_doctests_run():
    res = doctest.testmod(mod)
    assert res.attempted >= 2 and res.failed == 0


@pytest.fixture(scope="module")
def runs(prometheus_cluster):
    """The cluster's right-sizing with the default policy, and the same data with the requests-only policy."""
    url, _, end = prometheus_cluster
    run = rightsize_request(prometheus_url=url, since=f"{CLUSTER_HOURS}h", end=str(end))
    none = Settings(limit_policy="none")
    return run, dataclasses.replace(run, settings=none, recommendations=rightsize_all(run.fetched.workloads, none))


def _docs(text: str) -> list[dict]:
    return [d for d in yaml.safe_load_all(text) if d]


def _rows(run) -> dict:
    return {(r["namespace"], r["workload_kind"], r["workload"], r["container"]): r
            for r in json.loads(render(run, "json"))}


@pytest.mark.prometheus
def test_the_values_equal_the_json_and_kept_or_unpatchable_rows_get_none(runs):
    run, _ = runs
    text = render(run, "patch")
    rows = _rows(run)
    docs = _docs(text)
    seen = set()
    for d in docs:
        assert d["apiVersion"] == {"CronJob": "batch/v1"}.get(d["kind"], "apps/v1")
        for c in containers(d):
            key = (d["metadata"]["namespace"], d["kind"], d["metadata"]["name"], c["name"])
            r = rows[key]
            assert parse_cores(c["resources"]["requests"]["cpu"]) == r["recommended_request_cores"]
            assert parse_cores(c["resources"]["limits"]["cpu"]) == r["recommended_limit_cores"]
            assert set(c["resources"]) == {"requests", "limits"} and set(c["resources"]["limits"]) == {"cpu"}
            seen.add(key)
    changed = {k for k, r in rows.items() if r["decision"] not in ("keep", "too little data")
               and k[1] in ("Deployment", "StatefulSet", "DaemonSet", "CronJob")}
    assert seen == changed and len(docs) == len({k[:3] for k in changed}) == 5
    cron = next(d for d in docs if d["kind"] == "CronJob")
    assert "template" not in cron["spec"] and cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"]
    web = next(d for d in docs if d["metadata"]["name"] == "web")
    assert [c["name"] for c in containers(web)] == ["app", "envoy"]  # one document per workload
    # a bare Pod and a Job: no patch, and their rows say so
    assert "ops/Pod/debug-shell/shell: no patch (Pod)" in text and not any(d["metadata"]["namespace"] == "ops" for d in docs)
    assert "no pod template to patch" in rows[("ops", "Pod", "debug-shell", "shell")]["reason"]
    assert "ops/Job/migrate-schema/migrate: too little data, not patched" in text


@pytest.mark.prometheus
def test_requests_only_removes_the_cpu_limit_and_warns_about_limitranges(runs):
    _, none = runs
    text = render(none, "patch")
    assert "limits: {cpu: null}" in text and "LimitRange" in text
    docs = _docs(text)
    assert docs and all(c["resources"]["limits"] == {"cpu": None} for d in docs for c in containers(d))
    assert all("LimitRange" in r.reason for r in none.recommendations if r.decision == "no limit (policy)")


def test_nothing_to_patch_says_so():
    assert patch_yaml([], "target").endswith("# nothing to patch\n")


# --- a server-side dry run on a real API server -------------------------------------------------------------------

def _manifest(kind: str, name: str, namespace: str, cons: list[tuple[str, float | None, float | None]]) -> dict:
    """A minimal workload of ``kind`` whose containers have these (name, cpu request, cpu limit) and 256Mi memory."""
    def res(req, lim):
        out = {"requests": {"memory": "256Mi"}, "limits": {"memory": "256Mi"}}
        if req is not None:
            out["requests"]["cpu"] = f"{round(req * 1000)}m"
        if lim is not None:
            out["limits"]["cpu"] = f"{round(lim * 1000)}m"
        return out

    labels = {"app": name}
    pod = {"metadata": {"labels": labels},
           "spec": {"containers": [{"name": c, "image": "registry.local/x:1", "resources": res(q, lim)}
                                   for c, q, lim in cons]}}
    if kind == "CronJob":
        pod["spec"]["restartPolicy"] = "OnFailure"
        spec = {"schedule": "0 */2 * * *", "jobTemplate": {"spec": {"template": pod}}}
    else:
        spec = {"selector": {"matchLabels": labels}, "template": pod}
        if kind == "StatefulSet":
            spec["serviceName"] = name
    return {"apiVersion": "batch/v1" if kind == "CronJob" else "apps/v1", "kind": kind,
            "metadata": {"name": name, "namespace": namespace}, "spec": spec}


def _apis(cp):
    from kubernetes import client, config

    api = config.new_client_from_config(config_file=str(cp.kubeconfig))
    apps, batch = client.AppsV1Api(api), client.BatchV1Api(api)
    calls = {"Deployment": (apps.create_namespaced_deployment, apps.patch_namespaced_deployment),
             "StatefulSet": (apps.create_namespaced_stateful_set, apps.patch_namespaced_stateful_set),
             "DaemonSet": (apps.create_namespaced_daemon_set, apps.patch_namespaced_daemon_set),
             "CronJob": (batch.create_namespaced_cron_job, batch.patch_namespaced_cron_job)}
    return api, client.CoreV1Api(api), calls


@pytest.mark.kube
@pytest.mark.prometheus
def test_the_patches_pass_a_server_side_dry_run_and_set_the_json_values(runs, control_plane):  # noqa: F811
    """Each workload is created as it runs now (CPU and memory), each patch sent as a strategic merge with
    dryRun=All: the object the server would store has the JSON's CPU request and limit and its memory unchanged."""
    for run in runs:
        rows = _rows(run)
        docs = _docs(render(run, "patch"))
        api, core, calls = _apis(control_plane)
        ns = f"shop-{run.settings.limit_policy}"
        try:
            core.create_namespace({"metadata": {"name": ns}})
            by_workload: dict[tuple, list] = {}
            for (n, kind, name, c), r in rows.items():
                if kind in calls:
                    by_workload.setdefault((kind, name), []).append((c, r["current_request_cores"],
                                                                     r["current_limit_cores"]))
            for (kind, name), cons in by_workload.items():
                calls[kind][0](ns, _manifest(kind, name, ns, cons))
            for d in docs:
                d["metadata"]["namespace"] = ns
                kind, name = d["kind"], d["metadata"]["name"]
                got = calls[kind][1](name, ns, d, dry_run="All", _content_type=CONTENT_TYPE)
                spec = got.spec.job_template.spec.template.spec if kind == "CronJob" else got.spec.template.spec
                for c in spec.containers:
                    r = rows[("shop", kind, name, c.name)]
                    patched = any(p["name"] == c.name for p in containers(d))
                    want_req = r["recommended_request_cores"] if patched else r["current_request_cores"]
                    want_lim = r["recommended_limit_cores"] if patched else r["current_limit_cores"]
                    assert parse_cores(c.resources.requests["cpu"]) == want_req, (kind, name, c.name)
                    assert (parse_cores(c.resources.limits["cpu"]) if "cpu" in c.resources.limits else None) == want_lim
                    assert c.resources.requests["memory"] == c.resources.limits["memory"] == "256Mi"
        finally:
            core.delete_namespace(ns)
            api.close()
