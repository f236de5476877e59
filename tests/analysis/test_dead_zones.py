"""Dead zones: the published ffmpeg sweep, edge cases, and a simulation of error rates."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from throttlelab import tables
from throttlelab.analysis.dead_zones import analyse_effects, find_dead_zones
from throttlelab.analysis.noise import estimate_effects
from throttlelab.analysis.prepare import prepare_runs
from throttlelab.ingest.published import load_ffmpeg_sweep


@pytest.fixture(scope="module")
def ffmpeg():
    return prepare_runs(load_ffmpeg_sweep()).runs


@pytest.mark.parametrize("block", [None, "experiment"])
def test_published_ffmpeg_dead_zone_contains_6000m(ffmpeg, block):
    [a] = find_dead_zones(ffmpeg, block=block, n_sim=20000, seed=0)
    assert a.decidable and not a.assumption_based
    assert a.noise.df == (4 if block is None else 3)
    [zone] = a.zones
    assert 6.0 in zone.limits_cores and 7.0 in zone.limits_cores
    assert zone.baseline_label == "4000m"
    assert zone.p_value < 0.05
    assert zone.slowdown_ci_pct.low > 5.0  # even the low end is beyond the practical threshold
    by = {t.limit_label: t for t in a.limits}
    # 6000m: about +34% over 4000m (geometric means of both experiments).
    assert by["6000m"].slowdown_pct == pytest.approx(34.2, abs=0.5 if block is None else 5)
    # 5000m: slower (+12.7%) but not decidable from two runs; 7000m is in the zone.
    assert by["5000m"].verdict == "undecided" and by["5000m"].slowdown_pct > 5
    assert by["7000m"].verdict == "dead zone"
    # 12000m -> 16000m (+1.8%) is not a dead zone.
    assert by["16000m"].verdict != "dead zone"
    assert by["16000m"].slowdown_pct == pytest.approx(1.8, abs=0.1)
    # Plain Holm is reported too (it is more conservative here: shared noise estimate, df 3-4).
    assert by["6000m"].p_value_holm >= by["6000m"].p_value


def test_no_replicates_is_assumption_based():
    runs = tables.conform(pl.DataFrame({
        "experiment": "e", "run_id": [str(i) for i in range(5)], "backend": "local", "workload": "w",
        "cpu_limit_cores": [1.0, 2.0, 3.0, 4.0, 5.0], "threads": "auto", "contention": 0.0,
        "wall_seconds": [10.0, 5.0, 4.0, 6.0, 3.0], "status": "ok",
    }), "runs")
    [a] = find_dead_zones(prepare_runs(runs).runs, n_sim=4000)
    assert a.assumption_based and a.noise.source == "prior cv"
    assert "assumed" in a.reason
    # +50% at one run each under 20% noise: not enough to call a dead zone.
    assert not a.zones


def test_too_few_limits_to_decide():
    runs = tables.conform(pl.DataFrame({
        "experiment": "e", "run_id": ["a", "b", "c", "d"], "backend": "local", "workload": "w",
        "cpu_limit_cores": [1.0, 1.0, 2.0, 2.0], "wall_seconds": [2.0, 2.1, 3.0, 3.1], "status": "ok",
    }), "runs")
    [a] = find_dead_zones(prepare_runs(runs).runs)
    assert not a.decidable and "too few limits" in a.reason and not a.zones


# --- simulation: error rates ------------------------------------------------------------

LIMITS = np.arange(1, 9, dtype=float)


def _rates(curve, *, n_curves, reps=3, cv=0.10, threshold_pct=5.0, bump_at=None, seed=0):
    rng = np.random.default_rng(seed)
    order = np.repeat(LIMITS, reps)
    noise = rng.normal(0.0, cv, (n_curves, order.size))  # all curves at once
    log_y = np.log(np.repeat(curve, reps))[None, :] + noise
    any_zone = hit = 0
    for c in range(n_curves):
        a = analyse_effects(estimate_effects(order, log_y[c]), list(LIMITS), threshold_pct=threshold_pct,
                            n_sim=2000, seed=c)
        any_zone += bool(a.zones)
        hit += bump_at is not None and any(bump_at in z.limits_cores for z in a.zones)
    return any_zone / n_curves, hit / n_curves


N_CURVES = 300
# Monte-Carlo tolerance: 2 standard errors of a 5% rate over N_CURVES curves.
TOL = 2 * np.sqrt(0.05 * 0.95 / N_CURVES)


@pytest.mark.parametrize(
    "name,curve,threshold",
    [
        ("quota curve with plateau", 10 / np.minimum(LIMITS, 4) + 2, 5.0),
        ("flat curve, at the null boundary", np.full(8, 5.0), 0.0),
    ],
)
def test_false_positive_rate_on_monotone_curves(name, curve, threshold):
    fp, _ = _rates(curve, n_curves=N_CURVES, threshold_pct=threshold, seed=11)
    print(f"\nfalse-positive rate ({name}, threshold {threshold}%, 3 reps, 10% noise): {fp:.3f}")
    assert fp <= 0.05 + TOL


def test_power_on_a_30_percent_bump():
    curve = 10 / np.minimum(LIMITS, 4) + 2
    curve[5] *= 1.30  # +30% at 6 cores
    _, power = _rates(curve, n_curves=N_CURVES, bump_at=6.0, seed=12)
    print(f"\npower (+30% bump at one limit, 3 replicates, 10% noise, threshold 5%): {power:.3f}")
    assert power >= 0.5
