"""Measured requests and stage timings from k6 output, a missing path or a folder without requests."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from throttlelab.analysis.latency.concurrency import stage_summary
from throttlelab.errors import InputError
from throttlelab.experiment.latency.latency_inputs import load_measured


def test_load_measured_reads_k6_json(tmp_path):
    path = tmp_path / "k6.json"
    path.write_text(
        '{"type":"Metric","data":{"name":"http_req_duration","type":"trend"},"metric":"http_req_duration"}\n'
        '{"type":"Point","data":{"time":"2026-01-01T00:00:01Z","value":52.5,"tags":{"status":"200",'
        '"expected_response":"true"}},"metric":"http_req_duration"}\n')
    req, st = load_measured(str(path))
    assert req["latency_seconds"].to_list() == [0.0525] and req["status"].to_list() == ["ok"]
    assert st.height == 0


def test_load_measured_names_a_missing_path(tmp_path):
    with pytest.raises(InputError, match="not found"):
        load_measured(str(tmp_path / "nope"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no requests table"):
        load_measured(str(tmp_path / "empty"))


def test_load_measured_reads_k6_stage_trends_into_stage_timings():
    path = Path(__file__).resolve().parents[2] / "fixtures" / "ingest" / "semaphore__stages.k6.json"
    req, st = load_measured(str(path))
    assert req.height == 4 and req["status"].to_list().count("refused") == 1
    assert st.height == 6 and set(st["stage"]) == {"embedding", "categories", "total"}
    emb = st.filter(pl.col("stage") == "embedding").sort("request_id")
    assert emb["request_id"].to_list() == [-1, 0, 1, 2]  # -1: a value k6 wrote without vu/iter (not linked)
    summ = stage_summary(st.with_columns(pl.lit("k6").alias("config")))
    assert summ.filter(pl.col("stage") == "embedding")["n"][0] == 4
