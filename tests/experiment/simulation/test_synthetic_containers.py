"""The scenario generator: counters are cumulative, throttling follows the limit, restarts reset."""

from __future__ import annotations

import dataclasses

import numpy as np

from throttlelab.experiment.simulation.synthetic_containers import scenario_specs, simulate, true_throttled_ratio

START = 1_767_225_600.0


def test_counters_and_throttling():
    specs = {s.pod: s for s in scenario_specs()}
    starved = simulate(specs["starved-0"], START, 24)
    assert (np.diff(starved["usage_seconds"]) >= 0).all()
    rate = np.diff(starved["usage_seconds"]) / 15
    assert rate.max() <= specs["starved-0"].limit + 1e-9  # usage never exceeds the limit
    assert starved["nr_throttled"][-1] / starved["nr_periods"][-1] > 0.5
    assert simulate(specs["oversized-0"], START, 24)["nr_throttled"][-1] == 0


def test_restart_resets_the_counters():
    spec = scenario_specs()[5]
    sim = simulate(spec, START, 24)
    r = int(sim["restart_index"][0])
    assert sim["usage_seconds"][r] < sim["usage_seconds"][r - 1]


def test_true_ratio_falls_with_the_limit():
    spec = dataclasses.replace(scenario_specs()[2])
    ratios = [true_throttled_ratio(spec, lim, start=START, hours=24) for lim in (0.5, 1.0, 2.0)]
    assert ratios[0] > ratios[1] > ratios[2]


def test_the_true_limit_is_at_most_the_node():
    """The smallest limit at most the node's size that meets the target, or the node's size when none does."""
    from throttlelab.experiment.simulation.synthetic_containers import true_smallest_limit

    spec = {s.pod: s for s in scenario_specs()}["starved-0"]  # 3 threads, true limit about 2.5 cores
    free = true_smallest_limit(spec, 0.05, start=START, hours=6)
    assert 2.0 < free < 3.0
    assert true_smallest_limit(spec, 0.05, start=START, hours=6, node_cores=2.0) == 2.0  # the node misses: the node
    assert true_smallest_limit(spec, 0.05, start=START, hours=6, node_cores=8.0) == free  # room to spare: unchanged
    assert true_throttled_ratio(spec, free, start=START, hours=6) <= 0.05 < true_throttled_ratio(spec, 0.98 * free,
                                                                                                  start=START, hours=6)
