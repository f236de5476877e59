#!/usr/bin/env python3
"""Benchmark: ``recommend``'s runtime advice applied to the Go service on the one-node cluster, before and after.

The Go service (``experiment/assets/service``, its Go version printed) runs as real pods under a 1-core limit with
GOMAXPROCS 8, as a Deployment left with a host-sized GOMAXPROCS has it; the advice for it
(:func:`throttlelab.analysis.rightsizing.runtime_advice.runtime_advice`, what ``recommend`` says when the runtime
metric reads 8 under that limit) is applied as the other arm. The project's sweep engine runs both arms
(``throttlelab sweep``, the Kubernetes backend, runs in random order), each run a new pod under steady open-loop
load from this machine; per run the p99 latency of the open-loop window and the throttled ratio of the pod's
cgroup over it. The run is the unit: p99 compared as the ratio of geometric means of run p99s (Welch t on logs),
the throttled ratio as the difference of run means (Welch t), both with 95% intervals.

    .venv/bin/python bench/bench_runtime_advice.py [--replicates 6] [--rate 45] [--window-s 20] [--json PATH]

Exits 1 when the advice does not lower both with an interval that excludes no change, 3 when it cannot run here.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts" / "cluster"))

from throttlelab.analysis.rightsizing import runtime_advice  # noqa: E402
from throttlelab.analysis.stats import compare_runs, welch  # noqa: E402
from throttlelab.experiment.sweeps import RunStore  # noqa: E402

SKIPPED = 3
LIMIT_CORES = 1.0
SEEN_THREADS = 8


def say(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def spec_text(kubeconfig: Path, prometheus_url: str, data_root: Path, threads: list[int], *, replicates: int,
              rate: float, window_s: float, work: int, seed: int) -> str:
    """The sweep: the Go service at one limit, the two GOMAXPROCS arms, open-loop load only."""
    return f"""name: runtime_advice
backend: kubernetes
kubernetes:
  namespace: throttlelab
  kubeconfig: {kubeconfig}
  image_pull_policy: Never
  nodes: [throttlelab-node]
  node_cpus: 2
  pending_timeout_s: 60
  poll_interval_s: 0.2
  prometheus_url: {prometheus_url}
workload: {{kind: service, work: {work}, vus: 0, rate: {rate}, poisson: true, warmup_s: 2, window_s: {window_s},
           request_timeout_s: 5, ready_timeout_s: 30}}
