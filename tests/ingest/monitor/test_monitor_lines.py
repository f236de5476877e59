"""The line stage: framed and bare layouts, odd bytes and lines, and every line accounted for.

(These replace the tests that compared the removed numpy fast path with the line
path: the same inputs, now checked against what the one parser must give.)
"""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from throttlelab.errors import InputError
from throttlelab.ingest.monitor.monitor_file import line_frame_from_bytes as split_lines
from throttlelab.ingest.monitor.monitor_format import format_block, format_cpu_max, format_header
from throttlelab.ingest.monitor.monitor_lines import line_stage
from throttlelab.ingest.monitor.monitor_log import parse_monitor_lines, parse_monitor_text

UTC = dt.timezone.utc
T0 = dt.datetime(2026, 2, 6, tzinfo=UTC)


def block(i: int, *, version: int = 2, top: bool = True) -> str:
    """A well-formed block whose counters and kubectl top values change every sample."""
    stat = ({"usage_usec": 300_000 * i + 7, "user_usec": 270_000 * i, "system_usec": 30_000 * i + 7,
             "nr_periods": 10 * i, "nr_throttled": 9 * i, "throttled_usec": 12_345_678_901 + i,
             "nr_bursts": 0, "burst_usec": 0}
            if version == 2 else {"nr_periods": 10 * i, "nr_throttled": 3 * i, "throttled_time": 10**15 + i,
                                  "nr_bursts": 0, "burst_time": 0})
    return format_block(
        T0 + dt.timedelta(milliseconds=100 * i),
        top=[("ffmpeg-7d9c5b6f4-x2k8p", "ffmpeg", f"{3000 + i * 7}m", f"{500 + i * 3}Mi")] if top else None,
        cpu_stat=stat,
        cpu_max=format_cpu_max(400_000, 100_000, v1=version == 1),
        cpuacct_usage_ns=10**17 + i if version == 1 else None,
    )


def log(n: int = 30, **kw) -> str:
    return format_header("ffmpeg-7d9c5b6f4-x2k8p", "media", 0.1, "./x.log") + "".join(block(i, **kw) for i in range(n))


def read(data: bytes, **kw):
    r = parse_monitor_lines(split_lines(data, "x.log"), **kw)
    assert r.lines_used + r.skipped.total == r.lines_total == data.count(b"\n") + (not data.endswith(b"\n"))
    return r


def test_clean_log_values():
    r = read(log(50).encode())
    s = r.samples
    assert s.height == 50 and r.skipped.total == 0
    assert s["throttled_seconds"][3] == (12_345_678_901 + 3) / 1e6
    assert s["top_cpu_cores"][3] == 3.021 and s["top_memory_bytes"][3] == 509 * 2**20 and s["limit_cores"][0] == 4.0
    assert read(log(20, version=1).encode()).samples["usage_seconds"][2] == (10**17 + 2) / 1e9


def test_crlf_reads_as_lf():
    text = log(30)
    plain = read(text.encode()).samples
    assert read(text.replace("\n", "\r\n").encode()).samples.equals(plain)
    mixed = "".join(line + ("\r\n" if k % 3 else "\n") for k, line in enumerate(text.split("\n")[:-1]))
    assert read(mixed.encode()).samples.equals(plain)
    bare_cr = read(text.replace("usage_usec ", "usage\r_usec ", 3).encode())
    assert bare_cr.skipped.counts == {"unknown cpu.stat key": 3}


def test_blank_lines_anywhere_change_nothing():
    plain = read(log(30).encode()).samples.drop("line")
    lines = log(30).split("\n")
    for every in (2, 5, 11):
        r = read("\n".join(line + ("\n" if k % every == 0 else "") for k, line in enumerate(lines)).encode())
        assert r.skipped.total == 0 and r.samples.drop("line").equals(plain)


