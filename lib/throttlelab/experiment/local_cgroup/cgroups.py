"""One CPU cgroup: create it, limit it, put processes in it, read its counters, remove it.

A :class:`Cgroup` is a folder below ``<base>/throttlelab/`` in the layout
:func:`~throttlelab.experiment.local_cgroup.cgroup_layout.detect_layout` found (v1: a
folder in the cpu hierarchy and one in the cpuacct hierarchy; v2: one folder).
Its path below ``throttlelab/`` starts with the owner folder of the process
that made it (:func:`~throttlelab.experiment.local_cgroup.cgroup_orphans.owner_name`).
:meth:`Cgroup.read` returns the :class:`Counters` (``cpu.stat``, usage, limit).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

from throttlelab.core.cpu_stat import counter
from throttlelab.core.metrics import COUNTER
from throttlelab.errors import EnvironmentProblem
from throttlelab.experiment.local_cgroup.cgroup_files import read_pids, remove_tree, write_file
from throttlelab.experiment.local_cgroup.cgroup_layout import PARENT, WHAT_IS_NEEDED, CgroupLayout
from throttlelab.ingest.cgroup import read_cgroup_file, read_cpu_files


@dataclass(frozen=True)
class Counters:
    """One reading of a cgroup's CPU counters.

    Attributes
    ----------
    cpu_stat
        ``cpu.stat`` as the kernel prints it (v1: times in ns; v2: in us).
    usage_ns
        Cumulative CPU usage in ns (v1 ``cpuacct.usage``, v2 ``usage_usec * 1000``; see
        :data:`throttlelab.core.metrics.CPU_COUNTERS`).
    cpu_max
        ``"<quota> <period>"`` (v1: ``cfs_quota_us cfs_period_us``, quota -1 = none).
    """

    cpu_stat: dict[str, int] = field(default_factory=dict)
    usage_ns: int = 0
    cpu_max: str = ""

    @property
    def nr_periods(self) -> int:
        return counter(self.cpu_stat, "nr_periods")

    @property
    def nr_throttled(self) -> int:
        return counter(self.cpu_stat, "nr_throttled")

    @property
    def throttled_seconds(self) -> float:
        return counter(self.cpu_stat, "throttled_seconds", 0.0)

    @property
    def cpu_seconds(self) -> float:
        return self.usage_ns / 1e9


class Cgroup:
    """One CPU cgroup: its folder in the cpu hierarchy (and the cpuacct one in v1).

    Parameters
    ----------
    layout
        From :func:`~throttlelab.experiment.local_cgroup.cgroup_layout.detect_layout`.
    relpath
        Path below ``<base>/throttlelab``, e.g. ``"o123-456/l500m-t2-c0-r0-abc123"``.
    """

    def __init__(self, layout: CgroupLayout, relpath: str):
        self.layout = layout
        self.relpath = relpath
        self.dir = layout.parent / relpath
        self.acct_dir = layout.cpuacct_base / PARENT / relpath if layout.version == 1 else self.dir

    def __repr__(self) -> str:
        return f"Cgroup({str(self.dir)!r})"

    @property
    def dirs(self) -> list[Path]:
        """Its folders (two in v1 with separate hierarchies)."""
        return list(dict.fromkeys([self.dir, self.acct_dir]))

    def create(self) -> Cgroup:
        """Make the folders (and, in v2, enable the cpu controller on the way down).

        Raises
        ------
        EnvironmentProblem
            If the layout's base folders do not exist (nothing is created outside them).
        """
        for base in filter(None, (self.layout.base, self.layout.cpuacct_base)):
            if not base.is_dir():
                raise EnvironmentProblem(f"cgroup folder {base} does not exist; need {WHAT_IS_NEEDED}")
        if self.layout.version == 2:
            _enable_cpu_v2(self.layout.base, self.dir)
        for d in self.dirs:
            d.mkdir(parents=True, exist_ok=True)
        return self

    def set_limit(self, quota_us: int | None, period_us: int = 100_000, burst_us: int | None = None) -> None:
        """Write the CFS quota and period (``None`` = unlimited) and the burst (ignored when unlimited).

        The kernel refuses a burst larger than the quota (``OSError`` EINVAL).
        """
        if self.layout.version == 1:
            write_file(self.dir / "cpu.cfs_period_us", str(period_us))
            write_file(self.dir / "cpu.cfs_quota_us", str(-1 if quota_us is None else quota_us))
            burst_file = self.dir / "cpu.cfs_burst_us"
        else:
            write_file(self.dir / "cpu.max", f"{'max' if quota_us is None else quota_us} {period_us}")
            burst_file = self.dir / "cpu.max.burst"
        if burst_us and quota_us is not None:  # a burst only means something under a quota
            if not (burst_file.exists() or self.layout.simulated):
                raise EnvironmentProblem(f"this kernel has no CFS burst ({burst_file.name} missing); remove burst_us")
            write_file(burst_file, str(burst_us))

    def set_weight(self, tasks: float) -> None:
        """Give the cgroup the CPU weight of ``tasks`` nice-0 tasks (v1 ``cpu.shares``, v2 ``cpu.weight``).

        Against processes outside it, a cgroup competes as one scheduling entity
        with its weight: by default that of a single task, whatever number of
        threads it holds.
        """
        if self.layout.version == 1:
            write_file(self.dir / "cpu.shares", str(max(2, min(262144, round(1024 * tasks)))))
        else:
            write_file(self.dir / "cpu.weight", str(max(1, min(10000, round(100 * tasks)))))

    def open_procs(self) -> list[int]:
        """Open each ``cgroup.procs`` for writing; a child writes its pid to them before exec.

        The caller closes the descriptors (see :func:`join_fds`).
        """
        return [os.open(d / "cgroup.procs", os.O_WRONLY | (os.O_CREAT if self.layout.simulated else 0), 0o644)
                for d in self.dirs]

    def add(self, pid: int) -> None:
        """Move a running process into the cgroup (all its hierarchies)."""
        for d in self.dirs:
            write_file(d / "cgroup.procs", str(pid))

    def pids(self) -> list[int]:
        """Process ids in the cgroup (any hierarchy)."""
        out: set[int] = set()
        for d in self.dirs:
            for name in ("cgroup.procs", "tasks"):
                with contextlib.suppress(OSError):
                    out.update(read_pids(d / name))
        return sorted(out)

    def read(self) -> Counters:
        """Read ``cpu.stat``, usage and the limit now."""
        # a live cgroup: a line that is not a key and an integer is skipped, not an error
        v1 = self.layout.version == 1
        files = read_cpu_files(self.dir, self.acct_dir if v1 else None, strict=False)
        stat = files.cpu_stat or {}
        if v1:
            usage = files.usage_ns or 0
            quota, period = (x.strip() for x in files.quota_period or ("", ""))
            cpu_max = f"{quota} {period}"
        else:
            usage = stat.get(COUNTER["usage_seconds"].v2_key, 0) * 1000  # us -> ns, exact
            cpu_max = files.cpu_max or ""
        return Counters(stat, usage, cpu_max)

    def kill(self, sig: int = signal.SIGKILL, *, wait_s: float = 5.0) -> None:
        """Send ``sig`` to every process in the cgroup; with SIGKILL wait until it is empty."""
        deadline = time.monotonic() + wait_s
        while True:
            pids = self.pids()
            if not pids or self.layout.simulated:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)
            if sig != signal.SIGKILL or time.monotonic() > deadline:
                return
            time.sleep(0.01)

    def remove(self) -> None:
        """Kill what runs inside and remove the folders (children first).  Idempotent."""
        for d in self.dirs:
            if d.exists():
                remove_tree(d, self.layout.simulated)


def _enable_cpu_v2(base: Path, target: Path) -> None:
    """Write ``+cpu`` to ``subtree_control`` of every folder from ``base`` down to ``target``'s parent."""
    rel = target.relative_to(base).parts
    for i in range(len(rel)):
        d = base.joinpath(*rel[:i])
        d.mkdir(exist_ok=True)
        ctl = d / "cgroup.subtree_control"
        if "cpu" in read_cgroup_file(ctl, "").split():
            continue
        try:
            write_file(ctl, "+cpu")
        except OSError as exc:
            raise EnvironmentProblem(
                f"cannot enable the cpu controller in {ctl} ({os.strerror(exc.errno or 0)}); in cgroup v2 a folder "
                f"with processes in it cannot pass controllers down: move them to a leaf, or point "
                f"THROTTLELAB_CGROUP_ROOT to an empty delegated folder") from None
