"""Latency charts: the worker-count chart has a title, axis titles with units, tooltips and interval bands."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import vl_convert as vlc

from throttlelab.report.charts.latency_charts import response_vs_workers


def summary(loads=(13.3,)) -> pl.DataFrame:
    rows = []
    for load in loads:
        for w in (2, 4, 6, 8, 10):
            row = {"load": load, "neighbour_workers": w, "n_ok": 40}
            for k, s in enumerate(("mean", "p90", "p95")):
                v = 0.05 + 0.01 * k + 0.001 * w
                row |= {f"{s}_seconds": v, f"{s}_low": v - 0.004, f"{s}_high": v + 0.004}
            rows.append(row)
    rows[0]["p95_low"] = float("nan")  # a missing interval must not break the JSON spec
    return pl.DataFrame(rows)


def test_workers_chart_layers_titles_and_tooltips():
    spec = response_vs_workers(summary()).to_dict()
    assert spec["title"]
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks == ["area", "line", "point"]
    text = json.dumps(spec)
    assert '"tooltip"' in text and "response time (ms)" in text and "busy workers" in text
    assert "NaN" not in text
    data = next(iter(spec["datasets"].values()))
    assert {d["stat"] for d in data} == {"mean", "p90", "p95"} and len(data) == 15
    assert np.isclose(next(d for d in data if d["stat"] == "p95" and d["neighbour_workers"] == 10)["ms"], 80.0)


def test_workers_chart_renders_with_several_loads():
    chart = response_vs_workers(summary(loads=(5.0, 13.3)))
    assert "strokeDash" in json.dumps(chart.to_dict())
    svg = vlc.vegalite_to_svg(chart.to_json())
    assert svg.startswith("<svg")