def test_non_utf8_bytes_skip_only_their_line():
    data = log(30).encode()
    i = data.index(b"usage_usec 1500007") + 5
    r = read(data[:i] + b"\xff" + data[i:])
    assert r.skipped.counts == {"non-UTF-8 bytes": 1}
    assert r.samples["usage_seconds"][5] is None and r.samples["nr_periods"][5] == 50
    i = data.index(b"--- 2026-02-06 00:00:00.500Z ---") + 5  # in a block header: its lines join the block before
    r = read(data[:i] + b"\xff" + data[i:])
    assert r.skipped.counts["non-UTF-8 bytes"] == 1 and r.skipped.counts["repeated cpu.stat key in block"] == 8
    assert 50 not in r.samples["nr_periods"].to_list() and r.samples["nr_periods"].drop_nulls().len() == 29
    ok = read(data.replace(b"ffmpeg-7d9c5b6f4-x2k8p   ffmpeg", "ffmpeg-é   ffmpeg".encode(), 4))  # valid UTF-8
    assert ok.skipped.total == 0 and ok.samples["pod"][0] == "ffmpeg-7d9c5b6f4-x2k8p"


def test_ten_megabyte_line_and_long_values():
    data = log(30).encode()
    i = data.index(b"--- 2026-02-06 00:00:01.000Z")
    r = read(data[:i] + b"x" * (10 * 2**20) + b"\n" + data[i:])
    assert r.skipped.counts == {"line too long": 1} and r.samples.height == 30
    j = data.index(b"nr_periods 50")
    r = read(data[:j] + b"nr_periods " + b"1" * 5000 + b"\n" + data[j:])
    assert r.skipped.counts == {"bad cpu.stat line": 1} and r.samples["nr_periods"][5] == 50


def test_truncated_and_nul():
    data = log(30).encode()
    r = read(data[:-30])
    assert r.skipped.counts.get("truncated last line (no newline)") == 1 and r.samples.height == 30
    r = read(data[:100] + b"\x00" + data[100:])
    assert r.samples.height == 0 and set(r.skipped.counts) == {"binary file"}
    r = read(data[:9000] + b"\x00 nr_periods 5\n" + data[9000:])  # a NUL after the binary sniff: one bad line
    assert r.samples.height == 30 and r.skipped.total == 1


def test_strict_names_the_first_bad_line():
    lines = log(5).split("\n")
    lines[12] = "usage_usec twelve"
    with pytest.raises(InputError, match="bad cpu.stat line") as e:
        read("\n".join(lines).encode(), strict=True)
    assert e.value.line == 13


# --- bare layouts (issue 13): loops of date / kubectl top / cat cpu.stat --------------


def test_bare_cpu_stat_snapshots_with_date_lines():
    text = "".join(f"2026-02-06 14:24:0{k}\nusage_usec {k * 100}\nnr_periods {k * 10}\nnr_throttled {k * 9}\n"
                   f"throttled_usec {k * 5}\n" for k in range(4))
    r = parse_monitor_text(text, strict=True, tz="Asia/Seoul")
    s = r.samples
    assert s.height == 4 and s["cgroup_version"].to_list() == [2] * 4
    assert s["timestamp"][1] == dt.datetime(2026, 2, 6, 5, 24, 1, tzinfo=UTC)
    assert [p.get("naive_timestamps_tz") for p in r.provenance.values()] == ["Asia/Seoul"]
    assert r.intervals()["throttled_ratio"].to_list() == [0.9] * 3


def test_bare_v1_snapshots_without_time():
    text = "".join(f"nr_periods {k * 10}\nnr_throttled {k * 3}\nthrottled_time {k * 10**9}\n\n" for k in range(3))
    r = parse_monitor_text(text, strict=True)
    s = r.samples
    assert s.height == 3 and s["timestamp"].null_count() == 3 and s["cgroup_version"].to_list() == [1] * 3
    iv = r.intervals()
    assert iv["throttled_ratio"].to_list() == [0.3, 0.3] and iv["seconds"].null_count() == 2


