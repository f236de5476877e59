"""Which workload owns a pod: the kube-state-metrics owner chain, or, without it, what the pod's name says.

Owner chain
    ``kube_pod_owner`` names the pod's owner; a ReplicaSet's owner (a Deployment) comes from
    ``kube_replicaset_owner`` and a Job's (a CronJob) from ``kube_job_owner`` (label ``job_name``).
    StatefulSets and DaemonSets own their pods directly; a pod without an owner (``<none>``) or owned
    by its node (a static pod) is kind ``Pod``.
Inferred from names
    ``<deployment>-<replicaset hash>-<5 chars>``, ``<statefulset>-<ordinal>``,
    ``<cronjob>-<scheduled minutes since epoch>-<5 chars>``; ``<name>-<5 chars>`` is a DaemonSet's or a
    Job's pod (the name alone cannot tell which); a name of 63 characters may have been truncated.
    Generated suffixes use Kubernetes' alphabet without vowels and the digits 0, 1, 3.

>>> infer_owner("web-7d9f8b6c5d-x2k4q"), infer_owner("db-1").kind, infer_owner("report-29435520-b7c9d").name
(Owner(kind='Deployment', name='web', source='pod name', ambiguous=''), 'StatefulSet', 'report')
>>> infer_owner("node-agent-x2k4q").kind
'DaemonSet or Job'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from throttlelab.core.metrics import KSM_POD_OWNER

KSM = "kube-state-metrics"
INFERRED = "pod name"
#: Kinds whose pod template a strategic-merge patch can change.
PATCHABLE = ("Deployment", "StatefulSet", "DaemonSet", "CronJob")
_SUFFIX = "[bcdfghjklmnpqrstvwxz2456789]"  # k8s.io/apimachinery/pkg/util/rand's alphabet
_CRONJOB = re.compile(rf"^(?P<name>.+)-\d{{8,10}}-{_SUFFIX}{{5}}$")
_DEPLOYMENT = re.compile(rf"^(?P<name>.+)-{_SUFFIX}{{6,10}}-{_SUFFIX}{{5}}$")
_STATEFULSET = re.compile(r"^(?P<name>.+)-\d+$")
_FIVE = re.compile(rf"^(?P<name>.+)-{_SUFFIX}{{5}}$")
_RS = re.compile(rf"^(?P<name>.+)-{_SUFFIX}{{6,10}}$")
_JOB = re.compile(r"^(?P<name>.+)-\d{8,10}$")
MAX_NAME = 63  # a pod name this long may carry a truncated prefix
NONE = ("", "<none>")


@dataclass(frozen=True)
class Owner:
    """A pod's workload: ``kind`` (Deployment, StatefulSet, DaemonSet, CronJob, Job, ReplicaSet, Pod, or
    ``DaemonSet or Job`` when a name cannot tell), ``name``, where it came from, and why it is ambiguous."""

    kind: str
    name: str
    source: str
    ambiguous: str = ""


@dataclass
class OwnerTables:
    """kube-state-metrics' owner series, read over the whole window (deleted pods and finished Jobs included).

    Attributes
    ----------
    pods
        ``(namespace, pod) -> (owner_kind, owner_name)`` from ``kube_pod_owner``.
    replicasets
        ``(namespace, replicaset) -> (owner_kind, owner_name)`` from ``kube_replicaset_owner``.
    jobs
        ``(namespace, job_name) -> (owner_kind, owner_name)`` from ``kube_job_owner``.
    """

    pods: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    replicasets: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    jobs: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)

    def add_pod(self, namespace: str, pod: str, kind: str, name: str, controller: bool = True) -> None:
        """Record a pod's owner; a controller owner wins over another one."""
        if controller or (namespace, pod) not in self.pods:
            self.pods[(namespace, pod)] = (kind, name)


def infer_owner(pod: str) -> Owner:
    """The workload a pod's generated name points to (see the module docstring)."""
    truncated = "the name has 63 characters and may be truncated" if len(pod) >= MAX_NAME else ""
    for pattern, kind in ((_CRONJOB, "CronJob"), (_DEPLOYMENT, "Deployment"), (_STATEFULSET, "StatefulSet")):
        m = pattern.match(pod)
        if m:
            return Owner(kind, m["name"], INFERRED, truncated)
    m = _FIVE.match(pod)
    if m:
        return Owner("DaemonSet or Job", m["name"], INFERRED,
                     "a 5-character suffix alone: a DaemonSet's and a Job's pods look alike"
                     + (f"; {truncated}" if truncated else ""))
    return Owner("Pod", pod, INFERRED, truncated)


def owner_of(namespace: str, pod: str, tables: OwnerTables) -> Owner:
    """Follow the owner chain of ``tables`` to the workload (Deployment, CronJob, ...); infer from the name where
    kube-state-metrics has no ``kube_pod_owner`` series for the pod."""
    got = tables.pods.get((namespace, pod))
    if got is None:
        return infer_owner(pod)
    kind, name = got
    if kind in NONE or kind == "Node":  # no owner, or a static pod mirrored from its node's manifest
        return Owner("Pod", pod, KSM)
    if kind == "ReplicaSet":
        return _up(namespace, name, tables.replicasets, _RS, "Deployment", kind)
    if kind == "Job":
        return _up(namespace, name, tables.jobs, _JOB, "CronJob", kind)
    return Owner(kind, name, KSM)


def _up(namespace: str, name: str, table: dict, pattern: re.Pattern, parent: str, kind: str) -> Owner:
    """One step up the chain (ReplicaSet -> Deployment, Job -> CronJob); from the name when the table lacks it."""
    got = table.get((namespace, name))
    if got is not None:
        return Owner(kind, name, KSM) if got[0] in NONE else Owner(got[0], got[1], KSM)
    if table:  # the metric is there and says nothing about this one: it has no owner
        return Owner(kind, name, KSM)
    m = pattern.match(name)
    return Owner(parent, m["name"], f"{KSM} and {INFERRED}") if m else Owner(kind, name, KSM)


def owners_note(owners: dict[tuple[str, str], Owner]) -> list[str]:
    """What to say once about how the pods' workloads were found (nothing when kube-state-metrics said it all)."""
    inferred = {k: o for k, o in owners.items() if o.source == INFERRED}
    if not inferred:
        return []
    what = (f"without kube-state-metrics' {KSM_POD_OWNER}" if len(inferred) == len(owners)
            else f"for {len(inferred)} of {len(owners)} pods that {KSM_POD_OWNER} does not list")
    out = [f"Workloads inferred from pod names {what}: <deployment>-<replicaset hash>-<suffix>, "
           "<statefulset>-<ordinal>, <cronjob>-<scheduled time>-<suffix>."]
    ambiguous = sorted({(ns, o.kind, o.name, o.ambiguous) for (ns, _), o in inferred.items() if o.ambiguous})
    if ambiguous:
        out.append("Ambiguous names: " + "; ".join(f"{ns}/{name} ({kind}: {why})" for ns, kind, name, why in ambiguous)
                   + ".")
    return out
