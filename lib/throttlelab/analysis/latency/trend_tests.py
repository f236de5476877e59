"""A trend across ordered groups (e.g. latency samples by increasing worker count).

:func:`jonckheere_terpstra` tests whether values rise (or fall) along the
order of the groups, with a concordance effect size; :func:`slope_per_worker`
gives the least-squares slope of a statistic (mean, a percentile) against the
group's numeric level with a bootstrap interval.  Both treat the values as
independent: where they are not (requests of one run), the p-values are
optimistic -- see :mod:`throttlelab.analysis.latency.neighbour_workers`.  :func:`worker_trend`
combines them over the neighbour worker counts of a requests table, with a
run-level Spearman test where replicate runs exist.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats as st

from throttlelab.analysis.latency.latency import bootstrap_distribution, statistic
from throttlelab.results import ConfidenceInterval, Estimate


@dataclass(frozen=True)
class JonckheereTerpstra:
    """Jonckheere-Terpstra test of an ordered trend across groups.

    Attributes
    ----------
    statistic
        J: over every ordered pair of groups (i < j), the number of pairs with
        the group-i value below the group-j value (ties count one half).
    expected, z
        E[J] under no trend and the normal-approximation z score (variance
        without a tie correction: latencies are continuous).
    p_value
        For ``alternative``: ``increasing``, ``decreasing`` or ``two-sided``.
    tau
        Effect size ``(2 J - M) / M`` with ``M`` the number of ordered pairs:
        +1 when every later group is above every earlier one, 0 for no trend.
    tau_low, tau_high
        Bootstrap interval of ``tau`` (resampling within groups); NaN if not computed.
    """

    statistic: float
    expected: float
    z: float
    p_value: float
    tau: float
    tau_low: float
    tau_high: float
    n: int
    alternative: str

    def confidence_interval(self) -> ConfidenceInterval:
        """Interval of ``tau``."""
        return ConfidenceInterval(self.tau_low, self.tau_high)


def _jt_statistic(groups: list[np.ndarray]) -> float:
    total = 0.0
    for j in range(1, len(groups)):
        later = np.sort(groups[j])
        for i in range(j):
            a = groups[i]
            right = np.searchsorted(later, a, side="right")
            left = np.searchsorted(later, a, side="left")
            total += float(np.sum(later.size - right) + 0.5 * np.sum(right - left))
    return total


def jonckheere_terpstra(groups: list[np.ndarray], *, alternative: str = "two-sided", n_boot: int = 0,
                        level: float = 0.95, seed: int = 0) -> JonckheereTerpstra:
    """Jonckheere-Terpstra test that values rise (or fall) along the order of ``groups``.

    Parameters
    ----------
    groups
        Samples in the hypothesised order (e.g. by increasing worker count).
    alternative
        ``two-sided``, ``increasing`` or ``decreasing``.
    n_boot
        Bootstrap resamples for the interval of ``tau`` (0: none).
    """
    if alternative not in ("two-sided", "increasing", "decreasing"):
        raise ValueError(f"alternative must be two-sided, increasing or decreasing, got {alternative!r}")
    groups = [np.asarray(g, float)[np.isfinite(np.asarray(g, float))] for g in groups]
    sizes = np.array([g.size for g in groups], float)
    n = int(sizes.sum())
    pairs = (n ** 2 - float(np.sum(sizes ** 2))) / 2
    nan = float("nan")
    if len(groups) < 2 or pairs == 0:
        return JonckheereTerpstra(nan, nan, nan, nan, nan, nan, nan, n, alternative)
    j = _jt_statistic(groups)
    var = (n ** 2 * (2 * n + 3) - float(np.sum(sizes ** 2 * (2 * sizes + 3)))) / 72
    z = (j - pairs / 2) / np.sqrt(var) if var > 0 else nan
    p = {"increasing": st.norm.sf(z), "decreasing": st.norm.cdf(z), "two-sided": 2 * st.norm.sf(abs(z))}[alternative]
    tau = (2 * j - pairs) / pairs
    low = high = nan
    if n_boot > 0 and all(g.size >= 2 for g in groups):
        rng = np.random.default_rng(seed)
        taus = [(2 * _jt_statistic([g[rng.integers(0, g.size, g.size)] for g in groups]) - pairs) / pairs
                for _ in range(n_boot)]
        a = (1 - level) / 2
        low, high = (float(v) for v in np.quantile(taus, [a, 1 - a]))
    return JonckheereTerpstra(float(j), pairs / 2, float(z), float(min(1.0, p)), float(tau), low, high, n, alternative)


def two_stage_bootstrap(runs: list[np.ndarray], stats: tuple[str, ...], n_boot: int,
                        rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Bootstrap replicates of ``stats`` of one group made of runs: resample runs, then requests within each drawn run."""
    out = {s: np.empty(n_boot) for s in stats}
    for b in range(n_boot):
        x = np.concatenate([runs[i][rng.integers(0, runs[i].size, runs[i].size)]
                            for i in rng.integers(0, len(runs), len(runs))])
        for s in stats:
            out[s][b] = statistic(x, s)
    return out


