"""Tests of throttlelab.ingest.intervals: rates between consecutive samples, never across segments."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import polars as pl
import pytest

from throttlelab import tables
from throttlelab.ingest.intervals import intervals, summary_by_limit, thin_samples

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def samples(rows):
    """rows: (seconds, segment, usage_seconds, nr_periods, nr_throttled, throttled_seconds, limit_cores)."""
    return tables.conform(pl.DataFrame({
        "timestamp": [T0 + timedelta(seconds=r[0]) for r in rows],
        "source": ["a.log"] * len(rows),
        "line": list(range(1, len(rows) + 1)),
        "segment": [r[1] for r in rows],
        "usage_seconds": [r[2] for r in rows],
        "nr_periods": [r[3] for r in rows],
        "nr_throttled": [r[4] for r in rows],
        "throttled_seconds": [r[5] for r in rows],
        "limit_cores": [r[6] for r in rows],
    }), "samples")


def test_rates_between_consecutive_samples():
    s = samples([(0, 0, 0.0, 0, 0, 0.0, 2.0), (10, 0, 15.0, 100, 25, 2.0, 2.0), (20, 0, 25.0, 200, 25, 2.0, 2.0)])
    out = intervals(s)
    assert tables.validate(out, "intervals") == []
    assert out["seconds"].to_list() == [10.0, 10.0]
    assert out["effective_cores"].to_list() == [1.5, 1.0]
    assert out["throttled_ratio"].to_list() == [0.25, 0.0]
    assert out["throttled_seconds_per_second"].to_list() == [0.2, 0.0]
    assert out["usage_share_of_limit"].to_list() == [0.75, 0.5]


def test_no_interval_across_a_segment_and_no_ratio_without_periods():
    s = samples([(0, 0, 10.0, 50, 5, 0.0, None), (10, 0, 20.0, 50, 5, 0.0, None),
                 (20, 1, 1.0, 0, 0, 0.0, None), (30, 1, 3.0, 10, 1, 0.0, None)])
    out = intervals(s)
    assert out.height == 2  # the 10 s -> 20 s step crosses a restart
    assert out["throttled_ratio"].to_list() == [None, 0.1]
    assert out["usage_share_of_limit"].to_list() == [None, None]  # unlimited
    assert intervals(s.head(0)).height == 0


def test_summary_by_limit_pools_counters_not_ratios():
    s = samples([(0, 0, 0.0, 0, 0, 0.0, 1.0), (10, 0, 10.0, 100, 90, 5.0, 1.0), (40, 0, 20.0, 400, 90, 5.0, 1.0),
                 (50, 1, 0.0, 0, 0, 0.0, None), (60, 1, 20.0, 100, 0, 0.0, None)])
    out = summary_by_limit(intervals(s))
    limited = out.filter(pl.col("limit_cores") == 1.0).row(0, named=True)
    assert limited["throttled_ratio"] == pytest.approx(90 / 400)  # not the mean of 0.9 and 0.0
    assert limited["effective_cores"] == pytest.approx(20 / 40)  # time-weighted
    assert limited["seconds"] == 40.0
    unlimited = out.filter(pl.col("limit_cores").is_null()).row(0, named=True)
    assert unlimited["effective_cores"] == pytest.approx(2.0)


def test_thin_samples_keeps_segment_starts_and_about_max_points():
    rows = [(i, 0 if i < 500 else 1, float(i), i, 0, 0.0, 1.0) for i in range(1000)]
    s = samples(rows)
    thin = thin_samples(s, max_points=50)
    assert 40 <= thin.height <= 60
    assert thin.filter(pl.col("segment") == 1)["usage_seconds"].min() == 500.0
    assert thin_samples(s, max_points=5000).height == 1000
