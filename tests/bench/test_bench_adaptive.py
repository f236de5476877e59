"""The adaptive benchmark's helpers (budget option, calibration, contender and paired lines) do what their examples say."""

from __future__ import annotations

import doctest


def test_bench_adaptive_examples_hold(bench_module):
    result = doctest.testmod(bench_module("bench_adaptive"))
    assert result.attempted >= 5 and result.failed == 0


def _simulated_pairs(rng, n: int, grid_only: float, adaptive_only: float, neither: float) -> list[tuple[bool, bool]]:
    kind = rng.choice(4, size=n, p=[1 - grid_only - adaptive_only - neither, grid_only, adaptive_only, neither])
    return [(k in (0, 1), k in (0, 2)) for k in kind]


def test_paired_difference_holds_its_false_alarm_rate_and_coverage(bench_module):
    """Simulated benchmarks of 200 and 40 scenarios (one kind): with no true difference, the exact McNemar
    test rejects at 5% in at most 5% (+ Monte Carlo slack); the 95% interval covers the true difference in
    93-97% of them, at 200 scenarios and at 40 (a plain Wald interval covered 92.6% there)."""
    import numpy as np

    paired_difference = bench_module("bench_adaptive").paired_difference
    rng = np.random.default_rng(17)
    reps = 2000
    for n, grid_only, adaptive_only, neither, lowest in ((200, 0.09, 0.09, 0.04, 0.93), (200, 0.12, 0.06, 0.04, 0.93),
                                                         (40, 0.09, 0.09, 0.04, 0.93), (40, 0.15, 0.05, 0.05, 0.93)):
        truth = adaptive_only - grid_only
        covered = rejected = 0
        for _ in range(reps):
            d, lo, hi, p, b, c = paired_difference(_simulated_pairs(rng, n, grid_only, adaptive_only, neither))
            covered += lo <= truth <= hi
            rejected += p < 0.05
        assert lowest <= covered / reps <= 0.97, (n, grid_only, adaptive_only, covered / reps)
        if grid_only == adaptive_only:
            assert rejected / reps <= 0.05 + 3 * (0.05 * 0.95 / reps) ** 0.5, (n, rejected / reps)
        else:
            assert rejected / reps > 0.05  # a real difference is found more often than a false alarm
