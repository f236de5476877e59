"""Tests of throttlelab.analysis.stats.bootstrap: the seeded refit loop, residual draws and percentile intervals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from throttlelab.analysis.stats.bootstrap import (bootstrap_refits, percentile_interval, residual_bootstrap,
                                                  residual_draw)


def test_percentile_interval_drops_nans():
    s = np.concatenate([np.arange(1, 101, dtype=float), [np.nan, np.inf]])
    ci = percentile_interval(s, level=0.9)
    assert (ci.low, ci.high) == pytest.approx((5.95, 95.05))
    empty = percentile_interval(np.array([np.nan]))
    assert math.isnan(empty.low) and math.isnan(empty.high)


def line_fit(x):
    return lambda y: np.polyfit(x, y, 1)


def test_residual_bootstrap_is_seeded_and_covers_the_slope():
    rng = np.random.default_rng(0)
    x = np.linspace(0, 10, 40)
    y = 2.0 * x + 1.0 + rng.normal(0, 1.0, x.size)
    p = np.polyfit(x, y, 1)
    fitted = np.polyval(p, x)
    a = residual_bootstrap(line_fit(x), fitted, y - fitted, n_boot=300, seed=7, n_params=2)
    b = residual_bootstrap(line_fit(x), fitted, y - fitted, n_boot=300, seed=7, n_params=2)
    assert a.shape == (300, 2) and np.array_equal(a, b)
    ci = percentile_interval(a[:, 0])
    assert ci.low < 2.0 < ci.high
    se = 1.0 / np.sqrt(np.sum((x - x.mean()) ** 2))  # the slope's true standard error
    assert a[:, 0].std() == pytest.approx(se, rel=0.25)


def test_failed_refits_are_nan_rows():
    calls = iter(range(10))
    refit = lambda y: None if next(calls) % 2 else np.array([y.mean()])  # noqa: E731
    out = residual_bootstrap(refit, np.zeros(5), np.arange(5.0), n_boot=4, seed=1, n_params=1)
    assert np.isnan(out[1, 0]) and np.isnan(out[3, 0]) and np.isfinite(out[[0, 2], 0]).all()


def test_bootstrap_refits_draws_from_one_seeded_generator_and_keeps_failed_rows_as_nan():
    y = np.arange(6.0)
    seen = []

    def draw(rng):
        seen.append(rng)
        return y[rng.integers(0, 6, 6)]

    rows = bootstrap_refits(lambda yy: None if yy.sum() > 18 else np.array([yy.mean(), yy.max()]), draw,
                            n_boot=50, seed=4, width=2)
    assert rows.shape == (50, 2) and len({id(r) for r in seen}) == 1
    failed = np.isnan(rows).all(axis=1)
    assert failed.any() and not failed.all()
    assert np.array_equal(rows, bootstrap_refits(lambda yy: None if yy.sum() > 18 else np.array([yy.mean(), yy.max()]),
                                                 lambda rng: y[rng.integers(0, 6, 6)], n_boot=50, seed=4, width=2),
                          equal_nan=True)


def test_residual_draw_centres_and_rescales_the_residuals():
    fitted, resid = np.full(8, 10.0), np.array([1.0, 2, 3, 4, 5, 6, 7, 8])
    draw = residual_draw(fitted, resid, n_params=2)
    replicates = np.array([draw(np.random.default_rng(s)) for s in range(200)])
    allowed = 10.0 + (resid - resid.mean()) * np.sqrt(8 / 6)
    assert np.isin(replicates, allowed).all()  # every value a centred residual times sqrt(n / (n - p))
