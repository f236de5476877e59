"""Order-statistic quantile intervals: coverage at least the level, or "not enough samples" with the n that would do."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
from scipy import stats

from throttlelab.analysis.stats import quantile_intervals as mod
from throttlelab.analysis.stats.quantile_intervals import min_samples_for, quantile_interval, quantile_ranks


def test_ranks_hold_the_level_and_small_n_has_none():
    assert min_samples_for(0.99) == 368 and quantile_ranks(367, 0.99) is None and quantile_ranks(368, 0.99)
    assert min_samples_for(0.95) == 72 and quantile_ranks(0, 0.5) is None
    lo, hi = quantile_ranks(100, 0.5)
    assert stats.binom.cdf(hi - 1, 100, 0.5) - stats.binom.cdf(lo - 1, 100, 0.5) >= 0.95


def test_too_few_samples_say_how_many_would_do():
    e = quantile_interval(np.arange(50.0), "p99")
    assert e.low is None and e.high is None and e.value == pytest.approx(48.51)
    assert e.note == "not enough samples for p99 (n=50; need 368)" and e.n_samples == 50
    empty = quantile_interval(np.array([np.nan]), "p50")
    assert empty.value is None and empty.n_samples == 0 and empty.note == "no samples"


@pytest.mark.parametrize("stat, n", [("p50", 30), ("p95", 100), ("p99", 400)])
def test_coverage_on_heavy_tailed_samples(stat, n):
    """Lognormal (sigma 1) samples: the interval covers the true quantile in at least ~95% of 1500 draws."""
    rng = np.random.default_rng(7)
    q = float(stat[1:]) / 100
    truth = math.exp(stats.norm.ppf(q))
    hits = sum(e.low <= truth <= e.high for e in (quantile_interval(rng.lognormal(0, 1, n), stat) for _ in range(1500)))
    assert hits / 1500 >= 0.935  # >= 0.95 by construction; 3 binomial SEs of 1500 draws below it


def test_docstring_examples():
    assert doctest.testmod(mod).failed == 0
