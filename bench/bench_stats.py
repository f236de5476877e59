#!/usr/bin/env python3
"""Simulation battery of the statistics (issue 12): false-alarm rate, power and interval coverage on messy data.

Scenarios per analysis (dead zones; the two-stage run-level comparison behind the latency, neighbour and
concurrency verdicts; order-statistic quantile intervals): equal noise, noise growing with the limit, one run
per level, an outlying run, heavy-tailed run effects, small n, and alternatives (+30%).  Goals: false alarms
<= 5% within Monte Carlo error in every null scenario; 95% intervals cover >= 90%; a +30% dead zone with 3 runs
per limit and 5% noise found >= 75% of the time, also with one outlying run.  The generator settings are the
scenario names and the parameters printed below (``throttlelab.analysis.stats_battery``).

Run: ``python bench/bench_stats.py [reps]`` (default 400 simulated studies per dead-zone scenario, 2000 per
comparison scenario; a few minutes on 2 cores).
"""

from __future__ import annotations

import sys
import time

import polars as pl

from throttlelab.analysis.stats_battery import battery


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
    return 0


if __name__ == "__main__":
    sys.exit(main())
