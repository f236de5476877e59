"""The scenario generator: counters are cumulative, throttling follows the limit, restarts reset, loops differ."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from throttlelab.experiment.simulation.synthetic_containers import (
    ContainerSpec, container_cpu, periods, scenario_specs, simulate,
)

START = 1_767_225_600.0


def test_counters_and_throttling():
    specs = {s.pod: s for s in scenario_specs()}
    starved = simulate(specs["starved-0"], START, 24)
    assert (np.diff(starved["usage_seconds"]) >= 0).all()
    rate = np.diff(starved["usage_seconds"]) / 15
    assert rate.max() <= specs["starved-0"].limit + 1e-9  # usage never exceeds the limit
    assert starved["nr_throttled"][-1] / starved["nr_periods"][-1] > 0.5
    assert simulate(specs["oversized-0"], START, 24)["nr_throttled"][-1] == 0
    free = simulate(specs["nolimit-0"], START, 24)
    assert free["nr_throttled"][-1] == 0 and free["throttled_seconds"][-1] == 0
    assert free["usage_seconds"][-1] / (24 * 3600) == pytest.approx(specs["nolimit-0"].mean_cores, rel=0.15)


def test_restart_resets_the_counters():
    spec = scenario_specs()[5]
    sim = simulate(spec, START, 24)
    r = int(sim["restart_index"][0])
    assert sim["usage_seconds"][r] < sim["usage_seconds"][r - 1]


def test_an_open_loop_catches_up_and_a_closed_loop_slows_down():
    """Under a limit above its mean, a request loop's usage is its demand (what waits is served later); a duty loop's
    falls below it (a throttled burst delays the next)."""
    base = ContainerSpec("ns", "p", "c", limit=0.5, mean_cores=0.4, threads=2.0, burst_cv=0.5, diurnal=0.0, seed=5)
    duty = dataclasses.replace(base, loop="duty", every_s=0.2)
    for spec, low, high in ((base, 0.97, 1.03), (duty, 0.5, 0.93)):
        used = simulate(spec, START, 2)["usage_seconds"][-1] / 7200
        free = simulate(dataclasses.replace(spec, limit=None), START, 2)["usage_seconds"][-1] / 7200
        assert low < used / free < high, (spec.loop, used, free)


def test_periods_count_every_period_with_work_and_no_more():
    spec = scenario_specs()[2]
    p = periods(spec, START, 1)
    sim = simulate(dataclasses.replace(spec, limit=None), START, 1)
    assert sim["nr_periods"][-1] == np.count_nonzero(p.work)
    with pytest.raises(ValueError, match="loop"):
        periods(dataclasses.replace(spec, loop="poll"), START, 1)


def test_container_cpu_is_per_step_rates():
    spec = scenario_specs()[2]
    c = container_cpu(spec, start=START, hours=2)
    sim = simulate(spec, START, 2)
    assert len(c.usage) == 120 and c.usage.mean() * 7200 == pytest.approx(sim["usage_seconds"][-1], rel=1e-9)
    assert c.periods.mean() == pytest.approx(sim["nr_periods"][-1] / 7200, rel=0.01)
    assert np.isnan(container_cpu(scenario_specs()[4], start=START, hours=2).periods).all()
