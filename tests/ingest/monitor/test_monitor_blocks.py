"""The block stage: the rows placed by index are those a join-based reference makes, skips and order included."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from throttlelab import tables
from throttlelab.ingest.monitor.monitor_counters import cgroup_values
from throttlelab.ingest.monitor.monitor_log import parse_monitor_text

from .test_monitor_counters import _segments_by_windows


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
                      run="run", **cgroup_values(), top_cpu_cores="cpu", top_memory_bytes="mem")
    return tables.conform(_segments_by_windows(out), "samples")


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
