"""Which cell an adaptive sweep runs next: initial order, a lone bump, pivotal cells short of runs, the most doubt."""

from __future__ import annotations

import pytest

from throttlelab.experiment.sweeps.adaptive.adaptive_cells import AdaptiveSettings, Layout
from throttlelab.experiment.sweeps.adaptive.adaptive_choice import (
    MAX_FAILURES_PER_CELL,
    doubtful_cell,
    initial_order,
    lone_bump,
    short_pivotal,
)
from throttlelab.experiment.sweeps.adaptive.adaptive_decisions import Decided, Decision
from throttlelab.experiment.sweeps.adaptive.adaptive_model import initial_cells

LAY = Layout.of([0.0], [1.0, 2.0, 3.0], ["1", "2", "4", "8"])


def _empty():
    return {c: [] for c in LAY.cells}, {c: 0 for c in LAY.cells}, {c: 0 for c in LAY.cells}


def test_initial_order_is_seeded_and_runs_the_extreme_thread_counts_last():
    smooth = initial_order(LAY, AdaptiveSettings(), seed=1)
    assert sorted(smooth) == sorted(initial_cells(LAY)) and smooth == initial_order(LAY, AdaptiveSettings(), seed=1)
    every = initial_order(LAY, AdaptiveSettings(model="cells"), seed=1)
    assert sorted(every) == sorted(LAY.cells)
    ends = [c[2] in ("1", "8") for c in every]
    assert ends == sorted(ends)  # every extreme count after every middle one
    assert every != initial_order(LAY, AdaptiveSettings(model="cells"), seed=2)


def test_a_lone_run_slower_than_both_neighbours_gets_a_second_run():
    times, attempts, _ = _empty()
    for c in LAY.cells:
        times[c], attempts[c] = [10.0], 1
    bumped = (0.0, 2.0, "2")
    times[bumped] = [13.0]  # 30% above both thread neighbours (resolution 10%)
    order = list(LAY.cells)
    assert lone_bump(times, attempts, LAY, AdaptiveSettings(), 9, order) == (bumped, "threads")
    times[bumped] = [10.5]  # within the resolution
    assert lone_bump(times, attempts, LAY, AdaptiveSettings(), 9, order) is None
    times[bumped], attempts[bumped] = [13.0, 12.0], 2  # not lone any more
    assert lone_bump(times, attempts, LAY, AdaptiveSettings(), 9, order) is None


def test_a_lone_bump_outside_the_initial_design_is_checked_too():
    """The smooth model's initial design is half the cells; a cell first run later may hide an outlying run."""
    times, attempts, _ = _empty()
    for c in LAY.cells:
        times[c], attempts[c] = [10.0], 1
    later = (0.0, 2.0, "4")
    times[later] = [19.8]  # an outlying first run, after the initial design
    order = [c for c in LAY.cells if c != later]
    assert lone_bump(times, attempts, LAY, AdaptiveSettings(), 9, order) == (later, "threads")


def _decision(pivotal, confidence=0.97, resolved=True, contenders=()):
    return Decision("best_threads", 0.0, 2.0, "2", confidence, resolved, tuple(pivotal), contenders=tuple(contenders))


def test_once_confident_the_least_run_pivotal_cell_comes_first():
    times, attempts, failures = _empty()
    a, b = (0.0, 2.0, "2"), (0.0, 2.0, "4")
    times[a], attempts[a] = [10.0, 10.1], 2
    times[b], attempts[b] = [11.0], 1
    d = _decision([a, b])
    settings = AdaptiveSettings()
    assert short_pivotal(Decided([d], 0.97), times, attempts, failures, settings, 9) == (b, d)
    assert short_pivotal(Decided([d], 0.90), times, attempts, failures, settings, 9) is None  # not confident yet
    failures[b] = MAX_FAILURES_PER_CELL
    assert short_pivotal(Decided([d], 0.97), times, attempts, failures, settings, 9) is None


def test_most_doubt_per_run_and_no_cell_beyond_its_cap():
    times, attempts, failures = _empty()
    a, b = (0.0, 3.0, "2"), (0.0, 3.0, "4")
    times[a], attempts[a] = [10.0, 10.0, 10.0], 3
    times[b], attempts[b] = [10.5], 1
    d = _decision([a, b], confidence=0.6, resolved=False, contenders=[a, b])
    settings = AdaptiveSettings()
    assert doubtful_cell([d], times, attempts, failures, LAY, settings, 9) == (b, d)  # fewer runs: more to learn
    attempts[b] = 9
    assert doubtful_cell([d], times, attempts, failures, LAY, settings, 9) == (a, d)
    attempts[a] = 9
    assert doubtful_cell([d], times, attempts, failures, LAY, settings, 9) is None


@pytest.mark.parametrize("confidence", [0.2, 0.99])
def test_a_sure_decision_still_counts_a_little_doubt(confidence):
    times, attempts, failures = _empty()
    a = (0.0, 1.0, "1")
    d = _decision([a], confidence=confidence, resolved=False, contenders=[a])
    assert doubtful_cell([d], times, attempts, failures, LAY, AdaptiveSettings(), 9) == (a, d)
