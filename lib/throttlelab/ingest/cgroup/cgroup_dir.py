"""Snapshot a cgroup directory (raw kernel files) as one samples row.

Reads ``cpu.stat``, ``cpu.max`` (v2) or ``cpu.cfs_quota_us`` + ``cpu.cfs_period_us``
(v1), and ``cpuacct.usage`` (v1, ns) when present -- from the directory itself
or from a separate cpuacct directory (cgroup v1 mounts ``cpuacct`` apart on some
machines).  The snapshot is written as a monitor-log block with
:func:`~throttlelab.ingest.monitor.monitor_format.format_block` and read back with the
monitor-log parser, so a directory and a log give identical rows.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from throttlelab.core.cpu_stat import parse_cpu_stat
from throttlelab.errors import InputError
from throttlelab.ingest.monitor import format_block, format_cpu_max


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InputError(path, None, "cannot read cgroup file", exc.strerror or str(exc)) from None


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
    stat_text = _read(d / "cpu.stat")
    if stat_text is None:
        raise InputError(d, None, "no cpu.stat in directory")
    stat = parse_cpu_stat(stat_text, d / "cpu.stat")
    cpu_max = _read(d / "cpu.max")
    if cpu_max is not None:
        cpu_max = cpu_max.strip()
    else:
        quota, period = _read(d / "cpu.cfs_quota_us"), _read(d / "cpu.cfs_period_us")
        if quota is not None and period is not None:
            try:
                cpu_max = format_cpu_max(int(quota), int(period), v1=True)
            except ValueError:
                raise InputError(d, None, "bad cpu.cfs_quota_us/cpu.cfs_period_us", f"{quota!r} {period!r}") from None
    acct = None
    for folder in (d, Path(cpuacct_dir) if cpuacct_dir else None):
        if folder is not None and acct is None:
            text = _read(folder / "cpuacct.usage")
            if text is not None:
                try:
                    acct = int(text.strip())
                except ValueError:
                    raise InputError(folder / "cpuacct.usage", 1, "bad cpuacct.usage", repr(text[:40])) from None
    ts = timestamp or dt.datetime.now(dt.timezone.utc)
    return format_block(ts, cpu_stat=stat, cpu_max=cpu_max, cpuacct_usage_ns=acct)


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
