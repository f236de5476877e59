"""Noise per level: a log-linear trend over the levels, used only when the residuals support it."""

import numpy as np

from throttlelab.analysis.stats.level_noise import noise_trend


def _fit(sd, runs=4, seed=0):
    rng = np.random.default_rng(seed)
    level = np.repeat(np.arange(len(sd)), runs)
    y = rng.normal(0, np.asarray(sd)[level])
    means = np.array([y[level == k].mean() for k in range(len(sd))])
    resid = y - means[level]
    return noise_trend(resid, np.full(y.size, 1 / runs), level, len(sd), float(y.size - len(sd)))


def test_growing_noise_follows_the_levels():
    lv = _fit(np.exp(np.linspace(np.log(0.03), np.log(0.3), 8)))
    assert not lv.pooled and lv.sigma[-1] > 2 * lv.sigma[0] and lv.slope > 0  # low levels floored at the pooled sigma


def test_equal_noise_stays_pooled_and_never_goes_below_it():
    lv = _fit(np.full(8, 0.1), seed=1)
    pooled = lv.sigma.min()
    assert lv.pooled or np.all(lv.sigma >= pooled - 1e-12)
    assert 0.06 < pooled < 0.14


def test_one_replicated_level_is_pooled():
    resid = np.array([0.1, -0.1, 0.0])
    lv = noise_trend(resid, np.array([0.5, 0.5, 1.0]), np.array([0, 0, 1]), 2, 1.0)
    assert lv.pooled


def test_identical_replicates_are_zero_pooled_noise_not_an_error():
    """Counters that repeat exactly (e.g. CPU seconds of a fixed amount of work) leave every residual at 0."""
    level = np.repeat(np.arange(4), 3)
    lv = noise_trend(np.zeros(level.size), np.full(level.size, 1 / 3), level, 4, 8.0)
    assert lv.pooled and np.all(lv.sigma == 0)
