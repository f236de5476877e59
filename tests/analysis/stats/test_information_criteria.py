"""Tests of throttlelab.analysis.stats.information_criteria: one AIC and one AICc, the error variance counted."""

from __future__ import annotations

import math

import numpy as np
import pytest

from throttlelab.analysis.latency.response_curves import fit_response_curve
from throttlelab.analysis.limits.scaling import fit_runtime_model
from throttlelab.analysis.stats.information_criteria import aic, aicc


def test_aic_counts_the_error_variance_as_a_parameter():
    # -2 log L of a Gaussian least-squares fit at the MLE variance RSS/n, without its constant, plus 2 (k + 1)
    rss, n, k = 0.37, 12, 3
    assert aic(rss, n, k) == pytest.approx(n * math.log(rss / n) + 2 * (k + 1), rel=1e-15)
    assert aic(rss, n, k + 1) - aic(rss, n, k) == pytest.approx(2.0)
    assert math.isfinite(aic(0.0, n, k))  # a perfect fit stays comparable


def test_aicc_corrects_for_small_samples_and_is_undefined_without_spare_points():
    rss, k = 0.37, 3
    assert aicc(rss, 12, k) == pytest.approx(aic(rss, 12, k) + 2 * 4 * 5 / 7)
    assert aicc(rss, 6, k) == pytest.approx(aic(rss, 6, k) + 2 * 4 * 5 / 1)
    assert aicc(rss, 5, k) is None and aicc(rss, 4, k) is None
    assert aicc(rss, 10_000, k) == pytest.approx(aic(rss, 10_000, k), abs=0.01)  # the correction vanishes


def test_scaling_fits_and_response_curves_use_the_same_count():
    cores = np.array([1, 2, 3, 4, 6, 8.0])
    seconds = (3 + 30 / cores) * np.exp(np.random.default_rng(1).normal(0, 0.03, cores.size))
    f = fit_runtime_model("amdahl", cores, seconds, n_boot=0)
    assert (f.aic, f.aicc) == (aic(f.rss, f.n, 2), aicc(f.rss, f.n, 2))
    x = np.array([0, 0.2, 0.4, 0.5, 0.6, 0.65, 0.7])
    y = (0.02 + 0.03 / (0.9 - x)) * np.exp(np.random.default_rng(2).normal(0, 0.01, x.size))
    r = fit_response_curve(x, y, model="hyperbolic", n_boot=5)
    assert r.aicc == aicc(r.rss, r.n, 3) and r.as_fit().goodness["aicc"] == r.aicc
    assert "aic" not in r.as_fit().goodness  # the number is AICc, and named so
