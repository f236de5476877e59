"""Profile-likelihood intervals and bound warnings on a straight line (where the exact interval is known)."""

import numpy as np
import pytest
from scipy import stats

from throttlelab.analysis.stats.profile_intervals import bound_warnings, profile_interval


def test_profile_interval_of_a_slope_is_the_t_interval():
    rng = np.random.default_rng(0)
    x = np.arange(10.0)
    y = 1 + 2 * x + rng.normal(0, 0.5, 10)
    X = np.column_stack([np.ones(10), x])
    beta, rss, *_ = np.linalg.lstsq(X, y, rcond=None)
    resid = lambda p: X @ p - y
    lo, hi, notes = profile_interval(resid, beta, 1, np.array([-np.inf, -np.inf]), np.array([np.inf, np.inf]),
                                     float(rss[0]), 8)
    se = np.sqrt(rss[0] / 8 / np.sum((x - x.mean()) ** 2))
    q = stats.t.ppf(0.975, 8)
    assert lo == pytest.approx(beta[1] - q * se, rel=1e-4) and hi == pytest.approx(beta[1] + q * se, rel=1e-4)
    assert notes == []


def test_bounds_are_named():
    assert bound_warnings(("a", "b"), [0.0, 1.0], [0, 0], [np.inf, 1]) == ["a at its lower bound 0",
                                                                           "b at its upper bound 1"]


def test_an_exact_fit_says_so_instead_of_failing():
    """Points exactly on the model (e.g. identical CPU seconds at every limit) leave no residual to measure."""
    x = np.arange(6.0)
    y = 3.0 + 0 * x
    X = np.column_stack([np.ones(6), x])
    beta = np.linalg.lstsq(X, y, rcond=None)[0]
    lo, hi, notes = profile_interval(lambda p: X @ p - y, beta, 1, np.array([-np.inf, -np.inf]),
                                     np.array([np.inf, np.inf]), 0.0, 4)
    assert lo == hi == pytest.approx(0.0, abs=1e-9) and "fits the points exactly" in notes[0]
