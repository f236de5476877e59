"""Checks every analysis chart must pass: titles, axis titles, tooltips, bands; compiles to Vega-Lite and renders.
Also reads drawn marks back from the SVG (label and fill of each) and the luminance of a colour."""

from __future__ import annotations

import html
import json
import re

import vl_convert as vlc

from throttlelab.report.charts.style import WIDTH, with_static_width


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


def check_page_wide(chart) -> None:
    """A single or layered chart takes the page's width (``"container"``) and draws 1000 px wide without a page."""
    spec = chart.to_dict()
    assert spec["width"] == WIDTH
    width = float(re.search(r'<svg[^>]*\swidth="([\d.]+)"', svg(chart)).group(1))
    assert 990 <= width <= 1010, width


def svg(chart) -> str:
    """The chart drawn without a page (vl_convert), 1000 px wide when it is page-wide."""
    return vlc.vegalite_to_svg(with_static_width(chart.to_dict()))


def drawn_marks(chart, kind: str) -> list[dict]:
    """Every drawn mark of ``kind`` (``"rect"``, ``"text"``, ``"rule"``, ...): its aria label as a dict, its fill."""
    out = []
    for tag in re.findall(r'<(?:path|g|text|line)\b[^>]*aria-roledescription="' + kind + r' mark"[^>]*>', svg(chart)):
        label = html.unescape(re.search(r'aria-label="([^"]*)"', tag).group(1)) if "aria-label" in tag else ""
        fields = dict(p.split(": ", 1) for p in label.split("; ") if ": " in p)
        fill = re.search(r'fill="([^"]*)"', tag)
        out.append({"fields": fields, "fill": fill.group(1) if fill else None, "tag": tag})
    return out


def luminance(colour: str) -> float:
    """Relative luminance (0 black .. 1 white) of ``rgb(r, g, b)`` or ``#rrggbb``."""
    if colour.startswith("#"):
        rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    else:
        rgb = [int(float(v)) for v in re.findall(r"[\d.]+", colour)[:3]]
    lin = [(c / 255 / 12.92) if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
