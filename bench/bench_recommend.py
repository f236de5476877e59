#!/usr/bin/env python3
"""Benchmark: the ``throttlelab recommend`` process against a warm Prometheus holding a cluster shaped like cAdvisor's.

The cluster is the realistic one of the right-sizing tests
(:func:`~throttlelab.experiment.simulation.cluster`: a Deployment with an app and a sidecar
rolled out twice, a StatefulSet with a restart, a DaemonSet, a CronJob, a Go service with an HPA, a bare Pod and a
one-off Job; 8 workload containers), copied into namespaces ``shop-NNNN`` / ``ops-NNNN`` with their own seeds, pod
names and two nodes each (4 and 8 cores).  Every pod has its pod-level cgroup (``container=""``) and pause
container (``POD``) series; kube-state-metrics exports owners, requests and limits every minute.  Each node's
scrapes have their own phase, jitter and gaps (failed scrapes and short outages).

Two sizes: 500 workload containers over 14 days and 5,000 over 1 day, at a 30-s scrape (kube-prometheus-stack's
default interval for the kubelet's cAdvisor endpoint).  The text is written with numpy and backfilled by
``promtool`` piece by piece (the next piece is written while promtool reads the last) into a TSDB cached under
``$THROTTLELAB_CACHE/bench_recommend/<settings hash>``; the Debian ``prometheus`` then serves it on a loopback port.

The figure is the ``throttlelab recommend`` process alone (a subprocess, measured by ``/usr/bin/time -v``) after a
warm-up run: wall time, CPU seconds and peak RSS.  The warm-up run records the number of queries and the largest
query's ``peakSamples`` (``stats=all``, through ``$THROTTLELAB_QUERY_STATS``); the timed runs go without, as a
user's do (the statistics cost the server and the client time).  Goals: wall under
30 s at each size, peak RSS under 1 GB, no query above 10% of Prometheus' default ``--query.max-samples``
(50 M).  Exits 1 when a goal is missed.

    .venv/bin/python bench/bench_recommend.py [--size both|500x14d|5000x1d] [--rounds 3]
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from throttlelab.experiment.simulation import NODES, cluster, encode_lines, ksm_lines, node_size_lines, pod_lines, series_of
from throttlelab.ingest.prometheus import LocalPrometheus, prometheus_available

START = 1_767_225_600.0  # 2026-01-01T00:00:00Z
SIZES = {"500x14d": (500, 14.0), "5000x1d": (5000, 1.0)}
PER_COPY = 8  # workload containers in one copy of the cluster
LINES_PER_COPY_DAY = 385_000  # at a 30-s scrape (measured)
PIECE_LINES = 32_000_000  # lines per promtool input file (about 7 GB)
GOAL_WALL_S, GOAL_RSS_MB, MAX_SAMPLES = 30.0, 1024.0, 50_000_000
GOAL_PEAK = MAX_SAMPLES // 10


def settings_for(containers: int, days: float, scrape_s: float = 30.0, seed: int = 7) -> dict:
    """The generator's settings (printed beside the figures; their hash names the cached TSDB)."""
    return {"workload_containers": math.ceil(containers / PER_COPY) * PER_COPY,
            "copies": math.ceil(containers / PER_COPY), "days": days, "scrape_s": scrape_s,
            "kube_state_metrics_every_s": 60.0, "nodes_per_copy": dict(NODES), "scrape_phase_s": [0, 1.5],
            "scrape_jitter_s": [0, 0.2], "failed_scrapes": 0.002, "outages_per_node_day": 1 / 3,
            "outage_s": 600, "seed": seed, "start": START,
            "generator": "synthetic_cluster.cluster per namespace pair, cluster_openmetrics series, v1"}


def _decimals(fmt: str, values: np.ndarray) -> int:
    if fmt == ".0f" or fmt == "g" and np.all(values == np.round(values)):
        return 0
    return 6


