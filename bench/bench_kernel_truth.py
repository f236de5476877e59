#!/usr/bin/env python3
"""Benchmark: every limit ``throttlelab recommend`` gives, judged by the kernel on the one-node cluster.

A panel of real workloads (``throttlelab.experiment.kubernetes.panel``) runs as Deployments at the CPU settings
users give them: starved, moderately throttled, oversized, no limit.  For each workload:

* **the truth**: a twin Deployment (same spec, its own namespace, so ``recommend`` never sees it) is resized in
  place through a ladder of limits, one workload at a time, while the production windows run; each rung's
  windows of ``cpu.stat`` give the throttled ratio, and the true limit is where the isotonic fit crosses the
  target (5%), with an interval from resampled windows; a crossing outside the ladder extends it, never
  extrapolated (:func:`throttlelab.analysis.rightsizing.ladder_truth`);
* **round 1**: a second Prometheus scrapes the kubelet's cAdvisor every 30 s (the common default); after a
  production window at the current setting, ``throttlelab recommend`` runs as a subprocess, as a user runs it, with
  its defaults apart from ``--since``, ``--step 1m`` and ``--min-history``; its patches are applied;
* **round 2**, for workloads that were censored (throttled in more than half of the periods) or had no limit: a
  new window under the round-1 patch, ``recommend`` again over both windows, its patch applied;
* **after**: the throttled ratio under the final limit, from the kernel's counters.

KRR's simple strategy (request p95 of usage, no limit) and the VPA recommender (p90 of decayed usage + 15%, its
limit scaled with the request) come from the same round-1 window; what applying them gives is read off the
workload's kernel ladder (its fitted ratio at their limit; no limit: no throttling).

    .venv/bin/python bench/bench_kernel_truth.py --quick [--json PATH] [--keep DIR]
    .venv/bin/python bench/bench_kernel_truth.py --replay DIR   # recommend again on a kept run's data, no cluster

Exits 1 when a goal is missed, 3 when it cannot run here (no cluster).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts" / "cluster"))

import throttlelab.experiment.kubernetes as ph  # noqa: E402
from throttlelab.analysis.rightsizing import ladder_truth  # noqa: E402
from throttlelab.experiment.kubernetes import PANEL, PANEL_CONTAINER as CONTAINER, PanelWorkload  # noqa: E402

TARGET = 0.05
SKIPPED = 3
#: (window, ladder rung, post-patch measurement) seconds
QUICK = dict(window_s=900, rung_s=120, after_s=300, workloads=("duty-cycle", "burst-together", "idle-sidecar"))
FULL = dict(window_s=1800, rung_s=240, after_s=600, workloads=tuple(PANEL))
#: goals (see the module docstring of issue's benchmark): first-round and final ratio bands by kind
BANDS = {"uncensored": (0.9, 1.3), "no limit": (0.7, 2.0), "censored": (0.8, 3.0), "round2": (0.9, 1.3)}


def say(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


# -- the 30-s Prometheus --------------------------------------------------------------------------------------------
class ScrapingPrometheus:
    """A second Prometheus scraping the cluster's kubelet every 30 s into a folder of our own."""

    def __init__(self, layout, folder: Path, interval: str = "30s"):
        import socket

        from tlnode import configs

        self.folder = folder
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        cfg = configs.prometheus_config(layout, interval, folder / "prometheus.yml")
        self.argv = ["prometheus", f"--config.file={cfg}", f"--storage.tsdb.path={folder / 'data'}",
                     f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn",
                     "--storage.tsdb.retention.time=30d"]
        self.proc = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self):
        import ctypes
        import urllib.request

        libc = ctypes.CDLL(None, use_errno=True)
        self.proc = subprocess.Popen(self.argv, stdout=open(self.folder / "prometheus.log", "w"),
                                     stderr=subprocess.STDOUT, preexec_fn=lambda: libc.prctl(1, signal.SIGTERM))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/-/ready", timeout=2):
                    return self
            except OSError:
                time.sleep(0.3)
        raise RuntimeError("the 30-s Prometheus did not start")

    def __exit__(self, *exc):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(30)


# -- recommend as a user runs it ------------------------------------------------------------------------------------
def recommend(url: str, ns: str, end: float, since: str, fmt: str) -> str:
    minutes = int(since.rstrip("m"))
    min_history = f"{max(2, min(10, int(minutes * 2 / 3)))}m"  # 10m for the 15-min windows
    cmd = [sys.executable, "-m", "throttlelab", "recommend", "--prometheus", url, "--namespace", ns,
           "--since", since, "--end", str(int(end)), "--step", "1m", "--min-history", min_history, "--format", fmt]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if res.returncode != 0:
        raise RuntimeError(f"recommend exited {res.returncode}: {res.stderr.strip()[-400:]}")
    return res.stdout


