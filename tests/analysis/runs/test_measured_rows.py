"""Row classes of the measured sections: built from shared column groups, each column documented once."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from tests.notebooks.test_05_contention import synthetic_requests
from throttlelab.analysis.latency.response_curves import analyse_measured
from throttlelab.analysis.runs import measured_rows as mr
from throttlelab.result_tables import table

ROWS = [mr.ContentionLatencyRow, mr.WorkersLatencyRow, mr.InflationRow, mr.WorkerRunRow, mr.WorkerChangeRow,
        mr.WorkerTestRow, mr.WorkerTrendRow, mr.StageTestRow]


def _requests(tmp_path) -> pl.DataFrame:
    return pl.read_parquet(Path(synthetic_requests(tmp_path, np.random.default_rng(0))) / "requests.parquet")


def test_every_column_is_documented_and_optional_columns_default_to_null():
    for row in ROWS:
        assert row.__module__ == mr.__name__
        doc = row.__doc__.splitlines()
        for f in dataclasses.fields(row):
            assert f.name in doc, f"{row.__name__}.{f.name} undocumented"
    optional = {f.name for f in dataclasses.fields(mr.ContentionLatencyRow) if f.default is None}
    assert "p95_seconds" in optional and "mean_seconds" not in optional  # every statistic but the mean is optional
    assert [c[0] for c in mr.stat_columns(("p90",))] == ["p90_seconds", "p90_low", "p90_high"]


def test_the_run_level_group_is_shared_by_every_table_with_a_run_level_test():
    run_level = [c[0] for c in mr.RUN_LEVEL]
    for row in (mr.InflationRow, mr.WorkerTestRow, mr.StageTestRow):
        names = [f.name for f in dataclasses.fields(row)]
        assert [n for n in names if n in run_level] == run_level


def test_a_table_missing_a_documented_column_is_refused(tmp_path):
    requests = _requests(tmp_path)
    measured = analyse_measured(requests, n_boot=10)
    with pytest.raises(ValueError, match="missing columns \\['rank_biserial'\\]"):
        table(measured["inflation_mean"].drop("rank_biserial"), mr.InflationRow)
