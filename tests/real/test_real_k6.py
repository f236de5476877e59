"""Real-format k6 samples (tests/fixtures/real/k6, provenance in its README): exact rows and values."""

from __future__ import annotations

import datetime as dt

import pytest

from throttlelab.ingest.k6.k6 import read_k6_csv, read_k6_json
from throttlelab.ingest.k6.k6_summary import read_k6_summary

from .conftest import count_lines

UTC = dt.timezone.utc
DOCS_END = dt.datetime(2017, 5, 9, 12, 34, 45, 239531, tzinfo=UTC)  # 14:34:45.239531499+02:00, to the microsecond


@pytest.mark.parametrize("name", ["docs_out_json.json", "docs_out_json.json.gz", "docs_out_json.zst"])
def test_docs_out_json_plain_gzip_zstd(real, name):
    r = read_k6_json(real / "k6" / name)
    assert r.frame.height == 1 and r.skipped.total == 0 and r.lines_total == r.lines_used == 4
    row = r.frame.row(0, named=True)
    assert row["latency_seconds"] == 459.865729 / 1000
    assert row["started_at"] == DOCS_END - dt.timedelta(microseconds=459866)
    assert (row["status"], row["http_status"], row["endpoint"]) == ("ok", 200, "https://httpbin.test.k6.io/get")
    assert row["load"] == 5.0  # the vus gauge


CSV_TIMES = {
    "docs_out_csv_unix.csv": ("unix", dt.datetime(2020, 7, 21, 9, 59, 20, tzinfo=UTC)),
    "csv_unix_milli.csv": ("unix_milli", dt.datetime(2020, 7, 21, 9, 59, 20, 123000, tzinfo=UTC)),
    "csv_unix_micro.csv": ("unix_micro", dt.datetime(2020, 7, 21, 9, 59, 20, 123456, tzinfo=UTC)),
    "csv_unix_nano.csv": ("unix_nano", dt.datetime(2020, 7, 21, 9, 59, 20, 123456, tzinfo=UTC)),
    "csv_rfc3339.csv": ("rfc3339", dt.datetime(2020, 7, 21, 9, 59, 20, tzinfo=UTC)),
    "csv_rfc3339_nano.csv": ("rfc3339_nano", dt.datetime(2020, 7, 21, 9, 59, 20, 123456, tzinfo=UTC)),
}


@pytest.mark.parametrize("name", sorted(CSV_TIMES))
def test_csv_every_time_format(real, name):
    path = real / "k6" / name
    fmt, end = CSV_TIMES[name]
    r = read_k6_csv(path)
    assert r.provenance[str(path)] == {"format": "k6-csv", "time_format": fmt}
    assert r.skipped.total == 0 and r.lines_used == r.lines_total == count_lines(path) == 9
    assert r.frame.height == 1
    row = r.frame.row(0, named=True)
    assert row["latency_seconds"] == 0.221899
    assert row["started_at"] == end - dt.timedelta(microseconds=221899)
    assert (row["status"], row["http_status"], row["endpoint"]) == ("ok", 200, "http://test.k6.io")


def test_csv_mixed_time_formats_are_refused_per_row(tmp_path, real):
    rows = (real / "k6" / "csv_unix_nano.csv").read_text().splitlines()
    p = tmp_path / "mixed.csv"
    p.write_text("\n".join(rows + [rows[2].replace("1595325560123456789", "1595325561")]) + "\n")
    r = read_k6_csv(p)
    assert r.frame.height == 1
    assert r.skipped.counts == {"timestamp not in the file's time format (unix_nano)": 1}


def _stats(r) -> dict:
    return {(m, s): (v, u) for m, s, v, u in r.frame.select("metric", "stat", "value", "unit").iter_rows()}


def test_handle_summary(real):
    r = read_k6_summary(real / "k6" / "handle_summary.json")
    st = _stats(r)
    assert st[("http_req_duration", "p(90)")] == (280.83382650000004, "ms")
    assert st[("http_req_duration", "p(99.99)")] == (408.53503457669984, "ms")
    assert st[("http_req_duration", "count")] == (120.0, "ms")
    assert st[("http_req_duration", "threshold p(90)<300")] == (1.0, None)
    assert st[("checks", "threshold rate>=0.9")] == (1.0, None)
    assert st[("http_reqs", "rate")] == (3.883619, None)
    assert st[("data_received", "count")] == (1435920.0, "bytes")
    assert st[("vus", "max")] == (1.0, None)
    assert st[("check ::status is 200", "passes")] == (118.0, None) and st[("check ::status is 200", "fails")] == (2.0, None)
    assert st[("state", "testRunDurationMs")] == (30898.965069, "ms")
    assert r.frame.height == 24 and r.skipped.total == 0 and r.lines_total == 24
    assert set(r.frame["type"].drop_nulls()) == {"trend", "rate", "counter", "gauge", "check"}


def test_summary_export_thresholds_are_inverted_by_k6(real):
    r = read_k6_summary(real / "k6" / "summary_export.json")
    st = _stats(r)
    assert st[("http_req_duration{group:::pending}", "p(95)")] == (6083.4515, "ms")
    # --summary-export writes true for a *failed* threshold (grafana/k6#1498): stored as passed = 0
    assert st[("http_req_duration{group:::pending}", "threshold p(95)<5000")] == (0.0, None)
    assert st[("checks", "threshold rate>=0.95")] == (1.0, None)
    assert st[("checks", "value")] == (0.9884836852207294, None)
    assert r.frame.height == 11 and r.skipped.total == 0
