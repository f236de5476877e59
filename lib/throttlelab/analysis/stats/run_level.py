"""Run-level comparisons: the run is the experimental unit, noise per level, the replicates that would decide.

Requests or samples inside one run share that run's conditions (machine state,
neighbour phase, queue), so they are never independent replicates.  Every
comparison here is *two-stage*: each run is summarised first (mean, p95, wall
time, ...), then the run summaries are compared across levels on the log scale
(ratios of geometric means), with Welch's t (each level its own noise, no
pooled sigma).  Outlying runs are flagged against a robust within-level scale
(pairwise differences of runs at the same level), reported, and left out of the
estimate that is reported next to them; they are never silently dropped
(:mod:`.outlying_runs`).

With fewer than two runs on a side nothing measures run-to-run noise: the
verdict is ``too few to decide`` (no p-value from a prior), together with
:func:`replicates_needed`, the runs per level that would detect a stated effect
with 80% power from the noise measured so far.  Quantile intervals of the
requests inside runs are :mod:`throttlelab.analysis.stats.quantile_intervals`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from throttlelab.analysis.stats.outlying_runs import OutlyingRun, flag_outliers
from throttlelab.results import ConfidenceInterval, Estimate

TOO_FEW = "too few to decide"
#: Effect size (percent) for which ``replicates_needed`` is stated unless told otherwise.
DETECT_PCT = 10.0


@dataclass(frozen=True)
class ReplicatesNeeded:
    """Runs per level that would detect an effect of stated size with the stated power.

    Attributes
    ----------
    effect_pct
        The effect to detect (percent change of the geometric mean).
    runs_per_level
        Runs needed on each side (``null`` when no run-to-run noise has been measured yet).
    power, alpha
        Target power and two-sided significance level (Welch t on log run summaries).
    noise_cv_pct
        Run-to-run noise the calculation uses (percent), measured from replicated levels.
    basis
        Where the noise came from.
    """

    effect_pct: float
    runs_per_level: int | None
    power: float
    alpha: float
    noise_cv_pct: float | None
    basis: str


@dataclass(frozen=True)
class RunComparison:
    """One level against a baseline level, runs as the units (two-stage, Welch t on log run summaries).

    Attributes
    ----------
    stat
        Per-run statistic compared (``mean``, ``p95``, ``wall``, ...).
    change
        Percent change of the geometric mean of run summaries (level / baseline - 1), its interval and
        two-sided Welch p-value; ``n_runs`` counts the runs of both sides used.
    runs, runs_baseline
        Runs used on each side (outlying runs left out).
    verdict
        ``slower`` / ``faster`` (interval excludes 0), ``no difference shown``, or ``too few to decide``.
    replicates_needed
        Runs per level to detect ``DETECT_PCT`` with 80% power, from the measured noise.
    outlying_runs
        Runs flagged and left out of ``change``.
    """

    stat: str
    change: Estimate
    runs: int
    runs_baseline: int
    verdict: str
    replicates_needed: ReplicatesNeeded
    outlying_runs: tuple[OutlyingRun, ...] = ()

    def confidence_interval(self) -> ConfidenceInterval:
        return self.change.confidence_interval()


def run_statistic(x: np.ndarray, stat: str) -> float:
    """One run's summary: ``mean``, ``max`` or ``pNN`` of its samples."""
    x = np.asarray(x, float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return float("nan")
    if stat == "mean":
        return float(x.mean())
    if stat == "max":
        return float(x.max())
    return float(np.quantile(x, float(stat[1:]) / 100))


def replicates_needed(sigma_log: float | None, *, effect_pct: float = DETECT_PCT, alpha: float = 0.05,
                      power: float = 0.8, basis: str = "", max_runs: int = 1000) -> ReplicatesNeeded:
    """Runs per level for a two-sided Welch t on log run summaries to detect ``effect_pct`` with ``power``.

    Uses the noncentral t with ``2(n - 1)`` degrees of freedom (equal noise and runs on both sides).
    """
    if sigma_log is None or not math.isfinite(sigma_log) or sigma_log <= 0:
        return ReplicatesNeeded(effect_pct, None, power, alpha, None,
                                basis or "no run-to-run noise measured yet: run every level at least twice")
    d = abs(math.log1p(effect_pct / 100)) / sigma_log
    cv = 100 * math.sqrt(math.expm1(sigma_log**2))
    for n in range(2, max_runs + 1):
        df = 2 * (n - 1)
        nc = d * math.sqrt(n / 2)
        crit = stats.t.ppf(1 - alpha / 2, df)
        if stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc) >= power:
            return ReplicatesNeeded(effect_pct, n, power, alpha, cv, basis)
    return ReplicatesNeeded(effect_pct, None, power, alpha, cv, (basis + "; " if basis else "") + f"more than {max_runs}")


