"""Read monitor logs (``monitor_cpu.sh`` and bare ``date``/``kubectl top``/``cat cpu.stat`` loops): the entry points.

One parser, two stages, no Python code per line (polars string expressions do
the work per line):

* the **line stage** (:func:`.monitor_lines.line_stage`) takes the file's lines
  as per-line facts read in one streaming pass (:mod:`.monitor_file`, :mod:`.monitor_facts`), finds
  blocks and sections, and parses each section's lines (:mod:`.monitor_sections`);
  a long framed log is cut at block headers into parts (up to eight per core), whose line
  stages run at once in threads and are joined;
* the **block stage** (:func:`.monitor_blocks.kept_blocks`, then
  :func:`.monitor_blocks.take_samples`) skips blocks with a
  bad, duplicate or out-of-order time or mixed cgroup versions and builds the
  canonical samples table; the skip reasons and report are :mod:`.monitor_skips`,
  timestamps :mod:`.monitor_timestamps`.

Rules
-----
* Lines before the first block must be header lines (``=== CPU Monitoring
  Started ===``, ``Pod:``, ``Namespace:``, ``Interval:``, ``Log file:``); a new
  header later in the file starts a new run (and a new counter segment).
* In a block, each section may be missing or empty.  A block whose cpu.stat
  lacks some keys is kept with those counters null.
* A whole block is skipped (all its lines counted under the reason) when its
  time cannot be read, equals (``duplicate timestamp``) or precedes
  (``out-of-order timestamp``) the latest earlier time in the file, or when
  its cpu.stat mixes cgroup v1 and v2 keys.
* Single lines are skipped when unrecognised, badly formed, a repeated key in a
  block, or flagged by :mod:`.lines` (binary, non-UTF-8, too long, a last line
  without newline).
* kubectl top listing several pods or containers gives one row each (see
  :mod:`.monitor_containers`); nothing is summed.
* Times without a zone are read in ``tz`` (recorded in ``IngestResult.provenance``);
  blocks of bare ``cat cpu.stat`` snapshots without ``date`` lines have no time
  (``timestamp`` null: the intervals keep their counter deltas and ratios).

Every input line is either used (data or structure: headers, section markers,
blank lines) or counted in ``IngestResult.skipped`` with its reason.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import polars as pl

from throttlelab.core.cpu_stat import stat_keys
from throttlelab.core.metrics import COUNTER
from throttlelab.ingest.monitor.monitor_blocks import kept_blocks, take_samples
from throttlelab.ingest.monitor.monitor_file import line_frame_from_bytes, read_line_frame
from throttlelab.ingest.monitor.monitor_line_frame import LineFrame
from throttlelab.ingest.monitor.monitor_lines import LineStage, line_stage
from throttlelab.ingest.monitor.monitor_skips import empty_result, ingest_result, samples_result
from throttlelab.ingest.result import IngestResult

#: Logs of at least twice this many lines have their line stage run in parts of at least this many
#: lines, up to eight per core (smaller parts have smaller temporary arrays: on a day at 100 ms,
#: eight parts on two cores took 0.86 s against two parts' 0.92 s, medians of four processes; on the
#: day with 2-3 containers, sixteen parts peaked 50 MB lower than eight, in the same CPU time).
SPLIT_LINES = 250_000
#: What marks a text as a monitor log (framed) for format detection.
FRAMED_MARKS = ("=== CPU Monitoring Started", "\n--- ", "[cgroup cpu.stat]", "[kubectl top]", "[cgroup cpu.max]")


def read_monitor_log(path: str | Path, *, strict: bool = False, tz: str = "UTC") -> IngestResult:
    """Read one monitor log into the canonical samples table.

    Parameters
    ----------
    path
        The log file (gzip, zstd or xz compressed ones are told by their magic bytes).
    strict
        Raise :class:`~throttlelab.errors.InputError` at the first problem
        instead of skipping and counting it.
    tz
        IANA zone of times written without one (the shell script writes local
        time); ``"UTC"`` by default.

    Returns
    -------
    IngestResult
        ``table="samples"``; ``.intervals()`` gives the rates between samples.

    Raises
    ------
    InputError
        Missing or unreadable file; with ``strict``, any skipped line.
    """
    from throttlelab.ingest.input_files import compression_of, read_input

    if compression_of(path):
        return parse_monitor_bytes(read_input(path), source=str(path), strict=strict, tz=tz)
    return parse_monitor_lines(read_line_frame(path), strict=strict, tz=tz)


def parse_monitor_text(text: str, *, source: str = "<text>", strict: bool = False, tz: str = "UTC") -> IngestResult:
    """:func:`read_monitor_log` on text in memory (tests, runners)."""
    return parse_monitor_lines(line_frame_from_bytes(text.encode("utf-8"), source), strict=strict, tz=tz)


def parse_monitor_bytes(data: bytes, *, source: str = "<bytes>", strict: bool = False, tz: str = "UTC") -> IngestResult:
    """:func:`read_monitor_log` on bytes in memory."""
    return parse_monitor_lines(line_frame_from_bytes(data, source), strict=strict, tz=tz)


def parse_monitor_lines(lines: LineFrame, *, strict: bool = False, tz: str = "UTC") -> IngestResult:
    """Parse the lines of a :class:`~.monitor_line_frame.LineFrame` (see :func:`read_monitor_log`).

    The lines are let go once the skip report has their texts, before the
    samples are built (their memory is then reused), unless the caller keeps
    a reference to them; the blocks and kubectl top rows once the samples'
    rows are gathered from them."""
    n = len(lines)
    if n == 0:
        return empty_result(lines.path, strict)
    stage = _line_stage_in_parts(lines, tz)
    if lines.binary:
        from throttlelab import tables

        return ingest_result(lines.path, stage.rc, lines.text, tables.empty("samples"), n, strict)
    source = lines.path
    kept, skipped, note = kept_blocks(source, n, stage, lines.text, strict, tz)
    frames, rc = [kept, stage.top], stage.rc
    del lines, stage, kept  # the frames go while the samples are built (take_samples empties the list)
    result = samples_result(source, rc, skipped, take_samples(frames, source), n, note)
    if result.lines_used == 0:  # no block at all: not a monitor log, rather than a row of nulls
        from throttlelab.errors import InputError

        raise InputError(source, None, f"not a monitor log: none of its {n:,} lines was read", NOT_A_LOG)
    return result


#: What a monitor log has (said when a file has none of it).
NOT_A_LOG = (f"expected '--- <time> ---' blocks, cpu.stat lines such as '{COUNTER['usage_seconds'].v2_key} 123', "
             "or kubectl top rows")
#: cpu.stat keys that make a bare ``cat cpu.stat`` read as a monitor log (two of them in the first lines).
_SNIFF_KEYS = stat_keys("usage_seconds", "nr_periods", "nr_throttled", "throttled_seconds")


def _line_stage_in_parts(lines: LineFrame, tz: str, parts: int | None = None) -> LineStage:
    """:func:`.monitor_lines.line_stage` of a long framed log in ``parts`` pieces cut at block
    headers, run in a thread per core (numpy and polars release the GIL), then joined: no state
    crosses a block header, so the joined stage is the whole log's."""
    cores = os.cpu_count() or 1
    parts = parts or min(8 * cores, len(lines) // SPLIT_LINES)
    if parts < 2 or lines.binary:
        return line_stage(lines, tz)
    starts = np.flatnonzero(lines.flag("hdr") & (lines.problem_codes() == 0))
    cuts = np.unique(starts[(np.arange(1, parts) * len(starts)) // parts]) if len(starts) > parts else []
    if not len(cuts):
        return line_stage(lines, tz)
    bounds = [0, *cuts.tolist(), len(lines)]
    pieces = [lines.part(lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:])]
    with ThreadPoolExecutor(min(len(pieces), cores)) as pool:
        stages = list(pool.map(lambda p: line_stage(p, tz, framed=True), pieces))
    c = pl.col
    offsets = np.cumsum([0, *(s.blocks.height for s in stages[:-1])])
    return LineStage(
        rc=np.concatenate([s.rc for s in stages]),
        blocks=pl.concat([s.blocks.with_columns(c("line") + lo) for s, lo in zip(stages, bounds)]),
        top=pl.concat([s.top.with_columns(c("block") + int(b)) for s, b in zip(stages, offsets)]),
        headers=pl.concat([s.headers.with_columns(c("i") + lo) for s, lo in zip(stages, bounds)]),
        naive=sum(s.naive for s in stages),
    )


def looks_like_monitor(head: str) -> bool:
    """Whether the start of a file reads as a monitor log: framed (``--- <time> ---``
    blocks, ``[section]`` markers) or bare (``cat cpu.stat`` keys, a ``kubectl top``
    column header)."""
    if any(m in head for m in FRAMED_MARKS) or head.startswith("--- "):
        return True
    lines = head.splitlines()[:200]
    stat = sum(1 for s in lines if s.split(" ", 1)[0] in _SNIFF_KEYS)
    top = any(s.startswith(("NAME ", "POD ")) and "CPU(cores)" in s for s in lines)
    return stat >= 2 or top
