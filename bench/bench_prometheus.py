#!/usr/bin/env python3
"""Benchmark: reading Prometheus query_range JSON (issue 13).

Generates three ``/api/v1/query_range`` responses as users save them, one per
metric (usage, CFS periods, throttled periods), for ``--series`` containers
(label sets as kube-prometheus-stack's kubelet job writes them; a tenth of the
containers restarted, so two ids per pod) at ``--points`` points each (11,000
is Prometheus' limit per series), and times in one run:

* ``throttlelab ingest`` on the three files as a whole process (merged by
  label set): wall, CPU, peak memory;
* the floor ``json.load`` of the same files in one process (what loading the
  responses whole costs, before any row is made).

    .venv/bin/python bench/bench_prometheus.py [--series 60] [--points 11000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path as _Path

sys.path.insert(0, str(_Path(__file__).resolve().parent))
from child_process import measure as child  # noqa: E402
from pathlib import Path

from throttlelab.core import CADVISOR_COUNTERS  # noqa: E402

SETTINGS = {"seed": 13, "step_s": 15, "restarted_share": 0.1, "cores": (0.5, 4.0)}
METRICS = tuple(CADVISOR_COUNTERS[n] for n in ("usage_seconds", "nr_periods", "nr_throttled"))


def generate(folder: Path, n_series: int, n_points: int) -> list[Path]:
    rnd = random.Random(SETTINGS["seed"])
    t0 = 1770387840
    labels = []
    for k in range(n_series):
        base = {"container": "app", "endpoint": "https-metrics", "instance": f"10.0.0.{k % 20}:10250", "job": "kubelet",
                "metrics_path": "/metrics/cadvisor", "namespace": "bench", "node": f"node-{k % 20}",
                "pod": f"app-{k // 2 if rnd.random() < SETTINGS['restarted_share'] else k:05d}-x2k8p",
                "service": "kube-prometheus-stack-kubelet"}
        labels.append({**base, "id": f"/kubepods/burstable/pod{k:08x}/cri-containerd-{rnd.getrandbits(48):012x}",
                       "image": f"registry.local/app:{rnd.randrange(1, 9)}.{rnd.randrange(10)}", "name": f"{k:012x}"})
    paths = []
    for metric in METRICS:
        result = []
        r2 = random.Random(f"{SETTINGS['seed']}{metric}")
        for lab in labels:
            v, vals = 0.0, []
            cores = r2.uniform(*SETTINGS["cores"])
            for i in range(n_points):
                v += {"container_cpu_usage_seconds_total": cores * SETTINGS["step_s"] * r2.uniform(0.8, 1.0),
                      "container_cpu_cfs_periods_total": 150,
                      "container_cpu_cfs_throttled_periods_total": r2.randrange(0, 150)}[metric]
                vals.append([t0 + SETTINGS["step_s"] * i, f"{v:.6g}" if metric.endswith("seconds_total") else str(int(v))])
            result.append({"metric": {"__name__": metric, **lab}, "values": vals})
        p = folder / f"{metric}.json"
        p.write_text(json.dumps({"status": "success", "data": {"resultType": "matrix", "result": result}}))
        paths.append(p)
    return paths


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--series", type=int, default=60)
    ap.add_argument("--points", type=int, default=11000)
    args = ap.parse_args(argv if argv is not None else [])
    tmp = Path(tempfile.mkdtemp(prefix="bench_prom_"))
    try:
        print(f"generator: {SETTINGS}, {args.series} containers x {args.points} points x {len(METRICS)} metrics")
        paths = generate(tmp, args.series, args.points)
        mb = sum(p.stat().st_size for p in paths) / 1e6
        py = sys.executable
        wall, cpu, rss = child([py, "-m", "throttlelab", "ingest", *map(str, paths), "-o", str(tmp / "s.parquet"), "-q"])
        import polars as pl

        df = pl.read_parquet(tmp / "s.parquet")
        assert df.height == args.series * args.points and df["nr_throttled"].null_count() == 0, df.height
        lwall, lcpu, lrss = child([py, "-c", "import json,sys\nfor p in sys.argv[1:]: json.load(open(p))",
                                   *map(str, paths)])
        print(f"files: {mb:,.0f} MB, {df.height:,d} merged sample rows, {df['series'].n_unique():,d} series")
        print(f"ingest, whole process: {wall:6.2f} s wall ({mb / wall:.0f} MB/s), CPU {cpu:.2f} s, peak RSS {rss:,.0f} MB")
        print(f"json.load whole (floor of the old reader): {lwall:6.2f} s wall, CPU {lcpu:.2f} s, peak RSS {lrss:,.0f} MB")
        print(f"ratios (one run): ingest/json.load CPU {cpu / lcpu:.2f}x, peak memory {rss / lrss:.2f}x "
              f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
