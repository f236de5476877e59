"""The right-sizing decision and its reason: each branch, the policies, the notes on censoring and the node."""

from __future__ import annotations

from throttlelab.analysis.rightsizing.rightsizing_reasons import capping_note, limit_decision


def _decide(current, limit, *, ratio=0.1, policy="target", at_current=None):
    return limit_decision(policy, 0.05, current=current, ratio=ratio, throttled_s_per_h=120.0, usage_p95=0.4,
                          demand_p95=0.5, request=(0.5, 0.45, 0.55), limit=limit, predicted=0.04,
                          predicted_at_current=at_current)


def test_raise_when_the_interval_is_clearly_above_the_current_limit():
    d = _decide(0.5, (0.9, 0.8, 1.1))
    assert (d.decision, d.limit, d.low, d.high, d.predicted) == ("raise limit", 0.9, 0.8, 1.1, 0.04)
    assert "raise the limit to 900m (800m-1.10 cores)" in d.reason and "120 throttled s/h" in d.reason


def test_raise_when_just_above_but_throttled_beyond_the_target():
    assert _decide(0.5, (0.56, 0.52, 0.6), ratio=0.2).decision == "raise limit"
    assert _decide(0.5, (0.56, 0.52, 0.6), ratio=0.01).decision == "keep"


def test_lower_when_the_interval_is_clearly_below():
    d = _decide(2.0, (0.9, 0.8, 1.1))
    assert d.decision == "lower limit" and "demand p95 500m" in d.reason


def test_keep_when_not_clearly_different():
    d = _decide(1.0, (0.95, 0.8, 1.1))
    assert d.decision == "keep" and d.limit == 0.95 and "not clearly different" in d.reason


def test_set_a_limit_when_there_is_none():
    d = _decide(None, (0.9, 0.8, 1.1), ratio=0.0)
    assert d.decision == "set limit" and "No limit now" in d.reason


def test_policies():
    none = _decide(0.5, (0.9, 0.8, 1.1), policy="none")
    assert (none.decision, none.limit, none.low, none.high, none.predicted) == ("no limit (policy)", None, None, None, None)
    assert "it is throttled in 10% of periods" in none.reason
    keep = _decide(0.5, (0.9, 0.8, 1.1), policy="keep", at_current=0.3)
    assert (keep.decision, keep.limit, keep.predicted) == ("keep (policy)", 0.5, 0.3)
    assert "raise the limit" in keep.reason  # the reason still says what the target would need
    assert _decide(None, (0.9, 0.8, 1.1), policy="keep").decision == "set limit"


def test_capping_notes():
    assert capping_note(censored=False, current=1.0, model_limit=1.2, capped_limit=1.2, node=8.0) == ""
    cen = capping_note(censored=True, current=0.5, model_limit=3.0, capped_limit=2.0, node=2.0)
    assert cen == (" Its plausible range runs from just above the current 500m to the node's 2 cores. Capped at the "
                   "node's 2 cores.")
    open_ = capping_note(censored=True, current=0.5, model_limit=3.0, capped_limit=3.0, node=None)
    assert "an open upper end" in open_ and open_.endswith("nothing caps the raise.")
    assert capping_note(censored=False, current=None, model_limit=1.0, capped_limit=1.0, node=None) == (
        " The node's size is unknown: nothing caps the raise.")
