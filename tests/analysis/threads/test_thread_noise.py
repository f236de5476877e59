"""Run-to-run noise per limit for thread counts: own cells, the trend across limits, zero and unmeasured noise."""

import math

import numpy as np

from throttlelab.analysis.threads.thread_noise import MIN_OWN_DF, ZERO_NOTE, describe, noise_per_limit


def _design(runs_per_cell, cells_per_limit=5, limits=6):
    lim = np.repeat(np.arange(limits), cells_per_limit * runs_per_cell)
    cell = np.repeat(np.arange(limits * cells_per_limit), runs_per_cell)
    return lim, cell


def test_each_limit_gets_its_own_noise_when_its_cells_are_replicated():
    rng = np.random.default_rng(1)
    lim, cell = _design(3)
    sd = np.linspace(0.03, 0.25, 6)[lim]
    y = rng.normal(0, 1, lim.size) * sd
    got = noise_per_limit(lim, cell, y, 6)
    assert all(n.source == "own cells" and n.df == 10 for n in got)
    assert got[0].sigma < 0.06 and got[-1].sigma > 0.15  # follows the growth a pooled sigma would hide
    pooled = noise_per_limit(lim, cell, y, 6, pooled=True)
    assert len({n.sigma for n in pooled}) == 1 and pooled[0].df == 60
    assert "own cells" in describe(got) and "pooled" in describe(pooled, pooled=True)


def test_a_limit_with_few_replicates_borrows_the_trend_never_below_the_pooled_noise():
    rng = np.random.default_rng(2)
    lim, cell = _design(3)
    keep = ~((lim == 5) & (np.isin(cell % 5, [1, 2, 3, 4])) & (np.arange(lim.size) % 3 > 0))  # limit 5: one cell x3
    lim, cell = lim[keep], cell[keep]
    y = rng.normal(0, 1, lim.size) * np.linspace(0.03, 0.25, 6)[lim]
    got = noise_per_limit(lim, cell, y, 6)
    assert got[5].own_df == 2 < MIN_OWN_DF and got[5].source in ("trend across limits", "pooled across limits")
    pooled = noise_per_limit(lim, cell, y, 6, pooled=True)[0].sigma
    assert got[5].sigma >= pooled - 1e-12 and got[5].df >= 40


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
    assert all(n.source == "own cells" for n in got[1:])
