"""Analysis tables back in the metric's units: values inverted, changes converted, interval ends swapped."""

from __future__ import annotations

import polars as pl
import pytest

from throttlelab.analysis.runs.metric_views import best_threads_view, dead_zone_view, limits_view
from throttlelab.analysis.runs.prepare import limit_summary, prepare_runs
from throttlelab.analysis.runs.response_metric import resolve
from throttlelab.analysis.runs.runs_input import load_runs
from throttlelab.analysis.threads.thread_counts import analyse_thread_counts


def test_limits_view_for_throughput():
    p = prepare_runs(load_runs("published:automaxprocs"), metric="throughput_rps")
    v = limits_view(limit_summary(p.runs.filter(pl.col("threads") == "24")), p.metric)
    assert v["geomean_throughput_rps"].to_list() == [pytest.approx(22191.4)]
    assert "reserved_core_seconds" not in v.columns and "geomean_seconds" not in v.columns


def test_best_threads_view_swaps_interval_ends():
    p = prepare_runs(load_runs("published:automaxprocs"), metric="throughput_rps")
    [a] = analyse_thread_counts(p.runs)
    v = best_threads_view(a.table(), a.metric)
    row = v.row(0, named=True)
    assert row["best_throughput_rps"] == pytest.approx(44715.07)
    assert row["best_throughput_rps_ci_low"] < row["best_throughput_rps"] < row["best_throughput_rps_ci_high"]


def test_wall_seconds_tables_are_unchanged():
    t = pl.DataFrame({"slowdown_pct": [10.0], "slowdown_ci_low_pct": [1.0], "slowdown_ci_high_pct": [20.0]})
    assert dead_zone_view(t, resolve("wall_seconds")).equals(t)
    v = dead_zone_view(t, resolve("throughput_rps"))
    assert v["throughput_rps_change_ci_low_pct"][0] < v["throughput_rps_change_pct"][0] < v["throughput_rps_change_ci_high_pct"][0] < 0
