#!/usr/bin/env python3
"""Benchmark: ``throttlelab recommend`` on a namespace of 500 containers over 14 days at a 15-s scrape interval.

Generates the containers (a varied mixture: starved, oversized, well-sized,
bursty, no limit, restarted; means, thread counts, burst factors, spikes and
seeds drawn per container), backfills them with ``promtool`` into a TSDB cached
under ``$THROTTLELAB_CACHE/bench_recommend/`` (reused while the generator
settings are unchanged), starts the Debian ``prometheus`` on a loopback port and
times the whole recommendation (fetch + analysis), printing the number of HTTP
queries, the points read and the time split.  Goal (issue 15): under 30 s.

    .venv/bin/python bench/bench_recommend.py [--containers 500] [--days 14] [--rounds 2]
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np

from throttlelab.analysis.rightsizing import Settings, rightsize_all
from throttlelab.experiment.simulation.synthetic_containers import ContainerSpec, scenario_specs
from throttlelab.experiment.simulation.synthetic_openmetrics import backfill
from throttlelab.ingest.prometheus import fetch_containers
from throttlelab.ingest.prometheus import PrometheusAPI
from throttlelab.ingest.prometheus import LocalPrometheus, prometheus_available

START = 1_767_225_600.0  # 2026-01-01T00:00:00Z


def bench_specs(n: int, seed: int = 7) -> list[ContainerSpec]:
    """``n`` containers cycling through the six scenarios with parameters drawn per container."""
    rng = np.random.default_rng(seed)
    kinds = scenario_specs("bench")
    out = []
    for i in range(n):
        k = kinds[i % len(kinds)]
        scale = float(np.exp(rng.normal(0, 0.6)))
        lim = None if k.limit is None else round(k.limit * scale * float(rng.uniform(0.7, 1.4)), 2)
        out.append(dataclasses.replace(
            k, pod=f"{k.pod.split('-')[0]}-{i:04d}", request=round((k.request or 0.1) * scale, 3), limit=lim,
            mean_cores=k.mean_cores * scale, threads=max(1.0, round(k.threads * float(rng.uniform(0.6, 1.6)))),
            burst_cv=k.burst_cv * float(rng.uniform(0.7, 1.3)), diurnal=float(rng.uniform(0.1, 0.5)),
            restart_at=None if k.restart_at is None else float(rng.uniform(0.2, 0.8)), seed=1000 + i))
    return out


def _server_cpu(url: str) -> float:
    """The server's own ``process_cpu_seconds_total`` (from its /metrics)."""
    import urllib.request

    with urllib.request.urlopen(f"{url}/metrics", timeout=30) as r:
        for line in r.read().decode().splitlines():
            if line.startswith("process_cpu_seconds_total "):
                return float(line.split()[1])
    return float("nan")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--containers", type=int, default=500)
    ap.add_argument("--days", type=float, default=14)
    ap.add_argument("--scrape", type=float, default=15.0)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args(argv)
    ok, why = prometheus_available()
    if not ok:
        print(f"bench recommend: skipped: {why}")
        return 0
    specs = bench_specs(args.containers)
    settings = {"containers": args.containers, "days": args.days, "scrape_s": args.scrape, "start": START, "seed": 7,
                "generator": "throttlelab.experiment.simulation.synthetic_containers v1"}
    tag = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:12]
    cache = Path(os.environ.get("THROTTLELAB_CACHE", Path.home() / ".cache" / "throttlelab")) / "bench_recommend" / tag
    print("generator:", json.dumps(settings))
    kinds = {}
    for s in specs:
        kinds[s.pod.split("-")[0]] = kinds.get(s.pod.split("-")[0], 0) + 1
    print("mixture:", ", ".join(f"{k} {v}" for k, v in kinds.items()))
    if not (cache / "done").exists():
        print("backfill: generating and backfilling (once; about 1 h on a busy 2-core machine, 24 GB of temporary text)",
              flush=True)
        shutil.rmtree(cache, ignore_errors=True)
        t0 = time.perf_counter()
        lines = backfill(specs, cache / "tsdb", start=START, hours=args.days * 24, scrape_s=args.scrape, work_dir=cache / "work")
        shutil.rmtree(cache / "work", ignore_errors=True)
        (cache / "done").write_text(str(lines))
        print(f"backfill: {lines:,d} samples in {time.perf_counter() - t0:.0f} s -> {cache} (cached for the next run)")
    else:
        print(f"backfill: cached at {cache} ({int((cache / 'done').read_text()):,d} samples)")
    end = START + args.days * 86400
    with LocalPrometheus(cache / "tsdb", timeout=300) as prom:
        for rnd in range(1, args.rounds + 1):
            api = PrometheusAPI(prom.url, timeout=300)
            s0, c0 = _server_cpu(prom.url), time.process_time()
            t0 = time.perf_counter()
            f = fetch_containers(api, window_s=args.days * 86400, end=end, namespace="bench")
            t1 = time.perf_counter()
            recs = rightsize_all(f.containers, Settings())
            t2 = time.perf_counter()
            s1, c1 = _server_cpu(prom.url), time.process_time()
            print(f"round {rnd}: CPU seconds: Prometheus {s1 - s0:.1f}, this process {c1 - c0:.1f} "
                  f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
            points = sum(int(np.isfinite(c.usage).sum()) for c in f.containers) * 4
            decisions = {}
            for r in recs:
                decisions[r.decision] = decisions.get(r.decision, 0) + 1
            print(f"round {rnd}: {len(recs)} containers in {t2 - t0:.1f} s (fetch {t1 - t0:.1f} s, analysis {t2 - t1:.1f} s); "
                  f"{f.queries} HTTP queries, step {f.step_s:g} s, {points:,d} points read; goal < 30 s: "
                  f"{'met' if t2 - t0 < 30 else 'NOT met'}")
        print("decisions:", ", ".join(f"{k} {v}" for k, v in sorted(decisions.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
