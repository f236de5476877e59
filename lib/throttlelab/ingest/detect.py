"""Tell an input's format from its content, and read any input by format name.

Imports nothing heavy at module level (the CLI imports it to list formats).
"""

from __future__ import annotations

import json
from pathlib import Path

FORMATS = ("monitor", "k6-json", "k6-csv", "k6-summary", "prometheus", "time", "cgroup-dir")
_SNIFF = 64 * 1024


def detect_format(path: str | Path) -> str:
    """The format of ``path`` judged from its first bytes (see :data:`FORMATS`).

    Anything not recognised is read as a monitor log, whose reader accounts for
    (and reports) every line it cannot use.  Missing files are left to the
    reader, which raises a clear :class:`~throttlelab.errors.InputError`.
    """
    p = Path(path)
    if p.is_dir():
        return "cgroup-dir"
    try:
        with open(p, "rb") as f:
            head = f.read(_SNIFF)
    except OSError:
        return "monitor"
    if b"\x00" in head[:8000]:
        return "monitor"
    text = head.decode("utf-8", "replace").lstrip("\ufeff")
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
    from throttlelab.ingest.monitor_log import looks_like_monitor

    if looks_like_monitor(text):
        return "monitor"
    for line in text.splitlines()[:200]:
        s = line.strip()
        if s.startswith("Command being timed:") or s.startswith("Elapsed (wall clock) time"):
            return "time"
        if (s.startswith("real") and s[4:5] in ("\t", " ")) and any(ch.isdigit() for ch in s):
            return "time"
    return "monitor"


def read_any(path: str | Path, fmt: str = "auto", *, strict: bool = False, tz: str = "UTC", **names):
    """Read one input with the reader of ``fmt`` (``"auto"``: :func:`detect_format`)."""
    fmt = detect_format(path) if fmt == "auto" else fmt
    if fmt == "monitor":
        from throttlelab.ingest.monitor_log import read_monitor_log

        return read_monitor_log(path, strict=strict, tz=tz)
    if fmt == "k6-json":
        from throttlelab.ingest.k6 import read_k6_json

        return read_k6_json(path, strict=strict, **names)
    if fmt == "k6-csv":
        from throttlelab.ingest.k6 import read_k6_csv

        return read_k6_csv(path, strict=strict, **names)
    if fmt == "k6-summary":
        from throttlelab.ingest.k6_summary import read_k6_summary

        return read_k6_summary(path, strict=strict)
    if fmt == "prometheus":
        from throttlelab.ingest.prometheus import read_prometheus

        return read_prometheus([path], strict=strict)
    if fmt == "time":
        from throttlelab.ingest.time_output import read_time_output

        return read_time_output(path, strict=strict)
    if fmt == "cgroup-dir":
        from throttlelab.ingest.cgroup_dir import read_cgroup_dir

        return read_cgroup_dir(path, strict=strict)
    raise ValueError(f"unknown format {fmt!r}; known: auto, {', '.join(FORMATS)}")
