"""Blocks listing several pods or containers: one row each and one for the cgroup; intervals never mix them."""

from __future__ import annotations

import polars as pl

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
