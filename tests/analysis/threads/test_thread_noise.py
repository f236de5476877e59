"""Run-to-run noise per limit for thread counts: own cells, the trend across limits, zero and unmeasured noise."""

import math

import numpy as np

from throttlelab.analysis.threads.thread_noise import MIN_OWN_DF, ZERO_NOTE, describe, noise_per_limit


def _design(runs_per_cell, cells_per_limit=5, limits=6):
    lim = np.repeat(np.arange(limits), cells_per_limit * runs_per_cell)
    cell = np.repeat(np.arange(limits * cells_per_limit), runs_per_cell)
    return lim, cell


def test_growing_noise_follows_the_trend_with_fewer_degrees_of_freedom_at_the_ends():
    rng = np.random.default_rng(1)
    lim, cell = _design(3)
    sd = np.exp(np.linspace(np.log(0.03), np.log(0.25), 6))[lim]
    y = rng.normal(0, 1, lim.size) * sd
    got = noise_per_limit(lim, cell, y, 6)
    assert got[0].sigma < 0.06 and got[-1].sigma > 0.15  # follows the growth a pooled sigma would hide
    assert all(n.source in ("trend across limits", "own cells") for n in got)
    df = [n.df for n in got]
    assert df[0] < df[2] and df[-1] < df[3] and max(df) <= 59  # the trend is least sure at the ends of the sweep
    assert all(n.df > 10 for n in got)  # but surer than one limit's own 10 degrees of freedom
    pooled = noise_per_limit(lim, cell, y, 6, pooled=True)
    assert len({n.sigma for n in pooled}) == 1 and pooled[0].df == 60
    assert "trend" in describe(got) and "pooled" in describe(pooled, pooled=True)


def test_a_limit_whose_own_noise_is_above_the_trend_keeps_its_own():
    """A step in the noise (3% up to the fourth limit, 25% above) is not log-linear: the trend would understate
    the noise at the first noisy limits; their own cells guard them."""
    rng = np.random.default_rng(2)
    lim, cell = _design(3)
    sd = np.where(lim < 3, 0.03, 0.25)
    y = rng.normal(0, 1, lim.size) * sd
    got = noise_per_limit(lim, cell, y, 6)
    own = [math.sqrt(np.sum((y[lim == k] - np.array([y[cell == c].mean() for c in cell[lim == k]])) ** 2) / 10)
           for k in range(6)]
    assert all(n.sigma >= o - 1e-12 for n, o in zip(got, own))
    assert any(n.source == "own cells" for n in got[3:])
    assert MIN_OWN_DF == 1


def test_equal_noise_is_pooled_with_all_its_degrees_of_freedom():
    rng = np.random.default_rng(3)
    lim, cell = _design(3)
    got = noise_per_limit(lim, cell, rng.normal(0, 0.05, lim.size), 6)
    trend = [n for n in got if n.source != "own cells"]
    assert trend and all(n.source == "pooled across limits" and n.df == 60 for n in trend)


def test_identical_replicates_are_zero_noise_and_no_replicates_are_unmeasured():
    lim, cell = _design(2)
    got = noise_per_limit(lim, cell, np.log(40.8) + 0 * lim, 6)
    assert all(n.zero and n.sigma == 0 for n in got) and describe(got) == ZERO_NOTE
    assert got[0].model(30).note == ZERO_NOTE and not got[0].model(30).assumption_based
    lim1, cell1 = _design(1)
    none = noise_per_limit(lim1, cell1, np.zeros(lim1.size), 6)
    assert all(n.source == "unmeasured" and math.isnan(n.sigma) for n in none)
    assert none[0].model(0).assumption_based


def test_a_limit_with_identical_replicates_among_noisy_ones_borrows_the_trend():
    rng = np.random.default_rng(4)
    lim, cell = _design(3)
    y = rng.normal(0, 0.1, lim.size) * (lim > 0)  # limit 0: identical replicates, the others 10% noise
    got = noise_per_limit(lim, cell, y, 6)
    assert got[0].source != "own cells" and got[0].sigma > 0.05 and not got[0].zero
    assert all(n.sigma > 0.05 for n in got[1:])