def rows_by_workload(text: str) -> dict[str, dict]:
    data = json.loads(text)
    rows = data["rows"] if isinstance(data, dict) else data
    return {r["workload"]: r for r in rows}


# -- the truth -------------------------------------------------------------------------------------------------------
@dataclass
class Truth:
    windows: list = field(default_factory=list)
    fit: object = None
    seconds: float = 0.0


def run_truths(core, apps, ns: str, workloads: list[PanelWorkload], rung_s: float, node_cores: float,
               out: dict[str, Truth], keep: Path) -> None:
    """Each workload's ladder on its twin, one workload at a time, extended until the crossing is inside."""
    for w in workloads:
        t0 = time.monotonic()
        name = ph.deploy(apps, ns, w, name=f"{w.name}-twin")
        ph.wait_rolled_out(apps, core, ns, [name])
        time.sleep(10)
        rungs = sorted(w.ladder)
        windows = ph.run_ladder(core, ns, f"app={name}", CONTAINER, rungs, request_cores=w.request_cores,
                                step_s=rung_s, say=say)
        fit = ladder_truth(*_columns(windows), target=TARGET)
        for _ in range(4):  # extend, never extrapolate
            if fit.status == "above ladder" and rungs[-1] < node_cores:
                more = [r for r in (rungs[-1] * 1.3, rungs[-1] * 1.7) if r <= node_cores] or [node_cores]
            elif fit.status == "below ladder" and rungs[0] > 0.01:
                more = [max(0.01, round(rungs[0] * 0.6, 3))]
            else:
                break
            more = sorted({round(m, 3) for m in more} - set(rungs))
            if not more:
                break
            windows += ph.run_ladder(core, ns, f"app={name}", CONTAINER, more, request_cores=w.request_cores,
                                     step_s=rung_s, say=say)
            rungs = sorted(set(rungs) | set(more))
            fit = ladder_truth(*_columns(windows), target=TARGET)
        apps.delete_namespaced_deployment(name, ns)
        out[w.name] = Truth(windows, fit, time.monotonic() - t0)
        (keep / f"ladder-{w.name}.json").write_text(json.dumps([x.row() for x in windows]))
        say(f"truth {w.name}: {fit.limit_cores} ({fit.low}-{fit.high}) {fit.status}, {time.monotonic() - t0:.0f} s")


def _columns(windows):
    return ([x.limit_cores for x in windows], [x.throttled for x in windows], [x.periods for x in windows])


def ratio_at(fit, limit: float | None) -> float | None:
    """The kernel's fitted throttled ratio at ``limit`` (no limit: 0; outside the ladder: None)."""
    if limit is None:
        return 0.0
    steps = fit.steps
    xs, ys = [s.limit_cores for s in steps], [s.fitted for s in steps]
    if limit < xs[0] or limit > xs[-1]:
        return None if limit < xs[0] else ys[-1]
    import numpy as np
    return float(np.interp(limit, xs, ys))


