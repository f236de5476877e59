"""Synthetic containers under CFS limits: each 100-ms period simulated as the kernel counts it, scrape by scrape.

Each scrape interval has a demand level (cores at full speed: a daily cycle,
slow noise, optional surges); the container's threads bring that work as one
of three loops (:data:`LOOPS`, :mod:`.burst_workloads`): requests in a share
of the periods (an open loop: what waits is served later, or dropped past a
timeout), a duty cycle per thread (a closed loop: a throttled burst ends later
and the next starts later, so its usage falls below its demand), or bursts on
a ticker; spikes may be added to any.  The kernel's CFS bandwidth control then
runs over every 100-ms period (:mod:`.cfs_periods`): work past the quota is
carried into later periods, a period counts when it has runnable work, is
throttled when the quota runs out with work left, and its throttled time is
the waiting of its runqueues until the period ends (not the CPU it lacked).
The counters are summed per scrape, cumulative with ``_total`` names, and
restart from zero (with a new ``id`` label) where a container restarts;
requests and limits are kube-state-metrics gauges.  Container series carry
their node's ``node`` and ``instance`` labels; given ``nodes`` (name -> cores),
each node's size is a cAdvisor ``machine_cpu_cores`` gauge.  They are written
as OpenMetrics text and backfilled into Prometheus by :mod:`.synthetic_openmetrics`.
The truth (the smallest limit that meets a target, over the same work) is
:mod:`.synthetic_truth`'s, never the recommender's model.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
from scipy.signal import lfilter

from throttlelab.core.metrics import CADVISOR_COUNTERS, COUNTER
from throttlelab.experiment.simulation import burst_workloads as bw
from throttlelab.experiment.simulation.cfs_periods import (
    PERIOD_S, Counters, Periods, burst_periods, cfs, throttled_periods,
)

#: How a container's work arrives (:mod:`~throttlelab.experiment.simulation.burst_workloads`).
LOOPS = ("requests", "duty", "ticker")


@dataclass(frozen=True)
class ContainerSpec:
    """One container's true behaviour (what the recommender must discover)."""

    namespace: str
    pod: str
    container: str
    request: float | None = 0.5
    limit: float | None = 1.0  # cores; None: no limit (no CFS counters)
    mean_cores: float = 0.3  # mean CPU demand (at full speed)
    threads: float = 4.0  # most cores it can use at once
    diurnal: float = 0.3  # relative amplitude of the daily cycle
    noise: float = 0.15  # relative slow noise of the demand level
    burst_cv: float = 0.8  # coefficient of variation of a burst's CPU (gamma, mean 1)
    active_share: float = 0.7  # requests: share of periods that bring work, at the mean demand
    loop: str = "requests"  # "requests", "duty" (closed loop) or "ticker" (bursts on the clock)
    every_s: float = 0.1  # duty: a thread's burst and sleep at the mean demand; ticker: the tick
    spike_s: float = 0.0  # CPU-seconds of a spike on one thread
    spike_every_s: float = 0.0  # a spike about this often (0: none)
    speed: float = 1.0  # share of a core a running thread gets (1: the node otherwise idle)
    cores: float | None = None  # its node's CPU count (None: as many as its threads)
    surge_prob: float = 0.0  # chance per scrape interval that a surge of demand (x surge_factor, ~5 min) starts
    surge_factor: float = 4.0
    restart_at: float | None = None  # fraction of the window where the container restarts
    seed: int = 0
    node: str = "node-0"  # the node it runs on (labels ``node`` and ``instance``)

    @property
    def parallel(self) -> float:
        """The most runqueues it runs on: its threads, at most its node's cores."""
        return float(min(self.threads, self.cores or self.threads))


