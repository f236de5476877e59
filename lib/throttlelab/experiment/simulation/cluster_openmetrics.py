"""The synthetic cluster's series as OpenMetrics text: cAdvisor (containers, pod cgroups, pause), kube-state-metrics.

What a Prometheus scraping the kubelet's ``/metrics/cadvisor`` and kube-state-metrics
holds for :func:`~throttlelab.experiment.simulation.synthetic_cluster.cluster`:

* per container: ``container_cpu_usage_seconds_total``, the CFS counters and ``container_spec_cpu_quota`` /
  ``_period`` (when limited), labelled
  ``id``, ``image``, ``name``, ``namespace``, ``pod``, ``container``, ``node``, ``instance``, ``job``; a restart
  starts new counters under a new ``id`` and ``name``;
* per pod: the pod-level cgroup (``container=""``: the sum of its containers, which never resets) and the
  pause container (``container="POD"``);
* kube-state-metrics: ``kube_pod_owner``, ``kube_replicaset_owner``, ``kube_job_owner`` (``job_name``),
  ``kube_pod_container_resource_requests`` / ``_limits`` (CPU and memory), ``kube_pod_labels``;
* kube-state-metrics' HPAs (``kube_horizontalpodautoscaler_info``, ``_spec_target_metric``, ``_spec_min_replicas``,
  ``_spec_max_replicas``, ``_status_current_replicas``);
* nodes: ``machine_cpu_cores`` and ``kube_node_status_allocatable``; the Go service's
  ``go_sched_gomaxprocs_threads`` (its node's CPU count: Go before 1.25 without automaxprocs); cAdvisor's
  ``container_threads`` per container (its threads plus four of the runtime's own).

``throttled_seconds=False`` leaves out ``container_cpu_cfs_throttled_seconds_total`` (kube-prometheus-stack drops
it by default) and ``kube_state_metrics=False`` every kube-state-metrics series.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np

from throttlelab.core.metrics import (
    CADVISOR_COUNTERS, CADVISOR_PERIOD, CADVISOR_QUOTA, KSM_HPA, KSM_JOB_OWNER, KSM_LIMITS, KSM_OWNERS, KSM_POD_LABELS,
    KSM_POD_OWNER, KSM_REPLICASET_OWNER, KSM_REQUESTS, NODE_ALLOCATABLE, NODE_CORES,
)
from throttlelab.experiment.simulation.synthetic_cluster import HPAS, NODES, Pod
from throttlelab.experiment.simulation.synthetic_containers import simulate
from throttlelab.experiment.simulation.synthetic_openmetrics import FORMAT, _instance, _lines

#: (cAdvisor metric, counter, format) of each counter written; the pod-level cgroup has the first three.
_COUNTERS = tuple((metric, key, FORMAT[key]) for key, metric in CADVISOR_COUNTERS.items())


def _increments(sim: dict, key: str) -> np.ndarray:
    c = sim[key]
    inc = np.diff(np.concatenate([[0.0], c]))
    r = int(sim["restart_index"][0])
    if r >= 0:
        inc[r] = c[r]
    return inc


def pod_lines(pod: Pod, *, start: float, scrape_s: float, throttled_seconds: bool = True, emit=_lines) -> list:
    """cAdvisor's series of one pod: its containers, its pod-level cgroup and its pause container (``emit``: see
    :func:`series_of`)."""
    uid = f"{zlib.crc32(f'{pod.namespace}/{pod.name}'.encode()):010d}"
    base = f'namespace="{pod.namespace}",pod="{pod.name}",node="{pod.node}",instance="{_instance(pod.node)}",job="kubelet"'
    t0, hours = start + pod.start_h * 3600, pod.end_h - pod.start_h
    out: list[str] = []
    total: dict[str, np.ndarray] = {}
    times = None
    for spec in pod.containers:
        sim = simulate(spec, t0, hours, scrape_s)
        times = sim["times"]
        r = int(sim["restart_index"][0])
        part = (np.arange(len(times)) >= r).astype(int) if r >= 0 else np.zeros(len(times), int)
        for k in np.unique(part):
            sel = part == k
            cid = f"{spec.container}{k}{uid[:8]}"
            lab = (f'{base},container="{spec.container}",id="/kubepods/burstable/pod{uid}/{cid}",'
                   f'image="registry.local/{spec.container}:1",name="{cid}"')
            for metric, key, fmt in _COUNTERS:
                if (spec.limit is None and key != "usage_seconds"
                        or key == "throttled_seconds" and not throttled_seconds):
                    continue
                out += emit(metric, lab, times[sel], sim[key][sel], fmt)
            t4 = times[sel][::4]  # gauges: every 4th scrape here, to stay small
            out += emit("container_threads", lab, t4, np.full(len(t4), spec.threads + 4.0), ".0f")
            if spec.limit is not None:  # the CFS quota and period
                out += emit(CADVISOR_QUOTA, lab, t4, np.full(len(t4), spec.limit * 100_000), ".0f")
                out += emit(CADVISOR_PERIOD, lab, t4, np.full(len(t4), 100_000.0), ".0f")
        for _, key, _ in _COUNTERS[:3]:
            if spec.limit is not None or key == "usage_seconds":
                total[key] = total.get(key, 0.0) + _increments(sim, key)
    lab = f'{base},container="",id="/kubepods/burstable/pod{uid}",image="",name=""'
    for metric, key, fmt in _COUNTERS[:3]:
        if key in total:
            extra = 0.002 * scrape_s if key == "usage_seconds" else 0.0  # the pod's own overhead
            out += emit(metric, lab, times, np.cumsum(total[key] + extra), fmt)
    lab = f'{base},container="POD",id="/kubepods/burstable/pod{uid}/pause",image="registry.local/pause:3",name="pause"'
    out += emit(CADVISOR_COUNTERS["usage_seconds"], lab, times, 0.0005 * (times - t0), FORMAT["usage_seconds"])
    return out


def ksm_lines(pods: list[Pod], *, start: float, hours: float, every_s: float = 60.0, gomaxprocs: bool = True,
              emit=_lines) -> list:
    """kube-state-metrics' series of ``pods`` (every ``every_s`` of each pod's life) and the HPAs (``emit``: see
    :func:`series_of`)."""
    out: list[str] = []
    grid = start + every_s * np.arange(1, int(hours * 3600 / every_s) + 1)
    owners: dict[tuple[str, str, str], tuple[str, str, float]] = {}
    for p in pods:
        t = grid[(grid > start + p.start_h * 3600) & (grid <= start + p.end_h * 3600)]
        one = np.ones(len(t))
        ns = f'namespace="{p.namespace}",pod="{p.name}"'
        ctl = "<none>" if p.owner_kind == "<none>" else "true"
        out += emit(KSM_POD_OWNER, f'{ns},owner_kind="{p.owner_kind}",owner_name="{p.owner_name}",'
                                   f'owner_is_controller="{ctl}"', t, one, "g")
        out += emit(KSM_POD_LABELS, f'{ns},label_app="{p.workload[1]}"', t, one, "g")
        for s in p.containers:
            lab = f'{ns},container="{s.container}",node="{p.node}"'
            for metric, v in ((KSM_REQUESTS, s.request), (KSM_LIMITS, s.limit)):
                if v is not None:
                    out += emit(metric, f'{lab},resource="cpu",unit="core"', t, one * v, "g")
                    out += emit(metric, f'{lab},resource="memory",unit="byte"', t, one * 2**28, "g")
            if s.container == "api" and gomaxprocs:
                out += emit("go_sched_gomaxprocs_threads", f'{ns},container="api",job="api"', t,
                              one * NODES[p.node], "g")
        if p.owner_kind in ("ReplicaSet", "Job"):
            key = (p.namespace, p.owner_kind, p.owner_name)
            first = owners.get(key, (None, None, np.inf, 0.0))[2]
            gone = hours if p.owner_kind == "ReplicaSet" else min(hours, p.end_h + 6)  # 3 finished Jobs are kept
            top = ("<none>", "<none>") if p.workload[0] == "Job" else p.workload  # a Job of its own has no owner
            owners[key] = (*top, min(first, p.start_h), gone)
    for ns, hpa, kind, name, target, lo, hi, now in HPAS:
        lab = f'namespace="{ns}",horizontalpodautoscaler="{hpa}"'
        one = np.ones(len(grid))
        out += emit(KSM_HPA["info"], f'{lab},scaletargetref_api_version="apps/v1",'
                      f'scaletargetref_kind="{kind}",scaletargetref_name="{name}"', grid, one, "g")
        out += emit(KSM_HPA["spec_target_metric"],
                      f'{lab},metric_name="cpu",metric_target_type="utilization"', grid, one * target, "g")
        for metric, v in (("spec_min_replicas", lo), ("spec_max_replicas", hi), ("status_current_replicas", now)):
            out += emit(KSM_HPA[metric], lab, grid, one * v, "g")
    for (ns, kind, name), (okind, oname, t0, t1) in owners.items():
        t = grid[(grid > start + t0 * 3600) & (grid <= start + t1 * 3600)]
        metric = KSM_REPLICASET_OWNER if kind == "ReplicaSet" else KSM_JOB_OWNER
        label = KSM_OWNERS[metric]
        out += emit(metric, f'namespace="{ns}",{label}="{name}",owner_kind="{okind}",owner_name="{oname}",'
                              f'owner_is_controller="true"', t, np.ones(len(t)), "g")
    return out


def node_size_lines(*, start: float, hours: float, every_s: float = 60.0, kube_state_metrics: bool = True,
                    emit=_lines) -> list:
    """Each node's ``machine_cpu_cores`` (cAdvisor) and, with kube-state-metrics, its allocatable CPU."""
    t = start + every_s * np.arange(1, int(hours * 3600 / every_s) + 1)
    out: list[str] = []
    for node, cores in NODES.items():
        out += emit(NODE_CORES, f'node="{node}",instance="{_instance(node)}",job="kubelet"', t,
                      np.full(len(t), cores), "g")
        if kube_state_metrics:
            out += emit(NODE_ALLOCATABLE, f'node="{node}",resource="cpu",unit="core"', t,
                          np.full(len(t), cores - 0.1), "g")
    return out


