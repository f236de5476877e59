"""Tests of throttlelab.report.charts.thread_charts: the thread-count heatmap and auto-vs-best chart."""

from __future__ import annotations

import pytest

from throttlelab.analysis.runs.prepare import prepare_runs
from throttlelab.analysis.runs.runs_input import load_runs
from throttlelab.analysis.threads.thread_counts import analyse_thread_counts
from throttlelab.report.charts.thread_charts import auto_vs_best_chart, thread_heatmap

from .conftest import FIXTURE
from .chart_checks import check_page_wide, check_title_tooltips_and_renders, drawn_marks, luminance


def test_thread_charts(thread_sweep_runs):
    [tc] = analyse_thread_counts(thread_sweep_runs)
    check_title_tooltips_and_renders(thread_heatmap(tc, title="heatmap"))
    check_title_tooltips_and_renders(auto_vs_best_chart(tc, title="auto"))


def test_heatmap_of_a_sweep_with_auto_only(published_runs):
    [tc_auto] = analyse_thread_counts(published_runs)
    check_title_tooltips_and_renders(thread_heatmap(tc_auto, title="heatmap auto"))


def test_a_latency_heatmap_reads_in_milliseconds_like_the_tables():
    from throttlelab.analysis.runs.prepare import prepare_runs
    from throttlelab.analysis.runs.runs_input import load_runs

    prepared = prepare_runs(load_runs("published:automaxprocs"), metric="latency_p999_seconds")
    [tc] = analyse_thread_counts(prepared.runs, metric=prepared.metric)
    spec = thread_heatmap(tc, title="p99.9").to_dict()
    values = next(iter(spec["datasets"].values()))
    by_threads = {r["threads"]: r["value"] for r in values}
    assert abs(by_threads["2"] - 26.38) < 0.01, "26.38 ms, not 0.02638 s"
    assert spec["layer"][0]["encoding"]["color"]["legend"]["title"].startswith("p99.9 latency (ms)")


def _value(mark) -> float:
    return float(mark["fields"]["value"].replace(",", ""))


@pytest.mark.parametrize("source, metric", [(str(FIXTURE), "wall_seconds"),
                                            ("published:automaxprocs", "throughput_rps")])
def test_the_best_cell_is_the_darkest_whichever_way_the_metric_points(source, metric):
    """The caption says "darker = better": lowest wall time, highest throughput; text stays readable."""
    prepared = prepare_runs(load_runs(source), metric=metric)
    a = analyse_thread_counts(prepared.runs, metric=prepared.metric)[0]
    chart = thread_heatmap(a, title="heatmap")
    cells = drawn_marks(chart, "rect")
    assert len(cells) == a.cells.height >= 4
    ranked = sorted(cells, key=_value, reverse=prepared.metric.higher_is_better)  # best first
    shades = [luminance(c["fill"]) for c in ranked]
    assert shades[0] == min(shades) and shades[-1] == max(shades), "darker = better"
    assert all(x <= y + 1e-9 for x, y in zip(shades, shades[1:])), "shade follows the metric"
    ink = {m["fields"]["value"]: m["fill"] for m in drawn_marks(chart, "text")}
    assert ink[ranked[0]["fields"]["value"]] == "white" and ink[ranked[-1]["fields"]["value"]] == "black"
    legend = chart.to_dict()["layer"][0]["encoding"]["color"]["legend"]
    assert "darker = better" in legend["title"] and len(legend["values"]) >= 3, "several ticks, not the two ends"
    check_page_wide(chart)


def test_auto_vs_best_axis_holds_every_interval_and_stops_at_minus_100(thread_sweep_runs):
    [tc] = analyse_thread_counts(thread_sweep_runs)
    chart = auto_vs_best_chart(tc, title="auto")
    spec = chart.to_dict()
    lo, hi = spec["layer"][0]["encoding"]["y"]["scale"]["domain"]
    t = tc.table()
    assert lo >= -100 and lo < min(t["auto_vs_best_ci_low_pct"].drop_nulls()) and \
        hi > max(t["auto_vs_best_ci_high_pct"].drop_nulls())
    check_page_wide(chart)
