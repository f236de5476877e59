"""The ``kubernetes:`` mapping of a sweep spec, validated.

Example (``studies/sweeps/kubernetes_example.yaml``)::

    backend: kubernetes
    kubernetes:
      namespace: throttlelab          # every object the runner makes lives here
      context: my-cluster             # kubeconfig context (default: current)
      kubeconfig: ~/.kube/config      # default: $KUBECONFIG or ~/.kube/config
      in_cluster: false               # true: use the pod's service account
      image: linuxserver/ffmpeg:7.1   # the workload image (must have /bin/sh)
      command: "ffmpeg -threads {threads} ..."   # overrides the workload's command
      node_selector: {kubernetes.io/arch: amd64}
      nodes: [node-a, node-b]         # pin runs to these nodes, one run per node at a time
      max_parallel: 2                 # runs on different nodes at once
      memory_limit: 1Gi
      pending_timeout_s: 120          # Pending longer than this: failed, with the scheduler's reason
      stress_image: busybox:1.36      # noisy-neighbour pods
      node_cpus: 8                    # node CPUs for contention shares (default: read the node)
      image_pull_policy: IfNotPresent
      service_account: throttlelab-runner   # the pods' service account (default: namespace default)
      annotations: {sidecar.istio.io/inject: "false"}   # added to every pod (e.g. no mesh sidecar)
      prometheus_url: http://127.0.0.1:9090   # also read each run's counters from cAdvisor (default: $PROMETHEUS)

Every problem raises :class:`~throttlelab.errors.SpecError` naming the spec file
and the key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from throttlelab.errors import SpecError

DEFAULT_IMAGE = "busybox:1.36"
_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
_QUANTITY = re.compile(r"\d+(\.\d+)?([EPTGMK]i?|[numk]|e\d+)?")

_KEYS = {
    "namespace", "context", "kubeconfig", "in_cluster", "image", "command", "node_selector",
    "nodes", "max_parallel", "memory_limit", "memory_request", "pending_timeout_s",
    "stress_image", "image_pull_policy", "service_account", "poll_interval_s", "keep_pods", "node_cpus", "annotations",
    "prometheus_url",
}


@dataclass(frozen=True)
class KubernetesOptions:
    """Validated backend options (see the module docstring for the YAML keys)."""

    namespace: str = "throttlelab"
    context: str | None = None
    kubeconfig: str | None = None
    in_cluster: bool = False
    image: str = DEFAULT_IMAGE
    command: str | None = None
    node_selector: dict[str, str] = field(default_factory=dict)
    nodes: tuple[str, ...] = ()
    max_parallel: int = 1
    memory_limit: str | None = None
    memory_request: str | None = None
    pending_timeout_s: float = 120.0
    stress_image: str = DEFAULT_IMAGE
    image_pull_policy: str = "IfNotPresent"
    service_account: str | None = None
    poll_interval_s: float = 0.5
    keep_pods: bool = False
    node_cpus: float | None = None
    annotations: dict[str, str] = field(default_factory=dict)
    prometheus_url: str | None = None


def parse_options(raw: Mapping[str, Any] | None, *, source: str | Path | None = None) -> KubernetesOptions:
    """Validate the spec's ``kubernetes:`` mapping.

    Raises
    ------
    SpecError
        Naming ``source`` and the key (``kubernetes.<key>``).
    """
    where = str(source) if source is not None else "<spec>"
    raw = dict(raw or {})

    def fail(key: str, msg: str) -> SpecError:
        return SpecError(f"{where}: key 'kubernetes.{key}': {msg}")

    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise fail(unknown[0], f"unknown key (known: {', '.join(sorted(_KEYS))})")
    kw: dict[str, Any] = {}
    for key in ("namespace", "service_account"):
        if raw.get(key) is not None:
            v = raw[key]
            if not isinstance(v, str) or not _DNS_LABEL.fullmatch(v):
                raise fail(key, f"must be a DNS label (lowercase letters, digits, '-'), got {v!r}")
            kw[key] = v
    if raw.get("prometheus_url") is not None:
        v = raw["prometheus_url"]
        if not isinstance(v, str) or not re.fullmatch(r"https?://\S+", v):
            raise fail("prometheus_url", f"must be an http(s) URL such as http://127.0.0.1:9090, got {v!r}")
        kw["prometheus_url"] = v
    for key in ("context", "kubeconfig", "image", "command", "stress_image"):
        if raw.get(key) is not None:
            v = raw[key]
            if not isinstance(v, str) or not v.strip():
                raise fail(key, "must be a non-empty string")
            kw[key] = v
    if "command" in kw:
        try:
            kw["command"].format(threads="1", nproc="1")
        except (KeyError, IndexError, ValueError) as exc:
            raise fail("command", f"only {{threads}} and {{nproc}} may be substituted ({exc})") from None
    for key in ("in_cluster", "keep_pods"):
        if key in raw:
            if not isinstance(raw[key], bool):
                raise fail(key, f"must be true or false, got {raw[key]!r}")
            kw[key] = raw[key]
    if raw.get("node_selector") is not None:
        sel = raw["node_selector"]
        if not isinstance(sel, Mapping) or not all(isinstance(k, str) for k in sel):
            raise fail("node_selector", "must be a mapping of label -> value")
        kw["node_selector"] = {k: str(v) for k, v in sel.items()}
    if raw.get("annotations") is not None:
        ann = raw["annotations"]
        if not isinstance(ann, Mapping) or not all(isinstance(k, str) for k in ann):
            raise fail("annotations", "must be a mapping of annotation -> value")
        kw["annotations"] = {k: str(v) for k, v in ann.items()}
    if raw.get("nodes") is not None:
        nodes = raw["nodes"]
        if not isinstance(nodes, list) or not all(isinstance(n, str) and n for n in nodes):
            raise fail("nodes", "must be a list of node names")
        kw["nodes"] = tuple(dict.fromkeys(nodes))
    if "max_parallel" in raw:
        v = raw["max_parallel"]
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise fail("max_parallel", f"must be an integer >= 1, got {v!r}")
        kw["max_parallel"] = v
    for key in ("memory_limit", "memory_request"):
        if raw.get(key) is not None:
            v = str(raw[key])
            if not _QUANTITY.fullmatch(v):
                raise fail(key, f"must be a Kubernetes quantity such as 512Mi, got {v!r}")
            kw[key] = v
    if raw.get("node_cpus") is not None:
        v = raw["node_cpus"]
        if not isinstance(v, (int, float)) or isinstance(v, bool) or v <= 0:
            raise fail("node_cpus", f"must be a positive number of CPUs, got {v!r}")
        kw["node_cpus"] = float(v)
    for key, lo in (("pending_timeout_s", 1.0), ("poll_interval_s", 0.05)):
        if key in raw:
            v = raw[key]
            if not isinstance(v, (int, float)) or isinstance(v, bool) or v < lo:
                raise fail(key, f"must be a number >= {lo}, got {v!r}")
            kw[key] = float(v)
    if "image_pull_policy" in raw:
        v = raw["image_pull_policy"]
        if v not in ("Always", "IfNotPresent", "Never"):
            raise fail("image_pull_policy", f"must be Always, IfNotPresent or Never, got {v!r}")
        kw["image_pull_policy"] = v
    if kw.get("in_cluster") and (kw.get("context") or kw.get("kubeconfig")):
        raise fail("in_cluster", "in-cluster config takes no context or kubeconfig")
    return KubernetesOptions(**kw)
