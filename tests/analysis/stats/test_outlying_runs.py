"""Outlying runs: the robust scale, what a level of two cannot say, noise growing along levels, false alarms."""

from __future__ import annotations

import math

import numpy as np
import pytest

from throttlelab.analysis.stats.outlying_runs import MIN_PAIRS, flag_outliers, robust_scale


def test_robust_scale_is_the_median_pairwise_difference_and_ignores_one_bad_run():
    g = [np.array([0.0, 0.1, 0.2]), np.array([1.0, 1.1])]
    scale, pairs = robust_scale(g)
    assert pairs == 4 and scale == pytest.approx(0.1 / (math.sqrt(2) * 0.6745))
    spoiled, _ = robust_scale([np.array([0.0, 0.1, 0.2, 5.0]), np.array([1.0, 1.1])])
    assert spoiled < 3 * scale  # an outlying run spoils only its own pairs
    lone, none = robust_scale([np.array([1.0])]), robust_scale([])
    assert lone[1] == none[1] == 0 and math.isnan(lone[0]) and math.isnan(none[0])


def test_a_clear_outlier_is_flagged_with_its_id_value_and_deviation():
    groups = {"2": np.log([10.0, 10.2, 9.9, 18.0]), "4": np.log([5.0, 5.1, 4.9, 5.05])}
    [o] = flag_outliers(groups, {"2": ["r0", "r1", "r2", "r3"], "4": ["s0", "s1", "s2", "s3"]})
    assert (o.level, o.run, o.value) == ("2", "r3", pytest.approx(18.0))
    assert 70 < o.deviation_pct < 80 and o.robust_z > 4


def test_two_runs_cannot_say_which_is_off_and_too_few_pairs_flag_nothing():
    assert flag_outliers({"a": np.log([1.0, 3.0]), "b": np.log([1.0, 1.01])}) == []
    few = {"a": np.log([1.0, 1.01, 2.0])}  # 3 pairs < MIN_PAIRS
    assert MIN_PAIRS > 3 and flag_outliers(few) == []


def test_noise_growing_along_the_levels_is_not_an_outlier_with_neighbours():
    rng = np.random.default_rng(3)
    cv = np.linspace(0.02, 0.30, 8)  # the noise of 8 limits, growing
    flagged_near = flagged_all = runs = 0
    for _ in range(200):
        groups = {str(k): rng.normal(0, cv[k], 4) for k in range(8)}
        runs += 32
        flagged_near += len(flag_outliers(groups, neighbours=1))
        flagged_all += len(flag_outliers(groups))
    assert flagged_near / runs < 0.01  # false alarms per run, no outlier in the data
    assert flagged_all > 2 * flagged_near  # one scale for all levels flags the noisy ones
