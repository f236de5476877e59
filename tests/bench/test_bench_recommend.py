"""bench_recommend at a tiny size: builds and caches its TSDB, prints its generator settings, and exits non-zero
when a goal is missed."""

from __future__ import annotations

import json

import pytest


def test_goals_name_each_miss(bench_module):
    mod = bench_module("bench_recommend")
    assert mod.goals([10.0, 20.0, 45.0], [900.0, 950.0], 4_000_000) == []  # the median wall, the largest RSS
    missed = mod.goals([29.0, 31.0, 40.0], [1100.0], 5_000_000)
    assert missed == ["median wall 31.0 s >= 30 s", "peak RSS 1100 MB >= 1024 MB",
                      "largest query's peak samples 5,000,000 >= 5,000,000 (10% of --query.max-samples)"]


def test_settings_round_up_to_whole_copies_of_the_cluster(bench_module):
    s = bench_module("bench_recommend").settings_for(500, 14)
    assert (s["copies"], s["workload_containers"], s["scrape_s"], s["days"]) == (63, 504, 30.0, 14)


@pytest.mark.prometheus
def test_tiny_run_prints_its_settings_meets_its_goals_and_fails_when_one_is_missed(bench_module, tmp_path, monkeypatch,
                                                                                  capsys):
    mod = bench_module("bench_recommend")
    ok, why = mod.prometheus_available()
    if not ok:
        pytest.skip(why)
    monkeypatch.setenv("THROTTLELAB_CACHE", str(tmp_path))
    args = ["--containers", "8", "--days", "0.25", "--rounds", "1"]
    assert mod.main(args) == 0
    out = capsys.readouterr().out
    settings = json.loads(out.split("generator settings: ", 1)[1].splitlines()[0])
    assert settings == mod.settings_for(8, 0.25)
    assert "build: {" in out and "8 rows for 8 workload containers" in out and "largest peakSamples" in out
    assert "bench recommend: all goals met" in out
    monkeypatch.setattr(mod, "GOAL_WALL_S", 0.0)
    assert mod.main(args) == 1  # the cached TSDB, a goal no run can meet
    out = capsys.readouterr().out
    assert "build: cached at" in out and "MISSED: 8x0.25d: median wall" in out
