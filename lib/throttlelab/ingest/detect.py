"""Tell an input's format from its content, and read any input by format name.

Compressed files (gzip, zstd, xz) are told by their magic bytes and judged by
what they hold.  An input that is none of the formats is an error that lists
the formats tried: nothing falls back silently to a reader that would then
skip every line.  Imports nothing heavy at module level (the CLI imports it
to list formats).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from throttlelab import input_log
from throttlelab.core.cpu_stat import stat_keys

FORMATS = ("monitor", "k6-json", "k6-csv", "k6-summary", "prometheus", "prometheus-text", "time", "cgroup-dir")
#: What each format is, for the error that lists them.
FORMAT_HINTS = {
    "monitor": "monitor log (=== CPU Monitoring Started / --- timestamp --- blocks, cpu.stat, kubectl top)",
    "k6-json": 'k6 --out json ({"type":"Point",...} lines)',
    "k6-csv": "k6 --out csv (metric_name,timestamp,metric_value,... header)",
    "k6-summary": 'k6 --summary-export or handleSummary() JSON ({"metrics": ...})',
    "prometheus": 'Prometheus /api/v1/query(_range) JSON ({"status":"success","data":{"resultType":...}})',
    "prometheus-text": "Prometheus text exposition (# TYPE lines, name{labels} value [ms])",
    "time": "time output (bash/zsh time, time -p, GNU time, GNU time -v, BSD/macOS time)",
    "cgroup-dir": "a cgroup directory (cpu.stat, cpu.max or cpu.cfs_quota_us)",
}
_SNIFF = 64 * 1024
#: the counters whose cpu.stat keys (either version) tell a bare cpu.stat
_SNIFFED = ("usage_seconds", "user_seconds", "system_seconds", "nr_periods", "nr_throttled", "throttled_seconds")
_CPU_STAT = re.compile(rf"^({'|'.join(stat_keys(*_SNIFFED))})\s+\d+\s*$")
_GNU_DEFAULT = re.compile(r"^\d+\.\d+user \d+\.\d+system (\d+:)?\d+:\d+(\.\d+)?elapsed ")
_BSD = re.compile(r"^\d+\.\d+ real\s+\d+\.\d+ user\s+\d+\.\d+ sys$")
_ZSH = re.compile(r"\s\d+(\.\d+)?s? user \d+(\.\d+)?s? system (\d+(\.\d+)?|\?)% cpu [\d:.]+s? total$")


def _unknown(path: Path, why: str):
    from throttlelab.errors import InputError

    tried = "".join(f"\n  {k}: {v}" for k, v in FORMAT_HINTS.items())
    return InputError(path, None, f"unknown format ({why}); name one with --format. Formats tried:", tried)


def detect_format(path: str | Path) -> str:
    """The format of ``path`` judged from its first (decompressed) bytes (see :data:`FORMATS`).

    Raises
    ------
    InputError
        The path does not exist, is empty, or holds none of the formats (the
        message lists them).
    """
    from throttlelab.errors import InputError
    from throttlelab.ingest.input_files import head
    from throttlelab.ingest.lines import looks_binary

    p = Path(path)
    if p.is_dir():
        return "cgroup-dir"
    data = head(p, _SNIFF)  # InputError when missing or unreadable
    if not data.strip():
        raise InputError(p, None, "empty file")
    if looks_binary(data):
        raise _unknown(p, "binary content")
    text = data.decode("utf-8", "replace").lstrip("\ufeff")
    stripped = text.lstrip()
    if stripped.startswith("{"):
        first = stripped.split("\n", 1)[0]
        try:
            obj = json.loads(first)
            if isinstance(obj, dict) and obj.get("type") in ("Metric", "Point"):
                return "k6-json"
        except ValueError:
            pass
        if '"resultType"' in text or ('"status"' in text and '"data"' in text and '"result"' in text):
            return "prometheus"
        if '"metrics"' in text:
            return "k6-summary"
    first_line = stripped.split("\n", 1)[0]
    if first_line.startswith("metric_name,") or ("metric_name" in first_line and "metric_value" in first_line):
        return "k6-csv"
    from throttlelab.ingest.monitor import looks_like_monitor

    if looks_like_monitor(text):
        return "monitor"
    lines = [s.strip() for s in text.splitlines()[:200]]
    for s in lines:
        if s.startswith("Command being timed:") or s.startswith("Elapsed (wall clock) time") or _GNU_DEFAULT.match(s):
            return "time"
        if (s.startswith("real") and s[4:5] in ("\t", " ")) and any(ch.isdigit() for ch in s):
            return "time"
        if _ZSH.search(s) or _BSD.match(s):
            return "time"
    from throttlelab.ingest.prometheus import looks_like_exposition

    if looks_like_exposition(text):
        return "prometheus-text"
    # bare `cat cpu.stat` snapshots and `kubectl top` output alone: the monitor reader's
    if any(_CPU_STAT.match(s) for s in lines) or any(s.startswith(("NAME ", "POD ")) and "CPU(cores)" in s for s in lines):
        return "monitor"
    raise _unknown(p, "none of the formats matched the first lines")


def read_any(path: str | Path, fmt: str = "auto", *, strict: bool = False, tz: str = "UTC", **names):
    """Read one input with the reader of ``fmt`` (``"auto"``: :func:`detect_format`)."""
    fmt = detect_format(path) if fmt == "auto" else fmt
    input_log.record(path)
    if fmt == "monitor":
        from throttlelab.ingest.monitor import read_monitor_log

        return read_monitor_log(path, strict=strict, tz=tz)
    if fmt == "k6-json":
        from throttlelab.ingest.k6 import read_k6_json

        return read_k6_json(path, strict=strict, **names)
    if fmt == "k6-csv":
        from throttlelab.ingest.k6 import read_k6_csv

        return read_k6_csv(path, strict=strict, **names)
    if fmt == "k6-summary":
        from throttlelab.ingest.k6 import read_k6_summary

        return read_k6_summary(path, strict=strict)
    if fmt in ("prometheus", "prometheus-text"):
        from throttlelab.ingest.prometheus import read_prometheus

        return read_prometheus([path], strict=strict, kind=names.get("kind"))
    if fmt == "time":
        from throttlelab.ingest.time_output import read_time_output

        return read_time_output(path, strict=strict)
    if fmt == "cgroup-dir":
        from throttlelab.ingest.cgroup import read_cgroup_dir

        return read_cgroup_dir(path, strict=strict)
    raise ValueError(f"unknown format {fmt!r}; known: auto, {', '.join(FORMATS)}")
