"""The monitor-log writer, and write -> read round trips (hypothesis)."""

from __future__ import annotations

import datetime as dt

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from throttlelab.core.cpu_stat import V1_KEYS, V2_KEYS
from throttlelab.ingest.monitor.monitor_format import (
    HEADER_END,
    HEADER_START,
    format_block,
    format_cpu_max,
    format_header,
    format_timestamp,
)
from throttlelab.ingest.monitor.monitor_log import parse_monitor_text

UTC = dt.timezone.utc


def test_header_matches_the_shell_script():
    h = format_header("ffmpeg-x", "media", 1, "./cpu.log")
    assert h.splitlines() == [HEADER_START, "Pod: ffmpeg-x", "Namespace: media", "Interval: 1s", "Log file: ./cpu.log", HEADER_END]
    assert "Interval: 0.1s" in format_header("p", "n", 0.1, "x")


def test_block_sections_and_order():
    text = format_block(
        dt.datetime(2026, 2, 6, 14, 24, 0, 123000, tzinfo=UTC),
        top=[("pod-a", "app", "250m", "512Mi")],
        cpu_stat={"nr_periods": 10, "nr_throttled": 3, "throttled_time": 5},
        cpu_max=format_cpu_max(None, 100000, v1=True),
        cpuacct_usage_ns=42,
    )
    lines = text.splitlines()
    assert lines[0] == "--- 2026-02-06 14:24:00.123Z ---"
    assert lines[1] == "[kubectl top]"
    assert lines[2].split() == ["POD", "NAME", "CPU(cores)", "MEMORY(bytes)"]
    assert lines[3].split() == ["pod-a", "app", "250m", "512Mi"]
    assert lines[4:8] == ["[cgroup cpu.stat]", "nr_periods 10", "nr_throttled 3", "throttled_time 5"]
    assert lines[8:10] == ["[cgroup cpu.max]", "-1 100000"]
    assert lines[10:12] == ["[cgroup cpuacct.usage]", "42"]
    assert lines[12] == "" and text.endswith("\n\n")


def test_sections_given_as_none_are_omitted():
    text = format_block(dt.datetime(2026, 1, 1, tzinfo=UTC), cpu_max="max 100000")
    assert "[kubectl top]" not in text and "[cgroup cpu.stat]" not in text
    assert "[cgroup cpu.max]\nmax 100000\n" in text


def test_timestamps_are_utc_with_z():
    kst = dt.timezone(dt.timedelta(hours=9))
    assert format_timestamp(dt.datetime(2026, 2, 6, 23, 0, tzinfo=kst)) == "2026-02-06 14:00:00.000Z"
    assert format_timestamp(dt.datetime(2026, 2, 6, 0, 0, 0, 123456)) == "2026-02-06 00:00:00.123456Z"


# --- round trip -----------------------------------------------------------------

names = st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True)
counter = st.integers(min_value=0, max_value=2**53)


@st.composite
def blocks(draw):
    n = draw(st.integers(min_value=1, max_value=8))
    start = draw(st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2090, 1, 1)))
    offsets = draw(st.lists(st.integers(min_value=1, max_value=10**9), min_size=n, max_size=n))
    tz = draw(st.sampled_from([UTC, dt.timezone(dt.timedelta(hours=9)), dt.timezone(dt.timedelta(hours=-5, minutes=-30)), None]))
    out, t = [], start
    for k in range(n):
        t = t + dt.timedelta(microseconds=offsets[k])
        version = draw(st.sampled_from([1, 2]))
        keys = ("nr_periods", "nr_throttled", "nr_bursts") + (V2_KEYS if version == 2 else V1_KEYS)
        chosen = draw(st.lists(st.sampled_from(keys), unique=True))
        cpu_stat = {key: draw(counter) for key in chosen} if draw(st.booleans()) else None
        acct = draw(st.one_of(st.none(), counter)) if version == 1 else None
        top = draw(
            st.one_of(
                st.none(),
                st.lists(
                    st.tuples(names, names, st.integers(0, 64000).map(lambda m: f"{m}m"), st.integers(0, 10**6).map(lambda m: f"{m}Mi")),
                    max_size=3,
                    unique_by=lambda row: row[:2],  # kubectl lists each pod/container once per block
                ),
            )
        )
        cpu_max = draw(
            st.one_of(
                st.none(),
                st.builds(lambda q, p: format_cpu_max(q, p, v1=version == 1), st.one_of(st.none(), st.integers(1000, 10**7)), st.integers(1000, 10**6)),
            )
        )
        when = t.replace(tzinfo=tz) if tz else t
        out.append(dict(timestamp=when, top=top, cpu_stat=cpu_stat, cpu_max=cpu_max, cpuacct_usage_ns=acct, version=version))
    return out