def pooled_sigma(groups: list[np.ndarray]) -> tuple[float, float]:
    """Pooled sd of log run summaries over levels with >= 2 runs, and its degrees of freedom (NaN, 0 if none)."""
    ss = sum(float(np.sum((g - g.mean()) ** 2)) for g in groups if g.size >= 2)
    df = sum(g.size - 1 for g in groups if g.size >= 2)
    return (math.sqrt(ss / df), float(df)) if df > 0 else (float("nan"), 0.0)


#: Welch's degrees of freedom are capped at min(n) - 1 + DF_SLACK (Hsu's conservative min(n) - 1 plus a half):
#: with 3 vs 3 runs and unequal noise, plain Welch gave 6.9% false alarms (bench/bench_stats.py), this cap 5.5%.
DF_SLACK = 0.5


def welch(x: np.ndarray, y: np.ndarray, level: float = 0.95) -> tuple[float, float, float, float, float]:
    """Welch's t on log values: (difference, low, high, p two-sided, df).

    The Welch-Satterthwaite df is capped at ``min(n) - 1 + DF_SLACK`` (small-sample guard, see ``DF_SLACK``).
    """
    vx, vy = x.var(ddof=1) / x.size, y.var(ddof=1) / y.size
    diff = float(x.mean() - y.mean())
    se2 = vx + vy
    if se2 <= 0:
        return diff, diff, diff, (0.0 if diff else 1.0), math.inf
    df = min(se2**2 / (vx**2 / (x.size - 1) + vy**2 / (y.size - 1)), min(x.size, y.size) - 1 + DF_SLACK)
    t = diff / math.sqrt(se2)
    q = stats.t.ppf(1 - (1 - level) / 2, df)
    return diff, diff - q * math.sqrt(se2), diff + q * math.sqrt(se2), float(2 * stats.t.sf(abs(t), df)), float(df)


