"""Section parsers: the cpu.stat table (chunked, repeated keys), cpu.max and cpuacct.usage lines, kubectl top rows."""

from __future__ import annotations

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from throttlelab.ingest.monitor import monitor_sections
from throttlelab.ingest.monitor.monitor_sections import (
    acct, cpu_max, first_per_block, nullable, nulls, repeated_rows, repeats, top_rows,
)
from throttlelab.ingest.monitor.monitor_skips import REASONS

from .test_monitor_lines import log, read


def test_cpu_stat_in_small_chunks_is_the_same(monkeypatch):
    """The cpu.stat table is built in chunks of lines: chunk edges inside blocks change nothing."""
    lines = log(12).split("\n")
    lines[12] = lines[12] + "\n" + lines[12]  # a repeated key
    lines[30] = "nr_periods x"
    data = "\n".join(lines).encode()
    whole = read(data)
    monkeypatch.setattr(monitor_sections.stat_table, "__defaults__", (3,))
    small = read(data)
    assert small.samples.equals(whole.samples) and small.skipped == whole.skipped
    assert whole.skipped.counts == {"repeated cpu.stat key in block": 1, "bad cpu.stat line": 1}


def test_repeats_marks_every_later_copy():
    assert repeats(np.array([5, 3, 5, 5, 1, 3])).tolist() == [False, False, True, True, False, True]
    assert repeats(np.array([], dtype=np.int64)).tolist() == []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.tuples(st.sampled_from(["p", "q"]), st.sampled_from(["a", "b", "c", None])), min_size=1,
                         max_size=6), max_size=8),
       st.integers(1, 6))
def test_repeated_rows_are_the_later_copies_in_their_block(blocks, most):
    """A kubectl top row repeats when its block listed the same pod and container before it (null containers
    equal), found by comparing neighbours or, for long blocks, by hashing: both as a struct's first-distinct."""
    rows = pl.DataFrame([(b, p, c) for b, block in enumerate(blocks) for p, c in block],
                        schema={"block": pl.Int64, "pod": pl.String, "container": pl.String}, orient="row")
    expected = (~rows.select(pl.struct("block", "pod", "container").is_first_distinct()).to_series()).to_list()
    assert repeated_rows(rows, most).tolist() == expected


def test_cpu_max_and_acct_lines():
    got = cpu_max(pl.Series(["400000 100000", "max 100000", "-1 100000", "max", "x 1", None]))
    assert got.rows() == [(400000, 100000), (-1, 100000), (-1, 100000), (None, None), (None, None), (None, None)]
    assert acct(pl.Series(["12", " 7 ", "-3", "x"]))["acct"].to_list() == [12, 7, None, None]


def test_first_good_line_per_block_and_the_others_skipped():
    rc = np.zeros(4, dtype=np.uint8)
    out = first_per_block(np.arange(4), np.array([1, 1, 2, 2]), pl.Series(["1 2", "3 4", "bad", "5 6"]), 3, rc, cpu_max,
                          "cpu.max")
    assert out["quota"].to_list() == [1, 5] and out["period"].to_list() == [2, 6]
    assert [REASONS[k] for k in rc] == [None, "extra cpu.max line", "bad cpu.max line", None]


def test_top_rows_with_and_without_a_container_column():
    rc = np.zeros(4, dtype=np.uint8)
    text = pl.Series(["POD NAME CPU(cores) MEMORY(bytes)", "p  c  250m  1Gi", "q   5m   2Mi", "p c lots 1Mi"])
    rows = top_rows(np.arange(4), np.array([1, 1, 2, 2]), text, rc)
    assert rows.rows() == [(0, "p", "c", 0.25, 2**30), (1, "q", None, 0.005, 2 * 2**20)]
    assert [REASONS[k] for k in rc] == [None, None, None, "bad kubectl top row"]


def test_nullable_and_nulls():
    assert nullable(np.array([1, 2, 3]), np.array([True, False, True])).to_list() == [1, None, 3]
    assert nullable(np.array([1, 2]), np.array([False, False])).to_list() == [None, None]
    assert nulls(2, pl.String).dtype == pl.String and nulls(2, pl.String).null_count() == 2


def plain_top_fields(row: str) -> tuple[str | None, ...]:
    """A kubectl top row's pod, container, CPU and memory as a plain line parser reads them: fields split by spaces
    only, three or four of them, none empty; a row holding other whitespace (tab to CR) is not one."""
    fields = row.split(" ")
    if any(ch in row for ch in "\t\n\v\f\r") or "" in (fields[0], fields[-1]):
        return (None,) * 4
    fields = [f for f in fields if f]
    if len(fields) == 3:
        return fields[0], None, fields[1], fields[2]
    return tuple(fields) if len(fields) == 4 else (None,) * 4


ROW = st.lists(st.sampled_from(["p", "c", "250m", "1Mi", " ", "  ", "\t", "\x0b", "\x1c", "x-1", "[", "]"]),
               min_size=1, max_size=9).map("".join)


@given(st.lists(ROW, min_size=1, max_size=30))
@settings(max_examples=300, deadline=None)
def test_kubectl_top_fields_as_a_plain_line_parser_reads_them(rows):
    text = pl.Series(rows, dtype=pl.String)
    got = monitor_sections._top_fields(text, np.arange(len(rows)))
    assert got["block"].to_list() == list(range(len(rows)))
    assert list(got.select("pod", "container", "cpu_q", "mem_q").iter_rows()) == [plain_top_fields(r) for r in rows]


def test_a_row_longer_than_65535_bytes_is_read_like_any_other():
    rows = ["p c 5m " + "9" * 65_529 + "Mi", "p c 5m 1Mi", "p 5m 1Mi"]
    got = monitor_sections._top_fields(pl.Series(rows), np.arange(3))
    assert list(got.select("pod", "container", "cpu_q", "mem_q").iter_rows()) == [plain_top_fields(r) for r in rows]
    assert got["mem_q"][0] == "9" * 65_529 + "Mi" and got["container"].to_list() == ["c", "c", None]
