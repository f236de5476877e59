"""Tests of throttlelab.report.charts.rightsizing_charts: the usage distribution and throttled-ratio charts."""

from __future__ import annotations

import json
import re

import vl_convert as vlc

from tests.analysis.synthetic_cpu import container
from throttlelab.analysis.rightsizing.rightsizing import rightsize
from throttlelab.analysis.rightsizing.rightsizing_views import marks_frame, throttled_ratio_frame, usage_distribution_frame
from throttlelab.report.charts.rightsizing_charts import throttled_ratio_chart, usage_distribution_chart

from .chart_checks import check_page_wide, svg


def test_distribution_chart_has_usage_and_demand_bars_and_a_rule_per_mark():
    c = container()
    r = rightsize(c)
    chart = usage_distribution_chart(usage_distribution_frame(c), marks_frame(r), title="web-0")
    usage, demand, rules = chart.layer
    assert set(usage.data["series"]) == {"usage"} and set(demand.data["series"]) == {"demand (usage + throttled)"}
    assert demand.mark.filled is False, "demand is outlined: usage stays visible where the two are equal"
    assert set(rules.data["mark"]) == {"current request", "current limit", "recommended request", "recommended limit"}
    assert "<svg" in vlc.vegalite_to_svg(chart.to_json())
    check_page_wide(chart)


def test_cpu_axis_starts_at_zero_cores():
    """The histograms started at -0.2 cores: bars were drawn at their centres and the scale padded below 0."""
    c = container(mean=0.1)
    chart = usage_distribution_chart(usage_distribution_frame(c), marks_frame(rightsize(c)), title="idle-0")
    scale = chart.to_dict()["layer"][0]["encoding"]["x"]["scale"]
    assert scale["domain"][0] == 0.0 and scale["padding"] == 0 and scale["nice"] is False
    assert min(chart.layer[0].data["lo"]) >= 0.0
    ticks = re.findall(r'aria-label="X-axis[^"]*values? from (-?[\d.]+)', svg(chart))
    assert ticks and float(ticks[0]) >= 0.0, ticks


def test_ratio_chart_draws_the_target_on_a_dated_utc_clock():
    chart = throttled_ratio_chart(throttled_ratio_frame(container()), target=0.05, title="web-0: throttled ratio")
    spec = chart.to_dict()
    text = json.dumps(spec)
    assert "target 5%" in text and '"tooltip"' in text
    x = spec["layer"][0]["encoding"]["x"]
    assert x["scale"]["type"] == "utc" and "%b %d" in x["axis"]["format"], "dated clock, in UTC"
    tip = spec["layer"][0]["encoding"]["tooltip"][0]
    assert tip["timeUnit"].startswith("utc"), "the tooltip time is UTC, not the browser's zone"
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg(chart))
    dated = [t for t in texts if re.fullmatch(r"[A-Z][a-z]{2} \d\d \d\d:\d\d", t)]
    assert len(dated) >= 3, texts
