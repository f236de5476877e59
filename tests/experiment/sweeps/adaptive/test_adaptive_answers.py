"""The answers a decision accepts: the truth's with a dead zone, ties within the resolution, per draw."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from throttlelab.experiment.sweeps.adaptive.adaptive_answers import acceptable, answer_text, dead_zone_slowdown
from throttlelab.experiment.sweeps.adaptive.adaptive_cells import AdaptiveSettings

sys.path.insert(0, str(Path(__file__).parent))
from test_adaptive_decisions import LAYOUT, acceptable_answers, truth_table  # noqa: E402


def test_acceptable_answers_of_a_truth_with_a_dead_zone():
    truth = truth_table({0.5: 8.0, 1: 4.0, 2: 6.0, None: 2.0})
    acc = acceptable_answers(truth, LAYOUT)
    assert acc[("knee", 0.0, None)] == {"unlimited"}
    assert acc[("dead_zone", 0.0, 2)] == {"yes"}
    assert acc[("dead_zone", 0.0, 1)] == {"no"}
    assert acc[("best_threads", 0.0, 1)] == {"2"}


def test_indifference_zone_accepts_either_answer_near_the_boundary():
    truth = truth_table({0.5: 8.0, 1: 4.0, 2: 2.2, None: 2.0})  # 2 cores is exactly 10 % over the best
    acc = acceptable_answers(truth, LAYOUT, AdaptiveSettings(knee_tolerance_pct=10, resolution_pct=5))
    assert acc[("knee", 0.0, None)] == {"2", "unlimited"}
    tie = truth_table({0.5: 8.0, 1: 4.0, 2: 2.0, None: 2.0}, {"1": 1.6, "2": 1.0, "4": 1.02})
    assert acceptable_answers(tie, LAYOUT)[("best_threads", 0.0, 2)] == {"2", "4"}


def test_per_draw_answers_and_the_dead_zone_slowdown():
    truth = truth_table({0.5: 8.0, 1: 4.0, 2: 6.0, None: 2.0})
    x = np.log(np.array([truth[c] for c in LAYOUT.cells])).reshape(1, *LAYOUT.shape)
    x = np.concatenate([x, x + np.log(1.0)])  # two identical draws
    acc = acceptable(x, LAYOUT, AdaptiveSettings())
    assert acc[("dead_zone", 0, 2)].tolist() == [[True, False], [True, False]]  # [yes, no] per draw
    assert np.allclose(dead_zone_slowdown(x, 0, 2), np.log(6.0 / 4.0))  # over the best smaller limit (1 core)
    assert [answer_text("knee", 3, LAYOUT), answer_text("dead_zone", 1, LAYOUT), answer_text("best_threads", 2, LAYOUT)] \
        == ["unlimited", "no", "4"]
