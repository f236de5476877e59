"""Tests of throttlelab.report.notebook: a notebook's output folder, tables, results and headlines."""

from __future__ import annotations

import json

import polars as pl

from throttlelab.report import notebook as tn


def test_results_tables_and_headlines(tmp_path):
    out = tn.start(tmp_path / "out", name="03_cpu_limits")
    assert out.is_dir() and tn.output_dir() == out
    df = pl.DataFrame({"limit": [1.0, 2.0], "runs": [[1, 2], [3]]})
    csv = tn.save_table(df, "cells")
    assert csv.read_text().splitlines() == ["limit,runs", '1.0,"[1, 2]"', "2.0,[3]"]
    assert pl.read_parquet(out / "cells.parquet")["runs"].to_list() == [[1, 2], [3]]  # nested kept in parquet
    tn.save_table({"a": [1]}, "plain")
    tn.save_table({"a": [2]}, "plain")  # saved twice, listed once
    tn.headline("4 cores beat 6")
    tn.headline("limit 2 is enough")
    assert tn.write_results({"best": 4.0}) is None
    doc = json.loads((out / "results.json").read_text())
    assert doc["notebook"] == "03_cpu_limits" and doc["schema"] == 1
    assert doc["results"] == {"best": 4.0} and doc["tables"] == ["cells", "plain"]
    assert json.loads((out / "headlines.json").read_text()) == ["4 cores beat 6", "limit 2 is enough"]


def test_a_rerun_starts_clean(tmp_path):
    tn.start(tmp_path, name="x")
    tn.headline("old")
    tn.write_results({})
    tn.start(tmp_path, name="x")
    assert not (tmp_path / "results.json").exists() and not (tmp_path / "headlines.json").exists()


def test_non_finite_results_are_written_as_null(tmp_path):
    tn.start(tmp_path)
    tn.write_results({"x": float("nan"), "y": [1.5, float("inf")]})
    text = (tmp_path / "results.json").read_text()
    assert json.loads(text)["results"] == {"x": None, "y": [1.5, None]}
    assert "NaN" not in text and "Infinity" not in text
