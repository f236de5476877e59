"""The block stage: skipped blocks, one row per pod/container, segments per series."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from throttlelab import tables
from throttlelab.ingest.counter_segments import COUNTERS, assign_segments
from throttlelab.ingest.monitor.monitor_blocks import _cgroup_values, _series_ids, _series_starts, number_segments
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


def _samples_by_joins(kept: pl.DataFrame, top: pl.DataFrame, source: str) -> pl.DataFrame:
    """The reference of the block stage's rows: a join per kind of row, a concat and a sort by line (the reader
    before it placed the rows by index arithmetic)."""
    from throttlelab.core.cpu_stat import STAT_KEYS

    c = pl.col
    ntop = top.group_by("block").agg(ntop=pl.len(), tpod=c("pod").unique().first(), tpods=c("pod").n_unique())
    k = kept.join(ntop, on="block", how="left", maintain_order="left").with_columns(c("ntop").fill_null(0))
    single, multi = k.filter(c("ntop") <= 1), k.filter(c("ntop") > 1)
    single = single.join(top, on="block", how="left", maintain_order="left").with_columns(
        pod=pl.coalesce("hpod", "pod"), container=c("container").forward_fill().backward_fill().over("run"),
        order=pl.lit(0, pl.Int64))
    cgroup = multi.filter(pl.any_horizontal(c(k).is_not_null() for k in (*STAT_KEYS, "quota", "acct"))).with_columns(
        pod=pl.coalesce("hpod", pl.when(c("tpods") == 1).then(c("tpod"))), container=pl.lit(None, pl.String),
        cpu=pl.lit(None, pl.Float64), mem=pl.lit(None, pl.Int64), order=pl.lit(0, pl.Int64))
    listed = multi.select("block", "line", "ts", "run").join(top, on="block", maintain_order="left").with_columns(
        order=pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over("block"))
    rows = pl.concat([single, cgroup, listed], how="diagonal_relaxed").sort("line", "order", maintain_order=True)
    out = rows.select(timestamp="ts", source=pl.lit(source), line=c("line") + 1, pod="pod", container="container",
                      run="run", **_cgroup_values(), top_cpu_cores="cpu", top_memory_bytes="mem")
    return tables.conform(_segments_by_windows(out), "samples")


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
    sid = _series_ids(df)
    assert number_segments(df, _series_starts(df, sid), sid)["segment"].to_list() == ref


_TOP_ROW = st.tuples(st.sampled_from(["p", "q"]), st.sampled_from(["a", "b", "c", None]))
_BLOCK = st.tuples(
    st.lists(_TOP_ROW, max_size=4),  # kubectl top rows (a repeated one is skipped)
    st.one_of(st.none(), st.integers(0, 3)),  # cpu.stat: none, or nr_periods going up or back (a restart)
    st.booleans(),  # cpu.max
    st.sampled_from(["", "", "", "Pod: p\n", "=== CPU Monitoring Started ===\nPod: q\n"]),  # header lines before it
    st.sampled_from([1, 1, 1, 0]),  # seconds after the block before (0: a duplicate time, skipped)
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_BLOCK, max_size=12))
def test_rows_placed_by_index_are_the_joined_rows(blocks):
    """Every row the block stage makes (each listed pod/container, the cgroup's row when it has values, one row
    for a block listing at most one) is the row, value and order the join-based reference makes."""
    from throttlelab.ingest.monitor import monitor_log

    text, t, periods = [], 0, 0
    for rows, stat, cpu_max, header, step in blocks:
        t += step
        top = "".join(f"{p} {c} {k + 1}m {k + 2}Mi\n" if c else f"{p} {k + 1}m {k + 2}Mi\n" for k, (p, c) in enumerate(rows))
        periods = periods + stat if stat else 0 if stat == 0 else periods
        text.append(f"{header}--- 2026-01-01 00:{t // 60:02d}:{t % 60:02d}Z ---\n[kubectl top]\n"
                    + ("POD NAME CPU(cores) MEMORY(bytes)\n" + top if rows else "")
                    + (f"[cgroup cpu.stat]\nnr_periods {periods}\nnr_throttled 0\n" if stat is not None else "")
                    + ("[cgroup cpu.max]\n50000 100000\n" if cpu_max else "") + "\n")
    text = "".join(text)
    ours = parse_monitor_text(text, tz="UTC")
    used = []

    def reference(frames, source):
        used.append(source)
        return _samples_by_joins(*frames, source)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(monitor_log, "take_samples", reference)  # where the reader looks it up
        ref = parse_monitor_text(text, tz="UTC")
    assert used or not blocks
    assert ours.samples.equals(ref.samples) and ours.samples.schema == ref.samples.schema
    assert ours.skipped == ref.skipped
