"""Probability that each candidate is the best, from bootstraps over runs."""

import numpy as np

from throttlelab.analysis.selection import best_choice


def test_clear_winner_and_a_tie():
    rng = np.random.default_rng(0)
    clear = best_choice({"2": np.exp(rng.normal(0, 0.02, 4)), "4": np.exp(rng.normal(0.5, 0.02, 4))})
    assert clear.best == "2" and clear.probability_best["2"] > 0.99
    tie = best_choice({k: np.exp(rng.normal(0, 0.1, 3)) for k in "abcd"})
    assert max(tie.probability_best.values()) < 0.9 and abs(sum(tie.probability_best.values()) - 1) < 1e-9


def test_single_run_candidates_are_called_optimistic():
    c = best_choice({"a": np.array([1.0]), "b": np.array([1.1, 1.2])})
    assert "optimistic" in c.method and c.runs == {"a": 1, "b": 2}