def _levels(spec: ContainerSpec, start: float, hours: float, scrape_s: float):
    """Per scrape interval: times, demand level (cores) and the share of periods a request loop brings work in."""
    rng = np.random.default_rng(spec.seed)
    n = int(round(hours * 3600 / scrape_s))
    times = start + scrape_s * np.arange(1, n + 1)
    phase = rng.uniform(0, 2 * np.pi)
    daily = 1 + spec.diurnal * np.sin(2 * np.pi * times / 86400 + phase)
    rho = math.exp(-scrape_s / 600)  # slow noise: AR(1) in log space, correlation time ~ 10 min
    eps = rng.normal(0, spec.noise * math.sqrt(1 - rho**2), n)
    level = spec.mean_cores * daily * np.exp(lfilter([1.0], [1.0, -rho], eps) - spec.noise**2 / 2)
    if spec.surge_prob > 0:
        starts = rng.random(n) < spec.surge_prob
        spiking = np.convolve(starts.astype(float), np.ones(max(1, int(300 / scrape_s))))[:n] > 0
        level = np.where(spiking, level * spec.surge_factor, level)
    level = np.clip(level, 1e-4, spec.threads)
    active = np.clip(spec.active_share * np.sqrt(level / spec.mean_cores), 0.02, 1.0)
    return rng, times, level, active


def periods(spec: ContainerSpec, start: float, hours: float, scrape_s: float = 15.0,
            limit: float | None = None) -> Periods:
    """The container's work over every period of the window (a duty loop's depends on ``limit``: it slows down)."""
    if spec.loop not in LOOPS:
        raise ValueError(f"loop {spec.loop!r}: one of {', '.join(LOOPS)}")
    rng, _, level, active = _levels(spec, start, hours, scrape_s)
    seconds = len(level) * scrape_s
    n = int(round(seconds / PERIOD_S))
    threads = max(1, int(round(spec.threads)))
    run = spec.speed * min(1.0, spec.parallel / spec.threads)  # a thread's speed with its siblings on the cores
    busy = level / spec.threads * spec.every_s  # a thread's mean burst (CPU-s)
    spiky = spec.spike_s > 0 and spec.spike_every_s > 0
    if spec.loop == "duty":
        quota = None if limit is None else limit * PERIOD_S / threads
        rest = max(spec.every_s - spec.mean_cores / spec.threads * spec.every_s, 0.0)
        parts = [bw.duty_bursts(rng, busy=busy, rest=rest, cv=spec.burst_cv, speed=run, seconds=seconds, quota=quota,
                                level_s=scrape_s, spike_s=spec.spike_s if i == 0 else 0.0,
                                spike_every_s=spec.spike_every_s) for i in range(threads)]
        return burst_periods(np.concatenate([s for s, _ in parts]), np.concatenate([b for _, b in parts]), run, n)
    if spec.loop == "ticker":
        s, b = bw.ticker_bursts(rng, busy=busy, threads=threads, every_s=spec.every_s, cv=spec.burst_cv,
                                seconds=seconds, level_s=scrape_s)
        p = burst_periods(s, b, run, n)
        p.cap = bw.ticker_cap(busy, threads, n, scrape_s)
    else:
        p = bw.request_periods(rng, level=level, active=active, cv=spec.burst_cv, speed=spec.speed,
                               parallel=spec.parallel, level_s=scrape_s)
    if spiky:
        t = bw.spike_times(rng, spike_every_s=spec.spike_every_s, seconds=seconds)
        p = p.add(bw.spike_periods(t, spec.spike_s, spec.speed, n))
        p.cap = p.cap + bw.spike_cap(t, spec.spike_s, n)
    return p


def counters(spec: ContainerSpec, limit: float | None, p: Periods) -> Counters:
    """The kernel's counters of the periods ``p`` under ``limit`` (cores; ``None``: no limit)."""
    return cfs(p, None if limit is None else limit * PERIOD_S, parallel=spec.parallel, rate=spec.speed)


def throttled_counts(spec: ContainerSpec, limit: float | None, p: Periods) -> tuple[int, int]:
    """Throttled and counted periods of ``p`` under ``limit`` (the other counters left out)."""
    return throttled_periods(p, None if limit is None else limit * PERIOD_S, parallel=spec.parallel, rate=spec.speed)


