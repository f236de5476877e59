"""The noisy neighbour: busy workers in a sibling cgroup capped at a share of the machine.

::

    from throttlelab.experiment.local_cgroup.neighbour import NoisyNeighbour

    with NoisyNeighbour(share=0.5, workers=2) as nb:   # half of all CPUs, 2 busy threads
        run_the_measurement()
    nb.cpu_seconds                                     # what the neighbour actually used

The neighbour is ``workers`` native busy threads (the burner workload, spinning
forever) in its own cgroup ``throttlelab/<owner>/neighbour-<n>`` whose CFS
quota is ``share * cpu_count * period``: it takes up to that much CPU from
whatever else runs on the machine, the way a co-located pod does on a node.

Where no cgroup can be written, ``fallback=True`` runs the workers as Python
processes that each alternate busy and idle (duty cycle ``share * cpus /
workers``, at most 1) so contention levels still mean roughly the same;
``mode`` tells which one ran.  Without ``fallback`` the missing cgroup raises
:class:`~throttlelab.errors.EnvironmentProblem`.
"""

from __future__ import annotations

import itertools
import os
import sys
from typing import TYPE_CHECKING

from throttlelab.errors import EnvironmentProblem

if TYPE_CHECKING:
    from throttlelab.experiment.local_cgroup.cgroup_layout import CgroupLayout
    from throttlelab.experiment.local_cgroup.cgroups import Cgroup
    from throttlelab.experiment.local_cgroup.cgroup_process import CgroupProcess

_counter = itertools.count()

_DUTY_CYCLE = """
import sys, time
duty, slice_s = float(sys.argv[1]), 0.01
while True:
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < duty * slice_s:
        pass
    if duty < 1:
        time.sleep((1 - duty) * slice_s)
"""


class NoisyNeighbour:
    """Context manager running a CPU-hungry neighbour.

    Parameters
    ----------
    share
        CPU share of the whole machine (0-1); 0 (or ``workers=0``) runs nothing.
    workers
        Busy worker threads.
    period_us
        CFS period of the neighbour's cgroup.
    layout
        Cgroup layout (default: detected).
    fallback
        Without a writable cgroup, run duty-cycled processes instead of failing.

    Attributes
    ----------
    mode
        ``'cgroup'``, ``'duty-cycle'`` or ``'none'`` once entered.
    cgroup
        The neighbour's cgroup (``None`` unless ``mode == 'cgroup'``).
    cpu_seconds
        CPU the neighbour used (cgroup mode; read at exit).
    """

    def __init__(self, share: float, workers: int, *, period_us: int = 100_000,
                 layout: CgroupLayout | None = None, fallback: bool = False):
        if not 0 <= share <= 1:
            raise ValueError(f"share must be between 0 and 1, got {share}")
        if workers < 0:
            raise ValueError(f"workers must be >= 0, got {workers}")
        self.share, self.workers, self.period_us = float(share), int(workers), int(period_us)
        self._layout, self.fallback = layout, fallback
        self.mode = "none"
        self.cgroup: Cgroup | None = None
        self.cpu_seconds: float | None = None
        self._procs: list = []
        self._proc: CgroupProcess | None = None

    @property
    def quota_us(self) -> int:
        """The neighbour cgroup's CFS quota."""
        return max(1000, round(self.share * (os.cpu_count() or 1) * self.period_us))

    def __enter__(self) -> NoisyNeighbour:
        if self.share <= 0 or self.workers <= 0:
            return self
        try:
            self._start_cgroup()
        except EnvironmentProblem:
            if not self.fallback:
                raise
            self._start_duty_cycle()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _start_cgroup(self) -> None:
        from throttlelab.experiment.local_cgroup.cgroup_layout import detect_layout
        from throttlelab.experiment.local_cgroup.cgroup_orphans import owner_name
        from throttlelab.experiment.local_cgroup.cgroups import Cgroup
        from throttlelab.experiment.local_cgroup.cgroup_process import CgroupProcess
        from throttlelab.experiment.local_cgroup.workloads import burner_argv

        layout = self._layout or detect_layout()
        cg = Cgroup(layout, f"{owner_name()}/neighbour-{os.getpid()}-{next(_counter)}")
        try:
            cg.create()
        except OSError as exc:
            raise EnvironmentProblem(f"cannot create the neighbour's cgroup {cg.dir}: {exc.strerror or exc}") from None
        try:
            cg.set_limit(self.quota_us, self.period_us)
            self._proc = CgroupProcess(burner_argv(str(self.workers), 0), cgroup=cg).start()
        except BaseException:
            cg.remove()
            raise
        self.cgroup, self.mode = cg, "cgroup"

    def _start_duty_cycle(self) -> None:
        import subprocess

        duty = min(1.0, self.share * (os.cpu_count() or 1) / self.workers)
        self._procs = [subprocess.Popen([sys.executable, "-c", _DUTY_CYCLE, f"{duty:.4f}"],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
                       for _ in range(self.workers)]
        self.mode = "duty-cycle"

    def stop(self) -> None:
        """Stop the workers and remove the cgroup (idempotent)."""
        if self.cgroup is not None:
            try:
                self.cpu_seconds = self.cgroup.read().cpu_seconds
            except OSError:
                pass
            if self._proc is not None:
                self._proc.kill()
                self._proc.wait(5)
            self.cgroup.remove()
            for d in self.cgroup.dirs:
                _rmdir_quietly(d.parent)
            self.cgroup = None
        for p in self._procs:
            p.kill()
        for p in self._procs:
            p.wait()
        self._procs = []

    def running(self) -> bool:
        """Whether the workers are running."""
        if self._proc is not None and self.cgroup is not None:
            return not self._proc.done.is_set()
        return any(p.poll() is None for p in self._procs)

    def __repr__(self) -> str:
        return f"NoisyNeighbour(share={self.share:g}, workers={self.workers}, mode={self.mode!r})"


def _rmdir_quietly(path) -> None:
    """Remove an owner folder if it is empty now (another user may still hold it)."""
    try:
        os.rmdir(path)
    except OSError:
        pass