def series_of(*args) -> list[tuple]:
    """``emit=series_of`` makes the ``*_lines`` functions return their series, not text: one
    ``(metric, labels, times, values, fmt)`` each (for a faster writer).

    >>> from throttlelab.experiment.simulation.synthetic_cluster import cluster
    >>> pod = cluster(6.0)[0]
    >>> recs = pod_lines(pod, start=0.0, scrape_s=30.0, emit=series_of)
    >>> sum(len(r[2]) for r in recs) == len(pod_lines(pod, start=0.0, scrape_s=30.0))
    True
    """
    return [args]


def write_cluster(path: str | Path, pods: list[Pod], *, start: float, hours: float, scrape_s: float = 30.0,
                  kube_state_metrics: bool = True, throttled_seconds: bool = True, every_s: float = 60.0) -> int:
    """Write the cluster's OpenMetrics text (``# EOF`` last) to ``path``; returns the number of samples."""
    n = 0
    with open(path, "w") as fh:
        parts = [lambda p=p: pod_lines(p, start=start, scrape_s=scrape_s, throttled_seconds=throttled_seconds)
                 for p in pods]
        if kube_state_metrics:
            parts.append(lambda: ksm_lines(pods, start=start, hours=hours, every_s=every_s))
        parts.append(lambda: node_size_lines(start=start, hours=hours, every_s=every_s,
                                             kube_state_metrics=kube_state_metrics))
        for part in parts:
            lines = part()
            n += len(lines)
            fh.write("\n".join(lines) + "\n")
        fh.write("# EOF\n")
    return n
