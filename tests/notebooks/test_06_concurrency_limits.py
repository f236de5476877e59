"""Notebook 06 (concurrency limits): the wiki's %-change table reproduces; measured timings get tests."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from tests.notebooks.results_schemas import validate
from throttlelab import tables


def synthetic_store(path, rng) -> str:
    req, st = [], []
    for config, light in (("workers=8,semaphore=none", 0.5), ("workers=8,semaphore=4", 0.05)):
        for vus in (10.0, 20.0):
            for i in range(60):
                run = f"{config}-{vus}-{i % 5}"  # five runs per configuration and load
                req.append({"experiment": "fx", "run_id": run, "config": config, "load": vus, "request_id": i,
                            "status": "ok", "latency_seconds": 1.0})
                for stage in ("embedding", "categories", "duplicates", "quality", "score", "total"):
                    scale = 1.0 if stage in ("embedding", "total") else light
                    st.append({"experiment": "fx", "run_id": run, "config": config, "load": vus, "request_id": i,
                               "stage": stage, "seconds": float(rng.exponential(scale))})
    tables.conform(pl.DataFrame(req), "requests").write_parquet(path / "requests.parquet")
    tables.conform(pl.DataFrame(st), "stage_timings").write_parquet(path / "stage_timings.parquet")
    return str(path)


def test_published_default(run_notebook):
    out, doc = run_notebook("06_concurrency_limits")
    validate(doc)
    res = doc["results"]
    assert res["wiki_table"]["verdicts"] == {"reproduced": 45, "close": 28, "inconsistent": 17}
    assert "no per-request samples" in res["wiki_table"]["tests"]
    table = pl.read_csv(out / "wiki_percent_change_w8.csv")

    def pct(load, stage, stat):
        return table.filter((pl.col("load") == load) & (pl.col("stage") == stage) & (pl.col("stat") == stat))

    assert round(pct(10, "embedding", "avg")["percent_change"][0], 1) == -18.4
    assert round(pct(20, "categories", "avg")["percent_change"][0], 1) == -93.4
    assert round(pct(15, "score", "avg")["percent_change"][0], 1) == -68.9
    assert pct(30, "total", "avg")["verdict"][0] == "reproduced"
    assert pct(20, "score", "p95")["verdict"][0] == "inconsistent"
    layout = pl.read_csv(out / "wiki_percent_change_w8_layout.csv")
    assert layout.filter(pl.col("load") == 10)["embedding"][0] == "−18.4%/+0.2%/+1.0%"
    assert res["measured"] is None
    h = res["headline_avg_total_30vus"]
    assert round(h["value"]) == -63 and h["low"] <= h["value"] <= h["high"] and h["p_value"] is None
    assert round(res["headline_p95_total_30vus"]["value"]) == -55 and "one k6 run" in h["note"]


def test_measured_stage_timings(run_notebook, tmp_path):
    out, doc = run_notebook("06_concurrency_limits", requests_path=synthetic_store(tmp_path, np.random.default_rng(0)))
    validate(doc)
    m = doc["results"]["measured"]
    assert m["base"] == "workers=8,semaphore=none" and m["other"] == "workers=8,semaphore=4"
    tests = pl.read_csv(out / "measured_tests.csv")
    light = tests.filter(pl.col("stage") == "categories")
    assert (light["verdict"] == "better").all() and (light["p_holm"] < 0.01).all()
    assert (light["runs"] == 5).all() and (light["run_change_high"] < 0).all()
    assert tests.height == 12


@pytest.mark.slow
def test_live_sweep_without_cgroup(run_notebook, tmp_path):
    sweep = {"experiment": "nb06", "endpoint": "pipeline", "mode": "closed", "loads": [2],
             "configs": [{"semaphore": None}, {"semaphore": 1}], "seconds": 0.5, "warmup_seconds": 0.1,
             "max_workers": 2, "heavy_elements": 65536, "light_elements": 16384, "score_elements": 16384}
    out, doc = run_notebook("06_concurrency_limits", live_sweep=sweep, live_backend="none",
                            data_root=str(tmp_path / "raw"))
    m = doc["results"]["measured"]
    assert doc["results"]["live_sweep"]["points"] == 2
    assert m["by_status"].get("ok", 0) == m["requests"] > 0
    assert set(m["verdicts"]) <= {"better", "worse", "no difference shown", "not enough data to decide",
                                "too few to decide (runs)"}
