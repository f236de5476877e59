"""Thread counts on the runs fixture with explicit threads, and on auto-only data."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl

import pytest

from throttlelab.analysis.runs.prepare import prepare_runs
from throttlelab.analysis.runs.runs_input import load_runs
from throttlelab.analysis.threads.thread_counts import analyse_thread_counts

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "runs" / "thread_sweep.csv"


def test_best_thread_count_and_auto_comparison():
    [a] = analyse_thread_counts(prepare_runs(load_runs(FIXTURE)).runs)
    assert a.has_explicit_threads and not a.noise.assumption_based
    by = {c.limit_label: c for c in a.limits}
    # At 1 core, one thread is best and auto (8 threads) is significantly slower.
    one = by["1000m"]
    assert one.best_threads in one.near_best_threads and "1" in one.near_best_threads
    assert one.auto_vs_best.value > 15 and one.auto_vs_best.p_value < 0.01
    assert one.auto_vs_best.low > 0
    assert one.best_seconds.low < one.best_seconds.value < one.best_seconds.high and one.best_seconds.unit == "seconds"
    # At 6 cores auto (8) is as good as the best explicit count.
    assert by["6000m"].auto_vs_best.p_value > 0.05
    rec = a.recommendations()
    assert rec.columns == ["group", "limit", "limit_cores", "threads", "expected_seconds", "expected_seconds_ci_low",
                           "expected_seconds_ci_high", "core_seconds"]
    assert rec["core_seconds"].to_list()[0] == pytest.approx(rec["expected_seconds"].to_list()[0])


def test_auto_only_says_so():
    [a] = analyse_thread_counts(prepare_runs(load_runs("")).runs)
    assert not a.has_explicit_threads and "only `auto`" in a.note
    assert all(c.best_threads is None and c.recommended_threads == "auto" for c in a.limits)
    assert a.table().height == len(a.limits)


def _sweep(sd_low, sd_high, *, runs=3, seed=0, outlier=None):
    """Synthetic thread sweep: 4 limits x (1, 2, 4, 8, auto), no thread effect, noise growing over the limits."""
    import numpy as np
    import polars as pl

    from throttlelab import tables

    rng = np.random.default_rng(seed)
    limits, threads = [1.0, 2.0, 4.0, 8.0], ["1", "2", "4", "8", "auto"]
    rows = []
    for k, c in enumerate(limits):
        sd = sd_low * (sd_high / sd_low) ** (k / 3)
        for t in threads:
            for r in range(runs):
                rows.append({"cpu_limit_cores": c, "threads": t, "wall_seconds": 20 * math.exp(rng.normal(0, sd))})
    if outlier is not None:
        rows[outlier]["wall_seconds"] *= 1.8
    df = pl.DataFrame(rows).with_columns(
        experiment=pl.lit("sim"), run_id=pl.format("r{}", pl.int_range(pl.len())), backend=pl.lit("local"),
        workload=pl.lit("w"), contention=pl.lit(0.0), status=pl.lit("ok"))
    return prepare_runs(tables.conform(df, "runs")).runs


def test_each_limit_uses_its_own_noise_and_names_the_procedure():
    [a] = analyse_thread_counts(_sweep(0.03, 0.25), n_sim=4000)
    low, high = a.limits[0], a.limits[-1]
    assert {low.noise_source, high.noise_source} <= {"trend across limits", "own cells"}
    assert low.noise_cv_pct < 6 < 15 < high.noise_cv_pct
    assert high.auto_vs_best.high - high.auto_vs_best.low > 3 * (
        low.auto_vs_best.high - low.auto_vs_best.low)
    assert "log-linear trend" in a.method and "Tukey-Kramer" in a.method
    assert "Bonferroni across the 4 limits" in a.method and a.family_limits == 4
    assert all(set(c.worse_than_best_p_values) == {"1", "2", "4", "8"} for c in a.limits)
    [p] = analyse_thread_counts(_sweep(0.03, 0.25), n_sim=4000, noise_model="pooled")
    assert p.limits[0].noise_cv_pct == p.limits[-1].noise_cv_pct and "pooled" in p.method
    with pytest.raises(ValueError, match="noise_model"):
        analyse_thread_counts(_sweep(0.03, 0.25), noise_model="per cell")
    [one] = analyse_thread_counts(_sweep(0.03, 0.25), n_sim=4000, family="limit")
    assert one.family_limits == 1 and "one limit on its own" in one.method
    assert all(c.auto_vs_best.p_value <= d.auto_vs_best.p_value for c, d in zip(one.limits, a.limits))
    with pytest.raises(ValueError, match="family"):
        analyse_thread_counts(_sweep(0.03, 0.25), family="group")


def _null_sweep(seed):
    """8 limits x threads 1, 2, 4, 8, 16, auto x 3 runs, no thread effect, noise 3% -> 25% (log-linear)."""
    import numpy as np

    from throttlelab import tables

    rng = np.random.default_rng(seed)
    sd = np.exp(np.linspace(math.log(0.03), math.log(0.25), 8))
    rows = [{"cpu_limit_cores": float(k + 1), "threads": t, "wall_seconds": 20 * math.exp(rng.normal(0, sd[k]))}
            for k in range(8) for t in ("1", "2", "4", "8", "16", "auto") for _ in range(3)]
    df = pl.DataFrame(rows).with_columns(
        experiment=pl.lit("sim"), run_id=pl.format("r{}", pl.int_range(pl.len())), backend=pl.lit("local"),
        workload=pl.lit("w"), contention=pl.lit(0.0), status=pl.lit("ok"))
    return prepare_runs(tables.conform(df, "runs")).runs


def test_null_sweeps_claim_something_somewhere_rarely():
    """No thread effect anywhere: a claim is a count called slower than the best, or auto called different from
    it, at any of the 8 limits.  With a family per limit (the earlier procedure) 19 of these 40 seeded sweeps claimed
    something; the sweep-wide family claims in about 3% of sweeps."""
    claims = 0
    for seed in range(40):
        [a] = analyse_thread_counts(_null_sweep(seed), n_sim=1000)
        claims += any(len(c.near_best_threads) < 5 or c.auto_vs_best.p_value < 0.05 for c in a.limits)
    assert claims <= 5


def test_an_outlying_run_is_flagged_shown_and_left_out_where_its_cell_keeps_three_runs():
    [a] = analyse_thread_counts(_sweep(0.05, 0.05, runs=4, outlier=5), n_sim=2000)  # 1000m, threads 2, 2nd run
    assert ("1000m, threads=2", "r5") in [(o.level, o.run) for o in a.outlying_runs]
    assert f"{len(a.outlying_runs)} outlying run(s) flagged" in a.method
    assert a.cells.filter(pl.col("limit_label") == "1000m", pl.col("threads") == "2")["runs"].item() == 3
    [b] = analyse_thread_counts(_sweep(0.05, 0.05, runs=3, outlier=4), n_sim=2000)  # 3 runs: shown, kept
    assert ("1000m, threads=2", "r4") in [(o.level, o.run) for o in b.outlying_runs]
    assert b.cells.filter(pl.col("limit_label") == "1000m", pl.col("threads") == "2")["runs"].item() == 3


def test_zero_run_to_run_noise_says_so_instead_of_zero_width_intervals():
    """cpu_seconds of the fixture is identical in every replicate: exact differences, no interval, no test."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        [a] = analyse_thread_counts(prepare_runs(load_runs(FIXTURE), metric="cpu_seconds").runs)
    assert a.noise.sigma == 0 and "run-to-run noise is zero" in a.note and "deterministic" in a.method
    for c in a.limits:
        assert c.noise_source == "zero" and c.auto_vs_best.low is None and c.auto_vs_best.p_value is None
        assert c.best_seconds.low is None and c.recommended_seconds.low is None and c.auto_vs_best.value > 13
        assert c.auto_vs_best.method.startswith("exact difference") and c.probability_best[c.best_threads] == 1.0


@pytest.mark.parametrize("metric", ["throughput_rps", "latency_p999_seconds"])
def test_one_number_per_cell_claims_no_probability_and_near_best_follows_the_verdicts(metric):
    """The automaxprocs table: no probability best, no interval from an assumed noise, and near-best lists only
    counts no single-number verdict calls clearly worse (24 loses throughput; 4, 8, 24 lose p99.9 latency)."""
    p = prepare_runs(load_runs("published:automaxprocs"), metric=metric)
    [a] = analyse_thread_counts(p.runs, metric=metric)
    [c] = a.limits
    assert c.probability_best is None and c.best_seconds.low is None and c.recommended_seconds.low is None
    assert "unmeasured" in c.best_seconds.method and a.single_numbers is not None
    worse = set(a.single_numbers.filter(pl.col("verdict").eq("clearly worse") | pl.col("clearly_worse_than_best"))
                ["threads"])
    assert worse and not worse & set(c.near_best_threads)
    assert c.near_best_threads == {"throughput_rps": ("1", "2", "3", "4", "8"),
                                   "latency_p999_seconds": ("1", "2", "3")}[metric]
    assert "no interval, p-value or probability" in a.method
