"""Prometheus query_range JSON -> samples."""

from __future__ import annotations

import json

import pytest

from throttlelab import tables
from throttlelab.errors import InputError
from throttlelab.ingest.prometheus.prometheus import read_prometheus


def test_cadvisor_counters(fixtures):
    r = read_prometheus(fixtures / "prometheus_cadvisor.json")
    s = r.samples
    assert tables.validate(s, "samples") == []
    assert s.height == 5 and s["pod"][0] == "ffmpeg-7d9c5b6f4-x2k8p" and s["container"][0] == "ffmpeg"
    assert s["limit_cores"].to_list() == [4.0] * 5 and s["period_us"][0] == 100000
    assert s["usage_seconds"].to_list() == [100.5, 160.5, 220.5, None, 300.0]
    assert r.skipped.counts == {"metric not used": 2, "bad value": 1}
    assert r.unit == "values" and r.lines_used + r.skipped.total == r.lines_total == 32
    iv = r.intervals()
    assert iv["throttled_ratio"].to_list() == [140 / 150, 140 / 150, 120 / 150, 120 / 150]
    assert iv["effective_cores"][0] == pytest.approx(60 / 15)


def test_split_files_merge(tmp_path, fixtures):
    doc = json.loads((fixtures / "prometheus_cadvisor.json").read_text())
    paths = []
    for k, series in enumerate(doc["data"]["result"][:4]):
        p = tmp_path / f"q{k}.json"
        p.write_text(json.dumps({"status": "success", "data": {"resultType": "matrix", "result": [series]}}))
        paths.append(p)
    s = read_prometheus(paths).samples
    assert s.height == 5 and s["nr_throttled"].to_list() == [900, 1040, 1180, 1300, 1420]


def test_scalar_is_refused(tmp_path):
    p = tmp_path / "v.json"
    p.write_text('{"status":"success","data":{"resultType":"scalar","result":[1435781451.781,"1"]}}')
    with pytest.raises(InputError, match="not a matrix or vector result"):
        read_prometheus(p)
