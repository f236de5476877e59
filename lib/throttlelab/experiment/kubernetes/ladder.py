"""A ladder of CPU limits on the one-node cluster: the same pods resized in place, the kernel's counters per window.

Each rung resizes every pod of a workload in place (the ``resize`` subresource:
the kubelet rewrites the container's ``cpu.cfs_quota_us`` without restarting
it), waits until the kernel holds the new quota, lets the workload settle, then
reads the container cgroups' ``cpu.stat`` and ``cpuacct.usage`` on this machine
at the edges of fixed windows.  A window's row sums the workload's pods: CFS
periods, throttled periods, throttled seconds and CPU seconds.  The truth is
fitted from these rows by :func:`throttlelab.analysis.rightsizing.ladder_truth`.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from throttlelab.core.cpu_stat import counter

from .latency_pods import container_cgroup, read_counters
from .manifests import cpu_quantity

#: Seconds a rung is left before its windows are read (the workload's backlog from the rung before drains).
SETTLE_S = 5.0


@dataclass(frozen=True)
class LadderWindow:
    """One window of one rung, summed over the workload's pods."""

    limit_cores: float
    start: float
    end: float
    periods: int
    throttled: int
    throttled_seconds: float
    cpu_seconds: float
    pods: int

    @property
    def ratio(self) -> float | None:
        return self.throttled / self.periods if self.periods else None

    def row(self) -> dict[str, Any]:
        return asdict(self) | {"ratio": self.ratio}


def running_pods(core: Any, namespace: str, selector: str) -> list[Any]:
    """The workload's running pods (not being deleted), by name."""
    pods = core.list_namespaced_pod(namespace, label_selector=selector).items
    return sorted((p for p in pods if p.status.phase == "Running" and p.metadata.deletion_timestamp is None),
                  key=lambda p: p.metadata.name)


def cgroup_dirs(pod: Any, container: str) -> tuple[Path, Path] | None:
    """The container's cpu and cpuacct cgroup folders on this machine."""
    st = next((s for s in pod.status.container_statuses or [] if s.name == container), None)
    return container_cgroup(pod.metadata.uid, st.container_id) if st is not None and st.container_id else None


def resize(core: Any, namespace: str, pod: str, container: str, limit_cores: float | None,
           request_cores: float) -> None:
    """Set a pod's container CPU limit (``None``: no limit) and request in place."""
    res: dict[str, Any] = {"requests": {"cpu": cpu_quantity(request_cores)}}
    res["limits"] = {"cpu": cpu_quantity(limit_cores) if limit_cores is not None else None}
    core.patch_namespaced_pod_resize(pod, namespace, {"spec": {"containers": [{"name": container, "resources": res}]}})


def quota_cores(dirs: tuple[Path, Path]) -> float | None:
    """The kernel's quota now (``None``: none)."""
    q, p = (int(x) for x in read_counters(dirs).cpu_max.split())
    return None if q < 0 else q / p


def wait_quota(dirs: list[tuple[Path, Path]], limit_cores: float | None, timeout_s: float = 60.0) -> None:
    """Until every container's kernel quota is ``limit_cores`` (to the millicore)."""
    deadline = time.monotonic() + timeout_s
    while True:
        now = [quota_cores(d) for d in dirs]
        if all((q is None) == (limit_cores is None) and (q is None or abs(q - limit_cores) < 5e-4) for q in now):
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"the kernel quota stayed {now} cores, not {limit_cores}")
        time.sleep(0.5)


def _read(dirs: list[tuple[Path, Path]]) -> tuple[float, list[tuple[int, int, float, float]]]:
    now = time.time()
    out = []
    for d in dirs:
        c = read_counters(d)
        s = c.cpu_stat
        out.append((counter(s, "nr_periods") or 0, counter(s, "nr_throttled") or 0,
                     counter(s, "throttled_seconds") or 0.0, c.usage_ns / 1e9))
    return now, out


def read_windows(dirs: list[tuple[Path, Path]], limit_cores: float | None, *, windows: int,
                 window_s: float) -> list[LadderWindow]:
    """``windows`` consecutive windows of ``window_s`` seconds, each summed over ``dirs``."""
    rows = []
    t0, a = _read(dirs)
    for _ in range(windows):
        time.sleep(max(0.0, t0 + window_s - time.time()))
        t1, b = _read(dirs)
        d = [tuple(y - x for x, y in zip(pa, pb)) for pa, pb in zip(a, b)]
        rows.append(LadderWindow(limit_cores if limit_cores is not None else float("inf"), t0, t1,
                                 int(sum(x[0] for x in d)), int(sum(x[1] for x in d)), float(sum(x[2] for x in d)),
                                 float(sum(x[3] for x in d)), len(dirs)))
        t0, a = t1, b
    return rows


def run_ladder(core: Any, namespace: str, selector: str, container: str, limits: list[float | None], *,
               request_cores: float, step_s: float, window_s: float = 10.0, settle_s: float = SETTLE_S,
               say=lambda msg: None) -> list[LadderWindow]:
    """Every rung of ``limits``, from the highest down, on the workload's running pods; the windows of all rungs.

    From the highest down: below its mean demand an open-loop workload builds a backlog that the next rungs would
    inherit; going down, only the rungs already below the demand (throttled in most periods anyway) do.
    """
    pods = running_pods(core, namespace, selector)
    if not pods:
        raise RuntimeError(f"no running pod matches {selector} in {namespace}")
    dirs = [cgroup_dirs(p, container) for p in pods]
    if any(d is None for d in dirs):
        raise RuntimeError(f"no cgroup on this machine for container {container} of {selector}")
    rows: list[LadderWindow] = []
    n = max(1, int(step_s // window_s))
    for limit in sorted(limits, key=lambda v: -(v if v is not None else float("inf"))):
        for p in pods:
            resize(core, namespace, p.metadata.name, container, limit, min(request_cores, limit or request_cores))
        wait_quota(dirs, limit)
        time.sleep(settle_s)
        step = read_windows(dirs, limit, windows=n, window_s=window_s)
        per, thr = sum(w.periods for w in step), sum(w.throttled for w in step)
        say(f"ladder {selector} at {limit if limit is not None else 'no limit'}: "
            f"{thr}/{per} periods throttled ({thr / per if per else 0:.1%}), "
            f"{sum(w.cpu_seconds for w in step) / max(1e-9, sum(w.end - w.start for w in step)):.3f} cores")
        rows += step
    return rows
