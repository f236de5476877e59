"""One limit's thread-count choice: best, near-best, auto against the best (selection-adjusted), the count to run."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from throttlelab.analysis.stats.noise import NoiseModel
from throttlelab.analysis.threads.thread_choice import choose_threads, selection_adjusted

MEASURED = NoiseModel(0.05, 12.0, "own cells", False, 1)


def _cells(seconds: dict[str, float], runs: int = 3, limit_x: float = 2.0) -> pl.DataFrame:
    return pl.DataFrame({
        "limit_label": "2", "cpu_limit_cores": 2.0, "limit_x": limit_x, "threads": list(seconds),
        "explicit": [t != "auto" for t in seconds], "runs": [runs] * len(seconds),
        "mean_log": [math.log(v) for v in seconds.values()], "geomean_seconds": list(seconds.values()),
    })


def test_a_clearly_slower_count_is_not_near_the_best_and_auto_is_run_when_not_worse():
    c = choose_threads(_cells({"1": 20.0, "2": 10.0, "4": 10.2, "auto": 9.9}), MEASURED, 0.05, 0.95)
    assert c.best_threads == "2" and c.near_best_threads == ("2", "4")
    assert c.worse_than_best_p_values["1"] < 0.001 and c.worse_than_best_p_values["4"] > 0.05
    assert c.recommended_threads == "auto" and c.core_seconds == pytest.approx(2.0 * 9.9)
    assert c.auto_vs_best.value == pytest.approx(-1.0) and c.auto_vs_best.p_value > 0.05
    assert c.auto_vs_best.method.startswith("Tukey-Kramer") and "Bonferroni across 1 limit(s)" in c.auto_vs_best.method
    assert c.best_seconds.low < 10.0 < c.best_seconds.high
    assert max(c.probability_best, key=c.probability_best.get) in ("2", "4")


def test_a_slow_auto_is_found_and_the_best_explicit_count_recommended():
    c = choose_threads(_cells({"1": 20.0, "2": 10.0, "auto": 14.0}), MEASURED, 0.05, 0.95)
    assert c.recommended_threads == "2"
    assert c.auto_vs_best.value == pytest.approx(40.0) and c.auto_vs_best.p_value < 0.01
    assert c.auto_vs_best.low > 20


def test_a_sweep_of_eight_limits_asks_more_of_each_limit():
    """The same limit as one of 8 in a sweep: p-values 8 times as large (Bonferroni), a wider interval, and a gap
    that one limit on its own would call slower is then left open."""
    cells = _cells({"1": 11.4, "2": 10.0, "4": 10.2, "auto": 11.4})
    one = choose_threads(cells, MEASURED, 0.05, 0.95, n_sim=4000)
    eight = choose_threads(cells, MEASURED, 0.05, 0.95, n_sim=4000, limits=8)
    assert one.worse_than_best_p_values["1"] < 0.05 and "1" not in one.near_best_threads
    assert eight.worse_than_best_p_values["1"] == pytest.approx(min(1, 8 * one.worse_than_best_p_values["1"]))
    assert "1" in eight.near_best_threads
    assert eight.auto_vs_best.low < one.auto_vs_best.low < one.auto_vs_best.high < eight.auto_vs_best.high
    assert one.auto_vs_best.p_value < 0.05 < eight.auto_vs_best.p_value
    # auto is run unless shown slower than the best explicit count
    assert one.recommended_threads == "2" and eight.recommended_threads == "auto"


def test_verdict_interval_and_p_value_agree():
    rng = np.random.default_rng(3)
    for r in range(40):
        secs = {t: float(10 * np.exp(rng.normal(0, 0.08))) for t in ("1", "2", "4", "8", "auto")}
        c = choose_threads(_cells(secs), MEASURED, 0.05, 0.95, n_sim=2000, seed=r, limits=4)
        e = c.auto_vs_best
        assert (e.p_value < 0.05) == (e.low > 0 or e.high < 0)
        assert e.low <= e.value <= e.high


def test_zero_noise_is_exact_and_a_prior_decides_nothing():
    zero = choose_threads(_cells({"1": 20.0, "2": 10.0, "auto": 12.0}), NoiseModel(0.0, 12.0, "zero", False, 1),
                          0.05, 0.95)
    assert zero.near_best_threads == ("2",) and zero.auto_vs_best.p_value is None
    assert zero.auto_vs_best.method.startswith("exact")
    prior = choose_threads(_cells({"1": 20.0, "2": 10.0, "auto": 12.0}, runs=1),
                           NoiseModel(0.1, math.inf, "prior", True, 0), 0.05, 0.95)
    assert prior.near_best_threads == ("1", "2")  # no test from a prior: nothing is shown slower
    assert prior.auto_vs_best.method.startswith("too few to decide") and prior.noise_source == "unmeasured"


def test_selection_adjusted_false_alarms_near_alpha_where_the_naive_test_inflates():
    """Null: auto and 5 explicit counts equally fast, 3 runs each, 10% noise (seeded, 400 sweeps)."""
    rng = np.random.default_rng(5)
    alarms = covered = 0
    reps = 400
    for r in range(reps):
        cells = np.repeat(np.arange(6), 3)
        y = rng.normal(0, 0.1, cells.size)
        means = np.array([y[cells == k].mean() for k in range(6)])
        resid = y - means[cells]
        sigma = math.sqrt((resid**2).sum() / (cells.size - 6))
        d = means[0] - means[1:].min()
        ci, p = selection_adjusted(d, 3, [3] * 5, NoiseModel(sigma, 12.0, "own cells", False, 1), 0.95,
                                   n_sim=2000, seed=r)
        alarms += p < 0.05
        covered += ci.low <= 0 <= ci.high  # the true difference is 0
    assert 0.02 <= alarms / reps <= 0.085
    assert covered / reps >= 0.92