def slope_per_worker(groups: list[np.ndarray], workers, stat: str = "p95", *, n_boot: int = 500, level: float = 0.95,
                     seed: int = 0, runs: list[list[np.ndarray]] | None = None) -> Estimate:
    """Least-squares slope of ``stat`` (per group) against the worker count, in seconds per worker.

    The interval resamples requests within each group (percentile bootstrap),
    or, given ``runs`` (each group's requests split by run, two or more runs
    each), runs and then requests within them; ``n`` is the number of requests.
    """
    w = np.asarray(workers, float)
    groups = [np.asarray(g, float)[np.isfinite(np.asarray(g, float))] for g in groups]
    n = int(sum(g.size for g in groups))
    nan = float("nan")
    if len(groups) < 2 or any(g.size == 0 for g in groups) or np.ptp(w) == 0:
        return Estimate(nan, nan, nan, level, "too few groups: no slope", n_samples=n)
    y = np.array([statistic(g, stat) for g in groups], float)
    wc = w - w.mean()
    value = float(np.sum(wc * (y - y.mean())) / np.sum(wc ** 2))
    if any(g.size < 2 for g in groups):
        return Estimate(value, nan, nan, level, "least-squares slope; a group with one sample: no interval",
                        n_samples=n)
    rng = np.random.default_rng(seed)
    if runs is not None and all(len(r) >= 2 for r in runs):
        boots = np.column_stack([two_stage_bootstrap(r, (stat,), n_boot, rng)[stat] for r in runs])
    else:
        boots = np.column_stack([bootstrap_distribution(g, (stat,), n_boot, rng)[stat] for g in groups])
    slopes = (boots - boots.mean(axis=1, keepdims=True)) @ wc / np.sum(wc ** 2)
    a = (1 - level) / 2
    method = "least-squares slope, two-stage bootstrap (runs, then requests)" if (
        runs is not None and all(len(r) >= 2 for r in runs)) else "least-squares slope, percentile bootstrap of requests"
    return Estimate(value, float(np.quantile(slopes, a)), float(np.quantile(slopes, 1 - a)), level, method,
                    n_samples=n)


SLOPE_STATS = ("mean", "p90", "p95")


def _groups(ok: pl.DataFrame, workers: list[int]) -> list[np.ndarray]:
    return [ok.filter(pl.col("neighbour_workers") == w)["latency_seconds"].to_numpy() for w in workers]


def _run_level(ok: pl.DataFrame, stat: str) -> dict:
    """Spearman's rho of a per-run statistic against the worker count (replicate runs as units)."""
    per_run = (ok.group_by("run_id", "neighbour_workers", maintain_order=True).agg(pl.col("latency_seconds"))
               .with_columns(pl.col("latency_seconds").map_elements(lambda s: float(statistic(s.to_numpy(), stat)),
                                                                    return_dtype=pl.Float64).alias("value")))
    runs = per_run.group_by("neighbour_workers").len()
    min_runs = int(runs["len"].min()) if runs.height else 0
    out = {"runs_per_workers_min": min_runs, "run_stat": stat, "run_spearman_rho": None, "run_spearman_p": None}
    if min_runs >= 2 and runs.height >= 3:
        r = st.spearmanr(per_run["neighbour_workers"].to_numpy(), per_run["value"].to_numpy())
        out |= {"run_spearman_rho": float(r.statistic), "run_spearman_p": float(r.pvalue)}
    return out


def worker_trend(ok: pl.DataFrame, workers: list[int], *, alpha: float = 0.05, n_boot: int = 500, level: float = 0.95,
                 seed: int = 0) -> dict:
    """Trend of answered requests' latency across neighbour worker counts (one row of the ``trend`` table).

    Jonckheere-Terpstra (tau with interval), Spearman on requests, slope of
    mean/p90/p95 per worker, and Spearman of per-run p95 when every worker
    count has two or more runs (``run_id``); ``verdict`` rests on the run-level
    test when there is one, else says "request level only".
    """
    groups = _groups(ok, workers)
    row: dict = {"workers": ",".join(map(str, workers)), "n": int(sum(g.size for g in groups))}
    jt = jonckheere_terpstra(groups, n_boot=n_boot, level=level, seed=seed)
    row |= {"jt_statistic": jt.statistic, "jt_z": jt.z, "jt_p": jt.p_value, "jt_tau": jt.tau,
            "jt_tau_low": jt.tau_low, "jt_tau_high": jt.tau_high}
    w = ok["neighbour_workers"].to_numpy()
    rho = st.spearmanr(w, ok["latency_seconds"].to_numpy()) if np.ptp(w) > 0 else None
    row |= {"spearman_rho": float(rho.statistic) if rho else None, "spearman_p": float(rho.pvalue) if rho else None}
    runs = [[r["latency_seconds"].to_numpy() for r in ok.filter(pl.col("neighbour_workers") == w)
             .partition_by("run_id", maintain_order=True)] for w in workers]
    replicated = all(len(r) >= 2 for r in runs)
    row["slope_interval"] = "runs and requests resampled" if replicated else "requests resampled"
    for s in SLOPE_STATS:
        e = slope_per_worker(groups, workers, s, n_boot=n_boot, level=level, seed=seed,
                             runs=runs if replicated else None)
        row |= {f"slope_{s}_ms_per_worker": e.value * 1000, f"slope_{s}_low": e.low * 1000,
                f"slope_{s}_high": e.high * 1000}
    row |= _run_level(ok, "p95")
    if len(workers) < 3 or min(g.size for g in groups) < 5:
        verdict = "not enough data to decide"
    elif row["run_spearman_p"] is not None:
        verdict = ("rising with workers" if row["run_spearman_p"] < alpha and row["run_spearman_rho"] > 0 else
                   "falling with workers" if row["run_spearman_p"] < alpha else "no trend shown (run level)")
    elif jt.p_value < alpha:
        verdict = ("rising with workers" if jt.tau > 0 else "falling with workers") + " (request level only)"
    else:
        verdict = "no trend shown"
    return row | {"verdict": verdict}
