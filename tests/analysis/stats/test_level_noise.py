"""Noise per level: a log-linear trend over the levels, used only when the residuals support it."""

import numpy as np

from throttlelab.analysis.stats.level_noise import noise_trend


def _data(sd, runs=4, seed=0):
    rng = np.random.default_rng(seed)
    level = np.repeat(np.arange(len(sd)), runs)
    y = rng.normal(0, np.asarray(sd)[level])
    means = np.array([y[level == k].mean() for k in range(len(sd))])
    return y - means[level], level


def _fit(sd, runs=4, seed=0):
    resid, level = _data(sd, runs, seed)
    return noise_trend(resid, np.full(resid.size, 1 / runs), level, len(sd), float(resid.size - len(sd)))


def _pooled(sd, runs=4, seed=0):
    """The pooled sigma computed here, independently of the module: sqrt(residual sum of squares / df)."""
    resid, _ = _data(sd, runs, seed)
    return float(np.sqrt(np.sum(resid**2) / (resid.size - len(sd))))


def test_growing_noise_follows_the_levels():
    lv = _fit(np.exp(np.linspace(np.log(0.03), np.log(0.3), 8)))
    assert not lv.pooled and lv.sigma[-1] > 2 * lv.sigma[0] and lv.slope > 0  # low levels floored at the pooled sigma


def test_equal_noise_stays_pooled_and_never_goes_below_it():
    """Equal noise at 8 levels: the pooled sigma (computed here) in most samples; a spurious trend only ever raises it."""
    sd = np.full(8, 0.1)
    pooled_count = 0
    for seed in range(40):
        lv, pooled = _fit(sd, seed=seed), _pooled(sd, seed=seed)
        assert np.all(lv.sigma >= pooled - 1e-12), seed
        if lv.pooled:
            pooled_count += 1
            np.testing.assert_allclose(lv.sigma, pooled, rtol=1e-12)
        else:
            assert lv.sigma.max() > pooled * (1 + 1e-6), seed  # a trend that is used raises some level
    assert pooled_count >= 24  # the trend is kept at p < 0.25: about 30 of 40 equal-noise samples stay pooled (29 here)
    assert 0.06 < _pooled(sd, seed=1) < 0.14


def test_one_replicated_level_is_pooled():
    resid = np.array([0.1, -0.1, 0.0])
    lv = noise_trend(resid, np.array([0.5, 0.5, 1.0]), np.array([0, 0, 1]), 2, 1.0)
    assert lv.pooled


def test_identical_replicates_are_zero_pooled_noise_not_an_error():
    """Counters that repeat exactly (e.g. CPU seconds of a fixed amount of work) leave every residual at 0."""
    level = np.repeat(np.arange(4), 3)
    lv = noise_trend(np.zeros(level.size), np.full(level.size, 1 / 3), level, 4, 8.0)
    assert lv.pooled and np.all(lv.sigma == 0)


def test_each_level_knows_how_sure_the_trend_is_there():
    """8 levels x 3 runs (16 residual df): the trend's fitted noise is surest in the middle, least at the ends;
    pooled noise gives every level all the degrees of freedom."""
    lv = _fit(np.exp(np.linspace(np.log(0.03), np.log(0.25), 8)), runs=3)
    assert not lv.pooled and lv.level_df[0] < lv.level_df[3] and lv.level_df[-1] < lv.level_df[4]
    assert lv.level_df.max() <= 15 and lv.level_df.min() > 2
    assert np.all(lv.trend <= lv.sigma + 1e-12) and lv.trend[0] < lv.sigma[0]  # the pooled floor raised the low end
    flat = _fit(np.full(8, 0.1), runs=3, seed=1)
    assert flat.pooled and np.all(flat.level_df == 16) and np.all(flat.trend == flat.sigma)


def test_simulated_refits_vary_as_a_chi_square_with_each_levels_degrees_of_freedom():
    lv = _fit(np.exp(np.linspace(np.log(0.03), np.log(0.25), 8)), runs=3)
    draws = lv.variance_draws(np.random.default_rng(0), 20000)
    assert draws.shape == (20000, 8) and np.all(draws > 0)
    trend = lv.sigma <= lv.trend * (1 + 1e-12)
    # variance of a chi-square / df is 2 / df
    assert np.allclose(draws[:, trend].var(axis=0), 2 / lv.level_df[trend], rtol=0.15)
    assert np.corrcoef(draws[:, -1], draws[:, -2])[0, 1] > 0.8  # neighbouring levels move together
    flat = _fit(np.full(8, 0.1), runs=3, seed=1).variance_draws(np.random.default_rng(0), 1000)
    assert np.allclose(flat, flat[:, :1])  # one pooled noise: one draw for every level
