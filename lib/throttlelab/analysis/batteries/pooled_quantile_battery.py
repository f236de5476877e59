"""Coverage of latency intervals on requests pooled across runs, against the configuration's own quantile.

Each simulated study measures one configuration ``runs`` times.  A run draws a
lognormal run effect ``exp(u)``, ``u ~ N(0, run_sd^2)`` (run-to-run noise), and
its requests are ``exp(u)`` times independent draws from the within-run
distribution: ``lognormal`` (0.1 s x exp(0.5 Z)) or ``t3`` (0.1 s + 0.05 s x
|T3|: a floor plus a tail that falls like x^-3).  The truth is the
configuration's quantile: the quantile of the request-time distribution mixed
over the run effects (:func:`configuration_value`: the exact within-run CDF
averaged over 200,000 simulated runs, solved for the level); for the mean, its
mean.  The studies go through
:func:`~throttlelab.analysis.latency.latency.summarize_latency` exactly as a report
calls it (one group per study, ``run_id`` per run), and beside each figure the
previous procedure on the same data: order-statistic intervals (mean: request
bootstrap) on the pooled requests as if they were independent.
``bench/bench_stats.py`` runs it full size; the tests run a small, seeded copy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import optimize, stats

STATS = ("mean", "p50", "p95", "p99")
COVERAGE_GOAL = 0.90
FLOOR, SCALE = 0.1, 0.05  # t3 requests: FLOOR + SCALE * |T3| seconds
LOG_SD = 0.5  # lognormal requests: 0.1 s * exp(LOG_SD * Z)


@dataclass(frozen=True)
class PooledScenario:
    """One configuration measured ``runs`` times.

    Attributes
    ----------
    name
        What it is.
    runs, requests
        Runs per study and answered requests per run.
    run_sd
        Standard deviation of the log run effect (0.10: about 10% run-to-run noise).
    within
        Request times within a run: ``"lognormal"`` or ``"t3"`` (see module docstring).
    goal
        Whether coverage >= :data:`COVERAGE_GOAL` is required (False: reported only).
    """

    name: str
    runs: int
    requests: int = 300
    run_sd: float = 0.10
    within: str = "lognormal"
    goal: bool = True

    def settings(self) -> str:
        """The generator's settings in one line."""
        body = (f"0.1 s x exp({LOG_SD} Z)" if self.within == "lognormal" else f"{FLOOR} s + {SCALE} s x |t3|")
        return (f"{self.runs} run(s) x {self.requests} requests; run effect exp(N(0, {self.run_sd:.2f}^2)); "
                f"requests {body}")


SCENARIOS = (
    PooledScenario("3 runs x 300 requests, lognormal requests, 10% run noise", 3),
    PooledScenario("5 runs x 300 requests, t3-tailed requests, 10% run noise", 5, within="t3"),
    PooledScenario("2 runs x 300 requests, lognormal requests, 10% run noise", 2),
    PooledScenario("3 runs x 300 requests, lognormal requests, 25% run noise", 3, run_sd=0.25, goal=False),
    PooledScenario("3 runs x 100 requests (p99 at its per-run minimum), t3 tails, 10%", 3, 100, within="t3",
                   goal=False),
    PooledScenario("one run x 1000 requests, lognormal, 10% run noise (unmeasured)", 1, 1000, goal=False),
)


def within_cdf(y: np.ndarray, within: str) -> np.ndarray:
    """CDF of one request time of a run without run effect."""
    if within == "lognormal":
        return stats.norm.cdf(np.log(np.maximum(y, 1e-300) / 0.1) / LOG_SD)
    z = np.maximum((y - FLOOR) / SCALE, 0) / math.sqrt(3)
    return (2 / math.pi) * (z / (1 + z * z) + np.arctan(z))  # 2 * t3.cdf(.) - 1, in closed form


def draw_runs(s: PooledScenario, rng: np.random.Generator) -> list[np.ndarray]:
    """One study: ``s.runs`` arrays of request times (s)."""
    effects = np.exp(rng.normal(0, s.run_sd, s.runs))
    if s.within == "lognormal":
        return [e * 0.1 * np.exp(LOG_SD * rng.standard_normal(s.requests)) for e in effects]
    return [e * (FLOOR + SCALE * np.abs(rng.standard_t(3, s.requests))) for e in effects]


