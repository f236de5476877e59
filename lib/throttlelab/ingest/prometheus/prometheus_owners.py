"""kube-state-metrics' owner chain read from Prometheus over the whole window, and the pods that only live briefly.

Owners are the owner series' label sets over the whole window, so pods deleted
during the window, old ReplicaSets and finished Jobs keep theirs.  Pods of
Jobs (and of CronJobs) live for minutes: :func:`short_lived_pods` names them so
that their series can be read at a step of a minute or less, where ``rate()``
still sees them.
"""

from __future__ import annotations

from throttlelab.core.metrics import KSM_JOB_OWNER, KSM_OWNERS, KSM_POD_OWNER, KSM_REPLICASET_OWNER
from throttlelab.ingest.prometheus.prometheus_api import PrometheusAPI, parse_duration, promql_string
from throttlelab.ingest.prometheus.workload_owners import OwnerTables, owner_of

#: The step at which short-lived (Job) pods are read when the window's step is coarser.
JOB_STEP_S = 60.0
#: Kinds whose pods may run for minutes only (``DaemonSet or Job``: a name that could be either).
SHORT_LIVED = ("Job", "CronJob", "DaemonSet or Job")


def read_owners(api: PrometheusAPI, *, namespace: str | None, window: str, end: float,
                promql: list[str]) -> OwnerTables:
    """The three owner series (``kube_pod_owner``, ``kube_replicaset_owner``, ``kube_job_owner``) over ``window``
    (a PromQL duration) ending at ``end``; empty tables where kube-state-metrics is absent.  Their labels are all
    that is needed: they come from the server's index (the series API), without reading the window's samples."""
    ns = f"{{namespace={promql_string(namespace)}}}" if namespace else ""
    start = end - parse_duration(window)
    t = OwnerTables()
    q = f"{KSM_POD_OWNER}{ns}"
    promql.append(q)
    keys = ("namespace", "pod", "owner_kind", "owner_name", "owner_is_controller")
    found = api.series_keys(q, start, end, keys)
    for nsp, pod, kind, name, ctl in sorted(found, key=lambda k: (k[4] == "true", k)):  # controllers last: they win
        t.add_pod(nsp, pod, kind, name, controller=ctl == "true")
    for metric, table in ((KSM_REPLICASET_OWNER, t.replicasets), (KSM_JOB_OWNER, t.jobs)):
        label = KSM_OWNERS[metric]
        q = f"{metric}{ns}"
        promql.append(q)
        keys = ("namespace", label, "owner_kind", "owner_name")
        for nsp, obj, kind, name in sorted(api.series_keys(q, start, end, keys)):
            table[(nsp, obj)] = (kind, name)
    return t


def short_lived_pods(pods: set[tuple[str, str]], tables: OwnerTables) -> set[tuple[str, str]]:
    """The ``(namespace, pod)`` of ``pods`` owned by a Job or CronJob (or named like one)."""
    return {(ns, pod) for ns, pod in pods if owner_of(ns, pod, tables).kind in SHORT_LIVED}


def pod_regex(pods: set[tuple[str, str]]) -> str:
    r"""A PromQL ``pod=~`` matcher for these pods' names (DNS names: only ``.`` needs escaping; Prometheus anchors it).

    >>> print(pod_regex({("a", "job-1.x"), ("a", "b")}))
    pod=~"b|job-1\\.x"
    """
    return "pod=~" + promql_string("|".join(sorted({p.replace(".", "\\.") for _, p in pods})))
