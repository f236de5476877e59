#!/usr/bin/env python3
"""Benchmark: reading monitor logs.

Generates a day of samples at 100 ms (864,000 blocks, cgroup v2, ~320 MB) in a
temporary folder and times, in rounds (each round in one stretch of time):

* ``wc -l`` on the file (the floor: reading the bytes once; best of 3);
* :func:`throttlelab.ingest.monitor_log.read_monitor_log` (best of ``--repeat``;
  its process CPU time is printed too: on a shared machine wall time follows
  the load, CPU time much less);
* a straightforward line-by-line Python parser (the baseline below; once);

and reports the medians over the rounds of the times and of the per-round
ratios; then ``throttlelab ingest`` as a whole process on a day at 1 s (86,400
blocks).  Goals (issue 3): >= 5x the baseline, >= 250 MB/s, CLI < 1 s.

    .venv/bin/python bench/bench_ingest.py [--blocks 864000] [--repeat 3] [--rounds 3]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEADER = "=== CPU Monitoring Started ===\nPod: {pod}\nNamespace: bench\nInterval: {interval}s\nLog file: {path}\n===============================\n"
BLOCK = (
    "--- {ts}Z ---\n"
    "[kubectl top]\n"
    "POD                      NAME     CPU(cores)   MEMORY(bytes)\n"
    "{pod}   ffmpeg   {cpu}m        {mem}Mi\n"
    "[cgroup cpu.stat]\n"
    "usage_usec {u}\nuser_usec {uu}\nsystem_usec {su}\n"
    "nr_periods {p}\nnr_throttled {t}\nthrottled_usec {tu}\nnr_bursts 0\nburst_usec 0\n"
    "[cgroup cpu.max]\n"
    "400000 100000\n"
    "\n"
)


def generate(path: Path, blocks: int, interval_s: float) -> int:
    """Write a synthetic monitor log in the writer's format (same text as format_block)."""
    pod = "ffmpeg-7d9c5b6f4-x2k8p"
    start = dt.datetime(2026, 2, 6, tzinfo=dt.timezone.utc)
    step_us = int(round(interval_s * 1e6))
    u = p = t = tu = 0
    with open(path, "w") as f:
        f.write(HEADER.format(pod=pod, interval=f"{interval_s:g}", path=path))
        chunk = []
        for i in range(blocks):
            when = start + dt.timedelta(microseconds=i * step_us)
            du = 300_000 + (i * 7919) % 100_000
            u += du
            p += 1
            t += 1 if i % 3 else 0
            tu += (i * 104729) % 50_000
            chunk.append(
                BLOCK.format(
                    ts=when.strftime("%Y-%m-%d %H:%M:%S.") + f"{when.microsecond // 1000:03d}",
                    pod=pod, cpu=3000 + i % 1000, mem=500 + i % 100,
                    u=u, uu=u - u // 10, su=u // 10, p=p, t=t, tu=tu,
                )
            )
            if len(chunk) == 20_000:
                f.write("".join(chunk))
                chunk.clear()
        f.write("".join(chunk))
    return path.stat().st_size


# --- baseline: a straightforward line-by-line parser ------------------------------


def baseline_parse(path: Path):
    """What one would write first: a Python loop over lines, a dict per block."""
    import polars as pl

    rows, cur, section = [], None, None
    pod = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if line.startswith("--- ") and line.endswith(" ---"):
                ts = line[4:-4]
                if ts.endswith("Z"):
                    ts = ts[:-1] + "+00:00"
                cur = {"timestamp": dt.datetime.fromisoformat(ts), "pod": pod}
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
            elif section == "kubectl top" and not line.startswith("POD "):
                fields = line.split()
                cpu, mem = fields[2], fields[3]
                cur["top_cpu_cores"] = int(cpu[:-1]) / 1000 if cpu.endswith("m") else float(cpu)
                cur["top_memory_bytes"] = int(mem[:-2]) * 2**20 if mem.endswith("Mi") else int(mem)
    df = pl.DataFrame(rows)
    return df.with_columns(
        usage_seconds=pl.col("usage_usec") / 1e6,
        throttled_seconds=pl.col("throttled_usec") / 1e6,
    )


