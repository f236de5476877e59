"""The knee, the expected time's interval and the recommended limit stepping past dead zones."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from throttlelab.analysis.limits.dead_zone_results import DeadZoneAnalysis, LimitTest, group_zones
from throttlelab.analysis.limits.dead_zones import find_dead_zones
from throttlelab.analysis.stats.noise import NoiseModel
from throttlelab.analysis.runs.prepare import limit_summary, prepare_runs
from throttlelab.analysis.limits.recommend import expected_time, find_knee, knee_uncertainty, recommend_limit
from throttlelab.analysis.runs.runs_input import load_runs
from throttlelab.results import Estimate

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "runs" / "thread_sweep.csv"


def summary_of(times: dict[float, float], runs: int = 3) -> pl.DataFrame:
    """A per-limit summary with the columns of limit_summary (limit -> geometric-mean seconds)."""
    rows = [{"limit_order": c, "cpu_limit_cores": c, "limit_label": f"{c * 1000:.0f}m", "geomean_seconds": t,
             "runs": runs, "reserved_core_seconds": c * t} for c, t in times.items()]
    return pl.DataFrame(rows)


def analysis(limits: list[LimitTest], *, decidable: bool = True) -> DeadZoneAnalysis:
    return DeadZoneAnalysis({}, "g", decidable, "decided", False, 5.0, 0.05, "maxt", None, group_zones(limits),
                            tuple(limits), NoiseModel(0.05, 10, "replicates", False, 4), None, {}, 12)


def test_knee_is_the_smallest_limit_within_the_tolerance():
    k = find_knee(summary_of({1: 40.0, 2: 21.0, 4: 11.5, 6: 11.0, 8: 10.6}), tolerance_pct=10)
    assert (k.limit_label, k.best_limit_label) == ("4000m", "8000m")
    assert k.excess_pct == pytest.approx(100 * (11.5 / 10.6 - 1))
    assert find_knee(summary_of({1: 40.0, 2: 21.0, 4: 11.5, 6: 11.0, 8: 10.6}), tolerance_pct=1).limit_label == "8000m"


def test_expected_time_is_symmetric_on_the_log_scale_and_narrows_with_runs():
    noise = NoiseModel(0.1, 8, "replicates", False, 3)
    lo, hi = expected_time(10.0, 4, noise)
    assert math.isclose(lo * hi, 100.0) and lo < 10 < hi
    lo9, hi9 = expected_time(10.0, 16, noise)
    assert hi9 / lo9 < hi / lo
    prior = NoiseModel(0.1, math.inf, "prior cv", True, 0)
    assert expected_time(10.0, 4, prior)[1] < hi  # normal quantile below the t quantile with 8 df


def test_expected_time_covers_the_true_geometric_mean():
    rng = np.random.default_rng(3)
    hits = 0
    for _ in range(2000):
        x = rng.normal(np.log(10.0), 0.1, 4)
        sd = float(np.std(x, ddof=1))
        lo, hi = expected_time(float(np.exp(x.mean())), 4, NoiseModel(sd, 3, "replicates", False, 1))
        hits += lo <= 10.0 <= hi
    assert 0.93 <= hits / 2000 <= 0.97


def test_recommendation_steps_past_a_dead_zone():
    times = {1: 40.0, 2: 21.0, 4: 11.5, 6: 15.0, 8: 10.8}

    def limit_test(c, base, pct, lo, hi, p, verdict):
        est = Estimate(pct, lo, hi, 0.95, "simultaneous bound", p, 6, "pct")
        return LimitTest(c, f"{c * 1000:.0f}m", 3, base, f"{base * 1000:.0f}m", est, p, p, p, verdict, 5.0)

    limits = [LimitTest(1.0, "1000m", 3, verdict="lowest limit", noise_cv_pct=5.0)]
    limits += [limit_test(c, 1.0, -50.0, -55.0, -45.0, 0.9, "not a dead zone") for c in (2.0, 4.0)]
    limits += [limit_test(6.0, 4.0, 30.0, 20.0, 40.0, 0.001, "dead zone"), limit_test(8.0, 4.0, -6.0, -10.0, -2.0, 0.9,
                                                                          "not a dead zone")]
    s = summary_of(times)
    r = recommend_limit(s, analysis(limits), tolerance_pct=10)
    assert r.limit_label == "4000m" and r.avoid == ("6000m",) and "avoid 6000m" in r.reason
    assert r.expected_seconds.low < 11.5 < r.expected_seconds.high and r.core_seconds == pytest.approx(46.0)
    assert abs(sum(r.probability_knee.values()) - 1) < 1e-9 and "6000m" not in r.probability_knee
    r2 = recommend_limit(summary_of({1: 40.0, 2: 21.0, 4: 15.0, 6: 11.5, 8: 11.2}), analysis(
        [*limits[:2], limit_test(4.0, 2.0, 0.0, -1.0, 1.0, 0.5, "not a dead zone"), *limits[3:]]), tolerance_pct=10)
    assert r2.limit_label == "8000m" and "6000m lies in a dead zone" in r2.reason


def test_without_measured_noise_the_choice_has_no_stated_uncertainty():
    s = summary_of({1: 40.0, 2: 21.0, 4: 11.5})
    prob, rng_, note = knee_uncertainty(s, analysis([], decidable=False), (), tolerance_pct=10)
    assert prob is None and rng_ is None and "not measured" in note


def test_on_the_fixture_sweep_the_recommendation_is_the_knee():
    prepared = prepare_runs(load_runs(str(FIXTURE)))
    runs = prepared.runs.filter(pl.col("threads") == "4")
    [dz] = find_dead_zones(runs, n_sim=2000)
    r = recommend_limit(limit_summary(runs), dz)
    assert r.limit_label == find_knee(limit_summary(runs)).limit_label == "4000m"
    assert set(r.limit_range) <= set(r.probability_knee) and not r.assumption_based
