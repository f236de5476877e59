"""Tests of throttlelab.analysis.rightsizing.rightsizing_views: the decision table and the chart frames of a right-sizing."""

from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl
import pytest

from throttlelab.analysis.rightsizing.rightsizing import rightsize
from throttlelab.analysis.rightsizing.rightsizing_views import (COLUMNS, decision_table, marks_frame, recommendations_frame,
                                                    throttled_ratio_frame, usage_distribution_frame)

from tests.analysis.synthetic_cpu import container


def test_recommendations_frame_has_every_field_and_a_row_each():
    recs = [rightsize(container()), rightsize(container("batch-0", limit=None, seed=1))]
    df = recommendations_frame(recs)
    assert df.columns == COLUMNS and df.height == 2
    assert df["pod"].to_list() == ["web-0", "batch-0"] and df.schema["steps"] == pl.Int64
    assert recommendations_frame([]).columns == COLUMNS


def test_decision_table_reads_like_the_cli():
    r = rightsize(container())
    row = decision_table([r]).row(0, named=True)
    assert (row["namespace"], row["workload"], row["container"], row["pods"]) == ("shop", "Pod/web-0", "app", 1)
    assert row["pod-hours"] == "48.0" and row["decision"] == r.decision
    assert (row["request now"], row["limit now"]) == ("500m", "1000m")  # one unit per column: millicores
    # a tail read from its bursts (4.9th power): 10% throttled at 1000m -> 1150m, the interval starting above 1000m (it
    # misses the target in every resample); the request held at the limit
    assert row["request new"] == "1150m" and row["limit new"] == "1150m" and row["limit 90% interval"] == "1010-1880m"
    assert row["p95 5-min"] == "20.0%"
    short = decision_table([dataclasses.replace(r, decision="too little data")]).row(0, named=True)
    assert (short["limit now"], short["limit new"], short["limit 90% interval"]) == ("1000m", "?", "")
    kept = decision_table([dataclasses.replace(r, decision="keep")]).row(0, named=True)
    assert (kept["request new"], kept["limit new"]) == ("keep", "keep")  # keep shows no new number


def test_usage_distribution_shares_sum_to_one_and_demand_reaches_past_the_limit():
    c = container()
    dist = usage_distribution_frame(c, bins=20)
    for series, part in dist.group_by("series"):
        assert part["share"].sum() == pytest.approx(1.0)
    top = lambda s: dist.filter((pl.col("series") == s) & (pl.col("share") > 0))["cores"].max()  # noqa: E731
    assert top("usage") <= 1.0 + dist["width"][0] < top("demand (usage + throttled)")
    empty = dataclasses.replace(c, usage=np.full(len(c.usage), np.nan))
    assert usage_distribution_frame(empty).height == 0


def test_marks_leave_out_what_is_not_set():
    r = rightsize(container("batch-0", limit=None, seed=1))
    marks = dict(marks_frame(r).iter_rows())
    assert "current limit" not in marks and marks["current request"] == 0.5
    assert marks["recommended request"] == r.recommended_request_cores


def test_throttled_ratio_frame_pools_periods_per_window():
    c = container()
    df = throttled_ratio_frame(c, window_s=1800)
    assert df.height == len(c.times) // 30
    k = slice(0, 30)
    assert df["throttled_ratio"][0] == pytest.approx(c.throttled_periods[k].sum() / c.periods[k].sum())
    no_counters = dataclasses.replace(c, periods=np.full(len(c.times), np.nan))
    assert throttled_ratio_frame(no_counters).height == 0


def test_censored_intervals_read_open_or_up_to_the_node():
    c = container("starved-0", limit=0.2, mean=1.0)  # demand ~5x the limit: throttled in most periods
    open_ = rightsize(c)
    capped = rightsize(dataclasses.replace(c, node_cores=2.0))
    assert open_.demand_censored and capped.demand_censored
    rows = [decision_table([r]).row(0, named=True) for r in (open_, capped)]
    # the censored first round (mean of usage + throttled seconds, ~1 core) whether or not the node is known
    assert [(x["limit new"], x["limit 90% interval"]) for x in rows] == [("1010m*", "210m-open"), ("1010m*", "210-2000m")]
    df = recommendations_frame([open_, capped])
    assert df["demand_censored"].to_list() == [True, True] and df["node_cores"].to_list() == [None, 2.0]
