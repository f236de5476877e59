"""The informed allocation's greedy step does what its example says."""

from __future__ import annotations

import doctest
import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_informed_adaptive_examples_hold():
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("informed_adaptive", BENCH / "informed_adaptive.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(BENCH))
    result = doctest.testmod(mod)
    assert result.attempted >= 1 and result.failed == 0


def test_runs_follow_the_true_gaps():
    sys.path.insert(0, str(BENCH))
    try:
        from informed_adaptive import informed_runs
    finally:
        sys.path.remove(str(BENCH))
    rel = {(0, 1, "1"): 0.0, (0, 1, "2"): 0.11, (0, 1, "4"): 0.6, (0, 2, "1"): 0.4, (0, 2, "2"): 0.0}
    n = informed_runs(rel, {c: 0.1 for c in rel}, 12, 0.0953)
    assert sum(n.values()) == 12 and min(n.values()) == 1
    assert n[(0, 1, "1")] + n[(0, 1, "2")] > 2 * max(n[(0, 1, "4")], n[(0, 2, "1")])  # the close pair gets the runs
