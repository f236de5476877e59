"""Descriptive summaries of a sweep's runs."""

from __future__ import annotations

import polars as pl
import pytest

from throttlelab import tables
from throttlelab.experiment.sweeps.sweep_summary import pick_example_run, sweep_summary


def runs():
    rows = [
        # run_id, limit, threads, warmup, status, wall, cpu, periods, throttled, throttled_s
        ("a", 0.5, "2", False, "ok", 2.0, 1.0, 20, 18, 1.0),
        ("b", 0.5, "2", False, "ok", 2.2, 1.0, 22, 20, 1.2),
        ("c", 0.5, "2", True, "ok", 9.0, 1.0, 90, 90, 5.0),
        ("d", 0.5, "2", False, "failed", None, None, None, None, None),
        ("e", None, "2", False, "ok", 0.5, 1.0, 0, 0, 0.0),
    ]
    cols = ["run_id", "cpu_limit_cores", "threads", "warmup", "status", "wall_seconds", "cpu_seconds", "nr_periods",
            "nr_throttled", "throttled_seconds"]
    df = pl.DataFrame(rows, schema=cols, orient="row").with_columns(
        experiment=pl.lit("x"), backend=pl.lit("local"), workload=pl.lit("burner"), contention=pl.lit(0.0))
    return tables.conform(df, "runs")


def test_sweep_summary():
    s = sweep_summary(runs())
    assert s["limit"].to_list() == ["0.5", "unlimited"]
    half = s.row(0, named=True)
    assert (half["runs"], half["ok"]) == (3, 2)
    assert half["median_wall_seconds"] == pytest.approx(2.1)
    assert half["throttled_ratio"] == pytest.approx(38 / 42)
    assert half["median_effective_cores"] == pytest.approx((0.5 + 1 / 2.2) / 2)
    unl = s.row(1, named=True)
    assert unl["throttled_ratio"] is None and unl["cpu_limit_cores"] is None
    assert sweep_summary(runs(), include_warmup=True).row(0, named=True)["runs"] == 4


def test_pick_example_run():
    assert pick_example_run(runs()) == "b"
    assert pick_example_run(runs().filter(pl.col("status") == "failed")) is None


def test_service_metrics_appear_when_recorded():
    r = runs()
    assert not any(c.startswith("median_throughput") for c in sweep_summary(r).columns)
    r = r.with_columns(throughput_rps=pl.when(pl.col("status") == "ok").then(100.0 + pl.col("wall_seconds")),
                       latency_p99_seconds=pl.lit(0.02))
    s = sweep_summary(r)
    assert s.columns[-2:] == ["median_throughput_rps", "median_latency_p99_seconds"]
    assert s.filter(pl.col("limit") == "0.5")["median_throughput_rps"].to_list() == [pytest.approx(102.1)]
