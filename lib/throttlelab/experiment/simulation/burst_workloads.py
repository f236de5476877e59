"""How a synthetic container's threads bring work: requests, duty cycles, a ticker, spikes, spread over CFS periods.

The container's demand level ``m`` (cores at full speed, per scrape interval)
sets the size of its bursts; ``speed`` is the share of a core a running thread
gets (1 on an otherwise idle node), and a thread never runs faster.  The loops:

``requests`` (an open loop)
    Work arrives in a share of the periods (``active_share`` at the mean
    level), ``m / active x X`` cores for the period (``X`` gamma, mean 1,
    ``burst_cv``), spread over it; what the limit cannot serve waits, and
    requests waiting longer than :data:`TIMEOUT_S` are dropped (clients time out).
``duty`` (a closed loop)
    Each thread is busy for a burst (``m / threads x every_s`` CPU-seconds times
    ``X``), then sleeps the rest of ``every_s``: a throttled burst ends later, so
    the next starts later and the loop slows down (its usage falls below its
    demand).  Each thread is followed exactly, burst by burst (:func:`duty_bursts`),
    under its share of the quota; the counters come from the periods, with the
    quota shared.
``ticker`` (an open loop on the clock)
    Every thread bursts at each tick of ``every_s``; a late burst starts at
    once, and work more than a tick late is dropped, as a ``time.Ticker`` drops
    missed ticks.  The ticker's phase against the period timer is drawn afresh
    every :data:`LANE_S` (unknown, so averaged over).
spikes
    ``spike_s`` CPU-seconds on one thread about every ``spike_every_s``
    (+-10%); in a duty loop, added to thread 0's next burst.
"""

from __future__ import annotations

import numpy as np

from throttlelab.experiment.simulation.cfs_periods import PERIOD_S, Periods, burst_periods

#: Requests not served within this long are dropped (s).
TIMEOUT_S = 1.0
#: Duty loops are followed in lanes of this many seconds side by side; a ticker's phase is drawn per lane (s).
LANE_S = 60.0


def gamma_factor(rng: np.random.Generator, cv: float, size) -> np.ndarray:
    """Gamma variates of mean 1 and coefficient of variation ``cv`` (1 where ``cv`` is 0)."""
    if cv <= 0:
        return np.ones(size)
    k = 1.0 / cv**2
    return rng.gamma(k, 1.0 / k, size)


def duty_bursts(rng: np.random.Generator, *, busy: np.ndarray, rest: float, cv: float, speed: float, seconds: float,
                quota: float | None, level_s: float, spike_s: float = 0.0, spike_every_s: float = 0.0,
                period: float = PERIOD_S) -> tuple[np.ndarray, np.ndarray]:
    """One closed-loop thread, burst by burst: start times (s) and CPU of its bursts over ``seconds``.

    ``busy[i]`` is the mean burst in the ``i``-th ``level_s`` of the run.  Under ``quota`` (CPU-s per period, for
    this thread) a burst runs until the period's quota is spent, waits for the next period, and so on: each burst's
    end is found in closed form from its start, the quota left in its period and its size; lanes of :data:`LANE_S`
    are followed side by side (a loop per burst of a lane, not per period).

    >>> s, _ = duty_bursts(np.random.default_rng(0), busy=np.array([0.025]), rest=0.075, cv=0, speed=1.0,
    ...                    seconds=1.0, quota=0.01, level_s=1.0)  # 25 ms bursts under a 100m limit
    >>> np.round(s, 3).tolist()  # 10 ms a period: 64-74 ms, 0-10 ms, 0-5 ms, asleep 75 ms, 80-85 ms, ...
    [0.064, 0.28, 0.485, 0.78, 0.985]
    """
    lanes = max(1, int(np.ceil(seconds / LANE_S)))
    first = np.arange(lanes) * LANE_S
    end = np.minimum(first + LANE_S, seconds)
    w = first + rng.uniform(0, float(busy.mean()) / speed + rest, lanes)
    q = np.zeros(lanes)
    spiky = spike_s > 0 and spike_every_s > 0
    due = first + (rng.uniform(0, spike_every_s, lanes) if spiky else np.inf)
    limited = quota is not None and quota < speed * period
    most = min(quota, speed * period) if limited else np.inf
    starts, cpus = [], []
    live = w < end
    while live.any():
        b = busy[np.minimum((w / level_s).astype(np.int64), len(busy) - 1)] * gamma_factor(rng, cv, lanes)
        if spiky:
            hit = w >= due
            b = b + np.where(hit, spike_s, 0.0)
            due = np.where(hit, due + spike_every_s * rng.uniform(0.9, 1.1, lanes), due)
        starts.append(w[live])
        cpus.append(b[live])
        if limited:
            k = np.floor(w / period)
            here = np.minimum(np.minimum(b, quota - q), speed * (period - (w - k * period)))
            left = b - here
            done = left <= 1e-12
            full = np.maximum(np.ceil(left / most - 1e-9) - 1, 0)  # whole periods on it, the quota spent in each
            last = left - full * most
            stop = np.where(done, w + here / speed, (k + 1 + full) * period + last / speed)
            used = np.where(done, q + here, last)
        else:
            stop, used = w + b / speed, q
        nxt = stop + rest
        q = np.where(np.floor(nxt / period) > np.floor(stop / period), 0.0, used)
        w = np.where(live, nxt, w)
        live = w < end
    return np.concatenate(starts), np.concatenate(cpus)


