"""Manifests of what a Kubernetes sweep creates: run pods, stress pods, the sampler ConfigMap.

Plain dicts (the client accepts them as bodies, and tests can inspect them).
Every object carries the labels of :func:`.labels.labels` (see
:mod:`.labels`), which is how cleanup and orphan removal find them.
"""

from __future__ import annotations

import hashlib
import math
import shlex
from importlib import resources
from typing import Any

from throttlelab.core.quantities import format_cores, format_millicores
from throttlelab.errors import SpecError

from .labels import dns_name, labels
from throttlelab.experiment.sweeps.kubernetes_options import KubernetesOptions

CONTAINER = "workload"
SAMPLER_DIR = "/throttlelab/bin"
WORK_DIR = "/throttlelab/work"
SAMPLER_FILE = "sampler.sh"
#: The built-in Go service in its image (scripts/cluster/tlnode/images.py builds it) and its port.
SERVICE_BIN = "/bin/tl-service"
SERVICE_PORT = 8080
SERVICE_IMAGE = "throttlelab.local/service"


def tool_image(name: str) -> str:
    """The image of a built-in Go tool (``service``, ``burst``): ``throttlelab.local/<name>:<10 hex digits>``, the
    SHA-1 of its Go source (the key its local build is cached under), so a stale binary never runs."""
    code = (resources.files("throttlelab.experiment") / "assets" / name / "main.go").read_bytes()
    return f"throttlelab.local/{name}:{hashlib.sha1(code).hexdigest()[:10]}"


def service_image() -> str:
    """The image of the built-in service (:func:`tool_image`)."""
    return tool_image("service")


#: The burst workload in its image: duty cycles, bursts together, idle sidecars, batches (``assets/burst``).
BURST_BIN = "/bin/tl-burst"


def burst_image() -> str:
    """The image of the burst workload (:func:`tool_image`)."""
    return tool_image("burst")


def service_env(threads: str) -> dict[str, str]:
    """``GOMAXPROCS`` = the thread count; none for ``auto`` (the Go runtime's own, container-aware choice)."""
    return {} if threads == "auto" else {"GOMAXPROCS": threads}


def cpu_quantity(cores: float) -> str:
    """Cores as a millicore quantity (``0.5`` -> ``'500m'``)."""
    return format_millicores(max(cores, 0.001))


def sampler_script() -> str:
    """Text of the in-pod sampler (``sampler.sh`` next to this module)."""
    return resources.files(__package__).joinpath(SAMPLER_FILE).read_text()


def sampler_configmap_name(experiment: str, session: str) -> str:
    """Name of the sampler ConfigMap of one sweep session."""
    return dns_name(f"tl-sampler-{experiment}", 50) + f"-{session}"


def sampler_configmap(experiment: str, session: str, namespace: str) -> dict[str, Any]:
    """The ConfigMap shipping the sampler script to the pods."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": sampler_configmap_name(experiment, session),
            "namespace": namespace,
            "labels": labels(experiment, session, "sampler"),
        },
        "data": {SAMPLER_FILE: sampler_script()},
    }


def workload_argv(kind: str, command: str | None, threads: str, limit_cores: float | None,
                  options: dict[str, Any] | None = None) -> list[str]:
    """The workload's argv inside the pod, with ``{threads}`` and ``{nproc}`` substituted.

    ``{nproc}`` is the CPU limit rounded up (the cores the pod may use), or
    ``auto`` when unlimited.  Without a command, ``burner`` is a POSIX-sh busy
    loop (``iterations`` per thread), ``ffmpeg`` encodes a synthetic clip
    (``duration``, ``size``, ``preset``) and ``service`` is the built-in Go
    HTTP service (``work`` units per request, listening on all the pod's
    addresses; its thread count goes in ``GOMAXPROCS``, :func:`service_env`);
    ``go`` needs an explicit command.

    Raises
    ------
    SpecError
        When no command can be made for ``kind``.
    """
    options = options or {}
    nproc = str(math.ceil(limit_cores)) if limit_cores else "auto"
    if command:
        return shlex.split(command.format(threads=threads, nproc=nproc))
    n = int(threads) if threads != "auto" else (math.ceil(limit_cores) if limit_cores else 1)
    if kind == "burner":
        iterations = int(options.get("iterations", 2_000_000))
        loop = f"i=0; while [ $i -lt {iterations} ]; do i=$((i+1)); done"
        script = f"n=0; while [ $n -lt {n} ]; do ( {loop} ) & n=$((n+1)); done; wait"
        return ["/bin/sh", "-c", script]
    if kind == "service":
        work = options.get("work", 30)
        if isinstance(work, bool) or not isinstance(work, (int, float)) or work < 0:
            raise SpecError(f"service workload option 'work' must be a number >= 0, got {work!r}")
        return [SERVICE_BIN, "-addr", f"0.0.0.0:{SERVICE_PORT}", "-work", str(int(work))]
    if kind == "ffmpeg":
        duration = options.get("duration", 10)
        size = options.get("size", "1280x720")
        rate = options.get("rate", 30)
        preset = options.get("preset", "veryfast")
        thr = [] if threads == "auto" else ["-threads", threads]  # auto: ffmpeg decides
        return ["ffmpeg", "-hide_banner", "-nostats", *thr, "-f", "lavfi", "-i",
                f"testsrc2=duration={duration}:size={size}:rate={rate}", "-c:v", "libx264",
                "-preset", str(preset), *thr, "-f", "null", "-"]
    raise SpecError(f"workload kind {kind!r} needs 'kubernetes.command' (or workload.command) "
                    "to run in a pod")


def node_affinity(node: str) -> dict[str, Any]:
    """Affinity pinning a pod to one node by name, through the scheduler
    (so an unschedulable pod still gets the scheduler's reason)."""
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}


