"""Tests of throttlelab.core.ordering: order and choice that never depend on a score's last bits."""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from throttlelab.core.ordering import argbest, best_by_score, order_by_score, tie_order


def _ulps(x: float, k: int) -> float:
    for _ in range(abs(k)):
        x = math.nextafter(x, math.inf if k > 0 else -math.inf)
    return x


@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=8),
       st.lists(st.integers(-4, 4), min_size=8, max_size=8))
def test_a_few_ulps_never_change_the_order(values, shifts):
    """Ties made by repeating values, then each value moved by up to 4 ulps: the order stays."""
    tied = values + values[:3]
    moved = [_ulps(v, k) for v, k in zip(tied, itertools.cycle(shifts))]
    assert tie_order(moved) == tie_order(tied)


def test_ties_go_by_position_and_real_differences_by_score():
    assert tie_order([2.0, 1.0, 1.0 + 1e-15, 0.5]) == [3, 1, 2, 0]
    assert tie_order([2.0, 1.0 + 1e-15, 1.0, 0.5]) == [3, 1, 2, 0]
    assert tie_order([1.0, 1.001]) == [0, 1] and tie_order([1.001, 1.0]) == [1, 0]
    assert tie_order([float("nan"), 3.0, 1.0]) == [2, 1, 0]


def test_the_best_of_tied_items_is_the_first_whatever_their_bits():
    for k in range(-3, 4):
        assert best_by_score(["a", "b"], {"a": 2.0, "b": _ulps(2.0, k)}.get) == "a"
        assert best_by_score(["a", "b"], {"a": 2.0, "b": _ulps(2.0, k)}.get, highest=True) == "a"
        assert argbest(np.array([3.0, 1.0, _ulps(1.0, k)])) == 1
    assert order_by_score(["x", "y", "z"], {"x": 1.0, "y": 5.0, "z": 3.0}.get, reverse=True) == ["y", "z", "x"]
