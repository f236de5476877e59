"""Bootstrap draws of the request and the limit: the right shape, the burstiness seen in the throttling, the target."""

from __future__ import annotations

import numpy as np
import pytest

from throttlelab.analysis.rightsizing.rightsizing_draws import SIGMA_NO_LIMIT, limit_draws

STEP = 60.0


def _steps(mean: float, limit: float | None, throttled_share: float, hours: float = 48, seed: int = 0):
    """Per-step inputs of a container whose demand varies around ``mean`` cores (log-normal, 20%)."""
    rng = np.random.default_rng(seed)
    n = int(hours * 3600 / STEP)
    demand = mean * np.exp(rng.normal(0, 0.2, n))
    periods = np.full(n, 10.0) if limit is not None else np.full(n, np.nan)  # 10 periods/s: 100 ms
    throttled = periods * throttled_share
    active = np.clip(periods * 0.1, 1e-3, 1.0) if limit is not None else np.ones(n)
    return dict(demand=demand, mean_active=np.maximum(demand / active, 1e-6), active=active,
                times=np.arange(n) * STEP, periods=np.nan_to_num(periods), throttled=np.nan_to_num(throttled),
                span=n * STEP, step_s=STEP, limit_cores=limit, limited=limit is not None)


def test_one_row_per_draw_and_the_limit_never_below_the_request():
    d = limit_draws(**_steps(0.5, 1.0, 0.02), target=0.05, resamples=40, seed=1)
    assert d.request.shape == d.limit.shape == d.sigma.shape == (41,)
    assert np.all(d.limit >= d.request)
    p95 = np.quantile(_steps(0.5, 1.0, 0.02)["demand"], 0.95)
    assert d.request[0] == pytest.approx(p95, rel=0.03)  # the 3% lattice
    assert d.sigma_source == "calibrated at the current limit"


def test_more_throttling_seen_means_burstier_demand_and_a_higher_limit():
    calm = limit_draws(**_steps(0.5, 1.0, 0.01), target=0.05, resamples=20, seed=1)
    hot = limit_draws(**_steps(0.5, 1.0, 0.40), target=0.05, resamples=20, seed=1)
    assert hot.sigma[0] > calm.sigma[0]
    assert hot.limit[0] > 1.2 * calm.limit[0]


def test_a_looser_target_needs_a_smaller_limit():
    strict = limit_draws(**_steps(0.5, 1.0, 0.1), target=0.01, resamples=20, seed=1)
    loose = limit_draws(**_steps(0.5, 1.0, 0.1), target=0.20, resamples=20, seed=1)
    assert loose.limit[0] < strict.limit[0]


def test_without_a_limit_the_burstiness_is_assumed_and_spread():
    d = limit_draws(**_steps(0.5, None, 0.0), target=0.05, resamples=200, seed=1)
    assert d.sigma_source.startswith("assumed")
    assert d.sigma[0] == SIGMA_NO_LIMIT
    assert 0.4 <= d.sigma[1:].min() < 0.5 and 1.4 < d.sigma[1:].max() <= 1.6


def test_same_seed_same_draws():
    a = limit_draws(**_steps(0.5, 1.0, 0.1), target=0.05, resamples=20, seed=3)
    b = limit_draws(**_steps(0.5, 1.0, 0.1), target=0.05, resamples=20, seed=3)
    c = limit_draws(**_steps(0.5, 1.0, 0.1), target=0.05, resamples=20, seed=4)
    assert np.array_equal(a.limit, b.limit) and not np.array_equal(a.limit[1:], c.limit[1:])
