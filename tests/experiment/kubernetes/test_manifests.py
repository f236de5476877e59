"""Pod manifests of the Kubernetes backend: limits, labels, sampler, pinning (no cluster needed)."""

from __future__ import annotations

import pytest

from throttlelab.errors import SpecError
from throttlelab.experiment.kubernetes import labels as lb
from throttlelab.experiment.kubernetes import manifests as mf
from throttlelab.experiment.sweeps.kubernetes_options import parse_options


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


def test_a_service_run_pod_runs_the_builtin_go_service_with_gomaxprocs():
    o = parse_options({"image": "busybox:1"})
    argv = mf.workload_argv("service", None, "4", 0.5, {"work": 50})
    assert argv == [mf.SERVICE_BIN, "-addr", f"0.0.0.0:{mf.SERVICE_PORT}", "-work", "50"]
    assert mf.workload_argv("service", None, "auto", None)[-1] == "30"  # the local backend's default work
    with pytest.raises(SpecError, match="'work' must be a number"):
        mf.workload_argv("service", None, "1", 1.0, {"work": "lots"})
    assert mf.service_env("4") == {"GOMAXPROCS": "4"} and mf.service_env("auto") == {}  # auto: the runtime's choice
    pod = mf.run_pod(name="p", experiment="e", run_id="r", session="s", options=o, argv=argv, limit_cores=0.5,
                     threads="4", sampling_interval_s=1, image=mf.service_image(), extra_env=mf.service_env("4"),
                     port=mf.SERVICE_PORT)
    c = pod["spec"]["containers"][0]
    assert c["image"] == mf.service_image() != o.image
    assert {"name": "GOMAXPROCS", "value": "4"} in c["env"]
    assert c["ports"] == [{"containerPort": mf.SERVICE_PORT, "protocol": "TCP"}]
    assert c["resources"]["limits"]["cpu"] == "500m" and c["args"] == argv  # wrapped by the sampler as any run
    plain = mf.run_pod(name="p", experiment="e", run_id="r", session="s", options=o, argv=["true"],
                       limit_cores=None, threads="auto", sampling_interval_s=1)["spec"]["containers"][0]
    assert "ports" not in plain and not any(e["name"] == "GOMAXPROCS" for e in plain["env"])


def test_the_service_image_tag_is_the_one_cluster_up_builds():
    """The backend asks for the image that scripts/cluster imports: same source, same hash."""
    from .node_cluster import CLUSTER_DIR  # noqa: F401 - puts scripts/cluster on sys.path
    from tlnode import images

    assert mf.service_image() == images.service_tag()
    assert mf.service_image().startswith("throttlelab.local/service:") and len(mf.service_image().split(":")[1]) == 10


def test_the_burst_image_is_named_by_its_source_like_the_clusters_build():
    from .node_cluster import CLUSTER_DIR  # noqa: F401 - puts scripts/cluster on sys.path
    from tlnode import images

    assert mf.burst_image() == images.tool_tag("burst") and mf.burst_image().startswith("throttlelab.local/burst:")
    assert mf.burst_image() != mf.service_image()
