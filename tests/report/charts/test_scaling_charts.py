"""Tests of throttlelab.report.charts.scaling_charts: runtime against the limit with the fitted band, curves that
coincide shown once, and a fit that misses the runs saying so."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from throttlelab.analysis.limits.scaling import fit_runtime_models
from throttlelab.report.charts.scaling_charts import fit_misses, miss_note, scaling_chart

from .chart_checks import check_draws_a_band, check_page_wide, check_title_tooltips_and_renders


@pytest.fixture(scope="module")
def published_fits(published_runs):
    fitted = published_runs.filter(pl.col("limit_x").is_not_null())
    return fit_runtime_models(fitted["limit_x"].to_numpy(), fitted["wall_seconds"].to_numpy(), n_boot=10)


def test_scaling_chart(published_runs, published_fits):
    chart = scaling_chart(published_runs, published_fits, title="scaling")
    check_title_tooltips_and_renders(chart)
    check_draws_a_band(chart)
    check_page_wide(chart)


def _line_layer(spec):
    return next(layer for layer in spec["layer"] if layer["mark"] == "line" or layer["mark"].get("type") == "line")


def test_the_legend_names_each_drawn_line_and_coinciding_models_share_one(published_runs, published_fits):
    """On the published sweep amdahl, usl and quota fit the same curve: one line, one entry naming all three."""
    chart = scaling_chart(published_runs, published_fits, title="scaling")
    spec = chart.to_dict()
    line = _line_layer(spec)
    names = line["encoding"]["color"]["scale"]["domain"]
    drawn = sorted(set(next(layer for layer in chart.layer if getattr(layer.mark, "type", layer.mark) == "line")
                       .data["name"]))
    assert sorted(names) == drawn, "every legend entry is a line on the chart, and every line has one"
    assert sorted(m for n in names for m in n.split(" = ")) == sorted(f.model for f in published_fits)
    assert names == ["amdahl = usl = quota"]
    assert line["encoding"]["strokeDash"]["title"] == line["encoding"]["color"]["title"], "dash shown in the legend"


def test_a_fit_that_misses_the_runs_says_so_under_the_title(published_runs, published_fits):
    """The published ffmpeg runs at 12-20 cores sit 1.3-2.1x below the fitted line (7 cores 2.2x above)."""
    chart = scaling_chart(published_runs, published_fits, title="scaling")
    subtitle = chart.to_dict()["title"]["subtitle"]
    assert "misses the runs" in subtitle and "below it at 12 cores" in subtitle and "above it at 7 cores" in subtitle
    pts = published_runs.filter(pl.col("limit_x").is_not_null()).select(
        pl.col("limit_x").alias("cores"), pl.col("wall_seconds").alias("seconds"))
    misses, limits = fit_misses(pts, published_fits[0])
    assert limits == 12 and 12.0 in dict(misses) and dict(misses)[12.0] < 1 / 1.5


def test_a_fit_through_the_runs_has_no_warning():
    rng = np.random.default_rng(1)
    cores = np.repeat([1.0, 2.0, 4.0, 8.0], 3)
    seconds = 2.0 + 40.0 / cores * np.exp(rng.normal(0, 0.05, cores.size))
    runs = pl.DataFrame({"limit_label": [f"{c:g}" for c in cores], "limit_x": cores, "wall_seconds": seconds})
    fits = fit_runtime_models(cores, seconds, n_boot=0)
    title = scaling_chart(runs, fits, title="clean").to_dict()["title"]
    assert title == "clean"
    assert miss_note([], 4, "amdahl") == ""


def test_examples_in_the_docstrings():
    import doctest

    from throttlelab.report.charts import scaling_charts

    assert doctest.testmod(scaling_charts).failed == 0


def test_the_legend_and_the_best_model_do_not_move_with_the_last_bits_of_the_fits(published_runs, published_fits):
    """Coinciding fits' AICs moved by a few ulps, in every order they may arrive in: the same best model, the same
    legend (the order once depended on these bits, and so changed with the CPU and BLAS)."""
    import dataclasses
    import math

    from throttlelab.analysis.limits import rank_fits

    def legend(fits):
        return _line_layer(scaling_chart(published_runs, fits, title="scaling").to_dict())["encoding"]["color"]["scale"]["domain"]

    expected = legend(published_fits)
    tied = published_fits[1].aic  # usl and quota coincide: their AICs differ in the last bits only
    for k in range(-4, 5):
        aic = tied
        for _ in range(abs(k)):
            aic = math.nextafter(aic, math.inf if k > 0 else -math.inf)
        moved = [published_fits[0], published_fits[1], dataclasses.replace(published_fits[2], aic=aic)]
        for order in (moved, moved[::-1], moved[1:] + moved[:1]):
            ranked = rank_fits(order)
            assert [f.model for f in ranked] == [f.model for f in published_fits] == ["amdahl", "usl", "quota"]
            assert legend(ranked) == expected == ["amdahl = usl = quota"]
