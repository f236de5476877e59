"""Tests of throttlelab.report.charts.scaling_charts: runtime against the limit with the fitted band."""

from __future__ import annotations

import polars as pl

from throttlelab.analysis.limits.scaling import fit_runtime_models
from throttlelab.report.charts.scaling_charts import scaling_chart

from .chart_checks import check_draws_a_band, check_title_tooltips_and_renders


def test_scaling_chart(published_runs):
    ff = published_runs
    fitted = ff.filter(pl.col("limit_x").is_not_null())
    fits = fit_runtime_models(fitted["limit_x"].to_numpy(), fitted["wall_seconds"].to_numpy(), n_boot=10)
    chart = scaling_chart(ff, fits, title="scaling")
    check_title_tooltips_and_renders(chart)
    check_draws_a_band(chart)
