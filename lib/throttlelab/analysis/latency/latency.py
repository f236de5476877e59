"""Response-time statistics of a requests table, with bootstrap intervals.

Per group of requests (e.g. per contention level and load): counts by status,
the failure rate, and mean, p50, p95, p99 and max of the latency of answered
requests (``status == 'ok'``): the mean with a percentile-bootstrap interval
(resampling requests), the quantiles with distribution-free order-statistic
intervals (:func:`~throttlelab.analysis.stats.quantile_intervals.quantile_interval`; NaN, "not
enough samples", where n cannot support one: p99 needs 368 samples at 95%, p95 72).
These intervals describe the requests of the group; requests of one run are
not independent, and the run-level comparisons below decide.  ``max`` has no interval: the bootstrap cannot put one
on a sample maximum (every resample's max is at most the observed one).

Failed requests (error, timeout, refused, dropped) never vanish: they are
counted per group and their share is reported next to the latency statistics,
which describe the requests that were answered.

Inflation against a baseline level (:func:`inflation_vs_baseline`): the ratio
of a statistic at each level to the same statistic at the baseline, with a
bootstrap interval (both groups resampled independently) and a two-sided
Mann-Whitney U test of the two latency samples (rank-biserial effect size).
Requests of one run share its conditions, so those request-level numbers are
descriptive; the verdict is the run-level one (``run_*`` columns,
:func:`~throttlelab.analysis.stats.run_level.run_level_columns`: each run summarised,
Welch t on log run summaries, Bonferroni over the levels of a group; "too few
to decide" with one run per level).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import polars as pl
from scipy import stats as st

from throttlelab.analysis.stats import quantile_interval
from throttlelab.analysis.stats import run_level_columns, runs_of
from throttlelab.results import ConfidenceInterval, Estimate

STATS = ("mean", "p50", "p95", "p99")
_Q = {"p50": 0.50, "p95": 0.95, "p99": 0.99, "p90": 0.90}
#: Resample matrices are built in blocks of at most this many values (memory bound).
_BLOCK_VALUES = 4_000_000


def statistic(x: np.ndarray, name: str, axis: int | None = None) -> np.ndarray | float:
    """``mean``, ``max``, ``p50``, ``p90``, ``p95`` or ``p99`` of ``x`` (along ``axis``)."""
    if name == "mean":
        return np.mean(x, axis=axis)
    if name == "max":
        return np.max(x, axis=axis)
    if name in _Q:
        return np.quantile(x, _Q[name], axis=axis)
    raise ValueError(f"unknown statistic {name!r}; use mean, max or one of {', '.join(_Q)}")


def bootstrap_distribution(x: np.ndarray, names: tuple[str, ...], n_boot: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Bootstrap replicates of each statistic in ``names`` (resampling ``x`` with replacement)."""
    x = np.asarray(x, dtype=float)
    out: dict[str, list[np.ndarray]] = {n: [] for n in names}
    block = max(1, _BLOCK_VALUES // max(1, x.size))
    for start in range(0, n_boot, block):
        b = min(block, n_boot - start)
        res = x[rng.integers(0, x.size, size=(b, x.size))]
        for n in names:
            out[n].append(np.atleast_1d(statistic(res, n, axis=1)))
    return {n: np.concatenate(v) for n, v in out.items()}


def bootstrap_estimates(x: np.ndarray, names: tuple[str, ...] = STATS, *, n_boot: int = 1000, level: float = 0.95,
                        seed: int = 0) -> dict[str, Estimate]:
    """Each statistic of ``x`` with a percentile-bootstrap interval."""
    x = np.asarray(x, dtype=float)
    x = x[np.isfinite(x)]
    nan = float("nan")
    if x.size == 0:
        return {n: Estimate(nan, nan, nan, level, "no samples", n_samples=0) for n in names}
    if x.size < 2:
        return {n: Estimate(float(statistic(x, n)), nan, nan, level, "one sample: no interval", n_samples=int(x.size))
                for n in names}
    boot_names = tuple(n for n in names if n not in _Q)
    boots = bootstrap_distribution(x, boot_names, n_boot, np.random.default_rng(seed)) if boot_names else {}
    a = (1 - level) / 2
    out = {}
    for n in names:
        if n in _Q:  # distribution-free order-statistic interval; NaN where n cannot support one
            q = quantile_interval(x, n, level)
            out[n] = replace(q, low=nan if q.low is None else q.low, high=nan if q.high is None else q.high)
        else:
            out[n] = Estimate(float(statistic(x, n)), float(np.quantile(boots[n], a)),
                              float(np.quantile(boots[n], 1 - a)), level, "percentile bootstrap of samples",
                              n_samples=int(x.size))
    return out


def summarize_latency(requests: pl.DataFrame, by: list[str] | tuple[str, ...] = ("config", "load", "contention"), *,
                      stats: tuple[str, ...] = STATS, n_boot: int = 1000, level: float = 0.95,
                      seed: int = 0) -> pl.DataFrame:
    """Per group: counts, failure rate, and latency statistics with bootstrap intervals.

    Parameters
    ----------
    requests
        A canonical requests table (extra columns allowed).
    by
        Grouping columns (those absent from ``requests`` are ignored).
    stats
        Statistics with intervals (``mean``, ``p50``, ``p90``, ``p95``, ``p99``).

    Returns
    -------
    polars.DataFrame
        ``by`` columns, ``n`` (all requests), ``n_ok``, ``n_failed``, ``failed_rate``,
        ``failed_by_status`` (e.g. ``"timeout=2, refused=1"``), then for each of
        ``stats``: ``<stat>_seconds``, ``<stat>_low``, ``<stat>_high``; and
        ``max_seconds``.  Sorted by ``by``.
    """
    by = [c for c in by if c in requests.columns]
    groups = requests.partition_by(by, as_dict=True, maintain_order=True) if by else {(): requests}
    rows = []
    for key, g in groups.items():
        key = key if isinstance(key, tuple) else (key,)
        ok = g.filter(pl.col("status") == "ok")["latency_seconds"].drop_nulls().to_numpy()
        failed = g.filter(pl.col("status") != "ok")
        counts = failed.group_by("status").len().sort("status")
        row = dict(zip(by, key)) | {
            "n": g.height, "n_ok": int(ok.size), "n_failed": failed.height,
            "runs": g["run_id"].n_unique() if "run_id" in g.columns else None,
            "failed_rate": failed.height / g.height if g.height else float("nan"),
            "failed_by_status": ", ".join(f"{s}={n}" for s, n in counts.iter_rows()),
        }
        for name, est in bootstrap_estimates(ok, stats, n_boot=n_boot, level=level, seed=seed).items():
            row |= {f"{name}_seconds": est.value, f"{name}_low": est.low, f"{name}_high": est.high}
        row["max_seconds"] = float(ok.max()) if ok.size else float("nan")
        rows.append(row)
    out = pl.DataFrame(rows, infer_schema_length=None)
    return out.sort(by) if by and out.height else out


@dataclass(frozen=True)
class Inflation:
    """A statistic at one level relative to the baseline level.

    Attributes
    ----------
    ratio
        statistic(level) / statistic(baseline), with its bootstrap interval.
    percent
        ``(ratio - 1) * 100``: the paper's "% increase".
    u_statistic, p_value, rank_biserial
        Two-sided Mann-Whitney U test of level vs baseline latencies; rank-biserial
        r in [-1, 1], positive when the level is slower.
    """

    stat: str
    value: float
    baseline: float
    ratio: Estimate
    percent: float
    u_statistic: float
    p_value: float
    rank_biserial: float

    def confidence_interval(self) -> ConfidenceInterval:
        """Interval of the percent increase."""
        return ConfidenceInterval((self.ratio.low - 1) * 100, (self.ratio.high - 1) * 100)


def inflation(sample: np.ndarray, baseline: np.ndarray, stat: str = "mean", *, n_boot: int = 1000, level: float = 0.95,
              seed: int = 0) -> Inflation:
    """Inflation of ``stat`` of ``sample`` against ``baseline`` (see :class:`Inflation`)."""
    x = np.asarray(sample, float)
    y = np.asarray(baseline, float)
    x, y = x[np.isfinite(x)], y[np.isfinite(y)]
    nan = float("nan")
    if x.size < 2 or y.size < 2:
        v = float(statistic(x, stat)) if x.size else nan
        b = float(statistic(y, stat)) if y.size else nan
        return Inflation(stat, v, b, Estimate(v / b if b else nan, nan, nan, level, "too few samples: no interval",
                                                  unit="ratio", n_samples=int(x.size)),
                         (v / b - 1) * 100 if b else nan, nan, nan, nan)
    rng = np.random.default_rng(seed)
    bx = bootstrap_distribution(x, (stat,), n_boot, rng)[stat]
    by_ = bootstrap_distribution(y, (stat,), n_boot, rng)[stat]
    ratios = bx / by_
    a = (1 - level) / 2
    v, b = float(statistic(x, stat)), float(statistic(y, stat))
    u = st.mannwhitneyu(x, y, alternative="two-sided")
    r = 2 * u.statistic / (x.size * y.size) - 1
    return Inflation(stat, v, b, Estimate(v / b, float(np.quantile(ratios, a)), float(np.quantile(ratios, 1 - a)), level,
                                          "percentile bootstrap of both samples", unit="ratio",
                                          n_samples=int(x.size)), (v / b - 1) * 100, float(u.statistic), float(u.pvalue), float(r))


def inflation_vs_baseline(requests: pl.DataFrame, *, level_col: str = "contention", baseline: float = 0.0,
                          by: list[str] | tuple[str, ...] = ("config", "load"), stat: str = "mean", n_boot: int = 1000,
                          level: float = 0.95, seed: int = 0) -> pl.DataFrame:
    """Per group in ``by`` and level: inflation of ``stat`` against the baseline level.

    Only answered requests (status ``ok``) enter the statistic; groups without a
    baseline level get no rows.  Columns: ``by``, ``level_col``, ``stat``, ``value_seconds``,
    ``baseline_seconds``, ``ratio``, ``ratio_low``, ``ratio_high``, ``percent``,
    ``percent_low``, ``percent_high``, ``p_value``, ``rank_biserial``, ``n``, ``n_baseline``.
    """
    by = [c for c in by if c in requests.columns]
    ok = requests.filter((pl.col("status") == "ok") & pl.col("latency_seconds").is_not_null())
    rows = []
    groups = ok.partition_by(by, as_dict=True, maintain_order=True) if by else {(): ok}
    for key, g in groups.items():
        key = key if isinstance(key, tuple) else (key,)
        base = g.filter(pl.col(level_col) == baseline)["latency_seconds"].to_numpy()
        if base.size == 0:
            continue
        levels = sorted(g[level_col].unique().drop_nulls().to_list())
        base_runs = runs_of(g.filter(pl.col(level_col) == baseline), "latency_seconds")
        for lv in levels:
            sub = g.filter(pl.col(level_col) == lv)
            x = sub["latency_seconds"].to_numpy()
            inf = inflation(x, base, stat, n_boot=n_boot, level=level, seed=seed)
            ci = inf.confidence_interval()
            run_cols = run_level_columns(runs_of(sub, "latency_seconds"), base_runs, stat, alpha=1 - level,
                                         family=max(len(levels) - 1, 1)) if lv != baseline else {}
            rows.append(dict(zip(by, key)) | {
                level_col: lv, "stat": stat, "value_seconds": inf.value, "baseline_seconds": inf.baseline,
                "ratio": inf.ratio.value, "ratio_low": inf.ratio.low, "ratio_high": inf.ratio.high,
                "percent": inf.percent, "percent_low": ci.low, "percent_high": ci.high,
                "p_value": inf.p_value, "rank_biserial": inf.rank_biserial, "n": int(x.size), "n_baseline": int(base.size)}
                | run_cols)
    return pl.DataFrame(rows, infer_schema_length=None) if rows else pl.DataFrame()
