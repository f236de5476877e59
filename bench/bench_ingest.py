#!/usr/bin/env python3
"""Benchmark: ``throttlelab ingest`` reading realistic monitor logs, as a whole process.

Generates logs the way the ffmpeg write-up's ``monitor_cpu.sh`` writes them
(:mod:`monitor_log_generator`: values varying every sample, restarts, missing
sections, the script's naive ``%3N`` timestamps; its settings are printed) and
times, in one run, each as a separate process (wall time, CPU time and peak
memory from ``wait4``):

* ``wc -l`` on the file (the floor: reading the bytes once);
* ``throttlelab ingest LOG -o OUT.parquet`` on a day at 100 ms (864,000 blocks);
* the plain line-by-line Python parser (:mod:`baseline_monitor_parser`) on the same file;
* ``throttlelab ingest`` on a day at 1 s (86,400 blocks);
* ``throttlelab ingest`` on several pods' logs given at once (read in parallel),
  against the same files one process after another.

Goals (issue 11; a benchmark, not a test): >= 100 MB/s and >= 3x the baseline
on the 100 ms day, the 1 s day under 1 s, peak memory below 4x the file size.

    .venv/bin/python bench/bench_ingest.py [--blocks 864000] [--pods 4] [--rounds 1]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from child_process import measure as run_child  # noqa: E402
from monitor_log_generator import Settings, generate  # noqa: E402


def run(argv: list[str]) -> dict:
    """Run ``argv`` as a process: wall and CPU seconds, peak memory (MB)."""
    wall, cpu, rss_mb = run_child(argv)
    return {"wall": wall, "cpu": cpu, "rss_mb": rss_mb}


def main(argv: list[str] | None = None) -> int:
    """Entry point (``bench/run_all.py`` calls it with no arguments: the defaults)."""
    if argv is None and __name__ != "__main__":
        argv = []
    measure(argv)
    return 0


def measure(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blocks", type=int, default=864_000, help="blocks in the 100 ms day (default: a day)")
    ap.add_argument("--cli-blocks", type=int, default=86_400, help="blocks in the 1 s day")
    ap.add_argument("--pods", type=int, default=4, help="logs read at once (a quarter day at 100 ms each)")
    ap.add_argument("--rounds", type=int, default=1, help="rounds of (wc -l, ingest, baseline); medians reported")
    args = ap.parse_args(argv)
    exe = shutil.which("throttlelab", path=str(Path(sys.executable).parent)) or "throttlelab"
    py = sys.executable
    tmp = Path(tempfile.mkdtemp(prefix="bench_ingest_"))
    try:
        big_s = Settings(blocks=args.blocks, interval_s=0.1)
        day_s = Settings(blocks=args.cli_blocks, interval_s=1.0, seed=2)
        pod_s = [Settings(blocks=args.blocks // 4, interval_s=0.1, containers=1 + k % 2, seed=10 + k) for k in range(args.pods)]
        t0 = time.perf_counter()
        big, day = tmp / "day_100ms.log", tmp / "day_1s.log"
        size = generate(big, big_s)
        day_size = generate(day, day_s)
        pods = [tmp / f"pod{k}.log" for k in range(args.pods)]
        pod_size = sum(generate(p, s, pod=f"api-{k}-5d8f7c9b4-q{k}x2z") for k, (p, s) in enumerate(zip(pods, pod_s)))
        mb = size / 1e6
        print(f"generated in {time.perf_counter() - t0:.0f} s:")
        print(f"  {big.name}: {mb:,.0f} MB; {big_s.describe()}")
        print(f"  {day.name}: {day_size / 1e6:,.0f} MB; {day_s.describe()}")
        print(f"  {args.pods} pod logs: {pod_size / 1e6:,.0f} MB; {pod_s[0].describe()} (containers 1-2, seeds 10-)")

        rounds = []
        for r in range(args.rounds):
            wc = run(["wc", "-l", str(big)])
            ours = run([exe, "ingest", str(big), "-o", str(tmp / "o.parquet"), "-q", "--tz", "Asia/Seoul"])
            base = run([py, str(HERE / "baseline_monitor_parser.py"), str(big), str(tmp / "b.parquet")])
            load = os.getloadavg()[0]
            rounds.append({"wc": wc, "ours": ours, "base": base, "load": load})
            print(f"round {r + 1}: wc -l {wc['wall']:.2f} s; throttlelab ingest {ours['wall']:.2f} s (CPU {ours['cpu']:.2f} s, "
                  f"peak {ours['rss_mb']:,.0f} MB); baseline {base['wall']:.2f} s (CPU {base['cpu']:.2f} s, "
                  f"peak {base['rss_mb']:,.0f} MB); {base['wall'] / ours['wall']:.1f}x baseline (load {load:.1f})", flush=True)
        import polars as pl

        ours_rows = pl.read_parquet(tmp / "o.parquet")
        base_rows = pl.read_parquet(tmp / "b.parquet")
        assert ours_rows.height == base_rows.height == args.blocks, (ours_rows.height, base_rows.height)
        assert ours_rows["nr_throttled"].to_list() == base_rows["nr_throttled"].to_list()

        med = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
        ours_s = med([r["ours"]["wall"] for r in rounds])
        base_s = med([r["base"]["wall"] for r in rounds])
        ratio = med([r["base"]["wall"] / r["ours"]["wall"] for r in rounds])
        cpu_ratio = med([r["base"]["cpu"] / r["ours"]["cpu"] for r in rounds])
        rss = max(r["ours"]["rss_mb"] for r in rounds)
        wc_s = med([r["wc"]["wall"] for r in rounds])

        cli = run([exe, "ingest", str(day), "-o", str(tmp / "d.parquet"), "-q"])
        together = run([exe, "ingest", *map(str, pods), "-o", str(tmp / "p.parquet"), "-q"])
        apart = [run([exe, "ingest", str(p), "-o", str(tmp / f"p{k}.parquet"), "-q"]) for k, p in enumerate(pods)]
        apart_s = sum(a["wall"] for a in apart)

        print(f"\nthrottlelab ingest, whole process (medians over {args.rounds} round(s)):")
        print(f"  100 ms day, {mb:,.0f} MB:  {ours_s:6.2f} s = {mb / ours_s:5.0f} MB/s   [goal >= 100 MB/s]"
              f"   CPU {med([r['ours']['cpu'] for r in rounds]):.2f} s = {mb / med([r['ours']['cpu'] for r in rounds]):.0f} MB per CPU second")
        print(f"  baseline line parser:    {base_s:6.2f} s = {mb / base_s:5.0f} MB/s   -> ingest is {ratio:.1f}x faster "
              f"[goal >= 3x] (CPU time: {cpu_ratio:.1f}x)")
        print(f"  wc -l:                   {wc_s:6.2f} s = {mb / wc_s:5.0f} MB/s")
        print(f"  peak memory:             {rss:,.0f} MB = {rss / mb:.1f}x the file   [goal < 4x]; "
              f"baseline {max(r['base']['rss_mb'] for r in rounds):,.0f} MB")
        print(f"  1 s day, {day_size / 1e6:,.0f} MB:     {cli['wall']:6.2f} s (CPU {cli['cpu']:.2f} s, peak {cli['rss_mb']:,.0f} MB)"
              f"   [goal < 1 s]")
        print(f"  {args.pods} logs at once, {pod_size / 1e6:,.0f} MB: {together['wall']:6.2f} s; one process each, one after "
              f"another: {apart_s:.2f} s ({apart_s / together['wall']:.1f}x)")
        print(f"  (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores: a busy machine slows every figure)")
        return {
            "file_mb": round(mb, 1), "blocks": args.blocks, "ingest_seconds": round(ours_s, 2),
            "ingest_mb_per_s": round(mb / ours_s, 1), "baseline_seconds": round(base_s, 2),
            "speedup_vs_baseline": round(ratio, 2), "peak_rss_mb": round(rss), "cli_1s_day_seconds": round(cli["wall"], 2),
            "parallel_seconds": round(together["wall"], 2), "sequential_seconds": round(apart_s, 2),
            "load_average_1m": [round(r["load"], 1) for r in rounds],
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
