"""Charts for people: numeric order, zero-centred effects, colour-blind-safe colours, fitted axes."""

import polars as pl

from throttlelab.report.charts.style import OKABE_ITO, fitted_domain, numeric_order, zero_centred


def test_limits_threads_and_loads_sort_as_numbers():
    assert numeric_order(["1000m", "500m", "unlimited", "1500m"]) == ["500m", "1000m", "1500m", "unlimited"]
    assert numeric_order(["16", "2", "auto", "4"]) == ["2", "4", "16", "auto"]
    assert numeric_order(["10.0", "15.0", "5.0"]) == ["5.0", "10.0", "15.0"]


def test_effect_scales_are_centred_at_zero_and_axes_fit():
    assert zero_centred([-97.0, 2.3]) == [-97.0, 97.0]
    lo, hi = fitted_domain([1.0, 20.0], log=True)
    assert 0.8 < lo < 1.0 and 20.0 < hi < 25.0


def test_heatmap_of_changes_is_zero_centred_and_colour_blind_safe():
    from throttlelab.report.charts.latency_charts import percent_change_heatmap

    t = pl.DataFrame({"load": [10.0, 5.0], "stage": ["total", "total"], "stat": ["avg", "avg"],
                      "percent_change": [-97.0, 2.3], "base_seconds": [1.0, 1.0], "other_seconds": [0.03, 1.02]})
    spec = percent_change_heatmap(t).to_dict()
    scale = spec["spec"]["layer"][0]["encoding"]["color"]["scale"]
    assert scale["domain"] == [-97.0, 97.0] and scale["scheme"] == "blueorange"
    assert spec["spec"]["layer"][0]["encoding"]["x"]["sort"] == ["5", "10"]


def test_contention_legend_in_numeric_order():
    from throttlelab.report.charts.latency_charts import response_vs_contention

    pts = pl.DataFrame({"contention": [0.0, 0.2, 0.0], "mean_ms": [50.0, 60.0, 51.0], "load": ["10.0", "15.0", "5.0"]})
    spec = response_vs_contention(pts, color="load", color_title="requests/s").to_dict()
    color = spec["layer"][0]["encoding"]["color"]
    assert color["sort"] == ["5", "10", "15"] and color["title"] == "requests/s"
    assert spec["config"]["range"]["category"] == OKABE_ITO
