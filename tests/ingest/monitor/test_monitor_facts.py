"""The polars pass checked against a plain line parser, on generated lines, long lines and values at int64's edges."""

from __future__ import annotations

import re

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from throttlelab.ingest import lines as lines_mod
from throttlelab.ingest.monitor import monitor_facts
from throttlelab.ingest.monitor.monitor_facts import Facts, collect_facts
from throttlelab.ingest.monitor.monitor_line_frame import FLAGS, HEADER_PREFIXES, KEY_ENUM, MARKER_ENUM, NO_KEY


# -- the polars pass against a plain line parser -----------------------------------------------------------------
def plain_facts(data: bytes) -> Facts:
    """The pass's three outputs, computed one line at a time in plain Python: the reference the pass is checked
    against (the ``key value`` split at the first space, a value as polars casts a text to Int64: an optional sign
    and digits within int64; markers by equality; the kept lines' bits by their first and last bytes)."""
    keys = {k: i for i, k in enumerate(KEY_ENUM.categories.to_list())}
    markers = {m: i for i, m in enumerate(MARKER_ENUM.categories.to_list(), start=1)}
    lines = data.decode("ascii").split("\n")
    if data.endswith(b"\n"):
        lines.pop()
    per_line: dict[str, list] = {"flags": [], "key": [], "val": [], "marker": []}
    kept: dict[str, list] = {"i": [], "t": [], "f": []}
    for i, line in enumerate(lines):
        first, space, rest = line.partition(" ")
        key = keys.get(first, NO_KEY)
        val = int(rest) if space and re.fullmatch(r"[+-]?[0-9]+", rest) and -2**63 <= int(rest) < 2**63 else -1
        marker = markers.get(line, 0)
        per_line["flags"].append(FLAGS["blank"] if not line else 0)
        per_line["key"].append(key)
        per_line["val"].append(val)
        per_line["marker"].append(marker)
        if line and (key == NO_KEY or val < 0) and not marker:
            bits = ((FLAGS["long"], len(line) > lines_mod.MAX_LINE_BYTES),
                    (FLAGS["hdr"], line.startswith("--- ") and line.endswith(" ---")),
                    (FLAGS["loghdr"], line.startswith(HEADER_PREFIXES)),
                    (monitor_facts._ODD, line.startswith("[") and line.endswith("]")))
            kept["i"].append(i)
            kept["t"].append(line)
            kept["f"].append(sum(bit for bit, on in bits if on))
    per_line_schema = {"flags": pl.UInt8, "key": pl.UInt8, "val": pl.Int64, "marker": pl.Int8}
    return Facts(pl.DataFrame(per_line, schema=per_line_schema),
                 pl.DataFrame(kept, schema={"i": pl.UInt32, "t": pl.String, "f": pl.UInt8}), sum(map(len, lines)))


def by_polars(data: bytes) -> Facts:
    return collect_facts(pl.scan_lines(data, name="t"), ascii_only=True)


def assert_same(data: bytes) -> None:
    got, want = by_polars(data), plain_facts(data)
    assert got.size == want.size
    assert got.per_line.equals(want.per_line), (got.per_line, want.per_line)
    assert got.kept.equals(want.kept), (got.kept, want.kept)


VALUES = ["5", "+5", "-0", "-5", "007", "", " 5", "5 ", "+", "-", "+-5", "1.0", "0x5", "9223372036854775807",
          "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "99999999999999999999"]
WORDS = [*KEY_ENUM.categories.to_list(), *MARKER_ENUM.categories.to_list(), "[odd]", "[", "]", "[]", "---", "--- ",
         " ---", "--- 2026-02-06 09:00:00.108 ---", "Pod:", "Pod: x", "===", "==", "Interval: 1s", "Log file: a",
         "POD NAME CPU(cores) MEMORY(bytes)", "p   c   5m   1Mi", "max 100000", "400000 100000", "usage_usec\t5",
         "x", "\x00", "\x1c"]
LINE = st.one_of(st.sampled_from(WORDS),
                 st.builds(lambda k, v: f"{k} {v}", st.sampled_from(WORDS), st.sampled_from(VALUES)),
                 st.text(st.sampled_from(" -[]0123456789abc_+"), max_size=12))


@given(st.lists(LINE, max_size=40), st.booleans())
@settings(max_examples=300, deadline=None)
def test_same_facts_as_a_plain_line_parser(lines, newline_at_end):
    data = "\n".join(lines).encode() + (b"\n" if newline_at_end and lines else b"")
    if data:
        assert_same(data)


def test_the_plain_parser_reads_values_as_the_pass_casts_them():
    facts = plain_facts(b"nr_periods +5\nnr_periods 1.0\nnr_periods -9223372036854775808\nnr_periods 9223372036854775808\n")
    assert facts.per_line["val"].to_list() == [5, -1, -2**63, -1]
    assert facts.kept["i"].to_list() == [1, 2, 3]  # a bad or negative value keeps the line's text


def test_long_lines_as_a_plain_line_parser_reads_them(monkeypatch):
    monkeypatch.setattr(lines_mod, "MAX_LINE_BYTES", 8)
    assert_same(b"usage_usec 123456789\n--- a long header ---\n[kubectl top]\nshort\n\n")
    assert plain_facts(b"--- a long header ---\n").kept["f"].to_list() == [FLAGS["long"] | FLAGS["hdr"]]
