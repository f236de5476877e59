"""Active time under a quota: the Go write-up's table."""

from __future__ import annotations

import pytest

from throttlelab.analysis.limits.active_time import active_time_from_runs, fit_active_time, slowdown_table
from throttlelab.analysis.runs.prepare import prepare_runs
from throttlelab.analysis.runs.runs_input import load_runs
from throttlelab.ingest.published.published import load_go_active_time


def test_go_active_time_is_proportional_to_the_limit():
    d = load_go_active_time()
    f = fit_active_time(d["limit_share"], d["active_over_wall"])
    assert f.slope == pytest.approx(0.95, abs=0.02)
    assert f.slope_ci.low < f.slope < f.slope_ci.high < 1.0
    est, ci = f.slowdown_factor(0.128)
    assert 7.5 < est < 9 and ci.low < est < ci.high  # the write-up: 1000/128 = 7.8x
    t = slowdown_table(d, f)
    assert t["observed_slowdown"][0] == pytest.approx(1 / 0.106)
    assert t["quota_only_slowdown"][0] == pytest.approx(7.8125)
    free = fit_active_time(d["limit_share"], d["active_over_wall"], through_origin=False)
    assert free.intercept_ci.low < 0 < free.intercept_ci.high
    shared = f.as_fit()  # the shared Fit: slope only when through the origin, both with an intercept
    assert set(shared.parameters) == {"slope"} and shared.confidence_interval("slope") == f.slope_ci
    assert shared.goodness["r_squared"] == f.r_squared and shared.n == f.n
    assert set(free.as_fit().parameters) == {"slope", "intercept"}


def test_active_time_from_runs_uses_cpu_seconds():
    runs = prepare_runs(load_runs("tests/fixtures/runs/thread_sweep.csv")).runs
    a = active_time_from_runs(runs)
    assert a.height == runs.height
    assert (a["quota_used"] <= 1.5).all()
    assert active_time_from_runs(prepare_runs(load_runs("")).runs).is_empty()


def test_too_few_points():
    with pytest.raises(ValueError):
        fit_active_time([0.5], [0.5])
