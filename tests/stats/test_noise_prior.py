"""Tests of throttlelab.stats.noise_prior: one prior, and one conversion between a CV and a log-scale sd."""

from __future__ import annotations

import math

import numpy as np
import pytest

from throttlelab.stats.noise_prior import PRIOR_CV, cv_of_log_sd, log_sd


def test_the_prior_is_twenty_percent_as_a_lognormal_sd():
    assert PRIOR_CV == 0.20
    assert log_sd(PRIOR_CV) == pytest.approx(0.19804220043536505, rel=1e-15)  # what the reports state
    assert log_sd(PRIOR_CV) > math.log1p(0.15)  # not the adaptive design's former log(1 + 0.15)


def test_the_conversion_is_a_lognormal_s_and_round_trips():
    rng = np.random.default_rng(1)
    x = np.exp(rng.normal(0.0, log_sd(0.3), 400_000))
    assert x.std() / x.mean() == pytest.approx(0.3, rel=0.02)
    for cv in (0.0, 0.05, 0.2, 1.5):
        assert cv_of_log_sd(log_sd(cv)) == pytest.approx(cv, abs=1e-12)
