"""Jonckheere-Terpstra test and slope-per-worker estimates."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from throttlelab.analysis.latency.trend_tests import jonckheere_terpstra, slope_per_worker


def brute_force_j(groups):
    return sum(float(a < b) + 0.5 * float(a == b)
               for i, j in itertools.combinations(range(len(groups)), 2) for a in groups[i] for b in groups[j])


def test_statistic_matches_pair_counting_with_ties():
    groups = [np.array([1.0, 2.0, 2.0]), np.array([2.0, 3.0]), np.array([0.5, 3.0, 4.0, 5.0])]
    r = jonckheere_terpstra(groups)
    assert r.statistic == brute_force_j(groups)
    pairs = 3 * 2 + 3 * 4 + 2 * 4
    assert r.expected == pairs / 2
    assert r.tau == pytest.approx((2 * r.statistic - pairs) / pairs)


def test_perfect_order_gives_tau_one_and_small_p():
    groups = [np.arange(10) + 10 * k for k in range(4)]
    r = jonckheere_terpstra(groups, alternative="increasing")
    assert r.tau == 1.0 and r.p_value < 1e-6
    assert jonckheere_terpstra(groups, alternative="decreasing").p_value > 0.99


def test_normal_approximation_agrees_with_a_permutation_p_value():
    rng = np.random.default_rng(3)
    groups = [rng.normal(0.1 * k, 1, 25) for k in range(4)]
    r = jonckheere_terpstra(groups, alternative="two-sided")
    pooled, sizes = np.concatenate(groups), [g.size for g in groups]
    perm = []
    for _ in range(400):
        x = rng.permutation(pooled)
        perm.append(brute_force_j(np.split(x, np.cumsum(sizes)[:-1])))
    perm_p = np.mean(np.abs(np.array(perm) - r.expected) >= abs(r.statistic - r.expected))
    assert r.p_value == pytest.approx(perm_p, abs=0.06)


def test_tau_interval_brackets_tau():
    rng = np.random.default_rng(0)
    groups = [rng.exponential(1 + 0.3 * k, 30) for k in range(3)]
    r = jonckheere_terpstra(groups, n_boot=100)
    assert r.tau_low <= r.tau <= r.tau_high
    assert r.confidence_interval() == (r.tau_low, r.tau_high)


def test_too_few_groups_gives_nan():
    r = jonckheere_terpstra([np.array([1.0, 2.0])])
    assert np.isnan(r.p_value)
    with pytest.raises(ValueError, match="alternative"):
        jonckheere_terpstra([np.ones(2), np.ones(2)], alternative="up")


def test_slope_of_a_shifted_family():
    base = np.linspace(0.05, 0.15, 101)
    workers = [2, 4, 6, 8]
    groups = [base + 0.001 * w for w in workers]
    e = slope_per_worker(groups, workers, "p95", n_boot=100)
    assert e.value == pytest.approx(0.001)
    assert e.low <= e.value <= e.high
    assert np.isnan(slope_per_worker(groups[:1], workers[:1], "mean").value)


def test_slope_interval_widens_when_runs_disagree():
    rng = np.random.default_rng(1)
    workers = [2, 4, 6]
    runs = [[rng.normal(0.1, 0.01, 40), rng.normal(0.1 * (5 if w == 6 else 1), 0.01, 40)] for w in workers]
    groups = [np.concatenate(r) for r in runs]
    requests_only = slope_per_worker(groups, workers, "mean", n_boot=200)
    with_runs = slope_per_worker(groups, workers, "mean", n_boot=200, runs=runs)
    assert with_runs.value == requests_only.value
    assert (with_runs.high - with_runs.low) > 3 * (requests_only.high - requests_only.low)
    assert with_runs.low <= 0.001  # one slow run is not evidence of a slope
