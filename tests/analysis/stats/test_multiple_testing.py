"""Adjusted p-values: Holm by hand, max-T step-down against Holm."""

from __future__ import annotations

import numpy as np

from throttlelab.analysis.stats.multiple_testing import holm, maxt_stepdown


def test_holm_by_hand_keeps_nan_out_of_the_family():
    got = holm([np.nan, 0.01, 0.04, 0.03])
    # sorted 0.01, 0.03, 0.04 -> 3*0.01, max(0.03, 2*0.03), max(0.06, 1*0.04)
    np.testing.assert_allclose(got, [np.nan, 0.03, 0.06, 0.06])


def test_maxt_stepdown_is_monotone_in_the_statistic_and_untested_is_nan():
    rng = np.random.default_rng(0)
    t_null = rng.standard_normal((4000, 4))
    t_obs = np.array([np.inf, 3.0, 0.5, 2.0])
    got = maxt_stepdown(t_obs, t_null, np.arange(1, 4))
    assert np.isnan(got[0])
    assert got[1] <= got[3] <= got[2] <= 1
    assert got[1] < 0.05 < got[2]
