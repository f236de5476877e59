"""Synthetic containers under CFS limits: their true CPU demand, throttling and counters, scrape by scrape.

Each 15-s scrape interval has a mean CPU demand (daily cycle, slow noise, optional
bursts); the container runs in a share ``active`` of the 100-ms CFS periods, and
within an active period its demand is ``demand / active x X`` with ``X`` a gamma
burst factor (mean 1, coefficient of variation ``burst_cv``), capped at its
thread count.  A period is throttled when that demand exceeds the limit; usage
is what the limit lets through and the throttled seconds are the demand it did
not.  (The recommender models bursts with a log-normal: the generator is not
the model it tests.)  Counters are cumulative with ``_total`` names and restart
from zero (with a new ``id`` label) where a container restarts; requests and
limits are kube-state-metrics gauges scraped every minute.  Container series
carry their node's ``node`` and ``instance`` labels; given ``nodes`` (name ->
cores), each node's size is a cAdvisor ``machine_cpu_cores`` gauge.  They are
written as OpenMetrics text and backfilled into Prometheus by
:mod:`.synthetic_openmetrics`.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
from scipy.signal import lfilter

from throttlelab.core.metrics import CADVISOR_COUNTERS, COUNTER

PERIOD_S = 0.1


@dataclass(frozen=True)
class ContainerSpec:
    """One container's true behaviour (what the recommender must discover)."""

    namespace: str
    pod: str
    container: str
    request: float | None = 0.5
    limit: float | None = 1.0  # cores; None: no limit (no CFS counters)
    mean_cores: float = 0.3  # mean CPU demand
    threads: float = 4.0  # most cores it can use at once
    diurnal: float = 0.3  # relative amplitude of the daily cycle
    noise: float = 0.15  # relative slow noise of the interval demand
    burst_cv: float = 0.8  # coefficient of variation of the per-period burst factor
    active_share: float = 0.7  # share of CFS periods with runnable threads at the mean demand
    spike_prob: float = 0.0  # chance per interval that a spike (x spike_factor, ~5 min) starts
    spike_factor: float = 4.0
    restart_at: float | None = None  # fraction of the window where the container restarts
    seed: int = 0
    node: str = "node-0"  # the node it runs on (labels ``node`` and ``instance``)


def _burst_tables(cv: float, seed: int, n: int = 60_000):
    """Tabulated S(a) = P(X > a) and G(a) = E[min(X, a)] for the gamma burst factor X (mean 1)."""
    rng = np.random.default_rng(seed)
    k = 1.0 / max(cv, 1e-3) ** 2
    x = np.sort(rng.gamma(k, 1.0 / k, n))
    grid = np.geomspace(1e-3, 1e3, 400)
    idx = np.searchsorted(x, grid)
    surv = 1.0 - idx / n
    csum = np.concatenate([[0.0], np.cumsum(x)])
    g = (csum[idx] + grid * (n - idx)) / n
    return np.log(grid), surv, g


def _interp(tab, a):
    la = np.log(np.clip(a, 1e-3, 1e3))
    return np.interp(la, tab[0], tab[1]), np.interp(la, tab[0], tab[2])


def _demand(spec: ContainerSpec, start: float, hours: float, scrape_s: float):
    """Per scrape interval: times, mean demand (cores), running share of periods, demand in a running period."""
    rng = np.random.default_rng(spec.seed)
    n = int(round(hours * 3600 / scrape_s))
    times = start + scrape_s * np.arange(1, n + 1)
    phase = rng.uniform(0, 2 * np.pi)
    daily = 1 + spec.diurnal * np.sin(2 * np.pi * times / 86400 + phase)
    # slow noise: AR(1) in log space, correlation time ~ 10 min
    rho = math.exp(-scrape_s / 600)
    eps = rng.normal(0, spec.noise * math.sqrt(1 - rho**2), n)
    ar = lfilter([1.0], [1.0, -rho], eps)
    demand = spec.mean_cores * daily * np.exp(ar - spec.noise**2 / 2)
    if spec.spike_prob > 0:
        starts = rng.random(n) < spec.spike_prob
        span = max(1, int(300 / scrape_s))
        spiking = np.convolve(starts.astype(float), np.ones(span))[:n] > 0
        demand = np.where(spiking, demand * spec.spike_factor, demand)
    demand = np.clip(demand, 1e-4, spec.threads)
    active = np.clip(spec.active_share * np.sqrt(demand / spec.mean_cores), 0.02, 1.0)
    m = demand / active  # mean demand in an active period
    return rng, times, demand, active, m


