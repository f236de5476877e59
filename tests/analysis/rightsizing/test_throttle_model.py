"""The throttling model: the predicted ratio falls with the limit and calibration recovers the burstiness."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from throttlelab.analysis.rightsizing.throttle_model import (CVS, SIGMA_PRIOR, SIGMAS, calibrate_sigma, gamma_curve, gamma_sf,
                                                             norm_sf, throttle_curve)


def test_norm_sf_is_the_normal_survival_function():
    x = np.linspace(-4, 4, 17)
    assert norm_sf(x) == pytest.approx(stats.norm.sf(x))


def test_throttle_curve_falls_with_the_limit():
    m = np.array([0.2, 0.5, 1.0])
    ratios = throttle_curve(m, np.ones(3), np.array([0.5, 1.0, 2.0, 4.0]), 0.5)
    assert np.all(np.diff(ratios) < 0) and ratios[-1] < 0.01 < ratios[0] < 1


def test_throttle_curve_matches_a_simulation_of_lognormal_bursts():
    rng = np.random.default_rng(0)
    sigma, mean, limit = 0.6, 0.8, 1.1
    x = rng.lognormal(-sigma**2 / 2, sigma, 200_000)  # mean 1
    simulated = float(np.mean(mean * x > limit))
    assert throttle_curve(np.array([mean]), np.array([1.0]), np.array([limit]), sigma)[0] == pytest.approx(simulated,
                                                                                                          abs=0.005)


def test_calibration_recovers_the_burstiness_that_produced_the_ratio():
    mean_active, weight, limit = np.array([0.6, 0.9]), np.array([1.0, 2.0]), 1.0
    curve = np.array([[throttle_curve(mean_active, weight, np.array([limit]), s)[0] for s in SIGMAS]])
    observed = throttle_curve(mean_active, weight, np.array([limit]), 0.3)
    assert calibrate_sigma(curve, observed, np.array([True]))[0] == pytest.approx(0.3, rel=0.1)  # grid 9% apart
    # The ratio rises then falls with sigma: two sigmas give it; the one nearer the prior is taken, and it
    # reproduces the observed ratio.
    observed = throttle_curve(mean_active, weight, np.array([limit]), 0.8)
    got = calibrate_sigma(curve, observed, np.array([True]))[0]
    assert abs(np.log(got / SIGMA_PRIOR)) < abs(np.log(0.8 / SIGMA_PRIOR))
    assert throttle_curve(mean_active, weight, np.array([limit]), got)[0] == pytest.approx(observed[0], rel=0.05)


def test_an_uninformative_row_takes_at_most_the_prior():
    curve = np.array([[throttle_curve(np.array([0.3]), np.ones(1), np.array([1.0]), s)[0] for s in SIGMAS]])
    assert calibrate_sigma(curve, np.array([0.0]), np.array([False]))[0] <= SIGMA_PRIOR
    big = calibrate_sigma(curve, np.array([0.5]), np.array([False]))[0]  # never reached: the prior
    assert big == SIGMA_PRIOR


def test_gamma_sf_is_the_survival_of_a_mean_one_gamma():
    x = np.array([0.2, 1.0, 3.0, 7.0])
    for cv in (0.3, 0.8, 1.5):
        k = 1 / cv**2
        assert gamma_sf(x, cv) == pytest.approx(stats.gamma(k, scale=1 / k).sf(x), rel=1e-9, abs=1e-300)


def test_a_gamma_fitted_far_in_the_tail_recovers_its_cv_and_needs_a_larger_limit_than_a_lognormal():
    """Bursts from a gamma of cv 0.8, throttled in 0.01% of periods at 7x the running demand: the log-normal fitted
    there makes the body too narrow (its 5% limit too small); the gamma fitted there recovers cv 0.8."""
    m, w = np.array([1.0]), np.array([1.0])
    observed = gamma_curve(m, w, np.array([7.0]), 0.8)
    curve_g = np.array([[gamma_curve(m, w, np.array([7.0]), c)[0] for c in CVS]])
    cv = calibrate_sigma(curve_g, observed, np.array([True]), grid=CVS, prior=1.2)[0]
    assert cv == pytest.approx(0.8, rel=0.08)
    curve = np.array([[throttle_curve(m, w, np.array([7.0]), s)[0] for s in SIGMAS]])
    sigma = calibrate_sigma(curve, observed, np.array([True]))[0]
    lims = np.geomspace(1, 5, 400)
    need_g = lims[np.argmax(gamma_curve(m, w, lims, 0.8) <= 0.05)]
    need_ln = lims[np.argmax(throttle_curve(m, w, lims, sigma) <= 0.05)]
    assert need_ln < 0.85 * need_g


def test_the_demand_solver_serves_exactly_what_was_served_and_holds_saturated_steps_at_the_top():
    from throttlelab.analysis.rightsizing.throttle_model import SIGMAS, _solve_demand, _served

    rng = np.random.default_rng(3)
    lim = rng.choice([0.1, 0.5, 1.0, 4.0], 3000)
    served = lim * np.concatenate([rng.uniform(1e-6, 0.999, 2990), [0, 1e-12, 1.2, 2.0, 0.9999999, *[0.5] * 5]])
    col = SIGMAS[:, None]
    for rows in (None, np.arange(len(SIGMAS))):  # from the bracket, and from the table
        u = _solve_demand(served, lim, col, rows=rows)
        top = np.log(lim) + col**2 / 2 + 3 * col
        inside = (u < top - 1e-9) & (served > 1e-9)
        got = _served(np.exp(u), lim, col)
        np.testing.assert_allclose(got[inside], np.broadcast_to(served, u.shape)[inside], rtol=1e-9)
        assert np.all(u <= top + 1e-12)
        beyond = served > _served(np.exp(top), lim, col)  # more than the top serves: held at the top
        assert beyond.any() and np.all(u[beyond] == np.broadcast_to(top, u.shape)[beyond])
