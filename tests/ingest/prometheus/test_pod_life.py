"""A container's series over its pod's life: the same arrays and 5-minute ratios as over the whole window."""

from __future__ import annotations

import numpy as np

from throttlelab.ingest.prometheus.pod_life import pod_life, quantile_95, ratios_5m


def test_quantile_95_is_numpys_linear_quantile_to_the_last_bit():
    rng = np.random.default_rng(5)
    for n in [*range(1, 40), 288, 4032]:
        for v in (rng.random(n), np.round(rng.random(n), 2), np.zeros(n), rng.exponential(size=n) * (rng.random(n) < 0.3)):
            assert quantile_95(v) == float(np.quantile(v, 0.95)), (n, v)
    assert np.isnan(quantile_95(np.array([0.1, np.nan])))


def _whole_window(points, grid, st):
    """The containers' arrays as laid out before: over the whole window, then cut to the pod's life."""
    arrays = {}
    for name, (t, v) in points.items():
        a = np.full(len(grid), np.nan)
        a[np.clip(np.rint((t - grid[0]) / st).astype(np.int64), 0, len(grid) - 1)] = v
        arrays[name] = a
    r5 = ratios_5m(arrays, st)
    have = np.flatnonzero(np.any([np.isfinite(a) for a in arrays.values()], axis=0))
    life = slice(have[0], have[-1] + 1) if len(have) else slice(0, 0)
    return grid[life], {name: a[life] for name, a in arrays.items()}, r5


def test_pod_life_gives_what_the_whole_window_gives():
    rng = np.random.default_rng(11)
    for trial in range(400):
        st = float(rng.choice([60.0, 300.0]))
        grid = 1_767_225_600.0 + st * np.arange(1, int(rng.integers(5, 400)))
        points = {}
        for name in ("usage", "throttled_seconds", "periods", "throttled_periods"):
            if rng.random() < 0.15:
                points[name] = (np.empty(0), np.empty(0))
                continue
            lo = int(rng.integers(0, len(grid)))
            hi = min(len(grid), lo + int(rng.integers(1, 60)))
            at = np.unique(rng.integers(lo, hi, size=int(rng.integers(1, 40))))
            v = rng.gamma(1.0, 2.0, len(at))
            v[rng.random(len(at)) < 0.1] = np.nan
            t = grid[at] + rng.normal(0, 0.2, len(at)) - (st * 3 if rng.random() < 0.05 else 0)  # jitter, before start
            points[name] = (t, v)
        want_t, want, want_r = _whole_window(points, grid, st)
        got_t, got, got_r = pod_life(points, grid, st)
        assert np.array_equal(got_t, want_t), trial
        for name in points:
            assert np.array_equal(got[name], want[name], equal_nan=True), (trial, name)
        if want_r is None or got_r is None:
            assert (want_r is None or len(want_r) == 0) and (got_r is None or len(got_r) == 0), trial
        else:
            assert np.array_equal(got_r, want_r), trial
