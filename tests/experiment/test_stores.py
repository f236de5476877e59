"""Tests of throttlelab.experiment.stores: the runs and latency tables the analysis layer reads."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

from throttlelab import tables
from throttlelab.errors import InputError
from throttlelab.experiment.stores import is_run_store, read_latency_store, read_store_runs
from throttlelab.experiment.sweeps.run_store import RunStore


def row(experiment: str, run_id: str, **kw):
    return {"experiment": experiment, "run_id": run_id, "backend": "local", "workload": "burner", "status": "ok",
            "threads": "2", "cpu_limit_cores": 0.5, "replicate": 0, "wall_seconds": 1.0,
            "started_at": dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.timezone.utc), **kw}


def test_one_store_and_a_folder_of_stores(tmp_path):
    RunStore(tmp_path / "a").append(row("a", "r1"))
    RunStore(tmp_path / "a").append(row("a", "r2", wall_seconds=2.0))
    RunStore(tmp_path / "b").append(row("b", "r1", load=10.0))
    (tmp_path / "notes").mkdir()
    assert is_run_store(tmp_path / "a") and is_run_store(tmp_path)
    assert not is_run_store(tmp_path / "notes") and not is_run_store(tmp_path / "missing")
    one = read_store_runs(tmp_path / "a")
    assert sorted(one["run_id"]) == ["r1", "r2"]
    both = read_store_runs(tmp_path)
    assert both.group_by("experiment").len().sort("experiment").rows() == [("a", 2), ("b", 1)]
    assert tables.validate(both.select(list(tables.schema("runs"))), "runs") == []


def test_no_store_and_no_runs_are_input_errors(tmp_path):
    with pytest.raises(InputError, match="no run store here"):
        read_store_runs(tmp_path)
    (tmp_path / "e" / "runs").mkdir(parents=True)
    with pytest.raises(InputError, match="run store holds no runs"):
        read_store_runs(tmp_path / "e")


def test_latency_store_without_requests_gives_empty_canonical_tables(tmp_path):
    RunStore(tmp_path).append(row("lat", "r1"))
    runs, requests, stages = read_latency_store(tmp_path)
    assert runs.height == 1
    assert requests.height == 0 and list(requests.schema) == list(tables.schema("requests"))
    assert stages.height == 0 and list(stages.schema) == list(tables.schema("stage_timings"))


def test_latency_store_concatenates_request_files(tmp_path):
    RunStore(tmp_path).append(row("lat", "r1"))
    (tmp_path / "requests").mkdir()
    for i in range(2):
        part = tables.conform(pl.DataFrame({"experiment": "lat", "run_id": f"r{i}", "request_id": [0, 1, 2],
                                            "status": "ok"}), "requests")
        part.write_parquet(tmp_path / "requests" / f"r{i}.parquet")
    _, requests, _ = read_latency_store(tmp_path)
    assert requests.height == 6 and sorted(set(requests["run_id"])) == ["r0", "r1"]
