"""k6 outputs (NDJSON, CSV) -> requests table."""

from __future__ import annotations

import datetime as dt

import pytest

from throttlelab import tables
from throttlelab.errors import InputError
from throttlelab.ingest.k6.k6 import names_from_path, read_k6_csv, read_k6_json

from tests.ingest.conftest import count_lines

UTC = dt.timezone.utc


def test_names_from_file_name():
    assert names_from_path("/x/semaphore__vus10.k6.json") == ("semaphore", "vus10")
    assert names_from_path("run7.json") == ("k6", "run7")


def test_ndjson(fixtures):
    path = fixtures / "semaphore__vus10.k6.json"
    r = read_k6_json(path)
    df = r.frame
    assert tables.validate(df, "requests") == []
    assert df["experiment"].unique().to_list() == ["semaphore"] and df["run_id"][0] == "vus10"
    assert df["request_id"].to_list() == [0, 1, 2]
    assert df["status"].to_list() == ["ok", "error", "refused"]
    assert df["http_status"].to_list() == [200, 503, None]
    assert df["latency_seconds"].to_list() == [0.2505, 1.2, None]
    # k6 stamps the end of the request: started_at = end - duration
    assert df["started_at"][0] == dt.datetime(2026, 2, 6, 5, 24, 0, 249500, tzinfo=UTC)
    assert r.skipped.counts == {"bad k6 point (time/value)": 1, "not JSON": 1, "not a k6 Metric or Point": 1}
    assert r.lines_used + r.skipped.total == r.lines_total == count_lines(path)


def test_ndjson_names_override_and_strict(fixtures):
    path = fixtures / "semaphore__vus10.k6.json"
    r = read_k6_json(path, experiment="e", run_id="r")
    assert r.frame["experiment"][0] == "e" and r.frame["run_id"][0] == "r"
    with pytest.raises(InputError, match=r"k6.json:8: bad k6 point"):
        read_k6_json(path, strict=True)


def test_csv(fixtures):
    path = fixtures / "semaphore__vus20.k6.csv"
    r = read_k6_csv(path)
    df = r.frame
    assert tables.validate(df, "requests") == []
    assert df["status"].to_list() == ["ok", "timeout"]
    assert df["latency_seconds"].to_list() == [0.2505, None]
    assert df["error"][1] == "request timeout"
    assert r.skipped.counts == {"bad k6 CSV row (timestamp/value)": 1, "wrong number of CSV fields": 1}
    assert r.lines_used + r.skipped.total == r.lines_total == count_lines(path)


def test_requests_carry_vu_and_the_peak_of_the_vus_gauge(fixtures):
    r = read_k6_json(fixtures / "semaphore__stages.k6.json")
    assert r.frame["vu"].to_list() == [1, 2, 1, 3]  # from metadata (newer k6) or tags (older)
    assert r.frame["load"].unique().to_list() == [3.0]
    assert r.frame.height == 4  # custom stage metrics are not requests
    assert read_k6_json(fixtures / "semaphore__vus10.k6.json").frame["load"].null_count() == 3
