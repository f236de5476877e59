"""Tests of throttlelab.ingest.counter_segments: where cumulative counters restart."""

from __future__ import annotations

import polars as pl

from throttlelab.ingest.counter_segments import assign_segments


def test_assign_segments_polars():
    df = pl.DataFrame({
        "run": ["a", "a", "a", "a", "b"],
        "cgroup_version": [1, 1, 1, 1, 1],
        "usage_seconds": [1.0, 2.0, 0.1, 0.2, 0.3],
        "nr_periods": [10, 20, 30, 40, 50],
    })
    out = assign_segments(df)
    assert out["segment"].to_list() == [0, 0, 1, 1, 2]
    assert "run" not in out.columns
    assert assign_segments(df, by=None)["segment"].to_list() == [0, 0, 1, 1, 1]
