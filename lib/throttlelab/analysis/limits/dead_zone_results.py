"""Results of the dead-zone analysis: per-limit tests, dead zones, one analysis per group.

Frozen dataclasses in the style of ``scipy.stats`` results (named fields,
``confidence_interval()``), convertible with :func:`throttlelab.results.to_jsonable`;
:func:`group_zones` turns consecutive ``dead zone`` verdicts into
:class:`DeadZone` objects.  The analysis itself is
:func:`throttlelab.analysis.limits.dead_zones.find_dead_zones`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import polars as pl

from throttlelab.core.ordering import best_by_score
from throttlelab.analysis.stats import NoiseModel
from throttlelab.analysis.stats import OutlyingRun
from throttlelab.analysis.stats import ReplicatesNeeded
from throttlelab.results import ConfidenceInterval, Estimate

TOO_FEW = "too few to decide"
VERDICTS = ("dead zone", "not a dead zone", "undecided", "lowest limit", TOO_FEW)


@dataclass(frozen=True)
class LimitTest:
    """One limit compared with its best lower limit.

    Attributes
    ----------
    limit_cores, limit_label
        The limit (cores; ``null`` = unlimited) and its label (``"4000m"``).
    runs
        Runs at this limit used in the test (outlying runs left out).
    baseline_limit_cores, baseline_label
        The best (fastest) lower limit it is compared with.
    slowdown
        Geometric-mean time against the baseline, percent (positive = slower), with its simultaneous interval (the
        verdict is read off it) and the p-value adjusted by the group's procedure of "at most ``threshold_pct``
        slower"; interval and p-value ``null`` when the run-to-run noise is zero (the slowdown is exact); ``null``
        for the lowest limit and when there are too few runs to decide.
    p_value_raw, p_value_holm, p_value_maxt
        Unadjusted, Holm and step-down max-T p-values of the same hypothesis (for reference).
    verdict
        ``dead zone`` (lower bound above the threshold), ``not a dead zone`` (upper bound below it),
        ``undecided``, ``lowest limit`` or ``too few to decide``.
    noise_cv_pct
        Run-to-run noise at this limit (moderated, percent).
    """

    limit_cores: float | None
    limit_label: str
    runs: int
    baseline_limit_cores: float | None = None
    baseline_label: str | None = None
    slowdown: Estimate | None = None
    p_value_raw: float | None = None
    p_value_holm: float | None = None
    p_value_maxt: float | None = None
    verdict: str = TOO_FEW
    noise_cv_pct: float | None = None

    def confidence_interval(self) -> ConfidenceInterval | None:
        return None if self.slowdown is None else self.slowdown.confidence_interval()


@dataclass(frozen=True)
class DeadZone:
    """Consecutive limits slower than the best lower limit by at least the threshold.

    Attributes
    ----------
    limits_cores, limits_labels
        The zone's limits (cores) and their labels.
    baseline_limit_cores, baseline_label
        The best lower limit they are slower than.
    worst_limit_label
        The zone's slowest limit.
    slowdown
        Slowdown at the worst limit against the baseline (percent) with its simultaneous interval; its p-value is the
        largest adjusted p-value of the zone's limits (interval and p-value ``null`` when the run-to-run noise is
        zero: the slowdown is exact, no test).
    """

    limits_cores: tuple[float | None, ...]
    limits_labels: tuple[str, ...]
    baseline_limit_cores: float | None
    baseline_label: str
    worst_limit_label: str
    slowdown: Estimate

    def confidence_interval(self) -> ConfidenceInterval:
        return self.slowdown.confidence_interval()


@dataclass(frozen=True)
class DeadZoneAnalysis:
    """Dead-zone analysis of one group of runs.

    Attributes
    ----------
    decidable, reason
        ``false`` ("too few to decide") with fewer than 3 limits or no replicated limit; ``reason`` says why.
    procedure
        The multiple-comparison procedure and why it was chosen.
    outlying_runs
        Runs flagged as outlying (robust scale of within-limit differences), left out and shown.
    replicates_needed
        Runs per limit that would detect a stated slowdown with 80% power, from the measured noise.
    group, label
        The group's key columns and label.
    assumption_based
        True when the noise is a stated prior, not measured (then no verdict).
    threshold_pct, alpha, correction
        Practical threshold (percent), family-wise error rate and the correction (``maxt`` or ``holm``).
    monotone_p_value
        p-value of "the metric's cost is non-increasing in the limit" (isotonic fit against the means).
    zones
        The dead zones found (consecutive ``dead zone`` verdicts).
    limits
        Every limit's test against its best lower limit.
    noise
        The run-to-run noise model the tests use.
    block, block_effects
        Block column (``experiment``) and each block's offset on the log scale against the reference block
        (``exp(x) - 1`` is the relative offset); ``null`` and empty without blocks.
    runs
        Runs analysed.
    """

    group: dict
    label: str
    decidable: bool
    reason: str
    assumption_based: bool
    threshold_pct: float
    alpha: float
    correction: str
    monotone_p_value: float | None
    zones: tuple[DeadZone, ...]
    limits: tuple[LimitTest, ...]
    noise: NoiseModel
    block: str | None
    block_effects: dict
    runs: int
    outlying_runs: tuple[OutlyingRun, ...] = ()
    procedure: str = ""
    replicates_needed: ReplicatesNeeded | None = None

    def limits_table(self) -> pl.DataFrame:
        rows = []
        for t in self.limits:
            e = t.slowdown or Estimate(None, None, None)
            rows.append({
                "group": self.label, "limit": t.limit_label, "limit_cores": t.limit_cores, "runs": t.runs,
                "baseline": t.baseline_label, "slowdown_pct": e.value,
                "slowdown_ci_low_pct": e.low, "slowdown_ci_high_pct": e.high,
                "p_value_raw": t.p_value_raw, "p_value": e.p_value, "p_value_holm": t.p_value_holm,
                "verdict": t.verdict, "noise_cv_pct": t.noise_cv_pct,
            })
        return pl.DataFrame(rows, schema_overrides={"limit_cores": pl.Float64, "baseline": pl.String,
                                                    "noise_cv_pct": pl.Float64, "slowdown_pct": pl.Float64,
                                                    "slowdown_ci_low_pct": pl.Float64,
                                                    "slowdown_ci_high_pct": pl.Float64, "p_value_raw": pl.Float64,
                                                    "p_value": pl.Float64, "p_value_holm": pl.Float64})


def group_zones(limits: list[LimitTest]) -> tuple[DeadZone, ...]:
    """Consecutive limits with the verdict ``dead zone`` as :class:`DeadZone` objects (worst limit named)."""
    zones, current = [], []
    for t in [*limits, None]:
        if t is not None and t.verdict == "dead zone":
            current.append(t)
            continue
        if current:
            worst = best_by_score(current, lambda x: x.slowdown.value, highest=True)
            ps = [x.slowdown.p_value for x in current]
            zones.append(DeadZone(
                limits_cores=tuple(x.limit_cores for x in current),
                limits_labels=tuple(x.limit_label for x in current),
                baseline_limit_cores=current[0].baseline_limit_cores,
                baseline_label=current[0].baseline_label,
                worst_limit_label=worst.limit_label,
                slowdown=dataclasses.replace(
                    worst.slowdown, p_value=None if None in ps else max(ps),
                    note=f"at {worst.limit_label}; p-value: the largest adjusted of the zone's limits"),
            ))
            current = []
    return tuple(zones)
