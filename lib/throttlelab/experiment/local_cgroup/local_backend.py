"""The ``local`` backend: each run in its own CFS-limited cgroup on this machine.

Per run: create ``throttlelab/<owner>/<run_id>`` with the run's quota, period
(and burst), start the noisy neighbour if the run has one, start the workload
inside the cgroup (it joins before exec), sample the cgroup into the monitor
log every ``sampling_interval_s`` until the workload exits or times out, and
remove the cgroup whatever happens (Ctrl-C and SIGTERM included).  The row's
``cpu_seconds`` and throttling counters come from the cgroup (the kernel's
own accounting); ``user_seconds``/``system_seconds`` from ``wait4``.

Use :func:`local_backend_available` to ask whether this machine can run it.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from throttlelab.errors import EnvironmentProblem, SpecError
from throttlelab.experiment.local_cgroup import cgroup_orphans
from throttlelab.experiment.sweeps.backends import base_row
from throttlelab.experiment.local_cgroup.cgroup_files import remove_tree
from throttlelab.experiment.local_cgroup.cgroup_layout import WHAT_IS_NEEDED, CgroupLayout, detect_layout
from throttlelab.experiment.local_cgroup.cgroups import Cgroup
from throttlelab.experiment.local_cgroup.neighbour import NoisyNeighbour
from throttlelab.experiment.local_cgroup.cgroup_process import CgroupProcess
from throttlelab.experiment.local_cgroup.monitor_sampler import MonitorSampler
from throttlelab.experiment.local_cgroup.service_load import check_service_spec, run_service
from throttlelab.experiment.local_cgroup.workloads import build_command, work_items

if TYPE_CHECKING:
    from throttlelab.experiment.sweeps.plan import RunPlan
    from throttlelab.experiment.sweeps.spec import SweepSpec


def local_backend_available() -> tuple[bool, str]:
    """Whether CPU cgroups can be created here; if not, what is needed.

    Detects the layout and really creates and removes a probe cgroup.
    """
    try:
        layout = detect_layout()
        probe = Cgroup(layout, f"{cgroup_orphans.owner_name()}/probe").create()
        probe.set_limit(50_000, 100_000)
        probe.remove()
        for d in probe.dirs:
            with contextlib.suppress(OSError):
                d.parent.rmdir()
    except EnvironmentProblem as exc:
        return False, str(exc)
    except OSError as exc:
        return False, f"cannot create a CPU cgroup ({exc}); {WHAT_IS_NEEDED}"
    return True, ""


class LocalBackend:
    """Runs sweeps in cgroups of this machine (see the module docstring).

    Parameters
    ----------
    layout
        A cgroup layout (default: detected at :meth:`prepare`).
    """

    name = "local"

    def __init__(self, layout: CgroupLayout | None = None):
        self._layout = layout
        self.owner = cgroup_orphans.owner_name()

    @property
    def layout(self) -> CgroupLayout:
        """The cgroup layout (detected on first use; raises EnvironmentProblem)."""
        if self._layout is None:
            self._layout = detect_layout()
        return self._layout

    def available(self) -> tuple[bool, str]:
        return local_backend_available() if self._layout is None else (True, "")

    def prepare(self, spec: SweepSpec) -> None:
        """Check the cgroups and burst support, build the workload's program, make the owner folder.

        The owner folder (parent of the runs' cgroups and the neighbour) gets the
        CPU weight of ``local.parent_weight_tasks`` tasks (default: the CPU count),
        like a pod whose CPU request covers the node, so that other processes on
        a shared machine do not starve it below its limit as easily.
        """
        layout = self.layout
        if spec.burst_us and not layout.has_burst and not layout.simulated:
            raise EnvironmentProblem("this kernel has no CFS burst (cpu.cfs_burst_us / cpu.max.burst); "
                                     "set burst_us: null")
        check_service_spec(spec)
        for t in spec.threads:  # compile helpers now, not in the first timed run
            build_command(spec.workload, t)
        weight = spec.backend_options.get("parent_weight_tasks") or os.cpu_count() or 1  # null: the machine's cores
        if not isinstance(weight, (int, float)) or isinstance(weight, bool) or weight <= 0:
            raise SpecError(f"{spec.source or '<spec>'}: key 'local.parent_weight_tasks': must be a positive number")
        owner = Cgroup(layout, self.owner).create()
        for cg in (Cgroup(layout, ""), owner):  # throttlelab/ competes with the machine's tasks
            cg.set_weight(weight)

    def execute(self, plan: RunPlan, monitor_log: Path) -> dict[str, Any]:
        """Run one plan in a fresh cgroup; return its runs row."""
        row = base_row(plan, self.name)
        cmd = build_command(plan.workload, plan.threads)
        cg = Cgroup(self.layout, f"{self.owner}/{plan.run_id}")
        output = Path(monitor_log).with_suffix(".out")
        try:
            cg.create()
            cg.set_limit(plan.quota_us, plan.period_us, plan.burst_us)
            with NoisyNeighbour(plan.contention.share, plan.contention.workers, period_us=plan.period_us,
                                layout=self.layout):
                if plan.workload.kind == "service":
                    row.update(run_service(cmd.argv, cmd.env, cg, plan, monitor_log, output))
                else:
                    row.update(_run_monitored(cmd.argv, cmd.env, cg, monitor_log, output, plan))
                    items = work_items(plan.workload)
                    if items and row.get("status") == "ok" and row.get("wall_seconds"):
                        row["items_per_second"] = items / row["wall_seconds"]
        finally:
            cg.remove()
        return row

    def cleanup(self, spec: SweepSpec | None = None) -> None:
        """Remove this process's owner folder and everything in it."""
        if self._layout is None:
            return
        for parent in self.layout.parents:
            d = parent / self.owner
            if d.exists():
                remove_tree(d, self.layout.simulated)

    def find_orphans(self) -> list[str]:
        try:
            return [str(p) for p in cgroup_orphans.find_orphans(self.layout)]
        except EnvironmentProblem:
            return []

    def remove_orphans(self) -> list[str]:
        try:
            return cgroup_orphans.remove_orphans(self.layout)
        except EnvironmentProblem:
            return []


def _run_monitored(argv: list[str], env: dict[str, str], cg: Cgroup, monitor_log: Path, output: Path,
                   plan: RunPlan) -> dict[str, Any]:
    """Start the workload in ``cg``, sample until it ends or times out; the measurement columns."""
    interval = plan.sampling_interval_s
    proc = CgroupProcess(argv, cgroup=cg, env=env, output=output)
    timed_out = False
    with MonitorSampler(cg, monitor_log, interval_s=interval, pod=plan.run_id) as sampler:
        sampler.sample()
        try:
            proc.start()
            t0 = time.monotonic()
            deadline = t0 + plan.timeout_s
            next_tick = t0 + interval
            while not proc.wait(max(0.0, min(next_tick, deadline) - time.monotonic())):
                now = time.monotonic()
                if now >= deadline:
                    timed_out = True
                    proc.kill()
                    proc.wait(10)
                    break
                if now >= next_tick:
                    sampler.sample()
                    next_tick += interval * max(1, int((now - next_tick) / interval) + 1)
        except BaseException:
            proc.kill()
            raise
        final = sampler.sample()
    res = proc.result
    out: dict[str, Any] = {
        "started_at": proc.started_at,
        "wall_seconds": res.wall_seconds if res else None,
        "cpu_seconds": final.cpu_seconds,
        "nr_periods": final.nr_periods,
        "nr_throttled": final.nr_throttled,
        "throttled_seconds": final.throttled_seconds,
        "exit_code": res.exit_code if res else None,
        "user_seconds": res.user_seconds if res else None,
        "system_seconds": res.system_seconds if res else None,
    }
    if timed_out:
        out.update(status="timeout", error=f"killed after the {plan.timeout_s:g} s timeout")
    elif res is not None and res.exit_code == 0:
        out.update(status="ok", error=None)
    else:
        code = res.exit_code if res else None
        out.update(status="failed", error=f"exit code {code}: {_tail(output)}")
    return out


def _tail(path: Path, n: int = 300) -> str:
    try:
        text = path.read_text(errors="replace").strip()
    except OSError:
        return "(no output)"
    return text[-n:] or "(no output)"
