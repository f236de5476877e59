#!/usr/bin/env python3
"""Simulation battery of the statistics (issue 12): false-alarm rate, power and interval coverage on messy data.

Scenarios per analysis (dead zones; the two-stage run-level comparison behind the latency, neighbour and
concurrency verdicts; order-statistic quantile intervals): equal noise, noise growing with the limit, one run
per level, an outlying run, heavy-tailed run effects, small n, and alternatives (+30%).  Goals: false alarms
<= 5% within Monte Carlo error in every null scenario; 95% intervals cover >= 90%; a +30% dead zone with 3 runs
per limit and 5% noise found >= 75% of the time, also with one outlying run.  The generator settings are the
scenario names and the parameters printed below (``throttlelab.analysis.batteries.stats_battery``).

Thread counts (``throttlelab.analysis.batteries.thread_count_battery``): a second table per scenario (null with noise
growing 3% -> 25% over 8 limits, 2-3 runs per cell, outlying runs, t3 tails, sparse replicates; +20% alternatives)
with the false-alarm rate of "thread count X is slower than the best" and of auto vs best, per limit, for the old
method (one pooled noise, unadjusted t), the pooled noise with the current procedure, and the noise per limit
(current), plus the coverage of the auto-vs-best interval and the power for a real 20% effect.

Run: ``python bench/bench_stats.py [reps]`` (default 400 simulated studies per dead-zone scenario, 2000 per
comparison scenario, reps/2 per thread-count scenario; about ten minutes on 2 cores).
"""

from __future__ import annotations

import sys
import time

import polars as pl

from throttlelab.analysis.batteries import battery
from throttlelab.analysis.batteries import thread_count_rows


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    reps = int(argv[0]) if argv else 400
    t0 = time.perf_counter()
    print(f"settings: reps={reps} (dead zones, quantiles), {5 * reps} (comparisons); 8 limits 1..8 cores, quota curve "
          f"10/min(c,4)+2; comparisons: 100 requests per run, lognormal sd 0.5 within runs; n_sim=1000; seed=0")
    table = battery(reps=reps, seed=0, n_sim=1000)
    old = pl.coalesce([pl.col(c) for c in ("request_level_mann_whitney_rejects", "bootstrap_percentile_coverage",
                                           "naive_best_of_many_rejects") if c in table.columns])
    show = table.select(
        pl.concat_str("analysis", pl.lit(": "), "scenario").alias("scenario"),
        pl.when(pl.col("false_alarm").is_not_null()).then(pl.lit("false alarm")).when(pl.col("power").is_not_null())
        .then(pl.lit("power")).otherwise(pl.lit("")).alias("rate_of"),
        pl.coalesce("false_alarm", "power").round(3).alias("rate"), pl.col("mc_se").round(3),
        pl.col("coverage").round(3), pl.col("coverage_se").round(3), pl.col("too_few_to_decide").round(3).alias("too_few"),
        old.round(3).alias("old_method"))
    with pl.Config(tbl_rows=60, tbl_cols=10, tbl_width_chars=200, fmt_str_lengths=70, tbl_hide_dataframe_shape=True,
                   tbl_hide_column_data_types=True):
        print(show)
    print("old_method: what the earlier method gave on the same data (request-level Mann-Whitney rejection rate; "
          "residual-bootstrap percentile coverage; naive best-of-many t-test rejection rate)")
    nulls = table.filter(pl.col("false_alarm").is_not_null())
    bad = nulls.filter(pl.col("false_alarm") > 0.05 + 2 * pl.col("mc_se"))
    cov = table.filter(pl.col("coverage").is_not_null() & (pl.col("coverage") < 0.90))
    print(f"null scenarios over 5% + 2 MC s.e.: {bad.height}; intervals covering < 90%: {cov.height}; "
          f"{time.perf_counter() - t0:.0f} s")
    thread_table(max(reps // 2, 20))
    return 0


def thread_table(reps: int) -> pl.DataFrame:
    """The thread-count scenarios: old / pooled / per-limit noise side by side, with the generator's settings."""
    t0 = time.perf_counter()
    rows = pl.DataFrame(thread_count_rows(reps, 1000, n_sim=2000))
    print(f"\nthread counts: {reps} simulated sweeps per scenario; rates per limit (mean over 8 limits; lo/hi = at the "
          "quietest / noisiest limit); 'worse' = some count called slower than the best (null) or the 16-thread "
          "count called slower (alt: power); 'auto' = auto vs best p < 0.05; cover = 95% auto-vs-best interval covers")
    for r in rows.iter_rows(named=True):
        kind = "power" if r["scenario"].startswith("alt") else "false_alarm"
        print(f"- {r['scenario']}  [settings: {r['settings']}; outlying runs flagged/study "
              f"{r['outliers_flagged_per_study']:.2f}]")
        for tag, name in (("old", "old: pooled, unadjusted t"), ("pooled", "pooled noise, current procedure"),
                          ("new", "noise per limit (current)")):
            print(f"    {name:34s} {kind} worse {r[f'{kind}_worse_{tag}']:.3f} (lo {r[f'{kind}_worse_{tag}_lowest_limit']:.3f}"
                  f", hi {r[f'{kind}_worse_{tag}_highest_limit']:.3f}); auto {r[f'{kind}_auto_{tag}']:.3f} "
                  f"(hi {r[f'{kind}_auto_{tag}_highest_limit']:.3f}); cover {r[f'coverage_auto_{tag}']:.3f} "
                  f"(hi {r[f'coverage_auto_{tag}_highest_limit']:.3f})")
    nulls = rows.filter(pl.col("scenario").str.starts_with("null"))
    se = float(rows["mc_se_per_limit"][0])
    over = nulls.filter((pl.col("false_alarm_worse_new") > 0.05 + 2 * se / 8**0.5)
                        | (pl.col("false_alarm_auto_new") > 0.05 + 2 * se / 8**0.5))
    print(f"thread-count null scenarios over 5% + 2 MC s.e. (per limit, noise per limit): {over.height}; MC s.e. per "
          f"limit {se:.3f}, of the 8-limit mean about {se / 8**0.5:.3f}; {time.perf_counter() - t0:.0f} s")
    return rows


if __name__ == "__main__":
    sys.exit(main())
