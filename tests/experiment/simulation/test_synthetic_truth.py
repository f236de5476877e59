"""The generator's truth: the same work at other limits, the smallest limit meeting a target, ladders of limits."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from throttlelab.experiment.simulation.synthetic_containers import ContainerSpec, simulate
from throttlelab.experiment.simulation.synthetic_truth import (
    PooledRatio, ladder_windows, smallest_limit, throttled_ratios, true_smallest_limit, true_throttled_ratio,
)

START = 1_767_225_600.0
BASE = ContainerSpec("ns", "p", "c", limit=1.0, mean_cores=0.4, threads=4.0, burst_cv=0.8, seed=3)
LOOPS = {"requests": BASE, "ticker": dataclasses.replace(BASE, loop="ticker", every_s=0.25),
         "duty": dataclasses.replace(BASE, loop="duty", every_s=0.1, threads=2.0, mean_cores=0.5)}


@pytest.mark.parametrize("loop", list(LOOPS))
def test_the_ratio_does_not_rise_with_the_limit_over_the_same_work(loop):
    ratios = throttled_ratios([(LOOPS[loop], START, 1.0)], np.geomspace(0.2, 4.0, 12))
    assert np.all(np.diff(ratios) <= 1e-9), ratios
    assert ratios[0] > 0.3 and ratios[-1] == 0


@pytest.mark.parametrize("loop", list(LOOPS))
def test_the_truth_is_the_smallest_limit_meeting_the_target(loop):
    spec = LOOPS[loop]
    truth = true_smallest_limit(spec, 0.05, start=START, hours=1.0)
    at = [true_throttled_ratio(spec, truth * f, start=START, hours=1.0) for f in (0.97, 1.0, 1.03)]
    assert at[0] > 0.05 >= at[2] and at[1] <= 0.06  # interpolated between ends 0.5% apart: at the target, near enough
    assert true_smallest_limit(spec, 0.20, start=START, hours=1.0) < truth


def test_the_truth_is_the_simulated_ratio_at_the_limit_the_container_has():
    """At the container's own limit, the truth's ratio is what its counters show (same work)."""
    for spec in LOOPS.values():
        sim = simulate(spec, START, 1.0)
        seen = sim["nr_throttled"][-1] / sim["nr_periods"][-1]
        assert true_throttled_ratio(spec, spec.limit, start=START, hours=1.0) == pytest.approx(seen, abs=1e-3)


def test_the_truth_is_at_most_the_node_or_the_node_when_none_meets_it():
    spec = dataclasses.replace(BASE, mean_cores=2.0, threads=3.0, burst_cv=0.6)
    free = true_smallest_limit(spec, 0.05, start=START, hours=1.0)
    assert 2.0 < free < 3.0
    assert true_smallest_limit(spec, 0.05, start=START, hours=1.0, node_cores=2.0) == 2.0
    assert true_smallest_limit(spec, 0.05, start=START, hours=1.0, node_cores=8.0) == free


def test_smallest_limit_on_known_curves():
    for l0, alpha, target in ((0.3, 2.0, 0.05), (1.7, 8.0, 0.01), (0.05, 1.0, 0.2)):
        f = lambda x: min(1.0, target * (l0 / x) ** alpha)  # noqa: E731
        assert smallest_limit(f, target, top=8.0) == pytest.approx(l0, rel=0.01)
        assert smallest_limit(f, target, top=8.0, guess=3 * l0) == pytest.approx(l0, rel=0.01)
    step = lambda x: 0.5 if x < 1.234 else 0.0  # noqa: E731  # never throttled above a threshold
    assert smallest_limit(step, 0.05, top=4.0) == pytest.approx(1.234, rel=0.01)
    assert smallest_limit(lambda x: 0.9, 0.05, top=4.0) == 4.0


def test_pooled_parts_weigh_by_their_periods():
    a, b = BASE, dataclasses.replace(BASE, mean_cores=0.1, seed=9)
    pooled = PooledRatio([(a, START, 1.0), (b, START, 1.0)])
    ra, rb = PooledRatio([(a, START, 1.0)]), PooledRatio([(b, START, 1.0)])
    assert min(ra(0.6), rb(0.6)) <= pooled(0.6) <= max(ra(0.6), rb(0.6))
    assert ra(0.6) != rb(0.6)


def test_a_ladder_throttles_less_on_higher_rungs():
    rows = ladder_windows(BASE, [0.4, 0.8, 1.6], rung_s=120.0, window_s=10.0)
    assert len(rows) == 3 * 12
    ratio = {lim: sum(r["throttled"] for r in rows if r["limit_cores"] == lim)
             / sum(r["periods"] for r in rows if r["limit_cores"] == lim) for lim in (0.4, 0.8, 1.6)}
    assert ratio[0.4] > ratio[0.8] > ratio[1.6]
    assert all(r["cpu_seconds"] <= r["limit_cores"] * 10 + 1e-9 for r in rows)
