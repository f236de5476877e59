"""Tests of throttlelab.report.charts.dead_zone_charts: the dead-zone chart of the published sweep."""

from __future__ import annotations

import pytest

from throttlelab.analysis.limits.dead_zones import find_dead_zones
from throttlelab.report.charts.dead_zone_charts import VERDICT_COLORS, dead_zone_chart

from .chart_checks import check_page_wide, check_title_tooltips_and_renders


@pytest.fixture(scope="module")
def published_dead_zones(published_runs):
    [dz] = find_dead_zones(published_runs, n_sim=1000)
    return dz


def test_dead_zone_chart(published_dead_zones):
    check_title_tooltips_and_renders(dead_zone_chart(published_dead_zones, title="dead zones"))


def test_every_interval_is_drawn_whole_and_the_axis_stops_at_minus_100(published_dead_zones):
    chart = dead_zone_chart(published_dead_zones, title="dead zones")
    spec = chart.to_dict()
    lo, hi = spec["layer"][0]["encoding"]["y"]["scale"]["domain"]
    t = published_dead_zones.limits_table()
    low, high = t["slowdown_ci_low_pct"].drop_nulls(), t["slowdown_ci_high_pct"].drop_nulls()
    margin = 0.03 * (hi - lo)
    assert lo >= -100.0, "a slowdown below -100% is faster than instant"
    assert high.max() < hi - margin, "no interval end touches the top of the frame"
    assert low.min() > lo + margin or lo == -100.0, "nor the bottom, unless the bottom is the -100% floor"
    assert spec["layer"][0]["mark"]["type"] == "errorbar" and spec["layer"][0]["mark"]["ticks"], "ends are capped"
    check_page_wide(chart)


def test_one_legend_shows_each_verdicts_colour_and_shape(published_dead_zones):
    spec = dead_zone_chart(published_dead_zones, title="dead zones").to_dict()
    enc = spec["layer"][1]["encoding"]
    assert enc["shape"]["field"] == enc["color"]["field"] == "verdict"
    assert enc["shape"]["title"] == enc["color"]["title"] and "legend" not in enc["shape"], "merged, not hidden"
    assert enc["shape"]["scale"]["domain"] == enc["color"]["scale"]["domain"] == list(VERDICT_COLORS)
