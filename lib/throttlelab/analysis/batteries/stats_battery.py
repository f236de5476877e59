"""Simulation battery: false-alarm rate, power and interval coverage of the run-level analyses on messy data.

:func:`battery` gives every row in one table: the verdicts'
(:mod:`~throttlelab.analysis.batteries.verdict_battery`: the dead-zone test, the
run-level comparison, auto against the best thread count) on the scenarios of
:mod:`~throttlelab.analysis.batteries.battery_scenarios`, and the coverage of the
intervals here: order-statistic quantile intervals
(:func:`~throttlelab.analysis.stats.quantile_intervals.quantile_interval`) and
profile-likelihood intervals of the scaling fits.  ``bench/bench_stats.py`` runs
it full size and checks each row with
:func:`~throttlelab.analysis.batteries.battery_scenarios.goal_missed`; the tests
run a small, seeded copy.  The thread-count scenarios (noise per limit against one
pooled noise) are :mod:`~throttlelab.analysis.batteries.thread_count_battery`.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from throttlelab.analysis.batteries.battery_scenarios import COMPARE_SCENARIOS, DEAD_ZONE_SCENARIOS, mc_rate
from throttlelab.analysis.batteries.verdict_battery import compare_row, dead_zone_row, thread_row
from throttlelab.analysis.stats import quantile_interval


def quantile_rows(reps: int, seed: int) -> list[dict]:
    """Coverage of order-statistic intervals for p50/p95/p99 of lognormal samples, and how often n is too small."""
    from scipy import stats as st

    rng = np.random.default_rng(seed)
    out = []
    for n in (50, 400, 2000):
        for stat in ("p50", "p95", "p99"):
            q = float(stat[1:]) / 100
            truth = math.exp(0.5 * st.norm.ppf(q))
            cov = given = boot = 0
            for _ in range(reps):
                x = np.exp(0.5 * rng.standard_normal(n))
                e = quantile_interval(x, stat)
                if e.low is not None:
                    given += 1
                    cov += e.low <= truth <= e.high
                b = np.quantile(x[rng.integers(0, n, (200, n))], q, axis=1)  # the earlier percentile bootstrap
                boot += np.quantile(b, 0.025) <= truth <= np.quantile(b, 0.975)
            c, se = mc_rate(cov, given)
            out.append({"analysis": "quantile interval", "scenario": f"{stat}, n={n}, lognormal", "reps": reps,
                        "coverage": c if given else None, "coverage_se": se if given else None,
                        "too_few_to_decide": 1 - given / reps, "bootstrap_percentile_coverage": boot / reps})
    return out


def fit_rows(reps: int, seed: int) -> list[dict]:
    """Coverage of the serial part of an Amdahl fit (8 limits, 5% noise) and the parallelism of a quota fit:
    profile-likelihood intervals (used) against residual-bootstrap percentiles (the earlier method)."""
    from throttlelab.analysis.limits import fit_runtime_model

    rng = np.random.default_rng(seed)
    cores = np.array([1, 1.5, 2, 3, 4, 6, 8, 12.0])
    cases = (("amdahl", "serial_seconds", 3.0, 3 + 30 / cores), ("quota", "cpu_work_core_seconds", 30.0,
                                                                  30 / np.minimum(cores, 5) + 1))
    out = []
    for model, name, truth, curve in cases:
        prof = boot = 0
        for r in range(reps):
            t = curve * np.exp(rng.normal(0, 0.05, cores.size))
            f = fit_runtime_model(model, cores, t, n_boot=100, seed=r)
            lo, hi = f.intervals[name]
            prof += lo <= truth <= hi
            blo, bhi = f.confidence_interval(name, method="bootstrap", level=0.95 + 1e-12)
            boot += blo <= truth <= bhi
        c, se = mc_rate(prof, reps)
        out.append({"analysis": f"{model} fit, {name}", "scenario": "8 limits, 5% noise, profile likelihood",
                    "reps": reps, "coverage": c, "coverage_se": se, "bootstrap_percentile_coverage": boot / reps})
    return out


def battery(reps: int = 200, seed: int = 0, n_sim: int = 1000,
            which: tuple[str, ...] = ("dead", "compare", "threads", "fits", "quantile")) -> pl.DataFrame:
    """Every scenario of every analysis: one row each."""
    rows = []
    if "dead" in which:
        rows += [dead_zone_row(s, reps, seed + i, n_sim) for i, s in enumerate(DEAD_ZONE_SCENARIOS)]
    if "compare" in which:
        rows += [compare_row(s, reps * 5, seed + 100 + i) for i, s in enumerate(COMPARE_SCENARIOS)]
    if "fits" in which:
        rows += fit_rows(max(reps // 2, 20), seed + 400)
    if "threads" in which:
        rows.append(thread_row(reps * 2, seed + 300))
    if "quantile" in which:
        rows += quantile_rows(reps, seed + 200)
    return pl.DataFrame(rows, infer_schema_length=None)
