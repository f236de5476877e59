"""The verdicts' rows of a small, seeded copy of bench/bench_stats.py: its goals, loosely enough to be stable."""

import polars as pl
import pytest

from throttlelab.analysis.batteries import battery_scenarios as sc
from throttlelab.analysis.batteries import verdict_battery as vb


@pytest.fixture(scope="module")
def dead():
    return pl.DataFrame([vb.dead_zone_row(s, 40, 7 + i, n_sim=400) for i, s in enumerate(sc.DEAD_ZONE_SCENARIOS)])


def test_dead_zone_nulls_keep_their_level(dead):
    nulls = dead.filter(pl.col("false_alarm").is_not_null())
    print(nulls)
    assert nulls.height == sum(not s.effect_pct for s in sc.DEAD_ZONE_SCENARIOS) >= 10
    assert (nulls["false_alarm"] <= 0.15).all()  # 5% goal + 3 MC s.e. at 40 reps
    assert nulls["settings"].str.contains("quota curve").all() and nulls["settings"].str.contains("noise").all()
    one_run = nulls.filter(pl.col("scenario").str.contains("one run per limit")).row(0, named=True)
    assert one_run["too_few_to_decide"] == 1.0 and one_run["false_alarm"] == 0


def test_dead_zone_found_with_and_without_an_outlying_run(dead):
    alt = dead.filter(pl.col("power").is_not_null(), pl.col("power_goal").is_not_null())
    assert alt.height == 2 and (alt["power"] >= alt["power_goal"] - 0.1).all()
    assert (alt["coverage"] >= 0.8).all()


def test_run_level_comparison_keeps_level_where_requests_do_not():
    rows = pl.DataFrame([vb.compare_row(s, 200, 3 + i) for i, s in enumerate(sc.COMPARE_SCENARIOS)])
    nulls = rows.filter(pl.col("false_alarm").is_not_null())
    assert (nulls["false_alarm"] <= 0.05 + 3 * 0.016).all()
    assert (rows.filter(pl.col("coverage").is_not_null())["coverage"] >= 0.85).all()
    # the request-level Mann-Whitney it replaces rejects a true null far more often than 5%
    assert nulls["request_level_mann_whitney_rejects"].max() > 0.25
    assert (rows.filter(pl.col("power").is_not_null())["power"] >= 0.6).all()


def test_best_thread_count_headline_pays_for_the_choice():
    row = vb.thread_row(150, 11)
    assert row["false_alarm"] <= 0.05 + 3 * 0.018
