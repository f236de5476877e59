"""The kernel's truth: the smallest CPU limit whose throttled-period ratio meets a target, from a ladder of limits.

A ladder runs one workload, under the same load, at several CPU limits, and
reads the kernel's counters over windows of each step (``nr_periods``,
``nr_throttled``).  The ratio (throttled periods / periods) falls as the limit
rises; it is fitted as a non-increasing curve (isotonic regression of each
step's pooled ratio, weighted by its periods), and the true limit is where that
curve crosses the target, interpolated between the two steps around the crossing
on log-log axes (a throttling tail falls as a power of the limit; linearly where
the upper step has no throttling).  Its interval comes from resampling the windows of each step (a
window is the unit: periods inside one window share its conditions), never the
periods.  A crossing outside the ladder is not extrapolated: the status says on
which side to extend it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import isotonic_regression

from throttlelab.results import ConfidenceInterval

#: Resamples of the windows, and the interval's level.
RESAMPLES = 400
LEVEL = 0.90


@dataclass(frozen=True)
class LadderStep:
    """One rung: its limit, windows, pooled counters and the fitted (non-increasing) ratio."""

    limit_cores: float
    windows: int
    periods: int
    throttled: int
    ratio: float
    fitted: float


@dataclass(frozen=True)
class LadderTruth:
    """The smallest limit meeting ``target``, from the kernel (see the module docstring).

    Attributes
    ----------
    limit_cores
        Where the fitted ratio crosses ``target``; ``None`` when the crossing lies outside the ladder.
    low, high
        Interval at ``level`` from resampled windows; an end outside the ladder is ``None`` (below its lowest
        rung or above its highest).
    status
        ``"inside"``; ``"below ladder"`` (its lowest limit already meets the target: extend it down);
        ``"above ladder"`` (its highest does not: extend it up).
    """

    limit_cores: float | None
    low: float | None
    high: float | None
    target: float
    status: str
    steps: tuple[LadderStep, ...] = field(default=())
    level: float = LEVEL
    method: str = ("isotonic (non-increasing) fit of throttled periods / periods against the limit, crossing "
                   "interpolated between rungs; interval: windows resampled within each rung")

    def confidence_interval(self) -> ConfidenceInterval:
        nan = float("nan")
        return ConfidenceInterval(nan if self.low is None else self.low, nan if self.high is None else self.high)


def _crossing(limits: np.ndarray, fitted: np.ndarray, target: float) -> tuple[float | None, str]:
    """Where a non-increasing ``fitted`` (over increasing ``limits``) first reaches ``target``."""
    hit = np.flatnonzero(fitted <= target)
    if not hit.size:
        return None, "above ladder"
    j = int(hit[0])
    if j == 0:
        return None, "below ladder"
    f0, f1 = fitted[j - 1], fitted[j]
    x0, x1 = limits[j - 1], limits[j]
    if f1 > 0 and x0 > 0:  # a throttling tail falls as a power of the limit: straight on log-log axes
        frac = np.log(f0 / target) / np.log(f0 / f1)
        return float(np.exp(np.log(x0) + frac * np.log(x1 / x0))), "inside"
    return float(x0 + (f0 - target) / (f0 - f1) * (x1 - x0)), "inside"


def _fit(limits: np.ndarray, thr: np.ndarray, per: np.ndarray) -> np.ndarray:
    ratio = np.divide(thr, per, out=np.zeros_like(thr, dtype=float), where=per > 0)
    return isotonic_regression(ratio, weights=np.maximum(per, 1e-9), increasing=False).x


def ladder_truth(limit_cores, throttled, periods, *, target: float = 0.05, resamples: int = RESAMPLES,
                 level: float = LEVEL, seed: int = 0) -> LadderTruth:
    """The true limit from windows of a ladder: each window's limit, throttled periods and periods.

    Examples
    --------
    >>> lim = [0.1] * 3 + [0.2] * 3 + [0.3] * 3 + [0.4] * 3
    >>> thr = [90, 88, 92, 40, 45, 35, 12, 9, 10, 1, 0, 2]
    >>> t = ladder_truth(lim, thr, [100] * 12)
    >>> round(t.limit_cores, 3), t.status, [round(s.fitted, 3) for s in t.steps]
    (0.328, 'inside', [0.9, 0.4, 0.103, 0.01])
    >>> round(t.low, 3), round(t.high, 3)
    (0.316, 0.347)
    >>> ladder_truth([0.1, 0.2], [50, 30], [100, 100]).status  # never reaches 5%: the ladder must go higher
    'above ladder'
    """
    lim = np.asarray(limit_cores, float)
    thr = np.asarray(throttled, float)
    per = np.asarray(periods, float)
    levels = np.unique(lim)
    idx = [np.flatnonzero(lim == v) for v in levels]
    pooled_t = np.array([thr[i].sum() for i in idx])
    pooled_p = np.array([per[i].sum() for i in idx])
    fitted = _fit(levels, pooled_t, pooled_p)
    point, status = _crossing(levels, fitted, target)
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(resamples):
        pick = [i[rng.integers(0, i.size, i.size)] for i in idx]
        f = _fit(levels, np.array([thr[p].sum() for p in pick]), np.array([per[p].sum() for p in pick]))
        x, s = _crossing(levels, f, target)
        draws.append(x if s == "inside" else (-np.inf if s == "below ladder" else np.inf))
    a = (1 - level) / 2
    lo, hi = (float(v) for v in np.quantile(np.array(draws), [a, 1 - a], method="inverted_cdf"))
    if point is not None:  # the bootstrap's spread of a mean of n windows is sqrt((n-1)/n) of its spread: undone
        n = min(i.size for i in idx)
        widen = math.sqrt(n / (n - 1)) if n > 1 else 1.0
        lo, hi = point - (point - lo) * widen, point + (hi - point) * widen
    steps = tuple(LadderStep(float(v), int(i.size), int(p), int(t), float(t / p) if p else 0.0, float(f))
                  for v, i, p, t, f in zip(levels, idx, pooled_p, pooled_t, fitted))
    return LadderTruth(point, lo if np.isfinite(lo) else None, hi if np.isfinite(hi) else None, target, status,
                       steps, level)
