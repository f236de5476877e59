"""The knee of a limit sweep, the cost of a run in core-seconds, and the recommended limit.

Knee
    The smallest limit whose (geometric-mean) run time is within
    ``tolerance_pct`` of the best time of the group: beyond it more CPU buys
    less than ``tolerance_pct``.
Core-seconds
    ``limit x wall time``: what a run reserves on the node (the quota it may
    use for as long as it runs).  Unlimited runs cost ``machine cores x wall``
    when the machine size is known, else nothing is claimed.
Recommendation
    The knee, unless it lies in a dead zone (then the next limit that is not),
    with its expected time and a confidence interval from the noise model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats

from throttlelab.analysis.dead_zone_results import DeadZoneAnalysis
from throttlelab.analysis.noise import NoiseModel
from throttlelab.results import ConfidenceInterval


@dataclass(frozen=True)
class Knee:
    """Smallest limit within ``tolerance_pct`` of the best time."""

    limit_cores: float | None
    limit_label: str
    seconds: float
    best_limit_label: str
    best_seconds: float
    tolerance_pct: float
    excess_pct: float  # knee time over best time, %


@dataclass(frozen=True)
class Recommendation:
    """Recommended limit (and thread count) with its expected time and cost."""

    limit_cores: float | None
    limit_label: str
    threads: str | None
    expected_seconds: float
    expected_seconds_ci: ConfidenceInterval
    core_seconds: float | None
    reason: str
    avoid: tuple[str, ...]  # limit labels in dead zones
    assumption_based: bool

    def confidence_interval(self) -> ConfidenceInterval:
        return self.expected_seconds_ci


def find_knee(summary: pl.DataFrame, *, tolerance_pct: float = 10.0) -> Knee:
    """Knee of one group's per-limit summary (:func:`~throttlelab.analysis.prepare.limit_summary`)."""
    s = summary.sort("limit_order")
    times = s["geomean_seconds"].to_numpy()
    best = int(np.argmin(times))
    ok = np.nonzero(times <= times[best] * (1 + tolerance_pct / 100.0))[0]
    k = int(ok[0])
    row = s.row(k, named=True)
    return Knee(
        limit_cores=row["cpu_limit_cores"], limit_label=row["limit_label"], seconds=float(times[k]),
        best_limit_label=s["limit_label"][best], best_seconds=float(times[best]), tolerance_pct=tolerance_pct,
        excess_pct=100.0 * (times[k] / times[best] - 1),
    )


def expected_time(geomean: float, runs: int, noise: NoiseModel, level: float = 0.95) -> ConfidenceInterval:
    """Interval of the geometric-mean run time at one limit: ``exp(mean log +- q sigma / sqrt(n))``."""
    q = stats.t.ppf(1 - (1 - level) / 2, noise.df) if math.isfinite(noise.df) else stats.norm.ppf(1 - (1 - level) / 2)
    h = q * noise.sigma / math.sqrt(max(runs, 1))
    return ConfidenceInterval(geomean * math.exp(-h), geomean * math.exp(h))


def recommend_limit(
    summary: pl.DataFrame,
    dead_zones: DeadZoneAnalysis,
    *,
    tolerance_pct: float = 10.0,
    threads: str | None = None,
    level: float = 0.95,
) -> Recommendation:
    """Recommend a limit for one group: the knee, stepping past dead-zone limits."""
    knee = find_knee(summary, tolerance_pct=tolerance_pct)
    avoid = tuple(lab for z in dead_zones.zones for lab in z.limits_labels)
    s = summary.sort("limit_order")
    labels = s["limit_label"].to_list()
    k = labels.index(knee.limit_label)
    while labels[k] in avoid and k + 1 < len(labels):
        k += 1
    row = s.row(k, named=True)
    reason = (
        f"smallest limit within {tolerance_pct:g}% of the best time ({knee.best_limit_label}, "
        f"{knee.best_seconds:.3g} s)"
    )
    if labels[k] != knee.limit_label:
        reason += f"; {knee.limit_label} lies in a dead zone"
    if avoid:
        reason += f"; avoid {', '.join(avoid)} (dead zone)"
    return Recommendation(
        limit_cores=row["cpu_limit_cores"], limit_label=row["limit_label"], threads=threads,
        expected_seconds=float(row["geomean_seconds"]),
        expected_seconds_ci=expected_time(row["geomean_seconds"], row["runs"], dead_zones.noise, level),
        core_seconds=row["reserved_core_seconds"], reason=reason, avoid=avoid,
        assumption_based=dead_zones.noise.assumption_based,
    )
