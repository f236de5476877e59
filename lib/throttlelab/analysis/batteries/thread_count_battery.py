"""Simulation battery of the thread-count report: false claims over whole sweeps, power, interval coverage.

Each simulated study is a thread sweep as notebook 04 analyses it: 8 CPU
limits (1..8 cores) x 5 explicit thread counts (1, 2, 4, 8, 16) + ``auto``, a
few runs per cell, with run-to-run noise (sd of log run time) that grows from
the first limit to the last (log-linearly, linearly or as a step), optionally
with outlying runs and heavy-tailed (t3) run effects.  Each study is analysed
the way the report uses it: :func:`~throttlelab.analysis.threads.thread_counts.analyse_thread_counts`
over every limit, :func:`~throttlelab.analysis.threads.thread_advice.thread_advice`
for the answer, and the headline's limit (the largest gap of auto against the
best explicit count).  A study makes a **false claim** when, at any limit, a
count that is not slower is called slower than the best, auto is called
different from the best when it is not (or on the wrong side), an advice
verdict says worse/better falsely, or the headline's interval excludes the
truth on the claiming side; the rate is per study (the whole report).
**Power** is the share of limits at which a truly slower count is called
slower (and of studies in which it is at one limit at least).  Two procedures
are scored on the same data: the sweep-wide family (now) and each limit on its
own (``family="limit"``, the earlier per-limit family).  ``bench/bench_stats.py``
prints the full table; ``tests/analysis/batteries/test_thread_count_battery.py`` a seeded small one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl

from throttlelab import tables
from throttlelab.analysis.runs import prepare_runs
from throttlelab.analysis.threads import analyse_thread_counts, thread_advice

LIMITS = np.arange(1, 9, dtype=float)
THREADS = ("1", "2", "4", "8", "16", "auto")
#: The goals: at most this share of null studies claims anything; at least this per-limit power.
FALSE_CLAIM_GOAL, POWER_GOAL = 0.05, 0.80
METHODS = {"sweep": "sweep-wide family (now)", "limit": "each limit on its own (earlier)"}


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
        True slowdown of the settings in ``slow`` against the others (0 = null).
    slow
        The settings that are slower by ``effect_pct``.
    outliers
        Runs per study multiplied by ``outlier_factor`` (at random cells).
    tails
        ``"normal"`` or ``"t3"`` (heavy-tailed run effects, scaled to the same sd).
    replicated_cells
        Cells per limit with ``runs`` runs (the others have one run); ``None``: all.
    shape
        How the noise grows over the limits: ``"log-linear"``, ``"linear"`` or ``"step"`` (the first half of the
        limits at ``cv[0]``, the rest at ``cv[1]``).
    goal
        ``"false claims"`` (a null study: at most 5% may claim anything), ``"power"`` (at least 80% per limit) or
        ``""`` (reported only).
    """

    name: str
    runs: int = 3
    cv: tuple[float, float] = (0.03, 0.25)
    effect_pct: float = 0.0
    outliers: int = 0
    outlier_factor: float = 1.8
    tails: str = "normal"
    replicated_cells: int | None = None
    slow: tuple[str, ...] = ("16",)
    shape: str = "log-linear"
    goal: str = "false claims"

    def settings(self) -> str:
        """The generator's settings in one line."""
        return (f"8 limits x threads {', '.join(THREADS)}; {self.runs} runs/cell"
                + (f" in {self.replicated_cells} cells/limit" if self.replicated_cells else "")
                + f"; noise {100 * self.cv[0]:.0f}%->{100 * self.cv[1]:.0f}% {self.shape}; {self.tails}"
                + (f"; {self.outliers} runs x{self.outlier_factor}" if self.outliers else "")
                + (f"; {' and '.join(self.slow)} +{self.effect_pct:g}%" if self.effect_pct else "; no effect"))


