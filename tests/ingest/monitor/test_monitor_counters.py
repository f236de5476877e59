"""The samples' counters: counter segments per series (one series as assign_segments numbers them, several as a
windowed reference does)."""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from throttlelab.ingest.counter_segments import COUNTERS, assign_segments
from throttlelab.ingest.monitor.monitor_counters import number_segments, series_ids, series_starts


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.sampled_from([None, 1, 2]),
                          st.one_of(st.none(), st.integers(0, 5)), st.one_of(st.none(), st.floats(0, 5, allow_nan=False))),
                max_size=30))
def test_one_series_segments_are_assign_segments(rows):
    """For one pod and container, the monitor reader's segments are those of :func:`assign_segments`
    run by run (a new run starts afresh: nothing carried over from the run before)."""
    rows = sorted(rows, key=lambda r: r[0])  # runs are contiguous
    df = pl.DataFrame({"run": [r[0] for r in rows], "cgroup_version": [r[1] for r in rows],
                       "nr_periods": [r[2] for r in rows], "usage_seconds": [r[3] for r in rows]},
                      schema={"run": pl.Int64, "cgroup_version": pl.Int8, "nr_periods": pl.Int64, "usage_seconds": pl.Float64})
    ours = number_segments(df.with_columns(pod=pl.lit("p"), container=pl.lit(None, pl.String),
                                           **{k: pl.lit(None, pl.Float64) for k in ("throttled_seconds", "burst_seconds")},
                                           **{k: pl.lit(None, pl.Int64) for k in ("nr_throttled", "nr_bursts")}))
    expected, offset = [], 0
    for sub in df.partition_by("run", maintain_order=True):
        seg = assign_segments(sub.drop("run"), by=None)["segment"].to_list()
        expected += [k + offset for k in seg]
        offset = expected[-1] + 1
    assert ours["segment"].to_list() == expected


def _segments_by_windows(samples: pl.DataFrame) -> pl.DataFrame:
    """The reference of :func:`number_segments`: starts counted per series in a window over the three
    keys, each segment numbered by the rank of its first row."""
    c = pl.col
    series = ["run", "pod", "container"]
    version = c("cgroup_version").forward_fill()
    new = pl.any_horizontal(*((c(k).forward_fill().diff() < 0).fill_null(False) for k in COUNTERS),
                            (version != version.shift(1)).fill_null(False))
    local = new.cum_sum().over(series)
    out = samples.with_row_index("_i").with_columns(_local=local).with_columns(
        segment=c("_i").min().over([*series, "_local"]).rank("dense").cast(pl.Int64) - 1)
    return out.drop("_i", "run", "_local")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.sampled_from(["p", "q", None]), st.sampled_from(["a", "b", None]),
                          st.sampled_from([None, 1, 2]), st.one_of(st.none(), st.integers(0, 5))), max_size=40))
def test_segments_of_several_series_are_the_windowed_ones(rows):
    """Counter segments of interleaved series (runs, pods, containers, nulls among them) are those the
    windowed reference numbers, with and without the starts given."""
    df = pl.DataFrame({"run": [r[0] for r in rows], "pod": [r[1] for r in rows], "container": [r[2] for r in rows],
                       "cgroup_version": [r[3] for r in rows], "nr_periods": [r[4] for r in rows]},
                      schema={"run": pl.Int64, "pod": pl.String, "container": pl.String, "cgroup_version": pl.Int8,
                              "nr_periods": pl.Int64})
    df = df.with_columns(**{k: pl.lit(None, pl.Float64) for k in ("usage_seconds", "throttled_seconds", "burst_seconds")},
                         **{k: pl.lit(None, pl.Int64) for k in ("nr_throttled", "nr_bursts")})
    ref = _segments_by_windows(df)["segment"].to_list()
    assert number_segments(df)["segment"].to_list() == ref
    sid = series_ids(df)
    assert number_segments(df, series_starts(df, sid), sid)["segment"].to_list() == ref
