"""The block stage: skipped blocks, one row per pod/container, segments per series."""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from throttlelab.ingest.counter_segments import assign_segments
from throttlelab.ingest.monitor.monitor_blocks import number_segments
from throttlelab.ingest.monitor.monitor_log import parse_monitor_text


def test_several_pods_one_row_each_and_intervals_never_mix_them():
    def blk(k):
        return (f"--- 2026-01-01 00:00:0{k}Z ---\n[kubectl top]\nNAME CPU(cores) MEMORY(bytes)\n"
                f"a {100 + k}m 10Mi\nb {200 + k}m 20Mi\n[cgroup cpu.stat]\nnr_periods {10 * k}\nnr_throttled {k}\n\n")
    r = parse_monitor_text("".join(blk(k) for k in range(3)), strict=True)
    s = r.samples
    assert s["pod"].to_list() == [None, "a", "b"] * 3  # no log header: the cgroup's pod is not known
    assert s.filter(pl.col("pod") == "b")["top_cpu_cores"].to_list() == [0.2, 0.201, 0.202]
    iv = r.intervals()
    assert iv.height == 6
    assert iv.filter(pl.col("pod").is_null())["throttled_ratio"].to_list() == [0.1, 0.1]
    assert iv.filter(pl.col("pod") == "a")["top_cpu_cores"].to_list() == [0.101, 0.102]


def test_block_without_cgroup_data_gives_only_the_listed_rows():
    text = "Pod: p\n--- 2026-01-01 00:00:00Z ---\n[kubectl top]\nPOD NAME CPU(cores) MEMORY(bytes)\np a 1m 1Mi\np b 2m 2Mi\n\n"
    s = parse_monitor_text(text, strict=True).samples
    assert s["container"].to_list() == ["a", "b"] and s["pod"].to_list() == ["p", "p"]


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
