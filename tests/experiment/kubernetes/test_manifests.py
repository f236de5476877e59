"""Pod manifests of the Kubernetes backend: limits, labels, sampler, pinning (no cluster needed)."""

from __future__ import annotations

import pytest

from throttlelab.errors import SpecError
from throttlelab.experiment.kubernetes import labels as lb
from throttlelab.experiment.kubernetes import manifests as mf
from throttlelab.experiment.kubernetes.options import parse_options


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
