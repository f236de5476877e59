"""Latency points as pods on the one-node cluster: service Deployment + Service, stress-pod neighbours.

The load generator runs on this machine.

:class:`PodPlacement` has the shape of :class:`throttlelab.experiment.latency.latency_placement.Placement`
(``service``, ``neighbour``, ``counters``), so a latency point runs the same way
on ``backend="kubernetes"`` and gives the same rows.  The service pod runs the
project's own service with this machine's Python (a read-only ``hostPath`` of
``/`` and ``chroot``: no Python image is needed) in its own network namespace,
with the point's CPU limit (= request); the load generator reaches it at the
pod address the Service's endpoints list.  Counters are read from the service
container's cgroup on this machine (the kubelet's ``kubepods`` tree).
Everything a point creates carries the label ``throttlelab.io/run-id`` and is
deleted when it ends.
"""

from __future__ import annotations

import os
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from throttlelab.errors import EnvironmentProblem
from throttlelab.experiment.local_cgroup.cgroups import Counters
from throttlelab.ingest.cgroup import read_cpu_files

from . import manifests as mf
from .labels import dns_name

PORT = 8080
NAMESPACE = "throttlelab"
IMAGE = "throttlelab.local/busybox:1"
CGROUP = Path("/sys/fs/cgroup")


def _kubeconfig() -> str:
    cache = Path(os.environ.get("THROTTLELAB_CACHE") or Path.home() / ".cache" / "throttlelab")
    state = Path(os.environ.get("THROTTLELAB_CLUSTER_DIR") or cache / "cluster")
    return os.environ.get("THROTTLELAB_NODE_KUBECONFIG") or str(state / "admin.kubeconfig")


def container_cgroup(pod_uid: str, container_id: str) -> tuple[Path, Path] | None:
    """The cpu and cpuacct folders of a container (cgroup v1, cgroupfs driver), if present."""
    cid = container_id.split("://", 1)[-1]
    for qos in ("", "burstable", "besteffort"):
        rel = Path("kubepods", qos, f"pod{pod_uid}", cid)
        if (CGROUP / "cpu" / rel).is_dir():
            return CGROUP / "cpu" / rel, CGROUP / "cpuacct" / rel
    return None


def read_counters(dirs: tuple[Path, Path]) -> Counters:
    """The counters of a container's cgroup v1 folders (cpu and cpuacct); ``FileNotFoundError`` once they are gone."""
    cpu, acct = dirs
    files = read_cpu_files(cpu, acct)
    if files.cpu_stat is None or files.quota_period is None or files.usage_ns is None:
        raise FileNotFoundError(f"{cpu}: the container's cgroup files are gone")
    quota, period = (x.strip() for x in files.quota_period)
    return Counters(files.cpu_stat, files.usage_ns, f"{quota} {period}")


@dataclass
class PodService:
    """The service as a one-replica Deployment plus a Service; same interface as ServiceProcess."""

    placement: Any  # the pod_placement.PodPlacement that made it (that module imports this one)
    config: Any
    url: str = ""
    pod: Any = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return dns_name(f"tl-svc-{self.placement.run_id}", 50)

    def command(self) -> list[str]:
        c = self.config
        cmd = ["chroot", "/host", sys.executable, "-m", "throttlelab.experiment.latency.service", "--in-pod",
               "--port", str(PORT), "--max-workers", str(c.max_workers), "--heavy-elements", str(c.heavy_elements),
               "--light-elements", str(c.light_elements), "--score-elements", str(c.score_elements)]
        return cmd + (["--semaphore", str(c.semaphore)] if c.semaphore else [])

    def __enter__(self) -> PodService:
        p = self.placement
        labels = {**p.labels, "app": self.name}
        cpu = p.cpu_limit_cores
        res = {"limits": {"cpu": mf.cpu_quantity(cpu)}, "requests": {"cpu": mf.cpu_quantity(cpu)}} if cpu else {}
        container = {
            "name": "service", "image": IMAGE, "imagePullPolicy": "Never", "command": self.command(),
            "env": [{"name": k, "value": v} for k, v in {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                                                         "MKL_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1",
                                                         "HOME": "/tmp"}.items()],
            "ports": [{"containerPort": PORT}], "resources": res,
            "readinessProbe": {"httpGet": {"path": "/health", "port": PORT}, "periodSeconds": 1},
            "volumeMounts": [{"name": "host", "mountPath": "/host", "readOnly": True}],
        }
        deploy = {
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": self.name, "labels": labels},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": self.name}}, "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [container], "automountServiceAccountToken": False,
                         "terminationGracePeriodSeconds": 10, "nodeName": p.node,
                         "volumes": [{"name": "host", "hostPath": {"path": "/", "type": "Directory"}}]}}},
        }
        svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": self.name, "labels": labels},
               "spec": {"selector": {"app": self.name}, "ports": [{"port": PORT, "targetPort": PORT}]}}
        p.apps.create_namespaced_deployment(p.namespace, deploy)
        p.core.create_namespaced_service(p.namespace, svc)
        self.url = f"http://{self._endpoint(timeout_s=120)}:{PORT}"
        with urllib.request.urlopen(self.url + "/health", timeout=5) as r:
            r.read()
        return self

    def _endpoint(self, timeout_s: float) -> str:
        """The ready pod address the Service's endpoints list (its selector found the pod)."""
        p = self.placement
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            slices = p.discovery.list_namespaced_endpoint_slice(
                p.namespace, label_selector=f"kubernetes.io/service-name={self.name}").items
            for s in slices:
                for ep in s.endpoints or []:
                    if ep.conditions and ep.conditions.ready and ep.addresses:
                        pods = p.core.list_namespaced_pod(p.namespace, label_selector=f"app={self.name}").items
                        self.pod = next((x for x in pods if x.status.pod_ip == ep.addresses[0]), None)
                        return ep.addresses[0]
            time.sleep(0.3)
        raise EnvironmentProblem(f"service pod {self.name} not ready after {timeout_s:g} s")

    def __exit__(self, *exc) -> None:
        pass  # stopped by stop() (run_point calls it) or by the placement's cleanup

    def alive(self) -> bool:
        if self.pod is None:
            return False
        pod = self.placement.core.read_namespaced_pod(self.pod.metadata.name, self.placement.namespace)
        st = (pod.status.container_statuses or [None])[0]
        return bool(st and st.state.running and not st.restart_count)

    def stop(self) -> int | None:
        self.placement.delete_all()
        return 0

    def cgroup(self) -> tuple[Path, Path] | None:
        if self.pod is None:
            return None
        pod = self.placement.core.read_namespaced_pod(self.pod.metadata.name, self.placement.namespace)
        st = (pod.status.container_statuses or [None])[0]
        return container_cgroup(pod.metadata.uid, st.container_id) if st and st.container_id else None
