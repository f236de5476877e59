"""The battery's interval rows and its one table: a small, seeded copy of bench/bench_stats.py."""

import polars as pl

from throttlelab.analysis.batteries import stats_battery as sb


def test_quantile_intervals_cover_or_say_not_enough():
    rows = pl.DataFrame(sb.quantile_rows(100, 5))
    p99_50 = rows.filter(pl.col("scenario") == "p99, n=50, lognormal").row(0, named=True)
    assert p99_50["too_few_to_decide"] == 1.0
    assert (rows.filter(pl.col("coverage").is_not_null())["coverage"] >= 0.88).all()


def test_the_battery_puts_the_chosen_parts_in_one_table():
    table = sb.battery(reps=20, seed=1, which=("quantile",))
    assert table.height == 9 and set(table["analysis"]) == {"quantile interval"}
    assert table.equals(pl.DataFrame(sb.quantile_rows(20, 201)), null_equal=True)  # seeds: seed + 200
