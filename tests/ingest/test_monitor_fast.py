"""The fast path of the monitor-log reader gives exactly what the careful path gives.

Every test compares :func:`read_monitor_bytes` (clean blocks parsed from the
bytes, the rest through the careful line stage) with
:func:`parse_monitor_lines` (the careful path on the whole file): samples,
skip report, line counts, and the ``--strict`` error.
"""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from throttlelab.errors import InputError
from throttlelab.ingest import distinct_lines, monitor_chunks, monitor_fast, monitor_scan
from throttlelab.ingest.byte_words import PAD
from throttlelab.ingest.lines import read_padded_bytes, split_lines
from throttlelab.ingest.monitor_format import format_block, format_cpu_max, format_header
from throttlelab.ingest.monitor_log import parse_monitor_lines

from .conftest import FIXTURES

UTC = dt.timezone.utc
T0 = dt.datetime(2026, 2, 6, tzinfo=UTC)


def block(i: int, *, version: int = 2, top: bool = True, stamp: str | None = None) -> str:
    """A well-formed block (the fast path takes it) with counters growing with ``i``."""
    stat = ({"usage_usec": 300_000 * i + 7, "user_usec": 270_000 * i, "system_usec": 30_000 * i + 7,
             "nr_periods": 10 * i, "nr_throttled": 9 * i, "throttled_usec": 12_345_678_901 + i,
             "nr_bursts": 0, "burst_usec": 0}
            if version == 2 else {"nr_periods": 10 * i, "nr_throttled": 3 * i, "throttled_time": 10**15 + i,
                                  "nr_bursts": 0, "burst_time": 0})
    text = format_block(
        T0 + dt.timedelta(milliseconds=100 * i),
        top=[("ffmpeg-7d9c5b6f4-x2k8p", "ffmpeg", f"{3000 + i % 7}m", f"{500 + i % 3}Mi")] if top else None,
        cpu_stat=stat,
        cpu_max=format_cpu_max(400_000, 100_000, v1=version == 1),
        cpuacct_usage_ns=10**17 + i if version == 1 else None,
    )
    if stamp is not None:
        text = text.replace(text.splitlines()[0], f"--- {stamp} ---", 1)
    return text


def log(n: int = 30, **kw) -> str:
    return format_header("ffmpeg-7d9c5b6f4-x2k8p", "media", 0.1, "./x.log") + "".join(block(i, **kw) for i in range(n))


def careful(data: bytes, **kw):
    try:
        r = parse_monitor_lines(split_lines(data, "x.log"), **kw)
    except InputError as e:
        return ("error", str(e), e.line)
    return (r.samples, r.skipped, r.lines_total, r.lines_used)


def fast(data: bytes, workers: int | None = None, **kw):
    try:
        r = monitor_fast.read_monitor_buffer(*read_padded_bytes(data, PAD), "x.log", workers=workers, **kw)
    except InputError as e:
        return ("error", str(e), e.line)
    assert r.lines_used + r.skipped.total == r.lines_total
    return (r.samples, r.skipped, r.lines_total, r.lines_used)


