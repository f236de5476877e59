"""Tests of throttlelab.tables: canonical schemas, conform, validate, describe, response metrics."""

from __future__ import annotations

import polars as pl
import pytest

from throttlelab import tables


def test_every_table_has_documented_unique_columns():
    for name, cols in tables.TABLES.items():
        names = [c.name for c in cols]
        assert len(names) == len(set(names)), name
        assert all(c.doc for c in cols), name
        assert tables.empty(name).schema == pl.Schema(tables.schema(name))


def test_conform_adds_casts_orders_and_keeps_extras_when_asked():
    df = pl.DataFrame({"extra": [1], "run_id": ["r"], "experiment": ["e"], "backend": ["local"],
                       "workload": ["w"], "status": ["ok"], "nr_periods": [5.0]})
    out = tables.conform(df, "runs")
    assert list(out.columns) == list(tables.schema("runs"))
    assert out.schema["nr_periods"] == pl.Int64 and out["nr_periods"].to_list() == [5]
    assert out["wall_seconds"].to_list() == [None]
    assert tables.validate(out, "runs") == []
    assert tables.conform(df, "runs", strict=False).columns[-1] == "extra"
    with pytest.raises(ValueError, match="runs: missing required column\\(s\\) status"):
        tables.conform(df.drop("status"), "runs")


def test_validate_names_every_problem():
    good = tables.empty("stage_timings")
    assert tables.validate(good, "stage_timings") == []
    first = next(iter(tables.schema("stage_timings")))
    problems = tables.validate(good.drop(first), "stage_timings")
    assert problems == [f"missing column {first}"]
    runs = tables.conform(pl.DataFrame({"experiment": ["e"], "run_id": [None], "backend": ["b"], "workload": ["w"],
                                        "status": ["ok"]}), "runs")
    assert "column run_id has nulls" in tables.validate(runs, "runs")
    wrong = runs.with_columns(pl.col("wall_seconds").cast(pl.String))
    assert "column wall_seconds is String, expected Float64" in tables.validate(wrong, "runs")


def test_describe_and_unknown_table():
    md = tables.describe("samples").splitlines()
    assert md[:2] == ["| column | type | meaning |", "|---|---|---|"]
    assert len(md) == 2 + len(tables.schema("samples"))
    with pytest.raises(KeyError, match="unknown table 'run'; known: runs, samples"):
        tables.schema("run")


def test_response_metrics_know_their_direction():
    rps = tables.response_metric("throughput_rps")
    wall = tables.response_metric("wall_seconds")
    assert (rps.direction, rps.sign) == ("higher is better", -1)
    assert (wall.direction, wall.sign) == ("lower is better", 1)
    assert all(m in tables.schema("runs") for m in tables.RESPONSE_METRICS)
    with pytest.raises(KeyError, match="unknown response metric 'speed'"):
        tables.response_metric("speed")
