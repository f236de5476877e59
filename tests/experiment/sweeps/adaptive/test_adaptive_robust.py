"""The robust likelihood: runs weighted by the other cells' prediction, slow outliers out, coverage kept."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from throttlelab.experiment.sweeps.adaptive.adaptive_cells import AdaptiveSettings, Layout, cell_stats
from throttlelab.experiment.sweeps.adaptive.adaptive_decisions import posterior_draws
from throttlelab.experiment.sweeps.adaptive.adaptive_model import leave_cell_out
from throttlelab.experiment.sweeps.adaptive.adaptive_robust import robust_stats, run_weights

sys.path.insert(0, str(Path(__file__).parent))
from test_adaptive_model import LAYOUT, interval_coverage  # noqa: E402

SMALL = Layout.of([0.0], [1.0, 2.0, 3.0], ["1", "2", "4"])


def _additive(share: float = 0.0) -> dict:
    """Noise-free times of SMALL: limit x thread effects, no interaction."""
    lim = {1.0: 8.0, 2.0: 4.0, 3.0: 3.0}
    thr = {"1": 1.6, "2": 1.0, "4": 1.1}
    return {(share, lim_, t): lim[lim_] * thr[t] for lim_ in lim for t in thr}


def test_a_slow_run_far_above_the_prediction_weighs_nothing_a_clean_one_fully():
    w = run_weights(np.log([1.0, 1.02, 2.2]), 0.0, 0.05)
    assert w[0] > 0.95 and w[1] > 0.95
    assert w[2] < 0.01
    fast = run_weights(np.log([0.7]), 0.0, 0.05)  # a fast run is no interference, only a heavy tail
    assert 0.0 < fast[0] < 0.2


def test_the_outlying_run_of_a_pair_is_found_by_the_neighbours():
    true = _additive()
    obs = {c: [v, v * 1.01] for c, v in true.items()}
    cell = (0.0, 2.0, "2")
    obs[cell] = [true[cell] * 2.3, true[cell] * 1.02]  # which one is wrong? the other cells say: the slow one
    settings = AdaptiveSettings()
    st = cell_stats(obs, settings)
    rob = robust_stats(obs, st, SMALL)
    assert abs(rob[cell].mean_log - math.log(true[cell] * 1.02)) < 0.02
    assert 0.9 < rob[cell].used < 1.1


def test_the_leave_cell_out_prediction_ignores_the_cells_own_runs():
    true = _additive()
    obs = {c: [v, v * 1.03] for c, v in true.items()}
    cell = (0.0, 2.0, "2")
    st = cell_stats(obs, AdaptiveSettings())
    i = SMALL.cells.index(cell)
    before = leave_cell_out(st, SMALL)
    obs[cell] = [v * 1.04 for v in obs[cell]]
    after = leave_cell_out(cell_stats(obs, AdaptiveSettings()), SMALL)
    assert abs(before[0][i] - after[0][i]) < 1e-6
    assert abs(before[0][i] - math.log(true[cell] * 1.015)) < 0.02  # the additive model predicts it from the rest


def test_a_cell_nothing_else_predicts_keeps_its_runs():
    lay = Layout.of([0.0], [1.0], ["1"])
    cell = lay.cells[0]
    obs = {cell: [10.0, 25.0]}
    st = cell_stats(obs, AdaptiveSettings())
    assert not np.isfinite(leave_cell_out(st, lay)[1][0])
    assert robust_stats(obs, st, lay)[cell] == st[cell]


@pytest.mark.parametrize(("design", "reps"), [("grid", 3), ("half", 1)])
def test_90_percent_intervals_of_the_robust_posterior_cover_the_true_times(design, reps):
    """Coverage of the decisions' posterior (robust weights), t(5) noise growing with the limit, 3% slow outliers.

    Measured when written (40 scenarios): grid x3 0.95, half x1 0.97, grid x1 0.96.
    """
    def draws_of(obs, settings, seed):
        return posterior_draws(obs, LAYOUT, settings, seed=seed)[1].reshape(settings.draws, -1)

    assert 0.85 <= interval_coverage(draws_of, design, reps) <= 0.995
