"""The kernel's CFS accounting over periods: backlog against a plain loop, conservation, throttling, waiting time."""

from __future__ import annotations

import numpy as np
import pytest

from throttlelab.experiment.simulation.cfs_periods import (
    PERIOD_S, Periods, backlog, burst_periods, cfs, throttled_periods,
)


def _loop_backlog(x, cap):
    out, b = [], 0.0
    cap = np.broadcast_to(np.inf if cap is None else np.asarray(cap, float), (len(x),))
    for xi, ci in zip(x, cap):
        b = min(ci, max(0.0, b + xi))
        out.append(b)
    return np.array(out)


@pytest.mark.parametrize("seed", range(6))
def test_backlog_is_the_plain_loop_on_random_input(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    x = rng.normal(rng.uniform(-0.5, 0.5), 1.0, n)
    for cap in (None, float(rng.uniform(0.5, 5)), rng.uniform(0.1, 4, n)):
        np.testing.assert_allclose(backlog(x, cap), _loop_backlog(x, cap), atol=1e-9)


def _random_periods(rng, n=4000):
    on = rng.random(n) < 0.6
    work = np.where(on, rng.gamma(1.5, 0.04, n), 0.0)
    a0 = np.where(on, rng.uniform(0, 0.05, n), PERIOD_S)
    a1 = np.where(on, np.maximum(a0 + 0.01, rng.uniform(0.05, 0.1, n)), 0.0)
    busy = np.where(on, work * rng.uniform(1, 2, n), 0.0)
    return Periods(work, a0, a1, busy)


def test_usage_never_exceeds_the_quota_and_work_is_carried_not_lost():
    p = _random_periods(np.random.default_rng(1))
    c = cfs(p, 0.05, parallel=4.0)
    assert c.usage.max() <= 0.05 + 1e-12
    left = backlog(p.work - np.minimum(0.05, PERIOD_S * np.maximum(*p.runqueues(4.0))))[-1]
    assert c.usage.sum() + left == pytest.approx(p.work.sum())  # no cap: what is not served is still owed
    free = cfs(p, None, parallel=4.0)
    np.testing.assert_array_equal(free.usage, p.work)
    assert not free.throttled.any() and free.counted.sum() == np.count_nonzero(p.work)


def test_throttled_ratio_does_not_rise_with_the_limit_and_matches_the_full_counters():
    p = _random_periods(np.random.default_rng(2))
    ratios = []
    for lim in np.geomspace(0.1, 4.5, 25):
        thr, per = throttled_periods(p, lim * PERIOD_S, parallel=4.0)
        c = cfs(p, lim * PERIOD_S, parallel=4.0)
        assert (thr, per) == (int(c.throttled.sum()), int(c.counted.sum()))
        assert (c.throttled_s <= PERIOD_S * 4.0 + 1e-12).all() and ((c.throttled_s > 0) == c.throttled).all()
        ratios.append(thr / per)
    assert np.all(np.diff(ratios) <= 1e-12) and ratios[0] > 0.5 and ratios[-1] == 0


def test_throttled_seconds_are_waiting_to_the_period_end_not_missing_cpu():
    """One thread needing 30 ms from the period's start under a 200m limit (20 ms): it runs 20 ms, then waits 80 ms
    (throttled time 0.08 s, though only 10 ms of CPU was missing), and the 10 ms left run in the next period."""
    p = burst_periods(np.array([0.0]), np.array([0.03]), 1.0, 3)
    c = cfs(p, 0.02, parallel=1.0)
    assert c.throttled.tolist() == [True, False, False]
    assert c.throttled_s[0] == pytest.approx(0.08)
    np.testing.assert_allclose(c.usage, [0.02, 0.01, 0.0])
    assert c.counted.tolist() == [True, True, False]  # the carried work makes the next period count


def test_two_threads_wait_on_two_runqueues():
    p = burst_periods(np.array([0.0, 0.0]), np.array([0.03, 0.03]), 1.0, 2)
    c = cfs(p, 0.04, parallel=2.0)  # 400m: 20 ms each, both exhausted at 20 ms
    assert c.throttled_s[0] == pytest.approx(2 * 0.08)


def test_bursts_are_spread_over_the_periods_they_run_in():
    rng = np.random.default_rng(3)
    start, cpu = rng.uniform(0, 9.5, 300), rng.gamma(1, 0.02, 300)
    p = burst_periods(start, cpu, 1.0, 100)
    assert p.work.sum() == pytest.approx(cpu.sum())
    assert (p.work <= PERIOD_S * 300 + 1e-12).all() and (p.a0[p.work > 0] <= p.a1[p.work > 0]).all()
