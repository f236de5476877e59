"""The dead-zone statistic: baselines are the best lower limit, variances follow the design, the null is least favourable."""

from __future__ import annotations

import math

import numpy as np
import pytest

from throttlelab.analysis.stats.excess_over_best import (cholesky, excess_statistics, level_covariance, null_configuration,
                                                   per_limit_covariance, pooled_covariance, satterthwaite_df)
from throttlelab.analysis.stats.noise import estimate_effects

ORDER = np.repeat([1.0, 2.0, 4.0, 6.0], 3)


def effects(seed=0, blocks=None):
    rng = np.random.default_rng(seed)
    mu = np.log([40.0, 20.0, 10.0, 13.0])
    log_y = mu[np.searchsorted([1.0, 2.0, 4.0, 6.0], ORDER)] + rng.normal(0, 0.05, ORDER.size)
    return estimate_effects(ORDER, log_y, blocks, block_name="experiment" if blocks is not None else None), log_y


def test_baseline_is_the_best_lower_limit_and_the_excess_its_studentised_gap():
    mu = np.log(np.array([[40.0, 20.0, 10.0, 13.0]]))
    J = 4
    G = np.zeros((J, J, J))
    for k in range(J):  # independent means with unit variance each: var(mu_j - mu_b) = 2
        G[k] = (np.eye(J)[k][:, None] + np.eye(J)[k][None, :]) * (1 - np.eye(J))
    delta = math.log(1.05)
    t, diff, var, base = excess_statistics(mu, np.full((1, J), 0.01), G, delta)
    assert base[0].tolist() == [0, 0, 1, 2]  # 6000m is compared with 4000m, the fastest below it
    assert diff[0, 3] == pytest.approx(math.log(1.3)) and var[0, 3] == pytest.approx(0.02)
    assert t[0, 3] == pytest.approx((math.log(1.3) - delta) / math.sqrt(0.02)) and t[0, 0] == -np.inf


def test_pooled_and_design_covariances_agree_without_blocks():
    e, log_y = effects()
    lv, G = level_covariance(e, log_y)
    _, G_pooled = pooled_covariance(e)
    # Without blocks var(mu_j - mu_b) per unit variance is 1/n_j + 1/n_b (= 2/3 with 3 runs each).
    assert G.sum(axis=0)[3, 2] == pytest.approx(2 / 3) and G_pooled.sum(axis=0)[3, 2] == pytest.approx(2 / 3)
    A = per_limit_covariance(e)
    assert A.sum(axis=0) == pytest.approx(np.diag([1 / 3] * 4))
    assert lv.sigma.shape == (4,) and np.all(lv.sigma > 0)


def test_null_curve_sits_on_the_boundary_except_clearly_inside_limits():
    mu = np.log([40.0, 20.0, 10.0, 13.0])
    delta = math.log(1.05)
    mu0 = null_configuration(mu, delta, np.array([True, True, True, False]))
    assert mu0[:3] == pytest.approx(mu[:3]) and mu0[3] == pytest.approx(mu[2] + delta)
    assert null_configuration(mu, delta, np.array([True, False, False, False]))[1] == pytest.approx(mu[0] + delta)


def test_satterthwaite_df_is_infinite_for_a_prior_and_small_for_few_runs():
    J = 3
    G = np.zeros((J, J, J))
    for k in range(J):
        G[k] = (np.eye(J)[k][:, None] + np.eye(J)[k][None, :]) * (1 - np.eye(J))
    df = satterthwaite_df(np.array([0.01, 0.01, 0.04]), np.array([2.0, 2.0, 2.0]), G, np.array([0, 0, 1]))
    assert df[0] == np.inf and 2.0 < df[2] < 4.0
    assert satterthwaite_df(np.ones(3), np.full(3, np.inf), G, np.array([0, 0, 1]))[2] == np.inf


def test_cholesky_tolerates_a_rounding_error():
    C = np.array([[1.0, 1.0], [1.0, 1.0 - 1e-16]])
    L = cholesky(C)
    assert L @ L.T == pytest.approx(C, abs=1e-6)


def test_a_limits_noise_is_never_below_the_pool_of_it_and_the_larger_limits():
    """Noise 3% up to the fourth limit, 25% beyond (a step a log-linear trend misses at the first noisy limits)."""
    from throttlelab.analysis.stats.excess_over_best import not_below_larger_limits
    from throttlelab.analysis.stats.level_noise import noise_trend

    rng = np.random.default_rng(4)
    level = np.repeat(np.arange(8), 3)
    y = rng.standard_normal(level.size) * np.where(level < 4, 0.03, 0.25)
    means = np.array([y[level == k].mean() for k in range(8)])
    resid, lev = y - means[level], np.full(level.size, 1 / 3)
    trend = noise_trend(resid, lev, level, 8, 16.0)
    guarded = not_below_larger_limits(trend, resid, lev, level)
    above = [np.sqrt(np.sum(resid[level >= k] ** 2) / (2 * (8 - k))) for k in range(8)]
    assert np.allclose(guarded.sigma, np.maximum(trend.sigma, above))
    assert guarded.sigma[4] > trend.sigma[4] and guarded.sigma[4] > 0.15  # the first 25% limit
    assert np.array_equal(guarded.trend, trend.trend) and np.array_equal(guarded.level_df, trend.level_df)
