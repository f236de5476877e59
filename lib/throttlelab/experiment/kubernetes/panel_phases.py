"""The panel's phases on the one-node cluster: deploy at the current setting, apply patches, wait for rollouts.

A benchmark composes them (``bench/bench_kernel_truth.py``): a production window
at the users' setting, ``throttlelab recommend`` as a subprocess, its patches
applied as strategic-merge patches, and the throttled ratio measured after.
"""

from __future__ import annotations

import time
from typing import Any

import yaml

from .ladder import LadderWindow, cgroup_dirs, read_windows, running_pods
from .panel import CONTAINER, PanelWorkload


def namespace(core: Any, name: str) -> str:
    """Create namespace ``name`` and wait for its ``default`` service account."""
    core.create_namespace({"metadata": {"name": name, "labels": {"throttlelab.io/panel": "kernel-truth"}}})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if any(sa.metadata.name == "default" for sa in core.list_namespaced_service_account(name).items):
            return name
        time.sleep(0.5)
    raise TimeoutError(f"no default service account in {name}")


def delete_namespace(core: Any, name: str, timeout_s: float = 120.0) -> None:
    """Delete ``name`` and wait until it is gone."""
    try:
        core.delete_namespace(name, grace_period_seconds=0)
    except Exception:  # already gone
        return
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and any(n.metadata.name == name for n in core.list_namespace().items):
        time.sleep(1)


def deploy(apps: Any, ns: str, workload: PanelWorkload, name: str | None = None) -> str:
    """The workload's Deployment at its current setting (under another ``name``: a twin for its ladder)."""
    body = workload.deployment()
    if name:
        body["metadata"]["name"] = name
        for d in (body["metadata"]["labels"], body["spec"]["selector"]["matchLabels"],
                  body["spec"]["template"]["metadata"]["labels"]):
            d["app"] = name
    apps.create_namespaced_deployment(ns, body)
    return body["metadata"]["name"]


def rolled_out(apps: Any, core: Any, ns: str, name: str) -> bool:
    """The Deployment's template runs in every replica, no old pod left."""
    d = apps.read_namespaced_deployment(name, ns)
    s = d.status
    if (s.observed_generation or 0) < d.metadata.generation or (s.updated_replicas or 0) != d.spec.replicas \
            or (s.available_replicas or 0) != d.spec.replicas or (s.replicas or 0) != d.spec.replicas:
        return False
    return len(core.list_namespaced_pod(ns, label_selector=f"app={name}").items) == d.spec.replicas


def wait_rolled_out(apps: Any, core: Any, ns: str, names: list[str], timeout_s: float = 300.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not all(rolled_out(apps, core, ns, n) for n in names):
        if time.monotonic() > deadline:
            raise TimeoutError(f"rollout of {', '.join(names)} in {ns} not done after {timeout_s:g} s")
        time.sleep(1)


def patch_documents(text: str) -> list[dict[str, Any]]:
    """The patches of ``recommend --format patch`` (empty documents dropped)."""
    return [d for d in yaml.safe_load_all(text) if d]


def apply_patches(apps: Any, docs: list[dict[str, Any]]) -> list[str]:
    """Apply each Deployment patch (strategic merge); the names patched."""
    done = []
    for d in docs:
        if d.get("kind") != "Deployment":
            continue
        m = d["metadata"]
        apps.patch_namespaced_deployment(m["name"], m["namespace"], d,
                                         _content_type="application/strategic-merge-patch+json")
        done.append(m["name"])
    return done


def resources(apps: Any, ns: str, name: str) -> dict[str, str | None]:
    """The template's CPU limit and request now."""
    c = apps.read_namespaced_deployment(name, ns).spec.template.spec.containers[0]
    return {"limit": (c.resources.limits or {}).get("cpu"), "request": (c.resources.requests or {}).get("cpu")}


def measure(core: Any, ns: str, name: str, seconds: float, window_s: float = 10.0) -> list[LadderWindow]:
    """The kernel's counters of the Deployment's pods over ``seconds`` (windows of ``window_s``)."""
    pods = running_pods(core, ns, f"app={name}")
    dirs = [cgroup_dirs(p, CONTAINER) for p in pods]
    if not pods or any(d is None for d in dirs):
        raise RuntimeError(f"no running pod with a cgroup here for {ns}/{name}")
    return read_windows(dirs, None, windows=max(1, int(seconds // window_s)), window_s=window_s)
