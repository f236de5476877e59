"""A synthetic small cluster: workloads, their pods over time, and the limit each workload container truly needs.

:func:`cluster` lays out, over ``hours`` (72 by default) on two nodes of 4 and 8 cores:

* Deployment ``web`` (2 replicas, containers ``app`` and sidecar ``envoy``) rolled out twice (a new
  ReplicaSet hash and new pod names each time; the second rollout lowers ``app``'s limit);
* StatefulSet ``db`` (``db-0``, ``db-1``; ``db-1`` restarts half-way);
* DaemonSet ``node-agent`` (a pod per node);
* CronJob ``report``, a 45-minute Job every 2 hours (36 runs in 72 hours);
* Deployment ``api``, a Go service whose ``go_sched_gomaxprocs_threads`` is the node's CPU count (4 and 8 under
  its 2-core limit: Go before 1.25 without automaxprocs);
* an HPA ``web`` scaling Deployment ``web`` on CPU at 70% of the pod's requests, 2 to 6 replicas (:data:`HPAS`);
* in namespace ``ops``, a bare Pod and a one-off Job.

:func:`cluster_openmetrics` writes what cAdvisor exports (every container, the
pod-level cgroup ``container=""`` and the pause container ``POD``, with ``id``,
``image``, ``name``, ``node`` and ``instance`` labels), kube-state-metrics' owner
chain, requests, limits and pod labels, and the nodes' sizes.  The truth of each
workload container, :func:`true_limit`, is the smallest limit (at most the
largest node's size) whose throttled-period ratio over all its pods is at most
the target.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from throttlelab.experiment.simulation.synthetic_containers import ContainerSpec
from throttlelab.experiment.simulation.synthetic_truth import PooledRatio, smallest_limit

NODES = {"node-a": 4.0, "node-b": 8.0}
#: HorizontalPodAutoscalers on CPU utilisation: (namespace, name, target kind, target name, target %, min, max, current)
HPAS = (("shop", "web", "Deployment", "web", 70, 2, 6, 2),)
_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


@dataclass(frozen=True)
class Pod:
    """One pod: its name, owner (``kind``, ``name``: the pod's direct owner, a ReplicaSet or Job where there is one),
    the workload it belongs to, its node, its life (hours from the start) and its containers."""

    namespace: str
    name: str
    owner_kind: str
    owner_name: str
    workload: tuple[str, str]  # (kind, name) at the top of the owner chain
    node: str
    start_h: float
    end_h: float
    containers: tuple[ContainerSpec, ...]


def _suffix(rng: np.random.Generator, n: int) -> str:
    return "".join(rng.choice(list(_ALPHABET), n))


def cluster(hours: float = 72.0, *, start: float = 1_767_225_600.0, seed: int = 0) -> list[Pod]:
    """The pods of the cluster in the module docstring (seeded names and demand)."""
    rng = np.random.default_rng(seed)
    pods: list[Pod] = []
    c = ContainerSpec

    def add(ns, name, owner, workload, node, t0, t1, specs):
        pods.append(Pod(ns, name, *owner, workload, node, t0, t1, tuple(
            dataclasses.replace(s, namespace=ns, pod=name, node=node, cores=NODES[node],
                                seed=len(pods) * 10 + i + seed * 1000)
            for i, s in enumerate(specs))))

    app = c("", "", "app", request=0.5, limit=1.0, mean_cores=0.45, threads=4, burst_cv=0.8)
    envoy = c("", "", "envoy", request=0.05, limit=0.2, mean_cores=0.06, threads=2, burst_cv=1.0)
    for g, (t0, t1) in enumerate([(0, hours / 3), (hours / 3, 2 * hours / 3), (2 * hours / 3, hours)]):
        rs = f"web-{_suffix(rng, 10)}"
        spec = dataclasses.replace(app, limit=0.8) if g == 2 else app
        for r in range(2):
            add("shop", f"{rs}-{_suffix(rng, 5)}", ("ReplicaSet", rs), ("Deployment", "web"), list(NODES)[r],
                t0, min(hours, t1 + 0.05), [spec, envoy])
    db = c("", "", "postgres", request=1.0, limit=2.0, mean_cores=0.9, threads=6, burst_cv=0.6)
    for i in range(2):
        add("shop", f"db-{i}", ("StatefulSet", "db"), ("StatefulSet", "db"), list(NODES)[i], 0, hours,
            [dataclasses.replace(db, restart_at=0.5 if i else None)])
    agent = c("", "", "agent", request=0.05, limit=0.1, mean_cores=0.04, threads=2, burst_cv=1.2)
    for node in NODES:
        add("shop", f"node-agent-{_suffix(rng, 5)}", ("DaemonSet", "node-agent"), ("DaemonSet", "node-agent"), node,
            0, hours, [agent])
    report = c("", "", "report", request=0.5, limit=1.0, mean_cores=0.6, threads=2, burst_cv=0.6, diurnal=0.0)
    for k in range(int(hours // 2)):
        job = f"report-{int((start + k * 7200) // 60)}"
        add("shop", f"{job}-{_suffix(rng, 5)}", ("Job", job), ("CronJob", "report"), list(NODES)[k % 2],
            k * 2 + 0.01, k * 2 + 0.76, [report])
    api = c("", "", "api", request=1.0, limit=2.0, mean_cores=0.8, threads=8, burst_cv=1.2)
    rs = f"api-{_suffix(rng, 10)}"
    for r in range(2):
        add("shop", f"{rs}-{_suffix(rng, 5)}", ("ReplicaSet", rs), ("Deployment", "api"), list(NODES)[r], 0, hours,
            [api])
    add("ops", "debug-shell", ("<none>", "<none>"), ("Pod", "debug-shell"), "node-a", 0, hours,
        [c("", "", "shell", request=0.1, limit=0.5, mean_cores=0.05, threads=1, burst_cv=0.8)])
    add("ops", f"migrate-schema-{_suffix(rng, 5)}", ("Job", "migrate-schema"), ("Job", "migrate-schema"), "node-b",
        1, 3, [c("", "", "migrate", request=0.5, limit=1.0, mean_cores=0.5, threads=2)])
    return pods


def workload_containers(pods: list[Pod]) -> dict[tuple[str, str, str, str], list[tuple[ContainerSpec, Pod]]]:
    """``(namespace, kind, workload, container) -> [(spec, pod), ...]``: what one recommendation row covers."""
    out: dict[tuple, list] = {}
    for p in pods:
        for s in p.containers:
            out.setdefault((p.namespace, *p.workload, s.container), []).append((s, p))
    return out


def true_limit(parts: list[tuple[ContainerSpec, Pod]], target: float, *, start: float, scrape_s: float = 30.0,
               node_cores: float = max(NODES.values())) -> float:
    """The smallest limit (at most ``node_cores``) whose throttled-period ratio over every pod is at most ``target``."""
    ratio = PooledRatio([(spec, start + pod.start_h * 3600, pod.end_h - pod.start_h) for spec, pod in parts],
                        scrape_s=scrape_s)
    return smallest_limit(ratio, target, top=node_cores, guess=ratio.guess(target))