THREAD_SCENARIOS = (
    ThreadScenario("null: noise growing 3% -> 25%, 3 runs"),
    ThreadScenario("null: noise growing 3% -> 25%, 2 runs", runs=2),
    ThreadScenario("null: noise growing, 3 runs, 2 outlying runs (x1.8)", outliers=2),
    ThreadScenario("null: noise growing, 3 runs, heavy tails (t3)", tails="t3"),
    ThreadScenario("null: noise growing, 3 runs, t3 tails and 2 outlying runs", tails="t3", outliers=2),
    ThreadScenario("null: noise growing, 2 of 6 cells per limit with 2 runs", runs=2, replicated_cells=2),
    ThreadScenario("null: noise growing linearly 3% -> 25%, 3 runs", shape="linear"),
    ThreadScenario("null: noise a step 3% -> 25% at 5 cores, 3 runs", shape="step"),
    ThreadScenario("null: equal noise 10%, 3 runs", cv=(0.10, 0.10)),
    ThreadScenario("alt: 16 threads +20%, equal noise 5%, 3 runs", cv=(0.05, 0.05), effect_pct=20, goal="power"),
    ThreadScenario("alt: 16 threads and auto +20%, equal noise 5%, 3 runs", cv=(0.05, 0.05), effect_pct=20,
                   slow=("16", "auto"), goal="power"),
    ThreadScenario("alt: 16 threads +20%, noise growing 3% -> 25%, 3 runs", effect_pct=20, goal=""),
)


