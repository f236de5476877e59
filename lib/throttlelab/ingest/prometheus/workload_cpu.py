"""Workload containers: every pod's series of one container of one workload, pooled (rollouts, replicas, Job runs).

A workload container is ``(namespace, workload kind, workload, container)``: the
``app`` container of Deployment ``web`` is one, whatever its pods were called
in each rollout.  Each pod keeps its own series (its counters, resets and
limit); :meth:`WorkloadCPU.pooled` lays the (pod, step) samples side by side.
The current request and limit are the latest pod template's: those of the
newest pod still running at the window's end.  The node's size is the largest
node any of its pods ran on (a limit above a node's size buys nothing there, but
does on the larger one).

>>> import numpy as np
>>> from throttlelab.ingest.prometheus.container_cpu import ContainerCPU
>>> from throttlelab.ingest.prometheus.workload_owners import OwnerTables
>>> t = 60.0 * np.arange(1, 5)
>>> def pod(name, limit, usage):
...     return ContainerCPU("ns", name, "app", 0.1, limit, "kube-state-metrics", 60.0, t, np.array(usage),
...                         *[np.full(4, np.nan)] * 3)
>>> ws, notes = group_workloads([pod("web-7d9f8b6c5d-x2k4q", 1.0, [0.2, 0.3, np.nan, np.nan]),
...                              pod("web-5b6c7d8f9g-b7c9d", 0.5, [np.nan, 0.4, 0.5, 0.6])], OwnerTables())
>>> [(w.workload_kind, w.workload, w.container, w.pods, w.limit_cores) for w in ws]
[('Deployment', 'web', 'app', ('web-7d9f8b6c5d-x2k4q', 'web-5b6c7d8f9g-b7c9d'), 0.5)]
>>> ws[0].pooled().usage.tolist(), ws[0].pooled().limits.tolist()
([0.2, 0.3, 0.4, 0.5, 0.6], [1.0, 1.0, 0.5, 0.5, 0.5])
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from throttlelab.core.metrics import COUNTER
from throttlelab.ingest.prometheus.container_cpu import ContainerCPU
from throttlelab.ingest.prometheus.workload_owners import Owner, OwnerTables, owner_of, owners_note


@dataclass(frozen=True)
class Pooled:
    """The (pod, step) samples with usage, side by side: per sample its ``member`` (index into the pods), ``times``,
    the four rates (NaN where the counter was absent) and the pod's CPU limit (NaN: none); per pod its
    ``lifetime_s`` (first to last sample, plus a step)."""

    member: np.ndarray
    times: np.ndarray
    usage: np.ndarray
    throttled_seconds: np.ndarray
    periods: np.ndarray
    throttled_periods: np.ndarray
    limits: np.ndarray
    lifetime_s: np.ndarray


@dataclass
class WorkloadCPU:
    """One container of one workload, over every pod that ran it in the window (see the module docstring)."""

    namespace: str
    workload_kind: str
    workload: str
    container: str
    members: list[ContainerCPU]  # one per pod
    owner_source: str = ""

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.namespace, self.workload_kind, self.workload, self.container)

    @property
    def pods(self) -> tuple[str, ...]:
        return tuple(m.pod for m in self.members)

    @property
    def step_s(self) -> float:
        return self.members[0].step_s

    @cached_property
    def latest(self) -> ContainerCPU:
        """The newest pod among those that ran until the window's end (its template is the current one; found once:
        the members are complete when it is first asked for)."""
        spans = [_span(m) for m in self.members]
        end = max(s[1] for s in spans)
        alive = [i for i, s in enumerate(spans) if s[1] >= end - 2 * self.members[i].step_s]
        return self.members[max(alive, key=lambda i: (spans[i][0], i))]

    @property
    def pod(self) -> str:
        return self.latest.pod

    @property
    def request_cores(self) -> float | None:
        return self.latest.request_cores

    @property
    def limit_cores(self) -> float | None:
        return self.latest.limit_cores

    @property
    def limit_source(self) -> str:
        return self.latest.limit_source

    @property
    def node_cores(self) -> float | None:
        sizes = [m.node_cores for m in self.members if m.node_cores]
        return max(sizes) if sizes else None

    @property
    def throttled_ratio_p95_5m(self) -> float | None:
        """95th percentile of the 5-minute throttled ratios of all its pods (a pod's own where only one had them)."""
        parts = [m.throttled_ratios_5m for m in self.members if m.throttled_ratios_5m is not None]
        if parts and sum(len(p) for p in parts):
            return float(np.quantile(np.concatenate(parts), 0.95))
        given = [m.throttled_ratio_p95_5m for m in self.members if m.throttled_ratio_p95_5m is not None]
        return max(given) if given else None

    def pooled(self) -> Pooled:
        """Every pod's steps that have usage, in pod order (see :class:`Pooled`)."""
        cols: dict[str, list[np.ndarray]] = {k: [] for k in ("member", "times", "usage", "throttled_seconds", "periods",
                                                              "throttled_periods", "limits")}
        life = []
        for i, m in enumerate(self.members):
            have = np.isfinite(m.usage)
            n = int(have.sum())
            first, last = _span(m)
            life.append(last - first + m.step_s if n else 0.0)
            cols["member"].append(np.full(n, i, dtype=np.int64))
            cols["limits"].append(np.full(n, np.nan if m.limit_cores is None else m.limit_cores))
            for k in ("times", "usage", "throttled_seconds", "periods", "throttled_periods"):
                cols[k].append(np.asarray(getattr(m, k), dtype=float)[have])
        return Pooled(**{k: np.concatenate(v) for k, v in cols.items()}, lifetime_s=np.array(life))


def _span(c: ContainerCPU) -> tuple[float, float]:
    have = np.flatnonzero(np.isfinite(c.usage))
    return (float(c.times[have[0]]), float(c.times[have[-1]])) if len(have) else (np.inf, -np.inf)


def single(c: ContainerCPU, kind: str = "Pod") -> WorkloadCPU:
    """One pod's container as a workload of its own (kind ``Pod`` unless said)."""
    return WorkloadCPU(c.namespace, kind, c.pod, c.container, [c])


def group_workloads(containers: list[ContainerCPU], tables: OwnerTables,
                    owners: dict[tuple[str, str], Owner] | None = None) -> tuple[list[WorkloadCPU], list[str]]:
    """Pool per-pod containers into workload containers; returns them (sorted by key) and the notes to say once.

    ``owners`` (``(namespace, pod) -> Owner``) overrides the resolution through ``tables`` where given.
    """
    found = dict(owners or {})
    for c in containers:
        if (c.namespace, c.pod) not in found:
            found[(c.namespace, c.pod)] = owner_of(c.namespace, c.pod, tables)
    groups: dict[tuple, WorkloadCPU] = {}
    for c in containers:
        o = found[(c.namespace, c.pod)]
        key = (c.namespace, o.kind, o.name, c.container)
        if key not in groups:
            groups[key] = WorkloadCPU(*key, members=[], owner_source=o.source)
        groups[key].members.append(c)
    seen = {k: found[k] for k in {(c.namespace, c.pod) for c in containers}}
    return [groups[k] for k in sorted(groups)], owners_note(seen)


def missing_throttled_seconds(w: WorkloadCPU) -> bool:
    """CFS periods were seen but ``container_cpu_cfs_throttled_seconds_total`` was not, in any of its pods."""
    return any(np.isfinite(m.periods).any() for m in w.members) and not any(
        np.isfinite(m.throttled_seconds).any() for m in w.members)


THROTTLED_SECONDS_NOTE = (
    f"{COUNTER['throttled_seconds'].cadvisor} is missing for {{n}} (kube-prometheus-stack drops it by default): "
    "their demand was estimated from throttled periods alone; keep it by removing it from the drop rule of "
    "the kubelet ServiceMonitor's cAdvisor metricRelabelings (kube-prometheus-stack: "
    "kubelet.serviceMonitor.cAdvisorMetricRelabelings).")


def with_workloads(fetched):
    """``fetched`` (a :class:`~throttlelab.ingest.prometheus.container_cpu.Fetch`) with its containers pooled by workload
    (``fetched.workloads``) and what to say once about how, and about missing metrics (``fetched.notes``)."""
    fetched.workloads, notes = group_workloads(fetched.containers, fetched.owners)
    missing = sum(missing_throttled_seconds(w) for w in fetched.workloads)
    if missing:
        notes.append(THROTTLED_SECONDS_NOTE.format(n=f"{missing} workload container{'s' if missing > 1 else ''}"))
    fetched.notes = [*notes, *(n for n in fetched.notes if n not in notes)]
    return fetched