# -- one run on the cluster -------------------------------------------------------------------------------------------
def run_on_cluster(settings: dict, keep: Path) -> dict:
    from kubernetes import client, config
    from tlnode import cli
    from tlnode.layout import Layout

    layout = Layout.default()
    running = cli.running(layout)
    if running is None:
        say("bringing the one-node cluster up (it stops when this benchmark ends)")
        running = cli.up(layout, attach=True, say=say)
    from tlnode import images

    images.import_images(layout)  # the workloads' images of this checkout's sources (a cluster may predate them)
    api = config.new_client_from_config(config_file=str(running.kubeconfig))
    core, apps = client.CoreV1Api(api), client.AppsV1Api(api)
    node_cores = float(os.cpu_count() or 2)
    stamp = time.strftime("%H%M%S")
    prod, twins = f"tl-prod-{stamp}", f"tl-ladder-{stamp}"
    workloads = [PANEL[n] for n in settings["workloads"]]
    times: dict[str, float] = {}
    truths: dict[str, Truth] = {}
    try:
        ph.namespace(core, prod)
        ph.namespace(core, twins)
        with ScrapingPrometheus(layout, keep) as prom:
            for w in workloads:
                ph.deploy(apps, prod, w)
            ph.wait_rolled_out(apps, core, prod, [w.name for w in workloads])
            before = {w.name: ph.resources(apps, prod, w.name) for w in workloads}
            ladder = threading.Thread(target=run_truths, args=(core, apps, twins, workloads, settings["rung_s"],
                                                               node_cores, truths, keep), daemon=True)
            ladder.start()
            times["w1_start"] = time.time()
            say(f"production window 1: {settings['window_s'] / 60:g} min at the current settings")
            time.sleep(settings["window_s"])
            times["w1_end"] = time.time()
            since = f"{int(settings['window_s'] // 60)}m"
            r1_json = recommend(prom.url, prod, times["w1_end"], since, "json")
            r1_patch = recommend(prom.url, prod, times["w1_end"], since, "patch")
            (keep / "round1.json").write_text(r1_json)
            (keep / "round1.patch.yaml").write_text(r1_patch)
            r1 = rows_by_workload(r1_json)
            censored = {n for n, r in r1.items() if (r.get("throttled_ratio") or 0) > 0.5}
            no_limit = {w.name for w in workloads if w.limit_cores is None}
            docs = ph.patch_documents(r1_patch)
            applied = ph.apply_patches(apps, docs)
            say(f"round 1 applied to {', '.join(applied) or 'none'}")
            ph.wait_rolled_out(apps, core, prod, [w.name for w in workloads])
            second = sorted(censored | no_limit)
            r2 = {}
            if second:
                times["w2_start"] = time.time()
                say(f"production window 2 under round 1: {', '.join(second)}")
                time.sleep(settings["window_s"])
                times["w2_end"] = time.time()
                r2_json = recommend(prom.url, prod, times["w2_end"], since, "json")
                r2_patch = recommend(prom.url, prod, times["w2_end"], since, "patch")
                (keep / "round2.json").write_text(r2_json)
                (keep / "round2.patch.yaml").write_text(r2_patch)
                r2 = {n: r for n, r in rows_by_workload(r2_json).items() if n in second}
                docs2 = [d for d in ph.patch_documents(r2_patch) if d["metadata"]["name"] in second]
                ph.apply_patches(apps, docs2)
                ph.wait_rolled_out(apps, core, prod, [w.name for w in workloads])
            final = {w.name: ph.resources(apps, prod, w.name) for w in workloads}
            say(f"after: {settings['after_s'] / 60:g} min under the final limits")
            after = {w.name: ph.measure(core, prod, w.name, settings["after_s"]) for w in workloads}
            ladder.join()
            times["end"] = time.time()
        (keep / "run.json").write_text(json.dumps({
            "settings": settings, "namespace": prod, "workloads": [w.name for w in workloads], "times": times,
            "second": second, "censored": sorted(censored), "final": final, "before": before,
            "after": {n: [x.row() for x in v] for n, v in after.items()}}, default=str))
    finally:
        ph.delete_namespace(core, prod)
        ph.delete_namespace(core, twins)
        api.close()
    return dict(workloads=workloads, truths=truths, r1=r1, r2=r2, censored=censored, before=before, final=final,
                after=after, times=times)


# -- replay: recommend again on a kept run's data ----------------------------------------------------------------------
def replay(keep: Path) -> dict:
    """Round 1 and round 2 again on a kept run's 30-s TSDB (a copy, served by a local Prometheus), with the kept
    ladders, throttled ratios after and final limits: the model judged again without the cluster."""
    from throttlelab.analysis.rightsizing import ladder_truth as fit_truth
    from throttlelab.ingest.prometheus import LocalPrometheus

    saved = json.loads((keep / "run.json").read_text())
    times = saved["times"]
    names = saved["workloads"]
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(keep / "data", Path(tmp) / "data")
        with LocalPrometheus(Path(tmp) / "data") as prom:
            since = f"{int(saved['settings']['window_s'] // 60)}m"
            r1 = rows_by_workload(recommend(prom.url, saved["namespace"], times["w1_end"], since, "json"))
            r2 = {}
            if "w2_end" in times:
                r2 = {n: r for n, r in rows_by_workload(recommend(prom.url, saved["namespace"], times["w2_end"], since,
                                                                   "json")).items() if n in saved["second"]}
    truths = {}
    for n in names:
        rows = json.loads((keep / f"ladder-{n}.json").read_text())
        truths[n] = Truth(fit=fit_truth([r["limit_cores"] for r in rows], [r["throttled"] for r in rows],
                                        [r["periods"] for r in rows], target=TARGET))
    after = {n: [SavedWindow(**w) for w in saved["after"][n]] for n in names}
    return dict(workloads=[PANEL[n] for n in names], truths=truths, r1=r1, r2=r2, censored=set(saved["censored"]),
                final=saved["final"], after=after, times=times)