def simulate(spec: ContainerSpec, start: float, hours: float, scrape_s: float = 15.0) -> dict[str, np.ndarray]:
    """Scrape-time counters of one container: ``times``, the cumulative counters by their canonical names
    (``usage_seconds``, ``nr_periods``, ``nr_throttled``, ``throttled_seconds``) and ``restart_index``."""
    rng, times, demand, active, m = _demand(spec, start, hours, scrape_s)
    n = len(times)
    tab = _burst_tables(spec.burst_cv, spec.seed + 1)
    n_periods = scrape_s / PERIOD_S
    periods = active * n_periods
    if spec.limit is None:
        _, g_n = _interp(tab, spec.threads / m)
        used = m * g_n
        throttled = np.zeros(n)
        unserved = np.zeros(n)
    else:
        cap = min(spec.limit, spec.threads)
        s_l, g_l = _interp(tab, cap / m)
        _, g_n = _interp(tab, spec.threads / m)
        used = m * g_l
        unserved = m * np.maximum(g_n - g_l, 0.0)
        p_thr = s_l if spec.threads > spec.limit else np.zeros(n)
        throttled = rng.binomial(np.round(periods).astype(np.int64), np.clip(p_thr, 0, 1)).astype(float)
    usage = used * active * scrape_s
    thr_s = unserved * active * scrape_s
    out = {"times": times}
    restart = None if spec.restart_at is None else int(spec.restart_at * n)
    for name, inc in (("usage_seconds", usage), ("nr_periods", periods), ("nr_throttled", throttled),
                      ("throttled_seconds", thr_s)):
        c = np.cumsum(inc)
        if restart is not None:
            c[restart:] -= c[restart - 1]
        out[name] = np.floor(c) if COUNTER[name].integer else c
    out["restart_index"] = np.array([-1 if restart is None else restart])
    return out


def true_throttled_ratio(spec: ContainerSpec, limit: float, *, start: float, hours: float, scrape_s: float = 15.0) -> float:
    """The throttled-period ratio ``spec`` would have at ``limit`` (expected value, same demand as :func:`simulate`)."""
    return _true_ratios(spec, [limit], start, hours, scrape_s)[0]


def _true_ratios(spec, limits, start, hours, scrape_s):
    _, _, demand, active, m = _demand(spec, start, hours, scrape_s)
    tab = _burst_tables(spec.burst_cv, spec.seed + 1)
    out = []
    for limit in limits:
        if spec.threads <= limit:
            out.append(0.0)
            continue
        surv, _ = _interp(tab, limit / m)
        out.append(float((active * surv).sum() / active.sum()))
    return out


def true_smallest_limit(spec: ContainerSpec, target: float, *, start: float, hours: float, scrape_s: float = 15.0,
                        node_cores: float | None = None) -> float:
    """The smallest limit (to 1m) whose true throttled-period ratio is at most ``target``.

    With ``node_cores``: the smallest such limit at most the node's size, or the node's size when none is (no limit
    can give more than the node has).
    """
    _, _, demand, active, m = _demand(spec, start, hours, scrape_s)
    tab = _burst_tables(spec.burst_cv, spec.seed + 1)
    top = float(spec.threads) if node_cores is None else min(float(spec.threads), float(node_cores))
    if node_cores is not None and spec.threads > node_cores:
        surv, _ = _interp(tab, top / m)
        if float((active * surv).sum() / active.sum()) > target:  # even the whole node misses the target
            return top
    lo, hi = 0.001, top
    for _ in range(30):
        mid = (lo + hi) / 2
        surv, _ = _interp(tab, mid / m)
        if float((active * surv).sum() / active.sum()) <= target:
            hi = mid
        else:
            lo = mid
    return hi


#: The scenarios' nodes (cores): the starved container (true smallest limit ~2.5 cores) sits on the small one.
SCENARIO_NODES = {"node-0": 8.0, "node-1": 2.0}


def scenario_specs(namespace: str = "shop") -> list[ContainerSpec]:
    """The six test scenarios: starved, oversized, well-sized, bursty, no limit, restarted (nodes: ``SCENARIO_NODES``)."""
    base = ContainerSpec(namespace, "x", "app")
    rep = dataclasses.replace
    return [
        rep(base, pod="starved-0", container="api", request=0.25, limit=0.5, mean_cores=0.8, threads=3.0, burst_cv=0.6, seed=1,
            node="node-1"),
        rep(base, pod="oversized-0", container="worker", request=2.0, limit=4.0, mean_cores=0.2, threads=2.0, burst_cv=0.6, seed=2),
        rep(base, pod="wellsized-0", container="web", request=0.5, limit=1.0, mean_cores=0.4, threads=4.0, burst_cv=0.35, seed=3),
        rep(base, pod="bursty-0", container="batch", request=0.3, limit=1.0, mean_cores=0.25, threads=4.0, burst_cv=1.5,
            spike_prob=0.004, spike_factor=4.0, seed=4),
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
