"""Simulation battery of the thread-count analysis: false alarms, coverage and power, pooled noise against per limit.

Each simulated study is a thread sweep: 8 CPU limits (1..8 cores) x 5
explicit thread counts (1, 2, 4, 8, 16) + ``auto``, a few runs per cell, with
run-to-run noise (sd of log run time) that grows log-linearly from the first
limit to the last.  Per limit three methods are scored on the same data:

* ``old``: one pooled noise for all limits, "X slower than the best" by an
  unadjusted one-sided t against the best-looking count, auto vs best
  selection-adjusted with the pooled noise (the method before issue 12's
  thread-count work);
* ``pooled``: the current procedure with ``noise_model="pooled"``;
* ``per limit``: the current procedure (:func:`~throttlelab.analysis.threads.thread_counts.analyse_thread_counts`).

A false alarm is a limit at which some thread count is called slower than the
best when none is (or auto is called different from the best); the rates are
per limit, overall and at the quietest and noisiest limits.  ``bench/bench_stats.py``
prints the full table; ``tests/analysis/batteries/test_thread_count_battery.py`` a seeded small one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats

from throttlelab import tables
from throttlelab.analysis.stats import NoiseModel
from throttlelab.analysis.runs import prepare_runs
from throttlelab.analysis.threads import selection_adjusted
from throttlelab.analysis.threads import analyse_thread_counts

LIMITS = np.arange(1, 9, dtype=float)
THREADS = ("1", "2", "4", "8", "16", "auto")


@dataclass(frozen=True)
class ThreadScenario:
    """One simulated thread sweep.

    Attributes
    ----------
    name
        What it is.
    runs
        Runs per (limit, threads) cell.
    cv
        Run-to-run noise (sd of log) at the first and the last limit (log-linear in between).
    effect_pct
        True slowdown of the 16-thread count and of ``auto`` against the others (0 = null).
    outliers
        Runs per study multiplied by ``outlier_factor`` (at random cells).
    tails
        ``"normal"`` or ``"t3"`` (heavy-tailed run effects, scaled to the same sd).
    replicated_cells
        Cells per limit with ``runs`` runs (the others have one run); ``None``: all.
    """

    name: str
    runs: int = 3
    cv: tuple[float, float] = (0.03, 0.25)
    effect_pct: float = 0.0
    outliers: int = 0
    outlier_factor: float = 1.8
    tails: str = "normal"
    replicated_cells: int | None = None


THREAD_SCENARIOS = (
    ThreadScenario("null: noise growing 3% -> 25%, 3 runs"),
    ThreadScenario("null: noise growing 3% -> 25%, 2 runs", runs=2),
    ThreadScenario("null: noise growing, 3 runs, 2 outlying runs (x1.8)", outliers=2),
    ThreadScenario("null: noise growing, 3 runs, heavy tails (t3)", tails="t3"),
    ThreadScenario("null: noise growing, 2 of 6 cells per limit with 2 runs", runs=2, replicated_cells=2),
    ThreadScenario("null: equal noise 10%, 3 runs", cv=(0.10, 0.10)),
    ThreadScenario("alt: 16 threads and auto +20%, noise growing 3% -> 25%, 3 runs", effect_pct=20),
    ThreadScenario("alt: 16 threads and auto +20%, equal noise 5%, 3 runs", cv=(0.05, 0.05), effect_pct=20),
)


def simulate(s: ThreadScenario, rng: np.random.Generator) -> tuple[pl.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    """One study: prepared runs, and per run its limit index, cell index and log time."""
    sd_lim = np.exp(np.linspace(math.log(s.cv[0]), math.log(s.cv[1]), LIMITS.size))
    lim, thr = [], []
    for k in range(LIMITS.size):
        rep = set(range(len(THREADS))) if s.replicated_cells is None else \
            set(rng.choice(len(THREADS), s.replicated_cells, replace=False).tolist())
        for t in range(len(THREADS)):
            n = s.runs if t in rep else 1
            lim += [k] * n
            thr += [t] * n
    lim, thr = np.array(lim), np.array(thr)
    z = rng.standard_t(3, lim.size) / math.sqrt(3) if s.tails == "t3" else rng.standard_normal(lim.size)
    log_y = math.log(20.0) + z * sd_lim[lim] + np.where(thr >= 4, math.log1p(s.effect_pct / 100), 0.0)
    if s.outliers:
        log_y[rng.choice(lim.size, s.outliers, replace=False)] += math.log(s.outlier_factor)
    runs = tables.conform(pl.DataFrame({
        "experiment": "sim", "run_id": [f"r{i}" for i in range(lim.size)], "backend": "local", "workload": "w",
        "cpu_limit_cores": LIMITS[lim], "threads": [THREADS[t] for t in thr], "contention": 0.0,
        "wall_seconds": np.exp(log_y), "status": "ok"}), "runs")
    return prepare_runs(runs).runs, lim, thr, log_y


def _old(lim, thr, log_y, alpha, n_sim, seed):
    """Per limit: (counts called slower, auto p-value, auto interval) with one pooled noise, unadjusted t."""
    cell = lim * len(THREADS) + thr
    _, inv, cnt = np.unique(cell, return_inverse=True, return_counts=True)
    means = np.bincount(inv, weights=log_y) / cnt
    resid = log_y - means[inv]
    df = float(log_y.size - cnt.size)
    sigma = math.sqrt(float(resid @ resid) / df)
    noise = NoiseModel(sigma, df, "replicates", False, int((cnt > 1).sum()))
    out = []
    for k in range(LIMITS.size):
        m = np.array([log_y[(lim == k) & (thr == t)].mean() for t in range(len(THREADS))])
        n = np.array([np.sum((lim == k) & (thr == t)) for t in range(len(THREADS))])
        b = int(np.argmin(m[:5]))
        t_stat = (m[:5] - m[b]) / (sigma * np.sqrt(1 / n[:5] + 1 / n[b]))
        worse = stats.t.sf(t_stat, df) < alpha  # per explicit count
        ci, p = selection_adjusted(m[5] - m[b], int(n[5]), n[:5].tolist(), noise, 1 - alpha, n_sim=n_sim,
                                   seed=seed + k)
        out.append((worse, p, ci))
    return out


def thread_count_row(s: ThreadScenario, reps: int, seed: int, *, alpha: float = 0.05, n_sim: int = 2000) -> dict:
    """Rates of one scenario over ``reps`` studies, per method (see the module docstring)."""
    rng = np.random.default_rng(seed)
    truth = s.effect_pct
    keys = ("worse", "auto", "cover")
    acc = {m: {k: np.zeros(LIMITS.size) for k in keys} for m in ("old", "pooled", "per limit")}
    outliers_flagged = 0
    for r in range(reps):
        runs, lim, thr, log_y = simulate(s, rng)
        for k, (worse, p, ci) in enumerate(_old(lim, thr, log_y, alpha, n_sim, r)):
            acc["old"]["worse"][k] += bool(worse[4]) if truth else bool(worse.any())
            acc["old"]["auto"][k] += p < alpha
            acc["old"]["cover"][k] += ci.low <= truth <= ci.high
        for name in ("pooled", "per limit"):
            [a] = analyse_thread_counts(runs, alpha=alpha, noise_model=name, n_sim=n_sim)
            outliers_flagged += len(a.outlying_runs) if name == "per limit" else 0
            for k, c in enumerate(a.limits):
                explicit = set(THREADS[:5])
                if truth:  # power: 16 threads called slower than the best
                    acc[name]["worse"][k] += "16" not in c.near_best_threads
                else:
                    acc[name]["worse"][k] += set(c.near_best_threads) != explicit
                avb = c.auto_vs_best
                acc[name]["auto"][k] += avb is not None and avb.p_value is not None and avb.p_value < alpha
                if avb is not None and avb.low is not None:
                    acc[name]["cover"][k] += c.auto_vs_best.low <= truth <= c.auto_vs_best.high
    row: dict = {"analysis": "thread counts", "scenario": s.name, "reps": reps,
                 "settings": (f"8 limits x threads {', '.join(THREADS)}; {s.runs} runs/cell"
                              + (f" in {s.replicated_cells} cells/limit" if s.replicated_cells else "")
                              + f"; noise {100 * s.cv[0]:.0f}%->{100 * s.cv[1]:.0f}%; {s.tails}"
                              + (f"; {s.outliers} runs x{s.outlier_factor}" if s.outliers else "")
                              + f"; effect {s.effect_pct:g}%; n_sim {n_sim}; seed {seed}"),
                 "outliers_flagged_per_study": outliers_flagged / reps}
    what = "power" if truth else "false_alarm"
    for name, tag in (("old", "old"), ("pooled", "pooled"), ("per limit", "new")):
        w = acc[name]["worse"] / reps
        row[f"{what}_worse_{tag}"] = float(w.mean())
        row[f"{what}_worse_{tag}_lowest_limit"] = float(w[0])
        row[f"{what}_worse_{tag}_highest_limit"] = float(w[-1])
        row[f"{what}_auto_{tag}"] = float(acc[name]["auto"].mean() / reps)
        row[f"{what}_auto_{tag}_highest_limit"] = float(acc[name]["auto"][-1] / reps)
        row[f"coverage_auto_{tag}"] = float(acc[name]["cover"].mean() / reps)
        row[f"coverage_auto_{tag}_highest_limit"] = float(acc[name]["cover"][-1] / reps)
    row["mc_se_per_limit"] = math.sqrt(0.05 * 0.95 / reps)
    return row


def thread_count_rows(reps: int, seed: int, *, n_sim: int = 2000) -> list[dict]:
    """Every thread-count scenario: one row each."""
    return [thread_count_row(s, reps, seed + i, n_sim=n_sim) for i, s in enumerate(THREAD_SCENARIOS)]
