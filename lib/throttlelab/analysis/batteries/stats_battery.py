"""Simulation battery: false-alarm rate, power and interval coverage of the run-level analyses on messy data.

Scenarios shaped like real experiments (run-to-run noise, noise growing with
the limit, one run per level, an outlying run, heavy-tailed run effects, small
n) for three analyses: the dead-zone test
(:func:`~throttlelab.analysis.limits.dead_zones.find_dead_zones`), the two-stage
comparison of a level with its baseline
(:func:`~throttlelab.analysis.stats.run_level.compare_runs`, used by the latency,
neighbour and concurrency comparisons) and the order-statistic quantile
intervals (:func:`~throttlelab.analysis.stats.quantile_intervals.quantile_interval`).
``bench/bench_stats.py`` runs it full size; the tests run a small, seeded copy.
The thread-count scenarios (noise per limit against one pooled noise) are
:mod:`~throttlelab.analysis.batteries.thread_count_battery`.
Each row gives a rate with its Monte Carlo standard error (dead-zone rows also
their generator settings and power goal); :func:`goal_missed` says which goal a
row misses (false alarms at most 5% within 2 Monte-Carlo s.e., 95% intervals
covering at least 90%, the stated power).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl

from throttlelab import tables
from throttlelab.analysis.limits import find_dead_zones
from throttlelab.analysis.runs import prepare_runs
from throttlelab.analysis.stats import quantile_interval
from throttlelab.analysis.stats import TOO_FEW, compare_runs

LIMITS = np.arange(1, 9, dtype=float)
QUOTA_CURVE = 10 / np.minimum(LIMITS, 4) + 2  # falls to 4 cores, then flat: no dead zone


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


def _noise(rng, size, cv, tails, levels=None, n_levels=1, shape="log-linear"):
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


def _rate(k: int, n: int) -> tuple[float, float]:
    p = k / n if n else float("nan")
    return p, math.sqrt(max(p * (1 - p), 1e-12) / n) if n else float("nan")


def dead_zone_row(s: Scenario, reps: int, seed: int, n_sim: int = 1000) -> dict:
    """False-alarm rate (null) or power at 6 cores (alt), and coverage of the 6-core slowdown interval."""
    rng = np.random.default_rng(seed)
    curve = QUOTA_CURVE.copy()
    curve[5] *= 1 + s.effect_pct / 100
    truth = 100 * (curve[5] / curve[:5].min() - 1)
    lv = np.repeat(np.arange(len(LIMITS)), s.runs)
    alarms = covered = with_ci = undecidable = 0
    for r in range(reps):
        log_y = np.log(curve[lv]) + _noise(rng, lv.size, s.cv, s.tails, lv, len(LIMITS), s.shape)
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
    rate, se = _rate(alarms, reps)
    cov, cse = _rate(covered, with_ci)
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
            run_eff = _noise(rng, s.runs, cv, s.tails) + eff
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
    rate, se = _rate(alarms, reps)
    cov, cse = _rate(covered, with_ci)
    return {"analysis": "run-level comparison", "scenario": s.name, "reps": reps,
            "false_alarm" if not truth else "power": rate, "mc_se": se,
            "coverage": cov if with_ci else None, "coverage_se": cse if with_ci else None,
            "too_few_to_decide": undecidable / reps, "request_level_mann_whitney_rejects": mw / reps}


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
            c, se = _rate(cov, given)
            out.append({"analysis": "quantile interval", "scenario": f"{stat}, n={n}, lognormal", "reps": reps,
                        "coverage": c if given else None, "coverage_se": se if given else None,
                        "too_few_to_decide": 1 - given / reps, "bootstrap_percentile_coverage": boot / reps})
    return out


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
    rate, se_ = _rate(adj, reps)
    return {"analysis": "auto vs best thread count", "scenario": f"null: auto = {counts} explicit counts, {runs} runs, "
            f"{100 * cv:.0f}%", "reps": reps, "false_alarm": rate, "mc_se": se_,
            "request_level_mann_whitney_rejects": None, "naive_best_of_many_rejects": naive / reps}


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
        c, se = _rate(prof, reps)
        out.append({"analysis": f"{model} fit, {name}", "scenario": "8 limits, 5% noise, profile likelihood",
                    "reps": reps, "coverage": c, "coverage_se": se, "bootstrap_percentile_coverage": boot / reps})
    return out


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


def battery(reps: int = 200, seed: int = 0, n_sim: int = 1000, which: tuple[str, ...] = ("dead", "compare", "threads", "fits", "quantile")
            ) -> pl.DataFrame:
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
