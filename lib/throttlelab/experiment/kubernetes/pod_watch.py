"""Watching one pod: its state, why it is still Pending, waiting until it runs or ends.

:func:`wait_for` polls the pod's status (:mod:`.pod_status` reads it) every
``options.poll_interval_s`` and returns an :class:`Outcome`: ``ok`` when the
pod runs (or has ended), ``failed`` on a fatal waiting reason (image pull...),
``timeout`` when it stays Pending longer than ``options.pending_timeout_s``
(with the scheduler's reason) or runs longer than the run's timeout.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .client import api_error_message, api_exception
from .pod_status import PodState, pod_state, scheduling_message

if TYPE_CHECKING:
    from .run_context import RunContext


@dataclass
class Outcome:
    """How waiting for a pod ended."""

    state: PodState
    status: str = "ok"          # ok | failed | timeout
    error: str | None = None
    started_wall: dt.datetime | None = None


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def _as_dict(ctx: RunContext, obj: Any) -> dict[str, Any]:
    return ctx.cluster.api.sanitize_for_serialization(obj)


def read_state(ctx: RunContext, name: str, container: str | None = None) -> PodState:
    """The pod's current state (raises ``ApiException`` if it is gone)."""
    pod = ctx.cluster.core.read_namespaced_pod(name, ctx.cluster.namespace)
    return pod_state(_as_dict(ctx, pod), container)


def scheduler_reason(ctx: RunContext, name: str, state: PodState) -> str:
    """Why a pod is still Pending: the scheduler's condition message, else its events."""
    if state.unschedulable:
        return state.unschedulable
    try:
        events = ctx.cluster.core.list_namespaced_event(
            ctx.cluster.namespace, field_selector=f"involvedObject.name={name}")
        msg = scheduling_message([_as_dict(ctx, e) for e in events.items])
    except api_exception() as exc:
        msg = f"(events not readable: {api_error_message(exc)})"
    return msg or ("bound to node, containers not started" if state.node else "not scheduled yet")


def wait_for(ctx: RunContext, name: str, *, until_running: bool, run_timeout_s: float | None,
             container: str | None = None) -> Outcome:
    """Poll a pod until it is Running (``until_running``) or terminal.

    Pending beyond ``options.pending_timeout_s`` gives status ``timeout`` with the
    scheduler's reason; a fatal waiting reason (image pull...) gives ``failed``;
    running longer than ``run_timeout_s`` gives ``timeout``.
    """
    opts = ctx.options
    created = time.monotonic()
    running_since: float | None = None
    started_wall = None
    while True:
        state = read_state(ctx, name, container)
        if state.fatal:
            return Outcome(state, "failed", state.fatal)
        if state.running:
            if running_since is None:
                running_since, started_wall = time.monotonic(), _now()
            if until_running or state.terminal:
                return Outcome(state, "ok", None, started_wall)
            if run_timeout_s is not None and time.monotonic() - running_since > run_timeout_s:
                return Outcome(state, "timeout", f"still running after the run timeout of {run_timeout_s:g} s",
                               started_wall)
        elif time.monotonic() - created > opts.pending_timeout_s:
            reason = scheduler_reason(ctx, name, state)
            return Outcome(state, "timeout",
                           f"Pending for more than {opts.pending_timeout_s:g} s: {reason}")
        time.sleep(opts.poll_interval_s)
