"""Reading a pod's status: where it is, whether it is done, and why it failed.

Works on the pod as a plain dict (``ApiClient.sanitize_for_serialization`` of a
``V1Pod``, camelCase keys), so it is testable on captured JSON.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

#: Container waiting reasons that will not fix themselves: the run fails at once.
FATAL_WAITING = frozenset({
    "ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull",
    "CreateContainerConfigError", "CreateContainerError", "RunContainerError",
})


@dataclass(frozen=True)
class PodState:
    """What a pod's status says, for the runner.

    Attributes
    ----------
    phase
        ``Pending``, ``Running``, ``Succeeded``, ``Failed`` or ``Unknown``.
    node
        Node the pod is bound to (``None`` while unscheduled).
    terminal
        The pod will not change any more (Succeeded or Failed).
    fatal
        A reason the pod will never run (image pull error...), else ``None``.
    unschedulable
        The scheduler's message while the pod cannot be placed, else ``None``.
    exit_code, reason, message
        The workload container's termination (``reason`` e.g. ``OOMKilled``).
    started_at, finished_at
        The container's start and end (second resolution), when known.
    """

    phase: str
    node: str | None = None
    terminal: bool = False
    fatal: str | None = None
    unschedulable: str | None = None
    exit_code: int | None = None
    reason: str | None = None
    message: str | None = None
    started_at: dt.datetime | None = None
    finished_at: dt.datetime | None = None

    @property
    def running(self) -> bool:
        """The workload has started (Running or already terminal)."""
        return self.phase == "Running" or self.terminal

    def failure(self) -> str | None:
        """Why the run failed, or ``None`` when it succeeded / is not finished."""
        if self.fatal:
            return self.fatal
        if not self.terminal:
            return None
        if self.reason == "OOMKilled":
            return f"OOMKilled: the container exceeded its memory limit (exit code {self.exit_code})"
        if self.exit_code not in (0, None):
            return f"exit code {self.exit_code}" + (f" ({self.reason})" if self.reason else "")
        if self.phase == "Failed":
            return f"pod failed: {self.reason or 'unknown reason'}" + (f": {self.message}" if self.message else "")
        return None


def _time(value: Any) -> dt.datetime | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
    try:
        return dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


def pod_state(pod: dict[str, Any], container: str | None = None) -> PodState:
    """Summarise a pod dict (camelCase, as the API returns it).

    Parameters
    ----------
    pod
        The pod.
    container
        The container whose termination counts (default: the first one).
    """
    status = pod.get("status") or {}
    spec = pod.get("spec") or {}
    phase = status.get("phase") or "Pending"
    node = spec.get("nodeName") or None
    unschedulable = None
    for cond in status.get("conditions") or []:
        if cond.get("type") == "PodScheduled" and cond.get("status") == "False":
            unschedulable = cond.get("message") or cond.get("reason") or "Unschedulable"
    statuses = status.get("containerStatuses") or []
    cs = next((c for c in statuses if container is None or c.get("name") == container), None)
    fatal = exit_code = reason = message = started = finished = None
    if cs:
        state = cs.get("state") or {}
        waiting = state.get("waiting") or {}
        if waiting.get("reason") in FATAL_WAITING:
            fatal = f"{waiting['reason']}: {waiting.get('message') or 'no message'}"
        if state.get("terminated"):
            term = state["terminated"]
            exit_code = term.get("exitCode")
            reason = term.get("reason")
            message = term.get("message")
            started, finished = _time(term.get("startedAt")), _time(term.get("finishedAt"))
        elif state.get("running"):
            started = _time(state["running"].get("startedAt"))
    if reason is None and phase == "Failed":
        reason, message = status.get("reason"), status.get("message")
    return PodState(
        phase=phase,
        node=node,
        terminal=phase in ("Succeeded", "Failed"),
        fatal=fatal,
        unschedulable=unschedulable,
        exit_code=exit_code,
        reason=reason,
        message=message,
        started_at=started,
        finished_at=finished,
    )


def scheduling_message(events: list[dict[str, Any]]) -> str | None:
    """The latest ``FailedScheduling`` message among a pod's events, if any."""
    failed = [e for e in events if e.get("reason") == "FailedScheduling"]
    if not failed:
        return None

    def when(e: dict[str, Any]) -> str:
        return str(e.get("lastTimestamp") or e.get("eventTime") or e.get("firstTimestamp") or "")

    return max(failed, key=when).get("message")
