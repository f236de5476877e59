"""Preparing runs: exclusions are counted, unlimited is placed, groups are stable."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from throttlelab.analysis.runs.prepare import infer_machine_cores, iter_groups, limit_label, limit_summary, prepare_runs
from throttlelab.analysis.runs.runs_input import load_runs

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "runs" / "thread_sweep.csv"


def test_exclusions_are_counted_by_reason():
    p = prepare_runs(load_runs(FIXTURE))
    assert p.runs.height == 60
    assert p.summary()["excluded_by_reason"] == {"status failed": 1, "warm-up run": 1}
    assert p.n_excluded == 2


def test_unlimited_is_placed_at_machine_cores_or_left_out_of_fits():
    runs = load_runs("")
    p = prepare_runs(runs)
    assert p.machine_cores == 20  # "i7-12700F (20 threads)"
    unl = p.runs.filter(pl.col("limit_label") == "unlimited")
    assert unl["limit_x"].to_list() == [20.0] and unl["limit_order"].to_list() == [float("inf")]
    q = prepare_runs(runs.with_columns(pl.lit(None, pl.String).alias("node")))
    assert q.machine_cores is None
    assert q.runs.filter(pl.col("limit_label") == "unlimited")["limit_x"].to_list() == [None]
    assert "left out of fits" in q.summary()["unlimited_position"]


def test_labels_groups_and_summary():
    assert limit_label(1.5) == "1500m" and limit_label(None) == "unlimited"
    assert infer_machine_cores(pl.DataFrame({"node": ["a (8 cores)", "b (8 cores)"]})) == 8
    p = prepare_runs(load_runs(""))
    groups = list(iter_groups(p.runs))
    assert len(groups) == 1 and groups[0][0] == {"workload": "ffmpeg", "threads": "auto", "contention": 0.0}
    s = limit_summary(p.runs)
    row = s.filter(pl.col("limit_label") == "4000m").row(0, named=True)
    assert row["runs"] == 2 and row["geomean_seconds"] == pytest.approx((22.07 * 18.78) ** 0.5)
    assert row["reserved_core_seconds"] == pytest.approx(4 * row["geomean_seconds"])
