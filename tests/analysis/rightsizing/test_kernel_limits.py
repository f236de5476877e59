"""Tests of throttlelab.analysis.rightsizing.kernel_limits: which rule reads the limit from the counters, and how."""

from __future__ import annotations

import numpy as np
import pytest

from throttlelab.analysis.rightsizing.kernel_limits import FLOOR, MODEL_ERROR, QUIET, kernel_limit
from throttlelab.analysis.rightsizing.kernel_tail import ALPHA_BODY, ALPHA_SPIKES

N, STEP = 240, 60.0  # four hours of one-minute steps


def _read(limit, ratio, usage, wait_s=0.0, *, periods=10.0, limits=None, current=None, resamples=20):
    """Per-step rates: ``periods`` per second, a share ``ratio`` throttled, each waiting ``wait_s`` s in all."""
    rng = np.random.default_rng(0)
    cells = np.arange(N) // 10
    W = np.vstack([np.ones(24), rng.multinomial(24, np.full(24, 1 / 24), size=resamples)]).astype(float)
    lims = np.full(N, limit, float) if limits is None else limits
    thr = np.full(N, periods * ratio)
    return kernel_limit(np.full(N, usage), thr * wait_s, np.full(N, periods), thr, lims, cells, W, period_s=0.1,
                        target=0.05, censored_ratio=0.5, step_s=STEP, current=current if current else limit)


def test_a_body_is_read_along_a_steep_tail_and_spikes_along_a_shallow_one():
    body = _read(1.0, 0.2, usage=0.6, wait_s=0.02)  # rho 0.6, waits 20% of the period
    spikes = _read(0.1, 0.2, usage=0.01, wait_s=0.06)  # rho 0.1, waits 60% of it
    assert (body.how, spikes.how) == ("tail", "tail")
    assert body.alpha == pytest.approx(ALPHA_BODY, abs=0.2) and spikes.alpha == pytest.approx(ALPHA_SPIKES, abs=0.2)
    assert body.limit == pytest.approx(1.0 * 4 ** (1 / body.alpha)) and body.predicted(body.limit) == pytest.approx(0.05)
    assert spikes.limit == pytest.approx(0.1 * 4 ** (1 / spikes.alpha))


def test_many_runqueues_waiting_at_once_are_a_body_not_spikes():
    """Eight threads busy until a 2-core quota runs out wait 6 runqueue-periods between them: per runqueue 0.75,
    about as long as their mean demand while running (rho 0.8), between the kinds, not a spike's 1.25th power."""
    many = _read(2.0, 0.3, usage=1.6, wait_s=0.6)
    assert many.how == "tail" and 3.0 < many.alpha < 4.0
    lone = _read(0.5, 0.3, usage=0.05, wait_s=0.06)  # one thread, rho 0.1, waiting 60%: spikes, unchanged
    assert lone.alpha == pytest.approx(ALPHA_SPIKES, abs=0.05)


def test_quiet_censored_and_no_limit():
    quiet = _read(2.0, 0.0, usage=0.3)  # running every period at 300m
    assert quiet.how == "quiet" and quiet.limit == pytest.approx(QUIET * 0.3) and quiet.alpha is None
    deep = _read(2.0, 0.0002, usage=0.3, wait_s=0.002)  # 29 throttled periods, but 0.02% of them: far in the tail
    assert deep.how == "quiet"
    assert _read(2.0, 0.0, usage=0.01).limit == FLOOR
    cen = _read(0.5, 0.9, usage=0.5, wait_s=0.05)
    assert cen.how == "censored" and 0.5 * np.sqrt(18) <= cen.limit <= 0.5 * 18
    free = kernel_limit(np.full(N, 0.3), np.zeros(N), np.full(N, np.nan), np.zeros(N), np.full(N, np.nan),
                        np.arange(N) // 10, np.ones((1, 24)), period_s=0.1, target=0.05, censored_ratio=0.5,
                        step_s=STEP, current=None)
    assert free.how == "no limit" and free.limit == pytest.approx(0.6)


def test_two_limits_give_the_exponent_through_both():
    lims = np.where(np.arange(N) < N // 2, 0.5, 0.6)
    ratio = np.where(lims == 0.5, 0.2, 0.2 * (0.5 / 0.6) ** 6)
    rng = np.random.default_rng(0)
    W = np.vstack([np.ones(24), rng.multinomial(24, np.full(24, 1 / 24), size=20)]).astype(float)
    k = kernel_limit(np.full(N, 0.4), 10 * ratio * 0.02, np.full(N, 10.0), 10 * ratio, lims, np.arange(N) // 10, W,
                     period_s=0.1, target=0.05, censored_ratio=0.5, step_s=STEP, current=0.6)
    assert k.how == "two limits" and k.alpha == pytest.approx(6.0)
    assert k.limit == pytest.approx(0.6 * (0.2 * (0.5 / 0.6) ** 6 / 0.05) ** (1 / 6))


def test_the_interval_is_widened_by_the_rules_error_on_the_ladders():
    k = _read(1.0, 0.2, usage=0.6, wait_s=0.02)
    lo, hi = k.interval(0.9)
    err_lo, err_hi = MODEL_ERROR["tail"]
    assert lo <= k.limit / err_hi * 1.0001 and hi >= k.limit / err_lo * 0.9999
