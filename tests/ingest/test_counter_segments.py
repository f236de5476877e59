"""Tests of throttlelab.ingest.counter_segments: where cumulative counters restart."""

from __future__ import annotations

import numpy as np
import polars as pl

from throttlelab.ingest.counter_segments import assign_segments, segments


def test_segments_numpy_restart_version_and_run():
    usage = pl.Series([1.0, 2.0, None, 0.5, 1.0, 2.0, 3.0])
    version = np.array([1, 1, 0, 1, 1, 2, 2])
    run = np.array([0, 0, 0, 0, 0, 0, 1])
    # usage goes back 2.0 -> (null) -> 0.5; version 1 -> 2; run 0 -> 1
    assert segments([usage], version, run).tolist() == [0, 0, 0, 1, 1, 2, 3]


def test_segments_of_short_input():
    assert segments([pl.Series([1.0])], np.array([1]), np.array([0])).tolist() == [0]


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