def test_bare_kubectl_top_alone():
    text = ("Fri Feb  6 14:24:00 KST 2026\nNAME          CPU(cores)   MEMORY(bytes)\napi-1         250m         100Mi\n"
            "api-2         1            1Gi\n"
            "Fri Feb  6 14:24:15 KST 2026\nNAME          CPU(cores)   MEMORY(bytes)\napi-1         260m         101Mi\n"
            "api-2         2            1Gi\n")
    s = parse_monitor_text(text, strict=True).samples
    assert s["pod"].to_list() == ["api-1", "api-2", "api-1", "api-2"]
    assert s["top_cpu_cores"].to_list() == [0.25, 1.0, 0.26, 2.0]
    assert s["timestamp"][2] == dt.datetime(2026, 2, 6, 5, 24, 15, tzinfo=UTC)
    assert s["segment"].n_unique() == 2  # one series per pod


def test_bare_garbage_is_counted():
    r = parse_monitor_text("2026-02-06 14:24:00\nusage_usec 5\nhello world again\nusage_usec 6\n")
    assert r.skipped.counts == {"bad cpu.stat line": 1, "repeated cpu.stat key in block": 1}


def test_line_stage_finds_blocks_and_sections():
    stage = line_stage(split_lines(log(3).encode(), "x"))
    assert stage.blocks.height == 3 and stage.blocks["line"].to_list() == [6, 22, 38]
    assert stage.top["cpu"].to_list() == [3.0, 3.007, 3.014]
    assert stage.headers.height == 6 and not stage.rc.any()


# --- hypothesis: mutated logs ---------------------------------------------------------

MUTATIONS = [
    lambda line: line + "\n",
    lambda line: line + "\r",
    lambda line: "",
    lambda line: line[: len(line) // 2],
    lambda line: line + " x",
    lambda line: line.replace(" ", "  ", 1),
    lambda line: line.upper(),
    lambda line: line + "\n" + line,
    lambda line: "\ufffd" + line,
    lambda line: line.replace("1", "\x00", 1),
    lambda line: "[cgroup cpu.stat]",
    lambda line: "--- 2026-02-06 00:00:00.300Z ---",
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(min_value=1, max_value=25),
    version=st.sampled_from([1, 2]),
    top=st.booleans(),
    edits=st.lists(st.tuples(st.integers(min_value=0, max_value=10**6), st.integers(0, len(MUTATIONS) - 1)), max_size=6),
    truncate=st.booleans(),
)
def test_mutated_logs_account_for_every_line(n, version, top, edits, truncate):
    lines = log(n, version=version, top=top).split("\n")
    for pos, m in edits:
        k = pos % len(lines)
        lines[k] = MUTATIONS[m](lines[k])
    data = "\n".join(lines).encode("utf-8", "surrogateescape")
    if truncate:
        data = data[: len(data) * 2 // 3]
    r = read(data)
    assert r.samples.height <= n + data.count(b"--- 2026")
    skipped_lines = {ex.line for exs in r.skipped.examples.values() for ex in exs}
    assert not skipped_lines & set(r.samples["line"].to_list())
    if r.skipped.total:
        with pytest.raises(InputError) as e:
            read(data, strict=True)
        assert e.value.line == r.skipped.first.line or r.skipped.first.line is None
    else:
        assert read(data, strict=True).samples.equals(r.samples)


def test_a_repeated_kubectl_top_row_is_skipped_not_counted_twice():
    # found by the mutation test: a copied row used to give the container a second sample in the block
    lines = log(2, version=2, top=True).split("\n")
    k = next(j for j, line in enumerate(lines) if line.startswith("ffmpeg-") and "ffmpeg " in line)
    lines[k] = lines[k] + "\n" + lines[k]
    r = read("\n".join(lines).encode())
    assert r.skipped.counts == {"repeated kubectl top row in block": 1}
    assert r.skipped.first.line == k + 2
    assert r.samples.height == read(log(2, version=2, top=True).encode()).samples.height
