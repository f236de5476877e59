"""Writer of the monitor-log format (the format of ``monitor_cpu.sh`` in the ffmpeg write-up).

Experiment runners (local cgroup and the Kubernetes in-pod sampler) write their
samples with these functions so that one parser,
:func:`throttlelab.ingest.monitor.monitor_log.read_monitor_log`, reads both their logs
and the logs of the original shell script.

Format
------
A header block, then one block per sample::

    === CPU Monitoring Started ===
    Pod: ffmpeg-7d9c
    Namespace: media
    Interval: 1s
    Log file: ./cpu_monitor_20260206_142400.log
    ===============================
    --- 2026-02-06 14:24:00.123Z ---
    [kubectl top]
    POD           NAME     CPU(cores)   MEMORY(bytes)
    ffmpeg-7d9c   ffmpeg   250m         512Mi
    [cgroup cpu.stat]
    usage_usec 123456
    ...
    [cgroup cpu.max]
    400000 100000
    <empty line>

Sections of a block (each may be missing or empty):

``[kubectl top]``
    ``kubectl top pod --containers`` output: a column header line
    ``POD NAME CPU(cores) MEMORY(bytes)`` and one row per container (CPU as
    ``250m`` or ``1``, memory as ``512Mi``, ``1Gi``...).
``[cgroup cpu.stat]``
    The kernel's ``cpu.stat`` as printed: ``<key> <integer>`` lines; cgroup v2
    keys (``usage_usec user_usec system_usec nr_periods nr_throttled
    throttled_usec nr_bursts burst_usec``) or cgroup v1 keys (``nr_periods
    nr_throttled throttled_time nr_bursts burst_time``, times in ns).
``[cgroup cpu.max]``
    One line ``<quota> <period>`` (v2 ``cpu.max``; ``max <period>`` means no
    limit) or the v1 pair ``<cpu.cfs_quota_us> <cpu.cfs_period_us>`` (quota
    ``-1`` means no limit).
``[cgroup cpuacct.usage]``
    **Our extension for cgroup v1**, where usage is not in ``cpu.stat``: one
    line holding ``cpuacct.usage``, the cumulative CPU usage in nanoseconds.

Timestamps: the shell script prints local time as ``%Y-%m-%d %H:%M:%S.%3N``
with no zone.  This writer prints UTC with a ``Z`` suffix
(``2026-02-06 14:24:00.123Z``; six fraction digits when the time has
sub-millisecond precision) so that logs are unambiguous.  The parser accepts
both; naive timestamps are read as UTC unless told otherwise.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

#: Section names, as they appear between brackets.
SECTION_TOP = "kubectl top"
SECTION_CPU_STAT = "cgroup cpu.stat"
SECTION_CPU_MAX = "cgroup cpu.max"
SECTION_CPUACCT_USAGE = "cgroup cpuacct.usage"
SECTIONS = (SECTION_TOP, SECTION_CPU_STAT, SECTION_CPU_MAX, SECTION_CPUACCT_USAGE)

HEADER_START = "=== CPU Monitoring Started ==="
HEADER_END = "==============================="
TOP_COLUMNS = ("POD", "NAME", "CPU(cores)", "MEMORY(bytes)")


def format_timestamp(timestamp: dt.datetime) -> str:
    """UTC text of a block timestamp (``2026-02-06 14:24:00.123Z``).

    A naive ``timestamp`` is taken to be UTC already.
    """
    if timestamp.tzinfo is not None:
        timestamp = timestamp.astimezone(dt.timezone.utc)
    base = timestamp.strftime("%Y-%m-%d %H:%M:%S")
    us = timestamp.microsecond
    frac = f"{us // 1000:03d}" if us % 1000 == 0 else f"{us:06d}"
    return f"{base}.{frac}Z"


def format_header(pod: str, namespace: str, interval_s: float, log_file: str) -> str:
    """The header block the monitor script writes once at the start of a log.

    Parameters
    ----------
    pod, namespace
        Pod name (or local run id) and namespace (``"local"`` for local runs).
    interval_s
        Sampling interval in seconds (printed as ``Interval: 1s``, ``0.1s``...).
    log_file
        Path of the log, as the script prints it.

    Returns
    -------
    str
        Six lines, each ending with a newline.
    """
    lines = [
        HEADER_START,
        f"Pod: {pod}",
        f"Namespace: {namespace}",
        f"Interval: {interval_s:g}s",
        f"Log file: {log_file}",
        HEADER_END,
    ]
    return "\n".join(lines) + "\n"


def _top_table(rows: Sequence[tuple[str, str, str, str]]) -> list[str]:
    # kubectl uses a tabwriter: columns padded to the widest cell + 3 spaces.
    table = [TOP_COLUMNS, *(tuple(str(c) for c in r) for r in rows)]
    widths = [max(len(r[i]) for r in table) for i in range(4)]
    out = []
    for r in table:
        cells = [r[i].ljust(widths[i] + 3) for i in range(3)] + [r[3]]
        out.append("".join(cells).rstrip())
    return out


def format_block(
    timestamp: dt.datetime,
    *,
    top: list[tuple[str, str, str, str]] | None = None,
    cpu_stat: Mapping[str, int] | None = None,
    cpu_max: str | None = None,
    cpuacct_usage_ns: int | None = None,
) -> str:
    """One ``--- <timestamp> ---`` block of a monitor log.

    Parameters
    ----------
    timestamp
        Sample time; converted to UTC (naive = UTC) and printed with ``Z``.
    top
        ``kubectl top pod --containers`` rows ``(pod, container, cpu, memory)``
        as kubectl prints them (``"250m"``, ``"512Mi"``); ``None`` omits the
        section, ``[]`` writes an empty section.
    cpu_stat
        ``cpu.stat`` keys and integer values as the kernel prints them (v1 or
        v2 keys, in the order given).
    cpu_max
        ``"<quota> <period>"``, ``"max <period>"`` or the v1 pair
        ``"<cfs_quota_us> <cfs_period_us>"`` (``-1`` = no limit).
    cpuacct_usage_ns
        cgroup v1 ``cpuacct.usage`` (ns); written as ``[cgroup cpuacct.usage]``.

    Returns
    -------
    str
        The block, ending with an empty line (as the script's ``echo ""``).
    """
    lines = [f"--- {format_timestamp(timestamp)} ---"]
    if top is not None:
        lines.append(f"[{SECTION_TOP}]")
        if top:
            lines.extend(_top_table(top))
    if cpu_stat is not None:
        lines.append(f"[{SECTION_CPU_STAT}]")
        lines.extend(f"{k} {int(v)}" for k, v in cpu_stat.items())
    if cpu_max is not None:
        lines.append(f"[{SECTION_CPU_MAX}]")
        if cpu_max.strip():
            lines.append(cpu_max.strip())
    if cpuacct_usage_ns is not None:
        lines.append(f"[{SECTION_CPUACCT_USAGE}]")
        lines.append(str(int(cpuacct_usage_ns)))
    lines.append("")
    return "\n".join(lines) + "\n"


def format_cpu_max(quota_us: int | None, period_us: int, *, v1: bool = False) -> str:
    """``cpu.max`` text for a quota (``None`` = unlimited): ``"400000 100000"``,
    ``"max 100000"``, or with ``v1=True`` the pair ``"-1 100000"``."""
    if quota_us is None or quota_us < 0:
        return f"{-1 if v1 else 'max'} {int(period_us)}"
    return f"{int(quota_us)} {int(period_us)}"
