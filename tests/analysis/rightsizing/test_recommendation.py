"""One workload container's recommendation: the numbers a too-little-data record leaves empty are its fields."""

from __future__ import annotations

import dataclasses

from tests.analysis.synthetic_cpu import container
from throttlelab.analysis.rightsizing.recommendation import NUMBERS, Rightsizing, Settings
from throttlelab.analysis.rightsizing.rightsizing import rightsize


def test_numbers_are_fields_and_a_too_short_record_leaves_them_empty():
    fields = {f.name for f in dataclasses.fields(Rightsizing)}
    assert set(NUMBERS) <= fields
    short = rightsize(container(), Settings(min_history_s=10 * 86400))
    assert short.decision == "too little data" and all(getattr(short, n) is None for n in NUMBERS)


def test_confidence_interval_is_the_limits():
    r = rightsize(container(limit=1.0, mean=0.7), Settings(resamples=50))
    ci = r.confidence_interval()
    assert (ci.low, ci.high) == (r.recommended_limit_low, r.recommended_limit_high)
    assert ci.low <= r.recommended_limit_cores <= ci.high
