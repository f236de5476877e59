"""The panel of real workloads for the kernel ladders: shapes users run, at the CPU settings users give them.

Each :class:`PanelWorkload` is a Deployment (or Job pods, for the batch shapes) of
the burst workload (``assets/burst``), the Go service or the Python pipeline
service, with a "current" limit and request as users set them: starved (most
periods throttled), moderately throttled, oversized, or no limit.  Sized for a
2-core node shared with the control plane.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .manifests import BURST_BIN, burst_image, cpu_quantity, service_image

#: The container every panel workload runs in.
CONTAINER = "main"


@dataclass(frozen=True)
class PanelWorkload:
    """One workload of the panel.

    Attributes
    ----------
    name, shape
        The Deployment's name; the shape in words.
    argv
        The container's command.
    limit_cores, request_cores
        The "current" setting (``limit_cores`` ``None``: no limit).
    kind
        ``"Deployment"`` or ``"Job"`` (pods made again and again, as a CronJob makes them).
    replicas
        Pods of a Deployment.
    ladder
        The rungs of its truth ladder (cores).
    load_rps
        Requests per second of steady open-loop load (services), 0 for none.
    """

    name: str
    shape: str
    argv: tuple[str, ...]
    limit_cores: float | None
    request_cores: float
    ladder: tuple[float, ...]
    kind: str = "Deployment"
    replicas: int = 1
    image: str = ""
    env: dict[str, str] = field(default_factory=dict)
    load_rps: float = 0.0

    def container(self, limit_cores: float | None = None, request_cores: float | None = None) -> dict[str, Any]:
        """The container, at the current setting unless told another."""
        lim = self.limit_cores if limit_cores is None else limit_cores
        req = self.request_cores if request_cores is None else request_cores
        res: dict[str, Any] = {"requests": {"cpu": cpu_quantity(req)}}
        if lim is not None:
            res["limits"] = {"cpu": cpu_quantity(lim)}
        return {"name": CONTAINER, "image": self.image or burst_image(), "imagePullPolicy": "Never",
                "command": list(self.argv), "resources": res,
                "env": [{"name": k, "value": v} for k, v in sorted(self.env.items())],
                "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}]}

    def deployment(self) -> dict[str, Any]:
        """The Deployment at the current setting."""
        labels = {"app": self.name, "throttlelab.io/panel": "kernel-truth"}
        return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": self.name, "labels": labels},
                "spec": {"replicas": self.replicas, "selector": {"matchLabels": {"app": self.name}},
                         "template": {"metadata": {"labels": labels}, "spec": {
                             "automountServiceAccountToken": False, "terminationGracePeriodSeconds": 1,
                             "containers": [self.container()]}}}}


def _burst(*args: str) -> tuple[str, ...]:
    return (BURST_BIN, *args)


#: The panel (see the module docstring); ladders span about half to four times the mean demand.
PANEL: dict[str, PanelWorkload] = {w.name: w for w in [
    PanelWorkload("duty-cycle", "one thread, busy 25 ms of every 100 ms (closed loop)",
                  _burst("-threads", "1", "-busy", "25ms", "-every", "100ms", "-cv", "0.3"),
                  limit_cores=0.1, request_cores=0.05,
                  ladder=(0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6)),
    PanelWorkload("burst-together", "4 threads, each busy 10 ms every 100 ms, on the clock (the quota runs out early)",
                  _burst("-threads", "4", "-busy", "10ms", "-every", "100ms", "-align", "-cv", "0.5"),
                  limit_cores=0.5, request_cores=0.25, env={"GOMAXPROCS": "4"},
                  ladder=(0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0, 1.2)),
    PanelWorkload("idle-sidecar", "a few millicores with a 40-ms spike every 7 s",
                  _burst("-threads", "1", "-busy", "300us", "-every", "100ms", "-cv", "0.5", "-spike", "40ms",
                         "-spike-every", "7s"),
                  limit_cores=None, request_cores=0.05,
                  ladder=(0.01, 0.02, 0.03, 0.05, 0.08, 0.12, 0.2, 0.3)),
]}


def service_workload() -> PanelWorkload:
    """The Go service at GOMAXPROCS 8 under a 1-core limit (load from this machine)."""
    return PanelWorkload("go-service", "the Go service under steady open-loop load, GOMAXPROCS 8 under 1 core",
                         ("/bin/tl-service", "-addr", "0.0.0.0:8080", "-work", "60"), limit_cores=1.0,
                         request_cores=0.5, image=service_image(), env={"GOMAXPROCS": "8"},
                         ladder=(0.3, 0.4, 0.5, 0.6, 0.8, 1.0, 1.3, 1.6), load_rps=40.0)
