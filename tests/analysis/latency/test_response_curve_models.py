"""Tests of throttlelab.analysis.latency.response_curve_models: the curves, their fit, knee, doubling share and pole."""

from __future__ import annotations

import math

import numpy as np
import pytest

from throttlelab.analysis.latency.response_curve_models import MODELS, fit_params, knee_doubling_pole


def test_hyperbolic_fit_recovers_the_parameters():
    x = np.linspace(0, 0.7, 15)
    lam = np.zeros_like(x)
    fn, _ = MODELS["hyperbolic"]
    y = fn(x, lam, 0.05, 0.02, 0.9) * (1 + np.random.default_rng(1).normal(0, 0.01, x.size))
    a, b, c = fit_params("hyperbolic", x, lam, y)
    assert (a, b, c) == pytest.approx((0.05, 0.02, 0.9), rel=0.15)
    knee, doubling, pole = knee_doubling_pole("hyperbolic", np.array([0.05, 0.02, 0.9]), 0.0, 0.7)
    assert pole == pytest.approx(0.9)
    # doubling: R(x) = 2 R(0)  ->  a + b/(c-x) = 2a + 2b/c
    assert fn(np.array([doubling]), 0, 0.05, 0.02, 0.9)[0] == pytest.approx(2 * fn(np.array([0.0]), 0, 0.05, 0.02, 0.9)[0])
    assert 0 < knee < 0.7


def test_mm1_fit_and_its_pole():
    x = np.linspace(0, 0.5, 12)
    lam = np.full_like(x, 20.0)
    fn, names = MODELS["mm1"]
    assert names == ("service_seconds", "effective_cores")
    y = fn(x, lam, 0.04, 2.0)
    s, cap = fit_params("mm1", x, lam, y)
    assert (s, cap) == pytest.approx((0.04, 2.0), rel=0.02)
    knee, doubling, pole = knee_doubling_pole("mm1", np.array([0.04, 2.0]), 20.0, 0.5)
    assert pole == pytest.approx(1 - 20 * 0.04 / 2.0)  # rho reaches 1 at x = 0.6
    r0 = fn(np.array([0.0]), 20.0, 0.04, 2.0)[0]
    assert fn(np.array([doubling]), 20.0, 0.04, 2.0)[0] == pytest.approx(2 * r0, rel=1e-6)
    assert 0 <= knee <= 0.5


def test_a_pole_outside_the_unit_interval_is_nan():
    _, _, pole = knee_doubling_pole("hyperbolic", np.array([0.1, 0.01, 1.5]), 0.0, 0.7)
    assert math.isnan(pole)
