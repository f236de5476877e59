"""The sweep-wide family of thread-count claims: Bonferroni across limits, verdicts that agree with intervals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from throttlelab.analysis.threads.thread_sweep import (auto_against_best, describe, limit_family, pair_change, runs_to_decide,
                                               slower_than_best)


def test_p_values_scale_with_the_limits_and_the_critical_gap_agrees_with_them():
    one, eight = limit_family((3,) * 6, 12.0, 1, n_sim=4000), limit_family((3,) * 6, 12.0, 8, n_sim=4000)
    assert eight.p_value(3.0) == pytest.approx(min(1.0, 8 * one.p_value(3.0)))
    assert one.p_value(-1.0) == one.p_value(0.0) == 1.0
    for fam in (one, eight):
        c = fam.critical(0.05)
        assert fam.p_value(c) >= 0.05 > fam.p_value(np.nextafter(c, np.inf))
    assert eight.critical(0.05) > one.critical(0.05)
    assert limit_family((3,) * 6, 12.0, 10**6, n_sim=1000).critical(0.05) == math.inf  # no claim possible


def test_largest_gap_of_six_equal_settings_is_rarely_exceeded_across_eight_limits():
    """Null: 8 limits x 6 equal settings x 3 runs, noise measured with 12 df at each limit: the share of sweeps
    with any pair called different is at most 5% (seeded, 600 sweeps)."""
    rng = np.random.default_rng(11)
    fam = limit_family((3,) * 6, 12.0, 8, n_sim=20000)
    c = fam.critical(0.05)
    hits = 0
    for _ in range(600):
        m = rng.standard_normal((8, 6)) / math.sqrt(3)
        s = np.sqrt(rng.chisquare(12, 8) / 12)
        hits += bool(np.any((m.max(axis=1) - m.min(axis=1)) / (s * math.sqrt(2 / 3)) > c))
    assert hits / 600 <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / 600)


def test_slower_than_best_and_auto_against_best_read_off_one_family():
    fam = limit_family((3,) * 5, 30.0, 4, n_sim=4000)
    m = np.log([10.0, 10.3, 13.0, 10.1])
    p = slower_than_best(m, np.array([3, 3, 3, 3]), 0.05, fam)
    assert p[0] == 1.0 and p[2] < 0.001 and p[1] > 0.05
    ci, pa = auto_against_best(math.log(12.0), 3, m, np.array([3, 3, 3, 3]), 0.05, fam, 0.95)
    assert ci.low > 0 and pa < 0.05  # auto 20% slower than the best: claimed, interval above 0
    ci, pa = auto_against_best(math.log(10.05), 3, m, np.array([3, 3, 3, 3]), 0.05, fam, 0.95)
    assert ci.low < 0 < ci.high and pa > 0.05
    d = math.log(12.0 / 10.0)
    pci, pp = pair_change(d, 3, 3, 0.05, fam, 0.95)
    assert pci.low < d < pci.high and pp == pytest.approx(fam.p_value(d / (0.05 * math.sqrt(2 / 3))))


def test_runs_to_decide_grow_with_the_family_and_the_procedure_is_named():
    assert runs_to_decide(0.1, 0.1, 6, 8, 0.05) > runs_to_decide(0.1, 0.1, 6, 1, 0.05) > 1
    assert "Bonferroni across the 8 limits" in describe(8, 0.05) and "Tukey-Kramer" in describe(8, 0.05)
    assert "one limit on its own" in describe(1, 0.05)
