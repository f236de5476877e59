"""Per-line facts of a monitor log, read by polars' line or CSV reader (or split in Python when it could differ),
and the polars pass checked against a plain line parser on generated lines and every monitor fixture."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from throttlelab.errors import InputError
from throttlelab.ingest import lines as lines_mod
from throttlelab.ingest.monitor import monitor_file
from throttlelab.ingest.monitor.monitor_file import (
    FLAGS, HEADER_PREFIXES, KEY_ENUM, MARKER_ENUM, NO_KEY, Facts, collect_facts, line_frame_from_bytes, read_line_frame,
)
from throttlelab.ingest.monitor.monitor_log import read_monitor_log

FIXTURES = Path(__file__).parents[2] / "fixtures" / "ingest"

LOG = b"--- 2026-02-06 14:24:00.123 ---\n[kubectl top]\nPOD NAME CPU(cores) MEMORY(bytes)\np c 5m 1Mi\n" \
      b"[cgroup cpu.stat]\nnr_periods 10\nnr_throttled -1\nfancy 3\n[odd]\n\nPod: x\n"


def test_facts_of_each_line():
    lf = line_frame_from_bytes(LOG, "x")
    f = lf.frame
    assert lf.flag("hdr").tolist() == [True] + [False] * 10
    assert f["marker"].to_list() == [0, 1, 0, 0, 2, 0, 0, 0, 9, 0, 0]
    assert lf.flag("loghdr").tolist()[-1] is True and lf.flag("blank").tolist() == [False] * 9 + [True, False]
    assert [KEY_ENUM.categories[k] if k != NO_KEY else None for k in f["key"]][5:8] == ["nr_periods", "nr_throttled", None]
    assert f["key"].null_count() == f["val"].null_count() == 0  # read in place by numpy
    assert f["val"].to_list()[5:8] == [10, -1, 3]
    # text kept only where the other columns do not give it, apart from the per-line columns
    lf = line_frame_from_bytes(LOG, "x")
    assert lf.text_at.tolist() == [0, 2, 3, 6, 7, 8, 10]
    assert lf.texts_of(lf.text_at[2:5] + [0, 0, 0]).to_list() == ["p c 5m 1Mi", "nr_throttled -1", "fancy 3"]
    assert lf.texts_of([1, 4, 5, 7]).to_list() == [None, None, None, "fancy 3"]
    assert lf.dense_text().to_list()[4:8] == [None, None, "nr_throttled -1", "fancy 3"]


def test_text_of_any_line_for_messages(tmp_path):
    lf = line_frame_from_bytes(LOG, "x")
    assert [lf.text(j) for j in range(len(lf))] == LOG.decode().split("\n")[:-1][:9] + [None, "Pod: x"]
    p = tmp_path / "x.log"
    p.write_bytes(LOG)
    assert read_line_frame(p).frame.equals(lf.frame) and read_line_frame(p).texts.equals(lf.texts)


@pytest.mark.parametrize("odd", [b"\x1f", b"\r", b"\xff", "é".encode()])
def test_bytes_the_csv_reader_could_split_differently_give_the_same_lines(odd):
    data = LOG.replace(b"fancy", b"fa" + odd + b"ncy")
    lf = line_frame_from_bytes(data, "x")
    assert len(lf) == 11
    assert lf.flag("bad").tolist()[7] is (odd == b"\xff")


def test_truncated_binary_empty_and_missing(tmp_path):
    assert line_frame_from_bytes(LOG[:-1], "x").truncated
    assert line_frame_from_bytes(b"a\x00b\n", "x").binary
    assert len(line_frame_from_bytes(b"", "x")) == 0
    with pytest.raises(InputError, match="file not found"):
        read_line_frame(tmp_path / "nope.log")
    with pytest.raises(InputError, match="directory"):
        read_line_frame(tmp_path)


def test_part_of_the_lines_is_read_as_its_own():
    lf = line_frame_from_bytes(LOG[:-1], "x")
    part = lf.part(3, 11)
    assert len(part) == 8 and part.truncated and not lf.part(0, 3).truncated
    assert [part.text(j) for j in range(8)] == [lf.text(j) for j in range(3, 11)]
    assert part.frame.equals(lf.frame.slice(3))


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
                    (monitor_file._ODD, line.startswith("[") and line.endswith("]")))
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


LOGS = ["good_v1.log", "good_v2.log", *(f"bad/{p.name}" for p in sorted((FIXTURES / "bad").glob("*.log")))]


@pytest.mark.parametrize("name", LOGS)
@pytest.mark.parametrize("strict", [False, True])
def test_whole_logs_read_the_same_by_polars_line_reader_and_split_in_python(name, strict, monkeypatch):
    """Every monitor fixture, strict and lenient: polars' line (or CSV) reader gives the lines that the plain
    Python split (:func:`throttlelab.ingest.lines.split_lines`) gives, the path taken when the two could differ."""
    def read():
        try:
            r = read_monitor_log(FIXTURES / name, strict=strict)
            return r.frame, (r.skipped, r.lines_total, r.lines_used, r.provenance)
        except Exception as e:  # noqa: BLE001 (the same error either way)
            return type(e), str(e)

    by_reader = read()
    checks = monitor_file._checks
    monkeypatch.setattr(monitor_file, "_checks", lambda buf, size: {**checks(buf, size), "csv": False})
    split = read()
    if isinstance(by_reader[0], pl.DataFrame):
        assert by_reader[0].equals(split[0]) and by_reader[1] == split[1]
    else:
        assert by_reader == split
