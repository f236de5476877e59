"""A Prometheus file's series: metric by name or file name, one label set per series, counter, rate or gauge."""

from __future__ import annotations

import json

import pytest

from throttlelab.errors import InputError
from throttlelab.ingest.prometheus.prometheus_series import Series, json_series, metric_of, series_key, series_kind, text_series
from throttlelab.ingest.skip_counter import SkipCounter

USAGE = "container_cpu_usage_seconds_total"


def test_metric_by_name_or_file_name():
    assert metric_of({"__name__": USAGE}, "x.json") == (USAGE, "__name__")
    assert metric_of({"__name__": "up"}, "x.json")[0] is None
    assert metric_of({}, f"/d/rate_{USAGE}.json") == (USAGE, "file name (no __name__)")
    assert metric_of({}, "/d/cpu.json")[0] is None


def test_cpu_total_is_the_containers_series_and_labels_are_sorted():
    assert series_key({"__name__": USAGE, "pod": "p", "cpu": "total", "container": "c"}) == "container=c,pod=p"
    assert series_key({"pod": "p", "cpu": "cpu00"}) == "cpu=cpu00,pod=p"


def _series(values, *, name=None, metric=USAGE, source="/d/x.json"):
    return Series(source, name, metric, {}, list(range(len(values))), values)


@pytest.mark.parametrize("series,forced,kind,why", [
    (_series([1.0], metric="container_spec_cpu_quota"), None, "gauge", "spec metric"),
    (_series([5.0, 1.0], name=USAGE), None, "counter", "metric name"),
    (_series([5.0, 1.0]), "counter", "counter", "given"),
    (_series([1.0, 2.0], source="/d/irate_usage.json"), None, "rate", "file name"),
    (_series([3.0]), None, "counter", "assumed"),
    (_series([1.0, 5.0, 3.0]), None, "rate", "go down 1 time"),
    (_series([1.0, 5.0, 0.01, 2.0]), None, "counter", "except at a restart"),
])
def test_kind(series, forced, kind, why):
    got, reason = series_kind(series, forced)
    assert got == kind and why in reason


def test_json_bad_values_are_skipped_one_by_one(tmp_path):
    p = tmp_path / "q.json"
    p.write_text(json.dumps({"status": "success", "data": {"resultType": "matrix", "result": [
        {"metric": {"__name__": USAGE, "pod": "a"}, "values": [[1, "1.5"], [2, "x"], [3, "2.5"]]},
        {"metric": {"__name__": "up"}, "values": [[1, "1"]]},
        "junk"]}}))
    skips = SkipCounter(str(p))
    series, total, prov = json_series(p, skips)
    assert total == 5 and prov == {"format": "prometheus-json", "result_type": "matrix"}
    assert [(s.ts, s.values) for s in series] == [([1000, 3000], [1.5, 2.5])]
    assert dict(skips.counts) == {"bad value": 1, "metric not used": 1, "result item is not a series object": 1}


def test_json_of_another_result_type_is_an_error(tmp_path):
    p = tmp_path / "s.json"
    p.write_text(json.dumps({"status": "success", "data": {"resultType": "scalar", "result": [1, "2"]}}))
    with pytest.raises(InputError, match="not a matrix or vector"):
        json_series(p, SkipCounter(str(p)))


def test_text_samples_without_timestamps_take_the_latest_and_repeats_are_skipped(tmp_path):
    p = tmp_path / "metrics.txt"
    p.write_text(f'{USAGE}{{pod="a"}} 10 1700000000000\n'
                 f'container_spec_cpu_quota{{pod="a"}} 50000\n'
                 f'container_spec_cpu_quota{{pod="a"}} 60000\n')
    skips = SkipCounter(str(p))
    series, lines, prov = text_series(p, skips)
    quota = next(s for s in series if s.metric == "container_spec_cpu_quota")
    assert lines == 3 and quota.ts == [1700000000000] and quota.values == [50000.0]
    assert "latest sample timestamp" in prov["untimed_samples"]
    assert sum(skips.counts.values()) == 1
