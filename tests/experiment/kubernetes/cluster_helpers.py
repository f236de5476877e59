"""Shared by the cluster tests: a sweep spec for the test namespace, and what throttlelab left labelled in it.

The cluster tests run against a real API server and scheduler, with kwok fake nodes.
kwok has no kubelet: pods become Running and then Succeeded by its stages and
have no logs, so these tests check what the API sees (pods, limits, labels,
scheduling, RBAC, cleanup, resume); log parsing is tested in test_pod_log.py.
"""

from __future__ import annotations

from pathlib import Path

from throttlelab.experiment.kubernetes import labels as lb
from throttlelab.experiment.sweeps.spec_loading import spec_from_mapping


def make_spec(tmp_path: Path, namespace: str, kubeconfig: Path, experiment: str = "kubetest", **kube):
    opts = {"namespace": namespace, "kubeconfig": str(kubeconfig), "pending_timeout_s": 20,
            "poll_interval_s": 0.1, **kube}
    doc = {
        "name": experiment,
        "backend": "kubernetes",
        "kubernetes": opts,
        "workload": {"kind": "command", "command": "ffmpeg -threads {threads} -i in.mp4 -f null -"},
        "limits": [0.5, 1.5],
        "threads": [1, 2],
        "order": "sequential",
        "timeout_s": 30,
        "sampling_interval_s": 0.5,
        "data_root": str(tmp_path / "data"),
    }
    return spec_from_mapping(doc)


def labelled(admin, namespace: str) -> list[str]:
    sel = f"{lb.MANAGED_BY}={lb.MANAGER}"
    pods = admin.list_namespaced_pod(namespace, label_selector=sel).items
    cms = admin.list_namespaced_config_map(namespace, label_selector=sel).items
    return [f"pod/{p.metadata.name}" for p in pods] + [f"configmap/{c.metadata.name}" for c in cms]


def scratch_namespace(core, prefix: str) -> str:
    """A new namespace ``<prefix>-<6 hex>`` with its ``default`` service account (pods need it at admission; the
    controller-manager may make it first)."""
    import uuid

    from kubernetes.client import ApiException

    ns = f"{prefix}-{uuid.uuid4().hex[:6]}"
    core.create_namespace({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    try:
        core.create_namespaced_service_account(ns, {"metadata": {"name": "default"}})
    except ApiException as exc:
        if exc.status != 409:
            raise
    return ns
