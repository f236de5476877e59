"""The simulation battery's scenarios, the noise they draw, how a rate is counted, and the goals a rate must meet.

A :class:`Scenario` is a situation shaped like a real experiment (run-to-run
noise, noise growing with the limit, one run per level, an outlying run,
heavy-tailed run effects, small n, several experiments as blocks, an effect);
:data:`DEAD_ZONE_SCENARIOS` and :data:`COMPARE_SCENARIOS` are those the
battery runs (:mod:`~throttlelab.analysis.batteries.verdict_battery`).
:func:`goal_missed` says which goal a row misses (false alarms at most 5%
within 2 Monte-Carlo s.e., 95% intervals covering at least 90%, the stated
power).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Scenario:
    """One simulated situation.

    Attributes
    ----------
    name
        What it is.
    runs
        Runs per level.
    cv
        Run-to-run noise (sd of log), or a (low, high) pair growing over the levels.
    effect_pct
        True effect (0 = null).
    outlier
        Multiply one run by this factor (1 = none).
    tails
        ``"normal"`` or ``"t3"`` (heavy-tailed run effects).
    shape
        How a (low, high) noise grows over the levels: ``"log-linear"``, ``"linear"`` or ``"step"`` (the first half
        of the levels at the low noise, the rest at the high one).
    experiments
        Runs of a level spread round-robin over this many experiments (analysed with experiment as a block).
    power_goal
        The power an alternative must reach (``None``: reported only).
    """

    name: str
    runs: int
    cv: float | tuple[float, float] = 0.10
    effect_pct: float = 0.0
    outlier: float = 1.0
    tails: str = "normal"
    shape: str = "log-linear"
    experiments: int = 1
    power_goal: float | None = None

    def settings(self) -> str:
        """The generator's settings in one line."""
        cv = (f"{100 * self.cv[0]:.0f}%->{100 * self.cv[1]:.0f}% {self.shape}" if isinstance(self.cv, tuple)
              else f"{100 * self.cv:.0f}%")
        return (f"{self.runs} run(s)/level; noise {cv}; {self.tails}"
                + (f"; one run x{self.outlier:g}" if self.outlier != 1.0 else "")
                + (f"; {self.experiments} experiments (block)" if self.experiments > 1 else "")
                + (f"; effect +{self.effect_pct:g}%" if self.effect_pct else "; no effect"))


DEAD_ZONE_SCENARIOS = (
    Scenario("null: equal noise 10%", 3),
    Scenario("null: noise growing 3% -> 25%", 3, (0.03, 0.25)),
    Scenario("null: noise growing 3% -> 25%, 2 runs", 2, (0.03, 0.25)),
    Scenario("null: noise growing linearly 3% -> 25%", 3, (0.03, 0.25), shape="linear"),
    Scenario("null: noise a step 3% -> 25% after the knee", 3, (0.03, 0.25), shape="step"),
    Scenario("null: noise growing, one outlying run (x1.8)", 3, (0.03, 0.25), outlier=1.8),
    Scenario("null: noise growing, heavy tails (t3)", 3, (0.03, 0.25), tails="t3"),
    Scenario("null: noise growing, 3 experiments as blocks", 3, (0.03, 0.25), experiments=3),
    Scenario("null: one run per limit, 25% noise", 1, 0.25),
    Scenario("null: one outlying run (x1.8)", 3, 0.05, outlier=1.8),
    Scenario("null: heavy tails (t3), 10%", 3, 0.10, tails="t3"),
    Scenario("null: small n (2 runs), 10%", 2),
    Scenario("alt: +30% at 6 cores, 3 runs, 5%", 3, 0.05, effect_pct=30, power_goal=0.90),
    Scenario("alt: +30%, 3 runs, 5%, one outlying run", 3, 0.05, effect_pct=30, outlier=1.8, power_goal=0.75),
    Scenario("alt: +30% at 6 cores, 3 runs, noise growing 3% -> 25%", 3, (0.03, 0.25), effect_pct=30),
)
COMPARE_SCENARIOS = (
    Scenario("null: equal noise 10%", 3),
    Scenario("null: unequal noise 5% vs 25%", 3, (0.05, 0.25)),
    Scenario("null: one run per level", 1),
    Scenario("null: one outlying run (x1.8)", 4, 0.05, outlier=1.8),
    Scenario("null: heavy tails (t3), 10%", 3, 0.10, tails="t3"),
    Scenario("null: small n (2 runs), 10%", 2),
    Scenario("alt: +30%, 3 runs, 5%", 3, 0.05, effect_pct=30),
    Scenario("alt: +30%, 4 runs, 5%, one outlying run", 4, 0.05, effect_pct=30, outlier=1.8),
)


def scenario_noise(rng: np.random.Generator, size: int, cv: float | tuple[float, float], tails: str,
                   levels: np.ndarray | None = None, n_levels: int = 1, shape: str = "log-linear") -> np.ndarray:
    """Run effects (log scale) of ``size`` runs: sd ``cv``, or growing from ``cv[0]`` to ``cv[1]`` over ``n_levels``
    levels by ``shape`` (``levels``: each run's level); normal or t3 tails scaled to that sd."""
    if isinstance(cv, tuple):
        if shape == "linear":
            sd_levels = np.linspace(cv[0], cv[1], n_levels)
        elif shape == "step":
            sd_levels = np.where(np.arange(n_levels) < n_levels // 2, cv[0], cv[1])
        else:
            sd_levels = np.exp(np.linspace(math.log(cv[0]), math.log(cv[1]), n_levels))
        sd = sd_levels[levels]
    else:
        sd = np.full(size, cv)
    z = rng.standard_t(3, size) / math.sqrt(3) if tails == "t3" else rng.standard_normal(size)
    return z * sd


def mc_rate(k: int, n: int) -> tuple[float, float]:
    """``k`` of ``n`` as a rate with its Monte-Carlo standard error (NaN for ``n = 0``)."""
    p = k / n if n else float("nan")
    return p, math.sqrt(max(p * (1 - p), 1e-12) / n) if n else float("nan")


#: Goals: false alarms at most this (within 2 Monte-Carlo s.e.), intervals covering at least this.
FALSE_ALARM_GOAL, COVERAGE_GOAL = 0.05, 0.90


def goal_missed(row: dict) -> str:
    """Why a battery row misses its goal ("" when it meets it or has none; a scenario that always answers
    "too few to decide" has no false-alarm rate and is reported apart by the caller)."""
    se = row.get("mc_se") or 0.0
    fa, power, goal, cov = (row.get(k) for k in ("false_alarm", "power", "power_goal", "coverage"))
    if fa is not None and row.get("too_few_to_decide") != 1.0 and fa > FALSE_ALARM_GOAL + 2 * se:
        return f"false alarms {fa:.3f} > {FALSE_ALARM_GOAL} + 2 MC s.e. ({se:.3f})"
    if power is not None and goal is not None and power < goal - 2 * se:
        return f"power {power:.3f} < {goal} - 2 MC s.e. ({se:.3f})"
    cse = row.get("coverage_se") or 0.0
    if cov is not None and cov < COVERAGE_GOAL - 2 * cse:
        return f"coverage {cov:.3f} < {COVERAGE_GOAL} - 2 MC s.e. ({cse:.3f})"
    return ""
