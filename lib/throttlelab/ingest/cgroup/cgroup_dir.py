"""Snapshot a cgroup directory (raw kernel files) as one samples row.

Reads ``cpu.stat``, ``cpu.max`` (v2) or ``cpu.cfs_quota_us`` + ``cpu.cfs_period_us``
(v1), and ``cpuacct.usage`` (v1, ns) when present -- from the directory itself
or from a separate cpuacct directory (cgroup v1 mounts ``cpuacct`` apart on some
machines), through the one reader of cgroup files
(:func:`~throttlelab.ingest.cgroup.cgroup_reader.read_cpu_files`).  The snapshot is written as a monitor-log block with
:func:`~throttlelab.ingest.monitor.monitor_format.format_block` and read back with the
monitor-log parser, so a directory and a log give identical rows.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from throttlelab.errors import InputError
from throttlelab.ingest.cgroup.cgroup_reader import V1_LIMIT_FILES, read_cpu_files
from throttlelab.ingest.monitor import format_block, format_cpu_max


def snapshot_block(
    directory: str | Path,
    *,
    cpuacct_dir: str | Path | None = None,
    timestamp: dt.datetime | None = None,
) -> str:
    """A monitor-log block holding the current state of a cgroup directory.

    Parameters
    ----------
    directory
        The cgroup's folder in the ``cpu`` (v1) or unified (v2) hierarchy.
    cpuacct_dir
        Folder holding ``cpuacct.usage`` when it is not ``directory`` (v1).
    timestamp
        Time of the snapshot (default: now, UTC).

    Raises
    ------
    InputError
        When the folder does not exist or holds no ``cpu.stat``.
    """
    d = Path(directory)
    if not d.is_dir():
        raise InputError(d, None, "not a cgroup directory" if d.exists() else "directory not found")
    try:
        files = read_cpu_files(d, cpuacct_dir)
    except OSError as exc:
        raise InputError(exc.filename or d, None, "cannot read cgroup file", exc.strerror or str(exc)) from None
    if files.cpu_stat is None:
        raise InputError(d, None, "no cpu.stat in directory")
    cpu_max = files.cpu_max
    if cpu_max is None and files.quota_period is not None:
        quota, period = files.quota_period
        try:
            cpu_max = format_cpu_max(int(quota), int(period), v1=True)
        except ValueError:
            raise InputError(d, None, f"bad {'/'.join(V1_LIMIT_FILES)}", f"{quota!r} {period!r}") from None
    ts = timestamp or dt.datetime.now(dt.timezone.utc)
    return format_block(ts, cpu_stat=files.cpu_stat, cpu_max=cpu_max, cpuacct_usage_ns=files.usage_ns)


def read_cgroup_dir(
    directory: str | Path,
    *,
    cpuacct_dir: str | Path | None = None,
    timestamp: dt.datetime | None = None,
    strict: bool = False,
):
    """One samples row (an :class:`~throttlelab.ingest.result.IngestResult`) from a cgroup directory."""
    from throttlelab.ingest.monitor import parse_monitor_text

    block = snapshot_block(directory, cpuacct_dir=cpuacct_dir, timestamp=timestamp)
    return parse_monitor_text(block, source=str(directory), strict=strict)
