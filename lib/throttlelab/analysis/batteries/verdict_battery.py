"""Battery rows of the verdicts: false alarms, power and coverage of dead zones, comparisons and auto vs the best.

The verdicts are the dead-zone test, the run-level comparison and auto against the best thread count, on the
simulated scenarios of :mod:`~throttlelab.analysis.batteries.battery_scenarios`.
:func:`dead_zone_row` runs :func:`~throttlelab.analysis.limits.dead_zones.find_dead_zones`
on a quota curve (no dead zone, or +``effect_pct`` at 6 cores), :func:`compare_row`
the two-stage comparison of a level with its baseline
(:func:`~throttlelab.analysis.stats.run_level.compare_runs`, used by the latency,
neighbour and concurrency comparisons) beside the request-level Mann-Whitney it
replaced, :func:`thread_row` the selection-adjusted test of ``auto`` against the
best-looking explicit count beside the naive t-test.  Each row gives a rate with
its Monte Carlo standard error (dead-zone rows also their generator settings and
power goal).
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from throttlelab import tables
from throttlelab.analysis.batteries.battery_scenarios import Scenario, mc_rate, scenario_noise
from throttlelab.analysis.limits import find_dead_zones
from throttlelab.analysis.runs import prepare_runs
from throttlelab.analysis.stats import TOO_FEW, compare_runs

LIMITS = np.arange(1, 9, dtype=float)
QUOTA_CURVE = 10 / np.minimum(LIMITS, 4) + 2  # falls to 4 cores, then flat: no dead zone


def dead_zone_row(s: Scenario, reps: int, seed: int, n_sim: int = 1000) -> dict:
    """False-alarm rate (null) or power at 6 cores (alt), and coverage of the 6-core slowdown interval."""
    rng = np.random.default_rng(seed)
    curve = QUOTA_CURVE.copy()
    curve[5] *= 1 + s.effect_pct / 100
    truth = 100 * (curve[5] / curve[:5].min() - 1)
    lv = np.repeat(np.arange(len(LIMITS)), s.runs)
    alarms = covered = with_ci = undecidable = 0
    for r in range(reps):
        log_y = np.log(curve[lv]) + scenario_noise(rng, lv.size, s.cv, s.tails, lv, len(LIMITS), s.shape)
        if s.outlier != 1.0:
            log_y[rng.integers(lv.size)] += math.log(s.outlier)
        runs = tables.conform(pl.DataFrame({
            "experiment": [f"e{i % s.experiments}" for i in range(lv.size)], "run_id": [f"{i}" for i in range(lv.size)],
            "backend": "local", "workload": "w", "cpu_limit_cores": LIMITS[lv], "threads": "auto", "contention": 0.0,
            "wall_seconds": np.exp(log_y), "status": "ok"}), "runs")
        [a] = find_dead_zones(prepare_runs(runs).runs, n_sim=n_sim, seed=r,
                              block="experiment" if s.experiments > 1 else None)
        undecidable += not a.decidable
        if s.effect_pct:
            alarms += any(6.0 in z.limits_cores for z in a.zones)
        else:
            alarms += bool(a.zones)
        t6 = a.limits[5]
        if t6.slowdown is not None and t6.slowdown.low is not None and t6.baseline_limit_cores == 4.0:
            with_ci += 1
            covered += t6.slowdown.low <= truth <= t6.slowdown.high
    rate, se = mc_rate(alarms, reps)
    cov, cse = mc_rate(covered, with_ci)
    return {"analysis": "dead zones", "scenario": s.name, "reps": reps,
            "settings": f"8 limits 1..8 cores, quota curve 10/min(c,4)+2 (flat beyond 4); {s.settings()}; "
                        f"n_sim {n_sim}; seed {seed}",
            "false_alarm" if not s.effect_pct else "power": rate, "mc_se": se, "power_goal": s.power_goal,
            "coverage": cov if with_ci else None, "coverage_se": cse if with_ci else None,
            "too_few_to_decide": undecidable / reps}


def compare_row(s: Scenario, reps: int, seed: int, requests: int = 100) -> dict:
    """Two-stage comparison: runs with a run effect, requests lognormal within; rate of 'slower'/'faster' verdicts.

    Also the request-level Mann-Whitney false-alarm rate on the same data (the method it replaces).
    """
    from scipy import stats as st

    rng = np.random.default_rng(seed)
    alarms = covered = with_ci = undecidable = mw = 0
    truth = s.effect_pct
    cvs = s.cv if isinstance(s.cv, tuple) else (s.cv, s.cv)
    for _ in range(reps):
        sides = []
        for k, cv in enumerate(cvs):
            eff = math.log1p(truth / 100) if k == 0 else 0.0
            run_eff = scenario_noise(rng, s.runs, cv, s.tails) + eff
            if k == 0 and s.outlier != 1.0:
                run_eff[0] += math.log(s.outlier)
            sides.append([np.exp(math.log(0.1) + e + 0.5 * rng.standard_normal(requests)) for e in run_eff])
        x = np.array([r.mean() for r in sides[0]])
        y = np.array([r.mean() for r in sides[1]])
        c = compare_runs(x, y)
        undecidable += c.verdict == TOO_FEW
        alarms += c.verdict in ("slower", "faster") if not truth else c.verdict == "slower"
        if c.change.low is not None:
            with_ci += 1
            # truth on the ratio scale of run means (the within-run lognormal factor is equal on both sides)
            covered += c.change.low <= truth <= c.change.high
        mw += st.mannwhitneyu(np.concatenate(sides[0]), np.concatenate(sides[1])).pvalue < 0.05
    rate, se = mc_rate(alarms, reps)
    cov, cse = mc_rate(covered, with_ci)
    return {"analysis": "run-level comparison", "scenario": s.name, "reps": reps,
            "false_alarm" if not truth else "power": rate, "mc_se": se,
            "coverage": cov if with_ci else None, "coverage_se": cse if with_ci else None,
            "too_few_to_decide": undecidable / reps, "request_level_mann_whitney_rejects": mw / reps}


def thread_row(reps: int, seed: int, runs: int = 3, cv: float = 0.10, counts: int = 5) -> dict:
    """Null: ``auto`` and ``counts`` explicit thread counts equally fast; how often is auto 'significantly'
    different from the best-looking explicit count (selection-adjusted), and how often would the naive t-test say so."""
    from scipy import stats as st

    from throttlelab.analysis.stats import estimate_effects
    from throttlelab.analysis.threads import selection_adjusted

    rng = np.random.default_rng(seed)
    adj = naive = 0
    for r in range(reps):
        cells = np.repeat(np.arange(counts + 1), runs)
        y = rng.normal(0, cv, cells.size)
        noise = estimate_effects(cells, y).noise
        means = np.array([y[cells == k].mean() for k in range(counts + 1)])
        d = means[0] - means[1:].min()
        _, p = selection_adjusted(d, runs, [runs] * counts, noise, 0.95, n_sim=4000, seed=r)
        adj += p < 0.05
        se = noise.sigma * math.sqrt(2 / runs)
        naive += 2 * st.t.sf(abs(d) / se, noise.df) < 0.05
    rate, se_ = mc_rate(adj, reps)
    return {"analysis": "auto vs best thread count", "scenario": f"null: auto = {counts} explicit counts, {runs} runs, "
            f"{100 * cv:.0f}%", "reps": reps, "false_alarm": rate, "mc_se": se_,
            "request_level_mann_whitney_rejects": None, "naive_best_of_many_rejects": naive / reps}
