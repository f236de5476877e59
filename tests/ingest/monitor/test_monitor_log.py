"""Reading monitor logs: exact values, bad input, accounting of every line."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

from throttlelab import tables
from throttlelab.errors import InputError
from throttlelab.ingest.monitor.monitor_log import parse_monitor_text, read_monitor_log

from tests.ingest.conftest import count_lines

BAD = [
    "bad_timestamp.log",
    "random.bin",
    "binary.bin",
    "counters_backwards.log",
    "crlf.log",
    "duplicate_timestamps.log",
    "empty.log",
    "garbage_lines.log",
    "mixed_v1_v2.log",
    "non_utf8.log",
    "out_of_order.log",
    "sections_missing.log",
    "truncated_last_block.log",
]


def test_v2_log_values_and_schema(fixtures):
    r = read_monitor_log(fixtures / "good_v2.log")
    s = r.samples
    assert tables.validate(s, "samples") == []
    assert s.height == 4 and r.skipped.total == 0
    first = s.row(0, named=True)
    # The shell script writes naive local time: read as UTC by default.
    assert first["timestamp"] == dt.datetime(2026, 2, 6, 14, 24, 0, 12000, tzinfo=dt.timezone.utc)
    assert first["line"] == 7 and first["pod"] == "ffmpeg-7d9c5b6f4-x2k8p" and first["container"] == "ffmpeg"
    assert first["cgroup_version"] == 2
    assert first["usage_seconds"] == 81.234567 and first["throttled_seconds"] == 45.0
    assert first["user_seconds"] == 80.0 and first["system_seconds"] == 1.234567
    assert first["limit_cores"] == 4.0 and first["period_us"] == 100000
    assert first["top_cpu_cores"] == 3.998 and first["top_memory_bytes"] == 612 * 2**20
    assert s["limit_cores"].to_list()[-1] is None  # "max 100000" = unlimited
    assert s["segment"].n_unique() == 1


def test_throttled_ratio_is_exact_v2(fixtures):
    iv = read_monitor_log(fixtures / "good_v2.log").intervals()
    assert tables.validate(iv, "intervals") == []
    assert iv["throttled_ratio"].to_list() == [9 / 10, 232 / 239, 0 / 3]  # the write-up's 232/239 = 97.1 %
    assert iv["effective_cores"][0] == pytest.approx(4.0 / 1.003)
    assert iv["throttled_seconds_per_second"][0] == pytest.approx(0.6 / 1.003)
    assert iv["usage_share_of_limit"][0] == pytest.approx(4.0 / 1.003 / 4.0)
    assert iv["usage_share_of_limit"][2] is None  # unlimited at the end of the interval


def test_throttled_ratio_is_exact_v1(fixtures):
    r = read_monitor_log(fixtures / "good_v1.log")
    s = r.samples
    assert s["cgroup_version"].to_list() == [1, 1, 1]
    assert s["usage_seconds"].to_list() == [1.0, 1.5, 2.2]
    assert s["throttled_seconds"].to_list() == [0.35, 0.6, 0.65]
    assert s["limit_cores"].to_list() == [1.0, 1.0, None]
    iv = r.intervals()
    assert iv["throttled_ratio"].to_list() == [4 / 5, 1 / 5]
    assert iv["effective_cores"].to_list() == pytest.approx([1.0, 1.4])
    assert iv["seconds"].to_list() == [0.5, 0.5]


def test_timezone_parameter_for_naive_timestamps(fixtures):
    r = read_monitor_log(fixtures / "good_v2.log", tz="Asia/Seoul")
    assert r.samples["timestamp"][0] == dt.datetime(2026, 2, 6, 5, 24, 0, 12000, tzinfo=dt.timezone.utc)
    # Our writer's explicit Z is not affected by tz.
    r1 = read_monitor_log(fixtures / "good_v1.log", tz="Asia/Seoul")
    assert r1.samples["timestamp"][0] == dt.datetime(2026, 2, 6, 5, 0, tzinfo=dt.timezone.utc)


@pytest.mark.parametrize("name", BAD)
def test_every_line_is_used_or_counted(fixtures, name):
    path = fixtures / "bad" / name
    r = read_monitor_log(path)
    assert r.lines_total == count_lines(path)
    assert r.lines_used + r.skipped.total == r.lines_total
    for reason, examples in r.skipped.examples.items():
        assert r.skipped.counts[reason] >= len(examples) > 0
        for ex in examples:
            assert ex.path == str(path) and ex.line is not None and 1 <= ex.line <= r.lines_total
    # No kept sample comes from a skipped block header.
    skipped_lines = {ex.line for exs in r.skipped.examples.values() for ex in exs}
    assert not skipped_lines & set(r.samples["line"].to_list())
    assert tables.validate(r.samples, "samples") == []


def _reasons(path):
    return read_monitor_log(path).skipped.counts


def test_bad_input_reasons(fixtures):
    bad = fixtures / "bad"
    assert _reasons(bad / "truncated_last_block.log") == {"truncated last line (no newline)": 1}
    assert _reasons(bad / "duplicate_timestamps.log") == {"duplicate timestamp": 16}
    assert _reasons(bad / "out_of_order.log") == {"out-of-order timestamp": 16}
    assert _reasons(bad / "mixed_v1_v2.log") == {"mixed cgroup v1 and v2 keys": 16}
    assert _reasons(bad / "bad_timestamp.log") == {"bad timestamp": 16}
    assert _reasons(bad / "non_utf8.log") == {"non-UTF-8 bytes": 2}
    assert _reasons(bad / "crlf.log") == {}
    assert _reasons(bad / "random.bin") == {"binary file": count_lines(bad / "random.bin")}
    assert _reasons(bad / "binary.bin") == {}  # a gzip-compressed good log: told by its magic bytes, read
    g = _reasons(bad / "garbage_lines.log")
    assert g == {
        "unrecognised line": 1,
        "bad cpu.stat line": 2,
        "bad cpu.max line": 1,
        "unknown section": 1,
        "line in unknown section": 1,
        "bad kubectl top row": 1,
    }


def test_good_blocks_survive_bad_ones(fixtures):
    bad = fixtures / "bad"
    good = read_monitor_log(fixtures / "good_v2.log").samples
    crlf = read_monitor_log(bad / "crlf.log").samples
    assert crlf.drop("source").equals(good.drop("source"))
    trunc = read_monitor_log(bad / "truncated_last_block.log").samples
    assert trunc.height == 4 and trunc["nr_throttled"][-1] is None and trunc["nr_periods"][-1] == 1252
    garbage = read_monitor_log(bad / "garbage_lines.log").samples
    assert garbage.height == 4 and garbage["nr_periods"].to_list() == good["nr_periods"].to_list()
    assert garbage["top_cpu_cores"][-1] is None
    dup = read_monitor_log(bad / "duplicate_timestamps.log").samples
    assert dup["timestamp"].to_list() == good["timestamp"].to_list()


def test_counter_reset_starts_a_new_segment(fixtures):
    r = read_monitor_log(fixtures / "bad" / "counters_backwards.log")
    assert r.samples["segment"].to_list() == [0, 0, 1, 1]
    iv = r.intervals()
    assert iv.height == 2  # none across the reset
    assert (iv["effective_cores"] >= 0).all() and (iv["throttled_ratio"] >= 0).all()
    assert iv["throttled_ratio"].to_list() == [9 / 10, 4 / 10]


def test_missing_and_empty_sections(fixtures):
    s = read_monitor_log(fixtures / "bad" / "sections_missing.log").samples
    assert s.height == 4
    assert s["nr_periods"].to_list() == [None, None, 1249, None]
    assert s["top_cpu_cores"].to_list() == [3.998, None, 3.99, None]


def test_empty_file(fixtures):
    r = read_monitor_log(fixtures / "bad" / "empty.log")
    assert r.samples.height == 0 and r.lines_total == 0
    assert r.skipped.first is not None and r.skipped.first.reason == "empty file"
    with pytest.raises(InputError, match="empty file"):
        read_monitor_log(fixtures / "bad" / "empty.log", strict=True)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="file not found") as e:
        read_monitor_log(tmp_path / "nope.log")
    assert str(tmp_path / "nope.log") in str(e.value)


@pytest.mark.parametrize(
    ("name", "line", "reason"),
    [
        ("garbage_lines.log", 1, "unrecognised line"),
        ("truncated_last_block.log", 64, "truncated last line"),
        ("duplicate_timestamps.log", 39, "duplicate timestamp"),
        ("random.bin", 1, "binary file"),
    ],
)
def test_strict_stops_at_first_problem(fixtures, name, line, reason):
    with pytest.raises(InputError, match=reason) as e:
        read_monitor_log(fixtures / "bad" / name, strict=True)
    assert e.value.line == line and e.value.path.endswith(name)


def test_long_line_and_unit_separator(tmp_path, fixtures):
    good = (fixtures / "good_v2.log").read_bytes()
    p = tmp_path / "long.log"
    p.write_bytes(good + b"x" * (10 * 2**20) + b"\n" + b"100000\x1f 100000\n")
    r = read_monitor_log(p)
    assert r.samples.height == 4
    assert r.skipped.counts == {"line too long": 1, "bad cpu.max line": 1}
    assert len(r.skipped.examples["line too long"][0].excerpt) < 200
    assert r.lines_used + r.skipped.total == r.lines_total == count_lines(p)


def test_new_header_starts_a_new_run(fixtures):
    text = (fixtures / "good_v1.log").read_text()
    later = text.replace("05:00:0", "06:00:0").replace("local-burner-r0", "local-burner-r1")
    s = parse_monitor_text(text + later).samples
    assert s["pod"].to_list() == ["local-burner-r0"] * 3 + ["local-burner-r1"] * 3
    assert s["segment"].to_list() == [0, 0, 0, 1, 1, 1]


def test_several_containers_give_one_row_each():
    """kubectl top --containers (or several pods): one row per listed container, nothing summed (issue 13)."""
    text = (
        "--- 2026-01-01 00:00:00Z ---\n[kubectl top]\nPOD NAME CPU(cores) MEMORY(bytes)\n"
        "p app 250m 100Mi\np sidecar 50m 20Mi\n[cgroup cpu.stat]\nnr_periods 10\nnr_throttled 1\n\n"
        "--- 2026-01-01 00:00:01Z ---\n[kubectl top]\nNAME CPU(cores) MEMORY(bytes)\np 1 1Gi\n\n"
    )
    s = parse_monitor_text(text, strict=True).samples
    assert s["top_cpu_cores"].to_list() == [None, 0.25, 0.05, 1.0]
    assert s["top_memory_bytes"].to_list() == [None, 100 * 2**20, 20 * 2**20, 2**30]
    assert s["pod"].to_list() == ["p", "p", "p", "p"]
    assert s["container"].to_list() == [None, "app", "sidecar", None]
    assert s["nr_periods"].to_list() == [10, None, None, None]  # the counters: the cgroup's own row
    assert s["line"].to_list() == [1, 1, 1, 10]
    assert s["segment"].n_unique() == 3  # (p, -) and (p, app) and (p, sidecar): intervals never mix them


def test_repeated_and_unknown_keys():
    text = (
        "--- 2026-01-01 00:00:00Z ---\n[cgroup cpu.stat]\nnr_periods 1\nnr_periods 2\n"
        "core_sched.force_idle_usec 0\nfancy_new_key 3\nnr_throttled -1\n\n"
    )
    r = parse_monitor_text(text)
    assert r.samples["nr_periods"].to_list() == [1]
    assert r.skipped.counts == {"repeated cpu.stat key in block": 1, "unknown cpu.stat key": 1, "bad cpu.stat line": 1}


def test_timestamp_forms():
    blocks = "".join(
        f"--- {t} ---\n[cgroup cpu.stat]\nnr_periods {k}\n\n"
        for k, t in enumerate(
            ["2026-01-01 00:00:00", "2026-01-01 00:00:01.5Z", "2026-01-01T00:00:02.25+00:00", "2026-01-01 09:00:03+0900", "2026-01-01 00:00:04.123456789"]
        )
    )
    s = parse_monitor_text(blocks, strict=True).samples
    assert [t.isoformat() for t in s["timestamp"]] == [
        "2026-01-01T00:00:00+00:00",
        "2026-01-01T00:00:01.500000+00:00",
        "2026-01-01T00:00:02.250000+00:00",
        "2026-01-01T00:00:03+00:00",
        "2026-01-01T00:00:04.123456+00:00",
    ]


def test_samples_of_many_files_concatenate(fixtures):
    a = read_monitor_log(fixtures / "good_v1.log")
    b = read_monitor_log(fixtures / "good_v2.log")
    m = a.merge(b)
    assert m.samples.height == 7 and m.lines_total == a.lines_total + b.lines_total
    iv = m.intervals()
    assert iv.height == 2 + 3 and set(iv["source"]) == {str(fixtures / "good_v1.log"), str(fixtures / "good_v2.log")}
    assert isinstance(iv, pl.DataFrame)


def test_line_stage_in_parts_equals_the_whole(fixtures):
    from throttlelab.ingest.monitor.monitor_blocks import kept_blocks, take_samples
    from throttlelab.ingest.monitor.monitor_file import line_frame_from_bytes
    from throttlelab.ingest.monitor.monitor_skips import samples_result

    def assemble(source, n, stage, line_text, strict, tz):  # the reader's two block steps
        kept, skipped, note = kept_blocks(source, n, stage, line_text, strict, tz)
        return samples_result(source, stage.rc, skipped, take_samples([kept, stage.top], source), n, note)
    from throttlelab.ingest.monitor.monitor_log import _line_stage_in_parts

    names = ["good_v2.log", "bad/garbage_lines.log", "bad/duplicate_timestamps.log", "good_v1.log", "bad/out_of_order.log",
             "bad/mixed_v1_v2.log", "bad/non_utf8.log", "bad/counters_backwards.log", "bad/sections_missing.log",
             "bad/bad_timestamp.log", "good_v2.log", "bad/truncated_last_block.log"]
    data = b"\n".join((fixtures / n).read_bytes().rstrip(b"\n") for n in names)
    lines = line_frame_from_bytes(data, "joined.log")
    whole = _line_stage_in_parts(lines, "Asia/Seoul", parts=1)
    ref = assemble("joined.log", len(lines), whole, lines.text, False, "Asia/Seoul")
    assert len(ref.skipped.counts) > 5 and ref.frame.height >= 5
    for parts in (2, 3, 5):
        stage = _line_stage_in_parts(lines, "Asia/Seoul", parts=parts)
        assert stage.blocks.equals(whole.blocks) and stage.top.equals(whole.top) and stage.headers.equals(whole.headers)
        got = assemble("joined.log", len(lines), stage, lines.text, False, "Asia/Seoul")
        assert got.frame.equals(ref.frame) and got.skipped == ref.skipped and got.lines_used == ref.lines_used


@pytest.mark.parametrize("text", ["hello world\nthis is not a log\n1 2 3\n", "garbage\n", "a,b,c\n1,2,3\n"])
def test_a_file_with_no_block_is_not_a_monitor_log(text):
    """Nothing read as a monitor log: one line saying what was expected, not a row of nulls."""
    with pytest.raises(InputError) as err:
        parse_monitor_text(text, source="g.txt")
    msg = str(err.value)
    assert msg.startswith("g.txt: not a monitor log: none of its") and "expected '--- <time> ---' blocks" in msg
    assert "\n" not in msg and len(msg) <= 200


def test_garbage_under_format_monitor_exits_2(tmp_path, capsys):
    from throttlelab.cli import main

    f = tmp_path / "g.txt"
    f.write_text("hello world\nthis is not a log\n1 2 3\n")
    assert main(["ingest", "--format", "monitor", str(f), "-o", str(tmp_path / "o.parquet")]) == 2
    err = capsys.readouterr().err
    assert f"{f}: not a monitor log" in err and "expected" in err and not (tmp_path / "o.parquet").exists()
