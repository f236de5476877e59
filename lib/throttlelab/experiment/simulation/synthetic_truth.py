"""The generator's truth: throttled ratios at any limit over the same work, the limit meeting a target, ladders.

A container's throttled-period ratio at any limit, the smallest limit that
meets a target, and ladders of limits as the kernel ladders are measured.

The work is the same at every limit (same seed), as when one workload is resized
in place: a request loop's and a ticker's periods do not depend on the limit; a
duty loop's do (it slows down when throttled) and are simulated at each limit.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from throttlelab.experiment.simulation.cfs_periods import PERIOD_S
from throttlelab.experiment.simulation.synthetic_containers import ContainerSpec, counters, periods, throttled_counts

#: A part of a pooled truth: a container over ``hours`` from ``start`` (several pods of one workload, say).
Part = tuple[ContainerSpec, float, float]


class PooledRatio:
    """The throttled-period ratio of ``parts`` pooled, at any limit (each part's limit-free periods kept)."""

    def __init__(self, parts: list[Part], *, scrape_s: float = 15.0):
        self.parts, self.scrape_s = parts, scrape_s
        self._fixed = [None if spec.loop == "duty" else periods(spec, start, hours, scrape_s)
                       for spec, start, hours in parts]

    def __call__(self, limit: float) -> float:
        thr = per = 0.0
        for (spec, start, hours), fixed in zip(self.parts, self._fixed):
            p = fixed if fixed is not None else periods(spec, start, hours, self.scrape_s, limit)
            t, c = throttled_counts(spec, limit, p)
            thr, per = thr + t, per + c
        return thr / per if per else 0.0

    def guess(self, target: float) -> float | None:
        """Where a share ``target`` of the periods with work bring more than the limit (no carry-over: a start)."""
        work = [w[w > 0] for w in (f.work for f in self._fixed if f is not None)]
        work = np.concatenate(work) if work else np.empty(0)
        return float(np.quantile(work, 1 - target)) / PERIOD_S if len(work) else None


def throttled_ratios(parts: list[Part], limits, *, scrape_s: float = 15.0) -> np.ndarray:
    """The pooled throttled-period ratio at each of ``limits``."""
    ratio = PooledRatio(parts, scrape_s=scrape_s)
    return np.array([ratio(float(v)) for v in limits])


def smallest_limit(ratio, target: float, *, top: float, guess: float | None = None, rel_tol: float = 0.005,
                   most: int = 24) -> float:
    """The smallest limit whose ``ratio(limit)`` (falling with the limit) is at most ``target``, or ``top`` when even
    ``top`` misses it: regula falsi on log-log axes (the ratio falls as a power of the limit), halving the bracket
    geometrically where a side is never throttled, until its ends are within ``rel_tol``; the crossing is then
    interpolated between them.  A ``guess`` starts the bracket near the crossing (steps of 25%).

    >>> round(smallest_limit(lambda x: min(1.0, 0.05 * (0.5 / x) ** 5), 0.05, top=4.0), 3)
    0.5
    """
    hi, r_hi = top, ratio(top)
    if r_hi > target:
        return float(top)
    lo, r_lo = top / 1000.0, None
    if guess is not None and top / 1000.0 < guess < top:  # bracket the crossing from the guess, 25% a step
        x = guess
        r = ratio(x)
        while r > target and x * 1.25 < hi:
            lo, r_lo, x = x, r, x * 1.25
            r = ratio(x)
        if r > target:
            lo, r_lo = x, r
        else:
            hi, r_hi = x, r
            while r_lo is None and x / 1.25 > lo:
                x /= 1.25
                r = ratio(x)
                if r > target:
                    lo, r_lo = x, r
                else:
                    hi, r_hi = x, r
    if r_lo is None:
        r_lo = ratio(lo)
        if r_lo <= target:
            return float(lo)
    kept_lo = kept_hi = 0  # Illinois: an end kept again and again counts for half as much each time
    for _ in range(most):
        if hi / lo <= 1 + rel_tol:
            break
        if r_hi > 0:
            f_lo, f_hi = np.log(r_lo / target) * 0.5**kept_lo, np.log(r_hi / target) * 0.5**kept_hi
            x = float(np.exp(np.log(lo) + f_lo / (f_lo - f_hi) * np.log(hi / lo)))
            x = min(max(x, lo * (1 + rel_tol / 4)), hi / (1 + rel_tol / 4))
        else:
            x = float(np.sqrt(lo * hi))
        r = ratio(x)
        if r > target:
            lo, r_lo, kept_lo, kept_hi = x, r, 0, kept_hi + 1
        else:
            hi, r_hi, kept_lo, kept_hi = x, r, kept_lo + 1, 0
    if r_hi <= 0:
        return float(lo + (r_lo - target) / r_lo * (hi - lo))
    frac = np.log(r_lo / target) / np.log(r_lo / r_hi)
    return float(np.exp(np.log(lo) + frac * np.log(hi / lo)))


def true_throttled_ratio(spec: ContainerSpec, limit: float, *, start: float, hours: float, scrape_s: float = 15.0) -> float:
    """The throttled-period ratio ``spec`` would have at ``limit`` (same work as :func:`simulate`)."""
    return float(throttled_ratios([(spec, start, hours)], [limit], scrape_s=scrape_s)[0])


def true_smallest_limit(spec: ContainerSpec, target: float, *, start: float, hours: float, scrape_s: float = 15.0,
                        node_cores: float | None = None) -> float:
    """The smallest limit whose throttled-period ratio is at most ``target``: with ``node_cores``, the smallest such
    limit at most the node's size, or the node's size when none is (no limit gives more than the node has)."""
    top = float(spec.threads) if node_cores is None else min(float(spec.threads), float(node_cores))
    ratio = PooledRatio([(spec, start, hours)], scrape_s=scrape_s)
    return smallest_limit(ratio, target, top=top, guess=ratio.guess(target))


def ladder_windows(spec: ContainerSpec, limits, *, rung_s: float = 600.0, window_s: float = 10.0,
                   start: float = 0.0) -> list[dict]:
    """A ladder through ``limits`` as the kernel ladders are measured: per window of ``window_s``, the rung's limit,
    periods, throttled periods, throttled seconds and CPU seconds (each rung its own seed: new bursts)."""
    rows = []
    for i, lim in enumerate(limits):
        s = dataclasses.replace(spec, limit=float(lim), seed=spec.seed + 7919 * i, restart_at=None)
        sim = simulate_windows(s, start=start + i * rung_s, seconds=rung_s, window_s=window_s)
        for per, thr, ts, cpu in zip(*sim):
            rows.append({"limit_cores": float(lim), "periods": int(per), "throttled": int(thr),
                         "throttled_seconds": float(ts), "cpu_seconds": float(cpu), "window_s": window_s})
    return rows


def simulate_windows(spec: ContainerSpec, *, start: float, seconds: float, window_s: float):
    """Per window: counted periods, throttled periods, throttled seconds and CPU seconds under ``spec.limit``."""
    hours = seconds / 3600
    c = counters(spec, spec.limit, periods(spec, start, hours, window_s, spec.limit))
    per = int(round(window_s / 0.1))
    n = len(c.usage) // per
    return tuple(np.asarray(x[: n * per], float).reshape(n, per).sum(axis=1)
                 for x in (c.counted, c.throttled, c.throttled_s, c.usage))
