"""The adaptive benchmark's helpers (budget option, calibration and contender lines) do what their examples say."""

from __future__ import annotations

import doctest


def test_bench_adaptive_examples_hold(bench_module):
    result = doctest.testmod(bench_module("bench_adaptive"))
    assert result.attempted >= 4 and result.failed == 0
