"""The service workload's pod side: the Go service's /cgroup and /quit endpoints, and a service run on a
fake (kwok) node failing with its reason.  The real pods are in test_node.py (``-m node``)."""

from __future__ import annotations

import subprocess
import time

import pytest

from throttlelab.errors import SpecError
from throttlelab.experiment.kubernetes.service_pod import cgroup_counters, http_json
from throttlelab.experiment.registry import get_backend
from throttlelab.experiment.sweeps.run_sweep import run_sweep

from .cluster_helpers import labelled, make_spec


@pytest.fixture
def local_service():
    """The built-in Go service (the binary the local backend uses) on a loopback port."""
    from throttlelab.experiment.local_cgroup.workloads import go_exe, go_service

    if go_exe() is None:
        pytest.skip("the Go toolchain is not installed")
    proc = subprocess.Popen([str(go_service()), "-addr", "127.0.0.1:0", "-work", "1"], stdout=subprocess.PIPE,
                            text=True, env={"GOMAXPROCS": "3", "PATH": "/usr/bin:/bin"})
    line = proc.stdout.readline()
    assert line.startswith("listening addr="), line
    yield proc, "http://" + line.split()[1].split("=", 1)[1]
    if proc.poll() is None:
        proc.kill()
        proc.wait(10)


def test_the_service_reports_its_cgroup_counters_and_quits_on_post(local_service):
    proc, base = local_service
    assert http_json(f"{base}/work?units=0") == {"gomaxprocs": 3, "units": 0}
    a = cgroup_counters(base)
    http_json(f"{base}/work?units=200")  # about 20 ms of CPU
    b = cgroup_counters(base)
    # outside a container /sys/fs/cgroup is the machine's root cgroup: its usage only grows
    assert a.usage_ns > 0 and b.cpu_seconds >= a.cpu_seconds and b.nr_periods >= a.nr_periods >= 0
    with pytest.raises(OSError):  # GET does not stop it (405 is an HTTPError, an OSError)
        http_json(f"{base}/quit")
    assert proc.poll() is None
    assert http_json(f"{base}/quit", method="POST") == {"quit": True}
    assert proc.wait(10) == 0


def test_http_json_refuses_a_target_outside_this_machine():
    with pytest.raises(SpecError, match="non-loopback"):
        http_json("http://192.0.2.77:8080/cgroup")


@pytest.mark.kube
def test_a_service_pod_that_cannot_be_reached_fails_with_its_reason(control_plane, admin, namespace, tmp_path):
    """kwok runs no container: the pod is Running at an address of no interface of this machine (or, if kwok's
    stages are quicker than the runner, it has already ended): a failed row saying which, nothing left."""
    spec = make_spec(tmp_path, namespace, control_plane.kubeconfig)
    spec = spec.replace(limits=(0.5,), threads=("1",))
    from throttlelab.experiment.sweeps.spec_loading import spec_from_mapping

    spec = spec_from_mapping({**spec.to_mapping(), "workload": {"kind": "service", "ready_timeout_s": 2,
                                                              "window_s": 1, "warmup_s": 0}})
    t0 = time.monotonic()
    row = run_sweep(spec, get_backend("kubernetes"), progress=False).row(0, named=True)
    assert row["status"] == "failed", row
    assert row["error"].startswith("the service pod ") and ("not on a pod network of this machine" in row["error"]
                                                           or "ended before the load generator" in row["error"]), row
    assert time.monotonic() - t0 < 60
    assert labelled(admin, namespace) == []
