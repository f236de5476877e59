#!/usr/bin/env python3
"""Benchmark: ``throttlelab ingest`` reading realistic monitor logs, as a whole process.

Generates logs the way the ffmpeg write-up's ``monitor_cpu.sh`` writes them
(:mod:`monitor_log_generator`: values varying every sample, restarts, missing
sections, the script's naive ``%3N`` timestamps; its settings are printed) and
times, in one run, each as a separate process (wall time, CPU time and peak
memory from ``wait4``), on two days at 100 ms (864,000 blocks each): one
container (every block one kubectl top row) and 2-3 containers per block (one
row per container and one for the cgroup; 1% gaps, loop jitter, restarts):

* ``wc -l`` on the file (the floor: reading the bytes once);
* ``throttlelab ingest LOG -o OUT.parquet``;
* the plain line-by-line Python parser (:mod:`baseline_monitor_parser`) on the
  same file, in the same round (it writes the same rows; checked);

then once ``throttlelab ingest`` on a day at 1 s (86,400 blocks) and on several
pods' logs given at once (read in parallel), against the same files one process
after another.

Goals (a benchmark, not a test): ratios measured in one run, as an absolute speed
is not stable on a shared machine.  For each 100 ms day: >= 3x the line
parser's wall time (the median of the rounds' ratios) and peak memory below 4x
the file size; several logs at once faster than one after another.  MB/s, the
1 s day's time and the CPU times are reported beside, with the load average,
and not gated.  The exit status is 1 when a goal is missed.

    .venv/bin/python bench/bench_ingest.py [--blocks 864000] [--pods 4] [--rounds 1] [--days one,multi]
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
    """Entry point (``bench/run_all.py`` calls it with no arguments: the defaults); 1 when a goal is missed."""
    if argv is None and __name__ != "__main__":
        argv = []
    return 0 if measure(argv)["goals_met"] else 1


#: The two days at 100 ms: name -> settings other than the number of blocks.
DAYS = {
    "one": ("one container", dict(interval_s=0.1)),
    "multi": ("2-3 containers", dict(interval_s=0.1, containers=3, p_container_missing=0.3, p_gap=0.01, seed=3)),
}


def goals(days: dict[str, dict], together_s: float | None = None, apart_s: float | None = None) -> list[tuple[str, bool]]:
    """``(goal, met)`` of each ratio goal: per 100 ms day (``label``, ``speedup`` over the line parser, ``rss_x``:
    peak memory over the file's size) >= 3x and < 4x; the pod logs at once faster than one after another.

    >>> goals({"one": {"label": "one container", "speedup": 3.4, "rss_x": 3.1, "mb_per_s": 80.0}}, 2.0, 2.5)
    [('one container: >= 3x the line parser', True), ('one container: peak < 4x the file', True), ('logs at once faster', True)]
    """
    out = []
    for d in days.values():
        out += [(f"{d['label']}: >= 3x the line parser", d["speedup"] >= 3), (f"{d['label']}: peak < 4x the file", d["rss_x"] < 4)]
    if together_s is not None:
        out.append(("logs at once faster", together_s < apart_s))
    return out


def med(xs: list[float]) -> float:
    """The median (the upper one of an even count)."""
    return sorted(xs)[len(xs) // 2]


def extras(args, exe: str, tmp: Path) -> tuple:
    """The 1 s day and the pod logs at once against one after another."""
    day_s = Settings(blocks=args.cli_blocks, interval_s=1.0, seed=2)
    pod_s = [Settings(blocks=args.blocks // 4, interval_s=0.1, containers=1 + k % 2, seed=10 + k)
             for k in range(args.pods)]
    day = tmp / "day_1s.log"
    day_size = generate(day, day_s)
    pods = [tmp / f"pod{k}.log" for k in range(args.pods)]
    pod_size = sum(generate(p, s, pod=f"api-{k}-5d8f7c9b4-q{k}x2z") for k, (p, s) in enumerate(zip(pods, pod_s)))
    cli = run([exe, "ingest", str(day), "-o", str(tmp / "d.parquet"), "-q"])
    together = run([exe, "ingest", *map(str, pods), "-o", str(tmp / "p.parquet"), "-q"])
    apart = [run([exe, "ingest", str(p), "-o", str(tmp / f"p{k}.parquet"), "-q"]) for k, p in enumerate(pods)]
    return day_s, day_size, cli, pod_s, pod_size, together, sum(a["wall"] for a in apart)


def measure(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blocks", type=int, default=864_000, help="blocks in each 100 ms day (default: a day)")
    ap.add_argument("--cli-blocks", type=int, default=86_400, help="blocks in the 1 s day")
    ap.add_argument("--pods", type=int, default=4, help="logs read at once (a quarter day at 100 ms each)")
    ap.add_argument("--rounds", type=int, default=1, help="rounds of (wc -l, ingest, baseline) per day; medians reported")
    ap.add_argument("--days", default="one,multi", help="100 ms days to measure: one, multi or both (default)")
    ap.add_argument("--no-extra", action="store_true", help="skip the 1 s day and the pod logs")
    args = ap.parse_args(argv)
    names = [d for d in args.days.split(",") if d]
    if not names or set(names) - set(DAYS):
        ap.error(f"--days: one or more of {', '.join(DAYS)}")
    exe = shutil.which("throttlelab", path=str(Path(sys.executable).parent)) or "throttlelab"
    py = sys.executable
    tmp = Path(tempfile.mkdtemp(prefix="bench_ingest_"))
    try:
        t0 = time.perf_counter()
        days = {}
        for name in names:
            label, kw = DAYS[name]
            st = Settings(blocks=args.blocks, **kw)
            path = tmp / f"day_100ms_{name}.log"
            days[name] = {"label": label, "settings": st, "path": path, "mb": generate(path, st) / 1e6, "rounds": []}
        print(f"generated in {time.perf_counter() - t0:.0f} s:")
        for d in days.values():
            print(f"  {d['path'].name} ({d['label']}): {d['mb']:,.0f} MB = {d['mb'] * 1e6 / args.blocks:.0f} bytes per block; "
                  f"{d['settings'].describe()}")

        for r in range(args.rounds):
            for name, d in days.items():
                big = str(d["path"])
                wc = run(["wc", "-l", big])
                ours = run([exe, "ingest", big, "-o", str(tmp / f"o_{name}.parquet"), "-q", "--tz", "Asia/Seoul"])
                base = run([py, str(HERE / "baseline_monitor_parser.py"), big, str(tmp / f"b_{name}.parquet")])
                load = os.getloadavg()[0]
                d["rounds"].append({"wc": wc, "ours": ours, "base": base, "load": load})
                print(f"round {r + 1}, {d['label']}: wc -l {wc['wall']:.2f} s; throttlelab ingest {ours['wall']:.2f} s "
                      f"(CPU {ours['cpu']:.2f} s, peak {ours['rss_mb']:,.0f} MB); baseline {base['wall']:.2f} s "
                      f"(CPU {base['cpu']:.2f} s, peak {base['rss_mb']:,.0f} MB); {base['wall'] / ours['wall']:.1f}x "
                      f"baseline (load {load:.1f})", flush=True)
        extra = None if args.no_extra else extras(args, exe, tmp)
        # checked after every run: a child's peak memory counts what it shares with this process before exec
        import polars as pl

        for name, d in days.items():
            ours_rows = pl.read_parquet(tmp / f"o_{name}.parquet")
            base_rows = pl.read_parquet(tmp / f"b_{name}.parquet")
            assert ours_rows.height == base_rows.height >= args.blocks, (name, ours_rows.height, base_rows.height)
            for col in ("nr_throttled", "top_memory_bytes"):
                assert ours_rows[col].to_list() == base_rows[col].to_list(), (name, col)
            listed = base_rows["container"].is_not_null()  # ingest also fills a run's container into blocks without
            assert ours_rows["container"].filter(listed).to_list() == base_rows["container"].filter(listed).to_list(), name
            d["rows"] = ours_rows.height
            del ours_rows, base_rows

        figures = {}
        out = {"days": {}}
        print(f"\nthrottlelab ingest, whole process (medians over {args.rounds} round(s)):")
        for name, d in days.items():
            rs, mb = d["rounds"], d["mb"]
            ours_s, ours_cpu = med([r["ours"]["wall"] for r in rs]), med([r["ours"]["cpu"] for r in rs])
            base_s, base_cpu = med([r["base"]["wall"] for r in rs]), med([r["base"]["cpu"] for r in rs])
            ratio = med([r["base"]["wall"] / r["ours"]["wall"] for r in rs])
            cpu_ratio = med([r["base"]["cpu"] / r["ours"]["cpu"] for r in rs])
            rss = max(r["ours"]["rss_mb"] for r in rs)
            walls = [r["ours"]["wall"] for r in rs]
            wc_s = med([r["wc"]["wall"] for r in rs])
            print(f"  {d['label']}, 100 ms day, {mb:,.0f} MB, {d['rows']:,d} rows:")
            print(f"    ingest:        {ours_s:6.2f} s = {mb / ours_s:5.0f} MB/s   (reported, not a goal)   CPU {ours_cpu:.2f} s = "
                  f"{mb / ours_cpu:.0f} MB per CPU second (rounds {', '.join(f'{w:.2f}' for w in walls)} s)")
            print(f"    baseline:      {base_s:6.2f} s = {mb / base_s:5.0f} MB/s   -> ingest is {ratio:.1f}x faster "
                  f"[goal >= 3x] (CPU time: {cpu_ratio:.1f}x; CPU {base_cpu:.2f} s)")
            print(f"    wc -l:         {wc_s:6.2f} s = {mb / wc_s:5.0f} MB/s")
            print(f"    peak memory:   {rss:,.0f} MB = {rss / mb:.1f}x the file   [goal < 4x]; "
                  f"baseline {max(r['base']['rss_mb'] for r in rs):,.0f} MB")
            figures[name] = {"label": d["label"], "speedup": ratio, "rss_x": rss / mb, "mb_per_s": mb / ours_s}
            out["days"][name] = {
                "file_mb": round(mb, 1), "blocks": args.blocks, "rows": d["rows"], "ingest_seconds": round(ours_s, 2),
                "ingest_cpu_seconds": round(ours_cpu, 2), "ingest_mb_per_s": round(mb / ours_s, 1),
                "baseline_seconds": round(base_s, 2), "speedup_vs_baseline": round(ratio, 2),
                "cpu_speedup_vs_baseline": round(cpu_ratio, 2), "peak_rss_mb": round(rss),
                "load_average_1m": [round(r["load"], 1) for r in rs]}
        if extra:
            day_s, day_size, cli, pod_s, pod_size, together, apart_s = extra
            print(f"  1 s day, {day_size / 1e6:,.0f} MB ({day_s.describe()}):\n"
                  f"    {cli['wall']:6.2f} s (CPU {cli['cpu']:.2f} s, peak {cli['rss_mb']:,.0f} MB)   (reported, not a goal)")
            print(f"  {args.pods} logs at once, {pod_size / 1e6:,.0f} MB ({pod_s[0].describe()}; containers 1-2, "
                  f"seeds 10-):\n    {together['wall']:6.2f} s; one process each, one after another: {apart_s:.2f} s "
                  f"({apart_s / together['wall']:.1f}x)   [goal: faster at once]")
            out.update(cli_1s_day_seconds=round(cli["wall"], 2), parallel_seconds=round(together["wall"], 2),
                       sequential_seconds=round(apart_s, 2))
        load = os.getloadavg()
        print(f"  (load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores: a busy machine slows "
              "every wall-time figure; the ratios and CPU seconds are less affected)")
        met = goals(figures, *((together["wall"], apart_s) if extra else ()))
        missed = [what for what, ok in met if not ok]
        print("goals: " + ("all met" if not missed else f"NOT MET: {'; '.join(missed)}"))
        out["goals_met"] = not missed
        out["missed"] = missed
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
