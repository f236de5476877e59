"""Where a latency point runs on the one-node cluster: its service pod, its stress pods, its counters.

:class:`PodPlacement` is the ``backend="kubernetes"`` counterpart of
:class:`throttlelab.experiment.latency.latency_placement.Placement` (same methods); see
:mod:`.latency_pods` for the service pod.  It talks to the cluster of
``make cluster-up`` with its admin kubeconfig (``$THROTTLELAB_NODE_KUBECONFIG``
overrides), namespace ``throttlelab``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from throttlelab.core.quantities import parse_cores
from throttlelab.errors import EnvironmentProblem

from . import manifests as mf
from .latency_pods import IMAGE, NAMESPACE, PodService, _kubeconfig, container_cgroup, read_counters
from throttlelab.experiment.sweeps.kubernetes_options import KubernetesOptions

RUN_LABEL = "throttlelab.io/run-id"


@dataclass
class StressPods:
    """A noisy neighbour: one stress pod with ``workers`` busy loops under ``share`` x node CPUs."""

    placement: PodPlacement
    share: float
    workers: int
    mode: str = "pod"
    cpu_seconds: float | None = None
    _name: str | None = field(default=None, repr=False)

    def __enter__(self) -> StressPods:
        if self.share <= 0 or self.workers <= 0:
            self.mode = "none"
            return self
        p = self.placement
        self._name = f"tl-stress-{p.run_id}"[:60]
        opts = KubernetesOptions(namespace=p.namespace, stress_image=IMAGE, image_pull_policy="Never")
        body = mf.stress_pod(name=self._name, experiment="latency", run_id=p.run_id, session="latency",
                             options=opts, limit_cores=self.share * p.node_cpus, workers=self.workers, node=p.node)
        body["metadata"]["labels"][RUN_LABEL] = p.run_id
        p.core.create_namespaced_pod(p.namespace, body)
        deadline = time.monotonic() + 60
        while p.core.read_namespaced_pod(self._name, p.namespace).status.phase != "Running":
            if time.monotonic() > deadline:
                raise EnvironmentProblem(f"stress pod {self._name} not running after 60 s")
            time.sleep(0.2)
        return self

    def __exit__(self, *exc) -> None:
        if self._name is None:
            return
        p = self.placement
        try:
            pod = p.core.read_namespaced_pod(self._name, p.namespace)
            st = (pod.status.container_statuses or [None])[0]
            dirs = container_cgroup(pod.metadata.uid, st.container_id) if st and st.container_id else None
            if dirs:
                self.cpu_seconds = read_counters(dirs).cpu_seconds
        except Exception:  # noqa: BLE001 - the neighbour's CPU is informative only
            pass
        p.core.delete_namespaced_pod(self._name, p.namespace, grace_period_seconds=0)


@dataclass
class PodPlacement:
    """The service pod, stress pods and counters of one latency point on the cluster."""

    run_id: str
    cpu_limit_cores: float | None
    namespace: str = NAMESPACE
    node: str = "throttlelab-node"
    node_cpus: float = 0.0
    api: Any = None
    core: Any = None
    apps: Any = None
    discovery: Any = None
    _service: PodService | None = field(default=None, repr=False)

    @property
    def labels(self) -> dict[str, str]:
        return {"app.kubernetes.io/managed-by": "throttlelab", RUN_LABEL: self.run_id}

    def __enter__(self) -> PodPlacement:
        from kubernetes import client, config

        path = _kubeconfig()
        try:
            self.api = config.new_client_from_config(config_file=path)
        except Exception as exc:  # noqa: BLE001 - one line: no cluster
            raise EnvironmentProblem(f"no one-node cluster ({path}: {exc}); run `make cluster-up`") from None
        self.core, self.apps = client.CoreV1Api(self.api), client.AppsV1Api(self.api)
        self.discovery = client.DiscoveryV1Api(self.api)
        node = self.core.read_node(self.node)
        self.node_cpus = parse_cores(node.status.allocatable["cpu"])
        self.delete_all()  # a point that was interrupted earlier
        return self

    def service(self, config: Any) -> PodService:
        self._service = PodService(self, config)
        return self._service

    def neighbour(self, share: float, workers: int) -> StressPods:
        return StressPods(self, share, workers)

    def counters(self):
        dirs = self._service.cgroup() if self._service is not None else None
        return read_counters(dirs) if dirs else None

    def delete_all(self) -> None:
        """Delete this point's Deployment, Service and pods; wait until its pods are gone."""
        sel = f"{RUN_LABEL}={self.run_id}"
        for d in self.apps.list_namespaced_deployment(self.namespace, label_selector=sel).items:
            self.apps.delete_namespaced_deployment(d.metadata.name, self.namespace, propagation_policy="Background")
        for s in self.core.list_namespaced_service(self.namespace, label_selector=sel).items:
            self.core.delete_namespaced_service(s.metadata.name, self.namespace)
        deadline = time.monotonic() + 30
        while True:
            pods = self.core.list_namespaced_pod(self.namespace, label_selector=sel).items
            if not pods or time.monotonic() > deadline:
                break
            for pod in pods:
                if pod.metadata.deletion_timestamp is None:
                    self.core.delete_namespaced_pod(pod.metadata.name, self.namespace)
            time.sleep(0.3)

    def __exit__(self, *exc) -> None:
        try:
            self.delete_all()
        finally:
            self.api.close()
