#!/usr/bin/env python3
"""The baseline of the ingest benchmark: a plain line-by-line Python parser of monitor logs.

What one would write first: a loop over the lines, a dict per block, then a
polars frame written to parquet.  It reads the same things the benchmark's logs
hold (timestamps, kubectl top rows, cpu.stat, cpu.max) into the same rows as
``throttlelab ingest`` (one per block; when kubectl top lists several
containers, one per container after the block's own row, which is left out
when the block has no cgroup values) but skips the accounting of bad lines.
Run as a whole process, like ``throttlelab ingest``:

    python bench/baseline_monitor_parser.py LOG OUT.parquet
"""

from __future__ import annotations

import datetime as dt
import sys


def _close(rows: list, cur: dict, tops: list) -> None:
    """The block's kubectl top rows: one gives its values to the block's row, several a row each after it."""
    if len(tops) == 1:
        cur["container"], cur["top_cpu_cores"], cur["top_memory_bytes"] = tops[0][1:]
    else:
        if not any(k in cur for k in ("usage_usec", "nr_periods", "period_us")):
            rows.pop()
        ts = cur["timestamp"]
        rows += [{"timestamp": ts, "pod": p, "container": c, "top_cpu_cores": cpu, "top_memory_bytes": mem}
                 for p, c, cpu, mem in tops]
    tops.clear()


def parse(path: str):
    import polars as pl

    rows, cur, section, pod, tops = [], None, None, None, []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if line.startswith("--- ") and line.endswith(" ---"):
                if tops:
                    _close(rows, cur, tops)
                cur = {"timestamp": dt.datetime.fromisoformat(line[4:-4]), "pod": pod}
                rows.append(cur)
                section = None
            elif line.startswith("Pod: "):
                pod = line[5:].strip()
            elif line.startswith("[") and line.endswith("]"):
                section = line[1:-1]
            elif not line or cur is None:
                continue
            elif section == "cgroup cpu.stat":
                key, _, value = line.partition(" ")
                cur[key] = int(value)
            elif section == "cgroup cpu.max":
                quota, period = line.split()
                cur["period_us"] = int(period)
                cur["limit_cores"] = None if quota in ("max", "-1") else int(quota) / int(period)
            elif section == "kubectl top" and not line.startswith(("POD ", "NAME ")):
                fields = line.split()
                cpu, mem = fields[-2], fields[-1]
                tops.append((fields[0], fields[1] if len(fields) == 4 else None,
                             int(cpu[:-1]) / 1000 if cpu.endswith("m") else float(cpu),
                             int(mem[:-2]) * 2**20 if mem.endswith("Mi") else int(mem)))
    if tops:
        _close(rows, cur, tops)
    df = pl.DataFrame(rows, infer_schema_length=None)
    return df.with_columns(
        usage_seconds=pl.col("usage_usec") / 1e6,
        throttled_seconds=pl.col("throttled_usec") / 1e6,
    )


if __name__ == "__main__":
    parse(sys.argv[1]).write_parquet(sys.argv[2])
