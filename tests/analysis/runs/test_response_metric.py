"""Each response metric's direction: the best thread count and dead zones are found the same way up or down."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from throttlelab import tables
from throttlelab.analysis.limits.cpu_limits import analyse_cpu_limits, dead_zone_sentences
from throttlelab.analysis.runs.prepare import prepare_runs
from throttlelab.analysis.runs.response_metric import (describe_change, metric_change_ci, metric_change_pct, metric_value,
                                                  resolve, worse_word)
from throttlelab.analysis.threads.thread_counts import analyse_thread_counts
from throttlelab.results import ConfidenceInterval

LIMITS = [0.5, 1.0, 2.0, 3.0, 4.0]


def _runs(metric: str, cost: dict[tuple[float, str], float], reps: int = 4, cv: float = 0.03, seed: int = 0) -> pl.DataFrame:
    """Runs whose *cost* per cell is given; the metric column holds cost, or 1/cost when higher is better."""
    m = resolve(metric)
    rng = np.random.default_rng(seed)
    rows = []
    for (limit, threads), c in cost.items():
        for r in range(reps):
            value = c * math.exp(rng.normal(0, cv))
            rows.append({"experiment": "x", "run_id": f"{limit}-{threads}-{r}", "backend": "published", "workload": "svc",
                         "cpu_limit_cores": limit, "threads": threads, "contention": 0.0, "replicate": r,
                         "status": "ok", m.name: 1 / value if m.higher_is_better else value})
    return tables.conform(pl.DataFrame(rows), "runs")


@pytest.mark.parametrize("name", list(tables.RESPONSE_METRICS))
def test_best_thread_count_follows_the_direction(name):
    m = resolve(name)
    # cost is lowest at 2 threads for every limit: the best metric value (highest throughput, lowest latency)
    cost = {(lim, t): 1.0 * (1 + 0.5 * abs(int(t) - 2)) for lim in LIMITS for t in ("1", "2", "4")}
    runs = _runs(name, cost)
    p = prepare_runs(runs, metric=name)
    [a] = analyse_thread_counts(p.runs)
    assert a.metric == m and not a.noise.assumption_based
    assert {c.best_threads for c in a.limits} == {"2"}
    best = max if m.higher_is_better else min
    cell = p.runs.filter(pl.col("cpu_limit_cores") == 1.0).group_by("threads").agg(pl.col(name).median())
    assert best(cell.iter_rows(), key=lambda r: r[1])[0] == "2"
    assert p.summary()["metric"]["direction"] == m.direction


@pytest.mark.parametrize("name", ["wall_seconds", "throughput_rps", "latency_p99_seconds"])
def test_dead_zone_is_found_whichever_way_the_metric_points(name):
    m = resolve(name)
    # cost falls with the limit, except at 3 cores where it is 40% worse than at 2
    cost = {(lim, "4"): c for lim, c in zip(LIMITS, [4.0, 2.0, 1.0, 1.4, 0.9])}
    p = prepare_runs(_runs(name, cost, reps=4), metric=name)
    [g] = analyse_cpu_limits(p, n_boot=20, n_sim=2000)
    assert [z.limits_labels for z in g.dead_zones.zones] == [("3000m",)]
    text = " ".join(dead_zone_sentences(g.dead_zones, m))
    if m.higher_is_better:
        assert "throughput -" in text and "lower throughput" in text
    else:
        assert "slower" in text or "higher p99 latency" in text or "+" in text


def test_metric_mismatch_is_refused():
    p = prepare_runs(_runs("throughput_rps", {(1.0, "1"): 1.0, (2.0, "1"): 0.5}), metric="throughput_rps")
    with pytest.raises(ValueError, match="prepared for throughput_rps"):
        analyse_thread_counts(p.runs, metric="wall_seconds")
    with pytest.raises(ValueError, match="prepared for throughput_rps"):
        analyse_cpu_limits(p, metric="latency_p99_seconds")


def test_runs_without_the_metric_are_counted_not_dropped():
    runs = _runs("throughput_rps", {(1.0, "1"): 1.0, (2.0, "1"): 0.5}, reps=2)
    runs = runs.with_columns(pl.when(pl.col("run_id") == "1.0-1-0").then(None).otherwise(pl.col("throughput_rps"))
                             .alias("throughput_rps"))
    p = prepare_runs(runs, metric="throughput_rps")
    assert p.runs.height == 3 and p.summary()["excluded_by_reason"] == {"no positive throughput_rps": 1}
    with pytest.raises(KeyError, match="unknown response metric"):
        prepare_runs(runs, metric="rps")


def test_back_transforms():
    thr, lat = resolve("throughput_rps"), resolve("latency_p999_seconds")
    assert metric_value(0.004, thr) == pytest.approx(250.0) and metric_value(0.004, lat) == 0.004
    assert metric_change_pct(100.0, thr) == pytest.approx(-50.0) and metric_change_pct(100.0, lat) == 100.0
    ci = metric_change_ci(ConfidenceInterval(-50.0, 100.0), thr)
    assert ci.low == pytest.approx(-50.0) and ci.high == pytest.approx(100.0)
    assert describe_change(-20.0, thr) == "20.0% lower throughput"
    assert worse_word(thr) == "lower throughput" and worse_word(resolve(None)) == "slower"
