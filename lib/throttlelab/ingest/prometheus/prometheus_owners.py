"""kube-state-metrics' owner chain read from Prometheus over the whole window, and the pods that only live briefly.

Owners are read with ``last_over_time(...[window])`` at the window's end, so pods
deleted during the window, old ReplicaSets and finished Jobs keep theirs.  Pods of
Jobs (and of CronJobs) live for minutes: :func:`short_lived_pods` names them so
that their series can be read at a step of a minute or less, where ``rate()``
still sees them.
"""

from __future__ import annotations

from throttlelab.ingest.prometheus.prometheus_api import PrometheusAPI
from throttlelab.ingest.prometheus.workload_owners import OwnerTables, owner_of

#: The step at which short-lived (Job) pods are read when the window's step is coarser.
JOB_STEP_S = 60.0
#: Kinds whose pods may run for minutes only (``DaemonSet or Job``: a name that could be either).
SHORT_LIVED = ("Job", "CronJob", "DaemonSet or Job")


def _quote(v: str) -> str:
    return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'


def read_owners(api: PrometheusAPI, *, namespace: str | None, window: str, end: float,
                promql: list[str]) -> OwnerTables:
    """The three owner series (``kube_pod_owner``, ``kube_replicaset_owner``, ``kube_job_owner``) over ``window``
    (a PromQL duration) ending at ``end``; empty tables where kube-state-metrics is absent."""
    ns = f"{{namespace={_quote(namespace)}}}" if namespace else ""
    t = OwnerTables()
    q = (f"max by (namespace, pod, owner_kind, owner_name, owner_is_controller) "
         f"(last_over_time(kube_pod_owner{ns}[{window}]))")
    promql.append(q)
    keys = ("namespace", "pod", "owner_kind", "owner_name", "owner_is_controller")
    rows = sorted(api.query_values(q, time=end, keys=keys), key=lambda k: k[4] == "true")  # controllers last: they win
    for nsp, pod, kind, name, ctl in rows:
        t.add_pod(nsp, pod, kind, name, controller=ctl == "true")
    for metric, label, table in (("kube_replicaset_owner", "replicaset", t.replicasets),
                                 ("kube_job_owner", "job_name", t.jobs)):
        q = f"max by (namespace, {label}, owner_kind, owner_name) (last_over_time({metric}{ns}[{window}]))"
        promql.append(q)
        for nsp, obj, kind, name in api.query_values(q, time=end, keys=("namespace", label, "owner_kind", "owner_name")):
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
    return "pod=~" + _quote("|".join(sorted({p.replace(".", "\\.") for _, p in pods})))
