"""Prometheus API JSON read one series at a time: same results as loading it whole, errors with their line."""

from __future__ import annotations

import json

import pytest

from throttlelab.errors import InputError
from throttlelab.ingest.prometheus import prometheus_json
from throttlelab.ingest.prometheus.prometheus import read_prometheus


def _doc(n_series=40, n_points=50):
    return {"status": "success", "data": {"resultType": "matrix", "result": [
        {"metric": {"__name__": "container_cpu_cfs_periods_total", "pod": "p", "container": f"c{k}", "id": f"/x/{k}"},
         "values": [[1770387840 + 15 * i, str(100 * i + k)] for i in range(n_points)]} for k in range(n_series)]}}


@pytest.mark.parametrize("indent", [None, 1])
def test_streamed_equals_whole(tmp_path, monkeypatch, indent):
    p = tmp_path / "q.json"
    p.write_text(json.dumps(_doc(), indent=indent))
    monkeypatch.setattr(prometheus_json, "_READ", 700)  # series cross buffer ends
    streamed = read_prometheus(p)
    whole_path = tmp_path / "q2.json"
    doc = _doc()
    whole_path.write_text(json.dumps({"data": doc["data"], "status": "success"}))  # other key order: loaded whole
    whole = read_prometheus(whole_path)
    assert streamed.samples.drop("source").equals(whole.samples.drop("source"))
    assert streamed.samples.height == 40 * 50 and streamed.lines_total == 2000


def test_cut_file_names_its_line(tmp_path):
    p = tmp_path / "cut.json"
    text = json.dumps(_doc(3, 5), indent=1)
    p.write_text(text[: len(text) // 2])
    with pytest.raises(InputError, match=r"cut.json:\d+: invalid JSON"):
        read_prometheus(p)


def test_error_response(tmp_path):
    p = tmp_path / "err.json"
    p.write_text('{"status":"error","errorType":"bad_data","error":"parse error at char 5"}')
    with pytest.raises(InputError, match="Prometheus query failed \\(parse error at char 5\\)"):
        read_prometheus(p)


def test_non_object_items_are_counted(tmp_path):
    p = tmp_path / "odd.json"
    doc = _doc(1, 2)
    doc["data"]["result"].append(42)
    p.write_text(json.dumps(doc))
    r = read_prometheus(p)
    assert r.samples.height == 2 and r.skipped.counts == {"result item is not a series object": 1}
