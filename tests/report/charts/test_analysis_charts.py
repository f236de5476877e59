"""Charts of notebooks 03/04/07: titles, axis titles, tooltips, bands; they compile to Vega-Lite and render."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
import vl_convert as vlc

from throttlelab.analysis.active_time import fit_active_time
from throttlelab.analysis.capacity import projection_curve, unit_costs
from throttlelab.analysis.dead_zones import find_dead_zones
from throttlelab.analysis.prepare import prepare_runs
from throttlelab.analysis.runs_input import load_runs
from throttlelab.analysis.scaling import fit_runtime_models
from throttlelab.analysis.thread_counts import analyse_thread_counts
from throttlelab.ingest.published import load_go_active_time, load_mediamtx
from throttlelab.report.charts.active_time_charts import active_time_chart
from throttlelab.report.charts.capacity_charts import capacity_chart
from throttlelab.report.charts.dead_zone_charts import dead_zone_chart
from throttlelab.report.charts.scaling_charts import scaling_chart
from throttlelab.report.charts.thread_charts import auto_vs_best_chart, thread_heatmap

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "runs" / "thread_sweep.csv"


def _charts():
    ff = prepare_runs(load_runs("")).runs
    fitted = ff.filter(pl.col("limit_x").is_not_null())
    fits = fit_runtime_models(fitted["limit_x"].to_numpy(), fitted["wall_seconds"].to_numpy(), n_boot=10)
    [dz] = find_dead_zones(ff, n_sim=1000)
    [tc] = analyse_thread_counts(prepare_runs(load_runs(FIXTURE)).runs)
    [tc_auto] = analyse_thread_counts(ff)
    go = load_go_active_time()
    costs = unit_costs(load_mediamtx())
    curves = pl.concat([projection_curve(c, [0, 64, 128], n_sim=200) for c in costs])
    measured = pl.DataFrame({"variant": [c.variant for c in costs], "units": [c.units for c in costs],
                             "cpu_cores": [c.cpu_cores for c in costs]})
    return {
        "scaling": scaling_chart(ff, fits, title="scaling"),
        "dead_zones": dead_zone_chart(dz, title="dead zones"),
        "heatmap": thread_heatmap(tc, title="heatmap"),
        "heatmap_auto_only": thread_heatmap(tc_auto, title="heatmap auto"),
        "auto_vs_best": auto_vs_best_chart(tc, title="auto"),
        "active_time": active_time_chart(go, fit_active_time(go["limit_share"], go["active_over_wall"]), title="act"),
        "capacity": capacity_chart(curves, measured, threshold_cores=0.7, unit="streams", title="capacity"),
    }


CHARTS = _charts()


@pytest.mark.parametrize("name", list(CHARTS))
def test_chart_has_title_tooltips_and_renders(name):
    spec = CHARTS[name].to_dict()
    assert spec["title"]
    text = json.dumps(spec)
    assert '"tooltip"' in text
    assert '"title"' in text.replace(json.dumps(spec["title"]), "")  # axis titles besides the chart title
    svg = vlc.vegalite_to_svg(CHARTS[name].to_json())
    assert "<svg" in svg and "marks" in svg


@pytest.mark.parametrize("name", ["scaling", "active_time", "capacity"])
def test_fitted_charts_draw_a_band(name):
    marks = [layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"]
             for layer in CHARTS[name].to_dict()["layer"]]
    assert "area" in marks and "line" in marks
