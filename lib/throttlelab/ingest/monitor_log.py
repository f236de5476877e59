"""Read monitor logs (the ``monitor_cpu.sh`` format, see :mod:`.monitor_format`).

This module holds the entry points (:func:`read_monitor_log`,
:func:`parse_monitor_text`, :func:`parse_monitor_lines`) and the timestamp
parser (:func:`parse_timestamps`).  Two stages, both vectorised (no Python code
runs per line):

* the **line stage** reads the lines into per-block arrays
  (:class:`.monitor_blocks.Blocks`) and a skip reason per line.
  :func:`read_monitor_log` runs the fast path (:mod:`.monitor_fast`): blocks
  whose every line is well formed are read straight from the bytes with numpy,
  everything else goes, whole blocks at a time, through the careful line stage
  (:func:`.monitor_lines.line_stage`: the lines in a polars column, classified
  with string expressions, sections forward-filled, ``key value`` lines
  scattered into a (key x block) matrix).  Both give the same result;
  :func:`parse_monitor_lines` is the careful path alone;
* the **block stage** (:func:`.monitor_assemble.assemble`) skips blocks with
  bad, duplicate or out-of-order timestamps or mixed cgroup versions, assigns
  runs, pods (:mod:`.monitor_pods`) and segments (:mod:`.counter_segments`),
  and builds the samples table; skip reasons and the skip report are
  :mod:`.monitor_skips`.

Rules
-----
* Lines before the first block must be header lines (``=== CPU Monitoring
  Started ===``, ``Pod:``, ``Namespace:``, ``Interval:``, ``Log file:``); a new
  header later in the file starts a new run (and a new counter segment).
* In a block, each section may be missing or empty.  A block whose cpu.stat
  lacks some keys is kept with those counters null.
* A whole block is skipped (all its lines counted under the reason) when its
  timestamp cannot be parsed, equals (``duplicate timestamp``) or precedes
  (``out-of-order timestamp``) the latest earlier timestamp in the file, or when
  its cpu.stat mixes cgroup v1 and v2 keys.
* Single lines are skipped when unrecognised, badly formed, a repeated key in a
  block, or flagged by :mod:`.lines` (binary, non-UTF-8, too long, a last line
  without newline).
* A counter that goes backwards (pod restart), a new header or a change of
  cgroup version starts a new ``segment``; intervals never span segments.

Every input line is either used (data or structure: headers, section markers,
blank lines) or counted in ``IngestResult.skipped`` with its reason.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from throttlelab import tables
from throttlelab.ingest import lines as lines_mod
from throttlelab.ingest.monitor_assemble import assemble
from throttlelab.ingest.monitor_skips import empty_result, ingest_result
from throttlelab.ingest.result import IngestResult


def read_monitor_log(path: str | Path, *, strict: bool = False, tz: str = "UTC") -> IngestResult:
    """Read one monitor log into the canonical samples table.

    Parameters
    ----------
    path
        The log file.
    strict
        Raise :class:`~throttlelab.errors.InputError` at the first problem
        instead of skipping and counting it.
    tz
        Time zone of timestamps written without an offset (the shell script
        writes local time); ``"UTC"`` by default.

    Returns
    -------
    IngestResult
        ``table="samples"``; ``.intervals()`` gives the rates between samples.

    Raises
    ------
    InputError
        Missing or unreadable file; with ``strict``, any skipped line.
    """
    from throttlelab.ingest.monitor_fast import read_monitor_file

    return read_monitor_file(path, strict=strict, tz=tz)


def parse_monitor_text(text: str, *, source: str = "<text>", strict: bool = False, tz: str = "UTC") -> IngestResult:
    """:func:`read_monitor_log` on text in memory (tests, runners)."""
    from throttlelab.ingest.monitor_fast import read_monitor_bytes

    return read_monitor_bytes(text.encode("utf-8"), source, strict=strict, tz=tz)


def parse_monitor_lines(lines: lines_mod.Lines, *, strict: bool = False, tz: str = "UTC") -> IngestResult:
    """Parse already split :class:`~throttlelab.ingest.lines.Lines` (see :func:`read_monitor_log`)."""
    source = lines.path
    n = len(lines)
    if n == 0:
        return empty_result(source, strict)
    from throttlelab.ingest.monitor_lines import line_stage

    text = lines.text
    rc, blocks, headers = line_stage(lines, tz)
    if lines.binary:
        return ingest_result(source, rc, lambda j: text[j], tables.empty("samples"), n, strict)
    return assemble(source, n, rc, blocks, headers, lambda j: text[j], strict)


#: Timestamp forms tried in order on the texts still unparsed: (format, zone of naive times).
_TS_FORMATS = (
    ("%Y-%m-%d %H:%M:%S%.fZ", "UTC"),  # our writer
    ("%Y-%m-%d %H:%M:%S%.f", None),  # the shell script: local time (``tz``)
    ("%Y-%m-%dT%H:%M:%S%.fZ", "UTC"),
    ("%Y-%m-%dT%H:%M:%S%.f", None),
    ("%Y-%m-%d %H:%M:%S%.f%:z", "aware"),
    ("%Y-%m-%dT%H:%M:%S%.f%:z", "aware"),
    ("%Y-%m-%d %H:%M:%S%.f%z", "aware"),
    ("%Y-%m-%dT%H:%M:%S%.f%z", "aware"),
)


def parse_timestamps(text: pl.Series, tz: str = "UTC") -> pl.Series:
    """Block timestamps -> ``Datetime("us", "UTC")`` (null when not a timestamp).

    Accepts ``2026-02-06 14:24:00.123`` (naive, read in ``tz``), a ``Z`` suffix,
    a ``+09:00``/``+0900`` offset and a ``T`` separator; the fraction may have
    0-9 digits.  Each form is tried only on the texts still unparsed, so a
    uniform log costs one parse.
    """
    text = text.str.strip_chars()
    out = pl.Series("ts", [None] * len(text), dtype=tables.UTC_TIME)
    todo = np.arange(len(text))
    for fmt, zone in _TS_FORMATS:
        if len(todo) == 0:
            break
        sub = text.gather(todo) if len(todo) < len(text) else text
        if zone == "aware":
            parsed = sub.str.to_datetime(fmt, strict=False, time_unit="us", time_zone="UTC")
        else:
            parsed = sub.str.to_datetime(fmt, strict=False, time_unit="us")
            zone = zone or tz
            if zone == "UTC":
                parsed = parsed.dt.replace_time_zone("UTC")
            else:
                parsed = parsed.dt.replace_time_zone(zone, ambiguous="earliest", non_existent="null").dt.convert_time_zone("UTC")
        got = parsed.is_not_null().to_numpy()
        if got.all() and len(todo) == len(text):
            return parsed.alias("ts")
        out = out.scatter(todo[got], parsed.filter(pl.Series(got)))
        todo = todo[~got]
    return out
