#!/usr/bin/env python3
"""Overhead of the local backend's monitor sampler at 10 Hz (goal: under 1 %).

Two measurements, both within this one run:

1. Wall-time ratio: the same fixed-work workload (the native burner, 2 threads
   x 0.5 CPU-seconds, no CPU limit: every core busy, the worst case for a
   sampler competing for CPU) run with the sampler at 10 Hz and without it (only
   the start and end samples), interleaved ABBA; the median of the paired
   ratios.  The machine is shared and noisy (+-15-25 % run to run), so this
   ratio's spread is printed too: it cannot resolve 1 % by itself.
2. Direct cost: the time one sample takes (read cpu.stat, usage and limit,
   format and write one block), and what that is per second at 10 Hz, as a share
   of one core and of the workload's CPU.  This is the precise figure.

Also prints the throttling effect the tests describe (2 busy threads under
0.5 cores vs unlimited): the wall-time ratio, expected about 4 on 2 idle cores.

Run: ``python bench/bench_sampler.py`` (needs a writable CPU cgroup; says why not otherwise).
"""

from __future__ import annotations

import dataclasses
import statistics
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    from throttlelab.experiment.local_cgroup import Cgroup, LocalBackend, MonitorSampler, local_backend_available
    from throttlelab.experiment.sweeps import spec_from_mapping

    ok, reason = local_backend_available()
    if not ok:
        print(f"skipped: {reason}")
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="bench_sampler_"))
    spec = spec_from_mapping({"name": "bench", "workload": {"kind": "burner", "cpu_seconds": 1.0},
                              "limits": ["unlimited", 0.5], "threads": [2], "sampling_interval_s": 0.1,
                              "order": "sequential", "data_root": str(tmp)})
    backend = LocalBackend()
    backend.prepare(spec)
    unlimited, limited = spec.plan()
    sampled = unlimited
    unsampled = dataclasses.replace(unlimited, sampling_interval_s=3600.0)
    try:
        # 1. wall-time ratio, ABBA-interleaved pairs
        pairs = 6
        ratios, walls = [], {"with": [], "without": []}
        for i in range(pairs):
            order = [("with", sampled), ("without", unsampled)]
            if i % 2:
                order.reverse()
            got = {}
            for label, plan in order:
                row = backend.execute(plan, tmp / f"{label}-{i}.log")
                got[label] = row["wall_seconds"]
                walls[label].append(row["wall_seconds"])
            ratios.append(got["with"] / got["without"])
        med = statistics.median(ratios)
        q = statistics.quantiles(ratios, n=4) if len(ratios) >= 4 else [min(ratios), med, max(ratios)]
        print(f"wall with / without sampling at 10 Hz, {pairs} ABBA pairs: median {med:.4f} "
              f"({(med - 1) * 100:+.2f} %), quartiles {q[0]:.3f}-{q[-1]:.3f}; median walls "
              f"{statistics.median(walls['with']):.3f} s / {statistics.median(walls['without']):.3f} s")

        # 2. direct cost of one sample
        cg = Cgroup(backend.layout, f"{backend.owner}/bench-cost").create()
        with MonitorSampler(cg, tmp / "cost.log", interval_s=0.1, pod="cost") as s:
            n = 500
            t0 = time.perf_counter()
            c0 = time.process_time()
            for _ in range(n):
                s.sample()
            per_wall = (time.perf_counter() - t0) / n
            per_cpu = (time.process_time() - c0) / n
        cg.remove()
        per_s = per_cpu * 10
        print(f"one sample: {per_wall * 1e6:.0f} us wall, {per_cpu * 1e6:.0f} us CPU; at 10 Hz "
              f"{per_s * 1e3:.2f} ms CPU per second = {per_s * 100:.3f} % of one core, "
              f"{per_s / 2 * 100:.3f} % of this 2-thread workload's CPU (goal < 1 %)")

        # 3. the throttling effect of the tests, as a ratio
        lim = backend.execute(limited, tmp / "limited.log")
        unl = backend.execute(unlimited, tmp / "unlimited.log")
        print(f"2 busy threads, 1 CPU-s: 0.5 cores {lim['wall_seconds']:.2f} s "
              f"({lim['nr_throttled']}/{lim['nr_periods']} periods throttled, {lim['cpu_seconds'] / lim['wall_seconds']:.2f} "
              f"cores used) vs unlimited {unl['wall_seconds']:.2f} s: ratio {lim['wall_seconds'] / unl['wall_seconds']:.2f} "
              f"(about 4 on 2 idle cores)")
    finally:
        backend.cleanup(spec)
    return 0


if __name__ == "__main__":
    sys.exit(main())
