"""Dead-zone result objects: consecutive verdicts become zones, the limits table shows every test."""

from __future__ import annotations

from throttlelab.analysis.limits.dead_zone_results import TOO_FEW, VERDICTS, DeadZoneAnalysis, LimitTest, group_zones
from throttlelab.analysis.stats.noise import NoiseModel
from throttlelab.results import ConfidenceInterval, Estimate


def _test(cores, verdict, pct=None, ci=None, p=None, base=(4.0, "4000m")):
    est = Estimate(pct, ci.low, ci.high, 0.95, "simultaneous bound", p, 4, "pct")
    return LimitTest(cores, f"{cores * 1000:.0f}m", 2, *base, est, p, p, p, verdict, 5.0)


LOWEST = LimitTest(1.0, "1000m", 2, verdict="lowest limit", noise_cv_pct=4.0)
LIMITS = [
    LOWEST,
    _test(4.0, "not a dead zone", -60.0, ConfidenceInterval(-65.0, -55.0), 0.99, base=(1.0, "1000m")),
    _test(5.0, "dead zone", 12.0, ConfidenceInterval(6.0, 18.0), 0.01),
    _test(6.0, "dead zone", 30.0, ConfidenceInterval(20.0, 40.0), 0.002),
    _test(7.0, "undecided", 8.0, ConfidenceInterval(-2.0, 18.0), 0.2),
    _test(8.0, "dead zone", 9.0, ConfidenceInterval(5.5, 13.0), 0.04),
]


def test_consecutive_dead_zone_limits_form_one_zone_named_by_its_worst_limit():
    first, second = group_zones(LIMITS)
    assert first.limits_labels == ("5000m", "6000m") and first.limits_cores == (5.0, 6.0)
    assert first.worst_limit_label == "6000m" and first.slowdown.value == 30.0
    assert first.confidence_interval() == ConfidenceInterval(20.0, 40.0)
    assert first.slowdown.p_value == 0.01  # the zone is as sure as its least sure limit
    assert first.baseline_label == "4000m"
    assert second.limits_labels == ("8000m",)


def test_no_dead_zone_verdict_no_zone():
    assert group_zones([LOWEST, _test(4.0, "undecided", 3.0, ConfidenceInterval(-1.0, 7.0), 0.3)]) == ()


def test_limits_table_has_one_row_per_test_with_its_interval():
    noise = NoiseModel(0.05, 6, "replicates", False, 6)
    a = DeadZoneAnalysis({"workload": "x"}, "x", True, "decided", False, 5.0, 0.05, "maxt", 0.01,
                         group_zones(LIMITS), tuple(LIMITS), noise, None, {}, 12)
    t = a.limits_table()
    assert t.height == len(LIMITS) and t["group"].unique().to_list() == ["x"]
    low = t.row(0, named=True)
    assert low["verdict"] == "lowest limit" and low["slowdown_ci_low_pct"] is None and low["baseline"] is None
    six = t.filter(t["limit"] == "6000m").row(0, named=True)
    assert (six["slowdown_ci_low_pct"], six["slowdown_ci_high_pct"], six["verdict"]) == (20.0, 40.0, "dead zone")


def test_verdicts_are_the_documented_ones():
    assert set(VERDICTS) == {"dead zone", "not a dead zone", "undecided", "lowest limit", TOO_FEW}
    assert {t.verdict for t in LIMITS} <= set(VERDICTS)