@dataclass
class SavedWindow:
    limit_cores: float
    start: float
    end: float
    periods: int
    throttled: int
    throttled_seconds: float
    cpu_seconds: float
    pods: int
    ratio: float | None = None


# -- the table --------------------------------------------------------------------------------------------------------
def score(run: dict) -> list[dict]:
    from throttlelab.core import parse_cores

    out = []
    for w in run["workloads"]:
        t = run["truths"][w.name].fit
        r1 = run["r1"].get(w.name, {})
        r2 = run["r2"].get(w.name)
        truth = t.limit_cores
        lim1 = r1.get("recommended_limit_cores")
        lim2 = r2.get("recommended_limit_cores") if r2 else None
        fin = run["final"][w.name]["limit"]
        fin = parse_cores(fin) if fin is not None else None
        aft = run["after"][w.name]
        per, thr = sum(x.periods for x in aft), sum(x.throttled for x in aft)
        vpa_req = r1.get("vpa_request_cores")  # VPA's RequestsAndLimits keeps the current limit/request ratio
        vpa_lim = (round(vpa_req * w.limit_cores / w.request_cores, 3) if vpa_req and w.limit_cores else None)
        row = {
            "workload": w.name, "shape": w.shape, "current_limit_cores": w.limit_cores,
            "true_limit_cores": truth, "true_limit_low": t.low, "true_limit_high": t.high,
            "truth_status": t.status, "censored": w.name in run["censored"],
            "round1_limit_cores": lim1, "round1_limit_low": r1.get("recommended_limit_low"),
            "round1_limit_high": r1.get("recommended_limit_high"), "round2_limit_cores": lim2,
            "final_limit_cores": fin,
            "ratio_round1": lim1 / truth if lim1 and truth else None,
            "ratio_final": fin / truth if fin and truth else None,
            "throttled_after": thr / per if per else 0.0,
            "requested_after_cores": parse_cores(run["final"][w.name]["request"]),
            "krr_request_cores": r1.get("krr_request_cores"), "vpa_request_cores": vpa_req,
            "vpa_limit_cores": vpa_lim,
            "krr_throttled": 0.0, "vpa_throttled": ratio_at(t, vpa_lim),
            "ours_throttled_on_ladder": ratio_at(t, lim1),
            "decision_round1": r1.get("decision"), "reason_round1": r1.get("reason"),
        }
        out.append(row)
    return out


def goals(rows: list[dict]) -> list[str]:
    missed = []
    scored = [r for r in rows if r["true_limit_cores"] is not None]
    for r in scored:
        kind = "no limit" if r["current_limit_cores"] is None else "censored" if r["censored"] else "uncensored"
        lo, hi = BANDS[kind]
        q = r["ratio_round1"]
        if q is None or not lo <= q <= hi:
            missed.append(f"{r['workload']} ({kind}): round 1 {q if q is None else round(q, 2)}x the truth, "
                          f"not {lo}-{hi}x")
        if kind != "uncensored":
            q2 = r["round2_limit_cores"] / r["true_limit_cores"] if r["round2_limit_cores"] else None
            if q2 is None or not 0.9 <= q2 <= 1.3:
                missed.append(f"{r['workload']}: round 2 {q2 if q2 is None else round(q2, 2)}x the truth, not 0.9-1.3x")
        if kind == "censored" and r["ours_throttled_on_ladder"] is not None and r["ours_throttled_on_ladder"] >= 0.5:
            missed.append(f"{r['workload']}: round 1 leaves it throttled in {r['ours_throttled_on_ladder']:.0%} of periods")
    for r in rows:
        if r["throttled_after"] > TARGET + 0.03:
            missed.append(f"{r['workload']}: throttled in {r['throttled_after']:.1%} of periods after applying")
    tot_final = sum(r["final_limit_cores"] or 0 for r in scored)
    tot_truth = sum(r["true_limit_cores"] for r in scored)
    if scored and tot_final > 1.3 * tot_truth:
        missed.append(f"final limits sum to {tot_final:.2f} cores, {tot_final / tot_truth:.2f}x the true limits' "
                      f"{tot_truth:.2f}")
    return missed


def fmt(v, spec=".2f") -> str:
    return "-" if v is None else format(v, spec)


