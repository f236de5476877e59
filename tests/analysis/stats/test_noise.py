"""Run-to-run noise on the log scale: measured from replicates, a stated prior without them, blocks as offsets."""

from __future__ import annotations

import math

import numpy as np
import pytest

from throttlelab.analysis.stats.noise import NoiseModel, estimate_effects


def test_cv_pct_inverts_the_log_normal_sigma():
    sigma = math.sqrt(math.log1p(0.2**2))
    assert NoiseModel(sigma, 10, "replicates", False, 3).cv_pct == pytest.approx(20.0)
    assert NoiseModel(0.0, 10, "replicates", False, 3).cv_pct == 0.0


def test_replicates_measure_the_noise_and_the_level_means():
    rng = np.random.default_rng(1)
    order = np.repeat([1.0, 2.0, 4.0, np.inf], 25)
    truth = {1.0: 3.0, 2.0: 2.4, 4.0: 2.0, np.inf: 2.1}
    log_y = np.array([truth[o] for o in order]) + rng.normal(0, 0.1, order.size)
    e = estimate_effects(order, log_y)
    assert list(e.order) == [1.0, 2.0, 4.0, np.inf] and list(e.n) == [25] * 4
    assert e.mean_log == pytest.approx([3.0, 2.4, 2.0, 2.1], abs=0.05)
    assert e.noise.sigma == pytest.approx(0.1, rel=0.2) and e.noise.df == 96
    assert not e.noise.assumption_based and e.noise.source == "replicates" and e.noise.replicated_limits == 4
    assert e.block is None and e.block_effects == {}


def test_no_replicate_means_an_assumed_noise_that_says_so():
    e = estimate_effects([1, 2, 4], np.log([30.0, 16.0, 9.0]), prior_cv=0.1)
    assert e.noise.assumption_based and e.noise.df == math.inf and e.noise.source == "prior cv"
    assert e.noise.cv_pct == pytest.approx(10.0) and "assumed 10%" in e.noise.note


def test_a_second_experiment_is_an_offset_not_noise():
    rng = np.random.default_rng(2)
    order = np.tile([1.0, 2.0, 4.0], 8)
    blocks = np.array(["a"] * 15 + ["b"] * 9)
    log_y = np.log(np.array([30.0, 16.0, 9.0]))[np.searchsorted([1.0, 2.0, 4.0], order)]
    log_y = log_y + np.where(blocks == "b", 0.15, 0.0) + rng.normal(0, 0.02, order.size)
    pooled = estimate_effects(order, log_y)
    blocked = estimate_effects(order, log_y, blocks, block_name="experiment")
    assert blocked.block == "experiment" and set(blocked.block_effects) == {"a", "b"}
    assert blocked.block_effects["a"] == 0.0 and blocked.block_effects["b"] == pytest.approx(0.15, abs=0.03)
    assert blocked.noise.sigma < pooled.noise.sigma / 2 and blocked.noise.source == "replicates, block=experiment"


def test_blocks_that_share_no_limit_are_ignored_with_a_note():
    order = np.array([1.0, 1.0, 2.0, 2.0])
    e = estimate_effects(order, np.log([10.0, 11.0, 6.0, 6.5]), np.array(["a", "a", "b", "b"]), block_name="experiment")
    assert e.block is None and "shares no limit" in e.noise.note