def noise_sd(s: ThreadScenario) -> np.ndarray:
    """Run-to-run noise (sd of log) at each limit."""
    if s.shape == "linear":
        return np.linspace(s.cv[0], s.cv[1], LIMITS.size)
    if s.shape == "step":
        return np.where(np.arange(LIMITS.size) < LIMITS.size // 2, s.cv[0], s.cv[1])
    return np.exp(np.linspace(math.log(s.cv[0]), math.log(s.cv[1]), LIMITS.size))


def simulate(s: ThreadScenario, rng: np.random.Generator) -> tuple[pl.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    """One study: prepared runs, and per run its limit index, cell index and log time."""
    sd_lim = noise_sd(s)
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
    slow = np.isin(thr, [THREADS.index(t) for t in s.slow])
    log_y = math.log(20.0) + z * sd_lim[lim] + np.where(slow, math.log1p(s.effect_pct / 100), 0.0)
    if s.outliers:
        log_y[rng.choice(lim.size, s.outliers, replace=False)] += math.log(s.outlier_factor)
    runs = tables.conform(pl.DataFrame({
        "experiment": "sim", "run_id": [f"r{i}" for i in range(lim.size)], "backend": "local", "workload": "w",
        "cpu_limit_cores": LIMITS[lim], "threads": [THREADS[t] for t in thr], "contention": 0.0,
        "wall_seconds": np.exp(log_y), "status": "ok"}), "runs")
    return prepare_runs(runs).runs, lim, thr, log_y


def report_claims(a, advice: pl.DataFrame, s: ThreadScenario, alpha: float = 0.05) -> dict:
    """What one analysed study claims: false claims by kind, true findings, and interval coverage."""
    slow = set(s.slow) if s.effect_pct else set()
    explicit = set(THREADS[:5])
    truth = s.effect_pct if "auto" in slow else 0.0
    false_near = any((explicit - set(c.near_best_threads)) - slow for c in a.limits)
    found = [bool(slow & explicit - set(c.near_best_threads)) for c in a.limits]

    def wrong(e) -> bool:  # an auto claim on the wrong side of the truth (or any claim when auto is as fast)
        if e is None or e.p_value is None or e.p_value >= alpha:
            return False
        return truth == 0 or e.value < 0

    autos = [c.auto_vs_best for c in a.limits]
    worst = max((e for e in autos if e is not None), key=lambda e: e.value, default=None)
    measured = worst is not None and worst.low is not None
    head_wrong = measured and (worst.high < 0 or (truth == 0 and worst.low > 0))  # a difference that is not there
    adv = advice.filter(pl.col("compared").str.starts_with("auto"), pl.col("verdict").is_in(["worse", "better"]))
    adv_wrong = bool(adv.height) and (truth == 0 or bool((adv["verdict"] == "better").any()))
    auto_found = [e is not None and e.p_value is not None and e.p_value < alpha and e.value > 0 for e in autos]
    return {
        "near": false_near, "auto": any(wrong(e) for e in autos), "advice": adv_wrong, "headline": head_wrong,
        "found_per_limit": float(np.mean(found)) if slow & explicit else None, "found_any": any(found),
        "auto_found_per_limit": float(np.mean(auto_found)) if "auto" in slow else None,
        "headline_covers": (worst.low <= truth <= worst.high) if measured else None,
        "all_cover": all(e.low <= truth <= e.high for e in autos if e is not None and e.low is not None)
        if measured else None,
        "too_few": all(e is None or e.low is None for e in autos) and all(
            c.worse_than_best_p_values is None for c in a.limits),
    }


def thread_count_row(s: ThreadScenario, reps: int, seed: int, *, alpha: float = 0.05, n_sim: int = 2000,
                     methods: tuple[str, ...] = tuple(METHODS)) -> dict:
    """Rates of one scenario over ``reps`` studies, per method (see the module docstring)."""
    rng = np.random.default_rng(seed)
    acc: dict = {m: [] for m in methods}
    for _ in range(reps):
        runs, *_ = simulate(s, rng)
        raw = runs.select("experiment", "run_id", "backend", "workload", "cpu_limit_cores", "threads", "contention",
                          "wall_seconds", "status")
        for m in methods:
            [a] = analyse_thread_counts(runs, alpha=alpha, n_sim=n_sim, family=m)
            adv = thread_advice(raw, metric="wall_seconds", alpha=alpha, n_sim=n_sim, family=m, analyses=[a])
            acc[m].append(report_claims(a, adv, s, alpha))
    row: dict = {"analysis": "thread counts", "scenario": s.name, "reps": reps, "goal": s.goal,
                 "settings": f"{s.settings()}; alpha {alpha}; n_sim {n_sim}; seed {seed}",
                 "mc_se": math.sqrt(0.05 * 0.95 / reps)}
    for m in methods:
        c = pl.DataFrame(acc[m])
        kinds = ("near", "auto", "advice", "headline")
        row[f"false_claim_{m}"] = float(c.select(pl.any_horizontal(kinds)).to_series().mean())
        for k in kinds:
            row[f"false_{k}_{m}"] = float(c[k].mean())
        for k in ("found_per_limit", "found_any", "auto_found_per_limit", "headline_covers", "all_cover", "too_few"):
            v = c[k].drop_nulls()
            row[f"{k}_{m}"] = float(v.cast(pl.Float64).mean()) if v.len() else None
    return row


def goal_missed(row: dict, method: str = "sweep") -> str:
    """Why a row misses its goal (empty when it meets it, or has none); 2 Monte-Carlo s.e. of slack."""
    if row.get(f"too_few_{method}") == 1.0:
        return ""  # always "too few to decide": reported apart, no false-alarm rate
    fc, se = row[f"false_claim_{method}"], row["mc_se"]
    if row["goal"] == "false claims" and fc > FALSE_CLAIM_GOAL + 2 * se:
        return f"false claims {fc:.3f} > {FALSE_CLAIM_GOAL} + 2 s.e."
    if row["goal"] == "power":
        p = row[f"found_per_limit_{method}"]
        pse = math.sqrt(max(p * (1 - p), 1e-12) / row["reps"])
        if p < POWER_GOAL - 2 * pse:
            return f"power {p:.3f} < {POWER_GOAL} - 2 s.e."
        if fc > FALSE_CLAIM_GOAL + 2 * se:
            return f"false claims {fc:.3f} > {FALSE_CLAIM_GOAL} + 2 s.e. (about the counts that are not slower)"
    return ""


def thread_count_rows(reps: int, seed: int, *, n_sim: int = 2000) -> list[dict]:
    """Every thread-count scenario: one row each."""
    return [thread_count_row(s, reps, seed + i, n_sim=n_sim) for i, s in enumerate(THREAD_SCENARIOS)]
