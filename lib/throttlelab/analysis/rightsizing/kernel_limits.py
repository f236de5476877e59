"""The recommended limit from the kernel's own counters, with the rules the kernel ladders support, per resample.

Per limit segment (the samples whose pods had one limit) the counters give the
throttled-period ratio ``r``, ``rho`` (mean demand while running over the limit)
and ``wait`` (the share of a throttled period spent waiting).  The limit is,
by what the window holds (:data:`HOW`):

``two limits``
    Two segments throttled between 0.1% and half of their periods (the closed
    loop: a patch applied, a new window): the exponent through both
    (:func:`~throttlelab.analysis.rightsizing.kernel_tail.two_point_exponent`),
    from the one nearer the target.
``tail``
    One such segment: the exponent its ``rho`` and ``wait`` tell
    (:func:`~throttlelab.analysis.rightsizing.kernel_tail.tail_exponent`),
    ``wait`` per waiting runqueue: throttled seconds sum the waiting of every
    runqueue, and ``n`` runqueues busy until the quota of ``L`` cores runs out
    wait ``n - L`` periods between them, so at least ``wait + L`` of them wait
    (one, for a lone thread: its wait is unchanged).  Without it, many threads
    waiting out a period at once read as rare spikes.
    Where the current limit is throttled beyond the target in 95% of the
    resamples (``misses_target``), the truth lies above it (the ratio never
    rises with the limit), and the limit's interval starts there.
``censored``
    Throttled in more than half of its periods: demand above the limit was
    never observed, and neither counter bounds it well (throttled seconds count
    the waiting of the container's runqueues, not the CPU it lacked, and where
    the pod's own cgroup throttles first they count little).  The first round
    takes the mean of usage + throttled seconds, at least as far as a tail
    falling as ``1 / L ** 2`` and no further than one falling as ``1 / L``
    reaches from the ratio seen: on the ladders' censored rungs 0.81-2.5 times
    the truth.  The next window then sees the demand (quiet, or throttled below
    half of its periods), and a second round over it is tight.
``quiet``
    A limit throttled in fewer than :data:`INFORMATIVE` periods, or in less
    than :data:`INFORMATIVE_RATIO` of them: :data:`QUIET`
    times the mean demand while running (on the ladders the true limit of
    never-throttled bodies was 1.5-2 times it), never under :data:`FLOOR`, never
    above the current limit.
``no limit``
    No CFS periods to count: twice the usage's p95, never under :data:`FLOOR`
    (a near-idle Go sidecar was throttled in 10-17% of periods at 50-80m by its
    runtime's own threads); a plausible range, not an interval.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from throttlelab.analysis.rightsizing.kernel_tail import limit_for_target, tail_exponent, two_point_exponent

#: How a limit was found (see the module docstring).
HOW = ("two limits", "tail", "censored", "quiet", "no limit")
#: Throttled periods a segment needs before its ratio is read as a measurement, and the ratio (0.1%: 10 throttled
#: periods in the ladders' 15-min windows, the shallowest tail their rungs measured): a day's window reaches 10
#: throttled periods at 0.001%, far in the tail, where a power read near the target does not hold.
INFORMATIVE = 10
INFORMATIVE_RATIO = 0.001
#: The smallest limit recommended without a measured tail (cores).
FLOOR = 0.1
#: A quiet limit's multiple of the mean demand while running (1.75: the true limits of never-throttled bodies on
#: the ladders were 1.5-2 times it).
QUIET = 1.75
#: Recommended / true limit on the kernel ladders (5% and 95% over every rung of the ladders, each rung read as the
#: current limit), per way of finding it; the intervals are widened by it.  ``tail``: 64 rungs of 14 ladders of 8
#: workload shapes gave 0.62-1.16, but threads bursting together on the clock read 1.10-1.23x at 10-40% throttled
#: (their tail is steeper than a body's power of 5) in every ladder and node test: a bias of the shape, not noise,
#: so the high end takes it (1.25).  ``no limit`` has no
#: rung to read: its range is the rule's own spread on the three ladders' workloads (0.8-1.4).
MODEL_ERROR = {"two limits": (0.89, 1.25), "tail": (0.62, 1.25), "censored": (0.81, 2.52), "quiet": (0.86, 1.2),
               "no limit": (0.7, 1.5)}


@dataclass(frozen=True)
class KernelLimit:
    """The limit (row 0 of ``draws``: the data; rows 1..: resamples), how it was found, and its tail."""

    draws: np.ndarray
    how: str
    alpha: float | None = None
    ratio: float | None = None  # the segment it was read from: its ratio and limit
    at_limit: float | None = None
    misses_target: bool = False  # the current limit is throttled beyond the target in 95% of the resamples

    @property
    def limit(self) -> float:
        return float(self.draws[0])

    def predicted(self, limit: float) -> float | None:
        """The throttled ratio at ``limit`` along the tail it was read from (``None`` without one)."""
        if self.alpha is None or self.ratio is None or not self.at_limit:
            return None
        return float(min(1.0, self.ratio * (self.at_limit / limit) ** self.alpha))

    def interval(self, level: float) -> tuple[float, float]:
        """The resamples' interval widened by the model's error on the ladders."""
        a = (1 - level) / 2
        lo, hi = np.quantile(self.draws[1:] if len(self.draws) > 1 else self.draws, [a, 1 - a])
        err_lo, err_hi = MODEL_ERROR[self.how]
        return float(min(lo / err_hi, self.limit)), float(max(hi / err_lo, self.limit))


def _segment_sums(W: np.ndarray, cells: np.ndarray, seg: np.ndarray, ncell: int, *cols: np.ndarray) -> list[np.ndarray]:
    """Per resample (rows of W over cells) the sums of each column over the segment's samples."""
    return [W @ np.bincount(cells[seg], c[seg], ncell) for c in cols]


