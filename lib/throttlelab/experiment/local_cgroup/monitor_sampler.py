"""The monitor sampler: a cgroup's ``cpu.stat``, limit and usage into a monitor log.

It writes the format of the write-up's ``monitor_cpu.sh`` (via
:mod:`throttlelab.ingest.monitor.monitor_format`), so
:func:`throttlelab.ingest.monitor.monitor_log.read_monitor_log` reads local runs, pods
and the original script's logs alike.  Each block is flushed as it is written:
a killed sweep keeps the samples it took.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING

from throttlelab.ingest.monitor import format_block, format_header

if TYPE_CHECKING:
    from throttlelab.experiment.local_cgroup.cgroups import Cgroup, Counters


class MonitorSampler:
    """Writes one monitor block per :meth:`sample` call.

    Parameters
    ----------
    cgroup
        The cgroup to read.
    path
        The monitor log to (over)write.
    interval_s
        The sampling interval (recorded in the header; the caller keeps time).
    pod
        What the header calls the pod (the run id for local runs).
    namespace
        The header's namespace (``'local'``).
    """

    def __init__(self, cgroup: Cgroup, path: str | Path, *, interval_s: float, pod: str, namespace: str = "local"):
        self.cgroup = cgroup
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "w")  # noqa: SIM115 - closed in close()
        self._fh.write(format_header(pod, namespace, interval_s, str(self.path)))
        self._fh.flush()
        self.samples = 0
        self.last: Counters | None = None

    def sample(self) -> Counters:
        """Read the counters now, append a block, return the reading."""
        now = dt.datetime.now(dt.timezone.utc)
        c = self.cgroup.read()
        v1 = self.cgroup.layout.version == 1
        self._fh.write(format_block(now, cpu_stat=c.cpu_stat, cpu_max=c.cpu_max,
                                    cpuacct_usage_ns=c.usage_ns if v1 else None))
        self._fh.flush()
        self.samples += 1
        self.last = c
        return c

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()

    def __enter__(self) -> MonitorSampler:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
