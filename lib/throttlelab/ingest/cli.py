"""``throttlelab ingest PATH... -o OUT.parquet``: read inputs into the canonical tables.

Prints what was read and, per reason, what was skipped (with the first
examples, ``file:line``).  Lenient by default; ``--strict`` stops at the first
problem with exit status 2.  Inputs of several kinds (monitor logs and k6
output, say) give one file per table: ``OUT.<table>.parquet``.
"""

from __future__ import annotations

import argparse
import sys

from throttlelab.ingest.detect import FORMATS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="input files (or cgroup directories)")
    parser.add_argument("-o", "--output", required=True, metavar="OUT.parquet", help="output parquet file")
    parser.add_argument("--format", default="auto", choices=("auto", *FORMATS), help="input format (default: from content)")
    parser.add_argument("--strict", action="store_true", help="stop at the first problem (exit status 2)")
    parser.add_argument("--tz", default="local", help="IANA time zone (Asia/Seoul, UTC...) of monitor timestamps written "
                        "without one (default: this machine's zone); recorded in the output's parquet metadata")
    parser.add_argument("--intervals", metavar="INTERVALS.parquet", help="also write the intervals table of the samples")
    parser.add_argument("--experiment", help="experiment name for k6 rows (default: from the file name)")
    parser.add_argument("--run-id", help="run id for k6 rows (default: from the file name)")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only problems")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from throttlelab.ingest.detect import detect_format, read_any

    import os
    from concurrent.futures import ThreadPoolExecutor

    from throttlelab.ingest.monitor_timestamps import local_zone

    names = {k: v for k, v in (("experiment", args.experiment), ("run_id", args.run_id)) if v}
    tz = local_zone() if args.tz == "local" else args.tz
    results: dict[str, object] = {}

    def read(path):
        fmt = detect_format(path) if args.format == "auto" else args.format
        kw = names if fmt in ("k6-json", "k6-csv") else {}
        return fmt, read_any(path, fmt, strict=args.strict, tz=tz, **kw)

    # Several files at once, in threads (the readers' polars work releases the GIL); results in order.
    with ThreadPoolExecutor(min(len(args.paths), os.cpu_count() or 1)) as pool:
        for path, (fmt, r) in zip(args.paths, pool.map(read, args.paths)):
            results[r.table] = results[r.table].merge(r) if r.table in results else r
            if not args.quiet:
                zone = f"; times without a zone read in {r.notes['naive_timestamps_tz']}" if "naive_timestamps_tz" in r.notes else ""
                print(f"{path}: {fmt}: {r.frame.height:,d} {r.table} rows from {r.lines_total:,d} {r.unit} "
                      f"({r.skipped.total:,d} skipped{zone})")
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    for table, r in results.items():
        target = out if len(results) == 1 else out.with_name(f"{out.stem}.{table}{out.suffix or '.parquet'}")
        r.frame.write_parquet(target, metadata={f"throttlelab.{k}": v for k, v in r.notes.items()} or None)
        if not args.quiet:
            print(f"wrote {target} ({r.frame.height:,d} {table} rows)")
        if r.skipped:
            print(f"skipped ({table}): {r.skipped.total:,d} of {r.lines_total:,d} {r.unit}", file=sys.stderr)
            print(r.skipped.summary(r.unit), file=sys.stderr)
    if args.intervals:
        samples = results.get("samples")
        if samples is None:
            print("throttlelab: no samples to compute intervals from", file=sys.stderr)
        else:
            iv = samples.intervals()
            Path(args.intervals).parent.mkdir(parents=True, exist_ok=True)
            iv.write_parquet(args.intervals)
            if not args.quiet:
                print(f"wrote {args.intervals} ({iv.height:,d} intervals rows)")
    return 0