def _best(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def _timed(fn) -> tuple[float, float, object]:
    """(wall seconds, CPU seconds of this process, result)."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - t0, time.process_time() - c0, out


def _median(xs: list[float]) -> float:
    xs = sorted(xs)
    k = len(xs) // 2
    return xs[k] if len(xs) % 2 else (xs[k - 1] + xs[k]) / 2


def main(argv: list[str] | None = None) -> int:
    """Entry point (``bench/run_all.py`` calls it with no arguments: the defaults)."""
    if argv is None and __name__ != "__main__":
        argv = []
    measure(argv)
    return 0


def measure(argv: list[str] | None = None) -> dict:
    """Run the benchmark; return the measured numbers."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blocks", type=int, default=864_000, help="blocks in the 100 ms log (default: a day)")
    ap.add_argument("--cli-blocks", type=int, default=86_400, help="blocks in the 1 s log for the CLI timing")
    ap.add_argument("--repeat", type=int, default=3, help="runs of the reader per round; the best time is kept")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of (wc -l, reader, baseline); medians are reported")
    args = ap.parse_args(argv)

    from throttlelab.ingest.monitor_log import read_monitor_log

    tmp = Path(tempfile.mkdtemp(prefix="bench_ingest_"))
    try:
        big = tmp / "day_100ms.log"
        t0 = time.perf_counter()
        size = generate(big, args.blocks, 0.1)
        gen_s = time.perf_counter() - t0
        mb = size / 1e6
        print(f"generated {big.name}: {args.blocks:,d} blocks, {mb:,.0f} MB in {gen_s:.1f} s")

        # Rounds of (wc -l, ours, baseline): each round's ratios come from one
        # stretch of time on a shared machine; medians over rounds are reported.
        rounds = []
        for r in range(args.rounds):
            wc_s, _ = _best(lambda: subprocess.run(["wc", "-l", str(big)], check=True, capture_output=True), 3)
            ours = [_timed(lambda: read_monitor_log(big)) for _ in range(args.repeat)]
            ours_s, ours_cpu = min(o[0] for o in ours), min(o[1] for o in ours)
            res = ours[-1][2]
            base_s, _, base = _timed(lambda: baseline_parse(big))
            assert res.samples.height == base.height == args.blocks, (res.samples.height, base.height)
            assert res.samples["nr_throttled"].to_list()[-5:] == base["nr_throttled"].to_list()[-5:]
            load = os.getloadavg()[0]
            rounds.append({"wc": wc_s, "ours": ours_s, "ours_cpu": ours_cpu, "base": base_s, "load": load})
            print(f"round {r + 1}: wc -l {wc_s:.3f} s, read_monitor_log {ours_s:.3f} s (best of {args.repeat}; CPU "
                  f"{ours_cpu:.3f} s), baseline {base_s:.3f} s -> {mb / ours_s:.0f} MB/s, {base_s / ours_s:.1f}x baseline, "
                  f"{ours_s / wc_s:.0f}x wc -l (load {load:.1f})", flush=True)
        wc_s = _median([r["wc"] for r in rounds])
        ours_s = _median([r["ours"] for r in rounds])
        ours_cpu = _median([r["ours_cpu"] for r in rounds])
        base_s = _median([r["base"] for r in rounds])
        speedup = _median([r["base"] / r["ours"] for r in rounds])
        over_wc = _median([r["ours"] / r["wc"] for r in rounds])

        small = tmp / "day_1s.log"
        generate(small, args.cli_blocks, 1.0)
        exe = shutil.which("throttlelab", path=str(Path(sys.executable).parent)) or "throttlelab"
        cli_s, _ = _best(
            lambda: subprocess.run([exe, "ingest", str(small), "-o", str(tmp / "o.parquet"), "-q"], check=True,
                                   capture_output=True, env={**os.environ}),
            args.repeat,
        )
        result = {
            "file_mb": round(mb, 1),
            "blocks": args.blocks,
            "rounds": args.rounds,
            "wc_l_seconds": round(wc_s, 3),
            "ingest_seconds": round(ours_s, 3),
            "ingest_cpu_seconds": round(ours_cpu, 3),
            "baseline_seconds": round(base_s, 3),
            "speedup_vs_baseline": round(speedup, 2),
            "ingest_mb_per_s": round(mb / ours_s, 1),
            "ingest_over_wc_l": round(over_wc, 1),
            "cli_24h_1s_seconds": round(cli_s, 3),
            "cpu_count": os.cpu_count(),
            "load_average_1m": [round(r["load"], 2) for r in rounds],
        }
        print(f"medians over {args.rounds} rounds:")
        print(f"wc -l                  {wc_s:8.3f} s  ({mb / wc_s:8.0f} MB/s)")
        print(f"read_monitor_log       {ours_s:8.3f} s  ({mb / ours_s:8.0f} MB/s)  = {over_wc:.1f} x wc -l   [goal >= 250 MB/s]"
              f"   (CPU {ours_cpu:.3f} s)")
        print(f"baseline (line loop)   {base_s:8.3f} s  ({mb / base_s:8.0f} MB/s)")
        print(f"speed-up vs baseline   {speedup:8.1f} x   [goal >= 5x]")
        print(f"throttlelab ingest, 24 h at 1 s ({args.cli_blocks:,d} blocks), whole process: {cli_s:.3f} s   [goal < 1 s]")
        print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores: timings on a busy machine are slower)")
        return result
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
