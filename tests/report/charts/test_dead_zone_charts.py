"""Tests of throttlelab.report.charts.dead_zone_charts: the dead-zone chart of the published sweep."""

from __future__ import annotations

from throttlelab.analysis.limits.dead_zones import find_dead_zones
from throttlelab.report.charts.dead_zone_charts import dead_zone_chart

from .chart_checks import check_title_tooltips_and_renders


def test_dead_zone_chart(published_runs):
    [dz] = find_dead_zones(published_runs, n_sim=1000)
    check_title_tooltips_and_renders(dead_zone_chart(dz, title="dead zones"))
