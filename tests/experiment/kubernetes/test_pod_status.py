"""Tests of throttlelab.experiment.kubernetes.pod_status: pod states and failure reasons (no cluster needed)."""

from __future__ import annotations

from throttlelab.experiment.kubernetes.pod_status import pod_state, scheduling_message


def _pod(phase="Pending", **status):
    return {"spec": {"nodeName": status.pop("node", None)}, "status": {"phase": phase, **status}}


def test_pod_state_reads_the_failure_reasons():
    unsched = _pod(conditions=[{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                                "message": "0/1 nodes are available: 1 Insufficient cpu."}])
    assert pod_state(unsched).unschedulable == "0/1 nodes are available: 1 Insufficient cpu."
    pull = _pod(node="n", containerStatuses=[{"name": "workload", "state": {"waiting": {
        "reason": "ImagePullBackOff", "message": "Back-off pulling image \"nope:1\""}}}])
    assert pod_state(pull).failure().startswith("ImagePullBackOff: Back-off pulling image")
    oom = _pod("Failed", node="n", containerStatuses=[{"name": "workload", "state": {"terminated": {
        "exitCode": 137, "reason": "OOMKilled", "startedAt": "2026-02-06T14:24:00Z",
        "finishedAt": "2026-02-06T14:24:09Z"}}}])
    s = pod_state(oom, "workload")
    assert s.terminal and s.failure().startswith("OOMKilled") and (s.finished_at - s.started_at).seconds == 9
    bad = _pod("Failed", node="n", containerStatuses=[{"name": "workload", "state": {"terminated": {
        "exitCode": 2, "reason": "Error"}}}])
    assert pod_state(bad).failure() == "exit code 2 (Error)"
    ok = _pod("Succeeded", node="n", containerStatuses=[{"name": "workload", "state": {"terminated": {
        "exitCode": 0, "reason": "Completed"}}}])
    assert pod_state(ok).failure() is None
    events = [{"reason": "Scheduled", "message": "x"},
              {"reason": "FailedScheduling", "message": "old", "lastTimestamp": "2026-01-01T00:00:00Z"},
              {"reason": "FailedScheduling", "message": "new", "eventTime": "2026-01-01T00:00:05.000000Z"}]
    assert scheduling_message(events) == "new"
