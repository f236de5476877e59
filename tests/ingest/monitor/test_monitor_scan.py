"""The compiled loop gives exactly the polars pass's per-line facts, on odd lines, in parts, and on whole logs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from throttlelab.ingest import lines as lines_mod
from throttlelab.ingest.monitor import monitor_file, monitor_scan
from throttlelab.ingest.monitor.monitor_file import HEADER_PREFIXES, KEY_ENUM, MARKER_ENUM, Facts, collect_facts
from throttlelab.ingest.monitor.monitor_log import read_monitor_log
from throttlelab.ingest.monitor.monitor_sections import _top_fields

FIXTURES = Path(__file__).parents[2] / "fixtures" / "ingest"


def scanned(data: bytes, parts: int = 2) -> Facts:
    return Facts(*monitor_scan.scan_facts(
        data, keys=KEY_ENUM.categories.to_list(), markers=MARKER_ENUM.categories.to_list(), heads=HEADER_PREFIXES,
        long_limit=lines_mod.MAX_LINE_BYTES, flags=monitor_file.FLAGS, odd=monitor_file._ODD,
        no_key=monitor_file.NO_KEY, parts=parts))


def by_polars(data: bytes) -> Facts:
    return collect_facts(pl.scan_lines(data, name="t"), ascii_only=True)


def assert_same(data: bytes, parts: int = 2) -> None:
    got, want = scanned(data, parts), by_polars(data)
    assert got.size == want.size
    assert got.per_line.equals(want.per_line), (got.per_line, want.per_line)
    assert got.kept.equals(want.kept), (got.kept, want.kept)


def test_the_loop_was_built():
    assert monitor_scan.available(), "the C loop was not built: run `make setup` (needs a C compiler)"


VALUES = ["5", "+5", "-0", "-5", "007", "", " 5", "5 ", "+", "-", "+-5", "1.0", "0x5", "9223372036854775807",
          "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "99999999999999999999"]
WORDS = [*KEY_ENUM.categories.to_list(), *MARKER_ENUM.categories.to_list(), "[odd]", "[", "]", "[]", "---", "--- ",
         " ---", "--- 2026-02-06 09:00:00.108 ---", "Pod:", "Pod: x", "===", "==", "Interval: 1s", "Log file: a",
         "POD NAME CPU(cores) MEMORY(bytes)", "p   c   5m   1Mi", "max 100000", "400000 100000", "usage_usec\t5",
         "x", "\x00", "\x1c"]
LINE = st.one_of(st.sampled_from(WORDS),
                 st.builds(lambda k, v: f"{k} {v}", st.sampled_from(WORDS), st.sampled_from(VALUES)),
                 st.text(st.sampled_from(" -[]0123456789abc_+"), max_size=12))


@given(st.lists(LINE, max_size=40), st.booleans(), st.integers(1, 5))
@settings(max_examples=300, deadline=None)
def test_same_facts_as_the_polars_pass(lines, newline_at_end, parts):
    data = "\n".join(lines).encode() + (b"\n" if newline_at_end and lines else b"")
    if data:
        assert_same(data, parts)


def test_long_lines_and_one_part_per_line(monkeypatch):
    monkeypatch.setattr(lines_mod, "MAX_LINE_BYTES", 8)
    assert_same(b"usage_usec 123456789\n--- a long header ---\n[kubectl top]\nshort\n\n", parts=5)


LOGS = ["good_v1.log", "good_v2.log", *(f"bad/{p.name}" for p in sorted((FIXTURES / "bad").glob("*.log")))]


@pytest.mark.parametrize("name", LOGS)
@pytest.mark.parametrize("strict", [False, True])
def test_whole_logs_read_the_same_with_and_without_the_loop(name, strict, monkeypatch):
    def read():
        try:
            r = read_monitor_log(FIXTURES / name, strict=strict)
            return r.frame, (r.skipped, r.lines_total, r.lines_used, r.provenance)
        except Exception as e:  # noqa: BLE001 (the same error either way)
            return type(e), str(e)

    with_loop = read()
    monkeypatch.setenv("THROTTLELAB_NO_C_SCAN", "1")
    without = read()
    if isinstance(with_loop[0], pl.DataFrame):
        assert with_loop[0].equals(without[0]) and with_loop[1] == without[1]
    else:
        assert with_loop == without


ROW = st.lists(st.sampled_from(["p", "c", "250m", "1Mi", " ", "  ", "\t", "\x0b", "\x1c", "x-1", "[", "]"]),
               min_size=1, max_size=9).map("".join)


@given(st.lists(ROW, min_size=1, max_size=30))
@settings(max_examples=300, deadline=None)
def test_kubectl_top_fields_as_the_regex_reads_them(rows):
    data = "\n".join(rows).encode() + b"\n"
    facts = scanned(data, parts=1)
    text = facts.kept["t"]
    blocks = np.arange(len(text))
    assert _top_fields(text, blocks, facts.top).equals(_top_fields(text, blocks, None))


def test_a_row_too_long_for_the_fields_is_left_to_the_regex():
    row = "p c 5m " + "9" * 65_529 + "Mi"  # 65,538 bytes: past the fields' 16-bit offsets
    facts = scanned(f"{row}\np c 5m 1Mi\n".encode(), parts=1)
    assert facts.top[0, :2].tolist() == [65535, 0] and facts.top[1, :2].tolist() == [0, 1]
    text = facts.kept["t"]
    blocks = np.arange(len(text))
    assert _top_fields(text, blocks, facts.top).equals(_top_fields(text, blocks, None))