def _copy(i: int, s: dict):
    """Copy ``i``: its pods (renamed namespaces), a label renamer and each node's scrape offsets and gaps."""
    shift = START - s["scrape_s"]  # the last scrape falls just before the window's end: one block per piece
    pods = cluster(s["days"] * 24, start=shift, seed=s["seed"] * 100_000 + i)
    ns = {"shop": f"shop-{i:04d}", "ops": f"ops-{i:04d}"}
    pods = [dataclasses.replace(p, namespace=ns[p.namespace], containers=tuple(
        dataclasses.replace(c, namespace=ns[p.namespace]) for c in p.containers)) for p in pods]
    swaps = [(f'namespace="{a}"', f'namespace="{b}"') for a, b in ns.items()]
    for n in NODES:
        swaps += [(f'node="{n}"', f'node="{n}-{i:04d}"'), (f'instance="{n}:', f'instance="{n}-{i:04d}:')]
    rng = np.random.default_rng([s["seed"], i])
    grid = int(s["days"] * 86400 / s["scrape_s"]) + 2
    noise = {}
    for n in NODES:
        off = rng.uniform(*s["scrape_phase_s"]) + rng.uniform(*s["scrape_jitter_s"], grid)
        keep = rng.random(grid) >= s["failed_scrapes"]
        for _ in range(rng.poisson(s["outages_per_node_day"] * s["days"])):
            k = int(rng.integers(grid))
            keep[k:k + int(s["outage_s"] / s["scrape_s"])] = False
        noise[n] = (off, keep)
    return pods, swaps, noise, shift


def _rename(labels: str, swaps) -> str:
    for a, b in swaps:
        labels = labels.replace(a, b)
    return labels


