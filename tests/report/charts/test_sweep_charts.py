"""Tests of throttlelab.report.charts.sweep_charts: wall time by limit, and one run's intervals."""

from __future__ import annotations

import json

import polars as pl
import pytest
import vl_convert as vlc

from throttlelab.report.charts.sweep_charts import limit_wall_chart, run_intervals_chart


def runs():
    return pl.DataFrame({
        "run_id": [f"r{i}" for i in range(7)],
        "cpu_limit_cores": [0.5, 0.5, 2.0, 2.0, None, 0.5, 2.0],
        "threads": ["1", "1", "1", "1", "1", "1", "1"],
        "replicate": [0, 1, 0, 1, 0, 2, 2],
        "wall_seconds": [10.0, 12.0, 3.0, 5.0, 2.5, 99.0, 77.0],
        "cpu_seconds": [5.0] * 7, "nr_periods": [100] * 7, "nr_throttled": [50] * 7,
        "status": ["ok", "ok", "ok", "ok", "ok", "failed", "ok"],
        "warmup": [False, False, False, False, False, False, True],
    })


def test_limit_wall_chart_places_unlimited_right_and_leaves_out_failures_and_warmups():
    chart = limit_wall_chart(runs())
    lines, points = chart.layer
    assert sorted(points.data["run_id"]) == ["r0", "r1", "r2", "r3", "r4"]
    unl = points.data.filter(pl.col("limit") == "unlimited")
    assert unl["cores"].to_list() == [3.0]  # one and a half times the largest limit
    medians = dict(lines.data.select("cores", "median_wall_seconds").iter_rows())
    assert medians == {0.5: 11.0, 2.0: 4.0, 3.0: 2.5}
    svg = vlc.vegalite_to_svg(chart.to_json())
    assert "<svg" in svg and "wall time (s)" in svg


def test_run_intervals_chart_draws_the_limit_only_where_there_is_one():
    iv = pl.DataFrame({"seconds_since_start": [1.0, 2.0, 3.0], "seconds": [1.0] * 3,
                       "effective_cores": [0.4, 0.5, 0.9], "limit_cores": [0.5, 0.5, None],
                       "throttled_ratio": [0.2, 0.9, None], "throttled_seconds_per_second": [0.1, 0.4, 0.0]})
    chart = run_intervals_chart(iv, title="run r1")
    usage, limit = chart.vconcat[0].layer
    assert limit.data["limit_cores"].to_list() == [0.5, 0.5]
    assert usage.data.height == 3
    spec = json.dumps(chart.to_dict())
    assert "run r1: CPU used (line) and limit (dashed)" in spec and '"tooltip"' in spec
    assert "<svg" in vlc.vegalite_to_svg(chart.to_json())


def test_throttled_bars_span_their_interval_from_time_zero():
    iv = pl.DataFrame({"seconds_since_start": [0.3, 0.5, 0.7], "seconds": [0.3, 0.2, 0.2],
                       "effective_cores": [0.4, 0.5, 0.9], "limit_cores": [0.5] * 3,
                       "throttled_ratio": [0.2, 0.9, 0.0], "throttled_seconds_per_second": [0.1, 0.4, 0.0]})
    chart = run_intervals_chart(iv, title="run r1")
    bars = chart.vconcat[1]
    assert bars.data["interval_start"].to_list() == pytest.approx([0.0, 0.3, 0.5])
    enc = chart.to_dict()["vconcat"][1]["encoding"]
    assert enc["x"]["field"] == "interval_start" and enc["x2"]["field"] == "seconds_since_start"
    assert enc["x"]["scale"]["domainMin"] == 0
