"""Tests of throttlelab.report.charts.capacity_charts: projected capacity with its band and the measured points."""

from __future__ import annotations

import polars as pl

from throttlelab.analysis.capacity.capacity import projection_curve, unit_costs
from throttlelab.ingest.published.published import load_mediamtx
from throttlelab.report.charts.capacity_charts import capacity_chart

from .chart_checks import check_draws_a_band, check_title_tooltips_and_renders


def test_capacity_chart():
    costs = unit_costs(load_mediamtx())
    curves = pl.concat([projection_curve(c, [0, 64, 128], n_sim=200) for c in costs])
    measured = pl.DataFrame({"variant": [c.variant for c in costs], "units": [c.units for c in costs],
                             "cpu_cores": [c.cpu_cores for c in costs]})
    chart = capacity_chart(curves, measured, threshold_cores=0.7, unit="streams", title="capacity")
    check_title_tooltips_and_renders(chart)
    check_draws_a_band(chart)
