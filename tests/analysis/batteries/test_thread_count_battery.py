"""A small, seeded thread-count battery: per-limit noise keeps the level where one pooled noise does not."""

import pytest

from throttlelab.analysis.batteries import thread_count_battery as tb


@pytest.fixture(scope="module")
def growing():
    return tb.thread_count_row(tb.THREAD_SCENARIOS[0], 40, 3, n_sim=1000)


def test_noise_per_limit_keeps_the_level_where_pooled_noise_cries_wolf_at_the_noisy_limit(growing):
    r = growing
    assert "noise 3%->25%" in r["settings"] and r["reps"] == 40
    # 40 sweeps x 8 limits: MC s.e. of the mean rate about 1.2%
    assert r["false_alarm_worse_new"] <= 0.05 + 3 * 0.012 and r["false_alarm_auto_new"] <= 0.05 + 3 * 0.012
    assert r["false_alarm_worse_new_highest_limit"] <= 0.2
    # one pooled noise understates the noise at the largest limit: false alarms there, far above 5%
    assert r["false_alarm_worse_pooled_highest_limit"] > 0.3 and r["false_alarm_auto_pooled_highest_limit"] > 0.15
    assert r["false_alarm_worse_old"] > 0.15  # best-of-many without adjustment
    assert r["coverage_auto_new"] >= 0.9 and r["coverage_auto_pooled_highest_limit"] < 0.85


def test_a_real_20_percent_effect_is_found_at_low_noise():
    r = tb.thread_count_row(tb.THREAD_SCENARIOS[-1], 20, 5, n_sim=1000)
    assert r["power_worse_new"] >= 0.8 and r["power_auto_new"] >= 0.8 and r["coverage_auto_new"] >= 0.85


def test_scenarios_cover_the_brief():
    names = " ".join(s.name for s in tb.THREAD_SCENARIOS)
    for word in ("3% -> 25%", "2 runs", "outlying", "t3", "alt", "+20%"):
        assert word in names
