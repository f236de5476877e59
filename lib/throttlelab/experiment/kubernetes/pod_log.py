"""Splitting a run pod's log (written by ``sampler.sh``) into its parts.

The sampler prints::

    ### throttlelab begin ###
    <monitor log: header and blocks, the ingest monitor-log format>
    ### throttlelab workload output (last N lines) ###
    <the workload's last lines of stdout + stderr>
    ### throttlelab result exit_code=0 wall_seconds=12.34 started_at=2026-02-06 14:24:00.123Z ###

A log cut short (container killed: OOM, timeout, deleted) has no result line;
:attr:`PodLog.complete` is then false and the monitor part holds the blocks
printed so far.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path

from throttlelab.errors import InputError

BEGIN = "### throttlelab begin ###"
_OUTPUT = re.compile(r"^### throttlelab workload output \(last (\d+) lines\) ###$")
_RESULT = re.compile(
    r"^### throttlelab result exit_code=(?P<code>-?\d+) wall_seconds=(?P<wall>\d+(?:\.\d+)?)"
    r" started_at=(?P<started>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?Z?) ###$"
)


@dataclass(frozen=True)
class PodLog:
    """The parts of a run pod's log.

    Attributes
    ----------
    monitor
        The monitor log text (header and blocks), for
        :func:`throttlelab.ingest.monitor.monitor_log.read_monitor_log`.
    output
        The workload's last output lines.
    complete
        True when the result line was found.
    exit_code
        The workload's exit code (``None`` if incomplete).
    wall_seconds
        Wall time of the workload measured in the pod (``None`` if incomplete).
    started_at
        When the workload started (UTC; ``None`` if incomplete).
    monitor_first_line
        1-based line of the pod log where :attr:`monitor` starts (to name lines
        of the original log in errors).
    """

    monitor: str
    output: str
    complete: bool
    exit_code: int | None = None
    wall_seconds: float | None = None
    started_at: dt.datetime | None = None
    monitor_first_line: int = 1


def parse_started_at(text: str) -> dt.datetime:
    """``2026-02-06 14:24:00.123Z`` (UTC) as an aware datetime."""
    text = text.rstrip("Z")
    fmt = "%Y-%m-%d %H:%M:%S.%f" if "." in text else "%Y-%m-%d %H:%M:%S"
    return dt.datetime.strptime(text, fmt).replace(tzinfo=dt.timezone.utc)


def split_pod_log(text: str, *, source: str | Path = "<pod log>") -> PodLog:
    """Split a run pod's log into monitor log, workload output and result.

    Raises
    ------
    InputError
        When the log has no ``### throttlelab begin ###`` line (the pod did not
        run the sampler), naming ``source``.
    """
    lines = text.splitlines()
    try:
        begin = lines.index(BEGIN)
    except ValueError:
        raise InputError(source, None, "no throttlelab sampler output in the pod log",
                         f"expected a line {BEGIN!r}; {len(lines)} lines read") from None
    out_at = next((i for i in range(begin + 1, len(lines)) if _OUTPUT.match(lines[i])), None)
    monitor_lines = lines[begin + 1: out_at if out_at is not None else len(lines)]
    monitor = "\n".join(monitor_lines) + ("\n" if monitor_lines else "")
    if out_at is None:
        return PodLog(monitor=monitor, output="", complete=False, monitor_first_line=begin + 2)
    result_at = None
    for i in range(len(lines) - 1, out_at, -1):
        if _RESULT.match(lines[i]):
            result_at = i
            break
    end = result_at if result_at is not None else len(lines)
    output = "\n".join(lines[out_at + 1: end]) + ("\n" if end > out_at + 1 else "")
    if result_at is None:
        return PodLog(monitor=monitor, output=output, complete=False, monitor_first_line=begin + 2)
    m = _RESULT.match(lines[result_at])
    assert m is not None
    return PodLog(
        monitor=monitor,
        output=output,
        complete=True,
        exit_code=int(m["code"]),
        wall_seconds=float(m["wall"]),
        started_at=parse_started_at(m["started"]),
        monitor_first_line=begin + 2,
    )
