"""Tests of throttlelab.analysis.rightsizing.kernel_tail: the exponent by kind of throttling, the limit it gives."""

from __future__ import annotations

import numpy as np
import pytest

from throttlelab.analysis.rightsizing.kernel_tail import (
    ALPHA_BODY, ALPHA_BODY_LOWERING, ALPHA_RANGE, ALPHA_SPIKES, ALPHA_SPIKES_LOWERING, limit_for_target, tail_exponent,
    two_point_exponent,
)


def test_the_exponent_runs_from_spikes_to_bodies_with_rho_over_wait():
    shapes = np.geomspace(0.1, 10, 40)
    alphas = [tail_exponent(s * 0.3, 0.3) for s in shapes]
    assert np.all(np.diff(alphas) >= 0)
    assert alphas[0] == pytest.approx(ALPHA_SPIKES, abs=0.01) and alphas[-1] == pytest.approx(ALPHA_BODY, abs=0.01)
    assert tail_exponent(0.7, 0.2) > 4.5 and tail_exponent(0.1, 0.6) < 1.5  # the ladders' bodies and spikes
    low = [tail_exponent(s * 0.3, 0.3, lowering=True) for s in (0.1, 10)]
    assert low == pytest.approx([ALPHA_SPIKES_LOWERING, ALPHA_BODY_LOWERING], abs=0.01)


def test_the_limit_for_the_target_lies_on_the_power_law():
    for limit, ratio, alpha in ((0.5, 0.2, 5.0), (2.0, 0.01, 8.0), (0.08, 0.15, 1.25)):
        new = limit_for_target(limit, ratio, alpha, 0.05)
        assert ratio * (limit / new) ** alpha == pytest.approx(0.05)
        assert (new > limit) == (ratio > 0.05)


def test_two_points_give_the_exponent_through_them_or_none():
    assert two_point_exponent(0.5, 0.2, 0.6, 0.2 * (0.5 / 0.6) ** 4) == pytest.approx(4.0)
    assert two_point_exponent(0.6, 0.2 * (0.5 / 0.6) ** 4, 0.5, 0.2) == pytest.approx(4.0)  # either order
    assert two_point_exponent(0.5, 0.2, 0.51, 0.001) == ALPHA_RANGE[1]  # counting noise is not believed
    assert two_point_exponent(0.5, 0.2, 0.5, 0.1) is None and two_point_exponent(0.5, 0.0, 0.6, 0.1) is None
