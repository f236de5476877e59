"""Tests of throttlelab.report.charts.monitor_charts: the four monitor panels and the skip chart."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import polars as pl
import vl_convert as vlc

from throttlelab import tables
from throttlelab.ingest.intervals import intervals
from throttlelab.report.charts.monitor_charts import monitor_panels, skip_chart

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def some_intervals(top=True):
    n = 5
    samples = tables.conform(pl.DataFrame({
        "timestamp": [T0 + timedelta(seconds=10 * i) for i in range(n)],
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
