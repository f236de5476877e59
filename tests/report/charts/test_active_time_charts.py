"""Tests of throttlelab.report.charts.active_time_charts: active share of wall time against the limit, with its fit."""

from __future__ import annotations

from throttlelab.analysis.limits.active_time import fit_active_time
from throttlelab.ingest.published.published import load_go_active_time
from throttlelab.report.charts.active_time_charts import active_time_chart

from .chart_checks import check_draws_a_band, check_title_tooltips_and_renders


def test_active_time_chart():
    go = load_go_active_time()
    chart = active_time_chart(go, fit_active_time(go["limit_share"], go["active_over_wall"]), title="act")
    check_title_tooltips_and_renders(chart)
    check_draws_a_band(chart)