def ticker_bursts(rng: np.random.Generator, *, busy: np.ndarray, threads: int, every_s: float, cv: float,
                  seconds: float, level_s: float) -> tuple[np.ndarray, np.ndarray]:
    """Every thread's burst at each tick: start times (s) and CPU (a phase per :data:`LANE_S`)."""
    ticks = every_s * np.arange(int(seconds / every_s))
    ticks = ticks + rng.uniform(0, every_s, int(seconds / LANE_S) + 1)[(ticks // LANE_S).astype(np.int64)]
    ticks = np.repeat(ticks[ticks < seconds], threads)
    b = busy[np.minimum((ticks / level_s).astype(np.int64), len(busy) - 1)] * gamma_factor(rng, cv, len(ticks))
    return ticks, b


def spike_times(rng: np.random.Generator, *, spike_every_s: float, seconds: float) -> np.ndarray:
    """About every ``spike_every_s`` (+-10%), from a random phase."""
    n = int(seconds / spike_every_s) + 2
    t = rng.uniform(0, spike_every_s) + np.cumsum(spike_every_s * rng.uniform(0.9, 1.1, n)) - spike_every_s
    return t[(t >= 0) & (t < seconds)]


def request_periods(rng: np.random.Generator, *, level: np.ndarray, active: np.ndarray, cv: float, speed: float,
                    parallel: float, level_s: float, period: float = PERIOD_S) -> Periods:
    """Per period of each ``level_s``: work in a share ``active`` of them, ``level / active x X`` cores for the
    period, at most ``parallel`` threads at ``speed``; the cap: what arrives in :data:`TIMEOUT_S`."""
    per = int(round(level_s / period))
    n = len(level) * per
    rate = np.repeat(level / active, per)
    on = rng.random(n) < np.repeat(active, per)
    cores = np.where(on, np.minimum(rate * gamma_factor(rng, cv, n), parallel * speed), 0.0)
    p = Periods(cores * period, np.where(on, 0.0, period), np.where(on, period, 0.0), cores / speed * period)
    p.cap = np.repeat(level, per) * TIMEOUT_S
    return p


def ticker_cap(busy: np.ndarray, threads: int, n: int, level_s: float, period: float = PERIOD_S) -> np.ndarray:
    """What a ticker may owe (CPU-s per period): one tick's work of every thread."""
    return np.repeat(busy * threads, int(round(level_s / period)))[:n]


def spike_cap(times: np.ndarray, spike_s: float, n: int, *, hold_s: float = 10.0, period: float = PERIOD_S) -> np.ndarray:
    """A spike may be owed for ``hold_s`` after it starts (it drains in ``spike_s / limit`` periods)."""
    d = np.zeros(n + 1)
    k = np.minimum((times / period).astype(np.int64), n)
    np.add.at(d, k, spike_s)
    np.add.at(d, np.minimum(k + int(hold_s / period), n), -spike_s)
    return np.cumsum(d)[:n]


def spike_periods(times: np.ndarray, spike_s: float, speed: float, n: int) -> Periods:
    """The spikes' work over ``n`` periods, one thread at ``speed``."""
    return burst_periods(times, np.full(len(times), spike_s), speed, n)
