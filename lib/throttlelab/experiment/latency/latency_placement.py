"""Where a latency point's service and noisy neighbour run: local cgroups or nowhere special.

:class:`Placement` (a context manager) creates the run's cgroup with its CPU
limit (``backend="local"``), starts the service inside it (the process joins
before exec), gives the neighbour for the backend and reads the cgroup's
counters; ``backend="none"`` runs the service without a cgroup and the
neighbour as duty-cycled processes.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import Any

from throttlelab.errors import EnvironmentProblem, SpecError
from throttlelab.experiment.latency.service import PipelineConfig, ServiceProcess


@dataclass
class Placement:
    """Where the service and the neighbour run (local cgroups or nowhere special)."""

    backend: str
    run_id: str
    cpu_limit_cores: float | None
    layout: Any = None
    cgroup: Any = None

    def __enter__(self) -> Placement:
        if self.backend == "local":
            from throttlelab.experiment.local_cgroup.cgroup_layout import detect_layout
            from throttlelab.experiment.local_cgroup.cgroup_orphans import owner_name
            from throttlelab.experiment.local_cgroup.cgroups import Cgroup

            self.layout = detect_layout()
            self.cgroup = Cgroup(self.layout, f"{owner_name()}/latency-{self.run_id}").create()
            quota = None if self.cpu_limit_cores is None else round(self.cpu_limit_cores * 100_000)
            self.cgroup.set_limit(quota, 100_000)
        elif self.cpu_limit_cores is not None:
            raise SpecError("a CPU limit needs backend 'local' (a cgroup)")
        return self

    def service(self, config: PipelineConfig) -> ServiceProcess:
        if self.cgroup is None:
            return ServiceProcess(config)
        fds = self.cgroup.open_procs()

        def join() -> None:  # in the child, before exec: the service never runs outside its cgroup
            me = str(os.getpid()).encode()
            for fd in fds:
                os.write(fd, me)

        svc = ServiceProcess(config, preexec_fn=join)
        svc.on_start = lambda pid: [os.close(fd) for fd in fds]
        return svc

    def neighbour(self, share: float, workers: int):
        from throttlelab.experiment.local_cgroup.neighbour import NoisyNeighbour

        if self.backend == "local":
            return NoisyNeighbour(share, workers, layout=self.layout)
        return NoisyNeighbour(share, workers, fallback=True, layout=_NoLayout())

    def counters(self):
        return self.cgroup.read() if self.cgroup is not None else None

    def __exit__(self, *exc) -> None:
        if self.cgroup is not None:
            self.cgroup.remove()
            for d in self.cgroup.dirs:
                with contextlib.suppress(OSError):
                    d.parent.rmdir()


class _NoLayout:
    """A layout that makes NoisyNeighbour fall back (no cgroup wanted)."""

    def __getattr__(self, name):
        raise EnvironmentProblem("backend 'none': no cgroup")
