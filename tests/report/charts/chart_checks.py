"""Checks every analysis chart must pass: titles, axis titles, tooltips, bands; compiles to Vega-Lite and renders."""

from __future__ import annotations

import json

import vl_convert as vlc


def check_title_tooltips_and_renders(chart) -> None:
    spec = chart.to_dict()
    assert spec["title"]
    text = json.dumps(spec)
    assert '"tooltip"' in text
    assert '"title"' in text.replace(json.dumps(spec["title"]), "")  # axis titles besides the chart title
    svg = vlc.vegalite_to_svg(chart.to_json())
    assert "<svg" in svg and "marks" in svg


def check_draws_a_band(chart) -> None:
    marks = [layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"]
             for layer in chart.to_dict()["layer"]]
    assert "area" in marks and "line" in marks
