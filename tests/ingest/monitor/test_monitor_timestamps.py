"""Timestamps as users' scripts write them (issue 13): macOS date, ISO 8601 with comma and offset, zone names."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

from throttlelab.ingest.monitor.monitor_log import parse_monitor_text
from throttlelab.ingest.monitor.monitor_timestamps import local_zone, parse_timestamps

UTC = dt.timezone.utc


@pytest.mark.parametrize(("text", "tz", "expected", "naive"), [
    ("2026-02-06 14:24:00.123", "UTC", dt.datetime(2026, 2, 6, 14, 24, 0, 123000), True),  # monitor_cpu.sh
    ("2026-02-06 14:24:00.123", "Asia/Seoul", dt.datetime(2026, 2, 6, 5, 24, 0, 123000), True),
    ("2026-02-06 14:24:00.3N", "UTC", dt.datetime(2026, 2, 6, 14, 24, 0), True),  # macOS date: no %N
    ("2026-02-06 14:24:00.N", "UTC", dt.datetime(2026, 2, 6, 14, 24, 0), True),
    ("2026-02-06T14:24:00,5+09:00", "UTC", dt.datetime(2026, 2, 6, 5, 24, 0, 500000), False),  # ISO comma + offset
    ("2026-02-06T14:24:00,123456789-0530", "UTC", dt.datetime(2026, 2, 6, 19, 54, 0, 123456), False),
    ("2026-02-06 14:24:00 KST", "UTC", dt.datetime(2026, 2, 6, 5, 24), False),
    ("2026-02-06 14:24:00.25 JST", "UTC", dt.datetime(2026, 2, 6, 5, 24, 0, 250000), False),
    ("2026-02-06 14:24:00 UTC", "Asia/Seoul", dt.datetime(2026, 2, 6, 14, 24), False),
    ("Fri Feb  6 14:24:00 KST 2026", "UTC", dt.datetime(2026, 2, 6, 5, 24), False),  # date's default output
    ("Fri Feb 13 14:24:00 UTC 2026", "UTC", dt.datetime(2026, 2, 13, 14, 24), False),
    ("1770387840.5", "Asia/Seoul", dt.datetime(2026, 2, 6, 14, 24, 0, 500000), False),  # date +%s.%N
    ("2026-02-06 14:24:00.123Z", "Asia/Seoul", dt.datetime(2026, 2, 6, 14, 24, 0, 123000), False),  # our writer
])
def test_forms(text, tz, expected, naive):
    ts, n_naive = parse_timestamps(pl.Series([text]), tz)
    assert ts[0] == expected.replace(tzinfo=UTC)
    assert n_naive == int(naive)


@pytest.mark.parametrize("text", ["2026-02-30 00:00:00", "2026-02-06 24:00:00", "2026-02-06 14:24:00 IST",
                                  "2026-02-06 14:24:00 XYZ", "Fri Foo  6 14:24:00 KST 2026", "yesterday", ""])
def test_refused_forms_are_null(text):
    assert parse_timestamps(pl.Series([text]), "UTC")[0][0] is None


@pytest.mark.parametrize("text", ["2026-02-06 09:00:00.123", "2026-2-6 9:0:00.123", "2026-02-06  09:00:00.123",
                                  "2026-02-06 09:00:60.123", "+2026-02-06 09:00:00.123", "0099-02-06 09:00:00.123",
                                  "2026-02-06 09:00:00.1234", "2026-02-06 09:00:00.12", "2026-02-06 09:00:00.-12"])
def test_the_fixed_width_first_try_reads_as_the_general_form(text):
    # ``.%3f`` is tried first (fast in polars); whatever it accepts must read as ``%.f`` reads it
    general = pl.Series([text]).str.to_datetime("%Y-%m-%d %H:%M:%S%.f", strict=False, time_unit="us")
    assert parse_timestamps(pl.Series([text]), "UTC")[0].dt.replace_time_zone(None).to_list() == general.to_list()


def test_dst_gap_is_null_in_the_stated_zone():
    ts, _ = parse_timestamps(pl.Series(["2026-03-08 02:30:00", "2026-03-08 03:30:00"]), "America/New_York")
    assert ts.to_list() == [None, dt.datetime(2026, 3, 8, 7, 30, tzinfo=UTC)]


def test_mixed_forms_in_one_log_and_the_zone_is_recorded():
    stamps = ["2026-02-06 14:24:00.3N", "2026-02-06T14:24:01,5+09:00", "2026-02-06 14:24:02 KST"]
    text = "".join(f"--- {t} ---\n[cgroup cpu.stat]\nnr_periods {k}\n\n" for k, t in enumerate(stamps))
    r = parse_monitor_text(text, strict=True, tz="Asia/Seoul")
    assert [t.isoformat() for t in r.samples["timestamp"]] == [
        "2026-02-06T05:24:00+00:00", "2026-02-06T05:24:01.500000+00:00", "2026-02-06T05:24:02+00:00"]
    assert [p.get("naive_timestamps_tz") for p in r.provenance.values()] == ["Asia/Seoul"]
    aware = parse_monitor_text(text.replace("14:24:00.3N", "14:24:00 KST"), tz="Asia/Seoul")
    assert [p.get("naive_timestamps_tz") for p in aware.provenance.values()] == [None]  # every time had its zone


def test_local_zone(monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    assert local_zone() == "Asia/Tokyo"
    monkeypatch.delenv("TZ")
    assert isinstance(local_zone(), str) and local_zone()
