"""A small, seeded thread-count battery: claims over whole null sweeps stay rare, a real 20% effect is found."""

import pytest

from throttlelab.analysis.batteries import thread_count_battery as tb


@pytest.fixture(scope="module")
def growing():
    return tb.thread_count_row(tb.THREAD_SCENARIOS[0], 40, 3, n_sim=1000)


def test_null_sweeps_claim_nothing_anywhere_where_a_family_per_limit_claims_often(growing):
    r = growing
    assert "noise 3%->25% log-linear" in r["settings"] and r["reps"] == 40 and r["goal"] == "false claims"
    # 40 sweeps: the 5% goal + 3 MC s.e. (3.4% each) is 15%
    assert r["false_claim_sweep"] <= 0.15 and not tb.goal_missed(r)
    # each limit on its own: some count called slower somewhere in a quarter of the sweeps or more
    assert r["false_claim_limit"] > 0.2 and tb.goal_missed(r, "limit").startswith("false claims")
    assert r["headline_covers_sweep"] >= 0.95 and r["too_few_sweep"] == 0


def test_a_real_20_percent_effect_is_found_at_most_limits():
    s = next(s for s in tb.THREAD_SCENARIOS if s.goal == "power" and s.slow == ("16",))
    r = tb.thread_count_row(s, 20, 5, n_sim=1000, methods=("sweep",))
    assert r["found_per_limit_sweep"] >= 0.78 and r["found_any_sweep"] == 1.0
    assert r["false_claim_sweep"] <= 0.15 and not tb.goal_missed(r)


def test_a_procedure_that_never_claims_misses_the_power_goal():
    row = {"goal": "power", "reps": 100, "mc_se": 0.02, "false_claim_sweep": 0.0, "found_per_limit_sweep": 0.0,
           "too_few_sweep": 0.0}
    assert tb.goal_missed(row).startswith("power")


def test_scenarios_cover_the_brief():
    names = " ".join(s.name for s in tb.THREAD_SCENARIOS)
    for word in ("3% -> 25%", "2 runs", "outlying", "t3", "linearly", "step", "alt", "+20%", "equal noise 5%"):
        assert word in names
    assert {s.goal for s in tb.THREAD_SCENARIOS} == {"false claims", "power", ""}
