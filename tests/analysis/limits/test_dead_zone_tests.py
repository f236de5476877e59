"""Each limit against its best lower limit: verdicts read off the bounds, the exact case, the noise in percent."""

from __future__ import annotations

import math

import numpy as np
import pytest

from throttlelab.analysis.limits.dead_zone_tests import exact_limit_tests, limit_tests, noise_cv_pct
from throttlelab.analysis.stats.excess_over_best import level_covariance
from throttlelab.analysis.stats.noise import estimate_effects

LIMITS = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]


def _tests(curve, *, cv=0.05, reps=3, seed=0, correction="maxt"):
    rng = np.random.default_rng(seed)
    order = np.repeat(np.arange(1, len(curve) + 1, dtype=float), reps)
    log_y = np.log(np.repeat(curve, reps)) + rng.normal(0, cv, order.size)
    effects = estimate_effects(order, log_y)
    lv, G = level_covariance(effects, log_y)
    labels = [f"{c:g}" for c in LIMITS[: len(curve)]]
    return limit_tests(effects.mean_log, lv, G, effects, LIMITS[: len(curve)], labels, threshold_pct=5.0, alpha=0.05,
                       correction=correction, n_sim=2000, seed=seed, interior_k=1.5)


def test_noise_in_percent():
    assert noise_cv_pct(0.1) == pytest.approx(100 * math.sqrt(math.expm1(0.01)))
    assert noise_cv_pct(math.inf) is None


@pytest.mark.parametrize("correction", ["maxt", "holm"])
def test_a_bump_is_a_dead_zone_against_the_best_lower_limit_and_verdicts_agree_with_bounds(correction):
    curve = np.array([10.0, 5.0, 3.5, 3.0, 4.5, 3.0])  # 5 cores: 50% slower than 4
    monotone_p, limits = _tests(curve, correction=correction)
    assert monotone_p < 0.05
    assert limits[0].verdict == "lowest limit" and limits[0].slowdown is None
    verdicts = {t.limit_label: t.verdict for t in limits}
    assert verdicts["5"] == "dead zone" and verdicts["2"] == verdicts["3"] == "not a dead zone"
    five = next(t for t in limits if t.limit_label == "5")
    assert five.baseline_label == "4" and 30 < five.slowdown.value < 70 and five.slowdown.p_value < 0.05
    for t in limits[1:]:
        lo, hi = t.slowdown.low, t.slowdown.high
        assert (t.verdict == "dead zone") == (lo > 5.0)
        assert (t.verdict == "not a dead zone") == (hi < 5.0)


def test_exact_verdicts_without_intervals():
    mu = np.log([10.0, 5.0, 6.0, 5.1])
    limits = exact_limit_tests(mu, LIMITS[:4], ["1", "2", "3", "4"], np.array([2, 2, 2, 2]), 5.0)
    assert [t.verdict for t in limits] == ["lowest limit", "not a dead zone", "dead zone", "not a dead zone"]
    assert limits[2].baseline_label == "2" and limits[2].slowdown.value == pytest.approx(20.0)
    assert limits[2].slowdown.low is None and limits[2].slowdown.p_value is None
