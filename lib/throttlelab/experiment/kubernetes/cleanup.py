"""Finding and deleting what sweeps created, by label, in one namespace only.

Every object carries ``app.kubernetes.io/managed-by=throttlelab`` plus the
experiment and session labels (see :mod:`.labels`).  A sweep deletes its own
session's objects on exit (Ctrl-C included); objects of the same experiment
from another session are orphans of a sweep that died, removed when the
experiment is run again.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .client import Cluster, api_error_message
from .labels import SESSION, selector


@dataclass(frozen=True)
class Labelled:
    """One labelled object: ``kind`` (``Pod`` or ``ConfigMap``), name, session."""

    kind: str
    name: str
    session: str | None

    def __str__(self) -> str:
        return f"{self.kind.lower()}/{self.name}"


def find_labelled(cluster: Cluster, label_selector: str) -> list[Labelled]:
    """Pods and ConfigMaps in the cluster's namespace matching ``label_selector``."""
    out = []
    pods = cluster.core.list_namespaced_pod(cluster.namespace, label_selector=label_selector)
    out += [Labelled("Pod", p.metadata.name, (p.metadata.labels or {}).get(SESSION)) for p in pods.items]
    cms = cluster.core.list_namespaced_config_map(cluster.namespace, label_selector=label_selector)
    out += [Labelled("ConfigMap", c.metadata.name, (c.metadata.labels or {}).get(SESSION)) for c in cms.items]
    return out


def find_orphans(cluster: Cluster, experiment: str | None, session: str | None) -> list[Labelled]:
    """Objects of ``experiment`` (all managed objects when ``None``) not of ``session``."""
    return [o for o in find_labelled(cluster, selector(experiment)) if o.session != session]


def delete(cluster: Cluster, objects: list[Labelled], *, force: bool = False) -> list[str]:
    """Delete ``objects`` (already-gone ones are fine); return their names.

    ``force`` deletes pods with a grace period of 0 (the API object goes at
    once; the kubelet still stops the containers).
    """
    from kubernetes.client import ApiException

    done = []
    for obj in objects:
        try:
            if obj.kind == "Pod":
                cluster.core.delete_namespaced_pod(obj.name, cluster.namespace,
                                                   grace_period_seconds=0 if force else None)
            else:
                cluster.core.delete_namespaced_config_map(obj.name, cluster.namespace)
        except ApiException as exc:
            if exc.status != 404:
                raise RuntimeError(f"cannot delete {obj}: {api_error_message(exc)}") from None
        done.append(str(obj))
    return done


def delete_pod(cluster: Cluster, name: str, *, force: bool = False) -> None:
    """Delete one pod; a pod already gone is fine."""
    delete(cluster, [Labelled("Pod", name, None)], force=force)


def wait_gone(cluster: Cluster, names: list[str], timeout_s: float = 30.0, poll_s: float = 0.2) -> list[str]:
    """Wait until the pods ``names`` no longer exist; return those still there at the timeout."""
    from kubernetes.client import ApiException

    left = list(names)
    deadline = time.monotonic() + timeout_s
    while left and time.monotonic() < deadline:
        still = []
        for name in left:
            try:
                cluster.core.read_namespaced_pod(name, cluster.namespace)
                still.append(name)
            except ApiException as exc:
                if exc.status != 404:
                    raise
        left = still
        if left:
            time.sleep(poll_s)
    return left


def remove(cluster: Cluster, label_selector: str, *, wait_s: float = 30.0) -> list[str]:
    """Delete every pod and ConfigMap matching ``label_selector`` and wait for the pods to go.

    Pods still there after ``wait_s`` (e.g. on a node whose kubelet is gone)
    are deleted with a grace period of 0.
    """
    objects = find_labelled(cluster, label_selector)
    names = delete(cluster, objects)
    pods = [o.name for o in objects if o.kind == "Pod"]
    stuck = wait_gone(cluster, pods, timeout_s=wait_s)
    if stuck:
        delete(cluster, [Labelled("Pod", n, None) for n in stuck], force=True)
        wait_gone(cluster, stuck, timeout_s=5.0)
    return names
