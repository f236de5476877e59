"""A ``service`` run as a pod: the built-in Go service under the run's limit, driven from this machine.

The same measurement as the local backend
(:mod:`throttlelab.experiment.local_cgroup.service_load`), with the service in a
pod:

1. the run pod (image :func:`.manifests.service_image`, or
   ``kubernetes.service_image``) runs ``/bin/tl-service`` under the in-pod
   sampler, with the run's CPU limit (= request) and ``GOMAXPROCS`` = the thread
   count (``auto``: unset, the Go runtime's own container-aware choice);
2. once Running, the load generator on this machine reaches it at the pod's IP
   (the pod network: on the one-node cluster the CNI bridge, traffic stays on
   this machine) and waits for ``/healthz`` (``ready_timeout_s``);
3. warm-up, closed loop at saturation and open loop at ``rate``
   (:func:`~throttlelab.experiment.local_cgroup.service_load.drive_service`);
   the container's own cgroup counters are read through the service's
   ``/cgroup`` endpoint right before the first and right after the last window,
   so ``cpu_seconds``, ``nr_periods``, ``nr_throttled`` and ``throttled_seconds``
   cover the windows only, as on the local backend;
4. ``POST /quit`` ends the service; the sampler prints its last block and the
   pod ends; its log gives the monitor log, and (with a Prometheus) the
   ``cadvisor_*`` columns, which cover the container's whole life (start-up,
   warm-up and idle linger included).
"""

from __future__ import annotations

import http.client
import json
import logging
import time
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any

from throttlelab.core.metrics import COUNTER
from throttlelab.errors import SpecError
from throttlelab.experiment.local_cgroup.loadgen import Labels, require_loopback
from throttlelab.experiment.local_cgroup.cgroups import Counters
from throttlelab.experiment.local_cgroup.service_load import drive_service, service_options

from . import manifests as mf
from .pod_watch import read_state, wait_for

if TYPE_CHECKING:
    from .run_context import RunContext

log = logging.getLogger(__name__)


class ServiceNotReady(RuntimeError):
    """The service pod never answered ``/healthz`` (the run fails; the sweep goes on)."""


def service_pod_body(ctx: RunContext, plan: Any, name: str, node: str | None, linger_s: float) -> dict[str, Any]:
    """The run pod of a service plan (see the module doc)."""
    opts = ctx.options
    argv = mf.workload_argv("service", opts.command or plan.workload.command, plan.threads, plan.limit_cores,
                            plan.workload.options)
    return mf.run_pod(name=name, experiment=ctx.experiment, run_id=plan.run_id, session=ctx.session, options=opts,
                      argv=argv, limit_cores=plan.limit_cores, threads=plan.threads,
                      sampling_interval_s=plan.sampling_interval_s, node=node, linger_s=linger_s,
                      image=opts.service_image or mf.service_image(), extra_env=mf.service_env(plan.threads),
                      port=mf.SERVICE_PORT)


def http_json(url: str, *, method: str = "GET", timeout_s: float = 10.0) -> dict[str, Any]:
    """GET (or POST) ``url`` and decode its JSON answer."""
    require_loopback(url)
    req = urllib.request.Request(url, method=method, data=b"" if method == "POST" else None)
    with urllib.request.urlopen(req, timeout=timeout_s) as resp:
        return json.loads(resp.read() or b"{}")


def cgroup_counters(base_url: str) -> Counters:
    """The service container's CPU counters from its ``/cgroup`` endpoint.

    Examples
    --------
    The endpoint answers ``{"usage_ns": 2500000000, "nr_periods": 40, "nr_throttled": 30,
    "throttled_ns": 900000000}``; as :class:`Counters` that is ``cpu_seconds`` 2.5,
    ``throttled_seconds`` 0.9.
    """
    doc = http_json(f"{base_url}/cgroup")
    return Counters({"nr_periods": int(doc["nr_periods"]), "nr_throttled": int(doc["nr_throttled"]),
                     COUNTER["throttled_seconds"].v1_key: int(doc["throttled_ns"])},  # in ns, as cgroup v1's key
                    int(doc["usage_ns"]))


