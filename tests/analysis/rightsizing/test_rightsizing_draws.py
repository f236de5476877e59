"""Bootstrap draws of the request and the limit: the right shape, the burstiness seen in the throttling, the target."""

from __future__ import annotations

import numpy as np
import pytest

from throttlelab.analysis.rightsizing.rightsizing_draws import SIGMA_NO_LIMIT, cells, limit_draws

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
                cells=cells(np.zeros(n), np.arange(n) * STEP, n * STEP), periods=np.nan_to_num(periods),
                throttled=np.nan_to_num(throttled), step_s=STEP, limits=np.full(n, np.nan if limit is None else limit),
                limited=limit is not None)


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


def test_cells_are_a_pods_day_or_its_twelfth_of_a_short_window():
    t = np.arange(0, 2 * 86400, 3600.0)
    one = cells(np.zeros(len(t)), t, 2 * 86400)
    two = cells(np.repeat([0, 1], len(t)), np.tile(t, 2), 2 * 86400)
    assert one.max() == 11 and two.max() == 23 and np.array_equal(two[: len(t)], one)
    week = np.arange(0, 8 * 86400, 3600.0)
    assert cells(np.zeros(len(week)), week, 8 * 86400).max() == 7


def test_two_limit_segments_are_each_calibrated_against_their_own_limit():
    """The same demand throttled at 2% under a 1-core limit and at 30% under 600m: one burstiness fits both
    segments; reading the 600m segment against the 1-core limit would call the demand far burstier."""
    a, b = _steps(0.5, 1.0, 0.02), _steps(0.5, 0.6, 0.30, seed=1)
    both = {k: np.concatenate([a[k], b[k]]) for k in ("demand", "mean_active", "active", "periods", "throttled", "limits")}
    both["cells"] = cells(np.repeat([0, 1], len(a["demand"])), np.tile(np.arange(len(a["demand"])) * STEP, 2),
                          len(a["demand"]) * STEP)
    joint = limit_draws(**both, step_s=STEP, limited=True, target=0.05, resamples=20, seed=1)
    wrong = limit_draws(**{**both, "limits": np.full(len(both["limits"]), 1.0)}, step_s=STEP, limited=True,
                        target=0.05, resamples=20, seed=1)
    assert joint.sigma[0] < wrong.sigma[0] and joint.limit[0] < wrong.limit[0]


def test_throttling_far_below_the_target_takes_the_larger_gamma_limit():
    """Throttled in 0.02% of periods (far in the tail): the gamma cross-check sets the limit; at 2% it does not."""
    far = limit_draws(**_steps(0.3, 1.0, 0.0002), target=0.05, resamples=20, seed=1)
    near = limit_draws(**_steps(0.5, 1.0, 0.02), target=0.05, resamples=20, seed=1)
    assert np.isfinite(far.cv[0]) and "gamma burst factor" in far.sigma_source
    assert np.isnan(near.cv).all() and "gamma" not in near.sigma_source
    assert np.all(far.limit[np.isfinite(far.cv)] >= far.request[np.isfinite(far.cv)])
