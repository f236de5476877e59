"""The knee of a limit sweep, the cost of a run in core-seconds, and the recommended limit.

Knee
    The smallest limit whose (geometric-mean) run time is within
    ``tolerance_pct`` of the best time of the group: beyond it more CPU buys
    less than ``tolerance_pct`` (the rule is :func:`throttlelab.stats.limit_rules.knee_index`,
    which the adaptive sweep uses too).
Core-seconds
    ``limit x wall time``: what a run reserves on the node (the quota it may
    use for as long as it runs).  Unlimited runs cost ``machine cores x wall``
    when the machine size is known, else nothing is claimed.
Recommendation
    The knee, unless it lies in a dead zone (then the next limit that is not),
    with its expected time and a confidence interval from the noise model,
    and how sure the choice is: the probability that each limit would be
    recommended in simulated repeats of the sweep, and the range of limits
    that 95% of them recommend (:func:`knee_uncertainty`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats

from throttlelab.core.ordering import argbest
from throttlelab.analysis.limits.dead_zone_results import DeadZoneAnalysis
from throttlelab.analysis.stats import NoiseModel
from throttlelab.results import ConfidenceInterval, Estimate
from throttlelab.stats import KNEE_TOLERANCE_PCT, knee_index, log_sd


@dataclass(frozen=True)
class Knee:
    """Smallest limit within ``tolerance_pct`` of the best time.

    Attributes
    ----------
    limit_cores, limit_label
        The knee limit.
    seconds
        Its geometric-mean cost (the metric, or 1 / metric when higher is better).
    best_limit_label, best_seconds
        The limit with the best cost and that cost.
    tolerance_pct
        How far from the best a limit may be and still count.
    excess_pct
        The knee's cost over the best, percent.
    """

    limit_cores: float | None
    limit_label: str
    seconds: float
    best_limit_label: str
    best_seconds: float
    tolerance_pct: float
    excess_pct: float  # knee time over best time, %


@dataclass(frozen=True)
class Recommendation:
    """Recommended limit (and thread count) with its expected time and cost.

    Attributes
    ----------
    limit_cores, limit_label, threads
        The recommended limit and the thread count of its group.
    expected_seconds
        Expected cost per run at that limit (geometric mean of its runs) with its interval (the headline); ``null``
        interval when the run-to-run noise is zero (identical replicates: the value is exact) or unmeasured (no
        replicated runs: ``assumption_based``).
    core_seconds
        Limit x expected wall time (what a run reserves); ``null`` for unlimited or other metrics.
    reason
        Why this limit (the knee, stepped past dead zones).
    avoid
        Limits in dead zones.
    assumption_based
        True when the run-to-run noise is unmeasured (no replicated runs): then no interval is given.
    probability_knee
        Limit -> share of simulated repeats of the sweep that would recommend it.
    limit_range
        Smallest and largest limit recommended in 95% of simulated repeats.
    uncertainty_note
        How the probabilities were simulated.
    undecided
        Empty when the runs compare limits with measured noise; else why no limit is recommended (one limit
        measured: nothing to compare; one run per limit: run-to-run noise unmeasured) and what would decide it.
        The limit above is then the knee of the numbers measured, not a recommendation.
    """

    limit_cores: float | None
    limit_label: str
    threads: str | None
    expected_seconds: Estimate
    core_seconds: float | None
    reason: str
    avoid: tuple[str, ...]  # limit labels in dead zones
    assumption_based: bool
    probability_knee: dict[str, float] | None = None  # limit -> share of simulated repeats recommending it
    limit_range: tuple[str, str] | None = None  # smallest..largest limit recommended in 95% of simulated repeats
    uncertainty_note: str = ""
    undecided: str = ""

    def confidence_interval(self) -> ConfidenceInterval | None:
        return None if self.expected_seconds.low is None else self.expected_seconds.confidence_interval()


def find_knee(summary: pl.DataFrame, *, tolerance_pct: float = KNEE_TOLERANCE_PCT) -> Knee:
    """Knee of one group's per-limit summary (:func:`~throttlelab.analysis.runs.prepare.limit_summary`)."""
    s = summary.sort("limit_order")
    times = s["geomean_seconds"].to_numpy()
    best = argbest(times)
    k = int(knee_index(np.log(times), tolerance_pct))
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


def expected_estimate(geomean: float, runs: int, noise: NoiseModel, level: float = 0.95,
                      exact: bool = False) -> Estimate:
    """:func:`expected_time` as an :class:`~throttlelab.results.Estimate`.

    No interval when ``exact`` (zero run-to-run noise) or when the noise is assumed, not measured (no replicated
    runs): an interval from an assumed noise would state a certainty the runs do not show.
    """
    if exact:
        return Estimate(float(geomean), None, None, level, "exact: zero run-to-run noise (identical replicates)",
                        n_runs=int(runs), unit="seconds")
    if noise.assumption_based:
        return Estimate(float(geomean), None, None, level, UNMEASURED, n_runs=int(runs), unit="seconds",
                        note="run-to-run noise unmeasured")
    ci = expected_time(geomean, runs, noise, level)
    return Estimate(float(geomean), ci.low, ci.high, level,
                    f"exp(mean log +- t sigma / sqrt(n)), sigma from the run-to-run noise model ({noise.source})",
                    n_runs=int(runs), unit="seconds")