def wait_healthy(ctx: RunContext, name: str, base_url: str, timeout_s: float) -> int:
    """Poll ``/healthz`` until it answers; return the service's GOMAXPROCS.

    Raises
    ------
    ServiceNotReady
        When the pod ends or nothing answers within ``timeout_s``.
    """
    deadline = time.monotonic() + timeout_s
    last = "no answer"
    while True:
        try:
            with urllib.request.urlopen(f"{base_url}/healthz", timeout=2.0) as resp:
                resp.read()
            return int(http_json(f"{base_url}/work?units=0")["gomaxprocs"])
        except (OSError, http.client.HTTPException, ValueError, KeyError) as exc:
            last = f"{type(exc).__name__}: {exc}"
        if read_state(ctx, name, mf.CONTAINER).terminal:
            raise ServiceNotReady(f"the service pod {name} ended before answering {base_url}/healthz")
        if time.monotonic() > deadline:
            raise ServiceNotReady(f"the service pod {name} did not answer {base_url}/healthz within "
                                  f"{timeout_s:g} s ({last})")
        time.sleep(0.2)


def pod_ip(ctx: RunContext, name: str, timeout_s: float = 30.0) -> str:
    """The Running pod's IP (the kubelet reports it shortly after the start)."""
    deadline = time.monotonic() + timeout_s
    while True:
        pod = ctx.cluster.core.read_namespaced_pod(name, ctx.cluster.namespace)
        if pod.status and pod.status.pod_ip:
            return pod.status.pod_ip
        if time.monotonic() > deadline:
            raise ServiceNotReady(f"the service pod {name} has no IP after {timeout_s:g} s")
        time.sleep(0.2)


def run_service_pod(ctx: RunContext, plan: Any, name: str, monitor_log: Path,
                    measure: Any) -> dict[str, Any]:
    """Drive the created, Running-or-starting service pod ``name``; return the row's measurement columns.

    ``measure(outcome)`` reads the ended pod (log, sampler totals, cAdvisor:
    :func:`.pod_runner._measure`); the window columns replace its totals.
    """
    opts = service_options(plan.workload)
    out = wait_for(ctx, name, until_running=True, run_timeout_s=None, container=mf.CONTAINER)
    if out.status != "ok":
        return measure(out) if out.state.running else {"status": out.status, "error": out.error}
    if out.state.terminal:  # it ended before anything reached it: whatever its exit code, no measurement
        row = measure(out)
        why = row.get("error") or f"exit code {out.state.exit_code}"
        row.update(status="failed", error=f"the service pod {name} ended before the load generator reached it ({why})")
        return row
    window: dict[str, Any] = {}
    try:
        base = f"http://{pod_ip(ctx, name)}:{mf.SERVICE_PORT}"
        try:
            require_loopback(base)
        except SpecError:
            raise ServiceNotReady(f"the service pod {name} is at {base}, not on a pod network of this machine: the "
                                  "load generator reaches pods only through an interface the one-node cluster "
                                  "made (run the sweep on the node)") from None
        procs = wait_healthy(ctx, name, base, opts["ready_timeout_s"])
        labels = Labels(experiment=plan.experiment, run_id=plan.run_id, config=f"threads={plan.threads}")
        window = drive_service(base, opts, labels, lambda: cgroup_counters(base), monitor_log)
        window["threads_effective"] = procs
        try:
            http_json(f"{base}/quit", method="POST")
        except (OSError, http.client.HTTPException, ValueError) as exc:  # it may close the connection as it exits
            log.debug("run %s: /quit: %s", plan.run_id, exc)
    except ServiceNotReady as exc:
        window = {"status": "failed", "error": str(exc)}
    except (OSError, http.client.HTTPException, ValueError, KeyError) as exc:  # the service went away mid-run
        window = {"status": "failed", "error": f"the service pod stopped answering: {type(exc).__name__}: {exc}"}
    if window.get("status") == "failed":  # no use waiting for a pod that does not answer: it is deleted
        return window
    end = wait_for(ctx, name, until_running=False, run_timeout_s=plan.timeout_s, container=mf.CONTAINER)
    row = measure(end)
    pod_status, pod_error = row.get("status"), row.get("error")
    row.update(window)
    if pod_status != "ok":  # the pod itself failed or timed out after the windows: say so
        row.update(status=pod_status, error=pod_error)
    return row