def compare_runs(sample: np.ndarray, baseline: np.ndarray, *, stat: str = "mean", alpha: float = 0.05,
                 level: float = 0.95, sample_ids: list[str] | None = None, baseline_ids: list[str] | None = None,
                 noise_groups: list[np.ndarray] | None = None, effect_pct: float = DETECT_PCT,
                 labels: tuple[str, str] = ("level", "baseline")) -> RunComparison:
    """Compare per-run summaries of a level with a baseline level (see :class:`RunComparison`).

    Parameters
    ----------
    sample, baseline
        One positive summary per run (seconds, or any ratio-scale number).
    noise_groups
        Log run summaries of every level of the study, for the robust outlier scale and the
        replicates-needed noise (default: the two sides).
    """
    x_all, y_all = np.log(np.asarray(sample, float)), np.log(np.asarray(baseline, float))
    ids = {labels[0]: sample_ids or [str(i) for i in range(x_all.size)],
           labels[1]: baseline_ids or [str(i) for i in range(y_all.size)]}
    groups = {labels[0]: x_all, labels[1]: y_all}
    flagged = flag_outliers(groups, ids, values={labels[0]: np.exp(x_all), labels[1]: np.exp(y_all)})
    # A flagged run is left out only where its level keeps three runs or more (fewer cannot be told apart
    # from a noisy level); it is reported either way.
    per_level = {lv: sum(o.level == lv for o in flagged) for lv in labels}
    size = {labels[0]: x_all.size, labels[1]: y_all.size}
    drop = {(o.level, o.run) for o in flagged if size[o.level] - per_level[o.level] >= 3}
    x = np.array([v for v, r in zip(x_all, ids[labels[0]]) if (labels[0], r) not in drop])
    y = np.array([v for v, r in zip(y_all, ids[labels[1]]) if (labels[1], r) not in drop])
    sig, df = pooled_sigma(noise_groups if noise_groups is not None else [x, y])
    need = replicates_needed(sig if df > 0 else None, effect_pct=effect_pct, alpha=alpha,
                             basis=f"pooled run-to-run noise, {df:g} degrees of freedom" if df > 0 else "")
    note = (f"{len(flagged)} outlying run(s) flagged, {len(drop)} left out" if flagged else "")
    if x.size < 2 or y.size < 2:
        point = 100 * math.expm1(x.mean() - y.mean()) if x.size and y.size else None
        est = Estimate(point, None, None, level, "two-stage: geometric mean of run summaries", None,
                       int(x.size + y.size), "pct",
                       f"{min(x.size, y.size)} run(s) on a side: run-to-run noise unmeasured, no interval" +
                       (f"; {note}" if note else ""))
        return RunComparison(stat, est, int(x.size), int(y.size), TOO_FEW, need, tuple(flagged))
    diff, lo, hi, p, wdf = welch(x, y, level)
    est = Estimate(100 * math.expm1(diff), 100 * math.expm1(lo), 100 * math.expm1(hi), level,
                   f"two-stage: Welch t on log run {stat}s (df {wdf:.1f})", p, int(x.size + y.size), "pct", note)
    verdict = "no difference shown" if p >= alpha else ("slower" if diff > 0 else "faster")
    return RunComparison(stat, est, int(x.size), int(y.size), verdict, need, tuple(flagged))


def run_level_columns(runs_x: dict[str, np.ndarray], runs_y: dict[str, np.ndarray], stat: str, *, alpha: float,
                      family: int = 1) -> dict:
    """Columns a comparison table gains from :func:`compare_runs`: per-run ``stat`` of each side, Bonferroni over
    ``family`` comparisons (so the simultaneous interval and the verdict agree).

    ``runs_x`` / ``runs_y`` map run id -> that run's samples (seconds).
    """
    x = np.array([run_statistic(v, stat) for v in runs_x.values()])
    y = np.array([run_statistic(v, stat) for v in runs_y.values()])
    a = alpha / max(family, 1)
    c = compare_runs(x, y, stat=stat, alpha=a, level=1 - a, sample_ids=list(runs_x), baseline_ids=list(runs_y))
    e = c.change
    return {"runs": c.runs, "runs_baseline": c.runs_baseline, "run_change_percent": e.value,
            "run_change_low": e.low, "run_change_high": e.high, "run_p_value": e.p_value,
            "run_p_bonferroni": None if e.p_value is None else min(1.0, e.p_value * max(family, 1)),
            "run_verdict": c.verdict, "runs_needed_for_10pct": c.replicates_needed.runs_per_level,
            "outlying_runs": ", ".join(o.run for o in c.outlying_runs)}


def runs_of(frame, value_col: str, run_col: str = "run_id") -> dict[str, np.ndarray]:
    """Run id -> samples of ``value_col`` (a frame without ``run_col`` is one run)."""
    if run_col not in frame.columns:
        return {"all": frame[value_col].to_numpy()}
    return {str(k[0] if isinstance(k, tuple) else k): g[value_col].to_numpy()
            for k, g in frame.partition_by(run_col, as_dict=True, maintain_order=True).items()}
