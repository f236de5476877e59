#!/usr/bin/env python3
"""Benchmark: reading k6 ``--out json`` lazily (issue 13).

Generates a k6 NDJSON file of ``--mb`` MB (default 1024) in a temporary folder
from four 16 MB blocks written with different generator settings (seed, VUs,
error and refusal rates, UTC offset; see ``k6_ndjson_gen.SETTINGS``), cycled;
then, in one run:

* ``cat FILE > /dev/null`` (the floor: reading the bytes once);
* ``throttlelab ingest FILE -o OUT.parquet`` as a whole process (imports,
  read, parquet written): wall time, CPU time, peak memory (max RSS);
* the same on the gzip-compressed file (``gzip -1``);
* in-process on the first 64 MB: the lazy reader vs the line-by-line
  baseline that ``json.loads`` every line (what the reader did before).

Goal: >= 100 MB/s whole process with peak memory <= 1 GB.  The machine is
shared (2 cores): wall time follows its load, so CPU time and the MB/s it
implies are printed beside it.

    .venv/bin/python bench/bench_k6.py [--mb 1024]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from child_process import measure as child  # noqa: E402
from k6_ndjson_gen import SETTINGS, generate  # noqa: E402

BLOCKS = [
    {"seed": 13},
    {"seed": 14, "vus": 200, "error_rate": 0.10, "refused_rate": 0.03, "utc_offset": "+00:00"},
    {"seed": 15, "vus": 10, "error_rate": 0.0, "refused_rate": 0.0, "utc_offset": "-05:00", "endpoints": 1},
    {"seed": 16, "vus": 500, "error_rate": 0.30, "refused_rate": 0.10, "utc_offset": "+05:30", "endpoints": 40},
]
BLOCK_MB = 16


def make_file(path: Path, mb: int, tmp: Path) -> dict:
    parts = []
    counts = []
    for k, s in enumerate(BLOCKS):
        p = tmp / f"block{k}.json"
        counts.append(generate(p, BLOCK_MB * 2**20, s))
        parts.append(p.read_bytes())
    total = {"bytes": 0, "lines": 0, "requests": 0}
    with open(path, "wb") as f:
        k = 0
        while total["bytes"] < mb * 2**20:
            f.write(parts[k % len(parts)])
            for key in total:
                total[key] += counts[k % len(parts)][key]
            k += 1
    return total


def baseline(path: Path, limit: int) -> tuple[int, float]:
    """json.loads on every line of the first ``limit`` bytes: (requests, seconds)."""
    t0 = time.perf_counter()
    n = 0
    with open(path, "rb") as f:
        data = f.read(limit)
    for line in data[: data.rfind(b"\n") + 1].split(b"\n")[:-1]:
        obj = json.loads(line)
        if obj.get("type") == "Point" and obj.get("metric") == "http_req_duration":
            n += 1
    return n, time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=int, default=int(os.environ.get("THROTTLELAB_BENCH_K6_MB", "1024")))
    args = ap.parse_args(argv if argv is not None else [])
    py = sys.executable
    tmp = Path(tempfile.mkdtemp(prefix="bench_k6_"))
    try:
        print(f"generator: k6_ndjson_gen defaults {SETTINGS}")
        print(f"blocks of {BLOCK_MB} MB cycled to {args.mb} MB, per block: {BLOCKS}")
        t0 = time.perf_counter()
        f = tmp / "run.k6.json"
        tot = make_file(f, args.mb, tmp)
        size = f.stat().st_size
        mb = size / 1e6
        print(f"file: {mb:,.0f} MB, {tot['lines']:,d} lines, {tot['requests']:,d} requests "
              f"(generated in {time.perf_counter() - t0:.0f} s)")
        floor, _, _ = child(["sh", "-c", f"cat {f} > /dev/null"])
        wall, cpu, rss = child([py, "-m", "throttlelab", "ingest", str(f), "-o", str(tmp / "out.parquet"), "-q"])
        import polars as pl

        rows = pl.read_parquet(tmp / "out.parquet").height
        assert rows == tot["requests"], (rows, tot["requests"])
        t0 = time.perf_counter()
        with open(f, "rb") as src, gzip.open(tmp / "run.k6.json.gz", "wb", compresslevel=1) as dst:
            shutil.copyfileobj(src, dst, 16 * 2**20)
        gz_mb = (tmp / "run.k6.json.gz").stat().st_size / 1e6
        gwall, gcpu, grss = child([py, "-m", "throttlelab", "ingest", str(tmp / "run.k6.json.gz"), "-o",
                                   str(tmp / "outgz.parquet"), "-q"])
        from throttlelab.ingest.k6 import read_k6_json

        limit = min(64 * 2**20, size)
        part = tmp / "part.json"
        with open(f, "rb") as src:
            data = src.read(limit)
        part.write_bytes(data[: data.rfind(b"\n") + 1])
        t1 = time.perf_counter()
        lazy_rows = read_k6_json(part).frame.height
        lazy = time.perf_counter() - t1
        base_rows, base = baseline(part, limit)
        assert lazy_rows == base_rows, (lazy_rows, base_rows)
        print(f"floor (cat):              {floor:6.2f} s  {mb / floor:7.0f} MB/s")
        print(f"ingest, whole process:    {wall:6.2f} s  {mb / wall:7.0f} MB/s wall, CPU {cpu:.2f} s "
              f"({mb / cpu:.0f} MB/s of CPU), peak RSS {rss:,.0f} MB, {rows:,d} requests")
        print(f"ingest of .gz ({gz_mb:,.0f} MB): {gwall:6.2f} s  {mb / gwall:7.0f} MB/s (uncompressed) wall, "
              f"CPU {gcpu:.2f} s, peak RSS {grss:,.0f} MB")
        pm = len(part.read_bytes()) / 1e6
        print(f"in-process on {pm:.0f} MB: lazy {lazy:.2f} s ({pm / lazy:.0f} MB/s) vs json.loads every line "
              f"{base:.2f} s ({pm / base:.0f} MB/s): {base / lazy:.1f}x")
        print(f"ratios (one run): ingest/cat wall {wall / floor:.1f}x; gz/plain wall {gwall / wall:.2f}x")
        ok = mb / wall >= 100 and rss <= 1024
        cpu_ok = mb / cpu >= 100 and rss <= 1024
        print(f"goal >= 100 MB/s whole process, peak <= 1 GB: {'MET' if ok else 'NOT MET'} on wall time"
              f"; {'MET' if cpu_ok else 'NOT MET'} on CPU time (load average {os.getloadavg()[0]:.1f} on "
              f"{os.cpu_count()} cores)")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
