"""Tests of throttlelab.report.charts.rightsizing_charts: the usage distribution and throttled-ratio charts."""

from __future__ import annotations

import json

import vl_convert as vlc

from tests.analysis.synthetic_cpu import container
from throttlelab.analysis.rightsizing.rightsizing import rightsize
from throttlelab.analysis.rightsizing.rightsizing_views import marks_frame, throttled_ratio_frame, usage_distribution_frame
from throttlelab.report.charts.rightsizing_charts import throttled_ratio_chart, usage_distribution_chart


def test_distribution_chart_has_bars_and_a_rule_per_mark():
    c = container()
    r = rightsize(c)
    chart = usage_distribution_chart(usage_distribution_frame(c), marks_frame(r), title="web-0")
    bars, rules = chart.layer
    assert set(bars.data["series"]) == {"usage", "demand (usage + throttled)"}
    assert set(rules.data["mark"]) == {"current request", "current limit", "recommended request", "recommended limit"}
    assert "<svg" in vlc.vegalite_to_svg(chart.to_json())


def test_ratio_chart_draws_the_target():
    chart = throttled_ratio_chart(throttled_ratio_frame(container()), target=0.05, title="web-0: throttled ratio")
    spec = json.dumps(chart.to_dict())
    assert "target 5%" in spec and '"tooltip"' in spec
    assert "<svg" in vlc.vegalite_to_svg(chart.to_json())