def kernel_limit(usage: np.ndarray, throttled_s: np.ndarray, periods: np.ndarray, throttled: np.ndarray,
                 limits: np.ndarray, cells: np.ndarray, W: np.ndarray, *, period_s: float, target: float,
                 censored_ratio: float, step_s: float, current: float | None) -> KernelLimit:
    """The limit per resample (see the module docstring); per-sample rates (cores, periods/s) and the cells' weights
    ``W`` (row 0 all ones)."""
    ncell = int(cells.max()) + 1
    has = np.isfinite(limits) & np.isfinite(periods)
    if not has.any():
        return _no_limit(usage, cells, W, ncell)
    segs = []
    for lim in np.unique(limits[has]):
        seg = has & (limits == lim)
        per, thr, ts, u = _segment_sums(W, cells, seg, ncell, periods, throttled, throttled_s, usage)
        segs.append((float(lim), per, thr, ts, u))
    informative = [s for s in segs if s[2][0] * step_s >= INFORMATIVE
                   and INFORMATIVE_RATIO * s[1][0] <= s[2][0] <= censored_ratio * s[1][0]]
    cur = next((s for s in segs if current is not None and s[0] == current), segs[-1])
    if len(informative) >= 2:
        near = min(informative, key=lambda s: abs(np.log(s[2][0] / s[1][0] / target)))
        other = min((s for s in informative if s is not near), key=lambda s: abs(np.log(s[0] / near[0])))
        r_n = near[2] / np.maximum(near[1], 1e-12)
        r_o = other[2] / np.maximum(other[1], 1e-12)
        alphas = np.array([two_point_exponent(near[0], a, other[0], b) or np.nan for a, b in zip(r_n, r_o)])
        alphas = np.where(np.isfinite(alphas), alphas, alphas[0] if np.isfinite(alphas[0]) else 5.0)
        draws = near[0] * (np.maximum(r_n, 1e-6) / target) ** (1 / alphas)
        return KernelLimit(draws, "two limits", float(alphas[0]), float(r_n[0]), near[0])
    lim, per, thr, ts, u = cur
    r = thr / np.maximum(per, 1e-12)
    misses = bool(len(r) > 1 and np.mean(r[1:] > target) >= 0.95)
    if thr[0] * step_s >= INFORMATIVE and INFORMATIVE_RATIO <= r[0] <= censored_ratio:
        rho = u / np.maximum(per * period_s * lim, 1e-12)
        wait = ts / np.maximum(thr * period_s, 1e-12)  # runqueues x the share of a throttled period each waits
        wait = wait / np.maximum(1.0, wait + lim)  # per runqueue: at least wait + limit of them wait (see below)
        alphas = np.array([tail_exponent(a, b, lowering=r[0] < target) for a, b in zip(rho, wait)])
        draws = np.array([limit_for_target(lim, max(x, 1e-6), a, target) for x, a in zip(r, alphas)])
        return KernelLimit(draws, "tail", float(alphas[0]), float(r[0]), lim, misses)
    n = np.maximum(W @ np.bincount(cells[limits == lim], None, ncell), 1e-12)
    if r[0] > censored_ratio:  # mean of usage + throttled seconds, between where 1/L**2 and 1/L tails reach
        reach = np.maximum(r, 1e-6) / target
        draws = np.minimum(np.maximum((u + ts) / n, lim * np.sqrt(reach)), lim * reach)
        return KernelLimit(np.maximum(draws, lim), "censored", misses_target=misses)
    mean_running = u / np.maximum(per * period_s, 1e-12)
    draws = np.minimum(np.maximum(QUIET * mean_running, FLOOR), lim)
    return KernelLimit(draws, "quiet")


def _no_limit(usage: np.ndarray, cells: np.ndarray, W: np.ndarray, ncell: int) -> KernelLimit:
    order = np.argsort(usage, kind="stable")
    cum = np.cumsum(W[:, cells[order]], axis=1)
    idx = np.argmax(cum >= 0.95 * cum[:, -1:], axis=1)
    return KernelLimit(np.maximum(2 * usage[order][idx], FLOOR), "no limit")