def configuration_value(s: PooledScenario, stat: str, n_runs: int = 200_000, seed: int = 12345) -> float:
    """The truth: ``stat`` of the request-time distribution mixed over ``n_runs`` simulated run effects."""
    effects = np.exp(np.random.default_rng(seed).normal(0, s.run_sd, n_runs))
    if stat == "mean":
        body = 0.1 * math.exp(LOG_SD**2 / 2) if s.within == "lognormal" else FLOOR + SCALE * 2 * math.sqrt(3) / math.pi
        return float(effects.mean()) * body
    q = float(stat[1:]) / 100
    return float(optimize.brentq(lambda x: within_cdf(x / effects, s.within).mean() - q, 1e-6, 1e3, xtol=1e-12))


def studies_frame(s: PooledScenario, reps: int, seed: int) -> tuple[pl.DataFrame, list[list[np.ndarray]]]:
    """``reps`` studies as one requests table (``study``, ``run_id``, ``status``, ``latency_seconds``) and as arrays."""
    rng = np.random.default_rng(seed)
    studies = [draw_runs(s, rng) for _ in range(reps)]
    n = s.runs * s.requests
    frame = pl.DataFrame({
        "study": np.repeat(np.arange(reps), n),
        "run_id": [f"{i}-{r}" for i in range(reps) for r in range(s.runs) for _ in range(s.requests)],
        "status": "ok", "latency_seconds": np.concatenate([np.concatenate(runs) for runs in studies])})
    return frame, studies


def previous_intervals(pooled: np.ndarray, stat: str, rng: np.random.Generator) -> tuple[float, float]:
    """The previous procedure on pooled requests: order-statistic interval, or a 200-resample bootstrap of the mean."""
    from throttlelab.analysis.stats import quantile_interval

    if stat == "mean":
        b = pooled[rng.integers(0, pooled.size, (200, pooled.size))].mean(axis=1)
        return float(np.quantile(b, 0.025)), float(np.quantile(b, 0.975))
    e = quantile_interval(pooled, stat)
    return (math.nan, math.nan) if e.low is None else (e.low, e.high)


def scenario_rows(s: PooledScenario, reps: int, seed: int) -> list[dict]:
    """Per statistic: coverage of the configuration's value (with its Monte Carlo s.e.), share of studies without an
    interval, mean relative width ``(high - low) / truth``, and the previous procedure's coverage on the same data."""
    from throttlelab.analysis.latency import summarize_latency

    frame, studies = studies_frame(s, reps, seed)
    summary = summarize_latency(frame, ["study"], stats=STATS, n_boot=200, seed=seed).sort("study")
    rng = np.random.default_rng(seed + 1)
    rows = []
    for stat in STATS:
        truth = configuration_value(s, stat)
        low, high = summary[f"{stat}_low"].to_numpy(), summary[f"{stat}_high"].to_numpy()
        given = np.isfinite(low) & np.isfinite(high)
        hit = given & (low <= truth) & (truth <= high)
        old = np.array([previous_intervals(np.concatenate(runs), stat, rng) for runs in studies])
        cov = float(hit.mean())
        rows.append({
            "scenario": s.name, "settings": s.settings(), "stat": stat, "reps": reps, "truth_seconds": truth,
            "coverage": cov, "coverage_se": math.sqrt(max(cov * (1 - cov), 1e-12) / reps),
            "no_interval": float(1 - given.mean()),
            "mean_relative_width": float(((high - low)[given] / truth).mean()) if given.any() else None,
            "run_to_run_measured": (float(summary["run_to_run_measured"].mean())
                                    if "run_to_run_measured" in summary.columns else None),
            "previous_coverage": float(np.mean((old[:, 0] <= truth) & (truth <= old[:, 1]))),
            "goal": COVERAGE_GOAL if s.goal else None,
            "passed": (cov >= COVERAGE_GOAL) if s.goal else None})
    return rows


def pooled_rows(reps: int = 400, seed: int = 0, scenarios: tuple[PooledScenario, ...] = SCENARIOS) -> list[dict]:
    """:func:`scenario_rows` of every scenario (seeds ``seed``, ``seed + 1``, ...)."""
    return [r for i, s in enumerate(scenarios) for r in scenario_rows(s, reps, seed + i)]


def missed_goals(rows: list[dict]) -> list[str]:
    """``"<scenario>: <stat> covers 0.87 < 0.90"`` for each row whose goal was missed."""
    return [f"{r['scenario']}: {r['stat']} covers {r['coverage']:.3f} < {r['goal']:.2f}" for r in rows
            if r["passed"] is False]