def run_pod(
    *,
    name: str,
    experiment: str,
    run_id: str,
    session: str,
    options: KubernetesOptions,
    argv: list[str],
    limit_cores: float | None,
    threads: str,
    sampling_interval_s: float,
    node: str | None = None,
    linger_s: float = 0.0,
    image: str | None = None,
    extra_env: dict[str, str] | None = None,
    port: int | None = None,
) -> dict[str, Any]:
    """The Pod of one run: the workload wrapped by the sampler, with the run's CPU limit.

    ``linger_s``: the container stays idle that long after the workload's result
    (so cAdvisor's last scrape holds the final counters; see :mod:`.cadvisor`).
    ``image`` replaces ``options.image``; ``extra_env`` is added to the
    container's environment (e.g. ``GOMAXPROCS``); ``port`` is declared as the
    container's port (a service run).

    The CPU request equals the limit (so the scheduler reserves what the run may
    use); an unlimited run gets neither.  ``restartPolicy: Never``; the
    service-account token is not mounted (the workload needs no API access).
    """
    resources_: dict[str, dict[str, str]] = {"limits": {}, "requests": {}}
    if limit_cores is not None:
        resources_["limits"]["cpu"] = resources_["requests"]["cpu"] = cpu_quantity(limit_cores)
    if options.memory_limit:
        resources_["limits"]["memory"] = options.memory_limit
    if options.memory_request or options.memory_limit:
        resources_["requests"]["memory"] = options.memory_request or options.memory_limit
    resources_ = {k: v for k, v in resources_.items() if v}
    env = [
        {"name": "THROTTLELAB_INTERVAL", "value": f"{sampling_interval_s:g}"},
        {"name": "THROTTLELAB_THREADS", "value": threads},
        {"name": "THROTTLELAB_WORKDIR", "value": WORK_DIR},
        {"name": "THROTTLELAB_LINGER_S", "value": f"{linger_s:g}"},
        {"name": "THROTTLELAB_POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        {"name": "THROTTLELAB_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
        *({"name": k, "value": v} for k, v in (extra_env or {}).items()),
    ]
    container = {
        "name": CONTAINER,
        "image": image or options.image,
        "imagePullPolicy": options.image_pull_policy,
        "command": ["/bin/sh", f"{SAMPLER_DIR}/{SAMPLER_FILE}"],
        "args": argv,
        "env": env,
        "resources": resources_,
        "volumeMounts": [
            {"name": "sampler", "mountPath": SAMPLER_DIR, "readOnly": True},
            {"name": "work", "mountPath": WORK_DIR},
        ],
    }
    if port is not None:
        container["ports"] = [{"containerPort": port, "protocol": "TCP"}]
    volumes = [
        {"name": "sampler", "configMap": {"name": sampler_configmap_name(experiment, session), "defaultMode": 0o555}},
        {"name": "work", "emptyDir": {}},
    ]
    annotations = {
        **options.annotations,
        "throttlelab.io/cpu-limit-cores": format_cores(limit_cores),
        "throttlelab.io/threads": threads,
    }
    return _pod(name=name, options=options, pod_labels=labels(experiment, session, "run", run_id),
                annotations=annotations, grace_s=5, container=container, volumes=volumes, node=node)


def stress_pod(
    *,
    name: str,
    experiment: str,
    run_id: str,
    session: str,
    options: KubernetesOptions,
    limit_cores: float,
    workers: int,
    node: str | None = None,
) -> dict[str, Any]:
    """A noisy neighbour: ``workers`` busy loops under a CPU limit of ``limit_cores``.

    It requests only 10m so it never keeps the run itself from being scheduled;
    it stops on SIGTERM (the shell is PID 1, which ignores signals without a trap).
    """
    script = (
        "trap 'kill 0; exit 0' TERM INT; "
        f"n=0; while [ $n -lt {int(workers)} ]; do ( while :; do :; done ) & n=$((n+1)); done; wait"
    )
    container = {
        "name": "stress",
        "image": options.stress_image,
        "imagePullPolicy": options.image_pull_policy,
        "command": ["/bin/sh", "-c", script],
        "resources": {"limits": {"cpu": cpu_quantity(limit_cores)}, "requests": {"cpu": "10m"}},
    }
    return _pod(name=name, options=options, pod_labels=labels(experiment, session, "stress", run_id),
                annotations=dict(options.annotations), grace_s=2, container=container, node=node)


def _pod(*, name: str, options: KubernetesOptions, pod_labels: dict[str, str], annotations: dict[str, str],
         grace_s: int, container: dict[str, Any], volumes: list[dict[str, Any]] | None = None,
         node: str | None) -> dict[str, Any]:
    """A one-container Pod that never restarts, placed as ``options`` say (and on ``node`` if given)."""
    spec: dict[str, Any] = {
        "restartPolicy": "Never",
        "automountServiceAccountToken": False,
        "terminationGracePeriodSeconds": grace_s,
        "containers": [container],
    }
    if volumes is not None:
        spec["volumes"] = volumes
    if options.service_account:
        spec["serviceAccountName"] = options.service_account
    if options.node_selector:
        spec["nodeSelector"] = dict(options.node_selector)
    if node:
        spec["affinity"] = node_affinity(node)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": options.namespace, "labels": pod_labels,
                     "annotations": annotations},
        "spec": spec,
    }
