"""Cell statistics of adaptive sweeps: slow outlying runs, pooled noise, dominated thread counts."""

from __future__ import annotations

import math

import numpy as np
import pytest

from throttlelab.experiment.sweeps.adaptive.adaptive_cells import (
    AdaptiveSettings,
    CellStats,
    Layout,
    cell_stats,
    dominated_cells,
    pooled_sd,
)
from throttlelab.stats import PRIOR_CV, log_sd


def test_slow_outlying_runs_are_set_aside():
    s = AdaptiveSettings()
    obs = {(0.0, 1.0, "1"): [10.0, 10.5, 9.8, 25.0], (0.0, 2.0, "1"): [5.0, 12.0], (0.0, 0.5, "1"): [20.0, 21.0]}
    obs.update({(0.0, 1.0, t): [10.0, 10.6, 9.7] for t in ("2", "4")})  # the noise is pooled over the limit's cells
    obs.update({(0.0, 2.0, t): [5.0, 5.4] for t in ("2", "4")})
    st = cell_stats(obs, s)
    assert st[(0.0, 1.0, "1")].used == 3 and st[(0.0, 1.0, "1")].seconds == pytest.approx(10.1, rel=0.02)
    assert st[(0.0, 2.0, "1")].used == 1 and st[(0.0, 2.0, "1")].seconds == pytest.approx(5.0)
    assert st[(0.0, 0.5, "1")].used == 2


def test_pooled_sd_is_the_prior_without_replicates_and_robust_to_one_wild_cell():
    assert pooled_sd([np.log([3.0])], 0.15) == pytest.approx(log_sd(0.15))
    assert pooled_sd([np.log([3.0])]) == pytest.approx(log_sd(PRIOR_CV))  # the analysis's prior, by default
    rng = np.random.default_rng(0)
    cells = [np.log(np.exp(0.1 * rng.standard_normal(3))) for _ in range(30)] + [np.log([1.0, 5.0, 1.1])]
    assert 0.07 < pooled_sd(cells, 0.15) < 0.14


def test_thread_counts_beyond_a_clearly_slower_one_are_dominated():
    lay = Layout.of([0.0], [1.0], ["1", "2", "4", "8"])
    sure = {c: CellStats(c, 3, 3, m, 0.05, 6) for c, m in zip(lay.cells[1:3], (1.0, 1.5))}  # 2 clearly faster than 4
    assert dominated_cells(sure, lay) == {(0.0, 1.0, "8")}
    close = {c: CellStats(c, 3, 3, m, 0.05, 6) for c, m in zip(lay.cells[1:3], (1.0, 1.02))}
    assert dominated_cells(close, lay) == set()  # not sure which way the time rises
    assert dominated_cells(sure, Layout.of([0.0], [1.0], ["1", "auto", "4"])) == set()  # 'auto' has no place
