"""Tests of throttlelab.analysis.runs.runs_input: a runs table from published data, a file or a run store."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from throttlelab import tables
from throttlelab.analysis.runs.runs_input import load_runs
from throttlelab.errors import InputError

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "runs" / "thread_sweep.csv"


def test_load_runs_errors_name_the_file(tmp_path):
    with pytest.raises(InputError, match="not found"):
        load_runs(tmp_path / "nope.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match="bad.csv"):
        load_runs(bad)
    with pytest.raises(InputError, match="no run store"):
        load_runs(tmp_path)


def test_load_runs_from_parquet_and_run_store(tmp_path):
    from throttlelab.experiment.sweeps.run_store import RunStore

    runs = load_runs(FIXTURE)
    runs.write_parquet(tmp_path / "r.parquet")
    assert load_runs(tmp_path / "r.parquet").height == runs.height
    store = RunStore(tmp_path / "store" / "exp")
    for row in runs.head(3).iter_rows(named=True):
        store.append(row)
    assert load_runs(tmp_path / "store").height == 3
    assert load_runs(tmp_path / "store" / "exp").height == 3


def test_published_names_and_a_canonical_csv(tmp_path):
    ffmpeg = load_runs("")
    assert load_runs("published:ffmpeg").equals(ffmpeg)
    assert tables.validate(ffmpeg.select(list(tables.schema("runs"))), "runs") == []
    runs = load_runs(FIXTURE)
    runs.head(4).select("experiment", "run_id", "backend", "workload", "status", "threads", "cpu_limit_cores",
                        "wall_seconds", "started_at").write_csv(tmp_path / "c.csv")
    again = load_runs(tmp_path / "c.csv")
    assert again.schema["threads"] == pl.String and again.schema["started_at"] == tables.UTC_TIME
    assert again["wall_seconds"].to_list() == runs.head(4)["wall_seconds"].to_list()


def test_unknown_format_and_wrong_types(tmp_path):
    (tmp_path / "r.json").write_text("[]")
    with pytest.raises(InputError, match="unknown runs table format"):
        load_runs(tmp_path / "r.json")
    pl.DataFrame({"experiment": ["e"], "run_id": ["r"], "backend": ["local"], "workload": ["w"], "status": ["ok"],
                  "wall_seconds": ["fast"]}).write_parquet(tmp_path / "t.parquet")
    with pytest.raises(InputError, match="t.parquet: runs table has a column of the wrong type"):
        load_runs(tmp_path / "t.parquet")
