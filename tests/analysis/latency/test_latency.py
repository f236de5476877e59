"""Latency statistics: bootstrap intervals, failures kept, inflation against a baseline."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from throttlelab.analysis.latency.latency import bootstrap_estimates, inflation, inflation_vs_baseline, summarize_latency
from throttlelab.results import to_jsonable


def requests_frame(rng, levels=(0.0, 0.5), n=150, scale=(0.05, 0.10)):
    parts = [pl.DataFrame({"config": "c", "load": 5.0, "contention": lv, "status": "ok",
                           "latency_seconds": rng.exponential(s, n)}) for lv, s in zip(levels, scale)]
    return pl.concat(parts)


def test_estimates_bracket_the_statistic():
    x = np.random.default_rng(0).exponential(0.1, 300)
    est = bootstrap_estimates(x, ("mean", "p95"), n_boot=300)
    for name, e in est.items():
        assert e.low <= e.value <= e.high
        assert e.n_samples == 300
    assert est["mean"].confidence_interval().low == est["mean"].low
    assert to_jsonable(est["mean"])["value"] == pytest.approx(x.mean())


def test_small_samples_have_no_interval():
    e = bootstrap_estimates(np.array([0.2]), ("mean",))["mean"]
    assert e.value == 0.2 and math.isnan(e.low)
    assert bootstrap_estimates(np.array([]), ("mean",))["mean"].n_samples == 0


def test_summary_keeps_failures_and_orders_groups():
    df = requests_frame(np.random.default_rng(1))
    failures = pl.DataFrame({"config": ["c", "c"], "load": [5.0, 5.0], "contention": [0.5, 0.5],
                             "status": ["timeout", "refused"], "latency_seconds": [None, None]},
                            schema_overrides={"latency_seconds": pl.Float64})
    s = summarize_latency(pl.concat([df, failures]), n_boot=200)
    assert s["contention"].to_list() == [0.0, 0.5]
    row = s.row(1, named=True)
    assert row["n"] == 152 and row["n_ok"] == 150 and row["n_failed"] == 2
    assert row["failed_by_status"] == "refused=1, timeout=1"
    assert row["failed_rate"] == pytest.approx(2 / 152)
    for stat in ("mean", "p50", "p95"):
        assert row[f"{stat}_low"] <= row[f"{stat}_seconds"] <= row[f"{stat}_high"]
    # 150 samples cannot support a 95% distribution-free interval for p99 (needs 368): no interval, not a wrong one
    assert math.isnan(row["p99_low"]) and math.isnan(row["p99_high"])
    assert row["max_seconds"] >= row["p99_seconds"]


def test_inflation_detects_a_doubling():
    rng = np.random.default_rng(2)
    inf = inflation(rng.exponential(0.1, 400), rng.exponential(0.05, 400), "mean", n_boot=400)
    assert inf.ratio.low < inf.ratio.value < inf.ratio.high
    assert 1.5 < inf.ratio.value < 2.6
    assert inf.p_value < 1e-6 and inf.rank_biserial > 0
    lo, hi = inf.confidence_interval()
    assert lo < inf.percent < hi


def test_inflation_table_has_baseline_row_at_zero():
    t = inflation_vs_baseline(requests_frame(np.random.default_rng(3)), stat="p95", n_boot=200)
    base = t.filter(pl.col("contention") == 0.0).row(0, named=True)
    assert base["ratio"] == 1.0 and base["percent"] == 0.0
    assert t.filter(pl.col("contention") == 0.5)["percent"][0] > 0


def test_same_distribution_is_not_called_different():
    rng = np.random.default_rng(4)
    inf = inflation(rng.exponential(0.05, 200), rng.exponential(0.05, 200), n_boot=200)
    assert inf.ratio.low < 1 < inf.ratio.high
