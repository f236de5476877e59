"""Tests of throttlelab.experiment.kubernetes.pod_summary: a run's CPU totals from its samples."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import polars as pl
import pytest

from throttlelab.experiment.kubernetes.pod_summary import summarise_samples

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def frame(**cols):
    n = len(next(iter(cols.values())))
    return pl.DataFrame({"timestamp": [T0 + timedelta(seconds=i) for i in range(n)], **cols})


def test_last_minus_first_per_counter():
    # rows out of time order: the summary sorts by timestamp first
    s = frame(usage_seconds=[1.0, 2.0, 4.5], nr_periods=[10, 20, 50], nr_throttled=[1, 2, 9]).sort("usage_seconds",
                                                                                                  descending=True)
    out = summarise_samples(s)
    assert out["cpu_seconds"] == pytest.approx(3.5)
    assert (out["nr_periods"], out["nr_throttled"]) == (40, 8)
    assert isinstance(out["nr_periods"], int)
    assert out["user_seconds"] is None and out["throttled_seconds"] is None  # columns absent


def test_counter_reset_sums_the_segments_and_skips_lone_samples():
    s = frame(usage_seconds=[10.0, 12.0, 0.5, 1.5, 7.0], segment=[0, 0, 1, 1, 2])
    assert summarise_samples(s)["cpu_seconds"] == pytest.approx(2.0 + 1.0)  # segment 2 has one sample


def test_nulls_and_too_few_values():
    s = frame(usage_seconds=[None, 1.0, None, 3.0], nr_periods=[5, None, None, None])
    out = summarise_samples(s)
    assert out["cpu_seconds"] == pytest.approx(2.0)
    assert out["nr_periods"] is None
    assert set(summarise_samples(s.head(0)).values()) == {None}
