"""The append-only run store."""

from __future__ import annotations

import datetime as dt
import json
import os

import polars as pl
import pytest

from throttlelab import tables
from throttlelab.errors import InputError
from throttlelab.experiment.sweeps.run_store import RunStore


def row(run_id: str, status: str = "ok", **kw):
    return {"experiment": "e", "run_id": run_id, "backend": "local", "workload": "burner", "status": status,
            "threads": "2", "cpu_limit_cores": 0.5, "replicate": 0, "wall_seconds": 1.0,
            "started_at": dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.timezone.utc), **kw}


def test_empty_store_reads_as_canonical(tmp_path):
    store = RunStore(tmp_path / "e")
    df = store.read_runs()
    assert df.height == 0 and tables.validate(df, "runs") == []
    assert store.completed_run_ids() == set()


def test_append_read_and_attempts(tmp_path):
    store = RunStore(tmp_path / "e")
    store.append(row("a"))
    store.append(row("b", "failed", error="exit code 1", exit_code=1))
    p = store.append(row("b", "ok", wall_seconds=2.0))
    assert p.name == "b~2.json"
    df = store.read_runs()
    assert tables.validate(df, "runs") == []
    assert df.height == 2 and sorted(df["run_id"]) == ["a", "b"]
    assert df.filter(pl.col("run_id") == "b")["status"].item() == "ok"
    assert df["started_at"].dtype == tables.UTC_TIME
    assert df["started_at"][0] == dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.timezone.utc)
    every = store.read_runs(all_attempts=True)
    assert every.height == 3 and sorted(every["attempt"]) == [1, 1, 2]
    assert store.completed_run_ids() == {"a", "b"}
    # previous rows are never rewritten
    assert json.loads((store.runs_dir / "b.json").read_text())["status"] == "failed"


def test_completed_ok_only(tmp_path):
    store = RunStore(tmp_path / "e")
    store.append(row("a"))
    store.append(row("b", "timeout", error="killed"))
    assert store.completed_run_ids(include_failed=False) == {"a"}


def test_append_requires_identity(tmp_path):
    with pytest.raises(ValueError, match="run_id"):
        RunStore(tmp_path).append({"experiment": "e", "status": "ok"})


def test_no_temporary_left_and_stale_ones_removed(tmp_path):
    store = RunStore(tmp_path / "e")
    store.append(row("a"))
    assert [p.name for p in store.runs_dir.iterdir()] == ["a.json"]
    stale = store.runs_dir / ".tmp-a-999999999"
    stale.write_text("{")
    mine = store.runs_dir / f".tmp-b-{os.getpid()}"
    mine.write_text("{")
    assert store.remove_temporaries() == [stale]
    assert mine.exists() and store.read_runs().height == 1


def test_unreadable_row_names_file(tmp_path):
    store = RunStore(tmp_path / "e")
    store.runs_dir.mkdir(parents=True)
    (store.runs_dir / "x.json").write_text("{not json")
    with pytest.raises(InputError, match="x.json"):
        store.read_runs()


def test_monitor_path_relative(tmp_path):
    store = RunStore(tmp_path / "e")
    p = store.monitor_path("r1")
    assert p.parent.is_dir() and store.relative(p) == "monitor/r1.log"
