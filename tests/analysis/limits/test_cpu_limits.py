"""Notebook 03's per-group analysis: fits when there are enough limits, experiment as a block, plain sentences."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from throttlelab.analysis.limits.cpu_limits import analyse_cpu_limits, dead_zone_sentences
from throttlelab.analysis.runs.prepare import prepare_runs
from throttlelab.analysis.runs.runs_input import load_runs

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "runs" / "thread_sweep.csv"


@pytest.fixture(scope="module")
def fixture_groups():
    prepared = prepare_runs(load_runs(str(FIXTURE)))
    return prepared, analyse_cpu_limits(prepared, n_boot=0, n_sim=2000)


def test_one_group_per_thread_count_each_fitted(fixture_groups):
    _, groups = fixture_groups
    assert sorted(g.group["threads"] for g in groups) == ["1", "2", "4", "8", "auto"]
    for g in groups:
        assert {f.model for f in g.fits} == {"amdahl", "usl", "quota"} and g.fit_note == ""
        assert g.dead_zones_block is None and g.primary_dead_zones is g.dead_zones  # one experiment
        assert g.recommendation.limit_label in g.summary["limit_label"].to_list()
    one = next(g for g in groups if g.group["threads"] == "1")
    assert one.recommendation.limit_label == "1000m"  # one thread cannot use more than a core


def test_too_few_limits_are_not_fitted(fixture_groups):
    prepared, _ = fixture_groups
    few = prepared.__class__(**{**prepared.__dict__, "runs": prepared.runs.filter(pl.col("cpu_limit_cores") < 5)})
    [g] = [g for g in analyse_cpu_limits(few, n_boot=0, n_sim=1000) if g.group["threads"] == "4"]
    assert g.fits == () and g.fit_note == "not fitted: 3 numeric limits (need 4)"


def test_another_metric_than_prepared_is_refused(fixture_groups):
    prepared, _ = fixture_groups
    with pytest.raises(ValueError, match="prepared for wall_seconds"):
        analyse_cpu_limits(prepared, metric="cpu_seconds")


def test_published_sweep_uses_experiment_as_a_block():
    prepared = prepare_runs(load_runs(""))
    [g] = analyse_cpu_limits(prepared, n_boot=0, n_sim=2000)
    assert g.dead_zones_block is not None and g.primary_dead_zones is g.dead_zones_block
    zone = g.primary_dead_zones.zones[0]
    assert "6000m" in zone.limits_labels and zone.baseline_label == "4000m"


def test_sentences_say_every_tested_limit_and_the_zone(fixture_groups):
    _, groups = fixture_groups
    dz = groups[0].dead_zones
    lines = dead_zone_sentences(dz)
    tested = [t for t in dz.limits if t.slowdown is not None]
    assert sum(" vs " in s and "run(s):" in s for s in lines) == len(tested)
    assert lines[0].startswith(dz.label) and "noise" in lines[0]
    assert all("\n" not in s for s in lines)


def test_sentences_for_a_higher_is_better_metric_speak_of_the_metric():
    prepared = prepare_runs(load_runs(str(FIXTURE.with_name("service_sweep.csv"))), metric="throughput_rps")
    g = analyse_cpu_limits(prepared, n_boot=0, n_sim=1000)[0]
    lines = dead_zone_sentences(g.dead_zones, "throughput_rps")
    assert "throughput" in lines[0] and "higher is better" in lines[0]
    assert all("throughput" in s for s in lines[1:] if " vs " in s)


def test_zero_noise_metric_says_exact_and_gives_no_zero_width_interval():
    """cpu_seconds in the fixture is identical in every replicate."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        prepared = prepare_runs(load_runs(str(FIXTURE)), metric="cpu_seconds")
        groups = analyse_cpu_limits(prepared, n_boot=0, n_sim=2000)
    for g in groups:
        assert g.recommendation.expected_seconds.low is None and "exact" in g.recommendation.uncertainty_note
        text = " ".join(dead_zone_sentences(g.primary_dead_zones, "cpu_seconds"))
        assert "run-to-run noise is zero" in text and "exact" in text and "CI" not in text


def test_zone_label_is_one_limit_or_a_range():
    from types import SimpleNamespace

    from throttlelab.analysis.limits.cpu_limits import zone_label

    assert zone_label(SimpleNamespace(limits_labels=["6000m"])) == "6000m"
    assert zone_label(SimpleNamespace(limits_labels=["5000m", "6000m", "7000m"])) == "5000m-7000m"


def test_dead_zone_bounds_run_low_to_high_on_a_sweep_that_scales():
    """Every limit twice as fast as the one below it (3 runs, 10% noise): each bound pair is in order."""
    import math
    import re

    import numpy as np

    from throttlelab import tables
    from throttlelab.analysis.limits.dead_zones import find_dead_zones

    rng = np.random.default_rng(1)
    rows = [{"experiment": "x", "run_id": f"{lim}-{r}", "backend": "local", "workload": "w", "cpu_limit_cores": lim,
             "threads": "2", "contention": 0.0, "replicate": r, "status": "ok",
             "wall_seconds": t * math.exp(rng.normal(0, 0.1))}
            for lim, t in ((0.25, 8.0), (0.5, 4.2), (1.0, 2.1), (2.0, 1.2)) for r in range(3)]
    [dz] = find_dead_zones(prepare_runs(tables.conform(pl.DataFrame(rows), "runs")).runs, n_sim=4000)
    found = [tuple(map(float, m)) for s in dead_zone_sentences(dz) for m in
             re.findall(r": ([-+][\d.]+)% \(simultaneous \d+% bounds ([-+][\d.]+)% to ([-+][\d.]+)%", s)]
    assert len(found) == 3 and all(lo < value < hi for value, lo, hi in found), found
    assert [t.verdict for t in dz.limits[1:]] == ["not a dead zone"] * 3  # read off the upper bounds
