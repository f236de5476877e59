"""The kernel's CFS bandwidth control over a run of 100-ms periods, vectorised: backlog, throttling, throttled time.

Per period ``k`` the container's threads bring ``W_k`` CPU-seconds they would
run with no limit (:func:`burst_periods` spreads bursts of work over the periods
they run in), inside ``[a0_k, a1_k]`` of the period, on ``n_k`` threads.  Under
a quota ``Q`` (limit x period), what a period cannot serve is carried into the
next ones: the backlog ``B_k = min(cap_k, max(0, B_{k-1} + W_k - Q))``
(:func:`backlog`: running minima and maxima of cumulative sums, no loop per
period; ``cap_k`` is what the workload lets pile up, past which work is dropped,
as a ticker drops missed ticks).  Then, as cgroup v1's ``cpu.stat`` counts them:

* a period counts (``nr_periods``) when it has runnable work (new or carried);
* it is throttled (``nr_throttled``) when the quota runs out before its end
  with work left: at ``t_ex``, found on the period's consumption profile (the
  backlog first, at full speed; the new work spread over ``[a0, a1]``);
* its throttled time is ``(T - t_ex)`` times the runqueues that wait, the
  threads with work left, at most ``min(threads, cores)``: a thread that
  exhausts the quota mid-burst waits until the period ends however little work
  it had left, so throttled seconds are waiting time, not unserved demand.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PERIOD_S = 0.1


def backlog(x: np.ndarray, cap: np.ndarray | float | None = None) -> np.ndarray:
    """``B_k = min(cap_k, max(0, B_{k-1} + x_k))`` with ``B_{-1} = 0``, without a Python loop per period.

    With no cap, ``S_k - min(0, min_{j<=k} S_j)`` of the cumulative sum ``S``.  With one, each step is a clamp
    ``b -> min(c, max(0, b + x))`` and clamps compose into clamps: each block of about ``sqrt(n)`` periods is
    composed (vectorised over the blocks), the blocks carried in turn, then every period filled in (vectorised over
    the blocks again): ``3 sqrt(n)`` vector steps, where the one-sided backlog would pass the cap.

    >>> backlog(np.array([3.0, 3.0, -1.0, -9.0, 2.0]), 4.0).tolist()
    [3.0, 4.0, 3.0, 0.0, 2.0]
    >>> backlog(np.array([3.0, 3.0, -1.0, -9.0, 2.0])).tolist()
    [3.0, 6.0, 5.0, 0.0, 2.0]
    """
    x = np.asarray(x, float)
    if cap is None:
        s = np.cumsum(x)
        return s - np.minimum(np.minimum.accumulate(s), 0.0)
    free = backlog(x)
    if np.all(free <= cap):  # the cap never bites: the one-sided backlog is the answer
        return free
    n = len(x)
    width = max(1, int(np.ceil(np.sqrt(n))))
    rows = -(-n // width)
    xs = np.zeros(rows * width)
    xs[:n] = x
    cs = np.full(rows * width, np.inf)
    cs[:n] = np.broadcast_to(np.asarray(cap, float), (n,))
    xs, cs = xs.reshape(rows, width).T.copy(), cs.reshape(rows, width).T.copy()  # a column: one step of every block
    shift, low, high = xs.sum(axis=0), np.full(rows, -np.inf), np.full(rows, np.inf)
    for x_j, c_j in zip(xs, cs):  # each block's composite clamp: b -> min(high, max(low, b + shift))
        low = np.minimum(np.maximum(low + x_j, 0.0), c_j)
        high = np.minimum(np.maximum(high + x_j, 0.0), c_j)
    start = np.empty(rows)
    b = 0.0
    for i, (lo, hi, sh) in enumerate(zip(low.tolist(), high.tolist(), shift.tolist())):  # the blocks in turn
        start[i] = b
        b = min(hi, max(lo, b + sh))
    out = np.empty((width, rows))
    b = start
    for j in range(width):
        b = out[j] = np.minimum(np.maximum(b + xs[j], 0.0), cs[j])
    return out.T.reshape(-1)[:n]


@dataclass
class Periods:
    """Per period: new work (CPU-s), its span in the period (s), thread-seconds of it (running time summed over its
    threads), and what may pile up (CPU-s; ``None``: no cap)."""

    work: np.ndarray
    a0: np.ndarray
    a1: np.ndarray
    busy: np.ndarray
    cap: np.ndarray | None = None

    @classmethod
    def empty(cls, n: int, period: float = PERIOD_S) -> Periods:
        return cls(np.zeros(n), np.full(n, period), np.zeros(n), np.zeros(n))

    def add(self, other: Periods) -> Periods:
        caps = [c for c in (self.cap, other.cap) if c is not None]
        return Periods(self.work + other.work, np.minimum(self.a0, other.a0), np.maximum(self.a1, other.a1),
                       self.busy + other.busy, sum(caps) if caps else None)

    def runqueues(self, parallel: float) -> tuple[np.ndarray, np.ndarray]:
        """Per period, the threads running at once on average over the new work's span (1 to ``parallel``; 1
        without new work), and the same of the period before (kept: every limit reads them)."""
        key = ("runqueues", parallel)
        if key not in self.__dict__:
            conc = np.where(self.work > 0, np.clip(self.busy / np.maximum(self.a1 - self.a0, 1e-9), 1.0, parallel), 1.0)
            prev = np.empty_like(conc)
            prev[0], prev[1:] = 1.0, conc[:-1]
            self.__dict__[key] = (conc, prev)
        return self.__dict__[key]


def burst_periods(start: np.ndarray, cpu: np.ndarray, rate: np.ndarray | float, n: int,
                  period: float = PERIOD_S) -> Periods:
    """Bursts (wall start in s from the first period's start, CPU-s, running at ``rate`` cores) over ``n`` periods:
    each burst's CPU in every period it runs in, unthrottled.

    >>> p = burst_periods(np.array([0.05, 0.32]), np.array([0.1, 0.02]), 1.0, 4)
    >>> np.round(p.work, 3).tolist(), np.round(p.a0, 3).tolist(), np.round(p.busy, 3).tolist()
    ([0.05, 0.05, 0.0, 0.02], [0.05, 0.0, 0.1, 0.02], [0.05, 0.05, 0.0, 0.02])
    """
    rate = np.broadcast_to(np.asarray(rate, float), np.shape(start))
    end = start + cpu / rate
    k0 = np.floor(start / period).astype(np.int64)
    k1 = np.ceil(end / period).astype(np.int64) - 1
    keep = (k1 >= 0) & (k0 < n) & (cpu > 0)
    k0, k1 = np.maximum(k0[keep], 0), np.minimum(np.maximum(k1[keep], k0[keep]), n - 1)
    s, e, r = start[keep], end[keep], rate[keep]
    cnt = k1 - k0 + 1
    idx = np.repeat(np.arange(len(k0)), cnt)
    k = k0[idx] + np.arange(len(idx)) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    base = k * period
    lo = np.clip(s[idx] - base, 0.0, period)
    hi = np.clip(e[idx] - base, 0.0, period)
    out = Periods.empty(n, period)
    out.work = np.bincount(k, (hi - lo) * r[idx], n)
    np.minimum.at(out.a0, k, lo)
    np.maximum.at(out.a1, k, hi)
    out.busy = np.bincount(k, hi - lo, n)
    return out


@dataclass
class Counters:
    """Per period: CPU used (s), counted (bool), throttled (bool), throttled time (s), and each waiting thread's stall."""

    usage: np.ndarray
    counted: np.ndarray
    throttled: np.ndarray
    throttled_s: np.ndarray
    stall: np.ndarray


def cfs(p: Periods, quota: float | None, *, parallel: float, rate: float = 1.0, period: float = PERIOD_S) -> Counters:
    """The kernel's counters for the periods ``p`` under ``quota`` CPU-s per period (``None``: no limit).

    ``parallel`` is ``min(threads, cores)``: the most runqueues the container runs (and waits) on; ``rate`` the
    speed of a running thread (1: a core to itself; less on a busy node).
    """
    n = len(p.work)
    if _free(quota, parallel, rate, period):
        zero = np.zeros(n)
        return Counters(p.work.copy(), p.work > 0, np.zeros(n, bool), zero, zero)
    carried, service, conc, prev = _carried(p, quota, parallel, rate, period)
    avail = carried + p.work
    waiting = np.where(carried > 0, np.maximum(conc, prev), conc)
    stall = np.where(avail > quota * (1 + 1e-9), period - _exhausted(carried, p, quota, rate * waiting, period), 0.0)
    return Counters(np.minimum(avail, service), avail > 0, stall > 0, stall * waiting, stall)


def throttled_periods(p: Periods, quota: float | None, *, parallel: float, rate: float = 1.0,
                      period: float = PERIOD_S) -> tuple[int, int]:
    """(throttled, counted) periods of :func:`cfs`, without its other counters (for searching limits)."""
    if _free(quota, parallel, rate, period):
        return 0, int(np.count_nonzero(p.work > 0))
    carried, _, conc, prev = _carried(p, quota, parallel, rate, period)
    avail = carried + p.work
    i = np.flatnonzero(avail > quota * (1 + 1e-9))
    sub = Periods(p.work[i], p.a0[i], p.a1[i], p.busy[i])
    waiting = np.where(carried[i] > 0, np.maximum(conc[i], prev[i]), conc[i])
    throttled = np.count_nonzero(_exhausted(carried[i], sub, quota, rate * waiting, period) < period)
    return int(throttled), int(np.count_nonzero(avail > 0))


def _free(quota, parallel, rate, period) -> bool:
    """No limit, or one the container cannot reach: nothing is throttled."""
    return quota is None or quota >= parallel * rate * period


def _carried(p: Periods, quota: float, parallel: float, rate: float, period: float):
    """Work carried into each period, what each period can serve, and the runqueues of each and of the one before."""
    conc, prev = p.runqueues(parallel)
    service = np.minimum(quota, rate * period * np.maximum(conc, prev))  # the threads with work, new or carried
    carried = np.empty(len(p.work))
    carried[0] = 0.0
    carried[1:] = backlog(p.work - service, p.cap)[:-1]
    return carried, service, conc, prev


def _exhausted(carried, p: Periods, quota, speed, period):
    """When the period's consumption reaches ``quota``: it runs at most ``speed`` cores, the carried work from the
    start, the new work as it comes (evenly over ``[a0, a1]``): ``min(speed t, carried + new work by t)``."""
    ramp = np.where(carried >= quota, 0.0, p.a0 + (quota - carried) * (p.a1 - p.a0) / np.maximum(p.work, 1e-15))
    return np.minimum(np.maximum(ramp, quota / speed), period)