def assert_same(data: bytes, workers: int | None = None, **kw) -> None:
    for strict in (False, True):
        a, b = fast(data, workers, strict=strict, **kw), careful(data, strict=strict, **kw)
        if isinstance(a[0], str) or isinstance(b[0], str):
            assert a == b
        else:
            assert a[0].equals(b[0]), (a[0], b[0])
            assert a[1:] == b[1:]


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of a few blocks, so that chunk edges fall next to the bad blocks."""
    monkeypatch.setattr(monitor_fast, "CHUNK_BYTES", 700)


@pytest.fixture
def careful_lines(monkeypatch):
    """Number of lines the fast path hands to the careful line stage, per call."""
    seen = []
    real = monitor_fast.monitor_lines.line_stage

    def spy(lines, tz="UTC"):
        seen.append(len(lines))
        return real(lines, tz)

    monkeypatch.setattr(monitor_fast.monitor_lines, "line_stage", spy)
    return seen


def test_clean_log_is_all_fast_and_exact(careful_lines):
    data = log(50).encode()
    r = monitor_fast.read_monitor_bytes(data, "x.log")
    assert careful_lines == [6]  # only the log header
    assert_same(data)
    assert r.samples.height == 50 and r.skipped.total == 0
    assert r.samples["throttled_seconds"][3] == (12_345_678_901 + 3) / 1e6
    assert r.samples["top_cpu_cores"][3] == 3.003 and r.samples["limit_cores"][0] == 4.0


def test_v1_log_with_long_counters():
    assert_same(log(20, version=1).encode())


@pytest.mark.parametrize("workers", [1, 2])
def test_bad_blocks_at_chunk_edges(small_chunks, careful_lines, workers):
    blocks = [block(i) for i in range(40)]
    blocks[0] = blocks[0].replace("nr_periods", "nr_periods_x")  # first block
    blocks[7] = blocks[7].replace("[cgroup cpu.max]", "[cgroup cpu.max]\n400000 100000")  # extra line
    blocks[8] = blocks[8] + "garbage between blocks\n"  # run of two bad blocks
    blocks[20] = blocks[20].replace("Mi\n", "Mx\n")  # bad top row
    blocks[39] = blocks[39].replace("usage_usec", "usage_usec 1\nusage_usec")  # last block: repeated key
    data = (format_header("p", "n", 0.1, "x") + "".join(blocks)).encode()
    fast(data, workers)
    bad_lines = sum(b.count("\n") for b in (blocks[0], blocks[7], blocks[8], blocks[20], blocks[39]))
    assert careful_lines == [6 + bad_lines]  # the header and the bad blocks, nothing else
    assert_same(data, workers)
    assert len(monitor_chunks.chunk_bounds(memoryview(data), len(data), 0, monitor_fast.CHUNK_BYTES)) > 10


def test_crlf(small_chunks):
    text = log(30)
    assert_same(text.replace("\n", "\r\n").encode())
    mixed = "".join(line + ("\r\n" if k % 3 else "\n") for k, line in enumerate(text.split("\n")))
    assert_same(mixed.encode())
    assert_same(text.replace("0\n", "0\r\r\n", 5).encode())  # CR CR LF
    assert_same(text.replace("usage_usec ", "usage\r_usec ", 3).encode())  # bare CR


def test_blank_lines_anywhere(small_chunks):
    lines = log(30).split("\n")
    for every in (2, 5, 11):
        assert_same("\n".join(line + ("\n" if k % every == 0 else "") for k, line in enumerate(lines)).encode())
    assert_same(("\n\n" + log(5)).encode())


def test_non_utf8_bytes(small_chunks):
    data = log(30).encode()
    for needle in (b"--- 2026-02-06 00:00:00.500Z ---", b"usage_usec 1500007", b"ffmpeg   3005m", b"400000 100000"):
        i = data.index(needle) + 5
        assert_same(data[:i] + b"\xff" + data[i:])
    assert_same(data.replace(b"ffmpeg-7d9c5b6f4-x2k8p   ffmpeg", "ffmpeg-é   ffmpeg".encode(), 4))  # valid UTF-8


def test_long_lines(small_chunks):
    data = log(30).encode()
    i = data.index(b"--- 2026-02-06 00:00:01.000Z")
    assert_same(data[:i] + b"x" * (10 * 2**20) + b"\n" + data[i:])  # 10 MB line between blocks
    assert_same(data[:i] + b"--- " + b"9" * 70_000 + b" ---\n" + data[i:])  # too long to be a header
    j = data.index(b"nr_periods 50")
    assert_same(data[:j] + b"nr_periods " + b"1" * 5000 + b"\n" + data[j:])
    k = data.index(b"POD ", j)  # a column header line too long, in a block like all the others
    assert_same(data[:k + 4] + b"x" * 70_000 + data[k + 4:])


def test_truncated_and_nul(small_chunks):
    data = log(30).encode()
    for cut in (len(data) - 1, len(data) - 30, data.rindex(b"--- ") + 10):
        assert_same(data[:cut])
    assert_same(data[:9000] + b"\x00 nr_periods 5\n" + data[9000:])  # NUL after the binary sniff
    assert_same(data[:100] + b"\x00" + data[100:])  # binary


def test_timestamp_forms_and_zones():
    stamps = ["2026-02-06 00:00:%02d", "2026-02-06 00:00:%02d.5Z", "2026-02-06T00:00:%02d.250+00:00", "2026-02-06 00:00:%02d.123456",
              "2026-02-30 00:00:%02d", "2026-02-06 00:00:%02d.123456789", "2026-02-06 24:00:%02d", "0999-02-06 00:00:%02d"]
    text = "".join(block(i, stamp=stamps[i % len(stamps)] % i) for i in range(24))
    for tz in ("UTC", "Asia/Seoul", "America/New_York"):
        assert_same(text.encode(), tz=tz)
    dst = "".join(block(i, stamp=f"2026-03-08 0{h}:{m:02d}:00") for i, (h, m) in enumerate((h, m) for h in (1, 2, 3) for m in (0, 30)))
    assert_same(dst.encode(), tz="America/New_York")


def test_several_containers_and_odd_sections(small_chunks):
    blocks = [block(i) for i in range(20)]
    blocks[5] = blocks[5].replace("[cgroup cpu.stat]", "p sidecar 5m 10Mi\n[cgroup cpu.stat]")
    blocks[9] = blocks[9].replace("[cgroup cpu.max]", "[unknown]\nfoo 1\n[cgroup cpu.max]")
    blocks[12] = blocks[12].replace("nr_bursts 0", "core_sched.force_idle_usec 12\nnr_bursts 0")  # ignored key: fast
    blocks[13] = blocks[13].replace("400000 100000", "max 100000")
    blocks[14] = blocks[14].replace("[kubectl top]", "Pod: other\n[kubectl top]")
    assert_same("".join(blocks).encode())


def test_bad_input_fixtures_match_the_careful_path():
    for path in sorted((FIXTURES / "bad").iterdir()) + [FIXTURES / "good_v1.log", FIXTURES / "good_v2.log"]:
        assert_same(path.read_bytes())


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
    chunk=st.sampled_from([300, 2000, 1 << 20]),
)
def test_mutated_logs(n, version, top, edits, truncate, chunk):
    lines = log(n, version=version, top=top).split("\n")
    for pos, m in edits:
        k = pos % len(lines)
        lines[k] = MUTATIONS[m](lines[k])
    data = "\n".join(lines).encode("utf-8", "surrogateescape")
    if truncate:
        data = data[: len(data) * 2 // 3]
    old = monitor_fast.CHUNK_BYTES
    monitor_fast.CHUNK_BYTES = chunk
    try:
        assert_same(data)
    finally:
        monitor_fast.CHUNK_BYTES = old


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(-1, 4)), max_size=40))
def test_fill_within_runs_is_polars_fill_over_runs(cells):
    """The block stage fills kubectl top's container with numpy as polars' expression would."""
    import numpy as np
    import polars as pl

    from throttlelab.ingest.monitor_pods import fill_within_runs

    runs = sorted(r for r, _ in cells)  # runs are contiguous and increasing
    codes = [c for _, c in cells]
    got = fill_within_runs(np.array(codes, dtype=np.int64), np.array(runs, dtype=np.int64))
    df = pl.DataFrame({"run": runs, "c": [c if c >= 0 else None for c in codes]}, schema={"run": pl.Int64, "c": pl.Int64})
    expected = df.select(pl.col("c").forward_fill().backward_fill().over("run")).to_series().fill_null(-1).to_list()
    assert got.tolist() == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.sampled_from([0, 1, 2]),
                          st.one_of(st.none(), st.integers(0, 5)), st.one_of(st.none(), st.floats(0, 5, allow_nan=False))),
                max_size=30))
def test_segments_in_numpy_are_assign_segments(rows):
    """The block stage numbers counter segments in numpy exactly as :func:`assign_segments` does."""
    import numpy as np
    import polars as pl

    from throttlelab.ingest.counter_segments import assign_segments, segments

    rows = sorted(rows, key=lambda r: r[0])  # runs are contiguous
    run = np.array([r[0] for r in rows], dtype=np.int64)
    version = np.array([r[1] for r in rows], dtype=np.int8)
    ints = pl.Series("nr_periods", [r[2] for r in rows], dtype=pl.Int64)
    floats = pl.Series("usage_seconds", [r[3] for r in rows], dtype=pl.Float64)
    df = pl.DataFrame({"run": run, "cgroup_version": pl.Series(version).cast(pl.Int8), "nr_periods": ints,
                       "usage_seconds": floats}).with_columns(
        cgroup_version=pl.when(pl.col("cgroup_version") > 0).then(pl.col("cgroup_version")))
    assert segments([floats, ints], version, run).tolist() == assign_segments(df)["segment"].to_list()


def test_a_chunk_not_starting_at_a_block_goes_the_careful_way():
    """Defensive path: a chunk whose first line is not a block header is read carefully, whole."""
    from throttlelab.ingest.byte_words import Words

    data = log(12).encode()
    buf, size = read_padded_bytes(data, PAD)
    chunk = monitor_scan.scan_chunk(buf, Words(buf), 0, size, False)  # starts at the log header
    assert chunk.unclean.tolist() == [True]
    r = monitor_fast._combine(buf, Words(buf), size, "x.log", 0, [chunk], False, "UTC", monitor_fast._Done)
    c = careful(data)
    assert r.samples.equals(c[0]) and (r.skipped, r.lines_total, r.lines_used) == c[1:]


@pytest.mark.parametrize("collide", [False, True])
def test_distinct_columns_groups_exactly(monkeypatch, collide):
    """Distinct kubectl top rows / cpu.max lines: exact even when hashes collide."""
    import numpy as np

    if collide:  # every column gets the same hash: the exact fallback must group them
        monkeypatch.setattr(distinct_lines, "_hash_columns", lambda cols: np.zeros(cols.shape[1], dtype=np.uint64))
    rng = np.random.default_rng(1)
    cols = rng.integers(0, 4, (3, 500)).astype(np.uint64)
    distinct, ids = distinct_lines.distinct_columns(cols)
    assert (distinct[:, ids] == cols).all()
    keys = [tuple(c) for c in cols.T]
    assert [tuple(c) for c in distinct.T] == list(dict.fromkeys(keys))  # in order of first appearance
