"""Probability that each candidate is the best, from bootstraps over runs."""

import math

import numpy as np

from throttlelab.analysis.stats.selection import best_choice


def test_clear_winner_and_a_tie():
    rng = np.random.default_rng(0)
    clear = best_choice({"2": np.exp(rng.normal(0, 0.02, 4)), "4": np.exp(rng.normal(0.5, 0.02, 4))})
    assert clear.best == "2" and clear.probability_best["2"] > 0.99
    tie = best_choice({k: np.exp(rng.normal(0, 0.1, 3)) for k in "abcd"})
    assert max(tie.probability_best.values()) < 0.9 and abs(sum(tie.probability_best.values()) - 1) < 1e-9


def test_single_run_candidates_are_called_optimistic():
    c = best_choice({"a": np.array([1.0]), "b": np.array([1.1, 1.2])})
    assert "optimistic" in c.method and c.runs == {"a": 1, "b": 2}


def test_worse_than_best_keeps_its_level_under_the_null_and_finds_a_clear_loser():
    from throttlelab.analysis.stats.selection import worse_than_best

    rng = np.random.default_rng(3)
    n = np.full(5, 3)
    alarms = 0
    for r in range(300):
        m = rng.normal(0, 0.1, (5, 3)).mean(axis=1)
        s = math.sqrt(rng.chisquare(10) / 10) * 0.1
        alarms += (worse_than_best(m, n, s, 10, n_sim=4000) < 0.05).any()
    assert alarms / 300 < 0.05 + 3 * 0.013  # family-wise over the five counts
    p = worse_than_best(np.array([0.0, 0.02, 0.5]), np.array([3, 3, 3]), 0.05, 12, n_sim=4000)
    assert p[0] == 1.0 and p[1] > 0.5 and p[2] < 0.001


def test_posterior_best_sums_to_one_and_shares_exact_ties():
    from throttlelab.analysis.stats.selection import posterior_best

    pb = posterior_best(np.array([0.0, 0.01, 0.3]), np.array([3, 3, 3]), 0.1, 10)
    assert abs(pb.sum() - 1) < 1e-9 and pb[2] < 0.01 and 0.3 < pb[0] < 0.8
    assert list(posterior_best(np.array([1.0, 1.0, 2.0]), np.array([2, 2, 2]), 0.0, 6)) == [0.5, 0.5, 0.0]
