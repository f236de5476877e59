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


def test_a_latency_heatmap_reads_in_milliseconds_like_the_tables():
    from throttlelab.analysis.runs.prepare import prepare_runs
    from throttlelab.analysis.runs.runs_input import load_runs

    prepared = prepare_runs(load_runs("published:automaxprocs"), metric="latency_p999_seconds")
    [tc] = analyse_thread_counts(prepared.runs, metric=prepared.metric)
    spec = thread_heatmap(tc, title="p99.9").to_dict()
    values = next(iter(spec["datasets"].values()))
    by_threads = {r["threads"]: r["value"] for r in values}
    assert abs(by_threads["2"] - 26.38) < 0.01, "26.38 ms, not 0.02638 s"
    assert spec["layer"][0]["encoding"]["color"]["title"] == "p99.9 latency (ms)"