def _expected_rows(b, header_pod):
    """One row per block; with several kubectl top rows, the cgroup's row (if the
    block holds any cgroup value) and then one row per listed container."""
    want = _expected(b, header_pod)
    top = b["top"] or []
    if len(top) <= 1:
        return [want]
    cgroup = bool(b["cpu_stat"]) or b["cpu_max"] is not None or b["cpuacct_usage_ns"] is not None  # a value read
    rows = [{**want, "top_cpu_cores": None, "top_memory_bytes": None, "container": None}] if cgroup else []
    empty = dict.fromkeys(("cgroup_version", "usage_seconds", "nr_periods", "nr_throttled", "nr_bursts",
                           "throttled_seconds", "limit_cores", "period_us"))
    for pod, container, cpu, mem in top:
        rows.append({**want, **empty, "pod": pod, "container": container, "top_cpu_cores": int(cpu[:-1]) / 1000,
                     "top_memory_bytes": int(mem[:-2]) * 2**20})
    return rows


def _expected(b, header_pod):
    ts = b["timestamp"]
    ts = ts.astimezone(UTC) if ts.tzinfo else ts.replace(tzinfo=UTC)
    stat = b["cpu_stat"] or {}
    v2 = any(k in stat for k in V2_KEYS)
    v1 = any(k in stat for k in V1_KEYS) or b["cpuacct_usage_ns"] is not None
    usage = stat.get("usage_usec") / 1e6 if v2 and "usage_usec" in stat else None
    if v1 and b["cpuacct_usage_ns"] is not None:
        usage = b["cpuacct_usage_ns"] / 1e9
    thr = None
    if v2 and "throttled_usec" in stat:
        thr = stat["throttled_usec"] / 1e6
    if v1 and "throttled_time" in stat:
        thr = stat["throttled_time"] / 1e9
    limit = period = None
    if b["cpu_max"]:
        q, p = b["cpu_max"].split()
        period = int(p)
        limit = None if q in ("max", "-1") else int(q) / int(p)
    top = b["top"] or []
    return {
        "timestamp": ts,
        "pod": header_pod,
        "cgroup_version": 2 if v2 else 1 if v1 else None,
        "usage_seconds": usage,
        "nr_periods": stat.get("nr_periods"),
        "nr_throttled": stat.get("nr_throttled"),
        "nr_bursts": stat.get("nr_bursts"),
        "throttled_seconds": thr,
        "limit_cores": limit,
        "period_us": period,
        "top_memory_bytes": sum(int(m[:-2]) * 2**20 for *_, m in top) if top else None,
        "top_cpu_cores": sum(int(c[:-1]) / 1000 for _, _, c, _ in top) if top else None,
    }


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blocks())
def test_what_is_written_is_read_back(bs):
    text = format_header("pod-under-test", "ns", 1, "x.log") + "".join(
        format_block(b["timestamp"], top=b["top"], cpu_stat=b["cpu_stat"], cpu_max=b["cpu_max"], cpuacct_usage_ns=b["cpuacct_usage_ns"])
        for b in bs
    )
    r = parse_monitor_text(text, strict=True)
    assert r.skipped.total == 0 and r.lines_used == r.lines_total == text.count("\n")
    rows = r.samples.to_dicts()
    wanted = [w for b in bs for w in _expected_rows(b, "pod-under-test")]
    assert len(rows) == len(wanted)
    for got, want in zip(rows, wanted):
        for k, v in want.items():
            if k == "top_cpu_cores" and v is not None:
                assert abs(got[k] - v) < 1e-9 * max(1, v), k
            else:
                assert got[k] == v, (k, got[k], v)