def table(rows: list[dict]) -> str:
    head = (f"{'workload':<15} {'current':>7} {'truth (90%)':>17} {'cens':>4} {'round 1':>7} {'x':>5} {'round 2':>7} "
            f"{'final':>6} {'x':>5} {'thr after':>9} {'KRR req':>7} {'VPA req':>7} {'VPA thr':>7}")
    lines = [head]
    for r in rows:
        truth = (f"{fmt(r['true_limit_cores'])} ({fmt(r['true_limit_low'])}-{fmt(r['true_limit_high'])})"
                 if r["true_limit_cores"] is not None else r["truth_status"])
        lines.append(f"{r['workload']:<15} {fmt(r['current_limit_cores']):>7} {truth:>17} "
                     f"{'yes' if r['censored'] else 'no':>4} {fmt(r['round1_limit_cores']):>7} "
                     f"{fmt(r['ratio_round1']):>5} {fmt(r['round2_limit_cores']):>7} {fmt(r['final_limit_cores']):>6} "
                     f"{fmt(r['ratio_final']):>5} {fmt(r['throttled_after'], '.1%'):>9} "
                     f"{fmt(r['krr_request_cores']):>7} {fmt(r['vpa_request_cores']):>7} "
                     f"{fmt(r['vpa_throttled'], '.1%'):>7}")
    return "\n".join(lines)


def peer_lines(rows: list[dict]) -> list[str]:
    """What ours buys against the peers, in the kernel's numbers (their limits read off its ladder)."""
    out = []
    for r in rows:
        ours, thr = r["final_limit_cores"], r["throttled_after"]
        if ours is None:
            continue
        krr = (f"KRR requests {fmt(r['krr_request_cores'])} and sets no limit (never throttled, and nothing "
               f"bounds its bursts: they take the node's other CPU)")
        vpa = ("VPA keeps no limit" if r["vpa_limit_cores"] is None else
               f"VPA's {fmt(r['vpa_limit_cores'])}-core limit was throttled in "
               f"{'an unmeasured share' if r['vpa_throttled'] is None else format(r['vpa_throttled'], '.0%')} of periods "
               f"on the kernel's ladder")
        out.append(f"{r['workload']}: ours {fmt(ours)} cores, throttled in {thr:.1%} of periods after applying; {vpa}; "
                   f"{krr}.")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="three workloads, 2-min rungs, 15-min windows (< 60 min)")
    ap.add_argument("--json", type=Path, help="one row per workload")
    ap.add_argument("--keep", type=Path, help="keep the run's data here (ladders, recommend outputs, the 30-s TSDB)")
    ap.add_argument("--workloads", help="comma-separated names instead of the preset's")
    ap.add_argument("--replay", type=Path, help="recommend again on a run kept with --keep (no cluster)")
    ap.add_argument("--window-s", type=float, help="a production window's seconds instead of the preset's")
    ap.add_argument("--rung-s", type=float, help="a ladder rung's seconds instead of the preset's")
    ap.add_argument("--after-s", type=float, help="seconds measured under the final limits instead of the preset's")
    args = ap.parse_args(argv)
    if args.replay:
        rows = score(replay(args.replay))
        print(table(rows))
        print("\n".join(peer_lines(rows)))
        if args.json:
            args.json.write_text(json.dumps({"replay": str(args.replay), "rows": rows}, indent=1, default=str))
        missed = goals(rows)
        for m in missed:
            print(f"MISSED: {m}")
        return 1 if missed else 0
    if os.geteuid() != 0 or not shutil.which("prometheus"):
        print("bench kernel_truth: skipped: needs root and the one-node cluster's tools (make node-tools)")
        return SKIPPED
    settings = dict(QUICK if args.quick else FULL)
    if args.workloads:
        settings["workloads"] = tuple(args.workloads.split(","))
    for k in ("window_s", "rung_s", "after_s"):
        if getattr(args, k):
            settings[k] = getattr(args, k)
    keep = args.keep or Path(tempfile.mkdtemp(prefix="tl-kernel-truth-"))
    keep.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    say(f"settings: {json.dumps(settings)}; load average {load_average()}")
    run = run_on_cluster(settings, keep)
    rows = score(run)
    print(table(rows))
    print("\n".join(peer_lines(rows)))
    print(f"load average {load_average()}; took {(time.monotonic() - t0) / 60:.0f} min; data in {keep}")
    if args.json:
        args.json.write_text(json.dumps({"settings": settings, "rows": rows}, indent=1, default=str))
    missed = goals(rows)
    for m in missed:
        print(f"MISSED: {m}")
    print("kernel truth: all goals met" if not missed else f"kernel truth: {len(missed)} goal(s) missed")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
