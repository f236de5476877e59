"""How synthetic threads bring work: a duty loop slows down under a limit, tickers tick, requests and spikes arrive."""

from __future__ import annotations

import numpy as np
import pytest

from throttlelab.experiment.simulation import burst_workloads as bw
from throttlelab.experiment.simulation.cfs_periods import PERIOD_S, burst_periods, cfs


def _duty(quota, seconds=120.0, cv=0.5, seed=0):
    return bw.duty_bursts(np.random.default_rng(seed), busy=np.array([0.03]), rest=0.07, cv=cv, speed=1.0,
                          seconds=seconds, quota=quota, level_s=seconds)


def test_a_duty_loop_without_a_limit_runs_its_duty_cycle():
    s, b = _duty(None)
    assert b.sum() / 120 == pytest.approx(0.3, rel=0.05)  # 30 ms busy of every 100 ms
    assert np.all(np.diff(np.sort(s)) > 0)


def test_a_duty_loop_slows_down_under_a_limit_and_its_usage_falls_below_its_demand():
    """300m of demand under a 200m limit: each burst stretches over periods, so fewer bursts start and the usage is
    below the demand (an open loop's usage would catch up through its backlog)."""
    free_s, free_b = _duty(None)
    s, b = _duty(0.02)
    assert len(s) < 0.8 * len(free_s)
    c = cfs(burst_periods(s, b, 1.0, int(120 / PERIOD_S)), 0.02, parallel=1.0)
    assert c.usage.sum() / 120 < 0.9 * free_b.sum() / 120
    assert c.usage.max() <= 0.02 + 1e-12 and c.throttled.mean() > 0.3
    # a limit above the bursts changes nothing
    s_hi, _ = _duty(PERIOD_S)
    assert len(s_hi) == len(free_s)


def _plain_duty(start, burst, rest, quota, seconds, period=PERIOD_S):
    """One thread's burst starts, followed through time in a plain loop (the quota spent per period)."""
    t, used, cur, starts = start, 0.0, -1, []
    while t < seconds:
        starts.append(t)
        left = burst
        while left > 1e-12:
            k = int(np.floor(t / period + 1e-9))
            if k != cur:
                cur, used = k, 0.0
            run = min(left, quota - used, (k + 1) * period - t)
            t, used, left = t + max(run, 0.0), used + max(run, 0.0), left - max(run, 0.0)
            if left > 1e-12:
                t = (k + 1) * period
        t += rest
    return np.array(starts)


@pytest.mark.parametrize("burst,quota", [(0.023, 0.01), (0.005, 0.01), (0.042, 0.015), (0.03, 0.05)])
def test_duty_bursts_follow_a_plain_loop_through_the_quota(burst, quota):
    """Each burst runs until its period's quota is spent, waits for the next period, and so on (one lane, no spread)."""
    s, b = bw.duty_bursts(np.random.default_rng(4), busy=np.array([burst]), rest=0.07, cv=0.0, speed=1.0,
                          seconds=30.0, quota=quota, level_s=30.0)
    ref = _plain_duty(s[0], burst, 0.07, quota, 30.0)
    assert len(s) == len(ref)
    np.testing.assert_allclose(s, ref, atol=1e-6)


def test_a_ticker_bursts_every_tick_on_every_thread():
    s, b = bw.ticker_bursts(np.random.default_rng(1), busy=np.array([0.01]), threads=3, every_s=0.5, cv=0.0,
                            seconds=120.0, level_s=120.0)
    assert len(s) == 3 * 240 and np.allclose(b, 0.01)
    assert np.allclose(np.diff(np.unique(s))[:100], 0.5)


def test_requests_bring_their_level_and_may_owe_a_timeout_of_it():
    level = np.array([0.4, 0.8])
    p = bw.request_periods(np.random.default_rng(2), level=level, active=np.array([0.5, 0.7]), cv=0.8, speed=1.0,
                           parallel=4.0, level_s=600.0)
    n = 6000
    assert p.work[:n].sum() / 600 == pytest.approx(0.4, rel=0.05)
    assert p.work[n:].sum() / 600 == pytest.approx(0.8, rel=0.05)
    assert np.count_nonzero(p.work[:n]) / n == pytest.approx(0.5, abs=0.03)
    assert p.cap[0] == pytest.approx(0.4 * bw.TIMEOUT_S) and p.cap[-1] == pytest.approx(0.8 * bw.TIMEOUT_S)


def test_spikes_come_about_every_so_often_and_are_owed_for_a_while():
    t = bw.spike_times(np.random.default_rng(3), spike_every_s=30.0, seconds=3600.0)
    gaps = np.diff(t)
    assert len(t) == pytest.approx(120, abs=2) and gaps.min() >= 27 - 1e-9 and gaps.max() <= 33 + 1e-9
    cap = bw.spike_cap(np.array([1.0]), 0.2, 200, hold_s=5.0)
    assert cap[9] == 0 and cap[10] == pytest.approx(0.2) and cap[59] == pytest.approx(0.2) and cap[60] == 0
    p = bw.spike_periods(np.array([1.0]), 0.2, 1.0, 200)
    assert p.work.sum() == pytest.approx(0.2) and np.count_nonzero(p.work) == 2


def test_gamma_factor_has_mean_one_and_the_asked_spread():
    x = bw.gamma_factor(np.random.default_rng(5), 0.8, 200_000)
    assert x.mean() == pytest.approx(1, rel=0.01) and x.std() == pytest.approx(0.8, rel=0.02)
    assert np.all(bw.gamma_factor(np.random.default_rng(5), 0.0, 5) == 1)