limits: ["{int(LIMIT_CORES * 1000)}m"]
threads: [{", ".join(str(t) for t in threads)}]
replicates: {replicates}
warmup: 0
cooldown_s: 1
order: random
seed: {seed}
timeout_s: {int(window_s + 90)}
sampling_interval_s: 0.5
data_root: {data_root}
"""


def go_version() -> str:
    out = subprocess.run(["go", "version"], capture_output=True, text=True, check=False).stdout.split()
    return out[2] if len(out) > 2 else "unknown"


def compare(rows: list[dict], advised: int) -> dict:
    """The two arms' runs compared (the run is the unit)."""
    arm = {t: [r for r in rows if int(r["threads"]) == t] for t in (SEEN_THREADS, advised)}
    p99 = {t: np.array([r["latency_p99_seconds"] for r in rs], float) for t, rs in arm.items()}
    p50 = {t: np.array([r["latency_p50_seconds"] for r in rs], float) for t, rs in arm.items()}
    thr = {t: np.array([r["nr_throttled"] / r["nr_periods"] for r in rs], float) for t, rs in arm.items()}
    c = compare_runs(p99[advised], p99[SEEN_THREADS], stat="p99",
                     labels=(f"GOMAXPROCS={advised}", f"GOMAXPROCS={SEEN_THREADS}"))
    m = compare_runs(p50[advised], p50[SEEN_THREADS], stat="p50",
                     labels=(f"GOMAXPROCS={advised}", f"GOMAXPROCS={SEEN_THREADS}"))
    d, lo, hi, p, _ = welch(thr[advised], thr[SEEN_THREADS])
    return {
        "runs": {str(t): len(rs) for t, rs in arm.items()},
        "p99_seconds": {str(t): float(np.exp(np.log(v).mean())) for t, v in p99.items()},
        "p99_change_pct": {"value": c.change.value, "low": c.change.low, "high": c.change.high,
                           "p": c.change.p_value, "method": c.change.method, "verdict": c.verdict},
        "p50_seconds": {str(t): float(np.exp(np.log(v).mean())) for t, v in p50.items()},
        "p50_change_pct": {"value": m.change.value, "low": m.change.low, "high": m.change.high,
                           "p": m.change.p_value, "method": m.change.method, "verdict": m.verdict},
        "throttled_ratio": {str(t): float(v.mean()) for t, v in thr.items()},
        "throttled_change_points": {"value": 100 * d, "low": 100 * lo, "high": 100 * hi, "p": p,
                                    "method": "Welch t on run throttled ratios"},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicates", type=int, default=6, help="runs per arm (default 6)")
    ap.add_argument("--rate", type=float, default=45.0, help="open-loop requests per second, Poisson arrivals (default 45)")
    ap.add_argument("--work", type=int, default=100, help="work units per request (1e5 iterations each)")
    ap.add_argument("--window-s", type=float, default=20.0, help="the open-loop window of each run")
    ap.add_argument("--seed", type=int, default=29)
    ap.add_argument("--json", type=Path, help="write the comparison here")
    a = ap.parse_args(argv)

    from tlnode import cli, images
    from tlnode.layout import Layout

    advice = runtime_advice("go", SEEN_THREADS, LIMIT_CORES)
    if advice.advised_threads is None:
        print(f"no advice for GOMAXPROCS {SEEN_THREADS} under {LIMIT_CORES} core: {advice.reason}", file=sys.stderr)
        return 1
    layout = Layout.default()
    running = cli.running(layout)
    if running is None:
        if os.geteuid() != 0:
            print("skipped: the one-node cluster needs root", file=sys.stderr)
            return SKIPPED
        say("bringing the one-node cluster up (it stops when this benchmark ends)")
        try:
            running = cli.up(layout, attach=True, say=say)
        except cli.ClusterError as exc:
            print(f"skipped: {exc}", file=sys.stderr)
            return SKIPPED
    t0 = time.monotonic()
    # the workloads' images of this checkout's sources (a running cluster may predate them)
    images.import_images(layout)
    threads = [SEEN_THREADS, advice.advised_threads]
    say(f"settings: limit {LIMIT_CORES:g} core, GOMAXPROCS {threads}, {a.replicates} runs each in random order, "
        f"open loop {a.rate:g} requests/s (Poisson arrivals) x {a.window_s:g} s, work {a.work} units; Go {go_version()}; "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    say(f"the advice: {advice.reason}")
    with tempfile.TemporaryDirectory(prefix="tl-runtime-") as tmp:
        spec = Path(tmp) / "runtime_advice.yaml"
        spec.write_text(spec_text(running.runner_kubeconfig, layout.prometheus_url, Path(tmp) / "raw", threads,
                                  replicates=a.replicates, rate=a.rate, window_s=a.window_s, work=a.work,
                                  seed=a.seed))
        subprocess.run([str(Path(sys.executable).with_name("throttlelab")), "sweep", str(spec), "--no-progress"],
                       check=True)
        runs = RunStore(Path(tmp) / "raw" / "runtime_advice").read_runs()
    rows = [r for r in runs.to_dicts() if r.get("status") == "ok"]
    failed = runs.height - len(rows)
    out = compare(rows, advice.advised_threads)
    out.update(go=go_version(), advice=advice.reason, failed_runs=failed, minutes=(time.monotonic() - t0) / 60,
               settings={"limit_cores": LIMIT_CORES, "threads": threads, "replicates": a.replicates,
                         "rate": a.rate, "window_s": a.window_s, "work": a.work, "seed": a.seed},
               load_average=list(os.getloadavg()))
    p, t = out["p99_change_pct"], out["throttled_change_points"]
    print(f"\nGo service under a {LIMIT_CORES:g}-core limit, {a.rate:g} requests/s open loop, {out['runs']} runs "
          f"({failed} failed), {out['minutes']:.1f} min, load average {os.getloadavg()[0]:.2f}")
    print("| GOMAXPROCS | p50 | p99 | throttled periods |")
    print("|---|---|---|---|")
    for th in threads:
        print(f"| {th} | {1000 * out['p50_seconds'][str(th)]:.1f} ms | {1000 * out['p99_seconds'][str(th)]:.1f} ms | "
              f"{100 * out['throttled_ratio'][str(th)]:.1f}% |")
    print("(p50 and p99: geometric means of the runs' percentiles; throttled: mean of the runs' ratios)")
    m = out["p50_change_pct"]
    print(f"p50: {m['value']:+.0f}% (95% CI {m['low']:+.0f}% to {m['high']:+.0f}%, p={m['p']:.2g}; {m['method']})")
    print(f"p99: {p['value']:+.0f}% (95% CI {p['low']:+.0f}% to {p['high']:+.0f}%, p={p['p']:.2g}; {p['method']})")
    print(f"throttled: {t['value']:+.1f} points (95% CI {t['low']:+.1f} to {t['high']:+.1f}, p={t['p']:.2g}; "
          f"{t['method']})")
    if a.json:
        a.json.write_text(json.dumps(out, indent=2))
    missed = [name for name, e in (("p99", p), ("throttled ratio", t)) if not (e["high"] is not None and e["high"] < 0)]
    for name in missed:
        print(f"GOAL MISSED: the advice did not lower the {name} with an interval that excludes no change")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
