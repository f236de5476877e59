"""Dead zones: the published ffmpeg sweep, edge cases, and a simulation of error rates."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from throttlelab import tables
from throttlelab.analysis.limits.dead_zones import analyse_effects, find_dead_zones
from throttlelab.analysis.stats.noise import estimate_effects
from throttlelab.analysis.runs.prepare import prepare_runs
from throttlelab.ingest.published.published import load_ffmpeg_sweep


@pytest.fixture(scope="module")
def ffmpeg():
    return prepare_runs(load_ffmpeg_sweep()).runs


def test_published_ffmpeg_dead_zone_is_found_with_experiment_as_block(ffmpeg):
    [a] = find_dead_zones(ffmpeg, block="experiment", n_sim=20000, seed=0)
    assert a.decidable and a.noise.df == 3
    [zone] = a.zones
    assert zone.limits_cores == (6.0, 7.0) and zone.baseline_label == "4000m"  # 6 and 7 cores slower than 4
    assert zone.slowdown.p_value < 0.05 and zone.slowdown.low > 5.0
    by = {t.limit_label: t for t in a.limits}
    assert by["6000m"].slowdown.value == pytest.approx(34.2, abs=5)
    assert by["5000m"].verdict == "undecided" and by["16000m"].verdict != "dead zone"
    assert by["6000m"].p_value_holm >= by["6000m"].p_value_maxt
    # verdicts are read off the intervals: they never disagree
    for t in a.limits[1:]:
        lo, hi = t.slowdown.confidence_interval()
        assert (t.verdict == "dead zone") == (lo > 5.0) and (t.verdict == "not a dead zone") == (hi < 5.0)
    assert "max-T" in a.procedure


def test_published_ffmpeg_without_block_has_noise_per_limit(ffmpeg):
    # Pooled over both experiments, 4000m's two runs differ by 16%: its noise is raised above the pooled one
    # and the zone is not decidable without the block (the report says so).
    [a] = find_dead_zones(ffmpeg, n_sim=20000, seed=0)
    by = {t.limit_label: t for t in a.limits}
    assert "trend" in a.noise.source and by["4000m"].noise_cv_pct > by["8000m"].noise_cv_pct
    assert by["7000m"].verdict == "undecided" and by["7000m"].slowdown.value > 40
    assert by["16000m"].slowdown.value == pytest.approx(1.8, abs=0.1)


def test_no_replicates_is_too_few_to_decide():
    runs = tables.conform(pl.DataFrame({
        "experiment": "e", "run_id": [str(i) for i in range(5)], "backend": "local", "workload": "w",
        "cpu_limit_cores": [1.0, 2.0, 3.0, 4.0, 5.0], "threads": "auto", "contention": 0.0,
        "wall_seconds": [10.0, 5.0, 4.0, 6.0, 3.0], "status": "ok",
    }), "runs")
    [a] = find_dead_zones(prepare_runs(runs).runs, n_sim=4000)
    assert not a.decidable and a.reason.startswith("too few to decide")
    assert not a.zones and all(t.slowdown is None for t in a.limits)
    assert a.replicates_needed is not None and a.replicates_needed.runs_per_level is None


def test_outlying_run_is_flagged_and_zone_still_found():
    walls, limits, ids = [], [], []
    rng = np.random.default_rng(3)
    for c, t in zip(range(1, 9), [10, 5, 3.4, 2.5, 2.5, 3.25, 2.5, 2.5]):
        for r in range(3):
            walls.append(t * np.exp(rng.normal(0, 0.05)))
            limits.append(float(c))
            ids.append(f"{c}-{r}")
    walls[3 * 4] *= 1.8  # one outlying run at 5 cores
    runs = tables.conform(pl.DataFrame({
        "experiment": "e", "run_id": ids, "backend": "local", "workload": "w", "cpu_limit_cores": limits,
        "threads": "auto", "contention": 0.0, "wall_seconds": walls, "status": "ok"}), "runs")
    [a] = find_dead_zones(prepare_runs(runs).runs, n_sim=4000)
    assert [o.run for o in a.outlying_runs] == ["5-0"]
    assert any(6.0 in z.limits_cores for z in a.zones)


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
                            n_sim=2000, seed=c, log_y=log_y[c])
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


def _growing_noise_claims(sd, *, n, seed, outliers=0):
    """Null sweeps (quota curve, flat beyond 4 cores) with 3 runs per limit and noise ``sd`` per limit: how many
    get a dead zone, through find_dead_zones as the report calls it (outlying runs flagged and left out)."""
    import math

    rng = np.random.default_rng(seed)
    lv = np.repeat(np.arange(8), 3)
    claims = 0
    for r in range(n):
        log_y = np.log(10 / np.minimum(LIMITS, 4) + 2)[lv] + rng.standard_normal(lv.size) * sd[lv]
        if outliers:
            log_y[rng.choice(lv.size, outliers, replace=False)] += math.log(1.8)
        runs = tables.conform(pl.DataFrame({
            "experiment": "sim", "run_id": [str(i) for i in range(lv.size)], "backend": "local", "workload": "w",
            "cpu_limit_cores": LIMITS[lv], "threads": "auto", "contention": 0.0, "wall_seconds": np.exp(log_y),
            "status": "ok"}), "runs")
        [a] = find_dead_zones(prepare_runs(runs).runs, n_sim=1000, seed=r)
        claims += bool(a.zones)
    return claims


def test_noise_growing_as_a_step_or_with_outlying_runs_makes_few_false_dead_zones():
    """Noise 3% up to the knee and 25% beyond (a trend of the wrong shape), and noise growing 3% -> 25% with two
    runs x1.8: a log-linear trend, one chi-square for all limits and every flagged run left out made false dead
    zones in 31 of these 200 seeded sweeps (14 + 17); the trend guarded by the pool of larger limits, refitted in
    every draw, and a higher bar for leaving runs out: 13 (4 + 9; about 4% of such sweeps over 400 more)."""
    step = np.where(np.arange(8) < 4, 0.03, 0.25)
    growing = np.exp(np.linspace(np.log(0.03), np.log(0.25), 8))
    claims = _growing_noise_claims(step, n=100, seed=21) + _growing_noise_claims(growing, n=100, seed=22, outliers=2)
    assert claims <= 18


def test_zero_run_to_run_noise_gives_exact_verdicts_without_intervals_or_warnings():
    """Identical replicates (CPU seconds of fixed work): exact slowdowns, no interval, no p-value, no NaN warnings."""
    import warnings

    curve = [10.0, 5.0, 3.4, 2.5, 2.5, 3.25, 2.5, 2.5]  # 6 cores exactly 30% slower than 4
    limits = [float(c) for c in range(1, 9) for _ in range(3)]
    runs = tables.conform(pl.DataFrame({
        "experiment": "e", "run_id": [str(i) for i in range(24)], "backend": "local", "workload": "w",
        "cpu_limit_cores": limits, "threads": "auto", "contention": 0.0,
        "wall_seconds": [curve[int(c) - 1] for c in limits], "status": "ok"}), "runs")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        [a] = find_dead_zones(prepare_runs(runs).runs, n_sim=2000)
    assert a.decidable and "run-to-run noise is zero" in a.reason and "deterministic" in a.reason
    assert a.noise.sigma == 0 and "exact" in a.reason and a.monotone_p_value is None
    assert a.replicates_needed.runs_per_level is None and "zero" in a.replicates_needed.basis
    by = {t.limit_label: t for t in a.limits}
    assert by["6000m"].verdict == "dead zone" and by["6000m"].slowdown.value == pytest.approx(30.0)
    assert by["5000m"].verdict == "not a dead zone" and by["7000m"].verdict == "not a dead zone"
    assert all(t.slowdown.low is None and t.slowdown.p_value is None for t in a.limits[1:])
    assert a.limits[0].slowdown is None
    [zone] = a.zones
    assert zone.limits_labels == ("6000m",) and zone.slowdown.low is None and zone.slowdown.p_value is None
