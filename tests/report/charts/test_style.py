"""Charts for people: numeric order, zero-centred effects, colour-blind-safe colours, fitted axes, page width,
legend ticks, physical floors and elapsed-time units."""

import polars as pl

from throttlelab.report.charts.style import (OKABE_ITO, STATIC_WIDTH, WIDTH, effect_domain, elapsed_unit,
                                             fitted_domain, legend_values, numeric_order, with_static_width,
                                             zero_centred)


def test_limits_threads_and_loads_sort_as_numbers():
    assert numeric_order(["1000m", "500m", "unlimited", "1500m"]) == ["500m", "1000m", "1500m", "unlimited"]
    assert numeric_order(["16", "2", "auto", "4"]) == ["2", "4", "16", "auto"]
    assert numeric_order(["10.0", "15.0", "5.0"]) == ["5.0", "10.0", "15.0"]


def test_effect_scales_are_centred_at_zero_and_axes_fit():
    assert zero_centred([-97.0, 2.3]) == [-97.0, 97.0]
    lo, hi = fitted_domain([1.0, 20.0], log=True)
    assert 0.8 < lo < 1.0 and 20.0 < hi < 25.0


def test_effect_axes_hold_every_interval_with_a_margin_and_stop_at_minus_100_percent():
    ends = [-86.3, -59.0, 10.2, 98.5]  # the published dead-zone intervals: +98.5% touched the old frame
    lo, hi = effect_domain(ends)
    assert lo < -86.3 and hi > 98.5 + 5, "no interval end touches the frame"
    assert lo >= -100.0, "nothing gets faster than instant: the axis stops at -100%"
    assert effect_domain([-99.9, 1.0])[0] == -100.0
    small = effect_domain([0.5, 1.0])
    assert small[0] < 0 < small[1] and small[1] - small[0] >= 10, "zero is on the axis, a 1% effect does not fill it"


def test_colour_legends_get_several_round_ticks_inside_the_data():
    for values, log in (([22191.4, 44715.07], True), ([3.63, 70.5], True), ([1.37, 1.83], True),
                        ([-97.0, 97.0], False), ([0.0264, 0.0841], True)):
        ticks = legend_values(values, log=log)
        assert 3 <= len(ticks) <= 7, (values, ticks)
        assert all(min(values) <= t <= max(values) for t in ticks)
        assert all(float(f"{t:.3g}") == t for t in ticks), f"round numbers: {ticks}"
    assert legend_values([5.0, 5.0]) == [5.0] and legend_values([None]) == []


def test_page_wide_charts_get_a_fixed_width_where_there_is_no_page():
    spec = {"width": WIDTH, "layer": [{"mark": "point"}], "vconcat": [{"width": WIDTH}, {"width": 300}]}
    fixed = with_static_width(spec)
    assert fixed["width"] == STATIC_WIDTH and fixed["autosize"] == {"type": "fit-x", "contains": "padding"}
    assert [v["width"] for v in fixed["vconcat"]] == [STATIC_WIDTH, 300]
    assert spec["width"] == WIDTH, "the spec itself is left alone"
    assert "autosize" not in with_static_width({"width": 400})


def test_elapsed_time_in_the_unit_of_its_span_and_a_dated_clock_beyond_three_days():
    assert elapsed_unit(44.1) == ("s", 1.0)
    assert elapsed_unit(2 * 3600) == ("min", 60.0)
    assert elapsed_unit(2 * 86400) == ("h", 3600.0)
    assert elapsed_unit(4 * 86400) is None


def test_heatmap_of_changes_is_zero_centred_and_colour_blind_safe():
    from throttlelab.report.charts.latency_charts import percent_change_heatmap

    t = pl.DataFrame({"load": [10.0, 5.0], "stage": ["total", "total"], "stat": ["avg", "avg"],
                      "percent_change": [-97.0, 2.3], "base_seconds": [1.0, 1.0], "other_seconds": [0.03, 1.02]})
    spec = percent_change_heatmap(t).to_dict()
    color = spec["spec"]["layer"][0]["encoding"]["color"]
    assert color["scale"]["domain"] == [-97.0, 97.0] and color["scale"]["scheme"] == "blueorange"
    assert color["legend"]["values"] == [-80.0, -40.0, 0.0, 40.0, 80.0], "several ticks, not just the two ends"
    assert spec["spec"]["layer"][0]["encoding"]["x"]["sort"] == ["5", "10"]


def test_contention_legend_in_numeric_order():
    from throttlelab.report.charts.latency_charts import response_vs_contention

    pts = pl.DataFrame({"contention": [0.0, 0.2, 0.0], "mean_ms": [50.0, 60.0, 51.0], "load": ["10.0", "15.0", "5.0"]})
    spec = response_vs_contention(pts, color="load", color_title="requests/s").to_dict()
    color = spec["layer"][0]["encoding"]["color"]
    assert color["sort"] == ["5", "10", "15"] and color["title"] == "requests/s"
    assert spec["config"]["range"]["category"] == OKABE_ITO
    assert spec["width"] == WIDTH


def test_examples_in_the_docstrings():
    import doctest

    from throttlelab.report.charts import style

    assert doctest.testmod(style).failed == 0
