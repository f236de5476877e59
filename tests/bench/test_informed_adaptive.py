"""The informed allocation's greedy step does what its example says and follows the true gaps."""

from __future__ import annotations

import doctest


def test_informed_adaptive_examples_hold(bench_module):
    result = doctest.testmod(bench_module("informed_adaptive"))
    assert result.attempted >= 1 and result.failed == 0


def test_runs_follow_the_true_gaps(bench_module):
    informed_runs = bench_module("informed_adaptive").informed_runs
    rel = {(0, 1, "1"): 0.0, (0, 1, "2"): 0.11, (0, 1, "4"): 0.6, (0, 2, "1"): 0.4, (0, 2, "2"): 0.0}
    n = informed_runs(rel, {c: 0.1 for c in rel}, 12, 0.0953)
    assert sum(n.values()) == 12 and min(n.values()) == 1
    assert n[(0, 1, "1")] + n[(0, 1, "2")] > 2 * max(n[(0, 1, "4")], n[(0, 2, "1")])  # the close pair gets the runs
