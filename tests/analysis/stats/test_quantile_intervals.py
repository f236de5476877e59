"""Quantile intervals: order statistics (coverage at least the level, or "not enough samples" with the n that would do)
for one run; across runs, the pooled quantile with a t interval on the log per-run quantiles."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
from scipy import stats

from throttlelab.analysis.stats import quantile_intervals as mod
from throttlelab.analysis.stats.quantile_intervals import (ONE_RUN, TWO_RUNS, across_runs, min_samples_for, per_run_minimum,
                                                     pooled_quantile_interval, quantile_interval, quantile_ranks,
                                                     split_runs)


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


def test_across_runs_is_the_t_interval_on_log_run_values_around_the_pooled_value():
    low, high, how = across_runs(2.0, [1.0, 2.0, 4.0])
    half = stats.t.ppf(0.975, 2) * math.log(2) / math.sqrt(3)  # sd of log(1, 2, 4) is log 2
    assert (low, high) == pytest.approx((2 * math.exp(-half), 2 * math.exp(half)))
    assert how == "t interval on log per-run values (2 df)"
    low, high, how = across_runs(0.0, [-1.0, 0.0, 1.0])  # not positive: the linear scale
    assert (low, high) == pytest.approx((-stats.t.ppf(0.975, 2) / math.sqrt(3), stats.t.ppf(0.975, 2) / math.sqrt(3)))
    assert how == "t interval on per-run values (2 df)"


def test_pooled_interval_treats_the_run_as_the_unit():
    rng = np.random.default_rng(5)
    runs = [np.exp(rng.normal(u, 0.5, 300)) for u in (0.0, 0.3, -0.2)]
    x, labels = np.concatenate(runs), np.repeat(["a", "b", "c"], 300)
    e = pooled_quantile_interval(x, labels, "p95")
    assert e.value == pytest.approx(np.quantile(x, 0.95)) and e.n_runs == 3 and e.n_samples == 900
    low, high, _ = across_runs(e.value, [np.quantile(r, 0.95) for r in runs])
    assert (e.low, e.high) == pytest.approx((low, high)) and e.run_to_run_measured and e.note == ""
    assert "pooled over 3 runs" in e.method and "runs as the unit" in e.method
    assert e.confidence_interval() == (e.low, e.high)
    # wider than the order-statistic interval of the same requests taken as independent (run effects of 0.3)
    naive = quantile_interval(x, "p95")
    assert e.high - e.low > 2 * (naive.high - naive.low)
    two = pooled_quantile_interval(x[:600], labels[:600], "p50")
    assert two.note == TWO_RUNS and two.n_runs == 2 and two.low < two.value < two.high


def test_one_run_is_the_order_statistic_interval_and_says_run_noise_is_unmeasured():
    x = np.random.default_rng(1).exponential(1.0, 400)
    e, o = pooled_quantile_interval(x, ["r"] * 400, "p99"), quantile_interval(x, "p99")
    assert (e.value, e.low, e.high) == (o.value, o.low, o.high) and e.n_runs == 1
    assert not e.run_to_run_measured and e.note == ONE_RUN
    assert pooled_quantile_interval(x, None, "p50").note == ONE_RUN
    short = pooled_quantile_interval(x[:50], None, "p99")
    assert short.low is None and short.note == f"not enough samples for p99 (n=50; need 368); {ONE_RUN}"
    none = pooled_quantile_interval([], None, "p50")
    assert none.value is None and none.n_runs == 0 and none.note == "no samples"


def test_too_few_requests_per_run_say_how_many_would_do():
    assert (per_run_minimum(0.99), per_run_minimum(0.95), per_run_minimum(0.5)) == (100, 20, 2)
    x = np.arange(1.0, 181.0)
    e = pooled_quantile_interval(x, np.repeat([0, 1, 2], 60), "p99")
    assert e.low is None and e.high is None and e.value == pytest.approx(np.quantile(x, 0.99))
    assert e.note == "not enough requests per run for p99 (fewest 60; need 100 in each run)"
    assert pooled_quantile_interval(x, np.repeat([0, 1, 2], 60), "p95").low is not None


def test_split_runs_drops_missing_values_and_checks_labels():
    parts = split_runs([1.0, np.nan, 2.0, 3.0], ["a", "a", "b", "c"])
    assert [p.tolist() for p in parts] == [[1.0], [2.0], [3.0]]
    assert len(split_runs([np.nan, 1.0], ["a", "b"])) == 1  # a run without values is not a run
    with pytest.raises(ValueError, match="one run label per value"):
        split_runs([1.0, 2.0], ["a"])


def test_docstring_examples():
    result = doctest.testmod(mod)
    assert result.failed == 0 and result.attempted >= 6
