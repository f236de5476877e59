"""Tests of throttlelab.report.charts.monitor_charts: the four monitor panels and the skip chart."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone

import polars as pl
import vl_convert as vlc

from throttlelab import tables
from throttlelab.ingest.intervals import intervals
from throttlelab.report.charts.monitor_charts import monitor_panels, skip_chart
from throttlelab.report.charts.style import PANEL_WIDTH

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def some_intervals(top=True, step=timedelta(seconds=10)):
    n = 5
    samples = tables.conform(pl.DataFrame({
        "timestamp": [T0 + step * i for i in range(n)],
        "source": ["logs/ffmpeg.log"] * n, "line": list(range(1, n + 1)), "pod": ["ff-1"] * n, "segment": [0] * n,
        "usage_seconds": [0.0, 8.0, 18.0, 28.0, 38.0], "nr_periods": [0, 100, 200, 300, 400],
        "nr_throttled": [0, 30, 90, 95, 95], "throttled_seconds": [0.0, 1.0, 5.0, 6.0, 6.0],
        "limit_cores": [1.0] * n, "top_cpu_cores": [0.8] * n if top else [None] * n,
        "top_memory_bytes": [100 * 2**20] * n,
    }), "samples")
    return intervals(samples)


def test_four_panels_with_series_labels_request_and_kubectl_top():
    chart = monitor_panels(some_intervals(), request_cores=0.5, title="ffmpeg")
    ratio, usage, throttled, memory = chart.vconcat
    assert ratio.data["series"].unique().to_list() == ["ffmpeg.log · ff-1"]
    assert len(usage.layer) == 4  # usage, limit, kubectl top dots, request rule
    assert memory.data["memory_mib"].unique().to_list() == [100.0]
    spec = json.dumps(chart.to_dict())
    assert "request 0.5 cores" in spec
    svg = vlc.vegalite_to_svg(chart.to_json())
    assert "<svg" in svg and "CPU throttling ratio" in svg


def test_no_top_values_and_no_request_leave_two_usage_layers():
    chart = monitor_panels(some_intervals(top=False))
    assert len(chart.vconcat[1].layer) == 2


def test_skip_chart_says_nothing_was_skipped():
    empty = skip_chart(pl.DataFrame(schema={"reason": pl.String, "lines": pl.Int64, "first_example": pl.String}))
    assert empty.data["reason"].to_list() == ["nothing skipped"]
    chart = skip_chart(pl.DataFrame({"reason": ["bad number"], "lines": [3], "first_example": ["'x'"]}))
    assert "<svg" in vlc.vegalite_to_svg(chart.to_json())


def test_a_short_log_reads_in_seconds_since_its_first_sample():
    """The 45-second sample log was labelled ':25', ':30', '01:22' (seconds as clock times)."""
    chart = monitor_panels(some_intervals())
    spec = chart.to_dict()
    x = spec["vconcat"][0]["encoding"]["x"]
    assert x["field"] == "elapsed" and x["type"] == "quantitative"
    assert x["title"] == "time since 2026-01-01 00:00:00 UTC (s)"
    assert chart.vconcat[0].data["elapsed"].to_list() == [10.0, 20.0, 30.0, 40.0]
    assert x["scale"]["domainMin"] == 0
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", vlc.vegalite_to_svg(chart.to_json()))
    assert not [t for t in texts if re.fullmatch(r":\d\d|\d\d:\d\d", t)], "no clock-like labels"
    assert spec["vconcat"][0]["width"] == PANEL_WIDTH


def test_hours_read_in_hours_and_weeks_on_a_dated_utc_clock():
    hours = monitor_panels(some_intervals(step=timedelta(hours=6))).to_dict()["vconcat"][0]["encoding"]["x"]
    assert hours["title"].endswith("UTC (h)")
    weeks = monitor_panels(some_intervals(step=timedelta(days=3))).to_dict()["vconcat"][0]["encoding"]["x"]
    assert weeks["field"] == "end" and weeks["scale"]["type"] == "utc" and weeks["axis"]["format"] == "%b %d %H:%M"
