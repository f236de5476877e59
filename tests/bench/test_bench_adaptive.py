"""The adaptive benchmark's helpers (budget option, calibration and contender lines) do what their examples say."""

from __future__ import annotations

import doctest
import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_bench_adaptive_examples_hold():
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("bench_adaptive", BENCH / "bench_adaptive.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(BENCH))
    result = doctest.testmod(mod)
    assert result.attempted >= 4 and result.failed == 0
