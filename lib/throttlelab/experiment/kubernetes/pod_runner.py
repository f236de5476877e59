"""Running one planned run as a Pod and turning what happened into a runs-table row.

Sequence for one run: noisy-neighbour pods first (when the run's contention is
active), pinned to the run's node and waited for until Running; then the run
pod; it is watched (polling its status, :mod:`.pod_watch`) until it ends, fails
for good, stays Pending too long, or runs longer than the run's timeout; then
its log is read, split (:mod:`.pod_log`) and its samples summarised
(:mod:`.pod_summary`).  A ``service`` run is driven from this machine while its
pod runs (:mod:`.service_pod`).  Every pod the run created is deleted on the way out,
Ctrl-C included.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from throttlelab.errors import EnvironmentProblem, InputError

from . import manifests as mf
from .cleanup import delete_pod, wait_gone
from .client import api_error_message, api_exception
from .labels import pod_name
from .pod_log import split_pod_log
from .pod_watch import Outcome, wait_for
from .run_context import RunContext, node_cores

log = logging.getLogger(__name__)


def _create(ctx: RunContext, body: dict[str, Any]) -> str:
    try:
        ctx.cluster.core.create_namespaced_pod(ctx.cluster.namespace, body)
    except api_exception() as exc:
        if exc.status in (401, 403):
            raise EnvironmentProblem(f"not allowed to create pods in namespace {ctx.cluster.namespace}: "
                                     f"{api_error_message(exc)} (see deploy/rbac.yaml)") from None
        raise RuntimeError(f"cannot create pod {body['metadata']['name']}: {api_error_message(exc)}") from None
    return body["metadata"]["name"]


def start_neighbours(ctx: RunContext, plan: Any, node: str | None, created: list[str]) -> tuple[str | None, str | None]:
    """Start the run's noisy-neighbour pod on ``node`` (any node when ``None``).

    Returns the node it runs on and an error (``None`` when it runs).
    """
    con = plan.contention
    name = pod_name(plan.run_id, "stress")
    cores = node_cores(ctx, node) if node else ctx.options.node_cpus
    if cores is None:
        return None, "contention without kubernetes.nodes needs kubernetes.node_cpus (the node size)"
    body = mf.stress_pod(name=name, experiment=ctx.experiment, run_id=plan.run_id, session=ctx.session,
                         options=ctx.options, limit_cores=con.share * cores, workers=con.workers, node=node)
    created.append(_create(ctx, body))
    out = wait_for(ctx, name, until_running=True, run_timeout_s=None)
    if out.status != "ok":
        return None, f"noisy neighbour {name}: {out.error}"
    return out.state.node, None


def execute_run(ctx: RunContext, plan: Any, monitor_log: Path, node: str | None = None) -> dict[str, Any]:
    """Run ``plan`` as a pod (on ``node`` if given) and return its runs-table row."""
    from throttlelab.experiment.sweeps.backends import base_row

    row = base_row(plan, "kubernetes")
    row["node"] = node
    created: list[str] = []
    opts = ctx.options
    try:
        if plan.contention.active:
            node, err = start_neighbours(ctx, plan, node, created)
            row["node"] = node
            if err:
                row.update(status="failed", error=err)
                return row
        name = pod_name(plan.run_id)
        from .cadvisor import LINGER_S, prometheus_url

        linger_s = LINGER_S if prometheus_url(opts.prometheus_url) else 0.0
        if plan.workload.kind == "service":
            from .service_pod import run_service_pod, service_pod_body

            created.append(_create(ctx, service_pod_body(ctx, plan, name, node, linger_s)))
            row.update(run_service_pod(ctx, plan, name, monitor_log,
                                       lambda out: {"node": out.state.node or node,
                                                    **_measure(ctx, name, plan, out, monitor_log)}))
            return row
        argv = mf.workload_argv(plan.workload.kind, opts.command or plan.workload.command, plan.threads,
                                plan.limit_cores, plan.workload.options)
        body = mf.run_pod(name=name, experiment=ctx.experiment, run_id=plan.run_id, session=ctx.session,
                          options=opts, argv=argv, limit_cores=plan.limit_cores, threads=plan.threads,
                          sampling_interval_s=plan.sampling_interval_s, node=node, linger_s=linger_s)
        created.append(_create(ctx, body))
        out = wait_for(ctx, name, until_running=False, run_timeout_s=plan.timeout_s, container=mf.CONTAINER)
        row["node"] = out.state.node or node
        row.update(_measure(ctx, name, plan, out, monitor_log))
        return row
    finally:
        if not opts.keep_pods:
            _delete_all(ctx, created)


def _delete_all(ctx: RunContext, names: list[str]) -> None:
    for name in names:
        try:
            delete_pod(ctx.cluster, name)
        except Exception as exc:  # noqa: BLE001 - cleanup goes on; orphans are removed later
            log.warning("could not delete pod %s: %s", name, exc)
    stuck = wait_gone(ctx.cluster, names, timeout_s=30.0)
    for name in stuck:  # e.g. a node without a kubelet: remove the API object
        delete_pod(ctx.cluster, name, force=True)


def _measure(ctx: RunContext, name: str, plan: Any, out: Outcome, monitor_log: Path) -> dict[str, Any]:
    """Status, timings and CPU counters of a finished (or abandoned) run pod."""
    state = out.state
    row: dict[str, Any] = {"exit_code": state.exit_code, "started_at": state.started_at or out.started_wall}
    if state.started_at and state.finished_at:
        row["wall_seconds"] = (state.finished_at - state.started_at).total_seconds()
    error = out.error or state.failure()
    row["status"] = out.status if out.status != "ok" else ("failed" if error else "ok")
    row["error"] = error
    if not state.running:  # never started: nothing to read
        return row
    text = _pod_log(ctx, name)
    if text is None:
        log.warning("run %s: pod log unavailable; wall time from the container status, no cgroup samples",
                    plan.run_id)
        return row
    try:
        parts = split_pod_log(text, source=f"pod {ctx.cluster.namespace}/{name} log")
    except InputError as exc:
        row["status"], row["error"] = "failed", error or str(exc)
        return row
    monitor_log.parent.mkdir(parents=True, exist_ok=True)
    monitor_log.write_text(parts.monitor)
    if monitor_log.parent.name == "monitor":  # run store layout: output/<run_id>.txt beside it
        out_dir = monitor_log.parent.parent / "output"
        out_dir.mkdir(exist_ok=True)
        (out_dir / f"{plan.run_id}.txt").write_text(parts.output)
    if parts.complete:
        row.update(exit_code=parts.exit_code, wall_seconds=parts.wall_seconds, started_at=parts.started_at)
        if row["status"] == "ok" and parts.exit_code != 0:
            row["status"], row["error"] = "failed", f"exit code {parts.exit_code}"
    elif row["status"] == "ok":
        row["status"], row["error"] = "failed", "the pod log ends before the workload's result line"
    try:
        from .pod_summary import read_samples, summarise_samples

        row.update(summarise_samples(read_samples(monitor_log)))
    except InputError as exc:
        log.warning("run %s: monitor log unreadable: %s", plan.run_id, exc)
    row.update(_cadvisor(ctx, name, plan, state))
    return row


def _cadvisor(ctx: RunContext, name: str, plan: Any, state: Any) -> dict[str, Any]:
    """``cadvisor_*`` columns: the run container's counters as cAdvisor reported them to Prometheus
    (only when a Prometheus is configured; see :mod:`.cadvisor`)."""
    from . import cadvisor

    url = cadvisor.prometheus_url(ctx.options.prometheus_url)
    if not url or not state.started_at:
        return {}
    import time

    start = state.started_at.timestamp()
    end = (state.finished_at.timestamp() if state.finished_at else time.time()) + 1.0
    time.sleep(max(0.0, end - time.time()))  # the pod lingered (LINGER_S): its final counters were scraped
    try:
        got = cadvisor.pod_counters(url, ctx.cluster.namespace, name, mf.CONTAINER, start, end)
    except Exception as exc:  # noqa: BLE001 - the second opinion is optional; say why it is missing
        log.warning("run %s: no cAdvisor counters from %s: %s", plan.run_id, url, exc)
        return {}
    return {f"cadvisor_{k}": v for k, v in got.items()}


def _pod_log(ctx: RunContext, name: str) -> str | None:
    try:
        return ctx.cluster.core.read_namespaced_pod_log(name, ctx.cluster.namespace, container=mf.CONTAINER)
    except api_exception() as exc:
        log.debug("pod %s log: %s", name, api_error_message(exc))
        return None
    except Exception as exc:  # noqa: BLE001 - e.g. no kubelet behind the node (kwok)
        log.debug("pod %s log: %s", name, exc)
        return None
