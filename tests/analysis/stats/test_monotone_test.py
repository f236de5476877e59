"""The monotonicity test's vectorised isotonic regression."""

from __future__ import annotations

import numpy as np
from scipy.optimize import isotonic_regression

from throttlelab.analysis.stats.monotone_test import isotonic_decreasing_rows


def test_vectorised_isotonic_matches_scipy():
    rng = np.random.default_rng(0)
    M = rng.normal(size=(50, 7))
    w = rng.uniform(0.5, 3, 7)
    fast = isotonic_decreasing_rows(M, w)
    for row, got in zip(M, fast):
        np.testing.assert_allclose(got, isotonic_regression(row, weights=w, increasing=False).x, atol=1e-12)