def write_piece(path: Path, copies: list, s: dict, lo: float, hi: float) -> int:
    """Every series' samples in ``[lo, hi)`` as OpenMetrics text; returns the number of lines."""
    lines = 0
    with open(path, "wb") as fh:
        buf: list[bytes] = []

        def put(metric, labels, times, values, fmt):
            nonlocal lines
            a, b = np.searchsorted(times, [lo, hi])
            if b > a:
                vals = np.asarray(values, dtype=float)[a:b]
                buf.append(encode_lines(metric, labels, times[a:b], vals, _decimals(fmt, vals)))
                lines += int(b - a)

        for pods, swaps, noise, shift in copies:
            for pod in pods:
                if shift + pod.end_h * 3600 < lo or shift + pod.start_h * 3600 >= hi:
                    continue
                off, keep = noise[pod.node]
                for metric, labels, times, values, fmt in pod_lines(pod, start=shift, scrape_s=s["scrape_s"],
                                                                     emit=series_of):
                    k = np.minimum(((times - shift) // s["scrape_s"]).astype(np.int64), len(off) - 1)
                    ok = keep[k]
                    put(metric, _rename(labels, swaps), times[ok] + off[k[ok]], np.asarray(values)[ok], fmt)
            for rec in [*ksm_lines(pods, start=shift, hours=s["days"] * 24, emit=series_of),
                        *node_size_lines(start=shift, hours=s["days"] * 24, emit=series_of)]:
                put(rec[0], _rename(rec[1], swaps), *rec[2:])
            if sum(map(len, buf)) > 64 << 20:
                fh.writelines(buf)
                buf.clear()
        fh.writelines(buf)
        fh.write(b"# EOF\n")
    return lines


def build(cache: Path, s: dict, say=print) -> dict:
    """Generate and backfill the TSDB into ``cache/tsdb`` (pieces of at most :data:`PIECE_LINES` lines)."""
    shutil.rmtree(cache, ignore_errors=True)
    work = cache / "work"
    work.mkdir(parents=True)
    copies = [_copy(i, s) for i in range(s["copies"])]
    per_day = s["copies"] * LINES_PER_COPY_DAY * 30 / s["scrape_s"]
    parts = next(p for p in (1, 2, 3, 4, 6, 8, 12, 24) if per_day / p <= PIECE_LINES or p == 24)
    span = 86400 / parts
    bounds = [(START + k * span, START + (k + 1) * span) for k in range(int(math.ceil(s["days"] * parts)))]
    t0 = time.perf_counter()
    gen_s, lines, proc, last = 0.0, 0, None, None
    for k, (lo, hi) in enumerate(bounds):
        path = work / f"piece-{k:03d}.om"
        g = time.perf_counter()
        lines += write_piece(path, copies, s, lo, hi)
        gen_s += time.perf_counter() - g
        if proc is not None:
            _wait_promtool(proc, last)
        proc, last = subprocess.Popen(["promtool", "tsdb", "create-blocks-from", "openmetrics",
                                       "--max-block-duration=24h", "-q", str(path), str(cache / "tsdb")],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE), path
        say(f"build: piece {k + 1}/{len(bounds)} written ({lines:,d} lines so far, {time.perf_counter() - t0:.0f} s)")
    _wait_promtool(proc, last)
    backfill_s = time.perf_counter() - t0
    settle_s = settle(cache / "tsdb") if len(bounds) > 1 else 0.0
    shutil.rmtree(work, ignore_errors=True)
    info = {"lines": lines, "pieces": len(bounds), "generate_s": round(gen_s, 1),
            "build_s": round(time.perf_counter() - t0, 1), "settle_s": round(settle_s, 1),
            "tsdb_mb": round(sum(f.stat().st_size for f in (cache / "tsdb").rglob("*") if f.is_file()) / 2**20)}
    (cache / "done").write_text(json.dumps(info))
    return info


def _wait_promtool(proc, path: Path) -> None:
    err = proc.communicate()[1].decode(errors="replace")
    if proc.returncode:
        raise SystemExit(f"{path}: promtool failed: {err.strip()[-300:]}")
    path.unlink()


def _metric(url: str, name: str) -> float:
    import urllib.request

    with urllib.request.urlopen(f"{url}/metrics", timeout=30) as r:
        for line in r.read().decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    return float("nan")


def settle(tsdb: Path, quiet_s: float = 75.0) -> float:
    """Let Prometheus compact the backfilled pieces once (so no compaction runs while the figures are taken)."""
    t0 = time.perf_counter()
    with LocalPrometheus(tsdb, timeout=300) as prom:
        last, since = None, time.perf_counter()
        while True:
            time.sleep(5)
            n = _metric(prom.url, "prometheus_tsdb_compactions_total")
            if n != last:
                last, since = n, time.perf_counter()
            elif time.perf_counter() - since > quiet_s and time.perf_counter() - t0 > quiet_s:
                return time.perf_counter() - t0


def run_recommend(url: str, s: dict, out: Path, *, record_queries: bool = False) -> dict:
    """One ``throttlelab recommend`` process under ``/usr/bin/time -v``: wall, CPU, peak RSS, rows; with
    ``record_queries`` also its queries and their peak samples (``stats=all`` makes the server count samples at every
    step and answer with them, which costs both sides: timed runs go without)."""
    stats = out.with_suffix(".stats.jsonl")
    stats.unlink(missing_ok=True)
    exe = Path(sys.executable).with_name("throttlelab")
    cmd = ["/usr/bin/time", "-v", str(exe), "recommend", "--prometheus", url, "--since", f"{s['days'] * 24:g}h",
           "--end", f"{START + s['days'] * 86400:.0f}",
           "--min-history", f"{min(24.0, s['days'] * 12):g}h", "--format", "json", "-o", str(out), "--timeout", "300"]
    env = {k: v for k, v in os.environ.items() if k != "THROTTLELAB_QUERY_STATS"}
    if record_queries:
        env["THROTTLELAB_QUERY_STATS"] = str(stats)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"recommend failed ({proc.returncode}): {proc.stderr.strip()[-600:]}")

    def field(name: str) -> str:
        return re.search(rf"{re.escape(name)}: (.+)", proc.stderr).group(1).strip()

    m, sec = field("Elapsed (wall clock) time (h:mm:ss or m:ss)").rsplit(":", 1)
    wall = float(sec) + 60 * sum(int(x) * 60**j for j, x in enumerate(reversed(m.split(":"))))
    rows = [json.loads(x) for x in stats.read_text().splitlines()] if stats.exists() else []
    top = max(rows, key=lambda r: r.get("peakSamples") or 0, default={})
    doc = json.loads(out.read_text())
    recs = doc.get("recommendations", doc) if isinstance(doc, dict) else doc
    return {"wall_s": wall, "cpu_s": float(field("User time (seconds)")) + float(field("System time (seconds)")),
            "rss_mb": int(field("Maximum resident set size (kbytes)")) / 1024, "queries": len(rows),
            "peak_samples": int(top.get("peakSamples") or 0), "peak_query": top.get("query", ""),
            "rows": len(recs)}


def goals(wall_s: list[float], rss_mb: list[float], peak_samples: int) -> list[str]:
    """The goals missed (empty: all met): median wall, largest RSS, largest query's peak samples.

    >>> goals([12.0, 14.0, 40.0], [600.0], 1_000_000), goals([31.0, 32.0], [1100.0], 6_000_000)[0]
    ([], 'median wall 31.5 s >= 30 s')
    """
    missed = []
    if statistics.median(wall_s) >= GOAL_WALL_S:
        missed.append(f"median wall {statistics.median(wall_s):.1f} s >= {GOAL_WALL_S:g} s")
    if max(rss_mb) >= GOAL_RSS_MB:
        missed.append(f"peak RSS {max(rss_mb):.0f} MB >= {GOAL_RSS_MB:.0f} MB")
    if peak_samples >= GOAL_PEAK:
        missed.append(f"largest query's peak samples {peak_samples:,d} >= {GOAL_PEAK:,d} (10% of --query.max-samples)")
    return missed


def bench_size(name: str, s: dict, rounds: int, cache_root: Path) -> list[str]:
    """Build (or reuse) the TSDB of one size and time ``rounds`` recommend processes; returns the goals missed."""
    tag = hashlib.sha256(json.dumps(s, sort_keys=True).encode()).hexdigest()[:12]
    cache = cache_root / "bench_recommend" / tag
    print(f"\n== {name}: generator settings: {json.dumps(s)}", flush=True)
    if not (cache / "done").exists():
        print(f"build: generating and backfilling once into {cache}", flush=True)
        info = build(cache, s)
        print(f"build: {json.dumps(info)} (load average {os.getloadavg()[0]:.1f})")
    else:
        info = json.loads((cache / "done").read_text())
        print(f"build: cached at {cache}: {json.dumps(info)}")
    if rounds == 0:
        return []
    runs = []
    with LocalPrometheus(cache / "tsdb", timeout=300) as prom, tempfile.TemporaryDirectory() as tmp:
        # warm-up (the server's caches, the client's imports), recording every query's peak samples
        warm = run_recommend(prom.url, s, Path(tmp) / "warm.json", record_queries=True)
        for rnd in range(1, rounds + 1):
            c0 = _metric(prom.url, "process_cpu_seconds_total")
            r = run_recommend(prom.url, s, Path(tmp) / f"r{rnd}.json")
            r["server_cpu_s"] = _metric(prom.url, "process_cpu_seconds_total") - c0
            runs.append(r)
            print(f"round {rnd}: wall {r['wall_s']:.1f} s, CPU {r['cpu_s']:.1f} s, peak RSS {r['rss_mb']:.0f} MB, "
                  f"{r['rows']} rows; "
                  f"Prometheus CPU {r['server_cpu_s']:.1f} s; load average {os.getloadavg()[0]:.1f} "
                  f"on {os.cpu_count()} cores", flush=True)
    walls = [r["wall_s"] for r in runs]
    peak = warm["peak_samples"]
    print(f"{name}: wall min {min(walls):.1f} / median {statistics.median(walls):.1f} s, CPU median "
          f"{statistics.median(r['cpu_s'] for r in runs):.1f} s, peak RSS max {max(r['rss_mb'] for r in runs):.0f} MB, "
          f"{warm['queries']} queries and largest peakSamples {peak:,d} (recorded in the warm-up run: "
          f"{warm['peak_query'][:160]}), "
          f"{runs[0]['rows']} rows for {s['workload_containers']} workload containers; TSDB build "
          f"{info['build_s']:.0f} s ({info['lines']:,d} samples)")
    missed = goals(walls, [r["rss_mb"] for r in runs], peak)
    if runs[0]["rows"] != s["workload_containers"]:
        missed.append(f"{runs[0]['rows']} rows for {s['workload_containers']} workload containers")
    print(f"{name}: goals (median wall < {GOAL_WALL_S:g} s, peak RSS < {GOAL_RSS_MB:.0f} MB, peakSamples < "
          f"{GOAL_PEAK:,d}, one row per workload container): {'met' if not missed else 'MISSED: ' + '; '.join(missed)}")
    return missed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="both", choices=["both", *SIZES])
    ap.add_argument("--containers", type=int, help="a custom size (with --days) instead of --size")
    ap.add_argument("--days", type=float, default=1.0)
    ap.add_argument("--scrape", type=float, default=30.0)
    ap.add_argument("--rounds", type=int, default=3, help="recommend processes timed per size (0: only build)")
    args = ap.parse_args(argv)
    ok, why = prometheus_available()
    if not ok:
        print(f"bench recommend: skipped: {why}")
        return 0
    if args.containers:
        sizes = {f"{args.containers}x{args.days:g}d": (args.containers, args.days)}
    else:
        sizes = SIZES if args.size == "both" else {args.size: SIZES[args.size]}
    root = Path(os.environ.get("THROTTLELAB_CACHE", Path.home() / ".cache" / "throttlelab"))
    missed = []
    for name, (n, days) in sizes.items():
        missed += [f"{name}: {m}" for m in bench_size(name, settings_for(n, days, args.scrape), args.rounds, root)]
    if args.rounds == 0:
        print("\nbench recommend: built only (--rounds 0), no goal checked")
        return 0
    print("\nbench recommend:", "all goals met" if not missed else "MISSED: " + "; ".join(missed))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
