"""``time`` output -> a small ``timings`` frame (one row per measured command).

Two forms, possibly mixed with the command's own output in one file:

* the bash keyword: ``real\\t0m1.234s``, ``user\\t0m0.456s``, ``sys\\t0m0.078s``
  (also ``1,234`` decimal commas and the POSIX ``-p`` form ``real 1.23``);
* GNU ``time -v``: ``Command being timed: "..."``, ``User time (seconds): 0.45``,
  ``Elapsed (wall clock) time (h:mm:ss or m:ss): 0:01.23``, ``Maximum resident
  set size (kbytes): 1920``, ``Exit status: 0``...

A measurement starts at ``real`` (bash) or ``Command being timed`` (GNU).
Lines that belong to neither form are the command's output: counted as
skipped ("not time output") so nothing is lost silently.
"""

from __future__ import annotations

import re

import polars as pl

from throttlelab.errors import InputError
from throttlelab.ingest import lines as lines_mod
from throttlelab.ingest.skip_counter import SkipCounter, usable_lines
from throttlelab.ingest.result import IngestResult

SCHEMA = {
    "source": pl.String,
    "measurement": pl.Int64,
    "line": pl.Int64,
    "form": pl.String,
    "command": pl.String,
    "real_seconds": pl.Float64,
    "user_seconds": pl.Float64,
    "system_seconds": pl.Float64,
    "cpu_percent": pl.Float64,
    "max_rss_bytes": pl.Int64,
    "voluntary_switches": pl.Int64,
    "involuntary_switches": pl.Int64,
    "exit_status": pl.Int64,
}

_BASH = re.compile(r"^(real|user|sys)\s+(?:(\d+)m)?(\d+(?:[.,]\d+)?)s?\s*$")
_GNU_ELAPSED = re.compile(r"^(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)$")
_GNU = {
    "Command being timed": ("command", str),
    "User time (seconds)": ("user_seconds", float),
    "System time (seconds)": ("system_seconds", float),
    "Percent of CPU this job got": ("cpu_percent", lambda v: float(v.rstrip("%"))),
    "Maximum resident set size (kbytes)": ("max_rss_bytes", lambda v: int(v) * 1024),
    "Voluntary context switches": ("voluntary_switches", int),
    "Involuntary context switches": ("involuntary_switches", int),
    "Exit status": ("exit_status", int),
}
#: GNU time -v lines that are understood but not kept.
_GNU_OTHER = (
    "Average shared text size", "Average unshared data size", "Average stack size",
    "Average total size", "Average resident set size", "Major (requiring I/O) page faults",
    "Minor (reclaiming a frame) page faults", "Swaps", "File system inputs", "File system outputs",
    "Socket messages sent", "Socket messages received", "Signals delivered", "Page size (bytes)",
)


def _elapsed(text: str) -> float:
    m = _GNU_ELAPSED.match(text)
    if not m:
        raise ValueError(text)
    h, mnt, s = m.groups()
    return int(h or 0) * 3600 + int(mnt) * 60 + float(s)


def read_time_output(path, *, strict: bool = False) -> IngestResult:
    """Read ``time`` output (see the module docstring) into ``table="timings"``."""
    source = str(path)
    lines = lines_mod.read_lines(path)
    skips = SkipCounter(source)
    rows: list[dict] = []
    cur: dict | None = None
    for n, text in usable_lines(lines, skips):
        if not text.strip():
            continue
        s = text.strip()
        m = _BASH.match(s)
        if m:
            key, minutes, secs = m.groups()
            value = int(minutes or 0) * 60 + float(secs.replace(",", "."))
            col = {"real": "real_seconds", "user": "user_seconds", "sys": "system_seconds"}[key]
            if key == "real" or cur is None or cur["form"] != "bash" or cur.get(col) is not None:
                cur = {"form": "bash", "line": n}
                rows.append(cur)
            cur[col] = value
            continue
        key, sep, value = s.partition(": ")
        if sep and (key in _GNU or key.startswith("Elapsed (wall clock) time") or key.startswith(_GNU_OTHER)):
            if key == "Command being timed" or cur is None or cur["form"] != "gnu":
                cur = {"form": "gnu", "line": n}
                rows.append(cur)
            try:
                if key.startswith("Elapsed"):
                    cur["real_seconds"] = _elapsed(value.strip())
                elif key in _GNU:
                    col, conv = _GNU[key]
                    cur[col] = conv(value.strip().strip('"')) if col == "command" else conv(value.strip())
            except ValueError:
                skips.add(n, "bad GNU time value", text)
            continue
        skips.add(n, "not time output", text)
    report = skips.report()
    if strict and report.first is not None:
        f = report.first
        raise InputError(source, f.line, f.reason, f.excerpt)
    frame = pl.DataFrame(
        [{**r, "source": source, "measurement": k} for k, r in enumerate(rows)], schema=SCHEMA
    )
    return IngestResult("timings", frame, report, len(lines), len(lines) - report.total, (source,))
