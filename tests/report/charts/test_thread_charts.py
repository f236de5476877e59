"""Tests of throttlelab.report.charts.thread_charts: the thread-count heatmap and auto-vs-best chart."""

from __future__ import annotations

from throttlelab.analysis.threads.thread_counts import analyse_thread_counts
from throttlelab.report.charts.thread_charts import auto_vs_best_chart, thread_heatmap

from .chart_checks import check_title_tooltips_and_renders


def test_thread_charts(thread_sweep_runs):
    [tc] = analyse_thread_counts(thread_sweep_runs)
    check_title_tooltips_and_renders(thread_heatmap(tc, title="heatmap"))
    check_title_tooltips_and_renders(auto_vs_best_chart(tc, title="auto"))


def test_heatmap_of_a_sweep_with_auto_only(published_runs):
    [tc_auto] = analyse_thread_counts(published_runs)
    check_title_tooltips_and_renders(thread_heatmap(tc_auto, title="heatmap auto"))
