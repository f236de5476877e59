"""Tests of throttlelab.stats.limit_rules: one knee and one dead-zone rule, for a curve or many draws at once."""

from __future__ import annotations

import math

import numpy as np
import pytest

from throttlelab.stats.limit_rules import (
    best_lower,
    dead_zone_answers,
    dead_zone_margin,
    knee_answers,
    knee_index,
    slowdown_over_lower,
)

RNG = np.random.default_rng(7)
DRAWS = np.log(RNG.uniform(10, 40, size=(500, 6)))


def test_the_knee_is_the_first_limit_within_the_tolerance_of_the_best():
    times = np.array([40.0, 22.5, 21.0, 20.0, 20.5])
    assert int(knee_index(np.log(times), 10)) == 2  # 21 <= 22; 22.5 is not
    assert int(knee_index(np.log(times), 15)) == 1
    assert int(knee_index(np.log(times), 0)) == 3  # the best itself
    for row in DRAWS[:50]:  # against the rule written out on plain times
        t = np.exp(row)
        assert int(knee_index(row, 10)) == next(i for i, v in enumerate(t) if v <= t.min() * 1.1 * (1 + 1e-12))


def test_without_ties_the_acceptable_knee_is_the_knee_alone_and_ties_only_widen_it():
    plain = knee_answers(DRAWS, 10)
    assert (plain.sum(axis=1) == 1).all()
    assert (plain.argmax(axis=1) == knee_index(DRAWS, 10)).all()
    wide = knee_answers(DRAWS, 10, resolution_pct=5)
    assert (wide | ~plain).all() and wide.sum() > plain.sum()  # every plain knee stays acceptable


def test_a_dead_zone_is_a_slowdown_over_the_best_smaller_limit():
    lt = np.log([30.0, 20.0, 25.0, 19.0, 24.0])
    assert best_lower(lt).tolist() == [0, 0, 1, 1, 3]
    slow = slowdown_over_lower(lt)
    assert np.expm1(slow[[2, 4]]) == pytest.approx([0.25, 5 / 19])
    assert (slow[1:] > dead_zone_margin(10)).tolist() == [False, True, False, True]
    assert dead_zone_margin(10) == pytest.approx(math.log(1.1))


def test_the_rules_on_many_draws_are_the_rules_on_each():
    slow = slowdown_over_lower(DRAWS)
    for i in range(0, 500, 50):
        row = DRAWS[i]
        assert slow[i].tolist() == [row[j] - row[:j].min() if j else 0.0 for j in range(row.size)]
        assert knee_answers(DRAWS, 10, 5)[i].tolist() == knee_answers(row, 10, 5).tolist()
    ties = np.log([[20.0, 20.0, 30.0]])
    assert best_lower(ties).tolist() == [[0, 0, 0]]  # of tied smaller limits, the first


def test_dead_zone_answers_widen_around_the_threshold():
    slow = slowdown_over_lower(DRAWS)[:, 1:]
    plain = dead_zone_answers(slow, 10)
    assert (plain[..., 0] == (slow > dead_zone_margin(10))).all() and (plain[..., 0] != plain[..., 1]).all()
    wide = dead_zone_answers(slow, 10, resolution_pct=10)
    assert (wide | ~plain).all() and (wide.sum(axis=-1) >= 1).all()