def simulate(spec: ContainerSpec, start: float, hours: float, scrape_s: float = 15.0) -> dict[str, np.ndarray]:
    """Scrape-time counters of one container: ``times``, the cumulative counters by their canonical names
    (``usage_seconds``, ``nr_periods``, ``nr_throttled``, ``throttled_seconds``) and ``restart_index``."""
    _, times, _, _ = _levels(spec, start, hours, scrape_s)
    c = counters(spec, spec.limit, periods(spec, start, hours, scrape_s, spec.limit))
    per = int(round(scrape_s / PERIOD_S))
    out = {"times": times}
    restart = None if spec.restart_at is None else int(spec.restart_at * len(times))
    for name, inc in (("usage_seconds", c.usage), ("nr_periods", c.counted), ("nr_throttled", c.throttled),
                      ("throttled_seconds", c.throttled_s)):
        total = np.cumsum(inc.astype(float).reshape(len(times), per).sum(axis=1))
        if restart is not None:
            total[restart:] -= total[restart - 1]
        out[name] = np.floor(total + 1e-9) if COUNTER[name].integer else total
    out["restart_index"] = np.array([-1 if restart is None else restart])
    return out


#: The scenarios' nodes (cores): the starved container sits on the small one.
SCENARIO_NODES = {"node-0": 8.0, "node-1": 2.0}


def scenario_specs(namespace: str = "shop") -> list[ContainerSpec]:
    """The six test scenarios: starved, oversized, well-sized, bursty, no limit, restarted (nodes: ``SCENARIO_NODES``)."""
    base = ContainerSpec(namespace, "x", "app", cores=SCENARIO_NODES["node-0"])
    rep = dataclasses.replace
    return [
        rep(base, pod="starved-0", container="api", request=0.25, limit=0.5, mean_cores=0.8, threads=3.0, burst_cv=0.6, seed=1,
            node="node-1", cores=SCENARIO_NODES["node-1"]),
        rep(base, pod="oversized-0", container="worker", request=2.0, limit=4.0, mean_cores=0.2, threads=2.0, burst_cv=0.6, seed=2),
        rep(base, pod="wellsized-0", container="web", request=0.5, limit=1.0, mean_cores=0.4, threads=4.0, burst_cv=0.35, seed=3),
        rep(base, pod="bursty-0", container="batch", request=0.3, limit=1.0, mean_cores=0.25, threads=4.0, burst_cv=1.5,
            surge_prob=0.004, surge_factor=4.0, seed=4),
        rep(base, pod="nolimit-0", container="cache", request=0.5, limit=None, mean_cores=0.3, threads=2.0, seed=5),
        rep(base, pod="restarted-0", container="queue", request=0.5, limit=1.0, mean_cores=0.35, threads=2.0, burst_cv=0.5,
            restart_at=0.5, seed=6),
    ]


def container_cpu(spec: ContainerSpec, *, start: float, hours: float, scrape_s: float = 15.0, step_s: float = 60.0,
                  node_cores: float | None = None):
    """The per-step rates a Prometheus would return for ``spec`` on a node of ``node_cores`` (no server)."""
    from throttlelab.ingest.prometheus import ContainerCPU

    sim = simulate(spec, start, hours, scrape_s)
    k = int(round(step_s / scrape_s))
    n = len(sim["times"]) // k
    r = int(sim["restart_index"][0])

    def rate(name):
        c = sim[name][: n * k]
        inc = np.diff(np.concatenate([[0.0], c]))
        if r >= 0 and r < len(inc):
            inc[r] = c[r]  # the restarted counter's first value is its increase
        return inc.reshape(n, k).sum(1) / step_s

    limited = spec.limit is not None
    nan = np.full(n, np.nan)
    return ContainerCPU(spec.namespace, spec.pod, spec.container, spec.request, spec.limit,
                        "kube-state-metrics" if limited else "none", step_s, sim["times"][k - 1 :: k][:n],
                        **{COUNTER[name].container_field: rate(name) if limited or name == "usage_seconds" else nan
                           for name in CADVISOR_COUNTERS}, node_cores=node_cores)