#: Why a value has no interval when nothing was replicated.
UNMEASURED = "no interval: no replicated runs, so run-to-run noise is unmeasured (no interval from an assumed noise)"


def recommend_limit(
    summary: pl.DataFrame,
    dead_zones: DeadZoneAnalysis,
    *,
    tolerance_pct: float = KNEE_TOLERANCE_PCT,
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
    prob, rng_, note = knee_uncertainty(s, dead_zones, avoid, tolerance_pct=tolerance_pct, level=level)
    exact = not dead_zones.noise.assumption_based and dead_zones.noise.sigma == 0  # identical replicates
    if exact:
        note = "exact: zero run-to-run noise (identical replicates), no interval" + (f"; {note}" if note else "")
    return Recommendation(
        limit_cores=row["cpu_limit_cores"], limit_label=row["limit_label"], threads=threads,
        expected_seconds=expected_estimate(row["geomean_seconds"], row["runs"], dead_zones.noise, level, exact),
        core_seconds=row["reserved_core_seconds"], reason=reason, avoid=avoid,
        assumption_based=dead_zones.noise.assumption_based,
        probability_knee=prob, limit_range=rng_, uncertainty_note=note,
        undecided=undecided_reason(s, dead_zones.noise.assumption_based, rng_),
    )


def undecided_reason(summary: pl.DataFrame, unmeasured: bool, limit_range: tuple[str, str] | None = None) -> str:
    """Why the runs of one group cannot recommend a limit, with what would decide it ("" when they can).

    A recommendation compares limits: with one limit measured there is nothing to compare it with; with one run per
    limit the run-to-run noise that would say whether the gaps are real is unmeasured; and when the limit that
    simulated repeats of the sweep recommend (``limit_range``, 95% of them) spans every limit measured, the runs
    single none out.
    """
    labels = summary.sort("limit_order")["limit_label"].to_list() if "limit_order" in summary.columns else \
        summary["limit_label"].to_list()
    if len(labels) < 2:
        only = labels[0] if labels else "no limit"
        return (f"one limit measured ({only}): nothing to compare it with; runs at two or more limits (e.g. half and "
                "twice it), 3 runs each, would decide which limit to give")
    if unmeasured:
        return ("one run per limit: run-to-run noise unmeasured, so the gaps between limits are not decided; "
                "3 runs per limit would decide it")
    if limit_range is not None and (limit_range[0], limit_range[-1]) == (labels[0], labels[-1]):
        return (f"the limit that 95% of simulated repeats of the sweep recommend ranges over every limit measured "
                f"({labels[0]} to {labels[-1]}): the runs single none out; more runs per limit would narrow it")
    return ""


def knee_uncertainty(summary: pl.DataFrame, dead_zones: DeadZoneAnalysis, avoid: tuple[str, ...], *,
                     tolerance_pct: float, level: float = 0.95, n_sim: int = 4000, seed: int = 0):
    """How sure is the recommended limit?  Simulated repeats of the sweep with the measured per-limit noise.

    Each repeat draws every limit's log mean from ``N(observed, sigma_k^2 / n_k)`` (``sigma_k`` the limit's noise
    from the dead-zone analysis), finds the knee and steps past the dead-zone limits as the recommendation does.
    Returns (probability that each limit is recommended, the range of limits holding ``level`` of the repeats
    (equal tails in limit order), note).  Without measured noise: (None, None, reason).
    """
    s = summary.sort("limit_order")
    labels = s["limit_label"].to_list()
    cv = {t.limit_label: t.noise_cv_pct for t in dead_zones.limits}
    if not dead_zones.decidable or any(cv.get(lab) is None for lab in labels):
        return None, None, "run-to-run noise not measured: the choice of limit has no stated uncertainty"
    sig = np.array([log_sd(cv[lab] / 100) for lab in labels])
    mu = np.log(s["geomean_seconds"].to_numpy())
    n = np.maximum(s["runs"].to_numpy(), 1)
    rng = np.random.default_rng(seed)
    draws = mu[None, :] + rng.standard_normal((n_sim, len(mu))) * (sig / np.sqrt(n))[None, :]
    k = knee_index(draws, tolerance_pct)
    bad = np.array([lab in avoid for lab in labels])
    for _ in range(len(labels)):
        step = bad[k] & (k + 1 < len(labels))
        if not step.any():
            break
        k = np.where(step, k + 1, k)
    counts = np.bincount(k, minlength=len(labels)) / n_sim
    a = (1 - level) / 2
    lo, hi = int(np.quantile(k, a, method="lower")), int(np.quantile(k, 1 - a, method="higher"))
    prob = {lab: float(c) for lab, c in zip(labels, counts) if c > 0}
    note = (f"{n_sim} simulated repeats of the sweep with the measured per-limit noise; {100 * level:.0f}% of them "
            f"recommend {labels[lo]}" + (f" to {labels[hi]}" if hi != lo else ""))
    return prob, (labels[lo], labels[hi]), note
