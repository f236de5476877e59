"""Backend options, pod manifests and pod-status reading (no cluster needed)."""

from __future__ import annotations

import pytest

from throttlelab.errors import SpecError
from throttlelab.experiment.kubernetes import labels as lb
from throttlelab.experiment.kubernetes import manifests as mf
from throttlelab.experiment.kubernetes.options import parse_options
from throttlelab.experiment.kubernetes.pod_status import pod_state, scheduling_message


def test_options_defaults_and_validation():
    o = parse_options({"namespace": "lab", "nodes": ["a", "b", "a"], "max_parallel": 2, "memory_limit": "1Gi"})
    assert (o.namespace, o.nodes, o.max_parallel, o.memory_limit) == ("lab", ("a", "b"), 2, "1Gi")
    with pytest.raises(SpecError, match=r"s.yaml: key 'kubernetes.namespace'"):
        parse_options({"namespace": "Bad_NS"}, source="s.yaml")
    with pytest.raises(SpecError, match="kubernetes.bogus': unknown key"):
        parse_options({"bogus": 1})
    with pytest.raises(SpecError, match="kubernetes.command"):
        parse_options({"command": "x {cores}"})
    with pytest.raises(SpecError, match="in-cluster config takes no context"):
        parse_options({"in_cluster": True, "context": "c"})


def test_run_pod_has_limits_labels_sampler_and_pinning():
    o = parse_options({"namespace": "lab", "image": "img:1", "node_selector": {"pool": "bench"},
                       "memory_limit": "512Mi"})
    argv = mf.workload_argv("command", "ffmpeg -threads {threads} -x {nproc}", "4", 1.5)
    assert argv == ["ffmpeg", "-threads", "4", "-x", "2"]
    pod = mf.run_pod(name="tl-x", experiment="Exp_1", run_id="l1500m-t4-c0-r0-abc", session="s1", options=o,
                     argv=argv, limit_cores=1.5, threads="4", sampling_interval_s=0.5, node="node-a")
    meta, spec = pod["metadata"], pod["spec"]
    assert meta["labels"] == {lb.MANAGED_BY: "throttlelab", lb.EXPERIMENT: "Exp_1", lb.SESSION: "s1",
                              lb.ROLE: "run", lb.RUN_ID: "l1500m-t4-c0-r0-abc"}
    c = spec["containers"][0]
    assert c["resources"] == {"limits": {"cpu": "1500m", "memory": "512Mi"},
                              "requests": {"cpu": "1500m", "memory": "512Mi"}}
    assert c["command"] == ["/bin/sh", "/throttlelab/bin/sampler.sh"] and c["args"] == argv
    assert spec["restartPolicy"] == "Never" and spec["automountServiceAccountToken"] is False
    assert spec["nodeSelector"] == {"pool": "bench"}
    term = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]
    assert term["matchFields"][0]["values"] == ["node-a"]
    assert spec["volumes"][0]["configMap"]["name"] == mf.sampler_configmap_name("Exp_1", "s1")


def test_unlimited_run_has_no_cpu_resources_and_builtin_workloads():
    o = parse_options({})
    pod = mf.run_pod(name="p", experiment="e", run_id="r", session="s", options=o, argv=["true"],
                     limit_cores=None, threads="auto", sampling_interval_s=1, node=None)
    assert "resources" not in pod["spec"]["containers"][0] or not pod["spec"]["containers"][0]["resources"]
    assert "affinity" not in pod["spec"]
    burner = mf.workload_argv("burner", None, "3", 0.5, {"iterations": 10})
    assert burner[:2] == ["/bin/sh", "-c"] and "-lt 3" in burner[2] and "-lt 10" in burner[2]
    assert "-threads" not in mf.workload_argv("ffmpeg", None, "auto", 2.0)
    assert mf.workload_argv("ffmpeg", None, "4", 2.0, {"rate": 25}).count("-threads") == 2
    with pytest.raises(SpecError, match="needs 'kubernetes.command'"):
        mf.workload_argv("go", None, "1", 1.0)


def test_names_and_label_values_are_valid():
    long = "A" * 80 + "_"
    v = lb.label_value(long)
    assert len(v) <= 63 and v[0].isalnum() and v[-1].isalnum()
    name = lb.pod_name("l500m-t2-c0-r0-" + "x" * 80)
    assert len(name) <= 63 and name == name.lower()
    assert lb.selector("e", "s") == "app.kubernetes.io/managed-by=throttlelab,throttlelab.io/experiment=e,throttlelab.io/session=s"


def _pod(phase="Pending", **status):
    return {"spec": {"nodeName": status.pop("node", None)}, "status": {"phase": phase, **status}}


def test_pod_state_reads_the_failure_reasons():
    unsched = _pod(conditions=[{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                                "message": "0/1 nodes are available: 1 Insufficient cpu."}])
    assert pod_state(unsched).unschedulable == "0/1 nodes are available: 1 Insufficient cpu."
    pull = _pod(node="n", containerStatuses=[{"name": "workload", "state": {"waiting": {
        "reason": "ImagePullBackOff", "message": "Back-off pulling image \"nope:1\""}}}])
    assert pod_state(pull).failure().startswith("ImagePullBackOff: Back-off pulling image")
    oom = _pod("Failed", node="n", containerStatuses=[{"name": "workload", "state": {"terminated": {
        "exitCode": 137, "reason": "OOMKilled", "startedAt": "2026-02-06T14:24:00Z",
        "finishedAt": "2026-02-06T14:24:09Z"}}}])
    s = pod_state(oom, "workload")
    assert s.terminal and s.failure().startswith("OOMKilled") and (s.finished_at - s.started_at).seconds == 9
    bad = _pod("Failed", node="n", containerStatuses=[{"name": "workload", "state": {"terminated": {
        "exitCode": 2, "reason": "Error"}}}])
    assert pod_state(bad).failure() == "exit code 2 (Error)"
    ok = _pod("Succeeded", node="n", containerStatuses=[{"name": "workload", "state": {"terminated": {
        "exitCode": 0, "reason": "Completed"}}}])
    assert pod_state(ok).failure() is None
    events = [{"reason": "Scheduled", "message": "x"},
              {"reason": "FailedScheduling", "message": "old", "lastTimestamp": "2026-01-01T00:00:00Z"},
              {"reason": "FailedScheduling", "message": "new", "eventTime": "2026-01-01T00:00:05.000000Z"}]
    assert scheduling_message(events) == "new"
