"""Measured sections: typed tables from measured requests, validated against the generated schema."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from tests.notebooks.results_schemas import validate_object
from tests.notebooks.test_05_contention import synthetic_requests, worker_requests
from throttlelab.analysis.runs import measured_rows as mr
from throttlelab.analysis.runs import measured_sections as ms
from throttlelab.analysis.latency.neighbour_workers import analyse_neighbour_workers
from throttlelab.analysis.latency.response_curves import analyse_measured


def _requests(tmp_path, make) -> pl.DataFrame:
    return pl.read_parquet(Path(make(tmp_path, np.random.default_rng(0))) / "requests.parquet")


def test_measured_requests_give_typed_tables_and_one_fit_per_config_and_load(tmp_path):
    requests = _requests(tmp_path, synthetic_requests)
    m = ms.measured_contention(requests, analyse_measured(requests, n_boot=10))
    doc = validate_object(m)
    assert doc["requests"] == 481 and doc["by_status"] == {"ok": 480, "timeout": 1}
    assert [(f["config"], f["load"]) for f in doc["fits"]] == [("workers=8,semaphore=none", 5.0),
                                                             ("workers=8,semaphore=none", 10.0)]
    fitted = [f for f in m.fits if f.fit is not None]
    assert fitted and all(f.fit.derived["knee"].low <= f.fit.derived["knee"].value <= f.fit.derived["knee"].high
                          for f in fitted if f.fit.derived["knee"].low is not None)
    assert {r["failed_by_status"] for r in doc["summary"]} >= {"timeout=1"}
    assert set(doc["inflation_mean"][0]) == {f for f in mr.InflationRow.__dataclass_fields__}


def test_worker_sweep_and_notes(tmp_path):
    requests = _requests(tmp_path, worker_requests)
    w = validate_object(ms.measured_workers(analyse_neighbour_workers(requests, n_boot=10)))
    assert w["workers"] == [2, 4, 6, 8, 10] and [r["neighbour_workers"] for r in w["tests"]] == [4, 6, 8, 10]
    assert w["trend"][0]["jt_tau"] > 0 and "optimistic" in w["note"]
    note = validate_object(ms.measured_workers({"note": "not enough data to decide: one worker count"}))
    assert note["summary"] == [] and note["share"] is None
    stages = validate_object(ms.measured_stages(requests, {"note": "not enough data to decide"}))
    assert stages["by_status"] == {"ok": 200, "refused": 1} and stages["tests"] == [] and stages["base"] is None
    assert ms.live_sweep(None) is None
    assert validate_object(ms.live_sweep({"store": "data/raw/x", "points": 2, "backend": "local"}))["points"] == 2
